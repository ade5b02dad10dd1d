/* SPDX-License-Identifier: Apache-2.0 */
/* Bulk remove and bulk insert without a GPU: the generator's checks (value sizes, tiles, no
 * comparator), the request key (order, less and the built-in kind of one size not used), the
 * API's argument checks in a compile-only context, which all come before the missing device
 * is noticed, and deployment: a bundle and a tuning-file record. CPU (and NVRTC for the
 * sorters). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_support.h"
#include "test_support.h"

static const char rec12_source[] = "struct rec12 { unsigned a, b, c; };";

static mj_kernel_spec bulk_spec(mj_primitive p, size_t value_size) {
    mj_kernel_spec s = primitive_spec(p, MJ_KEY_CUSTOM, value_size, 128, 7);
    s.type_name = "rec12";
    s.type_source = rec12_source;
    s.type_size = 12;
    s.type_align = 4;
    return s;
}

static mj_sort_desc rec12_desc(mj_primitive p, size_t value_size) {
    mj_sort_desc d = {0};
    d.primitive = p;
    d.key = MJ_KEY_CUSTOM;
    d.type_name = "rec12";
    d.type_source = rec12_source;
    d.type_size = 12;
    d.type_align = 4;
    d.value_size = value_size;
    return d;
}

START_TEST(spec_checks)
{
    char err[512] = "";
    for (int p = MJ_BULK_REMOVE; p <= MJ_BULK_INSERT; ++p) {
        /* Custom keys need no comparator; every value size 0..64 generates, with only the
         * primitive's kernels and no mj_less. */
        for (size_t v = 0; v <= 64; v += v < 16 ? 1 : 16) {
            mj_kernel_spec s = bulk_spec((mj_primitive)p, v);
            char *src = generated(&s);
            ck_assert_ptr_null(strstr(src, "mj_less"));
            ck_assert_ptr_nonnull(strstr(src, p == MJ_BULK_REMOVE ? "mj_remove_tiles("
                                                                   : "mj_insert_tiles("));
            ck_assert_ptr_null(strstr(src, p == MJ_BULK_REMOVE ? "mj_insert_tiles("
                                                                : "mj_remove_tiles("));
            free(src);
        }
        mj_kernel_spec s = bulk_spec((mj_primitive)p, 65);
        ck_assert_int_ne(mj__spec_check(&s, err, sizeof err), 0);
        ck_assert_ptr_nonnull(strstr(err, "value"));
        s = bulk_spec((mj_primitive)p, 4);
        s.bs_nt = 256;
        ck_assert_int_ne(mj__spec_check(&s, err, sizeof err), 0);
        ck_assert_ptr_nonnull(strstr(err, "blocksort"));
        s = bulk_spec((mj_primitive)p, 4);
        s.nt = 1024;
        s.vt = 63;
        ck_assert_int_ne(mj__spec_check(&s, err, sizeof err), 0);
        ck_assert_ptr_nonnull(strstr(err, "shared memory"));
        /* A comparator is not pasted, so not even a broken one is refused. */
        s = bulk_spec((mj_primitive)p, 0);
        s.less = "a.a < ; b.a";
        ck_assert_int_eq(mj__spec_check(&s, err, sizeof err), 0);
    }
}
END_TEST

/* Order, less and which built-in kind of a size do not reach the spec: one kernel, one bundle
 * entry; the value size and the primitive do. */
START_TEST(request_key)
{
    check_request_key(MJ_BULK_REMOVE, MJ_KEY_U32, REQUEST_ANY_ORDER | REQUEST_ANY_KIND,
                      MJ_BULK_INSERT, 0);
}
END_TEST

