/* SPDX-License-Identifier: Apache-2.0 */
/* Bulk remove and bulk insert on the GPU against a CPU reference: u32, u64, a 12-byte struct
 * and structs with padding (inside, at the end, both, and one aligned to 16), keys only and
 * with 4-, 12- and 64-byte values; 4- and 8-byte indices; sizes 0, 1, the tile edges, many
 * tiles and 10^7 (not with MJ_TEST_SMALL); remove none, all, every other, a dense run and
 * random ones; insert all at 0, all at the end, everything at one position, random positions,
 * and into an empty b. Every output lies between guard bytes, which must stay as they were,
 * also for indices and positions that break the contract (duplicates, unsorted, out of range),
 * whose output is otherwise unspecified. Custom keys move as bytes (issue 43): the input's
 * padding holds PAD_BYTE (0x5A), the output starts as GUARD_BYTE (0xA5), and the output must
 * equal the input's bytes, padding included, also through the one-call functions. One
 * assertion a case. The one-call functions, a caller's temporary buffer. Skips (exit 77) where
 * there is no GPU. MJ_TEST_SMALL=1 runs smaller sizes (for compute-sanitizer). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "gpu_primitives_support.h"
#include "padded_keys_support.h"
#include "test_support.h"

/* A custom key type; `layout` has a character a byte: 'p' for padding, '.' for a field's. */
typedef struct key_type {
    const char *name, *source;
    size_t size, align;
    const char *layout;
} key_type;

static const key_type rec12 = {"rec12", "struct rec12 { unsigned a, b, c; };", 12, 4,
                               "............"};
static const key_type pad16 = {"pad16", "struct pad16 { unsigned char a; unsigned long long b; };",
                               16, 8, ".ppppppp........"};
static const key_type tail8 = {"tail8", "struct tail8 { unsigned a; unsigned short b; };", 8, 4,
                               "......pp"};
static const key_type mix24 = {"mix24",
                               "struct mix24 { unsigned long long a; unsigned char b; unsigned c; "
                               "unsigned char d; };",
                               24, 8, ".........ppp.....ppppppp"};
static const key_type wide16 = {"wide16",
                                "struct __align__(16) wide16 { unsigned a; unsigned char b; };",
                                16, 16, ".....ppppppppppp"};

typedef struct config {
    mj_key_kind key;
    const key_type *type; /* MJ_KEY_CUSTOM */
    size_t ks, vs, index_size;
} config;

static const config configs[] = {
    {MJ_KEY_U32, NULL, 4, 0, 4},       {MJ_KEY_U32, NULL, 4, 4, 8},
    {MJ_KEY_U64, NULL, 8, 0, 8},       {MJ_KEY_U64, NULL, 8, 12, 4},
    {MJ_KEY_CUSTOM, &rec12, 12, 0, 4}, {MJ_KEY_CUSTOM, &rec12, 12, 64, 8},
    {MJ_KEY_CUSTOM, &rec12, 12, 12, 4}, {MJ_KEY_CUSTOM, &pad16, 16, 0, 4},
    {MJ_KEY_CUSTOM, &pad16, 16, 12, 8}, {MJ_KEY_CUSTOM, &tail8, 8, 4, 4},
    {MJ_KEY_CUSTOM, &mix24, 24, 0, 8},  {MJ_KEY_CUSTOM, &mix24, 24, 64, 4},
    {MJ_KEY_CUSTOM, &wide16, 16, 4, 8},
};
#define CONFIGS (int)(sizeof configs / sizeof *configs)
/* The configs of padded keys: from PADDED on. */
#define PADDED 7

static mj_sort_desc desc_for(const config *c, mj_primitive p) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, c->key, MJ_ASCENDING);
    if (c->type) {
        d.type_name = c->type->name;
        d.type_source = c->type->source;
        d.type_size = c->type->size;
        d.type_align = c->type->align;
    }
    d.primitive = p;
    d.value_size = c->vs;
    return d;
}

static mj_sorter *make(const config *c, mj_primitive p) {
    mj_sort_desc d = desc_for(c, p);
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, &d, &s);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    return s;
}

