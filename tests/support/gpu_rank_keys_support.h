/* SPDX-License-Identifier: Apache-2.0 */
/* Keys made from ranks, for the GPU tests of sorted search and join (test_gpu_search.c,
 * test_gpu_join.c): u32, i64, f32 (with -inf, -0, +0, +inf and NaNs of both signs: the
 * header's total order), f32 and u32 descending, and the rec struct. Each kind's map from a
 * rank r in [0, range) to a key is increasing in its order and one-to-one on equivalence
 * classes, so a reference computes on the ranks. After gpu_primitives_support.h (ctx, rec).
 * Header-only and static, as that one. */
#ifndef MJ_TEST_GPU_RANK_KEYS_SUPPORT_H
#define MJ_TEST_GPU_RANK_KEYS_SUPPORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_primitives_support.h"

typedef struct kind {
    const char *name;
    mj_key_kind key;
    mj_order order;
    size_t size;
    void (*make)(void *dst, uint64_t r, uint64_t range, uint64_t *rng);
} kind;

static inline void make_u32(void *d, uint64_t r, uint64_t range, uint64_t *rng) {
    (void)range, (void)rng;
    uint32_t k = (uint32_t)r;
    memcpy(d, &k, 4);
}
static inline void make_u32_desc(void *d, uint64_t r, uint64_t range, uint64_t *rng) {
    (void)range, (void)rng;
    uint32_t k = UINT32_MAX - (uint32_t)r;
    memcpy(d, &k, 4);
}
static inline void make_i64(void *d, uint64_t r, uint64_t range, uint64_t *rng) {
    (void)rng;
    int64_t k = ((int64_t)r - (int64_t)(range / 2)) * 1000003;
    memcpy(d, &k, 8);
}
/* -inf, negatives, -0, +0, positives, +inf at range - 3; then the NaNs: a positive one at
 * range - 2 and a negative one at range - 1 (the header's order: NaNs by their bits, positive
 * before negative, last in both orders). */
static inline float f32_value(uint64_t m, uint64_t range) {
    if (m == 0) return -1.0f / 0.0f;
    if (m == range - 3) return 1.0f / 0.0f;
    int64_t d = (int64_t)m - (int64_t)(range / 2);
    return d < 0 ? (float)d * 0.5f : d == 0 ? -0.0f : (float)(d - 1) * 0.5f;
}
static inline void make_f32(void *d, uint64_t r, uint64_t range, uint64_t *rng) {
    (void)rng;
    uint32_t nan = r == range - 1 ? 0xffc00123u : 0x7fc00000u;
    float v = f32_value(r, range);
    if (r + 2 >= range) memcpy(&v, &nan, 4);
    memcpy(d, &v, 4);
}
/* Descending: +inf first, -inf, then the NaNs as ascending. */
static inline void make_f32_desc(void *d, uint64_t r, uint64_t range, uint64_t *rng) {
    if (r + 2 >= range) {
        make_f32(d, r, range, rng);
        return;
    }
    float v = f32_value(range - 3 - r, range);
    memcpy(d, &v, 4);
}
/* Four ranks a hi; the tag, random, is not compared. */
static inline void make_rec(void *d, uint64_t r, uint64_t range, uint64_t *rng) {
    (void)range;
    rec k = {(uint32_t)(r >> 2), (uint32_t)(r & 3), (uint32_t)mjt_rand(rng)};
    memcpy(d, &k, sizeof k);
}

static const kind kinds[] = {
    {"u32", MJ_KEY_U32, MJ_ASCENDING, 4, make_u32},
    {"i64", MJ_KEY_I64, MJ_ASCENDING, 8, make_i64},
    {"f32", MJ_KEY_F32, MJ_ASCENDING, 4, make_f32},
    {"f32 descending", MJ_KEY_F32, MJ_DESCENDING, 4, make_f32_desc},
    {"u32 descending", MJ_KEY_U32, MJ_DESCENDING, 4, make_u32_desc},
    {"rec (hi, lo)", MJ_KEY_CUSTOM, MJ_ASCENDING, sizeof(rec), make_rec},
};
#define KINDS (int)(sizeof kinds / sizeof *kinds)

/* The description of primitive p over keys of kind k. */
static inline mj_sort_desc kind_desc(mj_primitive p, const kind *k) {
    mj_sort_desc d = k->key == MJ_KEY_CUSTOM ? rec_desc(p) : (mj_sort_desc){0};
    d.primitive = p;
    d.key = k->key;
    d.order = k->order;
    return d;
}

static inline mj_sorter *kind_sorter(mj_primitive p, const kind *k) {
    mj_sort_desc d = kind_desc(p, k);
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, &d, &s);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", k->name, mj_status_name(st),
                  mj_context_last_error(ctx));
    return s;
}

/* Ends making ranks for a and b: *range is one more than the largest (so the special f32 keys,
 * at the ends of the range, occur); both are sorted unless `sorted` is 0. */
static inline void ranks_done(uint64_t *a, size_t ac, uint64_t *b, size_t bc, uint64_t *range,
                              int sorted) {
    *range = 1;
    for (size_t i = 0; i < ac; ++i) *range = a[i] >= *range ? a[i] + 1 : *range;
    for (size_t j = 0; j < bc; ++j) *range = b[j] >= *range ? b[j] + 1 : *range;
    if (!sorted) return;
    qsort(a, ac, sizeof *a, cmp_u64);
    qsort(b, bc, sizeof *b, cmp_u64);
}

/* The keys of kind k for ranks r[0, n) on the device (dev_bytes: never NULL). */
static inline void *dev_rank_keys(const kind *k, const uint64_t *r, size_t n, uint64_t range,
                                  uint64_t *rng) {
    unsigned char *h = malloc(n * k->size + 1);
    ck_assert_ptr_nonnull(h);
    for (size_t i = 0; i < n; ++i) k->make(h + i * k->size, r[i], range, rng);
    void *d = dev_bytes(h, n * k->size);
    free(h);
    return d;
}

/* Entry i of an array of 4- or 8-byte indices. */
static inline uint64_t index_at(const unsigned char *p, size_t is, size_t i) {
    if (is == 4) {
        uint32_t v;
        memcpy(&v, p + 4 * i, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, p + 8 * i, 8);
    return v;
}

#endif
