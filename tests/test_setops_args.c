/* SPDX-License-Identifier: Apache-2.0 */
/* Multiset operations without a GPU: the generator's checks (values of 0 to 64 bytes, a
 * comparator for custom keys, no blocksort, shared memory), the request key (order and less
 * are part of it), mj_set_op_bound, the API's argument checks in a compile-only context,
 * which all come before the missing device is noticed, and deployment: bundles, tuning-file
 * records, MERGEJIT_TILE and mj_tile_check. CPU (and NVRTC for the sorters). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_support.h"
#include "test_support.h"

START_TEST(spec_checks)
{
    mj_kernel_spec s = primitive_spec(MJ_SET_OPS, MJ_KEY_U32, 65, 128, 11);
    refused(&s, "value", "setops with 65-byte values");
    refuses_merge_path_specs(MJ_SET_OPS, MJ_KEY_U64);
    /* The source holds the three kernels and the comparator; values are allowed. */
    s = custom_spec();
    s.primitive = MJ_SET_OPS;
    s.value_size = 12;
    char *src = generated(&s);
    ck_assert_ptr_nonnull(strstr(src, "mj_setop_partition("));
    ck_assert_ptr_nonnull(strstr(src, "mj_setop_tiles("));
    ck_assert_ptr_null(strstr(src, "mj_merge_arrays("));
    ck_assert_ptr_nonnull(strstr(src, custom_less));
    free(src);
    /* The default tiles fit, for every key size and the largest values. */
    static const size_t value_sizes[] = {0, 4, 12, 64};
    default_tiles_fit(MJ_SET_OPS, value_sizes, 4);
}
END_TEST

/* Order and less reach the spec: descending is another kernel, and so is a merge. */
START_TEST(request_key)
{
    check_request_key(MJ_SET_OPS, MJ_KEY_F32, 0, MJ_MERGE, 0);
}
END_TEST

START_TEST(bound)
{
    ck_assert_uint_eq(mj_set_op_bound(MJ_SET_INTERSECTION, 10, 7), 7);
    ck_assert_uint_eq(mj_set_op_bound(MJ_SET_INTERSECTION, 3, 7), 3);
    ck_assert_uint_eq(mj_set_op_bound(MJ_SET_UNION, 10, 7), 17);
    ck_assert_uint_eq(mj_set_op_bound(MJ_SET_DIFFERENCE, 10, 7), 10);
    ck_assert_uint_eq(mj_set_op_bound(MJ_SET_DIFFERENCE, 0, 7), 0);
    ck_assert_uint_eq(mj_set_op_bound(MJ_SET_SYMMETRIC_DIFFERENCE, 10, 7), 17);
    ck_assert_uint_eq(mj_set_op_bound(MJ_SET_UNION, SIZE_MAX, 7), SIZE_MAX);
    ck_assert_uint_eq(mj_set_op_bound((mj_set_op)4, 10, 7), 0);
}
END_TEST

