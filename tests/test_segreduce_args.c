/* SPDX-License-Identifier: Apache-2.0 */
/* The segmented reduction without a GPU: the generator's checks (an operator, no values, a
 * custom type needs its operator and identity), default tiles within static shared memory for
 * keys of 1 to 256 bytes, the name, the temporary size, and the API's argument checks in a
 * compile-only context, which all come before the missing device is noticed (wrong sorter,
 * segment kinds and index sizes, NULL arrays, overlaps, temp, counts), the one-call form.
 * CPU (and NVRTC for the sorters). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args_support.h"
#include "test_support.h"

START_TEST(catalogue)
{
    ck_assert_str_eq(mj_primitive_name(MJ_SEGMENTED_REDUCE), "segreduce");
    ck_assert_int_eq(mj_primitive_parse("segreduce"), MJ_SEGMENTED_REDUCE);
    mj_primitive_info info;
    ck_assert_int_eq(mj_primitive_query(MJ_SEGMENTED_REDUCE, &info), MJ_OK);
    ck_assert(info.op && !info.comparator && !info.index_keys);
    ck_assert_int_eq(info.values, MJ_VALUES_NONE);
    static const size_t values[] = {0};
    default_tiles_fit(MJ_SEGMENTED_REDUCE, values, 1);
    /* Its tile's static shared memory covers NV + 1 int offsets (positions within the tile)
     * and NV elements. */
    for (size_t ks = 1; ks <= 256; ks *= 2)
        ck_assert_uint_ge(mj__tile_smem(MJ_SEGMENTED_REDUCE, 128, 11, ks, 0),
                          (128 * 11 + 1) * 4 + 128 * 11 * ks);
    /* Its own rule, not interval move's (twice the bytes for 4-byte keys): tiles that the
     * kernel fits in static shared memory are not refused. */
    ck_assert_uint_le(mj__tile_smem(MJ_SEGMENTED_REDUCE, 128, 31, 4, 0), 49152);
    ck_assert_uint_le(mj__tile_smem(MJ_SEGMENTED_REDUCE, 256, 15, 4, 0), 49152);
    ck_assert_uint_le(mj__tile_smem(MJ_SEGMENTED_REDUCE, 256, 23, 4, 0), 49152);
}
END_TEST

/* sm_90's row for 4-byte keys (gen/catalog.c); 8-byte keys keep the rule's 128 x 11. */
START_TEST(sm90_tiles)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_deploy_context(90, dir, "", "");
    expect_default_tile(ctx, MJ_SEGMENTED_REDUCE, 4, 0, 128, 15);
    expect_default_tile(ctx, MJ_SEGMENTED_REDUCE, 8, 0, 128, 11);
    scratch_close(ctx, dir);
}
END_TEST

