/* SPDX-License-Identifier: Apache-2.0 */
/* Tiles without a GPU: shape checks, the tuning file as contexts read and write it, ptxas's
 * figures kept with binaries (spill rejection), and the autotuner's candidate plan and the
 * order it builds and measures them in. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_io.h"
#include "test_support.h"
#include "tune.h"

static mj_tile tile(mj_primitive p, size_t k, size_t v, int nt, int vt, int bs) {
    mj_tile t = {p, k, v, nt, vt, bs, 0, 0, 0};
    return t;
}

static void write_text(const char *path, const char *text) {
    mjt_write_file(path, text, strlen(text));
}

/* A compile-only context for sm 90 with the given tuning file option. */
static mj_status tuned_context(const char *tuning, const char *cache, mj_context **ctx) {
    mj_context_options o;
    mj_context_options_init(&o);
    o.flags = MJ_CONTEXT_COMPILE_ONLY;
    o.target_sm = 90;
    o.cache_dir = cache;
    o.tuning_file = tuning;
    o.bundle = "";
    return mj_context_create(&o, ctx);
}

START_TEST(tile_check) {
    char why[256];
    mj_tile t = tile(MJ_MERGESORT, 4, 0, 256, 23, 512);
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_OK);
    t = tile(MJ_MERGESORT, 4, 0, 48, 23, 48);
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(why, "power of two"));
    t = tile(MJ_MERGESORT, 4, 0, 128, 0, 128);
    ck_assert_int_eq(mj_tile_check(&t, NULL, 0), MJ_ERR_INVALID_ARGUMENT);
    t = tile(MJ_SEGMENTED_SORT, 4, 0, 64, 33, 64);
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(why, "segmented"));
    t = tile(MJ_MERGESORT, 8, 8, 512, 15, 512);
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(why, "shared memory"));
    t = tile(MJ_MERGESORT, 4, 0, 256, 9, 128);
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_ERR_INVALID_ARGUMENT);
    /* The merge primitive has no blocksort: a large bs_nt does not count against it. */
    t = tile(MJ_MERGE, 4, 0, 512, 23, 512);
    ck_assert_int_eq(mj_tile_check(&t, why, sizeof why), MJ_OK);
    ck_assert_int_eq(mj_tile_check(NULL, why, sizeof why), MJ_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(tuning_in_contexts) {
    char *dir = mjt_tmpdir();
    char path[4096], cache[4096];
    snprintf(path, sizeof path, "%s/conf/tuning", dir);
    snprintf(cache, sizeof cache, "%s/cache", dir);
    mj_context *ctx = NULL;
    ck_assert_int_eq(tuned_context("", cache, &ctx), MJ_OK);
    ck_assert_str_eq(mj_context_tuning_file(ctx), "");
    mj_tile def;
    ck_assert_int_eq(mj_context_tile(ctx, MJ_MERGESORT, 4, 0, &def), MJ_OK);
    ck_assert_int_eq(def.tuned, 0);
    ck_assert_int_eq(mj_tile_check(&def, NULL, 0), MJ_OK);

    /* Saving writes the context's sm (a compile-only context has no device name). */
    mj_tile tiles[2] = {tile(MJ_MERGESORT, 4, 0, 128, 15, 256),
                        tile(MJ_SEGMENTED_SORT, 8, 4, 128, 11, 256)};
    tiles[0].gkeys = 19.5;
    ck_assert_int_eq(mj_tuning_save(ctx, path, tiles, 2), MJ_OK);
    /* A bad tile is refused and the file stays as it was. */
    char *before = mjt_read_file(path, NULL);
    mj_tile bad = tile(MJ_MERGESORT, 4, 0, 100, 15, 100);
    ck_assert_int_eq(mj_tuning_save(ctx, path, &bad, 1), MJ_ERR_INVALID_ARGUMENT);
    char *after = mjt_read_file(path, NULL);
    ck_assert_str_eq(before, after);
    free(after);
    /* A full disk: MJ_ERR_FILE with the reason, and the old file kept whole. */
    mj__fault_write_errno = ENOSPC;
    ck_assert_int_eq(mj_tuning_save(ctx, path, tiles, 1), MJ_ERR_FILE);
    mj__fault_write_errno = 0;
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), strerror(ENOSPC)));
    after = mjt_read_file(path, NULL);
    ck_assert_str_eq(before, after);
    free(before);
    free(after);
    mj_context_destroy(ctx);

    ck_assert_int_eq(tuned_context(path, cache, &ctx), MJ_OK);
    ck_assert_str_eq(mj_context_tuning_file(ctx), path);
    mj_tile t;
    ck_assert_int_eq(mj_context_tile(ctx, MJ_MERGESORT, 4, 0, &t), MJ_OK);
    ck_assert_int_eq(t.tuned, 1);
    ck_assert_int_eq(t.nt, 128);
    ck_assert_int_eq(t.vt, 15);
    ck_assert_int_eq(t.bs_nt, 256);
    ck_assert(t.gkeys > 19.4 && t.gkeys < 19.6);
    ck_assert_int_eq(mj_context_tile(ctx, MJ_SEGMENTED_SORT, 8, 4, &t), MJ_OK);
    ck_assert_int_eq(t.tuned, 1);
    ck_assert_int_eq(t.vt, 11);
    /* Sizes the file lacks get the defaults. */
    ck_assert_int_eq(mj_context_tile(ctx, MJ_MERGESORT, 8, 0, &t), MJ_OK);
    ck_assert_int_eq(t.tuned, 0);

    /* A sorter built in the context takes the tuned tile; a description's own tile wins. */
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *s = NULL;
    ck_assert_msg(mj_sorter_create(ctx, &d, &s) == MJ_OK, "%s", mj_context_last_error(ctx));
    int nt, vt;
    mj_sorter_tile(s, &nt, &vt);
    ck_assert_int_eq(nt, 128);
    ck_assert_int_eq(vt, 15);
    mj_sorter_destroy(s);
    d.nt = 64;
    d.vt = 7;
    ck_assert_msg(mj_sorter_create(ctx, &d, &s) == MJ_OK, "%s", mj_context_last_error(ctx));
    mj_sorter_tile(s, &nt, &vt);
    ck_assert_int_eq(nt, 64);
    ck_assert_int_eq(vt, 7);
    mj_sorter_destroy(s);
    mj_context_destroy(ctx);

    /* A file for another sm gives this context nothing. */
    char other[4096];
    snprintf(other, sizeof other, "%s/other", dir);
    write_text(other, "mergejit-tuning 1\ndevice 80 NVIDIA A100\ntile mergesort 4 0 64 5 64 1\n");
    ck_assert_int_eq(tuned_context(other, cache, &ctx), MJ_OK);
    ck_assert_int_eq(mj_context_tile(ctx, MJ_MERGESORT, 4, 0, &t), MJ_OK);
    ck_assert_int_eq(t.tuned, 0);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(tuning_file_errors) {
    char *dir = mjt_tmpdir();
    char path[4096], cache[4096];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    mj_context *ctx = NULL;

    /* Named but missing: an error that names the file. */
    snprintf(path, sizeof path, "%s/missing", dir);
    ck_assert_int_eq(tuned_context(path, cache, &ctx), MJ_ERR_FILE);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), path));
    mj_context_destroy(ctx);
    setenv("MERGEJIT_TUNING", path, 1);
    ck_assert_int_eq(tuned_context(NULL, cache, &ctx), MJ_ERR_FILE);
    mj_context_destroy(ctx);
    unsetenv("MERGEJIT_TUNING");

    /* The default location, missing: built-in defaults and no error. */
    setenv("XDG_CONFIG_HOME", dir, 1);
    ck_assert_int_eq(tuned_context(NULL, cache, &ctx), MJ_OK);
    ck_assert_str_eq(mj_context_tuning_file(ctx), "");
    mj_context_destroy(ctx);

    /* Damaged or foreign: an error, and saving does not overwrite it. */
    snprintf(path, sizeof path, "%s/damaged", dir);
    write_text(path, "mergejit-tuning 1\ndevice 90 X\ntile mergesort 4 0 256 0 512 1\n");
    ck_assert_int_eq(tuned_context(path, cache, &ctx), MJ_ERR_FILE);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "line 3"));
    mj_context_destroy(ctx);
    snprintf(path, sizeof path, "%s/mergejit/tuning", dir); /* the default under XDG */
    char mk[4200];
    snprintf(mk, sizeof mk, "mkdir -p %s/mergejit", dir);
    ck_assert_int_eq(system(mk), 0);
    write_text(path, "\x7f" "ELF not a tuning file");
    ck_assert_int_eq(tuned_context(NULL, cache, &ctx), MJ_ERR_FILE);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "not a mergejit tuning file"));
    mj_context_destroy(ctx);
    ck_assert_int_eq(tuned_context("", cache, &ctx), MJ_OK);
    mj_tile t = tile(MJ_MERGE, 4, 0, 256, 21, 256);
    ck_assert_int_eq(mj_tuning_save(ctx, NULL, &t, 1), MJ_ERR_FILE);
    char *kept = mjt_read_file(path, NULL);
    ck_assert_str_eq(kept, "\x7f" "ELF not a tuning file");
    free(kept);
    mj_context_destroy(ctx);
    unsetenv("XDG_CONFIG_HOME");
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* ptxas's report travels with the binary: a default tile reports no spills, a tile far too
 * big for the registers reports them (the tuner's rejection), and a second context reading
 * the disk cache gets the same figures. */
START_TEST(resources_and_spills) {
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U64, MJ_ASCENDING);
    d.primitive = MJ_MERGE;
    d.value_size = 8;
    mj_sorter *s = NULL;
    ck_assert_msg(mj_sorter_create(ctx, &d, &s) == MJ_OK, "%s", mj_context_last_error(ctx));
    int regs;
    long spills;
    mj_sorter_resources(s, &regs, &spills);
    ck_assert_int_gt(regs, 0);
    ck_assert_int_eq(spills, 0);
    mj_sorter_destroy(s);

    d.nt = 32;
    d.vt = 63;
    d.value_size = 16;
    ck_assert_msg(mj_sorter_create(ctx, &d, &s) == MJ_OK, "%s", mj_context_last_error(ctx));
    mj_sorter_resources(s, &regs, &spills);
    ck_assert_int_eq(mj_sorter_source(s), 0);
    ck_assert_msg(spills > 0, "VT 63 of 8-byte keys and 16-byte values should spill "
                  "(registers %d)", regs);
    mj_sorter_destroy(s);
    mj_context_destroy(ctx);

    ctx = mjt_compile_context(90, dir);
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    ck_assert_int_eq(mj_sorter_source(s), 1);
    long again;
    int regs2;
    mj_sorter_resources(s, &regs2, &again);
    ck_assert_int_eq(again, spills);
    ck_assert_int_eq(regs2, regs);
    mj_sorter_destroy(s);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* The passes a u32 sorter described by d plans for n keys ("bs+3x2+1x4"), or its creation's
 * status as "error N". */
static const char *passes_of(mj_context *ctx, const mj_sort_desc *d, size_t n, char *text,
                             size_t cap) {
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, d, &s);
    if (st) {
        snprintf(text, cap, "error %d", (int)st);
        return text;
    }
    mj_sort_pass p[64];
    int count = 0;
    ck_assert_int_eq(mj_sorter_sort_passes(s, n, p, 64, &count), MJ_OK);
    mj_sort_passes_text(p, count, text, cap);
    mj_sorter_destroy(s);
    return text;
}

