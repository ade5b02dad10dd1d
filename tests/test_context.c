/* Contexts and the module/cache path without a GPU: the clean "no driver" path, compile-only
 * contexts building sorters from NVRTC, memory and disk (damaged entries rebuilt), two
 * processes sharing a cache directory, argument and compile errors, a machine without NVRTC,
 * names of statuses and key kinds, and the mergejit tool's exit statuses.
 *
 * Tests that set MERGEJIT_LIBCUDA or MERGEJIT_LIBNVRTC rely on running in their own process
 * (the libraries are opened once per process), so main always forks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file_io.h"
#include "test_support.h"

#define HEADER_SIZE 96 /* a cache entry's header, as laid out in runtime/cache.c */
#define NO_LIB "/nonexistent/mergejit-test/libmissing.so.1"

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

static off_t file_size(const char *path) {
    struct stat st;
    ck_assert_msg(stat(path, &st) == 0, "stat %s: %s", path, strerror(errno));
    return st.st_size;
}

static void flip_byte(const char *path, off_t at) {
    int fd = open(path, O_RDWR);
    ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
    unsigned char c;
    ck_assert_int_eq(pread(fd, &c, 1, at), 1);
    c ^= 0x5a;
    ck_assert_int_eq(pwrite(fd, &c, 1, at), 1);
    ck_assert_int_eq(close(fd), 0);
}

static mj_sort_desc u32_desc(void) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    return d;
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

/* ---------------------------------------------------------------- no driver */

START_TEST(no_driver)
{
    /* Before anything loads the driver: this test runs in its own process. */
    ck_assert_int_eq(setenv("MERGEJIT_LIBCUDA", NO_LIB, 1), 0);
    mj_context *ctx = NULL;
    mj_status st = mj_context_create(NULL, &ctx);
    ck_assert_msg(st == MJ_ERR_NO_DRIVER, "got %s", mj_status_name(st));
    ck_assert_ptr_nonnull(ctx);
    const char *msg = mj_context_last_error(ctx);
    ck_assert_msg(strstr(msg, NO_LIB) != NULL, "the message does not name the library: %s",
                  msg);
    ck_assert_str_eq(mj_context_device_name(ctx), "");
    mj_context_destroy(ctx);
    ck_assert_int_eq(mj_driver_version(), 0);

    /* Options given explicitly: the same. */
    mj_context_options o;
    mj_context_options_init(&o);
    ck_assert_int_eq(o.target_sm, 90);
    ck_assert_int_eq(o.device, 0);
    o.flags = MJ_CONTEXT_NO_DISK_CACHE;
    ctx = NULL;
    ck_assert_int_eq(mj_context_create(&o, &ctx), MJ_ERR_NO_DRIVER);
    ck_assert_ptr_nonnull(ctx);
    ck_assert_str_ne(mj_context_last_error(ctx), "");
    mj_context_destroy(ctx);

    ck_assert_int_eq(mj_context_create(NULL, NULL), MJ_ERR_INVALID_ARGUMENT);
    mj_context_destroy(NULL);
    ck_assert_str_ne(mj_context_last_error(NULL), "");
}
END_TEST

/* ---------------------------------------------------------------- compile, memory, disk */

START_TEST(cache_path)
{
    char *dir = mjt_tmpdir();
    mj_sort_desc desc = u32_desc();

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
    ck_assert_uint_eq(entries, 1);
    ck_assert_uint_gt(bytes, HEADER_SIZE);
    mj_sorter_destroy(a);
    mj_sorter_destroy(b);
    mj_context_destroy(ctx);

    /* A new context finds it on disk, much faster than the compile. */
    double disk_ms = 0;
    ck_assert_int_eq(build_in_new_context(dir, &desc, &disk_ms), 1);
    ck_assert_msg(disk_ms * 5 < compile_ms, "loading from disk took %.1f ms, compiling %.1f ms",
                  disk_ms, compile_ms);

    int n_entries, n_temps;
    char entry[4096];
    scan_dir(dir, &n_entries, &n_temps, entry, sizeof entry);
    ck_assert_int_eq(n_entries, 1);
    ck_assert_int_eq(n_temps, 0);
    off_t size = file_size(entry);
    ck_assert_int_eq((uint64_t)size, bytes);

    /* A flipped payload byte: rebuilt, and the entry is good afterwards. */
    flip_byte(entry, HEADER_SIZE + (size - HEADER_SIZE) / 2);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 0);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 1);
    scan_dir(dir, &n_entries, &n_temps, entry, sizeof entry);
    ck_assert_int_eq(n_entries, 1);
    ck_assert_int_eq(n_temps, 0);
    ck_assert_int_eq(file_size(entry), size);

    /* Truncated: the same. */
    ck_assert_int_eq(truncate(entry, size / 2), 0);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 0);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 1);
    ck_assert_int_eq(file_size(entry), size);

    /* Clearing removes it. */
    ctx = mjt_compile_context(90, dir);
    size_t removed = 99;
    ck_assert_int_eq(mj_cache_clear(ctx, &removed), MJ_OK);
    ck_assert_uint_eq(removed, 1);
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
    mj__fault_write_errno = ENOSPC;
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 0);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 0);
    mj__fault_write_errno = 0;
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 0);
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 1);
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
        ck_assert_uint_eq(removed, round == 0 ? 0 : 1);
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
        ck_assert_int_eq(n_entries, 1);
        ck_assert_int_eq(n_temps, 0);
    }
    mj_sort_desc desc = u32_desc();
    ck_assert_int_eq(build_in_new_context(dir, &desc, NULL), 1);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* ---------------------------------------------------------------- errors */

