/* SPDX-License-Identifier: Apache-2.0 */
/* Select on the GPU against a C reference: MJ_SELECT_IF (a predicate per configuration,
 * written once in CUDA for the sorter and once in C) and MJ_SELECT_UNIQUE (the first of each
 * run of equivalent adjacent keys), keys alone and with 4- and 12-byte values; u8, u32, i64
 * descending, f32 with NaNs of both signs and several payloads and -0 beside +0 (equivalent
 * only with equal bits), and a 24-byte struct with padding compared by two fields (a tag, not
 * compared, tells equivalent keys apart, so unique must keep the first of each run; the
 * padding must arrive as the input's bytes). Patterns: none kept, all kept, 1%, 50% and 99%
 * kept, long runs of kept and dropped elements across tile edges (selection); all distinct,
 * all equal, runs of mean length 4 and 1000, runs of a tile's length +-1 (unique). Sizes 0,
 * 1, 2, the tile edges, many tiles, 10^6 and 10^7 (keys up to 4 bytes; neither with
 * MJ_TEST_SMALL, which stops at 2 10^5); 2^31 + 1000 1-byte
 * keys (not small). Each value names its element, so stability is checked; every output lies
 * between guard bytes that must stay as they were. A caller's temporary buffer over several
 * sizes and the one-call function. Skips (exit 77) where there is no GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "cli.h"
#include "gpu_primitives_support.h"
#include "padded_keys_support.h"
#include "test_support.h"

typedef enum kind { U8, U32, I64, F32, PADK } kind;

typedef struct config {
    kind k;
    mj_order order;
    size_t ks, vs;
    const char *op; /* the selection operator; keep() is its C twin */
} config;

static const config configs[] = {
    {U32, MJ_ASCENDING, 4, 0, "a % 100 < 50"},   {U32, MJ_ASCENDING, 4, 4, "a % 100 < 50"},
    {U8, MJ_ASCENDING, 1, 0, "(a & 1) == 0"},    {I64, MJ_DESCENDING, 8, 12, "a % 100 < 50"},
    {F32, MJ_ASCENDING, 4, 4, "a > 0.0f"},
    {PADK, MJ_ASCENDING, PADK_SIZE, 0, "a.lo % 2 == 0"},
    {PADK, MJ_ASCENDING, PADK_SIZE, 12, "a.lo % 2 == 0"},
};
#define CONFIGS (int)(sizeof configs / sizeof *configs)

static const config *cur;

/* The sorter of configuration c: with its operator (with_op 1), without (0), or with it and
 * without a comparator (-1, custom keys: a sorter that only selects). */
static mj_sorter *make(const config *c, int with_op) {
    mj_sort_desc d;
    static const mj_key_kind kinds[] = {MJ_KEY_U8, MJ_KEY_U32, MJ_KEY_I64, MJ_KEY_F32};
    if (c->k == PADK) {
        d = padk_desc(MJ_SELECT);
    } else {
        mj_sort_desc_init(&d, kinds[c->k], c->order);
        d.primitive = MJ_SELECT;
    }
    d.value_size = c->vs;
    d.op = with_op ? c->op : NULL;
    if (with_op < 0) { /* a custom key's selection alone: no comparator */
        d.op = c->op;
        d.less = NULL;
    }
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, &d, &s);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    return s;
}

/* The C twin of the configuration's selection operator. */
static int keep(const unsigned char *k) {
    switch (cur->k) {
    case U8: return (k[0] & 1) == 0;
    case U32: {
        uint32_t v;
        memcpy(&v, k, 4);
        return v % 100 < 50;
    }
    case I64: {
        int64_t v;
        memcpy(&v, k, 8);
        return v % 100 < 50; /* C and CUDA both truncate: negatives keep */
    }
    case F32: {
        float f;
        memcpy(&f, k, 4);
        return f > 0.0f;
    }
    default: {
        uint64_t lo;
        memcpy(&lo, k + PADK_LO, 8);
        return lo % 2 == 0;
    }
    }
}

