/* SPDX-License-Identifier: Apache-2.0 */
/* The tuning file on disk (store/tuning_parse.h, store/tuning_write.h): reading missing, odd,
 * bad and foreign files; writing into missing, read-only and busy places and refusing tables
 * that would not read back, with no temporary file left; and the default path. CPU only. */
#include <check.h>

#include "test_support.h"
#include "tuning_support.h"
#include "store/tuning_file.h"
#include "store/tuning_parse.h"
#include "store/tuning_write.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */

static int path_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Names in dir apart from "." and ".."; *temps counts those that look like temporary files. */
static int count_names(const char *dir, int *temps)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "opendir %s: %s", dir, strerror(errno));
    int all = 0;
    *temps = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        all++;
        if (strstr(e->d_name, ".tmp."))
            (*temps)++;
    }
    closedir(d);
    return all;
}

/* ---------------------------------------------------------------- reading */

START_TEST(read_cases)
{
    char *dir = mjt_tmpdir(), path[PATH_MAX], err[512];
    mj_tuning t = {(mj_tuning_entry *)&t, 5, 5};

    /* Missing: 1, empty, and err says so. */
    snprintf(path, sizeof path, "%s/none", dir);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_read(path, &t, err, sizeof err), 1);
    ck_assert_ptr_null(t.entries);
    ck_assert_uint_eq(t.count, 0);
    ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
    snprintf(path, sizeof path, "%s/no/such/dir/tuning", dir);
    ck_assert_int_eq(mj__tuning_read(path, &t, err, sizeof err), 1);

    /* A directory, and a path through a regular file: errors, not "missing". */
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_read(dir, &t, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "not a regular file") != NULL, "message: %s", err);
    snprintf(path, sizeof path, "%s/plain", dir);
    mjt_write_file(path, "x", 1);
    snprintf(path, sizeof path, "%s/plain/tuning", dir);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_read(path, &t, err, sizeof err), -1);
    ck_assert_str_ne(err, "");

    /* A bad file names its path and line. */
    snprintf(path, sizeof path, "%s/bad", dir);
    static const char bad[] = "mergejit-tuning 1\r\ndevice 90 X\r\ntile merge 4 0 64 3 64 1\r\n"
                              "tile merge 4 0 64 3 32 1\r\n";
    mjt_write_file(path, bad, sizeof bad - 1);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_read(path, &t, err, sizeof err), -1);
    ck_assert_ptr_null(t.entries);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "tuning file %s, line 4: bs_nt 32", path);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "message: %s", err);

    /* Empty and foreign files on disk. */
    snprintf(path, sizeof path, "%s/empty", dir);
    mjt_write_file(path, "", 0);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_read(path, &t, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "is not a mergejit tuning file"));
    snprintf(path, sizeof path, "%s/binary", dir);
    static const unsigned char bin[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, '\n', 0};
    mjt_write_file(path, bin, sizeof bin);
    ck_assert_int_eq(mj__tuning_read(path, &t, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "is not a mergejit tuning file"));

    /* A good one. */
    snprintf(path, sizeof path, "%s/good", dir);
    static const char good[] = "mergejit-tuning 1\ndevice 90 X\ntile merge 4 0 64 3 64 1.25";
    mjt_write_file(path, good, sizeof good - 1);
    ck_assert_msg(mj__tuning_read(path, &t, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(t.count, 1);
    ck_assert(mj__tuning_find(&t, "X", 90, MJ_MERGE, 4, 0)->gkeys == 1.25);
    mj__tuning_free(&t);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* ---------------------------------------------------------------- writing */

START_TEST(write_cases)
{
    char *dir = mjt_tmpdir(), path[PATH_MAX], sub[PATH_MAX], err[512];
    mj_tuning t = {0}, back;
    fill_sample(&t);

    /* Missing parents are created, private. */
    snprintf(path, sizeof path, "%s/a/b/c/tuning", dir);
    ck_assert_msg(mj__tuning_write(path, &t, err, sizeof err) == 0, "write: %s", err);
    struct stat st;
    snprintf(sub, sizeof sub, "%s/a/b", dir);
    ck_assert_int_eq(stat(sub, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    ck_assert_int_eq(st.st_mode & 0777, 0700);
    ck_assert_int_eq(mj__tuning_read(path, &back, err, sizeof err), 0);
    assert_same_tuning(&back, &t);
    mj__tuning_free(&back);
    int temps;
    snprintf(sub, sizeof sub, "%s/a/b/c", dir);
    ck_assert_int_eq(count_names(sub, &temps), 1);
    ck_assert_int_eq(temps, 0);

    /* A relative path: the temporary file goes beside it. */
    char cwd[PATH_MAX];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(sub), 0);
    ck_assert_msg(mj__tuning_write("rel", &t, err, sizeof err) == 0, "write: %s", err);
    ck_assert_int_eq(chdir(cwd), 0);
    ck_assert_int_eq(count_names(sub, &temps), 2);
    ck_assert_int_eq(temps, 0);

    /* The parent is a regular file. */
    snprintf(sub, sizeof sub, "%s/plain", dir);
    mjt_write_file(sub, "x", 1);
    snprintf(path, sizeof path, "%s/plain/tuning", dir);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_write(path, &t, err, sizeof err), -1);
    ck_assert_msg(strstr(err, sub) && strstr(err, "not a directory"), "message: %s", err);

    /* The path is a non-empty directory: the rename fails (for root too), and the temporary
     * file is removed. */
    snprintf(sub, sizeof sub, "%s/busy", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    snprintf(path, sizeof path, "%s/busy/tuning", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    char inner[PATH_MAX + 8];
    snprintf(inner, sizeof inner, "%s/x", path);
    mjt_write_file(inner, "x", 1);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_write(path, &t, err, sizeof err), -1);
    ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
    ck_assert_int_eq(count_names(sub, &temps), 1);
    ck_assert_int_eq(temps, 0);
    /* A path that names a directory. */
    snprintf(path, sizeof path, "%s/busy/", dir);
    ck_assert_int_eq(mj__tuning_write(path, &t, err, sizeof err), -1);
    ck_assert_int_eq(mj__tuning_write("", &t, err, sizeof err), -1);

    /* A read-only directory: root ignores the mode, so only others see the failure. */
    snprintf(sub, sizeof sub, "%s/ro", dir);
    ck_assert_int_eq(mkdir(sub, 0500), 0);
    snprintf(path, sizeof path, "%s/ro/tuning", dir);
    err[0] = '\0';
    int rc = mj__tuning_write(path, &t, err, sizeof err);
    int all = count_names(sub, &temps);
    ck_assert_int_eq(temps, 0);
    if (geteuid() != 0) {
        ck_assert_int_eq(rc, -1);
        ck_assert_msg(strstr(err, sub) != NULL, "message: %s", err);
        ck_assert_int_eq(all, 0);
    } else {
        ck_assert_int_eq(rc, 0);
        ck_assert_int_eq(all, 1);
    }
    ck_assert_int_eq(chmod(sub, 0700), 0);

    /* Entries that would not read back are refused, and the old file stays as it was. */
    snprintf(path, sizeof path, "%s/keep", dir);
    ck_assert_int_eq(mj__tuning_write(path, &t, err, sizeof err), 0);
    char *before = mjt_read_file(path, NULL);
    static const struct {
        mj_tuning_entry e;
        const char *want;
    } refused[] = {
        {{"X", 90, MJ_MERGESORT, 4, 0, 256, 0, 512, 1, 0}, "vt 0 is out of range"},
        {{"X", 90, MJ_MERGESORT, 4, 0, 256, 23, 384, 1, 0}, "bs_nt 384"},
        {{"X", 90, MJ_MERGESORT, 0, 0, 256, 23, 512, 1, 0}, "key_size 0"},
        {{"X", 90, MJ_PRIMITIVE_COUNT, 4, 0, 256, 23, 512, 1, 0}, "primitive"},
        {{"X", 9, MJ_MERGESORT, 4, 0, 256, 23, 512, 1, 0}, "sm 9"},
        {{"X", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, -1, 0}, "gkeys"},
        {{"X", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, NAN, 0}, "gkeys"},
        {{"", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, 1, 0}, "empty"},
        {{"a\nb", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, 1, 0}, "control character"},
        {{" X", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, 1, 0}, "space"},
        {{"X ", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, 1, 0}, "space"},
        {{"X", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, 1, 63}, "merge4_log2 63"},
        {{"X", 90, MJ_MERGE, 4, 0, 256, 23, 256, 1, 25}, "for mergesort only"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        mj_tuning one = {0};
        set_ok(&one, entry("Y", 80, MJ_MERGE, 4, 0, 64, 3, 64, 1));
        ck_assert_int_eq(mj__tuning_set(&one, &refused[i].e), 0);
        err[0] = '\0';
        ck_assert_int_eq(mj__tuning_write(path, &one, err, sizeof err), -1);
        ck_assert_msg(strstr(err, refused[i].want) && strstr(err, path) && strstr(err, "entry 1"),
                      "case %zu: %s", i, err);
        mj__tuning_free(&one);
    }
    /* Nothing is created for a refused table. */
    char fresh[PATH_MAX + 16];
    snprintf(fresh, sizeof fresh, "%s/fresh/tuning", dir);
    ck_assert_int_eq(mj__tuning_write(fresh, &(mj_tuning){(mj_tuning_entry *)&refused[0].e, 1, 1},
                                      err, sizeof err),
                     -1);
    ck_assert(!path_exists(fresh));
    /* A table built by hand with a duplicate. */
    mj_tuning_entry two[2] = {entry("X", 90, MJ_MERGE, 4, 0, 64, 3, 64, 1),
                              entry("X", 90, MJ_MERGE, 4, 0, 128, 3, 128, 2)};
    mj_tuning dup = {two, 2, 2};
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_write(path, &dup, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "repeats") != NULL, "message: %s", err);
    char *after = mjt_read_file(path, NULL);
    ck_assert_str_eq(before, after);
    free(before);
    free(after);
    snprintf(sub, sizeof sub, "%s", dir);
    count_names(sub, &temps);
    ck_assert_int_eq(temps, 0);

    mj__tuning_free(&t);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* ---------------------------------------------------------------- the default path */

START_TEST(default_path_env)
{
    char out[PATH_MAX], err[512];
    setenv("MERGEJIT_TUNING", "/opt/mj/tuning.txt", 1);
    setenv("XDG_CONFIG_HOME", "/xdg", 1);
    setenv("HOME", "/home/someone", 1);
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/opt/mj/tuning.txt");

    setenv("MERGEJIT_TUNING", "relative/tuning", 1); /* taken as it is */
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "relative/tuning");

    setenv("MERGEJIT_TUNING", "", 1); /* empty counts as unset */
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/xdg/mergejit/tuning");

    unsetenv("MERGEJIT_TUNING");
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/xdg/mergejit/tuning");

    setenv("XDG_CONFIG_HOME", "relative/xdg", 1); /* not absolute: ignored */
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/home/someone/.config/mergejit/tuning");

    setenv("XDG_CONFIG_HOME", "", 1);
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/home/someone/.config/mergejit/tuning");

    /* Too small a buffer: -1, a message, and no partial path. */
    char small[20];
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_default_path(small, sizeof small, err, sizeof err), -1);
    ck_assert_str_ne(err, "");
    ck_assert_str_eq(small, "");
    /* Exactly fitting is fine. */
    char exact[sizeof "/home/someone/.config/mergejit/tuning"];
    ck_assert_int_eq(mj__tuning_default_path(exact, sizeof exact, err, sizeof err), 0);
    ck_assert_str_eq(exact, "/home/someone/.config/mergejit/tuning");

    unsetenv("XDG_CONFIG_HOME");
    setenv("HOME", "", 1);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), -1);
    ck_assert_str_ne(err, "");
    unsetenv("HOME");
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "MERGEJIT_TUNING"));
}
END_TEST

static Suite *tuning_files_suite(void)
{
    Suite *s = suite_create("tuning_files");
    TCase *tc = tcase_create("tuning_file");
    tcase_add_test(tc, read_cases);
    tcase_add_test(tc, write_cases);
    tcase_add_test(tc, default_path_env);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mjt_run(tuning_files_suite(), 1); /* forked: default_path_env changes the env */
}
