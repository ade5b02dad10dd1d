/* SPDX-License-Identifier: Apache-2.0 */
/* Deployment bundles without a GPU: the builder, contexts served from a bundle without
 * compiling, what a bundle lacks, damaged and foreign bundles, and the tool sorting from a
 * bundle with NVRTC unavailable. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store/bundle_file.h"
#include "store/bundle_read.h"
#include "store/bundle_write.h"
#include "base/file_io.h"
#include "test_support.h"

static const char *rec_source = "struct rec { unsigned long long hi, lo; };";
static const char *rec_less = "a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)";

static mj_sort_desc desc(mj_primitive p, mj_key_kind k, mj_order o, size_t values) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, k, o);
    d.primitive = p;
    d.value_size = values;
    if (k == MJ_KEY_CUSTOM) {
        d.type_name = "rec";
        d.type_source = rec_source;
        d.type_size = 16;
        d.type_align = 8;
        d.less = rec_less;
    }
    return d;
}

/* A compile-only context for sm with a bundle, no disk cache (so nothing can come from a
 * cache behind the bundle's back) and no tuning file. */
static mj_status bundle_context(const char *bundle, int sm, unsigned flags, mj_context **ctx) {
    mj_context_options o;
    mj_context_options_init(&o);
    o.flags = MJ_CONTEXT_COMPILE_ONLY | MJ_CONTEXT_NO_DISK_CACHE | flags;
    o.target_sm = sm;
    o.tuning_file = "";
    o.bundle = bundle;
    return mj_context_create(&o, ctx);
}

/* The listing's entries; their labels are only valid during the callback, so they are
 * copied. */
typedef struct listed {
    mj_bundle_info info[4];
    char labels[4][96];
    int count;
} listed;

static void list_one(void *arg, const mj_bundle_info *e) {
    listed *l = arg;
    ck_assert_int_lt(l->count, 4);
    l->info[l->count] = *e;
    snprintf(l->labels[l->count], sizeof l->labels[0], "%s", e->label);
    l->info[l->count].label = l->labels[l->count];
    l->count++;
}

/* Writes a bundle of three entries for sm_90 into dir/b.mjb. */
static void write_bundle(const char *dir, char *path, size_t cap) {
    snprintf(path, cap, "%s/b.mjb", dir);
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_bundle_builder *b = NULL;
    ck_assert_int_eq(mj_bundle_builder_create(&b), MJ_OK);
    mj_sort_desc d[3] = {desc(MJ_MERGESORT, MJ_KEY_U32, MJ_ASCENDING, 0),
                         desc(MJ_MERGE, MJ_KEY_F64, MJ_DESCENDING, 8),
                         desc(MJ_SEGMENTED_SORT, MJ_KEY_CUSTOM, MJ_ASCENDING, 4)};
    for (int i = 0; i < 3; i++)
        ck_assert_msg(mj_bundle_builder_add(b, ctx, &d[i]) == MJ_OK, "%s",
                      mj_bundle_builder_last_error(b));
    ck_assert_int_eq(mj_bundle_builder_add(b, ctx, &d[0]), MJ_OK); /* again: no new entry */
    ck_assert_uint_eq(mj_bundle_builder_count(b), 3);
    ck_assert_int_eq(mj_bundle_builder_write(b, path), MJ_OK);
    mj_bundle_builder_destroy(b);
    mj_context_destroy(ctx);
}

