/* SPDX-License-Identifier: Apache-2.0 */
/* A CPU model of the multiset operations (templates/shared/balanced_path.h, the arithmetic the
 * kernels run, with thread/balanced_search.cuh's searches and kernel_setops.cuh's tile and
 * thread walks written out over ints): the balanced path's crossing of every diagonal against
 * the std walk drawn out element by element (pairs a then b), stars included; then every tile
 * and thread of the kernels' split, whose walks must finish their parts in MJ_VT steps and
 * together emit exactly what std::set_* emits (the same elements of the same sides, so values
 * would follow), for the four operations, several tile shapes, duplicates, long runs across
 * tile edges on one side, all-equal keys, empty sides; unsorted keys and arbitrary partition
 * entries keep every read inside the arrays and a tile. Two walks: model's, each thread
 * bounded by its parts' ends (the split's own check), and model_walk's, the tile kernel's
 * (extended tiles, unchecked steps, each thread bounded by the next one's start). CPU only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shared/balanced_path.h"
#include "test_support.h"
#include "key_runs_model.h"

/* merge_path.cuh's mj_merge_path over ints (ties: a first). */
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

/* balanced_search.cuh's mj_balanced_path over ints, with key_runs.cuh's gallops
 * (key_runs_model.h); every read is checked against the array's length. */
static long long balanced(const int *a, long long ac, const int *b, long long bc, long long d,
                          int *star) {
    long long ai = path(a, ac, b, bc, d), bi = d - ai;
    *star = 0;
    if (bi >= bc) return ai;
    int x = b[bi];
    if ((ai == 0 || a[ai - 1] < x) && (bi == 0 || b[bi - 1] < x)) return ai;
    long long a_start = mjt_run_begin(a, ai, x), b_start = mjt_run_begin(b, bi, x);
    long long a_run = ai - a_start, b_run = bi - b_start;
    long long want = mj_bp_b_want(a_run, b_run);
    long long limit = bc - b_start > want + 1 ? b_start + want + 1 : bc;
    long long b_have = mjt_run_end(b, bi, limit, x) - b_start;
    mj_bp_point p = mj_bp_balance(a_run, b_run, b_have);
    *star = p.star;
    long long r = a_start + p.a_take;
    ck_assert(r >= 0 && r <= ai && d - r + *star >= 0 && d - r + *star <= bc);
    return r;
}

/* An emitted element: its side and index there. */
typedef struct {
    int from_b;
    long long at;
} elem;

/* std::set_*'s walk: the emitted elements (returns their count), and the walk's elements in
 * balanced order (pairs a then b) in order[], with pair_next[k] set when order[k] is a's half
 * of a pair. */
static long long reference(const int *a, long long ac, const int *b, long long bc, int keep,
                           elem *out, elem *order, char *pair_next) {
    long long i = 0, j = 0, n = 0, k = 0;
    while (i < ac || j < bc) {
        int a_only = i < ac && (j >= bc || a[i] < b[j]);
        int b_only = j < bc && (i >= ac || b[j] < a[i]);
        if (a_only) {
            if (keep & MJ_KEEP_A) out[n++] = (elem){0, i};
            pair_next[k] = 0;
            order[k++] = (elem){0, i++};
        } else if (b_only) {
            if (keep & MJ_KEEP_B) out[n++] = (elem){1, j};
            pair_next[k] = 0;
            order[k++] = (elem){1, j++};
        } else {
            if (keep & MJ_KEEP_PAIR) out[n++] = (elem){0, i};
            pair_next[k] = 1;
            order[k++] = (elem){0, i++};
            pair_next[k] = 0;
            order[k++] = (elem){1, j++};
        }
    }
    return n;
}

/* kernel_setops.cuh's tiles and threads over (possibly unsorted) a and b, partitions from
 * `entries` (tiles + 1 of them; NULL: found by the balanced path): the emitted elements
 * (returns their count). For sorted input it also checks that tiles and threads cover a and b
 * in order and that every thread finishes its part. */
