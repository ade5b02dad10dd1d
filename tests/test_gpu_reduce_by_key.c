/* SPDX-License-Identifier: Apache-2.0 */
/* Reduce by key on the GPU against a C reference: u32, u64 and f32 keys (the f32 keys drawn
 * from -0, +0, infinities and NaNs of several signs and payloads, equivalent only with equal
 * bits), u32 keys under a comparator of their own (keys equivalent when equal but for their
 * two low bits, so the output must be each run's first key), and a custom 8-byte struct key
 * with 3 padding bytes (random in the input: the output must be the first key's bytes); values
 * u32, u64 and f32 (sum, max; the f32 values are small integers, so every order of summing is
 * exact) and custom types whose operators are not commutative (8-byte and 12-byte affine maps
 * composed in order) or of an odd size (9 bytes, summed byte by byte). Runs of mean length 1,
 * 4 and 1000 (keys drawn so that equal keys also come back after other runs: the input is not
 * sorted), all keys equal, runs of exactly a tile aligned to the tiles, and runs crossing tile
 * edges around one run of five tiles; sizes 0, 1, around the tile edges, 33 tiles and 4 * 10^6
 * (200000 with MJ_TEST_SMALL). Outputs lie between guard bytes and are filled with a pattern
 * first: the entries past the count must keep it. A caller's temporary buffer for several
 * sizes and the one-call function; misaligned and host pointers refused with the outputs
 * untouched. Skips (exit 77) where there is no GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "gpu_primitives_support.h"
#include "test_support.h"

typedef enum key_kind { K_U32, K_U64, K_F32, K_U32_LOW2, K_PADDED } key_kind;
typedef enum value_kind { V_U32_SUM, V_U32_MAX, V_F32_SUM, V_U64_SUM, V_U64_MAX, V_AFF, V_AFF3,
                          V_BYTES9 } value_kind;

typedef struct config {
    key_kind k;
    value_kind v;
    mj_order order;
    int large; /* also runs the largest size */
} config;

static const config configs[] = {
    {K_U32, V_U32_SUM, MJ_ASCENDING, 1},  {K_U32, V_U32_MAX, MJ_ASCENDING, 0},
    {K_U32, V_F32_SUM, MJ_ASCENDING, 0},  {K_U32, V_U64_MAX, MJ_ASCENDING, 0},
    {K_U64, V_U32_SUM, MJ_ASCENDING, 1},  {K_U64, V_U64_SUM, MJ_DESCENDING, 0},
    {K_U64, V_F32_SUM, MJ_ASCENDING, 0},  {K_F32, V_U32_SUM, MJ_ASCENDING, 0},
    {K_F32, V_F32_SUM, MJ_DESCENDING, 0}, {K_PADDED, V_AFF, MJ_ASCENDING, 1},
    {K_U32, V_AFF3, MJ_ASCENDING, 1},     {K_U32_LOW2, V_BYTES9, MJ_ASCENDING, 0},
};
#define CONFIGS (int)(sizeof configs / sizeof *configs)

static size_t key_size(key_kind k) { return k == K_U64 || k == K_PADDED ? 8 : 4; }

/* The values: type, its source, operator, identity and size. */
typedef struct value_type {
    const char *type, *source, *op, *identity;
    size_t size;
} value_type;

static const char aff_source[] = "struct aff { unsigned m, c; };";
static const char aff3_source[] = "struct aff3 { unsigned m, c, k; };";
static const char bytes9_source[] =
    "struct b9 { unsigned char b[9]; };\n"
    "__device__ b9 b9_add(const b9 &x, const b9 &y) {\n"
    "    b9 r;\n"
    "    for (int i = 0; i < 9; ++i) r.b[i] = (unsigned char)(x.b[i] + y.b[i]);\n"
    "    return r;\n"
    "}";