START_TEST(build_list_serve) {
    char *dir = mjt_tmpdir();
    char path[4096];
    write_bundle(dir, path, sizeof path);

    listed l;
    memset(&l, 0, sizeof l);
    char err[512];
    ck_assert_int_eq(mj_bundle_list(path, list_one, &l, err, sizeof err), MJ_OK);
    ck_assert_int_eq(l.count, 3);
    const mj_bundle_info *got = l.info;
    ck_assert_int_eq(got[0].sm, 90);
    ck_assert_int_eq(got[0].primitive, MJ_MERGESORT);
    ck_assert_str_eq(got[0].label, "u32 asc");
    ck_assert_int_eq(got[1].primitive, MJ_MERGE);
    ck_assert_uint_eq(got[1].value_size, 8);
    ck_assert_str_eq(got[1].label, "f64 desc");
    ck_assert_uint_eq(got[2].key_size, 16);
    ck_assert_ptr_nonnull(strstr(got[2].label, "rec: a.hi < b.hi"));
    for (int i = 0; i < 3; i++) {
        ck_assert_int_gt(got[i].registers, 0);
        ck_assert_int_eq(got[i].spill_bytes, 0);
        ck_assert_uint_gt(got[i].bytes, 1000);
    }

    /* Served from the bundle: source 3, the entry's tile, no compiler involved (the
     * context has no disk cache; a compile would say source 0). */
    mj_context *ctx = NULL;
    ck_assert_int_eq(bundle_context(path, 90, 0, &ctx), MJ_OK);
    ck_assert_str_eq(mj_context_bundle(ctx), path);
    mj_sort_desc d[3] = {desc(MJ_MERGESORT, MJ_KEY_U32, MJ_ASCENDING, 0),
                         desc(MJ_MERGE, MJ_KEY_F64, MJ_DESCENDING, 8),
                         desc(MJ_SEGMENTED_SORT, MJ_KEY_CUSTOM, MJ_ASCENDING, 4)};
    for (int i = 0; i < 3; i++) {
        mj_sorter *s = NULL;
        ck_assert_msg(mj_sorter_create(ctx, &d[i], &s) == MJ_OK, "%s",
                      mj_context_last_error(ctx));
        ck_assert_int_eq(mj_sorter_source(s), 3);
        int nt, vt, regs;
        long spills;
        mj_sorter_tile(s, &nt, &vt);
        ck_assert_int_eq(nt, got[i].nt);
        ck_assert_int_eq(vt, got[i].vt);
        mj_sorter_resources(s, &regs, &spills);
        ck_assert_int_eq(regs, got[i].registers);
        mj_sorter_destroy(s);
    }
    /* The same request again comes from the context's memory. */
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &d[0], &s), MJ_OK);
    ck_assert_int_eq(mj_sorter_source(s), 2);
    mj_sorter_destroy(s);

    /* What the bundle lacks: another key type, another order, another value size, another
     * tile asked for explicitly. */
    mj_sort_desc missing[4] = {desc(MJ_MERGESORT, MJ_KEY_U64, MJ_ASCENDING, 0),
                               desc(MJ_MERGESORT, MJ_KEY_U32, MJ_DESCENDING, 0),
                               desc(MJ_MERGESORT, MJ_KEY_U32, MJ_ASCENDING, 4),
                               desc(MJ_MERGESORT, MJ_KEY_U32, MJ_ASCENDING, 0)};
    missing[3].nt = 128;
    missing[3].vt = 7;
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(mj_sorter_create(ctx, &missing[i], &s), MJ_ERR_NOT_IN_BUNDLE);
        ck_assert_ptr_null(s);
        ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), path));
    }
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "not the 128x7x128 asked for"));
    mj_context_destroy(ctx);

    /* With fallback the missing ones compile; another target finds none of the entries. */
    ck_assert_int_eq(bundle_context(path, 90, MJ_CONTEXT_BUNDLE_FALLBACK, &ctx), MJ_OK);
    ck_assert_msg(mj_sorter_create(ctx, &missing[0], &s) == MJ_OK, "%s",
                  mj_context_last_error(ctx));
    ck_assert_int_eq(mj_sorter_source(s), 0);
    mj_sorter_destroy(s);
    mj_context_destroy(ctx);
    ck_assert_int_eq(bundle_context(path, 80, 0, &ctx), MJ_OK);
    ck_assert_int_eq(mj_sorter_create(ctx, &d[0], &s), MJ_ERR_NOT_IN_BUNDLE);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "0 of them for sm_80"));
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

static void flip_byte(const char *path, long at) {
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, at, at < 0 ? SEEK_END : SEEK_SET), 0);
    int c = fgetc(f);
    ck_assert_int_ne(c, EOF);
    ck_assert_int_eq(fseek(f, -1, SEEK_CUR), 0);
    fputc(c ^ 0x5a, f);
    fclose(f);
}

