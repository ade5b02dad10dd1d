/* SPDX-License-Identifier: Apache-2.0 */
/* The tuner's inputs: each configuration's generated on the host (random keys, sorted runs,
 * offsets), the next configuration's on a thread of its own while the GPU times the current
 * one, then uploaded to the device. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "devmem.h"
#include "tune_run.h"

/* ---------------------------------------------------------------- on the host */

static void free_host(tune_host_input *h)
{
    free(h->keys);
    free(h->offsets);
    free(h->values);
    free(h->mirror);
    memset(h, 0, sizeof *h);
}

/* Bulk remove: every fourth element's index; insert: n / 4 positions, the first quarter of the
 * input put into the rest at 3 i to 3 i + 2. 4-byte indices. */
static mj_status bulk_indices(const tune_config *c, tune_host_input *h, uint64_t s)
{
    size_t k = h->n / 4;
    uint32_t *ix = h->offsets = malloc(k * sizeof *ix + 1);
    if (!ix)
        return MJ_ERR_HOST_MEMORY;
    for (size_t i = 0; i < k; i++)
        ix[i] = (uint32_t)(c->primitive == MJ_BULK_REMOVE ? 4 * i + 1
                                                          : 3 * i + kg_splitmix(&s) % 3);
    h->offset_count = k;
    h->offset_bytes = k * sizeof *ix;
    return MJ_OK;
}

/* Load-balancing search, expand and move: n / 16 + 1 objects of random counts 0 to 31
 * (offsets of the key's width); for expand each object's value, for move each element,
 * holding its index in its first bytes (tune_check reads it back). Move's intervals are
 * gathered from and scattered to the mirror of their place (the intervals in reverse
 * order), so out ends up equal to in. */
static mj_status lbs_offsets(const tune_config *c, tune_host_input *h, uint64_t s)
{
    size_t ks = c->key_size, vs = c->value_size, n = h->n, objects = n / 16 + 1;
    int move = c->primitive == MJ_INTERVAL_MOVE;
    size_t nv = move ? n : objects;
    unsigned char *off = h->offsets = malloc(objects * ks);
    unsigned char *vals = h->values = vs ? calloc(nv, vs) : NULL;
    unsigned char *mirror = h->mirror = move ? malloc(objects * ks) : NULL;
    if (!off || (!vals && vs) || (!mirror && move))
        return MJ_ERR_HOST_MEMORY;
    for (size_t j = 0; j < objects; j++) {
        uint64_t o = j ? j * 16 + kg_splitmix(&s) % 16 : 0;
        tune_set_key(off, ks, j, o < n ? o : n, 0);
    }
    for (size_t e = 0; e < nv && vs; e++)
        memcpy(vals + e * vs, &e, vs < sizeof e ? vs : sizeof e);
    for (size_t j = 0; move && j < objects; j++) {
        uint64_t end = n, lo;
        if (j + 1 < objects)
            tune_key_words(off, ks, j + 1, &end, &lo);
        tune_set_key(mirror, ks, j, n - end, 0);
    }
    h->offset_count = objects;
    h->offset_bytes = objects * ks;
    h->value_bytes = nv * vs;
    return MJ_OK;
}

/* Segmented sorts: segments of seglen, as 4-byte offsets. */
static mj_status segment_offsets(tune_host_input *h)
{
    size_t n = h->n, seglen = h->seglen, count = (n + seglen - 1) / seglen + 1;
    uint32_t *off = h->offsets = malloc(count * sizeof *off);
    if (!off)
        return MJ_ERR_HOST_MEMORY;
    for (size_t i = 0; i < count; i++)
        off[i] = (uint32_t)(i * seglen < n ? i * seglen : n);
    h->offset_count = count;
    h->offset_bytes = count * sizeof *off;
    return MJ_OK;
}

/* Reduce by key: each element's value, random (u32 or u64). */
static mj_status run_values(const tune_config *c, tune_host_input *h, uint64_t s)
{
    size_t vs = c->value_size;
    unsigned char *v = h->values = malloc(h->n * vs + 1);
    if (!v)
        return MJ_ERR_HOST_MEMORY;
    for (size_t i = 0; i < h->n; i++) {
        uint64_t r = kg_splitmix(&s);
        memcpy(v + i * vs, &r, vs < sizeof r ? vs : sizeof r);
    }
    h->value_bytes = h->n * vs;
    return MJ_OK;
}

/* Generates the primitive's input of n elements on the host: random keys (mergesort,
 * segsort), two sorted runs (merge, search, setops, join: the first and second half, and for
 * join the inner join's row count in offset_count), sorted keys
 * with local swaps (locality), or ascending runs of equal keys (reduce by key), and the
 * offsets or indices of the primitives that take them. Values are left to the device
 * allocator, their bytes not changing the work, but for those a check reads (lbs', move's,
 * reduce by key's). On failure h holds nothing. */