/* Where mergesort's 4-way passes start: the description's merge4_log2, else the tuning file's
 * (which MERGEJIT_MERGE_WAYS outranks, the description's not), else 2^25 bytes; and the
 * tuner's rule for the threshold from its timings. */
START_TEST(merge4_threshold) {
    const int lg[] = {20, 21, 22, 23, 24};
    const double two[] = {10, 10, 10, 10, 10}, up[] = {9, 11, 9, 11, 12}, all[] = {11, 11, 11, 11, 11},
                 top_loses[] = {11, 11, 11, 11, 9}, tie[] = {9, 9, 9, 9, 10};
    ck_assert_int_eq(tune_merge4_threshold(lg, two, up, 5), 23);
    ck_assert_int_eq(tune_merge4_threshold(lg, two, all, 5), 20);
    ck_assert_int_eq(tune_merge4_threshold(lg, two, top_loses, 5), 0);
    ck_assert_int_eq(tune_merge4_threshold(lg, two, tie, 5), 0);
    ck_assert_int_eq(tune_merge4_threshold(lg, two, up, 0), 0);

    char *dir = mjt_tmpdir(), path[4096], cache[4096], text[64];
    snprintf(path, sizeof path, "%s/tuning", dir);
    snprintf(cache, sizeof cache, "%s/cache", dir);
    mj_context *ctx = NULL;
    ck_assert_int_eq(tuned_context("", cache, &ctx), MJ_OK);
    mj_tile t;
    ck_assert_int_eq(mj_context_tile(ctx, MJ_MERGESORT, 4, 0, &t), MJ_OK);
    ck_assert_int_eq(t.merge4_log2, 0);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    /* The built-in rule: u32 keys go 4-way from 2^23 of them. */
    ck_assert_ptr_null(strstr(passes_of(ctx, &d, (1u << 23) - 1, text, sizeof text), "x4"));
    ck_assert_ptr_nonnull(strstr(passes_of(ctx, &d, 1u << 23, text, sizeof text), "x4"));
    /* The description's: from 2^22 bytes; or never. */
    d.merge4_log2 = 22;
    ck_assert_ptr_null(strstr(passes_of(ctx, &d, (1u << 20) - 1, text, sizeof text), "x4"));
    ck_assert_ptr_nonnull(strstr(passes_of(ctx, &d, 1u << 20, text, sizeof text), "x4"));
    d.merge4_log2 = 62;
    ck_assert_ptr_null(strstr(passes_of(ctx, &d, 1u << 26, text, sizeof text), "x4"));
    /* Out of range, or on another primitive: refused with the reason. */
    const int bad[] = {-1, 63};
    for (int i = 0; i < 2; i++) {
        d.merge4_log2 = bad[i];
        ck_assert_str_eq(passes_of(ctx, &d, 1, text, sizeof text), "error 1");
        ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "out of range"));
    }
    mj_sort_desc m;
    mj_sort_desc_init(&m, MJ_KEY_U32, MJ_ASCENDING);
    m.primitive = MJ_MERGE;
    m.merge4_log2 = 22;
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &m, &s), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "for mergesort only"));

    /* Saved with a tile, read back by the next context. A merge tile with one is refused. */
    mj_tile rec = tile(MJ_MERGESORT, 4, 0, 256, 23, 512);
    rec.merge4_log2 = 21;
    mj_tile merge = tile(MJ_MERGE, 4, 0, 256, 23, 256);
    merge.merge4_log2 = 21;
    ck_assert_int_eq(mj_tuning_save(ctx, path, &merge, 1), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_tuning_save(ctx, path, &rec, 1), MJ_OK);
    mj_context_destroy(ctx);
    ck_assert_int_eq(tuned_context(path, cache, &ctx), MJ_OK);
    ck_assert_int_eq(mj_context_tile(ctx, MJ_MERGESORT, 4, 0, &t), MJ_OK);
    ck_assert_int_eq(t.merge4_log2, 21);
    ck_assert_int_eq(mj_context_tile(ctx, MJ_MERGESORT, 8, 0, &t), MJ_OK);
    ck_assert_int_eq(t.merge4_log2, 0);
    d.merge4_log2 = 0;
    ck_assert_ptr_null(strstr(passes_of(ctx, &d, (1u << 19) - 1, text, sizeof text), "x4"));
    ck_assert_ptr_nonnull(strstr(passes_of(ctx, &d, 1u << 19, text, sizeof text), "x4"));
    /* MERGEJIT_MERGE_WAYS outranks the file; the description outranks both. */
    setenv("MERGEJIT_MERGE_WAYS", "2", 1);
    ck_assert_ptr_null(strstr(passes_of(ctx, &d, 1u << 22, text, sizeof text), "x4"));
    d.merge4_log2 = 20;
    ck_assert_ptr_nonnull(strstr(passes_of(ctx, &d, 1u << 18, text, sizeof text), "x4"));
    unsetenv("MERGEJIT_MERGE_WAYS");
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

