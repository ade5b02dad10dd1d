/* SPDX-License-Identifier: Apache-2.0 */
/* The module/cache path of compile-only contexts, without a GPU: sorters built by NVRTC, from
 * the context's memory and from disk, damaged entries rebuilt, clearing, a cache directory others
 * could write to, a full disk (warned of once), the size cap, no disk cache, and two processes
 * sharing a cache directory. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file_io.h"
#include "context_support.h"
#include "primitives/run.h"
#include "test_support.h"


/* ---------------------------------------------------------------- helpers */

/* The names in dir: entries (*.mjc), temporary files (names starting with '.'), and the path
 * of the last entry in `entry` (may be NULL). */
static void scan_dir(const char *dir, int *entries, int *temps, char *entry, size_t cap) {
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "opendir %s: %s", dir, strerror(errno));
    *entries = *temps = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.') {
            (*temps)++;
        } else if (len > 4 && !strcmp(e->d_name + len - 4, ".mjc")) {
            (*entries)++;
            if (entry) ck_assert_int_lt(snprintf(entry, cap, "%s/%s", dir, e->d_name), (int)cap);
        }
    }
    closedir(d);
}

/* Applies damage(path, size) to every entry (*.mjc) in dir; returns how many. */
static int each_entry(const char *dir, void (*damage)(const char *path, off_t size)) {
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "opendir %s: %s", dir, strerror(errno));
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len <= 4 || strcmp(e->d_name + len - 4, ".mjc")) continue;
        char path[4096];
        ck_assert_int_lt(snprintf(path, sizeof path, "%s/%s", dir, e->d_name), (int)sizeof path);
        damage(path, file_size(path));
        ++n;
    }
    closedir(d);
    return n;
}

/* The cache's total bytes. */
static uint64_t cache_bytes(const char *dir) {
    size_t entries = 0;
    uint64_t bytes = 0;
    disk_cache_stats(dir, &entries, &bytes);
    return bytes;
}

/* A sorter for desc in a new compile-only context on dir; returns how it got its binary and
 * the build time. */
static int build_in_new_context(const char *dir, const mj_sort_desc *desc, double *ms) {
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, desc, &s);
    ck_assert_msg(st == MJ_OK, "sorter: %s: %s", mj_status_name(st), mj_context_last_error(ctx));
    int source = mj_sorter_source(s);
    if (ms) *ms = mj_sorter_build_ms(s);
    mj_sorter_destroy(s);
    mj_context_destroy(ctx);
    return source;
}

/* ---------------------------------------------------------------- compile, memory, disk */

