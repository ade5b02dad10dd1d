/* SPDX-License-Identifier: Apache-2.0 */
/* Reduce and scan on the GPU against a CPU reference: u32 sum (wrapping), i64 sum, u32 max,
 * f64 max (exact) and a 12-byte struct under composition of affine maps mod 2^32 (associative,
 * not commutative: any reordering shows); sizes 0, 1, every tile edge, many tiles (look-backs
 * over several windows), 10^7 and 2^27 (not with MJ_TEST_SMALL); inclusive and exclusive, in
 * place and not, with and without the total; a caller's temporary buffer reused across runs of
 * other sizes (stale tile states must not leak into the next run); input and output that
 * are not 16-byte aligned; a stream that is not the default one. Skips (exit 77) where there
 * is no GPU. MJ_TEST_SMALL=1 runs smaller sizes (for compute-sanitizer). */
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
} etype;

static void u32_sum(void *r, const void *a, const void *b) {
    *(uint32_t *)r = *(const uint32_t *)a + *(const uint32_t *)b;
}
static void u32_max(void *r, const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    *(uint32_t *)r = x > y ? x : y;
}
static void i64_sum(void *r, const void *a, const void *b) {
    *(int64_t *)r = (int64_t)((uint64_t) * (const int64_t *)a + (uint64_t) * (const int64_t *)b);
}
static void f64_max(void *r, const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    *(double *)r = x > y ? x : y;
}
static void affine_op(void *r, const void *pa, const void *pb) {
    affine a = *(const affine *)pa, b = *(const affine *)pb;
    *(affine *)r = (affine){a.m * b.m, a.c * b.m + b.c, a.tag + b.tag};
}

static void gen_u32(void *x, uint64_t *rng) { *(uint32_t *)x = (uint32_t)mjt_rand(rng); }
/* Up to 2^33 in magnitude: 2^27 of them sum without signed overflow (undefined in CUDA C++). */
static void gen_i64(void *x, uint64_t *rng) { *(int64_t *)x = (int64_t)mjt_rand(rng) >> 30; }
static void gen_f64(void *x, uint64_t *rng) {
    *(double *)x = (double)(int64_t)(mjt_rand(rng) % 2000001) - 1000000.0 + 0.5;
}
static void gen_affine(void *x, uint64_t *rng) {
    uint64_t r = mjt_rand(rng);
    /* Odd multipliers keep the composed map invertible, so no prefix collapses to zero. */
    *(affine *)x = (affine){(uint32_t)r | 1u, (uint32_t)(r >> 32), (uint32_t)(r >> 13)};
}

static void id_zero(void *x) { memset(x, 0, 8); }
static void id_f64_max(void *x) { *(double *)x = -INFINITY; }
static void id_affine(void *x) { *(affine *)x = (affine){1, 0, 0}; }

static const etype types[] = {
    {"u32 sum", MJ_KEY_U32, 4, NULL, NULL, u32_sum, gen_u32, id_zero},
    {"i64 sum", MJ_KEY_I64, 8, NULL, NULL, i64_sum, gen_i64, id_zero},
    {"u32 max", MJ_KEY_U32, 4, "max(a, b)", "0", u32_max, gen_u32, id_zero},
    {"f64 max", MJ_KEY_F64, 8, "fmax(a, b)", "-INFINITY", f64_max, gen_f64, id_f64_max},
    {"affine", MJ_KEY_CUSTOM, 12, "affine{a.m * b.m, a.c * b.m + b.c, a.tag + b.tag}",
     "affine{1, 0, 0}", affine_op, gen_affine, id_affine},
};
#define TYPE_COUNT ((int)(sizeof types / sizeof *types))

static mj_sorter *make(mj_primitive p, const etype *t) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, t->key, MJ_ASCENDING);
    d.primitive = p;
    d.op = t->op;
    d.identity = t->identity;
    if (t->key == MJ_KEY_CUSTOM) {
        d.type_name = "affine";
        d.type_source = affine_source;
        d.type_size = sizeof(affine);
        d.type_align = 4;
    }
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

