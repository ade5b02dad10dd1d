/* SPDX-License-Identifier: Apache-2.0 */
/* Segmented sort on the GPU against a CPU reference: fixed, random, power-law and empty
 * segments in all four forms of segment description, and every segment length around the tile
 * sizes. Skips (exit 77) where there is no GPU. MJ_TEST_SMALL=1 runs smaller sizes (for
 * compute-sanitizer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "gpu_primitives_support.h"
#include "padded_keys_support.h"
#include "test_support.h"

/* ---------------------------------------------------------------- segmented sort */

/* Segment lengths: a fixed length, or one of the patterns below. */
enum { L_RANDOM = -1, L_POWER = -2, L_EMPTIES = -3 };

/* Fills heads[0, *count) with segment starts covering n (possibly repeated: empty segments)
 * and returns the count. */
static size_t make_heads(long len, size_t n, uint64_t *heads, uint64_t *rng) {
    size_t count = 0, at = 0;
    while (at < n) {
        heads[count++] = at;
        size_t l;
        if (len > 0) {
            l = (size_t)len;
        } else if (len == L_RANDOM) {
            l = 1 + mjt_rand(rng) % 2000;
        } else if (len == L_POWER) { /* P(l > x) ~ 1/x: many short, a few very long */
            double u = (double)(mjt_rand(rng) % 1000000 + 1) / 1000001.0;
            l = (size_t)(1.0 / u);
            if (l > n) l = n;
        } else { /* L_EMPTIES: three empty segments before each short one */
            heads[count++] = at;
            heads[count++] = at;
            l = 1 + mjt_rand(rng) % 50;
        }
        at += l;
    }
    return count;
}