static const value_type value_types[] = {
    [V_U32_SUM] = {"unsigned int", NULL, NULL, NULL, 4},
    [V_U32_MAX] = {"unsigned", NULL, "max(a, b)", "0u", 4},
    [V_F32_SUM] = {"float", NULL, "a + b", "0.0f", 4},
    [V_U64_SUM] = {"unsigned long long", NULL, NULL, NULL, 8},
    [V_U64_MAX] = {"unsigned long long", NULL, "a < b ? b : a", "0ull", 8},
    /* x -> x * m + c, a then b */
    [V_AFF] = {"aff", aff_source, "aff{a.m * b.m, a.c * b.m + b.c}", "aff{1u, 0u}", 8},
    [V_AFF3] = {"aff3", aff3_source, "aff3{a.m * b.m, a.c * b.m + b.c, a.k + b.k}",
                "aff3{1u, 0u, 0u}", 12},
    [V_BYTES9] = {"b9", bytes9_source, "b9_add(a, b)", "b9{}", 9},
};

/* The reference's a = a op b over values as bytes. */
static void value_op(value_kind v, unsigned char *a, const unsigned char *b) {
    switch (v) {
    case V_U32_SUM:
    case V_U32_MAX: {
        uint32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        x = v == V_U32_SUM ? x + y : x < y ? y : x;
        memcpy(a, &x, 4);
        break;
    }
    case V_F32_SUM: {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        x += y;
        memcpy(a, &x, 4);
        break;
    }
    case V_U64_SUM:
    case V_U64_MAX: {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        x = v == V_U64_SUM ? x + y : x < y ? y : x;
        memcpy(a, &x, 8);
        break;
    }
    case V_AFF:
    case V_AFF3: {
        uint32_t x[3] = {0, 0, 0}, y[3] = {0, 0, 0};
        size_t n = v == V_AFF ? 8 : 12;
        memcpy(x, a, n);
        memcpy(y, b, n);
        uint32_t r[3] = {x[0] * y[0], x[1] * y[0] + y[1], x[2] + y[2]};
        memcpy(a, r, n);
        break;
    }
    default:
        for (int i = 0; i < 9; ++i) a[i] = (unsigned char)(a[i] + b[i]);
    }
}

static void make_value(value_kind v, unsigned char *out, uint64_t *rng) {
    uint64_t r = mjt_rand(rng);
    switch (v) {
    case V_U32_SUM: {
        uint32_t x = (uint32_t)(r % 1000);
        memcpy(out, &x, 4);
        break;
    }
    case V_F32_SUM: {
        float x = (float)(r % 3); /* sums stay exact integers below 2^24 */
        memcpy(out, &x, 4);
        break;
    }
    case V_U32_MAX: {
        uint32_t x = (uint32_t)r;
        memcpy(out, &x, 4);
        break;
    }
    case V_U64_SUM:
    case V_U64_MAX:
        memcpy(out, &r, 8);
        break;
    case V_AFF:
    case V_AFF3: {
        uint32_t x[3] = {(uint32_t)r | 1u, (uint32_t)(r >> 32), 1};
        memcpy(out, x, v == V_AFF ? 8 : 12);
        break;
    }
    default:
        for (int i = 0; i < 9; ++i) out[i] = (unsigned char)(mjt_rand(rng) >> 24);
    }
}

/* f32 keys: a class is one of these bit patterns. */
static const uint32_t f32_keys[] = {
    0x80000000u, 0x00000000u, 0x7FC00000u, 0x7FC00001u, 0xFFC00000u, 0x7F800001u,
    0x7F800000u, 0xFF800000u, 0x3F800000u, 0xBF800000u, 0x00000001u, 0x80000001u,
    0x40490FDBu, 0xC0490FDBu, 0x7F7FFFFFu, 0xFFFFFFFFu,
};

/* A key of equivalence class c: classes differ in what the order compares, and keys of one
 * class in what it does not (the two low bits of K_U32_LOW2, the padding of K_PADDED). */
static void make_key(key_kind k, unsigned char *out, uint64_t c, uint64_t *rng) {
    switch (k) {
    case K_U32: {
        uint32_t x = (uint32_t)c * 2654435761u;
        memcpy(out, &x, 4);
        break;
    }
    case K_U64: {
        uint64_t x = c * 0x9E3779B97F4A7C15ull;
        memcpy(out, &x, 8);
        break;
    }
    case K_F32:
        memcpy(out, &f32_keys[c % 16], 4);
        break;
    case K_U32_LOW2: {
        uint32_t x = (uint32_t)(c << 2) | (uint32_t)(mjt_rand(rng) & 3);
        memcpy(out, &x, 4);
        break;
    }
    default: { /* struct pk { unsigned char a; unsigned b; }: padding bytes 1 to 3 */
        uint32_t b = (uint32_t)(c >> 8), pad = (uint32_t)mjt_rand(rng);
        out[0] = (unsigned char)c;
        memcpy(out + 1, &pad, 3);
        memcpy(out + 4, &b, 4);
    }
    }
}

