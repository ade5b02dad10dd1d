/* SPDX-License-Identifier: Apache-2.0 */
/* A custom key with padding, for the GPU tests that every byte of a custom key arrives (issue
 * 43: custom keys move as bytes). padk has 7 padding bytes inside (after hi) and 4 at the end
 * (after tag); it is compared by hi then lo, and tag (not compared) names the input element.
 * Inputs hold PAD_BYTE in their padding, outputs and temporary storage start as STALE_BYTE, so
 * an output key must equal, byte for byte, the input element its tag names. Header-only and
 * static inline, as the other support headers. */
#ifndef MJ_TEST_PADDED_KEYS_SUPPORT_H
#define MJ_TEST_PADDED_KEYS_SUPPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "test_support.h"

#define PAD_BYTE 0x5A
#define STALE_BYTE 0xA5
#define PADK_SIZE 24
#define PADK_LO 8
#define PADK_TAG 16

static inline mj_sort_desc padk_desc(mj_primitive p) {
    mj_sort_desc d;
    memset(&d, 0, sizeof d);
    d.primitive = p;
    d.key = MJ_KEY_CUSTOM;
    d.type_name = "padk";
    d.type_source = "struct padk { unsigned char hi; unsigned long long lo; unsigned tag; };";
    d.type_size = PADK_SIZE;
    d.type_align = 8;
    d.less = "a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)";
    return d;
}

static inline int padk_cmp(const void *x, const void *y) {
    const unsigned char *a = x, *b = y;
    uint64_t alo, blo;
    memcpy(&alo, a + PADK_LO, 8);
    memcpy(&blo, b + PADK_LO, 8);
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return (alo > blo) - (alo < blo);
}

/* n padded keys (malloc'd) with many equal ones, sorted when `sorted`, tagged first_tag on in
 * their order, their padding PAD_BYTE. */
static inline unsigned char *padk_keys(size_t n, uint32_t first_tag, int sorted, uint64_t seed) {
    unsigned char *h = malloc(n * PADK_SIZE + 1);
    ck_assert_ptr_nonnull(h);
    memset(h, PAD_BYTE, n * PADK_SIZE);
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = mjt_rand(&rng), lo = r % 1000;
        h[i * PADK_SIZE] = (unsigned char)(r >> 32);
        memcpy(h + i * PADK_SIZE + PADK_LO, &lo, 8);
    }
    if (sorted) qsort(h, n, PADK_SIZE, padk_cmp);
    for (size_t i = 0; i < n; ++i) {
        uint32_t tag = first_tag + (uint32_t)i;
        memcpy(h + i * PADK_SIZE + PADK_TAG, &tag, 4);
    }
    return h;
}

/* Device memory of `bytes` (at least 1), every byte STALE_BYTE; `host` (optional) then
 * copied over its start, host_bytes of it. */
static inline void *padk_upload(mj_context *ctx, size_t bytes, const void *host,
                                size_t host_bytes) {
    unsigned char *h = malloc(bytes + 1);
    ck_assert_ptr_nonnull(h);
    memset(h, STALE_BYTE, bytes + 1);
    if (host_bytes) memcpy(h, host, host_bytes);
    void *d = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &d, bytes + 1), MJ_OK);
    ck_assert_int_eq(mj__dev_upload(ctx, d, h, bytes + 1), MJ_OK);
    free(h);
    return d;
}

/* Checks n padded keys at d_keys (and, with d_tags, 4-byte values that must be their keys'
 * tags): each equals the input element its tag names (inputs: `count` keys, in tag order) in
 * all PADK_SIZE bytes, no tag twice, and each run of `run` keys from the start is in order
 * (run 0: no order). */
