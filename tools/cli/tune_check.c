/* SPDX-License-Identifier: Apache-2.0 */
/* The tuner's result checks on the host: each primitive's output, as read back, against the
 * input it was given. */
#include <string.h>

#include "tune_check.h"

/* ---------------------------------------------------------------- keys */

void tune_key_words(const unsigned char *k, size_t ks, size_t i, uint64_t *hi, uint64_t *lo)
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

void tune_set_key(unsigned char *k, size_t ks, size_t i, uint64_t hi, uint64_t lo)
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

#define KEY_WEIGHT 0x9e3779b97f4a7c15ull

uint64_t tune_key_sum(const unsigned char *k, size_t ks, size_t n)
{
    uint64_t sum = 0, hi, lo;
    for (size_t i = 0; i < n; i++) {
        tune_key_words(k, ks, i, &hi, &lo);
        sum += hi * KEY_WEIGHT + lo;
    }
    return sum;
}

int tune_is_lbs(mj_primitive p)
{
    return p == MJ_LOAD_BALANCE || p == MJ_INTERVAL_EXPAND || p == MJ_INTERVAL_MOVE;
}

int tune_is_bulk(mj_primitive p)
{
    return p == MJ_BULK_REMOVE || p == MJ_BULK_INSERT;
}

int tune_has_count(mj_primitive p)
{
    return p == MJ_SET_OPS || p == MJ_REDUCE_BY_KEY || p == MJ_SELECT || p == MJ_JOIN;
}

size_t tune_check_output(const tune_config *c, size_t n, size_t offset_count, size_t out_count,
                         int *from_values)
{
    size_t ks = c->key_size;
    *from_values = 0;
    switch (c->primitive) {
    case MJ_REDUCE:
        return ks;
    case MJ_SEGMENTED_REDUCE: /* a sum a segment */
        return offset_count > 1 ? (offset_count - 1) * ks : 0;
    case MJ_SORTED_SEARCH: /* 4-byte lower bounds of the first half */
        return n / 2 * 4;
    case MJ_SET_OPS:
    case MJ_SELECT:
        return out_count * ks;
    case MJ_JOIN: /* a's rows, then b's, 4-byte indices, as many as the host counted */
        return offset_count * 8;
    case MJ_REDUCE_BY_KEY: /* the runs' sums */
        *from_values = 1;
        return out_count * c->value_size;
    case MJ_BULK_REMOVE:
        return (n - offset_count) * ks;
    default:
        break;
    }
    if (tune_is_lbs(c->primitive) && c->value_size) {
        *from_values = 1;
        return n * c->value_size;
    }
    return n * ks;
}

/* ---------------------------------------------------------------- checks */

/* Whether the key of words (ah, al) is ordered before (bh, bl): the tuner's order, word by
 * word (tune_key_desc's `less` for the struct). */
static int words_less(uint64_t ah, uint64_t al, uint64_t bh, uint64_t bl)
{
    return ah < bh || (ah == bh && al < bl);
}

/* Sorts (within each segment) and merges: ordered, and the input's keys (their sum). One pass:
 * the check runs once per candidate on up to 2^24 or more keys. */
static const char *check_sorted(const tune_config *c, const tune_check_data *d)
{
    const unsigned char *h = d->out;
    size_t ks = c->key_size;
    /* Keys left before the next segment starts (no order across segments). */
    size_t seg = c->primitive == MJ_SEGMENTED_SORT ? d->seglen : (size_t)-1, left = seg;
    uint64_t sum = 0, ph = 0, pl = 0, hi, lo;
    for (size_t i = 0; i < d->n; i++, left--) {
        tune_key_words(h, ks, i, &hi, &lo);
        sum += hi * KEY_WEIGHT + lo;
        if (left == 0)
            left = seg;
        else if (i > 0 && words_less(hi, lo, ph, pl))
            return "the result is out of order";
        ph = hi;
        pl = lo;
    }
    return sum == d->sum ? NULL : "the result lost or changed keys";
}

