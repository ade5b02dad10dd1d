/* SPDX-License-Identifier: Apache-2.0 */
/* The tuner's result checks (tools/cli/tune_check.c) on host data built here: every
 * primitive's right output passes and a wrong one fails with its message; and the checking
 * threads (tune_checker.c) hand verdicts back in queue order whatever order the checks end in.
 * CPU only. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"
#include "tune_check.h"

/* ---------------------------------------------------------------- data */

/* n random keys of size ks (16: two words); every 4th equal to the one before, for ties. */
static unsigned char *random_keys(size_t n, size_t ks, uint64_t seed)
{
    unsigned char *k = malloc(n * ks + 1);
    ck_assert_ptr_nonnull(k);
    for (size_t i = 0; i < n; i++) {
        uint64_t hi = mjt_rand(&seed) % 1000, lo = mjt_rand(&seed) % 3;
        if (i % 4 == 3)
            tune_key_words(k, ks, i - 1, &hi, &lo);
        tune_set_key(k, ks, i, hi, lo);
    }
    return k;
}

static size_t g_ks; /* for cmp_keys */
static int cmp_keys(const void *a, const void *b)
{
    uint64_t ah, al, bh, bl;
    tune_key_words(a, g_ks, 0, &ah, &al);
    tune_key_words(b, g_ks, 0, &bh, &bl);
    return ah != bh ? (ah < bh ? -1 : 1) : al != bl ? (al < bl ? -1 : 1) : 0;
}

static void sort_keys(unsigned char *k, size_t n, size_t ks)
{
    g_ks = ks;
    if (n)
        qsort(k, n, ks, cmp_keys);
}

static const char *check(mj_primitive p, size_t ks, size_t vs, const tune_check_data *d)
{
    tune_config c = {p, ks, vs};
    return tune_check(&c, d);
}

static void expect(const char *got, const char *want)
{
    if (!want)
        ck_assert_msg(got == NULL, "unexpected failure: %s", got);
    else
        ck_assert_msg(got && strcmp(got, want) == 0, "wanted \"%s\", got \"%s\"", want,
                      got ? got : "(passed)");
}

/* The checks of an output with a count (the union's, the selection's), d's as given: right;
 * one element fewer, or its last key changed, `wrong`; one more, `count`. */
static void expect_counted(mj_primitive p, size_t ks, tune_check_data *d, unsigned char *out,
                           const char *wrong, const char *count)
{
    size_t o = d->out_count;
    expect(check(p, ks, 0, d), NULL);
    if (o) {
        d->out_count = o - 1;
        expect(check(p, ks, 0, d), wrong);
        d->out_count = o;
        unsigned char last[16];
        memcpy(last, out + (o - 1) * ks, ks);
        tune_set_key(out, ks, o - 1, 1u << 30, 0); /* no input key is 2^30 */
        expect(check(p, ks, 0, d), wrong);
        memcpy(out + (o - 1) * ks, last, ks);
    }
    d->out_count = o + 1;
    expect(check(p, ks, 0, d), count);
    d->out_count = o;
}

/* ---------------------------------------------------------------- keys */

START_TEST(key_words_and_sum)
{
    unsigned char k[64];
    const size_t sizes[] = {4, 8, 16};
    for (int s = 0; s < 3; s++) {
        size_t ks = sizes[s];
        uint64_t hi, lo;
        tune_set_key(k, ks, 1, 0x1234567890abcdefull, 0x42);
        tune_key_words(k, ks, 1, &hi, &lo);
        ck_assert_uint_eq(hi, ks == 4 ? 0x90abcdefu : 0x1234567890abcdefull);
        ck_assert_uint_eq(lo, ks == 16 ? 0x42 : 0);
        /* the sum keeps a permutation of the keys, and sees a changed key */
        tune_set_key(k, ks, 0, 7, 9);
        tune_set_key(k, ks, 1, 9, 7);
        uint64_t a = tune_key_sum(k, ks, 2);
        tune_set_key(k, ks, 0, 9, 7);
        tune_set_key(k, ks, 1, 7, 9);
        ck_assert_uint_eq(tune_key_sum(k, ks, 2), a);
        tune_set_key(k, ks, 1, 8, 9);
        ck_assert_uint_ne(tune_key_sum(k, ks, 2), a);
        if (ks == 16) { /* the two words of a key swapped: another sum */
            tune_set_key(k, ks, 0, 7, 9);
            tune_set_key(k, ks, 1, 7, 9);
            ck_assert_uint_ne(tune_key_sum(k, ks, 2), a);
        }
    }
    ck_assert_uint_eq(tune_key_sum(k, 4, 0), 0);
}
END_TEST

