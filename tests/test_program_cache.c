/* SPDX-License-Identifier: Apache-2.0 */
/* Programs in the disk cache (core/loader.c, gen/kernel_program.h), with compile-only
 * contexts and NVRTC, no GPU: a module that is not in the cache takes each of its kernels'
 * programs from an entry of its own where a module of another tile stored it, so that
 * mergesort sorters of one key type with another NT compile only the two merges, and report
 * only those; damaged or foreign program entries are rebuilt; module entries keep their keys
 * (the compile key of the module's source) and serve a module with one read, program entries
 * or not; a cache that cannot be written costs compiles, never a sorter. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file_io.h"
#include "base/sha256.h"
#include "context_support.h"
#include "core/loader.h"
#include "core/tile_choice.h"
#include "kernel_program.h"
#include "store/cache.h"
#include "store/kernel_pack.h"
#include "test_support.h"

/* u32 keys alone with the tile nt x vt, blocksort bs_nt x vt. */
static mj_sort_desc tile_desc(int nt, int vt, int bs_nt) {
    mj_sort_desc d = u32_desc();
    d.nt = nt;
    d.vt = vt;
    d.bs_nt = bs_nt;
    return d;
}

/* What a mergesort sorter's build did at create (its module holds every kernel its sorts may
 * launch: the blocksort, the 2-way merge, the 4-way passes' merge and both their partitions;
 * with MERGEJIT_FUSED_PARTITION=0 the 2-way partition too): where it came from, and how many
 * programs it compiled. */
typedef struct build {
    int source, programs;
} build;

static build build_sorter(const char *dir, const mj_sort_desc *desc) {
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, desc, &s);
    ck_assert_msg(st == MJ_OK, "sorter: %s: %s", mj_status_name(st), mj_context_last_error(ctx));
    build b;
    mj_build_times now;
    mj_sorter_build_times(s, &now);
    b.source = mj_sorter_source(s);
    b.programs = now.programs;
    mj_sorter_destroy(s);
    mj_context_destroy(ctx);
    return b;
}

static void expect_build(build b, int source, int programs, const char *what) {
    ck_assert_msg(b.source == source && b.programs == programs,
                  "%s: from %d with %d programs compiled; expected %d, %d", what, b.source,
                  b.programs, source, programs);
}

static size_t entries_in(const char *dir) {
    size_t entries = 0;
    uint64_t bytes = 0;
    disk_cache_stats(dir, &entries, &bytes);
    return entries;
}

/* The spec a sorter for desc builds, and the target it compiles for (sm_90 cubins). */
static mj_kernel_spec spec_of(const char *dir, const mj_sort_desc *desc) {
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_kernel_spec spec;
    ck_assert_int_eq(mj__spec_from_desc(ctx, desc, &spec), MJ_OK);
    ck_assert_int_eq(mj__choose_tile(ctx, desc, &spec, NULL), MJ_OK);
    mj_context_destroy(ctx);
    return spec;
}

static const mj_nvrtc_api *nvrtc(void) {
    char err[1024] = "";
    const mj_nvrtc_api *nv = mj__nvrtc_load(err, sizeof err);
    ck_assert_msg(nv != NULL, "NVRTC is required for this test: %s", err);
    return nv;
}

static const mj_target sm90 = {90, 0};

static void entry_path(const char *dir, const uint8_t key[32], char *path, size_t cap) {
    char hex[65];
    mj__sha256_hex(key, hex);
    ck_assert_int_lt(snprintf(path, cap, "%s/%s.mjc", dir, hex), (int)cap);
}

