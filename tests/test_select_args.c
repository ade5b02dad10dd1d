/* SPDX-License-Identifier: Apache-2.0 */
/* Select without a GPU: the generator's checks (a selection operator that is one expression,
 * no identity, a comparator for custom keys), the request key (the operator, the order and
 * less are part of it), the API's argument checks in a compile-only context, which all come
 * before the missing device is noticed, and the default tiles. CPU (and NVRTC for the
 * sorters). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_support.h"
#include "padded_keys_support.h"
#include "test_support.h"

START_TEST(spec_checks)
{
    mj_kernel_spec s = primitive_spec(MJ_SELECT, MJ_KEY_U32, 65, 256, 15);
    refused(&s, "value", "select with 65-byte values");
    s = primitive_spec(MJ_SELECT, MJ_KEY_U32, 0, 256, 15);
    s.op = "a > 3; }";
    refused(&s, "selection operator", "a selection operator that closes the function");
    s.op = "(a > 3";
    refused(&s, "selection operator", "an unbalanced selection operator");
    s.op = "a > 3";
    s.identity = "0";
    refused(&s, "identity", "select with an identity");
    /* The selection operator and the comparator are in the source, over the type for custom
     * keys (a bit cast of the key's bytes). */
    s = custom_spec();
    s.primitive = MJ_SELECT;
    s.value_size = 12;
    s.op = "a.lo % 3 == 0";
    mj__default_tile(MJ_SELECT, 90, 16, 12, &s.nt, &s.vt, &s.bs_nt);
    char *src = generated(&s);
    ck_assert_ptr_nonnull(strstr(src, "mj_select_tiles("));
    ck_assert_ptr_nonnull(strstr(src, "a.lo % 3 == 0"));
    ck_assert_ptr_nonnull(strstr(src, "mj_select_op(const mj_key &mj_a)"));
    ck_assert_ptr_nonnull(strstr(src, custom_less));
    ck_assert_ptr_null(strstr(src, "mj_setop_tiles("));
    free(src);
    /* Without one the source still builds: the host refuses MJ_SELECT_IF. */
    s.op = NULL;
    src = generated(&s);
    ck_assert_ptr_nonnull(strstr(src, "return (bool)(false"));
    free(src);
    s.less = NULL;
    refused(&s, "comparator", "a custom key without less or op");
    /* With op and no less, a sorter that only selects: the source orders nothing. */
    s.op = "a.lo % 3 == 0";
    src = generated(&s);
    ck_assert_ptr_nonnull(strstr(src, "mj_select_op(const mj_key &mj_a)"));
    ck_assert_ptr_nonnull(strstr(src, "return false;"));
    free(src);
    static const size_t value_sizes[] = {0, 4, 12, 64};
    default_tiles_fit(MJ_SELECT, value_sizes, 4);
}
END_TEST

/* Order and less reach the request (unique is another kernel), and so does the operator. */
START_TEST(request_key)
{
    check_request_key(MJ_SELECT, MJ_KEY_F32, 0, MJ_SET_OPS, 0);
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sort_desc d = primitive_desc(MJ_SELECT, MJ_KEY_U32, 0), e = d;
    d.op = "a > 3";
    e.op = "a > 4";
    ck_assert(!same_request(ctx, &d, &e));
    e.op = NULL;
    ck_assert(!same_request(ctx, &d, &e));
    e.op = "a > 3";
    ck_assert(same_request(ctx, &d, &e));
    scratch_close(ctx, dir);
}
END_TEST

