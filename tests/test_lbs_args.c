/* Load-balancing search and interval expand without a GPU: the generator's checks (index
 * type, value sizes, tiles), the request key (order and less not used), the API's argument
 * checks in a compile-only context, which all come before the missing device is noticed, and
 * deployment: bundles, tuning-file records, MERGEJIT_TILE and mj_tile_check. CPU (and NVRTC
 * for the sorters). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bundle_match.h"
#include "core/tile_choice.h"
#include "gen.h"
#include "gen_support.h"
#include "test_support.h"

static mj_kernel_spec lbs_spec(mj_primitive p, mj_key_kind key, size_t value_size) {
    mj_kernel_spec s = builtin_spec(key, value_size);
    s.primitive = p;
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

static char *generated(const mj_kernel_spec *s) {
    char err[512] = "";
    char *src = NULL;
    size_t len = 0;
    ck_assert_msg(mj__gen_source(s, &src, &len, err, sizeof err) == 0, "%s", err);
    return src;
}

START_TEST(spec_checks)
{
    static const mj_key_kind bad_keys[] = {MJ_KEY_U32, MJ_KEY_U64, MJ_KEY_F32, MJ_KEY_I16};
    for (size_t i = 0; i < sizeof bad_keys / sizeof *bad_keys; ++i) {
        mj_kernel_spec s = lbs_spec(MJ_LOAD_BALANCE, bad_keys[i], 0);
        refused(&s, "i32 or i64", "lbs of a non-index key");
        s = lbs_spec(MJ_INTERVAL_EXPAND, bad_keys[i], 4);
        refused(&s, "i32 or i64", "expand of a non-index key");
    }
    mj_kernel_spec s = lbs_spec(MJ_LOAD_BALANCE, MJ_KEY_I32, 4);
    refused(&s, "value_size", "lbs with values");
    s = lbs_spec(MJ_INTERVAL_EXPAND, MJ_KEY_I64, 0);
    refused(&s, "value_size", "expand without values");
    s = lbs_spec(MJ_INTERVAL_EXPAND, MJ_KEY_I64, 65);
    refused(&s, "value_size", "expand of 65-byte values");
    s = lbs_spec(MJ_LOAD_BALANCE, MJ_KEY_I64, 0);
    s.bs_nt = 256;
    refused(&s, "blocksort", "lbs with a blocksort tile");
    s = lbs_spec(MJ_LOAD_BALANCE, MJ_KEY_I64, 0);
    s.vt = 63;
    s.nt = 1024;
    refused(&s, "shared memory", "lbs with a tile over the shared memory");
    /* Every value size 1..64 generates, and the source holds its kernels only. */
    for (size_t v = 1; v <= 64; ++v) {
        s = lbs_spec(MJ_INTERVAL_EXPAND, v % 2 ? MJ_KEY_I32 : MJ_KEY_I64, v);
        char *src = generated(&s);
        ck_assert_ptr_nonnull(strstr(src, "mj_expand_tiles("));
        ck_assert_ptr_null(strstr(src, "mj_lbs_tiles("));
        ck_assert_ptr_null(strstr(src, "mj_less"));
        free(src);
    }
}
END_TEST

