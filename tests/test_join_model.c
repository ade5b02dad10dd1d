/* SPDX-License-Identifier: Apache-2.0 */
/* A CPU model of the relational join (templates/shared/relational_join.h and load_balance.h,
 * the arithmetic the kernels of kernel_join.cuh run): the scans' runs of tiles, the three
 * scan kernels' sums, spine and per-run prefixes, the load-balancing search over the rows in
 * parts of its tiles (a first tile per launch) with each tile's owners by marks and a max-scan
 * (support/lbs_marks_model.h), and the unmatched b
 * rows after the a-driven ones, against a sequential merge-join, for every kind, empty sides,
 * no matches, all keys equal, long runs, small capacities and small tiles and parts; and the
 * scan's 64-bit sums past 2^32. CPU only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_marks_model.h"
#include "shared/load_balance.h"
#include "shared/merge_frame.h"
#include "shared/relational_join.h"
#include "test_support.h"

#define NULL_ROW UINT64_MAX

/* The sequential merge-join: the pairs in the documented order; returns their count and
 * writes the first `cap` of them. */
static uint64_t reference(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, int kind,
                          uint64_t *ar, uint64_t *br, uint64_t cap) {
    uint64_t k = 0;
    size_t j = 0;
    unsigned char *matched = calloc(nb + 1, 1);
    ck_assert_ptr_nonnull(matched);
    for (size_t i = 0; i < na; ++i) {
        while (j < nb && b[j] < a[i]) ++j;
        size_t e = j;
        while (e < nb && b[e] == a[i]) {
            matched[e] = 1;
            if (k < cap) ar[k] = i, br[k] = e;
            ++k, ++e;
        }
        if (e == j && (kind & MJ_JOIN_KEEP_A)) {
            if (k < cap) ar[k] = i, br[k] = NULL_ROW;
            ++k;
        }
    }
    for (size_t e = 0; (kind & MJ_JOIN_KEEP_B) && e < nb; ++e)
        if (!matched[e]) {
            if (k < cap) ar[k] = NULL_ROW, br[k] = e;
            ++k;
        }
    free(matched);
    return k;
}

/* A scan as the kernels run it (reduce over runs, spine, each run from its spine entry): the
 * exclusive prefixes into out, the total returned. */
static uint64_t scan_model(const uint64_t *count, long long n, long long nv, uint64_t *out) {
    mj_join_runs runs = mj_join_runs_for(mj_tile_count(n, nv), nv);
    ck_assert_int_ge(runs.blocks, 1);
    ck_assert_int_le(runs.blocks, nv);
    uint64_t *sums = malloc(sizeof *sums * (size_t)runs.blocks);
    ck_assert_ptr_nonnull(sums);
    long long covered = 0;
    for (long long blk = 0; blk < runs.blocks; ++blk) {
        long long f = mj_join_run_first(blk, runs, nv, n);
        long long e = mj_join_run_first(blk + 1, runs, nv, n);
        ck_assert_int_eq(f, covered); /* the runs cover [0, n) in order, once */
        ck_assert(f % nv == 0 || f == n);
        covered = e;
        sums[blk] = 0;
        for (long long i = f; i < e; ++i) sums[blk] += count[i];
    }
    ck_assert_int_eq(covered, n);
    uint64_t total = 0;
    for (long long blk = 0; blk < runs.blocks; ++blk) {
        uint64_t x = sums[blk];
        sums[blk] = total;
        total += x;
    }
    for (long long blk = 0; blk < runs.blocks; ++blk) {
        uint64_t carry = sums[blk];
        long long e = mj_join_run_first(blk + 1, runs, nv, n);
        for (long long t0 = mj_join_run_first(blk, runs, nv, n); t0 < e; t0 += nv)
            for (long long i = t0; i < e && i < t0 + nv; ++i) {
                out[i] = carry;
                carry += count[i];
            }
    }
    free(sums);
    return total;
}

