/* SPDX-License-Identifier: Apache-2.0 */
/* Which bundle entry a device loads (core/bundle_match.h): the choice as a pure function over
 * targets, then through compile-only contexts of several sms served from bundles of cubins
 * and PTX (no GPU: a compile-only context takes the entry without loading it), what a bundle
 * that has nothing runnable says, and the fallback to NVRTC. CPU only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bundle_match.h"
#include "core/tile_choice.h"
#include "store/bundle_file.h"
#include "store/bundle_read.h"
#include "store/kernel_pack.h"
#include "test_support.h"

#define CUBIN(sm) ((mj_bundle_target){(sm), 0})
#define PTX(sm) ((mj_bundle_target){(sm), 1})

static int choose(int device_sm, const mj_bundle_target *have, size_t n) {
    return mj__bundle_choose(device_sm, have, n);
}

START_TEST(exact_cubin) {
    mj_bundle_target have[] = {CUBIN(80), PTX(90), CUBIN(90), PTX(80), CUBIN(86)};
    ck_assert_int_eq(choose(90, have, 5), 2);
    ck_assert_int_eq(choose(80, have, 5), 0);
    ck_assert_int_eq(choose(86, have, 5), 4); /* not sm_80's, though it would run too */
}
END_TEST

START_TEST(same_major_lower_minor_cubin) {
    mj_bundle_target have[] = {CUBIN(75), CUBIN(80), CUBIN(86), PTX(89)};
    ck_assert_int_eq(choose(87, have, 4), 2); /* the newest minor below: sm_86 */
    ck_assert_int_eq(choose(89, have, 4), 2); /* a cubin before PTX, even PTX for 8.9 */
    mj_bundle_target only80[] = {CUBIN(80), PTX(75)};
    ck_assert_int_eq(choose(86, only80, 2), 0);
    /* A higher minor of the same major does not run on a lower one. */
    mj_bundle_target only86[] = {CUBIN(86)};
    ck_assert_int_eq(choose(80, only86, 1), -1);
    /* Nor across major versions, either way. */
    mj_bundle_target only75[] = {CUBIN(75)};
    ck_assert_int_eq(choose(80, only75, 1), -1);
    mj_bundle_target ten[] = {CUBIN(100)};
    ck_assert_int_eq(choose(103, ten, 1), 0);
    ck_assert_int_eq(choose(120, ten, 1), -1);
}
END_TEST

START_TEST(newer_device_ptx) {
    /* A bundle built for sm_80 with PTX, on an H100: the PTX, never sm_80's cubin. */
    mj_bundle_target h100[] = {CUBIN(80), PTX(80)};
    ck_assert_int_eq(choose(90, h100, 2), 1);
    /* The newest PTX not above the device. */
    mj_bundle_target several[] = {PTX(75), PTX(90), PTX(80), PTX(100), CUBIN(75)};
    ck_assert_int_eq(choose(90, several, 5), 1);
    ck_assert_int_eq(choose(89, several, 5), 2);
    ck_assert_int_eq(choose(120, several, 5), 3);
    ck_assert_int_eq(choose(100, several, 5), 3);
}
END_TEST

START_TEST(nothing_runs) {
    /* A newer device and no PTX: cubins of another major version never run. */
    mj_bundle_target cubins[] = {CUBIN(75), CUBIN(80), CUBIN(86)};
    ck_assert_int_eq(choose(90, cubins, 3), -1);
    /* PTX for a newer compute capability than the device. */
    mj_bundle_target newer_ptx[] = {PTX(100), CUBIN(100)};
    ck_assert_int_eq(choose(90, newer_ptx, 2), -1);
    /* A device older than every entry. */
    mj_bundle_target all[] = {CUBIN(80), PTX(80), CUBIN(90), PTX(90)};
    ck_assert_int_eq(choose(75, all, 4), -1);
    ck_assert_int_eq(choose(90, all, 0), -1);
}
END_TEST