START_TEST(damaged_and_foreign) {
    char *dir = mjt_tmpdir();
    char path[4096], other[4200];
    write_bundle(dir, path, sizeof path);
    mj_context *ctx = NULL;
    mj_sorter *s = NULL;

    /* Missing, or not a bundle: creation fails with the file's name. */
    snprintf(other, sizeof other, "%s/none.mjb", dir);
    ck_assert_int_eq(bundle_context(other, 90, 0, &ctx), MJ_ERR_FILE);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), other));
    mj_context_destroy(ctx);
    setenv("MERGEJIT_BUNDLE", other, 1);
    ck_assert_int_eq(bundle_context(NULL, 90, 0, &ctx), MJ_ERR_FILE);
    mj_context_destroy(ctx);
    unsetenv("MERGEJIT_BUNDLE");

    /* A payload damaged after the index: that entry fails, by name, and the others load. */
    flip_byte(path, -100); /* inside the last payload (the segmented sort's) */
    ck_assert_int_eq(bundle_context(path, 90, 0, &ctx), MJ_OK);
    mj_sort_desc seg = desc(MJ_SEGMENTED_SORT, MJ_KEY_CUSTOM, MJ_ASCENDING, 4);
    ck_assert_int_eq(mj_sorter_create(ctx, &seg, &s), MJ_ERR_FILE);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "damaged"));
    mj_sort_desc u32 = desc(MJ_MERGESORT, MJ_KEY_U32, MJ_ASCENDING, 0);
    ck_assert_int_eq(mj_sorter_create(ctx, &u32, &s), MJ_OK);
    mj_sorter_destroy(s);
    mj_context_destroy(ctx);

    /* A damaged index: the context is refused. */
    flip_byte(path, 100);
    ck_assert_int_eq(bundle_context(path, 90, 0, &ctx), MJ_ERR_FILE);
    mj_context_destroy(ctx);

    /* An intact bundle whose kernels were compiled from other source (another library
     * version, such as one from before mergesort's 4-way partition became two kernels, whose
     * module lacks mj_partition4_one): refused with the writer's version, not loaded. */
    write_bundle(dir, path, sizeof path);
    mj_bundle_index idx;
    char err[512];
    ck_assert_int_eq(mj__bundle_read_index(path, &idx, err, sizeof err), 0);
    void *payloads[8];
    for (size_t i = 0; i < idx.count; i++) {
        ck_assert_int_eq(mj__bundle_read_payload(path, &idx.entries[i], &payloads[i], err,
                                                 sizeof err), 0);
        idx.entries[i].payload = payloads[i];
    }
    idx.entries[0].source_key[0] ^= 1;
    snprintf(other, sizeof other, "%s/foreign.mjb", dir);
    ck_assert_int_eq(mj__bundle_write_file(other, idx.entries, idx.count, err, sizeof err), 0);
    for (size_t i = 0; i < idx.count; i++) free(payloads[i]);
    mj__bundle_index_free(&idx);
    ck_assert_int_eq(bundle_context(other, 90, 0, &ctx), MJ_OK);
    ck_assert_int_eq(mj_sorter_create(ctx, &u32, &s), MJ_ERR_NOT_IN_BUNDLE);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "other kernel source"));
    mj_context_destroy(ctx);

    /* A full disk while writing a bundle: the reason, and nothing left behind (the directory
     * holds what it held before). */
    {
        char full[4096];
        snprintf(full, sizeof full, "%s/full", dir);
        ck_assert_int_eq(mkdir(full, 0700), 0);
        snprintf(other, sizeof other, "%s/b.mjb", full);
        mj_bundle_builder *fb = NULL;
        ck_assert_int_eq(mj_bundle_builder_create(&fb), MJ_OK);
        ctx = mjt_compile_context(90, dir);
        ck_assert_int_eq(mj_bundle_builder_add(fb, ctx, &u32), MJ_OK);
        mj__fault_write_errno = ENOSPC;
        ck_assert_int_eq(mj_bundle_builder_write(fb, other), MJ_ERR_FILE);
        mj__fault_write_errno = 0;
        ck_assert_ptr_nonnull(strstr(mj_bundle_builder_last_error(fb), strerror(ENOSPC)));
        DIR *d = opendir(full);
        ck_assert_ptr_nonnull(d);
        int names = 0;
        for (struct dirent *e; (e = readdir(d)) != NULL;) names += e->d_name[0] != '.';
        rewinddir(d);
        for (struct dirent *e; (e = readdir(d)) != NULL;)
            names += strncmp(e->d_name, ".b.mjb", 6) == 0;
        closedir(d);
        ck_assert_int_eq(names, 0);
        ck_assert_int_eq(mj_bundle_builder_write(fb, other), MJ_OK);
        mj_bundle_builder_destroy(fb);
        mj_context_destroy(ctx);
    }

    /* The builder's own failures: a comparator that does not compile, a bad path. */
    mj_bundle_builder *b = NULL;
    ck_assert_int_eq(mj_bundle_builder_create(&b), MJ_OK);
    ctx = mjt_compile_context(90, dir);
    mj_sort_desc bad = desc(MJ_MERGESORT, MJ_KEY_U32, MJ_ASCENDING, 0);
    bad.less = "a < b +";
    ck_assert_int_eq(mj_bundle_builder_add(b, ctx, &bad), MJ_ERR_COMPILE);
    ck_assert_ptr_nonnull(strstr(mj_bundle_builder_last_error(b), "NVRTC"));
    ck_assert_uint_eq(mj_bundle_builder_count(b), 0);
    snprintf(other, sizeof other, "%s/no/such/dir/b.mjb", dir);
    ck_assert_int_eq(mj_bundle_builder_write(b, other), MJ_ERR_FILE);
    ck_assert_str_ne(mj_bundle_builder_last_error(b), "");
    mj_bundle_builder_destroy(b);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* The deployment promise end to end through the tool: `gen` writes a bundle, and `demo`
 * builds from it with libnvrtc unloadable; without the bundle the same call needs NVRTC. */
