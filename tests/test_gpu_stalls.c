/* SPDX-License-Identifier: Apache-2.0 */
/* No hidden host stalls: after mj_sorter_create returns, no run call on that sorter waits for
 * the device. A non-blocking stream held closed by a host function (the gate) with large
 * memsets queued behind it stands for an application's pipeline. Every primitive is called on
 * it through a sorter of a fresh context, first (cold: the sorter's first run, so whatever it
 * builds or loads late happens then) and again (warm), and through its one-call function, on
 * first use (which creates the sorter and so may wait: documented, reported here, not
 * asserted) and again (warm: must not wait). A call waited when the gate had given up
 * (GATE_SECONDS) by the time it returned: nothing else opens the gate while the test's thread
 * is inside the call. Mergesorts are large enough (2^25 bytes and more) to run 4-way passes,
 * both of their partitions (groups of lanes, one lane); joins cover every kind, counts and
 * rows, and a plan and its rows. Inputs are zeros, which every primitive takes (sorted keys,
 * offsets of empty objects but the last); results are checked by the primitives' own tests.
 * Skips (exit 77) where there is no GPU. MJ_TEST_SMALL=1 (compute-sanitizer, which may
 * serialise the stream) runs the calls on an open stream and checks their status only. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_support.h"

#define GATE_SECONDS 5.0
#define BUFFERS 8
#define BUFFER_BYTES ((size_t)1 << 27)
#define N ((size_t)1 << 16) /* elements of every input but the large sorts' */

static mjt_cudart rt;
static void *stream;
static void *buf[BUFFERS]; /* zeros; buf[SCRATCH] takes the memsets behind the gate */
enum { IN0, IN1, IN2, OUT0, OUT1, OUT2, SORT_KEYS, SCRATCH };
static int small;

/* 0 before the gate runs, 1 while it holds the stream, 2 once it gave up waiting. */
static atomic_int gate_state, gate_open;

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void gate(void *arg) {
    (void)arg;
    atomic_store(&gate_state, 1);
    double t0 = seconds();
    while (!atomic_load(&gate_open)) {
        if (seconds() - t0 > GATE_SECONDS) {
            atomic_store(&gate_state, 2);
            return;
        }
        usleep(200);
    }
}

static void hold(void) {
    atomic_store(&gate_state, 0);
    atomic_store(&gate_open, 0);
    if (small) return; /* under a sanitizer, which may serialise: the calls alone */
    ck_assert_int_eq(rt.launch_host_func(stream, gate, NULL), 0);
    for (int i = 0; i < 8; ++i)
        ck_assert_int_eq(rt.memset_async(buf[SCRATCH], i, BUFFER_BYTES, stream), 0);
}

/* Opens the gate, waits for the stream; 1 when the gate had given up (the call waited). */
static int release(void) {
    int waited = atomic_load(&gate_state) == 2;
    atomic_store(&gate_open, 1);
    ck_assert_int_eq(rt.stream_sync(stream), 0);
    return waited;
}

typedef mj_status (*run_fn)(mj_context *c, const mj_sort_desc *d, mj_sorter *s);

typedef struct stall_case {
    const char *name;
    mj_primitive primitive;
    mj_key_kind key;
    size_t value_size;
    run_fn run; /* s NULL: the one-call function */
} stall_case;

static mj_status sort_keys(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    size_t n = (size_t)1 << 23; /* 2^25 bytes: 4-way passes, partitions by groups of lanes */
    return s ? mj_sorter_sort(s, buf[SORT_KEYS], NULL, n, NULL, 0, stream)
             : mj_sort_keys(c, d, buf[SORT_KEYS], n, stream);
}

static mj_status sort_pairs(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    size_t n = (size_t)1 << 24; /* more tiles: the 4-way partitions by one lane */
    return s ? mj_sorter_sort(s, buf[SORT_KEYS], buf[OUT2], n, NULL, 0, stream)
             : mj_sort_pairs(c, d, buf[SORT_KEYS], buf[OUT2], n, 4, stream);
}

static mj_status sort_indices(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    size_t n = (size_t)1 << 23;
    return s ? mj_sorter_sort_indices(s, buf[IN0], buf[OUT0], n, NULL, 0, stream)
             : mj_sort_indices(c, d, buf[IN0], buf[OUT0], n, 4, stream);
}

static mj_status locality(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return s ? mj_sorter_sort(s, buf[SORT_KEYS], NULL, N, NULL, 0, stream)
             : mj_sort_keys(c, d, buf[SORT_KEYS], N, stream);
}

