/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the libFuzzer targets: a private temporary directory per process (under
 * $MJ_FUZZ_TMPDIR, else /tmp), removed at exit (a crash leaves it behind for inspection), and
 * whole-file writes. */
#ifndef MJ_FUZZ_UTIL_H
#define MJ_FUZZ_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Stops the run with a message: libFuzzer saves the input as a crash. */
#define FUZZ_CHECK(cond, ...)                                                                  \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "fuzz check failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

static char fuzz_dir[PATH_MAX];
static char fuzz_files[4][PATH_MAX]; /* removed at exit, then the directory */

static inline void fuzz_cleanup(void)
{
    for (size_t i = 0; i < sizeof fuzz_files / sizeof *fuzz_files; i++)
        if (fuzz_files[i][0])
            unlink(fuzz_files[i]);
    if (fuzz_dir[0])
        rmdir(fuzz_dir);
}

/* The process's private directory (mode 0700), made on first use. */
static inline const char *fuzz_tmpdir(void)
{
    if (!fuzz_dir[0]) {
        const char *base = getenv("MJ_FUZZ_TMPDIR"); /* tools/fuzz-run: inside its build dir */
        int n = snprintf(fuzz_dir, sizeof fuzz_dir, "%s/mj-fuzz-XXXXXX",
                         base && *base ? base : "/tmp");
        if (n < 0 || (size_t)n >= sizeof fuzz_dir) {
            fprintf(stderr, "MJ_FUZZ_TMPDIR is too long\n");
            abort();
        }
        if (!mkdtemp(fuzz_dir)) {
            perror("mkdtemp");
            abort();
        }
        chmod(fuzz_dir, 0700);
        atexit(fuzz_cleanup);
    }
    return fuzz_dir;
}

/* <tmpdir>/<name>, remembered in slot for removal at exit. */
static inline const char *fuzz_path(int slot, const char *name)
{
    if (!fuzz_files[slot][0])
        snprintf(fuzz_files[slot], sizeof fuzz_files[slot], "%.3900s/%s", fuzz_tmpdir(), name);
    return fuzz_files[slot];
}

/* Replaces path's contents with data (mode 0600). */
static inline void fuzz_write_file(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        perror(path);
        abort();
    }
    const uint8_t *p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            perror(path);
            abort();
        }
        p += n;
        size -= (size_t)n;
    }
    close(fd);
}

#endif
