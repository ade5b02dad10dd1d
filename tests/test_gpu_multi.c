/* SPDX-License-Identifier: Apache-2.0 */
/* The sort across GPUs over NCCL, against a CPU stable sort, with the ranks as threads of this
 * process (communicators from mj_multi_comms_create) and again as processes, one a GPU, each
 * this program started as a worker (`--worker RANK RANKS KIND DIR`) with a communicator from
 * mj_multi_comm_create over an id that this process made with mj_multi_id_create and handed
 * over in a file; the workers write what they got to files and this process judges it as it
 * judges the threads'. P = the device count, at most 8, capped by $MJ_TEST_GPUS (P = 1 runs the
 * same paths over a one-rank communicator). Key kinds: u32, i64, f32 (NaNs, -0, infinities),
 * f64 descending, a 16-byte struct with a two-field comparator, and pairs with 4- and 12-byte
 * values holding each key's global input position (which checks stability across ranks; float
 * NaNs of different payloads check it for keys alone). Shards: none anywhere, none on one rank,
 * one key each, tile edges, very unequal, a few million in all; all-equal, sorted and reverse
 * keys; every rank's count within the bound of primitives/multi_plan.h. Paths: the one call,
 * the two phases, a capacity too small on one rank (MJ_ERR_TOO_LARGE everywhere, nothing
 * exchanged), a bad argument on one rank and device memory exhausted on one rank (that status
 * everywhere, every rank's keys untouched), and, with processes, a rank that never calls (every
 * other rank MJ_ERR_TIMEOUT within its timeout, not a hang; with one rank, a stream held up by
 * work queued before the call).
 * Skips (77) without a GPU or without NCCL ($MERGEJIT_NCCL names it). MJ_TEST_SMALL=1 runs
 * small sizes. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, kill */
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/devmem.h"
#include "base/clock.h"
#include "cli.h"
#include "primitives/multi_plan.h"
#include "test_support.h"

#define MAXR 8
#define TEST_TIMEOUT 60.0 /* seconds a collective step waits here before it gives up */
#define ABSENT_TIMEOUT 3.0
#define STALL_TIMEOUT 0.005 /* one rank: a stream held up for about 0.1 s */

static int P, small, verbose;
static mj_context *ctxs[MAXR];
static void *comms[MAXR];
static const char *self_path;

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
        if (kg_reference_sort(k->kind, k->order, keys, n, perm) != MJ_OK) abort();
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
    if (!keys) abort(); /* no Check assertion: workers share this */
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
        if (!perm || !tmp) abort();
        reference(k, keys, n, perm);
        for (size_t i = 0; i < n; ++i)
            memcpy(tmp + (dist == D_SORTED ? i : n - 1 - i) * ks, keys + perm[i] * ks, ks);
        memcpy(keys, tmp, n * ks);
        free(perm);
        free(tmp);
    }
    return keys;
}

/* ---------------------------------------------------------------- the cases */

enum { M_ONE_CALL, M_TWO_PHASES, M_SHORT_CAPACITY, M_BAD_ARGUMENT, M_NO_MEMORY };
static const char *const mode_names[] = {"one call", "two phases", "short capacity",
                                         "bad argument", "no device memory"};

typedef struct case_spec {
    size_t n[MAXR];
    int dist, mode;
    uint64_t seed;
} case_spec;

#define MAX_CASES 16

