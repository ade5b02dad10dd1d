/* SPDX-License-Identifier: Apache-2.0 */
/* The merge passes' arithmetic (templates/shared/merge_frame.h) against a CPU model. The model
 * runs a GPU schedule on the CPU with the very same functions the kernels use: a stable sort of
 * every tile (mj_blocksort), then for each pass the partitions and the merges. Mergesort's
 * 4-way passes (mj_partition4 or mj_partition4_one: the 4-way split of
 * templates/shared/corank.h at the tile's diagonal in its frame; mj_merge4: the lists' ranges
 * between the tile's split and the next, or the lists' ends at its frame's end, merged stably
 * into outputs tile * nv ...), chosen by mj_sort_ways from the input's bytes; and the 2-way
 * passes of mergesort and of the segmented and locality sorts' queues (mj_partition: the merge
 * path split at min(diag, a_count + b_count) of the frame's A and B; mj_merge: each tile's
 * ranges from partitions[tile] and partitions[tile + 1], or a_count at its frame's end; fused,
 * the same two splits searched by the tile itself at mj_tile_split_diag). The result must equal
 * a stable reference sort, every tile's ranges must be in bounds and partition their frame's
 * lists exactly, and the last pass must land in the keys' own buffer as the blocksort's choice
 * of buffer predicts. CPU only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/merge_frame.h"
#include "test_support.h"

/* Check records every passing ck_assert (a system call each); the model checks millions of
 * facts, so it calls into Check only when one fails. */
#define REQUIRE(cond, ...)                                                                   \
    do {                                                                                     \
        if (!(cond)) ck_abort_msg(__VA_ARGS__);                                             \
    } while (0)
#define REQUIRE1(cond) REQUIRE(cond, "n %lld nv %lld: failed: %s", n, nv, #cond)

/* A key and its position in the input: keys are small so that equal keys are common, and
 * the position tells whether equal keys kept their order. */
typedef struct item {
    int key;
    long long index;
} item;

/* The comparator the kernels see: keys only. */
static int less(const item *a, const item *b) { return a->key < b->key; }

/* The same for the 4-way split's search. */
typedef item mj_key;
static int mj_less(mj_key a, mj_key b) { return less(&a, &b); }
#include "shared/corank.h"

