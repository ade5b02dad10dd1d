/* SPDX-License-Identifier: Apache-2.0 */
/* The segmented reduction on the GPU against a CPU reference: u32 sum (wrapping), i64 sum, f32
 * sum and max with NaNs among the elements, u8 sums past 2^31 elements, and a 12-byte struct under composition of affine
 * maps mod 2^32 (associative, not commutative: any reordering shows); element counts 0, 1,
 * tile edges, many tiles and 10^7 (2^27 for u32), each under every segment layout: all
 * segments empty, one segment over everything, many empty segments among long ones, random
 * lengths, length 1, and offsets that leave elements before the first and after the last
 * segment; 4- and 8-byte offsets; every output between guard bytes. Also offsets that break
 * the contract (decreasing, past n: nothing outside the output is written), misaligned arrays
 * refused with the output untouched, a caller's
 * temporary buffer reused over runs (stale tile states must not leak), a stream of its own
 * and the one-call mj_segmented_reduce. Skips (exit 77) where there is no GPU. MJ_TEST_SMALL=1
 * runs smaller sizes (for compute-sanitizer). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "gpu_primitives_support.h"
#include "test_support.h"

/* ---------------------------------------------------------------- element types */

typedef struct affine {
    uint32_t m, c, tag;
} affine;

static const char affine_source[] = "struct affine { unsigned m, c, tag; };\n";

typedef struct etype {
    const char *name;
    mj_key_kind key;
    size_t size;
    const char *op, *identity; /* NULL: the defaults */
    void (*cpu_op)(void *r, const void *a, const void *b); /* r may alias a */
    void (*gen)(void *x, uint64_t *rng);
    void (*cpu_identity)(void *x);
    int nan_any; /* results compare as "both NaN or equal bits" */
} etype;

static void u32_sum(void *r, const void *a, const void *b) {
    *(uint32_t *)r = *(const uint32_t *)a + *(const uint32_t *)b;
}
static void i64_sum(void *r, const void *a, const void *b) {
    *(int64_t *)r = (int64_t)((uint64_t) * (const int64_t *)a + (uint64_t) * (const int64_t *)b);
}
static void f32_sum(void *r, const void *a, const void *b) {
    *(float *)r = *(const float *)a + *(const float *)b;
}
/* fmaxf: a NaN loses to any number (the identity -inf included). */
static void f32_max(void *r, const void *a, const void *b) {
    *(float *)r = fmaxf(*(const float *)a, *(const float *)b);
}
static void affine_op(void *r, const void *pa, const void *pb) {
    affine a = *(const affine *)pa, b = *(const affine *)pb;
    *(affine *)r = (affine){a.m * b.m, a.c * b.m + b.c, a.tag + b.tag};
}

static void gen_u32(void *x, uint64_t *rng) { *(uint32_t *)x = (uint32_t)mjt_rand(rng); }
/* Up to 2^33 in magnitude: 2^27 of them sum without signed overflow (undefined in CUDA C++). */
static void gen_i64(void *x, uint64_t *rng) { *(int64_t *)x = (int64_t)mjt_rand(rng) >> 30; }
/* Non-zero integers in [-8, 8] (sums stay exact in any order, no -0 against +0), and now and
 * then a NaN. */
static void gen_f32(void *x, uint64_t *rng) {
    uint64_t r = mjt_rand(rng);
    int v = (int)(r % 16) - 8;
    *(float *)x = r % 4099 == 0 ? NAN : (float)(v >= 0 ? v + 1 : v);
}
static void gen_affine(void *x, uint64_t *rng) {
    uint64_t r = mjt_rand(rng);
    /* Odd multipliers keep the composed map invertible, so no prefix collapses to zero. */
    *(affine *)x = (affine){(uint32_t)r | 1u, (uint32_t)(r >> 32), (uint32_t)(r >> 13)};
}

static void id_zero(void *x) { memset(x, 0, 8); }
static void id_f32_max(void *x) { *(float *)x = -INFINITY; }
static void id_affine(void *x) { *(affine *)x = (affine){1, 0, 0}; }

