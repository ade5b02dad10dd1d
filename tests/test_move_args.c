/* SPDX-License-Identifier: Apache-2.0 */
/* Interval move without a GPU: the generator's checks (index type, value sizes, the tile's
 * shared memory with the shifts), the API's argument checks in a compile-only context, which
 * all come before the missing device is noticed, the temporary size (lbs's layout), and a
 * bundle and a tuning record. CPU (and NVRTC for the sorters). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_support.h"
#include "test_support.h"

static mj_kernel_spec move_spec(mj_key_kind key, size_t value_size, int nt, int vt) {
    return primitive_spec(MJ_INTERVAL_MOVE, key, value_size, nt, vt);
}

START_TEST(spec_checks)
{
    static const mj_key_kind bad_keys[] = {MJ_KEY_U32, MJ_KEY_U64, MJ_KEY_F64, MJ_KEY_I8};
    for (size_t i = 0; i < sizeof bad_keys / sizeof *bad_keys; ++i) {
        mj_kernel_spec s = move_spec(bad_keys[i], 4, 128, 11);
        refused(&s, "i32 or i64", "move of a non-index key");
    }
    mj_kernel_spec s = move_spec(MJ_KEY_I32, 0, 128, 11);
    refused(&s, "move moves values of 1 to 64 bytes", "move without values");
    s = move_spec(MJ_KEY_I64, 65, 128, 11);
    refused(&s, "value_size", "move of 65-byte values");
    s = move_spec(MJ_KEY_I64, 4, 128, 11);
    s.bs_nt = 256;
    refused(&s, "blocksort", "move with a blocksort tile");
    /* The shifts (16 bytes an offset) count: 256 x 11 of i64 offsets fits lbs, not move. */
    s = move_spec(MJ_KEY_I64, 4, 256, 11);
    refused(&s, "shared memory", "move with a tile over the shared memory");
    ck_assert_uint_gt(mj__tile_smem(MJ_INTERVAL_MOVE, 256, 11, 8, 4), MJ_STATIC_SMEM_LIMIT);
    ck_assert_uint_le(mj__tile_smem(MJ_LOAD_BALANCE, 256, 11, 8, 0), MJ_STATIC_SMEM_LIMIT);
    ck_assert_uint_le(mj__tile_smem(MJ_INTERVAL_MOVE, 128, 11, 8, 64), MJ_STATIC_SMEM_LIMIT);
    /* Every value size generates; the source holds move's kernels only. */
    for (size_t v = 1; v <= 64; ++v) {
        s = move_spec(v % 2 ? MJ_KEY_I64 : MJ_KEY_I32, v, 128, 11);
        char *src = generated(&s);
        ck_assert_ptr_nonnull(strstr(src, "mj_move_tiles("));
        ck_assert_ptr_nonnull(strstr(src, "mj_lbs_partition("));
        ck_assert_ptr_null(strstr(src, "mj_expand_tiles("));
        ck_assert_ptr_null(strstr(src, "mj_less"));
        free(src);
    }
}
END_TEST

/* Order and less do not reach the spec (offsets compare as integers); lbs is another kernel. */
START_TEST(request_key)
{
    check_request_key(MJ_INTERVAL_MOVE, MJ_KEY_I64, REQUEST_ANY_ORDER, MJ_LOAD_BALANCE, 0);
}
END_TEST