START_TEST(output_sizes)
{
    int v;
    tune_config c = {MJ_MERGESORT, 8, 4};
    ck_assert_uint_eq(tune_check_output(&c, 100, 0, 0, &v), 800);
    ck_assert_int_eq(v, 0);
    c = (tune_config){MJ_REDUCE, 16, 0};
    ck_assert_uint_eq(tune_check_output(&c, 100, 0, 0, &v), 16);
    c = (tune_config){MJ_SORTED_SEARCH, 8, 0};
    ck_assert_uint_eq(tune_check_output(&c, 101, 0, 0, &v), 200);
    c = (tune_config){MJ_SET_OPS, 4, 0};
    ck_assert_uint_eq(tune_check_output(&c, 100, 0, 37, &v), 148);
    c = (tune_config){MJ_BULK_REMOVE, 4, 4};
    ck_assert_uint_eq(tune_check_output(&c, 100, 25, 0, &v), 300);
    c = (tune_config){MJ_BULK_INSERT, 4, 4};
    ck_assert_uint_eq(tune_check_output(&c, 100, 25, 0, &v), 400);
    c = (tune_config){MJ_INTERVAL_EXPAND, 8, 12};
    ck_assert_uint_eq(tune_check_output(&c, 100, 7, 0, &v), 1200);
    ck_assert_int_eq(v, 1);
    c = (tune_config){MJ_LOAD_BALANCE, 4, 0};
    ck_assert_uint_eq(tune_check_output(&c, 100, 7, 0, &v), 400);
    ck_assert_int_eq(v, 0);
    c = (tune_config){MJ_SEGMENTED_REDUCE, 8, 0}; /* 7 offsets: 6 segments */
    ck_assert_uint_eq(tune_check_output(&c, 100, 7, 0, &v), 48);
    ck_assert_int_eq(v, 0);
    ck_assert_uint_eq(tune_check_output(&c, 100, 1, 0, &v), 0);
    c = (tune_config){MJ_SELECT, 8, 4}; /* 30 kept keys */
    ck_assert_uint_eq(tune_check_output(&c, 100, 0, 30, &v), 240);
    ck_assert_int_eq(v, 0);
    c = (tune_config){MJ_REDUCE_BY_KEY, 16, 8}; /* 30 runs' sums, from the values */
    ck_assert_uint_eq(tune_check_output(&c, 100, 0, 30, &v), 240);
    ck_assert_int_eq(v, 1);
}
END_TEST

/* ---------------------------------------------------------------- sorts and merges */

