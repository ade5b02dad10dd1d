/* SPDX-License-Identifier: Apache-2.0 */
/* bench_multi: mj_multi_sort across P = 1 .. G GPUs over NCCL, beside (a) the one-GPU mergejit
 * sort of the same total (where it fits) and (b) the baseline that gathers every shard to rank
 * 0 with NCCL and sorts there, and (c) NCCL moving the exchange's bytes alone (the link's
 * rate); the plan phase timed apart; u32 and u64 keys and u32 keys with u32 values, random, at
 * the total sizes of --sizes. Plain C over the public API, the library's device-memory bridge
 * (api/devmem.h) and its NCCL loader (driver/dl_nccl.h, for the baseline's sends); no nvcc.
 *
 * Each time is the median over --reps runs of the slowest rank's, from a barrier to the end of
 * its stream; every run starts from the same input (a device copy, not timed). --check reads
 * the first run's output back and checks it on the host: each rank's run sorted, the ranks in
 * order, and the multiset of (key, value) the same as the input's (a sum of hashes: no CPU
 * sort, fast for 10^9 keys). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, pthread_barrier_t */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/devmem.h"
#include "cli.h"
#include "driver/dl_nccl.h"
#include "mergejit.h"

#define MAXG 8

typedef struct bench_type {
    const char *name;
    mj_key_kind kind;
    size_t vs;
} bench_type;

static const bench_type types[] = {
    {"u32", MJ_KEY_U32, 0}, {"u64", MJ_KEY_U64, 0}, {"u32+u32", MJ_KEY_U32, 4}};

static int G, reps = 5, check;
static mj_context *ctxs[MAXG];
static void *comms[MAXG + 1][MAXG]; /* comms[P]: a communicator over devices 0 .. P-1 */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t key_at(const unsigned char *k, size_t ks, size_t i) {
    return ks == 4 ? ((const uint32_t *)k)[i] : ((const uint64_t *)k)[i];
}

/* The multiset's fingerprint: a sum (order-free) of a hash of each (key, value). */
static uint64_t fingerprint(const unsigned char *k, const unsigned char *v, size_t ks, size_t vs,
                            size_t n) {
    uint64_t sum = 0;
    for (size_t i = 0; i < n; ++i)
        sum += mix(key_at(k, ks, i) * 0x9e3779b97f4a7c15ull +
                   (vs ? ((const uint32_t *)v)[i] + 1 : 0));
    return sum;
}

/* ---------------------------------------------------------------- ranks */

typedef enum job_kind { JOB_MULTI, JOB_GATHER, JOB_EXCHANGE } job_kind;

typedef struct rank_job {
    job_kind kind;
    int rank, P;
    const bench_type *t;
    pthread_barrier_t *barrier;
    mj_multi_sorter *m;
    mj_sorter *sorter;              /* JOB_GATHER, rank 0: the one-GPU sort of all */
    const unsigned char *keys, *values; /* the shard (host) */
    size_t n, total, capacity;
    double ms[64], plan_ms[64];
    size_t out_count;
    unsigned char *out_keys, *out_values; /* --check: the first run's output */
    int failed;
    char msg[512];
} rank_job;

static void fail(rank_job *j, mj_status st, const char *what) {
    if (!j->failed)
        snprintf(j->msg, sizeof j->msg, "%s: %s: %s", what, mj_status_name(st),
                 mj_context_last_error(ctxs[j->rank]));
    j->failed = 1;
}

/* One rank of mj_multi_sort: a pristine copy of the shard, the sort from it each run. A rank
 * whose allocations failed joins with no keys, which fails every rank alike. */
