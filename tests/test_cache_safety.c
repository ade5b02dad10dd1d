/* SPDX-License-Identifier: Apache-2.0 */
/* Where the kernel cache refuses or fails (store/cache.h): directories other users could write
 * to and entries of another owner, a full disk, and stores that cannot complete, which leave no
 * temporary file behind. CPU only. */
#include <check.h>

#include "cache_support.h"
#include "base/file_io.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A cache another user could write to is refused; an entry owned by someone else is never
 * loaded (it is damaged, and rebuilt by the caller). */
START_TEST(unsafe_locations)
{
    char dir[PATH_MAX], sub[PATH_MAX + 16], err[512] = "";
    make_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(mj__cache_check_dir(dir, err, sizeof err), 0);
    snprintf(sub, sizeof sub, "%s/none", dir);
    ck_assert_int_eq(mj__cache_check_dir(sub, err, sizeof err), 0); /* created private later */
    ck_assert_int_eq(chmod(dir, 0777), 0);
    ck_assert_int_eq(mj__cache_check_dir(dir, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "writable by every user"));
    ck_assert_int_eq(chmod(dir, 0770), 0);
    ck_assert_int_eq(mj__cache_check_dir(dir, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "its group"));
    uint8_t key[32];
    key_of(key, "unsafe");
    ck_assert_int_eq(mj__cache_store(dir, key, "x", 1, NULL, err, sizeof err), -1);
    ck_assert_int_eq(chmod(dir, 0700), 0);
    ck_assert_int_eq(mj__cache_check_dir(dir, err, sizeof err), 0);
    char file[PATH_MAX + 16];
    snprintf(file, sizeof file, "%s/plain", dir);
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(mj__cache_check_dir(file, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a directory"));

    /* Ownership can only be given away by root; elsewhere that part cannot be set up. */
    store_ok(dir, key, "payload", 7);
    if (geteuid() == 0) {
        char entry[PATH_MAX + 80];
        entry_file(entry, sizeof entry, dir, key);
        ck_assert_int_eq(chown(entry, 12345, 12345), 0);
        void *data = NULL;
        size_t size = 0;
        ck_assert_int_eq(mj__cache_load(dir, key, &data, &size, NULL, err, sizeof err),
                         MJ_CACHE_DAMAGED);
        ck_assert_ptr_nonnull(strstr(err, "belongs to another user"));
        ck_assert_int_eq(chown(dir, 12345, 12345), 0);
        ck_assert_int_eq(mj__cache_check_dir(dir, err, sizeof err), -1);
        ck_assert_ptr_nonnull(strstr(err, "belongs to uid 12345"));
        ck_assert_int_eq(chown(dir, 0, 0), 0);
    }
}
END_TEST

/* A disk that fills mid-write: the store fails with the reason, leaves no temporary file and
 * no entry, and works again once there is room. */
START_TEST(full_disk)
{
    char dir[PATH_MAX], err[512] = "";
    make_tmpdir(dir, sizeof dir);
    uint8_t key[32];
    key_of(key, "full");
    uint8_t *payload = make_payload(100000, 7);
    mj__fault_write_errno = ENOSPC;
    ck_assert_int_eq(mj__cache_store(dir, key, payload, 100000, NULL, err, sizeof err), -1);
    mj__fault_write_errno = 0;
    ck_assert_msg(strstr(err, strerror(ENOSPC)) != NULL, "%s", err);
    int all, temps;
    count_names(dir, &all, &temps);
    ck_assert_int_eq(all, 0);
    void *data = NULL;
    size_t size = 0;
    ck_assert_int_eq(mj__cache_load(dir, key, &data, &size, NULL, err, sizeof err), MJ_CACHE_MISS);
    store_ok(dir, key, payload, 100000);
    assert_hit(dir, key, payload, 100000);
    free(payload);
}
END_TEST

/* ---------------------------------------------------------------- failures */

START_TEST(store_failures)
{
    char dir[PATH_MAX], path[PATH_MAX + 80], err[512];
    make_tmpdir(dir, sizeof dir);
    uint8_t key[32];
    key_of(key, "failures");
    static const char payload[] = "payload";

    /* The parent of the cache directory is a regular file. */
    char file[PATH_MAX + 16], below[PATH_MAX + 32];
    snprintf(file, sizeof file, "%s/plain", dir);
    mjt_write_file(file, "x", 1);
    snprintf(below, sizeof below, "%s/sub", file);
    err[0] = '\0';
    ck_assert_int_eq(mj__cache_store(below, key, payload, sizeof payload, NULL, err, sizeof err),
                     -1);
    ck_assert_msg(strstr(err, file) && strstr(err, "not a directory"), "message: %s", err);
    err[0] = '\0';
    ck_assert_int_eq(mj__dir_ensure_private(file, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "not a directory") != NULL, "message: %s", err);
    err[0] = '\0';
    ck_assert_int_eq(mj__dir_ensure_private("", err, sizeof err), -1);
    ck_assert_str_ne(err, "");
    ck_assert_int_eq(mj__dir_ensure_private(dir, err, sizeof err), 0);
    /* A NULL or empty err buffer is allowed. */
    ck_assert_int_eq(mj__dir_ensure_private(file, NULL, 0), -1);

    /* A read-only directory: root ignores the mode, so only others see the failure. */
    char ro[PATH_MAX + 16];
    snprintf(ro, sizeof ro, "%s/ro", dir);
    ck_assert_int_eq(mkdir(ro, 0500), 0);
    err[0] = '\0';
    int rc = mj__cache_store(ro, key, payload, sizeof payload, NULL, err, sizeof err);
    int all, temps;
    count_names(ro, &all, &temps);
    ck_assert_int_eq(temps, 0);
    if (geteuid() != 0) {
        ck_assert_int_eq(rc, -1);
        ck_assert_msg(strstr(err, ro) != NULL, "message does not name the directory: %s", err);
        ck_assert_int_eq(all, 0);
    } else {
        ck_assert_int_eq(rc, 0);
        ck_assert_int_eq(all, 1);
    }
    ck_assert_int_eq(chmod(ro, 0700), 0);

    /* The final rename fails (a non-empty directory holds the name): the temporary file must
     * not be left behind. This fails for root too. */
    char sub[PATH_MAX + 16];
    snprintf(sub, sizeof sub, "%s/busy", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    entry_file(path, sizeof path, sub, key);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    char inner[PATH_MAX + 96];
    snprintf(inner, sizeof inner, "%s/x", path);
    mjt_write_file(inner, "x", 1);
    err[0] = '\0';
    ck_assert_int_eq(mj__cache_store(sub, key, payload, sizeof payload, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, path) != NULL, "message does not name the entry: %s", err);
    count_names(sub, &all, &temps);
    ck_assert_int_eq(temps, 0);
    ck_assert_int_eq(all, 1);
}
END_TEST

static Suite *cache_safety_suite(void)
{
    Suite *s = suite_create("cache_safety");
    TCase *tc = tcase_create("cache");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, unsafe_locations);
    tcase_add_test(tc, full_disk);
    tcase_add_test(tc, store_failures);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_cache_suite(cache_safety_suite());
}