START_TEST(compile_only_cannot_sort)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc desc = u32_desc();
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &desc, &s), MJ_OK);
    size_t temp = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, 1000, 0, &temp), MJ_OK);
    ck_assert_uint_ge(temp, 1000 * 4);
    void *fake = (void *)(uintptr_t)0x100000;
    mj_status st = mj_sorter_sort(s, fake, NULL, 1000, NULL, 0, NULL);
    ck_assert_msg(st == MJ_ERR_UNSUPPORTED, "got %s", mj_status_name(st));
    ck_assert_str_ne(mj_context_last_error(ctx), "");
    ck_assert_msg(strstr(mj_context_last_error(ctx), "compile-only") != NULL, "message: %s",
                  mj_context_last_error(ctx));
    mj_sorter_destroy(s);

    desc.value_size = 4;
    ck_assert_int_eq(mj_sorter_create(ctx, &desc, &s), MJ_OK);
    st = mj_sorter_sort_indices(s, fake, fake, 1000, NULL, 0, NULL);
    ck_assert_msg(st == MJ_ERR_UNSUPPORTED, "got %s", mj_status_name(st));
    mj_sorter_destroy(s);

    st = mj_sort_keys(ctx, &desc, fake, 1000, NULL);
    ck_assert_msg(st == MJ_ERR_UNSUPPORTED, "mj_sort_keys: got %s", mj_status_name(st));
    ck_assert_str_ne(mj_context_last_error(ctx), "");
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* Sorters of the other primitives build without a GPU; each run function takes only its own
 * primitive, and the merge and segment arguments are checked before anything else. */
