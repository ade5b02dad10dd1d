/* SPDX-License-Identifier: Apache-2.0 */
/* Relational join on the GPU against a C merge-join: u32, i64, f32 (with -inf, -0, +0, +inf and
 * NaNs of both signs: the header's total order), u32 and f32 descending, and a custom 12-byte
 * struct whose comparator reads two of its fields (keys that differ in the third are
 * equivalent); every kind (inner, left, right, outer); 4- and 8-byte rows; empty sides, one
 * key, the tile edges, many tiles and 10^7 keys (not with MJ_TEST_SMALL); random keys with
 * duplicates on both sides, all keys equal (the full product), no matches, long runs of
 * duplicates on one side only; room for every row, for fewer (no write past it, the count
 * still whole) and for none; unsorted keys (every write inside the outputs); a count of 2^33
 * rows from all-equal keys through mj_sorter_join_count alone; a caller's temporary buffer and
 * the one-call function; a plan and its rows (written twice, the keys smeared after the plan);
 * the kernel of b's unmatched rows built at create (no join builds or loads a module), and a
 * failure of that build (injected) failing create. Outputs are poisoned before a run and lie
 * between guards. One assertion a run. Skips (exit 77) where there is no GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "driver/compile.h"
#include "gen.h"
#include "gpu_primitives_support.h"
#include "gpu_rank_keys_support.h"
#include "primitives/run.h"
#include "test_support.h"

static mj_sorter *make(const kind *k) { return kind_sorter(MJ_JOIN, k); }

/* ---------------------------------------------------------------- inputs and reference */

typedef enum pattern { RANDOM, EQUAL, NO_MATCH, RUNS_IN_A, RUNS_IN_B, UNSORTED, PATTERNS } pattern;
static const char *const pattern_names[] = {"random", "all equal", "no matches",
                                            "long runs in a only", "long runs in b only",
                                            "unsorted"};
static const char *const join_names[] = {"inner", "left", "right", "outer"};

/* The ranks of a and b for a pattern, sorted but for UNSORTED; about 4 keys a rank for RANDOM
 * (2 a side); *range is one more than the largest (so the special f32 keys occur). */
static void make_ranks(pattern p, uint64_t *a, size_t ac, uint64_t *b, size_t bc,
                       uint64_t *range, uint64_t *rng) {
    uint64_t R = (ac + bc) / 4 + 8;
    for (size_t i = 0; i < ac; ++i) {
        uint64_t u = mjt_rand(rng) % R;
        a[i] = p == EQUAL ? R / 2 : p == NO_MATCH ? 2 * u : p == RUNS_IN_A ? u / 64 * 64 : u;
        if (p == RUNS_IN_B) a[i] = i * 3; /* distinct, increasing */
    }
    for (size_t j = 0; j < bc; ++j) {
        uint64_t u = mjt_rand(rng) % R;
        b[j] = p == EQUAL ? R / 2 : p == NO_MATCH ? 2 * u + 1 : p == RUNS_IN_B ? u / 64 * 192 : u;
        if (p == RUNS_IN_A) b[j] = j * 2;
    }
    ranks_done(a, ac, b, bc, range, p != UNSORTED);
}

#define NULL_ROW UINT64_MAX

/* The merge-join of the ranks in the documented order: its count; the first cap rows into ar
 * and br (NULL_ROW for NULL). */
static uint64_t reference(const uint64_t *a, size_t ac, const uint64_t *b, size_t bc, int kind,
                          uint64_t *ar, uint64_t *br, uint64_t cap) {
    unsigned char *matched = calloc(bc + 1, 1);
    ck_assert_ptr_nonnull(matched);
    uint64_t k = 0;
    size_t j = 0;
    for (size_t i = 0; i < ac; ++i) {
        while (j < bc && b[j] < a[i]) ++j;
        size_t e = j;
        for (; e < bc && b[e] == a[i]; ++e, ++k) {
            matched[e] = 1;
            if (k < cap) ar[k] = i, br[k] = e;
        }
        if (e == j && (kind & MJ_JOIN_LEFT)) {
            if (k < cap) ar[k] = i, br[k] = NULL_ROW;
            ++k;
        }
    }
    for (size_t e = 0; (kind & MJ_JOIN_RIGHT) && e < bc; ++e)
        if (!matched[e]) {
            if (k < cap) ar[k] = NULL_ROW, br[k] = e;
            ++k;
        }
    free(matched);
    return k;
}

