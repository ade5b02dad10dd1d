/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo --primitive move` (cmd_demo.c hands it over after opening the device): n
 * items in n / 8 + 1 intervals of random counts; each interval reads from a random place in
 * `in` (n elements) and lands in a random permutation of the intervals laid end to end in
 * `out` (n elements, every one written once). Checked element by element against the CPU,
 * then timed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "devmem.h"

typedef struct move_job {
    mj_sorter *s;
    void *offsets, *gather, *scatter, *in, *out, *temp;
    size_t intervals, n, temp_bytes;
} move_job;

static mj_status run_move(void *arg)
{
    move_job *j = arg;
    return mj_sorter_interval_move(j->s, j->offsets, j->intervals, j->n, j->gather, j->scatter,
                                   j->in, j->n, j->out, j->n, j->temp, j->temp_bytes, NULL);
}

static uint64_t get(const unsigned char *a, size_t ks, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, a + i * ks, ks); /* little-endian, non-negative */
    return v;
}

static void put(unsigned char *a, size_t ks, size_t i, uint64_t v)
{
    memcpy(a + i * ks, &v, ks);
}

static size_t count_of(const unsigned char *off, size_t ks, size_t intervals, size_t n, size_t j)
{
    return (size_t)((j + 1 < intervals ? get(off, ks, j + 1) : n) - get(off, ks, j));
}

/* Gather: a random source of each interval's length inside in. Scatter: the intervals in a
 * random order, end to end. */
static void describe(uint64_t *seed, size_t n, size_t intervals, size_t ks,
                     const unsigned char *off, unsigned char *gat, unsigned char *sca,
                     size_t *perm)
{
    for (size_t j = 0; j < intervals; j++) {
        perm[j] = j;
        put(gat, ks, j, kg_splitmix(seed) % (n - count_of(off, ks, intervals, n, j) + 1));
    }
    for (size_t t = intervals; t > 1; t--) {
        size_t u = (size_t)(kg_splitmix(seed) % t), x = perm[t - 1];
        perm[t - 1] = perm[u];
        perm[u] = x;
    }
    for (size_t t = 0, pos = 0; t < intervals; t++) {
        put(sca, ks, perm[t], pos);
        pos += count_of(off, ks, intervals, n, perm[t]);
    }
}

/* out against the moves done on the CPU: the number of elements that differ, the first in
 * *first. */
static size_t check(size_t n, size_t intervals, size_t ks, size_t vs, const unsigned char *off,
                    const unsigned char *gat, const unsigned char *sca, const unsigned char *in,
                    const unsigned char *out, size_t *first)
{
    size_t bad = 0;
    for (size_t j = 0; j < intervals; j++) {
        size_t c = count_of(off, ks, intervals, n, j), g = get(gat, ks, j), s = get(sca, ks, j);
        for (size_t r = 0; r < c; r++)
            if (memcmp(out + (s + r) * vs, in + (g + r) * vs, vs) != 0 && bad++ == 0)
                *first = s + r;
    }
    return bad;
}

int demo_move_run(mj_context *ctx, const demo_opts *o, size_t n)
{
    size_t ks = mj_key_kind_size(o->kind), vs = o->value_size, intervals = n / 8 + 1;
    move_job j = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, intervals, n, 0};
    unsigned char *off = malloc(intervals * ks), *gat = malloc(intervals * ks);
    unsigned char *sca = malloc(intervals * ks), *in = malloc(n * vs + 1);
    unsigned char *out = malloc(n * vs + 1);
    size_t *perm = malloc(intervals * sizeof *perm);
    float *times = o->reps > 0 ? malloc((size_t)o->reps * sizeof *times) : NULL;
    int rc = CLI_OK, launched = 0;
    if (!off || !gat || !sca || !in || !out || !perm || (o->reps > 0 && !times)) {
        rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate the host buffers");
        goto done;
    }
    uint64_t seed = o->seed;
    demo_lbs_offsets(&seed, n, intervals, ks, off);
    describe(&seed, n, intervals, ks, off, gat, sca, perm);
    for (size_t b = 0; b < n * vs; b++)
        in[b] = (unsigned char)kg_splitmix(&seed);
    printf("intervals: %zu, random counts 0 to 15, random sources, scattered in random order\n",
           intervals);
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, o->kind, MJ_ASCENDING);
    desc.primitive = MJ_INTERVAL_MOVE;
    desc.value_size = vs;
    mj_status st = demo_sorter(ctx, &desc, n + intervals, &j.s, &j.temp_bytes);
    void **const dev[] = {&j.offsets, &j.gather, &j.scatter, &j.in, &j.out, &j.temp};
    const size_t bytes[] = {intervals * ks, intervals * ks, intervals * ks, n * vs, n * vs,
                            j.temp_bytes};
    const unsigned char *const host[] = {off, gat, sca, in, NULL, NULL};
    for (size_t b = 0; b < sizeof dev / sizeof *dev && st == MJ_OK; b++)
        if (!(st = mj__dev_alloc(ctx, dev[b], bytes[b])) && host[b] && bytes[b])
            st = mj__dev_upload(ctx, *dev[b], host[b], bytes[b]);
    if (st == MJ_OK) {
        launched = 1;
        st = run_move(&j);
    }
    if (st == MJ_OK && !(st = mj__dev_sync(ctx, NULL)))
        st = mj__dev_download(ctx, out, j.out, n * vs);
    if (st != MJ_OK) {
        rc = cli_status_error(ctx, st);
        goto done;
    }
    size_t first = 0, bad = check(n, intervals, ks, vs, off, gat, sca, in, out, &first);
    if (bad)
        printf("check: %zu of %zu elements differ from the CPU, first at out[%zu]\n", bad, n,
               first);
    else
        printf("check: %zu elements moved as on the CPU\n", n);
    float med = 0;
    if (rc == CLI_OK)
        rc = demo_time_runs(ctx, o, run_move, &j, times, &med);
    if (rc == CLI_OK && o->reps > 0) {
        /* Elements read and written, and the offsets, gather and scatter entries read. */
        double moved = 2.0 * (double)n * (double)vs + 3.0 * (double)intervals * (double)ks;
        printf("time: median %.3f ms over %ld runs: %.2f Gitems/s, %.1f GB/s\n", med, o->reps,
               med > 0 ? (double)n / (med * 1e6) : 0.0, med > 0 ? moved / (med * 1e6) : 0.0);
    }
    if (rc == CLI_OK)
        rc = demo_verdict(bad);
done:
    if (launched)
        (void)mj__dev_sync(ctx, NULL);
    void *const bufs[] = {j.offsets, j.gather, j.scatter, j.in, j.out, j.temp};
    demo_release(ctx, bufs, sizeof bufs / sizeof *bufs, j.s);
    free(off);
    free(gat);
    free(sca);
    free(in);
    free(out);
    free(perm);
    free(times);
    return rc;
}