/* The sums the tuner's reductions make: key i of k added to (hi, lo), of the key's width, word
 * by word for the struct (u32 sums wrap at 32 bits). */
static void add_key(const unsigned char *k, size_t ks, size_t i, uint64_t *hi, uint64_t *lo)
{
    uint64_t xh, xl;
    tune_key_words(k, ks, i, &xh, &xl);
    *hi = ks == 4 ? (uint32_t)(*hi + xh) : *hi + xh;
    *lo += xl;
}

/* Whether key i of k is the sum (hi, lo). */
static int key_is(const unsigned char *k, size_t ks, size_t i, uint64_t hi, uint64_t lo)
{
    uint64_t xh, xl;
    tune_key_words(k, ks, i, &xh, &xl);
    return xh == hi && xl == lo;
}

/* Reduce and scan: the inclusive scan, or its last element for reduce. */
static const char *check_sums(const tune_config *c, const tune_check_data *d)
{
    size_t ks = c->key_size;
    uint64_t hi = 0, lo = 0;
    for (size_t i = 0; i < d->n; i++) {
        add_key(d->keys, ks, i, &hi, &lo);
        if (c->primitive == MJ_REDUCE && i + 1 < d->n)
            continue;
        if (!key_is(d->out, ks, c->primitive == MJ_SCAN ? i : 0, hi, lo))
            return c->primitive == MJ_SCAN ? "the scan is wrong" : "the reduction is wrong";
    }
    return NULL;
}

/* Segmented reduce: each segment's sum, the segments given by the 4-byte CSR offsets (count =
 * segments + 1). */
static const char *check_segment_sums(const tune_config *c, const tune_check_data *d)
{
    size_t ks = c->key_size;
    const uint32_t *off = d->offsets;
    for (size_t g = 0; g + 1 < d->offset_count; g++) {
        uint64_t hi = 0, lo = 0;
        for (size_t i = off[g]; i < off[g + 1] && i < d->n; i++)
            add_key(d->keys, ks, i, &hi, &lo);
        if (!key_is(d->out, ks, g, hi, lo))
            return "the segmented reduction is wrong";
    }
    return NULL;
}

/* Value r of an array of u32 or u64 (vs 4 or 8). */
static uint64_t value_at(const unsigned char *v, size_t vs, size_t r)
{
    uint64_t x = 0;
    memcpy(&x, v + r * vs, vs);
    return x;
}

/* Reduce by key: one sum of values (u32 or u64, wrapping) a run of equal keys, in order, and
 * as many as there are runs. */
static const char *check_runs(const tune_config *c, const tune_check_data *d)
{
    size_t ks = c->key_size, vs = c->value_size, runs = 0;
    uint64_t sum = 0, ph = 0, pl = 0, hi = 0, lo = 0;
    for (size_t i = 0; i <= d->n; i++) {
        if (i < d->n)
            tune_key_words(d->keys, ks, i, &hi, &lo);
        int starts = i < d->n && (i == 0 || hi != ph || lo != pl);
        if (runs > 0 && (starts || i == d->n)) { /* run runs - 1 ends before i */
            if (runs > d->out_count)
                return "reduce by key found too few runs";
            if (value_at(d->out, vs, runs - 1) != sum)
                return "reduce by key's sums are wrong";
            sum = 0;
        }
        if (i == d->n)
            break;
        runs += starts;
        sum += value_at(d->values, vs, i);
        if (vs == 4)
            sum = (uint32_t)sum;
        ph = hi;
        pl = lo;
    }
    return runs == d->out_count ? NULL : "reduce by key found a wrong number of runs";
}

/* Load-balancing search: each item's object, walking the offsets; expand: the object's index
 * in the first bytes of each output value; move: the element's own index (out equals in). */
