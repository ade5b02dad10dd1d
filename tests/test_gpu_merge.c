/* SPDX-License-Identifier: Apache-2.0 */
/* Merge on the GPU against a CPU reference: u32 and u64 keys, with and without values, five
 * distributions and sizes from empty lists up; f16, bf16, f32 and f64 keys in both orders with
 * NaNs of both signs and many payloads; an empty side without values; padded custom keys kept
 * byte for byte; a temporary buffer reused across runs; and the calls that merge and segmented
 * sort sorters refuse. Skips (exit 77) where there is no GPU. MJ_TEST_SMALL=1 runs smaller
 * sizes (for compute-sanitizer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "cli.h"
#include "gpu_primitives_support.h"
#include "padded_keys_support.h"
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

/* A merge of two sorted lists, a (0) and b (1): their keys on the host (the caller fills
 * them between merge_setup and merge_run), tags naming each element (list << 31 | position;
 * the values, where there are values), the device copies and the outputs. merge_setup
 * allocates the host side, merge_run the device side, and merges; merge_teardown frees both. */
typedef struct merge_lists {
    size_t ks, counts[2], n;
    unsigned char *keys[2];
    uint32_t *tags[2];
    void *dk[2], *dv[2], *ok, *ov;
} merge_lists;

static void merge_setup(merge_lists *m, size_t ks, size_t a_count, size_t b_count) {
    *m = (merge_lists){.ks = ks, .counts = {a_count, b_count}, .n = a_count + b_count};
    for (int l = 0; l < 2; ++l) {
        m->keys[l] = malloc(m->counts[l] * ks + 1);
        m->tags[l] = malloc(m->counts[l] * 4 + 1);
        ck_assert(m->keys[l] && m->tags[l]);
        for (size_t i = 0; i < m->counts[l]; ++i)
            m->tags[l][i] = (uint32_t)l << 31 | (uint32_t)i;
    }
}

/* Copies the lists to the device (the tags as values when `values`) and merges them with s
 * into outputs of their own. */
static void merge_run(mj_sorter *s, merge_lists *m, int values, const char *what) {
    for (int l = 0; l < 2; ++l) {
        m->dk[l] = dev_copy(m->keys[l], m->counts[l] * m->ks);
        m->dv[l] = values ? dev_copy(m->tags[l], m->counts[l] * 4) : NULL;
    }
    ck_assert_int_eq(mj__dev_alloc(ctx, &m->ok, m->n * m->ks), MJ_OK);
    if (values) ck_assert_int_eq(mj__dev_alloc(ctx, &m->ov, m->n * 4), MJ_OK);
    say(what);
    mj_status st = mj_sorter_merge(s, m->dk[0], m->dv[0], m->counts[0], m->dk[1], m->dv[1],
                                   m->counts[1], m->ok, m->ov, NULL, 0, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st),
                  mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
}

static void merge_teardown(merge_lists *m) {
    for (int l = 0; l < 2; ++l) {
        mj__dev_free(ctx, m->dk[l]);
        mj__dev_free(ctx, m->dv[l]);
        free(m->keys[l]);
        free(m->tags[l]);
    }
    mj__dev_free(ctx, m->ok);
    mj__dev_free(ctx, m->ov);
}

