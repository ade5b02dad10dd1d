/* SPDX-License-Identifier: Apache-2.0 */
/* The tuning table (store/tuning_file.h): a round trip through a file with its exact layout,
 * and lookups and replacements by device, sm, primitive and sizes. CPU only. */
#include <check.h>

#include "test_support.h"
#include "tuning_support.h"
#include "store/tuning_file.h"
#include "store/tuning_parse.h"
#include "store/tuning_write.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- round trips */

START_TEST(roundtrip)
{
    char *dir = mjt_tmpdir(), path[PATH_MAX], err[512] = "";
    snprintf(path, sizeof path, "%s/tuning", dir);
    mj_tuning t = {0}, back;
    fill_sample(&t);
    ck_assert_uint_eq(t.count, 8);
    ck_assert_msg(mj__tuning_write(path, &t, err, sizeof err) == 0, "write: %s", err);
    ck_assert_msg(mj__tuning_read(path, &back, err, sizeof err) == 0, "read: %s", err);
    assert_same_tuning(&back, &t);

    /* Writing what was read gives the same bytes. */
    char *first = mjt_read_file(path, NULL);
    ck_assert_msg(mj__tuning_write(path, &back, err, sizeof err) == 0, "write: %s", err);
    char *second = mjt_read_file(path, NULL);
    ck_assert_str_eq(first, second);

    /* The layout: devices in order of first appearance, entries sorted within each. */
    const char *want = "mergejit-tuning 2\n"
                       "# written by mergejit " MJ_VERSION_STRING "\n"
                       "\n"
                       "device 90 NVIDIA H100 80GB HBM3\n"
                       "tile mergesort 4 0 256 23 512 20.41 24\n"
                       "tile mergesort 4 4 256 15 256 11.01 0\n"
                       "tile merge 8 8 128 9 128 0.00 0\n"
                       "tile locality 256 64 32 1 1024 0.50 0\n"
                       "\n"
                       "device 80 NVIDIA A100-SXM4-40GB\n"
                       "tile mergesort 8 0 1024 63 1024 1234.57 0\n"
                       "tile segsort 4 4 128 15 256 3.14 0\n"
                       "\n"
                       "device 89 NVIDIA H100 80GB HBM3\n"
                       "tile mergesort 1 0 64 7 64 7.00 0\n"
                       "\n"
                       "device 75 Odd  name\xc3\xa9 with #hash\n"
                       "tile mergesort 2 0 512 3 1024 1000000.00 0\n";
    ck_assert_str_eq(first, want);
    free(first);
    free(second);

    /* An empty table round-trips too. */
    mj_tuning empty = {0};
    ck_assert_int_eq(mj__tuning_write(path, &empty, err, sizeof err), 0);
    mj__tuning_free(&back);
    ck_assert_int_eq(mj__tuning_read(path, &back, err, sizeof err), 0);
    ck_assert_uint_eq(back.count, 0);

    mj__tuning_free(&back);
    mj__tuning_free(&t);
    ck_assert_ptr_null(t.entries);
    ck_assert_uint_eq(t.count, 0);
    mj__tuning_free(&t); /* twice is fine */
    mj__tuning_free(NULL);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* ---------------------------------------------------------------- find and set */

START_TEST(find_and_set)
{
    mj_tuning t = {0};
    ck_assert_ptr_null(mj__tuning_find(&t, "A", 90, MJ_MERGESORT, 4, 0));
    fill_sample(&t);
    const char *h100 = "NVIDIA H100 80GB HBM3";
    const mj_tuning_entry *e = mj__tuning_find(&t, h100, 90, MJ_MERGESORT, 4, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(e->vt, 23);
    /* Misses: each part of the key alone. */
    ck_assert_ptr_null(mj__tuning_find(&t, "NVIDIA H100 80GB HBM", 90, MJ_MERGESORT, 4, 0));
    ck_assert_ptr_null(mj__tuning_find(&t, "NVIDIA H100 80GB HBM3 ", 90, MJ_MERGESORT, 4, 0));
    ck_assert_ptr_null(mj__tuning_find(&t, "nvidia h100 80gb hbm3", 90, MJ_MERGESORT, 4, 0));
    ck_assert_ptr_null(mj__tuning_find(&t, h100, 86, MJ_MERGESORT, 4, 0));
    ck_assert_ptr_null(mj__tuning_find(&t, h100, 90, MJ_SEGMENTED_SORT, 4, 0));
    ck_assert_ptr_null(mj__tuning_find(&t, h100, 90, MJ_MERGESORT, 8, 0));
    ck_assert_ptr_null(mj__tuning_find(&t, h100, 90, MJ_MERGESORT, 4, 8));
    ck_assert_ptr_null(mj__tuning_find(&t, NULL, 90, MJ_MERGESORT, 4, 0));
    /* The same name on sm 89 is another entry. */
    e = mj__tuning_find(&t, h100, 89, MJ_MERGESORT, 1, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(e->vt, 7);

    /* set replaces the entry with the same key, keeping the count. */
    size_t n = t.count;
    set_ok(&t, entry(h100, 90, MJ_MERGESORT, 4, 0, 512, 11, 1024, 30.5));
    ck_assert_uint_eq(t.count, n);
    e = mj__tuning_find(&t, h100, 90, MJ_MERGESORT, 4, 0);
    ck_assert_int_eq(e->nt, 512);
    ck_assert_int_eq(e->vt, 11);
    ck_assert_int_eq(e->bs_nt, 1024);
    ck_assert(e->gkeys == 30.5);
    /* ... and adds one that differs in any part. */
    set_ok(&t, entry(h100, 90, MJ_MERGESORT, 4, 8, 128, 7, 128, 1));
    ck_assert_uint_eq(t.count, n + 1);
    /* Many entries: growth keeps the earlier ones. */
    for (size_t k = 1; k <= 200; k++)
        set_ok(&t, entry("grow", 70, MJ_MERGE, k, 0, 64, 3, 64, (double)k));
    ck_assert_uint_eq(t.count, n + 201);
    for (size_t k = 1; k <= 200; k++) {
        e = mj__tuning_find(&t, "grow", 70, MJ_MERGE, k, 0);
        ck_assert_ptr_nonnull(e);
        ck_assert(e->gkeys == (double)k);
    }
    ck_assert_int_eq(mj__tuning_find(&t, h100, 90, MJ_MERGESORT, 4, 0)->nt, 512);
    mj__tuning_free(&t);
}
END_TEST

static Suite *tuning_table_suite(void)
{
    Suite *s = suite_create("tuning_table");
    TCase *tc = tcase_create("tuning_file");
    tcase_add_test(tc, roundtrip);
    tcase_add_test(tc, find_and_set);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mjt_run(tuning_table_suite(), 1);
}