/* The reference: keys, then input position. */
static int cmp_stable(const void *pa, const void *pb) {
    const item *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* mj_merge_path (templates/thread/merge_path.cuh) over the CPU items: ties go to a. */
static long long merge_path(const item *a, long long a_count, const item *b, long long b_count,
                            long long diag) {
    long long lo = diag > b_count ? diag - b_count : 0;
    long long hi = diag < a_count ? diag : a_count;
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        if (less(&b[diag - 1 - mid], &a[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* A stable merge of a[0..na) and b[0..nb) into out, taking a on ties. */
static void merge(const item *a, long long na, const item *b, long long nb, item *out) {
    long long i = 0, j = 0, k = 0;
    while (i < na || j < nb) {
        if (j >= nb || (i < na && !less(&b[j], &a[i])))
            out[k++] = a[i++];
        else
            out[k++] = b[j++];
    }
}

/* A stable merge of the tile's parts of four lists into out, the lowest list first on ties. */
static void merge4(const item *in, mj_range4 r, item *out) {
    long long at[4];
    for (int l = 0; l < 4; ++l) at[l] = r.begin[l];
    for (long long k = 0;; ++k) {
        int take = -1;
        for (int l = 0; l < 4; ++l)
            if (at[l] < r.end[l] && (take < 0 || less(&in[at[l]], &in[at[take]]))) take = l;
        if (take < 0) return;
        out[k] = in[at[take]++];
    }
}

/* A stable sort that sees keys only (insertion sort for short runs, else a merge sort), like
 * the CTA blocksort. */
static void stable_sort(item *x, long long n, item *tmp) {
    if (n <= 16) {
        for (long long i = 1; i < n; ++i) {
            item v = x[i];
            long long j = i;
            while (j > 0 && less(&v, &x[j - 1])) {
                x[j] = x[j - 1];
                --j;
            }
            x[j] = v;
        }
        return;
    }
    long long h = n / 2;
    stable_sort(x, h, tmp);
    stable_sort(x + h, n - h, tmp);
    merge(x, h, x + h, n - h, tmp);
    memcpy(x, tmp, (size_t)n * sizeof *x);
}

/* One 2-way pass (mergesort's and the queued passes') from in to out, with the checks of every
 * tile's ranges. */
static void pass2(const item *in, item *out, long long *partitions, long long n, long long nv,
                  long long tiles, long long coop, int p) {
    /* mj_partition */
    for (long long t = 0; t < tiles; ++t) {
        mj_frame f = mj_sort_frame(t, coop, nv, n);
        long long total = f.a_count + f.b_count;
        long long diag = mj_tile_split_diag(f, t, coop, nv, 0);
        REQUIRE1(diag == (mj_tile_diag(t, coop, nv) < total ? mj_tile_diag(t, coop, nv) : total));
        partitions[t] = merge_path(in + f.a0, f.a_count, in + f.b0, f.b_count, diag);
    }
    /* mj_merge */
    long long a_next = -1, b_next = -1; /* where the frame's next tile must start */
    for (long long t = 0; t < tiles; ++t) {
        mj_frame f = mj_sort_frame(t, coop, nv, n);
        long long first = t & ~(coop - 1);
        REQUIRE1(f.a0 == first * nv);
        REQUIRE1(f.b0 == f.a0 + nv * (coop / 2));
        REQUIRE1(f.a_count >= 0 && f.b_count >= 0);
        REQUIRE1(f.a0 + f.a_count <= n);
        REQUIRE1(f.b_count == 0 || f.b0 + f.b_count <= n);
        REQUIRE1(f.b_count == 0 || f.a_count == nv * (coop / 2));

        int ends = mj_tile_ends_frame(t, coop, tiles);
        REQUIRE1(ends == ((t + 1) % coop == 0 || t + 1 == tiles));
        long long p_end = ends ? f.a_count : partitions[t + 1];
        /* The fused pass (mj_merge, fused) searches both splits itself: the same ones. */
        for (int end = 0; end < 2; ++end) {
            long long d = mj_tile_split_diag(f, t, coop, nv, end);
            long long split = merge_path(in + f.a0, f.a_count, in + f.b0, f.b_count, d);
            REQUIRE(split == (end ? p_end : partitions[t]),
                    "n %lld nv %lld pass %d tile %lld: fused split %d is %lld, not %lld", n, nv,
                    p, t, end, split, end ? p_end : partitions[t]);
        }
        mj_range r = mj_sort_range(f, t, coop, nv, partitions[t], p_end);

        long long a_len = r.a_end - r.a_begin, b_len = r.b_end - r.b_begin;
        long long total = a_len + b_len;
        REQUIRE(a_len >= 0 && b_len >= 0,
                      "n %lld nv %lld pass %d tile %lld: negative range", n, nv, p, t);
        REQUIRE(total == mj_clamp_count(nv, t * nv, n),
                      "n %lld nv %lld pass %d tile %lld: %lld outputs, not %lld", n, nv, p,
                      t, total, mj_clamp_count(nv, t * nv, n));
        /* Inside [0, n) and inside the frame's lists. */
        REQUIRE1(r.a_begin >= f.a0 && r.a_end <= f.a0 + f.a_count);
        REQUIRE1(r.b_begin >= f.b0 && r.b_end <= f.b0 + f.b_count);
        REQUIRE1(r.a_begin >= 0 && (a_len == 0 || r.a_end <= n));
        REQUIRE1(r.b_begin >= 0 && (b_len == 0 || r.b_end <= n));
        /* Contiguous with the frame's previous tile, from the frame's start. */
        if (t == first) {
            a_next = f.a0;
            b_next = f.b0;
        }
        REQUIRE(r.a_begin == a_next && r.b_begin == b_next,
                      "n %lld nv %lld pass %d tile %lld: ranges do not follow on", n, nv, p,
                      t);
        a_next = r.a_end;
        b_next = r.b_end;
        /* The frame's last tile ends both lists. */
        if (ends) {
            REQUIRE(r.a_end == f.a0 + f.a_count && r.b_end == f.b0 + f.b_count,
                          "n %lld nv %lld pass %d tile %lld: the frame's lists are not "
                          "covered", n, nv, p, t);
        }
        merge(in + r.a_begin, a_len, in + r.b_begin, b_len, out + t * nv);
    }
}

/* One 4-way mergesort pass from in to out, with the checks of every tile's ranges; partitions
 * holds 4 entries a tile. */
static void pass4(const item *in, item *out, long long *partitions, long long n, long long nv,
                  long long tiles, long long coop, int p) {
    /* mj_partition4 or mj_partition4_one */
    for (long long t = 0; t < tiles; ++t) {
        mj_frame4 f = mj_sort_frame4(t, coop, nv, n);
        long long diag = mj_tile_diag(t, coop, nv), total = mj_frame4_total(f);
        const item *list[4];
        for (int l = 0; l < 4; ++l) list[l] = in + (f.count[l] ? f.begin[l] : 0); /* in bounds */
        mj_corank4(list, f.count, diag < total ? diag : total, partitions + 4 * t);
    }
    /* mj_merge4 */
    long long next[4] = {0, 0, 0, 0}, len = nv * (coop / 4);
    for (long long t = 0; t < tiles; ++t) {
        mj_frame4 f = mj_sort_frame4(t, coop, nv, n);
        long long first = t & ~(coop - 1);
        for (int l = 0; l < 4; ++l) {
            REQUIRE1(f.begin[l] == first * nv + l * len);
            REQUIRE1(f.count[l] >= 0 && f.count[l] <= len);
            REQUIRE1(f.count[l] == 0 || f.begin[l] + f.count[l] <= n);
            /* Only the input's last list is short, and the ones after it empty. */
            REQUIRE1(l == 0 || f.count[l] == 0 || f.count[l - 1] == len);
        }
        int ends = mj_tile_ends_frame(t, coop, tiles);
        mj_range4 r = mj_sort_range4(f, t, nv, n, partitions + 4 * t,
                                     ends ? f.count : partitions + 4 * (t + 1));
        long long total = 0;
        if (t == first)
            for (int l = 0; l < 4; ++l) next[l] = f.begin[l];
        for (int l = 0; l < 4; ++l) {
            /* Unclamped: the splits themselves are in order and inside the lists. */
            long long p1 = ends ? f.count[l] : partitions[4 * (t + 1) + l];
            REQUIRE(partitions[4 * t + l] >= 0 && partitions[4 * t + l] <= p1 &&
                        p1 <= f.count[l],
                    "n %lld nv %lld pass %d tile %lld list %d: splits %lld, %lld of %lld", n,
                    nv, p, t, l, partitions[4 * t + l], p1, f.count[l]);
            REQUIRE1(r.begin[l] == f.begin[l] + partitions[4 * t + l]);
            REQUIRE1(r.end[l] == f.begin[l] + p1);
            REQUIRE(r.begin[l] == next[l],
                    "n %lld nv %lld pass %d tile %lld: list %d does not follow on", n, nv, p, t,
                    l);
            next[l] = r.end[l];
            total += r.end[l] - r.begin[l];
            if (ends) REQUIRE1(r.end[l] == f.begin[l] + f.count[l]);
        }
        REQUIRE(total == mj_clamp_count(nv, t * nv, n),
                "n %lld nv %lld pass %d tile %lld: %lld outputs, not %lld", n, nv, p, t, total,
                mj_clamp_count(nv, t * nv, n));
        merge4(in, r, out + t * nv);
    }
}

/* The CPU model of one sort: sorts data[0..n) with merge tiles of nv, blocksort tiles of
 * nv * runs and the passes mergesort runs for elements of `bytes` (key and value) with
 * MERGEJIT_MERGE_WAYS at `setting` (0: unset, 2 or 4; the queued passes are 2's), checking
 * every pass. Returns the ways it chose. */
static int model_sort(item *data, long long n, long long nv, long long runs, int setting,
                       long long bytes) {
    long long tiles = mj_tile_count(n, nv);
    REQUIRE1(tiles == n / nv + (n % nv != 0));
    long long bs_nv = nv * runs, bs_tiles = mj_tile_count(n, bs_nv);
    int levels = mj_sort_passes(n, nv, runs);
    REQUIRE1(bs_tiles <= (1ll << levels));
    REQUIRE1(levels == 0 || bs_tiles > (1ll << (levels - 1)));
    int ways = mj_sort_ways(n, bytes, setting, 0);
    REQUIRE1(ways == (setting ? setting : n * bytes >= MJ_MERGE4_MIN_BYTES ? 4 : 2));
    int passes = mj_merge_passes(levels, ways);

    item *buf = malloc((size_t)(n + 1) * sizeof *buf);
    item *tmp = malloc((size_t)(n + 1) * sizeof *tmp);
    long long *partitions = malloc((size_t)(4 * tiles + 4) * sizeof *partitions);
    REQUIRE1(buf && tmp && partitions);

    /* mj_blocksort: block t sorts [t * bs_nv, min(n, t * bs_nv + bs_nv)) into the buffer that
     * makes the last pass land in data. */
    item *bufs[2] = {data, buf};
    int cur = passes & 1;
    memcpy(bufs[cur], data, (size_t)n * sizeof *data);
    for (long long t = 0; t < bs_tiles; ++t) {
        long long begin = t * bs_nv;
        long long count = mj_clamp_count(bs_nv, begin, n);
        REQUIRE1(count == (n - begin < bs_nv ? n - begin : bs_nv));
        REQUIRE1(count > 0);
        stable_sort(bufs[cur] + begin, count, tmp);
    }

    int doublings = 0;
    for (int p = 0; p < passes; ++p) {
        long long coop = mj_pass_frame(p, levels, ways, runs);
        int w = mj_pass_ways(p, levels, ways);
        doublings += w == 4 ? 2 : 1;
        REQUIRE1(coop == runs << doublings);
        if (ways == 2) REQUIRE1(coop == mj_pass_coop(p, runs));
        if (w == 4)
            pass4(bufs[cur], bufs[cur ^ 1], partitions, n, nv, tiles, coop, p);
        else
            pass2(bufs[cur], bufs[cur ^ 1], partitions, n, nv, tiles, coop, p);
        cur ^= 1;
    }
    REQUIRE1(doublings == levels);
    REQUIRE(cur == 0, "n %lld nv %lld runs %lld ways %d: the last pass did not land in the keys",
            n, nv, runs, ways);
    free(buf);
    free(tmp);
    free(partitions);
    return ways;
}

enum { DIST_FEW, DIST_SOME, DIST_SORTED, DIST_REVERSED, DIST_EQUAL, DIST_COUNT };

static void fill(item *x, long long n, int dist, uint64_t *seed) {
    for (long long i = 0; i < n; ++i) {
        int k;
        switch (dist) {
        case DIST_FEW: k = (int)(mjt_rand(seed) % 4); break;
        case DIST_SOME: k = (int)(mjt_rand(seed) % 37) - 18; break;
        case DIST_SORTED: k = (int)(i / 5); break;
        case DIST_REVERSED: k = (int)((n - i) / 3); break;
        default: k = 7; break;
        }
        x[i].key = k;
        x[i].index = i;
    }
}

/* Sorts n keys of dist with the model (MERGEJIT_MERGE_WAYS at `setting`, elements of `bytes`)
 * and compares with the stable reference. */
static void check_sort(long long n, long long nv, long long runs, int setting, long long bytes,
                       int dist, uint64_t seed) {
    /* zeroed: some gcc warn that x may be read uninitialized when n is 0 */
    item *x = calloc((size_t)n + 1, sizeof *x);
    item *ref = malloc((size_t)(n + 1) * sizeof *ref);
    REQUIRE1(x && ref);
    fill(x, n, dist, &seed);
    memcpy(ref, x, (size_t)n * sizeof *x);
    qsort(ref, (size_t)n, sizeof *ref, cmp_stable);
    int ways = model_sort(x, n, nv, runs, setting, bytes);
    for (long long i = 0; i < n; ++i)
        REQUIRE(x[i].key == ref[i].key && x[i].index == ref[i].index,
                "n %lld nv %lld runs %lld ways %d dist %d: position %lld holds key %d from "
                "%lld, expected key %d from %lld",
                n, nv, runs, ways, dist, i, x[i].key, x[i].index, ref[i].key, ref[i].index);
    free(x);
    free(ref);
}

/* The schedules modelled: every pass 2-way (MERGEJIT_MERGE_WAYS=2, as the queued passes), 4-way
 * wherever two doublings are left (=4), and the choice by size, with elements so large that it
 * turns to 4-way passes at `edge` elements: 512 for the small sizes, 2^17 for the large. */
typedef struct mode {
    int setting;
    long long bytes;
} mode;
#define MODES(edge) {{2, 4}, {4, 4}, {0, MJ_MERGE4_MIN_BYTES / (edge)}}

static const long long small_nv[] = {1, 2, 3, 7, 32, 96};

/* Blocksort runs of 1, 2 and 4 merge tiles; every schedule (MODES): 2-way passes, 4-way ones (a
 * first pass of 2 where the doublings are odd), and 2-way below 512 elements, 4-way from it. */
START_TEST(every_small_n)
{
    static const mode modes[] = MODES(512);
    long long nv = small_nv[_i];
    for (size_t m = 0; m < sizeof modes / sizeof *modes; ++m)
        for (long long runs = 1; runs <= 4; runs *= 2) {
            int ways = modes[m].setting;
            long long bytes = modes[m].bytes;
            for (long long n = 0; n <= 600; ++n)
                check_sort(n, nv, runs, ways, bytes, (int)(n % DIST_COUNT),
                           1000003ull * (uint64_t)n + (uint64_t)nv);
            /* Every distribution at a few sizes around powers of two of tiles and runs: each
             * count of doublings from 1 to 7 at its edges (frames of 2 and 4 lists). */
            for (int d = 0; d < DIST_COUNT; ++d) {
                check_sort(nv * 8, nv, runs, ways, bytes, d, 5);
                check_sort(nv * 8 + 1, nv, runs, ways, bytes, d, 6);
                check_sort(nv * 9 - 1, nv, runs, ways, bytes, d, 7);
                check_sort(nv * runs * 8 + 1, nv, runs, ways, bytes, d, 8);
                for (int k = 0; k < 7 && (nv * runs << k) <= 6000; ++k) {
                    long long edge = nv * runs << k;
                    check_sort(edge, nv, runs, ways, bytes, d, 9 + (uint64_t)k);
                    check_sort(edge + 1, nv, runs, ways, bytes, d, 19 + (uint64_t)k);
                    check_sort(edge + nv, nv, runs, ways, bytes, d, 29 + (uint64_t)k);
                    check_sort(2 * edge - 1, nv, runs, ways, bytes, d, 39 + (uint64_t)k);
                }
            }
        }
}
END_TEST

/* Tiles of 3840; the size rule turns at 2^17 elements, between 123457 and 3840 * 64 + 1. */
START_TEST(large_n)
{
    static const mode modes[] = MODES(1ll << 17);
    static const long long ns[] = {100000, 3840 * 16, 3840 * 16 + 1, 3840 * 17 - 1, 123457,
                                   3840 * 64 + 1, 1ll << 17, (1ll << 17) - 1};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; ++i)
        for (int d = 0; d < DIST_COUNT; ++d)
            for (size_t m = 0; m < sizeof modes / sizeof *modes; ++m) {
                check_sort(ns[i], 3840, 1, modes[m].setting, modes[m].bytes, d, 42 + i);
                check_sort(ns[i], 3840, 2, modes[m].setting, modes[m].bytes, d, 43 + i);
            }
}
END_TEST

/* The choice of 2- or 4-way passes: by the input's bytes from MJ_MERGE4_MIN_BYTES (2^25) on
 * (u32 keys at 2^22 stay 2-way; u32 keys at 2^23, u64 keys and u32 pairs at 2^22 go 4-way, as
 * the H100 figures in merge_frame.h say), or from 2^min_log2 (a description's or a tuning
 * file's merge4_log2), unless MERGEJIT_MERGE_WAYS sets it. */
START_TEST(ways_rule)
{
    ck_assert_int_eq(MJ_MERGE4_MIN_BYTES, 1ll << 25);
    ck_assert_int_eq(mj_sort_ways(1ll << 22, 4, 0, 0), 2);
    ck_assert_int_eq(mj_sort_ways((1ll << 23) - 1, 4, 0, 0), 2);
    ck_assert_int_eq(mj_sort_ways(1ll << 23, 4, 0, 0), 4);
    ck_assert_int_eq(mj_sort_ways(1ll << 22, 8, 0, 0), 4);
    ck_assert_int_eq(mj_sort_ways((1ll << 22) - 1, 8, 0, 0), 2);
    ck_assert_int_eq(mj_sort_ways(1ll << 20, 16, 0, 0), 2);
    ck_assert_int_eq(mj_sort_ways(1ll << 21, 16, 0, 0), 4); /* f64 keys with 8-byte values */
    ck_assert_int_eq(mj_sort_ways(1ll << 27, 4, 0, 0), 4);
    /* A size that does not divide 2^25: the first n at or past it. */
    ck_assert_int_eq(mj_sort_ways(MJ_MERGE4_MIN_BYTES / 12, 12, 0, 0), 2);
    ck_assert_int_eq(mj_sort_ways(MJ_MERGE4_MIN_BYTES / 12 + 1, 12, 0, 0), 4);
    ck_assert_int_eq(mj_sort_ways(0, 4, 0, 0), 2);
    ck_assert_int_eq(mj_sort_ways(1, 1ll << 25, 0, 0), 4);
    /* The setting wins both ways. */
    ck_assert_int_eq(mj_sort_ways(1ll << 30, 16, 2, 0), 2);
    ck_assert_int_eq(mj_sort_ways(1, 1, 4, 0), 4);
    ck_assert_int_eq(mj_sort_ways(0, 4, 4, 0), 4);
    /* A threshold of its own: 2^22 bytes, the least (1), one above any input (62). */
    ck_assert_int_eq(mj_sort_ways(1ll << 20, 4, 0, 22), 4);
    ck_assert_int_eq(mj_sort_ways((1ll << 20) - 1, 4, 0, 22), 2);
    ck_assert_int_eq(mj_sort_ways(1ll << 23, 4, 0, 26), 2);
    ck_assert_int_eq(mj_sort_ways(1, 4, 0, 1), 4);
    ck_assert_int_eq(mj_sort_ways(0, 4, 0, 1), 2);
    ck_assert_int_eq(mj_sort_ways(1ll << 33, 16, 0, 62), 2);
    ck_assert_int_eq(mj_sort_ways(1ll << 25, 4, 2, 1), 2);
    ck_assert_int_eq(mj_sort_ways(1, 4, 4, 62), 4);
}
END_TEST

/* Lanes a 4-way split, as measured on an H100: a warp searching together up to 4608 splits
 * (2^24 u32 keys' 2850, u64 keys' 4369), half a warp up to 6144 (2^25 u32 keys' 5700, 2^24
 * u32 pairs' 5958); above, a power of two up to 4, the most that keep splits x lanes within
 * 32768 threads (one lane from 16385 splits on: 2^27's 22800), and never a group's 16 or 32,
 * which mj_split4_grouped would take for a group. */
START_TEST(split4_lanes_rule)
{
    ck_assert_int_eq(MJ_SPLIT4_WARP, 32);
    ck_assert_int_eq(MJ_SPLIT4_HALF, 16);
    ck_assert_int_eq(mj_split4_lanes(1), MJ_SPLIT4_WARP);
    ck_assert_int_eq(mj_split4_lanes(2850), MJ_SPLIT4_WARP);
    ck_assert_int_eq(mj_split4_lanes(4369), MJ_SPLIT4_WARP);
    ck_assert_int_eq(mj_split4_lanes(MJ_SPLIT4_WARP_MOST), MJ_SPLIT4_WARP);
    ck_assert_int_eq(mj_split4_lanes(MJ_SPLIT4_WARP_MOST + 1), MJ_SPLIT4_HALF);
    ck_assert_int_eq(mj_split4_lanes(5700), MJ_SPLIT4_HALF);
    ck_assert_int_eq(mj_split4_lanes(MJ_SPLIT4_GROUP_MOST), MJ_SPLIT4_HALF);
    ck_assert_int_eq(mj_split4_lanes(MJ_SPLIT4_GROUP_MOST + 1), 4);
    ck_assert_int_eq(mj_split4_lanes(22800), 1);
    for (long long splits = MJ_SPLIT4_GROUP_MOST + 1; splits <= 1ll << 20;
         splits += 1 + splits / 7) {
        int lanes = mj_split4_lanes(splits);
        ck_assert_int_eq(lanes & (lanes - 1), 0);
        ck_assert(lanes >= 1 && lanes < MJ_SPLIT4_HALF);
        ck_assert(lanes == 1 || splits * lanes <= 32768);
        ck_assert(splits * lanes * 2 > 32768);
    }
}
END_TEST

/* Which 4-way partition kernel a pass launches: the group one (mj_partition4, 32-bit
 * positions only) for a group's lanes below 2^31 elements, else the one-lane one; every sort
 * that mj_split4_lanes gives a group (at most MJ_SPLIT4_GROUP_MOST tiles of at most 1024 x 63)
 * is below 2^31 elements, so the bound only guards. */
START_TEST(split4_grouped_rule)
{
    static const long long below = (1ll << 31) - 1, at = 1ll << 31;
    ck_assert(mj_split4_narrow(below) && !mj_split4_narrow(at));
    ck_assert(mj_split4_grouped(MJ_SPLIT4_WARP, 0));
    ck_assert(mj_split4_grouped(MJ_SPLIT4_WARP, below));
    ck_assert(mj_split4_grouped(MJ_SPLIT4_HALF, below));
    ck_assert(!mj_split4_grouped(MJ_SPLIT4_WARP, at));
    ck_assert(!mj_split4_grouped(MJ_SPLIT4_HALF, at));
    for (int lanes = 1; lanes < MJ_SPLIT4_HALF; lanes *= 2)
        ck_assert(!mj_split4_grouped(lanes, 1000));
    long long most = (long long)MJ_SPLIT4_GROUP_MOST * 1024 * 63;
    ck_assert(mj_split4_grouped(mj_split4_lanes(MJ_SPLIT4_GROUP_MOST), most));
    ck_assert(!mj_split4_grouped(mj_split4_lanes(MJ_SPLIT4_GROUP_MOST + 1), most));
}
END_TEST

/* The 4-way schedule from 1 to 2^33 elements: half the passes (rounded up), the 2-way pass
 * first when the doublings are odd, and frames that grow to cover every tile. */
START_TEST(four_way_schedule)
{
    static const long long nvs[] = {1, 3840, 5888, 256 * 23 * 2};
    for (size_t i = 0; i < sizeof nvs / sizeof *nvs; ++i)
        for (long long runs = 1; runs <= 4; runs *= 2)
            for (int k = 0; k <= 33; ++k)
                for (long long delta = -1; delta <= 1; ++delta) {
                    long long n = (1ll << k) + delta, nv = nvs[i];
                    if (n < 0) continue;
                    long long tiles = mj_tile_count(n, nv);
                    int levels = mj_sort_passes(n, nv, runs);
                    int passes = mj_merge_passes(levels, 4);
                    ck_assert_int_eq(passes, (levels + 1) / 2);
                    ck_assert_int_eq(mj_merge_passes(levels, 2), levels);
                    int doublings = 0, twos = 0;
                    for (int p = 0; p < passes; ++p) {
                        int w = mj_pass_ways(p, levels, 4);
                        ck_assert(w == 2 || w == 4);
                        ck_assert(w == 4 || (p == 0 && levels % 2 == 1));
                        twos += w == 2;
                        doublings += w == 4 ? 2 : 1;
                        long long coop = mj_pass_frame(p, levels, 4, runs);
                        ck_assert_int_eq(coop, runs << doublings);
                        /* A frame covers 2 or 4 of the lists of the pass before. */
                        long long before = p ? mj_pass_frame(p - 1, levels, 4, runs) : runs;
                        ck_assert_int_eq(coop, before * w);
                        ck_assert_int_eq(mj_pass_frame(p, levels, 2, runs),
                                         mj_pass_coop(p, runs));
                    }
                    ck_assert_int_eq(doublings, levels);
                    ck_assert_int_eq(twos, levels % 2);
                    /* The last frame covers every tile; its lists (the frames of the pass
                     * before) do not. The model (every_small_n) checks that the last pass lands
                     * in the keys' buffer. */
                    if (passes) {
                        long long last = mj_pass_frame(passes - 1, levels, 4, runs);
                        ck_assert(last >= tiles);
                        ck_assert(last / mj_pass_ways(passes - 1, levels, 4) < tiles);
                    } else {
                        ck_assert(mj_tile_count(n, nv * runs) <= 1);
                    }
                }
}
END_TEST

START_TEST(pass_and_tile_counts)
{
    ck_assert_int_eq(mj_pass_count(0), 0);
    ck_assert_int_eq(mj_pass_count(1), 0);
    ck_assert_int_eq(mj_pass_count(2), 1);
    ck_assert_int_eq(mj_pass_count(3), 2);
    ck_assert_int_eq(mj_pass_count(4), 2);
    ck_assert_int_eq(mj_pass_count(5), 3);
    ck_assert_int_eq(mj_pass_count(8), 3);
    ck_assert_int_eq(mj_pass_count(9), 4);
    ck_assert_int_eq(mj_pass_count(1ll << 31), 31);
    ck_assert_int_eq(mj_pass_count((1ll << 31) + 1), 32);
    ck_assert_int_eq(mj_pass_count((1ll << 40) - 1), 40);

    ck_assert_int_eq(mj_tile_count(0, 3840), 0);
    ck_assert_int_eq(mj_tile_count(1, 3840), 1);
    ck_assert_int_eq(mj_tile_count(3840, 3840), 1);
    ck_assert_int_eq(mj_tile_count(3841, 3840), 2);
    ck_assert_int_eq(mj_tile_count(7, 1), 7);

    /* More than 2^31 elements. */
    long long n = (1ll << 31) + 1000, nv = 3840;
    long long tiles = mj_tile_count(n, nv);
    ck_assert_int_eq(tiles, 559241); /* ceil(2147484648 / 3840) */
    ck_assert(tiles * nv >= n && (tiles - 1) * nv < n);
    int passes = mj_pass_count(tiles);
    ck_assert_int_eq(passes, 20); /* 2^19 = 524288 < 559241 <= 2^20 */

    /* The last tile holds the remainder; the last pass's frame covers everything. */
    long long last = tiles - 1;
    ck_assert_int_eq(mj_clamp_count(nv, last * nv, n), n - last * nv);
    ck_assert_int_eq(n - last * nv, 3048); /* 2147484648 - 559240 * 3840 */
    long long coop = 1ll << passes;
    mj_frame f = mj_sort_frame(last, coop, nv, n);
    ck_assert_int_eq(f.a0, 0);
    ck_assert_int_eq(f.a_count, nv * (coop / 2));
    ck_assert_int_eq(f.b0, nv * (coop / 2));
    ck_assert_int_eq(f.a_count + f.b_count, n);
    ck_assert(mj_tile_ends_frame(last, coop, tiles));
    ck_assert_int_eq(mj_tile_diag(last, coop, nv), last * nv);
    /* Its range given the extreme splits stays within the lists and has its count. */
    mj_range r = mj_sort_range(f, last, coop, nv, f.a_count, f.a_count);
    ck_assert_int_eq(r.a_begin, f.a0 + f.a_count);
    ck_assert_int_eq(r.b_end, n);
    ck_assert_int_eq((r.a_end - r.a_begin) + (r.b_end - r.b_begin), n - last * nv);
    /* A pass before the last: the final frame may be shorter than coop tiles. */
    coop = 1ll << (passes - 1);
    f = mj_sort_frame(last, coop, nv, n);
    ck_assert_int_eq(f.a0, coop * nv);
    ck_assert_int_eq(f.a0 + f.a_count + f.b_count, n);
    ck_assert(f.b_count < nv * (coop / 2));
}
END_TEST

/* The merge primitive's partitions (kernel_merge_partition.cuh): every split narrowed by two
 * others up to `stride` tiles away (mj_narrow_split) keeps its true value in range, and the
 * range is no wider than the distance to the nearer of the two in outputs. */
/* The output diagonal where tile t starts, clamped to n as the kernel clamps it. */
static long long tile_diag(long long t, long long nv, long long n) {
    return t * nv < n ? t * nv : n;
}

static void check_narrowing(long long a_count, long long b_count, long long nv, int dist,
                            uint64_t seed) {
    long long n = a_count + b_count, tiles = mj_tile_count(n, nv);
    item *a = malloc((size_t)(n + 1) * sizeof *a), *b = a + a_count;
    long long *p = malloc((size_t)(tiles + 1) * sizeof *p);
    ck_assert(a && p);
    fill(a, a_count, dist, &seed);
    fill(b, b_count, dist, &seed);
    qsort(a, (size_t)a_count, sizeof *a, cmp_stable);
    qsort(b, (size_t)b_count, sizeof *b, cmp_stable);
    for (long long t = 0; t <= tiles; ++t)
        p[t] = merge_path(a, a_count, b, b_count, tile_diag(t, nv, n));
    for (long long stride = 1; stride <= 16; stride *= 2)
        for (long long t = 0; t <= tiles; ++t) {
            long long left = t - t % stride, right = left + stride < tiles ? left + stride : tiles;
            long long d = tile_diag(t, nv, n), d_left = tile_diag(left, nv, n);
            long long d_right = tile_diag(right, nv, n);
            long long lo = d > b_count ? d - b_count : 0, hi = d < a_count ? d : a_count;
            mj_narrow_split(d, d_left, p[left], d_right, p[right], &lo, &hi);
            long long near = d - d_left < d_right - d ? d - d_left : d_right - d;
            REQUIRE(lo <= p[t] && p[t] <= hi && hi - lo <= near,
                    "%lld + %lld, nv %lld, stride %lld: tile %lld's split %lld not in [%lld, %lld]",
                    a_count, b_count, nv, stride, t, p[t], lo, hi);
        }
    free(a);
    free(p);
}

START_TEST(merge_narrowing)
{
    static const long long sizes[][2] = {{0, 1000}, {1000, 0}, {1, 1}, {5000, 3},
                                         {12345, 6789}, {40000, 40001}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i)
        for (int d = 0; d < DIST_COUNT; ++d)
            for (long long nv = 1; nv <= 1000; nv *= 10)
                check_narrowing(sizes[i][0], sizes[i][1], nv, d, 7 + i);
}
END_TEST

static Suite *frame_suite(void) {
    Suite *s = suite_create("frame");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, every_small_n, 0, (int)(sizeof small_nv / sizeof *small_nv));
    tcase_add_test(tc, large_n);
    suite_add_tcase(s, tc);
    TCase *tn = tcase_create("counts");
    tcase_add_test(tn, pass_and_tile_counts);
    tcase_add_test(tn, four_way_schedule);
    tcase_add_test(tn, ways_rule);
    tcase_add_test(tn, split4_lanes_rule);
    tcase_add_test(tn, split4_grouped_rule);
    tcase_add_test(tn, merge_narrowing);
    suite_add_tcase(s, tn);
    return s;
}

int main(void) { return mjt_run(frame_suite(), 1); }