static void check_merge(mj_sorter *s, size_t ks, int values, int dist, size_t a_count,
                        size_t b_count) {
    merge_lists m;
    merge_setup(&m, ks, a_count, b_count);
    item *ref = malloc((m.n + 1) * sizeof *ref);
    ck_assert_ptr_nonnull(ref);
    uint64_t rng = 12345 + dist;
    size_t at = 0;
    for (int l = 0; l < 2; ++l) {
        uint64_t *raw = malloc((m.counts[l] + 1) * 8);
        ck_assert_ptr_nonnull(raw);
        for (size_t i = 0; i < m.counts[l]; ++i) raw[i] = merge_key(dist, l, i, m.n, &rng);
        qsort(raw, m.counts[l], 8, cmp_u64);
        for (size_t i = 0; i < m.counts[l]; ++i) {
            put_key(m.keys[l], ks, i, raw[i]);
            ref[at++] = (item){raw[i], m.tags[l][i], 0};
        }
        free(raw);
    }
    char what[128];
    snprintf(what, sizeof what, "merge of %zu-byte keys%s, %s, %zu + %zu", ks,
             values ? " with values" : "", merge_names[dist], a_count, b_count);
    merge_run(s, &m, values, what);
    expect(m.ok, m.ov, ks, ref, m.n, what);
    merge_teardown(&m);
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

/* Floats in the header's order (kg_fill_keys: f16 and bf16 are random bit patterns, f32 and
 * f64 mix in specials, NaNs of both signs among them): each list sorted on the CPU
 * (kg_reference_sort), the result checked against a CPU merge by the same ranks (kg_rank,
 * a's first on ties), keys byte for byte and the values that name each element, so the order
 * among NaNs and stability among equal bits both count. The merge compares through the
 * ordinals at every comparison (mj_key_ord), the mergesort through ordinals it holds: one
 * order. */
static void check_merge_floats(mj_sorter *s, mj_key_kind kind, mj_order order, size_t a_count,
                               size_t b_count) {
    size_t ks = mj_key_kind_size(kind);
    merge_lists m;
    merge_setup(&m, ks, a_count, b_count);
    unsigned char *want = malloc(m.n * ks + 1);
    uint32_t *want_tags = malloc(m.n * 4 + 1);
    ck_assert(want && want_tags);
    for (int l = 0; l < 2; ++l) {
        unsigned char *raw = malloc(m.counts[l] * ks + 1);
        uint64_t *perm = malloc(m.counts[l] * 8 + 8);
        ck_assert(raw && perm);
        kg_fill_keys(kind, raw, m.counts[l], 1000 * (uint64_t)l + a_count);
        ck_assert_int_eq(kg_reference_sort(kind, order, raw, m.counts[l], perm), MJ_OK);
        for (size_t i = 0; i < m.counts[l]; ++i)
            memcpy(m.keys[l] + i * ks, raw + perm[i] * ks, ks);
        free(raw);
        free(perm);
    }
    for (size_t i = 0, j = 0, o = 0; o < m.n; ++o) {
        int from_a = j == b_count || (i < a_count && !kg_less(kind, order, m.keys[1] + j * ks,
                                                                m.keys[0] + i * ks));
        memcpy(want + o * ks, from_a ? m.keys[0] + i * ks : m.keys[1] + j * ks, ks);
        want_tags[o] = from_a ? m.tags[0][i++] : m.tags[1][j++];
    }
    char what[128];
    snprintf(what, sizeof what, "merge of %s keys, %s, %zu + %zu", mj_key_kind_name(kind),
             order == MJ_DESCENDING ? "descending" : "ascending", a_count, b_count);
    merge_run(s, &m, 1, what);
    unsigned char *got = host_copy(m.ok, m.n * ks);
    uint32_t *got_tags = host_copy(m.ov, m.n * 4);
    size_t bad = 0;
    while (bad < m.n && memcmp(got + bad * ks, want + bad * ks, ks) == 0 &&
           got_tags[bad] == want_tags[bad])
        ++bad;
    ck_assert_msg(bad == m.n, "%s: output %zu differs (value %u, expected %u)", what, bad,
                  bad < m.n ? got_tags[bad] : 0, bad < m.n ? want_tags[bad] : 0);
    merge_teardown(&m);
    free(got);
    free(got_tags);
    free(want);
    free(want_tags);
}

START_TEST(test_merge_floats) {
    static const size_t sizes[][2] = {{0, 0},    {0, 1000},     {1000, 0},   {1, 1},
                                      {5000, 3}, {12345, 6789}, {1 << 20, (1 << 20) + 7}};
    static const mj_key_kind kinds[] = {MJ_KEY_F16, MJ_KEY_BF16, MJ_KEY_F32, MJ_KEY_F64};
    size_t cases = small ? 6 : sizeof sizes / sizeof *sizes;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; ++k)
        for (int order = 0; order < 2; ++order) {
            mj_sort_desc desc;
            mj_sort_desc_init(&desc, kinds[k], (mj_order)order);
            desc.primitive = MJ_MERGE;
            desc.value_size = 4;
            mj_sorter *s = NULL;
            mj_status st = mj_sorter_create(ctx, &desc, &s);
            ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
            for (size_t c = 0; c < cases; ++c)
                check_merge_floats(s, kinds[k], (mj_order)order, sizes[c][0], sizes[c][1]);
            mj_sorter_destroy(s);
        }
}
END_TEST