static mj_status generate(const tune_config *c, size_t n, size_t seglen, tune_host_input *h)
{
    size_t ks = c->key_size;
    memset(h, 0, sizeof *h);
    h->n = n;
    h->seglen = seglen;
    unsigned char *k = h->keys = malloc(n * ks + 1);
    if (!k)
        return MJ_ERR_HOST_MEMORY;
    uint64_t s = 0x5eed + n + ks, run = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = kg_splitmix(&s);
        if (c->primitive == MJ_MERGE || c->primitive == MJ_SORTED_SEARCH ||
            c->primitive == MJ_SET_OPS || c->primitive == MJ_JOIN) {
            if (i == n / 2)
                run = 0;
            run += r % 4; /* sorted, with ties inside and across the runs */
            tune_set_key(k, ks, i, run, r >> 40);
            if (ks == 16)
                tune_set_key(k, ks, i, run, 0);
        } else if (c->primitive == MJ_LOCALITY_SORT) {
            tune_set_key(k, ks, i, i, 0);
        } else if (c->primitive == MJ_REDUCE_BY_KEY) {
            run += r % 4 == 0; /* runs of equal keys, of mean length 4 */
            tune_set_key(k, ks, i, run, 0);
        } else {
            tune_set_key(k, ks, i, ks == 4 ? r >> 32 : r, kg_splitmix(&s));
        }
    }
    if (c->primitive == MJ_LOCALITY_SORT) {
        unsigned char tmp[16];
        for (size_t m = 0; m < n / 1000; m++) {
            size_t i = (size_t)(kg_splitmix(&s) % n), j = i + (size_t)(kg_splitmix(&s) % 1000);
            j = j < n ? j : n - 1;
            memcpy(tmp, k + i * ks, ks);
            memcpy(k + i * ks, k + j * ks, ks);
            memcpy(k + j * ks, tmp, ks);
        }
    }
    h->sum = tune_key_sum(k, ks, n);
    if (c->primitive == MJ_JOIN) /* the rows, for the room of the outputs and their check */
        h->offset_count = tune_join_rows(k, ks, n);
    mj_status st = MJ_OK;
    if (tune_is_lbs(c->primitive))
        st = lbs_offsets(c, h, s);
    else if (tune_is_bulk(c->primitive))
        st = bulk_indices(c, h, s);
    else if (c->primitive == MJ_SEGMENTED_SORT || c->primitive == MJ_SEGMENTED_REDUCE)
        st = segment_offsets(h);
    else if (c->primitive == MJ_REDUCE_BY_KEY)
        st = run_values(c, h, s);
    if (st)
        free_host(h);
    return st;
}

/* Every size of configuration c, into h. */
static mj_status generate_sizes(const tune_opts *o, const tune_config *c, tune_host_input *h)
{
    mj_status st = MJ_OK;
    for (int k = 0; k < o->size_count && !st; k++)
        st = generate(c, (size_t)1 << o->log2_sizes[k], (size_t)o->seglen, &h[k]);
    return st;
}

/* ---------------------------------------------------------------- on the device */

static void free_device(mj_context *ctx, tune_inputs *in)
{
    mj__dev_free(ctx, in->src_keys);
    mj__dev_free(ctx, in->src_values);
    mj__dev_free(ctx, in->keys);
    mj__dev_free(ctx, in->values);
    mj__dev_free(ctx, in->offsets);
    mj__dev_free(ctx, in->gather);
    mj__dev_free(ctx, in->scatter);
    free(in->host_keys);
    free(in->host_offsets);
    free(in->host_values);
    memset(in, 0, sizeof *in);
}

/* Uploads h: the input keys (src_keys) and room for the result (keys, and values for both
 * with values); the offsets or indices, the values generated (lbs', move's, reduce by key's)
 * and move's entries; setops' and reduce by key's count. The keys, offsets and values stay on
 * the host in `in` when keep (for the checks); h is emptied. */
