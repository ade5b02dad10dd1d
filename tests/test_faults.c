/* SPDX-License-Identifier: Apache-2.0 */
/* Faults forced through the library's test hooks, without a GPU (compile-only contexts):
 *  - every host allocation of the main paths failing in turn (context creation with a tuning
 *    file and a bundle, sorters from the disk cache and from a bundle, saving tiles, building
 *    and writing a bundle, listing one, cache statistics). Each failure must give
 *    MJ_ERR_HOST_MEMORY with a message that says so (or MJ_OK where the library recovers),
 *    leave the files it was writing as they were, leak nothing (the ASan build checks), and
 *    the same calls without the fault must then work, with the cache entries intact;
 *  - NVRTC failing (out of memory, an internal error) in the middle of a build: a named
 *    status with NVRTC's words, nothing cached, and the next build works. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver/compile.h"
#include "base/host_alloc.h"
#include "test_support.h"

typedef struct fixture {
    char *dir;
    char cache[512], tuning[512], bundle[512], out_tuning[512], out_bundle[512];
} fixture;

static mj_sort_desc desc(mj_primitive p, mj_key_kind k, size_t values) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, k, MJ_ASCENDING);
    d.primitive = p;
    d.value_size = values;
    return d;
}

/* The message of a failure to allocate the object that would hold a message. */
#define NO_OBJECT "(no context or builder to read a message from)"

/* What a scenario got: its first failure, with the message. */
typedef struct outcome {
    mj_status st;
    char msg[1024];
} outcome;

static int failed(outcome *o, mj_status st, const char *msg) {
    if (st == MJ_OK) return 0;
    o->st = st;
    snprintf(o->msg, sizeof o->msg, "%s", msg ? msg : "(no message)");
    return 1;
}

static mj_status context(const fixture *f, const char *tuning, const char *bundle,
                         mj_context **ctx) {
    mj_context_options o;
    mj_context_options_init(&o);
    o.flags = MJ_CONTEXT_COMPILE_ONLY;
    o.target_sm = 90;
    o.cache_dir = f->cache;
    o.tuning_file = tuning;
    o.bundle = bundle;
    return mj_context_create(&o, ctx);
}

/* A context reading the tuning file, and sorters of two primitives from the disk cache; the
 * source each came from goes to sources[]. */
static void cached_sorters(const fixture *f, outcome *o, int sources[2]) {
    mj_context *ctx = NULL;
    mj_status st = context(f, f->tuning, "", &ctx);
    if (!failed(o, st, ctx ? mj_context_last_error(ctx) : NO_OBJECT)) {
        const mj_sort_desc d[2] = {desc(MJ_MERGESORT, MJ_KEY_U32, 0),
                                   desc(MJ_SEGMENTED_SORT, MJ_KEY_F64, 8)};
        for (int i = 0; i < 2; i++) {
            mj_sorter *s = NULL;
            if (failed(o, mj_sorter_create(ctx, &d[i], &s), mj_context_last_error(ctx))) break;
            size_t bytes = 0;
            st = mj_sorter_temp_size(s, 1000000, 0, &bytes);
            sources[i] = mj_sorter_source(s);
            mj_sorter_destroy(s);
            if (failed(o, st, mj_context_last_error(ctx))) break;
        }
    }
    mj_context_destroy(ctx);
}

static void cached_sorters_only(const fixture *f, outcome *o) {
    int sources[2];
    cached_sorters(f, o, sources);
}

/* Saving a tile to a new tuning file. */
static void save_tiles(const fixture *f, outcome *o) {
    mj_context *ctx = NULL;
    mj_status st = context(f, "", "", &ctx);
    if (!failed(o, st, ctx ? mj_context_last_error(ctx) : NO_OBJECT)) {
        mj_tile t;
        st = mj_context_tile(ctx, MJ_MERGESORT, 4, 0, &t);
        if (!failed(o, st, mj_context_last_error(ctx)))
            failed(o, mj_tuning_save(ctx, f->out_tuning, &t, 1), mj_context_last_error(ctx));
    }
    mj_context_destroy(ctx);
}

