/* Sorted search without a GPU: the generator's checks (no values, a comparator for custom keys,
 * no blocksort, shared memory), the request key (order and less are part of it), the API's
 * argument checks in a compile-only context, which all come before the missing device is
 * noticed, and deployment: bundles, tuning-file records, MERGEJIT_TILE and mj_tile_check. CPU
 * (and NVRTC for the sorters). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bundle_match.h"
#include "core/tile_choice.h"
#include "gen.h"
#include "gen_support.h"
#include "test_support.h"

static mj_kernel_spec search_spec(mj_key_kind key, size_t value_size) {
    mj_kernel_spec s = builtin_spec(key, value_size);
    s.primitive = MJ_SORTED_SEARCH;
    s.nt = 128;
    s.vt = 11;
    return s;
}

static void refused(const mj_kernel_spec *s, const char *needle, const char *what) {
    char err[512] = "";
    char *src = NULL;
    size_t len = 0;
    ck_assert_msg(mj__gen_source(s, &src, &len, err, sizeof err) != 0, "%s: accepted", what);
    ck_assert_ptr_null(src);
    ck_assert_msg(strstr(err, needle) != NULL, "%s: '%s' is not in: %s", what, needle, err);
}

START_TEST(spec_checks)
{
    mj_kernel_spec s = search_spec(MJ_KEY_U32, 4);
    refused(&s, "value_size", "search with values");
    s = search_spec(MJ_KEY_U32, 0);
    s.bs_nt = 256;
    refused(&s, "blocksort", "search with a blocksort tile");
    s = search_spec(MJ_KEY_U64, 0);
    s.nt = 1024;
    s.vt = 7;
    refused(&s, "shared memory", "search with a tile over the shared memory");
    s = custom_spec();
    s.primitive = MJ_SORTED_SEARCH;
    s.less = NULL;
    refused(&s, "comparator", "custom search without less");
    s.less = "a.hi < b.hi; }";
    refused(&s, "comparator", "custom search with a statement in less");
    /* The source holds the search, the merge partitions and the comparator. */
    s = custom_spec();
    s.primitive = MJ_SORTED_SEARCH;
    char err[512] = "", *src = NULL;
    size_t len = 0;
    ck_assert_msg(mj__gen_source(&s, &src, &len, err, sizeof err) == 0, "%s", err);
    ck_assert_ptr_nonnull(strstr(src, "mj_search_tiles("));
    ck_assert_ptr_nonnull(strstr(src, "mj_merge_partition("));
    ck_assert_ptr_nonnull(strstr(src, custom_less));
    free(src);
    /* The default tiles fit. */
    static const size_t key_sizes[] = {1, 2, 4, 8, 12, 16, 32, 64, 256};
    for (size_t i = 0; i < sizeof key_sizes / sizeof *key_sizes; ++i) {
        mj_tile t = {MJ_SORTED_SEARCH, key_sizes[i], 0, 0, 0, 0, 0, 0};
        mj__default_tile(MJ_SORTED_SEARCH, 90, key_sizes[i], 0, &t.nt, &t.vt, &t.bs_nt);
        ck_assert_msg(mj_tile_check(&t, err, sizeof err) == MJ_OK, "%zu-byte keys: %s",
                      key_sizes[i], err);
    }
}
END_TEST