START_TEST(api_arguments)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sort_desc d = primitive_desc(MJ_INTERVAL_MOVE, MJ_KEY_U32, 4);
    mj_sorter *mv = NULL, *mv64 = NULL, *lbs = NULL, *bad = NULL;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "i32 or i64",
               "move of u32");
    d.key = MJ_KEY_I32;
    d.value_size = 0;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "value_size",
               "move without values");
    d.value_size = 12;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &mv), MJ_OK);
    d.key = MJ_KEY_I64;
    d.value_size = 8;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &mv64), MJ_OK);
    d.primitive = MJ_LOAD_BALANCE;
    d.value_size = 0;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &lbs), MJ_OK);

    /* Temp: lbs's layout for the merged length. */
    size_t a = 0, b = 0;
    ck_assert_int_eq(mj_sorter_temp_size(mv64, 123456 + 789, 0, &a), MJ_OK);
    ck_assert_int_eq(mj_sorter_temp_size(lbs, 123456 + 789, 0, &b), MJ_OK);
    ck_assert_uint_eq(a, b);
    mjt_expect(ctx, mj_sorter_temp_size(mv, SIZE_MAX, 0, &a), MJ_ERR_TOO_LARGE, NULL,
               "move temp of SIZE_MAX");

    /* 10 intervals, 100 items, 12-byte elements; arrays 1 MB apart. */
    char *off = (char *)(uintptr_t)0x100000, *gat = off + (1 << 20), *sca = off + (2 << 20);
    char *in = off + (3 << 20), *out = off + (4 << 20);
    mjt_expect(ctx, mj_sorter_interval_move(lbs, off, 10, 100, gat, sca, in, 100, out, 100, NULL,
                                            0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "lbs", "move with an lbs sorter");
    mjt_expect(ctx, mj_sorter_interval_expand(mv, off, 10, 100, in, out, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "move", "expand with a move sorter");
    ck_assert_int_eq(mj_sorter_interval_move(NULL, off, 10, 100, gat, sca, in, 100, out, 100,
                                             NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    /* NULL arrays (gather and scatter may be NULL), no intervals, the index type's limits. */
    mjt_expect(ctx, mj_sorter_interval_move(mv, NULL, 10, 100, gat, sca, in, 100, out, 100, NULL,
                                            0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "offsets is NULL", "NULL offsets");
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 10, 100, gat, sca, NULL, 100, out, 100,
                                            NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "in is NULL", "NULL in");
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 10, 100, gat, sca, in, 100, NULL, 100,
                                            NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out is NULL", "NULL out");
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 0, 100, gat, sca, in, 100, out, 100, NULL,
                                            0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "no intervals", "items without intervals");
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 10, 1ull << 31, gat, sca, in, 100, out,
                                            100, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "index type", "2^31 items with i32");
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 1ull << 31, 100, gat, sca, in, 100, out,
                                            100, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "intervals", "2^31 intervals with i32");
    mjt_expect(ctx, mj_sorter_interval_move(mv64, off, 10, 100, gat, sca, in, SIZE_MAX / 2 + 1,
                                            out, 100, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "do not fit", "in_count over 2^63 (8-byte elements)");
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 10, 100, gat, sca, in, 100, out, SIZE_MAX,
                                            NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "do not fit", "out_count of SIZE_MAX");
    /* out against everything it reads: in (out_count 100 elements of 12 bytes), offsets,
     * gather, scatter (10 entries of 4 bytes). */
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 10, 100, gat, sca, in, 100, in + 1188, 100,
                                            NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out overlaps in", "out over in's end");
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 10, 100, gat, sca, in, 100, in - 1199, 100,
                                            NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out overlaps in", "out's end over in");
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 10, 100, gat, sca, in, 100, off + 36, 100,
                                            NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out overlaps offsets", "out over offsets");
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 10, 100, gat, sca, in, 100, gat + 36, 100,
                                            NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out overlaps gather", "out over gather");
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 10, 100, gat, sca, in, 100, sca - 1196, 100,
                                            NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out overlaps scatter", "out over scatter");
    /* Touching is not overlapping; a NULL gather or scatter overlaps nothing. */
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 10, 100, gat, sca, in, 100, in + 1200, 100,
                                            NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "out right after in");
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 10, 100, NULL, NULL, in, 100, out, 100,
                                            NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "neither gather nor scatter");
    /* Too little temp. */
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 10, 100, gat, sca, in, 100, out, 100,
                                            in, 1, NULL),
               MJ_ERR_INVALID_ARGUMENT, NULL, "temp too small");
    /* Nothing to do: NULL arrays pass (the context is entered, where compile-only stops); so
     * do counts of 0 with items (everything is skipped, nothing read or written). */
    mjt_expect(ctx, mj_sorter_interval_move(mv, NULL, 0, 0, NULL, NULL, NULL, 0, NULL, 0, NULL,
                                            0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "nothing to move");
    mjt_expect(ctx, mj_sorter_interval_move(mv, off, 10, 100, gat, NULL, in, 0, out, 0, NULL, 0,
                                            NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "empty in and out");
    mjt_expect(ctx, mj_sorter_interval_move(mv64, off, 10, 100, NULL, sca, in, 100, out, 100,
                                            NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "a valid scatter without a device");
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "compile-only"));
    /* One-call function: value_size from the call, primitive set by it. */
    mj_sort_desc_init(&d, MJ_KEY_I64, MJ_ASCENDING);
    mjt_expect(ctx, mj_interval_move(ctx, &d, off, 10, 100, gat, sca, in, 100, out, 100, 0,
                                     NULL),
               MJ_ERR_INVALID_ARGUMENT, "value_size", "mj_interval_move of 0-byte values");
    mjt_expect(ctx, mj_interval_move(ctx, &d, off, 10, 100, gat, sca, in, 100, out, 100, 16,
                                     NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "mj_interval_move");
    mj_sorter_destroy(mv);
    mj_sorter_destroy(mv64);
    mj_sorter_destroy(lbs);
    scratch_close(ctx, dir);
}
END_TEST

/* A bundle with move (i32, 4-byte values) serves it and not other value sizes; a tuning
 * record sets its tile. */
START_TEST(deploy)
{
    char *dir = mjt_tmpdir(), path[512];
    snprintf(path, sizeof path, "%s/move.mjb", dir);
    mj_sort_desc d[2] = {primitive_desc(MJ_INTERVAL_MOVE, MJ_KEY_I32, 4),
                         primitive_desc(MJ_INTERVAL_MOVE, MJ_KEY_I32, 4)};
    d[1].order = MJ_DESCENDING; /* not used: the same entry */
    write_bundle(dir, path, d, 2, 1);
    mj_context *ctx = mjt_deploy_context(90, dir, "", "");
    mj_tile rec = {MJ_INTERVAL_MOVE, 8, 8, 64, 5, 64, 3, 0, 0};
    ctx = retune(ctx, dir, &rec, 1, path);
    expect_source(ctx, &d[1], 3);
    d[1].value_size = 8;
    expect_not_in_bundle(ctx, &d[1], NULL, "move of 8-byte values");
    expect_tuned(ctx, MJ_INTERVAL_MOVE, 8, 8, 64, 5);
    mj_tile t = {MJ_INTERVAL_MOVE, 8, 4, 256, 11, 256, 0, 0, 0};
    tile_refused(&t, "shared memory");
    scratch_close(ctx, dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("move_args");
    TCase *tg = tcase_create("gen");
    tcase_add_test(tg, spec_checks);
    tcase_add_test(tg, request_key);
    suite_add_tcase(s, tg);
    TCase *ta = tcase_create("api");
    tcase_set_timeout(ta, 300);
    tcase_add_test(ta, api_arguments);
    tcase_add_test(ta, deploy);
    suite_add_tcase(s, ta);
    return mjt_run(s, 1);
}