/* Building a bundle of two entries (from the disk cache) and writing it. */
static void build_bundle(const fixture *f, outcome *o) {
    mj_context *ctx = NULL;
    mj_bundle_builder *b = NULL;
    mj_status st = context(f, "", "", &ctx);
    if (!failed(o, st, ctx ? mj_context_last_error(ctx) : NO_OBJECT) &&
        !failed(o, mj_bundle_builder_create(&b), NO_OBJECT)) {
        const mj_sort_desc d[2] = {desc(MJ_MERGESORT, MJ_KEY_U32, 0),
                                   desc(MJ_MERGE, MJ_KEY_F64, 8)};
        int ok = 1;
        for (int i = 0; i < 2 && ok; i++)
            ok = !failed(o, mj_bundle_builder_add(b, ctx, &d[i]), mj_bundle_builder_last_error(b));
        if (ok)
            failed(o, mj_bundle_builder_write(b, f->out_bundle), mj_bundle_builder_last_error(b));
    }
    mj_bundle_builder_destroy(b);
    mj_context_destroy(ctx);
}

static void count_entry(void *arg, const mj_bundle_info *e) {
    (void)e;
    ++*(int *)arg;
}

/* A context serving from the bundle, its listing, and cache statistics. */
static void from_bundle(const fixture *f, outcome *o) {
    mj_context *ctx = NULL;
    mj_status st = context(f, "", f->bundle, &ctx);
    if (!failed(o, st, ctx ? mj_context_last_error(ctx) : NO_OBJECT)) {
        mj_sort_desc d = desc(MJ_MERGE, MJ_KEY_F64, 8);
        mj_sorter *s = NULL;
        if (!failed(o, mj_sorter_create(ctx, &d, &s), mj_context_last_error(ctx))) {
            ck_assert_int_eq(mj_sorter_source(s), 3);
            mj_sorter_destroy(s);
            char err[512] = "";
            int entries = 0;
            if (!failed(o, mj_bundle_list(f->bundle, count_entry, &entries, err, sizeof err),
                        err)) {
                ck_assert_int_eq(entries, 2);
                size_t n = 0;
                uint64_t bytes = 0;
                failed(o, mj_cache_stats(ctx, &n, &bytes), mj_context_last_error(ctx));
            }
        }
    }
    mj_context_destroy(ctx);
}

static void setup(fixture *f) {
    f->dir = mjt_tmpdir();
    snprintf(f->cache, sizeof f->cache, "%s/cache", f->dir);
    snprintf(f->tuning, sizeof f->tuning, "%s/tuning", f->dir);
    snprintf(f->bundle, sizeof f->bundle, "%s/b.mjb", f->dir);
    snprintf(f->out_tuning, sizeof f->out_tuning, "%s/out_tuning", f->dir);
    snprintf(f->out_bundle, sizeof f->out_bundle, "%s/out.mjb", f->dir);
    static const char tuning[] = "mergejit-tuning 1\n"
                                 "device 90 NVIDIA H100 80GB HBM3\n"
                                 "tile mergesort 4 0 256 23 512 19.5\n";
    mjt_write_file(f->tuning, tuning, sizeof tuning - 1);
    /* Compiles everything once, so that the loops below find it in the disk cache. */
    outcome o = {MJ_OK, ""};
    int sources[2];
    cached_sorters(f, &o, sources);
    ck_assert_msg(o.st == MJ_OK, "%s", o.msg);
    build_bundle(f, &o);
    ck_assert_msg(o.st == MJ_OK, "%s", o.msg);
    ck_assert_int_eq(rename(f->out_bundle, f->bundle), 0);
}

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Runs the scenario with the k-th allocation failing, for k = 1, 2, ... until one runs
 * without reaching its k-th allocation. Returns the number of allocations it makes. */
static int walk(const char *name, const fixture *f, void (*scenario)(const fixture *, outcome *),
                const char *writes) {
    int k, recovered = 0;
    for (k = 1;; k++) {
        if (writes) remove(writes);
        outcome o = {MJ_OK, ""};
        mj__fault_alloc_countdown = k;
        scenario(f, &o);
        int fired = mj__fault_alloc_countdown == 0;
        mj__fault_alloc_countdown = 0;
        if (!fired) {
            ck_assert_msg(o.st == MJ_OK, "%s without a fault: %s: %s", name,
                          mj_status_name(o.st), o.msg);
            break;
        }
        ck_assert_msg(o.st == MJ_OK || o.st == MJ_ERR_HOST_MEMORY,
                      "%s, allocation %d failing: %s: %s", name, k, mj_status_name(o.st), o.msg);
        recovered += o.st == MJ_OK;
        if (o.st != MJ_OK) {
            ck_assert_msg(strstr(o.msg, "memory") || !strcmp(o.msg, NO_OBJECT),
                          "%s, allocation %d failing: the message does not say so: %s", name,
                          k, o.msg);
            if (writes)
                ck_assert_msg(!file_exists(writes), "%s, allocation %d failing: %s was written",
                              name, k, writes);
        }
        outcome again = {MJ_OK, ""};
        scenario(f, &again);
        ck_assert_msg(again.st == MJ_OK, "%s after allocation %d failed: %s: %s", name, k,
                      mj_status_name(again.st), again.msg);
    }
    fprintf(stderr, "%s: %d allocations, each failing once: %d gave MJ_ERR_HOST_MEMORY, %d "
            "recovered\n", name, k - 1, k - 1 - recovered, recovered);
    return k - 1;
}

