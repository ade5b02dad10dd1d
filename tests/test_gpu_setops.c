/* SPDX-License-Identifier: Apache-2.0 */
/* Multiset operations on the GPU against a C reference of std::set_intersection, set_union,
 * set_difference and set_symmetric_difference over multisets: every operation, keys only and with
 * 4- and 12-byte values; u32 (ascending and descending), i64, f32 with NaNs of both signs and
 * several payloads (equal only with equal bits) and -0 (before +0), and a 12-byte struct compared
 * by two of its fields (the third tells equivalent keys apart, so the output must take each key
 * from the right side); random keys with about half in common, few keys with many copies, all keys
 * equal with different multiplicities, disjoint and identical inputs, a run of three tiles of one
 * key on one side only; sizes 0, 1, around the tile edges, many tiles, 10^6 and 10^7 a side (not
 * with MJ_TEST_SMALL). Each value names its element (side and index), so stability and where each
 * value comes from are checked. Every output lies between guard bytes that must stay as they were,
 * also for unsorted input (whose output is otherwise unspecified; the count must stay within the
 * bound). A caller's temporary buffer and the one-call function. Skips (exit 77) where there is no
 * GPU. MJ_TEST_SMALL=1 runs smaller sizes (for compute-sanitizer). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "cli.h"
#include "gpu_primitives_support.h"
#include "padded_keys_support.h"
#include "test_support.h"

typedef enum kind { U32, I64, F32, REC } kind;

typedef struct config {
    kind k;
    mj_order order;
    size_t ks, vs;
} config;

static const config configs[] = {
    {U32, MJ_ASCENDING, 4, 0},  {U32, MJ_ASCENDING, 4, 4},   {U32, MJ_DESCENDING, 4, 12},
    {I64, MJ_ASCENDING, 8, 0},  {I64, MJ_ASCENDING, 8, 4},   {F32, MJ_ASCENDING, 4, 4},
    {F32, MJ_DESCENDING, 4, 0}, {REC, MJ_ASCENDING, 12, 0},  {REC, MJ_ASCENDING, 12, 12},
};
#define CONFIGS (int)(sizeof configs / sizeof *configs)

static const char *const op_names[] = {"intersection", "union", "difference",
                                       "symmetric difference"};

static mj_sorter *make(const config *c) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, c->k == U32 ? MJ_KEY_U32 : c->k == I64 ? MJ_KEY_I64 : MJ_KEY_F32,
                      c->order);
    if (c->k == REC) d = rec_desc(MJ_SET_OPS);
    d.primitive = MJ_SET_OPS;
    d.value_size = c->vs;
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, &d, &s);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    return s;
}

/* The sorter's order over keys as bytes. */
static const config *cur;
static int less(const unsigned char *x, const unsigned char *y) {
    int desc = cur->order == MJ_DESCENDING;
    switch (cur->k) {
    case U32: {
        uint32_t p, q;
        memcpy(&p, x, 4);
        memcpy(&q, y, 4);
        return desc ? q < p : p < q;
    }
    case I64: {
        int64_t p, q;
        memcpy(&p, x, 8);
        memcpy(&q, y, 8);
        return desc ? q < p : p < q;
    }
    case F32: /* the CPU reference's ranks of the header's total order */
        return kg_less(MJ_KEY_F32, cur->order, x, y);
    default: {
        uint32_t p[3], q[3];
        memcpy(p, x, 12);
        memcpy(q, y, 12);
        return p[0] < q[0] || (p[0] == q[0] && p[1] < q[1]);
    }
    }
}
static int cmp_keys(const void *x, const void *y) {
    return less(x, y) ? -1 : less(y, x) ? 1 : 0;
}

/* The key for a drawn number r (the same r gives equivalent keys; the struct's tag differs
 * between draws). One f32 key in 16 is a NaN of either sign with one of three payloads, so
 * that equal NaNs meet across the sides and unequal ones are different keys. */
