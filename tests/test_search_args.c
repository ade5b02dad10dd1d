/* SPDX-License-Identifier: Apache-2.0 */
/* Sorted search without a GPU: the generator's checks (no values, a comparator for custom keys,
 * no blocksort, shared memory), the request key (order and less are part of it), the API's
 * argument checks in a compile-only context, which all come before the missing device is
 * noticed, and deployment: bundles, tuning-file records, MERGEJIT_TILE and mj_tile_check. CPU
 * (and NVRTC for the sorters). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_support.h"
#include "test_support.h"

START_TEST(spec_checks)
{
    mj_kernel_spec s = primitive_spec(MJ_SORTED_SEARCH, MJ_KEY_U32, 4, 128, 11);
    refused(&s, "value_size", "search with values");
    refuses_merge_path_specs(MJ_SORTED_SEARCH, MJ_KEY_U64);
    /* The source holds the search, the merge partitions and the comparator. */
    s = custom_spec();
    s.primitive = MJ_SORTED_SEARCH;
    char *src = generated(&s);
    ck_assert_ptr_nonnull(strstr(src, "mj_search_tiles("));
    ck_assert_ptr_nonnull(strstr(src, "mj_merge_partition("));
    ck_assert_ptr_nonnull(strstr(src, custom_less));
    free(src);
    /* The default tiles fit. */
    static const size_t no_values[] = {0};
    default_tiles_fit(MJ_SORTED_SEARCH, no_values, 1);
}
END_TEST

/* Order and less reach the spec (unlike lbs): descending is another kernel. */
START_TEST(request_key)
{
    check_request_key(MJ_SORTED_SEARCH, MJ_KEY_F32, 0, MJ_MERGE, 0);
}
END_TEST

