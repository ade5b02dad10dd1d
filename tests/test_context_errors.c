/* SPDX-License-Identifier: Apache-2.0 */
/* What contexts refuse without a GPU: the clean "no driver" path, sorting in a compile-only
 * context, each run function given another primitive's sorter or bad arguments, invalid
 * descriptors and comparators, and a machine without NVRTC.
 *
 * Tests that set MERGEJIT_LIBCUDA or MERGEJIT_LIBNVRTC rely on running in their own process
 * (the libraries are opened once per process), so main always forks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context_support.h"
#include "primitives/mergesort.h"
#include "test_support.h"

#define NO_LIB "/nonexistent/mergejit-test/libmissing.so.1"

/* ---------------------------------------------------------------- no driver */

START_TEST(no_driver)
{
    /* Before anything loads the driver: this test runs in its own process. */
    ck_assert_int_eq(setenv("MERGEJIT_LIBCUDA", NO_LIB, 1), 0);
    mj_context *ctx = NULL;
    mj_status st = mj_context_create(NULL, &ctx);
    ck_assert_msg(st == MJ_ERR_NO_DRIVER, "got %s", mj_status_name(st));
    ck_assert_ptr_nonnull(ctx);
    const char *msg = mj_context_last_error(ctx);
    ck_assert_msg(strstr(msg, NO_LIB) != NULL, "the message does not name the library: %s",
                  msg);
    ck_assert_str_eq(mj_context_device_name(ctx), "");
    mj_context_destroy(ctx);
    ck_assert_int_eq(mj_driver_version(), 0);

    /* Options given explicitly: the same. */
    mj_context_options o;
    mj_context_options_init(&o);
    ck_assert_int_eq(o.target_sm, 90);
    ck_assert_int_eq(o.device, 0);
    o.flags = MJ_CONTEXT_NO_DISK_CACHE;
    ctx = NULL;
    ck_assert_int_eq(mj_context_create(&o, &ctx), MJ_ERR_NO_DRIVER);
    ck_assert_ptr_nonnull(ctx);
    ck_assert_str_ne(mj_context_last_error(ctx), "");
    mj_context_destroy(ctx);

    ck_assert_int_eq(mj_context_create(NULL, NULL), MJ_ERR_INVALID_ARGUMENT);
    mj_context_destroy(NULL);
    ck_assert_str_ne(mj_context_last_error(NULL), "");
}
END_TEST

/* ---------------------------------------------------------------- errors */