static size_t plan(const tune_config *c, const int *nts, int n, int quick, const mj_tile *def,
                   tune_point *out, size_t cap) {
    size_t count = tune_plan(c, nts, n, quick, def, NULL, 0);
    ck_assert_uint_le(count, cap);
    ck_assert_uint_eq(tune_plan(c, nts, n, quick, def, out, cap), count);
    return count;
}

START_TEST(tune_plan_candidates) {
    static tune_point pts[512];
    const int nts[] = {128, 256, 512};
    tune_config c = {MJ_MERGESORT, 4, 0};
    mj_tile def = tile(MJ_MERGESORT, 4, 0, 256, 23, 512);
    size_t n = plan(&c, nts, 3, 0, &def, pts, 512);
    int defaults = 0, last_vt = 0, last_nt = 0;
    for (size_t i = 0; i < n; i++) {
        tune_point *p = &pts[i];
        mj_tile t = tile(p->primitive, p->key_size, p->value_size, p->nt, p->vt, p->bs_nt);
        ck_assert_int_eq(mj_tile_check(&t, NULL, 0), MJ_OK);
        ck_assert_int_eq(p->vt % 2, 1);
        ck_assert_int_eq(p->outcome, TUNE_PENDING);
        defaults += p->is_default;
        if (p->nt == last_nt) {
            ck_assert_int_eq(p->vt, last_vt + 2);
        } else {
            ck_assert_int_eq(p->vt, 1);
            if (last_nt) {
                /* the sweep of the previous NT stopped where the next odd VT is refused */
                mj_tile next = tile(MJ_MERGESORT, 4, 0, last_nt, last_vt + 2, 2 * last_nt);
                if (2 * last_nt > 1024) next.bs_nt = last_nt;
                ck_assert_int_ne(mj_tile_check(&next, NULL, 0), MJ_OK);
            }
        }
        /* sorts take the doubled blocksort where it is accepted */
        mj_tile doubled = tile(MJ_MERGESORT, 4, 0, p->nt, p->vt, 2 * p->nt);
        ck_assert_int_eq(p->bs_nt == 2 * p->nt, mj_tile_check(&doubled, NULL, 0) == MJ_OK);
        last_nt = p->nt;
        last_vt = p->vt;
    }
    ck_assert_int_eq(defaults, 1);

    /* Quick: VT within 4 of the default's; a default outside the NTs is appended, marked. */
    const int one[] = {128};
    n = plan(&c, one, 1, 1, &def, pts, 512);
    ck_assert_uint_eq(n, 6);
    for (size_t i = 0; i < 5; i++) {
        ck_assert_int_eq(pts[i].vt, 19 + 2 * (int)i);
        ck_assert_int_eq(pts[i].is_default, 0);
    }
    ck_assert_int_eq(pts[5].is_default, 1);
    ck_assert_int_eq(pts[5].nt, 256);

    /* Merge: no blocksort. */
    tune_config m = {MJ_MERGE, 8, 4};
    mj_tile mdef = tile(MJ_MERGE, 8, 4, 256, 7, 256);
    n = plan(&m, nts, 3, 0, &mdef, pts, 512);
    for (size_t i = 0; i < n; i++) ck_assert_int_eq(pts[i].bs_nt, pts[i].nt);

    /* A rejection skips the larger VT of its NT only, never the default. */
    n = plan(&c, nts, 2, 0, &def, pts, 512);
    size_t at = 0;
    while (!(pts[at].nt == 256 && pts[at].vt == 17)) at++;
    pts[at].outcome = TUNE_SPILLS;
    size_t skipped = tune_skip_after(pts, n, at);
    size_t expect = 0;
    for (size_t i = 0; i < n; i++) {
        int later = pts[i].nt == 256 && pts[i].vt > 17;
        ck_assert_int_eq(pts[i].outcome == TUNE_SKIPPED, later && !pts[i].is_default);
        expect += later && !pts[i].is_default;
    }
    ck_assert_uint_eq(skipped, expect);
    ck_assert_uint_gt(skipped, 0);
}
END_TEST

