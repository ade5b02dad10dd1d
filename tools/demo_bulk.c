/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo --primitive remove|insert` (cmd_demo.c hands these over after opening the
 * device): remove a random quarter of n elements, or insert n / 4 elements at random positions
 * into the other n - n / 4; keys (and --values bytes) are random bytes, checked element by
 * element against the CPU, then timed. Indices are 4-byte below 2^32 elements, else 8-byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "devmem.h"

int demo_is_bulk(mj_primitive primitive)
{
    return primitive == MJ_BULK_REMOVE || primitive == MJ_BULK_INSERT;
}

/* Remove: the n elements at keys (values), k indices. Insert: a at keys (values) with a
 * positions at indices, b's n - a elements at b_keys (b_values). */
typedef struct bulk_job {
    mj_sorter *s;
    mj_primitive primitive;
    size_t n, a, k, index_size, temp_bytes;
    void *keys, *values, *b_keys, *b_values, *indices, *out_keys, *out_values, *temp;
} bulk_job;

static mj_status run_bulk(void *arg)
{
    bulk_job *j = arg;
    if (j->primitive == MJ_BULK_REMOVE)
        return mj_sorter_bulk_remove(j->s, j->keys, j->values, j->n, j->indices, j->k,
                                     j->index_size, j->out_keys, j->out_values, j->temp,
                                     j->temp_bytes, NULL);
    return mj_sorter_bulk_insert(j->s, j->keys, j->values, j->indices, j->a, j->index_size,
                                 j->b_keys, j->b_values, j->n - j->a, j->out_keys, j->out_values,
                                 j->temp, j->temp_bytes, NULL);
}

static uint64_t get_index(const unsigned char *ix, size_t is, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, ix + i * is, is); /* little-endian */
    return v;
}

/* Element by element against the CPU (elements of `es` bytes: key then value rows checked
 * separately by the caller): the number of mismatches, the first in *first. in holds the
 * source (remove: n elements; insert: a's, then b's). */
static size_t check(const bulk_job *j, const unsigned char *ix, const unsigned char *in,
                    const unsigned char *out, size_t es, size_t *first)
{
    size_t bad = 0, o = 0;
    if (j->primitive == MJ_BULK_REMOVE) {
        for (size_t i = 0, r = 0; i < j->n; i++) {
            if (r < j->k && get_index(ix, j->index_size, r) == i) {
                r++;
                continue;
            }
            if (memcmp(out + o * es, in + i * es, es) != 0 && bad++ == 0)
                *first = o;
            o++;
        }
        return bad;
    }
    for (size_t i = 0, b = 0; o < j->n; o++) {
        int from_a = i < j->a && (b == j->n - j->a || get_index(ix, j->index_size, i) <= b);
        const unsigned char *want = from_a ? in + i++ * es : in + (j->a + b++) * es;
        if (memcmp(out + o * es, want, es) != 0 && bad++ == 0)
            *first = o;
    }
    return bad;
}

int demo_bulk_run(mj_context *ctx, const demo_opts *o, size_t n)
{
    int remove = o->primitive == MJ_BULK_REMOVE;
    size_t ks = mj_key_kind_size(o->kind), vs = o->value_size;
    bulk_job j = {NULL, o->primitive, n, remove ? 0 : n / 4, 0, n >> 32 ? 8 : 4, 0,
                  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    uint64_t seed = o->seed;
    /* Remove: each element with probability 1/4. Insert: sorted random positions in
     * [0, n - a]. */
    unsigned char *ix = malloc((remove ? n : j.a) * j.index_size + 1);
    unsigned char *keys = malloc(n * ks + 1), *vals = malloc(n * vs + 1);
    unsigned char *out_k = malloc(n * ks + 1), *out_v = malloc(n * vs + 1);
    float *times = o->reps > 0 ? malloc((size_t)o->reps * sizeof *times) : NULL;
    int rc = CLI_OK, launched = 0;
    if (!ix || !keys || !vals || !out_k || !out_v || (o->reps > 0 && !times)) {
        rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate the host buffers");
        goto done;
    }
    for (size_t b = 0; b < n * ks; b++)
        keys[b] = (unsigned char)kg_splitmix(&seed);
    for (size_t b = 0; b < n * vs; b++)
        vals[b] = (unsigned char)kg_splitmix(&seed);
    if (remove) {
        for (size_t i = 0; i < n; i++)
            if (kg_splitmix(&seed) % 4 == 0)
                memcpy(ix + j.k++ * j.index_size, &i, j.index_size);
        printf("removing %zu of %zu elements (random), %zu-byte indices\n", j.k, n,
               j.index_size);
    } else {
        /* Positions ascending: a random walk of steps averaging (n - a) / a. */
        size_t b_count = n - j.a;
        for (size_t i = 0, p = 0; i < j.a; i++) {
            p += j.a ? kg_splitmix(&seed) % (2 * (b_count / j.a) + 1) : 0;
            size_t at = p < b_count ? p : b_count;
            memcpy(ix + i * j.index_size, &at, j.index_size);
        }
        printf("inserting %zu elements into %zu (random positions), %zu-byte positions\n", j.a,
               b_count, j.index_size);
    }
    size_t m = remove ? n - j.k : n, ixn = remove ? j.k : j.a;
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, o->kind, MJ_ASCENDING);
    desc.primitive = o->primitive;
    desc.value_size = vs;
    mj_status st = demo_sorter(ctx, &desc, n, &j.s, &j.temp_bytes);
    if (st == MJ_OK && !(st = mj__dev_alloc(ctx, &j.keys, n * ks + 1)) &&
        !(st = mj__dev_alloc(ctx, &j.indices, ixn * j.index_size + 1)) &&
        !(st = mj__dev_alloc(ctx, &j.out_keys, m * ks + 1)) &&
        !(st = mj__dev_alloc(ctx, &j.temp, j.temp_bytes)) &&
        !(st = mj__dev_upload(ctx, j.keys, keys, n * ks)) &&
        !(st = mj__dev_upload(ctx, j.indices, ix, ixn * j.index_size)) && vs &&
        !(st = mj__dev_alloc(ctx, &j.values, n * vs)) &&
        !(st = mj__dev_alloc(ctx, &j.out_values, m * vs + 1)))
        st = mj__dev_upload(ctx, j.values, vals, n * vs);
    if (st == MJ_OK && !remove) {
        j.b_keys = (char *)j.keys + j.a * ks;
        j.b_values = vs ? (char *)j.values + j.a * vs : NULL;
    }
    if (st == MJ_OK) {
        launched = 1;
        st = run_bulk(&j);
    }
    if (st == MJ_OK && !(st = mj__dev_sync(ctx, NULL)) &&
        !(st = mj__dev_download(ctx, out_k, j.out_keys, m * ks)) && vs)
        st = mj__dev_download(ctx, out_v, j.out_values, m * vs);
    if (st != MJ_OK) {
        rc = cli_status_error(ctx, st);
        goto done;
    }
    size_t first = 0, first_v = 0, bad = check(&j, ix, keys, out_k, ks, &first);
    size_t bad_v = vs ? check(&j, ix, vals, out_v, vs, &first_v) : 0;
    if (bad || bad_v)
        printf("check: %zu keys and %zu values of %zu differ from the CPU, first at %zu\n", bad,
               bad_v, m, bad ? first : first_v);
    else
        printf("check: %zu %s match the CPU\n", m, vs ? "keys and values" : "keys");
    float med = 0;
    if (rc == CLI_OK)
        rc = demo_time_runs(ctx, o, run_bulk, &j, times, &med);
    if (rc == CLI_OK && o->reps > 0) {
        printf("time: median %.3f ms over %ld runs: %.2f Gelements/s\n", med, o->reps,
               med > 0 ? (double)n / (med * 1e6) : 0.0);
    }
    if (rc == CLI_OK)
        rc = demo_verdict(bad || bad_v);
done:
    if (launched)
        (void)mj__dev_sync(ctx, NULL);
    void *const bufs[] = {j.keys, j.values, j.indices, j.out_keys, j.out_values, j.temp};
    demo_release(ctx, bufs, sizeof bufs / sizeof *bufs, j.s);
    free(ix);
    free(keys);
    free(vals);
    free(out_k);
    free(out_v);
    free(times);
    return rc;
}