/* Every shape, distribution and mode for kind i (nv its merge tile), into cases. */
static int case_list(int i, size_t nv, case_spec *cases) {
    size_t big = small ? 200000 : 4000000;
    uint64_t seed = 100 * (uint64_t)i;
    int c = 0;
#define ADD(expr, d, m)                                                                        \
    do {                                                                                       \
        for (int r = 0; r < P; ++r) cases[c].n[r] = (expr);                                    \
        cases[c].dist = (d);                                                                   \
        cases[c].mode = (m);                                                                   \
        cases[c++].seed = ++seed;                                                              \
    } while (0)
    ADD(0, D_RANDOM, M_ONE_CALL);
    ADD(r == 0 ? 0 : nv + 1, D_RANDOM, M_ONE_CALL);
    ADD(1, D_RANDOM, M_TWO_PHASES);
    ADD(nv - 1 + (size_t)(r % 3), D_RANDOM, M_ONE_CALL);
    ADD((size_t)(r + 1) * (r + 1) * (small ? 1000 : 20000) + 7, D_RANDOM, M_TWO_PHASES);
    ADD(big / (size_t)P + (size_t)r, D_RANDOM, M_ONE_CALL);
    size_t mid = (small ? 20000 : 300000);
    for (int dist = D_EQUAL; dist <= D_REVERSE; ++dist) ADD(mid + (size_t)r * 3, dist, M_ONE_CALL);
    ADD(mid + (size_t)r * 3, D_RANDOM, M_SHORT_CAPACITY);
    ADD(mid + (size_t)r * 3, D_RANDOM, M_BAD_ARGUMENT);
    /* Larger than any shard before, so that the sorter must grow its memory, and cannot. */
    ADD((size_t)1 << 25, D_RANDOM, M_NO_MEMORY);
    /* After the refusals the sorters still work. */
    ADD(mid + (size_t)r * 3, D_RANDOM, M_TWO_PHASES);
#undef ADD
    return c;
}

/* The merge tile of kind k (for sizes at tile edges). */
static size_t tile_of(mj_context *ctx, const kind_case *k) {
    mj_sort_desc d = desc_of(k);
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, &d, &s);
    if (st != MJ_OK) {
        fprintf(stderr, "%s: %s\n", k->name, mj_context_last_error(ctx));
        abort();
    }
    int nt, vt;
    mj_sorter_tile(s, &nt, &vt);
    mj_sorter_destroy(s);
    return (size_t)nt * (size_t)vt;
}

/* ---------------------------------------------------------------- one rank's run */

typedef struct rank_job {
    int rank, mode;
    mj_multi_sorter *m;
    size_t ks, vs, n, capacity;
    const unsigned char *keys, *values; /* the shard on the host */
    /* What the rank got: */
    int st;
    int setup_failed;
    size_t out_count;
    char msg[1024];
    unsigned char *out_keys, *out_values, *keys_after; /* read back (host) */
} rank_job;

static void *host_buffer(size_t bytes) {
    void *p = malloc(bytes + 1);
    if (!p) abort(); /* a worker cannot fail the test itself */
    return p;
}

/* The device's free memory, in chunks down to 2 MB (freed by release). */
#define HOG_MAX 4096
typedef struct hog {
    void *p[HOG_MAX];
    int count;
} hog;

static void hog_take(mj_context *ctx, hog *h) {
    h->count = 0;
    for (size_t chunk = (size_t)1 << 30; chunk >= ((size_t)2 << 20); chunk /= 2)
        while (h->count < HOG_MAX && mj__dev_alloc(ctx, &h->p[h->count], chunk) == MJ_OK)
            h->count++;
}

static void hog_release(mj_context *ctx, hog *h) {
    while (h->count) mj__dev_free(ctx, h->p[--h->count]);
}

/* Runs in the rank's thread (or worker process): no Check assertions here; the judge runs in
 * the main thread. A failed allocation still joins the collective (with NULL buffers), as a
 * real program would. */