static long long model(const int *a, long long ac, const int *b, long long bc, int keep, int nt,
                       int vt, const long long *entries, int sorted, elem *out) {
    long long nv = (long long)nt * vt, n = ac + bc, tiles = mj_setop_tile_count(n, nv), m = 0;
    long long *e = malloc(sizeof *e * (size_t)(tiles + 1));
    int *s = malloc(sizeof *s * (size_t)(nv + 1));
    int *sa = malloc(sizeof *sa * (size_t)(nt + 1)), *sb = malloc(sizeof *sb * (size_t)(nt + 1));
    ck_assert(e && s && sa && sb);
    for (long long t = 0; t <= tiles; ++t) {
        int star = 0;
        long long d = t * nv < n ? t * nv : n;
        long long p = entries ? 0 : balanced(a, ac, b, bc, d, &star);
        e[t] = entries ? entries[t] : mj_bp_entry(p, star);
    }
    long long a_next = 0, b_next = 0;
    for (long long t = 0; t < tiles; ++t) {
        mj_setop_range r = mj_setop_tile_range(t, nv, ac, bc, e[t], e[t + 1]);
        ck_assert(r.a0 >= 0 && r.a0 <= r.a1 && r.a1 <= ac);
        ck_assert(r.b0 >= 0 && r.b0 <= r.b1 && r.b1 <= bc);
        int a_len = (int)(r.a1 - r.a0), total = a_len + (int)(r.b1 - r.b0);
        ck_assert_int_le(total, nv + 1);
        if (sorted) {
            ck_assert(r.a0 == a_next && r.b0 == b_next);
            a_next = r.a1;
            b_next = r.b1;
            ck_assert_int_ge(total, (t + 1 < tiles ? nv : n - t * nv) - 1);
        }
        for (int j = 0; j < total; ++j) s[j] = j < a_len ? a[r.a0 + j] : b[r.b0 + j - a_len];
        for (int tid = 0; tid < nt; ++tid) {
            int diag = vt * tid < total ? vt * tid : total, star;
            int pa = (int)balanced(s, a_len, s + a_len, total - a_len, diag, &star);
            sa[tid] = pa;
            sb[tid] = diag - pa + star;
        }
        sa[nt] = a_len;
        sb[nt] = total - a_len;
        for (int tid = 0; tid < nt; ++tid) {
            int i_a = sa[tid], a_end = sa[tid + 1], i_b = sb[tid], b_end = sb[tid + 1];
            int emitted = 0;
            for (int i = 0; i < vt; ++i) {
                int has_a = i_a < a_end, has_b = i_b < b_end, both = has_a && has_b;
                if (has_a) ck_assert(i_a >= 0 && i_a < a_len);
                if (has_b) ck_assert(i_b >= 0 && a_len + i_b < total);
                int a_before = both && s[i_a] < s[a_len + i_b];
                int b_before = both && s[a_len + i_b] < s[i_a];
                int a_only = has_a && (!has_b || a_before), b_only = has_b && (!has_a || b_before);
                int pair = both && !a_before && !b_before;
                int kind = a_only ? MJ_KEEP_A : b_only ? MJ_KEEP_B : pair ? MJ_KEEP_PAIR : 0;
                if (kind & keep) {
                    out[m++] = b_only ? (elem){1, r.b0 + i_b} : (elem){0, r.a0 + i_a};
                    ++emitted;
                }
                i_a += a_only || pair;
                i_b += b_only || pair;
            }
            ck_assert_int_le(emitted, vt);
            if (sorted)
                ck_assert_msg(i_a == a_end && i_b == b_end,
                              "tile %lld thread %d did not finish its part in %d steps", t, tid,
                              vt);
        }
    }
    if (sorted) ck_assert(a_next == ac && b_next == bc);
    free(e);
    free(s);
    free(sa);
    free(sb);
    return m;
}

