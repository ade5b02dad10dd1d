/* The tuner's timing: each configuration's inputs generated on the host and uploaded, every
 * candidate run --reps times per size on them (the median taken), and the first run's output
 * read back and queued for its check (tools/cli/tune_checker.c), which runs beside the next
 * timings. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "devmem.h"
#include "tune_run.h"

/* ---------------------------------------------------------------- inputs on the device */

static void free_inputs(mj_context *ctx, tune_inputs *in)
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
    memset(in, 0, sizeof *in);
}

static int is_lbs(const tune_config *c)
{
    return c->primitive == MJ_LOAD_BALANCE || c->primitive == MJ_INTERVAL_EXPAND ||
           c->primitive == MJ_INTERVAL_MOVE;
}

static int is_bulk(const tune_config *c)
{
    return c->primitive == MJ_BULK_REMOVE || c->primitive == MJ_BULK_INSERT;
}

/* Bulk remove: every fourth element's index; insert: n / 4 positions, the first quarter of the
 * input put into the rest at 3 i to 3 i + 2. 4-byte indices in `offsets` (and host_offsets). */
static mj_status bulk_inputs(mj_context *ctx, const tune_config *c, tune_inputs *in, uint64_t s)
{
    size_t n = in->n, k = n / 4;
    uint32_t *ix = in->host_offsets = malloc(k * sizeof *ix + 1);
    if (!ix)
        return MJ_ERR_HOST_MEMORY;
    for (size_t i = 0; i < k; i++)
        ix[i] = (uint32_t)(c->primitive == MJ_BULK_REMOVE ? 4 * i + 1
                                                          : 3 * i + kg_splitmix(&s) % 3);
    in->offset_count = k;
    mj_status st = mj__dev_alloc(ctx, &in->offsets, k * sizeof *ix + 1);
    if (!st)
        st = mj__dev_upload(ctx, in->offsets, ix, k * sizeof *ix);
    return st;
}

/* Load-balancing search, expand and move: n / 16 + 1 objects of random counts 0 to 31
 * (offsets of the key's width); for expand each object's value, for move each element,
 * holding its index in its first bytes (tune_check reads it back). Move's intervals are
 * gathered from and scattered to the mirror of their place (the intervals in reverse
 * order), so out ends up equal to in. */
static mj_status lbs_inputs(mj_context *ctx, const tune_config *c, tune_inputs *in, uint64_t s)
{
    size_t ks = c->key_size, vs = c->value_size, n = in->n, objects = n / 16 + 1;
    int move = c->primitive == MJ_INTERVAL_MOVE;
    size_t nv = move ? n : objects;
    unsigned char *off = in->host_offsets = malloc(objects * ks);
    unsigned char *vals = vs ? calloc(nv, vs) : NULL;
    unsigned char *mirror = move ? malloc(objects * ks) : NULL;
    mj_status st = off && (vals || !vs) && (mirror || !move) ? MJ_OK : MJ_ERR_HOST_MEMORY;
    for (size_t j = 0; !st && j < objects; j++) {
        uint64_t o = j ? j * 16 + kg_splitmix(&s) % 16 : 0;
        tune_set_key(off, ks, j, o < n ? o : n, 0);
    }
    for (size_t e = 0; !st && e < nv && vs; e++)
        memcpy(vals + e * vs, &e, vs < sizeof e ? vs : sizeof e);
    for (size_t j = 0; !st && move && j < objects; j++) {
        uint64_t end = n, lo;
        if (j + 1 < objects)
            tune_key_words(off, ks, j + 1, &end, &lo);
        tune_set_key(mirror, ks, j, n - end, 0);
    }
    in->offset_count = objects;
    if (!st)
        st = mj__dev_alloc(ctx, &in->offsets, objects * ks);
    if (!st)
        st = mj__dev_upload(ctx, in->offsets, off, objects * ks);
    if (!st && vs)
        st = mj__dev_upload(ctx, in->src_values, vals, nv * vs);
    void **const entries[] = {&in->gather, &in->scatter};
    for (int k = 0; k < 2 && move && !st; k++)
        if (!(st = mj__dev_alloc(ctx, entries[k], objects * ks)))
            st = mj__dev_upload(ctx, *entries[k], mirror, objects * ks);
    free(vals);
    free(mirror);
    return st;
}

/* Generates the primitive's input on the host and uploads it: random keys (mergesort,
 * segsort), two sorted runs (merge, search, setops: the first and second half; setops' count
 * in `offsets`), or sorted keys with local swaps (locality). Values are left as the allocator
 * gives them: their bytes do not change the work. The host's copies of the keys and offsets
 * stay in host_keys and host_offsets when keep_host (for the checks). */
