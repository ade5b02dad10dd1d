/* SPDX-License-Identifier: Apache-2.0 */
/* Load-balancing search and interval expand on the GPU against a CPU reference: one object
 * owning every item (the others empty), long runs of empty objects, all counts 1, random
 * counts; sizes 0, 1, the tile edges, many tiles and 10^7 (not with MJ_TEST_SMALL); i32 and
 * i64 offsets; ranks and no ranks; expand of 1-, 4-, 8-, 12- and 64-byte values; a caller's
 * temporary buffer reused across runs of other sizes; a stream that is not the default one;
 * the one-call functions. Skips (exit 77) where there is no GPU. MJ_TEST_SMALL=1 runs smaller
 * sizes (for compute-sanitizer). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "gpu_primitives_support.h"
#include "gpu_lbs_support.h"
#include "test_support.h"

static mj_sorter *make(mj_primitive p, mj_key_kind key, size_t value_size) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, key, MJ_ASCENDING);
    d.primitive = p;
    d.value_size = value_size;
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, &d, &s);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    return s;
}

typedef struct run_opts {
    void *temp;
    size_t temp_bytes;
    void *stream;
} run_opts;

/* One lbs (value_size 0) or expand run of a pattern, checked item by item. */
static void check(mj_sorter *s, size_t ks, pattern p, size_t items, int ranks, size_t vs,
                  const run_opts *o, uint64_t seed) {
    size_t objects;
    int64_t *off = make_offsets(p, items, &objects, seed);
    char what[160];
    snprintf(what, sizeof what, "%s of %s, %zu items, %zu objects, %zu-byte offsets, %zu-byte "
             "values%s%s%s", vs ? "expand" : "lbs", pattern_names[p], items, objects, ks, vs,
             ranks ? ", ranks" : "", o && o->temp ? ", caller's temp" : "",
             o && o->stream ? ", own stream" : "");
    say(what);
    void *d_off = dev_offsets(off, objects, ks), *d_out = dev_buffer(items * (vs ? vs : ks));
    void *d_ranks = ranks ? dev_buffer(items * ks) : NULL, *d_vals = NULL;
    unsigned char *vals = NULL;
    if (vs) {
        vals = malloc(objects * vs + 1);
        ck_assert_ptr_nonnull(vals);
        uint64_t rng = seed * 7 + 1;
        for (size_t b = 0; b < objects * vs; ++b) vals[b] = (unsigned char)mjt_rand(&rng);
        d_vals = dev_buffer(objects * vs);
        if (objects) ck_assert_int_eq(mj__dev_upload(ctx, d_vals, vals, objects * vs), MJ_OK);
    }
    void *temp = o ? o->temp : NULL, *stream = o ? o->stream : NULL;
    size_t temp_bytes = o ? o->temp_bytes : 0;
    mj_status st = vs ? mj_sorter_interval_expand(s, d_off, objects, items, d_vals, d_out, temp,
                                                  temp_bytes, stream)
                      : mj_sorter_load_balance(s, d_off, objects, items, d_out, d_ranks, temp,
                                               temp_bytes, stream);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st),
                  mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, stream), MJ_OK);
    unsigned char *got = host_copy(d_out, items * (vs ? vs : ks));
    unsigned char *got_ranks = ranks ? host_copy(d_ranks, items * ks) : NULL;
    /* One assertion a run, not one an item: each passing Check assertion writes a record, and
     * 10^7 of them a run made this test take minutes. */
    size_t i = 0, bad = 0, first = 0, first_obj = 0;
    for (size_t j = 0; j < objects; ++j) {
        size_t end = j + 1 < objects ? (size_t)off[j + 1] : items;
        for (; i < end; ++i) {
            int ok = vs ? memcmp(got + i * vs, vals + j * vs, vs) == 0
                        : get_key(got, ks, i) == j &&
                              (!ranks || get_key(got_ranks, ks, i) == i - (size_t)off[j]);
            if (!ok && bad++ == 0) {
                first = i;
                first_obj = j;
            }
        }
    }
    ck_assert_msg(bad == 0, "%s: %zu items wrong, the first item %zu (of object %zu): object %llu"
                  ", rank %llu", what, bad, first, first_obj,
                  vs ? 0ull : (unsigned long long)get_key(got, ks, first),
                  ranks ? (unsigned long long)get_key(got_ranks, ks, first) : 0ull);
    ck_assert_uint_eq(i, items);
    free(got);
    free(got_ranks);
    free(vals);
    free(off);
    mj__dev_free(ctx, d_off);
    mj__dev_free(ctx, d_out);
    if (d_ranks) mj__dev_free(ctx, d_ranks);
    if (d_vals) mj__dev_free(ctx, d_vals);
}

static const mj_key_kind keys[] = {MJ_KEY_I32, MJ_KEY_I64};

START_TEST(test_lbs)
{
    mj_sorter *s = make(MJ_LOAD_BALANCE, keys[_i], 0);
    size_t sizes[16], count = tile_edge_sizes(s, sizes);
    for (size_t k = 0; k < count; ++k)
        for (int p = 0; p < PATTERN_COUNT; ++p)
            check(s, mj_key_kind_size(keys[_i]), (pattern)p, sizes[k],
                  (int)(k + (size_t)p) % 2 || k + 1 == count, 0, NULL,
                  11u * k + (unsigned)p);
    mj_sorter_destroy(s);
}
END_TEST

