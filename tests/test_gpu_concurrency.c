/* SPDX-License-Identifier: Apache-2.0 */
/* Concurrency and device memory on the GPU. Skips (exit 77) where there is no GPU.
 *  - one context used from eight host threads at once, each on its own stream, building
 *    sorters of the same and of different kinds at the same moment (the context's cache
 *    directory starts empty, so some of them compile while others wait or load);
 *  - three contexts in one process, used in turn and interleaved, one destroyed while the
 *    others go on;
 *  - the GPU nearly full: a sort that needs temporary storage fails with
 *    MJ_ERR_DEVICE_MEMORY, leaves the keys as they were, and works once memory is freed.
 * Every result is checked against the CPU's stable sort. MJ_TEST_SMALL=1 runs smaller sizes
 * and leaves out the full-GPU case (for compute-sanitizer). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "api/devmem.h"
#include "test_support.h"

static mj_context *ctx;
static int small;

/* Streams come from the CUDA runtime, as in an application. */
static mjt_cudart rt;

/* One sort of n random keys of `kind` (with their indices as 4-byte values when pairs) on
 * `stream` through context c, checked against the CPU; "" when right, else what went wrong
 * (in why, which has room for 256 bytes). */
static const char *sort_and_check(mj_context *c, mj_key_kind kind, int pairs, size_t n,
                                  uint64_t seed, void *stream, char *why) {
    size_t ks = mj_key_kind_size(kind);
    void *keys = malloc(n * ks), *out = malloc(n * ks);
    uint32_t *vals = malloc(n * 4), *vout = malloc(n * 4);
    uint64_t *perm = malloc(n * 8);
    void *dk = NULL, *dv = NULL;
    why[0] = '\0';
    if (!keys || !out || !vals || !vout || !perm) {
        snprintf(why, 256, "no host memory");
        goto done;
    }
    kg_fill_keys(kind, keys, n, seed);
    for (size_t i = 0; i < n; i++) vals[i] = (uint32_t)i;
    mj_status st = mj__dev_alloc(c, &dk, n * ks);
    if (!st) st = mj__dev_alloc(c, &dv, n * 4);
    if (!st) st = mj__dev_upload(c, dk, keys, n * ks);
    if (!st) st = mj__dev_upload(c, dv, vals, n * 4);
    mj_sort_desc d;
    mj_sort_desc_init(&d, kind, MJ_ASCENDING);
    if (!st)
        st = pairs ? mj_sort_pairs(c, &d, dk, dv, n, 4, stream) : mj_sort_keys(c, &d, dk, n, stream);
    if (!st && rt.stream_sync(stream) != 0) {
        snprintf(why, 256, "cudaStreamSynchronize failed");
        goto done;
    }
    if (!st) st = mj__dev_download(c, out, dk, n * ks);
    if (!st) st = mj__dev_download(c, vout, dv, n * 4);
    if (st) {
        snprintf(why, 256, "%s: %.200s", mj_status_name(st), mj_context_last_error(c));
        goto done;
    }
    size_t first = 0;
    if (kg_reference_sort(kind, MJ_ASCENDING, keys, n, perm) != MJ_OK ||
        kg_compare(ks, pairs ? 4 : 0, keys, vals, out, vout, perm, n, &first) != 0)
        snprintf(why, 256, "%s %s of %zu: wrong from position %zu", mj_key_kind_name(kind),
                 pairs ? "pairs" : "keys", n, first);
done:
    if (dk) mj__dev_free(c, dk);
    if (dv) mj__dev_free(c, dv);
    free(keys);
    free(out);
    free(vals);
    free(vout);
    free(perm);
    return why;
}

enum { THREADS = 8, ROUNDS = 3 };

typedef struct worker {
    int id;
    char why[256];
} worker;

/* Threads 0-3 sort the same four kinds in the same order (they race to build the same
 * sorters); threads 4-7 each take other kinds. */
static void *work(void *arg) {
    worker *w = arg;
    static const mj_key_kind shared[] = {MJ_KEY_U32, MJ_KEY_F64, MJ_KEY_I16, MJ_KEY_U64};
    static const mj_key_kind own[] = {MJ_KEY_I32, MJ_KEY_F32, MJ_KEY_U8, MJ_KEY_I64};
    void *stream = NULL;
    if (rt.stream_create(&stream) != 0) {
        snprintf(w->why, sizeof w->why, "cudaStreamCreate failed");
        return NULL;
    }
    size_t n = small ? 20000 : 1000000 + 7919 * (size_t)w->id;
    int rounds = small ? 1 : ROUNDS; /* racecheck takes minutes per round */
    for (int r = 0; r < rounds && !w->why[0]; r++)
        for (int k = 0; k < 4 && !w->why[0]; k++) {
            mj_key_kind kind = w->id < 4 ? shared[k] : own[(k + w->id) % 4];
            sort_and_check(ctx, kind, (r + k) & 1, n, 100 * w->id + 10 * r + k, stream, w->why);
        }
    rt.stream_destroy(stream);
    return NULL;
}