static void run_multi(rank_job *j) {
    mj_context *ctx = ctxs[j->rank];
    size_t ks = mj_key_kind_size(j->t->kind), vs = j->t->vs, n = j->n;
    void *pk = NULL, *pv = NULL, *k = NULL, *v = NULL, *ok = NULL, *ov = NULL;
    mj_status st = mj__dev_alloc(ctx, &pk, n * ks);
    if (!st) st = mj__dev_alloc(ctx, &k, n * ks);
    if (!st) st = mj__dev_alloc(ctx, &ok, j->capacity * ks);
    if (!st && vs) st = mj__dev_alloc(ctx, &pv, n * vs);
    if (!st && vs) st = mj__dev_alloc(ctx, &v, n * vs);
    if (!st && vs) st = mj__dev_alloc(ctx, &ov, j->capacity * vs);
    if (!st) st = mj__dev_upload(ctx, pk, j->keys, n * ks);
    if (!st && vs) st = mj__dev_upload(ctx, pv, j->values, n * vs);
    if (st) fail(j, st, "allocating and uploading the shard");
    for (int rep = -1; rep < reps; ++rep) { /* -1: warm-up, and the checked run */
        if (!j->failed && ((st = mj__dev_copy(ctx, k, pk, n * ks)) ||
                           (vs && (st = mj__dev_copy(ctx, v, pv, n * vs))) ||
                           (st = mj__dev_sync(ctx, NULL))))
            fail(j, st, "restoring the input");
        pthread_barrier_wait(j->barrier);
        double t0 = now_ms(), t1 = t0;
        /* The two phases (the one call's work), timed apart: plan returns with the counts. */
        st = mj_multi_sort_plan(j->m, j->failed ? NULL : k, v, n, &j->out_count, NULL);
        if (!st) t1 = now_ms();
        if (!st && j->out_count > j->capacity)
            st = MJ_ERR_TOO_LARGE; /* not reached: the capacity is the documented bound */
        if (!st) st = mj_multi_sort_finish(j->m, ok, ov, NULL);
        if (!st) st = mj__dev_sync(ctx, NULL);
        if (st) {
            fail(j, st, "mj_multi_sort");
            break;
        }
        if (rep >= 0) j->ms[rep] = now_ms() - t0;
        if (rep >= 0) j->plan_ms[rep] = t1 - t0;
        if (rep < 0 && check) {
            j->out_keys = malloc(j->out_count * ks + 1);
            j->out_values = malloc(j->out_count * vs + 1);
            if (!j->out_keys || !j->out_values ||
                mj__dev_download(ctx, j->out_keys, ok, j->out_count * ks) ||
                mj__dev_download(ctx, j->out_values, ov, j->out_count * vs))
                fail(j, MJ_ERR_CUDA, "reading the output back");
        }
    }
    void *bufs[] = {pk, pv, k, v, ok, ov};
    for (int i = 0; i < 6; ++i)
        if (bufs[i]) mj__dev_free(ctx, bufs[i]);
}

/* One rank of the baseline: ranks send their shards to rank 0 (grouped receives there), which
 * sorts all of them with the one-GPU sorter. j->failed is decided before (rank 0's memory). */