static mj_status merge(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return s ? mj_sorter_merge(s, buf[IN0], buf[IN1], N, buf[IN2], buf[IN1], N, buf[OUT0],
                               buf[OUT1], NULL, 0, stream)
             : mj_merge_pairs(c, d, buf[IN0], buf[IN1], N, buf[IN2], buf[IN1], N, buf[OUT0],
                              buf[OUT1], 4, stream);
}

static mj_status segsort(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    mj_segments seg = {MJ_SEGMENTS_FLAGS, buf[IN0], 0, 0};
    return s ? mj_sorter_segmented_sort(s, buf[SORT_KEYS], NULL, N, &seg, NULL, 0, stream)
             : mj_segmented_sort_keys(c, d, buf[SORT_KEYS], N, &seg, stream);
}

static mj_status reduce(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return s ? mj_sorter_reduce(s, buf[IN0], N, buf[OUT0], NULL, 0, stream)
             : mj_reduce(c, d, buf[IN0], N, buf[OUT0], stream);
}

static mj_status scan(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return s ? mj_sorter_scan(s, buf[IN0], N, buf[OUT0], MJ_SCAN_EXCLUSIVE, buf[OUT1], NULL, 0,
                              stream)
             : mj_scan(c, d, buf[IN0], N, buf[OUT0], MJ_SCAN_EXCLUSIVE, buf[OUT1], stream);
}

static mj_status lbs(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return s ? mj_sorter_load_balance(s, buf[IN0], N, N, buf[OUT0], buf[OUT1], NULL, 0, stream)
             : mj_load_balance(c, d, buf[IN0], N, N, buf[OUT0], buf[OUT1], stream);
}

static mj_status expand(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return s ? mj_sorter_interval_expand(s, buf[IN0], N, N, buf[IN1], buf[OUT0], NULL, 0, stream)
             : mj_interval_expand(c, d, buf[IN0], N, N, buf[IN1], buf[OUT0], 4, stream);
}

static mj_status move(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return s ? mj_sorter_interval_move(s, buf[IN0], N, N, buf[IN1], buf[IN1], buf[IN2], N,
                                       buf[OUT0], N, NULL, 0, stream)
             : mj_interval_move(c, d, buf[IN0], N, N, buf[IN1], buf[IN1], buf[IN2], N, buf[OUT0],
                                N, 4, stream);
}

static mj_status search(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    mj_search_outputs o = {0};
    o.bound = MJ_BOUND_LOWER;
    o.index_size = 4;
    o.a_indices = buf[OUT0];
    o.a_counts = buf[OUT1];
    o.match_counts = buf[OUT2];
    return s ? mj_sorter_sorted_search(s, buf[IN0], N, buf[IN1], N, &o, NULL, 0, stream)
             : mj_sorted_search(c, d, buf[IN0], N, buf[IN1], N, &o, stream);
}

static mj_status bulk_remove(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return s ? mj_sorter_bulk_remove(s, buf[IN0], NULL, N, buf[IN1], 1, 4, buf[OUT0], NULL, NULL,
                                     0, stream)
             : mj_bulk_remove(c, d, buf[IN0], NULL, N, buf[IN1], 1, 4, buf[OUT0], NULL, 0,
                              stream);
}

static mj_status bulk_insert(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return s ? mj_sorter_bulk_insert(s, buf[IN0], NULL, buf[IN1], N, 4, buf[IN2], NULL, N,
                                     buf[OUT0], NULL, NULL, 0, stream)
             : mj_bulk_insert(c, d, buf[IN0], NULL, buf[IN1], N, 4, buf[IN2], NULL, N, buf[OUT0],
                              NULL, 0, stream);
}

/* Zero keys on both sides: every row matches every row (N_JOIN^2 rows). */
#define N_JOIN 200
static mj_status join_rows(mj_context *c, const mj_sort_desc *d, mj_sorter *s, mj_join_kind k) {
    size_t cap = (size_t)N_JOIN * N_JOIN + 2 * N_JOIN;
    return s ? mj_sorter_join(s, k, buf[IN0], N_JOIN, buf[IN1], N_JOIN, 4, buf[OUT0], buf[OUT1],
                              cap, buf[OUT2], NULL, 0, stream)
             : mj_join(c, d, k, buf[IN0], N_JOIN, buf[IN1], N_JOIN, 4, buf[OUT0], buf[OUT1], cap,
                       buf[OUT2], stream);
}

static mj_status join_count(mj_context *c, const mj_sort_desc *d, mj_sorter *s, mj_join_kind k) {
    /* The one-call join counts when its row arrays are NULL. */
    return s ? mj_sorter_join_count(s, k, buf[IN0], N_JOIN, buf[IN1], N_JOIN, buf[OUT2], NULL, 0,
                                    stream)
             : mj_join(c, d, k, buf[IN0], N_JOIN, buf[IN1], N_JOIN, 4, NULL, NULL, 0, buf[OUT2],
                       stream);
}