START_TEST(sorted_outputs)
{
    const size_t sizes[] = {4, 8, 16}, counts[] = {0, 1, 2, 255, 256, 1000};
    for (int s = 0; s < 3; s++)
        for (int m = 0; m < 6; m++) {
            size_t ks = sizes[s], n = counts[m];
            unsigned char *k = random_keys(n, ks, 11 + n);
            tune_check_data d = {.n = n, .sum = tune_key_sum(k, ks, n), .out = k};
            sort_keys(k, n, ks);
            expect(check(MJ_MERGESORT, ks, 0, &d), NULL);
            expect(check(MJ_MERGE, ks, 8, &d), NULL);
            expect(check(MJ_LOCALITY_SORT, ks, 0, &d), NULL);
            if (n >= 2) {
                /* two unequal neighbours swapped */
                size_t i = 1;
                while (i < n && cmp_keys(k + (i - 1) * ks, k + i * ks) == 0)
                    i++;
                if (i < n) {
                    unsigned char tmp[16];
                    memcpy(tmp, k + i * ks, ks);
                    memcpy(k + i * ks, k + (i - 1) * ks, ks);
                    memcpy(k + (i - 1) * ks, tmp, ks);
                    expect(check(MJ_MERGESORT, ks, 0, &d), "the result is out of order");
                    memcpy(k + (i - 1) * ks, k + i * ks, ks);
                    memcpy(k + i * ks, tmp, ks);
                }
                /* the last key raised: still in order, but not the input's keys */
                uint64_t hi, lo;
                tune_key_words(k, ks, n - 1, &hi, &lo);
                tune_set_key(k, ks, n - 1, hi + 1, lo);
                expect(check(MJ_MERGESORT, ks, 0, &d), "the result lost or changed keys");
                /* a second word changed, where there is one */
                tune_set_key(k, ks, n - 1, hi, lo + 1);
                expect(check(MJ_MERGESORT, ks, 0, &d),
                       ks == 16 ? "the result lost or changed keys" : NULL);
            }
            free(k);
        }
}
END_TEST

START_TEST(segmented_outputs)
{
    size_t n = 1000, ks = 8;
    const size_t seglens[] = {1, 7, 100, 999, 1000, 5000};
    for (int g = 0; g < 6; g++) {
        size_t seglen = seglens[g];
        unsigned char *k = random_keys(n, ks, 5);
        tune_check_data d = {.n = n, .seglen = seglen, .sum = tune_key_sum(k, ks, n), .out = k};
        for (size_t at = 0; at < n; at += seglen)
            sort_keys(k + at * ks, at + seglen <= n ? seglen : n - at, ks);
        expect(check(MJ_SEGMENTED_SORT, ks, 0, &d), NULL);
        /* segments in descending order of their keys: still right */
        if (seglen < n) {
            tune_set_key(k, ks, seglen, 0, 0);
            tune_set_key(k, ks, seglen - 1, 5000, 0);
            d.sum = tune_key_sum(k, ks, n);
            expect(check(MJ_SEGMENTED_SORT, ks, 0, &d), NULL);
            /* the whole is not sorted */
            expect(check(MJ_MERGESORT, ks, 0, &d), "the result is out of order");
        }
        /* out of order inside a segment */
        if (seglen >= 2) {
            tune_set_key(k, ks, 0, 5001, 0);
            d.sum = tune_key_sum(k, ks, n);
            expect(check(MJ_SEGMENTED_SORT, ks, 0, &d), "the result is out of order");
        }
        free(k);
    }
}
END_TEST

/* ---------------------------------------------------------------- reduce and scan */

START_TEST(sums)
{
    const size_t sizes[] = {4, 8, 16};
    for (int s = 0; s < 3; s++) {
        size_t ks = sizes[s], n = 777;
        unsigned char *in = malloc(n * ks), *scan = malloc(n * ks), total[16];
        uint64_t seed = 3, hi = 0, lo = 0;
        for (size_t i = 0; i < n; i++) {
            /* large words, so that 4-byte sums wrap and 8-byte ones overflow */
            uint64_t h = mjt_rand(&seed), l = mjt_rand(&seed);
            tune_set_key(in, ks, i, h, l);
            tune_key_words(in, ks, i, &h, &l);
            hi += h;
            lo += ks == 16 ? l : 0;
            tune_set_key(scan, ks, i, hi, lo);
        }
        tune_set_key(total, ks, 0, hi, lo);
        tune_check_data d = {.n = n, .keys = in, .out = scan};
        expect(check(MJ_SCAN, ks, 0, &d), NULL);
        d.out = total;
        expect(check(MJ_REDUCE, ks, 0, &d), NULL);
        tune_set_key(total, ks, 0, hi, lo + 1);
        expect(check(MJ_REDUCE, ks, 0, &d), ks == 16 ? "the reduction is wrong" : NULL);
        tune_set_key(total, ks, 0, hi + 1, lo);
        expect(check(MJ_REDUCE, ks, 0, &d), "the reduction is wrong");
        d.out = scan;
        tune_set_key(scan, ks, n / 2, 1, 0);
        expect(check(MJ_SCAN, ks, 0, &d), "the scan is wrong");
        free(in);
        free(scan);
    }
}
END_TEST