/* ---------------------------------------------------------------- device buffers */

/* Row i of 4- or 8-byte rows; a 4-byte row's NULL (UINT32_MAX) as NULL_ROW. */
static uint64_t row_at(const unsigned char *p, size_t is, size_t i) {
    uint64_t v = index_at(p, is, i);
    return is == 4 && v == UINT32_MAX ? NULL_ROW : v;
}

static uint64_t count_at(void *d) {
    uint64_t c;
    ck_assert_int_eq(mj__dev_download(ctx, &c, d, 8), MJ_OK);
    return c;
}

/* ---------------------------------------------------------------- one run */

typedef enum room { ROOM_ALL, ROOM_FEWER, ROOM_NONE } room;
static const char *const room_names[] = {"room for all", "room for fewer", "no room"};

typedef struct run_opts {
    void *temp;
    size_t temp_bytes;
    int one_call;
    int plan; /* mj_sorter_join_plan and mj_sorter_join_rows (temp given), not count and join */
} run_opts;

/* Overwrites `bytes` of device memory at p with `byte`. */
static void smear(void *p, int byte, size_t bytes) {
    if (!bytes) return;
    unsigned char *h = malloc(bytes);
    ck_assert_ptr_nonnull(h);
    memset(h, byte, bytes);
    ck_assert_int_eq(mj__dev_upload(ctx, p, h, bytes), MJ_OK);
    free(h);
}

/* The plan's count, then its rows written twice (each from the plan alone: the keys are
 * smeared in between, and the rows and the count poisoned before the second), which must
 * leave the count as the plan wrote it. Returns the count. */
static uint64_t plan_and_rows(mj_sorter *s, const kind *k, const char *what, int jk,
                              const void *da, size_t ac, const void *db, size_t bc, size_t is,
                              void *d_ar, void *d_br, uint64_t cap, void *d_count,
                              const run_opts *o) {
    mj_join_plan plan;
    mj_status st = mj_sorter_join_plan(s, (mj_join_kind)jk, da, ac, db, bc, d_count, o->temp,
                                       o->temp_bytes, NULL, &plan);
    ck_assert_msg(st == MJ_OK, "%s: plan: %s: %s", what, mj_status_name(st),
                  mj_context_last_error(ctx));
    ck_assert(plan.sorter == s && plan.kind == (mj_join_kind)jk && plan.a_count == ac &&
              plan.b_count == bc && plan.temp == o->temp && plan.temp_bytes == o->temp_bytes);
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    uint64_t counted = count_at(d_count);
    smear((void *)(uintptr_t)da, 0x5A, ac * k->size);
    smear((void *)(uintptr_t)db, 0xC3, bc * k->size);
    for (int turn = 0; turn < 2; ++turn) {
        smear(d_ar, GUARD_BYTE, (size_t)cap * is);
        smear(d_br, GUARD_BYTE, (size_t)cap * is);
        smear(d_count, GUARD_BYTE, 8);
        st = mj_sorter_join_rows(s, &plan, is, d_ar, d_br, cap, o->temp, o->temp_bytes, NULL);
        ck_assert_msg(st == MJ_OK, "%s: rows: %s: %s", what, mj_status_name(st),
                      mj_context_last_error(ctx));
        ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
        uint64_t poison;
        memset(&poison, GUARD_BYTE, 8);
        ck_assert_msg(count_at(d_count) == poison, "%s: the rows wrote a count", what);
    }
    return counted;
}

/* mj_sorter_join_count, then mj_sorter_join (or mj_join) with the room asked for: the count,
 * and the join's in *joined. */
