/* SPDX-License-Identifier: Apache-2.0 */
/* A CPU model of interval move's index arithmetic (templates/shared/interval_move.h, the code
 * the kernel runs): for i32 and i64 entries at and near their extremes, offsets and items in
 * the contract (0 <= off <= item < 2^62) and counts up to 2^63 - 1, the wrapped index passes
 * the kernel's one comparison exactly when the true index entry + item - off lies in
 * [0, count), and equals it then. (With any offsets an index that passes is inside the array
 * by construction: the comparison is the bound.) CPU only. */
#include <stdint.h>
#include <stdio.h>

#include "shared/interval_move.h"
#include "test_support.h"

typedef __int128 i128;

/* The kernel's test: the item's index from its interval's shift, and whether it is used. */
static int kernel_index(long long entry, long long off, long long item, unsigned long long count,
                        unsigned long long *at) {
    *at = mj_move_index(item, mj_move_shift(entry, off));
    return *at < count;
}

/* Counts a case where the kernel's test disagrees with the exact index (or passes with
 * another value), keeping the first in *first; one assertion a test, as each passing Check
 * assertion writes a record. */
static void check_one(long long entry, long long off, long long item, unsigned long long count,
                      long *bad, char *first, size_t cap) {
    unsigned long long at;
    int used = kernel_index(entry, off, item, count, &at);
    i128 exact = (i128)entry + item - off;
    int want = exact >= 0 && exact < (i128)count;
    if ((used != want || (used && (i128)at != exact)) && (*bad)++ == 0)
        snprintf(first, cap, "entry %lld, off %lld, item %lld, count %llu: used %d, want %d",
                 entry, off, item, count, used, want);
}

START_TEST(exact_within_contract)
{
    const long long i32_min = INT32_MIN, i32_max = INT32_MAX, i64_min = INT64_MIN;
    const long long i64_max = INT64_MAX, lim = INT64_MAX / 2; /* items stay below 2^62 */
    long bad = 0;
    char first[200] = "";
    const long long entries[] = {0, 1, -1, 5, 100, i32_min, i32_min + 1, i32_max, i32_max - 1,
                                 i64_min, i64_min + 1, i64_max, i64_max - 1, -lim, lim};
    const long long items[] = {0, 1, 7, 100, i32_max - 1, i32_max, lim - 1, lim};
    const unsigned long long counts[] = {0, 1, 8, 101, (unsigned long long)i32_max,
                                         (unsigned long long)i32_max + 1, 1ull << 32,
                                         (unsigned long long)lim, (unsigned long long)i64_max};
    for (size_t e = 0; e < sizeof entries / sizeof *entries; ++e)
        for (size_t i = 0; i < sizeof items / sizeof *items; ++i)
            for (size_t c = 0; c < sizeof counts / sizeof *counts; ++c) {
                long long item = items[i];
                /* offsets from the first to the item itself (rank 0 to item) */
                const long long offs[] = {0, item / 2, item > 0 ? item - 1 : 0, item};
                for (size_t o = 0; o < 4; ++o)
                    check_one(entries[e], offs[o], item, counts[c], &bad, first, sizeof first);
            }
    uint64_t rng = 7;
    for (int n = 0; n < 1000000; ++n) {
        int wide = n & 1;
        long long item = (long long)(mjt_rand(&rng) % (wide ? (uint64_t)lim + 1 : 1ull << 31));
        long long off = item ? (long long)(mjt_rand(&rng) % (uint64_t)(item + 1)) : 0;
        long long entry = wide ? (long long)mjt_rand(&rng) : (long long)(int32_t)mjt_rand(&rng);
        unsigned long long count = mjt_rand(&rng) % ((n & 2) ? (uint64_t)i64_max : 1ull << 33);
        check_one(entry, off, item, count, &bad, first, sizeof first);
    }
    ck_assert_msg(bad == 0, "%ld cases wrong, the first: %s", bad, first);
}
END_TEST

int main(void) {
    Suite *s = suite_create("move_model");
    TCase *tc = tcase_create("index");
    tcase_add_test(tc, exact_within_contract);
    suite_add_tcase(s, tc);
    return mjt_run(s, 1);
}