START_TEST(names_and_keys) {
    char name[32];
    mj__bundle_target_name(CUBIN(90), name, sizeof name);
    ck_assert_str_eq(name, "sm_90");
    mj__bundle_target_name(PTX(80), name, sizeof name);
    ck_assert_str_eq(name, "compute_80");
    /* A request as a cubin and as PTX are two entries; so are their modules. */
    mj_context *ctx = mjt_compile_context(80, NULL);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_kernel_spec spec;
    ck_assert_int_eq(mj__spec_from_desc(ctx, &d, &spec), MJ_OK);
    uint8_t cubin[32], ptx[32];
    mj__bundle_request_key(&spec, cubin);
    mj__bundle_ptx_request_key(&spec, ptx);
    ck_assert_int_ne(memcmp(cubin, ptx, 32), 0);
    mj__bundle_source_key("src", 80, 0, cubin);
    mj__bundle_source_key("src", 80, 1, ptx);
    ck_assert_int_ne(memcmp(cubin, ptx, 32), 0);
    mj_context_destroy(ctx);
}
END_TEST

/* ---------------------------------------------------------------- through contexts */

/* Writes dir/name with u32 ascending mergesort for sm (a cubin) and, with ptx, compute_<sm>. */
static void write_bundle(const char *dir, const char *name, int sm, int ptx, char *path,
                         size_t cap) {
    snprintf(path, cap, "%s/%s", dir, name);
    mj_context *ctx = mjt_compile_context(sm, dir);
    mj_bundle_builder *b = NULL;
    ck_assert_int_eq(mj_bundle_builder_create(&b), MJ_OK);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    ck_assert_msg(mj_bundle_builder_add(b, ctx, &d) == MJ_OK, "%s",
                  mj_bundle_builder_last_error(b));
    if (ptx) {
        ck_assert_msg(mj_bundle_builder_add_ptx(b, ctx, &d) == MJ_OK, "%s",
                      mj_bundle_builder_last_error(b));
        ck_assert_int_eq(mj_bundle_builder_add_ptx(b, ctx, &d), MJ_OK); /* again: no entry */
    }
    ck_assert_uint_eq(mj_bundle_builder_count(b), ptx ? 2 : 1);
    ck_assert_int_eq(mj_bundle_builder_write(b, path), MJ_OK);
    mj_bundle_builder_destroy(b);
    mj_context_destroy(ctx);
}

/* A compile-only context for sm with the bundle and neither disk cache nor tuning file, so
 * that a sorter comes from the bundle or from NVRTC (source 0), nothing else. */
static mj_context *bundle_context(const char *bundle, int sm, unsigned flags) {
    mj_context_options o;
    mj_context_options_init(&o);
    o.flags = MJ_CONTEXT_COMPILE_ONLY | MJ_CONTEXT_NO_DISK_CACHE | flags;
    o.target_sm = sm;
    o.tuning_file = "";
    o.bundle = bundle;
    mj_context *ctx = NULL;
    ck_assert_int_eq(mj_context_create(&o, &ctx), MJ_OK);
    return ctx;
}

/* The sorter for u32 ascending from a context for sm: its source, or -1 with the status in
 * *st. */
static int source_on(const char *bundle, int sm, unsigned flags, mj_status *st, char *msg,
                     size_t cap, int *nt, int *vt) {
    mj_context *ctx = bundle_context(bundle, sm, flags);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *s = NULL;
    *st = mj_sorter_create(ctx, &d, &s);
    snprintf(msg, cap, "%s", mj_context_last_error(ctx));
    int source = s ? mj_sorter_source(s) : -1;
    if (s && nt) mj_sorter_tile(s, nt, vt);
    mj_sorter_destroy(s);
    mj_context_destroy(ctx);
    return source;
}

typedef struct listed {
    mj_bundle_info info[2];
    int count;
} listed;

static void list_one(void *arg, const mj_bundle_info *e) {
    listed *l = arg;
    ck_assert_int_lt(l->count, 2);
    l->info[l->count] = *e;
    l->info[l->count++].label = NULL; /* valid during the call only */
}