static uint64_t next(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* ck_assert's bookkeeping on every pass costs a system call: the hot loops below test plainly
 * and fail through ck_abort_msg. */
#define REQUIRE(cond, ...)                                                                      \
    do {                                                                                        \
        if (!(cond)) ck_abort_msg(__VA_ARGS__);                                                 \
    } while (0)

/* kernel_setops.cuh's tile kernel as it walks: each tile extended (a's and b's parts each
 * followed by the element after them) unless it ends a or b; each thread from its balanced
 * path start to the next thread's (the count of the tile's elements before it), MJ_VT steps,
 * the first (vt - 1) / 2 without a check in an extended tile, comparing the keys it reaches
 * (checked at the parts' ends otherwise). The slack after the tile holds garbage (drawn from
 * rng) that no emitted step may depend on. Returns the emitted elements' count, each as the
 * kernel finds its value (its s position, bounded by the last element loaded). For sorted
 * input it checks that every thread's steps end exactly at its part's end, that the
 * unchecked steps are its own, and that it emits only its part's elements. */
static long long model_walk(const int *a, long long ac, const int *b, long long bc, int keep,
                            int nt, int vt, const long long *entries, int sorted, elem *out,
                            uint64_t *rng) {
    long long nv = (long long)nt * vt, n = ac + bc, tiles = mj_setop_tile_count(n, nv), m = 0;
    int slots = (int)nv + 3 + vt;
    long long *e = malloc(sizeof *e * (size_t)(tiles + 1));
    int *s = malloc(sizeof *s * (size_t)slots), *start = malloc(sizeof *start * (size_t)(nt + 1));
    int *ia0 = malloc(sizeof *ia0 * (size_t)nt), *ib0 = malloc(sizeof *ib0 * (size_t)nt);
    ck_assert(e && s && start && ia0 && ib0);
    for (long long t = 0; t <= tiles; ++t) {
        int star = 0;
        long long d = t * nv < n ? t * nv : n;
        long long p = entries ? 0 : balanced(a, ac, b, bc, d, &star);
        e[t] = entries ? entries[t] : mj_bp_entry(p, star);
    }
    for (long long t = 0; t < tiles; ++t) {
        mj_setop_range r = mj_setop_tile_range(t, nv, ac, bc, e[t], e[t + 1]);
        int ext = r.a1 < ac && r.b1 < bc;
        int a_len = (int)(r.a1 - r.a0), b_len = (int)(r.b1 - r.b0), total = a_len + b_len;
        int b_at = a_len + ext, loaded = total + 2 * ext;
        REQUIRE(loaded <= nv + 3, "tile %lld loads %d", t, loaded);
        for (int j = 0; j < slots; ++j) s[j] = (int)(next(rng) % 64) - 8;
        for (int j = 0; j < loaded; ++j) {
            long long g = j < b_at ? r.a0 + j : r.b0 + (j - b_at);
            REQUIRE(g >= 0 && g < (j < b_at ? ac : bc), "tile %lld loads from outside", t);
            s[j] = j < b_at ? a[g] : b[g];
        }
        for (int tid = 0; tid < nt; ++tid) {
            int diag = vt * tid < total ? vt * tid : total, star;
            int pa = (int)balanced(s, a_len, s + b_at, b_len, diag, &star);
            start[tid] = diag + star;
            ia0[tid] = pa;
            ib0[tid] = b_at + diag + star - pa;
        }
        start[nt] = total;
        for (int tid = 0; tid < nt; ++tid) {
            int i_a = ia0[tid], i_b = ib0[tid], end = b_at + start[tid + 1], emitted = 0;
            int done = 0;
            REQUIRE(i_a >= 0 && i_a < slots && i_b >= 0 && i_b < slots, "start outside s");
            int ka = s[i_a], kb = s[i_b];
            for (int i = 0; i < vt; ++i) {
                int has_a = ext || i_a < a_len, has_b = ext || i_b < b_at + b_len;
                int a_first = has_a && (!has_b || ka < kb);
                int b_first = has_b && (!has_a || kb < ka);
                int kind = a_first ? MJ_KEEP_A : b_first ? MJ_KEEP_B : MJ_KEEP_PAIR;
                int own = i_a + i_b < end;
                if (sorted && !own && !done) {
                    REQUIRE(i_a + i_b == end, "tile %lld thread %d passed its end", t, tid);
                    done = 1;
                }
                int mine = (ext && i < (vt - 1) / 2) || own;
                REQUIRE(!sorted || !mine || own, "tile %lld thread %d: step %d is not its own", t,
                        tid, i);
                if (mine && (kind & keep)) {
                    int p = b_first ? i_b : i_a, key = b_first ? kb : ka;
                    REQUIRE(!sorted || ((p < a_len || (p >= b_at && p < b_at + b_len)) &&
                                        key == s[p]),
                            "tile %lld thread %d emits s[%d] outside its parts", t, tid, p);
                    p = p < loaded - 1 ? p : loaded - 1;
                    out[m] = p < b_at ? (elem){0, r.a0 + p} : (elem){1, r.b0 + (p - b_at)};
                    REQUIRE(out[m].at >= 0 && out[m].at < (out[m].from_b ? bc : ac),
                            "a value from outside");
                    ++m;
                    ++emitted;
                }
                if (!b_first) {
                    REQUIRE(++i_a < slots, "tile %lld thread %d reads past s", t, tid);
                    ka = s[i_a];
                }
                if (!a_first) {
                    REQUIRE(++i_b < slots, "tile %lld thread %d reads past s", t, tid);
                    kb = s[i_b];
                }
            }
            REQUIRE(emitted <= vt, "tile %lld thread %d emits %d", t, tid, emitted);
            REQUIRE(!sorted || done || i_a + i_b == end,
                    "tile %lld thread %d did not finish its part in %d steps", t, tid, vt);
        }
    }
    free(e);
    free(s);
    free(start);
    free(ia0);
    free(ib0);
    return m;
}

static int cmp_int(const void *x, const void *y) {
    int p = *(const int *)x, q = *(const int *)y;
    return (p > q) - (p < q);
}

enum { RANDOM, FEW_KEYS, ALL_EQUAL, LONG_RUN_A, LONG_RUN_B, DISJOINT, IDENTICAL, UNSORTED };

/* Keys of one kind: sorted unless UNSORTED. */
static void fill(int *k, long long count, int kind, int side, long long nv, uint64_t *rng) {
    for (long long i = 0; i < count; ++i) {
        uint64_t r = next(rng);
        switch (kind) {
        case RANDOM: k[i] = (int)(r % (uint64_t)(2 * count + 1)); break;
        case FEW_KEYS: k[i] = (int)(r % 5); break;
        case ALL_EQUAL: k[i] = 7; break;
        /* A run of 3 tiles of one key on one side only, among random keys on both. */
        case LONG_RUN_A: k[i] = side == 0 && i % (4 * nv) < 3 * nv ? 500 : (int)(r % 1000); break;
        case LONG_RUN_B: k[i] = side == 1 && i % (4 * nv) < 3 * nv ? 500 : (int)(r % 1000); break;
        case DISJOINT: k[i] = (int)(2 * (r % 1000) + (uint64_t)side); break;
        case IDENTICAL: k[i] = (int)(i / 3); break;
        default: k[i] = (int)(r % 50); break;
        }
    }
    if (kind != UNSORTED) qsort(k, (size_t)count, sizeof *k, cmp_int);
}

static const struct {
    int nt, vt;
} shapes[] = {{32, 1}, {32, 2}, {32, 3}, {64, 7}, {128, 11}};

static void run_case(long long ac, long long bc, int kind, int nt, int vt, uint64_t *rng) {
    long long nv = (long long)nt * vt, n = ac + bc;
    int *a = malloc(sizeof *a * (size_t)(ac + 1)), *b = malloc(sizeof *b * (size_t)(bc + 1));
    elem *want = malloc(sizeof *want * (size_t)(n + 1)), *got = malloc(sizeof *got * (size_t)(n + 1));
    elem *order = malloc(sizeof *order * (size_t)(n + 1));
    /* Unsorted input may make an extended tile's unchecked steps emit past its elements. */
    elem *walked = malloc(sizeof *walked * (size_t)(n + nv + 1));
    char *pair_next = malloc((size_t)n + 1);
    ck_assert(a && b && want && got && order && walked && pair_next);
    fill(a, ac, kind, 0, nv, rng);
    if (kind == IDENTICAL) /* b: a's keys, then larger ones where b is longer */
        for (long long i = 0; i < bc; ++i) b[i] = i < ac ? a[i] : INT32_MAX;
    else
        fill(b, bc, kind, 1, nv, rng);
    int sorted = kind != UNSORTED;
    if (sorted) {
        /* The crossing of every diagonal, against the walk drawn out. */
        reference(a, ac, b, bc, 0, want, order, pair_next);
        long long a_seen = 0;
        for (long long d = 0; d <= n; ++d) {
            int star;
            long long p = balanced(a, ac, b, bc, d, &star);
            int want_star = d > 0 && pair_next[d - 1];
            ck_assert_msg(p == a_seen && star == want_star,
                          "diagonal %lld of %lld + %lld (kind %d): (%lld, %d), not (%lld, %d)",
                          d, ac, bc, kind, p, star, a_seen, want_star);
            if (d < n) a_seen += !order[d].from_b;
        }
    }
    for (int op = 0; op < 4; ++op) {
        int keep = mj_set_op_keep(op);
        long long m = model(a, ac, b, bc, keep, nt, vt, NULL, sorted, got);
        long long mw = model_walk(a, ac, b, bc, keep, nt, vt, NULL, sorted, walked, rng);
        if (!sorted) continue;
        long long w = reference(a, ac, b, bc, keep, want, order, pair_next);
        ck_assert_msg(m == w, "op %d, %lld + %lld (kind %d, %dx%d): %lld emitted, not %lld", op,
                      ac, bc, kind, nt, vt, m, w);
        for (long long i = 0; i < m; ++i)
            ck_assert_msg(got[i].from_b == want[i].from_b && got[i].at == want[i].at,
                          "op %d, %lld + %lld (kind %d, %dx%d): output %lld is %c[%lld], not "
                          "%c[%lld]", op, ac, bc, kind, nt, vt, i, "ab"[got[i].from_b],
                          got[i].at, "ab"[want[i].from_b], want[i].at);
        ck_assert_msg(mw == w, "walk: op %d, %lld + %lld (kind %d, %dx%d): %lld emitted, not %lld",
                      op, ac, bc, kind, nt, vt, mw, w);
        for (long long i = 0; i < mw; ++i)
            ck_assert_msg(walked[i].from_b == want[i].from_b && walked[i].at == want[i].at,
                          "walk: op %d, %lld + %lld (kind %d, %dx%d): output %lld is %c[%lld], "
                          "not %c[%lld]", op, ac, bc, kind, nt, vt, i, "ab"[walked[i].from_b],
                          walked[i].at, "ab"[want[i].from_b], want[i].at);
    }
    free(a);
    free(b);
    free(want);
    free(got);
    free(order);
    free(walked);
    free(pair_next);
}

/* Sizes around the tile edges of each shape, either side empty, and every kind of input. */
START_TEST(model_matches_reference)
{
    int nt = shapes[_i].nt, vt = shapes[_i].vt;
    long long nv = (long long)nt * vt;
    uint64_t rng = 0x5e70 + (uint64_t)_i;
    const long long sizes[][2] = {{0, 0},      {0, 1},          {1, 0},      {1, 1},
                                  {nv - 1, 1}, {nv, 0},         {0, nv + 1}, {nv / 2, nv / 2},
                                  {3 * nv, 2}, {5, 4 * nv},     {2 * nv + 3, 3 * nv - 2},
                                  {nv, nv},    {8 * nv, 7 * nv}, {1000, 1700}};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; ++z)
        for (int kind = RANDOM; kind <= UNSORTED; ++kind)
            run_case(sizes[z][0], sizes[z][1], kind, nt, vt, &rng);
}
END_TEST

