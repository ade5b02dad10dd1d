/* SPDX-License-Identifier: Apache-2.0 */
/* The sort across GPUs over NCCL, against a CPU stable sort. Uses every visible GPU (P = the
 * device count, at most 8, capped by $MJ_TEST_GPUS; P = 1 runs the same path over a one-rank
 * communicator), one host thread a rank, communicators from mj_multi_comms_create. Key kinds:
 * u32, i64, f32 (NaNs, -0, infinities), f64 descending, a 16-byte struct with a two-field
 * comparator, and pairs with 4- and 12-byte values holding each key's global input position
 * (which checks stability across ranks; float NaNs of different payloads check it for keys
 * alone). Shards: none anywhere, none on one rank, one key each, tile edges, very unequal,
 * a few million in all; all-equal, sorted and reverse keys; every rank's count within the
 * bound of primitives/multi_plan.h. Paths: the one call, the two phases, a capacity too small
 * on one rank (MJ_ERR_TOO_LARGE everywhere, nothing exchanged), and a bad argument on one
 * rank (MJ_ERR_INVALID_ARGUMENT everywhere, every rank's keys untouched).
 * Skips (77) without a GPU or without NCCL ($MERGEJIT_NCCL names it). MJ_TEST_SMALL=1 runs
 * small sizes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "cli.h"
#include "primitives/multi_plan.h"
#include "test_support.h"

#define MAXR 8

static int P, small, verbose;
static mj_context *ctxs[MAXR];
static void *comms[MAXR];

/* ---------------------------------------------------------------- keys and references */

typedef struct kind_case {
    const char *name;
    mj_key_kind kind;
    mj_order order;
    size_t vs;
} kind_case;

static const kind_case kinds[] = {
    {"u32", MJ_KEY_U32, MJ_ASCENDING, 0},     {"i64", MJ_KEY_I64, MJ_ASCENDING, 0},
    {"f32", MJ_KEY_F32, MJ_ASCENDING, 0},     {"f64 desc", MJ_KEY_F64, MJ_DESCENDING, 0},
    {"u32+4", MJ_KEY_U32, MJ_ASCENDING, 4},   {"u64+12", MJ_KEY_U64, MJ_ASCENDING, 12},
    {"rec+4", MJ_KEY_CUSTOM, MJ_ASCENDING, 4},
};

/* The custom key: hi ascending, then lo descending. */
typedef struct rec {
    uint64_t hi, lo;
} rec;

static mj_sort_desc desc_of(const kind_case *k) {
    mj_sort_desc d;
    if (k->kind != MJ_KEY_CUSTOM) {
        mj_sort_desc_init(&d, k->kind, k->order);
    } else {
        memset(&d, 0, sizeof d);
        d.key = MJ_KEY_CUSTOM;
        d.type_name = "rec";
        d.type_source = "struct rec { unsigned long long hi, lo; };";
        d.type_size = sizeof(rec);
        d.type_align = 8;
        d.less = "a.hi < b.hi || (a.hi == b.hi && a.lo > b.lo)";
    }
    d.value_size = k->vs;
    return d;
}

static size_t key_size(const kind_case *k) {
    return k->kind == MJ_KEY_CUSTOM ? sizeof(rec) : mj_key_kind_size(k->kind);
}