START_TEST(one_context_many_threads) {
    worker w[THREADS];
    pthread_t t[THREADS];
    /* Under the sanitizers (MJ_TEST_SMALL) only the four threads that race to build the same
     * sorters: with eight, racecheck twice lost track of a launch ("Internal Sanitizer Error:
     * Detected a failure to track a kernel launch"), a tool error that reports no hazard. */
    int threads = small ? 4 : THREADS;
    for (int i = 0; i < threads; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].id = i;
        ck_assert_int_eq(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < threads; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < threads; i++) ck_assert_msg(!w[i].why[0], "thread %d: %s", i, w[i].why);
}
END_TEST

START_TEST(several_contexts) {
    mj_context *c[3];
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(mj_context_create(NULL, &c[i]), MJ_OK);
    }
    void *stream = NULL;
    ck_assert_int_eq(rt.stream_create(&stream), 0);
    char why[256];
    size_t n = small ? 10000 : 500000;
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 3; i++) {
            sort_and_check(c[i], i == 1 ? MJ_KEY_F32 : MJ_KEY_U32, i & 1, n, 7 * r + i,
                           i == 2 ? stream : NULL, why);
            ck_assert_msg(!why[0], "context %d, round %d: %s", i, r, why);
        }
    mj_context_destroy(c[1]);
    for (int i = 0; i < 3; i += 2) {
        sort_and_check(c[i], MJ_KEY_U64, 1, n, 99 + i, stream, why);
        ck_assert_msg(!why[0], "context %d after another was destroyed: %s", i, why);
    }
    mj_context_destroy(c[0]);
    mj_context_destroy(c[2]);
    rt.stream_destroy(stream);
}
END_TEST

START_TEST(device_memory_full) {
    size_t n = 1 << 20;
    uint32_t *keys = malloc(n * 4), *back = malloc(n * 4);
    ck_assert(keys && back);
    kg_fill_keys(MJ_KEY_U32, keys, n, 3);
    void *dk = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &dk, n * 4), MJ_OK);
    ck_assert_int_eq(mj__dev_upload(ctx, dk, keys, n * 4), MJ_OK);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *s = NULL; /* built first: loading its module takes device memory too */
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);

    /* Take what the GPU has, in pieces from 4 GiB down to 1 MiB. */
    enum { MAX_HOGS = 4096 };
    void **hog = calloc(MAX_HOGS, sizeof *hog);
    ck_assert_ptr_nonnull(hog);
    int hogs = 0;
    for (size_t piece = (size_t)4 << 30; piece >= (1u << 20); piece /= 2)
        while (hogs < MAX_HOGS && mj__dev_alloc(ctx, &hog[hogs], piece) == MJ_OK) hogs++;
    ck_assert_int_gt(hogs, 0);

    mj_status st = mj_sorter_sort(s, dk, NULL, n, NULL, 0, NULL);
    mj__dev_sync(ctx, NULL);
    ck_assert_msg(st == MJ_ERR_DEVICE_MEMORY, "%s: %s", mj_status_name(st),
                  mj_context_last_error(ctx));
    ck_assert_msg(strstr(mj_context_last_error(ctx), "memory") != NULL, "message: %s",
                  mj_context_last_error(ctx));
    for (int i = 0; i < hogs; i++) ck_assert_int_eq(mj__dev_free(ctx, hog[i]), MJ_OK);
    free(hog);
    ck_assert_int_eq(mj__dev_download(ctx, back, dk, n * 4), MJ_OK);
    ck_assert_msg(memcmp(keys, back, n * 4) == 0, "the keys changed after a failed sort");

    ck_assert_int_eq(mj_sorter_sort(s, dk, NULL, n, NULL, 0, NULL), MJ_OK);
    ck_assert_int_eq(mj__dev_download(ctx, back, dk, n * 4), MJ_OK);
    for (size_t i = 1; i < n; i++) ck_assert_uint_le(back[i - 1], back[i]);
    mj_sorter_destroy(s);
    mj__dev_free(ctx, dk);
    free(keys);
    free(back);
}
END_TEST

int main(void) {
    small = mjt_small();
    ctx = mjt_gpu_context_or_skip("test_gpu_concurrency");
    if (mjt_cudart_load(&rt) != 0) return 1;
    Suite *s = suite_create("gpu_concurrency");
    TCase *tc = tcase_create("concurrency");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, one_context_many_threads);
    tcase_add_test(tc, several_contexts);
    if (!small) tcase_add_test(tc, device_memory_full);
    suite_add_tcase(s, tc);
    int rc = mjt_run(s, 0);
    mj_context_destroy(ctx);
    return rc;
}
