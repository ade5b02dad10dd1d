/* SPDX-License-Identifier: Apache-2.0 */
/* Reduce by key without a GPU: the generator's checks (a value type and its operator, values
 * of 1 to 64 bytes, no value type for any other primitive, shared memory), the source (the
 * value type's static_asserts, which NVRTC enforces), the request key (value type, operator,
 * order and less are part of it), the API's argument checks in a compile-only context, which
 * all come before the missing device is noticed, and deployment: a bundle, a tuning-file
 * record, MERGEJIT_TILE and mj_tile_check. CPU (and NVRTC for the sorters). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_support.h"
#include "test_support.h"

/* u32 keys ascending with `type` values of vs bytes (operator and identity NULL: a + b). */
static mj_sort_desc rbk_desc(mj_key_kind key, const char *type, size_t vs) {
    mj_sort_desc d = primitive_desc(MJ_REDUCE_BY_KEY, key, vs);
    d.value_type = type;
    return d;
}

static mj_kernel_spec rbk_spec(const char *type, size_t vs) {
    mj_kernel_spec s = primitive_spec(MJ_REDUCE_BY_KEY, MJ_KEY_U32, vs, 128, 11);
    s.value_type = type;
    return s;
}

static const char aff_source[] = "struct aff { unsigned m, c; };";

START_TEST(spec_checks)
{
    mj_kernel_spec s = rbk_spec(NULL, 4);
    refused(&s, "value_type", "no value type");
    s = rbk_spec("float;", 4);
    refused(&s, "value_type", "a value type that is no name");
    s = rbk_spec("float", 0);
    refused(&s, "value", "no values");
    s = rbk_spec("float", 65);
    refused(&s, "value", "65-byte values");
    s = rbk_spec("float", 4);
    s.identity = "0";
    refused(&s, "without an operator", "an identity alone");
    s = rbk_spec("float", 4);
    s.op = "max(a, b)";
    refused(&s, "identity", "an operator alone");
    s.identity = "0; }";
    refused(&s, "';'", "an identity with ';'");
    s = rbk_spec("aff", 8);
    s.value_type_source = aff_source;
    refused(&s, "operator", "a value type of source without an operator");
    /* Every other primitive refuses a value type, so its source and keys stay as they were. */
    for (int p = 0; p < MJ_PRIMITIVE_COUNT; ++p) {
        mj_primitive_info info;
        if (p == MJ_REDUCE_BY_KEY || mj_primitive_query((mj_primitive)p, &info)) continue;
        s = primitive_spec((mj_primitive)p, MJ_KEY_I32, info.values == MJ_VALUES_REQUIRED ? 4 : 0,
                           128, 11);
        s.value_type = "float";
        refused(&s, "value_type", mj_primitive_name((mj_primitive)p));
        s.value_type = NULL;
        s.value_type_source = aff_source;
        refused(&s, "value_type", mj_primitive_name((mj_primitive)p));
    }
    /* Past the last primitive: unknown. */
    s = rbk_spec("float", 4);
    s.primitive = MJ_PRIMITIVE_COUNT;
    refused(&s, "unknown primitive", "primitive MJ_PRIMITIVE_COUNT");
    ck_assert_ptr_null(mj_primitive_name(MJ_PRIMITIVE_COUNT));
    ck_assert_int_eq(mj_primitive_parse("reducebykey"), MJ_REDUCE_BY_KEY);
    mj_primitive_info info;
    ck_assert_int_eq(mj_primitive_query(MJ_PRIMITIVE_COUNT, &info), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_primitive_query(MJ_REDUCE_BY_KEY, &info), MJ_OK);
    ck_assert_int_eq(info.comparator, 1);
    ck_assert_int_eq(info.values, MJ_VALUES_REQUIRED);

    /* The source: the kernel, the comparator, the value type, its checks and operator. */
    s = custom_spec();
    s.primitive = MJ_REDUCE_BY_KEY;
    s.value_size = 8;
    s.value_type = "aff";
    s.value_type_source = aff_source;
    s.op = "aff{a.m * b.m, a.c * b.m + b.c}";
    s.identity = "aff{1u, 0u}";
    s.nt = 128;
    s.vt = 7;
    char *src = generated(&s);
    ck_assert_ptr_nonnull(strstr(src, "mj_reduce_by_key_tiles("));
    ck_assert_ptr_nonnull(strstr(src, custom_less));
    ck_assert_ptr_nonnull(strstr(src, aff_source));
    ck_assert_ptr_nonnull(strstr(src, "typedef aff mj_value;"));
    ck_assert_ptr_nonnull(strstr(src, "static_assert(sizeof(mj_value) == 8"));
    ck_assert_ptr_nonnull(strstr(src, "static_assert(alignof(mj_value) <= 8"));
    ck_assert_ptr_nonnull(strstr(src, "MJ_DEVICE mj_value mj_value_op(const mj_value &a"));
    ck_assert_ptr_nonnull(strstr(src, "aff{a.m * b.m, a.c * b.m + b.c}"));
    ck_assert_ptr_nonnull(strstr(src, "#define MJ_VALUE_IS_INDEX 0"));
    free(src);
    /* The default operator, a + b over the type. */
    s = rbk_spec("unsigned long long", 8);
    s.op = "a + b";
    s.identity = "0";
    src = generated(&s);
    ck_assert_ptr_nonnull(strstr(src, "typedef unsigned long long mj_value;"));
    free(src);
    static const size_t value_sizes[] = {1, 4, 9, 16, 64};
    default_tiles_fit(MJ_REDUCE_BY_KEY, value_sizes, 5);
}
END_TEST

