/* SPDX-License-Identifier: Apache-2.0 */
/* A CPU model of bulk remove and bulk insert: the tile arithmetic the kernels run
 * (templates/shared/bulk_remove.h; load_balance.h for insert), each tile's marks, numbering
 * and stores as kernel_remove.cuh makes them, and insert's partition and each tile's sources
 * by marks and a max-scan as cta_load_balance.cuh and kernel_insert.cuh make them
 * (support/lbs_marks_model.h), against a sequential reference for
 * several tile shapes; indices and positions that break the contract keep every read inside
 * the inputs and every write inside the output. CPU only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_marks_model.h"
#include "shared/bulk_remove.h"
#include "shared/load_balance.h"
#include "test_support.h"

static unsigned long long rng = 0x2545F4914F6CDD1Dull;
static unsigned long long next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* index_array.cuh's mj_index_lower_bound. */
static long long lower_bound(const long long *a, long long count, long long x) {
    long long lo = 0, hi = count;
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Remove of ix[0, k) from the elements 0..n-1 (each element its own index) into out[0, n - k);
 * out holds -1 where nothing was stored. */
static void model_remove(const long long *ix, long long k, long long n, long long nv,
                         long long *out) {
    long long m = n - k, tiles = mj_remove_tile_count(n, nv);
    int *dest = malloc(sizeof *dest * (size_t)nv);
    ck_assert_ptr_nonnull(dest);
    for (long long o = 0; o < m; ++o) out[o] = -1;
    for (long long t = 0; t < tiles; ++t) {
        long long p0 = lower_bound(ix, k, mj_remove_boundary(t, nv, n));
        long long p1 = lower_bound(ix, k, mj_remove_boundary(t + 1, nv, n));
        mj_remove_range r = mj_remove_tile_range(t, nv, n, p0, p1);
        ck_assert_int_le(r.len, nv);
        ck_assert_int_ge(r.count, 0);
        ck_assert_int_le(r.count, r.len);
        for (long long i = 0; i < nv; ++i) dest[i] = i < r.len;
        for (long long i = 0; i < r.count; ++i) {
            ck_assert_int_lt(r.first + i, k); /* the index read is inside the array */
            long long at = ix[r.first + i] - r.base;
            if (at >= 0 && at < r.len) dest[at] = 0;
        }
        /* The block scan over threads of consecutive slots numbers the kept slots in order. */
        int slot = 0;
        for (long long i = 0; i < nv; ++i) dest[i] = dest[i] ? slot++ : -1;
        for (long long i = 0; i < r.len; ++i) {
            if (dest[i] < 0) continue;
            long long o = r.out_base + dest[i];
            if (o >= 0 && o < m) out[o] = r.base + i; /* mj_move_kept stores only there */
        }
    }
    free(dest);
}

static void check_remove(const long long *ix, long long k, long long n, long long nv, int exact,
                         const char *what) {
    long long *out = malloc(sizeof *out * (size_t)(n - k + 1));
    ck_assert_ptr_nonnull(out);
    model_remove(ix, k, n, nv, out);
    if (exact) {
        long long o = 0, r = 0, bad = 0;
        for (long long i = 0; i < n; ++i) {
            if (r < k && ix[r] == i) {
                ++r;
                continue;
            }
            bad += out[o++] != i;
        }
        ck_assert_msg(bad == 0 && o == n - k, "%s (nv %lld, n %lld, k %lld): %lld wrong", what,
                      nv, n, k, bad);
    }
    free(out);
}

START_TEST(remove_model)
{
    static const long long nvs[] = {32, 7 * 32, 11 * 256};
    for (size_t s = 0; s < 3; ++s) {
        long long nv = nvs[s];
        long long sizes[] = {0, 1, nv - 1, nv, nv + 1, 2 * nv + 1, 17 * nv + 5};
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; ++z) {
            long long n = sizes[z];
            long long *ix = malloc(sizeof *ix * (size_t)(n + 1));
            ck_assert_ptr_nonnull(ix);
            for (int p = 0; p < 5; ++p) {
                long long k = 0;
                for (long long i = 0; i < n; ++i)
                    if (p == 1 || (p == 2 && i % 2) || (p == 3 && i >= n / 3 && i < n / 2 + 1) ||
                        (p == 4 && next() % 3 == 0))
                        ix[k++] = i;
                check_remove(ix, k, n, nv, 1, "remove");
            }
            /* Broken contracts: duplicates, unsorted, out of range (and negative: an 8-byte
             * index past 2^63). */
            for (int p = 0; p < 4 && n > 0; ++p) {
                long long k = n / 2 + 1;
                for (long long i = 0; i < k; ++i)
                    ix[i] = p == 0   ? (i / 3) * 2
                            : p == 1 ? (long long)(next() % (unsigned long long)n)
                            : p == 2 ? n - 3 + 2 * i
                                     : (i % 5 == 0 ? -1 - i : i);
                check_remove(ix, k, n, nv, 0, "remove, broken contract");
            }
            free(ix);
        }
    }
}
END_TEST

/* Insert of a_count elements at positions pos into b_count: out[o] is the source, b's j as j,
 * a's i as ~i, or LLONG_MIN where nothing was stored. */
