/* SPDX-License-Identifier: Apache-2.0 */
/* Load-balancing search and interval expand without a GPU: the generator's checks (index
 * type, value sizes, tiles), the request key (order and less not used), the API's argument
 * checks in a compile-only context, which all come before the missing device is noticed, and
 * deployment: bundles, tuning-file records, MERGEJIT_TILE and mj_tile_check. CPU (and NVRTC
 * for the sorters). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_support.h"
#include "test_support.h"

static mj_kernel_spec lbs_spec(mj_primitive p, mj_key_kind key, size_t value_size) {
    return primitive_spec(p, key, value_size, 128, 11);
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
    check_request_key(MJ_LOAD_BALANCE, MJ_KEY_I32, REQUEST_ANY_ORDER, MJ_INTERVAL_EXPAND, 4);
}
END_TEST

START_TEST(api_arguments)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
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
    size_t nv = chosen_tile(ctx, lbs, MJ_LOAD_BALANCE, 4, 0), bytes = 0;
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
    scratch_close(ctx, dir);
}
END_TEST

/* A bundle of lbs (i32) and expand (i64, 8-byte values) serves them and nothing else. */
START_TEST(bundle)
{
    char *dir = mjt_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/lbs.mjb", dir);
    mj_sort_desc d[3] = {primitive_desc(MJ_LOAD_BALANCE, MJ_KEY_I32, 0),
                         primitive_desc(MJ_LOAD_BALANCE, MJ_KEY_I32, 0),
                         primitive_desc(MJ_INTERVAL_EXPAND, MJ_KEY_I64, 8)};
    d[1].order = MJ_DESCENDING; /* not used: the same entry */
    write_bundle(dir, path, d, 3, 2);
    mj_context *ctx = mjt_deploy_context(90, dir, path, "");
    expect_source(ctx, &d[0], 3);
    expect_source(ctx, &d[2], 3);
    d[2].value_size = 4;
    expect_not_in_bundle(ctx, &d[2], NULL, "expand of 4-byte values");
    scratch_close(ctx, dir);
}
END_TEST

START_TEST(tiles)
{
    tile_limits((mj_tile){MJ_LOAD_BALANCE, 4, 0, 128, 11, 128, 0, 0, 0},
                (mj_tile){MJ_INTERVAL_EXPAND, 8, 64, 1024, 63, 1024, 0, 0, 0});

    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_deploy_context(90, dir, "", "");
    mj_tile def;
    ck_assert_int_eq(mj_context_tile(ctx, MJ_INTERVAL_EXPAND, 8, 12, &def), MJ_OK);
    ck_assert_int_eq(def.nt, def.bs_nt);
    ck_assert_int_eq(def.tuned, 0);
    mj_tile rec[2] = {{MJ_LOAD_BALANCE, 4, 0, 256, 7, 256, 12.5, 0, 0},
                      {MJ_INTERVAL_EXPAND, 8, 12, 64, 5, 64, 3, 0, 0}};
    ctx = retune(ctx, dir, rec, 2, "");
    expect_tuned(ctx, MJ_LOAD_BALANCE, 4, 0, 256, 7);
    mj_sort_desc d = primitive_desc(MJ_INTERVAL_EXPAND, MJ_KEY_I64, 12);
    expect_tile(ctx, &d, 64, 5);
    d.primitive = MJ_LOAD_BALANCE;
    d.value_size = 0;
    expect_env_tile(ctx, &d, 32, 3);
    scratch_close(ctx, dir);
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