static mj_status upload(mj_context *ctx, const tune_config *c, tune_host_input *h, int keep,
                        tune_inputs *in)
{
    size_t n = h->n, ks = c->key_size, vs = c->value_size;
    memset(in, 0, sizeof *in);
    in->n = n;
    in->seglen = h->seglen;
    in->sum = h->sum;
    in->offset_count = h->offset_count;
    /* Join's rows go where a result's keys would: a's indices, then b's, 4 bytes each. */
    size_t out_bytes = n * ks;
    if (c->primitive == MJ_JOIN && 8 * h->offset_count > out_bytes)
        out_bytes = 8 * h->offset_count;
    mj_status st = mj__dev_alloc(ctx, &in->src_keys, n * ks);
    if (!st)
        st = mj__dev_alloc(ctx, &in->keys, out_bytes);
    if (!st)
        st = mj__dev_upload(ctx, in->src_keys, h->keys, n * ks);
    if (!st && vs) {
        st = mj__dev_alloc(ctx, &in->src_values, n * vs);
        if (!st)
            st = mj__dev_alloc(ctx, &in->values, n * vs);
    }
    if (!st && h->offsets) /* bulk's indices get a byte more: none when there are none */
        st = mj__dev_alloc(ctx, &in->offsets, h->offset_bytes + tune_is_bulk(c->primitive));
    if (!st && h->offsets)
        st = mj__dev_upload(ctx, in->offsets, h->offsets, h->offset_bytes);
    if (!st && h->values)
        st = mj__dev_upload(ctx, in->src_values, h->values, h->value_bytes);
    void **const entries[] = {&in->gather, &in->scatter};
    for (int k = 0; k < 2 && h->mirror && !st; k++)
        if (!(st = mj__dev_alloc(ctx, entries[k], h->offset_bytes)))
            st = mj__dev_upload(ctx, *entries[k], h->mirror, h->offset_bytes);
    if (!st && tune_has_count(c->primitive)) /* the union's, the runs', the kept or the rows' */
        st = mj__dev_alloc(ctx, &in->offsets, sizeof(uint64_t));
    if (!st && keep) {
        in->host_keys = h->keys;
        in->host_offsets = h->offsets;
        in->host_values = h->values;
        h->keys = NULL;
        h->offsets = NULL;
        h->values = NULL;
    }
    free_host(h);
    if (st)
        free_device(ctx, in);
    return st;
}

/* ---------------------------------------------------------------- the next configuration */

static void *prepare(void *arg)
{
    tune_bench *b = arg;
    b->next_status = generate_sizes(b->o, &b->next, b->next_in);
    return NULL;
}

/* Takes the next configuration's inputs into h when they are c's (waiting for them), else
 * drops them. 1 when taken. */
static int take_prepared(tune_bench *b, const tune_config *c, tune_host_input *h)
{
    if (!b->preparing)
        return 0;
    pthread_join(b->preparer, NULL);
    b->preparing = 0;
    int mine = b->next_status == MJ_OK && b->next.primitive == c->primitive &&
               b->next.key_size == c->key_size && b->next.value_size == c->value_size;
    for (int k = 0; k < TUNE_MAX_SIZES; k++) {
        if (mine)
            h[k] = b->next_in[k];
        else
            free_host(&b->next_in[k]);
        memset(&b->next_in[k], 0, sizeof b->next_in[k]);
    }
    return mine;
}

/* Makes the inputs of configuration c current. */
mj_status tune_use_config(tune_bench *b, const tune_config *c, const tune_config *next)
{
    if (b->have_inputs && b->current.primitive == c->primitive &&
        b->current.key_size == c->key_size && b->current.value_size == c->value_size)
        return MJ_OK;
    tune_checker_drain(b->checker); /* the queued checks read the old inputs */
    double t0 = tune_now_s();
    for (int k = 0; k < TUNE_MAX_SIZES; k++)
        free_device(b->ctx, &b->in[k]);
    b->have_inputs = 0;
    tune_host_input h[TUNE_MAX_SIZES];
    memset(h, 0, sizeof h);
    mj_status st = take_prepared(b, c, h) ? MJ_OK : generate_sizes(b->o, c, h);
    for (int k = 0; k < b->o->size_count && !st; k++)
        st = upload(b->ctx, c, &h[k], k == 0, &b->in[k]);
    for (int k = 0; k < TUNE_MAX_SIZES; k++)
        free_host(&h[k]);
    b->spent.inputs += tune_now_s() - t0;
    if (st)
        return st;
    b->current = *c;
    b->have_inputs = 1;
    /* The next configuration's keys while the GPU times these (none when no thread starts). */
    if (next) {
        b->next = *next;
        b->preparing = pthread_create(&b->preparer, NULL, prepare, b) == 0;
    }
    return MJ_OK;
}

void tune_inputs_release(tune_bench *b)
{
    tune_host_input h[TUNE_MAX_SIZES];
    memset(h, 0, sizeof h);
    take_prepared(b, &b->next, h);
    for (int k = 0; k < TUNE_MAX_SIZES; k++) {
        free_host(&h[k]);
        free_device(b->ctx, &b->in[k]);
    }
    b->have_inputs = 0;
}
