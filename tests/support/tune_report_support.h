/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the autotuner report tests (test_tune_*.c): a sample sweep with every outcome, its
 * run information, and counting in text and directories. Header-only, so that the support
 * library's sources stay as they are; static inline, so that a program leaving some of them
 * unused compiles without a warning. */
#ifndef MJ_TEST_TUNE_REPORT_SUPPORT_H
#define MJ_TEST_TUNE_REPORT_SUPPORT_H

#include <check.h>

#include "test_support.h"
#include "tune.h"

#include <dirent.h>
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- the sample sweep */

/* Three configurations, in this order of first appearance:
 *   mergesort 4/0: NT 128 and 256 measured at VT 1..7, then spills / a failed run, a skip;
 *                  the default is 256x5 and the best 256x7;
 *   merge 8/4:     NT 128 measured at VT 1 and 3 (best 128x3), then a build failure; NT 256
 *                  invalid;
 *   segsort 2/0:   nothing measured. */
#define NPOINTS 20

static inline tune_point pt(mj_primitive prim, size_t key, size_t value, int nt, int vt,
                            tune_outcome outcome, double score)
{
    tune_point p;
    memset(&p, 0, sizeof p);
    p.primitive = prim;
    p.key_size = key;
    p.value_size = value;
    p.nt = nt;
    p.vt = vt;
    p.bs_nt = 512;
    p.outcome = outcome;
    p.registers = outcome == TUNE_MEASURED ? 32 + vt : -1;
    p.spill_bytes = outcome == TUNE_SPILLS ? 24 : -1;
    if (outcome == TUNE_MEASURED) {
        p.gkeys[0] = score * 0.9;
        p.gkeys[1] = score * 1.1;
        p.score = score;
    }
    return p;
}

static inline size_t sample_points(tune_point *p)
{
    size_t n = 0;
    p[n++] = pt(MJ_MERGESORT, 4, 0, 128, 1, TUNE_MEASURED, 10);
    p[n++] = pt(MJ_MERGE, 8, 4, 128, 1, TUNE_MEASURED, 5);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 128, 3, TUNE_MEASURED, 14);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 128, 5, TUNE_MEASURED, 16);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 128, 7, TUNE_MEASURED, 15);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 128, 9, TUNE_SPILLS, 0);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 128, 11, TUNE_SKIPPED, 0);
    /* Listed out of VT order: the line must still run left to right. */
    p[n++] = pt(MJ_MERGESORT, 4, 0, 256, 7, TUNE_MEASURED, 21);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 256, 1, TUNE_MEASURED, 12);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 256, 3, TUNE_MEASURED, 17);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 256, 5, TUNE_MEASURED, 19);
    p[n - 1].is_default = 1;
    p[n++] = pt(MJ_MERGESORT, 4, 0, 256, 9, TUNE_RUN_FAILED, 0);
    p[n - 1].registers = 64;
    p[n - 1].spill_bytes = 0;
    p[n - 1].gkeys[0] = NAN;
    p[n - 1].gkeys[1] = INFINITY;
    p[n - 1].score = NAN;
    strcpy(p[n - 1].note, "said \"no\" \\ at\001 end <&>");
    p[n++] = pt(MJ_MERGE, 8, 4, 128, 3, TUNE_MEASURED, 6);
    p[n++] = pt(MJ_MERGE, 8, 4, 128, 5, TUNE_BUILD_FAILED, 0);
    p[n++] = pt(MJ_MERGE, 8, 4, 256, 1, TUNE_INVALID, 0);
    p[n++] = pt(MJ_SEGMENTED_SORT, 2, 0, 128, 1, TUNE_SPILLS, 0);
    p[n - 1].is_default = 1;
    p[n++] = pt(MJ_SEGMENTED_SORT, 2, 0, 128, 3, TUNE_SKIPPED, 0);
    p[n++] = pt(MJ_SEGMENTED_SORT, 2, 0, 256, 1, TUNE_PENDING, 0);
    p[n++] = pt(MJ_MERGE, 8, 4, 256, 3, TUNE_SKIPPED, 0);
    p[n++] = pt(MJ_SEGMENTED_SORT, 2, 0, 256, 3, TUNE_SKIPPED, 0);
    ck_assert_uint_eq(n, NPOINTS);
    return n;
}

static inline tune_run_info sample_info(void)
{
    tune_run_info info;
    memset(&info, 0, sizeof info);
    info.device = "NVIDIA \"A&B\" <GPU>";
    info.sm = 90;
    info.size_count = 2;
    info.log2_sizes[0] = 24;
    info.log2_sizes[1] = 26;
    info.reps = 5;
    info.quick = 1;
    info.version = "0.1.0";
    return info;
}

/* ---------------------------------------------------------------- helpers */

static inline size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* Names in dir apart from "." and "..". */
static inline int entries(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

#endif