static const rec *g_recs; /* the keys rec_cmp's indices name (main thread only) */
static int rec_cmp(const void *x, const void *y) {
    uint64_t i = *(const uint64_t *)x, j = *(const uint64_t *)y;
    const rec *a = &g_recs[i], *b = &g_recs[j];
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    if (a->lo != b->lo) return a->lo > b->lo ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* The stable sorting permutation of n keys. */
static void reference(const kind_case *k, const void *keys, size_t n, uint64_t *perm) {
    if (k->kind != MJ_KEY_CUSTOM) {
        ck_assert_int_eq(kg_reference_sort(k->kind, k->order, keys, n, perm), MJ_OK);
        return;
    }
    for (size_t i = 0; i < n; ++i) perm[i] = i;
    g_recs = keys;
    qsort(perm, n, sizeof *perm, rec_cmp);
}

enum { D_RANDOM, D_EQUAL, D_SORTED, D_REVERSE };
static const char *const dist_names[] = {"random", "all-equal", "sorted", "reverse"};

static unsigned char *make_keys(const kind_case *k, int dist, size_t n, uint64_t seed) {
    size_t ks = key_size(k);
    unsigned char *keys = malloc(n * ks + 1);
    ck_assert_ptr_nonnull(keys);
    if (k->kind == MJ_KEY_CUSTOM) {
        rec *r = (rec *)keys;
        for (size_t i = 0; i < n; ++i) {
            r[i].hi = mjt_rand(&seed) % 1000;
            r[i].lo = mjt_rand(&seed) % 7;
        }
    } else {
        kg_fill_keys(k->kind, keys, n, seed);
    }
    if (n && dist == D_EQUAL)
        for (size_t i = 1; i < n; ++i) memcpy(keys + i * ks, keys, ks);
    if (n && (dist == D_SORTED || dist == D_REVERSE)) {
        uint64_t *perm = malloc(n * sizeof *perm);
        unsigned char *tmp = malloc(n * ks);
        ck_assert(perm && tmp);
        reference(k, keys, n, perm);
        for (size_t i = 0; i < n; ++i)
            memcpy(tmp + (dist == D_SORTED ? i : n - 1 - i) * ks, keys + perm[i] * ks, ks);
        memcpy(keys, tmp, n * ks);
        free(perm);
        free(tmp);
    }
    return keys;
}

/* ---------------------------------------------------------------- one rank's run */

enum { M_ONE_CALL, M_TWO_PHASES, M_SHORT_CAPACITY, M_BAD_ARGUMENT };
static const char *const mode_names[] = {"one call", "two phases", "short capacity",
                                         "bad argument"};

typedef struct rank_job {
    int rank, mode;
    mj_multi_sorter *m;
    size_t ks, vs, n, capacity;
    const unsigned char *keys, *values; /* the shard on the host */
    mj_status st;
    char msg[1024];
    size_t out_count;
    unsigned char *out_keys, *out_values, *keys_after; /* read back (host) */
    int setup_failed;
} rank_job;

static void *host_buffer(size_t bytes) {
    void *p = malloc(bytes + 1);
    if (!p) abort(); /* a worker cannot fail the test itself */
    return p;
}

/* Runs in the rank's thread: no Check assertions here; the main thread judges. A failed
 * allocation still joins the collective (with NULL buffers), as a real program would. */
static void *rank_main(void *arg) {
    rank_job *j = arg;
    mj_context *ctx = ctxs[j->rank];
    void *dk = NULL, *dv = NULL, *ok = NULL, *ov = NULL;
    size_t kb = j->n * j->ks, vb = j->n * j->vs;
    if (mj__dev_alloc(ctx, &dk, kb) || mj__dev_upload(ctx, dk, j->keys, kb) ||
        (j->vs && (mj__dev_alloc(ctx, &dv, vb) || mj__dev_upload(ctx, dv, j->values, vb))))
        j->setup_failed = 1;
    void *keys = dk, *values = dv;
    if (j->mode == M_BAD_ARGUMENT && j->rank == P - 1) {
        if (j->vs) values = NULL; /* pairs without values */
        else keys = NULL;
    }
    if (j->mode == M_TWO_PHASES) {
        j->st = mj_multi_sort_plan(j->m, keys, values, j->n, &j->out_count, NULL);
        if (j->st == MJ_OK) {
            if (mj__dev_alloc(ctx, &ok, j->out_count * j->ks) ||
                (j->vs && mj__dev_alloc(ctx, &ov, j->out_count * j->vs)))
                j->setup_failed = 1;
            j->st = mj_multi_sort_finish(j->m, ok, ov, NULL);
        }
    } else {
        if (mj__dev_alloc(ctx, &ok, j->capacity * j->ks) ||
            (j->vs && mj__dev_alloc(ctx, &ov, j->capacity * j->vs)))
            j->setup_failed = 1;
        j->st = mj_multi_sort(j->m, keys, values, j->n, ok, j->vs ? ov : NULL, j->capacity,
                              &j->out_count, NULL);
    }
    snprintf(j->msg, sizeof j->msg, "%s", mj_context_last_error(ctx));
    if (mj__dev_sync(ctx, NULL)) j->setup_failed = 1;
    if (j->st == MJ_OK) {
        j->out_keys = host_buffer(j->out_count * j->ks);
        j->out_values = host_buffer(j->out_count * j->vs);
        if (mj__dev_download(ctx, j->out_keys, ok, j->out_count * j->ks) ||
            mj__dev_download(ctx, j->out_values, ov, j->out_count * j->vs))
            j->setup_failed = 1;
    }
    j->keys_after = host_buffer(kb);
    if (mj__dev_download(ctx, j->keys_after, dk, kb)) j->setup_failed = 1;
    void *bufs[] = {dk, dv, ok, ov};
    for (int i = 0; i < 4; ++i) mj__dev_free(ctx, bufs[i]);
    return NULL;
}

/* ---------------------------------------------------------------- one case on every rank */

static mj_multi_sorter *sorters[MAXR];

/* Sorts shards of n[r] keys of kind k (distribution dist) on every rank in mode and checks
 * the outcome against the CPU. */
static void run_case(const kind_case *k, const size_t *n, int dist, int mode, uint64_t seed) {
    size_t ks = key_size(k), vs = k->vs, N = 0, n_max = 0;
    for (int r = 0; r < P; ++r) {
        N += n[r];
        n_max = n[r] > n_max ? n[r] : n_max;
    }
    char what[256];
    snprintf(what, sizeof what, "%s, %s, %s, N = %zu over %d rank%s (rank 0: %zu)", k->name,
             dist_names[dist], mode_names[mode], N, P, P == 1 ? "" : "s", n[0]);
    if (verbose) fprintf(stderr, "  %s\n", what);
    unsigned char *keys = make_keys(k, dist, N, seed);
    unsigned char *values = malloc(N * vs + 1);
    ck_assert_ptr_nonnull(values);
    kg_fill_values(values, vs, N); /* value i holds i, the global input position */

    rank_job jobs[MAXR];
    pthread_t threads[MAXR];
    size_t at = 0;
    for (int r = 0; r < P; ++r) {
        memset(&jobs[r], 0, sizeof jobs[r]);
        jobs[r] = (rank_job){.rank = r, .mode = mode, .m = sorters[r], .ks = ks, .vs = vs,
                             .n = n[r], .capacity = N ? N : 1, .keys = keys + at * ks,
                             .values = values + at * vs};
        if (mode == M_SHORT_CAPACITY && r == 0) jobs[r].capacity = 0;
        at += n[r];
    }
    for (int r = 0; r < P; ++r)
        ck_assert_int_eq(pthread_create(&threads[r], NULL, rank_main, &jobs[r]), 0);
    for (int r = 0; r < P; ++r) ck_assert_int_eq(pthread_join(threads[r], NULL), 0);
    for (int r = 0; r < P; ++r)
        ck_assert_msg(!jobs[r].setup_failed, "%s: rank %d: a device copy failed: %s", what, r,
                      jobs[r].msg);

    if (mode == M_SHORT_CAPACITY || mode == M_BAD_ARGUMENT) {
        mj_status want = mode == M_BAD_ARGUMENT ? MJ_ERR_INVALID_ARGUMENT : MJ_ERR_TOO_LARGE;
        size_t needed = 0;
        for (int r = 0; r < P; ++r) {
            ck_assert_msg(jobs[r].st == want, "%s: rank %d returned %s (%s)", what, r,
                          mj_status_name(jobs[r].st), jobs[r].msg);
            ck_assert_msg(jobs[r].msg[0], "%s: rank %d has no message", what, r);
            needed += jobs[r].out_count;
        }
        if (mode == M_SHORT_CAPACITY) /* each rank's need, and nothing exchanged */
            ck_assert_uint_eq(needed, N);
        else /* found before any rank touched its keys */
            for (int r = 0; r < P; ++r)
                ck_assert_msg(memcmp(jobs[r].keys_after, jobs[r].keys, n[r] * ks) == 0,
                              "%s: rank %d's keys changed", what, r);
    } else {
        unsigned char *out_k = malloc(N * ks + 1), *out_v = malloc(N * vs + 1);
        uint64_t *perm = malloc(N * sizeof *perm + 8);
        ck_assert(out_k && out_v && perm);
        size_t got = 0;
        for (int r = 0; r < P; ++r) {
            const rank_job *j = &jobs[r];
            ck_assert_msg(j->st == MJ_OK, "%s: rank %d: %s: %s", what, r, mj_status_name(j->st),
                          j->msg);
            /* Below N / P + N / s + n_max / s + P + 1, times P * s. */
            uint64_t s = MJ__MULTI_SAMPLES, p = (uint64_t)P;
            ck_assert_msg(j->out_count * p * s < N * s + N * p + n_max * p + (p + 1) * p * s,
                          "%s: rank %d holds %zu keys, above the bound", what, r, j->out_count);
            ck_assert_uint_le(got + j->out_count, N);
            memcpy(out_k + got * ks, j->out_keys, j->out_count * ks);
            memcpy(out_v + got * vs, j->out_values, j->out_count * vs);
            got += j->out_count;
        }
        ck_assert_msg(got == N, "%s: the ranks hold %zu keys in all", what, got);
        reference(k, keys, N, perm);
        size_t first = 0, bad = kg_compare(ks, vs, keys, values, out_k, out_v, perm, N, &first);
        ck_assert_msg(bad == 0, "%s: %zu positions differ from the CPU's stable sort, the first "
                      "at %zu", what, bad, first);
        free(out_k);
        free(out_v);
        free(perm);
    }
    for (int r = 0; r < P; ++r) {
        free(jobs[r].out_keys);
        free(jobs[r].out_values);
        free(jobs[r].keys_after);
    }
    free(keys);
    free(values);
}

/* The merge tile of kind k (for sizes at tile edges). */
static size_t tile_of(const kind_case *k) {
    mj_sort_desc d = desc_of(k);
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctxs[0], &d, &s);
    ck_assert_msg(st == MJ_OK, "%s", mj_context_last_error(ctxs[0]));
    int nt, vt;
    mj_sorter_tile(s, &nt, &vt);
    mj_sorter_destroy(s);
    return (size_t)nt * (size_t)vt;
}