static void run_gather(rank_job *j) {
    mj_context *ctx = ctxs[j->rank];
    const mj_nccl_api *nc = mj__nccl_load(NULL, 0);
    size_t ks = mj_key_kind_size(j->t->kind), vs = j->t->vs, n = j->n;
    size_t room = j->rank == 0 ? j->total : n, temp_bytes = 0;
    void *pk = NULL, *pv = NULL, *k = NULL, *v = NULL, *temp = NULL;
    mj_status st = mj__dev_alloc(ctx, &pk, n * ks);
    if (!st) st = mj__dev_alloc(ctx, &k, room * ks);
    if (!st && vs) st = mj__dev_alloc(ctx, &pv, n * vs);
    if (!st && vs) st = mj__dev_alloc(ctx, &v, room * vs);
    if (!st && j->rank == 0) st = mj_sorter_temp_size(j->sorter, j->total, 0, &temp_bytes);
    if (!st && j->rank == 0) st = mj__dev_alloc(ctx, &temp, temp_bytes);
    if (!st) st = mj__dev_upload(ctx, pk, j->keys, n * ks);
    if (!st && vs) st = mj__dev_upload(ctx, pv, j->values, n * vs);
    if (st) { /* too late to skip alone: the others would wait in NCCL */
        fprintf(stderr, "bench_multi: gather baseline, rank %d: %s\n", j->rank,
                mj_context_last_error(ctx));
        exit(1);
    }
    for (int rep = -1; rep < reps; ++rep) {
        if ((st = mj__dev_copy(ctx, k, pk, n * ks)) ||
            (vs && (st = mj__dev_copy(ctx, v, pv, n * vs))) || (st = mj__dev_sync(ctx, NULL))) {
            fprintf(stderr, "bench_multi: %s\n", mj_context_last_error(ctx));
            exit(1);
        }
        pthread_barrier_wait(j->barrier);
        double t0 = now_ms();
        int r = nc->group_start();
        size_t at = n; /* rank 0's own shard is in place; the others follow in rank order */
        for (int p = 1; p < j->P && !r; ++p) {
            size_t np = j->total / (size_t)j->P + ((size_t)p < j->total % (size_t)j->P);
            if (j->rank == 0) {
                mj_nccl_comm c = comms[j->P][0];
                r = nc->recv((char *)k + at * ks, np * ks, MJ_NCCL_UINT8, p, c, NULL);
                if (!r && vs) r = nc->recv((char *)v + at * vs, np * vs, MJ_NCCL_UINT8, p, c, NULL);
            } else if (p == j->rank) {
                r = nc->send(k, n * ks, MJ_NCCL_UINT8, 0, comms[j->P][p], NULL);
                if (!r && vs) r = nc->send(v, n * vs, MJ_NCCL_UINT8, 0, comms[j->P][p], NULL);
            }
            at += np;
        }
        int e = nc->group_end();
        if (r || e) {
            fprintf(stderr, "bench_multi: NCCL failed in the gather baseline (%d)\n", r ? r : e);
            exit(1);
        }
        if (j->rank == 0)
            st = mj_sorter_sort(j->sorter, k, vs ? v : NULL, j->total, temp, temp_bytes, NULL);
        if (!st) st = mj__dev_sync(ctx, NULL);
        if (st) {
            fprintf(stderr, "bench_multi: %s\n", mj_context_last_error(ctx));
            exit(1);
        }
        if (rep >= 0) j->ms[rep] = now_ms() - t0;
    }
    void *bufs[] = {pk, pv, k, v, temp};
    for (int i = 0; i < 5; ++i)
        if (bufs[i]) mj__dev_free(ctx, bufs[i]);
}

/* One rank of the link measurement: what the sort's exchange moves, a (P-1)/P part of the
 * shard's keys and values, sent in P-1 even parts to the other ranks with grouped ncclSend and
 * ncclRecv, the data untouched. */
static void run_exchange(rank_job *j) {
    mj_context *ctx = ctxs[j->rank];
    const mj_nccl_api *nc = mj__nccl_load(NULL, 0);
    size_t bytes = j->n * (mj_key_kind_size(j->t->kind) + j->t->vs), part = bytes / (size_t)j->P;
    void *in = NULL, *out = NULL;
    if (mj__dev_alloc(ctx, &in, bytes) || mj__dev_alloc(ctx, &out, bytes)) {
        fprintf(stderr, "bench_multi: link measurement, rank %d: %s\n", j->rank,
                mj_context_last_error(ctx));
        exit(1);
    }
    mj_nccl_comm c = comms[j->P][j->rank];
    for (int rep = -1; rep < reps; ++rep) {
        pthread_barrier_wait(j->barrier);
        double t0 = now_ms();
        int r = nc->group_start();
        for (int p = 0; p < j->P && !r; ++p) {
            if (p == j->rank) continue;
            r = nc->send((char *)in + (size_t)p * part, part, MJ_NCCL_UINT8, p, c, NULL);
            if (!r) r = nc->recv((char *)out + (size_t)p * part, part, MJ_NCCL_UINT8, p, c, NULL);
        }
        int e = nc->group_end();
        if (r || e || mj__dev_sync(ctx, NULL)) {
            fprintf(stderr, "bench_multi: NCCL failed in the link measurement (%d)\n", r ? r : e);
            exit(1);
        }
        if (rep >= 0) j->ms[rep] = now_ms() - t0;
    }
    mj__dev_free(ctx, in);
    mj__dev_free(ctx, out);
}

