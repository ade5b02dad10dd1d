/* Merge on the GPU against a CPU reference: u32 and u64 keys, with and without values, five
 * distributions and sizes from empty lists up; a temporary buffer reused across runs; and the
 * calls that merge and segmented sort sorters refuse. Skips (exit 77) where there is no GPU.
 * MJ_TEST_SMALL=1 runs smaller sizes (for compute-sanitizer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "gpu_primitives_support.h"
#include "test_support.h"

/* ---------------------------------------------------------------- merge */

enum { M_RANDOM, M_EQUAL, M_A_BELOW, M_B_BELOW, M_INTERLEAVED, M_COUNT };
static const char *const merge_names[] = {"random", "equal", "a-below-b", "b-below-a",
                                          "interleaved"};

static uint64_t merge_key(int dist, int list, size_t i, size_t count, uint64_t *rng) {
    switch (dist) {
    case M_EQUAL: return 7;
    case M_A_BELOW: return list == 0 ? i : count + i;
    case M_B_BELOW: return list == 1 ? i : count + i;
    case M_INTERLEAVED: return 2 * i + (uint64_t)list;
    default: return mjt_rand(rng) % 100000; /* sorted below */
    }
}

static void check_merge(mj_sorter *s, size_t ks, int values, int dist, size_t a_count,
                        size_t b_count) {
    size_t counts[2] = {a_count, b_count}, n = a_count + b_count;
    void *keys[2], *dk[2], *dv[2];
    uint32_t *tags[2];
    item *ref = malloc((n + 1) * sizeof *ref);
    ck_assert_ptr_nonnull(ref);
    uint64_t rng = 12345 + dist;
    size_t at = 0;
    for (int l = 0; l < 2; ++l) {
        uint64_t *raw = malloc((counts[l] + 1) * 8);
        keys[l] = malloc(counts[l] * ks + 1);
        tags[l] = malloc(counts[l] * 4 + 1);
        ck_assert(raw && keys[l] && tags[l]);
        for (size_t i = 0; i < counts[l]; ++i) raw[i] = merge_key(dist, l, i, n, &rng);
        qsort(raw, counts[l], 8, cmp_u64);
        for (size_t i = 0; i < counts[l]; ++i) {
            put_key(keys[l], ks, i, raw[i]);
            tags[l][i] = (uint32_t)(l << 31 | i);
            ref[at++] = (item){raw[i], tags[l][i], 0};
        }
        free(raw);
        dk[l] = dev_copy(keys[l], counts[l] * ks);
        dv[l] = values ? dev_copy(tags[l], counts[l] * 4) : NULL;
    }
    void *ok = NULL, *ov = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &ok, n * ks), MJ_OK);
    if (values) ck_assert_int_eq(mj__dev_alloc(ctx, &ov, n * 4), MJ_OK);
    char what[128];
    snprintf(what, sizeof what, "merge of %zu-byte keys%s, %s, %zu + %zu", ks,
             values ? " with values" : "", merge_names[dist], a_count, b_count);
    say(what);
    mj_status st = mj_sorter_merge(s, dk[0], dv[0], a_count, dk[1], dv[1], b_count, ok, ov,
                                   NULL, 0, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    expect(ok, ov, ks, ref, n, what);
    for (int l = 0; l < 2; ++l) {
        mj__dev_free(ctx, dk[l]);
        mj__dev_free(ctx, dv[l]);
        free(keys[l]);
        free(tags[l]);
    }
    mj__dev_free(ctx, ok);
    mj__dev_free(ctx, ov);
    free(ref);
}

START_TEST(test_merge) {
    static const size_t sizes[][2] = {{0, 0},       {0, 1000},      {1000, 0},    {1, 1},
                                      {5000, 3},    {12345, 67890}, {1 << 20, (1 << 20) + 7}};
    size_t cases = small ? 6 : sizeof sizes / sizeof *sizes;
    for (int keys64 = 0; keys64 < 2; ++keys64)
        for (int values = 0; values < 2; ++values) {
            mj_sorter *s = make_sorter(MJ_MERGE, keys64 ? MJ_KEY_U64 : MJ_KEY_U32,
                                       values ? 4 : 0);
            for (int dist = 0; dist < M_COUNT; ++dist)
                for (size_t c = 0; c < cases; ++c)
                    check_merge(s, keys64 ? 8 : 4, values, dist, sizes[c][0], sizes[c][1]);
            mj_sorter_destroy(s);
        }
}
END_TEST

/* The merge kernel starts while the partitions are still being found and waits for each
 * entry it reads to be found (kernel_merge_arrays.cuh): entries left in temporary storage by
 * earlier runs, or zeros, must never be taken for this run's. Three runs share one
 * caller-provided temporary buffer that starts as zeros: random lists, then lists whose
 * partitions all differ from the first run's (all of a below all of b), then random again.
 * The run has about twice as many tiles as the early partitions cover (four waves of
 * resident blocks: on an H100 at most 6 x 132 x 4 = 3168 tiles of 9472 keys), so both
 * partition paths are used, also under MJ_TEST_SMALL (compute-sanitizer). */
