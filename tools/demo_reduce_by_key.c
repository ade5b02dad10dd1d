/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo --primitive reducebykey` (cmd_demo.c hands it over after opening the device
 * and checking --values): n keys of --type in runs of 1 to 7 copies (mean 4; equal keys also
 * come back after other runs: the input is not sorted), each with a 4-byte value (unsigned,
 * --values 0 or 4); each run reduced to its first key and the sum of its values (a + b,
 * wrapping), checked run by run against the CPU (equivalent keys: neither ordered before the
 * other by --order's total order) and timed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "devmem.h"

int demo_is_reduce_by_key(mj_primitive primitive) { return primitive == MJ_REDUCE_BY_KEY; }

typedef struct rbk_job {
    mj_sorter *s;
    size_t n, temp_bytes;
    void *keys, *values, *out, *out_v, *count, *temp;
} rbk_job;

static mj_status run_rbk(void *arg)
{
    rbk_job *j = arg;
    return mj_sorter_reduce_by_key(j->s, j->keys, j->values, j->n, j->out, j->out_v, j->count,
                                   j->temp, j->temp_bytes, NULL);
}

/* The runs of keys (and their sums) against the result: the number of mismatches (a wrong
 * count is one), the first in *first. */
static size_t check(const demo_opts *o, const unsigned char *keys, const uint32_t *values,
                    size_t n, const unsigned char *out, const uint32_t *out_v, uint64_t count,
                    size_t *first)
{
    size_t ks = mj_key_kind_size(o->kind), runs = 0, bad = 0;
    for (size_t i = 0; i < n;) {
        size_t end = i + 1;
        uint32_t sum = values[i];
        while (end < n && !kg_less(o->kind, o->order, keys + i * ks, keys + end * ks) &&
               !kg_less(o->kind, o->order, keys + end * ks, keys + i * ks))
            sum += values[end++];
        int ok = runs < count && memcmp(out + runs * ks, keys + i * ks, ks) == 0 &&
                 out_v[runs] == sum;
        if (!ok && bad++ == 0)
            *first = runs;
        runs++;
        i = end;
    }
    if (runs != count && bad++ == 0)
        *first = runs < count ? runs : (size_t)count;
    return bad;
}

int demo_reduce_by_key_run(mj_context *ctx, const demo_opts *o, size_t n)
{
    size_t ks = mj_key_kind_size(o->kind);
    rbk_job j;
    memset(&j, 0, sizeof j);
    j.n = n;
    unsigned char *keys = malloc(n * ks + 1), *out = malloc(n * ks + 1);
    uint32_t *values = malloc(n * 4 + 4), *out_v = malloc(n * 4 + 4);
    float *times = o->reps > 0 ? malloc((size_t)o->reps * sizeof *times) : NULL;
    int rc = CLI_OK, launched = 0;
    mj_status st = MJ_OK;
    if (!keys || !out || !values || !out_v || (o->reps > 0 && !times)) {
        rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate the host buffers");
        goto done;
    }
    kg_fill_keys(o->kind, keys, n, o->seed);
    uint64_t rng = o->seed ^ 0x7b6b;
    for (size_t i = 1, left = 0; i < n; i++) { /* runs of 1 to 7 copies */
        if (left) {
            memcpy(keys + i * ks, keys + (i - 1) * ks, ks);
            left--;
        } else {
            left = kg_splitmix(&rng) % 7;
        }
    }
    for (size_t i = 0; i < n; i++)
        values[i] = (uint32_t)(kg_splitmix(&rng) % 1000);
    printf("keys in runs of 1 to 7 copies, each with a 4-byte value; the runs' sums\n");
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, o->kind, o->order);
    desc.primitive = MJ_REDUCE_BY_KEY;
    desc.value_size = 4;
    desc.value_type = "unsigned";
    st = demo_sorter(ctx, &desc, n, &j.s, &j.temp_bytes);
    void **bufs[] = {&j.keys, &j.values, &j.out, &j.out_v, &j.count, &j.temp};
    size_t sizes[] = {n * ks + 1, n * 4 + 4, n * ks + 1, n * 4 + 4, 8, j.temp_bytes};
    for (size_t i = 0; st == MJ_OK && i < sizeof bufs / sizeof *bufs; i++)
        st = mj__dev_alloc(ctx, bufs[i], sizes[i]);
    if (st == MJ_OK && !(st = mj__dev_upload(ctx, j.keys, keys, n * ks)))
        st = mj__dev_upload(ctx, j.values, values, n * 4);
    uint64_t count = 0;
    if (st == MJ_OK) {
        launched = 1;
        st = run_rbk(&j);
    }
    if (st == MJ_OK)
        st = mj__dev_sync(ctx, NULL);
    if (st == MJ_OK)
        st = mj__dev_download(ctx, &count, j.count, 8);
    int fits = count <= n;
    if (st == MJ_OK && fits)
        st = mj__dev_download(ctx, out, j.out, (size_t)count * ks);
    if (st == MJ_OK && fits)
        st = mj__dev_download(ctx, out_v, j.out_v, (size_t)count * 4);
    if (st != MJ_OK) {
        rc = cli_status_error(ctx, st);
        goto done;
    }
    size_t first = 0;
    size_t bad = fits ? check(o, keys, values, n, out, out_v, count, &first) : 1;
    float med = 0;
    rc = demo_time_runs(ctx, o, run_rbk, &j, times, &med);
    printf("%llu runs: %s", (unsigned long long)count, bad ? "FAIL" : "match the CPU");
    if (bad)
        printf(" (%zu wrong, the first at %zu)", bad, first);
    if (o->reps > 0 && med > 0)
        printf(", median %.3f ms over %ld runs: %.2f Gkeys/s", med, o->reps,
               (double)n / (med * 1e6));
    printf("\n");
    if (rc == CLI_OK)
        rc = demo_verdict(bad != 0);
done:
    if (launched)
        (void)mj__dev_sync(ctx, NULL);
    void *const dev[] = {j.keys, j.values, j.out, j.out_v, j.count, j.temp};
    demo_release(ctx, dev, sizeof dev / sizeof *dev, j.s);
    free(keys);
    free(out);
    free(values);
    free(out_v);
    free(times);
    return rc;
}
