/* SPDX-License-Identifier: Apache-2.0 */
/* A CPU model of the single-pass scan (templates/kernels/kernel_scan.cuh and
 * block/cta_scan.cuh): worker threads stand for blocks, take tile ids from an atomic counter,
 * publish each tile's aggregate and inclusive prefix with a status, and look back over windows
 * of 32 predecessors as warp 0 does (the highest lane holding a prefix stops the window; lanes
 * below it count as the identity). The tile's own scan follows the kernel's steps with the
 * warp shuffles simulated lane by lane: a warp inclusive scan (shuffle up), the ordered warp
 * reduction (shuffle down) and the block's combination of warp totals. Random pauses reorder
 * the workers. Both state encodings are modelled: one 64-bit word (status and value together)
 * and a status flag published after its value (C11 release/acquire standing for the kernel's
 * __threadfence pairs). The operator composes affine maps x -> m x + c over integers mod 2^16,
 * packed in 32 bits: associative, not commutative, so any reordering or dropped element
 * shows. The state buffer is reused across runs after clearing, as a caller's temp is.
 * CPU only. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

#define NT 64 /* two warps */
#define VT 3
#define NV (NT * VT)
#define WARPS (NT / 32)

enum { INVALID = 0, AGGREGATE = 1, PREFIX = 2 };

typedef uint32_t elem; /* m in the high 16 bits, c in the low */

static elem op(elem a, elem b) { /* a first, then b */
    uint32_t am = a >> 16, ac = a & 0xFFFF, bm = b >> 16, bc = b & 0xFFFF;
    return ((am * bm) & 0xFFFF) << 16 | ((ac * bm + bc) & 0xFFFF);
}
static const elem IDENTITY = 1u << 16;

typedef struct model {
    int packed;
    long long n, tiles;
    const elem *in;
    elem *out;
    int inclusive;
    int pause; /* between a tile's aggregate and its look-back */
    elem total;
    atomic_int counter;
    _Atomic uint64_t *words;   /* packed */
    atomic_uint *flags;        /* separate */
    elem *aggregate, *inclusive_prefix;
    unsigned seed;
    atomic_long extra_windows; /* look-backs that went past their first window */
} model;

static void pause_a_little(unsigned *seed) {
    int r = rand_r(seed) % 8;
    for (int i = 0; i < r; ++i) sched_yield();
}

static void publish(model *m, long long tile, unsigned status, elem v) {
    if (m->packed) {
        atomic_store_explicit(&m->words[tile], (uint64_t)status << 32 | v, memory_order_relaxed);
    } else {
        elem *slot = status == PREFIX ? m->inclusive_prefix : m->aggregate;
        slot[tile] = v;
        atomic_store_explicit(&m->flags[tile], status, memory_order_release);
    }
}

/* One lane's state; the caller spins until all 32 have one (the kernel's __any_sync loop). */
static unsigned read_state(model *m, long long pred, elem *v) {
    if (pred < 0) {
        *v = IDENTITY;
        return PREFIX;
    }
    if (m->packed) {
        uint64_t w = atomic_load_explicit(&m->words[pred], memory_order_relaxed);
        *v = (elem)w;
        return (unsigned)(w >> 32);
    }
    unsigned s = atomic_load_explicit(&m->flags[pred], memory_order_acquire);
    if (s != INVALID) *v = s == PREFIX ? m->inclusive_prefix[pred] : m->aggregate[pred];
    return s;
}

/* Lanes of a look-back window: 32 as in the kernel; fewer make the look-back walk over many
 * windows with few workers (with 32, a window always reaches a tile that has finished unless
 * more than 32 tiles are in flight). */
static int window = 32;

/* mj_warp_reduce over `w` lanes: lane 0's value after the shuffle-down steps. */
static elem warp_reduce(const elem x_in[32], int w) {
    elem x[32], y[32];
    memcpy(x, x_in, sizeof x);
    for (int d = 1; d < w; d *= 2) {
        for (int l = 0; l < w; ++l) y[l] = l + d < w ? x[l + d] : x[l];
        for (int l = 0; l < w; ++l)
            if (l + d < w) x[l] = op(x[l], y[l]);
    }
    return x[0];
}

