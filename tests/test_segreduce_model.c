/* SPDX-License-Identifier: Apache-2.0 */
/* A CPU model of the segmented reduction's tiles (kernel_segreduce.cuh) over load-balancing
 * search's arithmetic (templates/shared/load_balance.h, which the kernels run): each thread's
 * walk, writing the segments it opens and ends, the block's segmented scan of (offset met,
 * tail) pairs, the look-back's carry between tiles, and the write of each thread's first
 * segment, against a sequential reference, under a non-commutative operator (affine maps mod
 * 2^32), for several tile shapes and segment layouts (empty, long, length 1, elements outside
 * every segment). Sorted offsets get each result written exactly once; unsorted ones keep
 * every write inside out and every read inside the inputs. CPU only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shared/load_balance.h"
#include "test_support.h"

typedef struct affine {
    uint32_t m, c;
} affine;

static const affine identity = {1, 0};

static affine op(affine a, affine b) { return (affine){a.m * b.m, a.c * b.m + b.c}; }

static int eq(affine a, affine b) { return a.m == b.m && a.c == b.c; }

/* The segmented scan's pair: kernel_segreduce.cuh's mj_seg_combine. */
typedef struct carry {
    affine v;
    int met;
} carry;

static carry combine(carry a, carry b) {
    return (carry){b.met ? b.v : op(a.v, b.v), a.met | b.met};
}

