/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the tests of contexts without a GPU (test_context_*.c, test_program_cache.c): the
 * descriptor they build sorters for, damage to cache entries, the cache's figures, and the
 * runner that gives each test a process of its own. Header-only, so that
 * the support library's sources stay as they are. */
#ifndef MJ_TEST_CONTEXT_SUPPORT_H
#define MJ_TEST_CONTEXT_SUPPORT_H

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_support.h"

#define HEADER_SIZE 96 /* a cache entry's header, as laid out in runtime/store/cache.c */

static inline mj_sort_desc u32_desc(void) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    return d;
}

static inline off_t file_size(const char *path) {
    struct stat st;
    ck_assert_msg(stat(path, &st) == 0, "stat %s: %s", path, strerror(errno));
    return st.st_size;
}

static inline void flip_byte(const char *path, off_t at) {
    int fd = open(path, O_RDWR);
    ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
    unsigned char c;
    ck_assert_int_eq(pread(fd, &c, 1, at), 1);
    c ^= 0x5a;
    ck_assert_int_eq(pwrite(fd, &c, 1, at), 1);
    ck_assert_int_eq(close(fd), 0);
}

/* Damage to a cache entry of `size` bytes at path: a byte of its payload flipped, or the file
 * cut to half its size. */
static inline void flip_payload(const char *path, off_t size) {
    flip_byte(path, HEADER_SIZE + (size - HEADER_SIZE) / 2);
}
static inline void cut_in_half(const char *path, off_t size) {
    ck_assert_int_eq(truncate(path, size / 2), 0);
}

/* The disk cache at dir as mj_cache_stats reports it, read through a new compile-only context. */
static inline void disk_cache_stats(const char *dir, size_t *entries, uint64_t *bytes) {
    mj_context *ctx = mjt_compile_context(90, dir);
    ck_assert_int_eq(mj_cache_stats(ctx, entries, bytes), MJ_OK);
    mj_context_destroy(ctx);
}

/* Runs the suite with each test in a process of its own, whatever CK_FORK says: tests that set
 * MERGEJIT_LIBCUDA or MERGEJIT_LIBNVRTC rely on it (the libraries are opened once per process). */
static inline int run_forked(Suite *s) {
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

#endif