static uint64_t count_then_join(mj_sorter *s, const kind *k, const char *what, int jk,
                                const void *da, size_t ac, const void *db, size_t bc, size_t is,
                                void *d_ar, void *d_br, uint64_t cap, void *d_count,
                                const run_opts *o, uint64_t *joined) {
    void *temp = o ? o->temp : NULL;
    size_t temp_bytes = o ? o->temp_bytes : 0;
    mj_status st = mj_sorter_join_count(s, (mj_join_kind)jk, da, ac, db, bc, d_count, temp,
                                        temp_bytes, NULL);
    ck_assert_msg(st == MJ_OK, "%s: count: %s: %s", what, mj_status_name(st),
                  mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    uint64_t counted = count_at(d_count);
    if (o && o->one_call) {
        mj_sort_desc d = kind_desc(MJ_JOIN, k);
        st = mj_join(ctx, &d, (mj_join_kind)jk, da, ac, db, bc, is, d_ar, d_br, cap, d_count,
                     NULL);
    } else {
        st = mj_sorter_join(s, (mj_join_kind)jk, da, ac, db, bc, is, d_ar, d_br, cap, d_count,
                            temp, temp_bytes, NULL);
    }
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st),
                  mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    *joined = count_at(d_count);
    return counted;
}

/* Joins ranks a and b of pattern p as keys of kind k: the count alone, then the rows with the
 * room asked for (or the plan, then its rows); checks both against the reference (only the
 * guards for unsorted keys). */
static void check(mj_sorter *s, const kind *k, pattern p, size_t ac, size_t bc, int jk,
                  size_t is, room rm, const run_opts *o, uint64_t seed) {
    char what[220];
    snprintf(what, sizeof what, "%s, %s, %zu x %zu keys, %s join, %zu-byte rows, %s%s%s",
             k->name, pattern_names[p], ac, bc, join_names[jk], is, room_names[rm],
             o && o->temp ? ", caller's temp" : "",
             o && o->one_call ? ", mj_join" : o && o->plan ? ", plan and rows" : "");
    say(what);
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1, range;
    uint64_t *ra = malloc(sizeof *ra * (ac + 1)), *rb = malloc(sizeof *rb * (bc + 1));
    ck_assert(ra && rb);
    make_ranks(p, ra, ac, rb, bc, &range, &rng);
    void *da = dev_rank_keys(k, ra, ac, range, &rng), *db = dev_rank_keys(k, rb, bc, range, &rng);
    int sorted = p != UNSORTED;
    uint64_t full = sorted ? reference(ra, ac, rb, bc, jk, NULL, NULL, 0) : ac + bc;
    uint64_t cap = rm == ROOM_ALL ? full : rm == ROOM_FEWER ? full - full / 3 : 0;
    size_t bytes = (size_t)cap * is;
    void *d_ar = guarded(bytes), *d_br = guarded(bytes), *d_count = guarded(8);
    uint64_t counted, joined; /* unsorted keys: unspecified, maybe changing */
    if (o && o->plan)
        counted = joined = plan_and_rows(s, k, what, jk, da, ac, db, bc, is, d_ar, d_br, cap,
                                         d_count, o);
    else
        counted = count_then_join(s, k, what, jk, da, ac, db, bc, is, d_ar, d_br, cap, d_count,
                                  o, &joined);
    size_t overrun = 0, bad = 0;
    unsigned char *har = fetch(d_ar, bytes, &overrun), *hbr = fetch(d_br, bytes, &overrun);
    char first[200] = "";
    if (sorted) {
        uint64_t *wa = malloc(sizeof *wa * (size_t)(cap + 1));
        uint64_t *wb = malloc(sizeof *wb * (size_t)(cap + 1));
        ck_assert(wa && wb);
        reference(ra, ac, rb, bc, jk, wa, wb, cap);
        if (counted != full || joined != full)
            snprintf(first, sizeof first, "counts %llu and %llu, not %llu",
                     (unsigned long long)counted, (unsigned long long)joined,
                     (unsigned long long)full), ++bad;
        for (uint64_t r = 0; r < cap; ++r) {
            uint64_t x = row_at(har, is, r), y = row_at(hbr, is, r);
            if ((x != wa[r] || y != wb[r]) && bad++ == 0)
                snprintf(first, sizeof first, "row %llu is (%lld, %lld), not (%lld, %lld)",
                         (unsigned long long)r, (long long)x, (long long)y, (long long)wa[r],
                         (long long)wb[r]);
        }
        free(wa);
        free(wb);
    }
    ck_assert_msg(bad == 0 && overrun == 0, "%s: %zu wrong, the first %s; %zu guard bytes "
                  "written", what, bad, first, overrun);
    free(har);
    free(hbr);
    free_guarded(d_ar);
    free_guarded(d_br);
    free_guarded(d_count);
    mj__dev_free(ctx, da);
    mj__dev_free(ctx, db);
    free(ra), free(rb);
}

