/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo`'s pass line for mergesort: one profiled sort (mj_sorter_sort_profiled) and
 * the bandwidth of each kind of pass beside a device-to-device copy of the same bytes. */
#include <stdio.h>

#include "cli.h"
#include "demo.h"
#include "devmem.h"

#define MAX_PASSES 64

/* A copy of the keys and values into the sort's temporary storage, for mj__dev_time. */
typedef struct copy_job {
    mj_context *ctx;
    void *dst;
    const void *keys, *values;
    size_t key_bytes, value_bytes;
} copy_job;

static mj_status copy_input(void *arg) {
    copy_job *j = arg;
    mj_status st = mj__dev_copy(j->ctx, j->dst, j->keys, j->key_bytes);
    if (st == MJ_OK)
        st = mj__dev_copy(j->ctx, (char *)j->dst + j->key_bytes, j->values, j->value_bytes);
    return st;
}

/* The median of --reps copies in GB/s (bytes read plus written), or -1 when temp cannot hold
 * them; times has o->reps entries. */
static mj_status copy_gbs(mj_context *ctx, const demo_opts *o, copy_job *job, float *times,
                          double *gbs) {
    *gbs = -1;
    for (long r = 0; r < o->reps; r++) {
        mj_status st = mj__dev_time(ctx, copy_input, job, &times[r]);
        if (st != MJ_OK)
            return st;
    }
    cli_sort_floats(times, (size_t)o->reps);
    double ms = times[o->reps / 2];
    if (ms > 0)
        *gbs = 2.0 * (double)(job->key_bytes + job->value_bytes) / (ms * 1e6);
    return MJ_OK;
}

/* Prints " name N" with the GB/s of the passes of `kind`, when there are any. */
static void print_kind(const mj_sort_pass *p, int count, mj_pass_kind kind, const char *name) {
    double gbs = mj_sort_passes_gbs(p, count, kind);
    if (gbs >= 0) printf(" %s %.0f,", name, gbs);
}

int demo_print_passes(mj_context *ctx, const demo_opts *o, size_t n, const demo_sort_buffers *b,
                      const demo_host *h) {
    size_t key_bytes = n * mj_key_kind_size(o->kind), value_bytes = n * o->value_size;
    mj_sort_pass p[MAX_PASSES];
    int count = 0;
    double copy = -1;
    copy_job job = {ctx, b->temp, b->keys, b->values, key_bytes, value_bytes};
    mj_status st = MJ_OK;
    /* Mergesort's temporary storage holds a copy of the keys and values (its scratch). */
    if (b->temp && b->temp_bytes >= key_bytes + value_bytes)
        st = copy_gbs(ctx, o, &job, h->times, &copy);
    if (st == MJ_OK)
        st = mj__dev_upload(ctx, b->keys, h->keys_in, key_bytes);
    if (st == MJ_OK && value_bytes > 0)
        st = mj__dev_upload(ctx, b->values, h->values_in, value_bytes);
    if (st == MJ_OK)
        st = mj_sorter_sort_profiled(b->sorter, b->keys, b->values, n, b->temp, b->temp_bytes,
                                     NULL, p, MAX_PASSES, &count);
    if (st != MJ_OK)
        return cli_status_error(ctx, st);
    char text[128];
    int launches = 0;
    double total = 0;
    mj_sort_passes_text(p, count, text, sizeof text);
    for (int i = 0; i < count; i++) {
        launches += p[i].launches;
        total += p[i].ms;
    }
    printf("passes: %s, %d launches, %.3f ms profiled; GB/s:", text, launches, total);
    print_kind(p, count, MJ_PASS_BLOCKSORT, "blocksort");
    print_kind(p, count, MJ_PASS_MERGE2, "2-way");
    print_kind(p, count, MJ_PASS_MERGE4, "4-way");
    if (copy > 0)
        printf(" copy %.0f\n", copy);
    else
        printf(" copy -\n");
    return CLI_OK;
}