static void make_key(unsigned char *k, uint64_t r, uint64_t *rng) {
    switch (cur->k) {
    case U32: {
        uint32_t v = (uint32_t)r;
        memcpy(k, &v, 4);
        break;
    }
    case I64: {
        int64_t v = (int64_t)r - 1000000 + (int64_t)(r % 7) * (INT64_C(1) << 40);
        memcpy(k, &v, 8);
        break;
    }
    case F32: {
        uint32_t bits;
        float f;
        if (r % 16 == 0) {
            static const uint32_t payloads[] = {0x400000u, 0x400001u, 0x7FFFFFu};
            bits = 0x7F800000u | payloads[mjt_rand(rng) % 3] |
                   (uint32_t)(mjt_rand(rng) & 1) << 31; /* NaNs of both signs */
            memcpy(k, &bits, 4);
            break;
        }
        f = r % 16 == 1 ? -0.0f : r % 16 == 2 ? 0.0f : ((float)r - 5000.0f) * 0.25f;
        memcpy(k, &f, 4);
        break;
    }
    default: {
        uint32_t v[3] = {(uint32_t)(r / 3), (uint32_t)(r % 3), (uint32_t)mjt_rand(rng)};
        memcpy(k, v, 12);
    }
    }
}

typedef enum pattern {
    P_HALF_COMMON, P_FEW_KEYS, P_ALL_EQUAL, P_DISJOINT, P_IDENTICAL, P_LONG_RUN, P_COUNT
} pattern;
static const char *const pattern_names[] = {"about half in common", "few keys",
                                            "all equal",            "disjoint",
                                            "identical",            "a long run on one side"};

/* Sorted keys of one side (side 0: a, 1: b) of a pattern; nv is the sorter's tile. */
static unsigned char *make_side(pattern p, int side, size_t count, size_t other, size_t nv,
                                uint64_t seed) {
    size_t ks = cur->ks;
    unsigned char *k = malloc(count * ks + 1);
    ck_assert_ptr_nonnull(k);
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 7 + (uint64_t)side;
    size_t range = 2 * (count > other ? count : other) + 1;
    for (size_t i = 0; i < count; ++i) {
        uint64_t r = mjt_rand(&rng), v;
        switch (p) {
        case P_HALF_COMMON: v = r % range; break;
        case P_FEW_KEYS: v = r % 5; break;
        case P_ALL_EQUAL: v = 3; break;
        case P_DISJOINT: v = 2 * (r % range) + (uint64_t)side; break;
        case P_IDENTICAL: v = i / 3; break;
        default: v = side == 0 && i % (4 * nv) < 3 * nv ? 999 : r % 2000; break;
        }
        make_key(k + i * ks, v, &rng);
    }
    qsort(k, count, ks, cmp_keys);
    return k;
}

/* Element i of a side's values: its side and index in the first 4 bytes, then bytes from
 * them. */
static void make_value(unsigned char *v, int side, size_t i) {
    uint32_t tag = (uint32_t)side << 31 | (uint32_t)i;
    for (size_t j = 0; j < cur->vs; ++j)
        v[j] = j < 4 ? (unsigned char)(tag >> (8 * j)) : (unsigned char)(tag * 31 + j);
}

/* std::set_*: the emitted elements' sides and indices; returns their count. */
static size_t reference(const unsigned char *a, size_t ac, const unsigned char *b, size_t bc,
                        mj_set_op op, int *side, size_t *at) {
    size_t i = 0, j = 0, n = 0, ks = cur->ks;
    while (i < ac || j < bc) {
        int a_only = i < ac && (j >= bc || less(a + i * ks, b + j * ks));
        int b_only = !a_only && j < bc && (i >= ac || less(b + j * ks, a + i * ks));
        int emit = a_only   ? op != MJ_SET_INTERSECTION
                   : b_only ? op == MJ_SET_UNION || op == MJ_SET_SYMMETRIC_DIFFERENCE
                            : op == MJ_SET_INTERSECTION || op == MJ_SET_UNION;
        if (emit) {
            side[n] = b_only;
            at[n++] = b_only ? j : i;
        }
        if (!b_only) ++i;
        if (!a_only) ++j;
    }
    return n;
}