static unsigned char *random_bytes(size_t bytes, uint64_t seed) {
    unsigned char *h = malloc(bytes + 1);
    ck_assert_ptr_nonnull(h);
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < bytes; ++i) h[i] = (unsigned char)mjt_rand(&rng);
    return h;
}

/* Random keys of c, their padding bytes PAD_BYTE (malloc'd). */
static unsigned char *random_keys(const config *c, size_t n, uint64_t seed) {
    unsigned char *h = random_bytes(n * c->ks, seed);
    if (c->type)
        for (size_t i = 0; i < n; ++i)
            for (size_t b = 0; b < c->ks; ++b)
                if (c->type->layout[b] == 'p') h[i * c->ks + b] = PAD_BYTE;
    return h;
}

static void *upload_indices(const uint64_t *ix, size_t count, size_t index_size) {
    unsigned char *h = malloc(count * index_size + 1);
    ck_assert_ptr_nonnull(h);
    for (size_t i = 0; i < count; ++i) put_key(h, index_size, i, ix[i]);
    void *d = upload(h, count * index_size);
    free(h);
    return d;
}

/* ---------------------------------------------------------------- remove */

typedef enum remove_pattern { R_NONE, R_ALL, R_EVERY_OTHER, R_DENSE_RUN, R_RANDOM, R_COUNT } remove_pattern;
static const char *const remove_names[] = {"none", "all", "every other", "a dense run",
                                           "random"};

/* The removal indices of a pattern over n elements (ascending, distinct); their count in *k. */
static uint64_t *remove_indices(remove_pattern p, size_t n, size_t *k, uint64_t seed) {
    uint64_t *ix = malloc(sizeof *ix * (n + 1)), rng = seed;
    ck_assert_ptr_nonnull(ix);
    size_t c = 0;
    for (size_t i = 0; i < n; ++i) {
        int take = p == R_ALL || (p == R_EVERY_OTHER && i % 2 == 0) ||
                   (p == R_DENSE_RUN && i >= n / 3 && i < n / 3 + n / 4 + 1) ||
                   (p == R_RANDOM && mjt_rand(&rng) % 3 == 0);
        if (take) ix[c++] = i;
    }
    *k = c;
    return ix;
}

/* One run of remove on indices ix[0, k) over n elements; with `exact`, the output must equal
 * the reference (indices that keep the contract), else only the guards must hold. s NULL: the
 * one-call mj_bulk_remove with c's description. */