/* mj_warp_scan: inclusive, shuffle up. */
static void warp_scan(elem x[32]) {
    elem y[32];
    for (int d = 1; d < 32; d *= 2) {
        for (int l = 0; l < 32; ++l) y[l] = l >= d ? x[l - d] : x[l];
        for (int l = 0; l < 32; ++l)
            if (l >= d) x[l] = op(y[l], x[l]);
    }
}

/* mj_look_back. */
static elem look_back(model *m, long long tile) {
    elem prefix = IDENTITY;
    for (long long end = tile;; end -= window) {
        unsigned status[32];
        elem v[32];
        for (int again = 1; again;) {
            again = 0;
            for (int l = 0; l < window; ++l) {
                status[l] = read_state(m, end - window + l, &v[l]);
                again |= status[l] == INVALID;
            }
            if (again) sched_yield();
        }
        unsigned ps = 0;
        for (int l = 0; l < window; ++l) ps |= (unsigned)(status[l] == PREFIX) << l;
        int stop = ps ? 31 - __builtin_clz(ps) : 0;
        for (int l = 0; l < stop; ++l) v[l] = IDENTITY;
        prefix = op(warp_reduce(v, window), prefix);
        if (ps) return prefix;
        ++m->extra_windows;
    }
}

static void scan_tile(model *m, long long tile) {
    long long first = tile * NV;
    int count = (int)(m->n - first < NV ? m->n - first : NV);
    elem x[NT][VT], t[NT];
    for (int tid = 0; tid < NT; ++tid) {
        for (int i = 0; i < VT; ++i) {
            int j = tid * VT + i;
            x[tid][i] = j < count ? m->in[first + j] : IDENTITY;
        }
        t[tid] = x[tid][0];
        for (int i = 1; i < VT; ++i) t[tid] = op(t[tid], x[tid][i]);
    }
    /* mj_cta_scan */
    elem in_warp[NT], warp_total[WARPS], p[NT];
    memcpy(in_warp, t, sizeof t);
    for (int w = 0; w < WARPS; ++w) {
        warp_scan(in_warp + 32 * w);
        warp_total[w] = in_warp[32 * w + 31];
    }
    for (int tid = 0; tid < NT; ++tid) {
        int lane = tid & 31, warp = tid >> 5;
        p[tid] = IDENTITY;
        for (int w = 0; w < warp; ++w) p[tid] = op(p[tid], warp_total[w]);
        if (lane) p[tid] = op(p[tid], in_warp[tid - 1]);
    }
    elem aggregate = warp_total[0];
    for (int w = 1; w < WARPS; ++w) aggregate = op(aggregate, warp_total[w]);

    elem before = IDENTITY;
    if (tile == 0) {
        publish(m, 0, PREFIX, aggregate);
    } else {
        publish(m, tile, AGGREGATE, aggregate);
        for (int i = 0; i < m->pause; ++i) pause_a_little(&m->seed);
        before = look_back(m, tile);
        publish(m, tile, PREFIX, op(before, aggregate));
    }
    if (tile == m->tiles - 1) m->total = op(before, aggregate);
    for (int tid = 0; tid < NT; ++tid) {
        elem q = op(before, p[tid]);
        for (int i = 0; i < VT; ++i) {
            int j = tid * VT + i;
            elem y = x[tid][i];
            if (m->inclusive) q = op(q, y);
            if (j < count) m->out[first + j] = q;
            if (!m->inclusive) q = op(q, y);
        }
    }
}

typedef struct worker {
    model *m;
    unsigned seed;
} worker;

static void *work(void *arg) {
    worker *w = arg;
    model *m = w->m;
    for (;;) {
        pause_a_little(&w->seed);
        long long tile = atomic_fetch_add(&m->counter, 1);
        if (tile >= m->tiles) return NULL;
        scan_tile(m, tile);
    }
}