START_TEST(compile_only_cannot_sort)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc desc = u32_desc();
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &desc, &s), MJ_OK);
    size_t temp = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, 1000, 0, &temp), MJ_OK);
    ck_assert_uint_ge(temp, 1000 * 4);
    void *fake = (void *)(uintptr_t)0x100000;
    mj_status st = mj_sorter_sort(s, fake, NULL, 1000, NULL, 0, NULL);
    ck_assert_msg(st == MJ_ERR_UNSUPPORTED, "got %s", mj_status_name(st));
    ck_assert_str_ne(mj_context_last_error(ctx), "");
    ck_assert_msg(strstr(mj_context_last_error(ctx), "compile-only") != NULL, "message: %s",
                  mj_context_last_error(ctx));
    mj_sorter_destroy(s);

    desc.value_size = 4;
    ck_assert_int_eq(mj_sorter_create(ctx, &desc, &s), MJ_OK);
    st = mj_sorter_sort_indices(s, fake, fake, 1000, NULL, 0, NULL);
    ck_assert_msg(st == MJ_ERR_UNSUPPORTED, "got %s", mj_status_name(st));
    mj_sorter_destroy(s);

    st = mj_sort_keys(ctx, &desc, fake, 1000, NULL);
    ck_assert_msg(st == MJ_ERR_UNSUPPORTED, "mj_sort_keys: got %s", mj_status_name(st));
    ck_assert_str_ne(mj_context_last_error(ctx), "");

    /* The one-call functions take n before the description's sizes, last before the stream:
     * each call below fails another way with the two swapped (a value or index size of 1000,
     * or n 0 and nothing to do). */
    mjt_expect(ctx, mj_sort_pairs(ctx, &desc, fake, fake, 1000, 4, NULL), MJ_ERR_UNSUPPORTED,
               "compile-only", "mj_sort_pairs");
    mjt_expect(ctx, mj_sort_pairs(ctx, &desc, fake, fake, 1000, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "value_size > 0", "mj_sort_pairs, value_size 0");
    mjt_expect(ctx, mj_sort_indices(ctx, &desc, fake, fake, 1000, 4, NULL), MJ_ERR_UNSUPPORTED,
               "compile-only", "mj_sort_indices");
    mj_segments heads = {MJ_SEGMENTS_HEADS, fake, 10, 4};
    mjt_expect(ctx, mj_segmented_sort_pairs(ctx, &desc, fake, fake, 1000, &heads, 4, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "mj_segmented_sort_pairs");
    mjt_expect(ctx, mj_segmented_sort_pairs(ctx, &desc, fake, fake, 1000, &heads, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "value_size > 0", "mj_segmented_sort_pairs, 0");
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* Sorters for desc built with the environment variable `name` at each of three values all
 * build and ask the same temporary storage for 10^8 elements. */
static void same_temp_each(mj_context *ctx, const mj_sort_desc *desc, const char *name,
                           const char *const values[3]) {
    size_t n = 100000000, temp[3];
    for (int i = 0; i < 3; ++i) {
        ck_assert_int_eq(setenv(name, values[i], 1), 0);
        mj_sorter *s = NULL;
        ck_assert_int_eq(mj_sorter_create(ctx, desc, &s), MJ_OK);
        ck_assert_int_eq(mj_sorter_temp_size(s, n, 0, &temp[i]), MJ_OK);
        mj_sorter_destroy(s);
    }
    ck_assert_uint_eq(temp[1], temp[0]);
    ck_assert_uint_eq(temp[2], temp[0]);
}

/* MERGEJIT_MERGE_WAYS, read as a mergesort sorter is created: 2, 4 or unset (passes chosen by
 * size; the same kernels and temporary storage either way); anything else refuses to build,
 * naming the variable. Other primitives do not read it. */
START_TEST(merge_ways_switch)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc desc = u32_desc();
    static const char *const ways[3] = {"4", "2", ""};
    same_temp_each(ctx, &desc, "MERGEJIT_MERGE_WAYS", ways);

    ck_assert_int_eq(setenv("MERGEJIT_MERGE_WAYS", "3", 1), 0);
    mj_sorter *s = (mj_sorter *)&desc;
    mjt_expect(ctx, mj_sorter_create(ctx, &desc, &s), MJ_ERR_INVALID_ARGUMENT,
               "MERGEJIT_MERGE_WAYS", "3 ways");
    ck_assert_ptr_null(s);
    desc.primitive = MJ_SEGMENTED_SORT;
    ck_assert_int_eq(mj_sorter_create(ctx, &desc, &s), MJ_OK);
    mj_sorter_destroy(s);
    unsetenv("MERGEJIT_MERGE_WAYS");
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* MERGEJIT_FUSED_PARTITION, MERGEJIT_PDL and MERGEJIT_SERPENTINE, read as a mergesort sorter
 * is created: 1, 0 or unset (the same kernels and temporary storage either way); anything else
 * refuses to build, naming the variable; other primitives do not read them. */
START_TEST(schedule_switches)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    static const char *const names[] = {"MERGEJIT_FUSED_PARTITION", "MERGEJIT_PDL",
                                        "MERGEJIT_SERPENTINE"};
    static const char *const good[] = {"1", "0", ""};
    static const char *const bad[] = {"2", "10", "on", "-1"};
    for (int v = 0; v < 3; ++v) {
        mj_sort_desc desc = u32_desc();
        same_temp_each(ctx, &desc, names[v], good);
        for (size_t b = 0; b < sizeof bad / sizeof *bad; ++b) {
            ck_assert_int_eq(setenv(names[v], bad[b], 1), 0);
            mj_sorter *s = (mj_sorter *)&desc;
            mjt_expect(ctx, mj_sorter_create(ctx, &desc, &s), MJ_ERR_INVALID_ARGUMENT, names[v],
                       bad[b]);
            ck_assert_ptr_null(s);
        }
        desc.primitive = MJ_SEGMENTED_SORT;
        mj_sorter *s = NULL;
        ck_assert_int_eq(mj_sorter_create(ctx, &desc, &s), MJ_OK);
        mj_sorter_destroy(s);
        unsetenv(names[v]);
    }
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* MERGEJIT_PDL unset: overlapped launches for sorters of 4-byte elements (key and value
 * together) and plain ones for the rest, as mergesort.c measured; set, whatever the element. */
START_TEST(pdl_default_by_element)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    static const size_t bytes[] = {1, 2, 3, 4, 5, 8, 12, 16, 68};
    int ways, fused, pdl, serpentine;
    unsetenv("MERGEJIT_PDL");
    for (size_t i = 0; i < sizeof bytes / sizeof *bytes; ++i) {
        pdl = -1;
        ck_assert_int_eq(mj__mergesort_env(ctx, bytes[i], &ways, &fused, &pdl, &serpentine),
                         MJ_OK);
        ck_assert_msg(pdl == (bytes[i] == 4), "%zu-byte elements: PDL %d", bytes[i], pdl);
    }
    ck_assert_int_eq(setenv("MERGEJIT_PDL", "0", 1), 0);
    ck_assert_int_eq(mj__mergesort_env(ctx, 4, &ways, &fused, &pdl, &serpentine), MJ_OK);
    ck_assert_int_eq(pdl, 0);
    ck_assert_int_eq(setenv("MERGEJIT_PDL", "1", 1), 0);
    ck_assert_int_eq(mj__mergesort_env(ctx, 8, &ways, &fused, &pdl, &serpentine), MJ_OK);
    ck_assert_int_eq(pdl, 1);
    unsetenv("MERGEJIT_PDL");
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* Sorters of the other primitives build without a GPU; each run function takes only its own
 * primitive, and the merge and segment arguments are checked before anything else. */
START_TEST(primitives_without_gpu)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    void *fake = (void *)(uintptr_t)0x100000;
    mj_sorter *s[MJ_PRIMITIVE_COUNT] = {0};
    for (int p = 0; p < MJ_PRIMITIVE_COUNT; ++p) {
        mj_sort_desc desc = u32_desc();
        desc.primitive = (mj_primitive)p;
        if (p == MJ_REDUCE_BY_KEY) {
            desc.value_size = 4;
            desc.value_type = "float";
        }
        if (p == MJ_LOAD_BALANCE || p == MJ_INTERVAL_EXPAND || p == MJ_INTERVAL_MOVE)
            desc.key = MJ_KEY_I32;
        if (p == MJ_INTERVAL_EXPAND || p == MJ_INTERVAL_MOVE) desc.value_size = 4;
        mj_status st = mj_sorter_create(ctx, &desc, &s[p]);
        ck_assert_msg(st == MJ_OK, "%s: %s: %s", mj_primitive_name((mj_primitive)p),
                      mj_status_name(st), mj_context_last_error(ctx));
        size_t temp = 0;
        ck_assert_int_eq(mj_sorter_temp_size(s[p], 100000, 0, &temp), MJ_OK);
        ck_assert_uint_gt(temp, 0);
    }
    mj_segments segs = {MJ_SEGMENTS_HEADS, fake, 10, 4};
    /* Each run function refuses the other primitives' sorters, naming the primitive. */
    mjt_expect(ctx, mj_sorter_sort(s[MJ_MERGE], fake, NULL, 10, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "merge", "sort with a merge sorter");
    mjt_expect(ctx, mj_sorter_sort(s[MJ_SEGMENTED_SORT], fake, NULL, 10, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "segsort", "sort with a segsort sorter");
    mjt_expect(ctx, mj_sorter_sort_indices(s[MJ_LOCALITY_SORT], fake, fake, 10, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "locality", "indices with a locality sorter");
    mjt_expect(ctx, mj_sorter_merge(s[MJ_MERGESORT], fake, NULL, 5, fake, NULL, 5, fake, NULL,
                                    NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "mergesort", "merge with a mergesort sorter");
    mj_search_outputs so = {MJ_BOUND_LOWER, 4, fake, NULL, NULL, NULL, NULL, NULL};
    mjt_expect(ctx, mj_sorter_sorted_search(s[MJ_MERGE], fake, 5, fake, 5, &so, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "merge", "sorted search with a merge sorter");
    mjt_expect(ctx, mj_sorter_merge(s[MJ_SORTED_SEARCH], fake, NULL, 5, fake, NULL, 5, fake,
                                    NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "search", "merge with a search sorter");
    mjt_expect(ctx, mj_sorter_segmented_sort(s[MJ_MERGE], fake, NULL, 10, &segs, NULL, 0,
                                             NULL),
               MJ_ERR_INVALID_ARGUMENT, "merge", "segmented sort with a merge sorter");
    mjt_expect(ctx, mj_sorter_bulk_remove(s[MJ_BULK_INSERT], fake, NULL, 10, fake, 1, 4, fake,
                                          NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "insert", "bulk remove with an insert sorter");
    mjt_expect(ctx, mj_sorter_bulk_insert(s[MJ_BULK_REMOVE], fake, NULL, fake, 1, 4, fake, NULL,
                                          10, fake, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "remove", "bulk insert with a remove sorter");
    mjt_expect(ctx, mj_sorter_interval_move(s[MJ_INTERVAL_EXPAND], fake, 10, 100, NULL, NULL,
                                            fake, 100, fake, 100, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "expand", "move with an expand sorter");
    mjt_expect(ctx, mj_sorter_interval_expand(s[MJ_INTERVAL_MOVE], fake, 10, 100, fake, fake,
                                              NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "move", "expand with a move sorter");
    mjt_expect(ctx, mj_sorter_join_count(s[MJ_SORTED_SEARCH], MJ_JOIN_INNER, fake, 5, fake, 5,
                                         fake, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "search", "join count with a search sorter");
    mjt_expect(ctx, mj_sorter_join(s[MJ_MERGE], MJ_JOIN_INNER, fake, 5, fake, 5, 4, fake, fake,
                                   5, fake, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "merge", "join with a merge sorter");
    mjt_expect(ctx, mj_sorter_sorted_search(s[MJ_JOIN], fake, 5, fake, 5, &so, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "join", "sorted search with a join sorter");
    mjt_expect(ctx, mj_sorter_set_op(s[MJ_MERGE], MJ_SET_UNION, fake, NULL, 5, fake, NULL, 5,
                                     fake, NULL, fake, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "merge", "set op with a merge sorter");
    mjt_expect(ctx, mj_sorter_merge(s[MJ_SET_OPS], fake, NULL, 5, fake, NULL, 5, fake, NULL,
                                    NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "setops", "merge with a setops sorter");
    mj_segments offs = {MJ_SEGMENTS_OFFSETS, fake, 3, 4};
    mjt_expect(ctx, mj_sorter_segmented_reduce(s[MJ_REDUCE], fake, 10, &offs, fake, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "reduce", "segmented reduce with a reduce sorter");
    mjt_expect(ctx, mj_sorter_reduce(s[MJ_SEGMENTED_REDUCE], fake, 10, fake, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "segreduce", "reduce with a segreduce sorter");
    mjt_expect(ctx, mj_sorter_reduce_by_key(s[MJ_SET_OPS], fake, fake, 5, fake, fake, fake, NULL,
                                            0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "setops", "reduce by key with a setops sorter");
    mjt_expect(ctx, mj_sorter_scan(s[MJ_REDUCE_BY_KEY], fake, 5, fake, MJ_SCAN_INCLUSIVE, NULL,
                                   NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "reducebykey", "scan with a reduce-by-key sorter");
    /* Argument checks come before the missing device. */
    mjt_expect(ctx, mj_sorter_merge(s[MJ_MERGE], fake, NULL, SIZE_MAX, fake, NULL, 1, fake,
                                    NULL, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, NULL, "a_count + b_count overflowing");
    mjt_expect(ctx, mj_sorter_merge(s[MJ_MERGE], fake, fake, 5, fake, fake, 5, fake, fake,
                                    NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "value_size 0", "values to a keys-only merge");
    mjt_expect(ctx, mj_sorter_segmented_sort(s[MJ_SEGMENTED_SORT], fake, NULL, 10, NULL,
                                             NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "segments", "no segments");
    mj_segments bad = segs;
    bad.index_size = 2;
    mjt_expect(ctx, mj_sorter_segmented_sort(s[MJ_SEGMENTED_SORT], fake, NULL, 10, &bad, NULL,
                                             0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "4 or 8", "2-byte indices");
    bad = segs;
    bad.kind = (mj_segments_kind)7;
    mjt_expect(ctx, mj_sorter_segmented_sort(s[MJ_SEGMENTED_SORT], fake, NULL, 10, &bad, NULL,
                                             0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "kind", "unknown kind");
    bad = segs;
    bad.data = NULL;
    mjt_expect(ctx, mj_sorter_segmented_sort(s[MJ_SEGMENTED_SORT], fake, NULL, 10, &bad, NULL,
                                             0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "NULL", "NULL segment data");
    mjt_expect(ctx, mj_sorter_segmented_sort(s[MJ_SEGMENTED_SORT], fake, NULL, 10, &segs,
                                             NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "a valid call without a device");
    mjt_expect(ctx, mj_sorter_sort(s[MJ_LOCALITY_SORT], fake, NULL, 10, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "locality sort without a device");
    /* A CUB-style first call (NULL temp, a size) is refused, not run: every run checks its
     * temp the same way (mj__run_check_temp). */
    mjt_expect(ctx, mj_sorter_sort(s[MJ_LOCALITY_SORT], fake, NULL, 10, NULL, 4096, NULL),
               MJ_ERR_INVALID_ARGUMENT, "not a size query", "a NULL temp with a size");
    mjt_expect(ctx, mj_sorter_segmented_sort(s[MJ_SEGMENTED_SORT], fake, NULL, 10, &segs,
                                             NULL, 1, NULL),
               MJ_ERR_INVALID_ARGUMENT, "mj_sorter_temp_size gives the size",
               "a NULL temp with a size, segmented");
    mj_sort_desc desc = u32_desc();
    mjt_expect(ctx, mj_merge_pairs(ctx, &desc, fake, fake, 5, fake, fake, 5, fake, fake, 0,
                                   NULL),
               MJ_ERR_INVALID_ARGUMENT, "value_size", "mj_merge_pairs without values");
    mjt_expect(ctx, mj_segmented_sort_keys(ctx, &desc, fake, 10, &segs, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "mj_segmented_sort_keys");
    desc.primitive = MJ_MERGE;
    mjt_expect(ctx, mj_sort_keys(ctx, &desc, fake, 10, NULL), MJ_ERR_INVALID_ARGUMENT,
               "merge", "mj_sort_keys with the merge primitive");
    desc.primitive = (mj_primitive)99;
    mj_sorter *none = NULL;
    mjt_expect(ctx, mj_sorter_create(ctx, &desc, &none), MJ_ERR_INVALID_ARGUMENT,
               "primitive", "an unknown primitive");
    for (int p = 0; p < MJ_PRIMITIVE_COUNT; ++p) mj_sorter_destroy(s[p]);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* mj_sorter_create(desc) must fail with `want` and a message holding `needle` (may be NULL). */
static void create_fails(mj_context *ctx, const mj_sort_desc *desc, mj_status want,
                         const char *needle, const char *what) {
    mj_sorter *s = (mj_sorter *)1;
    mjt_expect(ctx, mj_sorter_create(ctx, desc, &s), want, needle, what);
    ck_assert_msg(s == NULL, "%s: *out is not NULL after a failure", what);
}

START_TEST(invalid_descriptors)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc d = u32_desc();
    d.value_size = 65;
    create_fails(ctx, &d, MJ_ERR_INVALID_ARGUMENT, "65", "value_size 65");

    mj_sort_desc_init(&d, MJ_KEY_CUSTOM, MJ_ASCENDING);
    d.type_name = "rec";
    d.type_source = "struct rec { int a, b; };";
    d.type_size = 8;
    d.type_align = 4;
    create_fails(ctx, &d, MJ_ERR_INVALID_ARGUMENT, "less", "custom without less");
    d.less = "a.a < b.a";
    d.type_source = NULL;
    create_fails(ctx, &d, MJ_ERR_INVALID_ARGUMENT, NULL, "custom without type_source");

    d = u32_desc();
    d.key = MJ_KEY_KIND_COUNT;
    create_fails(ctx, &d, MJ_ERR_INVALID_ARGUMENT, NULL, "unknown key kind");
    d = u32_desc();
    d.less = "a < b; }";
    create_fails(ctx, &d, MJ_ERR_INVALID_ARGUMENT, NULL, "comparator with ';'");

    d = u32_desc();
    d.less = "a < < b";
    create_fails(ctx, &d, MJ_ERR_COMPILE, "comparator", "comparator syntax error");

    /* The custom type works once it is complete, and the context is still usable. */
    mj_sort_desc_init(&d, MJ_KEY_CUSTOM, MJ_ASCENDING);
    d.type_name = "rec";
    d.type_source = "struct rec { int a, b; };";
    d.type_size = 8;
    d.type_align = 4;
    d.less = "a.a < b.a || (a.a == b.a && a.b < b.b)";
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, &d, &s);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    mj_sorter_destroy(s);

    mj_sorter *out = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, NULL, &out), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_sorter_create(NULL, &d, &out), MJ_ERR_INVALID_ARGUMENT);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(no_compiler)
{
    ck_assert_int_eq(setenv("MERGEJIT_LIBNVRTC", NO_LIB, 1), 0);
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc d = u32_desc();
    create_fails(ctx, &d, MJ_ERR_NO_COMPILER, NO_LIB, "no NVRTC");
    ck_assert_int_eq(mj_nvrtc_version(), 0);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

static Suite *context_errors_suite(void) {
    Suite *s = suite_create("context_errors");
    TCase *tc = tcase_create("context");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, no_driver);
    tcase_add_test(tc, compile_only_cannot_sort);
    tcase_add_test(tc, merge_ways_switch);
    tcase_add_test(tc, schedule_switches);
    tcase_add_test(tc, pdl_default_by_element);
    tcase_add_test(tc, primitives_without_gpu);
    tcase_add_test(tc, invalid_descriptors);
    tcase_add_test(tc, no_compiler);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_forked(context_errors_suite()); }
