/* SPDX-License-Identifier: Apache-2.0 */
/* The passes a mergesort should run, stated from the schedule's definition (docs/TUNING.md,
 * "Mergesort's passes") rather than from the library's arithmetic, for the pass profile's
 * tests with and without a GPU (test_sort_passes.c, test_gpu_profile.c). Header-only, so that
 * the support library's sources stay as they are. */
#ifndef MJ_TEST_SORT_PASSES_SUPPORT_H
#define MJ_TEST_SORT_PASSES_SUPPORT_H

#include <check.h>
#include <stddef.h>

#include "mergejit.h"
#include "shared/merge_frame.h" /* MJ_MERGE4_MIN_BYTES: where 4-way passes start */

/* A sort of n elements of `element` bytes (key and value), with merge tiles of nv elements and
 * a blocksort that sorts runs of `runs` tiles: the blocksort, then one doubling of the sorted
 * runs per 2-way pass until one run holds everything. ways (MERGEJIT_MERGE_WAYS): 2, 4 (two
 * doublings a pass, the odd one first as a 2-way pass), 0 (4 from MJ_MERGE4_MIN_BYTES of
 * input). fused: 2-way passes launch one kernel, else two; 4-way passes two. Fills
 * out[0 .. min(count, cap)) and returns the count; n == 0 runs nothing. */
static inline int mjt_model_passes(size_t n, long long nv, long long runs, int ways, int fused,
                                   size_t element, mj_sort_pass *out, int cap) {
    if (n == 0) return 0;
    unsigned long long blocks = (n + (size_t)(nv * runs) - 1) / (size_t)(nv * runs);
    int levels = 0;
    while ((1ull << levels) < blocks) ++levels;
    if (ways == 0) ways = (unsigned long long)n * element >= (unsigned long long)MJ_MERGE4_MIN_BYTES
                              ? 4 : 2;
    int twos = ways == 2 ? levels : levels % 2, fours = ways == 2 ? 0 : levels / 2;
    int count = 1 + twos + fours;
    for (int i = 0; i < count && i < cap; ++i) {
        mj_pass_kind kind = i == 0      ? MJ_PASS_BLOCKSORT
                            : i <= twos ? MJ_PASS_MERGE2
                                        : MJ_PASS_MERGE4;
        out[i].kind = kind;
        out[i].launches = kind == MJ_PASS_BLOCKSORT ? 1 : kind == MJ_PASS_MERGE2 && fused ? 1 : 2;
        out[i].ms = 0;
        out[i].bytes = n * element * 2;
    }
    return count;
}

/* The library's passes (got, count of them) are the model's (want, want_count) in kind,
 * launches and bytes; `what` names the case in a failure. */
static inline void mjt_expect_passes(const mj_sort_pass *got, int count, const mj_sort_pass *want,
                                     int want_count, const char *what) {
    ck_assert_msg(count == want_count, "%s: %d passes, the model says %d", what, count,
                  want_count);
    for (int i = 0; i < count; ++i) {
        ck_assert_msg(got[i].kind == want[i].kind, "%s: pass %d is of kind %d, not %d", what, i,
                      (int)got[i].kind, (int)want[i].kind);
        ck_assert_msg(got[i].launches == want[i].launches, "%s: pass %d launches %d, not %d",
                      what, i, got[i].launches, want[i].launches);
        ck_assert_msg(got[i].bytes == want[i].bytes, "%s: pass %d moves %zu bytes, not %zu", what,
                      i, got[i].bytes, want[i].bytes);
    }
}

#endif