/* The segmented reduce: segments of 10 (the last one short) and an empty one, as CSR offsets;
 * a sum a segment, of the key's width (wrapping), word by word for the struct. */
START_TEST(segment_sums)
{
    const size_t sizes[] = {4, 8, 16};
    for (int s = 0; s < 3; s++) {
        size_t ks = sizes[s], n = 95;
        const uint32_t off[] = {0, 10, 20, 20, 30, 40, 50, 60, 70, 80, 90, 95};
        size_t count = sizeof off / sizeof *off;
        unsigned char *in = malloc(n * ks), *out = malloc(count * ks);
        uint64_t seed = 5;
        for (size_t i = 0; i < n; i++)
            tune_set_key(in, ks, i, mjt_rand(&seed), mjt_rand(&seed));
        for (size_t g = 0; g + 1 < count; g++) {
            uint64_t hi = 0, lo = 0, h, l;
            for (size_t i = off[g]; i < off[g + 1]; i++) {
                tune_key_words(in, ks, i, &h, &l);
                hi += h;
                lo += l;
            }
            tune_set_key(out, ks, g, hi, lo);
        }
        tune_check_data d = {.n = n, .keys = in, .offsets = off, .offset_count = count, .out = out};
        expect(check(MJ_SEGMENTED_REDUCE, ks, 0, &d), NULL);
        uint64_t h, l;
        tune_key_words(out, ks, 2, &h, &l); /* the empty segment: the identity */
        ck_assert(h == 0 && l == 0);
        tune_key_words(out, ks, 5, &h, &l);
        tune_set_key(out, ks, 5, h + 1, l);
        expect(check(MJ_SEGMENTED_REDUCE, ks, 0, &d), "the segmented reduction is wrong");
        tune_set_key(out, ks, 5, h, l);
        tune_key_words(out, ks, count - 2, &h, &l); /* the last, short segment */
        tune_set_key(out, ks, count - 2, h, l + 1);
        expect(check(MJ_SEGMENTED_REDUCE, ks, 0, &d),
               ks == 16 ? "the segmented reduction is wrong" : NULL);
        free(in);
        free(out);
    }
}
END_TEST

/* Reduce by key: ascending runs of equal keys (of 1 to 7), a sum of values a run, wrapping in
 * the value's width; a wrong sum, a missing run and a count off by one are caught. */
START_TEST(run_sums)
{
    const size_t key_sizes[] = {4, 8, 16}, value_sizes[] = {4, 8};
    for (int s = 0; s < 3; s++)
        for (int t = 0; t < 2; t++) {
            size_t ks = key_sizes[s], vs = value_sizes[t], n = 500, runs = 0;
            unsigned char *keys = malloc(n * ks), *vals = malloc(n * vs), *out = malloc(n * vs);
            uint64_t seed = 11, key = 0, left = 0, sum = 0;
            for (size_t i = 0; i < n; i++) {
                if (left == 0) {
                    if (i > 0) {
                        memcpy(out + (runs - 1) * vs, &sum, vs);
                        sum = 0;
                    }
                    left = 1 + mjt_rand(&seed) % 7;
                    key += 1 + mjt_rand(&seed) % 3;
                    runs++;
                }
                left--;
                tune_set_key(keys, ks, i, key, 0);
                uint64_t x = mjt_rand(&seed);
                memcpy(vals + i * vs, &x, vs);
                x = 0;
                memcpy(&x, vals + i * vs, vs);
                sum += x;
                if (vs == 4)
                    sum = (uint32_t)sum;
            }
            memcpy(out + (runs - 1) * vs, &sum, vs);
            tune_check_data d = {.n = n, .keys = keys, .values = vals, .out = out,
                                 .out_count = runs};
            expect(check(MJ_REDUCE_BY_KEY, ks, vs, &d), NULL);
            d.out_count = runs - 1;
            expect(check(MJ_REDUCE_BY_KEY, ks, vs, &d), "reduce by key found too few runs");
            d.out_count = runs + 1;
            expect(check(MJ_REDUCE_BY_KEY, ks, vs, &d),
                   "reduce by key found a wrong number of runs");
            d.out_count = runs;
            out[(runs / 2) * vs] ^= 1;
            expect(check(MJ_REDUCE_BY_KEY, ks, vs, &d), "reduce by key's sums are wrong");
            out[(runs / 2) * vs] ^= 1;
            out[(runs - 1) * vs] ^= 1; /* the last run, checked after the loop */
            expect(check(MJ_REDUCE_BY_KEY, ks, vs, &d), "reduce by key's sums are wrong");
            free(keys);
            free(vals);
            free(out);
        }
}
END_TEST

