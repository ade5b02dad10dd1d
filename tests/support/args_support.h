/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the primitives' tests without a GPU (test_*_args.c): a context in a directory of
 * its own, a description of one primitive, and the checks each primitive repeats: request
 * keys, the tile a sorter gets, a bundle that serves what it holds, tuning records. Header-only,
 * so that the support library's sources stay as they are; static inline, so that a program
 * leaving some of them unused compiles without a warning. */
#ifndef MJ_TEST_ARGS_SUPPORT_H
#define MJ_TEST_ARGS_SUPPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bundle_match.h"
#include "core/tile_choice.h"
#include "gen_support.h"
#include "test_support.h"

/* A compile-only sm_90 context caching in a fresh directory (*dir); scratch_close ends both. */
static inline mj_context *scratch_open(char **dir) {
    *dir = mjt_tmpdir();
    return mjt_compile_context(90, *dir);
}

static inline void scratch_close(mj_context *ctx, char *dir) {
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}

/* An ascending description of primitive p over built-in keys. */
static inline mj_sort_desc primitive_desc(mj_primitive p, mj_key_kind key, size_t value_size) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, key, MJ_ASCENDING);
    d.primitive = p;
    d.value_size = value_size;
    return d;
}

/* The description of primitive p over gen_support.h's custom 16-byte key. */
static inline mj_sort_desc pair128_desc(mj_primitive p) {
    mj_sort_desc d = {0};
    d.primitive = p;
    d.key = MJ_KEY_CUSTOM;
    d.type_name = "pair128";
    d.type_source = custom_source;
    d.type_size = 16;
    d.type_align = 8;
    d.less = custom_less;
    return d;
}

/* Whether a and b give one bundle request key in ctx: one kernel, one bundle entry. */
static inline int same_request(mj_context *ctx, const mj_sort_desc *a, const mj_sort_desc *b) {
    mj_kernel_spec sa, sb;
    ck_assert_int_eq(mj__spec_from_desc(ctx, a, &sa), MJ_OK);
    ck_assert_int_eq(mj__spec_from_desc(ctx, b, &sb), MJ_OK);
    uint8_t ka[32], kb[32];
    mj__bundle_request_key(&sa, ka);
    mj__bundle_request_key(&sb, kb);
    return memcmp(ka, kb, 32) == 0;
}

/* What a primitive folds into one bundle request (check_request_key). */
enum {
    REQUEST_ANY_ORDER = 1, /* the order and less: a descending order is the same kernel */
    REQUEST_ANY_KIND = 2,  /* the built-in kind within a width: keys are moved as bytes */
};

/* The bundle request of primitive p over `key` keys, in a fresh context: a descending order
 * with a less of its own is the same request exactly when `folds` has REQUEST_ANY_ORDER; the
 * other built-in kinds of key's width exactly when it has REQUEST_ANY_KIND; a kind of another
 * width never is, nor primitive `other` (with other_value_size-byte values). */
static inline void check_request_key(mj_primitive p, mj_key_kind key, int folds,
                                     mj_primitive other, size_t other_value_size) {
    char *dir;
    mj_context *ctx = scratch_open(&dir);
    mj_sort_desc d = primitive_desc(p, key, 0), e = d;
    e.order = MJ_DESCENDING;
    e.less = "a > b";
    ck_assert_int_eq(same_request(ctx, &d, &e), !!(folds & REQUEST_ANY_ORDER));
    int other_width = 0;
    for (int k = 0; k < MJ_KEY_CUSTOM; ++k) {
        e = d;
        e.key = (mj_key_kind)k;
        if (e.key == key) continue;
        int alike = mj_key_kind_size(e.key) == mj_key_kind_size(key);
        other_width += !alike;
        ck_assert_msg(same_request(ctx, &d, &e) == (alike && (folds & REQUEST_ANY_KIND)),
                      "%s keys and %s keys", mj_key_kind_name(key), mj_key_kind_name(e.key));
    }
    ck_assert_int_gt(other_width, 0);
    e = d;
    e.primitive = other;
    e.value_size = other_value_size;
    ck_assert(!same_request(ctx, &d, &e));
    scratch_close(ctx, dir);
}

/* The elements one tile of s covers (nt x vt), which must be ctx's choice for p, key_size and
 * value_size. */
static inline size_t chosen_tile(mj_context *ctx, const mj_sorter *s, mj_primitive p,
                                 size_t key_size, size_t value_size) {
    int nt, vt;
    mj_sorter_tile(s, &nt, &vt);
    mj_tile want;
    ck_assert_int_eq(mj_context_tile(ctx, p, key_size, value_size, &want), MJ_OK);
    ck_assert(nt == want.nt && vt == want.vt);
    return (size_t)nt * (size_t)vt;
}

/* p's built-in sm_90 tile for keys of 1 to 256 bytes and each of the n value sizes passes
 * mj_tile_check. */
static inline void default_tiles_fit(mj_primitive p, const size_t *value_sizes, size_t n) {
    static const size_t key_sizes[] = {1, 2, 4, 8, 12, 16, 32, 64, 256};
    char err[512];
    for (size_t i = 0; i < sizeof key_sizes / sizeof *key_sizes; ++i)
        for (size_t v = 0; v < n; ++v) {
            mj_tile t = {p, key_sizes[i], value_sizes[v], 0, 0, 0, 0, 0, 0};
            mj__default_tile(p, 90, key_sizes[i], value_sizes[v], &t.nt, &t.vt, &t.bs_nt);
            ck_assert_msg(mj_tile_check(&t, err, sizeof err) == MJ_OK,
                          "%zu-byte keys, %zu-byte values: %s", key_sizes[i], value_sizes[v],
                          err);
        }
}