static mj_status make_inputs(mj_context *ctx, const tune_config *c, size_t n, size_t seglen,
                             int keep_host, tune_inputs *in)
{
    size_t ks = c->key_size;
    memset(in, 0, sizeof *in);
    in->n = n;
    in->seglen = seglen;
    unsigned char *h = in->host_keys = malloc(n * ks);
    if (!h)
        return MJ_ERR_HOST_MEMORY;
    uint64_t s = 0x5eed + n + ks, run = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = kg_splitmix(&s);
        if (c->primitive == MJ_MERGE || c->primitive == MJ_SORTED_SEARCH ||
            c->primitive == MJ_SET_OPS) {
            if (i == n / 2)
                run = 0;
            run += r % 4; /* sorted, with ties inside and across the runs */
            tune_set_key(h, ks, i, run, r >> 40);
            if (ks == 16)
                tune_set_key(h, ks, i, run, 0);
        } else if (c->primitive == MJ_LOCALITY_SORT) {
            tune_set_key(h, ks, i, i, 0);
        } else {
            tune_set_key(h, ks, i, ks == 4 ? r >> 32 : r, kg_splitmix(&s));
        }
    }
    if (c->primitive == MJ_LOCALITY_SORT) {
        unsigned char tmp[16];
        for (size_t k = 0; k < n / 1000; k++) {
            size_t i = (size_t)(kg_splitmix(&s) % n), j = i + (size_t)(kg_splitmix(&s) % 1000);
            j = j < n ? j : n - 1;
            memcpy(tmp, h + i * ks, ks);
            memcpy(h + i * ks, h + j * ks, ks);
            memcpy(h + j * ks, tmp, ks);
        }
    }
    in->sum = tune_key_sum(h, ks, n);
    mj_status st = mj__dev_alloc(ctx, &in->src_keys, n * ks);
    if (!st)
        st = mj__dev_alloc(ctx, &in->keys, n * ks);
    if (!st)
        st = mj__dev_upload(ctx, in->src_keys, h, n * ks);
    if (!st && c->value_size) {
        st = mj__dev_alloc(ctx, &in->src_values, n * c->value_size);
        if (!st)
            st = mj__dev_alloc(ctx, &in->values, n * c->value_size);
    }
    if (!st && is_lbs(c))
        st = lbs_inputs(ctx, c, in, s);
    if (!st && is_bulk(c))
        st = bulk_inputs(ctx, c, in, s);
    if (!st && c->primitive == MJ_SET_OPS)
        st = mj__dev_alloc(ctx, &in->offsets, sizeof(uint64_t));
    if (!st && c->primitive == MJ_SEGMENTED_SORT) {
        in->offset_count = (n + seglen - 1) / seglen + 1;
        uint32_t *off = malloc(in->offset_count * sizeof *off);
        if (!off)
            st = MJ_ERR_HOST_MEMORY;
        for (size_t i = 0; off && i < in->offset_count; i++)
            off[i] = (uint32_t)(i * seglen < n ? i * seglen : n);
        if (!st)
            st = mj__dev_alloc(ctx, &in->offsets, in->offset_count * sizeof *off);
        if (!st)
            st = mj__dev_upload(ctx, in->offsets, off, in->offset_count * sizeof *off);
        free(off);
    }
    if (st) {
        free_inputs(ctx, in);
    } else if (!keep_host) {
        free(in->host_keys);
        free(in->host_offsets);
        in->host_keys = in->host_offsets = NULL;
    }
    return st;
}

/* One timed run, for mj__dev_time. */
typedef struct run_job {
    const tune_config *c;
    mj_sorter *sorter;
    tune_inputs *in;
    void *temp;
    size_t temp_bytes;
} run_job;

