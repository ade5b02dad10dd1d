/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo --primitive select` (cmd_demo.c hands it over after opening the device): n
 * random keys of --type in runs (each key a copy of the one before it with probability 1/2),
 * with --values bytes naming each element; a selection (integer and 16-bit float keys: an even
 * low bit; f32 and f64: above zero) and unique each run, are checked element by element (keys
 * and values: which element) against the CPU, and timed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "devmem.h"

int demo_is_select(mj_primitive primitive) { return primitive == MJ_SELECT; }

typedef struct select_job {
    mj_sorter *s;
    mj_select_kind kind;
    size_t n, temp_bytes;
    void *keys, *values, *out, *outv, *count, *temp;
} select_job;

static mj_status run_select(void *arg)
{
    select_job *j = arg;
    return mj_sorter_select(j->s, j->kind, j->keys, j->values, j->n, j->out, j->outv, j->count,
                            j->temp, j->temp_bytes, NULL);
}

/* The selection operator for a kind, and its C twin over the key's bytes. */
static const char *select_op(mj_key_kind kind)
{
    return kind == MJ_KEY_F32   ? "a > 0.0f"
           : kind == MJ_KEY_F64 ? "a > 0.0"
           : kind == MJ_KEY_F16 || kind == MJ_KEY_BF16 ? "(a.bits & 1) == 0"
                                                       : "(a & 1) == 0";
}
static int selected(mj_key_kind kind, const unsigned char *k)
{
    if (kind == MJ_KEY_F32) {
        float f;
        memcpy(&f, k, 4);
        return f > 0.0f;
    }
    if (kind == MJ_KEY_F64) {
        double d;
        memcpy(&d, k, 8);
        return d > 0.0;
    }
    return (k[0] & 1) == 0; /* the low byte first: the hosts are little-endian, as the GPU */
}

/* The kept elements against the result: the number of mismatches (a wrong count is one), the
 * first in *first. */
static size_t check(const demo_opts *o, mj_select_kind kind, const unsigned char *in,
                    const unsigned char *in_v, size_t n, const unsigned char *out,
                    const unsigned char *out_v, uint64_t count, size_t *first)
{
    size_t ks = mj_key_kind_size(o->kind), vs = o->value_size, m = 0, bad = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *k = in + i * ks;
        int kept = kind == MJ_SELECT_IF ? selected(o->kind, k)
                                        : i == 0 || kg_less(o->kind, o->order, k - ks, k) ||
                                              kg_less(o->kind, o->order, k, k - ks);
        if (!kept)
            continue;
        int ok = m < count && memcmp(out + m * ks, k, ks) == 0 &&
                 (!vs || memcmp(out_v + m * vs, in_v + i * vs, vs) == 0);
        if (!ok && bad++ == 0)
            *first = m;
        m++;
    }
    if (m != count && bad++ == 0)
        *first = m < count ? m : (size_t)count;
    return bad;
}

int demo_select_run(mj_context *ctx, const demo_opts *o, size_t n)
{
    size_t ks = mj_key_kind_size(o->kind), vs = o->value_size;
    select_job j;
    memset(&j, 0, sizeof j);
    j.n = n;
    unsigned char *keys = malloc(n * ks + 1), *values = malloc(n * vs + 1);
    unsigned char *out = malloc(n * ks + 1), *out_v = malloc(n * vs + 1);
    float *times = o->reps > 0 ? malloc((size_t)o->reps * sizeof *times) : NULL;
    int rc = CLI_OK, launched = 0, failed = 0;
    mj_status st = MJ_OK;
    if (!keys || !values || !out || !out_v || (o->reps > 0 && !times)) {
        rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate the host buffers");
        goto done;
    }
    kg_fill_keys(o->kind, keys, n, o->seed);
    uint64_t rng = o->seed ^ 0x5e1ec7;
    for (size_t i = 1; i < n; i++)
        if (kg_splitmix(&rng) & 1)
            memcpy(keys + i * ks, keys + (i - 1) * ks, ks);
    kg_fill_values(values, vs, n);
    printf("keys in runs (each a copy of the one before with probability 1/2); select keeps "
           "%s\n", select_op(o->kind));
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, o->kind, o->order);
    desc.primitive = MJ_SELECT;
    desc.value_size = vs;
    desc.op = select_op(o->kind);
    st = demo_sorter(ctx, &desc, n, &j.s, &j.temp_bytes);
    void **bufs[] = {&j.keys, &j.out, &j.count, &j.temp, &j.values, &j.outv};
    size_t sizes[] = {n * ks + 1, n * ks + 1, 8, j.temp_bytes, n * vs + 1, n * vs + 1};
    for (size_t i = 0; st == MJ_OK && i < sizeof bufs / sizeof *bufs - (vs ? 0 : 2); i++)
        st = mj__dev_alloc(ctx, bufs[i], sizes[i]);
    if (st == MJ_OK)
        st = mj__dev_upload(ctx, j.keys, keys, n * ks);
    if (st == MJ_OK && vs)
        st = mj__dev_upload(ctx, j.values, values, n * vs);
    static const char *const names[] = {"select", "unique"};
    for (int kind = 0; st == MJ_OK && rc == CLI_OK && kind < 2; kind++) {
        j.kind = (mj_select_kind)kind;
        uint64_t count = 0;
        launched = 1;
        st = run_select(&j);
        if (st == MJ_OK)
            st = mj__dev_sync(ctx, NULL);
        if (st == MJ_OK)
            st = mj__dev_download(ctx, &count, j.count, 8);
        int fits = count > 0 && count <= n;
        if (st == MJ_OK && fits)
            st = mj__dev_download(ctx, out, j.out, (size_t)count * ks);
        if (st == MJ_OK && fits && vs)
            st = mj__dev_download(ctx, out_v, j.outv, (size_t)count * vs);
        if (st != MJ_OK)
            break;
        size_t first = 0;
        size_t bad = count > n ? 1 : check(o, j.kind, keys, values, n, out, out_v, count, &first);
        failed |= bad != 0;
        float med = 0;
        rc = demo_time_runs(ctx, o, run_select, &j, times, &med);
        printf("%-8s %12llu of %zu kept: %s", names[kind], (unsigned long long)count, n,
               bad ? "FAIL" : "match the CPU");
        if (bad)
            printf(" (%zu wrong, the first at %zu)", bad, first);
        if (o->reps > 0 && med > 0)
            printf(", median %.3f ms over %ld runs: %.2f Gkeys/s (inputs)", med, o->reps,
                   (double)n / (med * 1e6));
        printf("\n");
    }
    if (st != MJ_OK)
        rc = cli_status_error(ctx, st);
    if (rc == CLI_OK)
        rc = demo_verdict(failed);
done:
    if (launched)
        (void)mj__dev_sync(ctx, NULL);
    void *const dev[] = {j.keys, j.out, j.count, j.temp, j.values, j.outv};
    demo_release(ctx, dev, sizeof dev / sizeof *dev, j.s);
    free(keys);
    free(values);
    free(out);
    free(out_v);
    free(times);
    return rc;
}