static void *rank_main(void *arg) {
    rank_job *j = arg;
    mj_context *ctx = ctxs[j->rank];
    void *dk = NULL, *dv = NULL, *ok = NULL, *ov = NULL;
    size_t kb = j->n * j->ks, vb = j->n * j->vs;
    if (mj__dev_alloc(ctx, &dk, kb) || mj__dev_upload(ctx, dk, j->keys, kb) ||
        (j->vs && (mj__dev_alloc(ctx, &dv, vb) || mj__dev_upload(ctx, dv, j->values, vb))))
        j->setup_failed = 1;
    void *keys = dk, *values = dv;
    int failing = j->rank == P - 1;
    if (j->mode == M_BAD_ARGUMENT && failing) {
        if (j->vs) values = NULL; /* pairs without values */
        else keys = NULL;
    }
    mj_status st;
    size_t out_count = 0;
    if (j->mode == M_TWO_PHASES) {
        st = mj_multi_sort_plan(j->m, keys, values, j->n, &out_count, NULL);
        if (st == MJ_OK) {
            if (mj__dev_alloc(ctx, &ok, out_count * j->ks) ||
                (j->vs && mj__dev_alloc(ctx, &ov, out_count * j->vs)))
                j->setup_failed = 1;
            st = mj_multi_sort_finish(j->m, ok, ov, NULL);
        }
    } else {
        if (mj__dev_alloc(ctx, &ok, j->capacity * j->ks) ||
            (j->vs && mj__dev_alloc(ctx, &ov, j->capacity * j->vs)))
            j->setup_failed = 1;
        hog h = {.count = 0};
        if (j->mode == M_NO_MEMORY && failing) hog_take(ctx, &h);
        st = mj_multi_sort(j->m, keys, values, j->n, ok, j->vs ? ov : NULL, j->capacity,
                           &out_count, NULL);
        hog_release(ctx, &h);
    }
    j->st = (int)st;
    j->out_count = out_count;
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

/* The inputs of a case: every rank's keys and values, in rank order. */
typedef struct case_input {
    size_t N, n_max;
    unsigned char *keys, *values;
    char what[256];
} case_input;

static void make_input(const kind_case *k, const case_spec *c, case_input *in) {
    size_t vs = k->vs;
    in->N = in->n_max = 0;
    for (int r = 0; r < P; ++r) {
        in->N += c->n[r];
        in->n_max = c->n[r] > in->n_max ? c->n[r] : in->n_max;
    }
    snprintf(in->what, sizeof in->what, "%s, %s, %s, N = %zu over %d rank%s (rank 0: %zu)",
             k->name, dist_names[c->dist], mode_names[c->mode], in->N, P, P == 1 ? "" : "s",
             c->n[0]);
    in->keys = make_keys(k, c->dist, in->N, c->seed);
    in->values = malloc(in->N * vs + 1);
    if (!in->keys || !in->values) abort();
    kg_fill_values(in->values, vs, in->N); /* value i holds i, the global input position */
}

static void free_input(case_input *in) {
    free(in->keys);
    free(in->values);
}

/* Rank r's job of case c. */
static rank_job job_of(const kind_case *k, const case_spec *c, const case_input *in, int r,
                       mj_multi_sorter *m) {
    size_t at = 0;
    for (int q = 0; q < r; ++q) at += c->n[q];
    rank_job j;
    memset(&j, 0, sizeof j);
    j.rank = r;
    j.mode = c->mode;
    j.m = m;
    j.ks = key_size(k);
    j.vs = k->vs;
    j.n = c->n[r];
    j.capacity = in->N ? in->N : 1;
    if (c->mode == M_SHORT_CAPACITY && r == 0) j.capacity = 0;
    j.keys = in->keys + at * j.ks;
    j.values = in->values + at * j.vs;
    return j;
}

/* Checks every rank's outcome of case c against the CPU. */
static void judge(const kind_case *k, const case_spec *c, const case_input *in,
                  const rank_job *jobs) {
    size_t ks = key_size(k), vs = k->vs, N = in->N;
    const char *what = in->what;
    for (int r = 0; r < P; ++r)
        ck_assert_msg(!jobs[r].setup_failed, "%s: rank %d: a device copy failed: %s", what, r,
                      jobs[r].msg);
    if (c->mode == M_SHORT_CAPACITY || c->mode == M_BAD_ARGUMENT || c->mode == M_NO_MEMORY) {
        mj_status want = c->mode == M_BAD_ARGUMENT ? MJ_ERR_INVALID_ARGUMENT
                         : c->mode == M_NO_MEMORY  ? MJ_ERR_DEVICE_MEMORY
                                                   : MJ_ERR_TOO_LARGE;
        size_t needed = 0;
        for (int r = 0; r < P; ++r) {
            ck_assert_msg(jobs[r].st == (int)want, "%s: rank %d returned %s (%s)", what, r,
                          mj_status_name((mj_status)jobs[r].st), jobs[r].msg);
            ck_assert_msg(jobs[r].msg[0], "%s: rank %d has no message", what, r);
            needed += jobs[r].out_count;
        }
        if (c->mode == M_SHORT_CAPACITY) /* each rank's need, and nothing exchanged */
            ck_assert_uint_eq(needed, N);
        else /* found before any rank touched its keys */
            for (int r = 0; r < P; ++r)
                ck_assert_msg(memcmp(jobs[r].keys_after, jobs[r].keys, c->n[r] * ks) == 0,
                              "%s: rank %d's keys changed", what, r);
        return;
    }
    unsigned char *out_k = malloc(N * ks + 1), *out_v = malloc(N * vs + 1);
    uint64_t *perm = malloc(N * sizeof *perm + 8);
    ck_assert(out_k && out_v && perm);
    size_t got = 0;
    for (int r = 0; r < P; ++r) {
        const rank_job *j = &jobs[r];
        ck_assert_msg(j->st == MJ_OK, "%s: rank %d: %s: %s", what, r,
                      mj_status_name((mj_status)j->st), j->msg);
        /* Below N / P + N / s + n_max / s + P + 1, times P * s. */
        uint64_t s = MJ__MULTI_SAMPLES, p = (uint64_t)P;
        ck_assert_msg(j->out_count * p * s < N * s + N * p + in->n_max * p + (p + 1) * p * s,
                      "%s: rank %d holds %zu keys, above the bound", what, r, j->out_count);
        ck_assert_uint_le(got + j->out_count, N);
        memcpy(out_k + got * ks, j->out_keys, j->out_count * ks);
        memcpy(out_v + got * vs, j->out_values, j->out_count * vs);
        got += j->out_count;
    }
    ck_assert_msg(got == N, "%s: the ranks hold %zu keys in all", what, got);
    reference(k, in->keys, N, perm);
    size_t first = 0, bad = kg_compare(ks, vs, in->keys, in->values, out_k, out_v, perm, N, &first);
    ck_assert_msg(bad == 0, "%s: %zu positions differ from the CPU's stable sort, the first at "
                  "%zu", what, bad, first);
    free(out_k);
    free(out_v);
    free(perm);
}

static void free_jobs(rank_job *jobs) {
    for (int r = 0; r < P; ++r) {
        free(jobs[r].out_keys);
        free(jobs[r].out_values);
        free(jobs[r].keys_after);
    }
}

/* A sorter of kind k on rank r's context and communicator, with the test's timeout. */
static mj_multi_sorter *sorter_of(const kind_case *k, int r, void *comm) {
    mj_sort_desc d = desc_of(k);
    mj_multi_sorter *m = NULL;
    mj_status st = mj_multi_sorter_create(ctxs[r], &d, comm, &m);
    if (st != MJ_OK) {
        fprintf(stderr, "%s: rank %d: %s: %s\n", k->name, r, mj_status_name(st),
                mj_context_last_error(ctxs[r]));
        return NULL;
    }
    int rank = -1, ranks = 0;
    mj_multi_sorter_rank(m, &rank, &ranks);
    if (rank != r || ranks != P || mj_multi_sorter_set_timeout(m, TEST_TIMEOUT)) {
        fprintf(stderr, "%s: rank %d reports rank %d of %d\n", k->name, r, rank, ranks);
        mj_multi_sorter_destroy(m);
        return NULL;
    }
    return m;
}

/* ---------------------------------------------------------------- ranks as threads */

START_TEST(threads) {
    const kind_case *k = &kinds[_i];
    mj_multi_sorter *sorters[MAXR];
    for (int r = 0; r < P; ++r) { /* one at a time: the others load rank 0's build */
        sorters[r] = sorter_of(k, r, comms[r]);
        ck_assert_ptr_nonnull(sorters[r]);
    }
    case_spec cases[MAX_CASES];
    int count = case_list(_i, tile_of(ctxs[0], k), cases);
    for (int c = 0; c < count; ++c) {
        case_input in;
        make_input(k, &cases[c], &in);
        if (verbose) fprintf(stderr, "  threads: %s\n", in.what);
        rank_job jobs[MAXR];
        pthread_t threads[MAXR];
        for (int r = 0; r < P; ++r) jobs[r] = job_of(k, &cases[c], &in, r, sorters[r]);
        for (int r = 0; r < P; ++r)
            ck_assert_int_eq(pthread_create(&threads[r], NULL, rank_main, &jobs[r]), 0);
        for (int r = 0; r < P; ++r) ck_assert_int_eq(pthread_join(threads[r], NULL), 0);
        judge(k, &cases[c], &in, jobs);
        free_jobs(jobs);
        free_input(&in);
    }
    for (int r = 0; r < P; ++r) mj_multi_sorter_destroy(sorters[r]);
}
END_TEST

/* ---------------------------------------------------------------- ranks as processes */

/* A worker's result file: the job's outcome, then its arrays. */
static void result_path(char *out, size_t cap, const char *dir, int c, int r) {
    snprintf(out, cap, "%s/case%d.rank%d", dir, c, r);
}

static int write_all(FILE *f, const void *p, size_t bytes) {
    return !bytes || fwrite(p, 1, bytes, f) == bytes;
}

static int save_job(const char *path, const rank_job *j) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = write_all(f, &j->st, sizeof j->st) && write_all(f, &j->setup_failed, sizeof(int)) &&
             write_all(f, &j->out_count, sizeof j->out_count) &&
             write_all(f, j->msg, sizeof j->msg) &&
             (j->st != MJ_OK || (write_all(f, j->out_keys, j->out_count * j->ks) &&
                                 write_all(f, j->out_values, j->out_count * j->vs))) &&
             write_all(f, j->keys_after, j->n * j->ks);
    return fclose(f) == 0 && ok ? 0 : -1;
}