START_TEST(api_arguments)
{
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *s = NULL, *reduce = NULL, *bad = NULL;
    d.primitive = MJ_SEGMENTED_REDUCE;
    d.value_size = 4;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "value",
               "segreduce with values");
    d.value_size = 0;
    d.primitive = MJ_SEGMENTED_REDUCE;
    d.key = MJ_KEY_CUSTOM;
    d.type_name = "pair";
    d.type_source = "struct pair { unsigned a, b; };";
    d.type_size = 8;
    d.type_align = 4;
    mjt_expect(ctx, mj_sorter_create(ctx, &d, &bad), MJ_ERR_INVALID_ARGUMENT, "operator",
               "custom segreduce without an operator");
    d.op = "pair{a.a, b.b}"; /* (first, last): associative, not commutative */
    d.identity = "pair{0, 0}";
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &bad), MJ_OK);
    mj_sorter_destroy(bad);
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    d.primitive = MJ_SEGMENTED_REDUCE;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    d.primitive = MJ_REDUCE;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &reduce), MJ_OK);

    /* Temp: a partition entry per tile of n + count and one more, then the look-back's. */
    size_t nv = chosen_tile(ctx, s, MJ_SEGMENTED_REDUCE, 4, 0), bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, 0, 0, &bytes), MJ_OK);
    ck_assert_int_eq(mj_sorter_temp_size(s, 10 * nv + 1, 0, &bytes), MJ_OK);
    ck_assert_uint_ge(bytes, 12 * 8 + 8 + 11 * 8);
    ck_assert_int_eq(mj_sorter_temp_size(s, (size_t)1 << 33, 0, &bytes), MJ_OK); /* 64-bit */
    mjt_expect(ctx, mj_sorter_temp_size(s, SIZE_MAX, 0, &bytes), MJ_ERR_TOO_LARGE, "too many",
               "temp of SIZE_MAX");
    mjt_expect(ctx, mj_sorter_temp_size(s, (size_t)1 << 62, 0, &bytes), MJ_ERR_TOO_LARGE,
               "grid", "temp of 2^62");

    char *in = (char *)(uintptr_t)0x100000, *off = in + (1 << 20), *out = in + (2 << 20);
    char *tmp = in + (8 << 20);
    mj_segments sg = {MJ_SEGMENTS_OFFSETS, off, 11, 4};
    const char *fn = "mj_sorter_segmented_reduce";
    /* Wrong sorters, no sorter. */
    mjt_expect(ctx, mj_sorter_segmented_reduce(reduce, in, 100, &sg, out, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "reduce", "segreduce with a reduce sorter");
    mjt_expect(ctx, mj_sorter_reduce(s, in, 100, out, NULL, 0, NULL), MJ_ERR_INVALID_ARGUMENT,
               "segreduce", "reduce with a segreduce sorter");
    ck_assert_int_eq(mj_sorter_segmented_reduce(NULL, in, 100, &sg, out, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    /* Segment forms. */
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, NULL, out, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "segments is NULL", "no segments");
    static const mj_segments_kind others[] = {MJ_SEGMENTS_FLAGS, MJ_SEGMENTS_FLAG_BITS,
                                              MJ_SEGMENTS_HEADS, (mj_segments_kind)7};
    for (size_t k = 0; k < sizeof others / sizeof *others; ++k) {
        mj_segments o = {others[k], off, 11, 4};
        mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &o, out, NULL, 0, NULL),
                   MJ_ERR_INVALID_ARGUMENT, "only MJ_SEGMENTS_OFFSETS", "another kind");
    }
    for (size_t isz = 0; isz <= 16; ++isz) {
        if (isz == 4 || isz == 8) continue;
        mj_segments o = {MJ_SEGMENTS_OFFSETS, off, 11, isz};
        mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &o, out, NULL, 0, NULL),
                   MJ_ERR_INVALID_ARGUMENT, "index_size", "index size");
    }
    /* NULL arrays. */
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, NULL, 100, &sg, out, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "in is NULL", "NULL in");
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &sg, NULL, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out is NULL", "NULL out");
    mj_segments no_data = {MJ_SEGMENTS_OFFSETS, NULL, 11, 8};
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &no_data, out, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "segments->data is NULL", "NULL offsets");
    /* Counts. */
    mj_segments huge = {MJ_SEGMENTS_OFFSETS, off, SIZE_MAX, 8};
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &huge, out, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, "too many", "n + count overflowing");
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, SIZE_MAX / 2, &sg, out, NULL, 0, NULL),
               MJ_ERR_TOO_LARGE, fn, "in beyond memory");
    /* Overlaps: out (10 results, 40 bytes) with in (100 elements) and the offsets (44 bytes). */
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &sg, in + 396, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out overlaps in", "out over in's end");
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &sg, off - 36, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out overlaps offsets", "out into the offsets");
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &sg, off + 40, NULL, 0, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out overlaps offsets", "out over the last offset");
    /* Next to them is fine (and reaches the missing device). */
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &sg, in + 400, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "out right after in");
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &sg, off - 40, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "out right before the offsets");
    /* Temp. */
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &sg, out, tmp, 1, NULL),
               MJ_ERR_INVALID_ARGUMENT, "too small", "temp too small");
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &sg, out, tmp + 8, 1 << 20, NULL),
               MJ_ERR_INVALID_ARGUMENT, "aligned", "misaligned temp");
    /* Valid calls reach the missing device: no elements, no segments, count 0 or 1. */
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &sg, out, tmp, 1 << 20, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "valid call");
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, NULL, 0, &sg, out, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "no elements");
    mj_segments none = {MJ_SEGMENTS_OFFSETS, NULL, 0, 4}, one = {MJ_SEGMENTS_OFFSETS, off, 1, 8};
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &none, NULL, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "no offsets");
    mjt_expect(ctx, mj_sorter_segmented_reduce(s, in, 100, &one, NULL, NULL, 0, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "one offset");
    /* The one-call function. */
    mj_sort_desc_init(&d, MJ_KEY_F64, MJ_ASCENDING);
    d.op = "fmax(a, b)";
    d.identity = "-INFINITY";
    mjt_expect(ctx, mj_segmented_reduce(ctx, &d, in, 100, &sg, out, NULL),
               MJ_ERR_UNSUPPORTED, "compile-only", "mj_segmented_reduce");
    mjt_expect(ctx, mj_segmented_reduce(ctx, &d, in, 100, &sg, NULL, NULL),
               MJ_ERR_INVALID_ARGUMENT, "out is NULL", "mj_segmented_reduce without out");
    mjt_expect(ctx, mj_segmented_reduce(ctx, NULL, in, 100, &sg, out, NULL),
               MJ_ERR_INVALID_ARGUMENT, "desc", "mj_segmented_reduce without desc");
    ck_assert_int_eq(mj_segmented_reduce(NULL, &d, in, 100, &sg, out, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    mj_sorter_destroy(s);
    mj_sorter_destroy(reduce);
    scratch_close(ctx, dir);
}
END_TEST

static Suite *segreduce_args_suite(void) {
    Suite *s = suite_create("segreduce_args");
    TCase *tc = tcase_create("args");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, catalogue);
    tcase_add_test(tc, sm90_tiles);
    tcase_add_test(tc, api_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(segreduce_args_suite(), 1); }
