/* SPDX-License-Identifier: Apache-2.0 */
/* Relational join without a GPU: the generator's checks (no values, a comparator for custom
 * keys, no blocksort, shared memory, default tiles), the temporary storage, and every argument
 * check of mj_sorter_join_count, mj_sorter_join, mj_join, mj_sorter_join_plan and
 * mj_sorter_join_rows in a compile-only context, which all come before the missing device is
 * noticed. CPU (and NVRTC for the sorters). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_support.h"
#include "primitives/join.h"
#include "test_support.h"

START_TEST(spec_checks)
{
    mj_kernel_spec s = primitive_spec(MJ_JOIN, MJ_KEY_U32, 4, 128, 11);
    refused(&s, "value_size", "join with values");
    refuses_merge_path_specs(MJ_JOIN, MJ_KEY_U32); /* u32: the lbs tile's 8-byte offsets
                                                    * alone are 56 KiB */
    /* The source holds the search's kernels, the join's and the comparator. */
    s = custom_spec();
    s.primitive = MJ_JOIN;
    char *src = generated(&s);
    ck_assert_ptr_nonnull(strstr(src, "mj_search_tiles("));
    ck_assert_ptr_nonnull(strstr(src, "mj_join_tiles("));
    ck_assert_ptr_nonnull(strstr(src, custom_less));
    free(src);
    /* The lbs tile takes more than the search's for small keys. */
    ck_assert_uint_ge(mj__tile_smem(MJ_JOIN, 128, 11, 4, 0), 12 * 128 * 11);
    ck_assert_uint_ge(mj__tile_smem(MJ_JOIN, 128, 11, 64, 0),
                      mj__tile_smem(MJ_SORTED_SEARCH, 128, 11, 64, 0));
    static const size_t no_values[] = {0};
    default_tiles_fit(MJ_JOIN, no_values, 1);
}
END_TEST

/* Order and less reach the spec: descending is another kernel, and so is a search. */
START_TEST(request_key)
{
    check_request_key(MJ_JOIN, MJ_KEY_F32, 0, MJ_SORTED_SEARCH, 0);
}
END_TEST

START_TEST(temp_size)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sort_desc d = primitive_desc(MJ_JOIN, MJ_KEY_U32, 0);
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    size_t small = 0, big = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, 0, 0, &small), MJ_OK);
    ck_assert_uint_gt(small, 0);
    /* Per a row two 8-byte words and a byte, per b row a byte, for any split of n. */
    ck_assert_int_eq(mj_sorter_temp_size(s, 1000000, 0, &big), MJ_OK);
    ck_assert_uint_ge(big, 17u * 1000000);
    ck_assert_uint_gt(big, small);
    mjt_expect(ctx, mj_sorter_temp_size(s, SIZE_MAX, 0, &big), MJ_ERR_TOO_LARGE, NULL,
               "join temp of SIZE_MAX");
    mj_sorter_destroy(s);
    scratch_close(ctx, dir);
}
END_TEST

START_TEST(api_arguments)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *join = NULL, *bad = NULL;
    d.primitive = MJ_JOIN;
    d.value_size = 4;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "value_size",
               "join with values");
    d.value_size = 0;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &join), MJ_OK);

    char *a = (char *)(uintptr_t)0x100000, *b = a + (1 << 20);
    char *ar = a + (2 << 20), *br = a + (3 << 20), *cnt = a + (4 << 20), *tmp = a + (5 << 20);
    mj_join_kind inner = MJ_JOIN_INNER;