/* Every shape, distribution and mode for kind _i. */
START_TEST(sorts_across_ranks) {
    const kind_case *k = &kinds[_i];
    mj_sort_desc d = desc_of(k);
    for (int r = 0; r < P; ++r) { /* one at a time: the others load rank 0's build */
        mj_status st = mj_multi_sorter_create(ctxs[r], &d, comms[r], &sorters[r]);
        ck_assert_msg(st == MJ_OK, "%s: rank %d: %s: %s", k->name, r, mj_status_name(st),
                      mj_context_last_error(ctxs[r]));
        int rank = -1, ranks = 0;
        mj_multi_sorter_rank(sorters[r], &rank, &ranks);
        ck_assert(rank == r && ranks == P);
    }
    size_t nv = tile_of(k), big = small ? 200000 : 4000000, n[MAXR];
    uint64_t seed = 100 * (uint64_t)_i;
#define EACH(expr) for (int r = 0; r < P; ++r) n[r] = (expr)
    EACH(0);
    run_case(k, n, D_RANDOM, M_ONE_CALL, ++seed);
    EACH(r == 0 ? 0 : nv + 1);
    run_case(k, n, D_RANDOM, M_ONE_CALL, ++seed);
    EACH(1);
    run_case(k, n, D_RANDOM, M_TWO_PHASES, ++seed);
    EACH(nv - 1 + (size_t)(r % 3));
    run_case(k, n, D_RANDOM, M_ONE_CALL, ++seed);
    EACH((size_t)(r + 1) * (r + 1) * (small ? 1000 : 20000) + 7);
    run_case(k, n, D_RANDOM, M_TWO_PHASES, ++seed);
    EACH(big / (size_t)P + (size_t)r);
    run_case(k, n, D_RANDOM, M_ONE_CALL, ++seed);
    EACH((small ? 20000 : 300000) + (size_t)r * 3);
    for (int dist = D_EQUAL; dist <= D_REVERSE; ++dist) run_case(k, n, dist, M_ONE_CALL, ++seed);
    run_case(k, n, D_RANDOM, M_SHORT_CAPACITY, ++seed);
    run_case(k, n, D_RANDOM, M_BAD_ARGUMENT, ++seed);
    /* After the refusals the sorters still work. */
    run_case(k, n, D_RANDOM, M_TWO_PHASES, ++seed);
#undef EACH
    for (int r = 0; r < P; ++r) mj_multi_sorter_destroy(sorters[r]);
}
END_TEST

