/* SPDX-License-Identifier: Apache-2.0 */
/* Sorted search on the GPU against a CPU reference: u32, i64, f32 (with -inf, -0, +0, +inf
 * and NaNs of both signs: the header's total order), f32 and u32 descending, and a custom
 * 12-byte struct whose comparator reads two of its fields (keys that differ in the third are
 * equivalent); lower and upper bounds; every output alone and all together, 4- and 8-byte
 * indices (one array alone, which the kernel stores by a loop of its own, at every size and
 * pattern); sizes 0 on either side, 1, the tile edges, many tiles and 10^7 (not with
 * MJ_TEST_SMALL); random keys with duplicates, all keys equal, no matches, duplicates on one
 * side only, all a below all b; unsorted keys (every write inside the outputs); a caller's
 * temporary buffer and the one-call function. Each output is poisoned before a run and lies
 * between guards. One assertion a run. Skips (exit 77) where there is no GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "gpu_primitives_support.h"
#include "gpu_rank_keys_support.h"
#include "test_support.h"

static mj_sorter *make(const kind *k) { return kind_sorter(MJ_SORTED_SEARCH, k); }

/* ---------------------------------------------------------------- inputs */

typedef enum pattern { RANDOM, EQUAL, NO_MATCH, ONE_SIDED, SKEWED, UNSORTED, PATTERNS } pattern;
static const char *const pattern_names[] = {"random", "all equal", "no matches",
                                            "duplicates in a only", "a below b", "unsorted"};

/* The ranks of a and b for a pattern, sorted but for UNSORTED; *range is one more than the
 * largest (so the special f32 keys, at the ends of the range, occur). */
static void make_ranks(pattern p, uint64_t *a, size_t ac, uint64_t *b, size_t bc,
                       uint64_t *range, uint64_t *rng) {
    uint64_t R = (ac + bc) / 4 + 8;
    for (size_t i = 0; i < ac; ++i) {
        uint64_t u = mjt_rand(rng) % R;
        a[i] = p == EQUAL ? R / 2 : p == NO_MATCH ? 2 * u : p == ONE_SIDED ? u / 8 * 8 : u;
    }
    for (size_t j = 0; j < bc; ++j) {
        uint64_t u = mjt_rand(rng) % R;
        b[j] = p == EQUAL ? R / 2 : p == NO_MATCH ? 2 * u + 1 : p == SKEWED ? R + u : u;
        if (p == ONE_SIDED) b[j] = j * (R / (bc + 1) + 1); /* distinct, increasing */
    }
    ranks_done(a, ac, b, bc, range, p != UNSORTED);
}