static void load_job(const char *path, rank_job *j) {
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f, "no result file %s (the worker died?)", path);
    int ok = fread(&j->st, sizeof j->st, 1, f) == 1 &&
             fread(&j->setup_failed, sizeof(int), 1, f) == 1 &&
             fread(&j->out_count, sizeof j->out_count, 1, f) == 1 &&
             fread(j->msg, sizeof j->msg, 1, f) == 1;
    ck_assert_msg(ok && j->out_count <= ((size_t)1 << 40), "%s is damaged", path);
    j->out_keys = host_buffer(j->out_count * j->ks);
    j->out_values = host_buffer(j->out_count * j->vs);
    j->keys_after = host_buffer(j->n * j->ks);
    if (j->st == MJ_OK)
        ok = fread(j->out_keys, 1, j->out_count * j->ks, f) == j->out_count * j->ks &&
             fread(j->out_values, 1, j->out_count * j->vs, f) == j->out_count * j->vs;
    ok = ok && fread(j->keys_after, 1, j->n * j->ks, f) == j->n * j->ks;
    fclose(f);
    ck_assert_msg(ok, "%s is short", path);
}

/* The absent-rank case's outcome: the status and how long the call took. */
static void absent_path(char *out, size_t cap, const char *dir, int r) {
    snprintf(out, cap, "%s/absent.rank%d", dir, r);
}