static const etype types[] = {
    {"u32 sum", MJ_KEY_U32, 4, NULL, NULL, u32_sum, gen_u32, id_zero, 0},
    {"i64 sum", MJ_KEY_I64, 8, NULL, NULL, i64_sum, gen_i64, id_zero, 0},
    {"f32 sum", MJ_KEY_F32, 4, NULL, NULL, f32_sum, gen_f32, id_zero, 1},
    {"f32 max", MJ_KEY_F32, 4, "fmaxf(a, b)", "-INFINITY", f32_max, gen_f32, id_f32_max, 1},
    {"affine", MJ_KEY_CUSTOM, 12, "affine{a.m * b.m, a.c * b.m + b.c, a.tag + b.tag}",
     "affine{1, 0, 0}", affine_op, gen_affine, id_affine, 0},
};
#define TYPE_COUNT ((int)(sizeof types / sizeof *types))

static mj_sort_desc desc_of(const etype *t) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, t->key, MJ_ASCENDING);
    d.primitive = MJ_SEGMENTED_REDUCE;
    d.op = t->op;
    d.identity = t->identity;
    if (t->key == MJ_KEY_CUSTOM) {
        d.type_name = "affine";
        d.type_source = affine_source;
        d.type_size = sizeof(affine);
        d.type_align = 4;
    }
    return d;
}

static mj_sorter *make(const etype *t) {
    mj_sort_desc d = desc_of(t);
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, &d, &s);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", t->name, mj_status_name(st),
                  mj_context_last_error(ctx));
    return s;
}

static unsigned char *random_input(const etype *t, size_t n, uint64_t seed) {
    unsigned char *h = malloc(n * t->size + 1);
    ck_assert_ptr_nonnull(h);
    uint64_t rng = seed;
    for (size_t i = 0; i < n; ++i) t->gen(h + i * t->size, &rng);
    return h;
}

/* ---------------------------------------------------------------- segment layouts */

enum {
    ALL_EMPTY,   /* 1000 empty segments at n/2 (no element in any segment) */
    ONE,         /* one segment over everything */
    EMPTY_LONG,  /* nine in ten empty, the others up to 5 tiles long */
    RANDOM,      /* lengths uniform in [0, 64] */
    SINGLES,     /* length 1 (and some 0) */
    INNER,       /* random lengths, elements before the first and after the last segment */
    LAYOUTS
};
static const char *const layout_names[LAYOUTS] = {"all empty", "one segment", "empty and long",
                                                  "random", "singles", "inner"};

/* Offsets (count of them, malloc'd) of a layout over n elements. */
static uint64_t *layout_offsets(int layout, size_t n, size_t nv, uint64_t seed, size_t *count) {
    /* Length-1 segments: about 8/7 offsets an element; the others fewer than one in 8. */
    size_t cap = (layout == SINGLES ? n + n / 4 : n / 8) + 3000, k = 0;
    uint64_t *off = malloc(cap * sizeof *off), rng = seed, at = 0, end = n;
    ck_assert_ptr_nonnull(off);
    switch (layout) {
    case ALL_EMPTY:
        for (; k < 1000; ++k) off[k] = n / 2;
        *count = k;
        return off;
    case ONE:
        off[0] = 0;
        off[1] = n;
        *count = 2;
        return off;
    case INNER:
        at = n / 7;
        end = n - n / 5;
        break;
    default:
        break;
    }
    off[k++] = at;
    while (at < end && k < cap - 1) {
        uint64_t r = mjt_rand(&rng), len;
        if (layout == EMPTY_LONG)
            len = r % 10 ? 0 : (r >> 8) % (5 * nv + 1);
        else if (layout == SINGLES)
            len = r % 8 ? 1 : 0;
        else
            len = r % 65;
        at = at + len < end ? at + len : end;
        off[k++] = at;
    }
    *count = k;
    return off;
}

/* The offsets as index_size-byte integers (malloc'd). */
static void *pack_offsets(const uint64_t *off, size_t count, size_t index_size) {
    unsigned char *p = malloc(count * index_size + 1);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < count; ++i) {
        if (index_size == 4)
            ((uint32_t *)p)[i] = (uint32_t)off[i];
        else
            ((uint64_t *)p)[i] = off[i];
    }
    return p;
}

/* ---------------------------------------------------------------- the check */