static void run_remove(mj_sorter *s, const config *c, size_t n, const uint64_t *ix, size_t k,
                       int exact, void *temp, size_t temp_bytes, const char *what) {
    say(what);
    size_t ks = c->ks, vs = c->vs, m = n - k;
    unsigned char *keys = random_keys(c, n, n + k), *vals = random_bytes(n * vs, n * 3 + k);
    void *d_keys = upload(keys, n * ks), *d_vals = upload(vals, n * vs);
    void *d_ix = upload_indices(ix, k, c->index_size);
    void *d_ok = guarded(m * ks), *d_ov = vs ? guarded(m * vs) : NULL;
    mj_sort_desc d = desc_for(c, MJ_BULK_REMOVE);
    mj_status st = s ? mj_sorter_bulk_remove(s, n ? d_keys : NULL, vs && n ? d_vals : NULL, n,
                                             d_ix, k, c->index_size, m ? d_ok : NULL,
                                             vs && m ? d_ov : NULL, temp, temp_bytes, NULL)
                     : mj_bulk_remove(ctx, &d, n ? d_keys : NULL, vs && n ? d_vals : NULL, n,
                                      d_ix, k, c->index_size, m ? d_ok : NULL,
                                      vs && m ? d_ov : NULL, vs, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    size_t overrun = 0;
    unsigned char *got_k = fetch(d_ok, m * ks, &overrun);
    unsigned char *got_v = vs ? fetch(d_ov, m * vs, &overrun) : NULL;
    size_t bad = 0, first = 0;
    if (exact) {
        size_t o = 0, r = 0;
        for (size_t i = 0; i < n; ++i) {
            if (r < k && ix[r] == i) {
                ++r;
                continue;
            }
            int ok = memcmp(got_k + o * ks, keys + i * ks, ks) == 0 &&
                     (!vs || memcmp(got_v + o * vs, vals + i * vs, vs) == 0);
            if (!ok && bad++ == 0) first = o;
            ++o;
        }
    }
    ck_assert_msg(overrun == 0 && bad == 0, "%s: guards %s, %zu of %zu outputs wrong, the "
                  "first %zu", what, overrun ? "overwritten" : "kept", bad, m, first);
    free(keys);
    free(vals);
    free(got_k);
    free(got_v);
    free_guarded(d_ok);
    free_guarded(d_ov);
    free_dev(d_keys);
    free_dev(d_vals);
    free_dev(d_ix);
}

START_TEST(test_remove)
{
    const config *c = &configs[_i];
    mj_sorter *s = make(c, MJ_BULK_REMOVE);
    size_t sizes[16], count = tile_edge_sizes(s, sizes);
    for (size_t z = 0; z < count; ++z)
        for (int p = 0; p < R_COUNT; ++p) {
            /* 10^7 64-byte values are 640 MB an array: one pattern is enough. */
            if (z + 1 == count && c->vs == 64 && p != R_RANDOM) continue;
            size_t k;
            uint64_t *ix = remove_indices((remove_pattern)p, sizes[z], &k, 7u * z + (unsigned)p);
            char what[160];
            snprintf(what, sizeof what, "remove %s of %zu %zu-byte keys, %zu-byte values, "
                     "%zu-byte indices", remove_names[p], sizes[z], c->ks, c->vs, c->index_size);
            run_remove(s, c, sizes[z], ix, k, 1, NULL, 0, what);
            free(ix);
        }
    mj_sorter_destroy(s);
}
END_TEST

/* Indices that break the contract: duplicates, unsorted, past n (and past 2^63 with 8-byte
 * indices): the call succeeds and every write stays inside the outputs. */
START_TEST(test_remove_contract_break)
{
    const config *c = &configs[_i];
    mj_sorter *s = make(c, MJ_BULK_REMOVE);
    size_t nv = tile_of(s), n = 5 * nv + 3;
    uint64_t ix[4096], rng = 17;
    for (int kind = 0; kind < 4; ++kind) {
        size_t k = kind == 3 ? n / 2 : 1000 + 700 * (size_t)kind;
        uint64_t *many = kind == 3 ? malloc(sizeof *many * n) : ix;
        ck_assert_ptr_nonnull(many);
        for (size_t i = 0; i < k; ++i) {
            switch (kind) {
            case 0: many[i] = (i / 3) * 5; break;                  /* duplicates, sorted */
            case 1: many[i] = mjt_rand(&rng) % n; break;           /* unsorted */
            case 2: many[i] = n - 100 + 3 * i; break;              /* past n */
            default: many[i] = i % 2 ? 2 * i : n + i; break;       /* half past n */
            }
        }
        if (c->index_size == 8 && kind == 2) many[7] = (1ull << 63) + 5; /* reads negative */
        char what[160];
        snprintf(what, sizeof what, "remove, broken contract %d, %zu-byte keys, %zu-byte values, "
                 "%zu-byte indices", kind, c->ks, c->vs, c->index_size);
        run_remove(s, c, n, many, k, 0, NULL, 0, what);
        if (many != ix) free(many);
    }
    mj_sorter_destroy(s);
}
END_TEST

/* ---------------------------------------------------------------- insert */

typedef enum insert_pattern { I_AT_0, I_AT_END, I_ONE_POSITION, I_RANDOM, I_EMPTY_B, I_COUNT } insert_pattern;
static const char *const insert_names[] = {"all at 0", "all at the end", "all at one position",
                                           "random", "into an empty b"};

/* One run of insert of a_count elements at positions pos into b_count; with `exact` against
 * the reference merge (a before equal b), else the guards only. s NULL: the one-call
 * mj_bulk_insert with c's description. */
static void run_insert(mj_sorter *s, const config *c, const uint64_t *pos, size_t a_count,
                       size_t b_count, int exact, void *temp, size_t temp_bytes,
                       const char *what) {
    say(what);
    size_t ks = c->ks, vs = c->vs, n = a_count + b_count;
    unsigned char *ak = random_keys(c, a_count, a_count + 1);
    unsigned char *av = random_bytes(a_count * vs, a_count + 2);
    unsigned char *bk = random_keys(c, b_count, b_count + 3);
    unsigned char *bv = random_bytes(b_count * vs, b_count + 4);
    void *d_ak = upload(ak, a_count * ks), *d_av = upload(av, a_count * vs);
    void *d_bk = upload(bk, b_count * ks), *d_bv = upload(bv, b_count * vs);
    void *d_pos = upload_indices(pos, a_count, c->index_size);
    void *d_ok = guarded(n * ks), *d_ov = vs ? guarded(n * vs) : NULL;
    mj_sort_desc d = desc_for(c, MJ_BULK_INSERT);
    mj_status st = s ? mj_sorter_bulk_insert(s, d_ak, vs ? d_av : NULL, d_pos, a_count,
                                             c->index_size, d_bk, vs ? d_bv : NULL, b_count,
                                             n ? d_ok : NULL, vs && n ? d_ov : NULL, temp,
                                             temp_bytes, NULL)
                     : mj_bulk_insert(ctx, &d, d_ak, vs ? d_av : NULL, d_pos, a_count,
                                      c->index_size, d_bk, vs ? d_bv : NULL, b_count,
                                      n ? d_ok : NULL, vs && n ? d_ov : NULL, vs, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    size_t overrun = 0;
    unsigned char *got_k = fetch(d_ok, n * ks, &overrun);
    unsigned char *got_v = vs ? fetch(d_ov, n * vs, &overrun) : NULL;
    size_t bad = 0, first = 0;
    if (exact) {
        size_t i = 0, j = 0;
        for (size_t o = 0; o < n; ++o) {
            int from_a = i < a_count && (j == b_count || pos[i] <= j);
            const unsigned char *wk = from_a ? ak + i * ks : bk + j * ks;
            const unsigned char *wv = from_a ? av + i * vs : bv + j * vs;
            int ok = memcmp(got_k + o * ks, wk, ks) == 0 &&
                     (!vs || memcmp(got_v + o * vs, wv, vs) == 0);
            if (!ok && bad++ == 0) first = o;
            if (from_a)
                ++i;
            else
                ++j;
        }
    }
    ck_assert_msg(overrun == 0 && bad == 0, "%s: guards %s, %zu of %zu outputs wrong, the "
                  "first %zu", what, overrun ? "overwritten" : "kept", bad, n, first);
    free(ak);
    free(av);
    free(bk);
    free(bv);
    free(got_k);
    free(got_v);
    free_guarded(d_ok);
    free_guarded(d_ov);
    free_dev(d_ak);
    free_dev(d_av);
    free_dev(d_bk);
    free_dev(d_bv);
    free_dev(d_pos);
}

/* Positions for a pattern: a_count of them into b_count (0 for an empty b). */
static uint64_t *insert_positions(insert_pattern p, size_t a_count, size_t b_count,
                                  uint64_t seed) {
    uint64_t *pos = malloc(sizeof *pos * (a_count + 1)), rng = seed;
    ck_assert_ptr_nonnull(pos);
    for (size_t i = 0; i < a_count; ++i)
        pos[i] = p == I_AT_END       ? b_count
                 : p == I_ONE_POSITION ? b_count / 2
                 : p == I_RANDOM       ? mjt_rand(&rng) % (b_count + 1)
                                       : 0;
    if (p == I_RANDOM) qsort(pos, a_count, sizeof *pos, cmp_u64);
    return pos;
}

START_TEST(test_insert)
{
    const config *c = &configs[_i];
    mj_sorter *s = make(c, MJ_BULK_INSERT);
    size_t sizes[16], count = tile_edge_sizes(s, sizes);
    for (size_t z = 0; z < count; ++z)
        for (int p = 0; p < I_COUNT; ++p) {
            if (z + 1 == count && c->vs == 64 && p != I_RANDOM) continue;
            /* The total is the size: a third of it inserted (all of it into an empty b). */
            size_t n = sizes[z], a_count = p == I_EMPTY_B ? n : n / 3, b_count = n - a_count;
            uint64_t *pos = insert_positions((insert_pattern)p, a_count, b_count, 5u * z + 1);
            char what[160];
            snprintf(what, sizeof what, "insert %s: %zu into %zu %zu-byte keys, %zu-byte values, "
                     "%zu-byte positions", insert_names[p], a_count, b_count, c->ks, c->vs,
                     c->index_size);
            run_insert(s, c, pos, a_count, b_count, 1, NULL, 0, what);
            free(pos);
        }
    /* Nothing inserted: a copy of b. */
    run_insert(s, c, NULL, 0, sizes[4], 1, NULL, 0, "insert of nothing");
    mj_sorter_destroy(s);
}
END_TEST

/* Positions that break the contract: unsorted, past b_count (and past 2^63 with 8-byte
 * positions): the call succeeds and every write stays inside the outputs. */
START_TEST(test_insert_contract_break)
{
    const config *c = &configs[_i];
    mj_sorter *s = make(c, MJ_BULK_INSERT);
    size_t nv = tile_of(s), a_count = 3 * nv + 5, b_count = 2 * nv + 1;
    uint64_t *pos = malloc(sizeof *pos * a_count), rng = 23;
    ck_assert_ptr_nonnull(pos);
    for (int kind = 0; kind < 3; ++kind) {
        for (size_t i = 0; i < a_count; ++i)
            pos[i] = kind == 0 ? mjt_rand(&rng) % (b_count + 1)     /* unsorted */
                     : kind == 1 ? b_count + 1 + i                  /* past the end */
                                 : a_count - i;                     /* descending */
        if (c->index_size == 8) pos[a_count / 2] = (1ull << 63) + 9; /* reads negative */
        char what[160];
        snprintf(what, sizeof what, "insert, broken contract %d, %zu-byte keys, %zu-byte values, "
                 "%zu-byte positions", kind, c->ks, c->vs, c->index_size);
        run_insert(s, c, pos, a_count, b_count, 0, NULL, 0, what);
    }
    free(pos);
    mj_sorter_destroy(s);
}
END_TEST

/* One caller's buffer for runs of several sizes, largest first; the one-call functions. */
START_TEST(test_temp_and_one_call)
{
    const config *c = &configs[1];
    mj_sorter *rm = make(c, MJ_BULK_REMOVE), *ins = make(c, MJ_BULK_INSERT);
    size_t sizes[16], count = tile_edge_sizes(rm, sizes), bytes = 0, b2 = 0;
    ck_assert_int_eq(mj_sorter_temp_size(rm, sizes[count - 1], 0, &bytes), MJ_OK);
    ck_assert_int_eq(mj_sorter_temp_size(ins, sizes[count - 1], 0, &b2), MJ_OK);
    if (b2 > bytes) bytes = b2;
    void *temp = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &temp, bytes), MJ_OK);
    for (size_t z = count; z-- > 0;) {
        size_t n = sizes[z], k;
        uint64_t *ix = remove_indices(R_RANDOM, n, &k, 3u + z);
        run_remove(rm, c, n, ix, k, 1, temp, bytes, "remove with the caller's temp");
        free(ix);
        uint64_t *pos = insert_positions(I_RANDOM, n / 2, n - n / 2, 9u + z);
        run_insert(ins, c, pos, n / 2, n - n / 2, 1, temp, bytes, "insert with the caller's temp");
        free(pos);
    }
    mj__dev_free(ctx, temp);
    mj_sorter_destroy(rm);
    mj_sorter_destroy(ins);

    /* mj_bulk_remove: every third of 100000 u64 keys (no values); mj_bulk_insert: 1000 keys
     * into 5000, at every fifth position. */
    size_t n = 100000, k = 0;
    uint64_t *keys = malloc(sizeof *keys * n), *ix = malloc(sizeof *ix * n);
    ck_assert(keys && ix);
    for (size_t i = 0; i < n; ++i) {
        keys[i] = i * 0x9E3779B97F4A7C15ull;
        if (i % 3 == 0) ix[k++] = i;
    }
    void *d_keys = dev_copy(keys, n * 8), *d_ix = dev_copy(ix, k * 8), *d_out = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &d_out, n * 8), MJ_OK);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U64, MJ_DESCENDING); /* the order is not used */
    ck_assert_int_eq(mj_bulk_remove(ctx, &d, d_keys, NULL, n, d_ix, k, 8, d_out, NULL, 0, NULL),
                     MJ_OK);
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    uint64_t *got = host_copy(d_out, (n - k) * 8);
    size_t bad = 0;
    for (size_t i = 0, o = 0; i < n; ++i)
        if (i % 3) bad += got[o++] != keys[i];
    ck_assert_msg(bad == 0, "mj_bulk_remove: %zu wrong", bad);
    free(got);
    uint64_t pos[1000];
    for (size_t i = 0; i < 1000; ++i) pos[i] = 5 * i;
    void *d_pos = dev_copy(pos, sizeof pos);
    ck_assert_int_eq(mj_bulk_insert(ctx, &d, d_keys, NULL, d_pos, 1000, 8, (char *)d_keys + 8 * 1000,
                                    NULL, 5000, d_out, NULL, 0, NULL),
                     MJ_OK);
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    got = host_copy(d_out, 6000 * 8);
    bad = 0;
    for (size_t o = 0; o < 6000; ++o) /* a[i] at 6 i, then b's five */
        bad += got[o] != (o % 6 == 0 ? keys[o / 6] : keys[1000 + o / 6 * 5 + o % 6 - 1]);
    ck_assert_msg(bad == 0, "mj_bulk_insert: %zu wrong", bad);
    free(got);
    free(keys);
    free(ix);
    mj__dev_free(ctx, d_keys);
    mj__dev_free(ctx, d_ix);
    mj__dev_free(ctx, d_pos);
    mj__dev_free(ctx, d_out);
}
END_TEST