/* Sizes: 0, 1, the tile edges and many tiles; 10^7 and 2^27 unless small. */
static size_t sizes_for(mj_sorter *s, size_t *out, int big) {
    size_t nv = tile_of(s), k = 0;
    size_t base[] = {0, 1, nv - 1, nv, nv + 1, 2 * nv - 1, 2 * nv, 2 * nv + 1, 33 * nv + 7,
                     100 * nv - 1};
    for (size_t i = 0; i < sizeof base / sizeof *base; ++i) out[k++] = base[i];
    if (big && !small) {
        out[k++] = 10000000;
        out[k++] = (size_t)1 << 27;
    } else if (big) {
        out[k++] = 300000;
    }
    return k;
}

/* ---------------------------------------------------------------- placement */

/* Room for n elements on the device, holding h unless it is NULL: at the allocation's start,
 * or with `unaligned` one element past it (for types whose size is not a multiple of 16: past
 * a 16-byte boundary, where the tiles' loads take their 4-byte path), the element before
 * holding `guard`. *base gets the allocation, for mj__dev_free. */
static void *placed(const etype *t, const void *h, size_t n, int unaligned, const void *guard,
                    void **base) {
    size_t off = unaligned ? t->size : 0;
    unsigned char *d = dev_buffer(n * t->size + off);
    if (off) ck_assert_int_eq(mj__dev_upload(ctx, d, guard, off), MJ_OK);
    if (h && n) ck_assert_int_eq(mj__dev_upload(ctx, d + off, h, n * t->size), MJ_OK);
    *base = d;
    return d + off;
}

/* An unaligned output's element before it must stay as `guard` left it. */
static void check_guard(const etype *t, void *base, int unaligned, const void *guard,
                        const char *what) {
    if (!unaligned) return;
    unsigned char *g = host_copy(base, t->size);
    ck_assert_msg(memcmp(g, guard, t->size) == 0, "%s: the element before the output changed",
                  what);
    free(g);
}

/* ---------------------------------------------------------------- scan */

typedef struct scan_case {
    size_t n;
    mj_scan_kind kind;
    int in_place, with_total;
    void *temp;
    size_t temp_bytes;
    void *stream;
    int unaligned; /* input and output one element past their allocations' start (placed) */
} scan_case;

static void check_scan(mj_sorter *s, const etype *t, const scan_case *c, uint64_t seed) {
    size_t ks = t->size, n = c->n, bytes = n * ks;
    unsigned char *h = random_input(t, n, seed), guard[16];
    memset(guard, 0xa5, sizeof guard);
    void *in_base, *out_base, *dtotal = NULL;
    void *din = placed(t, h, n, c->unaligned, guard, &in_base), *dout = din;
    out_base = in_base;
    if (!c->in_place) dout = placed(t, NULL, n, c->unaligned, guard, &out_base);
    if (c->with_total) ck_assert_int_eq(mj__dev_alloc(ctx, &dtotal, ks), MJ_OK);
    char what[160];
    snprintf(what, sizeof what, "scan of %s, n %zu, %s%s%s%s%s%s", t->name, n,
             c->kind == MJ_SCAN_INCLUSIVE ? "inclusive" : "exclusive",
             c->in_place ? ", in place" : "", c->with_total ? ", total" : "",
             c->temp ? ", caller's temp" : "", c->stream ? ", own stream" : "",
             c->unaligned ? ", unaligned" : "");
    say(what);
    mj_status st = mj_sorter_scan(s, din, n, dout, c->kind, dtotal, c->temp, c->temp_bytes,
                                  c->stream);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st),
                  mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, c->stream), MJ_OK);
    unsigned char *got = host_copy(dout, bytes);
    unsigned char acc[16], prev[16];
    t->cpu_identity(acc);
    for (size_t i = 0; i < n; ++i) {
        memcpy(prev, acc, ks);
        t->cpu_op(acc, acc, h + i * ks);
        const unsigned char *want = c->kind == MJ_SCAN_INCLUSIVE ? acc : prev;
        if (memcmp(got + i * ks, want, ks) != 0)
            ck_abort_msg("%s: element %zu of %zu is wrong", what, i, n);
    }
    if (c->with_total) {
        unsigned char *tot = host_copy(dtotal, ks);
        ck_assert_msg(memcmp(tot, acc, ks) == 0, "%s: the total is wrong", what);
        free(tot);
    }
    check_guard(t, out_base, c->unaligned, guard, what);
    free(got);
    free(h);
    mj__dev_free(ctx, in_base);
    if (!c->in_place) mj__dev_free(ctx, out_base);
    mj__dev_free(ctx, dtotal);
}

