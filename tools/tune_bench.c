/* The tuner's timing: each configuration's inputs generated on the host and uploaded, every
 * candidate run --reps times per size on them (the median taken), and the first run of each
 * checked. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "devmem.h"
#include "tune_run.h"

/* ---------------------------------------------------------------- keys */

/* Key i of a buffer of key_size-byte keys: the first word (hi for the struct) and the second
 * (0 for one-word keys). */
static void key_words(const unsigned char *k, size_t ks, size_t i, uint64_t *hi, uint64_t *lo)
{
    uint32_t w32;
    if (ks == 4) {
        memcpy(&w32, k + 4 * i, 4);
        *hi = w32;
        *lo = 0;
        return;
    }
    memcpy(hi, k + ks * i, 8);
    *lo = 0;
    if (ks == 16)
        memcpy(lo, k + 16 * i + 8, 8);
}

static void set_key(unsigned char *k, size_t ks, size_t i, uint64_t hi, uint64_t lo)
{
    uint32_t w32 = (uint32_t)hi;
    if (ks == 4) {
        memcpy(k + 4 * i, &w32, 4);
        return;
    }
    memcpy(k + ks * i, &hi, 8);
    if (ks == 16)
        memcpy(k + 16 * i + 8, &lo, 8);
}

/* The sum of every 64-bit word of the keys: a sort keeps it. */
static uint64_t key_sum(const unsigned char *k, size_t ks, size_t n)
{
    uint64_t sum = 0, hi, lo;
    for (size_t i = 0; i < n; i++) {
        key_words(k, ks, i, &hi, &lo);
        sum += hi * 0x9e3779b97f4a7c15ull + lo;
    }
    return sum;
}

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
 * input put into the rest at 3 i to 3 i + 2. 4-byte indices in `offsets`. */
static mj_status bulk_inputs(mj_context *ctx, const tune_config *c, tune_inputs *in, uint64_t s)
{
    size_t n = in->n, k = n / 4;
    uint32_t *ix = malloc(k * sizeof *ix + 1);
    if (!ix)
        return MJ_ERR_HOST_MEMORY;
    for (size_t i = 0; i < k; i++)
        ix[i] = (uint32_t)(c->primitive == MJ_BULK_REMOVE ? 4 * i + 1
                                                          : 3 * i + kg_splitmix(&s) % 3);
    in->offset_count = k;
    mj_status st = mj__dev_alloc(ctx, &in->offsets, k * sizeof *ix + 1);
    if (!st)
        st = mj__dev_upload(ctx, in->offsets, ix, k * sizeof *ix);
    free(ix);
    return st;
}

/* Load-balancing search, expand and move: n / 16 + 1 objects of random counts 0 to 31
 * (offsets of the key's width); for expand each object's value, for move each element,
 * holding its index in its first bytes (check_lbs reads it back). Move's intervals are
 * gathered from and scattered to the mirror of their place (the intervals in reverse
 * order), so out ends up equal to in. */