static mj_status run_once(void *arg)
{
    run_job *j = arg;
    tune_inputs *in = j->in;
    size_t ks = j->c->key_size, vs = j->c->value_size, na = in->n / 2;
    if (j->c->primitive == MJ_MERGE)
        return mj_sorter_merge(j->sorter, in->src_keys, in->src_values, na,
                               (char *)in->src_keys + na * ks,
                               vs ? (char *)in->src_values + na * vs : NULL, in->n - na,
                               in->keys, in->values, j->temp, j->temp_bytes, NULL);
    if (j->c->primitive == MJ_REDUCE)
        return mj_sorter_reduce(j->sorter, in->src_keys, in->n, in->keys, j->temp,
                                j->temp_bytes, NULL);
    if (j->c->primitive == MJ_SCAN)
        return mj_sorter_scan(j->sorter, in->src_keys, in->keys, in->n, MJ_SCAN_INCLUSIVE, NULL,
                              j->temp, j->temp_bytes, NULL);
    if (j->c->primitive == MJ_SORTED_SEARCH) {
        /* The lower bounds of the first half in the second, as 4-byte indices in keys. */
        mj_search_outputs out = {MJ_BOUND_LOWER, 4, in->keys, NULL, NULL, NULL, NULL, NULL};
        return mj_sorter_sorted_search(j->sorter, in->src_keys, na,
                                       (char *)in->src_keys + na * ks, in->n - na, &out, j->temp,
                                       j->temp_bytes, NULL);
    }
    if (j->c->primitive == MJ_SET_OPS) /* the union: the most output */
        return mj_sorter_set_op(j->sorter, MJ_SET_UNION, in->src_keys, in->src_values, na,
                                (char *)in->src_keys + na * ks,
                                vs ? (char *)in->src_values + na * vs : NULL, in->n - na,
                                in->keys, in->values, in->offsets, j->temp, j->temp_bytes, NULL);
    if (j->c->primitive == MJ_LOAD_BALANCE)
        return mj_sorter_load_balance(j->sorter, in->offsets, in->offset_count, in->n, in->keys,
                                      NULL, j->temp, j->temp_bytes, NULL);
    if (j->c->primitive == MJ_INTERVAL_EXPAND)
        return mj_sorter_interval_expand(j->sorter, in->offsets, in->offset_count, in->n,
                                         in->src_values, in->values, j->temp, j->temp_bytes,
                                         NULL);
    if (j->c->primitive == MJ_BULK_REMOVE)
        return mj_sorter_bulk_remove(j->sorter, in->src_keys, in->src_values, in->n, in->offsets,
                                     in->offset_count, 4, in->keys, in->values, j->temp,
                                     j->temp_bytes, NULL);
    if (j->c->primitive == MJ_BULK_INSERT) {
        size_t a = in->offset_count;
        return mj_sorter_bulk_insert(j->sorter, in->src_keys, in->src_values, in->offsets, a, 4,
                                     (char *)in->src_keys + a * ks,
                                     vs ? (char *)in->src_values + a * vs : NULL, in->n - a,
                                     in->keys, in->values, j->temp, j->temp_bytes, NULL);
    }
    if (j->c->primitive == MJ_INTERVAL_MOVE)
        return mj_sorter_interval_move(j->sorter, in->offsets, in->offset_count, in->n,
                                       in->gather, in->scatter, in->src_values, in->n,
                                       in->values, in->n, j->temp, j->temp_bytes, NULL);
    if (j->c->primitive == MJ_SEGMENTED_SORT) {
        mj_segments seg = {MJ_SEGMENTS_OFFSETS, in->offsets, in->offset_count, 4};
        return mj_sorter_segmented_sort(j->sorter, in->keys, in->values, in->n, &seg, j->temp,
                                        j->temp_bytes, NULL);
    }
    return mj_sorter_sort(j->sorter, in->keys, in->values, in->n, j->temp, j->temp_bytes, NULL);
}

/* Restores the input of an in-place run (not timed). */
static mj_status restore(mj_context *ctx, const tune_config *c, tune_inputs *in)
{
    if (c->primitive == MJ_MERGE || c->primitive == MJ_REDUCE || c->primitive == MJ_SCAN ||
        c->primitive == MJ_SORTED_SEARCH || c->primitive == MJ_SET_OPS || is_lbs(c) ||
        is_bulk(c))
        return MJ_OK; /* they do not write their input */
    mj_status st = mj__dev_copy(ctx, in->keys, in->src_keys, in->n * c->key_size);
    if (!st && c->value_size)
        st = mj__dev_copy(ctx, in->values, in->src_values, in->n * c->value_size);
    return st;
}

/* ---------------------------------------------------------------- timing */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Reads the output of the run just timed on `in` (the checked size) into a slot of the checker,
 * *slot, with what its check needs in *d. NULL, or why the output could not be had. */
static const char *read_output(tune_bench *b, const tune_config *c, tune_inputs *in,
                               tune_check_slot **slot, tune_check_data *d)
{
    double t0 = now_s();
    uint64_t count = 0; /* setops: the union's count, read first */
    if (c->primitive == MJ_SET_OPS &&
        (mj__dev_download(b->ctx, &count, in->offsets, 8) != MJ_OK || count > in->n))
        return "the result could not be read back";
    int from_values;
    size_t bytes = tune_check_output(c, in->n, in->offset_count, (size_t)count, &from_values);
    void *out = NULL;
    double waited = now_s();
    *slot = tune_checker_take(b->checker, bytes, &out);
    t0 += now_s() - waited; /* the checker counts the wait for a slot */
    if (!*slot)
        return "no host memory to check the result";
    if (mj__dev_download(b->ctx, out, from_values ? in->values : in->keys, bytes) != MJ_OK) {
        tune_checker_give_back(b->checker, *slot);
        *slot = NULL;
        return "the result could not be read back";
    }
    *d = (tune_check_data){in->n, in->seglen, in->host_keys, in->host_offsets,
                           in->offset_count, in->sum, out, (size_t)count};
    b->spent.readback += now_s() - t0;
    return NULL;
}