static void expect_status(mj_context *ctx, mj_status st, mj_status want, const char *needle,
                          const char *what) {
    ck_assert_msg(st == want, "%s: expected %s, got %s (%s)", what, mj_status_name(want),
                  mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_msg(mj_context_last_error(ctx)[0] != '\0', "%s: no message", what);
    if (needle)
        ck_assert_msg(strstr(mj_context_last_error(ctx), needle) != NULL,
                      "%s: '%s' is not in the message: %s", what, needle,
                      mj_context_last_error(ctx));
}

START_TEST(primitives_without_gpu)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    void *fake = (void *)(uintptr_t)0x100000;
    mj_sorter *s[MJ_PRIMITIVE_COUNT];
    for (int p = 0; p < MJ_PRIMITIVE_COUNT; ++p) {
        mj_sort_desc desc = u32_desc();
        desc.primitive = (mj_primitive)p;
        mj_status st = mj_sorter_create(ctx, &desc, &s[p]);
        ck_assert_msg(st == MJ_OK, "%s: %s: %s", mj_primitive_name((mj_primitive)p),
                      mj_status_name(st), mj_context_last_error(ctx));
        size_t temp = 0;
        ck_assert_int_eq(mj_sorter_temp_size(s[p], 100000, 0, &temp), MJ_OK);
        ck_assert_uint_gt(temp, 0);
    }
    mj_segments segs = {MJ_SEGMENTS_HEADS, fake, 10, 4};
    /* Each run function refuses the other primitives' sorters, naming the primitive. */
    expect_status(ctx, mj_sorter_sort(s[MJ_MERGE], fake, NULL, 10, NULL, 0, NULL),
                  MJ_ERR_INVALID_ARGUMENT, "merge", "sort with a merge sorter");
    expect_status(ctx, mj_sorter_sort(s[MJ_SEGMENTED_SORT], fake, NULL, 10, NULL, 0, NULL),
                  MJ_ERR_INVALID_ARGUMENT, "segsort", "sort with a segsort sorter");
    expect_status(ctx, mj_sorter_sort_indices(s[MJ_LOCALITY_SORT], fake, fake, 10, NULL, 0, NULL),
                  MJ_ERR_INVALID_ARGUMENT, "locality", "indices with a locality sorter");
    expect_status(ctx, mj_sorter_merge(s[MJ_MERGESORT], fake, NULL, 5, fake, NULL, 5, fake, NULL,
                                       NULL, 0, NULL),
                  MJ_ERR_INVALID_ARGUMENT, "mergesort", "merge with a mergesort sorter");
    expect_status(ctx, mj_sorter_segmented_sort(s[MJ_MERGE], fake, NULL, 10, &segs, NULL, 0,
                                                NULL),
                  MJ_ERR_INVALID_ARGUMENT, "merge", "segmented sort with a merge sorter");
    /* Argument checks come before the missing device. */
    expect_status(ctx, mj_sorter_merge(s[MJ_MERGE], fake, NULL, SIZE_MAX, fake, NULL, 1, fake,
                                       NULL, NULL, 0, NULL),
                  MJ_ERR_TOO_LARGE, NULL, "a_count + b_count overflowing");
    expect_status(ctx, mj_sorter_merge(s[MJ_MERGE], fake, fake, 5, fake, fake, 5, fake, fake,
                                       NULL, 0, NULL),
                  MJ_ERR_INVALID_ARGUMENT, "value_size 0", "values to a keys-only merge");
    expect_status(ctx, mj_sorter_segmented_sort(s[MJ_SEGMENTED_SORT], fake, NULL, 10, NULL,
                                                NULL, 0, NULL),
                  MJ_ERR_INVALID_ARGUMENT, "segments", "no segments");
    mj_segments bad = segs;
    bad.index_size = 2;
    expect_status(ctx, mj_sorter_segmented_sort(s[MJ_SEGMENTED_SORT], fake, NULL, 10, &bad, NULL,
                                                0, NULL),
                  MJ_ERR_INVALID_ARGUMENT, "4 or 8", "2-byte indices");
    bad = segs;
    bad.kind = (mj_segments_kind)7;
    expect_status(ctx, mj_sorter_segmented_sort(s[MJ_SEGMENTED_SORT], fake, NULL, 10, &bad, NULL,
                                                0, NULL),
                  MJ_ERR_INVALID_ARGUMENT, "kind", "unknown kind");
    bad = segs;
    bad.data = NULL;
    expect_status(ctx, mj_sorter_segmented_sort(s[MJ_SEGMENTED_SORT], fake, NULL, 10, &bad, NULL,
                                                0, NULL),
                  MJ_ERR_INVALID_ARGUMENT, "NULL", "NULL segment data");
    expect_status(ctx, mj_sorter_segmented_sort(s[MJ_SEGMENTED_SORT], fake, NULL, 10, &segs,
                                                NULL, 0, NULL),
                  MJ_ERR_UNSUPPORTED, "compile-only", "a valid call without a device");
    expect_status(ctx, mj_sorter_sort(s[MJ_LOCALITY_SORT], fake, NULL, 10, NULL, 0, NULL),
                  MJ_ERR_UNSUPPORTED, "compile-only", "locality sort without a device");
    mj_sort_desc desc = u32_desc();
    expect_status(ctx, mj_merge_pairs(ctx, &desc, fake, fake, 5, fake, fake, 5, fake, fake, 0,
                                      NULL),
                  MJ_ERR_INVALID_ARGUMENT, "value_size", "mj_merge_pairs without values");
    expect_status(ctx, mj_segmented_sort_keys(ctx, &desc, fake, 10, &segs, NULL),
                  MJ_ERR_UNSUPPORTED, "compile-only", "mj_segmented_sort_keys");
    desc.primitive = MJ_MERGE;
    expect_status(ctx, mj_sort_keys(ctx, &desc, fake, 10, NULL), MJ_ERR_INVALID_ARGUMENT,
                  "merge", "mj_sort_keys with the merge primitive");
    desc.primitive = (mj_primitive)99;
    mj_sorter *none = NULL;
    expect_status(ctx, mj_sorter_create(ctx, &desc, &none), MJ_ERR_INVALID_ARGUMENT,
                  "primitive", "an unknown primitive");
    for (int p = 0; p < MJ_PRIMITIVE_COUNT; ++p) mj_sorter_destroy(s[p]);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* mj_sorter_create(desc) must fail with `want` and a message holding `needle` (may be NULL). */
static void create_fails(mj_context *ctx, const mj_sort_desc *desc, mj_status want,
                         const char *needle, const char *what) {
    mj_sorter *s = (mj_sorter *)1;
    expect_status(ctx, mj_sorter_create(ctx, desc, &s), want, needle, what);
    ck_assert_msg(s == NULL, "%s: *out is not NULL after a failure", what);
}

START_TEST(invalid_descriptors)
{
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc d = u32_desc();
    d.value_size = 65;
    create_fails(ctx, &d, MJ_ERR_INVALID_ARGUMENT, "65", "value_size 65");

    mj_sort_desc_init(&d, MJ_KEY_CUSTOM, MJ_ASCENDING);
    d.type_name = "rec";
    d.type_source = "struct rec { int a, b; };";
    d.type_size = 8;
    d.type_align = 4;
    create_fails(ctx, &d, MJ_ERR_INVALID_ARGUMENT, "less", "custom without less");
    d.less = "a.a < b.a";
    d.type_source = NULL;
    create_fails(ctx, &d, MJ_ERR_INVALID_ARGUMENT, NULL, "custom without type_source");

    d = u32_desc();
    d.key = MJ_KEY_KIND_COUNT;
    create_fails(ctx, &d, MJ_ERR_INVALID_ARGUMENT, NULL, "unknown key kind");
    d = u32_desc();
    d.less = "a < b; }";
    create_fails(ctx, &d, MJ_ERR_INVALID_ARGUMENT, NULL, "comparator with ';'");

    d = u32_desc();
    d.less = "a < < b";
    create_fails(ctx, &d, MJ_ERR_COMPILE, "comparator", "comparator syntax error");

    /* The custom type works once it is complete, and the context is still usable. */
    mj_sort_desc_init(&d, MJ_KEY_CUSTOM, MJ_ASCENDING);
    d.type_name = "rec";
    d.type_source = "struct rec { int a, b; };";
    d.type_size = 8;
    d.type_align = 4;
    d.less = "a.a < b.a || (a.a == b.a && a.b < b.b)";
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, &d, &s);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    mj_sorter_destroy(s);

    mj_sorter *out = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, NULL, &out), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_sorter_create(NULL, &d, &out), MJ_ERR_INVALID_ARGUMENT);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(no_compiler)
{
    ck_assert_int_eq(setenv("MERGEJIT_LIBNVRTC", NO_LIB, 1), 0);
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc d = u32_desc();
    create_fails(ctx, &d, MJ_ERR_NO_COMPILER, NO_LIB, "no NVRTC");
    ck_assert_int_eq(mj_nvrtc_version(), 0);
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* ---------------------------------------------------------------- names */

START_TEST(names)
{
    const char *names[MJ_ERR_TOO_LARGE + 1];
    for (int s = MJ_OK; s <= MJ_ERR_TOO_LARGE; ++s) {
        names[s] = mj_status_name((mj_status)s);
        ck_assert_ptr_nonnull(names[s]);
        ck_assert_msg(strncmp(names[s], "MJ_", 3) == 0, "status %d: %s", s, names[s]);
        for (int t = 0; t < s; ++t)
            ck_assert_msg(strcmp(names[s], names[t]) != 0, "statuses %d and %d share %s", t, s,
                          names[s]);
    }
    ck_assert_str_eq(mj_status_name(MJ_OK), "MJ_OK");
    ck_assert_str_eq(mj_status_name(MJ_ERR_COMPILE), "MJ_ERR_COMPILE");
    ck_assert_ptr_nonnull(mj_status_name((mj_status)99));

    static const size_t sizes[MJ_KEY_KIND_COUNT] = {
        [MJ_KEY_U8] = 1,  [MJ_KEY_I8] = 1,  [MJ_KEY_U16] = 2,  [MJ_KEY_I16] = 2,
        [MJ_KEY_U32] = 4, [MJ_KEY_I32] = 4, [MJ_KEY_U64] = 8,  [MJ_KEY_I64] = 8,
        [MJ_KEY_F16] = 2, [MJ_KEY_BF16] = 2, [MJ_KEY_F32] = 4, [MJ_KEY_F64] = 8,
        [MJ_KEY_CUSTOM] = 0,
    };
    for (int k = 0; k < MJ_KEY_KIND_COUNT; ++k) {
        const char *name = mj_key_kind_name((mj_key_kind)k);
        ck_assert_ptr_nonnull(name);
        ck_assert_int_eq(mj_key_kind_parse(name), k);
        ck_assert_msg(mj_key_kind_size((mj_key_kind)k) == sizes[k], "%s: size %zu", name,
                      mj_key_kind_size((mj_key_kind)k));
        for (int j = 0; j < k; ++j) ck_assert_str_ne(name, mj_key_kind_name((mj_key_kind)j));
    }
    ck_assert_str_eq(mj_key_kind_name(MJ_KEY_U32), "u32");
    ck_assert_str_eq(mj_key_kind_name(MJ_KEY_BF16), "bf16");
    ck_assert_ptr_null(mj_key_kind_name(MJ_KEY_KIND_COUNT));
    ck_assert_int_eq(mj_key_kind_parse("u128"), MJ_KEY_KIND_COUNT);
    ck_assert_int_eq(mj_key_kind_parse("U32"), MJ_KEY_KIND_COUNT);
    ck_assert_int_eq(mj_key_kind_parse(""), MJ_KEY_KIND_COUNT);
    ck_assert_int_eq(mj_key_kind_parse(NULL), MJ_KEY_KIND_COUNT);
    ck_assert_uint_eq(mj_key_kind_size(MJ_KEY_KIND_COUNT), 0);

    ck_assert_str_eq(mj_version(), MJ_VERSION_STRING);
    mj_sort_desc d;
    memset(&d, 0x55, sizeof d);
    mj_sort_desc_init(&d, MJ_KEY_F64, MJ_DESCENDING);
    ck_assert_int_eq(d.key, MJ_KEY_F64);
    ck_assert_int_eq(d.order, MJ_DESCENDING);
    ck_assert_ptr_null(d.less);
    ck_assert_ptr_null(d.type_name);
    ck_assert_uint_eq(d.value_size, 0);
}
END_TEST

/* ---------------------------------------------------------------- the tool */

static int count_lines_with(const char *text, const char *needle) {
    int n = 0;
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *copy = strndup(line, len);
        ck_assert_ptr_nonnull(copy);
        n += strstr(copy, needle) != NULL;
        free(copy);
        line += len + (nl != NULL);
    }
    return n;
}