static mj_status lbs_inputs(mj_context *ctx, const tune_config *c, tune_inputs *in, uint64_t s)
{
    size_t ks = c->key_size, vs = c->value_size, n = in->n, objects = n / 16 + 1;
    int move = c->primitive == MJ_INTERVAL_MOVE;
    size_t nv = move ? n : objects;
    unsigned char *off = malloc(objects * ks), *vals = vs ? calloc(nv, vs) : NULL;
    unsigned char *mirror = move ? malloc(objects * ks) : NULL;
    mj_status st = off && (vals || !vs) && (mirror || !move) ? MJ_OK : MJ_ERR_HOST_MEMORY;
    for (size_t j = 0; !st && j < objects; j++) {
        uint64_t o = j ? j * 16 + kg_splitmix(&s) % 16 : 0;
        set_key(off, ks, j, o < n ? o : n, 0);
    }
    for (size_t e = 0; !st && e < nv && vs; e++)
        memcpy(vals + e * vs, &e, vs < sizeof e ? vs : sizeof e);
    for (size_t j = 0; !st && move && j < objects; j++) {
        uint64_t end = n, lo;
        if (j + 1 < objects)
            key_words(off, ks, j + 1, &end, &lo);
        set_key(mirror, ks, j, n - end, 0);
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
    free(off);
    free(vals);
    free(mirror);
    return st;
}

/* Generates the primitive's input on the host and uploads it: random keys (mergesort,
 * segsort), two sorted runs (merge, search, setops: the first and second half; setops' count
 * in `offsets`), or sorted keys with local swaps (locality). Values are left as the allocator gives them: their bytes do not change
 * the work. */
static mj_status make_inputs(mj_context *ctx, const tune_config *c, size_t n, size_t seglen,
                             tune_inputs *in)
{
    size_t ks = c->key_size;
    memset(in, 0, sizeof *in);
    in->n = n;
    in->seglen = seglen;
    unsigned char *h = malloc(n * ks);
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
            set_key(h, ks, i, run, r >> 40);
            if (ks == 16)
                set_key(h, ks, i, run, 0);
        } else if (c->primitive == MJ_LOCALITY_SORT) {
            set_key(h, ks, i, i, 0);
        } else {
            set_key(h, ks, i, ks == 4 ? r >> 32 : r, kg_splitmix(&s));
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
    in->sum = key_sum(h, ks, n);
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
    free(h);
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
    if (st)
        free_inputs(ctx, in);
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

/* Reduce and scan (sums: of the key's width, word by word for the struct; see
 * tune_key_desc) against the input: the inclusive scan, or its last element for reduce. */
static const char *check_sums(mj_context *ctx, const tune_config *c, tune_inputs *in)
{
    size_t ks = c->key_size, outs = c->primitive == MJ_SCAN ? in->n : 1;
    unsigned char *src = malloc(in->n * ks), *got = malloc(outs * ks);
    const char *bad = NULL;
    if (!src || !got)
        bad = "no host memory to check the result";
    else if (mj__dev_download(ctx, src, in->src_keys, in->n * ks) != MJ_OK ||
             mj__dev_download(ctx, got, in->keys, outs * ks) != MJ_OK)
        bad = "the result could not be read back";
    uint64_t hi = 0, lo = 0, xh, xl;
    for (size_t i = 0; !bad && i < in->n; i++) {
        key_words(src, ks, i, &xh, &xl);
        hi += xh;
        lo += xl;
        if (ks == 4)
            hi = (uint32_t)hi;
        if (c->primitive == MJ_REDUCE && i + 1 < in->n)
            continue;
        key_words(got, ks, c->primitive == MJ_SCAN ? i : 0, &xh, &xl);
        if (xh != hi || xl != lo)
            bad = c->primitive == MJ_SCAN ? "the scan is wrong" : "the reduction is wrong";
    }
    free(src);
    free(got);
    return bad;
}

/* Load-balancing search: each item's object, walking the offsets; expand: the object's index
 * in the first bytes of each output value; move: the element's own index (out equals in). */
static const char *check_lbs(mj_context *ctx, const tune_config *c, tune_inputs *in)
{
    size_t ks = c->key_size, vs = c->value_size, objects = in->offset_count;
    size_t outs = vs ? vs : ks, w = vs < 8 ? vs : 8;
    unsigned char *off = malloc(objects * ks), *got = malloc(in->n * outs + 1);
    const char *bad = NULL;
    if (!off || !got)
        bad = "no host memory to check the result";
    else if (mj__dev_download(ctx, off, in->offsets, objects * ks) != MJ_OK ||
             mj__dev_download(ctx, got, vs ? in->values : in->keys, in->n * outs) != MJ_OK)
        bad = "the result could not be read back";
    size_t j = 0;
    for (size_t i = 0; !bad && i < in->n; i++) {
        uint64_t next, lo, o = 0;
        while (j + 1 < objects && (key_words(off, ks, j + 1, &next, &lo), next <= i))
            j++;
        if (vs)
            memcpy(&o, got + i * vs, w);
        else
            key_words(got, ks, i, &o, &lo);
        uint64_t idx = c->primitive == MJ_INTERVAL_MOVE ? i : j;
        uint64_t want = vs && w < 8 ? idx & ((1ull << (8 * w)) - 1) : idx;
        if (o != want)
            bad = c->primitive == MJ_INTERVAL_MOVE ? "the move is wrong"
                  : vs                             ? "the expansion is wrong"
                                                   : "the load-balancing search is wrong";
    }
    free(off);
    free(got);
    return bad;
}

/* Search: each key of the first half has its lower bound in the second (binary searches over
 * the keys' words). */
static const char *check_search(mj_context *ctx, const tune_config *c, tune_inputs *in)
{
    size_t ks = c->key_size, na = in->n / 2, nb = in->n - na;
    unsigned char *h = malloc(in->n * ks);
    uint32_t *got = malloc(na * 4 + 4);
    const char *bad = NULL;
    if (!h || !got)
        bad = "no host memory to check the result";
    else if (mj__dev_download(ctx, h, in->src_keys, in->n * ks) != MJ_OK ||
             mj__dev_download(ctx, got, in->keys, na * 4) != MJ_OK)
        bad = "the result could not be read back";
    for (size_t i = 0; !bad && i < na; i++) {
        uint64_t ah, al, bh, bl;
        key_words(h, ks, i, &ah, &al);
        size_t lo = 0, hi = nb;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            key_words(h, ks, na + mid, &bh, &bl);
            if (bh < ah || (bh == ah && bl < al))
                lo = mid + 1;
            else
                hi = mid;
        }
        if (got[i] != lo)
            bad = "the sorted search is wrong";
    }
    free(h);
    free(got);
    return bad;
}

/* Setops: the union of the two halves (keys compared by their words), its count and every
 * key against the std walk on the host. */
static const char *check_setops(mj_context *ctx, const tune_config *c, tune_inputs *in)
{
    size_t ks = c->key_size, na = in->n / 2, n = in->n;
    unsigned char *h = malloc(n * ks + 1), *got = malloc(n * ks + 1);
    uint64_t count = 0;
    const char *bad = NULL;
    if (!h || !got)
        bad = "no host memory to check the result";
    else if (mj__dev_download(ctx, h, in->src_keys, n * ks) != MJ_OK ||
             mj__dev_download(ctx, &count, in->offsets, 8) != MJ_OK || count > n ||
             mj__dev_download(ctx, got, in->keys, (size_t)count * ks) != MJ_OK)
        bad = "the result could not be read back";
    size_t i = 0, j = na, o = 0;
    while (!bad && (i < na || j < n)) {
        uint64_t ah = 0, al = 0, bh = 0, bl = 0;
        if (i < na)
            key_words(h, ks, i, &ah, &al);
        if (j < n)
            key_words(h, ks, j, &bh, &bl);
        int a_first = j == n || (i < na && (ah < bh || (ah == bh && al < bl)));
        int b_first = i == na || (!a_first && (bh < ah || (bh == ah && bl < al)));
        size_t from = b_first ? j : i; /* a's element for a matched pair */
        if (o >= count || memcmp(got + o * ks, h + from * ks, ks) != 0)
            bad = "the union is wrong";
        o++;
        i += !b_first;
        j += !a_first;
    }
    if (!bad && o != count)
        bad = "the union has the wrong count";
    free(h);
    free(got);
    return bad;
}

/* Bulk remove and insert: the output keys against the input, element by element (the values
 * are whatever the allocator left: their bytes do not change the work). */
static const char *check_bulk(mj_context *ctx, const tune_config *c, tune_inputs *in)
{
    size_t ks = c->key_size, n = in->n, k = in->offset_count;
    size_t m = c->primitive == MJ_BULK_REMOVE ? n - k : n;
    unsigned char *src = malloc(n * ks + 1), *got = malloc(m * ks + 1);
    uint32_t *ix = malloc(k * sizeof *ix + 1);
    const char *bad = NULL;
    if (!src || !got || !ix)
        bad = "no host memory to check the result";
    else if (mj__dev_download(ctx, src, in->src_keys, n * ks) != MJ_OK ||
             mj__dev_download(ctx, got, in->keys, m * ks) != MJ_OK ||
             mj__dev_download(ctx, ix, in->offsets, k * sizeof *ix) != MJ_OK)
        bad = "the result could not be read back";
    for (size_t o = 0, i = 0, r = 0; !bad && o < m; o++) {
        size_t from;
        if (c->primitive == MJ_BULK_REMOVE) {
            for (; r < k && ix[r] == i; r++, i++) {
            }
            from = i++;
        } else { /* i: a's next, r: b's next; a before equal b */
            from = i < k && (r == n - k || ix[i] <= r) ? i++ : k + r++;
        }
        if (memcmp(got + o * ks, src + from * ks, ks) != 0)
            bad = c->primitive == MJ_BULK_REMOVE ? "the bulk remove is wrong"
                                                 : "the bulk insert is wrong";
    }
    free(src);
    free(got);
    free(ix);
    return bad;
}

/* Checks the result: ordered (within each segment) and the same keys (their sum); reduce and
 * scan by check_sums, lbs, expand and move by check_lbs, search by check_search, remove and
 * insert by check_bulk, setops by check_setops. NULL when right, else what is wrong. */
static const char *check_result(mj_context *ctx, const tune_config *c, tune_inputs *in)
{
    if (c->primitive == MJ_REDUCE || c->primitive == MJ_SCAN)
        return check_sums(ctx, c, in);
    if (is_lbs(c))
        return check_lbs(ctx, c, in);
    if (c->primitive == MJ_SORTED_SEARCH)
        return check_search(ctx, c, in);
    if (is_bulk(c))
        return check_bulk(ctx, c, in);
    if (c->primitive == MJ_SET_OPS)
        return check_setops(ctx, c, in);
    size_t ks = c->key_size;
    unsigned char *h = malloc(in->n * ks);
    if (!h)
        return "no host memory to check the result";
    const char *bad = NULL;
    if (mj__dev_download(ctx, h, in->keys, in->n * ks) != MJ_OK)
        bad = "the result could not be read back";
    for (size_t i = 1; !bad && i < in->n; i++) {
        if (c->primitive == MJ_SEGMENTED_SORT && i % in->seglen == 0)
            continue;
        uint64_t ah, al, bh, bl;
        key_words(h, ks, i - 1, &ah, &al);
        key_words(h, ks, i, &bh, &bl);
        if (bh < ah || (bh == ah && bl < al))
            bad = "the result is out of order";
    }
    if (!bad && key_sum(h, ks, in->n) != in->sum)
        bad = "the result lost or changed keys";
    free(h);
    return bad;
}

/* ---------------------------------------------------------------- timing */

/* Times point p on every size; NULL on success, else why it failed (p's outcome is then set
 * by the caller). */
const char *tune_measure(tune_bench *b, const tune_config *c, tune_point *p, char *why,
                         size_t cap)
{
    mj_sort_desc d;
    tune_key_desc(c, p, &d);
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(b->ctx, &d, &s);
    if (st) {
        snprintf(why, cap, "%s", mj_context_last_error(b->ctx));
        return why;
    }
    double log_sum = 0;
    for (int k = 0; k < b->o->size_count && !st; k++) {
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
        for (long r = 0; r < b->o->reps && !st; r++) {
            if (!(st = restore(b->ctx, c, in)))
                st = mj__dev_time(b->ctx, run_once, &job, &b->times[r]);
            if (!st && r == 0 && k == 0) {
                const char *bad = check_result(b->ctx, c, in);
                if (bad) {
                    mj_sorter_destroy(s);
                    snprintf(why, cap, "%s", bad);
                    return why;
                }
            }
        }
        if (st)
            break;
        cli_sort_floats(b->times, (size_t)b->o->reps);
        double ms = b->times[b->o->reps / 2];
        p->gkeys[k] = ms > 0 ? (double)in->n / (ms * 1e6) : 0;
        log_sum += log(p->gkeys[k] > 0 ? p->gkeys[k] : 1e-9);
    }
    mj_sorter_destroy(s);
    if (st) {
        snprintf(why, cap, "%s", mj_context_last_error(b->ctx));
        return why;
    }
    p->score = exp(log_sum / b->o->size_count);
    return NULL;
}

/* Makes the inputs of configuration c current. */
mj_status tune_use_config(tune_bench *b, const tune_config *c)
{
    if (b->have_inputs && b->current.primitive == c->primitive &&
        b->current.key_size == c->key_size && b->current.value_size == c->value_size)
        return MJ_OK;
    for (int k = 0; k < b->o->size_count; k++)
        free_inputs(b->ctx, &b->in[k]);
    b->have_inputs = 0;
    for (int k = 0; k < b->o->size_count; k++) {
        mj_status st = make_inputs(b->ctx, c, (size_t)1 << b->o->log2_sizes[k],
                                     (size_t)b->o->seglen, &b->in[k]);
        if (st)
            return st;
    }
    b->current = *c;
    b->have_inputs = 1;
    return MJ_OK;
}

void tune_bench_free(tune_bench *b)
{
    for (int k = 0; k < TUNE_MAX_SIZES; k++)
        free_inputs(b->ctx, &b->in[k]);
    mj__dev_free(b->ctx, b->temp);
    b->temp = NULL;
    b->temp_bytes = 0;
}