#define COUNT(k, ac, bc, oc) mj_sorter_join_count(join, k, a, ac, b, bc, oc, NULL, 0, NULL)
#define JOIN(k, ac, bc, is, x, y, cap, oc)                                                       \
    mj_sorter_join(join, k, a, ac, b, bc, is, x, y, cap, oc, NULL, 0, NULL)
    ck_assert_int_eq(mj_sorter_join(NULL, inner, a, 10, b, 10, 4, ar, br, 10, cnt, NULL, 0,
                                    NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_sorter_join_count(NULL, inner, a, 10, b, 10, cnt, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    /* Kind and index size. */
    mjt_expect(ctx, COUNT((mj_join_kind)4, 10, 10, cnt), MJ_ERR_INVALID_ARGUMENT, "kind",
               "an unknown kind");
    mjt_expect(ctx, JOIN((mj_join_kind)-1, 10, 10, 4, ar, br, 10, cnt), MJ_ERR_INVALID_ARGUMENT,
               "kind", "a negative kind");
    mjt_expect(ctx, JOIN(inner, 10, 10, 2, ar, br, 10, cnt), MJ_ERR_INVALID_ARGUMENT, "4",
               "2-byte rows");
    mjt_expect(ctx, JOIN(inner, 10, 10, 0, ar, br, 10, cnt), MJ_ERR_INVALID_ARGUMENT, "4",
               "0-byte rows");
    /* NULL arrays that hold something. */
    mjt_expect(ctx, mj_sorter_join_count(join, inner, NULL, 10, b, 10, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "a is NULL", "NULL a");
    mjt_expect(ctx, mj_sorter_join_count(join, inner, a, 10, NULL, 10, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "b is NULL", "NULL b");
    mjt_expect(ctx, COUNT(inner, 10, 10, NULL), MJ_ERR_INVALID_ARGUMENT, "out_count is NULL",
               "NULL out_count");
    mjt_expect(ctx, JOIN(inner, 10, 10, 4, ar, br, 10, NULL), MJ_ERR_INVALID_ARGUMENT,
               "out_count is NULL", "NULL out_count (rows)");
    mjt_expect(ctx, JOIN(inner, 10, 10, 4, NULL, br, 10, cnt), MJ_ERR_INVALID_ARGUMENT,
               "a_rows is NULL", "NULL a_rows");
    mjt_expect(ctx, JOIN(MJ_JOIN_OUTER, 10, 10, 8, ar, NULL, 10, cnt), MJ_ERR_INVALID_ARGUMENT,
               "b_rows is NULL", "NULL b_rows");
    /* Sizes: the largest possible join, 4-byte rows, the rows' bytes. */
    mjt_expect(ctx, COUNT(inner, SIZE_MAX, 1, cnt), MJ_ERR_TOO_LARGE, "2^63",
               "a_count + b_count overflowing");
    mjt_expect(ctx, COUNT(MJ_JOIN_LEFT, 1ull << 32, 1ull << 31, cnt), MJ_ERR_TOO_LARGE, "2^63",
               "a product of 2^63 rows");
    mjt_expect(ctx, JOIN(inner, 1ull << 32, 10, 4, ar, br, 10, cnt), MJ_ERR_TOO_LARGE,
               "index_size 8", "2^32 a rows with 4-byte rows");
    mjt_expect(ctx, JOIN(inner, 10, 1ull << 32, 4, ar, br, 10, cnt), MJ_ERR_TOO_LARGE,
               "index_size 8", "2^32 b rows with 4-byte rows");
    mjt_expect(ctx, JOIN(inner, 10, 10, 8, ar, br, SIZE_MAX / 4, cnt), MJ_ERR_TOO_LARGE,
               "memory", "rows beyond memory");
    mjt_expect(ctx, COUNT(MJ_JOIN_LEFT, 1ull << 62, 0, cnt), MJ_ERR_TOO_LARGE, "memory",
               "2^62 keys");
    char *big = (char *)(uintptr_t)(1ull << 44);
    mjt_expect(ctx, mj_sorter_join_count(join, inner, big, 1ull << 42, big + (1ull << 45),
                                         1ull << 20, cnt, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "blocks", "2^42 keys: more tiles than a grid");
    /* Overlaps: outputs with inputs and with one another. */
    mjt_expect(ctx, JOIN(inner, 10, 10, 4, a + 36, br, 10, cnt), MJ_ERR_INVALID_ARGUMENT,
               "a_rows overlaps a", "a_rows over a");
    mjt_expect(ctx, JOIN(inner, 10, 10, 4, ar, b + 39, 10, cnt), MJ_ERR_INVALID_ARGUMENT,
               "b_rows overlaps b", "b_rows over b");
    mjt_expect(ctx, JOIN(inner, 10, 10, 8, ar, ar + 72, 10, cnt), MJ_ERR_INVALID_ARGUMENT,
               "b_rows overlaps a_rows", "b_rows over a_rows");
    mjt_expect(ctx, JOIN(inner, 10, 10, 4, ar, br, 10, br + 36), MJ_ERR_INVALID_ARGUMENT,
               "out_count overlaps b_rows", "out_count in b_rows");
    mjt_expect(ctx, COUNT(inner, 10, 10, a + 8), MJ_ERR_INVALID_ARGUMENT,
               "out_count overlaps a", "out_count in a");
    /* Temp. */
    mjt_expect(ctx, mj_sorter_join(join, inner, a, 10, b, 10, 4, ar, br, 10, cnt, tmp, 1, NULL),
               MJ_ERR_INVALID_ARGUMENT, "too small", "temp too small");
    mjt_expect(ctx, mj_sorter_join_count(join, inner, a, 10, b, 10, cnt, tmp + 8, 1 << 20,
                                         NULL),
               MJ_ERR_INVALID_ARGUMENT, "aligned", "misaligned temp");
    /* Valid calls reach the missing device: adjacent arrays, no room (rows NULL), empty
     * sides, 2^32 - 1 rows a side with 4-byte rows, 2^32 rows with 8-byte ones. */
    mjt_expect(ctx, JOIN(inner, 10, 10, 4, ar, ar + 40, 10, ar + 80), MJ_ERR_UNSUPPORTED,
               "compile-only", "adjacent outputs");
    mjt_expect(ctx, JOIN(MJ_JOIN_RIGHT, 10, 10, 4, NULL, NULL, 0, cnt), MJ_ERR_UNSUPPORTED,
               "compile-only", "no room");
    mjt_expect(ctx, mj_sorter_join_count(join, MJ_JOIN_OUTER, NULL, 0, NULL, 0, cnt, NULL, 0,
                                         NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "nothing to join");
    mjt_expect(ctx, mj_sorter_join(join, MJ_JOIN_LEFT, a, 10, NULL, 0, 8, ar, br, 10, cnt, NULL,
                                   0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "an empty b");
    mjt_expect(ctx, mj_sorter_join(join, inner, big, UINT32_MAX, b, 10, 4, ar, br, 10, cnt, NULL,
                                   0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "2^32 - 1 rows, 4-byte rows");
    mjt_expect(ctx, mj_sorter_join(join, inner, big, 1ull << 32, b, 10, 8, ar, br, 10, cnt,
                                   NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "2^32 rows, 8-byte rows");
    /* The one-call function. */
    mj_sort_desc_init(&d, MJ_KEY_F64, MJ_DESCENDING);
    d.value_size = 8; /* the call's value size (none) wins */
    mjt_expect(ctx, mj_join(ctx, &d, MJ_JOIN_OUTER, a, 10, b, 10, 8, ar, br, 10, cnt, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "mj_join");
    mjt_expect(ctx, mj_join(ctx, NULL, MJ_JOIN_OUTER, a, 10, b, 10, 8, ar, br, 10, cnt, NULL),
               MJ_ERR_INVALID_ARGUMENT, "desc", "mj_join without a description");
    mjt_expect(ctx, mj_join(ctx, &d, MJ_JOIN_OUTER, a, 10, b, 10, 8, ar, br, 10, NULL, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_count", "mj_join without out_count");
    ck_assert_int_eq(mj_join(NULL, &d, inner, a, 10, b, 10, 8, ar, br, 10, cnt, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
#undef COUNT
#undef JOIN
    mj_sorter_destroy(join);
    scratch_close(ctx, dir);
}
END_TEST

/* mj_sorter_join_plan and mj_sorter_join_rows: a plan needs the caller's temp and a record;
 * the rows take only a plan their sorter filled with that temp, and check their own arguments
 * as mj_sorter_join does (plans made by hand here: a compile-only context fills none). */
START_TEST(plan_arguments)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sort_desc d = primitive_desc(MJ_JOIN, MJ_KEY_U32, 0);
    mj_sorter *join = NULL, *other = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &join), MJ_OK);
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &other), MJ_OK);
    char *a = (char *)(uintptr_t)0x100000, *b = a + (1 << 20);
    char *ar = a + (2 << 20), *br = a + (3 << 20), *cnt = a + (4 << 20), *tmp = a + (5 << 20);
    size_t tb = 0;
    ck_assert_int_eq(mj_sorter_temp_size(join, 20, 0, &tb), MJ_OK);
    mj_join_plan plan;
    memset(&plan, 0x7F, sizeof plan);
    mjt_expect(ctx, mj_sorter_join_plan(join, MJ_JOIN_INNER, a, 10, b, 10, cnt, NULL, 0, NULL,
                                        &plan),
               MJ_ERR_INVALID_ARGUMENT, "temp is NULL", "a plan without temp");
    ck_assert_uint_eq(plan.stamp, 0); /* cleared on failure */
    mjt_expect(ctx, mj_sorter_join_plan(join, MJ_JOIN_INNER, a, 10, b, 10, cnt, tmp, tb, NULL,
                                        NULL),
               MJ_ERR_INVALID_ARGUMENT, "plan is NULL", "no plan record");
    mjt_expect(ctx, mj_sorter_join_plan(join, (mj_join_kind)7, a, 10, b, 10, cnt, tmp, tb, NULL,
                                        &plan),
               MJ_ERR_INVALID_ARGUMENT, "kind", "a plan of an unknown kind");
    mjt_expect(ctx, mj_sorter_join_plan(join, MJ_JOIN_LEFT, a, 10, b, 10, cnt, tmp, 1, NULL,
                                        &plan),
               MJ_ERR_INVALID_ARGUMENT, "too small", "a plan in too small a temp");
    mjt_expect(ctx, mj_sorter_join_plan(join, MJ_JOIN_OUTER, a, 10, b, 10, cnt, tmp, tb, NULL,
                                        &plan),
               MJ_ERR_UNSUPPORTED, "compile-only", "a valid plan");
    ck_assert_uint_eq(plan.stamp, 0);
    ck_assert_int_eq(mj_sorter_join_plan(NULL, MJ_JOIN_INNER, a, 10, b, 10, cnt, tmp, tb, NULL,
                                         &plan),
                     MJ_ERR_INVALID_ARGUMENT);

    mj_join_plan p = {join, MJ_JOIN_OUTER, 10, 10, tmp, tb, MJ_JOIN_PLAN_STAMP};
#define ROWS(pl, is, x, y, cap, t, bytes)                                                        \
    mj_sorter_join_rows(join, pl, is, x, y, cap, t, bytes, NULL)
    mjt_expect(ctx, ROWS(&p, 4, ar, br, 10, tmp, tb), MJ_ERR_UNSUPPORTED, "compile-only",
               "rows of a plan");
    mjt_expect(ctx, ROWS(&p, 4, NULL, NULL, 0, tmp, tb), MJ_ERR_UNSUPPORTED, "compile-only",
               "no room");
    mjt_expect(ctx, ROWS(NULL, 4, ar, br, 10, tmp, tb), MJ_ERR_INVALID_ARGUMENT, "plan is NULL",
               "rows without a plan");
    mj_join_plan unfilled = p;
    unfilled.stamp = 0;
    mjt_expect(ctx, ROWS(&unfilled, 4, ar, br, 10, tmp, tb), MJ_ERR_INVALID_ARGUMENT,
               "not filled", "an unfilled plan");
    mjt_expect(ctx, mj_sorter_join_rows(other, &p, 4, ar, br, 10, tmp, tb, NULL),
               MJ_ERR_INVALID_ARGUMENT, "another sorter", "another sorter's plan");
    mjt_expect(ctx, ROWS(&p, 4, ar, br, 10, tmp + 256, tb), MJ_ERR_INVALID_ARGUMENT,
               "not the plan's", "another temp");
    mjt_expect(ctx, ROWS(&p, 4, ar, br, 10, tmp, tb + 256), MJ_ERR_INVALID_ARGUMENT,
               "not the plan's", "another temp size");
    mjt_expect(ctx, ROWS(&p, 2, ar, br, 10, tmp, tb), MJ_ERR_INVALID_ARGUMENT, "4",
               "2-byte rows");
    mjt_expect(ctx, ROWS(&p, 8, ar, NULL, 10, tmp, tb), MJ_ERR_INVALID_ARGUMENT,
               "b_rows is NULL", "NULL b_rows");
    mjt_expect(ctx, ROWS(&p, 4, tmp + 64, br, 10, tmp, tb), MJ_ERR_INVALID_ARGUMENT,
               "a_rows overlaps temp", "rows over the plan's temp");
    mjt_expect(ctx, ROWS(&p, 8, ar, ar + 40, 10, tmp, tb), MJ_ERR_INVALID_ARGUMENT,
               "b_rows overlaps a_rows", "b_rows over a_rows");
    mj_join_plan wide = p;
    wide.a_count = 1ull << 32;
    mjt_expect(ctx, ROWS(&wide, 4, ar, br, 10, tmp, tb), MJ_ERR_TOO_LARGE, "index_size 8",
               "2^32 a rows with 4-byte rows");
    /* The rows read the keys' places from nothing but the plan: a and b may be anything. */
    mjt_expect(ctx, ROWS(&p, 4, a, b, 10, tmp, tb), MJ_ERR_UNSUPPORTED, "compile-only",
               "rows where the keys were");
    ck_assert_int_eq(mj_sorter_join_rows(NULL, &p, 4, ar, br, 10, tmp, tb, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
#undef ROWS
    mj_sorter_destroy(other);
    mj_sorter_destroy(join);
    scratch_close(ctx, dir);
}
END_TEST

static Suite *join_args_suite(void) {
    Suite *s = suite_create("join_args");
    TCase *tg = tcase_create("gen");
    tcase_add_test(tg, spec_checks);
    tcase_add_test(tg, request_key);
    suite_add_tcase(s, tg);
    TCase *ta = tcase_create("api");
    tcase_set_timeout(ta, 300);
    tcase_add_test(ta, temp_size);
    tcase_add_test(ta, api_arguments);
    tcase_add_test(ta, plan_arguments);
    suite_add_tcase(s, ta);
    return s;
}

int main(void) { return mjt_run(join_args_suite(), 1); }
