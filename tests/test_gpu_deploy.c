/* On a GPU: a quick `mergejit tune` end to end (its tiles read back by a context and used by
 * a sorter), and every primitive sorting correctly from a bundle with NVRTC unavailable.
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

int main(void) {
    small = mjt_small();
    mj_context *ctx = mjt_gpu_context_or_skip("test_gpu_deploy");
    mj_context_destroy(ctx);
    Suite *s = suite_create("gpu_deploy");
    TCase *tc = tcase_create("gpu_deploy");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, quick_tune);
    tcase_add_test(tc, sort_from_bundle_without_nvrtc);
    suite_add_tcase(s, tc);
    return mjt_run(s, 0);
}
