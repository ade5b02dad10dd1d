/* SPDX-License-Identifier: Apache-2.0 */
/* File helpers shared by the on-disk formats: see file_io.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkostemp, pread, PATH_MAX, O_CLOEXEC/O_DIRECTORY when built on its own */
#endif

#include "base/file_io.h"
#include "base/host_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* At most this much per read or write call: Linux moves at most about 2 GiB per call. */
#define IO_CHUNK ((size_t)1 << 30)

void mj__set_err(char *err, size_t errcap, const char *fmt, ...)
{
    if (!err || errcap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errcap, fmt, ap);
    va_end(ap);
}

/* mj__read_full, or mj__pread_full when positional. */
static ssize_t read_loop(int fd, void *buf, size_t n, int positional, uint64_t offset)
{
    size_t done = 0;
    while (done < n) {
        size_t chunk = n - done < IO_CHUNK ? n - done : IO_CHUNK;
        char *p = (char *)buf + done;
        ssize_t r = positional ? pread(fd, p, chunk, (off_t)(offset + done))
                               : read(fd, p, chunk);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        done += (size_t)r;
    }
    return (ssize_t)done;
}

ssize_t mj__read_full(int fd, void *buf, size_t n)
{
    return read_loop(fd, buf, n, 0, 0);
}

ssize_t mj__pread_full(int fd, void *buf, size_t n, uint64_t offset)
{
    return read_loop(fd, buf, n, 1, offset);
}

mj_status mj__io_status(int rc)
{
    return rc == MJ_IO_NO_MEMORY ? MJ_ERR_HOST_MEMORY : MJ_ERR_FILE;
}

int mj__fault_write_errno;

static int write_loop(int fd, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        size_t chunk = n - done < IO_CHUNK ? n - done : IO_CHUNK;
        ssize_t w = write(fd, (const char *)buf + done, chunk);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        done += (size_t)w;
    }
    return 0;
}

int mj__write_all(int fd, const void *buf, size_t n)
{
    int fault = mj__fault_write_errno;
    if (!fault)
        return write_loop(fd, buf, n);
    if (write_loop(fd, buf, n / 2) == 0)
        errno = fault;
    return -1;
}

int mj__path_split(const char *path, char *dir, size_t dircap, const char **base, char *err,
                   size_t errcap)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    if (!**base) {
        mj__set_err(err, errcap, "the path names a directory");
        return -1;
    }
    int n;
    if (!slash)
        n = snprintf(dir, dircap, ".");
    else if (slash == path)
        n = snprintf(dir, dircap, "/");
    else
        n = snprintf(dir, dircap, "%.*s", (int)(slash - path), path);
    if (n < 0 || (size_t)n >= dircap) {
        mj__set_err(err, errcap, "the path is too long");
        return -1;
    }
    return 0;
}

mj_status mj__read_file(const char *path, void **data, size_t *size, char *err, size_t errcap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC); /* blocking: a pipe is read to its end */
    if (fd < 0) {
        mj__set_err(err, errcap, "cannot open '%s': %s", path, strerror(errno));
        return MJ_ERR_FILE;
    }
    mj_status rc = MJ_ERR_FILE;
    unsigned char *buf = NULL;
    size_t cap = (size_t)1 << 20, used = 0; /* a stream starts with 1 MiB */
    struct stat st;
    if (fstat(fd, &st) != 0) {
        mj__set_err(err, errcap, "cannot stat '%s': %s", path, strerror(errno));
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        goto read_error;
    }
    if (S_ISREG(st.st_mode)) {
        if ((uintmax_t)st.st_size > (uintmax_t)SIZE_MAX) {
            mj__set_err(err, errcap, "'%s' is too large for this machine", path);
            rc = MJ_ERR_TOO_LARGE;
            goto fail;
        }
        cap = (size_t)st.st_size;
    }
    if (!(buf = mj__malloc(cap ? cap : 1))) {
        mj__set_err(err, errcap, "cannot allocate %zu bytes to read '%s'", cap, path);
        rc = MJ_ERR_HOST_MEMORY;
        goto fail;
    }
    for (;;) {
        ssize_t got = mj__read_full(fd, buf + used, cap - used);
        if (got < 0)
            goto read_error;
        used += (size_t)got;
        if (used < cap)
            break; /* end of file */
        /* Full: probe for more before growing, so that a regular file needs one buffer. */
        unsigned char probe[4096];
        if ((got = mj__read_full(fd, probe, sizeof probe)) < 0)
            goto read_error;
        if (got == 0)
            break;
        size_t want = cap + (size_t)got;
        size_t newcap = cap < SIZE_MAX / 2 ? cap * 2 : SIZE_MAX;
        if (newcap < want)
            newcap = want + ((size_t)1 << 20);
        unsigned char *grown = mj__realloc(buf, newcap);
        if (!grown) {
            mj__set_err(err, errcap, "cannot allocate %zu bytes to read '%s'", newcap, path);
            rc = MJ_ERR_HOST_MEMORY;
            goto fail;
        }
        buf = grown;
        cap = newcap;
        memcpy(buf + used, probe, (size_t)got);
        used += (size_t)got;
    }
    close(fd);
    *data = buf;
    *size = used;
    return MJ_OK;