/* ---------------------------------------------------------------- search */

/* Two sorted halves (ties inside and across), as the tuner makes them; 16-byte keys also
 * equal in their first word alone (run / 2, run % 2), which the order still tells apart. */
static unsigned char *two_runs(size_t n, size_t ks, uint64_t seed)
{
    unsigned char *k = malloc(n * ks + 1);
    uint64_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == n / 2)
            run = 0;
        run += mjt_rand(&seed) % 3;
        tune_set_key(k, ks, i, ks == 16 ? run / 2 : run, ks == 16 ? run % 2 : 0);
    }
    return k;
}

START_TEST(search)
{
    const size_t sizes[] = {4, 8, 16}, counts[] = {0, 1, 2, 1001};
    for (int s = 0; s < 3; s++)
        for (int m = 0; m < 4; m++) {
            size_t ks = sizes[s], n = counts[m], na = n / 2;
            unsigned char *k = two_runs(n, ks, 17);
            uint32_t *got = malloc(na * 4 + 4);
            g_ks = ks;
            for (size_t i = 0; i < na; i++) { /* the lower bound, by a walk */
                uint32_t j = 0;
                while (na + j < n && cmp_keys(k + (na + j) * ks, k + i * ks) < 0)
                    j++;
                got[i] = j;
            }
            tune_check_data d = {.n = n, .keys = k, .out = got};
            expect(check(MJ_SORTED_SEARCH, ks, 0, &d), NULL);
            if (na) {
                got[na - 1] ^= 1; /* an upper bound or a neighbour instead */
                expect(check(MJ_SORTED_SEARCH, ks, 0, &d), "the sorted search is wrong");
            }
            free(k);
            free(got);
        }
}
END_TEST

/* ---------------------------------------------------------------- setops */

START_TEST(set_union)
{
    const size_t sizes[] = {4, 16}, counts[] = {0, 1, 2, 999};
    for (int s = 0; s < 2; s++)
        for (int m = 0; m < 4; m++) {
            size_t ks = sizes[s], n = counts[m], na = n / 2;
            unsigned char *k = two_runs(n, ks, 23), *u = malloc(n * ks + 1);
            size_t i = 0, j = na, o = 0;
            g_ks = ks;
            while (i < na || j < n) { /* a's key for a pair of equals */
                int c = i == na ? 1 : j == n ? -1 : cmp_keys(k + i * ks, k + j * ks);
                memcpy(u + o++ * ks, k + (c <= 0 ? i : j) * ks, ks);
                i += c <= 0;
                j += c >= 0;
            }
            tune_check_data d = {.n = n, .keys = k, .out = u, .out_count = o};
            expect_counted(MJ_SET_OPS, ks, &d, u, "the union is wrong",
                           "the union has the wrong count");
            free(k);
            free(u);
        }
}
END_TEST

/* ---------------------------------------------------------------- select */

/* The keys whose lowest bit (of a struct, its low word's) is 0, in order: a right selection
 * passes; one key changed, one missing or one too many fail. */