/* The sorter's order: x before y. */
static int less(const unsigned char *x, const unsigned char *y) {
    int desc = cur->order == MJ_DESCENDING;
    switch (cur->k) {
    case U8: return desc ? y[0] < x[0] : x[0] < y[0];
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
    case F32: return kg_less(MJ_KEY_F32, cur->order, x, y);
    default: return padk_cmp(x, y) < 0;
    }
}

/* Key i of an input: from its run's number v (the same v gives equivalent keys, apart from
 * f32's NaNs of random payloads, which only equal bits make equivalent) and, for a
 * selection, whether it should be kept (sel 1 or 0; -1: whatever v gives). */
static void make_key(unsigned char *k, uint64_t v, int sel, size_t i, uint64_t *rng) {
    switch (cur->k) {
    case U8: k[0] = (unsigned char)(sel < 0 ? v : 2 * (v % 128) + (sel == 0)); break;
    case U32: {
        uint32_t x = sel < 0 ? (uint32_t)v : (uint32_t)(v % 40000000) * 100 + (uint32_t)(v % 50) +
                                                 (sel ? 0 : 50);
        memcpy(k, &x, 4);
        break;
    }
    case I64: {
        int64_t x = sel < 0 ? (int64_t)v - 1000000 + (int64_t)(v % 7) * (INT64_C(1) << 40)
                            : (int64_t)(v % 1000000007) * 100 + (int64_t)(v % 50) + (sel ? 0 : 50);
        memcpy(k, &x, 8);
        break;
    }
    case F32: {
        uint32_t bits;
        float f;
        if (v % 16 == 0 && sel != 1) { /* a NaN of either sign and one of three payloads */
            static const uint32_t payloads[] = {0x400000u, 0x400001u, 0x7FFFFFu};
            bits = 0x7F800000u | payloads[mjt_rand(rng) % 3] | (uint32_t)(mjt_rand(rng) & 1) << 31;
            memcpy(k, &bits, 4);
            break;
        }
        f = v % 16 == 1 ? -0.0f : v % 16 == 2 ? 0.0f : ((float)(v % 100000) - 50000.0f) * 0.25f;
        if (sel == 1 && !(f > 0.0f)) f = (float)(v % 1000) + 0.5f;
        if (sel == 0 && f > 0.0f) f = -f;
        memcpy(k, &f, 4);
        break;
    }
    default: {
        memset(k, PAD_BYTE, PADK_SIZE);
        uint64_t lo = sel < 0 ? v / 256 : 2 * (v / 256) + (sel == 0);
        k[0] = (unsigned char)v;
        memcpy(k + PADK_LO, &lo, 8);
        uint32_t tag = (uint32_t)i;
        memcpy(k + PADK_TAG, &tag, 4);
    }
    }
}

typedef enum pattern { P_NONE, P_ALL, P_1, P_50, P_99, P_LONG, P_COUNT } pattern;
static const char *const sel_names[] = {"none kept", "all kept", "1% kept",
                                        "half kept", "99% kept", "long runs"};
typedef enum upattern { U_DISTINCT, U_EQUAL, U_RUNS4, U_RUNS1000, U_TILE_RUNS, U_COUNT } upattern;
static const char *const unique_names[] = {"distinct", "all equal", "runs of 4", "runs of 1000",
                                           "runs of a tile"};