static int equivalent(key_kind k, const unsigned char *x, const unsigned char *y) {
    switch (k) {
    case K_U32_LOW2: {
        uint32_t p, q;
        memcpy(&p, x, 4);
        memcpy(&q, y, 4);
        return p >> 2 == q >> 2;
    }
    case K_PADDED: return x[0] == y[0] && memcmp(x + 4, y + 4, 4) == 0;
    default: return memcmp(x, y, key_size(k)) == 0; /* the built-in orders: equal bits */
    }
}

static mj_sorter *make(const config *c) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, c->k == K_U64 ? MJ_KEY_U64 : c->k == K_F32 ? MJ_KEY_F32 : MJ_KEY_U32,
                      c->order);
    if (c->k == K_U32_LOW2) d.less = "(a >> 2) < (b >> 2)";
    if (c->k == K_PADDED) {
        d.key = MJ_KEY_CUSTOM;
        d.type_name = "pk";
        d.type_source = "struct pk { unsigned char a; unsigned b; };";
        d.type_size = 8;
        d.type_align = 4;
        d.less = "a.a < b.a || (a.a == b.a && a.b < b.b)";
    }
    const value_type *v = &value_types[c->v];
    d.primitive = MJ_REDUCE_BY_KEY;
    d.value_size = v->size;
    d.value_type = v->type;
    d.value_type_source = v->source;
    d.op = v->op;
    d.identity = v->identity;
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, &d, &s);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    return s;
}

typedef enum pattern {
    P_MEAN1, P_MEAN4, P_MEAN1000, P_ALL_EQUAL, P_TILE_RUNS, P_CROSSING, P_COUNT
} pattern;
static const char *const pattern_names[] = {"runs of mean 1", "runs of mean 4",
                                            "runs of mean 1000", "all keys equal",
                                            "runs of a tile", "runs crossing tile edges"};

/* n keys of config c in runs of pattern p (nv: the sorter's tile). Adjacent runs are of
 * different classes; P_MEAN4 draws from 8 classes, so equal keys come back apart. */
static unsigned char *make_keys(const config *c, pattern p, size_t n, size_t nv, uint64_t seed) {
    size_t ks = key_size(c->k);
    unsigned char *k = malloc(n * ks + 1);
    ck_assert_ptr_nonnull(k);
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 11, cls = 0, run = 0;
    for (size_t i = 0, left = 0; i < n; ++i, --left) {
        if (left == 0) {
            uint64_t pool = p == P_MEAN4 ? 8 : c->k == K_F32 ? 16 : 1u << 20, next;
            do next = mjt_rand(&rng) % pool;
            while (run && next == cls);
            cls = next;
            switch (p) {
            case P_MEAN1: left = 1; break;
            case P_MEAN4: left = 1 + mjt_rand(&rng) % 7; break;
            case P_MEAN1000: left = 1 + mjt_rand(&rng) % 1999; break;
            case P_ALL_EQUAL: left = n; break;
            case P_TILE_RUNS: left = nv; break;
            default: left = run == 3 ? 5 * nv + 3 : run % 2 ? nv - 1 : nv / 2 + 1; break;
            }
            ++run;
        }
        make_key(c->k, k + i * ks, cls, &rng);
    }
    return k;
}

/* The runs of keys and values: first keys to ok, combined values to ov; returns their count. */
static size_t reference(const config *c, const unsigned char *k, const unsigned char *v,
                        size_t n, unsigned char *ok, unsigned char *ov) {
    size_t ks = key_size(c->k), vs = value_types[c->v].size, r = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i == 0 || !equivalent(c->k, k + (i - 1) * ks, k + i * ks)) {
            memcpy(ok + r * ks, k + i * ks, ks);
            memcpy(ov + r * vs, v + i * vs, vs);
            ++r;
        } else {
            value_op(c->v, ov + (r - 1) * vs, v + i * vs);
        }
    }
    return r;
}