static void *rank_main(void *arg) {
    rank_job *j = arg;
    if (j->kind == JOB_MULTI)
        run_multi(j);
    else if (j->kind == JOB_GATHER)
        run_gather(j);
    else
        run_exchange(j);
    return NULL;
}

/* The median over runs of the slowest rank's time (plan: the plan phase's). */
static double slowest(const rank_job *jobs, int P, int plan) {
    double worst[64];
    for (int rep = 0; rep < reps; ++rep) {
        worst[rep] = 0;
        for (int r = 0; r < P; ++r) {
            double ms = plan ? jobs[r].plan_ms[rep] : jobs[r].ms[rep];
            if (ms > worst[rep]) worst[rep] = ms;
        }
    }
    return median_of(worst, reps);
}

/* Runs the jobs, one thread a rank; the median over runs of the slowest rank's time, or -1
 * when a rank failed (its message printed). */
static double run_ranks(rank_job *jobs, int P) {
    pthread_t threads[MAXG];
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, (unsigned)P);
    for (int r = 0; r < P; ++r) {
        jobs[r].barrier = &barrier;
        if (pthread_create(&threads[r], NULL, rank_main, &jobs[r])) {
            fprintf(stderr, "bench_multi: cannot start a thread\n");
            exit(1);
        }
    }
    for (int r = 0; r < P; ++r) pthread_join(threads[r], NULL);
    pthread_barrier_destroy(&barrier);
    for (int r = 0; r < P; ++r)
        if (jobs[r].failed) {
            fprintf(stderr, "  rank %d: %s\n", r, jobs[r].msg);
            return -1;
        }
    return slowest(jobs, P, 0);
}

/* ---------------------------------------------------------------- one row */

static void shard(size_t total, int P, int r, size_t *at, size_t *n) {
    *n = total / (size_t)P + ((size_t)r < total % (size_t)P);
    size_t extra = total % (size_t)P;
    *at = (size_t)r * (total / (size_t)P) + ((size_t)r < extra ? (size_t)r : extra);
}

/* --check: each rank's output sorted, the ranks in order, the multiset kept. */
static const char *check_output(const bench_type *t, rank_job *jobs, int P, uint64_t want,
                                size_t total) {
    size_t ks = mj_key_kind_size(t->kind), vs = t->vs, got = 0;
    uint64_t sum = 0, last = 0;
    for (int r = 0; r < P; ++r) {
        const rank_job *j = &jobs[r];
        for (size_t i = 0; i < j->out_count; ++i) {
            uint64_t k = key_at(j->out_keys, ks, i);
            if ((got || i) && k < last) return "out of order";
            last = k;
        }
        sum += fingerprint(j->out_keys, j->out_values, ks, vs, j->out_count);
        got += j->out_count;
    }
    if (got != total) return "wrong count";
    return sum == want ? "ok" : "the keys changed";
}