/* Padded keys through the one-call functions: 1, the edges of the primitive's tiles and 10^6
 * elements, random removals and positions; the output's bytes are the input's, padding
 * included. */
START_TEST(test_padded_one_call)
{
    const config *c = &configs[PADDED + _i];
    for (int insert = 0; insert < 2; ++insert) {
        mj_sorter *s = make(c, insert ? MJ_BULK_INSERT : MJ_BULK_REMOVE); /* for its tile */
        size_t nv = tile_of(s);
        mj_sorter_destroy(s);
        size_t sizes[] = {1, nv - 1, nv, nv + 1, 2 * nv + 1, small ? 200000 : 1000000};
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; ++z) {
            size_t n = sizes[z], k, a_count = n / 3 + 1;
            char what[160];
            if (insert) {
                uint64_t *pos = insert_positions(I_RANDOM, a_count, n - a_count, 13u + z);
                snprintf(what, sizeof what, "mj_bulk_insert of %zu into %zu %s keys, %zu-byte "
                         "values", a_count, n - a_count, c->type->name, c->vs);
                run_insert(NULL, c, pos, a_count, n - a_count, 1, NULL, 0, what);
                free(pos);
            } else {
                uint64_t *ix = remove_indices(R_RANDOM, n, &k, 11u + z);
                snprintf(what, sizeof what, "mj_bulk_remove of %zu %s keys, %zu-byte values", n,
                         c->type->name, c->vs);
                run_remove(NULL, c, n, ix, k, 1, NULL, 0, what);
                free(ix);
            }
        }
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpu_bulk");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1800);
    tcase_add_loop_test(tc, test_remove, 0, CONFIGS);
    tcase_add_loop_test(tc, test_remove_contract_break, 0, CONFIGS);
    tcase_add_loop_test(tc, test_insert, 0, CONFIGS);
    tcase_add_loop_test(tc, test_insert_contract_break, 0, CONFIGS);
    tcase_add_test(tc, test_temp_and_one_call);
    tcase_add_loop_test(tc, test_padded_one_call, 0, CONFIGS - PADDED);
    suite_add_tcase(s, tc);
    return run_gpu_suite("test_gpu_bulk", s);
}