/* The first position in x[0, n) whose rank is not below v (lower) or above v (upper). */
static size_t rank_bound(const uint64_t *x, size_t n, uint64_t v, int upper) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (upper ? x[mid] <= v : x[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---------------------------------------------------------------- one run */

enum { O_A_INDICES = 1, O_A_MATCHES = 2, O_A_COUNTS = 4, O_B_INDICES = 8, O_B_MATCHES = 16,
       O_MATCH_COUNTS = 32, O_ALL = 63 };

typedef struct run_opts {
    void *temp;
    size_t temp_bytes;
} run_opts;

/* Searches ranks a and b of pattern p as keys of kind k with the outputs `which`, checks every
 * output against the reference (all but the guards unless sorted). */
static void check(mj_sorter *s, const kind *k, pattern p, size_t ac, size_t bc, mj_bound bound,
                  unsigned which, size_t is, const run_opts *o, uint64_t seed) {
    char what[200];
    snprintf(what, sizeof what, "%s, %s, %zu + %zu keys, %s bound, outputs %#x, %zu-byte "
             "indices%s", k->name, pattern_names[p], ac, bc,
             bound == MJ_BOUND_UPPER ? "upper" : "lower", which, is,
             o && o->temp ? ", caller's temp" : "");
    say(what);
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1, range;
    uint64_t *ra = malloc(sizeof *ra * (ac + 1)), *rb = malloc(sizeof *rb * (bc + 1));
    ck_assert(ra && rb);
    make_ranks(p, ra, ac, rb, bc, &range, &rng);
    void *da = dev_rank_keys(k, ra, ac, range, &rng), *db = dev_rank_keys(k, rb, bc, range, &rng);
    size_t bytes[6] = {ac * is, ac, ac * is, bc * is, bc, 16};
    void *d[6] = {NULL};
    for (int i = 0; i < 6; ++i)
        if (which & (1u << i)) d[i] = guarded(bytes[i]);
    mj_search_outputs out = {bound, is, d[0], d[1], d[2], d[3], d[4], d[5]};
    mj_status st = mj_sorter_sorted_search(s, da, ac, db, bc, &out, o ? o->temp : NULL,
                                           o ? o->temp_bytes : 0, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st),
                  mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    size_t overrun = 0, bad = 0;
    unsigned char *h[6] = {NULL};
    for (int i = 0; i < 6; ++i)
        if (d[i]) h[i] = fetch(d[i], bytes[i], &overrun);
    char first[160] = "";
    int upper = bound == MJ_BOUND_UPPER;
    uint64_t matched[2] = {0, 0};
#define WRONG(...)                                                                            \
    do {                                                                                      \
        if (bad++ == 0) snprintf(first, sizeof first, __VA_ARGS__);                           \
    } while (0)
    for (size_t i = 0; p != UNSORTED && i < ac; ++i) {
        size_t lo = rank_bound(rb, bc, ra[i], 0), hi = rank_bound(rb, bc, ra[i], 1);
        matched[0] += hi > lo;
        if (h[0] && index_at(h[0], is, i) != (upper ? hi : lo))
            WRONG("a_indices[%zu] = %llu, not %zu", i,
                  (unsigned long long)index_at(h[0], is, i), upper ? hi : lo);
        if (h[1] && h[1][i] != (hi > lo)) WRONG("a_matches[%zu] = %d", i, h[1][i]);
        if (h[2] && index_at(h[2], is, i) != hi - lo)
            WRONG("a_counts[%zu] = %llu, not %zu", i, (unsigned long long)index_at(h[2], is, i),
                  hi - lo);
    }
    for (size_t j = 0; p != UNSORTED && j < bc; ++j) {
        size_t lo = rank_bound(ra, ac, rb[j], 0), hi = rank_bound(ra, ac, rb[j], 1);
        matched[1] += hi > lo;
        if (h[3] && index_at(h[3], is, j) != (upper ? lo : hi))
            WRONG("b_indices[%zu] = %llu, not %zu", j,
                  (unsigned long long)index_at(h[3], is, j), upper ? lo : hi);
        if (h[4] && h[4][j] != (hi > lo)) WRONG("b_matches[%zu] = %d", j, h[4][j]);
    }
    if (h[5] && p != UNSORTED && (index_at(h[5], 8, 0) != matched[0] ||
                                  index_at(h[5], 8, 1) != matched[1]))
        WRONG("match_counts %llu and %llu, not %llu and %llu",
              (unsigned long long)index_at(h[5], 8, 0), (unsigned long long)index_at(h[5], 8, 1),
              (unsigned long long)matched[0], (unsigned long long)matched[1]);
#undef WRONG
    ck_assert_msg(bad == 0 && overrun == 0, "%s: %zu wrong, the first %s; %zu guard bytes "
                  "written", what, bad, first, overrun);
    for (int i = 0; i < 6; ++i) {
        free(h[i]);
        free_guarded(d[i]);
    }
    mj__dev_free(ctx, da);
    mj__dev_free(ctx, db);
    free(ra);
    free(rb);
}

/* ---------------------------------------------------------------- cases */

/* Every pattern and size, both bounds, every output at once, 4- and 8-byte indices in turn. */
START_TEST(test_sizes_and_patterns)
{
    const kind *k = &kinds[_i];
    mj_sorter *s = make(k);
    size_t nv = tile_of(s), big = small ? 200000 : 10000000;
    const size_t sizes[][2] = {{0, 1},          {1, 0},     {1, 1},      {0, 2 * nv + 1},
                               {nv + 1, 0},     {1, nv},    {nv - 1, 1}, {nv, nv},
                               {nv + 1, nv - 1}, {2 * nv - 1, 1}, {33 * nv + 7, 5 * nv},
                               {3 * big / 5, 2 * big / 5}};
    size_t cases = sizeof sizes / sizeof *sizes;
    for (size_t z = 0; z < cases; ++z)
        for (int p = 0; p < PATTERNS; ++p) {
            /* 10^7 keys: two patterns are enough. */
            if (z + 1 == cases && p != RANDOM && p != SKEWED) continue;
            for (int upper = 0; upper < 2; ++upper) {
                mj_bound bound = upper ? MJ_BOUND_UPPER : MJ_BOUND_LOWER;
                unsigned seed = 100u * z + 10u * (unsigned)p + (unsigned)upper;
                check(s, k, (pattern)p, sizes[z][0], sizes[z][1], bound, O_ALL,
                      (z + p) % 2 ? 8 : 4, NULL, seed);
                /* One array alone takes the kernel's other store loop (a side's positions
                 * only; a's counts in the lower bound's pass, in their own pass before the
                 * upper bound's): a's indices, a's counts or b's indices, in
                 * turn, at every size and pattern. */
                const unsigned lone[] = {O_A_INDICES, O_A_COUNTS, O_B_INDICES};
                check(s, k, (pattern)p, sizes[z][0], sizes[z][1], bound,
                      lone[(z + (size_t)p + (size_t)upper) % 3], (z + p) % 2 ? 4 : 8, NULL,
                      seed + 5000u);
            }
        }
    mj_sorter_destroy(s);
}
END_TEST

/* Each output alone, both bounds: the other outputs' absence changes nothing. */
START_TEST(test_each_output)
{
    const kind *k = &kinds[_i];
    mj_sorter *s = make(k);
    size_t nv = tile_of(s);
    for (unsigned bit = 1; bit < O_ALL; bit <<= 1)
        for (int upper = 0; upper < 2; ++upper)
            check(s, k, RANDOM, 2 * nv + 3, 3 * nv - 2, upper ? MJ_BOUND_UPPER : MJ_BOUND_LOWER,
                  bit, upper ? 8 : 4, NULL, bit * 2u + (unsigned)upper);
    mj_sorter_destroy(s);
}
END_TEST

/* One caller's buffer for runs of several sizes, largest first. */
START_TEST(test_reused_temp)
{
    const kind *k = &kinds[0];
    mj_sorter *s = make(k);
    size_t nv = tile_of(s), bytes = 0, n = small ? 100000 : 3000000;
    ck_assert_int_eq(mj_sorter_temp_size(s, n, 0, &bytes), MJ_OK);
    run_opts o = {NULL, bytes};
    ck_assert_int_eq(mj__dev_alloc(ctx, &o.temp, bytes), MJ_OK);
    check(s, k, RANDOM, n / 2, n / 2, MJ_BOUND_UPPER, O_ALL, 8, &o, 1u);
    check(s, k, EQUAL, 5 * nv, 7, MJ_BOUND_LOWER, O_ALL, 4, &o, 2u);
    check(s, k, SKEWED, 1, nv, MJ_BOUND_UPPER, O_A_COUNTS, 4, &o, 3u);
    mj__dev_free(ctx, o.temp);
    mj_sorter_destroy(s);
}
END_TEST

/* mj_sorted_search builds its sorter and storage itself; nothing to search writes the zero
 * match counts. */
START_TEST(test_one_call)
{
    size_t n = 100003;
    uint32_t *a = malloc(n * 4), *b = malloc(n * 4);
    ck_assert(a && b);
    for (size_t i = 0; i < n; ++i) {
        a[i] = (uint32_t)(2 * i);
        b[i] = (uint32_t)(3 * i);
    }
    void *da = dev_bytes(a, n * 4), *db = dev_bytes(b, n * 4), *di = guarded(n * 8);
    void *dm = guarded(16);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_search_outputs out = {MJ_BOUND_LOWER, 8, di, NULL, NULL, NULL, NULL, dm};
    ck_assert_int_eq(mj_sorted_search(ctx, &d, da, n, db, n, &out, NULL), MJ_OK);
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    uint64_t *idx = host_copy(di, n * 8), *m = host_copy(dm, 16);
    size_t bad = 0, b_matched = 0;
    for (size_t i = 0; i < n; ++i) bad += idx[i] != (2 * i + 2) / 3; /* ceil(2i / 3) */
    for (size_t j = 0; j < n; ++j) b_matched += j % 2 == 0 && 3 * j <= 2 * (n - 1);
    ck_assert_msg(bad == 0 && m[0] == (n + 2) / 3 && m[1] == b_matched,
                  "mj_sorted_search: %zu indices wrong, match counts %llu and %llu", bad,
                  (unsigned long long)m[0], (unsigned long long)m[1]);
    out.a_indices = NULL;
    ck_assert_int_eq(mj_sorted_search(ctx, &d, NULL, 0, NULL, 0, &out, NULL), MJ_OK);
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    free(m);
    m = host_copy(dm, 16);
    ck_assert_msg(m[0] == 0 && m[1] == 0, "match counts of nothing: %llu and %llu",
                  (unsigned long long)m[0], (unsigned long long)m[1]);
    free(idx);
    free(m);
    free(a);
    free(b);
    mj__dev_free(ctx, da);
    mj__dev_free(ctx, db);
    free_guarded(di);
    free_guarded(dm);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpu_search");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1800);
    tcase_add_loop_test(tc, test_sizes_and_patterns, 0, KINDS);
    tcase_add_loop_test(tc, test_each_output, 0, KINDS);
    tcase_add_test(tc, test_reused_temp);
    tcase_add_test(tc, test_one_call);
    suite_add_tcase(s, tc);
    return run_gpu_suite("test_gpu_search", s);
}