static void row(const bench_type *t, size_t total, int P, const unsigned char *keys,
                const unsigned char *values, double one_gpu, uint64_t want) {
    size_t ks = mj_key_kind_size(t->kind), vs = t->vs;
    mj_sort_desc d;
    mj_sort_desc_init(&d, t->kind, MJ_ASCENDING);
    d.value_size = vs;
    rank_job jobs[MAXG];
    size_t n_max = total / (size_t)P + (total % (size_t)P != 0);
    for (int r = 0; r < P; ++r) {
        size_t at, n;
        shard(total, P, r, &at, &n);
        memset(&jobs[r], 0, sizeof jobs[r]);
        /* Outputs of the documented bound, the quotients rounded down (less than 1 each). */
        jobs[r] = (rank_job){.kind = JOB_MULTI, .rank = r, .P = P, .t = t,
                             .keys = keys + at * ks, .values = values + at * vs, .n = n,
                             .total = total,
                             .capacity = total / (size_t)P + total / 1024 + n_max / 1024 +
                                         (size_t)P + 3};
        mj_status st = mj_multi_sorter_create(ctxs[r], &d, comms[P][r], &jobs[r].m);
        if (st) {
            fprintf(stderr, "bench_multi: rank %d: %s\n", r, mj_context_last_error(ctxs[r]));
            exit(1);
        }
    }
    double multi = run_ranks(jobs, P), plan = multi > 0 ? slowest(jobs, P, 1) : -1;
    size_t most = 0;
    for (int r = 0; r < P; ++r) most = jobs[r].out_count > most ? jobs[r].out_count : most;
    const char *verdict = check && multi > 0 ? check_output(t, jobs, P, want, total) : "-";
    for (int r = 0; r < P; ++r) {
        mj_multi_sorter_destroy(jobs[r].m);
        free(jobs[r].out_keys);
        free(jobs[r].out_values);
    }
    /* (b) the gather to rank 0, where rank 0 can hold all of it (tried before any rank
     * starts: a rank cannot leave the others waiting). */
    double gather = -1;
    void *probe = NULL;
    size_t temp_bytes = 0;
    mj_sorter *s = NULL;
    if (P > 1 && mj_sorter_create(ctxs[0], &d, &s) == MJ_OK &&
        mj_sorter_temp_size(s, total, 0, &temp_bytes) == MJ_OK &&
        mj__dev_alloc(ctxs[0], &probe, total * (ks + vs) * 2 + temp_bytes) == MJ_OK) {
        mj__dev_free(ctxs[0], probe);
        for (int r = 0; r < P; ++r) {
            jobs[r].kind = JOB_GATHER;
            jobs[r].sorter = s;
            jobs[r].failed = 0;
        }
        gather = run_ranks(jobs, P);
    }
    mj_sorter_destroy(s);
    /* (c) the link: the exchange's bytes alone. */
    double link = -1;
    if (P > 1) {
        for (int r = 0; r < P; ++r) jobs[r].kind = JOB_EXCHANGE;
        link = run_ranks(jobs, P);
    }
    char a[32] = "-", b[32] = "-", g[32] = "-", l[32] = "-";
    if (link > 0)
        snprintf(l, sizeof l, "%.0f", (double)jobs[0].n * (double)(ks + vs) *
                 (double)(P - 1) / (double)P / (link * 1e6));
    if (one_gpu > 0 && multi > 0) snprintf(a, sizeof a, "%.2fx", one_gpu / multi);
    if (gather > 0) snprintf(g, sizeof g, "%.2f", gather);
    if (gather > 0 && multi > 0) snprintf(b, sizeof b, "%.2fx", gather / multi);
    if (multi > 0)
        printf("%-8s %12zu %4d %10.2f %8.2f %8.2f %9s %10s %9s %8.3f %8s  %s\n", t->name, total,
               P, multi, plan, (double)total / (multi * 1e6), a, g, b,
               (double)most * P / (double)total, l, verdict);
    else
        printf("%-8s %12zu %4d %10s (failed: see above)\n", t->name, total, P, "-");
    fflush(stdout);
}