static const char *check_lbs(const tune_config *c, const tune_check_data *d)
{
    size_t ks = c->key_size, vs = c->value_size, w = vs < 8 ? vs : 8;
    const unsigned char *got = d->out;
    size_t j = 0;
    for (size_t i = 0; i < d->n; i++) {
        uint64_t next, lo, o = 0;
        while (j + 1 < d->offset_count &&
               (tune_key_words(d->offsets, ks, j + 1, &next, &lo), next <= i))
            j++;
        if (vs)
            memcpy(&o, got + i * vs, w);
        else
            tune_key_words(got, ks, i, &o, &lo);
        uint64_t idx = c->primitive == MJ_INTERVAL_MOVE ? i : j;
        uint64_t want = vs && w < 8 ? idx & ((1ull << (8 * w)) - 1) : idx;
        if (o != want)
            return c->primitive == MJ_INTERVAL_MOVE ? "the move is wrong"
                   : vs                             ? "the expansion is wrong"
                                                    : "the load-balancing search is wrong";
    }
    return NULL;
}

/* Search: each key of the first half has its lower bound in the second (binary searches over
 * the keys' words). */
static const char *check_search(const tune_config *c, const tune_check_data *d)
{
    size_t ks = c->key_size, na = d->n / 2, nb = d->n - na;
    const unsigned char *h = d->keys;
    for (size_t i = 0; i < na; i++) {
        uint64_t ah, al, bh, bl;
        uint32_t got;
        tune_key_words(h, ks, i, &ah, &al);
        size_t lo = 0, hi = nb;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            tune_key_words(h, ks, na + mid, &bh, &bl);
            if (words_less(bh, bl, ah, al))
                lo = mid + 1;
            else
                hi = mid;
        }
        memcpy(&got, (const unsigned char *)d->out + 4 * i, 4);
        if (got != lo)
            return "the sorted search is wrong";
    }
    return NULL;
}

/* Setops: the union of the two halves (keys compared by their words), its count and every
 * key against the std walk on the host. */
static const char *check_setops(const tune_config *c, const tune_check_data *d)
{
    size_t ks = c->key_size, na = d->n / 2, n = d->n, count = d->out_count;
    const unsigned char *h = d->keys, *got = d->out;
    size_t i = 0, j = na, o = 0;
    while (i < na || j < n) {
        uint64_t ah = 0, al = 0, bh = 0, bl = 0;
        if (i < na)
            tune_key_words(h, ks, i, &ah, &al);
        if (j < n)
            tune_key_words(h, ks, j, &bh, &bl);
        int a_first = j == n || (i < na && words_less(ah, al, bh, bl));
        int b_first = i == na || (!a_first && words_less(bh, bl, ah, al));
        size_t from = b_first ? j : i; /* a's element for a matched pair */
        if (o >= count || memcmp(got + o * ks, h + from * ks, ks) != 0)
            return "the union is wrong";
        o++;
        i += !b_first;
        j += !a_first;
    }
    return o != count ? "the union has the wrong count" : NULL;
}

/* The inner join of the two halves (keys compared by their words), walked on the host in
 * the header's order: each row i of a, ascending, with each row j of b equivalent to it,
 * ascending. With rows (a's indices, then b's, `cap` of each) every row is compared, and
 * *bad set at the first that differs; without, the rows are only counted. Returns the count. */
static size_t join_walk(const unsigned char *h, size_t ks, size_t n, const unsigned char *rows,
                        size_t cap, int *bad)
{
    size_t na = n / 2, j = na, o = 0;
    for (size_t i = 0; i < na; i++) {
        uint64_t ah, al, bh = 0, bl = 0;
        tune_key_words(h, ks, i, &ah, &al);
        for (; j < n; j++) { /* b's first key not ordered before a's */
            tune_key_words(h, ks, j, &bh, &bl);
            if (!words_less(bh, bl, ah, al))
                break;
        }
        for (size_t k = j; k < n; k++, o++) {
            tune_key_words(h, ks, k, &bh, &bl);
            if (bh != ah || bl != al)
                break;
            if (!rows)
                continue;
            uint32_t a_row = 0, b_row = 0;
            if (o < cap) {
                memcpy(&a_row, rows + 4 * o, 4);
                memcpy(&b_row, rows + 4 * (cap + o), 4);
            }
            if (o >= cap || a_row != i || b_row != k - na) {
                *bad = 1;
                return o;
            }
        }
    }
    return o;
}