START_TEST(remove_arguments)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sorter *keys = NULL, *pairs = NULL;
    mj_sort_desc d = rec12_desc(MJ_BULK_REMOVE, 0);
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &keys), MJ_OK);
    d.value_size = 12;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &pairs), MJ_OK);

    /* Temp: one 8-byte partition entry per tile of the source, and one more. */
    int nt, vt;
    mj_sorter_tile(keys, &nt, &vt);
    size_t nv = (size_t)nt * (size_t)vt, bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(keys, 10 * nv + 1, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 12 * 8);
    mjt_expect(ctx, mj_sorter_temp_size(keys, SIZE_MAX, 0, &bytes), MJ_ERR_TOO_LARGE, NULL,
               "remove temp of SIZE_MAX");

    char *k = (char *)(uintptr_t)0x100000, *v = k + (1 << 20), *ix = k + (2 << 20);
    char *ok = k + (3 << 20), *ov = k + (4 << 20);
    ck_assert_int_eq(mj_sorter_bulk_remove(NULL, k, NULL, 100, ix, 10, 4, ok, NULL, NULL, 0,
                                           NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    mjt_expect(ctx, mj_sorter_bulk_remove(keys, k, NULL, 100, ix, 10, 2, ok, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "index_size", "2-byte indices");
    mjt_expect(ctx, mj_sorter_bulk_remove(keys, k, NULL, 100, ix, 101, 4, ok, NULL, NULL, 0,
                                          NULL),
               MJ_ERR_INVALID_ARGUMENT, "num_indices > n", "more indices than elements");
    mjt_expect(ctx, mj_sorter_bulk_remove(keys, k, NULL, SIZE_MAX, ix, 1, 8, ok, NULL, NULL, 0,
                                          NULL),
               MJ_ERR_TOO_LARGE, NULL, "SIZE_MAX elements");
    /* Values exactly when the sorter has them, in and out. */
    mjt_expect(ctx, mj_sorter_bulk_remove(keys, k, v, 100, ix, 10, 4, ok, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "value_size 0", "values to a keys-only remove");
    mjt_expect(ctx, mj_sorter_bulk_remove(keys, k, NULL, 100, ix, 10, 4, ok, ov, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values", "out_values to a keys-only remove");
    mjt_expect(ctx, mj_sorter_bulk_remove(pairs, k, NULL, 100, ix, 10, 4, ok, ov, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "values", "no values to a pairs remove");
    mjt_expect(ctx, mj_sorter_bulk_remove(pairs, k, v, 100, ix, 10, 4, ok, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values", "no out_values to a pairs remove");
    /* NULL arrays. */
    mjt_expect(ctx, mj_sorter_bulk_remove(keys, NULL, NULL, 100, ix, 10, 4, ok, NULL, NULL, 0,
                                          NULL),
               MJ_ERR_INVALID_ARGUMENT, "keys", "NULL keys");
    mjt_expect(ctx, mj_sorter_bulk_remove(keys, k, NULL, 100, NULL, 10, 4, ok, NULL, NULL, 0,
                                          NULL),
               MJ_ERR_INVALID_ARGUMENT, "indices", "NULL indices");
    mjt_expect(ctx, mj_sorter_bulk_remove(keys, k, NULL, 100, ix, 10, 4, NULL, NULL, NULL, 0,
                                          NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys", "NULL out_keys");
    /* Overlaps: each output against every input and the other output. */
    mjt_expect(ctx, mj_sorter_bulk_remove(keys, k, NULL, 100, ix, 10, 4, k + 12 * 99, NULL, NULL,
                                          0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys overlaps keys", "out_keys over keys");
    mjt_expect(ctx, mj_sorter_bulk_remove(keys, k, NULL, 100, ix, 10, 4, ix + 36, NULL, NULL, 0,
                                          NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys overlaps indices", "out_keys over indices");
    mjt_expect(ctx, mj_sorter_bulk_remove(pairs, k, v, 100, ix, 10, 8, ok, v + 8, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values overlaps values", "out_values over values");
    mjt_expect(ctx, mj_sorter_bulk_remove(pairs, k, v, 100, ix, 10, 8, ok, ok + 12 * 89, NULL, 0,
                                          NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values overlaps out_keys",
               "out_values over out_keys");
    /* Adjacent arrays do not overlap; too little temp is refused. */
    mjt_expect(ctx, mj_sorter_bulk_remove(keys, k, NULL, 100, ix, 10, 4, k + 1200, NULL, ov, 1,
                                          NULL),
               MJ_ERR_INVALID_ARGUMENT, NULL, "temp too small");
    /* Nothing kept, nothing given: every check passes up to the missing device. */
    mjt_expect(ctx, mj_sorter_bulk_remove(keys, k, NULL, 100, ix, 100, 4, NULL, NULL, NULL, 0,
                                          NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "everything removed");
    mjt_expect(ctx, mj_sorter_bulk_remove(pairs, NULL, NULL, 0, NULL, 0, 4, NULL, NULL, NULL, 0,
                                          NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "nothing");
    mjt_expect(ctx, mj_sorter_bulk_remove(pairs, k, v, 100, ix, 10, 8, ok, ov, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "a valid remove without a device");
    mjt_expect(ctx, mj_sorter_bulk_remove(keys, k, NULL, 100, NULL, 0, 4, k + 1200, NULL, NULL, 0,
                                          NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "nothing removed, adjacent out");
    /* The one-call function. */
    d = rec12_desc(MJ_MERGESORT, 0);
    mjt_expect(ctx, mj_bulk_remove(ctx, &d, k, v, 100, ix, 10, 4, ok, ov, 12, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "mj_bulk_remove");
    mjt_expect(ctx, mj_bulk_remove(ctx, &d, k, v, 100, ix, 10, 4, ok, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "value_size 0", "mj_bulk_remove with value_size 0");
    mj_sorter_destroy(keys);
    mj_sorter_destroy(pairs);
    scratch_close(ctx, dir);
}
END_TEST

START_TEST(insert_arguments)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sorter *keys = NULL, *pairs = NULL;
    mj_sort_desc d = primitive_desc(MJ_BULK_INSERT, MJ_KEY_U64, 0);
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &keys), MJ_OK);
    d.value_size = 4;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &pairs), MJ_OK);
    size_t bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(pairs, 1000, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 16);

    char *ak = (char *)(uintptr_t)0x100000, *av = ak + (1 << 20), *pos = ak + (2 << 20);
    char *bk = ak + (3 << 20), *bv = ak + (4 << 20), *ok = ak + (5 << 20), *ov = ak + (6 << 20);
    ck_assert_int_eq(mj_sorter_bulk_insert(NULL, ak, NULL, pos, 10, 4, bk, NULL, 100, ok, NULL,
                                           NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    mjt_expect(ctx, mj_sorter_bulk_insert(keys, ak, NULL, pos, 10, 16, bk, NULL, 100, ok, NULL,
                                          NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "index_size", "16-byte positions");
    mjt_expect(ctx, mj_sorter_bulk_insert(keys, ak, NULL, pos, SIZE_MAX, 8, bk, NULL, 2, ok,
                                          NULL, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "a_count + b_count", "counts overflowing");
    mjt_expect(ctx, mj_sorter_bulk_insert(keys, ak, av, pos, 10, 4, bk, NULL, 100, ok, NULL,
                                          NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "value_size 0", "a_values to a keys-only insert");
    mjt_expect(ctx, mj_sorter_bulk_insert(pairs, ak, av, pos, 10, 4, bk, NULL, 100, ok, ov,
                                          NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "values", "no b_values to a pairs insert");
    mjt_expect(ctx, mj_sorter_bulk_insert(pairs, ak, av, pos, 10, 4, bk, bv, 100, ok, NULL,
                                          NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values", "no out_values to a pairs insert");
    mjt_expect(ctx, mj_sorter_bulk_insert(keys, ak, NULL, NULL, 10, 4, bk, NULL, 100, ok, NULL,
                                          NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "positions", "NULL positions");
    mjt_expect(ctx, mj_sorter_bulk_insert(keys, ak, NULL, pos, 10, 4, NULL, NULL, 100, ok, NULL,
                                          NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "b_keys", "NULL b_keys");
    mjt_expect(ctx, mj_sorter_bulk_insert(keys, ak, NULL, pos, 10, 4, bk, NULL, 100, NULL, NULL,
                                          NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys", "NULL out_keys");
    mjt_expect(ctx, mj_sorter_bulk_insert(keys, ak, NULL, pos, 10, 4, bk, NULL, 100, bk + 8 * 99,
                                          NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys overlaps b_keys", "out_keys over b_keys");
    mjt_expect(ctx, mj_sorter_bulk_insert(keys, ak, NULL, pos, 10, 4, bk, NULL, 100, pos + 36,
                                          NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_keys overlaps positions", "out_keys over positions");
    mjt_expect(ctx, mj_sorter_bulk_insert(pairs, ak, av, pos, 10, 4, bk, bv, 100, ok, av + 36,
                                          NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out_values overlaps a_values",
               "out_values over a_values");
    mjt_expect(ctx, mj_sorter_bulk_insert(keys, ak, NULL, pos, 10, 4, bk, NULL, 100, ok, NULL,
                                          ov, 1, NULL),
               MJ_ERR_INVALID_ARGUMENT, NULL, "temp too small");
    /* Empty a (positions may then be NULL), empty b, nothing. */
    mjt_expect(ctx, mj_sorter_bulk_insert(keys, NULL, NULL, NULL, 0, 4, bk, NULL, 100, ok, NULL,
                                          NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "nothing to insert");
    mjt_expect(ctx, mj_sorter_bulk_insert(pairs, ak, av, pos, 10, 8, NULL, NULL, 0, ok, ov, NULL,
                                          0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "into nothing");
    mjt_expect(ctx, mj_sorter_bulk_insert(pairs, NULL, NULL, NULL, 0, 8, NULL, NULL, 0, NULL,
                                          NULL, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "nothing at all");
    mjt_expect(ctx, mj_sorter_bulk_insert(pairs, ak, av, pos, 10, 8, bk, bv, 100, ok, ov, NULL, 0,
                                          NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "a valid insert without a device");
    mj_sort_desc_init(&d, MJ_KEY_F64, MJ_DESCENDING);
    mjt_expect(ctx, mj_bulk_insert(ctx, &d, ak, av, pos, 10, 4, bk, bv, 100, ok, ov, 4, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "mj_bulk_insert");
    mj_sorter_destroy(keys);
    mj_sorter_destroy(pairs);
    scratch_close(ctx, dir);
}
END_TEST

/* A bundle of remove (rec12 with 12-byte values) and insert (u32 keys) serves them, whatever
 * the order and the built-in kind of that size, and a tuning record sets the remove's tile. */
START_TEST(deploy)
{
    char *dir = mjt_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/bulk.mjb", dir);
    mj_sort_desc d[3] = {rec12_desc(MJ_BULK_REMOVE, 12),
                         primitive_desc(MJ_BULK_INSERT, MJ_KEY_U32, 0),
                         primitive_desc(MJ_BULK_INSERT, MJ_KEY_F32, 0)}; /* the same entry */
    write_bundle(dir, path, d, 3, 2);
    mj_context *ctx = mjt_deploy_context(90, dir, path, "");
    d[1].key = MJ_KEY_I32;
    d[1].order = MJ_DESCENDING;
    expect_source(ctx, &d[1], 3);
    expect_source(ctx, &d[0], 3);
    d[0].value_size = 4;
    expect_not_in_bundle(ctx, &d[0], NULL, "remove of 4-byte values");
    mj_tile rec = {MJ_BULK_REMOVE, 8, 8, 64, 5, 64, 3, 0, 0};
    ctx = retune(ctx, dir, &rec, 1, "");
    mj_sort_desc r = primitive_desc(MJ_BULK_REMOVE, MJ_KEY_I64, 8);
    expect_tile(ctx, &r, 64, 5);
    scratch_close(ctx, dir);
}
END_TEST

static Suite *bulk_args_suite(void) {
    Suite *s = suite_create("bulk_args");
    TCase *tg = tcase_create("gen");
    tcase_add_test(tg, spec_checks);
    tcase_add_test(tg, request_key);
    suite_add_tcase(s, tg);
    TCase *ta = tcase_create("api");
    tcase_set_timeout(ta, 300);
    tcase_add_test(ta, remove_arguments);
    tcase_add_test(ta, insert_arguments);
    tcase_add_test(ta, deploy);
    suite_add_tcase(s, ta);
    return s;
}

int main(void) { return mjt_run(bulk_args_suite(), 1); }
