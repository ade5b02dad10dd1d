/* SPDX-License-Identifier: Apache-2.0 */
/* Reduce and scan without a GPU: the generator's checks of the operator and identity (the same
 * refusals as the comparator's), their place in the source and in the bundle request key (the
 * sorts' sources and keys unchanged), the API's argument checks in a compile-only context,
 * which all come before the missing device is noticed, and deployment: bundles holding two
 * scans of one type that differ only in the operator, tuning-file records, MERGEJIT_TILE and
 * mj_tile_check. CPU (and NVRTC for the sorters). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_support.h"
#include "test_support.h"

static mj_kernel_spec scan_spec(mj_primitive p, mj_key_kind key) {
    return primitive_spec(p, key, 0, 256, 15);
}

static const char affine_source[] = "struct affine { unsigned m, c, tag; };\n";

static mj_kernel_spec affine_spec(mj_primitive p) {
    mj_kernel_spec s = scan_spec(p, MJ_KEY_CUSTOM);
    s.type_name = "affine";
    s.type_source = affine_source;
    s.type_size = 12;
    s.type_align = 4;
    s.vt = 5;
    s.op = "affine{a.m * b.m, a.c * b.m + b.c, a.tag + b.tag}";
    s.identity = "affine{1, 0, 0}";
    return s;
}

/* ---------------------------------------------------------------- the generator */