START_TEST(served_by_target) {
    char *dir = mjt_tmpdir();
    char with_ptx[4096], cubin_only[4096], msg[4096];
    write_bundle(dir, "ptx.mjb", 80, 1, with_ptx, sizeof with_ptx);
    write_bundle(dir, "cubin.mjb", 80, 0, cubin_only, sizeof cubin_only);

    /* The listing says which entry is which. */
    listed l = {0};
    char err[512];
    ck_assert_int_eq(mj_bundle_list(with_ptx, list_one, &l, err, sizeof err), MJ_OK);
    ck_assert_int_eq(l.count, 2);
    ck_assert_int_eq(l.info[0].sm, 80);
    ck_assert_int_eq(l.info[0].ptx, 0);
    ck_assert_int_gt(l.info[0].registers, 0);
    ck_assert_int_eq(l.info[1].sm, 80);
    ck_assert_int_eq(l.info[1].ptx, 1);
    ck_assert_int_eq(l.info[1].registers, -1); /* ptxas runs in the driver, unreported */
    ck_assert_int_eq(l.info[1].spill_bytes, -1);
    ck_assert_int_eq(l.info[1].nt, l.info[0].nt); /* sm_80's tile for both */

    /* What the loader hands the driver: cubins are ELF files, and PTX images are text that
     * ends in its NUL inside the image (the driver reads up to it). */
    mj_bundle_index idx;
    ck_assert_int_eq(mj__bundle_read_index(with_ptx, &idx, err, sizeof err), 0);
    for (size_t i = 0; i < idx.count; i++) {
        void *payload = NULL;
        ck_assert_int_eq(mj__bundle_read_payload(with_ptx, &idx.entries[i], &payload, err,
                                                 sizeof err), 0);
        mj_kernel_image images[MJ_PACK_MAX];
        int count = mj__unpack_kernels(payload, (size_t)idx.entries[i].size, images, err,
                                       sizeof err);
        ck_assert_int_gt(count, 0);
        for (int k = 0; k < count; k++) {
            const char *data = images[k].data;
            int elf = images[k].size >= 4 && memcmp(data, "\177ELF", 4) == 0;
            ck_assert_int_eq(elf, !idx.entries[i].ptx);
            if (idx.entries[i].ptx) {
                ck_assert_int_eq(data[images[k].size - 1], '\0');
                ck_assert_uint_eq(strlen(data), images[k].size - 1);
                ck_assert_ptr_nonnull(strstr(data, ".target sm_80"));
            }
        }
        free(payload);
    }
    mj__bundle_index_free(&idx);

    mj_status st;
    int nt = 0, vt = 0;
    /* sm_80: its cubin. sm_86: the same cubin (same major version, lower minor). */
    ck_assert_int_eq(source_on(with_ptx, 80, 0, &st, msg, sizeof msg, NULL, NULL), 3);
    ck_assert_int_eq(source_on(with_ptx, 86, 0, &st, msg, sizeof msg, NULL, NULL), 3);
    ck_assert_int_eq(source_on(cubin_only, 86, 0, &st, msg, sizeof msg, NULL, NULL), 3);
    /* sm_90 and a future sm_120: the PTX, with the entry's tile (not sm_90's default). */
    ck_assert_msg(source_on(with_ptx, 90, 0, &st, msg, sizeof msg, &nt, &vt) == 4, "%s", msg);
    ck_assert_int_eq(nt, l.info[1].nt);
    ck_assert_int_eq(vt, l.info[1].vt);
    ck_assert_int_eq(source_on(with_ptx, 120, 0, &st, msg, sizeof msg, NULL, NULL), 4);

    /* sm_90 without PTX: refused, naming the device's sm and what the bundle has instead. */
    ck_assert_int_eq(source_on(cubin_only, 90, 0, &st, msg, sizeof msg, NULL, NULL), -1);
    ck_assert_int_eq(st, MJ_ERR_NOT_IN_BUNDLE);
    ck_assert_msg(strstr(msg, "u32 asc with 0-byte values for sm_90") &&
                      strstr(msg, "for sm_80 only, which cannot run on sm_90") &&
                      strstr(msg, "--ptx") && strstr(msg, cubin_only),
                  "%s", msg);
    /* An older device than every entry, PTX or not. */
    ck_assert_int_eq(source_on(with_ptx, 75, 0, &st, msg, sizeof msg, NULL, NULL), -1);
    ck_assert_int_eq(st, MJ_ERR_NOT_IN_BUNDLE);
    ck_assert_msg(strstr(msg, "for sm_80, compute_80 only, which cannot run on sm_75"), "%s",
                  msg);
    /* With the fallback both compile instead. */
    ck_assert_int_eq(source_on(cubin_only, 90, MJ_CONTEXT_BUNDLE_FALLBACK, &st, msg,
                               sizeof msg, NULL, NULL), 0);
    ck_assert_int_eq(source_on(with_ptx, 75, MJ_CONTEXT_BUNDLE_FALLBACK, &st, msg, sizeof msg,
                               NULL, NULL), 0);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* The tool: `gen --ptx` writes PTX, `--list` tells cubins from PTX, `--sm none` keeps PTX
 * only, `--ptx none` cubins only. */
START_TEST(tool_ptx_options) {
    char *dir = mjt_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/t.mjb", dir);
    const char *ptx_only[] = {"gen", "-o", path, "--types", "u32", "--values", "0",
                              "--primitives", "merge", "--sm", "none", "--ptx", "compute_80,90",
                              NULL};
    mjt_tool_run r = mjt_run_tool(ptx_only, NULL);
    ck_assert_msg(r.status == 0, "gen: %s%s", r.out, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "compute_80 merge"));
    ck_assert_ptr_nonnull(strstr(r.out, "wrote 2 entries"));
    mjt_tool_run_free(&r);
    const char *list[] = {"gen", "--list", path, NULL};
    r = mjt_run_tool(list, NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "compute_80  PTX   merge"));
    ck_assert_ptr_nonnull(strstr(r.out, "compute_90  PTX   merge"));
    ck_assert_ptr_null(strstr(r.out, "cubin"));
    mjt_tool_run_free(&r);

    const char *no_ptx[] = {"gen", "-o", path, "--types", "u32", "--values", "0",
                            "--primitives", "merge", "--sm", "80,90", "--ptx", "none", NULL};
    r = mjt_run_tool(no_ptx, NULL);
    ck_assert_msg(r.status == 0, "gen: %s%s", r.out, r.err);
    mjt_tool_run_free(&r);
    r = mjt_run_tool(list, NULL);
    ck_assert_ptr_nonnull(strstr(r.out, "sm_80       cubin merge"));
    ck_assert_ptr_nonnull(strstr(r.out, "sm_90       cubin merge"));
    ck_assert_ptr_null(strstr(r.out, "PTX"));
    mjt_tool_run_free(&r);

    const char *nothing[] = {"gen", "-o", path, "--sm", "none", "--ptx", "none", NULL};
    r = mjt_run_tool(nothing, NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "no targets"));
    mjt_tool_run_free(&r);
    const char *bad[] = {"gen", "-o", path, "--ptx", "compute_x", NULL};
    r = mjt_run_tool(bad, NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "--ptx takes targets"));
    mjt_tool_run_free(&r);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("bundle_choice");
    TCase *tc = tcase_create("bundle_choice");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, exact_cubin);
    tcase_add_test(tc, same_major_lower_minor_cubin);
    tcase_add_test(tc, newer_device_ptx);
    tcase_add_test(tc, nothing_runs);
    tcase_add_test(tc, names_and_keys);
    tcase_add_test(tc, served_by_target);
    tcase_add_test(tc, tool_ptx_options);
    suite_add_tcase(s, tc);
    return mjt_run(s, 1);
}