/* The device count (contexts on 0, 1, ... until one fails), capped by MAXR and MJ_TEST_GPUS. */
static int open_devices(const char *program) {
    ctxs[0] = mjt_gpu_context_or_skip(program);
    const char *cap_env = getenv("MJ_TEST_GPUS");
    int cap = cap_env && atoi(cap_env) > 0 ? atoi(cap_env) : MAXR;
    int count = 1;
    while (count < (cap < MAXR ? cap : MAXR)) {
        mj_context_options o;
        mj_context_options_init(&o);
        o.device = count;
        mj_context *c = NULL;
        if (mj_context_create(&o, &c) != MJ_OK) {
            mj_context_destroy(c);
            break;
        }
        ctxs[count++] = c;
    }
    return count;
}

int main(void) {
    small = mjt_small();
    verbose = getenv("MJ_TEST_VERBOSE") && atoi(getenv("MJ_TEST_VERBOSE"));
    P = open_devices("test_gpu_multi");
    char err[1024];
    mj_status st = mj_multi_comms_create(P, NULL, comms, err, sizeof err);
    if (st == MJ_ERR_UNSUPPORTED) {
        printf("SKIP test_gpu_multi: no NCCL (%s)\n", err);
        for (int r = 0; r < P; ++r) mj_context_destroy(ctxs[r]);
        return MJT_SKIP;
    }
    if (st != MJ_OK) {
        fprintf(stderr, "test_gpu_multi: communicators over %d GPUs: %s: %s\n", P,
                mj_status_name(st), err);
        return 1;
    }
    printf("test_gpu_multi: %d rank%s, NCCL %d\n", P, P == 1 ? "" : "s", mj_nccl_version());
    Suite *s = suite_create("gpu_multi");
    TCase *tc = tcase_create("multi");
    tcase_set_timeout(tc, 1800);
    tcase_add_loop_test(tc, sorts_across_ranks, 0, (int)(sizeof kinds / sizeof *kinds));
    suite_add_tcase(s, tc);
    int rc = mjt_run(s, 0);
    mj_multi_comms_destroy(P, comms);
    for (int r = 0; r < P; ++r) mj_context_destroy(ctxs[r]);
    return rc;
}