/* A plan in buf[SCRATCH] (behind the gate's memsets in stream order), then its rows; the
 * one-call join stands in where there is no sorter. */
static mj_status join_plan_rows(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    if (!s) return join_rows(c, d, s, MJ_JOIN_OUTER);
    size_t bytes = 0, cap = (size_t)N_JOIN * N_JOIN + 2 * N_JOIN;
    mj_join_plan plan;
    mj_status st = mj_sorter_temp_size(s, 2 * N_JOIN, 0, &bytes);
    if (!st && bytes > BUFFER_BYTES) st = MJ_ERR_TOO_LARGE;
    if (!st)
        st = mj_sorter_join_plan(s, MJ_JOIN_OUTER, buf[IN0], N_JOIN, buf[IN1], N_JOIN, buf[OUT2],
                                 buf[SCRATCH], bytes, stream, &plan);
    return st ? st
              : mj_sorter_join_rows(s, &plan, 4, buf[OUT0], buf[OUT1], cap, buf[SCRATCH], bytes,
                                    stream);
}

static mj_status join_inner(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return join_rows(c, d, s, MJ_JOIN_INNER);
}
static mj_status join_left(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return join_rows(c, d, s, MJ_JOIN_LEFT);
}
static mj_status join_right(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return join_rows(c, d, s, MJ_JOIN_RIGHT);
}
static mj_status join_outer(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return join_rows(c, d, s, MJ_JOIN_OUTER);
}
static mj_status join_count_outer(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return join_count(c, d, s, MJ_JOIN_OUTER);
}

static mj_status set_op(mj_context *c, const mj_sort_desc *d, mj_sorter *s, mj_set_op op) {
    return s ? mj_sorter_set_op(s, op, buf[IN0], NULL, N, buf[IN1], NULL, N, buf[OUT0], NULL,
                                buf[OUT2], NULL, 0, stream)
             : mj_set_op_run(c, d, op, buf[IN0], NULL, N, buf[IN1], NULL, N, buf[OUT0], NULL,
                             buf[OUT2], 0, stream);
}
static mj_status set_union(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return set_op(c, d, s, MJ_SET_UNION);
}
static mj_status set_difference(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return set_op(c, d, s, MJ_SET_DIFFERENCE);
}

/* Zero keys: one run of N. */
static mj_status reduce_by_key(mj_context *c, const mj_sort_desc *d, mj_sorter *s) {
    return s ? mj_sorter_reduce_by_key(s, buf[IN0], buf[IN1], N, buf[OUT0], buf[OUT1], buf[OUT2],
                                       NULL, 0, stream)
             : mj_reduce_by_key(c, d, buf[IN0], buf[IN1], N, buf[OUT0], buf[OUT1], buf[OUT2], 4,
                                stream);
}

static const stall_case cases[] = {
    {"mergesort keys", MJ_MERGESORT, MJ_KEY_U32, 0, sort_keys},
    {"mergesort pairs", MJ_MERGESORT, MJ_KEY_U32, 4, sort_pairs},
    {"mergesort indices", MJ_MERGESORT, MJ_KEY_F32, 4, sort_indices},
    {"locality sort", MJ_LOCALITY_SORT, MJ_KEY_U32, 0, locality},
    {"merge pairs", MJ_MERGE, MJ_KEY_U32, 4, merge},
    {"segmented sort", MJ_SEGMENTED_SORT, MJ_KEY_U32, 0, segsort},
    {"reduce", MJ_REDUCE, MJ_KEY_U32, 0, reduce},
    {"scan", MJ_SCAN, MJ_KEY_U32, 0, scan},
    {"load balance", MJ_LOAD_BALANCE, MJ_KEY_I32, 0, lbs},
    {"interval expand", MJ_INTERVAL_EXPAND, MJ_KEY_I32, 4, expand},
    {"interval move", MJ_INTERVAL_MOVE, MJ_KEY_I32, 4, move},
    {"sorted search", MJ_SORTED_SEARCH, MJ_KEY_U32, 0, search},
    {"bulk remove", MJ_BULK_REMOVE, MJ_KEY_U32, 0, bulk_remove},
    {"bulk insert", MJ_BULK_INSERT, MJ_KEY_U32, 0, bulk_insert},
    {"join inner", MJ_JOIN, MJ_KEY_U32, 0, join_inner},
    {"join left", MJ_JOIN, MJ_KEY_U32, 0, join_left},
    {"join right", MJ_JOIN, MJ_KEY_U32, 0, join_right},
    {"join outer", MJ_JOIN, MJ_KEY_U32, 0, join_outer},
    {"join count outer", MJ_JOIN, MJ_KEY_U32, 0, join_count_outer},
    {"join plan and rows", MJ_JOIN, MJ_KEY_U32, 0, join_plan_rows},
    {"set union", MJ_SET_OPS, MJ_KEY_U32, 0, set_union},
    {"set difference", MJ_SET_OPS, MJ_KEY_U32, 0, set_difference},
    {"reduce by key", MJ_REDUCE_BY_KEY, MJ_KEY_U32, 4, reduce_by_key},
};
#define CASES (int)(sizeof cases / sizeof *cases)