START_TEST(every_allocation_fails_in_turn) {
    fixture f;
    setup(&f);
    int counts[4] = {walk("context and cached sorters", &f, cached_sorters_only, NULL),
                     walk("saving tiles", &f, save_tiles, f.out_tuning),
                     walk("building a bundle", &f, build_bundle, f.out_bundle),
                     walk("serving from a bundle", &f, from_bundle, NULL)};
    for (int i = 0; i < 4; i++) ck_assert_int_gt(counts[i], 2);
    /* The cache entries survived every failure: both sorters still come from the disk. */
    outcome o = {MJ_OK, ""};
    int sources[2] = {-1, -1};
    cached_sorters(&f, &o, sources);
    ck_assert_msg(o.st == MJ_OK, "%s", o.msg);
    ck_assert_int_eq(sources[0], 1);
    ck_assert_int_eq(sources[1], 1);
    mjt_rmtree(f.dir);
    free(f.dir);
}
END_TEST

/* NVRTC out of memory, or failing inside, while building: a named status with NVRTC's words,
 * nothing cached; the next build compiles and caches. */
START_TEST(nvrtc_fails_mid_build) {
    char *dir = mjt_tmpdir();
    static const struct {
        int result;
        mj_status st;
        const char *words;
    } cases[] = {{NVRTC_ERROR_OUT_OF_MEMORY, MJ_ERR_HOST_MEMORY, "NVRTC_ERROR_OUT_OF_MEMORY"},
                 {NVRTC_ERROR_INTERNAL_ERROR, MJ_ERR_COMPILE, "NVRTC_ERROR_INTERNAL_ERROR"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mj_context *ctx = mjt_compile_context(90, dir);
        mj_sort_desc d = desc(MJ_MERGESORT, MJ_KEY_I16, 0);
        mj_sorter *s = NULL;
        mj__fault_nvrtc_result = cases[i].result;
        mj_status st = mj_sorter_create(ctx, &d, &s);
        mj__fault_nvrtc_result = 0;
        ck_assert_msg(st == cases[i].st, "%s: %s", mj_status_name(st),
                      mj_context_last_error(ctx));
        ck_assert_ptr_null(s);
        ck_assert_msg(strstr(mj_context_last_error(ctx), cases[i].words), "message: %s",
                      mj_context_last_error(ctx));
        size_t entries = 99;
        uint64_t bytes = 0;
        ck_assert_int_eq(mj_cache_stats(ctx, &entries, &bytes), MJ_OK);
        ck_assert_uint_eq(entries, 0);
        mj_context_destroy(ctx);
    }
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc d = desc(MJ_MERGESORT, MJ_KEY_I16, 0);
    mj_sorter *s = NULL;
    ck_assert_msg(mj_sorter_create(ctx, &d, &s) == MJ_OK, "%s", mj_context_last_error(ctx));
    ck_assert_int_eq(mj_sorter_source(s), 0);
    mj_sorter_destroy(s);
    size_t entries = 0;
    uint64_t bytes = 0;
    ck_assert_int_eq(mj_cache_stats(ctx, &entries, &bytes), MJ_OK);
    /* the mergesort's module (its 2-way passes' merge and blocksort, its 4-way passes' merge
     * and both partitions; fused: no 2-way partition) and its five programs */
    ck_assert_uint_eq(entries, 6);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("faults");
    TCase *tc = tcase_create("hooks");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, every_allocation_fails_in_turn);
    tcase_add_test(tc, nvrtc_fails_mid_build);
    suite_add_tcase(s, tc);
    return mjt_run(s, 1);
}
