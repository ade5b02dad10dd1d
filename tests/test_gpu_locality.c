/* SPDX-License-Identifier: Apache-2.0 */
/* Locality sort on the GPU against a CPU reference: nearly sorted, block-shuffled, reversed and
 * random input of u32 pairs and u64 keys. Skips (exit 77) where there is no GPU.
 * MJ_TEST_SMALL=1 runs smaller sizes (for compute-sanitizer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "gpu_primitives_support.h"
#include "padded_keys_support.h"
#include "test_support.h"

/* ---------------------------------------------------------------- locality sort */

enum { N_SWAPS_FEW, N_SWAPS_MANY, N_BLOCKS, N_REVERSED, N_RANDOM, N_COUNT };
static const char *const near_names[] = {"sorted with 10 swaps", "sorted with 1% swaps",
                                         "shuffled blocks", "reversed", "random"};

static void check_locality(mj_sorter *s, size_t ks, int values, int dist, size_t n) {
    uint64_t rng = 777 + dist;
    uint64_t *raw = malloc((n + 1) * 8);
    ck_assert_ptr_nonnull(raw);
    for (size_t i = 0; i < n; ++i) raw[i] = dist == N_RANDOM ? mjt_rand(&rng) % n : i / 3;
    if (dist == N_REVERSED)
        for (size_t i = 0; i < n / 2; ++i) {
            uint64_t t = raw[i];
            raw[i] = raw[n - 1 - i];
            raw[n - 1 - i] = t;
        }
    if (dist == N_SWAPS_FEW || dist == N_SWAPS_MANY) {
        size_t swaps = dist == N_SWAPS_FEW ? 10 : n / 100;
        for (size_t k = 0; k < swaps && n > 1; ++k) {
            size_t i = mjt_rand(&rng) % n, j = mjt_rand(&rng) % n;
            uint64_t t = raw[i];
            raw[i] = raw[j];
            raw[j] = t;
        }
    }
    if (dist == N_BLOCKS) { /* blocks of 1000 sorted keys in a shuffled order */
        size_t blocks = (n + 999) / 1000;
        for (size_t b = blocks; b > 1; --b) {
            size_t c = mjt_rand(&rng) % b, x = b - 1;
            for (size_t i = 0; i < 1000 && x * 1000 + i < n && c * 1000 + i < n; ++i) {
                uint64_t t = raw[x * 1000 + i];
                raw[x * 1000 + i] = raw[c * 1000 + i];
                raw[c * 1000 + i] = t;
            }
        }
    }
    void *keys = malloc(n * ks + 1);
    uint32_t *tags = malloc(n * 4 + 1);
    item *ref = malloc((n + 1) * sizeof *ref);
    ck_assert(keys && tags && ref);
    for (size_t i = 0; i < n; ++i) {
        put_key(keys, ks, i, raw[i]);
        tags[i] = (uint32_t)i;
        ref[i] = (item){raw[i], (uint32_t)i, 0};
    }
    void *dk = dev_copy(keys, n * ks), *dv = values ? dev_copy(tags, n * 4) : NULL;
    char what[128];
    snprintf(what, sizeof what, "locality sort of %zu %zu-byte keys%s, %s", n, ks,
             values ? " with values" : "", near_names[dist]);
    say(what);
    mj_status st = mj_sorter_sort(s, dk, dv, n, NULL, 0, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    expect(dk, dv, ks, ref, n, what);
    mj__dev_free(ctx, dk);
    mj__dev_free(ctx, dv);
    free(raw);
    free(keys);
    free(tags);
    free(ref);
}

START_TEST(test_locality) {
    static const size_t sizes[] = {0, 1, 1000, 70001, 1100000};
    size_t cases = small ? 4 : 5;
    mj_sorter *pairs = make_sorter(MJ_LOCALITY_SORT, MJ_KEY_U32, 4);
    mj_sorter *keys64 = make_sorter(MJ_LOCALITY_SORT, MJ_KEY_U64, 0);
    for (int dist = 0; dist < N_COUNT; ++dist)
        for (size_t c = 0; c < cases; ++c) {
            check_locality(pairs, 4, 1, dist, sizes[c]);
            check_locality(keys64, 8, 0, dist, sizes[c]);
        }
    mj_sorter_destroy(pairs);
    mj_sorter_destroy(keys64);
}
END_TEST

/* Padded custom keys keep every byte (padded_keys_support.h; issue 43), keys alone and with
 * values, sorter and one-call forms. */
START_TEST(test_padded_keys) {
    padk_run(ctx, MJ_LOCALITY_SORT, 0, -1, 0, small);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpu_locality");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, test_locality);
    tcase_add_test(tc, test_padded_keys);
    suite_add_tcase(s, tc);
    return run_gpu_suite("test_gpu_locality", s);
}