/* Times point p on every size; NULL on success, else why it failed (p's outcome is then set
 * by the caller). The first run's output is read back, and its check queued once p's
 * timings are in. */
const char *tune_measure(tune_bench *b, const tune_config *c, size_t point, tune_point *p,
                         char *why, size_t cap)
{
    mj_sort_desc d;
    tune_key_desc(c, p, &d);
    mj_sorter *s = NULL;
    double t0 = now_s();
    mj_status st = mj_sorter_create(b->ctx, &d, &s);
    b->spent.create += now_s() - t0;
    if (st) {
        snprintf(why, cap, "%s", mj_context_last_error(b->ctx));
        return why;
    }
    tune_check_slot *slot = NULL;
    tune_check_data check;
    const char *bad = NULL;
    double log_sum = 0;
    for (int k = 0; k < b->o->size_count && !st && !bad; k++) {
        tune_inputs *in = &b->in[k];
        size_t need = 0;
        /* lbs, expand and move merge the items with the offsets */
        size_t merged = is_lbs(c) ? in->n + in->offset_count : in->n;
        if ((st = mj_sorter_temp_size(s, merged, 0, &need)))
            break;
        if (need > b->temp_bytes) {
            mj__dev_free(b->ctx, b->temp);
            b->temp = NULL;
            b->temp_bytes = 0;
            if ((st = mj__dev_alloc(b->ctx, &b->temp, need)))
                break;
            b->temp_bytes = need;
        }
        run_job job = {c, s, in, b->temp, b->temp_bytes};
        for (long r = 0; r < b->o->reps && !st && !bad; r++) {
            t0 = now_s();
            if (!(st = restore(b->ctx, c, in)))
                st = mj__dev_time(b->ctx, run_once, &job, &b->times[r]);
            b->spent.timing += now_s() - t0;
            if (!st)
                b->spent.gpu += 1e-3 * b->times[r];
            if (!st && r == 0 && k == 0)
                bad = read_output(b, c, in, &slot, &check);
        }
        if (st || bad)
            break;
        cli_sort_floats(b->times, (size_t)b->o->reps);
        double ms = b->times[b->o->reps / 2];
        p->gkeys[k] = ms > 0 ? (double)in->n / (ms * 1e6) : 0;
        log_sum += log(p->gkeys[k] > 0 ? p->gkeys[k] : 1e-9);
    }
    mj_sorter_destroy(s);
    if (st || bad) {
        if (slot)
            tune_checker_give_back(b->checker, slot);
        snprintf(why, cap, "%s", bad ? bad : mj_context_last_error(b->ctx));
        return why;
    }
    p->score = exp(log_sum / b->o->size_count);
    tune_checker_submit(b->checker, slot, point, c, &check);
    return NULL;
}

/* Makes the inputs of configuration c current. */
mj_status tune_use_config(tune_bench *b, const tune_config *c)
{
    if (b->have_inputs && b->current.primitive == c->primitive &&
        b->current.key_size == c->key_size && b->current.value_size == c->value_size)
        return MJ_OK;
    tune_checker_drain(b->checker); /* the queued checks read the old inputs */
    double t0 = now_s();
    for (int k = 0; k < b->o->size_count; k++)
        free_inputs(b->ctx, &b->in[k]);
    b->have_inputs = 0;
    mj_status st = MJ_OK;
    for (int k = 0; k < b->o->size_count && !st; k++)
        st = make_inputs(b->ctx, c, (size_t)1 << b->o->log2_sizes[k], (size_t)b->o->seglen,
                         k == 0, &b->in[k]);
    b->spent.inputs += now_s() - t0;
    if (st)
        return st;
    b->current = *c;
    b->have_inputs = 1;
    return MJ_OK;
}

void tune_bench_free(tune_bench *b)
{
    if (b->checker)
        tune_checker_drain(b->checker);
    for (int k = 0; k < TUNE_MAX_SIZES; k++)
        free_inputs(b->ctx, &b->in[k]);
    mj__dev_free(b->ctx, b->temp);
    b->temp = NULL;
    b->temp_bytes = 0;
}