/* Runs op over a and b (sorted unless `sorted` is 0) and checks the result: for sorted input,
 * against the reference; for unsorted, only the guards and the count's bound. */
static void run_op(mj_sorter *s, mj_set_op op, const unsigned char *a, size_t ac,
                   const unsigned char *b, size_t bc, int sorted, void *temp, size_t temp_bytes,
                   const char *what) {
    size_t ks = cur->ks, vs = cur->vs, bound = mj_set_op_bound(op, ac, bc);
    unsigned char *av = malloc(ac * vs + 1), *bv = malloc(bc * vs + 1);
    ck_assert(av && bv);
    for (size_t i = 0; i < ac; ++i) make_value(av + i * vs, 0, i);
    for (size_t i = 0; i < bc; ++i) make_value(bv + i * vs, 1, i);
    void *d_a = upload(a, ac * ks), *d_b = upload(b, bc * ks);
    void *d_av = vs ? upload(av, ac * vs) : NULL, *d_bv = vs ? upload(bv, bc * vs) : NULL;
    void *d_out = guarded(bound * ks), *d_outv = vs ? guarded(bound * vs) : NULL;
    void *d_count = guarded(8);
    mj_status st = mj_sorter_set_op(s, op, d_a, d_av, ac, d_b, d_bv, bc, d_out, d_outv, d_count,
                                    temp, temp_bytes, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st),
                  mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    size_t overrun = 0;
    unsigned char *got = fetch(d_out, bound * ks, &overrun);
    unsigned char *gotv = vs ? fetch(d_outv, bound * vs, &overrun) : NULL;
    unsigned char *cnt = fetch(d_count, 8, &overrun);
    uint64_t count;
    memcpy(&count, cnt, 8);
    char fail[256] = "";
    if (overrun) snprintf(fail, sizeof fail, "a write outside the outputs");
    else if (count > bound) snprintf(fail, sizeof fail, "count %llu over the bound %zu",
                                     (unsigned long long)count, bound);
    if (sorted && !fail[0]) {
        int *side = malloc(sizeof *side * (bound + 1));
        size_t *at = malloc(sizeof *at * (bound + 1));
        ck_assert(side && at);
        size_t want = reference(a, ac, b, bc, op, side, at);
        if (count != want)
            snprintf(fail, sizeof fail, "%llu elements, not %zu", (unsigned long long)count,
                     want);
        for (size_t o = 0; o < want && !fail[0]; ++o) {
            const unsigned char *k = (side[o] ? b : a) + at[o] * ks;
            const unsigned char *v = (side[o] ? bv : av) + at[o] * vs;
            if (memcmp(got + o * ks, k, ks))
                snprintf(fail, sizeof fail, "output %zu: not the key of %c[%zu]", o,
                         "ab"[side[o]], at[o]);
            else if (vs && memcmp(gotv + o * vs, v, vs))
                snprintf(fail, sizeof fail, "output %zu: not the value of %c[%zu]", o,
                         "ab"[side[o]], at[o]);
        }
        free(side);
        free(at);
    }
    ck_assert_msg(!fail[0], "%s (%zu + %zu keys, %zu-byte values): %s", what, ac, bc, vs, fail);
    free(got);
    free(gotv);
    free(cnt);
    free(av);
    free(bv);
    free_guarded(d_out);
    free_guarded(d_outv);
    free_guarded(d_count);
    free_dev(d_a);
    free_dev(d_b);
    free_dev(d_av);
    free_dev(d_bv);
}