/* The merge kernel starts while the partitions are still being found and waits for each
 * entry it reads to be found (block/await_split.cuh): entries left in temporary storage by
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

/* An empty side given without values (NULL, as the API allows for a count of 0): the other
 * side's values are what the merge writes, for 4- and 8-byte values (which the merge kernel
 * could take for an index sort's positions) and 12-byte ones; one-call and sorter forms. */
START_TEST(test_merge_empty_side_without_values) {
    static const size_t sizes[] = {4, 8, 12};
    const size_t n = 1000;
    for (int v = 0; v < 3; ++v) {
        size_t vs = sizes[v];
        mj_sorter *s = make_sorter(MJ_MERGE, MJ_KEY_U32, vs);
        uint32_t *keys = malloc(n * 4);
        unsigned char *vals = malloc(n * vs);
        ck_assert(keys && vals);
        for (size_t i = 0; i < n; ++i) keys[i] = (uint32_t)(2 * i);
        for (size_t i = 0; i < n * vs; ++i) vals[i] = (unsigned char)(i * 7 + 100);
        void *dk = dev_copy(keys, n * 4), *dv = dev_copy(vals, n * vs);
        void *ok = dev_buffer(n * 4), *ov = dev_buffer(n * vs);
        for (int side = 0; side < 2; ++side) {
            for (int one_call = 0; one_call < 2; ++one_call) {
                ck_assert_int_eq(mj__dev_upload(ctx, ov, keys, n * 4 < n * vs ? n * 4 : n * vs),
                                 MJ_OK); /* anything but the values */
                const void *ak = side ? dk : NULL, *av = side ? dv : NULL;
                const void *bk = side ? NULL : dk, *bv = side ? NULL : dv;
                size_t ac = side ? n : 0, bc = side ? 0 : n;
                mj_status st;
                if (one_call) {
                    mj_sort_desc d;
                    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
                    st = mj_merge_pairs(ctx, &d, ak, av, ac, bk, bv, bc, ok, ov, vs, NULL);
                } else {
                    st = mj_sorter_merge(s, ak, av, ac, bk, bv, bc, ok, ov, NULL, 0, NULL);
                }
                ck_assert_msg(st == MJ_OK, "%s", mj_context_last_error(ctx));
                ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
                unsigned char *got = host_copy(ov, n * vs);
                ck_assert_msg(memcmp(got, vals, n * vs) == 0,
                              "%zu-byte values, %s empty, %s: the other side's values not "
                              "written", vs, side ? "b" : "a", one_call ? "one call" : "sorter");
                free(got);
            }
        }
        free_dev(dk), free_dev(dv), free_dev(ok), free_dev(ov);
        free(keys), free(vals);
        mj_sorter_destroy(s);
    }
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

/* Padded custom keys keep every byte (padded_keys_support.h; issue 43), keys alone and with
 * values, sorter and one-call forms. */
START_TEST(test_padded_keys) {
    padk_run(ctx, MJ_MERGE, 0, -1, 0, small);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpu_merge");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, test_wrong_calls);
    tcase_add_test(tc, test_merge);
    tcase_add_test(tc, test_merge_floats);
    tcase_add_test(tc, test_merge_reused_temp);
    tcase_add_test(tc, test_merge_empty_side_without_values);
    tcase_add_test(tc, test_padded_keys);
    suite_add_tcase(s, tc);
    return run_gpu_suite("test_gpu_merge", s);
}