/* Queues 40 sorts of 2^26 u32 keys on the legacy default stream (buffers and sorter left to
 * the process's end: freeing them would wait for the stream). 0, or -1 when one failed. */
static int stall_stream(mj_context *ctx) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *s = NULL;
    size_t n = (size_t)1 << 26, temp_bytes = 0;
    void *keys = NULL, *temp = NULL;
    if (mj_sorter_create(ctx, &d, &s) || mj_sorter_temp_size(s, n, 0, &temp_bytes) ||
        mj__dev_alloc(ctx, &keys, n * 4) || mj__dev_alloc(ctx, &temp, temp_bytes))
        return -1;
    for (int i = 0; i < 40; ++i)
        if (mj_sorter_sort(s, keys, NULL, n, temp, temp_bytes, NULL)) return -1;
    return 0;
}

/* Rank `rank` of kind i in its own process: every case, each outcome to a file, then the
 * absent-rank case (the last rank sleeps past the others' timeout and never calls). */
static int worker_main(int rank, int ranks, int i, const char *dir) {
    P = ranks;
    const kind_case *k = &kinds[i];
    mj_context_options o;
    mj_context_options_init(&o);
    o.device = rank;
    if (mj_context_create(&o, &ctxs[rank]) != MJ_OK) return 3;
    char path[1024];
    snprintf(path, sizeof path, "%s/id", dir);
    mj_multi_id id;
    FILE *f = fopen(path, "rb");
    if (!f || fread(&id, sizeof id, 1, f) != 1) return 4;
    fclose(f);
    void *comm = NULL;
    if (mj_multi_comm_create(ctxs[rank], &id, ranks, rank, &comm)) {
        fprintf(stderr, "worker %d: %s\n", rank, mj_context_last_error(ctxs[rank]));
        return 5;
    }
    mj_multi_sorter *m = sorter_of(k, rank, comm);
    if (!m) return 6;
    case_spec cases[MAX_CASES];
    int count = case_list(i, tile_of(ctxs[rank], k), cases);
    for (int c = 0; c < count; ++c) {
        case_input in;
        make_input(k, &cases[c], &in);
        rank_job j = job_of(k, &cases[c], &in, rank, m);
        rank_main(&j);
        result_path(path, sizeof path, dir, c, rank);
        if (save_job(path, &j)) return 7;
        free(j.out_keys);
        free(j.out_values);
        free(j.keys_after);
        free_input(&in);
    }
    /* The absent rank: the others must give up after their timeout, not hang. */
    if (rank == ranks - 1 && ranks > 1) {
        struct timespec pause = {(time_t)(2 * ABSENT_TIMEOUT + 2), 0};
        nanosleep(&pause, NULL);
        _exit(0); /* its communicator is left to the process's end */
    }
    /* With one rank nobody is absent: a stream held up by work queued before the call (about
     * a tenth of a second of sorting) stands in, under a timeout of a few milliseconds. */
    if (ranks == 1 && stall_stream(ctxs[rank])) return 9;
    mj_multi_sorter_set_timeout(m, ranks == 1 ? STALL_TIMEOUT : ABSENT_TIMEOUT);
    size_t out_count = 0;
    double t0 = mj__now_ms() / 1e3;
    int st = mj_multi_sort(m, NULL, NULL, 0, NULL, NULL, 0, &out_count, NULL);
    double took = mj__now_ms() / 1e3 - t0;
    int again = mj_multi_sort(m, NULL, NULL, 0, NULL, NULL, 0, &out_count, NULL);
    absent_path(path, sizeof path, dir, rank);
    f = fopen(path, "wb");
    if (!f) return 8;
    fprintf(f, "%d %d %.3f %s\n", st, again, took, mj_context_last_error(ctxs[rank]));
    fclose(f);
    mj_multi_sorter_destroy(m); /* the communicator was aborted: not destroyed here */
    _exit(0);
}