START_TEST(api_arguments)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *search = NULL, *merge = NULL, *bad = NULL;
    d.primitive = MJ_SORTED_SEARCH;
    d.value_size = 4;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "value_size",
               "search with values");
    d.value_size = 0;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &search), MJ_OK);
    d.primitive = MJ_MERGE;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &merge), MJ_OK);

    /* Temp: one 8-byte partition entry per tile of a_count + b_count, and one more. */
    size_t nv = chosen_tile(ctx, search, MJ_SORTED_SEARCH, 4, 0), bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(search, 0, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 8);
    ck_assert_int_eq(mj_sorter_temp_size(search, 10 * nv + 1, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 12 * 8);
    mjt_expect(ctx, mj_sorter_temp_size(search, SIZE_MAX, 0, &bytes), MJ_ERR_TOO_LARGE, NULL,
               "search temp of SIZE_MAX");

    char *fake = (char *)(uintptr_t)0x100000, *b = fake + (1 << 20);
    char *o1 = fake + (2 << 20), *o2 = fake + (3 << 20), *o3 = fake + (4 << 20);
    mj_search_outputs out = {MJ_BOUND_LOWER, 4, o1, NULL, NULL, NULL, NULL, NULL};
    mj_search_outputs o = out;
    /* Wrong sorters, no sorter, no outputs. */
    mjt_expect(ctx, mj_sorter_sorted_search(merge, fake, 10, b, 10, &out, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "merge", "search with a merge sorter");
    mjt_expect(ctx, mj_sorter_sort(search, fake, NULL, 10, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "search", "sort with a search sorter");
    ck_assert_int_eq(mj_sorter_sorted_search(NULL, fake, 10, b, 10, &out, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 10, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out is NULL", "no outputs struct");
    o.a_indices = NULL;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 10, &o, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "every output", "every output NULL");
    o = out;
    o.bound = (mj_bound)2;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 10, &o, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "bound", "an unknown bound");
    o = out;
    o.index_size = 2;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 10, &o, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "4 or 8", "2-byte indices");
    /* NULL inputs with keys in them. */
    mjt_expect(ctx, mj_sorter_sorted_search(search, NULL, 10, b, 10, &out, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "a is NULL", "NULL a");
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, NULL, 10, &out, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "b is NULL", "NULL b");
    /* Counts: overflow, 4-byte indices, bytes. */
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, SIZE_MAX, b, 1, &out, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "overflows", "a_count + b_count overflowing");
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 1ull << 32, b, 10, &out, NULL, 0,
                                            NULL),
               MJ_ERR_TOO_LARGE, "index_size 8", "2^32 keys with 4-byte indices");
    o = out;
    o.a_indices = NULL;
    o.b_indices = o1;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 1ull << 32, &o, NULL, 0,
                                            NULL),
               MJ_ERR_TOO_LARGE, "index_size 8", "2^32 b keys with 4-byte b_indices");
    o = out;
    o.a_indices = NULL;
    o.a_counts = o1;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 1ull << 32, b, 1, &o, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "index_size 8", "2^32 keys with 4-byte a_counts");
    o = out;
    o.index_size = 8;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 1ull << 62, b, 1, &o, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "memory", "2^62 keys");
    /* Overlaps: outputs with inputs and with one another. */
    o = out;
    o.a_indices = fake + 36;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 10, &o, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "a_indices overlaps a", "a_indices over a");
    o = out;
    o.b_matches = b + 9;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 10, &o, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "b_matches overlaps b", "b_matches over b");
    o = out;
    o.a_counts = o1 + 4;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 10, &o, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "a_counts overlaps a_indices", "a_counts over a_indices");
    o = out;
    o.a_matches = o2;
    o.b_matches = o2 + 9;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 10, &o, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "b_matches overlaps a_matches", "b over a matches");
    o = out;
    o.b_indices = o2;
    o.match_counts = o2 + 32;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 10, &o, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "match_counts overlaps b_indices",
               "match_counts in b_indices");
    o = out;
    o.match_counts = fake + 24;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 10, &o, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "match_counts overlaps a", "match_counts in a");
    /* Adjacent arrays do not overlap; an empty side's outputs take no room. */
    o = out;
    o.a_counts = o1 + 40;
    o.a_matches = o1 + 80;
    o.b_indices = o1 + 90;
    o.b_matches = o1 + 130;
    o.match_counts = o1 + 144;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 10, &o, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "adjacent outputs");
    o = out;
    o.b_indices = fake;
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 0, &o, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "outputs of an empty b");
    /* Temp. */
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 10, &out, o3, 1, NULL),
               MJ_ERR_INVALID_ARGUMENT, "too small", "temp too small");
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 10, b, 10, &out, o3 + 8, 1 << 20,
                                            NULL),
               MJ_ERR_INVALID_ARGUMENT, "aligned", "misaligned temp");
    /* Nothing to search, and valid calls, reach the missing device. */
    mjt_expect(ctx, mj_sorter_sorted_search(search, NULL, 0, NULL, 0, &out, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "nothing");
    /* 2^32 keys (16 GiB, far from the other arrays) need no 8-byte indices for matches. */
    char *big = (char *)(uintptr_t)(1ull << 44);
    o = out;
    o.a_indices = NULL;
    o.a_matches = big + (1ull << 35);
    mjt_expect(ctx, mj_sorter_sorted_search(search, big, 1ull << 32, b, 10, &o, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "2^32 keys, matches only");
    o = (mj_search_outputs){MJ_BOUND_UPPER, 8, o1, o2, o3, b + (1 << 19), b + (3 << 18),
                            b + (7 << 17)};
    mjt_expect(ctx, mj_sorter_sorted_search(search, fake, 1000, b, 1000, &o, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "every output");
    /* The one-call function. */
    mj_sort_desc_init(&d, MJ_KEY_I64, MJ_DESCENDING);
    mjt_expect(ctx, mj_sorted_search(ctx, &d, fake, 10, b, 10, &out, NULL), MJ_ERR_UNSUPPORTED,
               "compile-only", "mj_sorted_search");
    mjt_expect(ctx, mj_sorted_search(ctx, &d, fake, 10, b, 10, NULL, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out is NULL", "mj_sorted_search without outputs");
    mj_sorter_destroy(search);
    mj_sorter_destroy(merge);
    scratch_close(ctx, dir);
}
END_TEST

/* A bundle of u32 ascending and a custom struct serves them and nothing else. */
START_TEST(bundle)
{
    char *dir = mjt_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/search.mjb", dir);
    mj_sort_desc d[2] = {primitive_desc(MJ_SORTED_SEARCH, MJ_KEY_U32, 0),
                         pair128_desc(MJ_SORTED_SEARCH)};
    write_bundle(dir, path, d, 2, 2);
    mj_context *ctx = mjt_deploy_context(90, dir, path, "");
    expect_source(ctx, &d[0], 3);
    expect_source(ctx, &d[1], 3);
    d[0].order = MJ_DESCENDING;
    expect_not_in_bundle(ctx, &d[0], NULL, "descending search");
    scratch_close(ctx, dir);
}
END_TEST

START_TEST(tiles)
{
    tile_limits((mj_tile){MJ_SORTED_SEARCH, 4, 0, 128, 11, 128, 0, 0, 0},
                (mj_tile){MJ_SORTED_SEARCH, 8, 0, 1024, 63, 1024, 0, 0, 0});

    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_deploy_context(90, dir, "", "");
    mj_tile def;
    ck_assert_int_eq(mj_context_tile(ctx, MJ_SORTED_SEARCH, 16, 0, &def), MJ_OK);
    ck_assert_int_eq(def.nt, def.bs_nt);
    ck_assert_int_eq(def.vt, 7);
    ck_assert_int_eq(def.tuned, 0);
    mj_tile rec[1] = {{MJ_SORTED_SEARCH, 4, 0, 256, 15, 256, 30, 0, 0}};
    ctx = retune(ctx, dir, rec, 1, "");
    mj_sort_desc d = primitive_desc(MJ_SORTED_SEARCH, MJ_KEY_F32, 0);
    expect_tile(ctx, &d, 256, 15);
    expect_env_tile(ctx, &d, 64, 5);
    scratch_close(ctx, dir);
}
END_TEST

static Suite *search_args_suite(void) {
    Suite *s = suite_create("search_args");
    TCase *tg = tcase_create("gen");
    tcase_add_test(tg, spec_checks);
    tcase_add_test(tg, request_key);
    suite_add_tcase(s, tg);
    TCase *ta = tcase_create("api");
    tcase_set_timeout(ta, 300);
    tcase_add_test(ta, api_arguments);
    tcase_add_test(ta, bundle);
    tcase_add_test(ta, tiles);
    suite_add_tcase(s, ta);
    return s;
}

int main(void) { return mjt_run(search_args_suite(), 1); }