/* ---------------------------------------------------------------- cases */

/* Every pattern and size, every kind of join, 4- and 8-byte rows in turn, room for all. */
START_TEST(test_sizes_and_patterns)
{
    const kind *k = &kinds[_i];
    mj_sorter *s = make(k);
    size_t nv = tile_of(s), big = small ? 200000 : 10000000;
    const size_t sizes[][2] = {{0, 0},      {0, 5},          {5, 0},     {1, 1},
                               {nv - 1, nv + 1}, {2 * nv + 1, 1}, {1, 2 * nv + 1},
                               {33 * nv + 7, 5 * nv}, {big / 2, big / 2}};
    size_t cases = sizeof sizes / sizeof *sizes;
    for (size_t z = 0; z < cases; ++z)
        for (int p = 0; p < PATTERNS; ++p)
            for (int jk = 0; jk < 4; ++jk) {
                /* 10^7 keys: random keys, inner and outer joins, are enough; all keys equal
                 * up to 2^24 rows. */
                if (z + 1 == cases && (p != RANDOM || jk % 3)) continue;
                if (p == EQUAL && (uint64_t)sizes[z][0] * sizes[z][1] > (1u << 24)) continue;
                check(s, k, (pattern)p, sizes[z][0], sizes[z][1], jk, (z + jk) % 2 ? 8 : 4,
                      ROOM_ALL, NULL, 100u * z + 10u * (unsigned)p + (unsigned)jk);
            }
    mj_sorter_destroy(s);
}
END_TEST

/* Less room than rows, and none: nothing past it, the count whole. */
START_TEST(test_room)
{
    const kind *k = &kinds[_i];
    mj_sorter *s = make(k);
    size_t nv = tile_of(s);
    for (int jk = 0; jk < 4; ++jk)
        for (int p = 0; p < UNSORTED; ++p) {
            size_t ac = p == EQUAL ? nv + 3 : 7 * nv + 3, bc = p == EQUAL ? nv / 2 : 4 * nv + 1;
            check(s, k, (pattern)p, ac, bc, jk, 4, ROOM_FEWER, NULL,
                  7u * (unsigned)jk + (unsigned)p);
            check(s, k, (pattern)p, 3 * nv, 2 * nv, jk, 8, ROOM_NONE, NULL,
                  9u * (unsigned)jk + (unsigned)p);
        }
    mj_sorter_destroy(s);
}
END_TEST

/* A caller's temporary buffer of the size query's bytes for a_count + b_count, and the
 * one-call function. */
START_TEST(test_temp_and_one_call)
{
    const kind *k = &kinds[0];
    mj_sorter *s = make(k);
    size_t nv = tile_of(s), ac = 9 * nv + 5, bc = 6 * nv, bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, ac + bc, 0, &bytes), MJ_OK);
    void *temp = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &temp, bytes), MJ_OK);
    run_opts o = {temp, bytes, 0, 0};
    for (int jk = 0; jk < 4; ++jk) check(s, k, RANDOM, ac, bc, jk, 4, ROOM_ALL, &o, 1u + jk);
    /* The same buffer for a split of the same total the other way round. */
    check(s, k, RUNS_IN_B, bc, ac, MJ_JOIN_OUTER, 8, ROOM_ALL, &o, 11);
    mj__dev_free(ctx, temp);
    run_opts one = {NULL, 0, 1, 0};
    for (int jk = 0; jk < 4; ++jk) check(s, k, RANDOM, ac, bc, jk, 8, ROOM_FEWER, &one, 21u + jk);
    mj_sorter_destroy(s);
}
END_TEST

/* The plan, then its rows: every pattern (unsorted keys too: writes inside the outputs), kind
 * of join and room, 4- and 8-byte rows in turn, from empty sides to many tiles, in one
 * caller's buffer of the size query's bytes for the largest. */