/* Arbitrary partition entries (what a broken contract could leave) over unsorted keys: every
 * tile stays inside a, b and nv + 1 elements, and every thread emits at most vt. */
START_TEST(arbitrary_entries_stay_inside)
{
    uint64_t rng = 0xbadc0de;
    int nt = 32, vt = 3;
    long long nv = nt * vt, ac = 500, bc = 300, tiles = mj_setop_tile_count(ac + bc, nv);
    int a[500], b[300];
    fill(a, ac, UNSORTED, 0, nv, &rng);
    fill(b, bc, UNSORTED, 1, nv, &rng);
    long long e[64];
    elem out[1024]; /* tiles may overlap: up to nv a tile */
    ck_assert_int_lt(tiles + 1, 64);
    ck_assert_int_le(tiles * nv, 1024);
    for (int round = 0; round < 200; ++round) {
        for (long long t = 0; t <= tiles; ++t)
            e[t] = (long long)(next(&rng) % (uint64_t)(2 * (ac + bc) + 4)) - 1;
        for (int op = 0; op < 4; ++op) {
            model(a, ac, b, bc, mj_set_op_keep(op), nt, vt, e, 0, out);
            model_walk(a, ac, b, bc, mj_set_op_keep(op), nt, vt, e, 0, out, &rng);
        }
    }
}
END_TEST