/* The lane (NT) rank of point i: how many points of its configuration and NT precede it. */
static size_t lane_rank(const tune_point *pts, size_t i) {
    size_t r = 0;
    for (size_t j = 0; j < i; j++)
        r += pts[j].primitive == pts[i].primitive && pts[j].key_size == pts[i].key_size &&
             pts[j].value_size == pts[i].value_size && pts[j].nt == pts[i].nt;
    return r;
}

START_TEST(tune_schedule_order) {
    static tune_point pts[512];
    static size_t order[512];
    static unsigned char seen[512];
    const int nts[] = {64, 128, 256, 512}, one[] = {128};
    tune_config c = {MJ_MERGESORT, 4, 0}, m = {MJ_MERGE, 8, 4};
    mj_tile def = tile(MJ_MERGESORT, 4, 0, 256, 23, 512), mdef = tile(MJ_MERGE, 8, 4, 256, 7, 256);
    size_t n1 = plan(&c, nts, 4, 0, &def, pts, 512);
    size_t n2 = plan(&c, one, 1, 1, &def, pts + n1, 512 - n1); /* the default appended */
    size_t n3 = plan(&m, nts, 4, 0, &mdef, pts + n1 + n2, 512 - n1 - n2);
    size_t n = n1 + n2 + n3;
    /* Configurations apart: the same one twice in the plan is two runs of it. */
    for (size_t i = n1; i < n1 + n2; i++) pts[i].value_size = 4;
    tune_schedule(pts, n, order);
    for (size_t k = 0; k < n; k++) {
        ck_assert_uint_lt(order[k], n);
        ck_assert_int_eq(seen[order[k]], 0);
        seen[order[k]] = 1;
        /* configurations as planned: the first n1 places hold the first configuration's */
        ck_assert_int_eq(k < n1, order[k] < n1);
        ck_assert_int_eq(k < n1 + n2, order[k] < n1 + n2);
    }
    /* Each lane in plan order, and the lanes in turn: ranks never fall within a
     * configuration, and each round takes the lanes in the order they were planned. */
    for (size_t k = 1; k < n; k++) {
        size_t a = order[k - 1], b = order[k];
        int same = (a < n1) == (b < n1) && (a < n1 + n2) == (b < n1 + n2);
        if (!same) continue;
        size_t ra = lane_rank(pts, a), rb = lane_rank(pts, b);
        ck_assert_uint_le(ra, rb);
        if (ra == rb) ck_assert_uint_lt(a, b);
        if (pts[a].nt == pts[b].nt) ck_assert_uint_lt(a, b);
    }
    /* The first round of the full sweep: VT 1 at each NT, the NTs in turn. */
    for (int k = 0; k < 4; k++) {
        ck_assert_int_eq(pts[order[k]].nt, nts[k]);
        ck_assert_int_eq(pts[order[k]].vt, 1);
    }
    /* The quick plan: 128 x 19 first, then the default (256 x 23, a lane of its own), then the
     * rest of 128's lane. */
    ck_assert_int_eq(pts[order[n1]].nt, 128);
    ck_assert_int_eq(pts[order[n1]].vt, 19);
    ck_assert_int_eq(pts[order[n1 + 1]].is_default, 1);
    ck_assert_int_eq(pts[order[n1 + 2]].vt, 21);
    /* Nothing to order: nothing written. */
    tune_schedule(pts, 0, order);
}
END_TEST

int main(void) {
    Suite *s = suite_create("tiles");
    TCase *tc = tcase_create("tiles");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, tile_check);
    tcase_add_test(tc, tuning_in_contexts);
    tcase_add_test(tc, tuning_file_errors);
    tcase_add_test(tc, resources_and_spills);
    tcase_add_test(tc, merge4_threshold);
    tcase_add_test(tc, tune_plan_candidates);
    tcase_add_test(tc, tune_schedule_order);
    suite_add_tcase(s, tc);
    return mjt_run(s, 1);
}