/* Runs the sorter (or, with one_call, mj_reduce_by_key) over n keys of pattern p and checks
 * every output against the reference, and that nothing past the count was written. */
static void run_case(const config *c, mj_sorter *s, pattern p, size_t n, uint64_t seed,
                     void *temp, size_t temp_bytes, int one_call) {
    size_t ks = key_size(c->k), vs = value_types[c->v].size, nv = tile_of(s);
    char what[200];
    snprintf(what, sizeof what, "%s keys, %s values, %s, n %zu%s",
             c->k == K_PADDED ? "padded struct" : c->k == K_U64 ? "u64" : c->k == K_F32 ? "f32"
                                                                                       : "u32",
             value_types[c->v].type, pattern_names[p], n, one_call ? ", one call" : "");
    say(what);
    unsigned char *k = make_keys(c, p, n, nv, seed), *v = malloc(n * vs + 1);
    unsigned char *rk = malloc(n * ks + 1), *rv = malloc(n * vs + 1);
    ck_assert(v && rk && rv);
    uint64_t rng = seed + 3;
    for (size_t i = 0; i < n; ++i) make_value(c->v, v + i * vs, &rng);
    size_t want = reference(c, k, v, n, rk, rv);
    void *d_k = upload(k, n * ks), *d_v = upload(v, n * vs);
    void *d_ok = guarded(n * ks), *d_ov = guarded(n * vs), *d_count = guarded(8);
    mj_status st;
    if (one_call) {
        mj_sort_desc d;
        mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
        d.value_type = value_types[c->v].type;
        st = mj_reduce_by_key(ctx, &d, d_k, d_v, n, d_ok, d_ov, d_count, vs, NULL);
    } else {
        st = mj_sorter_reduce_by_key(s, d_k, d_v, n, d_ok, d_ov, d_count, temp, temp_bytes,
                                     NULL);
    }
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st),
                  mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    size_t overrun = 0;
    unsigned char *gk = fetch(d_ok, n * ks, &overrun), *gv = fetch(d_ov, n * vs, &overrun);
    unsigned char *gc = fetch(d_count, 8, &overrun);
    uint64_t count;
    memcpy(&count, gc, 8);
    char fail[256] = "";
    if (overrun)
        snprintf(fail, sizeof fail, "%zu guard bytes written", overrun);
    else if (count != want)
        snprintf(fail, sizeof fail, "%llu runs, not %zu", (unsigned long long)count, want);
    for (size_t r = 0; r < want && !fail[0]; ++r)
        if (memcmp(gk + r * ks, rk + r * ks, ks))
            snprintf(fail, sizeof fail, "run %zu: not its first key", r);
        else if (memcmp(gv + r * vs, rv + r * vs, vs))
            snprintf(fail, sizeof fail, "run %zu: a wrong value", r);
    for (size_t b = want * ks; b < n * ks && !fail[0]; ++b)
        if (gk[b] != GUARD_BYTE) snprintf(fail, sizeof fail, "out_keys written past the count");
    for (size_t b = want * vs; b < n * vs && !fail[0]; ++b)
        if (gv[b] != GUARD_BYTE)
            snprintf(fail, sizeof fail, "out_values written past the count");
    ck_assert_msg(!fail[0], "%s: %s", what, fail);
    free(gk);
    free(gv);
    free(gc);
    free(k);
    free(v);
    free(rk);
    free(rv);
    free_guarded(d_ok);
    free_guarded(d_ov);
    free_guarded(d_count);
    free_dev(d_k);
    free_dev(d_v);
}

/* 0, 1, around the tile edges, 33 tiles; 4 * 10^6 (200000 small) for the configs that say so. */
static size_t sizes_for(const config *c, size_t nv, size_t *out) {
    size_t base[] = {0, 1, 2, nv - 1, nv, nv + 1, 2 * nv - 1, 2 * nv + 1, 33 * nv + 7};
    size_t z = 0;
    for (size_t i = 0; i < sizeof base / sizeof *base; ++i) out[z++] = base[i];
    if (c->large) out[z++] = small ? 200000 : 4000000;
    return z;
}

