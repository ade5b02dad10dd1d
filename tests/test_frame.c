/* Mergesort's pass arithmetic (templates/shared/merge_frame.h) against a CPU model. The model runs
 * the GPU schedule on the CPU with the very same functions the kernels use: a stable sort of
 * every tile (mj_blocksort), then for each pass the partitions (mj_partition: the merge path
 * split at min(diag, a_count + b_count) of the frame's A and B) and the merges (mj_merge: each
 * tile's ranges from partitions[tile] and partitions[tile + 1], or a_count at its frame's end,
 * merged stably into outputs tile * nv ...). The result must equal a stable reference sort,
 * and every tile's ranges must be in bounds and partition their frame's lists exactly.
 * CPU only. */
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

/* The CPU model of one sort: sorts data[0..n) with merge tiles of nv and blocksort tiles of
 * nv * runs, checking every pass. */
static void model_sort(item *data, long long n, long long nv, long long runs) {
    long long tiles = mj_tile_count(n, nv);
    REQUIRE1(tiles == n / nv + (n % nv != 0));
    long long bs_nv = nv * runs, bs_tiles = mj_tile_count(n, bs_nv);
    int passes = mj_sort_passes(n, nv, runs);
    REQUIRE1(bs_tiles <= (1ll << passes));
    REQUIRE1(passes == 0 || bs_tiles > (1ll << (passes - 1)));

    item *buf = malloc((size_t)(n + 1) * sizeof *buf);
    item *tmp = malloc((size_t)(n + 1) * sizeof *tmp);
    long long *partitions = malloc((size_t)(tiles + 1) * sizeof *partitions);
    REQUIRE1(buf && tmp && partitions);

    /* mj_blocksort: block t sorts [t * bs_nv, min(n, t * bs_nv + bs_nv)). */
    for (long long t = 0; t < bs_tiles; ++t) {
        long long begin = t * bs_nv;
        long long count = mj_clamp_count(bs_nv, begin, n);
        REQUIRE1(count == (n - begin < bs_nv ? n - begin : bs_nv));
        REQUIRE1(count > 0);
        stable_sort(data + begin, count, tmp);
    }

    item *in = data, *out = buf;
    for (int p = 0; p < passes; ++p) {
        long long coop = mj_pass_coop(p, runs);
        REQUIRE1(coop == (2 * runs) << p);
        /* mj_partition */
        for (long long t = 0; t < tiles; ++t) {
            mj_frame f = mj_sort_frame(t, coop, nv, n);
            long long total = f.a_count + f.b_count;
            long long diag = mj_tile_diag(t, coop, nv);
            if (diag > total) diag = total;
            partitions[t] = merge_path(in + f.a0, f.a_count, in + f.b0, f.b_count, diag);
        }
        /* mj_merge, with the checks of every tile's ranges. */
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
        item *swap = in;
        in = out;
        out = swap;
    }
    if (in != data) memcpy(data, in, (size_t)n * sizeof *data);
    free(buf);
    free(tmp);
    free(partitions);
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

/* Sorts n keys of dist with the model and compares with the stable reference. */
static void check_sort(long long n, long long nv, long long runs, int dist, uint64_t seed) {
    /* zeroed: some gcc warn that x may be read uninitialized when n is 0 */
    item *x = calloc((size_t)n + 1, sizeof *x);
    item *ref = malloc((size_t)(n + 1) * sizeof *ref);
    REQUIRE1(x && ref);
    fill(x, n, dist, &seed);
    memcpy(ref, x, (size_t)n * sizeof *x);
    qsort(ref, (size_t)n, sizeof *ref, cmp_stable);
    model_sort(x, n, nv, runs);
    for (long long i = 0; i < n; ++i)
        REQUIRE(x[i].key == ref[i].key && x[i].index == ref[i].index,
                "n %lld nv %lld runs %lld dist %d: position %lld holds key %d from %lld, "
                "expected key %d from %lld",
                n, nv, runs, dist, i, x[i].key, x[i].index, ref[i].key, ref[i].index);
    free(x);
    free(ref);
}

static const long long small_nv[] = {1, 2, 3, 7, 32, 96};

/* Blocksort runs of 1, 2 and 4 merge tiles. */
START_TEST(every_small_n)
{
    long long nv = small_nv[_i];
    for (long long runs = 1; runs <= 4; runs *= 2) {
        for (long long n = 0; n <= 600; ++n)
            check_sort(n, nv, runs, (int)(n % DIST_COUNT),
                       1000003ull * (uint64_t)n + (uint64_t)nv);
        /* Every distribution at a few sizes around powers of two of tiles. */
        for (int d = 0; d < DIST_COUNT; ++d) {
            check_sort(nv * 8, nv, runs, d, 5);
            check_sort(nv * 8 + 1, nv, runs, d, 6);
            check_sort(nv * 9 - 1, nv, runs, d, 7);
            check_sort(nv * runs * 8 + 1, nv, runs, d, 8);
        }
    }
}
END_TEST

START_TEST(large_n)
{
    static const long long ns[] = {100000, 3840 * 16, 3840 * 16 + 1, 3840 * 17 - 1, 123457};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; ++i)
        for (int d = 0; d < DIST_COUNT; ++d) {
            check_sort(ns[i], 3840, 1, d, 42 + i);
            check_sort(ns[i], 3840, 2, d, 43 + i);
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

/* The merge primitive's partitions (kernel_merge_arrays.cuh): every split narrowed by two
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
    tcase_add_test(tn, merge_narrowing);
    suite_add_tcase(s, tn);
    return s;
}

int main(void) { return mjt_run(frame_suite(), 1); }