read_error:
    mj__set_err(err, errcap, "cannot read '%s': %s", path, strerror(errno));
fail:
    free(buf);
    close(fd);
    return rc;
}

int mj__file_stage(const char *dir, const char *stem, const mj_span *parts, size_t nparts,
                   mode_t mode, unsigned flags, char *tmp, size_t tmpcap, char *err,
                   size_t errcap)
{
    int n = snprintf(tmp, tmpcap, "%s/.%s.tmp.XXXXXX", dir, stem);
    if (n < 0 || (size_t)n >= tmpcap) {
        mj__set_err(err, errcap, "cannot create a temporary file in %s: its path is too long",
                    dir);
        return -1;
    }
    int fd = mkostemp(tmp, O_CLOEXEC); /* mode 0600 */
    if (fd < 0) {
        mj__set_err(err, errcap, "cannot create a temporary file in %s: %s", dir,
                    strerror(errno));
        return -1;
    }
    const char *step = NULL;
    for (size_t i = 0; i < nparts && !step; i++)
        if (mj__write_all(fd, parts[i].data, parts[i].size) != 0)
            step = "write";
    if (!step && mode != 0600 && fchmod(fd, mode) != 0)
        step = "chmod";
    if (!step && (flags & MJ_SYNC_FILE) && fsync(fd) != 0)
        step = "fsync";
    int e = step ? errno : 0;
    if (close(fd) != 0 && !step) { /* some file systems report write errors only here */
        e = errno;
        step = "write";
    }
    if (step) {
        mj__set_err(err, errcap, "cannot %s %s: %s", step, tmp, strerror(e));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int mj__file_commit(const char *tmp, const char *path, const char *dir, unsigned flags,
                    char *err, size_t errcap)
{
    if (rename(tmp, path) != 0) {
        mj__set_err(err, errcap, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (flags & MJ_SYNC_DIR) {
        /* Makes the rename itself durable. Best effort: the file is in place already, and
         * some file systems refuse fsync on a directory. */
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
    }
    return 0;
}

/* mkdir for one path component; an existing directory (or a link to one) is fine. */
static int make_one_dir(const char *path, char *err, size_t errcap)
{
    if (mkdir(path, 0700) == 0)
        return 0;
    int e = errno;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return 0;
        mj__set_err(err, errcap, "%s exists and is not a directory", path);
        return -1;
    }
    if (e == EEXIST) /* e.g. a dangling symbolic link */
        mj__set_err(err, errcap, "%s exists and is not a directory", path);
    else
        mj__set_err(err, errcap, "cannot create directory %s: %s", path, strerror(e));
    return -1;
}

int mj__dir_ensure_private(const char *dir, char *err, size_t errcap)
{
    struct stat st;
    if (!dir || !*dir) {
        mj__set_err(err, errcap, "the cache directory path is empty");
        return -1;
    }
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) /* the usual case, one system call */
        return 0;
    size_t len = strlen(dir);
    char buf[PATH_MAX];
    if (len >= sizeof buf) {
        mj__set_err(err, errcap, "cache directory path %s is too long", dir);
        return -1;
    }
    memcpy(buf, dir, len + 1);
    /* Create each prefix in turn, as mkdir -p does; empty components ("a//b", a trailing
     * slash, the root) are skipped. */
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (p[-1] != '/' && make_one_dir(buf, err, errcap) != 0)
            return -1;
        if (c == '\0')
            return 0;
        *p = c;
    }
}

int mj__write_file_atomic(const char *path, const char *dir, const char *stem,
                          const mj_span *parts, size_t nparts, mode_t mode, unsigned flags,
                          char *err, size_t errcap)
{
    char tmp[PATH_MAX];
    if (mj__file_stage(dir, stem, parts, nparts, mode, flags, tmp, sizeof tmp, err, errcap) != 0)
        return -1;
    return mj__file_commit(tmp, path, dir, flags, err, errcap);
}

int mj__env_path(char *out, size_t cap, const char *var, const char *xdg, const char *xdg_tail,
                 const char *home_tail, const char *name, char *err, size_t errcap)
{
    const char *v;
    int n;
    if ((v = getenv(var)) != NULL && *v)
        n = snprintf(out, cap, "%s", v);
    else if ((v = getenv(xdg)) != NULL && v[0] == '/')
        n = snprintf(out, cap, "%s/%s", v, xdg_tail);
    else if ((v = getenv("HOME")) != NULL && *v)
        n = snprintf(out, cap, "%s/%s", v, home_tail);
    else {
        mj__set_err(err, errcap, "no %s path: none of %s, %s, HOME is set", name, var, xdg);
        if (cap > 0)
            out[0] = '\0';
        return -1;
    }
    if (n >= 0 && (size_t)n < cap)
        return 0;
    mj__set_err(err, errcap, "the %s path (%d bytes) does not fit in %zu bytes", name, n, cap);
    if (cap > 0)
        out[0] = '\0';
    return -1;
}