/* The value type, its source, the operator and identity, the order and less are all part of
 * the request: each is another kernel. */
START_TEST(request_key)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sort_desc d = rbk_desc(MJ_KEY_F32, "float", 4), e = d;
    ck_assert(same_request(ctx, &d, &e));
    e.op = "a + b";
    e.identity = "0";
    ck_assert(same_request(ctx, &d, &e)); /* the default spelled out */
    e.identity = "0.0f";
    ck_assert(!same_request(ctx, &d, &e));
    e = d;
    e.value_type = "int";
    ck_assert(!same_request(ctx, &d, &e));
    e = d;
    e.op = "max(a, b)";
    e.identity = "-INFINITY";
    ck_assert(!same_request(ctx, &d, &e));
    e.value_type_source = "struct unused {};";
    mj_sort_desc f = e;
    f.value_type_source = NULL;
    ck_assert(!same_request(ctx, &e, &f));
    e = d;
    e.order = MJ_DESCENDING;
    ck_assert(!same_request(ctx, &d, &e));
    e = d;
    e.less = "a > b";
    ck_assert(!same_request(ctx, &d, &e));
    e = d;
    e.key = MJ_KEY_U32;
    ck_assert(!same_request(ctx, &d, &e));
    /* Another primitive refuses the value type before any request is made. */
    e = d;
    e.primitive = MJ_SET_OPS;
    mj_kernel_spec spec;
    mjt_expect(ctx, mj__spec_from_desc(ctx, &e, &spec), MJ_ERR_INVALID_ARGUMENT, "value_type",
               "setops with a value type");
    scratch_close(ctx, dir);
}
END_TEST