/* A sorter for d in ctx has an nt x vt tile. */
static inline void expect_tile(mj_context *ctx, const mj_sort_desc *d, int nt, int vt) {
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, d, &s), MJ_OK);
    int got_nt, got_vt;
    mj_sorter_tile(s, &got_nt, &got_vt);
    ck_assert_int_eq(got_nt, nt);
    ck_assert_int_eq(got_vt, vt);
    mj_sorter_destroy(s);
}

/* While MERGEJIT_TILE names an nt x vt tile, a sorter for d in ctx has it. */
static inline void expect_env_tile(mj_context *ctx, const mj_sort_desc *d, int nt, int vt) {
    char tile[32];
    snprintf(tile, sizeof tile, "%dx%d", nt, vt);
    setenv("MERGEJIT_TILE", tile, 1);
    expect_tile(ctx, d, nt, vt);
    unsetenv("MERGEJIT_TILE");
}

/* mj_tile_check refuses t, with `needle` (when not NULL) in its message. */
static inline void tile_refused(const mj_tile *t, const char *needle) {
    char why[256];
    ck_assert_int_eq(mj_tile_check(t, why, sizeof why), MJ_ERR_INVALID_ARGUMENT);
    if (needle) ck_assert_ptr_nonnull(strstr(why, needle));
}

/* mj_tile_check takes t (whose bs_nt is its nt) and refuses it with 256 blocksort threads
 * (the primitive has no blocksort of its own size), and refuses `big` for its shared memory. */
static inline void tile_limits(mj_tile t, mj_tile big) {
    char why[256];
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_OK);
    t.bs_nt = 256;
    tile_refused(&t, "blocksort");
    tile_refused(&big, "shared memory");
}

/* ctx's tile for (p, key_size, value_size) is nt x vt, from the tuning file (tuned 1) or built
 * in (0), with blocksort threads its NT (the primitives without a blocksort of their own). */
static inline void expect_context_tile(mj_context *ctx, mj_primitive p, size_t key_size,
                                       size_t value_size, int tuned, int nt, int vt) {
    mj_tile t;
    ck_assert_int_eq(mj_context_tile(ctx, p, key_size, value_size, &t), MJ_OK);
    ck_assert_int_eq(t.tuned, tuned);
    ck_assert_int_eq(t.nt, nt);
    ck_assert_int_eq(t.vt, vt);
    ck_assert_int_eq(t.bs_nt, nt);
}

/* ctx's tile for (p, key_size, value_size) is the tuned nt x vt. */
static inline void expect_tuned(mj_context *ctx, mj_primitive p, size_t key_size,
                                size_t value_size, int nt, int vt) {
    expect_context_tile(ctx, p, key_size, value_size, 1, nt, vt);
}

/* ctx's tile for (p, key_size, value_size) is the built-in nt x vt (a rule or an sm_90 row). */
static inline void expect_default_tile(mj_context *ctx, mj_primitive p, size_t key_size,
                                       size_t value_size, int nt, int vt) {
    expect_context_tile(ctx, p, key_size, value_size, 0, nt, vt);
}

/* Saves the n records as dir's tuning file through ctx, which it then destroys, and returns a
 * deployment context caching in dir that reads that file and the bundle at `bundle` ("": no
 * bundle). */
static inline mj_context *retune(mj_context *ctx, const char *dir, const mj_tile *recs, size_t n,
                                 const char *bundle) {
    char path[512];
    snprintf(path, sizeof path, "%s/tuning", dir);
    ck_assert_int_eq(mj_tuning_save(ctx, path, recs, n), MJ_OK);
    mj_context_destroy(ctx);
    return mjt_deploy_context(90, dir, bundle, path);
}

/* Writes a bundle of the n descriptions to path, through a deployment context caching in dir;
 * they make `entries` entries. */
static inline void write_bundle(const char *dir, const char *path, const mj_sort_desc *descs,
                                size_t n, size_t entries) {
    mj_context *ctx = mjt_deploy_context(90, dir, "", "");
    mj_bundle_builder *b = NULL;
    ck_assert_int_eq(mj_bundle_builder_create(&b), MJ_OK);
    for (size_t i = 0; i < n; ++i)
        ck_assert_int_eq(mj_bundle_builder_add(b, ctx, &descs[i]), MJ_OK);
    ck_assert_uint_eq(mj_bundle_builder_count(b), entries);
    ck_assert_int_eq(mj_bundle_builder_write(b, path), MJ_OK);
    mj_bundle_builder_destroy(b);
    mj_context_destroy(ctx);
}

/* A sorter for d in ctx gets its binary from `source` (mj_sorter_source: 3 the bundle, 2 the
 * context's memory). */
static inline void expect_source(mj_context *ctx, const mj_sort_desc *d, int source) {
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, d, &s), MJ_OK);
    ck_assert_int_eq(mj_sorter_source(s), source);
    mj_sorter_destroy(s);
}

/* ctx's bundle lacks d: no sorter, MJ_ERR_NOT_IN_BUNDLE with `needle` (when not NULL) in the
 * message. */
static inline void expect_not_in_bundle(mj_context *ctx, const mj_sort_desc *d,
                                        const char *needle, const char *what) {
    mj_sorter *s = NULL;
    mjt_expect(ctx, mj_sorter_create(ctx, d, &s), MJ_ERR_NOT_IN_BUNDLE, needle, what);
    ck_assert_ptr_null(s);
}

#endif