typedef struct sr_case {
    size_t n;
    int layout;
    size_t index_size;
    void *temp;
    size_t temp_bytes;
    void *stream;
    int one_call;
} sr_case;

static int same(const etype *t, const void *got, const void *want) {
    if (t->nan_any && isnan(*(const float *)want)) return isnan(*(const float *)got);
    return memcmp(got, want, t->size) == 0;
}

/* Runs the case over offsets `off` (sorted, inside [0, n]) and checks every result and the
 * guards around out. */
static void check_offsets(mj_sorter *s, const etype *t, const sr_case *c, const uint64_t *off,
                          size_t count, uint64_t seed, const char *what) {
    size_t ks = t->size, n = c->n, segs = count ? count - 1 : 0;
    unsigned char *h = random_input(t, n, seed);
    void *packed = pack_offsets(off, count, c->index_size);
    void *din = dev_bytes(h, n * ks), *doff = dev_bytes(packed, count * c->index_size);
    void *dout = guarded(segs * ks);
    mj_segments sg = {MJ_SEGMENTS_OFFSETS, doff, count, c->index_size};
    say(what);
    mj_status st;
    if (c->one_call) {
        mj_sort_desc d = desc_of(t);
        st = mj_segmented_reduce(ctx, &d, din, n, &sg, dout, c->stream);
    } else {
        st = mj_sorter_segmented_reduce(s, din, n, &sg, dout, c->temp, c->temp_bytes, c->stream);
    }
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st),
                  mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, c->stream), MJ_OK);
    size_t overrun = 0;
    unsigned char *got = fetch(dout, segs * ks, &overrun);
    ck_assert_msg(overrun == 0, "%s: %zu guard bytes around out changed", what, overrun);
    unsigned char acc[16];
    for (size_t i = 0; i < segs; ++i) {
        t->cpu_identity(acc);
        for (uint64_t j = off[i]; j < off[i + 1]; ++j) t->cpu_op(acc, acc, h + j * ks);
        if (!same(t, got + i * ks, acc))
            ck_abort_msg("%s: segment %zu of %zu ([%llu, %llu)) is wrong", what, i, segs,
                         (unsigned long long)off[i], (unsigned long long)off[i + 1]);
    }
    free(got);
    free(h);
    free(packed);
    mj__dev_free(ctx, din);
    mj__dev_free(ctx, doff);
    free_guarded(dout);
}

static void check_case(mj_sorter *s, const etype *t, const sr_case *c, uint64_t seed) {
    size_t count;
    uint64_t *off = layout_offsets(c->layout, c->n, tile_of(s), seed, &count);
    char what[200];
    snprintf(what, sizeof what, "%s, n %zu, %s (%zu offsets of %zu bytes)%s%s%s", t->name, c->n,
             layout_names[c->layout], count, c->index_size, c->temp ? ", caller's temp" : "",
             c->stream ? ", own stream" : "", c->one_call ? ", one call" : "");
    check_offsets(s, t, c, off, count, seed ^ 0x5555u, what);
    free(off);
}

/* Element counts: 0, 1, tile edges, many tiles; 10^7 (small: 300000). */
static size_t sizes_for(mj_sorter *s, size_t *out) {
    size_t nv = tile_of(s), k = 0;
    size_t base[] = {0, 1, nv - 1, nv, nv + 1, 2 * nv - 1, 2 * nv + 1, 33 * nv + 7};
    for (size_t i = 0; i < sizeof base / sizeof *base; ++i) out[k++] = base[i];
    out[k++] = small ? 300000 : 10000000;
    return k;
}

/* Every size under every layout, offsets of 4 and 8 bytes in turn. */
START_TEST(test_layouts)
{
    const etype *t = &types[_i];
    mj_sorter *s = make(t);
    size_t sizes[12];
    size_t count = sizes_for(s, sizes);
    for (size_t k = 0; k < count; ++k)
        for (int l = 0; l < LAYOUTS; ++l) {
            sr_case c = {sizes[k], l, (k + (size_t)l) % 2 ? 8 : 4, NULL, 0, NULL, 0};
            check_case(s, t, &c, 100u + k * LAYOUTS + (unsigned)l);
        }
    mj_sorter_destroy(s);
}
END_TEST