static long run_model(int packed, long long n, int inclusive, int workers, unsigned seed,
                      int runs, int pause) {
    elem *in = malloc((size_t)(n ? n : 1) * sizeof *in);
    elem *out = malloc((size_t)(n ? n : 1) * sizeof *out);
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    for (long long i = 0; i < n; ++i) in[i] = (elem)rand_r(&seed) | 1u << 16;
    model m;
    memset(&m, 0, sizeof m);
    m.packed = packed;
    m.n = n;
    m.tiles = (n + NV - 1) / NV;
    m.in = in;
    m.out = out;
    m.inclusive = inclusive;
    m.seed = seed;
    m.pause = pause;
    size_t tiles = (size_t)(m.tiles ? m.tiles : 1);
    m.words = malloc(tiles * sizeof *m.words);
    m.flags = malloc(tiles * sizeof *m.flags);
    m.aggregate = malloc(tiles * sizeof *m.aggregate);
    m.inclusive_prefix = malloc(tiles * sizeof *m.inclusive_prefix);
    for (int run = 0; run < runs; ++run) {
        /* The host's clear of the states (cuMemsetD8Async) before every run. */
        atomic_store(&m.counter, 0);
        for (size_t t = 0; t < tiles; ++t) {
            atomic_store(&m.words[t], 0);
            atomic_store(&m.flags[t], 0);
        }
        memset(out, 0xEE, (size_t)(n ? n : 1) * sizeof *out);
        pthread_t th[16];
        worker w[16];
        for (int i = 0; i < workers; ++i) {
            w[i] = (worker){&m, seed * 31u + (unsigned)i * 7u + (unsigned)run};
            ck_assert_int_eq(pthread_create(&th[i], NULL, work, &w[i]), 0);
        }
        for (int i = 0; i < workers; ++i) pthread_join(th[i], NULL);
        elem acc = IDENTITY;
        for (long long i = 0; i < n; ++i) {
            elem before = acc;
            acc = op(acc, in[i]);
            elem want = inclusive ? acc : before;
            if (out[i] != want)
                ck_abort_msg("%s, %s, n %lld, run %d: out[%lld] = %08x, not %08x",
                             packed ? "packed" : "flagged", inclusive ? "inclusive" : "exclusive",
                             n, run, i, out[i], want);
        }
        if (n) ck_assert_uint_eq(m.total, acc);
    }
    free((void *)m.words);
    free((void *)m.flags);
    free(m.aggregate);
    free(m.inclusive_prefix);
    free(in);
    free(out);
    return atomic_load(&m.extra_windows);
}

/* Sizes around the tile edges, and enough tiles for several look-back windows (32 tiles). */
START_TEST(look_back_matches_sequential)
{
    static const long long sizes[] = {1,          NV - 1,     NV,          NV + 1,
                                      2 * NV - 1, 2 * NV + 1, 33 * NV + 5, 200 * NV - 3};
    int packed = _i & 1, inclusive = _i >> 1;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; ++k)
        run_model(packed, sizes[k], inclusive, 8, 1234u + (unsigned)k, 3, 1);
}
END_TEST

/* One worker: tiles in order, each look-back finds its neighbour's prefix at once. Many
 * workers, long pauses before the look-back and windows of 4: look-backs over several windows
 * of aggregates only (the test checks that some happened). */
START_TEST(look_back_schedules)
{
    run_model(_i, 100 * NV + 7, 1, 1, 99u, 1, 1);
    window = 4;
    long extra = run_model(_i, 300 * NV + 7, 0, 16, 98u, 2, 50);
    extra += run_model(_i, 300 * NV + 7, 1, 16, 97u, 1, 50);
    window = 32;
    ck_assert_int_gt(extra, 0);
}
END_TEST

/* The ordered warp reduction and scan keep lane order for a non-commutative operator. */
START_TEST(warp_steps_keep_order)
{
    elem x[32], s[32];
    unsigned seed = 5;
    for (int l = 0; l < 32; ++l) x[l] = (elem)rand_r(&seed) | 1u << 16;
    memcpy(s, x, sizeof x);
    warp_scan(s);
    elem acc = IDENTITY;
    for (int l = 0; l < 32; ++l) {
        acc = op(acc, x[l]);
        ck_assert_uint_eq(s[l], acc);
    }
    ck_assert_uint_eq(warp_reduce(x, 32), acc);
    ck_assert_uint_ne(op(x[0], x[1]), op(x[1], x[0])); /* the operator is not commutative */
}
END_TEST

static Suite *scan_model_suite(void) {
    Suite *s = suite_create("scan_model");
    TCase *tc = tcase_create("look_back");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, warp_steps_keep_order);
    tcase_add_loop_test(tc, look_back_matches_sequential, 0, 4);
    tcase_add_loop_test(tc, look_back_schedules, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(scan_model_suite(), 1); }