/* n keys of a selection pattern (unique 0) or a unique pattern (unique 1); nv: the tile. */
static unsigned char *make_keys(int unique, int p, size_t n, size_t nv, uint64_t seed) {
    size_t ks = cur->ks;
    unsigned char *k = malloc(n * ks + 1);
    ck_assert_ptr_nonnull(k);
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 11;
    uint64_t v = 0;
    size_t left = 0; /* of the current run */
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = mjt_rand(&rng);
        int sel = -1;
        if (!unique) {
            switch ((pattern)p) {
            case P_NONE: sel = 0; break;
            case P_ALL: sel = 1; break;
            case P_1: sel = r % 100 == 0; break;
            case P_50: sel = r % 2; break;
            case P_99: sel = r % 100 != 0; break;
            default: sel = (int)((i / (nv + nv / 3)) % 2); break;
            }
            v = mjt_rand(&rng);
        } else {
            if (left == 0) {
                switch ((upattern)p) {
                case U_DISTINCT: left = 1; break;
                case U_EQUAL: left = n; break;
                case U_RUNS4: left = 1 + r % 7; break;
                case U_RUNS1000: left = 1 + r % 1999; break;
                default: left = nv - 1 + r % 3; break;
                }
                v += 1 + mjt_rand(&rng) % 3;
            }
            --left;
        }
        make_key(k + i * ks, v, sel, i, &rng);
    }
    return k;
}

/* Element i's value: its index in the first 4 bytes, bytes from it after. */
static void make_value(unsigned char *val, size_t i) {
    uint32_t tag = (uint32_t)i;
    for (size_t j = 0; j < cur->vs; ++j)
        val[j] = j < 4 ? (unsigned char)(tag >> (8 * j)) : (unsigned char)(tag * 31 + j);
}

/* The kept elements' indices; returns their count. */
static size_t reference(mj_select_kind kind, const unsigned char *k, size_t n, size_t *at) {
    size_t m = 0, ks = cur->ks;
    for (size_t i = 0; i < n; ++i) {
        const unsigned char *x = k + i * ks;
        int kept = kind == MJ_SELECT_IF ? keep(x)
                                        : i == 0 || less(x - ks, x) || less(x, x - ks);
        if (kept) at[m++] = i;
    }
    return m;
}

/* Runs kind over keys (with values) through s, or through mj_select when s is NULL, and
 * checks the outputs against the reference. */
static void run_select(mj_sorter *s, mj_select_kind kind, const unsigned char *k, size_t n,
                       void *temp, size_t temp_bytes, const char *what) {
    size_t ks = cur->ks, vs = cur->vs;
    unsigned char *val = malloc(n * vs + 1);
    ck_assert_ptr_nonnull(val);
    for (size_t i = 0; i < n; ++i) make_value(val + i * vs, i);
    void *d_k = upload(k, n * ks), *d_v = vs ? upload(val, n * vs) : NULL;
    void *d_out = guarded(n * ks), *d_outv = vs ? guarded(n * vs) : NULL, *d_count = guarded(8);
    mj_status st;
    if (s) {
        st = mj_sorter_select(s, kind, d_k, d_v, n, d_out, d_outv, d_count, temp, temp_bytes,
                              NULL);
    } else {
        mj_sort_desc d;
        mj_sort_desc_init(&d, cur->k == U32 ? MJ_KEY_U32 : MJ_KEY_I64, cur->order);
        if (cur->k == PADK) d = padk_desc(MJ_SELECT);
        d.op = cur->op;
        st = mj_select(ctx, &d, kind, d_k, d_v, n, d_out, d_outv, d_count, vs, NULL);
    }
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st),
                  mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    size_t overrun = 0;
    unsigned char *got = fetch(d_out, n * ks, &overrun);
    unsigned char *gotv = vs ? fetch(d_outv, n * vs, &overrun) : NULL;
    unsigned char *cnt = fetch(d_count, 8, &overrun);
    uint64_t count;
    memcpy(&count, cnt, 8);
    size_t *at = malloc(sizeof *at * (n + 1));
    ck_assert_ptr_nonnull(at);
    size_t want = reference(kind, k, n, at);
    char fail[256] = "";
    if (overrun)
        snprintf(fail, sizeof fail, "a write outside the outputs");
    else if (count != want)
        snprintf(fail, sizeof fail, "%llu kept, not %zu", (unsigned long long)count, want);
    for (size_t o = 0; o < want && !fail[0]; ++o) {
        if (memcmp(got + o * ks, k + at[o] * ks, ks))
            snprintf(fail, sizeof fail, "output %zu: not the key of element %zu", o, at[o]);
        else if (vs && memcmp(gotv + o * vs, val + at[o] * vs, vs))
            snprintf(fail, sizeof fail, "output %zu: not the value of element %zu", o, at[o]);
    }
    /* Nothing past the count. */
    for (size_t b = want * ks; b < n * ks && !fail[0]; ++b)
        if (got[b] != GUARD_BYTE) snprintf(fail, sizeof fail, "a key written past the count");
    ck_assert_msg(!fail[0], "%s (%zu keys of %zu bytes, %zu-byte values): %s", what, n, ks, vs,
                  fail);
    free(at);
    free(got);
    free(gotv);
    free(cnt);
    free(val);
    free_guarded(d_out);
    free_guarded(d_outv);
    free_guarded(d_count);
    free_dev(d_k);
    free_dev(d_v);
}