START_TEST(cache_path)
{
    char *dir = mjt_tmpdir();
    /* A merge: its kernels are one module entry, and each of its two programs has an entry of
     * its own (a mergesort's are parts: mergesort_parts). */
    mj_sort_desc desc = u32_desc();
    desc.primitive = MJ_MERGE;

    mj_context *ctx = mjt_compile_context(90, dir);
    ck_assert_int_eq(mj_context_target_sm(ctx), 90);
    ck_assert_str_eq(mj_context_cache_dir(ctx), dir);
    ck_assert_str_eq(mj_context_device_name(ctx), "");
    mj_sorter *a = NULL, *b = NULL;
    mj_status st = mj_sorter_create(ctx, &desc, &a);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_int_eq(mj_sorter_source(a), 0);
    double compile_ms = mj_sorter_build_ms(a);
    int nt = 0, vt = 0;
    mj_sorter_tile(a, &nt, &vt);
    ck_assert(nt >= 32 && (nt & (nt - 1)) == 0 && vt >= 1);
    ck_assert_int_eq(mj_sorter_create(ctx, &desc, &b), MJ_OK);
    ck_assert_int_eq(mj_sorter_source(b), 2);
    size_t entries = 0;
    uint64_t bytes = 0;
    ck_assert_int_eq(mj_cache_stats(ctx, &entries, &bytes), MJ_OK);
    ck_assert_uint_eq(entries, 3);
    ck_assert_uint_gt(bytes, 3 * HEADER_SIZE);
    mj_sorter_destroy(a);
    mj_sorter_destroy(b);
    mj_context_destroy(ctx);

    /* A new context finds it on disk, much faster than the compile. */
    double disk_ms = 0;
    ck_assert_int_eq(build_in_new_context(dir, &desc, &disk_ms), 1);
    ck_assert_msg(disk_ms * 5 < compile_ms, "loading from disk took %.1f ms, compiling %.1f ms",
                  disk_ms, compile_ms);

    int n_entries, n_temps;
    scan_dir(dir, &n_entries, &n_temps, NULL, 0);
    ck_assert_int_eq(n_entries, 3);
    ck_assert_int_eq(n_temps, 0);

    /* A flipped payload byte in every entry: rebuilt, and the entries are good afterwards
     * (test_program_cache damages the module's and the programs' entries apart). */
    ck_assert_int_eq(each_entry(dir, flip_payload), 3);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 0);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 1);
    scan_dir(dir, &n_entries, &n_temps, NULL, 0);
    ck_assert_int_eq(n_entries, 3);
    ck_assert_int_eq(n_temps, 0);
    ck_assert_uint_eq(cache_bytes(dir), bytes);

    /* Truncated: the same. */
    ck_assert_int_eq(each_entry(dir, cut_in_half), 3);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 0);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 1);
    ck_assert_uint_eq(cache_bytes(dir), bytes);

    /* Clearing removes them. */
    ctx = mjt_compile_context(90, dir);
    size_t removed = 99;
    ck_assert_int_eq(mj_cache_clear(ctx, &removed), MJ_OK);
    ck_assert_uint_eq(removed, 3);
    ck_assert_int_eq(mj_cache_stats(ctx, &entries, &bytes), MJ_OK);
    ck_assert_uint_eq(entries, 0);
    ck_assert_uint_eq(bytes, 0);
    scan_dir(dir, &n_entries, &n_temps, NULL, 0);
    ck_assert_int_eq(n_entries, 0);
    mj_context_destroy(ctx);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 0);

    /* A cache directory every user may write to is refused, with the reason. */
    ck_assert_int_eq(chmod(dir, 0777), 0);
    mj_context_options o;
    mj_context_options_init(&o);
    o.flags = MJ_CONTEXT_COMPILE_ONLY;
    o.cache_dir = dir;
    ck_assert_int_eq(mj_context_create(&o, &ctx), MJ_ERR_CACHE);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "writable by every user"));
    mj_context_destroy(ctx);
    ck_assert_int_eq(chmod(dir, 0700), 0);

    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* A full disk costs a recompile, never the sort: the build succeeds while the store fails,
 * and the next build stores it once there is room. */
START_TEST(full_disk)
{
    char *dir = mjt_tmpdir();
    mj_sort_desc desc = u32_desc();
    /* The failed stores say so on stderr, one line for the process. */
    char log[4200];
    snprintf(log, sizeof log, "%s.stderr", dir);
    fflush(stderr);
    int saved = dup(2);
    ck_assert_int_ge(saved, 0);
    ck_assert_ptr_nonnull(freopen(log, "w", stderr));
    mj__fault_write_errno = ENOSPC;
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 0);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 0);
    mj__fault_write_errno = 0;
    fflush(stderr);
    ck_assert_int_eq(dup2(saved, 2), 2);
    close(saved);
    FILE *f = fopen(log, "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    int warnings = 0, lines = 0;
    while (fgets(line, sizeof line, f)) {
        lines++;
        warnings += strstr(line, "mergejit: warning: the disk cache cannot be written") != NULL &&
                    strstr(line, "MERGEJIT_CACHE_DIR") != NULL;
    }
    fclose(f);
    unlink(log);
    ck_assert_int_eq(warnings, 1);
    ck_assert_int_eq(lines, 1);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 0);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 1);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* The cache's size cap: MERGEJIT_CACHE_MAX read at create (a bad one refused), 1 GiB without
 * it; a build that takes the cache over the cap evicts down to it (a cap under one entry
 * empties it, the sorter still built); mj_cache_prune to a cap given or the context's. */