START_TEST(test_runs)
{
    const config *c = &configs[_i];
    mj_sorter *s = make(c);
    size_t sizes[16], count = sizes_for(c, tile_of(s), sizes);
    for (size_t z = 0; z < count; ++z)
        for (int p = 0; p < P_COUNT; ++p)
            run_case(c, s, (pattern)p, sizes[z], 97u * z + (uint64_t)p + 1000u * (uint64_t)_i,
                     NULL, 0, 0);
    mj_sorter_destroy(s);
}
END_TEST

/* One caller's buffer for runs of several sizes, largest first; then the one-call function
 * (u32 keys ascending, u32 values, the default a + b). */
START_TEST(test_temp_and_one_call)
{
    const config *c = &configs[0];
    mj_sorter *s = make(c);
    size_t sizes[16], count = sizes_for(c, tile_of(s), sizes), bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, sizes[count - 1], 0, &bytes), MJ_OK);
    void *temp = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &temp, bytes), MJ_OK);
    for (size_t z = count; z-- > 0;)
        run_case(c, s, P_MEAN4, sizes[z], z, temp, bytes, 0);
    mj__dev_free(ctx, temp);
    for (size_t z = 0; z < count; ++z) run_case(c, s, P_MEAN1000, sizes[z], z + 50, NULL, 0, 1);
    mj_sorter_destroy(s);
}
END_TEST

/* Misaligned and host pointers are refused before anything is written: the outputs keep
 * their pattern (u32 keys with 8-byte values). */
START_TEST(test_refusals)
{
    const config *c = &configs[3];
    mj_sorter *s = make(c);
    size_t n = 1000;
    unsigned char *k = make_keys(c, P_MEAN4, n, tile_of(s), 9), *v = calloc(n + 1, 8);
    ck_assert_ptr_nonnull(v);
    unsigned char *d_k = dev_copy(k, 4 * n + 8), *d_v = dev_copy(v, 8 * n + 8);
    unsigned char *d_ok = guarded(4 * n + 8), *d_ov = guarded(8 * n + 8), *d_c = guarded(16);
    static const struct {
        int arg, offset;
        const char *needle;
    } bad[] = {{0, 2, "keys"}, {1, 4, "values"}, {2, 1, "out_keys"}, {3, 4, "out_values"},
               {4, 4, "out_count"}, {1, -1, "not memory the GPU can reach"}};
    for (size_t b = 0; b < sizeof bad / sizeof *bad; ++b) {
        unsigned char *p[5] = {d_k, d_v, d_ok, d_ov, d_c};
        p[bad[b].arg] = bad[b].offset < 0 ? v : p[bad[b].arg] + bad[b].offset;
        mjt_expect(ctx, mj_sorter_reduce_by_key(s, p[0], p[1], n, p[2], p[3], p[4], NULL, 0,
                                                NULL),
                   MJ_ERR_INVALID_ARGUMENT, bad[b].needle, bad[b].needle);
    }
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    size_t overrun = 0;
    unsigned char *gk = fetch(d_ok, 4 * n + 8, &overrun), *gv = fetch(d_ov, 8 * n + 8, &overrun);
    unsigned char *gc = fetch(d_c, 16, &overrun);
    size_t touched = overrun;
    for (size_t i = 0; i < 4 * n + 8; ++i) touched += gk[i] != GUARD_BYTE;
    for (size_t i = 0; i < 8 * n + 8; ++i) touched += gv[i] != GUARD_BYTE;
    for (size_t i = 0; i < 16; ++i) touched += gc[i] != GUARD_BYTE;
    ck_assert_msg(touched == 0, "%zu output bytes written by refused calls", touched);
    free(gk);
    free(gv);
    free(gc);
    free(k);
    free(v);
    free_guarded(d_ok);
    free_guarded(d_ov);
    free_guarded(d_c);
    free_dev(d_k);
    free_dev(d_v);
    mj_sorter_destroy(s);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpu_reduce_by_key");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1800);
    tcase_add_loop_test(tc, test_runs, 0, CONFIGS);
    tcase_add_test(tc, test_temp_and_one_call);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    return run_gpu_suite("test_gpu_reduce_by_key", s);
}
