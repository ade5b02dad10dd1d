/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit tune` end to end without a GPU: the tool runs on a driver that runs nothing
 * (support/fake_cuda.c), so its builders really compile (NVRTC, ptxas's spill report) while
 * the measuring loop, the checks on their threads, the verdicts and the reports work on
 * outputs the fake hands back: sorted (the checks pass) or as the input was (they fail). CPU
 * only; a few candidates, compiled on two threads. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Runs the quick sweep of 4-byte keys alone at NT 64 and 128 (VT 19 to 27, and the default
 * 256 x 23 x 512 appended) on 2^lg keys, into json; sort: the fake sorts what is read back. */
static mjt_tool_run sweep(const char *cache, const char *json, int sort, const char *lg)
{
    static char cache_env[4200], driver_env[4200];
    snprintf(cache_env, sizeof cache_env, "MERGEJIT_CACHE_DIR=%s", cache);
    snprintf(driver_env, sizeof driver_env, "MERGEJIT_LIBCUDA=%s", MJ_FAKE_CUDA_PATH);
    const char *const env[] = {driver_env, cache_env,
                               sort ? "MJT_FAKE_CUDA_SORT=1" : "MJT_FAKE_CUDA_SORT=0",
                               NULL};
    const char *const args[] = {"tune", "--primitives", "mergesort", "--keys", "4",
                                "--values", "0", "--nt", "64,128", "--quick", "--sizes", lg,
                                "--reps", "2", "--threads", "2", "--no-save", "--json", json,
                                NULL};
    return mjt_run_tool(args, env);
}

START_TEST(sweep_on_a_driver_that_runs_nothing)
{
    char *dir = mjt_tmpdir(), cache[4200], json[4200];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    snprintf(json, sizeof json, "%s/points.json", dir);

    /* Checks pass. On sm_90, VT 21 spills at both NTs (the 4-way merge's 32 bytes): each
     * lane keeps VT 19, loses 21 to the spill and 23 to 27 to skips; the default is measured
     * whatever its lane did. */
    mjt_tool_run r = sweep(cache, json, 1, "10");
    ck_assert_msg(r.status == 0, "tune exited %d:\n%s\n%s", r.status, r.out, r.err);
    ck_assert_msg(strstr(r.out, "11 candidate tiles") && strstr(r.out, "3 of 11 candidates "
                                                                       "measured"),
                  "%s", r.out);
    /* 1024 keys hold less than the 4-way threshold's smallest size. */
    ck_assert_msg(strstr(r.out, "mergesort k4 v0 ") &&
                      strstr(r.out, "4-way threshold not measured (the inputs hold less than "
                                    "2^20 bytes); the built-in rule stays"),
                  "%s", r.out);
    ck_assert_msg(strstr(r.err, "swept in ") && strstr(r.err, "waiting for compiles") &&
                      strstr(r.err, "on the GPU") && strstr(r.err, "the checks took") &&
                      strstr(r.err, "built ") &&
                      strstr(r.err, "after the sweep: ") && strstr(r.err, "releasing the device"),
                  "%s", r.err);
    /* The builders still compiling when the sweep ends (candidates it ruled out) are left to
     * end with the process: at most the two started. */
    int left = -1;
    const char *after = strstr(r.err, "after the sweep: ");
    ck_assert_msg(after && sscanf(after, "after the sweep: %d compiling thread", &left) == 1 &&
                      left >= 0 && left <= 2 && strstr(after, "left to end with the process"),
                  "%s", r.err);
    /* Each build compiles its blocksort, 2-way merge and 4-way merge (no two candidates share
     * a tile shape they use), and the two 4-way partitions only while no build has stored
     * them: one build, or both of the first two at once. No 2-way partition: the passes are
     * fused. */
    size_t built = 0, programs = 0;
    const char *line = strstr(r.err, "built ");
    ck_assert_msg(line && sscanf(line, "built %zu candidates on 2 threads (%zu NVRTC programs",
                                 &built, &programs) == 2, "%s", r.err);
    ck_assert_msg(built >= 3 && programs >= 3 * built + 2 && programs <= 3 * built + 4,
                  "%zu builds compiled %zu programs", built, programs);
    char *points = mjt_read_file(json, NULL);
    ck_assert_uint_eq(count_of(points, "\"outcome\": \"measured\""), 3);
    ck_assert_uint_eq(count_of(points, "\"outcome\": \"spills\""), 2);
    ck_assert_uint_eq(count_of(points, "\"outcome\": \"skipped\""), 6);
    ck_assert_uint_eq(count_of(points, "\"nt\": 64, \"vt\": 19, \"bs_nt\": 128, "
                                       "\"default\": false, \"outcome\": \"measured\""), 1);
    ck_assert_uint_eq(count_of(points, "\"nt\": 256, \"vt\": 23, \"bs_nt\": 512, "
                                       "\"default\": true, \"outcome\": \"measured\""), 1);
    free(points);
    mjt_tool_run_free(&r);

    /* Checks fail (the output is the unsorted input): each lane's first point is rejected
     * with the check's message, and the rest of its lane is ruled out (skipped, or rejected
     * for its spill where its build ended first); nothing is measured, so the tool fails. */
    r = sweep(cache, json, 0, "10");
    ck_assert_msg(r.status == 1, "tune exited %d:\n%s\n%s", r.status, r.out, r.err);
    ck_assert_msg(strstr(r.err, "1 configuration had no tile that built and ran"), "%s", r.err);
    points = mjt_read_file(json, NULL);
    ck_assert_uint_eq(count_of(points, "\"outcome\": \"measured\""), 0);
    ck_assert_uint_eq(count_of(points, "\"outcome\": \"run-failed\""), 3);
    ck_assert_uint_eq(count_of(points, "the result is out of order"), 3);
    ck_assert_uint_eq(count_of(points, "\"outcome\": \"spills\"") +
                          count_of(points, "\"outcome\": \"skipped\""),
                      8);
    free(points);
    mjt_tool_run_free(&r);

    /* 2^18 keys hold 2^20 bytes: the winner is timed (and its output checked) both ways
     * there. The fake's runs take no time, so 4-way passes never lead. */
    r = sweep(cache, json, 1, "18");
    ck_assert_msg(r.status == 0, "tune exited %d:\n%s\n%s", r.status, r.out, r.err);
    ck_assert_msg(strstr(r.out, "4-way passes never ahead at the largest size measured; the "
                                "built-in rule stays; Gkeys/s 2-way/4-way at 2^20 "),
                  "%s", r.out);
    mjt_tool_run_free(&r);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tune_sweep");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, sweep_on_a_driver_that_runs_nothing);
    suite_add_tcase(s, tc);
    return mjt_run(s, 1);
}