size_t tune_join_rows(const unsigned char *keys, size_t key_size, size_t n)
{
    int bad = 0;
    return join_walk(keys, key_size, n, NULL, 0, &bad);
}

/* Join: every row against the walk on the host, and the count. */
static const char *check_join(const tune_config *c, const tune_check_data *d)
{
    int bad = 0;
    size_t rows = join_walk(d->keys, c->key_size, d->n, d->out, d->offset_count, &bad);
    if (bad)
        return "the join is wrong";
    return rows != d->out_count ? "the join has the wrong count" : NULL;
}

/* Select: the input's keys whose lowest bit is 0 (tune_key_desc's operator; of the struct,
 * its low word's), in order, and as many as the count says. */
static const char *check_select(const tune_config *c, const tune_check_data *d)
{
    size_t ks = c->key_size, o = 0;
    const unsigned char *h = d->keys, *got = d->out;
    for (size_t i = 0; i < d->n; i++) {
        uint64_t hi, lo;
        tune_key_words(h, ks, i, &hi, &lo);
        if ((ks == 16 ? lo : hi) & 1)
            continue;
        if (o >= d->out_count || memcmp(got + o * ks, h + i * ks, ks) != 0)
            return "the selection is wrong";
        o++;
    }
    return o != d->out_count ? "the selection has the wrong count" : NULL;
}

/* Bulk remove and insert: the output keys against the input, element by element (the values
 * are whatever the allocator left: their bytes do not change the work). */
static const char *check_bulk(const tune_config *c, const tune_check_data *d)
{
    size_t ks = c->key_size, n = d->n, k = d->offset_count;
    size_t m = c->primitive == MJ_BULK_REMOVE ? n - k : n;
    const unsigned char *src = d->keys, *got = d->out;
    const uint32_t *ix = d->offsets;
    for (size_t o = 0, i = 0, r = 0; o < m; o++) {
        size_t from;
        if (c->primitive == MJ_BULK_REMOVE) {
            for (; r < k && ix[r] == i; r++, i++) {
            }
            from = i++;
        } else { /* i: a's next, r: b's next; a before equal b */
            from = i < k && (r == n - k || ix[i] <= r) ? i++ : k + r++;
        }
        if (memcmp(got + o * ks, src + from * ks, ks) != 0)
            return c->primitive == MJ_BULK_REMOVE ? "the bulk remove is wrong"
                                                  : "the bulk insert is wrong";
    }
    return NULL;
}

const char *tune_check(const tune_config *c, const tune_check_data *d)
{
    switch (c->primitive) {
    case MJ_REDUCE:
    case MJ_SCAN:
        return check_sums(c, d);
    case MJ_SEGMENTED_REDUCE:
        return check_segment_sums(c, d);
    case MJ_REDUCE_BY_KEY:
        return check_runs(c, d);
    case MJ_SORTED_SEARCH:
        return check_search(c, d);
    case MJ_BULK_REMOVE:
    case MJ_BULK_INSERT:
        return check_bulk(c, d);
    case MJ_SET_OPS:
        return check_setops(c, d);
    case MJ_SELECT:
        return check_select(c, d);
    case MJ_JOIN:
        return check_join(c, d);
    default:
        break;
    }
    if (tune_is_lbs(c->primitive))
        return check_lbs(c, d);
    return check_sorted(c, d);
}
