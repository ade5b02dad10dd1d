/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo --primitive segreduce` (cmd_demo.c hands it over after opening the device): n
 * random integer keys of --type cut into segments of random lengths 0 to 2 x --seglen (CSR
 * offsets of 8 bytes), each segment summed (a + b, wrapping in the key's width), checked
 * against the CPU's sums and timed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "devmem.h"

int demo_is_segreduce(mj_primitive primitive) { return primitive == MJ_SEGMENTED_REDUCE; }

typedef struct segreduce_job {
    mj_sorter *s;
    size_t n, temp_bytes;
    mj_segments segments;
    void *in, *offsets, *out, *temp;
} segreduce_job;

static mj_status run_segreduce(void *arg)
{
    segreduce_job *j = arg;
    return mj_sorter_segmented_reduce(j->s, j->in, j->n, &j->segments, j->out, j->temp,
                                      j->temp_bytes, NULL);
}

/* The low ks bytes of x, little-endian: a sum that wraps in the key's width. */
static void put_low(unsigned char *p, uint64_t x, size_t ks)
{
    for (size_t b = 0; b < ks; b++)
        p[b] = (unsigned char)(x >> (8 * b));
}

static uint64_t get_low(const unsigned char *p, size_t ks)
{
    uint64_t x = 0;
    for (size_t b = 0; b < ks; b++)
        x |= (uint64_t)p[b] << (8 * b);
    return x;
}

int demo_segreduce_run(mj_context *ctx, const demo_opts *o, size_t n)
{
    size_t ks = mj_key_kind_size(o->kind), segs = 0;
    uint64_t seglen = o->seglen ? o->seglen : 1;
    /* Mean length seglen: at most n / seglen + 1 segments, with room to spare. */
    size_t cap = n / seglen * 2 + 16;
    segreduce_job j;
    memset(&j, 0, sizeof j);
    j.n = n;
    unsigned char *keys = malloc(n * ks + 1), *got = malloc(cap * ks), *want = malloc(cap * ks);
    uint64_t *off = malloc((cap + 1) * sizeof *off);
    float *times = o->reps > 0 ? malloc((size_t)o->reps * sizeof *times) : NULL;
    int rc = CLI_OK, launched = 0;
    mj_status st = MJ_OK;
    if (!keys || !got || !want || !off || (o->reps > 0 && !times)) {
        rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate the host buffers");
        goto done;
    }
    kg_fill_keys(o->kind, keys, n, o->seed);
    uint64_t rng = o->seed ^ 0x5e9ed;
    off[0] = 0;
    while (off[segs] < n && segs < cap) {
        uint64_t len = kg_splitmix(&rng) % (2 * seglen + 1), at = off[segs] + len;
        off[++segs] = at < n ? at : n;
    }
    for (size_t i = 0; i < segs; i++) {
        uint64_t sum = 0;
        for (uint64_t k = off[i]; k < off[i + 1]; k++)
            sum += get_low(keys + k * ks, ks);
        put_low(want + i * ks, sum, ks);
    }
    printf("%zu segments of random lengths 0 to %llu (8-byte offsets)\n", segs,
           (unsigned long long)(2 * seglen));
    j.segments = (mj_segments){MJ_SEGMENTS_OFFSETS, NULL, segs + 1, 8};
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, o->kind, o->order);
    desc.primitive = MJ_SEGMENTED_REDUCE;
    st = demo_sorter(ctx, &desc, n + segs + 1, &j.s, &j.temp_bytes);
    void **bufs[] = {&j.in, &j.offsets, &j.out, &j.temp};
    size_t sizes[] = {n * ks + 1, (segs + 1) * 8, segs * ks + 1, j.temp_bytes + 1};
    for (size_t i = 0; st == MJ_OK && i < sizeof bufs / sizeof *bufs; i++)
        st = mj__dev_alloc(ctx, bufs[i], sizes[i]);
    j.segments.data = j.offsets;
    if (st == MJ_OK && !(st = mj__dev_upload(ctx, j.in, keys, n * ks)))
        st = mj__dev_upload(ctx, j.offsets, off, (segs + 1) * 8);
    if (st == MJ_OK) {
        launched = 1;
        st = run_segreduce(&j);
    }
    if (st == MJ_OK && !(st = mj__dev_sync(ctx, NULL)))
        st = mj__dev_download(ctx, got, j.out, segs * ks);
    if (st != MJ_OK) {
        rc = cli_status_error(ctx, st);
        goto done;
    }
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < segs; i++)
        if (memcmp(got + i * ks, want + i * ks, ks) != 0 && bad++ == 0)
            first = i;
    float med = 0;
    rc = demo_time_runs(ctx, o, run_segreduce, &j, times, &med);
    printf("sums: %s", bad ? "FAIL" : "match the CPU");
    if (bad)
        printf(" (%zu segments wrong, the first %zu)", bad, first);
    if (o->reps > 0 && med > 0)
        printf(", median %.3f ms over %ld runs: %.2f Gkeys/s, %.1f GB/s read", med, o->reps,
               (double)n / (med * 1e6), (double)(n * ks + (segs + 1) * 8) / (med * 1e6));
    printf("\n");
    if (rc == CLI_OK)
        rc = demo_verdict(bad != 0);
done:
    if (launched)
        (void)mj__dev_sync(ctx, NULL);
    void *const dev[] = {j.in, j.offsets, j.out, j.temp};
    demo_release(ctx, dev, sizeof dev / sizeof *dev, j.s);
    free(keys);
    free(got);
    free(want);
    free(off);
    free(times);
    return rc;
}
