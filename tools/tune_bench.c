/* SPDX-License-Identifier: Apache-2.0 */
/* The tuner's timing: every candidate run --reps times per size on its configuration's inputs
 * (tune_inputs.c; the median taken), and the first run's output read back and queued for its
 * check (tools/cli/tune_checker.c), which runs beside the next timings; and mergesort's 4-way
 * threshold, from its winner timed with 2-way and with 4-way passes over a range of sizes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "devmem.h"
#include "tune_run.h"

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
        return mj_sorter_scan(j->sorter, in->src_keys, in->n, in->keys, MJ_SCAN_INCLUSIVE, NULL,
                              j->temp, j->temp_bytes, NULL);
    if (j->c->primitive == MJ_SORTED_SEARCH) {
        /* The lower bounds of the first half in the second, as 4-byte indices in keys. */
        mj_search_outputs out = {MJ_BOUND_LOWER, 4, in->keys, NULL, NULL, NULL, NULL, NULL};
        return mj_sorter_sorted_search(j->sorter, in->src_keys, na,
                                       (char *)in->src_keys + na * ks, in->n - na, &out, j->temp,
                                       j->temp_bytes, NULL);
    }
    if (j->c->primitive == MJ_JOIN) { /* the inner join: a's rows in keys, then b's */
        size_t rows = in->offset_count;
        return mj_sorter_join(j->sorter, MJ_JOIN_INNER, in->src_keys, na,
                              (char *)in->src_keys + na * ks, in->n - na, 4, in->keys,
                              (char *)in->keys + rows * 4, rows, in->offsets, j->temp,
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
    if (j->c->primitive == MJ_SELECT) /* the kept count into offsets */
        return mj_sorter_select(j->sorter, MJ_SELECT_IF, in->src_keys, in->src_values, in->n,
                                in->keys, in->values, in->offsets, j->temp, j->temp_bytes,
                                NULL);
    if (j->c->primitive == MJ_REDUCE_BY_KEY) /* the runs' count into offsets */
        return mj_sorter_reduce_by_key(j->sorter, in->src_keys, in->src_values, in->n, in->keys,
                                       in->values, in->offsets, j->temp, j->temp_bytes, NULL);
    if (j->c->primitive == MJ_SEGMENTED_REDUCE) {
        mj_segments seg = {MJ_SEGMENTS_OFFSETS, in->offsets, in->offset_count, 4};
        return mj_sorter_segmented_reduce(j->sorter, in->src_keys, in->n, &seg, in->keys,
                                          j->temp, j->temp_bytes, NULL);
    }
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
        c->primitive == MJ_SORTED_SEARCH || c->primitive == MJ_SET_OPS ||
        c->primitive == MJ_SEGMENTED_REDUCE || c->primitive == MJ_REDUCE_BY_KEY ||
        c->primitive == MJ_SELECT || c->primitive == MJ_JOIN || tune_is_lbs(c->primitive) ||
        tune_is_bulk(c->primitive))
        return MJ_OK; /* they do not write their input */
    mj_status st = mj__dev_copy(ctx, in->keys, in->src_keys, in->n * c->key_size);
    if (!st && c->value_size)
        st = mj__dev_copy(ctx, in->values, in->src_values, in->n * c->value_size);
    return st;
}

/* ---------------------------------------------------------------- timing */

/* Grows the temporary buffer to at least need bytes. */
static mj_status temp_reserve(tune_bench *b, size_t need)
{
    if (need <= b->temp_bytes)
        return MJ_OK;
    mj__dev_free(b->ctx, b->temp);
    b->temp = NULL;
    b->temp_bytes = 0;
    mj_status st = mj__dev_alloc(b->ctx, &b->temp, need);
    if (!st)
        b->temp_bytes = need;
    return st;
}

/* Gkeys/s of n elements at the median of the --reps times just taken (b->times, sorted). */
static double median_gkeys(tune_bench *b, size_t n)
{
    cli_sort_floats(b->times, (size_t)b->o->reps);
    double ms = b->times[b->o->reps / 2];
    return ms > 0 ? (double)n / (ms * 1e6) : 0;
}

