/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the GPU tests of the primitives (test_gpu_*.c but sort, concurrency and deploy):
 * the context, device copies, outputs between guard bytes, tile sizes, keys of 4 or 8 bytes,
 * the 12-byte struct key, reference items and the comparison of a result against them, and the
 * runner. Keys of the merge, segmented sort and locality tests are u32 or u64; values are 4-byte
 * tags naming each input element, so equal keys out of order (an unstable result) fail the
 * comparison. MJ_TEST_SMALL=1 runs smaller sizes (for compute-sanitizer). Header-only, so that
 * the support library's sources stay as they are; static inline, so that a program leaving some
 * of them unused compiles without a warning. */
#ifndef MJ_TEST_GPU_PRIMITIVES_SUPPORT_H
#define MJ_TEST_GPU_PRIMITIVES_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "test_support.h"

static mj_context *ctx;
static int small, verbose;

/* MJ_TEST_VERBOSE=1: one line per case before it runs, to find a case that hangs. */
static inline void say(const char *what) {
    if (verbose) {
        fprintf(stderr, "  %s\n", what);
        fflush(stderr);
    }
}

typedef struct item {
    uint64_t key;
    uint32_t tag;
    uint32_t seg;
} item;

/* Order by segment, key, then tag (the input position): a stable segmented sort. */
static inline int item_cmp(const void *x, const void *y) {
    const item *a = x, *b = y;
    if (a->seg != b->seg) return a->seg < b->seg ? -1 : 1;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->tag < b->tag ? -1 : a->tag > b->tag;
}

static inline void *dev_copy(const void *host, size_t bytes) {
    void *d = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &d, bytes), MJ_OK);
    if (bytes) ck_assert_int_eq(mj__dev_upload(ctx, d, host, bytes), MJ_OK);
    return d;
}

static inline void *host_copy(const void *dev, size_t bytes) {
    void *h = malloc(bytes + 1);
    ck_assert_ptr_nonnull(h);
    if (bytes) ck_assert_int_eq(mj__dev_download(ctx, h, dev, bytes), MJ_OK);
    return h;
}

/* Device memory of `bytes`, with room for one byte when that is 0 (never NULL). */
static inline void *dev_buffer(size_t bytes) {
    void *d = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &d, bytes ? bytes : 1), MJ_OK);
    return d;
}

/* dev_copy into a dev_buffer: never NULL, even with nothing to copy. */
static inline void *dev_bytes(const void *host, size_t bytes) {
    void *d = dev_buffer(bytes);
    if (bytes) ck_assert_int_eq(mj__dev_upload(ctx, d, host, bytes), MJ_OK);
    return d;
}

/* dev_copy, but NULL when there is nothing to copy (the API takes NULL for an empty array). */
static inline void *upload(const void *host, size_t bytes) {
    return bytes ? dev_copy(host, bytes) : NULL;
}

static inline void free_dev(void *d) {
    if (d) mj__dev_free(ctx, d);
}

/* An output between guards: GUARD_BYTES bytes on each side (a multiple of every element
 * alignment), all of them and the output's own bytes GUARD_BYTE before the run. */
#define GUARD_BYTES 256
#define GUARD_BYTE 0xA5

/* A guarded output of `bytes` on the device: where the output starts (free with
 * free_guarded). */
static inline void *guarded(size_t bytes) {
    unsigned char *h = malloc(bytes + 2 * GUARD_BYTES);
    ck_assert_ptr_nonnull(h);
    memset(h, GUARD_BYTE, bytes + 2 * GUARD_BYTES);
    void *base = dev_copy(h, bytes + 2 * GUARD_BYTES);
    free(h);
    return (unsigned char *)base + GUARD_BYTES;
}

/* A guarded output's bytes back (malloc'd); adds the guard bytes that changed to *overrun. */
static inline unsigned char *fetch(const void *out, size_t bytes, size_t *overrun) {
    unsigned char *h = host_copy((const unsigned char *)out - GUARD_BYTES, bytes + 2 * GUARD_BYTES);
    for (size_t i = 0; i < GUARD_BYTES; ++i)
        *overrun += (h[i] != GUARD_BYTE) + (h[GUARD_BYTES + bytes + i] != GUARD_BYTE);
    memmove(h, h + GUARD_BYTES, bytes);
    return h;
}