/* Order and less reach the spec (unlike lbs): descending is another kernel. */
START_TEST(request_key)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_F32, MJ_ASCENDING);
    d.primitive = MJ_SORTED_SEARCH;
    mj_kernel_spec a, b;
    ck_assert_int_eq(mj__spec_from_desc(ctx, &d, &a), MJ_OK);
    d.order = MJ_DESCENDING;
    ck_assert_int_eq(mj__spec_from_desc(ctx, &d, &b), MJ_OK);
    uint8_t ka[32], kb[32];
    mj__bundle_request_key(&a, ka);
    mj__bundle_request_key(&b, kb);
    ck_assert(memcmp(ka, kb, 32) != 0);
    d.order = MJ_ASCENDING;
    d.primitive = MJ_MERGE;
    ck_assert_int_eq(mj__spec_from_desc(ctx, &d, &b), MJ_OK);
    mj__bundle_request_key(&b, kb);
    ck_assert(memcmp(ka, kb, 32) != 0);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(api_arguments)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
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
    int nt, vt;
    mj_sorter_tile(search, &nt, &vt);
    mj_tile want;
    ck_assert_int_eq(mj_context_tile(ctx, MJ_SORTED_SEARCH, 4, 0, &want), MJ_OK);
    ck_assert(nt == want.nt && vt == want.vt);
    size_t nv = (size_t)nt * (size_t)vt, bytes = 0;
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
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* A bundle of u32 ascending and a custom struct serves them and nothing else. */
START_TEST(bundle)
{
    char *dir = mjt_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/search.mjb", dir);
    mj_context *ctx = mjt_deploy_context(90, dir, "", "");
    mj_bundle_builder *bb = NULL;
    ck_assert_int_eq(mj_bundle_builder_create(&bb), MJ_OK);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    d.primitive = MJ_SORTED_SEARCH;
    ck_assert_int_eq(mj_bundle_builder_add(bb, ctx, &d), MJ_OK);
    mj_sort_desc c = {0};
    c.primitive = MJ_SORTED_SEARCH;
    c.key = MJ_KEY_CUSTOM;
    c.type_name = "pair128";
    c.type_source = custom_source;
    c.type_size = 16;
    c.type_align = 8;
    c.less = custom_less;
    ck_assert_int_eq(mj_bundle_builder_add(bb, ctx, &c), MJ_OK);
    ck_assert_uint_eq(mj_bundle_builder_count(bb), 2);
    ck_assert_int_eq(mj_bundle_builder_write(bb, path), MJ_OK);
    mj_bundle_builder_destroy(bb);
    mj_context_destroy(ctx);

    ctx = mjt_deploy_context(90, dir, path, "");
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    ck_assert_int_eq(mj_sorter_source(s), 3); /* from the bundle */
    mj_sorter_destroy(s);
    ck_assert_int_eq(mj_sorter_create(ctx, &c, &s), MJ_OK);
    ck_assert_int_eq(mj_sorter_source(s), 3);
    mj_sorter_destroy(s);
    d.order = MJ_DESCENDING;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &s), MJ_ERR_NOT_IN_BUNDLE, NULL,
               "descending search");
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(tiles)
{
    char why[256];
    mj_tile t = {MJ_SORTED_SEARCH, 4, 0, 128, 11, 128, 0, 0};
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_OK);
    t.bs_nt = 256;
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(why, "blocksort"));
    t = (mj_tile){MJ_SORTED_SEARCH, 8, 0, 1024, 63, 1024, 0, 0};
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(why, "shared memory"));

    char *dir = mjt_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/tuning", dir);
    mj_context *ctx = mjt_deploy_context(90, dir, "", "");
    mj_tile def;
    ck_assert_int_eq(mj_context_tile(ctx, MJ_SORTED_SEARCH, 16, 0, &def), MJ_OK);
    ck_assert_int_eq(def.nt, def.bs_nt);
    ck_assert_int_eq(def.vt, 7);
    ck_assert_int_eq(def.tuned, 0);
    mj_tile rec[1] = {{MJ_SORTED_SEARCH, 4, 0, 256, 15, 256, 30, 0}};
    ck_assert_int_eq(mj_tuning_save(ctx, path, rec, 1), MJ_OK);
    mj_context_destroy(ctx);

    ctx = mjt_deploy_context(90, dir, "", path);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_F32, MJ_ASCENDING);
    d.primitive = MJ_SORTED_SEARCH;
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    int nt, vt;
    mj_sorter_tile(s, &nt, &vt);
    ck_assert_int_eq(nt, 256);
    ck_assert_int_eq(vt, 15);
    mj_sorter_destroy(s);
    setenv("MERGEJIT_TILE", "64x5", 1);
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    mj_sorter_tile(s, &nt, &vt);
    ck_assert_int_eq(nt, 64);
    ck_assert_int_eq(vt, 5);
    mj_sorter_destroy(s);
    unsetenv("MERGEJIT_TILE");
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
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