/* cta_load_balance.cuh's mj_lbs_path over offsets off[0, objects) and items from x0. */
static long long path(const long long *off, long long objects, long long items, long long d,
                      long long x0) {
    long long lo = d > objects ? d - objects : 0, hi = d < items ? d : items;
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        ck_assert_int_ge(d - 1 - mid, 0);
        ck_assert_int_lt(d - 1 - mid, objects);
        if (off[d - 1 - mid] <= x0 + mid)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

typedef struct thread_state {
    affine acc, head;
    long long first;
} thread_state;

/* An offset as the tile holds it: less the tile's first element, within [-1, nv + 1]. */
static long long rel(long long off, long long x0, long long nv) {
    long long v = off - x0;
    return v < -1 ? -1 : v > nv + 1 ? nv + 1 : v;
}

/* A thread meets offset g: the segment before it ends (its first, kept for the block's scan,
 * or written), and segment g opens. A thread meets offsets in increasing order, walk or fold,
 * whatever they hold, so a segment it writes is never below 0. */
static void met(thread_state *t, long long g, affine *out, int *writes, long long count) {
    ck_assert_int_lt(g, count);
    if (t->first < 0) {
        t->head = t->acc;
        t->first = g;
    } else {
        ck_assert_int_gt(g, t->first);
        out[g - 1] = t->acc;
        ++writes[g - 1];
    }
    t->acc = identity;
}

/* The kernels over in[0, n) and off[0, count), tiles of nt threads x vt steps, tiles in order
 * (the look-back's result does not depend on the order blocks run in); writes[i] counts the
 * writes of out[i]. */
static void model(const affine *in, long long n, const long long *off, long long count, int nt,
                  int vt, affine *out, int *writes) {
    long long nv = (long long)nt * vt, tiles = mj_lbs_tile_count(n, count, nv);
    long long *parts = malloc(sizeof *parts * (size_t)(tiles + 1));
    long long *s_off = malloc(sizeof *s_off * (size_t)(nv + 1));
    thread_state *th = malloc(sizeof *th * (size_t)nt);
    ck_assert(parts && s_off && th);
    for (long long t = 0; t <= tiles; ++t)
        parts[t] = path(off, count, n, t * nv < n + count ? t * nv : n + count, 0);
    affine prior = identity; /* the look-back: what the open segment holds before the tile */
    for (long long tile = 0; tile < tiles; ++tile) {
        mj_lbs_range r = mj_lbs_tile_range(tile, nv, n, count, parts[tile], parts[tile + 1]);
        ck_assert_int_le(r.base + r.loads, count);
        for (long long i = 0; i < r.loads; ++i) s_off[i] = off[r.base + i];
        int nx = (int)(r.x1 - r.x0), ny = (int)(r.y1 - r.y0), yb = r.y0 > 0;
        const long long *tile_off = s_off + yb;
        for (int tid = 0; tid < nt; ++tid) {
            thread_state *t = &th[tid];
            *t = (thread_state){identity, identity, -1};
            if (ny <= nt / 4) { /* MJ_SEGREDUCE_FEW: the slots from tid * vt in order */
                int x0 = tid * vt, lo = 0, hi = ny;
                while (lo < hi) {
                    int mid = (lo + hi) >> 1;
                    if (rel(tile_off[mid], r.x0, nv) < x0)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                int y = lo;
                long long next = y < ny ? rel(tile_off[y], r.x0, nv) : nv + 2;
                for (int k = 0; k < vt; ++k) {
                    while (next == x0 + k) {
                        met(t, r.y0 + y, out, writes, count);
                        ++y;
                        next = y < ny ? rel(tile_off[y], r.x0, nv) : nv + 2;
                    }
                    if (x0 + k < nx) { /* past the elements the slots hold the identity */
                        ck_assert_int_lt(r.x0 + x0 + k, n);
                        t->acc = op(t->acc, in[r.x0 + x0 + k]);
                    }
                }
                continue;
            }
            int diag = tid * vt < nx + ny ? tid * vt : nx + ny;
            int x = (int)path(tile_off, ny, nx, diag, r.x0), y = diag - x;
            for (int k = 0; k < vt; ++k) {
                long long o = y < ny ? tile_off[y] : 0;
                if (mj_lbs_offset_first(y < ny, x < nx, o, r.x0 + x)) {
                    met(t, r.y0 + y, out, writes, count);
                    ++y;
                } else if (x < nx) {
                    ck_assert_int_lt(r.x0 + x, n);
                    t->acc = op(t->acc, in[r.x0 + x]);
                    ++x;
                }
            }
        }
        /* The block's exclusive segmented scan, sequentially; then each first segment. */
        carry before = {identity, 0};
        for (int tid = 0; tid < nt; ++tid) {
            thread_state *t = &th[tid];
            if (t->first > 0) {
                affine c = before.met ? before.v : op(prior, before.v);
                out[t->first - 1] = op(c, t->head);
                ++writes[t->first - 1];
            }
            before = combine(before, (carry){t->acc, t->first >= 0});
        }
        prior = before.met ? before.v : op(prior, before.v);
    }
    free(parts);
    free(s_off);
    free(th);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const int shapes[][2] = {{32, 1}, {32, 3}, {64, 7}, {128, 11}};

/* Layouts: 0 random lengths, 1 mostly empty with long ones, 2 length 1, 3 inner (elements
 * before and after), 4 one segment, 5 all empty. */
static long long make_offsets(int layout, long long n, long long *off, long long cap) {
    long long k = 0, at = layout == 3 ? n / 5 : 0, end = layout == 3 ? n - n / 7 : n;
    if (layout == 4) {
        off[0] = 0;
        off[1] = n;
        return 2;
    }
    if (layout == 5) {
        for (; k < 300; ++k) off[k] = k < 100 ? 0 : k < 200 ? n / 2 : n;
        return k;
    }
    off[k++] = at;
    while (at < end && k < cap) {
        uint64_t r = next();
        long long len = layout == 1   ? (r % 10 ? 0 : (long long)((r >> 8) % 3000))
                        : layout == 2 ? (long long)(r % 8 != 0)
                                      : (long long)(r % 40);
        at = at + len < end ? at + len : end;
        off[k++] = at;
    }
    return k;
}

START_TEST(sorted_offsets)
{
    int nt = shapes[_i][0], vt = shapes[_i][1];
    for (int round = 0; round < 60; ++round) {
        int layout = round % 6;
        long long n = round < 12 ? round : (long long)(next() % 20000);
        long long cap = 2 * n + 400;
        affine *in = malloc(sizeof *in * (size_t)(n + 1));
        long long *off = malloc(sizeof *off * (size_t)cap);
        ck_assert(in && off);
        for (long long i = 0; i < n; ++i) {
            uint64_t r = next();
            in[i] = (affine){(uint32_t)r | 1u, (uint32_t)(r >> 32)};
        }
        long long count = make_offsets(layout, n, off, cap - 1), segs = count - 1;
        affine *out = malloc(sizeof *out * (size_t)(segs + 1));
        int *writes = calloc((size_t)segs + 1, sizeof *writes);
        ck_assert(out && writes);
        model(in, n, off, count, nt, vt, out, writes);
        for (long long i = 0; i < segs; ++i) {
            affine want = identity;
            for (long long j = off[i]; j < off[i + 1]; ++j) want = op(want, in[j]);
            ck_assert_msg(writes[i] == 1, "%dx%d layout %d n %lld: segment %lld written %d times",
                          nt, vt, layout, n, i, writes[i]);
            ck_assert_msg(eq(out[i], want), "%dx%d layout %d n %lld: segment %lld of %lld wrong",
                          nt, vt, layout, n, i, segs);
        }
        free(in);
        free(off);
        free(out);
        free(writes);
    }
}
END_TEST

/* Unsorted offsets, some past n: the model's asserts hold every read and write inside. */
START_TEST(unsorted_stays_inside)
{
    int nt = shapes[_i][0], vt = shapes[_i][1];
    for (int round = 0; round < 40; ++round) {
        long long n = (long long)(next() % 3000), count = 2 + (long long)(next() % 2000);
        affine *in = calloc((size_t)n + 1, sizeof *in);
        long long *off = malloc(sizeof *off * (size_t)count);
        affine *out = calloc((size_t)count, sizeof *out);
        int *writes = calloc((size_t)count, sizeof *writes);
        ck_assert(in && off && out && writes);
        for (long long j = 0; j < count; ++j)
            off[j] = round % 2 ? (long long)(next() % (uint64_t)(2 * n + 3))
                               : (long long)(count - j) * 2;
        model(in, n, off, count, nt, vt, out, writes);
        free(in);
        free(off);
        free(out);
        free(writes);
    }
}
END_TEST

static Suite *segreduce_model_suite(void) {
    Suite *s = suite_create("segreduce_model");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, sorted_offsets, 0, 4);
    tcase_add_loop_test(tc, unsorted_stays_inside, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(segreduce_model_suite(), 1); }