static inline void padk_expect(mj_context *ctx, const void *d_keys, const void *d_tags, size_t n,
                               const unsigned char *inputs, size_t count, size_t run,
                               const char *what) {
    unsigned char *got = malloc(n * PADK_SIZE + 1), *seen = calloc(count + 1, 1);
    uint32_t *tags = d_tags ? malloc(n * 4 + 1) : NULL;
    ck_assert(got && seen && (tags || !d_tags));
    ck_assert_int_eq(mj__dev_download(ctx, got, d_keys, n * PADK_SIZE), MJ_OK);
    if (tags) ck_assert_int_eq(mj__dev_download(ctx, tags, d_tags, n * 4), MJ_OK);
    for (size_t i = 0; i < n; ++i) {
        const unsigned char *k = got + i * PADK_SIZE;
        uint32_t tag;
        memcpy(&tag, k + PADK_TAG, 4);
        ck_assert_msg(tag < count && !seen[tag], "%s: key %zu of %zu has tag %u (of %zu)%s",
                      what, i, n, tag, count, tag < count ? ", twice" : "");
        seen[tag] = 1;
        ck_assert_msg(memcmp(k, inputs + (size_t)tag * PADK_SIZE, PADK_SIZE) == 0,
                      "%s: key %zu of %zu differs from its input's bytes (padding bytes 0x%02x "
                      "and 0x%02x, want 0x%02x)", what, i, n, k[1], k[PADK_TAG + 4], PAD_BYTE);
        ck_assert_msg(run == 0 || i % run == 0 || padk_cmp(k - PADK_SIZE, k) <= 0,
                      "%s: key %zu of %zu is out of order", what, i, n);
        ck_assert_msg(!tags || tags[i] == tag, "%s: value %zu of %zu is %u, its key's tag %u",
                      what, i, n, tags ? tags[i] : 0, tag);
    }
    free(got);
    free(seen);
    free(tags);
}

/* 4-byte values 0, 1, ... (malloc'd): each input element's tag. */
static inline uint32_t *padk_tags(size_t n) {
    uint32_t *t = malloc(n * 4 + 4);
    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < n; ++i) t[i] = (uint32_t)i;
    return t;
}

/* Sorts n padded keys (with their tags as 4-byte values when d->value_size is 4) through the
 * sorter s, with temporary storage that starts as STALE_BYTE, or with s NULL through the
 * one-call function of d (d->primitive MJ_MERGESORT or MJ_LOCALITY_SORT), and checks them.
 * seg > 0: a segmented sort, in segments of seg elements (heads, 4-byte). */
