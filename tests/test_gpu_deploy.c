/* SPDX-License-Identifier: Apache-2.0 */
/* On a GPU: a quick `mergejit tune` end to end (its tiles read back by a context and used by
 * a sorter), every primitive sorting correctly from a bundle with NVRTC unavailable, and from
 * a bundle built for an older major version than the device's: through its PTX, which the
 * driver compiles, and refused (or compiled, with the fallback) without PTX.
 * MJ_TEST_SMALL=1 runs smaller sizes (for compute-sanitizer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static int small;

START_TEST(quick_tune) {
    char *dir = mjt_tmpdir();
    char tuning[4096], json[4096], svg[4096];
    snprintf(tuning, sizeof tuning, "%s/tuning", dir);
    snprintf(json, sizeof json, "%s/t.json", dir);
    snprintf(svg, sizeof svg, "%s/t.svg", dir);
    const char *args[] = {"tune", "--quick", "--primitives", "mergesort,segsort", "--keys", "4",
                          "--values", "0", "--sizes", small ? "14" : "20", "--reps", "2",
                          "-o", tuning, "--json", json, "--plot", svg, NULL};
    mjt_tool_run r = mjt_run_tool(args, NULL);
    ck_assert_msg(r.status == 0, "tune: %s%s", r.out, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "wrote 2 tiles"));
    ck_assert_ptr_nonnull(strstr(r.out, "tuned/default"));
    /* The 4-way threshold: 2^20 keys hold 2^20 to 2^22 bytes, 2^14 keys none of the sizes. */
    ck_assert_msg(strstr(r.out, small ? "4-way threshold not measured"
                                      : "Gkeys/s 2-way/4-way at 2^20 "),
                  "%s", r.out);
    mjt_tool_run_free(&r);

    FILE *f = fopen(json, "r");
    ck_assert_ptr_nonnull(f);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "\"outcome\": \"measured\""));
    f = fopen(svg, "r");
    ck_assert_ptr_nonnull(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "<svg"));

    /* A context on this device reads the winners; its sorter runs the tuned tile. */
    mj_context_options o;
    mj_context_options_init(&o);
    o.tuning_file = tuning;
    o.bundle = "";
    mj_context *ctx = NULL;
    ck_assert_int_eq(mj_context_create(&o, &ctx), MJ_OK);
    mj_tile t;
    ck_assert_int_eq(mj_context_tile(ctx, MJ_MERGESORT, 4, 0, &t), MJ_OK);
    ck_assert_int_eq(t.tuned, 1);
    /* Under compute-sanitizer (MJ_TEST_SMALL) a 2^14-key sort is so slow that its rate rounds
     * to 0.00 Gkeys/s in the file. */
    ck_assert(small ? t.gkeys >= 0 : t.gkeys > 0);
    ck_assert_msg(t.merge4_log2 == 0 || (!small && t.merge4_log2 >= 20 && t.merge4_log2 <= 22),
                  "merge4_log2 %d", t.merge4_log2);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    int nt, vt;
    mj_sorter_tile(s, &nt, &vt);
    ck_assert_int_eq(nt, t.nt);
    ck_assert_int_eq(vt, t.vt);
    mj_sorter_destroy(s);
    ck_assert_int_eq(mj_context_tile(ctx, MJ_SEGMENTED_SORT, 4, 0, &t), MJ_OK);
    ck_assert_int_eq(t.tuned, 1);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(sort_from_bundle_without_nvrtc) {
    char *dir = mjt_tmpdir();
    char path[4096], env[4200];
    snprintf(path, sizeof path, "%s/b.mjb", dir);
    snprintf(env, sizeof env, "MERGEJIT_BUNDLE=%s", path);
    const char *gen[] = {"gen", "-o", path, "--types", "u32,f64", "--values", "0,4", NULL};
    mjt_tool_run r = mjt_run_tool(gen, NULL);
    ck_assert_msg(r.status == 0, "gen: %s%s", r.out, r.err);
    mjt_tool_run_free(&r);
    const char *no_nvrtc[] = {"MERGEJIT_LIBNVRTC=/nonexistent/libnvrtc.so", env, NULL};
    const char *prims[] = {"mergesort", "merge", "segsort", "locality"};
    for (int p = 0; p < 4; p++) {
        const char *demo[] = {"demo", "--primitive", prims[p], "--type", p % 2 ? "f64" : "u32",
                              "--values", "4", "--n", small ? "100000" : "3000000",
                              "--seglen", "300", "--reps", "1", NULL};
        r = mjt_run_tool(demo, no_nvrtc);
        ck_assert_msg(r.status == 0, "%s from the bundle: %s%s", prims[p], r.out, r.err);
        ck_assert_ptr_nonnull(strstr(r.out, "loaded from the bundle"));
        ck_assert_ptr_nonnull(strstr(r.out, "PASS"));
        mjt_tool_run_free(&r);
    }
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* A target of an older major version than the device's (sm_80 on an H100), whose cubins
 * cannot run there; 0 when there is none to test with. */
static int older_target(int device_sm) {
    return device_sm / 10 > 8 ? 80 : device_sm / 10 == 8 ? 75 : 0;
}

/* The sorter's source for u32 keys from a context on this device with the bundle. */
static int source_with(const char *bundle, unsigned flags, mj_status *st, char *msg,
                       size_t cap) {
    mj_context_options o;
    mj_context_options_init(&o);
    o.flags = flags;
    o.bundle = bundle;
    o.tuning_file = "";
    mj_context *ctx = NULL;
    ck_assert_int_eq(mj_context_create(&o, &ctx), MJ_OK);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *s = NULL;
    *st = mj_sorter_create(ctx, &d, &s);
    snprintf(msg, cap, "%s", mj_context_last_error(ctx));
    int source = s ? mj_sorter_source(s) : -1;
    if (s) {
        int regs = 0;
        long spills = 0;
        mj_sorter_resources(s, &regs, &spills);
        if (source == 4) { /* the driver compiled it: no ptxas report */
            ck_assert_int_eq(regs, -1);
            printf("ptx_on_newer_device: u32 keys from the bundle's PTX in %.1f ms (in "
                   "process, after the demos)\n", mj_sorter_build_ms(s));
        }
    }
    mj_sorter_destroy(s);
    mj_context_destroy(ctx);
    return source;
}

START_TEST(ptx_on_newer_device) {
    mj_context *gpu = mjt_gpu_context_or_skip("test_gpu_deploy");
    int device_sm = mj_context_target_sm(gpu), older = older_target(device_sm);
    mj_context_destroy(gpu);
    if (!older) {
        printf("ptx_on_newer_device: sm_%d has no older major version to build for; skipped\n",
               device_sm);
        return;
    }
    char *dir = mjt_tmpdir();
    char ptx[4096], cubin[4096], sm[16], env[4200], msg[8192], want[64];
    snprintf(ptx, sizeof ptx, "%s/ptx.mjb", dir);
    snprintf(cubin, sizeof cubin, "%s/cubin.mjb", dir);
    snprintf(sm, sizeof sm, "%d", older);

    /* Cubins for the older sm and, by default, PTX for its compute capability. */
    const char *gen[] = {"gen", "-o", ptx, "--sm", sm, "--types", "u32,f64", "--values", "0,4",
                         NULL};
    mjt_tool_run r = mjt_run_tool(gen, NULL);
    ck_assert_msg(r.status == 0, "gen: %s%s", r.out, r.err);
    mjt_tool_run_free(&r);
    const char *list[] = {"gen", "--list", ptx, NULL};
    r = mjt_run_tool(list, NULL);
    snprintf(want, sizeof want, "compute_%d  PTX", older);
    ck_assert_msg(r.status == 0 && strstr(r.out, want), "%s%s", r.out, r.err);
    mjt_tool_run_free(&r);

    /* Every sort from it without NVRTC: through the PTX, sorted right (the demo checks). */
    snprintf(env, sizeof env, "MERGEJIT_BUNDLE=%s", ptx);
    const char *no_nvrtc[] = {"MERGEJIT_LIBNVRTC=/nonexistent/libnvrtc.so", env, NULL};
    const char *prims[] = {"mergesort", "merge", "segsort", "locality"};
    for (int p = 0; p < 4; p++) {
        const char *demo[] = {"demo", "--primitive", prims[p], "--type", p % 2 ? "f64" : "u32",
                              "--values", "4", "--n", small ? "100000" : "3000000",
                              "--seglen", "300", "--reps", "1", NULL};
        r = mjt_run_tool(demo, no_nvrtc);
        ck_assert_msg(r.status == 0, "%s from the PTX: %s%s", prims[p], r.out, r.err);
        const char *line = strstr(r.out, "build: loaded from the bundle as PTX");
        ck_assert_msg(line, "%s", r.out);
        ck_assert_ptr_nonnull(strstr(r.out, "PASS"));
        /* The driver's JIT time on a first load (its own JIT cache serves later ones). */
        printf("ptx_on_newer_device: %s: %.*s\n", prims[p], (int)strcspn(line, "\n"), line);
        mjt_tool_run_free(&r);
    }
    mj_status st;
    ck_assert_int_eq(source_with(ptx, 0, &st, msg, sizeof msg), 4);

    /* The same cubins without PTX: refused, naming the device's sm and what the bundle has. */
    const char *gen_cubin[] = {"gen", "-o", cubin, "--sm", sm, "--ptx", "none", "--types", "u32",
                               "--values", "0", "--primitives", "mergesort", NULL};
    r = mjt_run_tool(gen_cubin, NULL);
    ck_assert_msg(r.status == 0, "gen: %s%s", r.out, r.err);
    mjt_tool_run_free(&r);
    ck_assert_int_eq(source_with(cubin, 0, &st, msg, sizeof msg), -1);
    ck_assert_int_eq(st, MJ_ERR_NOT_IN_BUNDLE);
    snprintf(want, sizeof want, "for sm_%d (", device_sm);
    ck_assert_msg(strstr(msg, want), "%s", msg);
    snprintf(want, sizeof want, "for sm_%d only", older);
    ck_assert_msg(strstr(msg, want), "%s", msg);
    snprintf(env, sizeof env, "MERGEJIT_BUNDLE=%s", cubin);
    const char *demo[] = {"demo", "--n", "100000", "--reps", "1", NULL};
    r = mjt_run_tool(demo, no_nvrtc);
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(strstr(r.err, "MJ_ERR_NOT_IN_BUNDLE"), "%s", r.err);
    mjt_tool_run_free(&r);
    /* With the fallback, NVRTC builds it (or the disk cache has it). */
    int source = source_with(cubin, MJ_CONTEXT_BUNDLE_FALLBACK, &st, msg, sizeof msg);
    ck_assert_msg(source == 0 || source == 1, "source %d: %s", source, msg);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

int main(void) {
    small = mjt_small();
    mj_context *ctx = mjt_gpu_context_or_skip("test_gpu_deploy");
    mj_context_destroy(ctx);
    Suite *s = suite_create("gpu_deploy");
    TCase *tc = tcase_create("gpu_deploy");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, quick_tune);
    tcase_add_test(tc, sort_from_bundle_without_nvrtc);
    tcase_add_test(tc, ptx_on_newer_device);
    suite_add_tcase(s, tc);
    return mjt_run(s, 0);
}