START_TEST(selection)
{
    const size_t sizes[] = {4, 8, 16}, counts[] = {0, 1, 2, 999};
    for (int s = 0; s < 3; s++)
        for (int m = 0; m < 4; m++) {
            size_t ks = sizes[s], n = counts[m], o = 0;
            unsigned char *k = random_keys(n, ks, 41 + (uint64_t)m), *out = malloc(n * ks + ks);
            for (size_t i = 0; i < n; i++) {
                uint64_t hi, lo;
                tune_key_words(k, ks, i, &hi, &lo);
                if (!((ks == 16 ? lo : hi) & 1))
                    memcpy(out + o++ * ks, k + i * ks, ks);
            }
            tune_check_data d = {.n = n, .keys = k, .out = out, .out_count = o};
            expect_counted(MJ_SELECT, ks, &d, out, "the selection is wrong",
                           "the selection has the wrong count");
            free(k);
            free(out);
        }
}
END_TEST

/* ---------------------------------------------------------------- join */

/* The inner join of the two sorted halves (of 16-byte keys, some equal in their first word
 * alone, which do not join), against a brute-force product on the host: the rows' count;
 * right rows pass; a changed row, a count off by one, or too little room fail. */
START_TEST(join)
{
    const size_t sizes[] = {4, 8, 16}, counts[] = {0, 1, 2, 3, 999};
    for (int s = 0; s < 3; s++)
        for (int m = 0; m < 5; m++) {
            size_t ks = sizes[s], n = counts[m], na = n / 2;
            unsigned char *k = two_runs(n, ks, 29 + (uint64_t)m);
            size_t rows = 0;
            g_ks = ks;
            for (size_t i = 0; i < na; i++)
                for (size_t j = na; j < n; j++)
                    rows += cmp_keys(k + i * ks, k + j * ks) == 0;
            ck_assert_uint_eq(tune_join_rows(k, ks, n), rows);
            if (n == 999)
                ck_assert_uint_gt(rows, na / 2); /* the case tests something */
            uint32_t *out = malloc(8 * rows + 8);
            size_t o = 0;
            for (size_t i = 0; i < na; i++)
                for (size_t j = na; j < n; j++)
                    if (cmp_keys(k + i * ks, k + j * ks) == 0) {
                        out[o] = (uint32_t)i;
                        out[rows + o] = (uint32_t)(j - na);
                        o++;
                    }
            tune_check_data d = {.n = n, .keys = k, .out = out, .offset_count = rows,
                                 .out_count = rows};
            expect(check(MJ_JOIN, ks, 0, &d), NULL);
            d.out_count = rows + 1;
            expect(check(MJ_JOIN, ks, 0, &d), "the join has the wrong count");
            d.out_count = rows;
            if (rows) {
                d.out_count = rows - 1;
                expect(check(MJ_JOIN, ks, 0, &d), "the join has the wrong count");
                d.out_count = rows;
                out[rows + rows - 1] += 1; /* the last row's b index */
                expect(check(MJ_JOIN, ks, 0, &d), "the join is wrong");
                out[rows + rows - 1] -= 1;
                out[0] ^= 1; /* the first row's a index */
                expect(check(MJ_JOIN, ks, 0, &d), "the join is wrong");
                out[0] ^= 1;
                d.offset_count = rows - 1; /* room for one row fewer than the join has */
                expect(check(MJ_JOIN, ks, 0, &d), "the join is wrong");
            }
            free(k);
            free(out);
        }
}
END_TEST

/* ---------------------------------------------------------------- bulk */

