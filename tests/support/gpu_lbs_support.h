/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the GPU tests of load-balancing search, expand and move (test_gpu_lbs.c,
 * test_gpu_move.c): offsets of work items in skewed and random patterns, and device buffers.
 * After gpu_primitives_support.h (ctx, small). Header-only and static, as that one. */
#ifndef MJ_TEST_GPU_LBS_SUPPORT_H
#define MJ_TEST_GPU_LBS_SUPPORT_H

#include <stdint.h>
#include <stdlib.h>

#include "gpu_primitives_support.h"

typedef enum pattern { ONE_OWNER, EMPTY_RUNS, ALL_ONES, RANDOM, PATTERN_COUNT } pattern;
static const char *const pattern_names[] = {"one owner", "empty runs", "all ones", "random"};

static inline int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The offsets (exclusive scan of the counts) of `items` work items in the pattern; their
 * number in *objects (0 only when items is 0 and the pattern allows it). */
static inline int64_t *make_offsets(pattern p, size_t items, size_t *objects, uint64_t seed) {
    size_t n;
    switch (p) {
    case ONE_OWNER: n = small ? 300 : 3000; break;
    case EMPTY_RUNS: n = items / 4 + 2000; break;
    case ALL_ONES: n = items; break;
    default: n = items / 8 + 1; break;
    }
    int64_t *off = malloc(sizeof *off * (n + 1));
    ck_assert_ptr_nonnull(off);
    uint64_t rng = seed;
    for (size_t j = 0; j < n; ++j) {
        switch (p) {
        case ONE_OWNER: off[j] = j <= n / 2 ? 0 : (int64_t)items; break;
        case EMPTY_RUNS: {
            size_t owners = (n - 1) / 700 + 1, per = items / owners;
            off[j] = (int64_t)(((j + 699) / 700) * per);
            break;
        }
        case ALL_ONES: off[j] = (int64_t)j; break;
        default: off[j] = j ? (int64_t)(mjt_rand(&rng) % (items + 1)) : 0; break;
        }
    }
    if (p == RANDOM) qsort(off, n, sizeof *off, cmp_i64);
    *objects = n;
    return off;
}

/* The offsets as the key type on the device (room for one byte when there are none). */
static inline void *dev_offsets(const int64_t *off, size_t n, size_t ks) {
    unsigned char *h = malloc(n * ks + 1);
    ck_assert_ptr_nonnull(h);
    for (size_t j = 0; j < n; ++j) put_key(h, ks, j, (uint64_t)off[j]);
    void *d = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &d, n * ks + 1), MJ_OK);
    if (n) ck_assert_int_eq(mj__dev_upload(ctx, d, h, n * ks), MJ_OK);
    free(h);
    return d;
}

#endif