/* Sizes of a and b: empty sides, one, the tile edges, many tiles, 10^7. */
static size_t sizes_for(size_t nv, size_t (*out)[2]) {
    size_t z = 0;
    const size_t pairs[][2] = {{0, 0},      {0, 1},          {1, 0},         {1, 1},
                               {0, nv + 1}, {nv - 1, 0},     {nv / 2, nv / 2}, {nv, nv},
                               {nv + 1, nv - 1}, {3 * nv + 5, 2 * nv}, {20 * nv, 15 * nv}};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; ++i) {
        out[z][0] = pairs[i][0];
        out[z++][1] = pairs[i][1];
    }
    if (!small) {
        out[z][0] = 100000;
        out[z++][1] = 70000;
        out[z][0] = 1000000;
        out[z++][1] = 1300000;
    }
    return z;
}

START_TEST(test_ops)
{
    const config *c = &configs[_i];
    cur = c;
    mj_sorter *s = make(c);
    size_t nv = tile_of(s), sizes[16][2], count = sizes_for(nv, sizes);
    for (size_t z = 0; z < count; ++z)
        for (int p = 0; p < P_COUNT; ++p) {
            size_t ac = sizes[z][0], bc = sizes[z][1];
            uint64_t seed = 131u * z + (uint64_t)p;
            unsigned char *a = make_side((pattern)p, 0, ac, bc, nv, seed);
            unsigned char *b = p == P_IDENTICAL ? NULL : make_side((pattern)p, 1, bc, ac, nv, seed);
            if (p == P_IDENTICAL) { /* b: a's first keys, then a's last repeated */
                b = malloc(bc * c->ks + 1);
                ck_assert_ptr_nonnull(b);
                for (size_t i = 0; i < bc && ac; ++i)
                    memcpy(b + i * c->ks, a + (i < ac ? i : ac - 1) * c->ks, c->ks);
                if (!ac) bc = 0;
            }
            for (int op = 0; op < 4; ++op) {
                char what[160];
                snprintf(what, sizeof what, "%s, %s", op_names[op], pattern_names[p]);
                say(what);
                run_op(s, (mj_set_op)op, a, ac, b, bc, 1, NULL, 0, what);
            }
            free(a);
            free(b);
        }
    mj_sorter_destroy(s);
}
END_TEST

/* 10^7 keys a side, u32 with 4-byte values, about half in common. */
START_TEST(test_large)
{
    if (small) return;
    const config *c = &configs[1];
    cur = c;
    mj_sorter *s = make(c);
    size_t n = 10000000;
    unsigned char *a = make_side(P_HALF_COMMON, 0, n, n, tile_of(s), 5);
    unsigned char *b = make_side(P_HALF_COMMON, 1, n, n, tile_of(s), 5);
    for (int op = 0; op < 4; ++op) run_op(s, (mj_set_op)op, a, n, b, n, 1, NULL, 0, op_names[op]);
    free(a);
    free(b);
    mj_sorter_destroy(s);
}
END_TEST

/* Unsorted keys (the caller's contract broken): unspecified output, but inside the arrays. */
START_TEST(test_unsorted)
{
    const config *c = &configs[_i];
    cur = c;
    mj_sorter *s = make(c);
    size_t nv = tile_of(s), ks = c->ks;
    size_t sizes[][2] = {{5 * nv + 3, 4 * nv}, {nv, 7 * nv + 1}, {small ? 20000 : 100000, 30000}};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; ++z) {
        size_t ac = sizes[z][0], bc = sizes[z][1];
        unsigned char *a = malloc(ac * ks), *b = malloc(bc * ks);
        ck_assert(a && b);
        uint64_t rng = 77 + z;
        for (size_t i = 0; i < ac; ++i) make_key(a + i * ks, mjt_rand(&rng) % 50, &rng);
        for (size_t i = 0; i < bc; ++i) make_key(b + i * ks, mjt_rand(&rng) % 50, &rng);
        for (int op = 0; op < 4; ++op) run_op(s, (mj_set_op)op, a, ac, b, bc, 0, NULL, 0, op_names[op]);
        free(a);
        free(b);
    }
    mj_sorter_destroy(s);
}
END_TEST