START_TEST(test_plan_and_rows)
{
    const kind *k = &kinds[_i];
    mj_sorter *s = make(k);
    size_t nv = tile_of(s), bytes = 0;
    const size_t sizes[][2] = {{0, 0}, {0, 5}, {5, 0}, {1, 1}, {nv - 1, nv + 1},
                               {33 * nv + 7, 5 * nv}};
    size_t cases = sizeof sizes / sizeof *sizes;
    ck_assert_int_eq(mj_sorter_temp_size(s, 38 * nv + 7, 0, &bytes), MJ_OK);
    void *temp = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &temp, bytes), MJ_OK);
    run_opts o = {temp, bytes, 0, 1};
    for (size_t z = 0; z < cases; ++z)
        for (int p = 0; p < PATTERNS; ++p)
            for (int jk = 0; jk < 4; ++jk) {
                if (p == EQUAL && (uint64_t)sizes[z][0] * sizes[z][1] > (1u << 24)) continue;
                check(s, k, (pattern)p, sizes[z][0], sizes[z][1], jk, (z + jk) % 2 ? 8 : 4,
                      (room)((z + (size_t)p + (size_t)jk) % 3), &o,
                      300u * z + 10u * (unsigned)p + (unsigned)jk);
            }
    mj__dev_free(ctx, temp);
    mj_sorter_destroy(s);
}
END_TEST

/* The kernel that writes b's unmatched rows is built at create with the others (one module of
 * every join kernel), so that right and full joins build and load nothing: the context's
 * modules stay as they were through joins of every kind. */
START_TEST(test_unmatched_built_at_create)
{
    const kind *k = &kinds[0];
    mj_sorter *s = make(k);
    ck_assert_uint_eq(s->mod->kernels, mj__primitive_kernels(MJ_JOIN));
    int modules = mjt_context_modules(ctx);
    size_t nv = tile_of(s), ac = 3 * nv + 1, bc = 2 * nv + 5;
    check(s, k, RANDOM, ac, bc, MJ_JOIN_INNER, 4, ROOM_ALL, NULL, 31);
    check(s, k, NO_MATCH, ac, bc, MJ_JOIN_RIGHT, 8, ROOM_ALL, NULL, 34);
    check(s, k, RANDOM, ac, bc, MJ_JOIN_OUTER, 4, ROOM_FEWER, NULL, 35);
    ck_assert_int_eq(mjt_context_modules(ctx), modules);
    mj_sorter_destroy(s);
}
END_TEST

/* The build failing at create (NVRTC out of memory, injected; a context of its own without a
 * disk cache, so that nothing is found built) is create's status and message, with no sorter;
 * the next create builds, and its right join writes every row: a = {1, 2, 3}, b = {2, 5}
 * gives (1, 0) and (NULL, 1). */