START_TEST(tool)
{
    static const char *const help[] = {"--help", NULL};
    mjt_tool_run r = mjt_run_tool(help, NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(strstr(r.out, "Usage") != NULL, "--help printed:\n%s", r.out);
    mjt_tool_run_free(&r);

    static const char *const demo_help[] = {"demo", "--help", NULL};
    r = mjt_run_tool(demo_help, NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert(strstr(r.out, "Usage: mergejit demo") != NULL);
    mjt_tool_run_free(&r);

    /* No GPU: the demo says so on one line, builds for the target and succeeds. */
    char *cache = mjt_tmpdir();
    char cache_env[4200];
    snprintf(cache_env, sizeof cache_env, "MERGEJIT_CACHE_DIR=%s", cache);
    const char *const env[] = {"MERGEJIT_LIBCUDA=/nonexistent", cache_env, NULL};
    static const char *const demo[] = {"demo", "--n", "1000", NULL};
    r = mjt_run_tool(demo, env);
    ck_assert_msg(r.status == 0, "demo exited %d:\n%s\n%s", r.status, r.out, r.err);
    ck_assert_msg(count_lines_with(r.out, "no GPU") == 1, "demo printed:\n%s", r.out);
    ck_assert_msg(count_lines_with(r.out, "/nonexistent") == 1, "demo printed:\n%s", r.out);
    mjt_tool_run_free(&r);
    mjt_rmtree(cache);
    free(cache);

    /* Bad command lines exit 2 with a message. */
    static const char *const bad_demo[] = {"demo", "--no-such-option", NULL};
    r = mjt_run_tool(bad_demo, NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert(strstr(r.err, "--no-such-option") != NULL);
    mjt_tool_run_free(&r);
    static const char *const bad_top[] = {"--no-such-option", NULL};
    r = mjt_run_tool(bad_top, NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_str_ne(r.err, "");
    mjt_tool_run_free(&r);
    static const char *const bad_cmd[] = {"no-such-command", NULL};
    r = mjt_run_tool(bad_cmd, NULL);
    ck_assert_int_eq(r.status, 2);
    mjt_tool_run_free(&r);
}
END_TEST

static Suite *context_suite(void) {
    Suite *s = suite_create("context");
    TCase *tc = tcase_create("context");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, no_driver);
    tcase_add_test(tc, cache_path);
    tcase_add_test(tc, full_disk);
    tcase_add_test(tc, no_disk_cache);
    tcase_add_test(tc, two_processes);
    tcase_add_test(tc, compile_only_cannot_sort);
    tcase_add_test(tc, primitives_without_gpu);
    tcase_add_test(tc, invalid_descriptors);
    tcase_add_test(tc, no_compiler);
    tcase_add_test(tc, names);
    tcase_add_test(tc, tool);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(context_suite());
    /* The MERGEJIT_LIB* tests need a process each, whatever CK_FORK says. */
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