/* (a) The one-GPU sort of all keys on device 0, or -1 where it does not fit. */
static double one_gpu(const bench_type *t, size_t total, const unsigned char *keys,
                      const unsigned char *values) {
    mj_context *ctx = ctxs[0];
    size_t ks = mj_key_kind_size(t->kind), vs = t->vs, temp_bytes = 0;
    mj_sort_desc d;
    mj_sort_desc_init(&d, t->kind, MJ_ASCENDING);
    d.value_size = vs;
    mj_sorter *s = NULL;
    void *pk = NULL, *pv = NULL, *k = NULL, *v = NULL, *temp = NULL;
    double ms[64], result = -1;
    mj_status st = mj_sorter_create(ctx, &d, &s);
    if (!st) st = mj_sorter_temp_size(s, total, 0, &temp_bytes);
    if (!st) st = mj__dev_alloc(ctx, &pk, total * ks);
    if (!st) st = mj__dev_alloc(ctx, &k, total * ks);
    if (!st && vs) st = mj__dev_alloc(ctx, &pv, total * vs);
    if (!st && vs) st = mj__dev_alloc(ctx, &v, total * vs);
    if (!st) st = mj__dev_alloc(ctx, &temp, temp_bytes);
    if (!st) st = mj__dev_upload(ctx, pk, keys, total * ks);
    if (!st && vs) st = mj__dev_upload(ctx, pv, values, total * vs);
    for (int rep = -1; !st && rep < reps; ++rep) {
        if ((st = mj__dev_copy(ctx, k, pk, total * ks)) ||
            (vs && (st = mj__dev_copy(ctx, v, pv, total * vs))) || (st = mj__dev_sync(ctx, NULL)))
            break;
        double t0 = now_ms();
        if ((st = mj_sorter_sort(s, k, vs ? v : NULL, total, temp, temp_bytes, NULL)) ||
            (st = mj__dev_sync(ctx, NULL)))
            break;
        if (rep >= 0) ms[rep] = now_ms() - t0;
    }
    if (!st) result = median_of(ms, reps);
    void *bufs[] = {pk, pv, k, v, temp};
    for (int i = 0; i < 5; ++i)
        if (bufs[i]) mj__dev_free(ctx, bufs[i]);
    mj_sorter_destroy(s);
    return result;
}

/* ---------------------------------------------------------------- input */

typedef struct fill_job {
    unsigned char *keys, *values;
    size_t ks, vs, at, n;
    uint64_t seed, sum;
} fill_job;

static void *fill(void *arg) {
    fill_job *f = arg;
    uint64_t s = f->seed;
    for (size_t i = 0; i < f->n; ++i) {
        uint64_t x = mix(s += 0x9e3779b97f4a7c15ull);
        if (f->ks == 4)
            ((uint32_t *)f->keys)[f->at + i] = (uint32_t)x;
        else
            ((uint64_t *)f->keys)[f->at + i] = x;
        if (f->vs) ((uint32_t *)f->values)[f->at + i] = (uint32_t)(f->at + i);
    }
    const unsigned char *k = f->keys + f->at * f->ks, *v = f->values + f->at * f->vs;
    f->sum = check ? fingerprint(k, v, f->ks, f->vs, f->n) : 0;
    return NULL;
}

/* Random keys (and values: each key's position), filled by 16 threads; the fingerprint. */
static uint64_t make_input(const bench_type *t, size_t total, unsigned char *keys,
                           unsigned char *values) {
    enum { THREADS = 16 };
    fill_job f[THREADS];
    pthread_t th[THREADS];
    uint64_t sum = 0;
    for (int i = 0; i < THREADS; ++i) {
        size_t at = total / THREADS * (size_t)i;
        size_t n = i + 1 < THREADS ? total / THREADS : total - at;
        f[i] = (fill_job){keys, values, mj_key_kind_size(t->kind), t->vs, at, n,
                          0x5eed0000ull + (uint64_t)i * 0x1000003ull, 0};
        pthread_create(&th[i], NULL, fill, &f[i]);
    }
    for (int i = 0; i < THREADS; ++i) {
        pthread_join(th[i], NULL);
        sum += f[i].sum;
    }
    return sum;
}

/* ---------------------------------------------------------------- main */

static const char usage[] =
    "Usage: bench_multi [--sizes N,N,...] [--gpus G] [--reps R] [--types u32,u64,u32+u32]\n"
    "                   [--check]\n"
    "Sorts random keys across P = 1 .. G GPUs with mj_multi_sort (G: every GPU, at most 8),\n"
    "beside the one-GPU sort of the same total and a gather of every shard to rank 0 with a\n"
    "sort there. --sizes: total keys (default 2^24,2^27,2^30); --reps: timed runs (default 5,\n"
    "at most 64); --check: each result checked on the host. NCCL: $MERGEJIT_NCCL, else\n"
    "libnccl.so.2. Columns: the median of the slowest rank's time, of its plan phase (the\n"
    "local sort and the splitters; the rest is the exchange and merge), its Gkeys/s, the\n"
    "one-GPU time over it, the gather baseline's time and its ratio, the largest rank's share\n"
    "(1 is even), the link's GB/s a rank sends when NCCL moves the exchange's bytes alone,\n"
    "the check.\n";