static mj_sort_desc desc_of(const stall_case *c) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, c->key, MJ_ASCENDING);
    d.primitive = c->primitive;
    d.value_size = c->value_size;
    if (c->primitive == MJ_REDUCE_BY_KEY) d.value_type = "unsigned";
    return d;
}

/* The call on the held stream: its status, and whether it waited for the device. */
static int held_call(const stall_case *c, mj_context *x, const mj_sort_desc *d, mj_sorter *s,
                     const char *when) {
    hold();
    double t0 = seconds();
    mj_status st = c->run(x, d, s);
    double ms = (seconds() - t0) * 1e3;
    int waited = release();
    ck_assert_msg(st == MJ_OK, "%s, %s: %s: %s", c->name, when, mj_status_name(st),
                  mj_context_last_error(x));
    printf("  %-18s %-16s %9.2f ms%s\n", c->name, when, ms, waited ? "  WAITED for the device" : "");
    return waited && !small;
}

/* A fresh context, so that nothing the sorter builds or loads late is in its memory yet (the
 * disk cache may hold it: loading a module is what can wait for the device). */
static mj_context *fresh_context(void) {
    mj_context *x = NULL;
    mj_status st = mj_context_create(NULL, &x);
    ck_assert_msg(st == MJ_OK, "%s", mj_status_name(st));
    return x;
}

START_TEST(test_sorter_never_waits) {
    const stall_case *c = &cases[_i];
    mj_context *x = fresh_context();
    mj_sort_desc d = desc_of(c);
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(x, &d, &s);
    ck_assert_msg(st == MJ_OK, "%s: create: %s: %s", c->name, mj_status_name(st),
                  mj_context_last_error(x));
    int cold = held_call(c, x, &d, s, "sorter, cold");
    int warm = held_call(c, x, &d, s, "sorter, warm");
    mj_sorter_destroy(s);
    mj_context_destroy(x);
    ck_assert_msg(!cold && !warm, "%s: a run on a created sorter waited for the device (%s)",
                  c->name, cold ? "its first run" : "a later run");
}
END_TEST

START_TEST(test_one_call_warm_never_waits) {
    const stall_case *c = &cases[_i];
    mj_context *x = fresh_context();
    mj_sort_desc d = desc_of(c);
    /* The first use creates the sorter: it may wait (documented); reported only. */
    held_call(c, x, &d, NULL, "one-call, cold");
    int warm = held_call(c, x, &d, NULL, "one-call, warm");
    mj_context_destroy(x);
    ck_assert_msg(!warm, "%s: a one-call function used before waited for the device", c->name);
}
END_TEST

int main(void) {
    mj_context *probe = mjt_gpu_context_or_skip("test_gpu_stalls");
    mj_context_destroy(probe);
    if (mjt_cudart_load(&rt)) return 1;
    small = mjt_small();
    if (rt.stream_create_flags(&stream, 1)) return 1;
    for (int i = 0; i < BUFFERS; ++i) {
        if (rt.mem_alloc(&buf[i], BUFFER_BYTES)) return 1;
        if (rt.memset_async(buf[i], 0, BUFFER_BYTES, stream)) return 1;
    }
    if (rt.stream_sync(stream)) return 1;
    Suite *s = suite_create("gpu_stalls");
    TCase *tc = tcase_create("stalls");
    tcase_set_timeout(tc, 1800);
    tcase_add_loop_test(tc, test_sorter_never_waits, 0, CASES);
    tcase_add_loop_test(tc, test_one_call_warm_never_waits, 0, CASES);
    suite_add_tcase(s, tc);
    /* One process: the streams and buffers are this process's. */
    int failed = mjt_run(s, 0);
    for (int i = 0; i < BUFFERS; ++i) rt.mem_free(buf[i]);
    rt.stream_destroy(stream);
    return failed;
}
