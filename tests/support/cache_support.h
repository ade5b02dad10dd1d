/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the kernel cache's tests (test_cache_*.c): scratch directories under g_root, keys,
 * payloads, stores and loads that fail the test on error, and the runner that removes g_root
 * whatever the tests did. Header-only, so that the support library's sources stay as they are;
 * static inline, so that a program leaving some of them unused compiles without a warning. */
#ifndef MJ_TEST_CACHE_SUPPORT_H
#define MJ_TEST_CACHE_SUPPORT_H

#include <check.h>

#include "store/cache.h"
#include "base/sha256.h"
#include "test_support.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER_SIZE 96 /* the entry header, as laid out in store/cache.c */

/* Every test works under this directory; main removes it whatever the tests did. */
static char g_root[] = "/tmp/mj_test_cache.XXXXXX";

static inline void make_tmpdir(char *out, size_t cap)
{
    ck_assert_int_lt(snprintf(out, cap, "%s/t.XXXXXX", g_root), (int)cap);
    ck_assert_msg(mkdtemp(out) != NULL, "mkdtemp: %s", strerror(errno));
}

static inline void key_of(uint8_t key[32], const char *name)
{
    mj__sha256_hash(name, strlen(name), key);
}

static inline void entry_file(char *out, size_t cap, const char *dir, const uint8_t key[32])
{
    char hex[65];
    mj__sha256_hex(key, hex);
    ck_assert_int_lt(snprintf(out, cap, "%s/%s.mjc", dir, hex), (int)cap);
}

/* Deterministic bytes that differ with seed, so payloads can be told apart. */
static inline uint8_t *make_payload(size_t n, unsigned seed)
{
    uint8_t *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    uint32_t x = 2463534242u + seed * 7919u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
    return p;
}

static inline void assert_hit(const char *dir, const uint8_t key[32], const void *want, size_t n)
{
    char err[512] = "";
    void *data = NULL;
    size_t size = 12345;
    mj_cache_result r = mj__cache_load(dir, key, &data, &size, NULL, err, sizeof err);
    ck_assert_msg(r == MJ_CACHE_HIT, "load gave %d: %s", (int)r, err);
    ck_assert_ptr_nonnull(data);
    ck_assert_uint_eq(size, n);
    ck_assert_int_eq(memcmp(data, want, n), 0);
    free(data);
}

static inline void store_ok(const char *dir, const uint8_t key[32], const void *data, size_t n)
{
    char err[512] = "";
    ck_assert_msg(mj__cache_store(dir, key, data, n, NULL, err, sizeof err) == 0, "store: %s", err);
}

/* Counts names in dir, apart from "." and "..", and those that look like temporary files. */
static inline void count_names(const char *dir, int *all, int *temps)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "opendir %s: %s", dir, strerror(errno));
    *all = *temps = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        (*all)++;
        if (strstr(e->d_name, ".tmp."))
            (*temps)++;
    }
    closedir(d);
}

static inline int path_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static inline int chmod_dirs(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_D)
        chmod(path, 0700);
    return 0;
}

static inline int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

/* rm -rf, making read-only directories writable first. */
static inline void remove_tree(const char *path)
{
    nftw(path, chmod_dirs, 16, FTW_PHYS);
    nftw(path, remove_one, 16, FTW_PHYS | FTW_DEPTH);
}

/* Runs the suite under a fresh g_root and removes it afterwards. */
static inline int run_cache_suite(Suite *s)
{
    if (!mkdtemp(g_root)) {
        perror("mkdtemp");
        return 1;
    }
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    remove_tree(g_root);
    return failed == 0 ? 0 : 1;
}

#endif