static inline void padk_check_sort(mj_context *ctx, mj_sorter *s, const mj_sort_desc *d,
                                   size_t n, size_t seg, const char *what) {
    size_t vs = d->value_size, bytes = 0, heads = seg ? (n + seg - 1) / seg : 0;
    unsigned char *keys = padk_keys(n, 0, 0, n + vs + seg);
    uint32_t *tags = padk_tags(n > heads ? n : heads);
    void *dk = padk_upload(ctx, n * PADK_SIZE, keys, n * PADK_SIZE);
    void *dv = vs ? padk_upload(ctx, n * 4, tags, n * 4) : NULL;
    for (size_t h = 0; h < heads; ++h) tags[h] = (uint32_t)(h * seg);
    void *dh = seg ? padk_upload(ctx, heads * 4, tags, heads * 4) : NULL;
    mj_segments segments = {MJ_SEGMENTS_HEADS, dh, heads, 4};
    if (s) ck_assert_int_eq(mj_sorter_temp_size(s, n, 0, &bytes), MJ_OK);
    void *temp = s ? padk_upload(ctx, bytes, NULL, 0) : NULL;
    mj_status st;
    if (s && seg)
        st = mj_sorter_segmented_sort(s, dk, dv, n, &segments, temp, bytes, NULL);
    else if (s)
        st = mj_sorter_sort(s, dk, dv, n, temp, bytes, NULL);
    else if (seg)
        st = vs ? mj_segmented_sort_pairs(ctx, d, dk, dv, n, &segments, vs, NULL)
                : mj_segmented_sort_keys(ctx, d, dk, n, &segments, NULL);
    else
        st = vs ? mj_sort_pairs(ctx, d, dk, dv, n, vs, NULL) : mj_sort_keys(ctx, d, dk, n, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    padk_expect(ctx, dk, dv, n, keys, n, seg ? seg : n, what);
    free(keys);
    free(tags);
    mj__dev_free(ctx, dk);
    if (dv) mj__dev_free(ctx, dv);
    if (dh) mj__dev_free(ctx, dh);
    if (temp) mj__dev_free(ctx, temp);
}

/* Merges (op < 0) or runs set operation op over a_count and b_count sorted padded keys (with
 * their tags as 4-byte values when d->value_size is 4), through the sorter s with temporary
 * storage that starts as STALE_BYTE, or with s NULL through the one-call function of d, into
 * outputs that start as STALE_BYTE, and checks the output. */
static inline void padk_check_two(mj_context *ctx, mj_sorter *s, const mj_sort_desc *d, int op,
                                  size_t a_count, size_t b_count, const char *what) {
    size_t vs = d->value_size, n = a_count + b_count, bytes = 0;
    size_t out_n = op < 0 ? n : mj_set_op_bound((mj_set_op)op, a_count, b_count);
    unsigned char *in = malloc(n * PADK_SIZE + 1);
    unsigned char *a = padk_keys(a_count, 0, 1, n + vs);
    unsigned char *b = padk_keys(b_count, (uint32_t)a_count, 1, n + 7);
    ck_assert_ptr_nonnull(in);
    memcpy(in, a, a_count * PADK_SIZE);
    memcpy(in + a_count * PADK_SIZE, b, b_count * PADK_SIZE);
    uint32_t *tags = padk_tags(n);
    void *ak = padk_upload(ctx, a_count * PADK_SIZE, a, a_count * PADK_SIZE);
    void *bk = padk_upload(ctx, b_count * PADK_SIZE, b, b_count * PADK_SIZE);
    void *av = vs ? padk_upload(ctx, a_count * 4, tags, a_count * 4) : NULL;
    void *bv = vs ? padk_upload(ctx, b_count * 4, tags + a_count, b_count * 4) : NULL;
    void *ok = padk_upload(ctx, out_n * PADK_SIZE, NULL, 0);
    void *ov = vs ? padk_upload(ctx, out_n * 4, NULL, 0) : NULL;
    void *count = padk_upload(ctx, 8, NULL, 0);
    if (s) ck_assert_int_eq(mj_sorter_temp_size(s, n, 0, &bytes), MJ_OK);
    void *temp = s ? padk_upload(ctx, bytes, NULL, 0) : NULL;
    mj_status st;
    if (op >= 0 && s)
        st = mj_sorter_set_op(s, (mj_set_op)op, ak, av, a_count, bk, bv, b_count, ok, ov, count,
                              temp, bytes, NULL);
    else if (op >= 0)
        st = mj_set_op_run(ctx, d, (mj_set_op)op, ak, av, a_count, bk, bv, b_count, ok, ov,
                           count, vs, NULL);
    else if (s)
        st = mj_sorter_merge(s, ak, av, a_count, bk, bv, b_count, ok, ov, temp, bytes, NULL);
    else
        st = vs ? mj_merge_pairs(ctx, d, ak, av, a_count, bk, bv, b_count, ok, ov, vs, NULL)
                : mj_merge_keys(ctx, d, ak, a_count, bk, b_count, ok, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    uint64_t written = n;
    if (op >= 0) ck_assert_int_eq(mj__dev_download(ctx, &written, count, 8), MJ_OK);
    ck_assert_msg(written <= out_n, "%s: %llu written, over the bound %zu", what,
                  (unsigned long long)written, out_n);
    padk_expect(ctx, ok, ov, (size_t)written, in, n, n, what);
    free(in);
    free(a);
    free(b);
    free(tags);
    void *dev[] = {ak, bk, av, bv, ok, ov, count, temp};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; ++i)
        if (dev[i]) mj__dev_free(ctx, dev[i]);
}

/* The cases of primitive p over padded keys: keys alone and with 4-byte values, through the
 * sorter and the one-call function, at 1, the edges of the sorter's tile and 10^6 elements
 * (2 10^5 when small), and at `large` when not 0 (not small). A sort, in segments of seg
 * elements when seg > 0, for the sorts; an even split between a and b for the merge (op < 0)
 * and set operation op. */
static inline void padk_run(mj_context *ctx, mj_primitive p, size_t seg, int op, size_t large,
                            int small) {
    int sorts = p == MJ_MERGESORT || p == MJ_LOCALITY_SORT || p == MJ_SEGMENTED_SORT;
    for (size_t vs = 0; vs <= 4; vs += 4) {
        mj_sort_desc d = padk_desc(p);
        d.value_size = vs;
        mj_sorter *s = NULL;
        mj_status st = mj_sorter_create(ctx, &d, &s);
        ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
        int nt, vt;
        mj_sorter_tile(s, &nt, &vt);
        size_t nv = (size_t)nt * (size_t)vt;
        size_t sizes[] = {1, nv - 1, nv, nv + 1, 2 * nv + 1, small ? 200000 : 1000000,
                          small ? 0 : large};
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes && sizes[z]; ++z)
            for (int one_call = 0; one_call < 2; ++one_call) {
                size_t n = sizes[z];
                char what[160];
                snprintf(what, sizeof what, "%s (op %d) of %zu padded keys, %zu-byte values%s",
                         mj_primitive_name(p), op, n, vs, one_call ? ", one call" : "");
                if (sorts)
                    padk_check_sort(ctx, one_call ? NULL : s, &d, n, seg, what);
                else
                    padk_check_two(ctx, one_call ? NULL : s, &d, op, n / 2, n - n / 2, what);
            }
        mj_sorter_destroy(s);
    }
}

#endif