/* 2^27 u32 (small: 2^20), one segment over all of them (a look-back over every tile) and
 * length-1 segments (as many segments as elements). */
START_TEST(test_big)
{
    const etype *t = &types[0];
    mj_sorter *s = make(t);
    size_t n = small ? (size_t)1 << 20 : (size_t)1 << 27;
    sr_case one = {n, ONE, 4, NULL, 0, NULL, 0}, singles = {n, SINGLES, 8, NULL, 0, NULL, 0};
    check_case(s, t, &one, 7u);
    check_case(s, t, &singles, 8u);
    mj_sorter_destroy(s);
}
END_TEST

/* Past 2^31 elements (not with MJ_TEST_SMALL): u8 sums (mod 256) over 2^31 + 1000 bytes, with
 * segments that end and start around 2^31 (64-bit element indices throughout). */
START_TEST(test_beyond_2g)
{
    if (small) return;
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U8, MJ_ASCENDING);
    d.primitive = MJ_SEGMENTED_REDUCE;
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    size_t n = ((size_t)1 << 31) + 1000;
    uint64_t off[] = {0, 1000, ((uint64_t)1 << 31) - 5, ((uint64_t)1 << 31) + 7,
                      ((uint64_t)1 << 31) + 7, n};
    size_t count = sizeof off / sizeof *off, segs = count - 1;
    unsigned char *h = malloc(n);
    ck_assert_ptr_nonnull(h);
    for (size_t i = 0; i < n; ++i) h[i] = (unsigned char)((i * 2654435761u) >> 13);
    void *din = dev_bytes(h, n), *doff = dev_bytes(off, sizeof off), *dout = guarded(segs);
    mj_segments sg = {MJ_SEGMENTS_OFFSETS, doff, count, 8};
    say("u8 sum past 2^31 elements");
    ck_assert_int_eq(mj_sorter_segmented_reduce(s, din, n, &sg, dout, NULL, 0, NULL), MJ_OK);
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    size_t overrun = 0;
    unsigned char *got = fetch(dout, segs, &overrun);
    ck_assert_uint_eq(overrun, 0);
    for (size_t i = 0; i < segs; ++i) {
        unsigned char want = 0;
        for (uint64_t j = off[i]; j < off[i + 1]; ++j) want = (unsigned char)(want + h[j]);
        ck_assert_msg(got[i] == want, "segment %zu: %u, expected %u", i, got[i], want);
    }
    free(got);
    free(h);
    mj__dev_free(ctx, din);
    mj__dev_free(ctx, doff);
    free_guarded(dout);
    mj_sorter_destroy(s);
}
END_TEST

/* One caller's buffer for runs of growing and shrinking sizes: each run must clear the tile
 * states the one before left. */
START_TEST(test_reused_temp)
{
    const etype *t = &types[4]; /* affine */
    mj_sorter *s = make(t);
    size_t nv = tile_of(s);
    size_t runs[] = {40 * nv + 3, 5 * nv, 40 * nv + 3, 1, 70 * nv - 1, 40 * nv + 3};
    size_t need = 0;
    /* n + count at most: 70 tiles of elements and as many offsets again. */
    ck_assert_int_eq(mj_sorter_temp_size(s, 140 * nv + 3, 0, &need), MJ_OK);
    void *temp = dev_buffer(need);
    for (size_t r = 0; r < sizeof runs / sizeof *runs; ++r) {
        sr_case c = {runs[r], r % 2 ? ONE : RANDOM, 4, temp, need, NULL, 0};
        check_case(s, t, &c, 300u + r);
    }
    mj__dev_free(ctx, temp);
    mj_sorter_destroy(s);
}
END_TEST

/* A stream from the CUDA runtime, as in an application; and the one-call form. */
START_TEST(test_stream_and_one_call)
{
    mjt_cudart rt;
    ck_assert_int_eq(mjt_cudart_load(&rt), 0);
    void *stream = NULL;
    ck_assert_int_eq(rt.stream_create(&stream), 0);
    const etype *t = &types[4]; /* affine */
    mj_sorter *s = make(t);
    size_t n = small ? 100000 : 3000000;
    sr_case c = {n, EMPTY_LONG, 8, NULL, 0, stream, 0};
    check_case(s, t, &c, 41u);
    c.one_call = 1;
    check_case(s, t, &c, 42u);
    c = (sr_case){n, RANDOM, 4, NULL, 0, NULL, 1};
    check_case(s, &types[3], &c, 43u);
    mj_sorter_destroy(s);
    rt.stream_destroy(stream);
}
END_TEST