START_TEST(test_create_build_fails)
{
    char *dir = mjt_tmpdir();
    mj_context_options o;
    mj_context_options_init(&o);
    o.cache_dir = dir;
    o.flags = MJ_CONTEXT_NO_DISK_CACHE;
    mj_context *c = NULL;
    ck_assert_int_eq(mj_context_create(&o, &c), MJ_OK);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    d.primitive = MJ_JOIN;
    mj_sorter *s = mjt_create_after_failed_build(c, &d);
    const uint32_t a[] = {1, 2, 3}, b[] = {2, 5};
    void *da = dev_copy(a, sizeof a), *db = dev_copy(b, sizeof b);
    void *d_ar = guarded(16), *d_br = guarded(16), *d_count = guarded(8);
    ck_assert_int_eq(mj_sorter_join(s, MJ_JOIN_RIGHT, da, 3, db, 2, 8, d_ar, d_br, 2, d_count,
                                    NULL, 0, NULL), MJ_OK);
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    ck_assert_uint_eq(count_at(d_count), 2);
    size_t overrun = 0;
    unsigned char *ar = fetch(d_ar, 16, &overrun), *br = fetch(d_br, 16, &overrun);
    ck_assert_uint_eq(row_at(ar, 8, 0), 1);
    ck_assert_uint_eq(row_at(br, 8, 0), 0);
    ck_assert_uint_eq(row_at(ar, 8, 1), NULL_ROW);
    ck_assert_uint_eq(row_at(br, 8, 1), 1);
    ck_assert_uint_eq(overrun, 0);
    free(ar), free(br);
    free_guarded(d_ar), free_guarded(d_br), free_guarded(d_count);
    free_dev(da), free_dev(db);
    mj_sorter_destroy(s);
    mj_context_destroy(c);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* 2^17 x 2^16 equal keys: 2^33 rows (2^33 + 0 for outer), counted without a row written; the
 * 32-bit sums a tile would give wrap. Then the first of those rows written, in room for fewer:
 * the a rows' first output rows no longer fit 4 bytes (mj_join_first_rows_narrow), so the
 * scan writes and the rows' kernels read them as 8. */
START_TEST(test_count_past_2_32)
{
    const kind *k = &kinds[0];
    mj_sorter *s = make(k);
    size_t ac = (size_t)1 << 17, bc = (size_t)1 << 16;
    uint32_t *h = malloc(4 * ac);
    ck_assert_ptr_nonnull(h);
    for (size_t i = 0; i < ac; ++i) h[i] = 42;
    void *da = dev_bytes(h, 4 * ac), *db = dev_bytes(h, 4 * bc), *d_count = guarded(8);
    for (int jk = 0; jk < 4; ++jk) {
        mj_status st = mj_sorter_join_count(s, (mj_join_kind)jk, da, ac, db, bc, d_count, NULL,
                                            0, NULL);
        ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
        ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
        uint64_t c = count_at(d_count);
        ck_assert_msg(c == (uint64_t)1 << 33, "%s join of 2^17 x 2^16 equal keys: %llu rows",
                      join_names[jk], (unsigned long long)c);
    }
    /* Rows across four a rows' runs and into a fifth: a row r / bc, b row r % bc. */
    size_t cap = 4 * bc + 1000, overrun = 0;
    void *d_ar = guarded(8 * cap), *d_br = guarded(8 * cap);
    mj_status st = mj_sorter_join(s, MJ_JOIN_INNER, da, ac, db, bc, 8, d_ar, d_br, cap, d_count,
                                  NULL, 0, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_int_eq(count_at(d_count), (uint64_t)1 << 33);
    unsigned char *ar = fetch(d_ar, 8 * cap, &overrun), *br = fetch(d_br, 8 * cap, &overrun);
    ck_assert_int_eq(overrun, 0);
    for (size_t r = 0; r < cap; ++r)
        ck_assert_msg(row_at(ar, 8, r) == r / bc && row_at(br, 8, r) == r % bc,
                      "row %zu of 2^33: (%llu, %llu), want (%zu, %zu)", r,
                      (unsigned long long)row_at(ar, 8, r), (unsigned long long)row_at(br, 8, r),
                      r / bc, r % bc);
    free(ar);
    free(br);
    free_guarded(d_ar);
    free_guarded(d_br);
    free(h);
    mj__dev_free(ctx, da);
    mj__dev_free(ctx, db);
    free_guarded(d_count);
    mj_sorter_destroy(s);
}
END_TEST

static Suite *gpu_join_suite(void) {
    Suite *s = suite_create("gpu_join");
    TCase *tc = tcase_create("join");
    tcase_set_timeout(tc, 1200);
    tcase_add_loop_test(tc, test_sizes_and_patterns, 0, KINDS);
    tcase_add_loop_test(tc, test_room, 0, KINDS);
    tcase_add_test(tc, test_temp_and_one_call);
    tcase_add_loop_test(tc, test_plan_and_rows, 0, KINDS);
    tcase_add_test(tc, test_count_past_2_32);
    suite_add_tcase(s, tc);
    /* A case of its own, for CK_RUN_CASE=create. */
    TCase *create = tcase_create("create");
    tcase_set_timeout(create, 600);
    tcase_add_test(create, test_unmatched_built_at_create);
    tcase_add_test(create, test_create_build_fails);
    suite_add_tcase(s, create);
    return s;
}

int main(void) { return run_gpu_suite("test_gpu_join", gpu_join_suite()); }