START_TEST(api_arguments)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *keys = NULL, *pairs = NULL, *unique = NULL, *merge = NULL, *bad = NULL;
    d.primitive = MJ_SELECT;
    d.op = "a % 2 == 0";
    d.identity = "0";
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "identity",
               "select with an identity");
    d.identity = NULL;
    d.value_size = 65;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "value_size",
               "select with 65-byte values");
    d.value_size = 0;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &keys), MJ_OK);
    d.value_size = 4;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &pairs), MJ_OK);
    d.value_size = 0;
    d.op = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &unique), MJ_OK);
    d.primitive = MJ_MERGE;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &merge), MJ_OK);

    /* Temp: a look-back state per tile and the tile counter. */
    size_t nv = chosen_tile(ctx, keys, MJ_SELECT, 4, 0), bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(keys, 0, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 8);
    ck_assert_int_eq(mj_sorter_temp_size(keys, 10 * nv + 1, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 12 * 8);
    mjt_expect(ctx, mj_sorter_temp_size(keys, (size_t)1 << 62, 0, &bytes), MJ_ERR_TOO_LARGE,
               "2^62", "select temp of 2^62");

    char *k = (char *)(uintptr_t)0x100000, *v = k + (1 << 20), *o = k + (2 << 20);
    char *ov = k + (3 << 20), *cnt = k + (4 << 20), *tmp = k + (8 << 20);
    const mj_select_kind IF = MJ_SELECT_IF, UQ = MJ_SELECT_UNIQUE;
    /* Wrong sorters, no sorter, an unknown kind, a selection without an operator. */
    mjt_expect(ctx, mj_sorter_select(merge, IF, k, NULL, 10, o, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "merge", "select with a merge sorter");
    mjt_expect(ctx, mj_sorter_merge(keys, k, NULL, 10, o, NULL, 10, ov, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "select", "merge with a select sorter");
    ck_assert_int_eq(mj_sorter_select(NULL, IF, k, NULL, 10, o, NULL, cnt, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    mjt_expect(ctx, mj_sorter_select(keys, (mj_select_kind)2, k, NULL, 10, o, NULL, cnt, NULL, 0,
                                     NULL),
               MJ_ERR_INVALID_ARGUMENT, "unknown kind 2", "kind 2");
    mjt_expect(ctx, mj_sorter_select(unique, IF, k, NULL, 10, o, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "selection operator", "MJ_SELECT_IF without op");
    /* Counts. */
    mjt_expect(ctx, mj_sorter_select(keys, IF, k, NULL, (size_t)1 << 62, o, NULL, cnt, NULL, 0,
                                     NULL),
               MJ_ERR_TOO_LARGE, "", "2^62 elements");
    /* Values: given exactly when the sorter has them. */
    mjt_expect(ctx, mj_sorter_select(keys, IF, k, v, 10, o, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "keys only", "values to a keys sorter");
    mjt_expect(ctx, mj_sorter_select(keys, IF, k, NULL, 10, o, ov, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values", "out_values to a keys sorter");
    mjt_expect(ctx, mj_sorter_select(pairs, IF, k, NULL, 10, o, ov, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "values", "no values to a pairs sorter");
    mjt_expect(ctx, mj_sorter_select(pairs, IF, k, v, 10, o, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values is required", "no out_values");
    /* NULL arrays. */
    mjt_expect(ctx, mj_sorter_select(keys, IF, NULL, NULL, 10, o, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "keys is NULL", "NULL keys");
    mjt_expect(ctx, mj_sorter_select(keys, UQ, k, NULL, 10, NULL, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys is NULL", "NULL out_keys");
    mjt_expect(ctx, mj_sorter_select(keys, IF, k, NULL, 10, o, NULL, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_count is NULL", "NULL out_count");
    mjt_expect(ctx, mj_sorter_select(keys, IF, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_count is NULL", "nothing, without out_count");
    /* Overlaps: each output with the inputs and the outputs before it (10 keys: 40 bytes). */
    mjt_expect(ctx, mj_sorter_select(keys, IF, k, NULL, 10, k + 36, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys overlaps keys", "out_keys over keys");
    mjt_expect(ctx, mj_sorter_select(keys, IF, k, NULL, 10, k, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys overlaps keys", "in place");
    mjt_expect(ctx, mj_sorter_select(keys, IF, k, NULL, 10, o, NULL, o + 32, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_count overlaps out_keys", "out_count in out_keys");
    mjt_expect(ctx, mj_sorter_select(pairs, IF, k, v, 10, o, v + 20, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values overlaps values", "out_values over values");
    mjt_expect(ctx, mj_sorter_select(pairs, IF, k, v, 10, o, o + 20, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values overlaps out_keys", "out_values in out_keys");
    /* Outputs may end where an input starts. */
    mjt_expect(ctx, mj_sorter_select(keys, IF, k, NULL, 10, k - 40, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "out_keys before keys");
    /* Temp. */
    mjt_expect(ctx, mj_sorter_select(keys, IF, k, NULL, 10, o, NULL, cnt, tmp, 1, NULL),
               MJ_ERR_INVALID_ARGUMENT, "too small", "temp too small");
    mjt_expect(ctx, mj_sorter_select(keys, IF, k, NULL, 10, o, NULL, cnt, tmp + 8, 1 << 20, NULL),
               MJ_ERR_INVALID_ARGUMENT, "aligned", "misaligned temp");
    /* Valid calls reach the missing device; an empty input needs no values. */
    mjt_expect(ctx, mj_sorter_select(pairs, IF, k, v, 10, o, ov, cnt, tmp, 1 << 20, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "valid selection");
    mjt_expect(ctx, mj_sorter_select(pairs, UQ, k, v, 10, o, ov, cnt, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "valid unique");
    mjt_expect(ctx, mj_sorter_select(unique, UQ, k, NULL, 10, o, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "unique without op");
    mjt_expect(ctx, mj_sorter_select(pairs, IF, NULL, NULL, 0, NULL, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "nothing");
    /* The one-call function. */
    mj_sort_desc_init(&d, MJ_KEY_I64, MJ_DESCENDING);
    mjt_expect(ctx, mj_select(ctx, &d, UQ, k, v, 10, o, ov, cnt, 12, NULL), MJ_ERR_UNSUPPORTED,
               "compile-only", "mj_select");
    mjt_expect(ctx, mj_select(ctx, &d, IF, k, NULL, 10, o, NULL, cnt, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "selection operator", "mj_select without op");
    mjt_expect(ctx, mj_select(ctx, NULL, UQ, k, NULL, 10, o, NULL, cnt, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "desc", "mj_select without desc");
    /* A custom key with op and no less: a sorter that only selects; unique is refused before
     * the missing device is noticed. Neither op nor less: no sorter. */
    mj_sort_desc c = padk_desc(MJ_SELECT);
    c.less = NULL;
    mjt_expect(ctx, mj_sorter_create(ctx, &c, &bad), MJ_ERR_INVALID_ARGUMENT, "selection operator",
               "a custom select without op or less");
    c.op = "a.lo % 3 == 0";
    mj_sorter *only_if = NULL;
    ck_assert_msg(mj_sorter_create(ctx, &c, &only_if) == MJ_OK, "%s", mj_context_last_error(ctx));
    mjt_expect(ctx, mj_sorter_select(only_if, UQ, k, NULL, 10, o, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "needs a comparator", "unique without less");
    mjt_expect(ctx, mj_sorter_select(only_if, IF, k, NULL, 10, o, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "a selection without less");
    mj_sorter_destroy(only_if);
    mj_sorter_destroy(keys);
    mj_sorter_destroy(pairs);
    mj_sorter_destroy(unique);
    mj_sorter_destroy(merge);
    scratch_close(ctx, dir);
}
END_TEST

START_TEST(tiles)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_deploy_context(90, dir, "", "");
    mj_tile def;
    /* The rule: 4-byte keys alone 128 threads of 37; with values 512 threads of 11 4-byte
     * keys; 8-byte keys alone 256 of 23, with values 256 of 11; fewer of larger keys. */
    expect_default_tile(ctx, MJ_SELECT, 4, 0, 128, 37);
    expect_default_tile(ctx, MJ_SELECT, 8, 0, 256, 23);
    expect_default_tile(ctx, MJ_SELECT, 4, 4, 512, 11);
    expect_default_tile(ctx, MJ_SELECT, 8, 8, 256, 11);
    ck_assert_int_eq(mj_context_tile(ctx, MJ_SELECT, 256, 0, &def), MJ_OK);
    ck_assert_int_eq(def.vt, 3);
    ck_assert_int_le(mj__tile_smem(MJ_SELECT, def.nt, def.vt, 256, 0), MJ_STATIC_SMEM_LIMIT);
    scratch_close(ctx, dir);
}
END_TEST

static Suite *select_args_suite(void) {
    Suite *s = suite_create("select_args");
    TCase *tg = tcase_create("gen");
    tcase_add_test(tg, spec_checks);
    tcase_add_test(tg, request_key);
    suite_add_tcase(s, tg);
    TCase *ta = tcase_create("api");
    tcase_set_timeout(ta, 300);
    tcase_add_test(ta, api_arguments);
    tcase_add_test(ta, tiles);
    suite_add_tcase(s, ta);
    return s;
}

int main(void) { return mjt_run(select_args_suite(), 1); }