/* The cache entry of kernel k's program for desc's sorter, and its key. */
static void program_entry(const char *dir, const mj_sort_desc *desc, int k,
                          uint8_t key[32], char *path, size_t cap) {
    mj_kernel_spec spec = spec_of(dir, desc);
    char err[512], *src = NULL;
    ck_assert_msg(mj__gen_program_source(&spec, k, &src, NULL, err, sizeof err) == 0, "%s", err);
    mj__program_key(nvrtc(), sm90, src, key);
    free(src);
    entry_path(dir, key, path, cap);
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

/* A program entry that loads, holding one image of mergesort's kernel k. */
static void expect_program_entry(const char *dir, const uint8_t key[32], int k) {
    void *data = NULL;
    size_t size = 0;
    char err[512] = "";
    ck_assert_int_eq(mj__cache_load(dir, key, &data, &size, NULL, err, sizeof err), MJ_CACHE_HIT);
    mj_kernel_image images[MJ_PACK_MAX];
    ck_assert_int_eq(mj__unpack_kernels(data, size, images, err, sizeof err), 1);
    ck_assert_str_eq(images[0].kernel, mj__kernel_name(MJ_MERGESORT, k));
    ck_assert(images[0].size > 4 && memcmp(images[0].data, "\177ELF", 4) == 0);
    free(data);
}

/* The five programs a fused mergesort builds. */
#define FUSED_PROGRAMS 5
static const int fused_programs[FUSED_PROGRAMS] = {
    MJ_K_BLOCKSORT, MJ_K_MERGE, MJ_K_PARTITION4, MJ_K_PARTITION4_ONE, MJ_K_MERGE4};

/* ---------------------------------------------------------------- sharing */

START_TEST(another_nt_compiles_the_merges)
{
    char *dir = mjt_tmpdir();
    mj_sort_desc a = tile_desc(128, 15, 256);
    expect_build(build_sorter(dir, &a), 0, 5, "128x15x256, first");
    ck_assert_uint_eq(entries_in(dir), 6); /* the module, 5 programs */

    /* Another NT: the blocksort (bs_nt x vt) and the 4-way partitions (no tile) are shared. */
    mj_sort_desc b = tile_desc(256, 15, 256);
    expect_build(build_sorter(dir, &b), 0, 2, "256x15x256"); /* the two merges */
    ck_assert_uint_eq(entries_in(dir), 9);

    /* Another blocksort: the merges (nt x vt) and the partitions are shared. */
    mj_sort_desc c = tile_desc(128, 15, 512);
    expect_build(build_sorter(dir, &c), 0, 1, "128x15x512");
    ck_assert_uint_eq(entries_in(dir), 11);

    /* Another VT: only the partitions are shared. */
    mj_sort_desc d = tile_desc(128, 17, 256);
    expect_build(build_sorter(dir, &d), 0, 3, "128x17x256");
    ck_assert_uint_eq(entries_in(dir), 15);

    /* Modules that were stored are read whole: nothing compiled, from the disk. */
    expect_build(build_sorter(dir, &b), 1, 0, "256x15x256, again");

    /* 2-way passes with a partition kernel: its program is compiled once, for any tile. */
    ck_assert_int_eq(setenv("MERGEJIT_FUSED_PARTITION", "0", 1), 0);
    expect_build(build_sorter(dir, &b), 0, 1, "256x15x256, unfused");
    expect_build(build_sorter(dir, &a), 1, 0, "128x15x256, unfused");
    unsetenv("MERGEJIT_FUSED_PARTITION");
    /* each sorter's module of six kernels, and the partition's program */
    ck_assert_uint_eq(entries_in(dir), 15 + 3);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* ---------------------------------------------------------------- damage */

/* A program entry that fails its checks (a flipped byte, truncated), or that holds another
 * kernel under the key, is compiled again and stored over. */
START_TEST(damaged_programs_rebuilt)
{
    char *dir = mjt_tmpdir();
    mj_sort_desc a = tile_desc(128, 15, 256);
    expect_build(build_sorter(dir, &a), 0, 5, "first");
    uint8_t key[32];
    char path[4096];

    /* The blocksort's, which another NT shares: it compiles with the merge. */
    program_entry(dir, &a, MJ_K_BLOCKSORT, key, path, sizeof path);
    ck_assert(exists(path));
    flip_payload(path, file_size(path));
    mj_sort_desc b = tile_desc(256, 15, 256);
    expect_build(build_sorter(dir, &b), 0, 3, "a flipped blocksort");
    expect_program_entry(dir, key, MJ_K_BLOCKSORT);

    /* The 4-way partition's, truncated: another blocksort compiles it again. */
    program_entry(dir, &a, MJ_K_PARTITION4, key, path, sizeof path);
    cut_in_half(path, file_size(path));
    mj_sort_desc c = tile_desc(128, 15, 512);
    expect_build(build_sorter(dir, &c), 0, 2, "a truncated partition4");
    expect_program_entry(dir, key, MJ_K_PARTITION4);

    /* An intact entry that holds the partition under the 4-way merge's key: a blocksort of
     * NT threads shares the 4-way merge with the first tile, and compiles it again. */
    mj_sort_desc d = tile_desc(128, 15, 128);
    uint8_t merge4[32];
    program_entry(dir, &a, MJ_K_MERGE4, merge4, path, sizeof path);
    void *part = NULL;
    size_t size = 0;
    char err[512];
    ck_assert_int_eq(mj__cache_load(dir, key, &part, &size, NULL, err, sizeof err), MJ_CACHE_HIT);
    ck_assert_int_eq(mj__cache_store(dir, merge4, part, size, NULL, err, sizeof err), 0);
    free(part);
    expect_build(build_sorter(dir, &d), 0, 2, "another kernel under merge4's key");
    expect_program_entry(dir, merge4, MJ_K_MERGE4);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* ---------------------------------------------------------------- module entries */

/* A module is still kept under the compile key of its whole source (the key bundles and older
 * caches know, for all of a primitive's kernels); a stored module is read as one entry and
 * needs no program entry; programs alone rebuild the modules without a compile. */
START_TEST(module_entries_unchanged)
{
    char *dir = mjt_tmpdir();
    const mj_nvrtc_api *nv = nvrtc();
    mj_sort_desc a = tile_desc(128, 15, 256);
    mj_kernel_spec spec = spec_of(dir, &a);
    char err[512], *src = NULL;
    ck_assert_int_eq(mj__gen_source(&spec, &src, NULL, err, sizeof err), 0);
    uint8_t key[32];
    mj__compile_key(nv, sm90, src, key);
    free(src);
    char path[4096];
    entry_path(dir, key, path, sizeof path);
    for (int round = 0; round < 2; ++round) {
        mj_context *ctx = mjt_compile_context(90, dir);
        mj_binary b;
        ck_assert_int_eq(mj__binary_get(ctx, &spec, mj__primitive_kernels(MJ_MERGESORT), 1, 0, &b),
                         MJ_OK);
        ck_assert_int_eq(memcmp(b.key, key, 32), 0);
        ck_assert_int_eq(b.source, round ? MJ_SOURCE_DISK : MJ_SOURCE_COMPILED);
        ck_assert_int_eq(b.times.programs, round ? 0 : FUSED_PROGRAMS + 1);
        ck_assert(exists(path));
        free(b.data);
        mj_context_destroy(ctx);
    }
    ck_assert_uint_eq(entries_in(dir), 7); /* the module and its six programs */

    /* The sorter's module (without the 2-way partition) is a module of its own, whose
     * programs the whole one stored. */
    expect_build(build_sorter(dir, &a), 1, 0, "modules from programs");
    ck_assert_uint_eq(entries_in(dir), 8);

    /* Without program entries: the modules alone. */
    char programs[FUSED_PROGRAMS][4096];
    for (int i = 0; i < FUSED_PROGRAMS; ++i) {
        program_entry(dir, &a, fused_programs[i], key, programs[i], sizeof programs[i]);
        ck_assert_int_eq(unlink(programs[i]), 0);
    }
    program_entry(dir, &a, MJ_K_PARTITION, key, path, sizeof path);
    ck_assert_int_eq(unlink(path), 0);
    expect_build(build_sorter(dir, &a), 1, 0, "modules alone");
    ck_assert_uint_eq(entries_in(dir), 2);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* A cache that cannot be written: every store fails, every build compiles, the sorter is
 * built; once it can, the next build stores modules and programs. */
START_TEST(unwritable_cache)
{
    char *dir = mjt_tmpdir();
    mj_sort_desc a = tile_desc(128, 15, 256), b = tile_desc(256, 15, 256);
    mj__fault_write_errno = ENOSPC;
    expect_build(build_sorter(dir, &a), 0, 5, "full");
    expect_build(build_sorter(dir, &b), 0, 5, "full, another NT");
    ck_assert_uint_eq(entries_in(dir), 0);
    mj__fault_write_errno = 0;
    expect_build(build_sorter(dir, &a), 0, 5, "room again");
    expect_build(build_sorter(dir, &b), 0, 2, "room again, another NT");
    ck_assert_uint_eq(entries_in(dir), 9);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

static Suite *program_cache_suite(void) {
    Suite *s = suite_create("program_cache");
    TCase *tc = tcase_create("programs");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, another_nt_compiles_the_merges);
    tcase_add_test(tc, damaged_programs_rebuilt);
    tcase_add_test(tc, module_entries_unchanged);
    tcase_add_test(tc, unwritable_cache);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_forked(program_cache_suite()); }