/* Starts the P workers of kind i and waits for them (at most `limit` s, then kills them). */
static void run_workers(int i, const char *dir, double limit) {
    pid_t pids[MAXR];
    for (int r = 0; r < P; ++r) {
        char rank[16], ranks[16], kind[16];
        snprintf(rank, sizeof rank, "%d", r);
        snprintf(ranks, sizeof ranks, "%d", P);
        snprintf(kind, sizeof kind, "%d", i);
        char *argv[] = {(char *)self_path, "--worker", rank, ranks, kind, (char *)dir, NULL};
        extern char **environ;
        ck_assert_int_eq(posix_spawn(&pids[r], self_path, NULL, NULL, argv, environ), 0);
    }
    double start = mj__now_ms() / 1e3;
    int left = P, failed = 0;
    while (left) {
        for (int r = 0; r < P; ++r) {
            int status;
            if (pids[r] <= 0 || waitpid(pids[r], &status, WNOHANG) != pids[r]) continue;
            if (!WIFEXITED(status) || WEXITSTATUS(status))
                failed = failed ? failed : 100 + r, fprintf(stderr, "worker %d: status %d\n",
                                                            r, status);
            pids[r] = 0;
            --left;
        }
        if (left && mj__now_ms() / 1e3 - start > limit) {
            for (int r = 0; r < P; ++r)
                if (pids[r] > 0) kill(pids[r], SIGKILL), waitpid(pids[r], NULL, 0);
            ck_abort_msg("%s: the workers did not finish in %.0f s", kinds[i].name, limit);
        }
        struct timespec pause = {0, 20000000};
        nanosleep(&pause, NULL);
    }
    ck_assert_msg(!failed, "%s: worker %d failed", kinds[i].name, failed - 100);
}