/* Offsets that decrease or pass n: the results are unspecified, but every write stays inside
 * out (the guards) and the run completes (compute-sanitizer checks the reads). */
START_TEST(test_broken_offsets)
{
    const etype *t = &types[1]; /* i64 sum */
    mj_sorter *s = make(t);
    size_t nv = tile_of(s);
    for (int round = 0; round < 6; ++round) {
        size_t n = round % 2 ? 3 * nv + 5 : 17, count = 2 * nv + (size_t)round;
        uint64_t *off = malloc(count * sizeof *off), rng = 900u + (uint64_t)round;
        ck_assert_ptr_nonnull(off);
        for (size_t i = 0; i < count; ++i)
            off[i] = round < 2 ? mjt_rand(&rng) % (2 * n + 5) /* unsorted, some past n */
                     : round < 4 ? (count - i) * 3       /* decreasing */
                                 : n + 1000 + i;         /* all past n */
        unsigned char *packed = pack_offsets(off, count, 8);
        unsigned char *h = random_input(t, n, 5u);
        void *din = dev_bytes(h, n * t->size), *doff = dev_bytes(packed, count * 8);
        void *dout = guarded((count - 1) * t->size);
        mj_segments sg = {MJ_SEGMENTS_OFFSETS, doff, count, 8};
        ck_assert_int_eq(mj_sorter_segmented_reduce(s, din, n, &sg, dout, NULL, 0, NULL), MJ_OK);
        ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
        size_t overrun = 0;
        free(fetch(dout, (count - 1) * t->size, &overrun));
        ck_assert_msg(overrun == 0, "round %d: %zu guard bytes changed", round, overrun);
        free_guarded(dout);
        mj__dev_free(ctx, din);
        mj__dev_free(ctx, doff);
        free(h);
        free(packed);
        free(off);
    }
    mj_sorter_destroy(s);
}
END_TEST

/* Misaligned arrays are refused with the output untouched. */
START_TEST(test_misaligned)
{
    const etype *t = &types[1]; /* i64 sum */
    mj_sorter *s = make(t);
    uint64_t off[4] = {0, 5, 9, 0}; /* and room for the misaligned copy */
    unsigned char *h = random_input(t, 11, 3u);
    unsigned char *din = dev_bytes(h, 11 * 8), *doff = dev_bytes(off, sizeof off);
    unsigned char *dout = guarded(2 * 8 + 8);
    mj_segments sg = {MJ_SEGMENTS_OFFSETS, doff + 4, 3, 8};
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, din, 10, &sg, dout, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "offsets", "misaligned offsets");
    sg.data = doff;
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, din + 4, 10, &sg, dout, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "in", "misaligned in");
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, din, 10, &sg, dout + 4, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out", "misaligned out");
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    size_t overrun = 0;
    unsigned char *got = fetch(dout, 2 * 8 + 8, &overrun);
    for (size_t i = 0; i < 24; ++i) overrun += got[i] != GUARD_BYTE;
    ck_assert_msg(overrun == 0, "a refused run wrote %zu bytes", overrun);
    free(got);
    free(h);
    mj__dev_free(ctx, din);
    mj__dev_free(ctx, doff);
    free_guarded(dout);
    mj_sorter_destroy(s);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpu_segreduce");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1800);
    tcase_add_loop_test(tc, test_layouts, 0, TYPE_COUNT);
    tcase_add_test(tc, test_big);
    tcase_add_test(tc, test_beyond_2g);
    tcase_add_test(tc, test_reused_temp);
    tcase_add_test(tc, test_stream_and_one_call);
    tcase_add_test(tc, test_broken_offsets);
    tcase_add_test(tc, test_misaligned);
    suite_add_tcase(s, tc);
    return run_gpu_suite("test_gpu_segreduce", s);
}