START_TEST(bulk)
{
    size_t n = 1000, k = n / 4, ks = 8;
    unsigned char *src = random_keys(n, ks, 31), *out = malloc(n * ks);
    uint32_t ix[250];
    /* remove every fourth, from 1 */
    for (size_t r = 0; r < k; r++)
        ix[r] = (uint32_t)(4 * r + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        if (i % 4 != 1)
            memcpy(out + o++ * ks, src + i * ks, ks);
    tune_check_data d = {.n = n, .keys = src, .offsets = ix, .offset_count = k, .out = out};
    expect(check(MJ_BULK_REMOVE, ks, 0, &d), NULL);
    tune_set_key(out, ks, 5, 5000, 0); /* keys are below 1000 */
    expect(check(MJ_BULK_REMOVE, ks, 0, &d), "the bulk remove is wrong");
    /* insert the first k before positions of the rest, equal positions a first */
    uint64_t seed = 1;
    for (size_t r = 0; r < k; r++)
        ix[r] = (uint32_t)(3 * r + mjt_rand(&seed) % 3);
    size_t a = 0, b = 0;
    for (o = 0; o < n; o++)
        memcpy(out + o * ks,
               a < k && (b == n - k || ix[a] <= b) ? src + a++ * ks : src + (k + b++) * ks, ks);
    expect(check(MJ_BULK_INSERT, ks, 0, &d), NULL);
    tune_set_key(out, ks, n - 1, 123456, 0);
    expect(check(MJ_BULK_INSERT, ks, 0, &d), "the bulk insert is wrong");
    free(src);
    free(out);
}
END_TEST

/* ---------------------------------------------------------------- lbs, expand, move */

START_TEST(load_balance)
{
    size_t n = 500, objects = n / 16 + 1;
    const size_t sizes[] = {4, 8}, values[] = {0, 2, 8, 12};
    for (int s = 0; s < 2; s++)
        for (int v = 0; v < 4; v++) {
            size_t ks = sizes[s], vs = values[v];
            unsigned char *off = malloc(objects * ks), *got = calloc(n, vs ? vs : ks);
            uint64_t seed = 9;
            for (size_t j = 0; j < objects; j++) { /* counts 0 to 31, empty objects too */
                uint64_t o = j ? j * 16 + mjt_rand(&seed) % 16 : 0;
                tune_set_key(off, ks, j, o < n ? o : n, 0);
            }
            for (int move = 0; move < 2; move++) {
                if (move && !vs)
                    continue;
                size_t j = 0;
                for (size_t i = 0; i < n; i++) {
                    uint64_t next, lo;
                    while (j + 1 < objects &&
                           (tune_key_words(off, ks, j + 1, &next, &lo), next <= i))
                        j++;
                    uint64_t idx = move ? i : j;
                    if (vs)
                        memcpy((unsigned char *)got + i * vs, &idx, vs < 8 ? vs : 8);
                    else
                        tune_set_key(got, ks, i, idx, 0);
                }
                mj_primitive p = move ? MJ_INTERVAL_MOVE : vs ? MJ_INTERVAL_EXPAND
                                                              : MJ_LOAD_BALANCE;
                tune_check_data d = {.n = n, .offsets = off, .offset_count = objects,
                                     .out = got};
                expect(check(p, ks, vs, &d), NULL);
                unsigned char *last = (unsigned char *)got + (n - 1) * (vs ? vs : ks);
                last[0] ^= 1;
                expect(check(p, ks, vs, &d), move ? "the move is wrong"
                                             : vs ? "the expansion is wrong"
                                                  : "the load-balancing search is wrong");
                last[0] ^= 1;
            }
            free(off);
            free(got);
        }
}
END_TEST

/* ---------------------------------------------------------------- the checking threads */

typedef struct verdicts {
    pthread_mutex_t lock;
    size_t count, points[64];
    const char *bad[64];
} verdicts;

static void note_verdict(void *arg, size_t point, const char *bad)
{
    verdicts *v = arg;
    pthread_mutex_lock(&v->lock);
    ck_assert_uint_lt(v->count, 64);
    v->points[v->count] = point;
    v->bad[v->count++] = bad;
    pthread_mutex_unlock(&v->lock);
}

/* Queues a check of n sorted 4-byte keys (wrong: the first two swapped) for point. */
static void queue_sorted(tune_checker *k, size_t point, size_t n, int wrong)
{
    void *buf;
    tune_check_slot *s = tune_checker_take(k, n * 4, &buf);
    ck_assert_ptr_nonnull(s);
    uint32_t *keys = buf;
    for (size_t i = 0; i < n; i++)
        keys[i] = (uint32_t)i;
    if (wrong && n >= 2) {
        keys[0] = 1;
        keys[1] = 0;
    }
    tune_config c = {MJ_MERGESORT, 4, 0};
    tune_check_data d = {.n = n, .sum = tune_key_sum(buf, 4, n), .out = buf};
    tune_checker_submit(k, s, point, &c, &d);
}

START_TEST(checker_order)
{
    verdicts v = {.count = 0};
    pthread_mutex_init(&v.lock, NULL);
    tune_checker *k = tune_checker_start(3, 4, note_verdict, &v);
    ck_assert_ptr_nonnull(k);
    /* A long check first, short ones behind it: the verdicts still come in queue order. More
     * checks than slots: take waits for a slot to come back. */
    queue_sorted(k, 40, (size_t)1 << 22, 0);
    for (size_t p = 0; p < 20; p++)
        queue_sorted(k, p, 100 + p, p == 7);
    /* A slot taken and handed back unqueued gets no verdict. */
    void *buf;
    tune_check_slot *s = tune_checker_take(k, 16, &buf);
    ck_assert_ptr_nonnull(s);
    tune_checker_give_back(k, s);
    tune_checker_drain(k);
    pthread_mutex_lock(&v.lock);
    ck_assert_uint_eq(v.count, 21);
    ck_assert_uint_eq(v.points[0], 40);
    ck_assert_ptr_null(v.bad[0]);
    for (size_t p = 0; p < 20; p++) {
        ck_assert_uint_eq(v.points[p + 1], p);
        expect(v.bad[p + 1], p == 7 ? "the result is out of order" : NULL);
    }
    pthread_mutex_unlock(&v.lock);
    double checking, waited;
    tune_checker_times(k, &checking, &waited);
    ck_assert(checking > 0);
    ck_assert(waited >= 0);
    /* Draining again, and after nothing more: no wait for verdicts that will not come. */
    tune_checker_drain(k);
    queue_sorted(k, 50, 10, 1);
    tune_checker_stop(k); /* drains first */
    ck_assert_uint_eq(v.count, 22);
    ck_assert_uint_eq(v.points[21], 50);
    pthread_mutex_destroy(&v.lock);
    tune_checker_stop(NULL);
}
END_TEST

START_TEST(checker_arguments)
{
    verdicts v;
    ck_assert_ptr_null(tune_checker_start(0, 1, note_verdict, &v));
    ck_assert_ptr_null(tune_checker_start(1, 0, note_verdict, &v));
    ck_assert_ptr_null(tune_checker_start(1, 1, NULL, &v));
    /* One thread, one slot: each take waits for the verdict before it. */
    pthread_mutex_init(&v.lock, NULL);
    v.count = 0;
    tune_checker *k = tune_checker_start(1, 1, note_verdict, &v);
    ck_assert_ptr_nonnull(k);
    for (size_t p = 0; p < 5; p++)
        queue_sorted(k, p, 1000, 0);
    tune_checker_stop(k);
    ck_assert_uint_eq(v.count, 5);
    for (size_t p = 0; p < 5; p++)
        ck_assert_uint_eq(v.points[p], p);
    pthread_mutex_destroy(&v.lock);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tune_checks");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, key_words_and_sum);
    tcase_add_test(tc, output_sizes);
    tcase_add_test(tc, sorted_outputs);
    tcase_add_test(tc, segmented_outputs);
    tcase_add_test(tc, sums);
    tcase_add_test(tc, segment_sums);
    tcase_add_test(tc, run_sums);
    tcase_add_test(tc, search);
    tcase_add_test(tc, set_union);
    tcase_add_test(tc, selection);
    tcase_add_test(tc, join);
    tcase_add_test(tc, bulk);
    tcase_add_test(tc, load_balance);
    tcase_add_test(tc, checker_order);
    tcase_add_test(tc, checker_arguments);
    suite_add_tcase(s, tc);
    return mjt_run(s, 1);
}