START_TEST(processes) {
    const kind_case *k = &kinds[_i];
    char *dir = mjt_tmpdir(), path[1024];
    mj_multi_id id;
    char err[1024];
    ck_assert_msg(mj_multi_id_create(&id, err, sizeof err) == MJ_OK, "%s", err);
    snprintf(path, sizeof path, "%s/id", dir);
    FILE *f = fopen(path, "wb");
    ck_assert(f && fwrite(&id, sizeof id, 1, f) == 1 && fclose(f) == 0);
    run_workers(_i, dir, 150);
    case_spec cases[MAX_CASES];
    int count = case_list(_i, tile_of(ctxs[0], k), cases);
    for (int c = 0; c < count; ++c) {
        case_input in;
        make_input(k, &cases[c], &in);
        if (verbose) fprintf(stderr, "  processes: %s\n", in.what);
        rank_job jobs[MAXR];
        for (int r = 0; r < P; ++r) {
            jobs[r] = job_of(k, &cases[c], &in, r, NULL);
            result_path(path, sizeof path, dir, c, r);
            load_job(path, &jobs[r]);
        }
        judge(k, &cases[c], &in, jobs);
        free_jobs(jobs);
        free_input(&in);
    }
    /* The absent rank: every other rank (with one rank, the rank itself) gave up. */
    double timeout = P > 1 ? ABSENT_TIMEOUT : STALL_TIMEOUT;
    for (int r = 0; r < (P > 1 ? P - 1 : 1); ++r) {
        absent_path(path, sizeof path, dir, r);
        f = fopen(path, "r");
        ck_assert_msg(f, "%s: rank %d wrote no outcome for the absent rank", k->name, r);
        int st = -1, again = -1;
        double took = -1;
        char msg[1024] = "";
        ck_assert(fscanf(f, "%d %d %lf %1023[^\n]", &st, &again, &took, msg) >= 3);
        fclose(f);
        ck_assert_msg(st == MJ_ERR_TIMEOUT, "%s: rank %d: %s (%s) with a rank absent", k->name,
                      r, mj_status_name((mj_status)st), msg);
        ck_assert_msg(took >= timeout && took < timeout + 10, "%s: rank %d gave up after "
                      "%.3f s, its timeout %.3f s", k->name, r, took, timeout);
        ck_assert_msg(strstr(msg, "aborted"), "%s: rank %d: %s", k->name, r, msg);
        ck_assert_int_eq(again, MJ_ERR_INVALID_ARGUMENT); /* the sorter refuses more calls */
    }
    mjt_rmtree(dir);
    free(dir);
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

int main(int argc, char **argv) {
    small = mjt_small();
    verbose = getenv("MJ_TEST_VERBOSE") && atoi(getenv("MJ_TEST_VERBOSE"));
    if (argc == 6 && !strcmp(argv[1], "--worker"))
        return worker_main(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), argv[5]);
    self_path = argv[0];
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
    int nk = (int)(sizeof kinds / sizeof *kinds);
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 1800);
    tcase_add_loop_test(tc, threads, 0, nk);
    suite_add_tcase(s, tc);
    tc = tcase_create("processes");
    tcase_set_timeout(tc, 1800);
    tcase_add_loop_test(tc, processes, 0, nk);
    suite_add_tcase(s, tc);
    int rc = mjt_run(s, 0);
    mj_multi_comms_destroy(P, comms);
    for (int r = 0; r < P; ++r) mj_context_destroy(ctxs[r]);
    return rc;
}