static void model_insert(const long long *pos, long long a_count, long long b_count, int nt,
                         int vt, long long *out) {
    long long nv = (long long)nt * vt, n = a_count + b_count;
    long long tiles = mj_lbs_tile_count(b_count, a_count, nv);
    long long *parts = malloc(sizeof *parts * (size_t)(tiles + 1));
    long long *s_pos = malloc(sizeof *s_pos * (size_t)(nv + 1));
    int *s_src = malloc(sizeof *s_src * (size_t)nv);
    ck_assert(parts && s_pos && s_src);
    for (long long o = 0; o < n; ++o) out[o] = INT64_MIN;
    /* mj_lbs_path over the positions (offsets) and b's indices (items). */
    for (long long t = 0; t <= tiles; ++t) {
        long long d = t * nv < n ? t * nv : n;
        long long lo = d > a_count ? d - a_count : 0, hi = d < b_count ? d : b_count;
        while (lo < hi) {
            long long mid = (lo + hi) >> 1;
            if (pos[d - 1 - mid] <= mid)
                hi = mid;
            else
                lo = mid + 1;
        }
        parts[t] = lo;
    }
    for (long long tile = 0; tile < tiles; ++tile) {
        mj_lbs_range r = mj_lbs_tile_range(tile, nv, b_count, a_count, parts[tile],
                                           parts[tile + 1]);
        ck_assert_int_le(r.base + r.loads, a_count);
        for (long long i = 0; i < r.loads; ++i) s_pos[i] = pos[r.base + i];
        int nx = (int)(r.x1 - r.x0), ny = (int)(r.y1 - r.y0), yb = r.y0 > 0;
        ck_assert_int_le(nx + ny, nv);
        ck_assert_int_eq(r.x0 + r.y0, tile * nv);
        mjt_lbs_sources_by_marks(s_pos, r.x0, nx, ny, yb, (int)nv, s_src);
        for (int i = 0; i < nx + ny; ++i) {
            int s = s_src[i];
            ck_assert(s >= 0 ? s < nx : ~s < ny); /* reads stay inside a and b */
            out[tile * nv + i] = s >= 0 ? r.x0 + s : ~(r.y0 + ~s);
        }
    }
    free(parts);
    free(s_pos);
    free(s_src);
}

static void check_insert(const long long *pos, long long a_count, long long b_count, int nt,
                         int vt, int exact, const char *what) {
    long long n = a_count + b_count;
    long long *out = malloc(sizeof *out * (size_t)(n + 1));
    ck_assert_ptr_nonnull(out);
    model_insert(pos, a_count, b_count, nt, vt, out);
    long long bad = 0;
    for (long long o = 0, i = 0, j = 0; o < n; ++o) {
        if (!exact) {
            bad += out[o] == INT64_MIN; /* every slot is stored, whatever the positions */
            continue;
        }
        int from_a = i < a_count && (j == b_count || pos[i] <= j);
        bad += out[o] != (from_a ? ~i++ : j++);
    }
    ck_assert_msg(bad == 0, "%s (%dx%d, %lld into %lld): %lld wrong", what, nt, vt, a_count,
                  b_count, bad);
    free(out);
}

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

START_TEST(insert_model)
{
    static const int shapes[][2] = {{32, 1}, {32, 7}, {128, 11}, {64, 3}};
    for (size_t s = 0; s < 4; ++s) {
        int nt = shapes[s][0], vt = shapes[s][1];
        long long nv = (long long)nt * vt;
        long long sizes[] = {0, 1, nv - 1, nv, nv + 1, 2 * nv + 1, 13 * nv + 5};
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; ++z) {
            long long n = sizes[z];
            long long *pos = malloc(sizeof *pos * (size_t)(n + 1));
            ck_assert_ptr_nonnull(pos);
            for (int p = 0; p < 5; ++p) {
                /* all at 0, all at the end, one position, random, into an empty b */
                long long a = p == 4 ? n : n / 3, b = n - a;
                for (long long i = 0; i < a; ++i)
                    pos[i] = p == 1   ? b
                             : p == 2 ? b / 2
                             : p == 3 ? (long long)(next() % (unsigned long long)(b + 1))
                                      : 0;
                if (p == 3) qsort(pos, (size_t)a, sizeof *pos, cmp_ll);
                check_insert(pos, a, b, nt, vt, 1, "insert");
                check_insert(pos, 0, n, nt, vt, 1, "insert of nothing");
            }
            /* Broken contracts: unsorted, past the end, descending, negative. */
            for (int p = 0; p < 4 && n > 1; ++p) {
                long long a = n / 2, b = n - a;
                for (long long i = 0; i < a; ++i)
                    pos[i] = p == 0   ? (long long)(next() % (unsigned long long)(b + 1))
                             : p == 1 ? b + 1 + i
                             : p == 2 ? a - i
                                      : (i % 3 ? -5 : i);
                check_insert(pos, a, b, nt, vt, 0, "insert, broken contract");
            }
            free(pos);
        }
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("bulk_model");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, remove_model);
    tcase_add_test(tc, insert_model);
    suite_add_tcase(s, tc);
    return mjt_run(s, 1);
}
