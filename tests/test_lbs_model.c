/* SPDX-License-Identifier: Apache-2.0 */
/* A CPU model of load-balancing search (templates/shared/load_balance.h, the arithmetic the
 * kernels run): the partition search, each tile's range and every thread's serial walk as
 * cta_load_balance.cuh does it (segmented reduce, bulk insert), and the owners by marks and a
 * max-scan (lbs, expand, move, join: support/lbs_marks_model.h) the same as the walk's,
 * against a sequential reference, for skewed and random counts
 * and several tile shapes; unsorted offsets keep every write inside the outputs and every
 * read inside the offsets. CPU only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_marks_model.h"
#include "shared/load_balance.h"
#include "test_support.h"

/* cta_load_balance.cuh's mj_lbs_path, as the coarse partition runs it. */
static long long path(const long long *off, long long objects, long long items, long long d) {
    long long lo = d > objects ? d - objects : 0, hi = d < items ? d : items;
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        ck_assert_int_ge(d - 1 - mid, 0);
        ck_assert_int_lt(d - 1 - mid, objects);
        if (off[d - 1 - mid] <= mid)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* mj_lbs_partition_entry (cta_load_balance.cuh), a block of MJ_LBS_PARTITION_THREADS entries
 * at a time: parts[t] for t in [0, tiles] of tiles of nv outputs; every load inside the
 * offsets, every entry inside its diagonal's bounds, and for sorted offsets mj_lbs_path's.
 * Returns the most dependent loads (rounds) an entry took. */
static int partition(const long long *off, long long objects, long long items, long long nv,
                     long long tiles, int sorted, long long *parts) {
    enum { P = MJ_LBS_PARTITION_THREADS };
    long long diag[P], lo[P], hi[P], at[P], value[P];
    int deepest = 0;
    for (long long block = 0; block * P <= tiles; ++block) {
        int depth[P];
        for (int tid = 0; tid < P; ++tid) {
            long long t = block * P + tid;
            diag[tid] = t * nv < items + objects ? t * nv : items + objects;
            lo[tid] = diag[tid] > items ? diag[tid] - items : 0;
            hi[tid] = diag[tid] < objects ? diag[tid] : objects;
            depth[tid] = 0;
        }
        for (int round = 0; round < MJ_LBS_SAMPLE_ROUNDS; ++round) {
            long long a = lo[0], b = hi[P - 1];
            if (b - a <= P) break;
            for (int tid = 0; tid < P; ++tid) {
                at[tid] = mj_lbs_sample_at(a, b, tid);
                ck_assert(at[tid] >= a && at[tid] < b && (tid == 0 || at[tid] > at[tid - 1]));
                value[tid] = off[at[tid]];
            }
            for (int tid = 0; tid < P; ++tid) {
                int c = 0;
                for (int n = P; n > 0;) {
                    int half = n >> 1;
                    if (value[c + half] < diag[tid] - at[c + half]) {
                        c += half + 1;
                        n -= half + 1;
                    } else {
                        n = half;
                    }
                }
                if (c > 0 && at[c - 1] + 1 > lo[tid]) lo[tid] = at[c - 1] + 1;
                if (c < P && at[c] < hi[tid]) hi[tid] = at[c];
                ++depth[tid];
            }
        }
        for (int tid = 0; tid < P; ++tid) {
            long long t = block * P + tid, d = diag[tid];
            long long y0 = d > items ? d - items : 0, y1 = d < objects ? d : objects;
            while (lo[tid] < hi[tid]) {
                long long next_lo = lo[tid], next_hi = hi[tid];
                for (int i = 0; i < MJ_LBS_PROBES; ++i) {
                    long long p = mj_lbs_probe_at(lo[tid], hi[tid], i);
                    ck_assert(p >= lo[tid] && p < hi[tid] && p >= 0 && p < objects);
                    if (off[p] < d - p) {
                        if (p + 1 > next_lo) next_lo = p + 1;
                    } else if (p < next_hi) {
                        next_hi = p;
                    }
                }
                ck_assert(next_hi - next_lo < hi[tid] - lo[tid]); /* the loop ends */
                lo[tid] = next_lo;
                hi[tid] = next_hi;
                ++depth[tid];
            }
            if (t > tiles) continue;
            long long y = lo[tid] < y0 ? y0 : lo[tid] > y1 ? y1 : lo[tid];
            parts[t] = d - y;
            if (sorted)
                ck_assert_msg(parts[t] == path(off, objects, items, d),
                              "entry %lld: %lld, the path %lld", t, parts[t],
                              path(off, objects, items, d));
            if (depth[tid] > deepest) deepest = depth[tid];
        }
    }
    return deepest;
}

/* The loaded offset (index from base) that owns an item the walk meets after y of the tile's
 * offsets, where yb is 1 when the offset before the tile was loaded; an item before every
 * offset (offsets[0] > 0: unsorted input) takes the first. */
static int walk_owner(int y, int yb) { return y + yb - 1 > 0 ? y + yb - 1 : 0; }

/* Every tile of nt threads of vt steps, as the kernels run them; writes objects and ranks
 * (item -> owner, rank) and counts the stores of each item; with `sorted`, also checks that
 * the threads' walks together note each of the tile's items exactly once, and that the owners
 * by marks and a max-scan (mj_cta_load_balance: lbs, expand and move) are the walk's; they
 * index the loaded offsets whatever the input. */
static void model(const long long *off, long long objects, long long items, int nt, int vt,
                  int sorted, long long *obj, long long *rank, int *writes) {
    long long nv = (long long)nt * vt, tiles = mj_lbs_tile_count(items, objects, nv);
    long long *parts = malloc(sizeof *parts * (size_t)(tiles + 1));
    long long *s_off = malloc(sizeof *s_off * (size_t)(nv + 1));
    int *s_owner = malloc(sizeof *s_owner * (size_t)nv);
    int *noted = malloc(sizeof *noted * (size_t)nv);
    int *s_mark = malloc(sizeof *s_mark * (size_t)nv);
    ck_assert(parts && s_off && s_owner && noted && s_mark);
    partition(off, objects, items, nv, tiles, sorted, parts);
    for (long long tile = 0; tile < tiles; ++tile) {
        mj_lbs_range r = mj_lbs_tile_range(tile, nv, items, objects, parts[tile], parts[tile + 1]);
        ck_assert_int_ge(r.x0, 0);
        ck_assert_int_le(r.x0, r.x1);
        ck_assert_int_le(r.x1, items);
        ck_assert_int_le(r.y0, r.y1);
        ck_assert_int_le(r.y1, objects);
        ck_assert_int_le(r.loads, nv + 1);
        ck_assert_int_le(r.base + r.loads, objects);
        ck_assert_int_le((r.x1 - r.x0) + (r.y1 - r.y0), nv);
        for (long long i = 0; i < r.loads; ++i) s_off[i] = off[r.base + i];
        int nx = (int)(r.x1 - r.x0), ny = (int)(r.y1 - r.y0), yb = r.y0 > 0;
        for (int i = 0; i < nx; ++i) {
            s_owner[i] = -1;
            noted[i] = 0;
        }
        for (int tid = 0; tid < nt; ++tid) {
            int diag = tid * vt < nx + ny ? tid * vt : nx + ny;
            int lo = diag > ny ? diag - ny : 0, hi = diag < nx ? diag : nx;
            while (lo < hi) {
                int mid = (lo + hi) >> 1;
                if (s_off[yb + diag - 1 - mid] <= r.x0 + mid)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            int x = lo, y = diag - lo;
            for (int k = 0; k < vt; ++k) {
                long long o = y < ny ? s_off[yb + y] : 0;
                if (mj_lbs_offset_first(y < ny, x < nx, o, r.x0 + x)) {
                    ++y;
                } else if (x < nx) {
                    s_owner[x] = walk_owner(y, yb);
                    ++noted[x];
                    ++x;
                }
            }
        }
        mjt_lbs_owners_by_marks(s_off, r.x0, nx, ny, yb, (int)nv, s_mark);
        for (int i = 0; i < nx; ++i) {
            ck_assert_int_lt(s_mark[i], r.loads);
            if (sorted)
                ck_assert_msg(s_mark[i] == s_owner[i], "tile %lld item %d: max-scan %d, walk %d",
                              tile, i, s_mark[i], s_owner[i]);
        }
        for (int i = 0; i < nx; ++i) {
            int k = s_owner[i];
            if (sorted)
                ck_assert_msg(noted[i] == 1, "tile %lld item %d noted %d times", tile, i,
                              noted[i]);
            ++writes[r.x0 + i];
            if (k < 0) continue; /* unsorted input only: the kernel leaves it unspecified */
            ck_assert_int_lt(k, r.loads);
            obj[r.x0 + i] = r.base + k;
            rank[r.x0 + i] = r.x0 + i - s_off[k];
        }
    }
    free(parts);
    free(s_off);
    free(s_owner);
    free(noted);
    free(s_mark);
}

static unsigned long long rng = 88172645463325252ull;
static unsigned long long next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* counts[0, objects) -> offsets; returns the total. */
static long long scan_counts(const long long *counts, long long objects, long long *off) {
    long long sum = 0;
    for (long long j = 0; j < objects; ++j) {
        off[j] = sum;
        sum += counts[j];
    }
    return sum;
}

static void check_counts(const long long *counts, long long objects, int nt, int vt,
                         const char *what) {
    long long *off = malloc(sizeof *off * (size_t)objects);
    ck_assert_ptr_nonnull(off);
    long long items = scan_counts(counts, objects, off);
    long long *obj = calloc((size_t)items + 1, sizeof *obj);
    long long *rank = calloc((size_t)items + 1, sizeof *rank);
    int *writes = calloc((size_t)items + 1, sizeof *writes);
    ck_assert(obj && rank && writes);
    model(off, objects, items, nt, vt, 1, obj, rank, writes);
    long long i = 0;
    for (long long j = 0; j < objects; ++j)
        for (long long c = 0; c < counts[j]; ++c, ++i) {
            ck_assert_msg(writes[i] == 1, "%s (%dx%d): item %lld written %d times", what, nt, vt,
                          i, writes[i]);
            ck_assert_msg(obj[i] == j && rank[i] == c,
                          "%s (%dx%d): item %lld: object %lld rank %lld, want %lld %lld", what,
                          nt, vt, i, obj[i], rank[i], j, c);
        }
    free(off);
    free(obj);
    free(rank);
    free(writes);
}

static const int shapes[][2] = {{32, 1}, {32, 3}, {64, 7}, {128, 11}};

START_TEST(skewed_counts)
{
    int nt = shapes[_i][0], vt = shapes[_i][1];
    enum { N = 3000 };
    long long *c = calloc(N, sizeof *c);
    ck_assert_ptr_nonnull(c);
    /* One object (first, middle, last) owns every item. */
    long long where[] = {0, N / 2, N - 1};
    for (int w = 0; w < 3; ++w) {
        memset(c, 0, sizeof *c * N);
        c[where[w]] = 5000;
        check_counts(c, N, nt, vt, "one owner");
    }
    /* No items at all. */
    memset(c, 0, sizeof *c * N);
    check_counts(c, N, nt, vt, "no items");
    /* All ones; a single object; long runs of empty objects between a few full ones. */
    for (int j = 0; j < N; ++j) c[j] = 1;
    check_counts(c, N, nt, vt, "all ones");
    long long one = 7;
    check_counts(&one, 1, nt, vt, "a single object");
    for (int j = 0; j < N; ++j) c[j] = j % 700 == 3 ? 1 + (long long)(next() % 900) : 0;
    check_counts(c, N, nt, vt, "runs of empty objects");
    /* Random counts, sizes around tile edges. */
    for (int round = 0; round < 20; ++round) {
        long long objects = 1 + (long long)(next() % (unsigned)(round < 10 ? 2 * nt * vt : N));
        for (long long j = 0; j < objects; ++j)
            c[j] = next() % 4 == 0 ? 0 : (long long)(next() % (1 + round % 7 * 3));
        check_counts(c, objects, nt, vt, "random counts");
    }
    free(c);
}
END_TEST

/* Unsorted offsets: whatever the result, each tile stays inside the arrays (model() asserts
 * the ranges and the loads) and every object written is a real one. */
START_TEST(unsorted_stays_inside)
{
    int nt = shapes[_i][0], vt = shapes[_i][1];
    for (int round = 0; round < 50; ++round) {
        long long objects = 1 + (long long)(next() % 2000);
        long long items = (long long)(next() % 3000);
        long long *off = malloc(sizeof *off * (size_t)objects);
        long long *obj = calloc((size_t)items + 1, sizeof *obj);
        long long *rank = calloc((size_t)items + 1, sizeof *rank);
        int *writes = calloc((size_t)items + 1, sizeof *writes);
        ck_assert(off && obj && rank && writes);
        for (long long j = 0; j < objects; ++j)
            off[j] = round % 3 == 0 ? (long long)(next() % (unsigned long long)(items + 2))
                                    : (long long)(next() % 7) - 2;
        model(off, objects, items, nt, vt, 0, obj, rank, writes);
        for (long long i = 0; i < items; ++i) {
            ck_assert_int_ge(obj[i], 0);
            ck_assert_int_lt(obj[i], objects);
        }
        free(off);
        free(obj);
        free(rank);
        free(writes);
    }
}
END_TEST

/* The partition at the bench's scale (2^18 offsets, 2^12 to 2^22 items): the entries are
 * the path's, and none took more than six dependent loads (the model: five, two rounds of
 * samples and three of probes) where a binary search takes 18-19. */
START_TEST(partition_depth)
{
    long long objects = 1ll << 18, nv = 128 * 19;
    long long *counts = malloc(sizeof *counts * (size_t)objects);
    long long *off = malloc(sizeof *off * (size_t)objects);
    ck_assert(counts && off);
    for (int mean = 0; mean <= 16; mean += 4) {
        for (long long j = 0; j < objects; ++j)
            counts[j] = mean == 0 ? (j % 4096 == 0) : (long long)(next() % (2 * mean + 1));
        long long items = scan_counts(counts, objects, off);
        long long tiles = mj_lbs_tile_count(items, objects, nv);
        long long *parts = malloc(sizeof *parts * (size_t)(tiles + 1));
        ck_assert_ptr_nonnull(parts);
        int deepest = partition(off, objects, items, nv, tiles, 1, parts);
        ck_assert_msg(deepest <= 6, "mean %d: %d dependent loads", mean, deepest);
        free(parts);
    }
    free(counts);
    free(off);
}
END_TEST

START_TEST(tile_count)
{
    ck_assert_int_eq(mj_lbs_tile_count(0, 0, 1408), 0);
    ck_assert_int_eq(mj_lbs_tile_count(1, 1, 1408), 1);
    ck_assert_int_eq(mj_lbs_tile_count(1407, 1, 1408), 1);
    ck_assert_int_eq(mj_lbs_tile_count(1408, 1, 1408), 2);
    ck_assert_int_eq(mj_lbs_tile_count(1ll << 40, 1ll << 20, 1408),
                     ((1ll << 40) + (1ll << 20) + 1407) / 1408);
}
END_TEST

static Suite *lbs_model_suite(void) {
    Suite *s = suite_create("lbs_model");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, skewed_counts, 0, 4);
    tcase_add_loop_test(tc, unsorted_stays_inside, 0, 4);
    tcase_add_test(tc, partition_depth);
    tcase_add_test(tc, tile_count);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(lbs_model_suite(), 1); }