START_TEST(keep_and_balance_arithmetic)
{
    ck_assert_int_eq(mj_set_op_keep(0), MJ_KEEP_PAIR);
    ck_assert_int_eq(mj_set_op_keep(1), MJ_KEEP_A | MJ_KEEP_B | MJ_KEEP_PAIR);
    ck_assert_int_eq(mj_set_op_keep(2), MJ_KEEP_A);
    ck_assert_int_eq(mj_set_op_keep(3), MJ_KEEP_A | MJ_KEEP_B);
    ck_assert_int_eq(mj_set_op_keep(4), 0);
    ck_assert_int_eq(mj_set_op_keep(-1), 0);
    /* Three copies in a, two in b before the diagonal, b holding four: a0 b0 a1 b1 a2 | b2. */
    mj_bp_point p = mj_bp_balance(3, 2, 4);
    ck_assert_int_eq(p.a_take, 3);
    ck_assert_int_eq(p.star, 1);
    /* The same with b holding only its two: no match to steal. */
    p = mj_bp_balance(3, 2, 2);
    ck_assert_int_eq(p.a_take, 3);
    ck_assert_int_eq(p.star, 0);
    /* Four of a's copies before the diagonal, b holding one: a0 b0 a1 a2. */
    p = mj_bp_balance(4, 0, 1);
    ck_assert_int_eq(p.a_take, 3);
    ck_assert_int_eq(p.star, 0);
    /* Four of a's, b holding five: a0 b0 a1 b1 | a2 ... */
    p = mj_bp_balance(4, 0, 5);
    ck_assert_int_eq(p.a_take, 2);
    ck_assert_int_eq(p.star, 0);
    ck_assert_int_eq(mj_bp_entry(5, 1), 11);
}
END_TEST

static Suite *setops_model_suite(void) {
    Suite *s = suite_create("setops_model");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, keep_and_balance_arithmetic);
    tcase_add_loop_test(tc, model_matches_reference, 0, (int)(sizeof shapes / sizeof *shapes));
    tcase_add_test(tc, arbitrary_entries_stay_inside);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(setops_model_suite(), 1); }