/* Every size; all eight combinations of kind, in place and total up to many tiles, two of them
 * for the big sizes. */
START_TEST(test_scan)
{
    const etype *t = &types[_i];
    mj_sorter *s = make(MJ_SCAN, t);
    size_t sizes[16];
    size_t count = sizes_for(s, sizes, 1);
    for (size_t k = 0; k < count; ++k) {
        /* Under compute-sanitizer (small) the many-tile sizes take two combinations too. */
        int big = sizes[k] > (small ? 50000u : 1000000u);
        for (int combo = 0; combo < 8; ++combo) {
            if (big && combo != 1 && combo != 6) continue;
            scan_case c = {sizes[k], combo & 1 ? MJ_SCAN_INCLUSIVE : MJ_SCAN_EXCLUSIVE,
                           (combo >> 1) & 1, (combo >> 2) & 1, NULL, 0, NULL, 0};
            check_scan(s, t, &c, 1000u + k * 8 + (unsigned)combo);
        }
    }
    mj_sorter_destroy(s);
}
END_TEST

/* One caller's buffer for runs of growing and shrinking sizes: each run must clear the tile
 * states the one before left (a stale prefix would be taken as this run's). */
START_TEST(test_scan_reused_temp)
{
    const etype *t = &types[_i];
    mj_sorter *s = make(MJ_SCAN, t);
    size_t nv = tile_of(s);
    size_t runs[] = {40 * nv + 3, 5 * nv, 40 * nv + 3, 1, 70 * nv - 1, 40 * nv + 3};
    size_t need = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, 70 * nv, 0, &need), MJ_OK);
    void *temp = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &temp, need), MJ_OK);
    for (size_t r = 0; r < sizeof runs / sizeof *runs; ++r) {
        scan_case c = {runs[r], r & 1 ? MJ_SCAN_EXCLUSIVE : MJ_SCAN_INCLUSIVE, 0, 1, temp,
                       need, NULL, 0};
        check_scan(s, t, &c, 77u + r);
    }
    mj__dev_free(ctx, temp);
    mj_sorter_destroy(s);
}
END_TEST

/* ---------------------------------------------------------------- reduce */

/* unaligned: input and output one element past their allocations' start (placed). */
static void check_reduce(mj_sorter *s, const etype *t, size_t n, void *temp, size_t temp_bytes,
                         void *stream, int unaligned, uint64_t seed) {
    size_t ks = t->size;
    unsigned char *h = random_input(t, n, seed), guard[16];
    memset(guard, 0xa5, sizeof guard);
    void *in_base, *out_base;
    void *din = placed(t, h, n, unaligned, guard, &in_base);
    void *dout = placed(t, NULL, 1, unaligned, guard, &out_base);
    char what[128];
    snprintf(what, sizeof what, "reduce of %s, n %zu%s%s%s", t->name, n,
             temp ? ", caller's temp" : "", stream ? ", own stream" : "",
             unaligned ? ", unaligned" : "");
    say(what);
    mj_status st = mj_sorter_reduce(s, din, n, dout, temp, temp_bytes, stream);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st),
                  mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, stream), MJ_OK);
    unsigned char acc[16];
    t->cpu_identity(acc);
    for (size_t i = 0; i < n; ++i) t->cpu_op(acc, acc, h + i * ks);
    unsigned char *got = host_copy(dout, ks);
    ck_assert_msg(memcmp(got, acc, ks) == 0, "%s: wrong result", what);
    check_guard(t, out_base, unaligned, guard, what);
    free(got);
    free(h);
    mj__dev_free(ctx, in_base);
    mj__dev_free(ctx, out_base);
}

START_TEST(test_reduce)
{
    const etype *t = &types[_i];
    mj_sorter *s = make(MJ_REDUCE, t);
    size_t sizes[16];
    size_t count = sizes_for(s, sizes, 1);
    for (size_t k = 0; k < count; ++k) check_reduce(s, t, sizes[k], NULL, 0, NULL, 0, 500u + k);
    /* A caller's buffer, reused. */
    size_t need = 0, big = small ? 300000 : 20000000;
    ck_assert_int_eq(mj_sorter_temp_size(s, big, 0, &need), MJ_OK);
    void *temp = dev_buffer(need);
    check_reduce(s, t, big, temp, need, NULL, 0, 900u);
    check_reduce(s, t, big / 3, temp, need, NULL, 0, 901u);
    mj__dev_free(ctx, temp);
    mj_sorter_destroy(s);
}
END_TEST