static void check_segsort(mj_sorter *s, size_t ks, int values, size_t n, long len,
                          mj_segments_kind kind, uint64_t seed) {
    uint64_t rng = seed;
    uint64_t *heads = malloc((4 * n + 4) * sizeof *heads);
    ck_assert_ptr_nonnull(heads);
    size_t count = make_heads(len, n, heads, &rng);
    void *keys = malloc(n * ks + 1);
    uint32_t *tags = malloc(n * 4 + 1);
    item *ref = malloc((n + 1) * sizeof *ref);
    ck_assert(keys && tags && ref);
    size_t h = 0;
    uint32_t seg = 0;
    for (size_t i = 0; i < n; ++i) {
        while (h < count && heads[h] == i) {
            ++h;
            ++seg;
        }
        uint64_t k = mjt_rand(&rng) % (len > 0 && len < 64 ? 8 : 1000000); /* ties too */
        put_key(keys, ks, i, k);
        tags[i] = (uint32_t)i;
        ref[i] = (item){k, (uint32_t)i, seg};
    }
    /* The segments in the requested form. */
    void *data = NULL;
    size_t bytes = 0, index_size = 0, entries = 0;
    if (kind == MJ_SEGMENTS_FLAGS || kind == MJ_SEGMENTS_FLAG_BITS) {
        size_t words = (n + 31) / 32;
        bytes = kind == MJ_SEGMENTS_FLAGS ? n : words * 4;
        unsigned char *f = calloc(bytes + 1, 1);
        ck_assert_ptr_nonnull(f);
        for (size_t i = 0; i < count; ++i) {
            if (kind == MJ_SEGMENTS_FLAGS)
                f[heads[i]] = 1;
            else
                ((uint32_t *)f)[heads[i] / 32] |= 1u << (heads[i] % 32);
        }
        if (kind == MJ_SEGMENTS_FLAG_BITS && n % 32) /* bits past n must be ignored */
            ((uint32_t *)f)[words - 1] |= ~0u << (n % 32);
        data = f;
    } else {
        index_size = kind == MJ_SEGMENTS_HEADS ? 4 : 8;
        entries = count + (kind == MJ_SEGMENTS_OFFSETS); /* CSR: the end offset n too */
        heads[count] = n;
        bytes = entries * index_size;
        data = malloc(bytes + 1);
        ck_assert_ptr_nonnull(data);
        for (size_t i = 0; i < entries; ++i) {
            if (index_size == 4)
                ((uint32_t *)data)[i] = (uint32_t)heads[i];
            else
                ((uint64_t *)data)[i] = heads[i];
        }
    }
    void *dk = dev_copy(keys, n * ks), *dv = values ? dev_copy(tags, n * 4) : NULL;
    void *dd = dev_copy(data, bytes);
    mj_segments segs = {kind, dd, entries, index_size};
    char what[160];
    snprintf(what, sizeof what, "segmented sort of %zu %zu-byte keys%s, segment length %ld "
             "(%zu heads), segments kind %d", n, ks, values ? " with values" : "", len, count,
             (int)kind);
    say(what);
    mj_status st = mj_sorter_segmented_sort(s, dk, dv, n, &segs, NULL, 0, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    expect(dk, dv, ks, ref, n, what);
    mj__dev_free(ctx, dk);
    mj__dev_free(ctx, dv);
    mj__dev_free(ctx, dd);
    free(data);
    free(keys);
    free(tags);
    free(ref);
    free(heads);
}

START_TEST(test_segsort_lengths) {
    static const long lens[] = {1, 32, 300, 10000, 1000000, L_RANDOM, L_POWER, L_EMPTIES};
    size_t n = small ? 70000 : 1100000;
    mj_sorter *pairs = make_sorter(MJ_SEGMENTED_SORT, MJ_KEY_U32, 4);
    mj_sorter *keys64 = make_sorter(MJ_SEGMENTED_SORT, MJ_KEY_U64, 0);
    /* Every length in two of the four forms; length 300 in all four. */
    for (size_t i = 0; i < sizeof lens / sizeof *lens; ++i)
        for (int kind = 0; kind < 4; ++kind) {
            if (kind == (int)(i % 4) || lens[i] == 300)
                check_segsort(pairs, 4, 1, n, lens[i], (mj_segments_kind)kind, 100 + i);
            if (kind == (int)((i + 1) % 4))
                check_segsort(keys64, 8, 0, n, lens[i], (mj_segments_kind)kind, 200 + i);
        }
    mj_sorter_destroy(pairs);
    mj_sorter_destroy(keys64);
}
END_TEST

/* One segment length after another on one size, around every tile size. */
START_TEST(test_segsort_every_length) {
    mj_sorter *s = make_sorter(MJ_SEGMENTED_SORT, MJ_KEY_U32, 4);
    int nt, vt;
    mj_sorter_tile(s, &nt, &vt);
    size_t nv = (size_t)nt * vt, n = small ? 5 * nv + 17 : 9 * nv + 17;
    for (long len = 1; len <= 40; ++len)
        check_segsort(s, 4, 1, n, len, MJ_SEGMENTS_HEADS, (uint64_t)len);
    for (long k = 1; k <= 8; k *= 2)
        for (long d = -1; d <= 1; ++d)
            check_segsort(s, 4, 1, n, (long)(k * nv) + d, MJ_SEGMENTS_OFFSETS, (uint64_t)(k + d));
    check_segsort(s, 4, 1, n, (long)n - 1, MJ_SEGMENTS_FLAGS, 1);
    check_segsort(s, 4, 1, n, (long)n, MJ_SEGMENTS_FLAG_BITS, 2);
    for (size_t m = 1; m <= 3; ++m) check_segsort(s, 4, 1, m, 1, MJ_SEGMENTS_FLAGS, m);
    mj_sorter_destroy(s);
}
END_TEST

/* Padded custom keys keep every byte (padded_keys_support.h; issue 43), in segments of 777,
 * keys alone and with values, sorter and one-call forms. */
START_TEST(test_padded_keys) {
    padk_run(ctx, MJ_SEGMENTED_SORT, 777, -1, 0, small);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpu_segsort");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, test_segsort_every_length);
    tcase_add_test(tc, test_segsort_lengths);
    tcase_add_test(tc, test_padded_keys);
    suite_add_tcase(s, tc);
    return run_gpu_suite("test_gpu_segsort", s);
}