START_TEST(cache_cap)
{
    char *dir = mjt_tmpdir();
    mj_context_options o;
    mj_context_options_init(&o);
    o.flags = MJ_CONTEXT_COMPILE_ONLY;
    o.target_sm = 90;
    o.cache_dir = dir;
    mj_context *ctx = NULL;

    ck_assert_int_eq(setenv("MERGEJIT_CACHE_MAX", "lots", 1), 0);
    ck_assert_int_eq(mj_context_create(&o, &ctx), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "MERGEJIT_CACHE_MAX=\"lots\""));
    mj_context_destroy(ctx);

    ck_assert_int_eq(unsetenv("MERGEJIT_CACHE_MAX"), 0);
    ck_assert_int_eq(mj_context_create(&o, &ctx), MJ_OK);
    ck_assert_uint_eq(mj_context_cache_max(ctx), 1ull << 30);
    ck_assert_int_eq(mj_cache_check_writable(ctx), MJ_OK);
    mj_sort_desc desc = u32_desc();
    desc.primitive = MJ_MERGE;
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &desc, &s), MJ_OK);
    mj_sorter_destroy(s);
    size_t entries = 0, removed = 9;
    uint64_t bytes = 0, kept = 0;
    ck_assert_int_eq(mj_cache_stats(ctx, &entries, &bytes), MJ_OK);
    ck_assert_uint_eq(entries, 3); /* the module and its two programs */
    ck_assert_int_eq(mj_cache_prune(ctx, 0, &removed, &kept), MJ_OK); /* under 1 GiB */
    ck_assert_uint_eq(removed, 0);
    ck_assert_uint_eq(kept, bytes);
    ck_assert_int_eq(mj_cache_prune(ctx, bytes - 1, &removed, &kept), MJ_OK);
    ck_assert_uint_ge(removed, 1);
    ck_assert_uint_le(kept, bytes - 1);
    mj_context_destroy(ctx);

    ck_assert_int_eq(setenv("MERGEJIT_CACHE_MAX", "1", 1), 0);
    ck_assert_int_eq(mj_context_create(&o, &ctx), MJ_OK);
    ck_assert_uint_eq(mj_context_cache_max(ctx), 1);
    desc.primitive = MJ_MERGESORT;
    ck_assert_int_eq(mj_sorter_create(ctx, &desc, &s), MJ_OK);
    mj_sorter_destroy(s);
    ck_assert_int_eq(mj_cache_stats(ctx, &entries, &bytes), MJ_OK);
    ck_assert_uint_eq(entries, 0);
    mj_context_destroy(ctx);
    ck_assert_int_eq(setenv("MERGEJIT_CACHE_MAX", "0", 1), 0);
    ck_assert_int_eq(mj_context_create(&o, &ctx), MJ_OK);
    ck_assert_uint_eq(mj_context_cache_max(ctx), UINT64_MAX);
    mj_context_destroy(ctx);
    ck_assert_int_eq(unsetenv("MERGEJIT_CACHE_MAX"), 0);

    uint64_t v = 5;
    ck_assert_int_eq(mj_cache_parse_size("64M", &v), MJ_OK);
    ck_assert_uint_eq(v, 64ull << 20);
    ck_assert_int_eq(mj_cache_parse_size("64Q", &v), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_cache_parse_size(NULL, &v), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(v, 64ull << 20);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(no_disk_cache)
{
    /* A context without the disk cache writes nothing and compiles every time. */
    char *dir = mjt_tmpdir();
    mj_context_options o;
    mj_context_options_init(&o);
    o.flags = MJ_CONTEXT_COMPILE_ONLY | MJ_CONTEXT_NO_DISK_CACHE;
    o.cache_dir = dir;
    mj_context *ctx = NULL;
    ck_assert_int_eq(mj_context_create(&o, &ctx), MJ_OK);
    ck_assert_str_eq(mj_context_cache_dir(ctx), "");
    mj_sort_desc desc = u32_desc();
    desc.value_size = 4;
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &desc, &s), MJ_OK);
    ck_assert_int_eq(mj_sorter_source(s), 0);
    mj_sorter_destroy(s);
    ck_assert_int_eq(mj_sorter_create(ctx, &desc, &s), MJ_OK);
    ck_assert_int_eq(mj_sorter_source(s), 2);
    mj_sorter_destroy(s);
    size_t entries = 9, removed = 9;
    uint64_t bytes = 9;
    ck_assert_int_eq(mj_cache_stats(ctx, &entries, &bytes), MJ_OK);
    ck_assert_uint_eq(entries, 0);
    ck_assert_int_eq(mj_cache_clear(ctx, &removed), MJ_OK);
    ck_assert_uint_eq(removed, 0);
    mj_context_destroy(ctx);
    int n_entries, n_temps;
    scan_dir(dir, &n_entries, &n_temps, NULL, 0);
    ck_assert_int_eq(n_entries + n_temps, 0);

    /* A compile-only context needs a target. */
    o.target_sm = 0;
    ctx = NULL;
    ck_assert_int_eq(mj_context_create(&o, &ctx), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(ctx);
    ck_assert_str_ne(mj_context_last_error(ctx), "");
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* ---------------------------------------------------------------- two processes */

#define PROCESS_ROUNDS 3

/* One child's work: wait at the barrier, then build the sorter in a new context (compiled
 * or, when the other child stored it first, from disk), then again (from disk). Exit 0 when
 * all went as expected. No Check calls in here: this is a child of the test's process. */
static void child_build(const char *dir, int barrier) {
    char c;
    if (read(barrier, &c, 1) != 0) _exit(10);
    mj_context_options o;
    mj_context_options_init(&o);
    o.flags = MJ_CONTEXT_COMPILE_ONLY;
    o.target_sm = 90;
    o.cache_dir = dir;
    mj_sort_desc desc = u32_desc();
    for (int i = 0; i < 2; ++i) {
        mj_context *ctx = NULL;
        mj_sorter *s = NULL;
        if (mj_context_create(&o, &ctx) != MJ_OK) _exit(11);
        mj_status st = mj_sorter_create(ctx, &desc, &s);
        if (st != MJ_OK) {
            fprintf(stderr, "child %d: %s: %s\n", (int)getpid(), mj_status_name(st),
                    mj_context_last_error(ctx));
            _exit(12);
        }
        int source = mj_sorter_source(s);
        if (i == 0 ? source != 0 && source != 1 : source != 1) {
            fprintf(stderr, "child %d: build %d came from source %d\n", (int)getpid(), i,
                    source);
            _exit(13);
        }
        mj_sorter_destroy(s);
        mj_context_destroy(ctx);
    }
    _exit(0);
}

START_TEST(two_processes)
{
    char *dir = mjt_tmpdir();
    for (int round = 0; round < PROCESS_ROUNDS; ++round) {
        /* Each round starts from an empty directory so that both compile and store at once. */
        mj_context *ctx = mjt_compile_context(90, dir);
        size_t removed = 0;
        ck_assert_int_eq(mj_cache_clear(ctx, &removed), MJ_OK);
        ck_assert_uint_eq(removed, round == 0 ? 0 : 6);
        mj_context_destroy(ctx);

        int barrier[2];
        ck_assert_int_eq(pipe(barrier), 0);
        pid_t pid[2];
        for (int i = 0; i < 2; ++i) {
            pid[i] = fork();
            ck_assert_int_ge(pid[i], 0);
            if (pid[i] == 0) {
                close(barrier[1]);
                child_build(dir, barrier[0]);
            }
        }
        close(barrier[0]);
        close(barrier[1]); /* both children's reads return now */
        for (int i = 0; i < 2; ++i) {
            int status = 0;
            ck_assert_int_eq(waitpid(pid[i], &status, 0), pid[i]);
            ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                          "round %d: child %d failed (status %d)", round, i,
                          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
        int n_entries, n_temps;
        scan_dir(dir, &n_entries, &n_temps, NULL, 0);
        /* the mergesort's module built (fused 2-way passes need no partition) and its five
         * programs, each once */
        ck_assert_int_eq(n_entries, 6);
        ck_assert_int_eq(n_temps, 0);
    }
    mj_sort_desc desc = u32_desc();
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 1);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* The module of a mergesort sorter, built at create with every kernel its sorts may launch:
 * the blocksort, the 2-way merge, the 4-way passes' merge and both their partitions (5
 * programs), under MERGEJIT_FUSED_PARTITION=0 the 2-way partition too (6; no fused sort
 * launches it), under MERGEJIT_MERGE_WAYS=2 none of the 4-way passes' (2). A module entry,
 * and one a program; found in memory by the same context and on disk by a new one. A join
 * sorter's module holds every join kernel, the one that writes b's unmatched rows too. */
START_TEST(mergesort_parts)
{
    static const int want[3] = {0, 2, 1}; /* compiled; from memory; from disk */
    static const struct {
        const char *fused, *ways;
        int programs;
    } variants[] = {{"", "", 5}, {"0", "", 6}, {"", "2", 2}};
    const mj_kernel_set four = 1u << MJ_K_PARTITION4 | 1u << MJ_K_PARTITION4_ONE | 1u << MJ_K_MERGE4;
    for (int v = 0; v < 3; ++v) {
        char *dir = mjt_tmpdir();
        ck_assert_int_eq(setenv("MERGEJIT_FUSED_PARTITION", variants[v].fused, 1), 0);
        ck_assert_int_eq(setenv("MERGEJIT_MERGE_WAYS", variants[v].ways, 1), 0);
        mj_sort_desc desc = u32_desc();
        mj_kernel_set kernels = mj__primitive_kernels(MJ_MERGESORT);
        if (*variants[v].fused != '0') kernels &= ~(1u << MJ_K_PARTITION);
        if (*variants[v].ways == '2') kernels &= ~four;
        int programs = variants[v].programs;
        mj_context *ctx = NULL;
        for (int round = 0; round < 3; ++round) {
            if (round != 1) {
                mj_context_destroy(ctx);
                ctx = mjt_compile_context(90, dir);
            }
            mj_sorter *s = NULL;
            ck_assert_int_eq(mj_sorter_create(ctx, &desc, &s), MJ_OK);
            ck_assert_uint_eq(s->mod->kernels, kernels);
            mj_build_times now;
            mj_sorter_build_times(s, &now);
            ck_assert_int_eq(mj_sorter_source(s), want[round]);
            ck_assert(mj_sorter_build_ms(s) >= 0);
            ck_assert_int_eq(now.programs, round ? 0 : programs);
            if (round == 0) ck_assert(now.frontend_ms > 0 && now.slowest_ms > 0);
            int regs = 0;
            long spills = -1;
            mj_sorter_resources(s, &regs, &spills);
            ck_assert(regs > 0 && spills == 0);
            mj_sorter_destroy(s);
            size_t entries = 0;
            uint64_t bytes = 0;
            ck_assert_int_eq(mj_cache_stats(ctx, &entries, &bytes), MJ_OK);
            ck_assert_uint_eq(entries, (size_t)(1 + programs));
        }
        mj_context_destroy(ctx);
        mjt_rmtree(dir);
        free(dir);
    }
    unsetenv("MERGEJIT_FUSED_PARTITION");
    unsetenv("MERGEJIT_MERGE_WAYS");
}
END_TEST

START_TEST(join_parts)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc desc = u32_desc();
    desc.primitive = MJ_JOIN;
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &desc, &s), MJ_OK);
    ck_assert_uint_eq(s->mod->kernels, mj__primitive_kernels(MJ_JOIN));
    ck_assert_uint_ne(s->mod->kernels & 1u << MJ_K_JOIN_UNMATCHED, 0);
    mj_sorter_destroy(s);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* A context finds a module again from the spec alone (core/loader.c's spec key), without the
 * source: the same desc gets the same module from memory, and a desc that differs in one
 * field or in how its strings split gets its own build. Merge sorters (two programs each). */
START_TEST(memory_by_spec)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc base;
    mj_sort_desc_init(&base, MJ_KEY_CUSTOM, MJ_ASCENDING);
    base.primitive = MJ_MERGE;
    base.type_name = "pair";
    base.type_source = "struct pair { int x, y; };";
    base.type_size = 8;
    base.type_align = 4;
    base.less = "a.x < b.x";
    mj_sort_desc other[4] = {base, base, base, base};
    other[1].value_size = 4;
    other[2].less = "a.y < b.y";
    /* A type that differs in a space only: another source, another module. */
    other[3].type_source = "struct pair { int x, y; }; ";
    other[3].less = "a.x < b.x";
    const mj_module *first = NULL;
    for (int i = 0; i < 4; ++i) {
        mj_sorter *s = NULL;
        ck_assert_msg(mj_sorter_create(ctx, &other[i], &s) == MJ_OK, "%d: %s", i,
                      mj_context_last_error(ctx));
        ck_assert_msg(mj_sorter_source(s) == MJ_SOURCE_COMPILED, "%d: source %d", i,
                      mj_sorter_source(s));
        if (i == 0) first = s->mod;
        ck_assert(i == 0 || s->mod != first);
        mj_sorter_destroy(s);
    }
    for (int round = 0; round < 2; ++round) {
        mj_sorter *s = NULL;
        ck_assert_int_eq(mj_sorter_create(ctx, &base, &s), MJ_OK);
        ck_assert_int_eq(mj_sorter_source(s), MJ_SOURCE_MEMORY);
        ck_assert_ptr_eq(s->mod, first);
        mj_sorter_destroy(s);
    }
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

static Suite *context_cache_suite(void) {
    Suite *s = suite_create("context_cache");
    TCase *tc = tcase_create("context");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, cache_path);
    tcase_add_test(tc, full_disk);
    tcase_add_test(tc, cache_cap);
    tcase_add_test(tc, no_disk_cache);
    tcase_add_test(tc, two_processes);
    tcase_add_test(tc, mergesort_parts);
    tcase_add_test(tc, join_parts);
    tcase_add_test(tc, memory_by_spec);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_forked(context_cache_suite()); }
