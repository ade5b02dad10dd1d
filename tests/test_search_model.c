/* SPDX-License-Identifier: Apache-2.0 */
/* A CPU model of sorted search (templates/shared/sorted_search.h and mj_lbs_tile_range, the
 * arithmetic the kernel runs): the merge partitions with ties to the first array, each tile's
 * range and halos, every thread's merge path and serial walk as kernel_search.cuh does them,
 * the results staged by tile position and stored, for both bounds and the two-pass counts,
 * against binary searches, for duplicates, equal keys, no matches, skew, empty sides and
 * several tile shapes; unsorted keys and arbitrary partitions keep every read and write inside
 * the arrays. CPU only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shared/load_balance.h"
#include "shared/sorted_search.h"
#include "test_support.h"
#include "key_runs_model.h"

/* merge_path.cuh's mj_merge_path over ints: how many of the first d outputs come from a. */
static long long path(const int *a, long long ac, const int *b, long long bc, long long d) {
    long long lo = d > bc ? d - bc : 0, hi = d < ac ? d : ac;
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        if (b[d - 1 - mid] < a[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* search_walk.cuh's mj_search_walk over ints, with matches: thread steps from tile positions a
 * and b, each key taken leaving its result at its position (steps past the tile at `spare`).
 * Asserts that the heads it reads stay inside the tile and its halos (s[-1] .. s[total]). */
static void walk(const int *s, int a, int b, int fl, int total, int steps, int vt, int lead,
                 int trail, unsigned *result, int spare, int *noted) {
    ck_assert(a >= 0 && a <= fl && b >= fl && b <= total);
    int ka = s[a], kb = s[b], kp = s[a - 1];
    for (int i = 0; i < vt; ++i) {
        int live = i < steps;
        int first = mj_search_takes_first(a, b, fl, total, kb < ka);
        int match = mj_search_has_neighbour(first, a, b, total, lead, trail) &&
                    (first ? !(ka < kb) : !(kp < kb));
        int at = live ? (first ? a : b) : spare;
        ck_assert(at >= 0 && (at < total || at == spare));
        result[at] = mj_search_result(first, a, b, fl, match);
        noted[at] += live;
        if (first) kp = ka;
        a += live & first;
        b += live & !first;
        ck_assert(a <= fl && b <= total);
        int next = s[first ? a : b];
        ka = first ? next : ka;
        kb = first ? kb : next;
    }
}

/* The outputs of one side, as mj_search_side: NULL arrays are not written. */
typedef struct side {
    long long *indices, *counts;
    unsigned char *matches;
    unsigned long long matched;
    long long count; /* the side's keys: every store is checked against it */
} side;

static void store(side *o, long long i, long long base, unsigned r, long long count) {
    ck_assert_int_ge(i, 0);
    ck_assert_int_lt(i, o->count);
    long long bound = base + (r & ~MJ_SEARCH_MATCH);
    unsigned match = r >> 31;
    if (o->indices) o->indices[i] = bound;
    if (o->matches) o->matches[i] = (unsigned char)match;
    if (o->counts) o->counts[i] = count;
    o->matched += match;
}

/* The first position in x[lo, hi) whose key is above k (the warp's mj_group_search of an
 * mj_key_repeat in the kernel). */
static long long upper_in(const int *x, long long lo, long long hi, int k) {
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        if (k < x[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* search_count.cuh's mj_search_count. */
static long long count_of(const int *s, int j, unsigned r, int fl, int total, int trail,
                          long long beyond) {
    unsigned before = r & ~MJ_SEARCH_MATCH;
    if (before > (unsigned)(total - fl)) before = (unsigned)(total - fl);
    int b = fl + (int)before;
    int end = (int)mjt_run_end_near(s, b, total, s[j], MJ_SEARCH_COUNT_PROBES);
    int on = end == total && trail && !(s[j] < s[total]);
    return (end - b) + (on ? beyond : 0);
}

/* One pass of the kernel over first and second in tiles of nt x vt; `wild` replaces the
 * partitions by arbitrary ones within each diagonal's range (what unsorted keys may give). With
 * `sorted`, checks that the threads note each key of a tile exactly once. */
static void pass(const int *first, long long fc, const int *second, long long sc, int nt, int vt,
                 int wild, int sorted, side *of, side *os, uint64_t *rng) {
    long long nv = (long long)nt * vt, n = fc + sc, tiles = (n + nv - 1) / nv;
    long long *parts = malloc(sizeof *parts * (size_t)(tiles + 1));
    int *keys = malloc(sizeof *keys * (size_t)(nv + 2));
    unsigned *result = malloc(sizeof *result * (size_t)(nv + 1)); /* and the spare slot */
    int *noted = malloc(sizeof *noted * (size_t)(nv + 1));
    ck_assert(parts && keys && result && noted);
    for (long long t = 0; t <= tiles; ++t) {
        long long d = t * nv < n ? t * nv : n;
        long long lo = d > sc ? d - sc : 0, hi = d < fc ? d : fc;
        parts[t] = wild ? lo + (long long)(mjt_rand(rng) % (uint64_t)(hi - lo + 1))
                        : path(first, fc, second, sc, d);
    }
    for (long long tile = 0; tile < tiles; ++tile) {
        mj_lbs_range r = mj_lbs_tile_range(tile, nv, fc, sc, parts[tile], parts[tile + 1]);
        ck_assert(0 <= r.x0 && r.x0 <= r.x1 && r.x1 <= fc);
        ck_assert(0 <= r.y0 && r.y0 <= r.y1 && r.y1 <= sc);
        int fl = (int)(r.x1 - r.x0), total = fl + (int)(r.y1 - r.y0);
        ck_assert(total >= 1 && total <= nv);
        int lead = r.x0 > 0, trail = r.y1 < sc;
        int *s = keys + 1;
        for (int j = 0; j < total; ++j) s[j] = j < fl ? first[r.x0 + j] : second[r.y0 + j - fl];
        /* A missing halo holds a key its neighbour equals: a match the walk must not count. */
        s[-1] = lead ? first[r.x0 - 1] : s[0];
        s[total] = trail ? second[r.y1] : s[total - 1];
        for (int j = 0; j <= nv; ++j) {
            result[j] = 0x7fffffffu; /* as if never written: still a bound inside the tile's */
            noted[j] = 0;
        }
        for (int tid = 0; tid < nt; ++tid) {
            int diag = vt * tid < total ? vt * tid : total;
            int p = (int)path(s, fl, s + fl, total - fl, diag);
            walk(s, p, fl + diag - p, fl, total, total - diag, vt, lead, trail, result, (int)nv,
                 noted);
        }
        ck_assert_int_eq(noted[nv], 0); /* no live step writes the spare slot */
        long long beyond = 0;
        if (of->counts && trail && fl > 0 && !(s[fl - 1] < s[total]))
            beyond = upper_in(second, r.y1, sc, s[total]) - r.y1;
        for (int j = 0; j < total; ++j) {
            if (sorted) ck_assert_int_eq(noted[j], 1);
            if (j < fl)
                store(of, r.x0 + j, r.y0, result[j],
                      of->counts ? count_of(s, j, result[j], fl, total, trail, beyond) : 0);
            else
                store(os, r.y0 + (j - fl), r.x0, result[j], 0);
        }
    }
    free(parts);
    free(keys);
    free(result);
    free(noted);
}

typedef struct outputs {
    long long *a_indices, *a_counts, *b_indices;
    unsigned char *a_matches, *b_matches;
    unsigned long long matched[2];
} outputs;

/* search.c's passes: a first on ties for the lower bound, b first for the upper; a_counts
 * come from a pass with a first: the lower bound's, or one of their own before the upper's. */
static void search(const int *a, long long ac, const int *b, long long bc, int upper, int nt,
                   int vt, int wild, int sorted, outputs *o, uint64_t *rng) {
    side as = {o->a_indices, upper ? NULL : o->a_counts, o->a_matches, 0, ac};
    side bs = {o->b_indices, NULL, o->b_matches, 0, bc};
    side counts = {NULL, o->a_counts, NULL, 0, ac}, none = {NULL, NULL, NULL, 0, bc};
    if (upper) {
        pass(a, ac, b, bc, nt, vt, wild, sorted, &counts, &none, rng);
        pass(b, bc, a, ac, nt, vt, wild, sorted, &bs, &as, rng);
    } else {
        pass(a, ac, b, bc, nt, vt, wild, sorted, &as, &bs, rng);
    }
    o->matched[0] = as.matched;
    o->matched[1] = bs.matched;
}

/* The first position in x[0, n) whose key is not below k (lower), or above k (upper). */
static long long bound(const int *x, long long n, int k, int upper) {
    long long lo = 0, hi = n;
    while (lo < hi) {
        long long mid = (lo + hi) / 2;
        if (upper ? !(k < x[mid]) : x[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int int_cmp(const void *x, const void *y) {
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

enum { RANDOM, EQUAL, DISJOINT, SKEWED, ONE_SIDED, UNSORTED };

static void fill(int *a, long long ac, int *b, long long bc, int kind, uint64_t *rng) {
    for (long long i = 0; i < ac; ++i)
        a[i] = kind == EQUAL ? 7 : kind == DISJOINT ? 2 * (int)(mjt_rand(rng) % 500)
             : kind == SKEWED ? (int)(mjt_rand(rng) % 1000) : (int)(mjt_rand(rng) % 300);
    for (long long j = 0; j < bc; ++j)
        b[j] = kind == EQUAL ? 7 : kind == DISJOINT ? 2 * (int)(mjt_rand(rng) % 500) + 1
             : kind == SKEWED ? 1000 + (int)(mjt_rand(rng) % 1000)
             : kind == ONE_SIDED ? (int)j : (int)(mjt_rand(rng) % 300);
    if (kind == UNSORTED) return;
    qsort(a, (size_t)ac, sizeof *a, int_cmp);
    qsort(b, (size_t)bc, sizeof *b, int_cmp);
}

static void run_case(long long ac, long long bc, int kind, int nt, int vt, uint64_t *rng) {
    int *a = malloc(sizeof *a * (size_t)(ac + 1)), *b = malloc(sizeof *b * (size_t)(bc + 1));
    outputs o;
    o.a_indices = calloc((size_t)ac + 1, sizeof(long long));
    o.a_counts = calloc((size_t)ac + 1, sizeof(long long));
    o.b_indices = calloc((size_t)bc + 1, sizeof(long long));
    o.a_matches = calloc((size_t)ac + 1, 1);
    o.b_matches = calloc((size_t)bc + 1, 1);
    ck_assert(a && b && o.a_indices && o.a_counts && o.b_indices && o.a_matches && o.b_matches);
    fill(a, ac, b, bc, kind, rng);
    int sorted = kind != UNSORTED;
    for (int wild = 0; wild <= !sorted; ++wild)
        for (int upper = 0; upper < 2; ++upper) {
            search(a, ac, b, bc, upper, nt, vt, wild, sorted, &o, rng);
            if (!sorted) continue; /* reaching here: every access stayed inside the arrays */
            unsigned long long am = 0, bm = 0;
            for (long long i = 0; i < ac; ++i) {
                long long lo = bound(b, bc, a[i], 0), hi = bound(b, bc, a[i], 1);
                ck_assert_msg(o.a_indices[i] == (upper ? hi : lo),
                              "%lld+%lld keys kind %d, %dx%d, %s: a_indices[%lld] = %lld",
                              ac, bc, kind, nt, vt, upper ? "upper" : "lower", i, o.a_indices[i]);
                ck_assert_int_eq(o.a_matches[i], hi > lo);
                ck_assert_int_eq(o.a_counts[i], hi - lo);
                am += hi > lo;
            }
            for (long long j = 0; j < bc; ++j) {
                long long lo = bound(a, ac, b[j], 0), hi = bound(a, ac, b[j], 1);
                ck_assert_msg(o.b_indices[j] == (upper ? lo : hi),
                              "%lld+%lld keys kind %d, %dx%d, %s: b_indices[%lld] = %lld",
                              ac, bc, kind, nt, vt, upper ? "upper" : "lower", j, o.b_indices[j]);
                ck_assert_int_eq(o.b_matches[j], hi > lo);
                bm += hi > lo;
            }
            ck_assert_uint_eq(o.matched[0], am);
            ck_assert_uint_eq(o.matched[1], bm);
        }
    free(a);
    free(b);
    free(o.a_indices);
    free(o.a_counts);
    free(o.b_indices);
    free(o.a_matches);
    free(o.b_matches);
}

static const struct {
    int nt, vt;
} shapes[] = {{32, 1}, {32, 3}, {64, 7}, {128, 11}};

/* Sizes around the tile edges of each shape, either side empty, and every kind of input. */
START_TEST(model_matches_reference)
{
    int nt = shapes[_i].nt, vt = shapes[_i].vt;
    long long nv = (long long)nt * vt;
    uint64_t rng = 0x5eed + (uint64_t)_i;
    const long long sizes[][2] = {{0, 1},      {1, 0},      {1, 1},          {nv - 1, 1},
                                  {nv, 0},     {0, nv + 1}, {nv / 2, nv / 2}, {3 * nv, 2},
                                  {5, 4 * nv}, {2 * nv + 3, 3 * nv - 2},   {1000, 1700},
                                  {1, 3 * nv}};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; ++z)
        for (int kind = RANDOM; kind <= UNSORTED; ++kind)
            run_case(sizes[z][0], sizes[z][1], kind, nt, vt, &rng);
}
END_TEST

static Suite *search_model_suite(void) {
    Suite *s = suite_create("search_model");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, model_matches_reference, 0, (int)(sizeof shapes / sizeof *shapes));
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(search_model_suite(), 1); }