START_TEST(test_merge_reused_temp) {
    size_t half = (size_t)1 << 25, n = 2 * half;
    mj_sorter *s = make_sorter(MJ_MERGE, MJ_KEY_U32, 0);
    size_t temp_bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, n, 0, &temp_bytes), MJ_OK);
    void *zeros = calloc(1, temp_bytes), *temp = dev_copy(zeros, temp_bytes);
    uint32_t *in = malloc(n * 4), *want = malloc(n * 4);
    ck_assert(zeros && in && want);
    void *d_in = NULL, *d_out = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &d_in, n * 4), MJ_OK);
    ck_assert_int_eq(mj__dev_alloc(ctx, &d_out, n * 4), MJ_OK);
    uint64_t rng = 99;
    for (int round = 0; round < 3; ++round) {
        for (size_t i = 0; i < n; ++i)
            in[i] = round == 1 ? (uint32_t)i : (uint32_t)(mjt_rand(&rng) % 1000000);
        for (int l = 0; l < 2 && round != 1; ++l) {
            uint64_t *raw = malloc(half * 8);
            ck_assert_ptr_nonnull(raw);
            for (size_t i = 0; i < half; ++i) raw[i] = in[l * half + i];
            qsort(raw, half, 8, cmp_u64);
            for (size_t i = 0; i < half; ++i) in[l * half + i] = (uint32_t)raw[i];
            free(raw);
        }
        size_t ia = 0, ib = half;
        for (size_t i = 0; i < n; ++i)
            want[i] = ib == n || (ia < half && in[ia] <= in[ib]) ? in[ia++] : in[ib++];
        ck_assert_int_eq(mj__dev_upload(ctx, d_in, in, n * 4), MJ_OK);
        mj_status st = mj_sorter_merge(s, d_in, NULL, half, (uint32_t *)d_in + half, NULL, half,
                                       d_out, NULL, temp, temp_bytes, NULL);
        ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
        ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
        ck_assert_int_eq(mj__dev_download(ctx, in, d_out, n * 4), MJ_OK);
        /* One assertion, not one a key: each passing one costs Check a write. */
        size_t bad = 0;
        while (bad < n && in[bad] == want[bad]) ++bad;
        ck_assert_msg(bad == n, "round %d: key %zu of %zu is %u, expected %u", round, bad, n,
                      bad < n ? in[bad] : 0, bad < n ? want[bad] : 0);
    }
    mj__dev_free(ctx, d_in);
    mj__dev_free(ctx, d_out);
    mj__dev_free(ctx, temp);
    free(zeros);
    free(in);
    free(want);
    mj_sorter_destroy(s);
}
END_TEST

/* ---------------------------------------------------------------- misuse */

START_TEST(test_wrong_calls) {
    mj_sorter *merge = make_sorter(MJ_MERGE, MJ_KEY_U32, 0);
    mj_sorter *seg = make_sorter(MJ_SEGMENTED_SORT, MJ_KEY_U32, 0);
    uint32_t host[4] = {4, 3, 2, 1};
    void *d = dev_copy(host, sizeof host);
    ck_assert_int_eq(mj_sorter_sort(merge, d, NULL, 4, NULL, 0, NULL), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "merge"));
    ck_assert_int_eq(mj_sorter_sort(seg, d, NULL, 4, NULL, 0, NULL), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_sorter_segmented_sort(seg, d, NULL, 4, NULL, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    mj_segments bad = {MJ_SEGMENTS_HEADS, d, 2, 3};
    ck_assert_int_eq(mj_sorter_segmented_sort(seg, d, NULL, 4, &bad, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "4 or 8"));
    bad.kind = (mj_segments_kind)9;
    ck_assert_int_eq(mj_sorter_segmented_sort(seg, d, NULL, 4, &bad, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    mj_segments host_flags = {MJ_SEGMENTS_FLAGS, host, 0, 0};
    ck_assert_int_eq(mj_sorter_segmented_sort(seg, d, NULL, 4, &host_flags, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_sorter_merge(merge, d, NULL, 2, host, NULL, 2, d, NULL, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_sorter_merge(merge, d, NULL, SIZE_MAX, d, NULL, 2, d, NULL, NULL, 0,
                                     NULL), MJ_ERR_TOO_LARGE);
    /* None of that touched the data. */
    uint32_t back[4];
    ck_assert_int_eq(mj__dev_download(ctx, back, d, sizeof back), MJ_OK);
    ck_assert_mem_eq(back, host, sizeof host);
    mj__dev_free(ctx, d);
    mj_sorter_destroy(merge);
    mj_sorter_destroy(seg);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpu_merge");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, test_wrong_calls);
    tcase_add_test(tc, test_merge);
    tcase_add_test(tc, test_merge_reused_temp);
    suite_add_tcase(s, tc);
    return run_gpu_suite("test_gpu_merge", s);
}