int main(int argc, char **argv) {
    uint64_t sizes[16] = {1ull << 24, 1ull << 27, 1ull << 30};
    int nsizes = 3, gpus = MAXG;
    const char *type_list = "u32,u64,u32+u32";
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long l;
        if (!strcmp(a, "--check")) {
            check = 1;
        } else if (!strcmp(a, "--sizes") && v) {
            char buf[512];
            snprintf(buf, sizeof buf, "%s", v);
            nsizes = 0;
            for (char *p = strtok(buf, ","); p && nsizes < 16; p = strtok(NULL, ","))
                if (cli_parse_size(p, &sizes[nsizes++]) || !sizes[nsizes - 1]) {
                    fprintf(stderr, "bench_multi: bad size '%s'\n%s", p, usage);
                    return 2;
                }
            ++i;
        } else if (!strcmp(a, "--gpus") && v && !cli_parse_int(v, 1, MAXG, &l)) {
            gpus = (int)l;
            ++i;
        } else if (!strcmp(a, "--reps") && v && !cli_parse_int(v, 1, 64, &l)) {
            reps = (int)l;
            ++i;
        } else if (!strcmp(a, "--types") && v) {
            type_list = v;
            ++i;
        } else {
            fputs(usage, strcmp(a, "--help") && strcmp(a, "-h") ? stderr : stdout);
            return strcmp(a, "--help") && strcmp(a, "-h") ? 2 : 0;
        }
    }
    for (G = 0; G < gpus; ++G) {
        mj_context_options o;
        mj_context_options_init(&o);
        o.device = G;
        if (mj_context_create(&o, &ctxs[G]) != MJ_OK) {
            if (G == 0) {
                fprintf(stderr, "bench_multi: no GPU: %s\n", mj_context_last_error(ctxs[0]));
                return 1;
            }
            mj_context_destroy(ctxs[G]);
            break;
        }
    }
    char err[1024], version[32];
    for (int P = 1; P <= G; ++P)
        if (mj_multi_comms_create(P, NULL, comms[P], err, sizeof err)) {
            fprintf(stderr, "bench_multi: communicators over %d GPUs: %s\n", P, err);
            return 1;
        }
    printf("bench_multi: %d GPU%s (%s), NCCL %s, median of %d runs, each the slowest rank's "
           "time from a barrier\n", G, G == 1 ? "" : "s", mj_context_device_name(ctxs[0]),
           cli_format_nccl_version(mj_nccl_version(), version, sizeof version), reps);
    printf("%-8s %12s %4s %10s %8s %8s %9s %10s %9s %8s %8s  %s\n", "type", "keys", "GPUs",
           "multi ms", "plan ms", "Gkeys/s", "1-GPU/it", "gather ms", "gather/it", "largest",
           "link GB/s", "check");
    for (size_t ti = 0; ti < sizeof types / sizeof *types; ++ti) {
        const bench_type *t = &types[ti];
        char wanted[64];
        snprintf(wanted, sizeof wanted, ",%s,", type_list);
        char name[32];
        snprintf(name, sizeof name, ",%s,", t->name);
        if (!strstr(wanted, name)) continue;
        for (int si = 0; si < nsizes; ++si) {
            size_t total = (size_t)sizes[si], ks = mj_key_kind_size(t->kind);
            unsigned char *keys = malloc(total * ks), *values = malloc(total * t->vs + 1);
            if (!keys || !values) {
                fprintf(stderr, "bench_multi: no host memory for %zu keys\n", total);
                return 1;
            }
            uint64_t want = make_input(t, total, keys, values);
            double one = one_gpu(t, total, keys, values);
            for (int P = 1; P <= G; ++P) row(t, total, P, keys, values, one, want);
            free(keys);
            free(values);
        }
    }
    for (int P = 1; P <= G; ++P) mj_multi_comms_destroy(P, comms[P]);
    for (int g = 0; g < G; ++g) mj_context_destroy(ctxs[g]);
    return 0;
}