START_TEST(operator_checks)
{
    mj_primitive p = (mj_primitive)_i;
    mj_kernel_spec s = affine_spec(p);
    s.op = NULL;
    s.identity = NULL;
    refused(&s, "needs an operator", "custom key without op");
    s = scan_spec(p, MJ_KEY_F16);
    refused(&s, "f16", "f16 with the default operator");
    s = scan_spec(p, MJ_KEY_BF16);
    refused(&s, "bf16", "bf16 with the default operator");
    s = scan_spec(p, MJ_KEY_U32);
    s.op = "max(a, b)";
    refused(&s, "identity", "op without identity");
    s.op = NULL;
    s.identity = "0";
    refused(&s, "without an operator", "identity without op");

    static const struct {
        const char *op, *identity, *needle;
    } bad[] = {
        {"a + b; }", "0", "';' is not allowed"},
        {"a + b", "0; }", "';' is not allowed"},
        {"a + b\n#define X", "0", "'#' is not allowed"},
        {"a /* x */ + b", "0", "comments"},
        {"a + b // x", "0", "comments"},
        {"a + \"b\"", "0", "string literals"},
        {"a + \\\nb", "0", "line continuations"},
        {"(a + b", "0", "unclosed bracket"},
        {"a + b)", "0", "unbalanced ')'"},
        {"a + b", "{0", "unclosed bracket"},
        {" ", "0", "operator expression is empty"},
        {"a + b", "", "identity expression is empty"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        s = scan_spec(p, MJ_KEY_U32);
        s.op = bad[i].op;
        s.identity = bad[i].identity;
        refused(&s, bad[i].needle, bad[i].op);
        /* The message names which of the two is wrong. */
        char err[512] = "";
        mj__spec_check(&s, err, sizeof err);
        int in_identity = strcmp(bad[i].op, "a + b") == 0;
        ck_assert_msg(strstr(err, in_identity ? "identity" : "operator") != NULL, "%s", err);
    }

    s = scan_spec(p, MJ_KEY_U32);
    s.value_size = 4;
    refused(&s, "value_size must be 0", "values");
    s = scan_spec(p, MJ_KEY_U32);
    s.bs_nt = 512;
    refused(&s, "no blocksort", "blocksort threads");
}
END_TEST

START_TEST(operator_in_source)
{
    mj_primitive p = (mj_primitive)_i;
    mj_kernel_spec s = affine_spec(p);
    char *src = generated(&s);
    ck_assert_ptr_nonnull(strstr(src, "mj_key mj_op(const mj_key &a, const mj_key &b)"));
    ck_assert_ptr_nonnull(strstr(src, "#line 1 \"operator\"\n    return (mj_key)(affine{a.m"));
    ck_assert_ptr_nonnull(strstr(src, "#line 1 \"identity\"\n    return (mj_key)(affine{1, 0, 0}"));
    ck_assert_ptr_null(strstr(src, "bool mj_less("));
    ck_assert_ptr_nonnull(strstr(src, p == MJ_SCAN ? "mj_scan_tiles(" : "mj_reduce_tiles("));
    free(src);

    /* Built-in keys default to a + b and KEY(0). */
    s = scan_spec(p, MJ_KEY_I64);
    src = generated(&s);
    ck_assert_ptr_nonnull(strstr(src, "return (mj_key)(a + b\n"));
    ck_assert_ptr_nonnull(strstr(src, "return (mj_key)(0\n"));
    free(src);
}
END_TEST

/* The sorts ignore op and identity: same source, same request key. Reduce and scan requests
 * differ by operator and by identity. */
START_TEST(operator_in_request_key)
{
    mj_kernel_spec sort = builtin_spec(MJ_KEY_U32, 0);
    uint8_t a[32], b[32];
    char *src_a = generated(&sort);
    mj__bundle_request_key(&sort, a);
    sort.op = "max(a, b)";
    sort.identity = "0";
    char *src_b = generated(&sort);
    mj__bundle_request_key(&sort, b);
    ck_assert_str_eq(src_a, src_b);
    ck_assert_mem_eq(a, b, 32);
    free(src_a);
    free(src_b);

    mj_kernel_spec s = scan_spec(MJ_SCAN, MJ_KEY_U32);
    s.op = "a + b";
    s.identity = "0";
    mj__bundle_request_key(&s, b);
    s.op = "max(a, b)";
    mj__bundle_request_key(&s, a);
    ck_assert_mem_ne(a, b, 32);
    s.identity = "1";
    mj__bundle_request_key(&s, b);
    ck_assert_mem_ne(a, b, 32);
    s.primitive = MJ_REDUCE;
    mj__bundle_request_key(&s, a);
    ck_assert_mem_ne(a, b, 32);
    char label[MJ_BUNDLE_LABEL_CAP];
    mj__bundle_request_label(&s, label, sizeof label);
    ck_assert_str_eq(label, "u32: max(a, b), 1");
}
END_TEST

/* The operator, not the order, reaches the spec: descending is the same kernel; a reduce is
 * another. */
START_TEST(request_key)
{
    check_request_key(MJ_SCAN, MJ_KEY_U32, REQUEST_ANY_ORDER, MJ_REDUCE, 0);
}
END_TEST

/* ---------------------------------------------------------------- the API */

START_TEST(api_arguments)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *scan = NULL, *reduce = NULL, *sort = NULL, *bad = NULL;

    d.primitive = MJ_SCAN;
    d.value_size = 4;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "value_size",
               "a scan with values");
    d.value_size = 0;
    d.key = MJ_KEY_CUSTOM;
    d.type_name = "affine";
    d.type_source = affine_source;
    d.type_size = 12;
    d.type_align = 4;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "operator",
               "a custom scan without op");
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_DESCENDING);
    d.primitive = MJ_SCAN;
    d.less = "a > b"; /* not used by scans */
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &scan), MJ_OK);
    d.primitive = MJ_REDUCE;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &reduce), MJ_OK);
    d.primitive = MJ_MERGESORT;
    d.less = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &sort), MJ_OK);

    int nt, vt;
    mj_sorter_tile(scan, &nt, &vt);
    size_t nv = (size_t)nt * (size_t)vt, bytes = 1;
    ck_assert_int_eq(mj_sorter_temp_size(scan, 0, 0, &bytes), MJ_OK);
    ck_assert_uint_eq(bytes, 0);
    ck_assert_int_eq(mj_sorter_temp_size(scan, 3 * nv + 1, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 8 + 4 * 8);
    mj_sorter_tile(reduce, &nt, &vt); /* sm_90 tiles of scan and reduce differ */
    nv = (size_t)nt * (size_t)vt;
    ck_assert_int_eq(mj_sorter_temp_size(reduce, nv, 0, &bytes), MJ_OK);
    ck_assert_uint_eq(bytes, 0); /* one block: no partials */
    ck_assert_int_eq(mj_sorter_temp_size(reduce, 100 * nv, 0, &bytes), MJ_OK);
    ck_assert_uint_eq(bytes, 100 * 4);
    mjt_expect(ctx, mj_sorter_temp_size(scan, SIZE_MAX, 0, &bytes), MJ_ERR_TOO_LARGE, NULL,
               "scan temp of SIZE_MAX");
    mjt_expect(ctx, mj_sorter_temp_size(reduce, SIZE_MAX / 2, 0, &bytes), MJ_ERR_TOO_LARGE, NULL,
               "reduce temp of SIZE_MAX / 2");

    char *fake = (char *)(uintptr_t)0x100000, *total = fake + 4096;
    /* Each run function takes only its own primitive. */
    mjt_expect(ctx, mj_sorter_scan(reduce, fake, 10, fake, MJ_SCAN_INCLUSIVE, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "reduce", "scan with a reduce sorter");
    mjt_expect(ctx, mj_sorter_reduce(scan, fake, 10, fake, NULL, 0, NULL), MJ_ERR_INVALID_ARGUMENT,
               "scan", "reduce with a scan sorter");
    mjt_expect(ctx, mj_sorter_scan(sort, fake, 10, fake, MJ_SCAN_INCLUSIVE, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "mergesort", "scan with a mergesort sorter");
    mjt_expect(ctx, mj_sorter_sort(scan, fake, NULL, 10, NULL, 0, NULL), MJ_ERR_INVALID_ARGUMENT,
               "scan", "sort with a scan sorter");

    /* Scan arguments, all refused before the device is needed. */
    mjt_expect(ctx, mj_sorter_scan(scan, NULL, 10, fake, MJ_SCAN_INCLUSIVE, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "in is NULL", "NULL in");
    mjt_expect(ctx, mj_sorter_scan(scan, fake, 10, NULL, MJ_SCAN_EXCLUSIVE, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out is NULL", "NULL out");
    mjt_expect(ctx, mj_sorter_scan(scan, fake, 10, fake, (mj_scan_kind)2, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "kind", "unknown kind");
    mjt_expect(ctx, mj_sorter_scan(scan, fake, 10, fake + 4, MJ_SCAN_INCLUSIVE, NULL, NULL, 0,
                                   NULL),
               MJ_ERR_INVALID_ARGUMENT, "overlaps", "out overlapping in");
    mjt_expect(ctx, mj_sorter_scan(scan, fake + 4, 10, fake, MJ_SCAN_INCLUSIVE, NULL, NULL, 0,
                                   NULL),
               MJ_ERR_INVALID_ARGUMENT, "overlaps", "in overlapping out");
    mjt_expect(ctx, mj_sorter_scan(scan, fake, 10, total, MJ_SCAN_INCLUSIVE, total + 36, NULL, 0,
                                   NULL),
               MJ_ERR_INVALID_ARGUMENT, "total overlaps", "total inside out");
    mjt_expect(ctx, mj_sorter_scan(scan, fake, 10, fake, MJ_SCAN_INCLUSIVE, fake, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "total overlaps", "total inside in");
    ck_assert_int_eq(mj_sorter_temp_size(scan, 10 * nv, 0, &bytes), MJ_OK);
    mjt_expect(ctx, mj_sorter_scan(scan, fake, 10 * nv, total, MJ_SCAN_INCLUSIVE, NULL,
                                   (void *)(uintptr_t)0x200000, bytes - 1, NULL),
               MJ_ERR_INVALID_ARGUMENT, "too small", "small temp");
    mjt_expect(ctx, mj_sorter_scan(scan, fake, SIZE_MAX, fake, MJ_SCAN_INCLUSIVE, NULL, NULL, 0,
                                   NULL),
               MJ_ERR_TOO_LARGE, NULL, "SIZE_MAX elements");
    /* Good arguments (in place, no total; or n == 0 with only total) reach the device check. */
    mjt_expect(ctx, mj_sorter_scan(scan, fake, 10, fake, MJ_SCAN_INCLUSIVE, NULL, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "in place");
    mjt_expect(ctx, mj_sorter_scan(scan, NULL, 0, NULL, MJ_SCAN_EXCLUSIVE, total, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "n == 0 with total");

    /* Reduce arguments. */
    mjt_expect(ctx, mj_sorter_reduce(reduce, fake, 10, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out is NULL", "NULL out");
    mjt_expect(ctx, mj_sorter_reduce(reduce, NULL, 10, fake, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "in is NULL", "NULL in");
    ck_assert_int_eq(mj_sorter_temp_size(reduce, 100 * nv, 0, &bytes), MJ_OK);
    mjt_expect(ctx, mj_sorter_reduce(reduce, fake, 100 * nv, total, (void *)(uintptr_t)0x200000,
                                     bytes - 1, NULL),
               MJ_ERR_INVALID_ARGUMENT, "too small", "small temp");
    mjt_expect(ctx, mj_sorter_reduce(reduce, NULL, 0, total, NULL, 0, NULL), MJ_ERR_UNSUPPORTED,
               "compile-only", "n == 0");

    /* The one-call functions set the primitive themselves. */
    mj_sort_desc_init(&d, MJ_KEY_F64, MJ_ASCENDING);
    d.op = "fmax(a, b)";
    d.identity = "-INFINITY";
    mjt_expect(ctx, mj_scan(ctx, &d, fake, 10, fake, MJ_SCAN_EXCLUSIVE, NULL, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "mj_scan");
    mjt_expect(ctx, mj_reduce(ctx, &d, fake, 10, total, NULL), MJ_ERR_UNSUPPORTED, "compile-only",
               "mj_reduce");
    d.identity = NULL;
    mjt_expect(ctx, mj_reduce(ctx, &d, fake, 10, total, NULL), MJ_ERR_INVALID_ARGUMENT, "identity",
               "mj_reduce: op without identity");

    mj_sorter_destroy(scan);
    mj_sorter_destroy(reduce);
    mj_sorter_destroy(sort);
    scratch_close(ctx, dir);
}
END_TEST

/* ---------------------------------------------------------------- deployment */

/* Two u32 scans with different operators are two entries, each found again by its own
 * operator; a third operator is not in the bundle. */
START_TEST(bundle_by_operator)
{
    char *dir = mjt_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/scan.mjb", dir);
    mj_sort_desc d[4] = {primitive_desc(MJ_SCAN, MJ_KEY_U32, 0)};
    d[1] = d[0];
    d[1].op = "max(a, b)";
    d[1].identity = "0";
    d[2] = d[1];
    d[2].order = MJ_DESCENDING; /* not used by scans: the same entry */
    d[3] = d[2];
    d[3].primitive = MJ_REDUCE;
    write_bundle(dir, path, d, 4, 3);

    mj_context *ctx = mjt_deploy_context(90, dir, path, "");
    expect_source(ctx, &d[0], 3);
    mj_sort_desc e = d[0];
    e.op = "a + b"; /* the default spelled out: the same entry, whose module is loaded */
    e.identity = "0";
    expect_source(ctx, &e, 2);
    expect_source(ctx, &d[1], 3);
    e = d[1];
    e.primitive = MJ_REDUCE;
    expect_source(ctx, &e, 3);
    e = d[0];
    e.op = "min(a, b)";
    e.identity = "0xFFFFFFFFu";
    expect_not_in_bundle(ctx, &e, "min(a, b)", "another operator");
    scratch_close(ctx, dir);
}
END_TEST

/* Tiles: the check (no blocksort, no values), the tuning file's record, MERGEJIT_TILE. */
START_TEST(tiles)
{
    char why[256];
    mj_tile t = {MJ_SCAN, 4, 0, 128, 7, 128, 0, 0, 0};
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_OK);
    t.bs_nt = 256;
    tile_refused(&t, "no blocksort");
    t.bs_nt = 128;
    t.value_size = 4;
    tile_refused(&t, NULL);

    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_deploy_context(90, dir, "", "");
    mj_tile def;
    ck_assert_int_eq(mj_context_tile(ctx, MJ_REDUCE, 8, 0, &def), MJ_OK);
    ck_assert_int_eq(def.nt, def.bs_nt);
    ck_assert_int_eq(def.tuned, 0);
    mj_tile rec[2] = {{MJ_SCAN, 4, 0, 128, 7, 128, 12.5, 0, 0}, {MJ_REDUCE, 8, 0, 64, 3, 64, 3, 0, 0}};
    ctx = retune(ctx, dir, rec, 2, "");
    expect_tuned(ctx, MJ_SCAN, 4, 0, 128, 7);
    mj_sort_desc d = primitive_desc(MJ_REDUCE, MJ_KEY_U64, 0);
    expect_tile(ctx, &d, 64, 3);
    d.primitive = MJ_SCAN;
    expect_env_tile(ctx, &d, 32, 5);
    scratch_close(ctx, dir);
}
END_TEST

static Suite *scan_args_suite(void) {
    Suite *s = suite_create("scan_args");
    TCase *tg = tcase_create("gen");
    tcase_add_loop_test(tg, operator_checks, MJ_REDUCE, MJ_SCAN + 1);
    tcase_add_loop_test(tg, operator_in_source, MJ_REDUCE, MJ_SCAN + 1);
    tcase_add_test(tg, operator_in_request_key);
    tcase_add_test(tg, request_key);
    suite_add_tcase(s, tg);
    TCase *ta = tcase_create("api");
    tcase_set_timeout(ta, 300);
    tcase_add_test(ta, api_arguments);
    tcase_add_test(ta, bundle_by_operator);
    tcase_add_test(ta, tiles);
    suite_add_tcase(s, ta);
    return s;
}

int main(void) { return mjt_run(scan_args_suite(), 1); }