/* cta_load_balance.cuh's mj_lbs_path, as the coarse partition runs it. */
static long long path(const long long *off, long long objects, long long items, long long d) {
    long long lo = d > objects ? d - objects : 0, hi = d < items ? d : items;
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        if (off[d - 1 - mid] <= mid)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

typedef struct shape {
    int nt, vt;
    long long chunk; /* lbs tiles a launch */
} shape;

/* The join as the kernels compute it, from the search's outputs; returns the count and writes
 * rows below cap (each once: written[k] counts). */
static uint64_t model(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, int kind,
                      shape sh, uint64_t cap, uint64_t *ar, uint64_t *br, int *written) {
    long long nv = (long long)sh.nt * sh.vt, A = (long long)na, B = (long long)nb;
    int keep_a = kind & MJ_JOIN_KEEP_A, keep_b = kind & MJ_JOIN_KEEP_B;
    size_t sa = na + 1, sb = nb + 1;
    uint64_t *lower = malloc(8 * sa), *cnt = malloc(8 * sa), *off = malloc(8 * sa);
    uint64_t *unm = malloc(8 * sb), *boff = malloc(8 * sb);
    unsigned char *amatch = calloc(sa, 1), *bmatch = calloc(sb, 1);
    ck_assert(lower && cnt && off && unm && boff && amatch && bmatch);
    /* The search's outputs: lower bound, equivalent count, match bytes. */
    for (size_t i = 0; i < na; ++i) {
        size_t lo = 0, hi = nb;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (b[mid] < a[i]) lo = mid + 1; else hi = mid;
        }
        lower[i] = lo;
        size_t e = lo;
        while (e < nb && b[e] == a[i]) bmatch[e++] = 1;
        cnt[i] = e - lo;
        amatch[i] = e > lo;
    }
    /* The counts as mj_join_count reads them. */
    uint64_t *c = malloc(8 * sa);
    ck_assert_ptr_nonnull(c);
    for (size_t i = 0; i < na; ++i) c[i] = keep_a && cnt[i] == 0 ? 1 : cnt[i];
    uint64_t a_total = scan_model(c, A, nv, off);
    for (size_t j = 0; j < nb; ++j) unm[j] = bmatch[j] ? 0 : 1;
    uint64_t b_total = keep_b ? scan_model(unm, B, nv, boff) : 0;

    /* The host's bound and limit, then the lbs a part of its tiles at a time. */
    uint64_t bound = (uint64_t)na * (keep_a && nb == 0 ? 1 : nb);
    uint64_t limit = cap < bound ? cap : bound;
    ck_assert_uint_le(a_total, bound);
    long long items = mj_join_rows(a_total, limit);
    long long tiles = A && limit ? mj_lbs_tile_count((long long)limit, A, nv) : 0;
    long long *soff = malloc(8 * (size_t)(nv + 1)), *parts = malloc(8 * (size_t)(sh.chunk + 1));
    long long *offs = malloc(8 * sa);
    int *owner = malloc(sizeof(int) * (size_t)nv);
    ck_assert(soff && parts && offs && owner);
    for (size_t i = 0; i < na; ++i) offs[i] = (long long)off[i];
    for (long long first = 0; first < tiles; first += sh.chunk) {
        long long part = tiles - first < sh.chunk ? tiles - first : sh.chunk;
        for (long long t = 0; t <= part; ++t) {
            long long d = (first + t) * nv < items + A ? (first + t) * nv : items + A;
            parts[t] = path(offs, A, items, d);
        }
        for (long long t = 0; t < part; ++t) {
            mj_lbs_range r = mj_lbs_tile_range(first + t, nv, items, A, parts[t], parts[t + 1]);
            ck_assert_int_le(r.base + r.loads, A);
            for (long long i = 0; i < r.loads; ++i) soff[i] = offs[r.base + i];
            int nx = (int)(r.x1 - r.x0), ny = (int)(r.y1 - r.y0), yb = r.y0 > 0;
            mjt_lbs_owners_by_marks(soff, r.x0, nx, ny, yb, (int)nv, owner);
            for (int i = 0; i < nx; ++i) {
                int o = owner[i];
                ck_assert_int_ge(o, 0);
                long long ai = r.base + o, row = r.x0 + i;
                ck_assert_int_lt(row, (long long)cap);
                int matched = !keep_a || amatch[ai];
                ar[row] = (uint64_t)ai;
                br[row] = mj_join_b_row(lower[ai], matched, row - soff[o]);
                ++written[row];
            }
        }
    }
    for (size_t j = 0; keep_b && j < nb; ++j) {
        uint64_t row = a_total + boff[j];
        if (bmatch[j] || row >= cap) continue;
        ar[row] = NULL_ROW;
        br[row] = j;
        ++written[row];
    }
    free(lower), free(cnt), free(off), free(unm), free(boff), free(amatch), free(bmatch);
    free(c), free(soff), free(parts), free(offs), free(owner);
    return a_total + b_total;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

/* n sorted keys drawn from [lo, lo + range). */
static uint32_t *sorted_keys(size_t n, uint32_t lo, uint32_t range) {
    uint32_t *k = malloc(sizeof *k * (n + 1));
    ck_assert_ptr_nonnull(k);
    for (size_t i = 0; i < n; ++i) k[i] = lo + (uint32_t)(mjt_rand(&rng) % range);
    for (size_t i = 1; i < n; ++i) /* insertion sort: the inputs are small */
        for (size_t j = i; j > 0 && k[j - 1] > k[j]; --j) {
            uint32_t t = k[j];
            k[j] = k[j - 1];
            k[j - 1] = t;
        }
    return k;
}

static void check(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, shape sh,
                  const char *what) {
    for (int kind = 0; kind < 4; ++kind) {
        uint64_t full = reference(a, na, b, nb, kind, NULL, NULL, 0);
        /* Room for all, for most, for one, for none. */
        uint64_t caps[] = {full, full > 3 ? full - 3 : 0, full ? 1 : 0, 0};
        for (int ci = 0; ci < 4; ++ci) {
            uint64_t cap = caps[ci];
            size_t room = (size_t)(full ? full : 1);
            uint64_t *ra = malloc(8 * room), *rb = malloc(8 * room);
            uint64_t *ma = malloc(8 * room), *mb = malloc(8 * room);
            int *written = calloc(room, sizeof(int));
            ck_assert(ra && rb && ma && mb && written);
            reference(a, na, b, nb, kind, ra, rb, cap);
            uint64_t got = model(a, na, b, nb, kind, sh, cap, ma, mb, written);
            ck_assert_msg(got == full, "%s, kind %d: count %llu, not %llu", what, kind,
                          (unsigned long long)got, (unsigned long long)full);
            for (uint64_t k = 0; k < cap; ++k) {
                ck_assert_msg(written[k] == 1, "%s, kind %d, room %llu: row %llu written %d "
                              "times", what, kind, (unsigned long long)cap,
                              (unsigned long long)k, written[k]);
                ck_assert_msg(ma[k] == ra[k] && mb[k] == rb[k],
                              "%s, kind %d: row %llu is (%llu, %llu), not (%llu, %llu)", what,
                              kind, (unsigned long long)k, (unsigned long long)ma[k],
                              (unsigned long long)mb[k], (unsigned long long)ra[k],
                              (unsigned long long)rb[k]);
            }
            free(ra), free(rb), free(ma), free(mb), free(written);
        }
    }
}

static const shape shapes[] = {{32, 3, 2}, {32, 1, 1}, {64, 5, 3}, {128, 11, 65536}};
#define SHAPES (int)(sizeof shapes / sizeof *shapes)

START_TEST(random_keys)
{
    shape sh = shapes[_i];
    static const struct {
        size_t na, nb;
        uint32_t range;
    } cases[] = {{0, 0, 10},    {0, 50, 10},    {50, 0, 10},    {1, 1, 1},
                 {300, 280, 60}, {700, 900, 40}, {1000, 1000, 4000}, {513, 17, 5}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        uint32_t *a = sorted_keys(cases[c].na, 0, cases[c].range);
        uint32_t *b = sorted_keys(cases[c].nb, 0, cases[c].range);
        check(a, cases[c].na, b, cases[c].nb, sh, "random keys");
        free(a);
        free(b);
    }
}
END_TEST

START_TEST(special_keys)
{
    shape sh = shapes[_i];
    /* No matches: a's keys even, b's odd. */
    uint32_t *a = malloc(4 * 400), *b = malloc(4 * 400);
    ck_assert(a && b);
    for (int i = 0; i < 400; ++i) a[i] = 2 * (uint32_t)i, b[i] = 2 * (uint32_t)i + 1;
    check(a, 400, b, 300, sh, "no matches");
    /* All equal: the full product. */
    for (int i = 0; i < 400; ++i) a[i] = b[i] = 7;
    check(a, 150, b, 90, sh, "all equal");
    /* A long run on one side only, then on the other. */
    for (int i = 0; i < 400; ++i) a[i] = 5, b[i] = (uint32_t)i;
    check(a, 400, b, 400, sh, "a long run in a");
    check(b, 400, a, 400, sh, "a long run in b");
    free(a);
    free(b);
}
END_TEST

/* The scan's sums are 64-bit: counts of 2^33 each pass 2^32 within a tile and across runs. */
START_TEST(wide_counts)
{
    long long n = 5000, nv = 32 * 3;
    uint64_t *count = malloc(8 * (size_t)n), *out = malloc(8 * (size_t)n);
    ck_assert(count && out);
    for (long long i = 0; i < n; ++i) count[i] = (1ull << 33) + (uint64_t)(i % 3);
    uint64_t total = scan_model(count, n, nv, out), want = 0;
    for (long long i = 0; i < n; ++i) {
        ck_assert_uint_eq(out[i], want);
        want += count[i];
    }
    ck_assert_uint_eq(total, want);
    ck_assert_uint_gt(total, 1ull << 44);
    /* More tiles than a tile's worth of blocks: runs of several tiles. */
    mj_join_runs r = mj_join_runs_for(100000, 96);
    ck_assert_int_le(r.blocks, 96);
    ck_assert_int_ge(r.per_block * r.blocks, 100000);
    ck_assert_int_eq(mj_join_runs_for(0, 96).blocks, 1);
    ck_assert_int_eq(mj_join_rows(1ull << 40, 5), 5);
    ck_assert_int_eq(mj_join_rows(3, 1ull << 40), 3);
    ck_assert_uint_eq(mj_join_b_row(10, 0, 0), NULL_ROW);
    ck_assert_uint_eq(mj_join_b_row(10, 1, 4), 14);
    free(count);
    free(out);
}
END_TEST

static Suite *join_model_suite(void) {
    Suite *s = suite_create("join_model");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, random_keys, 0, SHAPES);
    tcase_add_loop_test(tc, special_keys, 0, SHAPES);
    tcase_add_test(tc, wide_counts);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(join_model_suite(), 1); }
