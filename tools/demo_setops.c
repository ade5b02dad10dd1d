/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo --primitive setops` (cmd_demo.c hands it over after opening the device): n
 * random keys of --type, a the first half and b the second, where about half of b's keys are
 * copies of a's (so that about half are in common), each half sorted on the CPU, with --values
 * bytes naming each element; each of the four operations runs, is checked element by element
 * (keys and values: which side and which copy) against the std walk on the CPU, and timed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "devmem.h"

int demo_is_setops(mj_primitive primitive) { return primitive == MJ_SET_OPS; }

typedef struct setops_job {
    mj_sorter *s;
    mj_set_op op;
    size_t na, nb, temp_bytes;
    void *a, *av, *b, *bv, *out, *outv, *count, *temp;
} setops_job;

static mj_status run_setop(void *arg)
{
    setops_job *j = arg;
    return mj_sorter_set_op(j->s, j->op, j->a, j->av, j->na, j->b, j->bv, j->nb, j->out, j->outv,
                            j->count, j->temp, j->temp_bytes, NULL);
}

static const char *const op_names[] = {"intersection", "union", "difference",
                                       "symmetric difference"};

/* Sorts n keys (and their values) of `kind` on the CPU, stably. */
static mj_status sort_side(const demo_opts *o, unsigned char *keys, unsigned char *values,
                           size_t n)
{
    size_t ks = mj_key_kind_size(o->kind), vs = o->value_size;
    uint64_t *perm = malloc((n ? n : 1) * sizeof *perm);
    unsigned char *tmp = malloc(n * (ks > vs ? ks : vs) + 1);
    mj_status st = perm && tmp ? kg_reference_sort(o->kind, o->order, keys, n, perm)
                               : MJ_ERR_HOST_MEMORY;
    for (int pass = 0; st == MJ_OK && pass < 2; pass++) {
        size_t es = pass ? vs : ks;
        unsigned char *p = pass ? values : keys;
        for (size_t i = 0; i < n; i++)
            memcpy(tmp + i * es, p + perm[i] * es, es);
        memcpy(p, tmp, n * es);
    }
    free(perm);
    free(tmp);
    return st;
}

/* The std walk of op over a (keys at in, na) and b (after them, nb) against the result: the
 * number of mismatches (a wrong count is one), the first in *first. */
static size_t check(const demo_opts *o, mj_set_op op, const unsigned char *in,
                    const unsigned char *in_v, size_t na, size_t nb, const unsigned char *out,
                    const unsigned char *out_v, uint64_t count, size_t *first)
{
    size_t ks = mj_key_kind_size(o->kind), vs = o->value_size, i = 0, j = 0, m = 0, bad = 0;
    const unsigned char *a = in, *b = in + na * ks;
    while (i < na || j < nb) {
        int a_only = i < na && (j >= nb || kg_less(o->kind, o->order, a + i * ks, b + j * ks));
        int b_only = !a_only && j < nb &&
                     (i >= na || kg_less(o->kind, o->order, b + j * ks, a + i * ks));
        int emit = a_only   ? op != MJ_SET_INTERSECTION
                   : b_only ? op == MJ_SET_UNION || op == MJ_SET_SYMMETRIC_DIFFERENCE
                            : op == MJ_SET_INTERSECTION || op == MJ_SET_UNION;
        if (emit) {
            size_t src = b_only ? na + j : i; /* the element's index in `in` */
            int ok = m < count && memcmp(out + m * ks, in + src * ks, ks) == 0 &&
                     (!vs || memcmp(out_v + m * vs, in_v + src * vs, vs) == 0);
            if (!ok && bad++ == 0)
                *first = m;
            m++;
        }
        if (!b_only)
            i++;
        if (!a_only)
            j++;
    }
    if (m != count && bad++ == 0)
        *first = m < count ? m : (size_t)count;
    return bad;
}

int demo_setops_run(mj_context *ctx, const demo_opts *o, size_t n)
{
    size_t ks = mj_key_kind_size(o->kind), vs = o->value_size, na = n / 2, nb = n - n / 2;
    setops_job j;
    memset(&j, 0, sizeof j);
    j.na = na;
    j.nb = nb;
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
    uint64_t rng = o->seed ^ 0x5e7095;
    for (size_t i = na; i < n && na; i++)
        if (kg_splitmix(&rng) & 1)
            memcpy(keys + i * ks, keys + kg_splitmix(&rng) % na * ks, ks);
    kg_fill_values(values, vs, n);
    if ((st = sort_side(o, keys, values, na)) != MJ_OK ||
        (st = sort_side(o, keys + na * ks, values + na * vs, nb)) != MJ_OK) {
        rc = cli_tool_error(st, "cannot sort the keys on the CPU");
        goto done;
    }
    printf("a: the first %zu keys, b: the other %zu (about half of them copies of a's), each "
           "sorted\n", na, nb);
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, o->kind, o->order);
    desc.primitive = MJ_SET_OPS;
    desc.value_size = vs;
    st = demo_sorter(ctx, &desc, n, &j.s, &j.temp_bytes);
    void **bufs[] = {&j.a, &j.b, &j.out, &j.count, &j.temp, &j.av, &j.bv, &j.outv};
    size_t sizes[] = {na * ks + 1, nb * ks + 1, n * ks + 1, 8, j.temp_bytes, na * vs + 1,
                      nb * vs + 1, n * vs + 1};
    for (size_t i = 0; st == MJ_OK && i < sizeof bufs / sizeof *bufs - (vs ? 0 : 3); i++)
        st = mj__dev_alloc(ctx, bufs[i], sizes[i]);
    if (st == MJ_OK && !(st = mj__dev_upload(ctx, j.a, keys, na * ks)))
        st = mj__dev_upload(ctx, j.b, keys + na * ks, nb * ks);
    if (st == MJ_OK && vs && !(st = mj__dev_upload(ctx, j.av, values, na * vs)))
        st = mj__dev_upload(ctx, j.bv, values + na * vs, nb * vs);
    for (int op = 0; st == MJ_OK && rc == CLI_OK && op < 4; op++) {
        j.op = (mj_set_op)op;
        uint64_t count = 0;
        launched = 1;
        st = run_setop(&j);
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
        size_t bad = count > n ? 1 : check(o, j.op, keys, values, na, nb, out, out_v, count,
                                           &first);
        failed |= bad != 0;
        float med = 0;
        rc = demo_time_runs(ctx, o, run_setop, &j, times, &med);
        printf("%-20s %12llu elements: %s", op_names[op], (unsigned long long)count,
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
    void *const dev[] = {j.a, j.b, j.out, j.count, j.temp, j.av, j.bv, j.outv};
    demo_release(ctx, dev, sizeof dev / sizeof *dev, j.s);
    free(keys);
    free(values);
    free(out);
    free(out_v);
    free(times);
    return rc;
}
