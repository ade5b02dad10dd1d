/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo --primitive lbs|expand` (cmd_demo.c hands these over after opening the
 * device): random counts for n / 8 + 1 objects, the run checked item by item against the CPU
 * (each item's object and rank, or its object's value), then timed. The option rules cover
 * move too (demo_move.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "devmem.h"

int demo_is_lbs(mj_primitive primitive)
{
    return primitive == MJ_LOAD_BALANCE || primitive == MJ_INTERVAL_EXPAND ||
           primitive == MJ_INTERVAL_MOVE;
}

int demo_lbs_opts(const demo_opts *o)
{
    if (o->kind != MJ_KEY_I32 && o->kind != MJ_KEY_I64)
        return cli_usage_error("demo", "%s takes --type i32 or i64 (the offsets' index type)",
                               mj_primitive_name(o->primitive));
    if (o->primitive == MJ_LOAD_BALANCE && o->value_size)
        return cli_usage_error("demo", "lbs takes no --values");
    if (o->primitive != MJ_LOAD_BALANCE && !o->value_size)
        return cli_usage_error("demo", "%s needs --values 1 to 64",
                               mj_primitive_name(o->primitive));
    return CLI_OK;
}

void demo_lbs_offsets(uint64_t *seed, size_t n, size_t objects, size_t ks, unsigned char *off)
{
    for (size_t i = 0; i < objects; i++) {
        uint64_t v = i ? i * 8 + kg_splitmix(seed) % 8 : 0;
        v = v < n ? v : n;
        memcpy(off + i * ks, &v, ks);
    }
}

typedef struct lbs_job {
    mj_sorter *s;
    mj_primitive primitive;
    void *offsets, *out, *ranks, *values, *temp;
    size_t objects, n, temp_bytes;
} lbs_job;

static mj_status run_lbs(void *arg)
{
    lbs_job *j = arg;
    if (j->primitive == MJ_INTERVAL_EXPAND)
        return mj_sorter_interval_expand(j->s, j->offsets, j->objects, j->n, j->values, j->out,
                                         j->temp, j->temp_bytes, NULL);
    return mj_sorter_load_balance(j->s, j->offsets, j->objects, j->n, j->out, j->ranks, j->temp,
                                  j->temp_bytes, NULL);
}

static uint64_t get(const unsigned char *a, size_t ks, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, a + i * ks, ks); /* little-endian, non-negative */
    return v;
}

/* Item by item against a walk over the offsets: the number of mismatches, the first in
 * *first. */
static size_t check(const lbs_job *j, size_t ks, size_t vs, const unsigned char *off,
                    const unsigned char *vals, const unsigned char *out,
                    const unsigned char *ranks, size_t *first)
{
    size_t bad = 0, obj = 0;
    for (size_t i = 0; i < j->n; i++) {
        while (obj + 1 < j->objects && get(off, ks, obj + 1) <= i)
            obj++;
        int ok = vs ? memcmp(out + i * vs, vals + obj * vs, vs) == 0
                    : get(out, ks, i) == obj && get(ranks, ks, i) == i - get(off, ks, obj);
        if (!ok && bad++ == 0)
            *first = i;
    }
    return bad;
}

int demo_lbs_run(mj_context *ctx, const demo_opts *o, size_t n)
{
    size_t ks = mj_key_kind_size(o->kind), vs = o->value_size, objects = n / 8 + 1;
    size_t outs = vs ? vs : ks;
    lbs_job j = {NULL, o->primitive, NULL, NULL, NULL, NULL, NULL, objects, n, 0};
    unsigned char *off = malloc(objects * ks), *vals = vs ? malloc(objects * vs) : NULL;
    unsigned char *out = malloc(n * outs), *ranks = vs ? NULL : malloc(n * ks);
    float *times = o->reps > 0 ? malloc((size_t)o->reps * sizeof *times) : NULL;
    int rc = CLI_OK, launched = 0;
    if (!off || (vs && !vals) || !out || (!vs && !ranks) || (o->reps > 0 && !times)) {
        rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate the host buffers");
        goto done;
    }
    uint64_t seed = o->seed;
    demo_lbs_offsets(&seed, n, objects, ks, off);
    for (size_t b = 0; b < objects * vs; b++)
        vals[b] = (unsigned char)kg_splitmix(&seed);
    printf("objects: %zu, random counts 0 to 15\n", objects);
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, o->kind, MJ_ASCENDING);
    desc.primitive = o->primitive;
    desc.value_size = vs;
    mj_status st = demo_sorter(ctx, &desc, n + objects, &j.s, &j.temp_bytes);
    if (st == MJ_OK && !(st = mj__dev_alloc(ctx, &j.offsets, objects * ks)) &&
        !(st = mj__dev_alloc(ctx, &j.out, n * outs)) &&
        !(st = mj__dev_alloc(ctx, &j.temp, j.temp_bytes)) &&
        !(st = vs ? mj__dev_alloc(ctx, &j.values, objects * vs)
                  : mj__dev_alloc(ctx, &j.ranks, n * ks)) &&
        !(st = mj__dev_upload(ctx, j.offsets, off, objects * ks)) && vs)
        st = mj__dev_upload(ctx, j.values, vals, objects * vs);
    if (st == MJ_OK) {
        launched = 1;
        st = run_lbs(&j);
    }
    if (st == MJ_OK && !(st = mj__dev_sync(ctx, NULL)) &&
        !(st = mj__dev_download(ctx, out, j.out, n * outs)) && !vs)
        st = mj__dev_download(ctx, ranks, j.ranks, n * ks);
    if (st != MJ_OK) {
        rc = cli_status_error(ctx, st);
        goto done;
    }
    size_t first = 0, bad = check(&j, ks, vs, off, vals, out, ranks, &first);
    if (bad)
        printf("check: %zu of %zu items differ from the CPU, first at item %zu\n", bad, n,
               first);
    else
        printf("check: %zu items' %s match the CPU\n", n,
               vs ? "values" : "objects and ranks");
    float med = 0;
    if (rc == CLI_OK)
        rc = demo_time_runs(ctx, o, run_lbs, &j, times, &med);
    if (rc == CLI_OK && o->reps > 0) {
        printf("time: median %.3f ms over %ld runs: %.2f Gitems/s\n", med, o->reps,
               med > 0 ? (double)n / (med * 1e6) : 0.0);
    }
    if (rc == CLI_OK)
        rc = demo_verdict(bad);
done:
    if (launched)
        (void)mj__dev_sync(ctx, NULL);
    void *const bufs[] = {j.offsets, j.out, j.ranks, j.values, j.temp};
    demo_release(ctx, bufs, sizeof bufs / sizeof *bufs, j.s);
    free(off);
    free(vals);
    free(out);
    free(ranks);
    free(times);
    return rc;
}