START_TEST(api_arguments)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *keys = NULL, *pairs = NULL, *merge = NULL, *bad = NULL;
    d.primitive = MJ_SET_OPS;
    d.value_size = 65;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "value_size",
               "setops with 65-byte values");
    d.value_size = 0;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &keys), MJ_OK);
    d.value_size = 4;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &pairs), MJ_OK);
    d.value_size = 0;
    d.primitive = MJ_MERGE;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &merge), MJ_OK);

    /* Temp: a partition entry and a look-back state per tile of a_count + b_count, and one
     * more of each. */
    size_t nv = chosen_tile(ctx, keys, MJ_SET_OPS, 4, 0), bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(keys, 0, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 16);
    ck_assert_int_eq(mj_sorter_temp_size(keys, 10 * nv + 1, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 2 * 12 * 8);
    mjt_expect(ctx, mj_sorter_temp_size(keys, (size_t)1 << 62, 0, &bytes), MJ_ERR_TOO_LARGE,
               "2^62", "setops temp of 2^62");

    char *a = (char *)(uintptr_t)0x100000, *b = a + (1 << 20), *o = a + (2 << 20);
    char *ov = a + (3 << 20), *cnt = a + (4 << 20), *av = a + (5 << 20), *bv = a + (6 << 20);
    char *tmp = a + (8 << 20);
    const mj_set_op I = MJ_SET_INTERSECTION, U = MJ_SET_UNION, D = MJ_SET_DIFFERENCE;
    /* Wrong sorters, no sorter, an unknown op. */
    mjt_expect(ctx, mj_sorter_set_op(merge, U, a, NULL, 10, b, NULL, 10, o, NULL, cnt, NULL, 0,
                                     NULL),
               MJ_ERR_INVALID_ARGUMENT, "merge", "setops with a merge sorter");
    mjt_expect(ctx, mj_sorter_merge(keys, a, NULL, 10, b, NULL, 10, o, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "setops", "merge with a setops sorter");
    ck_assert_int_eq(mj_sorter_set_op(NULL, U, a, NULL, 10, b, NULL, 10, o, NULL, cnt, NULL, 0,
                                      NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    mjt_expect(ctx, mj_sorter_set_op(keys, (mj_set_op)4, a, NULL, 10, b, NULL, 10, o, NULL, cnt,
                                     NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "unknown operation 4", "op 4");
    mjt_expect(ctx, mj_sorter_set_op(keys, (mj_set_op)-1, a, NULL, 10, b, NULL, 10, o, NULL,
                                     cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "unknown operation", "op -1");
    /* Counts. */
    mjt_expect(ctx, mj_sorter_set_op(keys, U, a, NULL, SIZE_MAX, b, NULL, 1, o, NULL, cnt, NULL,
                                     0, NULL),
               MJ_ERR_TOO_LARGE, "too many", "a_count + b_count overflowing");
    mjt_expect(ctx, mj_sorter_set_op(keys, I, a, NULL, (size_t)1 << 61, b, NULL,
                                     (size_t)1 << 61, o, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "2^62", "2^62 elements");
    /* Values: given exactly when the sorter has them. */
    mjt_expect(ctx, mj_sorter_set_op(keys, U, a, av, 10, b, NULL, 10, o, NULL, cnt, NULL, 0,
                                     NULL),
               MJ_ERR_INVALID_ARGUMENT, "keys only", "a_values to a keys sorter");
    mjt_expect(ctx, mj_sorter_set_op(keys, U, a, NULL, 10, b, NULL, 10, o, ov, cnt, NULL, 0,
                                     NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values", "out_values to a keys sorter");
    mjt_expect(ctx, mj_sorter_set_op(pairs, U, a, av, 10, b, NULL, 10, o, ov, cnt, NULL, 0,
                                     NULL),
               MJ_ERR_INVALID_ARGUMENT, "values is required", "no b_values");
    mjt_expect(ctx, mj_sorter_set_op(pairs, U, a, av, 10, b, bv, 10, o, NULL, cnt, NULL, 0,
                                     NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values is required", "no out_values");
    /* An empty side needs no values, and an empty output no out_values. */
    mjt_expect(ctx, mj_sorter_set_op(pairs, U, a, av, 10, NULL, NULL, 0, o, ov, cnt, NULL, 0,
                                     NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "union with b empty");
    mjt_expect(ctx, mj_sorter_set_op(pairs, I, a, av, 10, NULL, NULL, 0, NULL, NULL, cnt, NULL,
                                     0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "intersection with b empty");
    /* NULL arrays. */
    mjt_expect(ctx, mj_sorter_set_op(keys, U, NULL, NULL, 10, b, NULL, 10, o, NULL, cnt, NULL,
                                     0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "a_keys is NULL", "NULL a_keys");
    mjt_expect(ctx, mj_sorter_set_op(keys, U, a, NULL, 10, NULL, NULL, 10, o, NULL, cnt, NULL,
                                     0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "b_keys is NULL", "NULL b_keys");
    mjt_expect(ctx, mj_sorter_set_op(keys, D, a, NULL, 10, b, NULL, 10, NULL, NULL, cnt, NULL,
                                     0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys is NULL", "NULL out_keys");
    mjt_expect(ctx, mj_sorter_set_op(keys, U, a, NULL, 10, b, NULL, 10, o, NULL, NULL, NULL, 0,
                                     NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_count is NULL", "NULL out_count");
    mjt_expect(ctx, mj_sorter_set_op(keys, I, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, NULL,
                                     NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_count is NULL", "nothing, without out_count");
    /* Overlaps: each output with the inputs and the outputs before it. The union's output
     * holds 20 keys: 80 bytes. */
    mjt_expect(ctx, mj_sorter_set_op(keys, U, a, NULL, 10, b, NULL, 10, a + 36, NULL, cnt, NULL,
                                     0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys overlaps a_keys", "out_keys over a");
    mjt_expect(ctx, mj_sorter_set_op(keys, U, a, NULL, 10, b, NULL, 10, b - 79, NULL, cnt, NULL,
                                     0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys overlaps b_keys", "out_keys into b");
    mjt_expect(ctx, mj_sorter_set_op(keys, U, a, NULL, 10, b, NULL, 10, o, NULL, o + 72, NULL,
                                     0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_count overlaps out_keys", "out_count in out_keys");
    mjt_expect(ctx, mj_sorter_set_op(pairs, U, a, av, 10, b, bv, 10, o, bv + 20, cnt, NULL, 0,
                                     NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values overlaps b_values", "out_values over b's");
    mjt_expect(ctx, mj_sorter_set_op(pairs, U, a, av, 10, b, bv, 10, o, o + 40, cnt, NULL, 0,
                                     NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values overlaps out_keys", "out_values in out_keys");
    /* The intersection's output holds min(10, 5) keys, so out_keys may end where b starts. */
    mjt_expect(ctx, mj_sorter_set_op(keys, I, a, NULL, 10, b, NULL, 5, b - 20, NULL, cnt, NULL, 0,
                                     NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "intersection output before b");
    mjt_expect(ctx, mj_sorter_set_op(keys, U, a, NULL, 10, b, NULL, 5, b - 20, NULL, cnt, NULL, 0,
                                     NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys overlaps b_keys", "union output into b");
    /* Temp. */
    mjt_expect(ctx, mj_sorter_set_op(keys, U, a, NULL, 10, b, NULL, 10, o, NULL, cnt, tmp, 1,
                                     NULL),
               MJ_ERR_INVALID_ARGUMENT, "too small", "temp too small");
    mjt_expect(ctx, mj_sorter_set_op(keys, U, a, NULL, 10, b, NULL, 10, o, NULL, cnt, tmp + 8,
                                     1 << 20, NULL),
               MJ_ERR_INVALID_ARGUMENT, "aligned", "misaligned temp");
    /* Valid calls reach the missing device. */
    for (int op = 0; op < 4; ++op)
        mjt_expect(ctx, mj_sorter_set_op(pairs, (mj_set_op)op, a, av, 10, b, bv, 10, o, ov, cnt,
                                         tmp, 1 << 20, NULL),
                   MJ_ERR_UNSUPPORTED, "compile-only", "valid call");
    mjt_expect(ctx, mj_sorter_set_op(keys, U, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, cnt,
                                     NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "nothing");
    /* The one-call function. */
    mj_sort_desc_init(&d, MJ_KEY_I64, MJ_DESCENDING);
    mjt_expect(ctx, mj_set_op_run(ctx, &d, D, a, av, 10, b, bv, 10, o, ov, cnt, 12, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "mj_set_op_run");
    mjt_expect(ctx, mj_set_op_run(ctx, &d, D, a, NULL, 10, b, NULL, 10, o, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_count is NULL", "mj_set_op_run without out_count");
    mjt_expect(ctx, mj_set_op_run(ctx, NULL, D, a, NULL, 10, b, NULL, 10, o, NULL, cnt, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "desc", "mj_set_op_run without desc");
    mj_sorter_destroy(keys);
    mj_sorter_destroy(pairs);
    mj_sorter_destroy(merge);
    scratch_close(ctx, dir);
}
END_TEST

/* A bundle of u32 ascending with 4-byte values and a custom struct serves them and nothing
 * else. */
START_TEST(bundle)
{
    char *dir = mjt_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/setops.mjb", dir);
    mj_sort_desc d[2] = {primitive_desc(MJ_SET_OPS, MJ_KEY_U32, 4), pair128_desc(MJ_SET_OPS)};
    write_bundle(dir, path, d, 2, 2);
    mj_context *ctx = mjt_deploy_context(90, dir, path, "");
    expect_source(ctx, &d[0], 3);
    expect_source(ctx, &d[1], 3);
    d[0].value_size = 0;
    expect_not_in_bundle(ctx, &d[0], NULL, "setops without values");
    scratch_close(ctx, dir);
}
END_TEST

START_TEST(tiles)
{
    tile_limits((mj_tile){MJ_SET_OPS, 4, 4, 128, 11, 128, 0, 0, 0},
                (mj_tile){MJ_SET_OPS, 8, 0, 1024, 63, 1024, 0, 0, 0});

    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_deploy_context(90, dir, "", "");
    mj_tile def;
    /* 4-byte keys: the sm_90 table's measured 256 x 23 alone and 128 x 19 with 4-byte values;
     * 8-byte values the rule's 11. */
    expect_default_tile(ctx, MJ_SET_OPS, 4, 0, 256, 23);
    expect_default_tile(ctx, MJ_SET_OPS, 4, 4, 128, 19);
    expect_default_tile(ctx, MJ_SET_OPS, 4, 8, 128, 11);
    ck_assert_int_eq(mj_context_tile(ctx, MJ_SET_OPS, 4, 64, &def), MJ_OK);
    ck_assert_int_eq(def.vt, 3);
    mj_tile rec[1] = {{MJ_SET_OPS, 4, 0, 256, 15, 256, 30, 0, 0}};
    ctx = retune(ctx, dir, rec, 1, "");
    mj_sort_desc d = primitive_desc(MJ_SET_OPS, MJ_KEY_F32, 0);
    expect_tile(ctx, &d, 256, 15);
    expect_env_tile(ctx, &d, 64, 5);
    scratch_close(ctx, dir);
}
END_TEST

static Suite *setops_args_suite(void) {
    Suite *s = suite_create("setops_args");
    TCase *tg = tcase_create("gen");
    tcase_add_test(tg, spec_checks);
    tcase_add_test(tg, request_key);
    tcase_add_test(tg, bound);
    suite_add_tcase(s, tg);
    TCase *ta = tcase_create("api");
    tcase_set_timeout(ta, 300);
    tcase_add_test(ta, api_arguments);
    tcase_add_test(ta, bundle);
    tcase_add_test(ta, tiles);
    suite_add_tcase(s, ta);
    return s;
}

int main(void) { return mjt_run(setops_args_suite(), 1); }
