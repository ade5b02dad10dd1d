/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo --gpus N` (cmd_demo.c hands it over): a sort of n random keys (and --values)
 * across N GPUs over NCCL, one host thread a rank. The keys are cut into N shards in order;
 * each rank sorts its shard with mj_multi_sort into an output of the documented bound, the
 * concatenation of the ranks' outputs is checked against the CPU's stable sort of all the keys,
 * and --reps sorts are timed, each from the same input: the time of one is the slowest rank's,
 * from a barrier to its stream's end. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, pthread_barrier_t */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "demo.h"
#include "devmem.h"

#define MAX_GPUS 64

typedef struct rank_run {
    int rank;
    const demo_opts *o;
    mj_context *ctx;
    mj_multi_sorter *m;
    pthread_barrier_t *barrier;
    const unsigned char *keys, *values; /* the shard (host) */
    size_t n, capacity, out_count;
    unsigned char *out_keys, *out_values; /* the checked run's output (host) */
    double *ms;                           /* each timed run's */
    mj_status st;
    char msg[1024];
} rank_run;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* One rank: the checked run, then the timed ones. A failure on any rank fails every rank's
 * call alike (the sort's collectives carry it), so all leave the loop together. */
static void *rank_main(void *arg)
{
    rank_run *r = arg;
    mj_context *ctx = r->ctx;
    size_t ks = mj_key_kind_size(r->o->kind), vs = r->o->value_size;
    void *k = NULL, *v = NULL, *ok = NULL, *ov = NULL;
    mj_status st = mj__dev_alloc(ctx, &k, r->n * ks);
    if (!st && vs) st = mj__dev_alloc(ctx, &v, r->n * vs);
    if (!st) st = mj__dev_alloc(ctx, &ok, r->capacity * ks);
    if (!st && vs) st = mj__dev_alloc(ctx, &ov, r->capacity * vs);
    for (long rep = -1; rep < r->o->reps; ++rep) {
        if (!st) st = mj__dev_upload(ctx, k, r->keys, r->n * ks);
        if (!st && vs) st = mj__dev_upload(ctx, v, r->values, r->n * vs);
        pthread_barrier_wait(r->barrier);
        double t0 = now_ms();
        /* A rank whose setup failed joins with no keys, and every rank's sort fails alike. */
        r->st = mj_multi_sort(r->m, st ? NULL : k, vs ? v : NULL, r->n, ok, vs ? ov : NULL,
                              r->capacity, &r->out_count, NULL);
        if (!r->st) r->st = mj__dev_sync(ctx, NULL);
        if (r->st) break;
        if (rep >= 0) r->ms[rep] = now_ms() - t0;
        else if (mj__dev_download(ctx, r->out_keys, ok, r->out_count * ks) ||
                 mj__dev_download(ctx, r->out_values, ov, r->out_count * vs))
            r->st = MJ_ERR_CUDA;
    }
    if (r->st) snprintf(r->msg, sizeof r->msg, "%s", mj_context_last_error(ctx));
    void *bufs[] = {k, v, ok, ov};
    for (int i = 0; i < 4; i++)
        if (bufs[i]) (void)mj__dev_free(ctx, bufs[i]);
    return NULL;
}

/* Contexts on devices 0 .. gpus - 1, communicators and a sorter a rank. CLI_OK, or
 * CLI_FAILURE after printing why. */
static int open_ranks(const demo_opts *o, mj_context **ctx, void **comms, mj_multi_sorter **m)
{
    int gpus = o->gpus;
    for (int r = 0; r < gpus; r++) {
        mj_context_options opts;
        mj_context_options_init(&opts);
        opts.device = r;
        mj_status st = mj_context_create(&opts, &ctx[r]);
        if (st != MJ_OK) {
            fprintf(stderr, "mergejit demo: --gpus %d needs device %d: ", gpus, r);
            return cli_status_error(ctx[r], st);
        }
        printf("rank %d: device %d, %s\n", r, r, mj_context_device_name(ctx[r]));
        if (r == 0)
            demo_note_device(mj_context_device_name(ctx[r]), mj_context_target_sm(ctx[r]), 1);
    }
    char err[1024];
    mj_status st = mj_multi_comms_create(gpus, NULL, comms, err, sizeof err);
    if (st != MJ_OK)
        return cli_tool_error(st, "cannot make the NCCL communicators: %s", err);
    char version[32];
    printf("NCCL %s, one communicator over %d GPU%s\n",
           cli_format_nccl_version(mj_nccl_version(), version, sizeof version), gpus,
           gpus == 1 ? "" : "s");
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, o->kind, o->order);
    desc.value_size = o->value_size;
    double t0 = now_ms();
    for (int r = 0; r < gpus; r++) { /* one after the other: the rest load rank 0's build */
        st = mj_multi_sorter_create(ctx[r], &desc, comms[r], &m[r]);
        if (st != MJ_OK) return cli_status_error(ctx[r], st);
    }
    printf("build: %d sorters in %.1f ms\n", gpus, now_ms() - t0);
    return CLI_OK;
}

/* The ranks' outputs, concatenated, against the CPU's stable sort of all n keys. */
static int check(const demo_opts *o, size_t n, const unsigned char *keys,
                 const unsigned char *values, const rank_run *runs, int *pass)
{
    size_t ks = mj_key_kind_size(o->kind), vs = o->value_size, got = 0, first = 0;
    unsigned char *out_k = malloc(n * ks + 1), *out_v = malloc(n * vs + 1);
    uint64_t *perm = malloc(n * sizeof *perm + 8);
    int rc = CLI_OK;
    if (!out_k || !out_v || !perm) {
        rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate the check's buffers");
        goto done;
    }
    for (int r = 0; r < o->gpus && got <= n; r++) {
        if (runs[r].out_count > n - got) {
            got = n + 1;
            break;
        }
        memcpy(out_k + got * ks, runs[r].out_keys, runs[r].out_count * ks);
        memcpy(out_v + got * vs, runs[r].out_values, runs[r].out_count * vs);
        got += runs[r].out_count;
    }
    if (got != n) {
        printf("check: the ranks hold %zu keys, not %zu\n", got > n ? (size_t)0 : got, n);
        *pass = 0;
        goto done;
    }
    mj_status st = kg_reference_sort(o->kind, o->order, keys, n, perm);
    if (st != MJ_OK) {
        rc = cli_tool_error(st, "the CPU reference sort of %zu keys failed", n);
        goto done;
    }
    size_t bad = kg_compare(ks, vs, keys, values, out_k, out_v, perm, n, &first);
    *pass = bad == 0;
    if (*pass)
        printf("check: %zu keys%s on %d ranks match the CPU stable sort\n", n,
               vs ? " and values" : "", o->gpus);
    else
        demo_report_mismatch(o, ks, keys, out_k, out_v, perm, bad, first);
done:
    free(out_k);
    free(out_v);
    free(perm);
    return rc;
}

/* The timed runs: each one's time is its slowest rank's. */
static void report_times(const demo_opts *o, size_t n, const rank_run *runs)
{
    float *t = malloc((size_t)o->reps * sizeof *t);
    if (!t) return;
    for (long rep = 0; rep < o->reps; rep++) {
        double worst = 0;
        for (int r = 0; r < o->gpus; r++)
            worst = runs[r].ms[rep] > worst ? runs[r].ms[rep] : worst;
        t[rep] = (float)worst;
    }
    cli_sort_floats(t, (size_t)o->reps);
    double median = t[o->reps / 2];
    demo_note_time(median);
    printf("time: median %.3f ms over %ld sort%s (min %.3f, max %.3f), slowest rank from a "
           "barrier: %.2f Gkeys/s\n", median, o->reps, o->reps == 1 ? "" : "s", t[0],
           t[o->reps - 1], median > 0 ? (double)n / (median * 1e6) : 0.0);
    free(t);
}

int demo_multi_run(const demo_opts *o, size_t n)
{
    int gpus = o->gpus, rc = CLI_OK, pass = 0;
    size_t ks = mj_key_kind_size(o->kind), vs = o->value_size;
    mj_context *ctx[MAX_GPUS] = {NULL};
    void *comms[MAX_GPUS] = {NULL};
    mj_multi_sorter *m[MAX_GPUS] = {NULL};
    rank_run runs[MAX_GPUS];
    pthread_t threads[MAX_GPUS];
    pthread_barrier_t barrier;
    memset(runs, 0, sizeof runs);
    unsigned char *keys = malloc(n * ks + 1), *values = malloc(n * vs + 1);
    if (!keys || !values) {
        free(keys);
        free(values);
        return cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate %zu keys", n);
    }
    printf("mergejit demo: mergesort of %zu %s keys%s across %d GPU%s, %s, seed %llu\n", n,
           mj_key_kind_name(o->kind), vs ? " with values" : "", gpus, gpus == 1 ? "" : "s",
           o->order == MJ_DESCENDING ? "descending" : "ascending", (unsigned long long)o->seed);
    kg_fill_keys(o->kind, keys, n, o->seed);
    kg_fill_values(values, vs, n);
    rc = open_ranks(o, ctx, comms, m);
    /* Shards in order, the first n % gpus one key longer; outputs of the documented bound
     * (fewer than n / P + n / 1024 + n_max / 1024 + P + 1, the three quotients rounded
     * down here, each losing less than one). */
    size_t at = 0, n_max = n / (size_t)gpus + (n % (size_t)gpus != 0);
    size_t bound = n / (size_t)gpus + n / 1024 + n_max / 1024 + (size_t)gpus + 3;
    for (int r = 0; rc == CLI_OK && r < gpus; r++) {
        rank_run *x = &runs[r];
        x->rank = r;
        x->o = o;
        x->ctx = ctx[r];
        x->m = m[r];
        x->barrier = &barrier;
        x->n = n / (size_t)gpus + ((size_t)r < n % (size_t)gpus);
        x->keys = keys + at * ks;
        x->values = values + at * vs;
        x->capacity = bound;
        at += x->n;
        x->out_keys = malloc(bound * ks + 1);
        x->out_values = malloc(bound * vs + 1);
        x->ms = malloc(((size_t)o->reps + 1) * sizeof *x->ms);
        if (!x->out_keys || !x->out_values || !x->ms)
            rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate rank %d's buffers", r);
    }
    int started = 0;
    if (rc == CLI_OK) {
        pthread_barrier_init(&barrier, NULL, (unsigned)gpus);
        for (; started < gpus; started++)
            if (pthread_create(&threads[started], NULL, rank_main, &runs[started]) != 0) break;
        if (started < gpus) { /* the barrier would never open: say so and stop */
            fprintf(stderr, "mergejit: cannot start %d threads\n", gpus);
            exit(CLI_FAILURE);
        }
        for (int r = 0; r < started; r++) pthread_join(threads[r], NULL);
        pthread_barrier_destroy(&barrier);
        for (int r = 0; r < gpus && rc == CLI_OK; r++)
            if (runs[r].st != MJ_OK)
                rc = cli_tool_error(runs[r].st, "rank %d: %s", r, runs[r].msg);
    }
    if (rc == CLI_OK) {
        for (int r = 0; r < gpus; r++)
            printf("rank %d: %zu keys in, %zu out\n", r, runs[r].n, runs[r].out_count);
        rc = check(o, n, keys, values, runs, &pass);
    }
    if (rc == CLI_OK && o->reps > 0) report_times(o, n, runs);
    if (rc == CLI_OK) rc = demo_verdict(!pass);
    for (int r = 0; r < gpus; r++) {
        mj_multi_sorter_destroy(m[r]);
        free(runs[r].out_keys);
        free(runs[r].out_values);
        free(runs[r].ms);
    }
    mj_multi_comms_destroy(gpus, comms);
    for (int r = 0; r < gpus; r++) mj_context_destroy(ctx[r]);
    free(keys);
    free(values);
    return rc;
}