/* One caller's buffer for runs of several sizes, largest first; the one-call function. */
START_TEST(test_temp_and_one_call)
{
    const config *c = &configs[1];
    cur = c;
    mj_sorter *s = make(c);
    size_t nv = tile_of(s), sizes[16][2], count = sizes_for(nv, sizes), bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, sizes[count - 1][0] + sizes[count - 1][1], 0, &bytes),
                     MJ_OK);
    void *temp = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &temp, bytes), MJ_OK);
    for (size_t z = count; z-- > 0;) {
        size_t ac = sizes[z][0], bc = sizes[z][1];
        unsigned char *a = make_side(P_FEW_KEYS, 0, ac, bc, nv, z);
        unsigned char *b = make_side(P_FEW_KEYS, 1, bc, ac, nv, z);
        run_op(s, MJ_SET_SYMMETRIC_DIFFERENCE, a, ac, b, bc, 1, temp, bytes,
               "symmetric difference with the caller's temp");
        free(a);
        free(b);
    }
    mj__dev_free(ctx, temp);
    mj_sorter_destroy(s);

    /* mj_set_op_run: a = 0, 2, 4, ... and b = 0, 3, 6, ..., u64 descending order over
     * reversed arrays; the intersection is the multiples of 6. */
    size_t n = 60000;
    uint64_t *a = malloc(8 * n), *b = malloc(8 * n);
    ck_assert(a && b);
    for (size_t i = 0; i < n; ++i) {
        a[i] = 2 * (n - 1 - i);
        b[i] = 3 * (n - 1 - i);
    }
    void *d_a = dev_copy(a, 8 * n), *d_b = dev_copy(b, 8 * n), *d_out = NULL, *d_count = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &d_out, 8 * n), MJ_OK);
    ck_assert_int_eq(mj__dev_alloc(ctx, &d_count, 8), MJ_OK);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U64, MJ_DESCENDING);
    ck_assert_int_eq(mj_set_op_run(ctx, &d, MJ_SET_INTERSECTION, d_a, NULL, n, d_b, NULL, n,
                                   d_out, NULL, d_count, 0, NULL),
                     MJ_OK);
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    uint64_t *got = host_copy(d_out, 8 * n), *got_count = host_copy(d_count, 8);
    size_t want = (2 * (n - 1)) / 6 + 1, bad = 0;
    ck_assert_uint_eq(*got_count, want);
    for (size_t i = 0; i < want; ++i) bad += got[i] != 6 * (want - 1 - i);
    ck_assert_msg(bad == 0, "mj_set_op_run: %zu wrong", bad);
    free(got);
    free(got_count);
    free(a);
    free(b);
    mj__dev_free(ctx, d_a);
    mj__dev_free(ctx, d_b);
    mj__dev_free(ctx, d_out);
    mj__dev_free(ctx, d_count);
}
END_TEST

/* Padded custom keys keep every byte (padded_keys_support.h; issue 43) through each operation,
 * keys alone and with values, sorter and one-call forms. */
START_TEST(test_padded_keys) {
    padk_run(ctx, MJ_SET_OPS, 0, _i, 0, small);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpu_setops");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1800);
    tcase_add_loop_test(tc, test_ops, 0, CONFIGS);
    tcase_add_test(tc, test_large);
    tcase_add_loop_test(tc, test_unsorted, 0, CONFIGS);
    tcase_add_test(tc, test_temp_and_one_call);
    tcase_add_loop_test(tc, test_padded_keys, MJ_SET_INTERSECTION, MJ_SET_SYMMETRIC_DIFFERENCE + 1);
    suite_add_tcase(s, tc);
    return run_gpu_suite("test_gpu_setops", s);
}