static inline void free_guarded(void *out) {
    if (out) mj__dev_free(ctx, (unsigned char *)out - GUARD_BYTES);
}

static inline int cmp_u64(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* The elements one tile of s covers (nt x vt). */
static inline size_t tile_of(const mj_sorter *s) {
    int nt, vt;
    mj_sorter_tile(s, &nt, &vt);
    return (size_t)nt * (size_t)vt;
}

/* Sizes: 0, 1, the tile edges and many tiles; 10^7 unless small (200000). Room for 9. */
static inline size_t tile_edge_sizes(const mj_sorter *s, size_t *out) {
    size_t nv = tile_of(s), k = 0;
    size_t base[] = {0, 1, nv - 1, nv, nv + 1, 2 * nv - 1, 2 * nv + 1, 33 * nv + 7};
    for (size_t i = 0; i < sizeof base / sizeof *base; ++i) out[k++] = base[i];
    out[k++] = small ? 200000 : 10000000;
    return k;
}

/* A 12-byte struct key compared by two of its fields: keys that differ in the tag are
 * equivalent, so the tag tells which input element an output key is. */
typedef struct rec {
    uint32_t hi, lo, tag;
} rec;

/* The description of primitive p over rec keys (ascending, no values). */
static inline mj_sort_desc rec_desc(mj_primitive p) {
    mj_sort_desc d;
    memset(&d, 0, sizeof d);
    d.primitive = p;
    d.key = MJ_KEY_CUSTOM;
    d.type_name = "rec";
    d.type_source = "struct rec { unsigned hi, lo, tag; };";
    d.type_size = sizeof(rec);
    d.type_align = 4;
    d.less = "a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)";
    return d;
}

static inline void put_key(void *keys, size_t ks, size_t i, uint64_t k) {
    if (ks == 4)
        ((uint32_t *)keys)[i] = (uint32_t)k;
    else
        ((uint64_t *)keys)[i] = k;
}
static inline uint64_t get_key(const void *keys, size_t ks, size_t i) {
    return ks == 4 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
}

static inline mj_sorter *make_sorter(mj_primitive primitive, mj_key_kind kind, size_t value_size) {
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, kind, MJ_ASCENDING);
    desc.primitive = primitive;
    desc.value_size = value_size;
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, &desc, &s);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    return s;
}

/* Checks n keys (and tags) from the device against the reference items, sorted. */
static inline void expect(const void *d_keys, const void *d_tags, size_t ks, item *ref, size_t n,
                          const char *what) {
    qsort(ref, n, sizeof *ref, item_cmp);
    void *keys = host_copy(d_keys, n * ks);
    uint32_t *tags = d_tags ? host_copy(d_tags, n * 4) : NULL;
    for (size_t i = 0; i < n; ++i) {
        uint64_t k = get_key(keys, ks, i);
        ck_assert_msg(k == ref[i].key, "%s: key %zu of %zu is %llu, expected %llu", what, i, n,
                      (unsigned long long)k, (unsigned long long)ref[i].key);
        if (tags)
            ck_assert_msg(tags[i] == ref[i].tag, "%s: value %zu of %zu is %u, expected %u "
                          "(unstable?)", what, i, n, tags[i], ref[i].tag);
    }
    free(keys);
    free(tags);
}

/* Runs the suite in this process (a CUDA driver initialised in the parent does not work in a
 * forked child) with a context on device 0; exits 77 after one line where there is no GPU. */
static inline int run_gpu_suite(const char *program, Suite *s) {
    small = mjt_small();
    verbose = getenv("MJ_TEST_VERBOSE") && atoi(getenv("MJ_TEST_VERBOSE"));
    ctx = mjt_gpu_context_or_skip(program);
    int rc = mjt_run(s, 0);
    mj_context_destroy(ctx);
    return rc;
}

#endif