/* Reads the output of the run just timed on `in` (the checked size) into a slot of the checker,
 * *slot, with what its check needs in *d. NULL, or why the output could not be had. */
static const char *read_output(tune_bench *b, const tune_config *c, tune_inputs *in,
                               tune_check_slot **slot, tune_check_data *d)
{
    double t0 = tune_now_s();
    uint64_t count = 0; /* the union's, the runs', the kept or the rows' count, read first */
    if (tune_has_count(c->primitive) && mj__dev_download(b->ctx, &count, in->offsets, 8) != MJ_OK)
        return "the result could not be read back";
    if (count > (c->primitive == MJ_JOIN ? in->offset_count : in->n))
        return "the result's count is larger than its input allows";
    int from_values;
    size_t bytes = tune_check_output(c, in->n, in->offset_count, (size_t)count, &from_values);
    void *out = NULL;
    double waited = tune_now_s();
    *slot = tune_checker_take(b->checker, bytes, &out);
    t0 += tune_now_s() - waited; /* the checker counts the wait for a slot */
    if (!*slot)
        return "no host memory to check the result";
    if (mj__dev_download(b->ctx, out, from_values ? in->values : in->keys, bytes) != MJ_OK) {
        tune_checker_give_back(b->checker, *slot);
        *slot = NULL;
        return "the result could not be read back";
    }
    *d = (tune_check_data){.n = in->n,
                           .seglen = in->seglen,
                           .keys = in->host_keys,
                           .offsets = in->host_offsets,
                           .offset_count = in->offset_count,
                           .sum = in->sum,
                           .out = out,
                           .out_count = (size_t)count,
                           .values = in->host_values};
    b->spent.readback += tune_now_s() - t0;
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
    double t0 = tune_now_s();
    mj_status st = mj_sorter_create(b->ctx, &d, &s);
    b->spent.create += tune_now_s() - t0;
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
        /* lbs, expand, move and the segmented reduce merge the items with the offsets */
        size_t merged = tune_is_lbs(c->primitive) || c->primitive == MJ_SEGMENTED_REDUCE
                            ? in->n + in->offset_count
                            : in->n;
        if ((st = mj_sorter_temp_size(s, merged, 0, &need)) || (st = temp_reserve(b, need)))
            break;
        run_job job = {c, s, in, b->temp, b->temp_bytes};
        for (long r = 0; r < b->o->reps && !st && !bad; r++) {
            t0 = tune_now_s();
            if (!(st = restore(b->ctx, c, in)))
                st = mj__dev_time(b->ctx, run_once, &job, &b->times[r]);
            b->spent.timing += tune_now_s() - t0;
            if (!st)
                b->spent.gpu += 1e-3 * b->times[r];
            if (!st && r == 0 && k == 0)
                bad = read_output(b, c, in, &slot, &check);
        }
        if (st || bad)
            break;
        p->gkeys[k] = median_gkeys(b, in->n);
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

/* ---------------------------------------------------------------- the 4-way threshold */

/* One sort of the first n elements of an input. */
typedef struct prefix_job {
    mj_sorter *sorter;
    tune_inputs *in;
    size_t n;
    void *temp;
    size_t temp_bytes;
} prefix_job;

static mj_status sort_prefix(void *arg)
{
    prefix_job *j = arg;
    return mj_sorter_sort(j->sorter, j->in->keys, j->in->values, j->n, j->temp, j->temp_bytes,
                          NULL);
}

/* The median Gkeys/s of --reps sorts by s of the first n elements of in, each from the input
 * as generated; when `check`, the first run's keys are checked against in's host keys (the
 * checked size's). NULL, or why it failed (in why). */
static const char *time_prefix(tune_bench *b, const tune_config *c, mj_sorter *s,
                               tune_inputs *in, size_t n, int check, double *gkeys, char *why,
                               size_t cap)
{
    size_t need = 0;
    mj_status st = mj_sorter_temp_size(s, n, 0, &need);
    if (!st)
        st = temp_reserve(b, need);
    prefix_job job = {s, in, n, b->temp, b->temp_bytes};
    for (long r = 0; r < b->o->reps && !st; r++) {
        st = mj__dev_copy(b->ctx, in->keys, in->src_keys, n * c->key_size);
        if (!st && c->value_size)
            st = mj__dev_copy(b->ctx, in->values, in->src_values, n * c->value_size);
        if (!st)
            st = mj__dev_time(b->ctx, sort_prefix, &job, &b->times[r]);
        if (!st && r == 0 && check) {
            unsigned char *out = malloc(n * c->key_size);
            const char *bad = "no host memory to check the result";
            if (out && mj__dev_download(b->ctx, out, in->keys, n * c->key_size) != MJ_OK)
                bad = "the result could not be read back";
            else if (out)
                bad = tune_check(c, &(tune_check_data){.n = n,
                                                       .keys = in->host_keys,
                                                       .sum = tune_key_sum(in->host_keys,
                                                                           c->key_size, n),
                                                       .out = out});
            free(out);
            if (bad) {
                snprintf(why, cap, "%s", bad);
                return why;
            }
        }
    }
    if (st) {
        snprintf(why, cap, "%s", mj_context_last_error(b->ctx));
        return why;
    }
    *gkeys = median_gkeys(b, n);
    return NULL;
}

const char *tune_crossover(tune_bench *b, const tune_config *c, const tune_point *winner,
                           tune_crossing *x, char *why, size_t cap)
{
    memset(x, 0, sizeof *x);
    mj_status st = MJ_OK;
    /* A sorter with 2-way passes only (from 2^62 bytes on: never) and one with 4-way ones. */
    mj_sorter *s[2] = {NULL, NULL};
    const int setting[2] = {62, 1};
    for (int m = 0; m < 2 && !st; m++) {
        mj_sort_desc d;
        tune_key_desc(c, winner, &d);
        d.merge4_log2 = setting[m];
        st = mj_sorter_create(b->ctx, &d, &s[m]);
    }
    const char *bad = NULL;
    if (st) {
        snprintf(why, cap, "%s", mj_context_last_error(b->ctx));
        bad = why;
    }
    size_t element = c->key_size + c->value_size;
    /* The largest size the checked input (the first) holds is checked, both ways. */
    int checked = 0;
    for (int lg = TUNE_CROSS_FIRST; lg <= TUNE_CROSS_LAST; lg++)
        if (((size_t)1 << lg) / element <= b->in[0].n)
            checked = lg;
    for (int lg = TUNE_CROSS_FIRST; lg <= TUNE_CROSS_LAST && !bad; lg++) {
        size_t n = ((size_t)1 << lg) / element;
        int k = 0; /* the checked input where it holds n, else the first that does */
        while (k < b->o->size_count && b->in[k].n < n)
            k++;
        if (k == b->o->size_count)
            break; /* no input holds that many, nor more */
        int i = x->count;
        x->log2[i] = lg;
        for (int m = 0; m < 2 && !bad; m++)
            bad = time_prefix(b, c, s[m], &b->in[k], n, k == 0 && lg == checked,
                              m ? &x->gkeys4[i] : &x->gkeys2[i], why, cap);
        if (!bad)
            x->count++;
    }
    mj_sorter_destroy(s[0]);
    mj_sorter_destroy(s[1]);
    if (!bad)
        x->merge4_log2 = tune_merge4_threshold(x->log2, x->gkeys2, x->gkeys4, x->count);
    return bad;
}

void tune_bench_free(tune_bench *b)
{
    if (b->checker)
        tune_checker_drain(b->checker);
    tune_inputs_release(b);
    mj__dev_free(b->ctx, b->temp);
    b->temp = NULL;
    b->temp_bytes = 0;
}