/* Input and output one element past a 16-byte boundary (where the type's alignment allows
 * less): the tiles' loads take their 4-byte path there, and 16-byte words from an aligned
 * start (docs/TUNING.md); both must give the same results, and the element before the output
 * must stay as it was. */
START_TEST(test_unaligned)
{
    const etype *t = &types[_i];
    if (t->size % 16 == 0) return; /* one element on is 16-byte aligned again */
    mj_sorter *scan = make(MJ_SCAN, t), *reduce = make(MJ_REDUCE, t);
    size_t n = 5 * tile_of(scan) + 7;
    scan_case c = {n, MJ_SCAN_INCLUSIVE, 0, 0, NULL, 0, NULL, 1};
    check_scan(scan, t, &c, 4242u);
    check_reduce(reduce, t, n, NULL, 0, NULL, 1, 4243u);
    mj_sorter_destroy(scan);
    mj_sorter_destroy(reduce);
}
END_TEST

/* ---------------------------------------------------------------- streams and one call */

/* Streams come from the CUDA runtime, as in an application. */
START_TEST(test_own_stream)
{
    mjt_cudart rt;
    ck_assert_int_eq(mjt_cudart_load(&rt), 0);
    void *stream = NULL;
    ck_assert_int_eq(rt.stream_create(&stream), 0);
    const etype *t = &types[4]; /* affine */
    mj_sorter *scan = make(MJ_SCAN, t), *reduce = make(MJ_REDUCE, t);
    size_t n = small ? 100000 : 3000000;
    scan_case c = {n, MJ_SCAN_EXCLUSIVE, 0, 1, NULL, 0, stream, 0};
    check_scan(scan, t, &c, 31u);
    c.kind = MJ_SCAN_INCLUSIVE;
    c.in_place = 1;
    check_scan(scan, t, &c, 32u);
    check_reduce(reduce, t, n, NULL, 0, stream, 0, 33u);
    mj_sorter_destroy(scan);
    mj_sorter_destroy(reduce);
    rt.stream_destroy(stream);
}
END_TEST

/* mj_scan and mj_reduce build their sorters and storage themselves. */
START_TEST(test_one_call)
{
    const etype *t = &types[3]; /* f64 max */
    size_t n = 123457, ks = t->size;
    unsigned char *h = random_input(t, n, 5u);
    void *din = dev_bytes(h, n * ks), *dout = NULL, *dtotal = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &dout, n * ks), MJ_OK);
    ck_assert_int_eq(mj__dev_alloc(ctx, &dtotal, ks), MJ_OK);
    mj_sort_desc d;
    mj_sort_desc_init(&d, t->key, MJ_ASCENDING);
    d.op = t->op;
    d.identity = t->identity;
    ck_assert_int_eq(mj_scan(ctx, &d, din, n, dout, MJ_SCAN_INCLUSIVE, dtotal, NULL), MJ_OK);
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    double *got = host_copy(dout, n * ks), acc = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
        double x = ((double *)h)[i];
        acc = x > acc ? x : acc;
        ck_assert_msg(got[i] == acc, "mj_scan: element %zu", i);
    }
    ck_assert_int_eq(mj_reduce(ctx, &d, din, n, dtotal, NULL), MJ_OK);
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    double *tot = host_copy(dtotal, ks);
    ck_assert(*tot == acc);
    free(tot);
    free(got);
    free(h);
    mj__dev_free(ctx, din);
    mj__dev_free(ctx, dout);
    mj__dev_free(ctx, dtotal);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpu_scan");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1800);
    tcase_add_loop_test(tc, test_scan, 0, TYPE_COUNT);
    tcase_add_loop_test(tc, test_scan_reused_temp, 0, TYPE_COUNT);
    tcase_add_loop_test(tc, test_reduce, 0, TYPE_COUNT);
    tcase_add_loop_test(tc, test_unaligned, 0, TYPE_COUNT);
    tcase_add_test(tc, test_own_stream);
    tcase_add_test(tc, test_one_call);
    suite_add_tcase(s, tc);
    return run_gpu_suite("test_gpu_scan", s);
}