/* 0, 1, the tile edges, many tiles; 10^6 and, for keys of 4 bytes or fewer, 10^7 unless
 * small (2 10^5). */
static size_t sizes_for(size_t nv, size_t *out) {
    size_t z = 0;
    const size_t base[] = {0, 1, 2, nv - 1, nv, nv + 1, 2 * nv + 1, 33 * nv + 7};
    for (size_t i = 0; i < sizeof base / sizeof *base; ++i) out[z++] = base[i];
    out[z++] = small ? 200000 : 1000000;
    if (!small && cur->ks <= 4) out[z++] = 10000000;
    return z;
}

START_TEST(test_select_if)
{
    cur = &configs[_i];
    mj_sorter *s = make(cur, 1);
    size_t nv = tile_of(s), sizes[16], count = sizes_for(nv, sizes);
    for (size_t z = 0; z < count; ++z)
        for (int p = 0; p < P_COUNT; ++p) {
            unsigned char *k = make_keys(0, p, sizes[z], nv, 37 * z + (size_t)p);
            char what[160];
            snprintf(what, sizeof what, "select if %s, %s", cur->op, sel_names[p]);
            say(what);
            run_select(s, MJ_SELECT_IF, k, sizes[z], NULL, 0, what);
            free(k);
        }
    mj_sorter_destroy(s);
}
END_TEST

/* Custom keys selected by a sorter built without less: the same selections, and unique
 * refused with the outputs untouched. */
START_TEST(test_select_without_less)
{
    for (int c = 0; c < CONFIGS; ++c) {
        cur = &configs[c];
        if (cur->k != PADK) continue;
        mj_sorter *s = make(cur, -1);
        size_t nv = tile_of(s), sizes[16], count = sizes_for(nv, sizes);
        for (size_t z = 0; z < count; ++z) {
            unsigned char *k = make_keys(0, 3, sizes[z], nv, 53 * z);
            char what[160];
            snprintf(what, sizeof what, "select if %s without less, %s", cur->op, sel_names[3]);
            say(what);
            run_select(s, MJ_SELECT_IF, k, sizes[z], NULL, 0, what);
            free(k);
        }
        char *guard = NULL;
        ck_assert_int_eq(mj__dev_alloc(ctx, (void **)&guard, 64), MJ_OK);
        mj_status st = mj_sorter_select(s, MJ_SELECT_UNIQUE, guard, cur->vs ? guard : NULL, 0,
                                        guard, cur->vs ? guard : NULL, guard, NULL, 0, NULL);
        ck_assert_int_eq(st, MJ_ERR_INVALID_ARGUMENT);
        ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "needs a comparator"));
        mj__dev_free(ctx, guard);
        mj_sorter_destroy(s);
    }
}
END_TEST