START_TEST(tool_without_nvrtc) {
    char *dir = mjt_tmpdir();
    char path[4096], bundle_env[4200], spec[4200];
    snprintf(path, sizeof path, "%s/t.mjb", dir);
    snprintf(bundle_env, sizeof bundle_env, "MERGEJIT_BUNDLE=%s", path);
    const char *gen[] = {"gen", "-o", path, "--types", "u32", "--values", "0",
                         "--primitives", "mergesort", NULL};
    mjt_tool_run r = mjt_run_tool(gen, NULL);
    ck_assert_msg(r.status == 0, "gen: %s%s", r.out, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "wrote 2 entries")); /* the cubin, and PTX beside it */
    mjt_tool_run_free(&r);
    const char *list[] = {"gen", "--list", path, NULL};
    r = mjt_run_tool(list, NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "u32 asc"));
    ck_assert_ptr_nonnull(strstr(r.out, "sm_90       cubin mergesort"));
    ck_assert_ptr_nonnull(strstr(r.out, "compute_90  PTX   mergesort"));
    mjt_tool_run_free(&r);

    const char *demo[] = {"demo", "--n", "100000", "--reps", "1", NULL};
    const char *no_nvrtc[] = {"MERGEJIT_LIBNVRTC=/nonexistent/libnvrtc.so", bundle_env, NULL};
    r = mjt_run_tool(demo, no_nvrtc);
    ck_assert_msg(r.status == 0, "demo from the bundle: %s%s", r.out, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "loaded from the bundle"));
    mjt_tool_run_free(&r);
    const char *no_nvrtc_no_bundle[] = {"MERGEJIT_LIBNVRTC=/nonexistent/libnvrtc.so", NULL};
    r = mjt_run_tool(demo, no_nvrtc_no_bundle);
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "MJ_ERR_NO_COMPILER"));
    mjt_tool_run_free(&r);
    const char *u64[] = {"demo", "--type", "u64", NULL};
    r = mjt_run_tool(u64, no_nvrtc);
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "MJ_ERR_NOT_IN_BUNDLE"));
    mjt_tool_run_free(&r);

    /* A spec file with a bad line: the usage status and the line's number. */
    snprintf(spec, sizeof spec, "%s/spec", dir);
    FILE *f = fopen(spec, "w");
    ck_assert_ptr_nonnull(f);
    fputs("# keys\n\n[key]\ntype = u32\ncolour = blue\n", f);
    fclose(f);
    const char *bad_spec[] = {"gen", "-o", path, "--spec", spec, NULL};
    r = mjt_run_tool(bad_spec, NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "line 5"));
    mjt_tool_run_free(&r);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("bundle");
    TCase *tc = tcase_create("bundle");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, build_list_serve);
    tcase_add_test(tc, damaged_and_foreign);
    tcase_add_test(tc, tool_without_nvrtc);
    suite_add_tcase(s, tc);
    return mjt_run(s, 1);
}