START_TEST(test_expand)
{
    static const size_t vsizes[] = {1, 4, 8, 12, 64};
    size_t vs = vsizes[_i / 2];
    mj_sorter *s = make(MJ_INTERVAL_EXPAND, keys[_i % 2], vs);
    size_t sizes[16], count = tile_edge_sizes(s, sizes);
    for (size_t k = 0; k < count; ++k)
        for (int p = 0; p < PATTERN_COUNT; ++p) {
            /* 10^7 64-byte values are 640 MB a run: one pattern is enough. */
            if (k + 1 == count && vs == 64 && p != RANDOM) continue;
            check(s, mj_key_kind_size(keys[_i % 2]), (pattern)p, sizes[k], 0, vs, NULL,
                  13u * k + (unsigned)p);
        }
    mj_sorter_destroy(s);
}
END_TEST

/* One caller's buffer for runs of several sizes, largest first. */
START_TEST(test_reused_temp)
{
    mj_sorter *s = make(MJ_LOAD_BALANCE, MJ_KEY_I32, 0);
    size_t sizes[16], count = tile_edge_sizes(s, sizes), bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, sizes[count - 1] * 2 + 1, 0, &bytes), MJ_OK);
    run_opts o = {dev_buffer(bytes), bytes, NULL};
    for (size_t k = count; k-- > 0;) check(s, 4, RANDOM, sizes[k], 1, 0, &o, 5u + k);
    for (size_t k = 0; k < count; ++k) check(s, 4, EMPTY_RUNS, sizes[k], 1, 0, &o, 9u + k);
    mj__dev_free(ctx, o.temp);
    mj_sorter_destroy(s);
}
END_TEST

/* Streams come from the CUDA runtime, as in an application. */
START_TEST(test_own_stream)
{
    mjt_cudart rt;
    ck_assert_int_eq(mjt_cudart_load(&rt), 0);
    void *stream = NULL;
    ck_assert_int_eq(rt.stream_create(&stream), 0);
    mj_sorter *lbs = make(MJ_LOAD_BALANCE, MJ_KEY_I64, 0);
    mj_sorter *expand = make(MJ_INTERVAL_EXPAND, MJ_KEY_I32, 12);
    size_t n = small ? 100000 : 3000000;
    run_opts o = {NULL, 0, stream};
    check(lbs, 8, RANDOM, n, 1, 0, &o, 31u);
    check(expand, 4, EMPTY_RUNS, n, 0, 12, &o, 32u);
    mj_sorter_destroy(lbs);
    mj_sorter_destroy(expand);
    rt.stream_destroy(stream);
}
END_TEST

/* mj_load_balance and mj_interval_expand build their sorters and storage themselves; no
 * objects and no items is a valid call. */
START_TEST(test_one_call)
{
    size_t items = 123457, objects;
    int64_t *off = make_offsets(RANDOM, items, &objects, 3u);
    void *d_off = dev_offsets(off, objects, 8), *d_obj = dev_buffer(items * 8);
    void *d_vals = dev_buffer(objects * 8), *d_out = dev_buffer(items * 8);
    uint64_t *vals = malloc(objects * 8);
    ck_assert_ptr_nonnull(vals);
    for (size_t j = 0; j < objects; ++j) vals[j] = j * 0x9E3779B97F4A7C15ull;
    ck_assert_int_eq(mj__dev_upload(ctx, d_vals, vals, objects * 8), MJ_OK);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_I64, MJ_ASCENDING);
    ck_assert_int_eq(mj_load_balance(ctx, &d, d_off, objects, items, d_obj, NULL, NULL), MJ_OK);
    ck_assert_int_eq(mj_interval_expand(ctx, &d, d_off, objects, items, d_vals, d_out, 8, NULL),
                     MJ_OK);
    ck_assert_int_eq(mj_load_balance(ctx, &d, NULL, 0, 0, NULL, NULL, NULL), MJ_OK);
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    int64_t *got = host_copy(d_obj, items * 8);
    uint64_t *out = host_copy(d_out, items * 8);
    for (size_t j = 0, i = 0; j < objects; ++j)
        for (size_t end = j + 1 < objects ? (size_t)off[j + 1] : items; i < end; ++i) {
            ck_assert_msg(got[i] == (int64_t)j, "mj_load_balance: item %zu", i);
            ck_assert_msg(out[i] == vals[j], "mj_interval_expand: item %zu", i);
        }
    free(got);
    free(out);
    free(vals);
    free(off);
    mj__dev_free(ctx, d_off);
    mj__dev_free(ctx, d_obj);
    mj__dev_free(ctx, d_vals);
    mj__dev_free(ctx, d_out);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpu_lbs");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1800);
    tcase_add_loop_test(tc, test_lbs, 0, 2);
    tcase_add_loop_test(tc, test_expand, 0, 10);
    tcase_add_test(tc, test_reused_temp);
    tcase_add_test(tc, test_own_stream);
    tcase_add_test(tc, test_one_call);
    suite_add_tcase(s, tc);
    return run_gpu_suite("test_gpu_lbs", s);
}