START_TEST(api_arguments)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sort_desc d = rbk_desc(MJ_KEY_U32, "float", 4);
    mj_sorter *s = NULL, *big = NULL, *merge = NULL, *bad = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    /* NVRTC enforces the value type's size and alignment. */
    d.value_type = "double";
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_COMPILE, "is not 4 as declared",
               "double as 4-byte values");
    d = rbk_desc(MJ_KEY_U32, "wide", 32);
    d.value_type_source = "struct __align__(16) wide { unsigned w[8]; };";
    d.op = "a";
    d.identity = "wide{}";
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_COMPILE, "alignment of arrays",
               "a 16-byte aligned 32-byte value");
    ck_assert_ptr_null(bad);
    d = rbk_desc(MJ_KEY_U32, NULL, 4);
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "value_type",
               "no value type");
    d = rbk_desc(MJ_KEY_U64, "aff3", 12); /* values over 8 bytes: their own look-back slots */
    d.value_type_source = "struct aff3 { unsigned m, c, k; };";
    d.op = "aff3{a.m * b.m, a.c * b.m + b.c, a.k + b.k}";
    d.identity = "aff3{1u, 0u, 0u}";
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &big), MJ_OK);
    d = primitive_desc(MJ_MERGE, MJ_KEY_U32, 0);
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &merge), MJ_OK);
    d.value_type = "float";
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "value_type",
               "merge with a value type");

    /* Temp: 16 bytes and two words per tile; over 8-byte values two values per tile more. */
    size_t nv = chosen_tile(ctx, s, MJ_REDUCE_BY_KEY, 4, 4), bytes = 0, bytes_big = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, 0, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 16);
    ck_assert_int_eq(mj_sorter_temp_size(s, 10 * nv + 1, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 16 + 11 * 16);
    size_t nv_big = chosen_tile(ctx, big, MJ_REDUCE_BY_KEY, 8, 12);
    ck_assert_int_eq(mj_sorter_temp_size(big, 10 * nv_big + 1, 0, &bytes_big), MJ_OK);
    ck_assert_uint_ge(bytes_big, 16 + 11 * 16 + 11 * 24);
    mjt_expect(ctx, mj_sorter_temp_size(s, (size_t)1 << 62, 0, &bytes), MJ_ERR_TOO_LARGE, "2^62",
               "temp of 2^62");

    char *k = (char *)(uintptr_t)0x100000, *v = k + (1 << 20), *ok = k + (2 << 20);
    char *ov = k + (3 << 20), *cnt = k + (4 << 20), *tmp = k + (8 << 20);
    /* Wrong sorters, no sorter. */
    mjt_expect(ctx, mj_sorter_reduce_by_key(merge, k, v, 10, ok, ov, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "merge", "reduce by key with a merge sorter");
    mjt_expect(ctx, mj_sorter_merge(s, k, NULL, 10, v, NULL, 10, ok, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "reducebykey", "merge with a reduce-by-key sorter");
    mjt_expect(ctx, mj_sorter_sort(s, k, v, 10, NULL, 0, NULL), MJ_ERR_INVALID_ARGUMENT,
               "reducebykey", "sort with a reduce-by-key sorter");
    ck_assert_int_eq(mj_sorter_reduce_by_key(NULL, k, v, 10, ok, ov, cnt, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    /* Counts. */
    mjt_expect(ctx, mj_sorter_reduce_by_key(s, k, v, (size_t)1 << 62, ok, ov, cnt, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "does not fit", "2^62 4-byte elements");
    mj_sorter *bytes1 = NULL;
    d = rbk_desc(MJ_KEY_U8, "unsigned char", 1);
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &bytes1), MJ_OK);
    mjt_expect(ctx, mj_sorter_reduce_by_key(bytes1, k, v, (size_t)1 << 62, ok, ov, cnt, NULL, 0,
                                            NULL),
               MJ_ERR_TOO_LARGE, "2^62", "2^62 1-byte elements");
    mj_sorter_destroy(bytes1);
    /* NULL arrays; with n == 0 only out_count is needed. */
    static const struct {
        int which;
        const char *name;
    } nulls[] = {{0, "keys is NULL"}, {1, "values is NULL"}, {2, "out_keys is NULL"},
                 {3, "out_values is NULL"}, {4, "out_count is NULL"}};
    for (size_t i = 0; i < sizeof nulls / sizeof *nulls; ++i) {
        void *p[5] = {k, v, ok, ov, cnt};
        p[nulls[i].which] = NULL;
        mjt_expect(ctx, mj_sorter_reduce_by_key(s, p[0], p[1], 10, p[2], p[3], p[4], NULL, 0,
                                                NULL),
                   MJ_ERR_INVALID_ARGUMENT, nulls[i].name, nulls[i].name);
    }
    mjt_expect(ctx, mj_sorter_reduce_by_key(s, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_count is NULL", "nothing, without out_count");
    mjt_expect(ctx, mj_sorter_reduce_by_key(s, NULL, NULL, 0, NULL, NULL, cnt, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "nothing");
    /* Overlaps: each output with the inputs and the outputs before it (10 elements: 40 bytes
     * each). */
    mjt_expect(ctx, mj_sorter_reduce_by_key(s, k, v, 10, k + 36, ov, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys overlaps keys", "out_keys over keys");
    mjt_expect(ctx, mj_sorter_reduce_by_key(s, k, v, 10, ok, v - 39, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values overlaps values", "out_values into values");
    mjt_expect(ctx, mj_sorter_reduce_by_key(s, k, v, 10, ok, ok + 4, cnt, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values overlaps out_keys", "out_values in out_keys");
    mjt_expect(ctx, mj_sorter_reduce_by_key(s, k, v, 10, ok, ov, ov + 32, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_count overlaps out_values", "out_count in out_values");
    mjt_expect(ctx, mj_sorter_reduce_by_key(s, k, v, 10, ok, ov, k, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_count overlaps keys", "out_count in keys");
    /* out_keys may end where values start. */
    mjt_expect(ctx, mj_sorter_reduce_by_key(s, k, v, 10, v - 40, ov, cnt, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "out_keys before values");
    /* Temp. */
    mjt_expect(ctx, mj_sorter_reduce_by_key(s, k, v, 10, ok, ov, cnt, tmp, 1, NULL),
               MJ_ERR_INVALID_ARGUMENT, "too small", "temp too small");
    mjt_expect(ctx, mj_sorter_reduce_by_key(s, k, v, 10, ok, ov, cnt, tmp + 8, 1 << 20, NULL),
               MJ_ERR_INVALID_ARGUMENT, "aligned", "misaligned temp");
    /* Valid calls reach the missing device. */
    mjt_expect(ctx, mj_sorter_reduce_by_key(s, k, v, 10, ok, ov, cnt, tmp, 1 << 20, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "valid call");
    mjt_expect(ctx, mj_sorter_reduce_by_key(big, k, v, 10, ok, ov, cnt, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "valid call, 12-byte values");
    /* The one-call function: the call's value size, the description's value type. */
    d = rbk_desc(MJ_KEY_I64, "long long", 0);
    d.order = MJ_DESCENDING;
    mjt_expect(ctx, mj_reduce_by_key(ctx, &d, k, v, 10, ok, ov, cnt, 8, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "mj_reduce_by_key");
    mjt_expect(ctx, mj_reduce_by_key(ctx, &d, k, v, 10, ok, ov, cnt, 4, NULL), MJ_ERR_COMPILE,
               "is not 4 as declared", "mj_reduce_by_key with the wrong value size");
    mjt_expect(ctx, mj_reduce_by_key(ctx, &d, k, v, 10, ok, ov, NULL, 8, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_count is NULL", "mj_reduce_by_key without out_count");
    mjt_expect(ctx, mj_reduce_by_key(ctx, NULL, k, v, 10, ok, ov, cnt, 8, NULL),
               MJ_ERR_INVALID_ARGUMENT, "desc", "mj_reduce_by_key without desc");
    mj_sorter_destroy(s);
    mj_sorter_destroy(big);
    mj_sorter_destroy(merge);
    scratch_close(ctx, dir);
}
END_TEST

/* A bundle of u32 keys with float sums and of the 16-byte custom key with 8-byte affine maps
 * serves them and nothing else. */
START_TEST(bundle)
{
    char *dir = mjt_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/rbk.mjb", dir);
    mj_sort_desc d[2] = {rbk_desc(MJ_KEY_U32, "float", 4), pair128_desc(MJ_REDUCE_BY_KEY)};
    d[1].value_size = 8;
    d[1].value_type = "aff";
    d[1].value_type_source = aff_source;
    d[1].op = "aff{a.m * b.m, a.c * b.m + b.c}";
    d[1].identity = "aff{1u, 0u}";
    write_bundle(dir, path, d, 2, 2);
    mj_context *ctx = mjt_deploy_context(90, dir, path, "");
    expect_source(ctx, &d[0], 3);
    expect_source(ctx, &d[1], 3);
    d[0].value_type = "int";
    expect_not_in_bundle(ctx, &d[0], "int values", "int values");
    scratch_close(ctx, dir);
}
END_TEST

START_TEST(tiles)
{
    tile_limits((mj_tile){MJ_REDUCE_BY_KEY, 4, 4, 128, 11, 128, 0, 0, 0},
                (mj_tile){MJ_REDUCE_BY_KEY, 8, 8, 1024, 63, 1024, 0, 0, 0});
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_deploy_context(90, dir, "", "");
    /* sm_90's row for 4-byte keys and values (gen/catalog.c); 8-byte keys keep the rule. */
    expect_default_tile(ctx, MJ_REDUCE_BY_KEY, 4, 4, 256, 11);
    expect_default_tile(ctx, MJ_REDUCE_BY_KEY, 8, 4, 128, 11);
    mj_tile rec[1] = {{MJ_REDUCE_BY_KEY, 4, 4, 256, 15, 256, 30, 0, 0}};
    ctx = retune(ctx, dir, rec, 1, "");
    mj_sort_desc d = rbk_desc(MJ_KEY_F32, "unsigned", 4);
    expect_tile(ctx, &d, 256, 15);
    expect_env_tile(ctx, &d, 64, 5);
    scratch_close(ctx, dir);
}
END_TEST

static Suite *rbk_args_suite(void) {
    Suite *s = suite_create("reduce_by_key_args");
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

int main(void) { return mjt_run(rbk_args_suite(), 1); }