/* Order and less do not reach the spec: one kernel, one bundle entry. */
START_TEST(request_key)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_I32, MJ_ASCENDING);
    d.primitive = MJ_LOAD_BALANCE;
    mj_kernel_spec a, b;
    ck_assert_int_eq(mj__spec_from_desc(ctx, &d, &a), MJ_OK);
    d.order = MJ_DESCENDING;
    d.less = "a > b";
    ck_assert_int_eq(mj__spec_from_desc(ctx, &d, &b), MJ_OK);
    uint8_t ka[32], kb[32];
    mj__bundle_request_key(&a, ka);
    mj__bundle_request_key(&b, kb);
    ck_assert(memcmp(ka, kb, 32) == 0);
    d.primitive = MJ_INTERVAL_EXPAND;
    d.value_size = 4;
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
    mj_sorter *lbs = NULL, *lbs64 = NULL, *expand = NULL, *sort = NULL, *bad = NULL;
    d.primitive = MJ_LOAD_BALANCE;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "i32 or i64",
               "lbs of u32");
    d.key = MJ_KEY_I32;
    d.value_size = 4;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "value_size",
               "lbs with values");
    d.value_size = 0;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &lbs), MJ_OK);
    d.key = MJ_KEY_I64;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &lbs64), MJ_OK);
    d.primitive = MJ_INTERVAL_EXPAND;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "value_size",
               "expand without values");
    d.key = MJ_KEY_I32;
    d.value_size = 12;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &expand), MJ_OK);
    mj_sort_desc_init(&d, MJ_KEY_I32, MJ_ASCENDING);
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &sort), MJ_OK);

    /* Temp: one 8-byte partition entry per tile of the merged length, and one more. */
    int nt, vt;
    mj_sorter_tile(lbs, &nt, &vt);
    mj_tile want;
    ck_assert_int_eq(mj_context_tile(ctx, MJ_LOAD_BALANCE, 4, 0, &want), MJ_OK);
    ck_assert(nt == want.nt && vt == want.vt);
    size_t nv = (size_t)nt * (size_t)vt, bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(lbs, 0, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 8);
    ck_assert_int_eq(mj_sorter_temp_size(lbs, 10 * nv + 1, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 12 * 8);
    ck_assert_int_eq(mj_sorter_temp_size(lbs64, (1ull << 40) + (1ull << 20), 0, &bytes), MJ_OK);
    mjt_expect(ctx, mj_sorter_temp_size(lbs, SIZE_MAX, 0, &bytes), MJ_ERR_TOO_LARGE, NULL,
               "lbs temp of SIZE_MAX");

    char *fake = (char *)(uintptr_t)0x100000, *out = fake + (1 << 20), *ranks = fake + (2 << 20);
    char *values = fake + (3 << 20);
    mj_sorter_temp_size(lbs, 100 + 10, 0, &bytes);
    /* Wrong sorters. */
    mjt_expect(ctx, mj_sorter_load_balance(sort, fake, 10, 100, out, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "mergesort", "lbs with a mergesort sorter");
    mjt_expect(ctx, mj_sorter_load_balance(expand, fake, 10, 100, out, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "expand", "lbs with an expand sorter");
    mjt_expect(ctx, mj_sorter_interval_expand(lbs, fake, 10, 100, values, out, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "lbs", "expand with an lbs sorter");
    mjt_expect(ctx, mj_sorter_sort(lbs, fake, NULL, 10, NULL, 0, NULL), MJ_ERR_INVALID_ARGUMENT,
               "lbs", "sort with an lbs sorter");
    ck_assert_int_eq(mj_sorter_load_balance(NULL, fake, 10, 100, out, NULL, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    /* NULL pointers, no objects, counts over the index type. */
    mjt_expect(ctx, mj_sorter_load_balance(lbs, NULL, 10, 100, out, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "offsets", "NULL offsets");
    mjt_expect(ctx, mj_sorter_load_balance(lbs, fake, 10, 100, NULL, ranks, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "objects", "NULL objects");
    mjt_expect(ctx, mj_sorter_interval_expand(expand, fake, 10, 100, NULL, out, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "values", "NULL values");
    mjt_expect(ctx, mj_sorter_interval_expand(expand, fake, 10, 100, values, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out", "NULL out");
    mjt_expect(ctx, mj_sorter_load_balance(lbs, fake, 0, 100, out, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "no objects", "items without objects");
    mjt_expect(ctx, mj_sorter_load_balance(lbs, fake, 10, 1ull << 31, out, NULL, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "index type", "2^31 items with i32");
    mjt_expect(ctx, mj_sorter_load_balance(lbs, fake, 1ull << 31, 10, out, NULL, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "index type", "2^31 objects with i32");
    mjt_expect(ctx, mj_sorter_load_balance(lbs64, fake, SIZE_MAX, 10, out, NULL, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, NULL, "SIZE_MAX objects with i64");
    /* Overlaps. */
    mjt_expect(ctx, mj_sorter_load_balance(lbs, fake, 10, 100, fake + 8, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "overlaps", "objects over offsets");
    mjt_expect(ctx, mj_sorter_load_balance(lbs, fake, 10, 100, out, out + 396, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "overlaps", "ranks over objects");
    mjt_expect(ctx, mj_sorter_load_balance(lbs, fake, 10, 100, out, fake + 36, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "overlaps", "ranks over offsets");
    mjt_expect(ctx, mj_sorter_interval_expand(expand, fake, 10, 100, values, values + 12 * 9,
                                              NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "overlaps", "out over values");
    mjt_expect(ctx, mj_sorter_interval_expand(expand, fake, 10, 100, values, fake + 36, NULL, 0,
                                              NULL),
               MJ_ERR_INVALID_ARGUMENT, "overlaps", "out over offsets");
    /* Too little temp. */
    mjt_expect(ctx, mj_sorter_load_balance(lbs, fake, 10, 100, out, NULL, ranks, 1, NULL),
               MJ_ERR_INVALID_ARGUMENT, NULL, "temp too small");
    /* Nothing to do: NULL arrays pass every check (the context is entered, as for a merge of
     * nothing, and that is where a compile-only context stops). */
    mjt_expect(ctx, mj_sorter_load_balance(lbs, fake, 10, 0, NULL, NULL, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "no items");
    mjt_expect(ctx, mj_sorter_load_balance(lbs, NULL, 0, 0, NULL, NULL, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "nothing");
    mjt_expect(ctx, mj_sorter_interval_expand(expand, NULL, 0, 0, NULL, NULL, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "no items to expand");
    /* A valid call reaches the missing device. */
    mjt_expect(ctx, mj_sorter_load_balance(lbs, fake, 10, 100, out, ranks, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "a valid lbs without a device");
    mjt_expect(ctx, mj_sorter_interval_expand(expand, fake, 10, 100, values, out, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "a valid expand without a device");
    /* One-call functions. */
    mj_sort_desc_init(&d, MJ_KEY_I64, MJ_ASCENDING);
    mjt_expect(ctx, mj_load_balance(ctx, &d, fake, 10, 100, out, NULL, NULL), MJ_ERR_UNSUPPORTED,
               "compile-only", "mj_load_balance");
    mjt_expect(ctx, mj_interval_expand(ctx, &d, fake, 10, 100, values, out, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "value_size", "mj_interval_expand of 0-byte values");
    mjt_expect(ctx, mj_interval_expand(ctx, &d, fake, 10, 100, values, out, 8, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "mj_interval_expand");
    mj_sorter_destroy(lbs);
    mj_sorter_destroy(lbs64);
    mj_sorter_destroy(expand);
    mj_sorter_destroy(sort);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* A bundle of lbs (i32) and expand (i64, 8-byte values) serves them and nothing else. */
START_TEST(bundle)
{
    char *dir = mjt_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/lbs.mjb", dir);
    mj_context *ctx = mjt_deploy_context(90, dir, "", "");
    mj_bundle_builder *b = NULL;
    ck_assert_int_eq(mj_bundle_builder_create(&b), MJ_OK);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_I32, MJ_ASCENDING);
    d.primitive = MJ_LOAD_BALANCE;
    ck_assert_int_eq(mj_bundle_builder_add(b, ctx, &d), MJ_OK);
    d.order = MJ_DESCENDING; /* not used: the same entry */
    ck_assert_int_eq(mj_bundle_builder_add(b, ctx, &d), MJ_OK);
    mj_sort_desc_init(&d, MJ_KEY_I64, MJ_ASCENDING);
    d.primitive = MJ_INTERVAL_EXPAND;
    d.value_size = 8;
    ck_assert_int_eq(mj_bundle_builder_add(b, ctx, &d), MJ_OK);
    ck_assert_uint_eq(mj_bundle_builder_count(b), 2);
    ck_assert_int_eq(mj_bundle_builder_write(b, path), MJ_OK);
    mj_bundle_builder_destroy(b);
    mj_context_destroy(ctx);

    ctx = mjt_deploy_context(90, dir, path, "");
    mj_sorter *s = NULL;
    mj_sort_desc_init(&d, MJ_KEY_I32, MJ_ASCENDING);
    d.primitive = MJ_LOAD_BALANCE;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    ck_assert_int_eq(mj_sorter_source(s), 3); /* from the bundle */
    mj_sorter_destroy(s);
    mj_sort_desc_init(&d, MJ_KEY_I64, MJ_ASCENDING);
    d.primitive = MJ_INTERVAL_EXPAND;
    d.value_size = 8;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    ck_assert_int_eq(mj_sorter_source(s), 3);
    mj_sorter_destroy(s);
    d.value_size = 4;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &s), MJ_ERR_NOT_IN_BUNDLE, NULL,
               "expand of 4-byte values");
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(tiles)
{
    char why[256];
    mj_tile t = {MJ_LOAD_BALANCE, 4, 0, 128, 11, 128, 0, 0};
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_OK);
    t.bs_nt = 256;
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(why, "blocksort"));
    t = (mj_tile){MJ_INTERVAL_EXPAND, 8, 64, 1024, 63, 1024, 0, 0};
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(why, "shared memory"));

    char *dir = mjt_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/tuning", dir);
    mj_context *ctx = mjt_deploy_context(90, dir, "", "");
    mj_tile def;
    ck_assert_int_eq(mj_context_tile(ctx, MJ_INTERVAL_EXPAND, 8, 12, &def), MJ_OK);
    ck_assert_int_eq(def.nt, def.bs_nt);
    ck_assert_int_eq(def.tuned, 0);
    mj_tile rec[2] = {{MJ_LOAD_BALANCE, 4, 0, 256, 7, 256, 12.5, 0},
                      {MJ_INTERVAL_EXPAND, 8, 12, 64, 5, 64, 3, 0}};
    ck_assert_int_eq(mj_tuning_save(ctx, path, rec, 2), MJ_OK);
    mj_context_destroy(ctx);

    ctx = mjt_deploy_context(90, dir, "", path);
    ck_assert_int_eq(mj_context_tile(ctx, MJ_LOAD_BALANCE, 4, 0, &def), MJ_OK);
    ck_assert_int_eq(def.tuned, 1);
    ck_assert_int_eq(def.nt, 256);
    ck_assert_int_eq(def.vt, 7);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_I64, MJ_ASCENDING);
    d.primitive = MJ_INTERVAL_EXPAND;
    d.value_size = 12;
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    int nt, vt;
    mj_sorter_tile(s, &nt, &vt);
    ck_assert_int_eq(nt, 64);
    ck_assert_int_eq(vt, 5);
    mj_sorter_destroy(s);
    setenv("MERGEJIT_TILE", "32x3", 1);
    d.primitive = MJ_LOAD_BALANCE;
    d.value_size = 0;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    mj_sorter_tile(s, &nt, &vt);
    ck_assert_int_eq(nt, 32);
    ck_assert_int_eq(vt, 3);
    mj_sorter_destroy(s);
    unsetenv("MERGEJIT_TILE");
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

static Suite *lbs_args_suite(void) {
    Suite *s = suite_create("lbs_args");
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

int main(void) { return mjt_run(lbs_args_suite(), 1); }