/* Unique on sorters with and without a selection operator (one kernel either way). */
START_TEST(test_unique)
{
    cur = &configs[_i];
    for (int with_op = 0; with_op < 2; ++with_op) {
        mj_sorter *s = make(cur, with_op);
        size_t nv = tile_of(s), sizes[16], count = sizes_for(nv, sizes);
        for (size_t z = 0; z < count; ++z)
            for (int p = 0; p < U_COUNT; ++p) {
                if (with_op && z + 2 < count) continue; /* the largest sizes only */
                unsigned char *k = make_keys(1, p, sizes[z], nv, 41 * z + (size_t)p);
                char what[160];
                snprintf(what, sizeof what, "unique, %s%s", unique_names[p],
                         with_op ? ", sorter with an operator" : "");
                say(what);
                run_select(s, MJ_SELECT_UNIQUE, k, sizes[z], NULL, 0, what);
                free(k);
            }
        mj_sorter_destroy(s);
    }
}
END_TEST

/* One caller's buffer for runs of several sizes, largest first; the one-call function for
 * u32 keys with values and for padded keys. */
START_TEST(test_temp_and_one_call)
{
    cur = &configs[1];
    mj_sorter *s = make(cur, 1);
    size_t nv = tile_of(s), sizes[16], count = sizes_for(nv, sizes), bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, sizes[count - 1], 0, &bytes), MJ_OK);
    void *temp = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &temp, bytes), MJ_OK);
    for (size_t z = count; z-- > 0;) {
        unsigned char *k = make_keys(0, P_50, sizes[z], nv, z);
        run_select(s, MJ_SELECT_IF, k, sizes[z], temp, bytes, "select with the caller's temp");
        free(k);
        k = make_keys(1, U_RUNS4, sizes[z], nv, z);
        run_select(s, MJ_SELECT_UNIQUE, k, sizes[z], temp, bytes, "unique with the caller's temp");
        free(k);
    }
    mj__dev_free(ctx, temp);
    mj_sorter_destroy(s);
    static const int one_call[] = {1, 6};
    for (size_t c = 0; c < 2; ++c) {
        cur = &configs[one_call[c]];
        size_t n = small ? 50000 : 1000003;
        for (int kind = 0; kind < 2; ++kind) {
            unsigned char *k = make_keys(kind, kind ? U_RUNS4 : P_50, n, 3000, 9 + c);
            run_select(NULL, (mj_select_kind)kind, k, n, NULL, 0, "mj_select");
            free(k);
        }
    }
}
END_TEST

/* 2^31 + 1000 1-byte keys, i % 251 (odd ones dropped): counts and positions past 32 bits. */
START_TEST(test_over_2g)
{
    if (small) return;
    cur = &configs[2];
    mj_sorter *s = make(cur, 1);
    size_t n = ((size_t)1 << 31) + 1000;
    unsigned char *k = malloc(n), *want = malloc(n);
    ck_assert(k && want);
    size_t m = 0;
    for (size_t i = 0; i < n; ++i) {
        k[i] = (unsigned char)(i % 251);
        if ((k[i] & 1) == 0) want[m++] = k[i];
    }
    void *d_k = dev_copy(k, n), *d_out = dev_buffer(n), *d_count = dev_buffer(8);
    ck_assert_int_eq(mj_sorter_select(s, MJ_SELECT_IF, d_k, NULL, n, d_out, NULL, d_count, NULL,
                                      0, NULL),
                     MJ_OK);
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    uint64_t count = 0;
    ck_assert_int_eq(mj__dev_download(ctx, &count, d_count, 8), MJ_OK);
    ck_assert_uint_eq(count, m);
    ck_assert_int_eq(mj__dev_download(ctx, k, d_out, m), MJ_OK);
    ck_assert_msg(memcmp(k, want, m) == 0, "2^31 + 1000 keys: the kept keys differ");
    free(k);
    free(want);
    free_dev(d_k);
    free_dev(d_out);
    free_dev(d_count);
    mj_sorter_destroy(s);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpu_select");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1800);
    tcase_add_loop_test(tc, test_select_if, 0, CONFIGS);
    tcase_add_loop_test(tc, test_unique, 0, CONFIGS);
    tcase_add_test(tc, test_select_without_less);
    tcase_add_test(tc, test_temp_and_one_call);
    tcase_add_test(tc, test_over_2g);
    suite_add_tcase(s, tc);
    return run_gpu_suite("test_gpu_select", s);
}
