/* Whole-file reads and atomic writes (temporary file + fsync + rename). */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli.h"

/* Largest single read()/write(); Linux moves at most about 2 GiB per call anyway. */
#define FIO_CHUNK ((size_t)1 << 30)

int fio_read_all(const char *path, void **data, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        cli_error("cannot open '%s': %s", path, strerror(errno));
        return -1;
    }

    struct stat st;
    if (fstat(fd, &st) != 0) {
        cli_error("cannot stat '%s': %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        cli_error("cannot read '%s': %s", path, strerror(EISDIR));
        close(fd);
        return -1;
    }
    size_t cap = (size_t)1 << 20;
    if (S_ISREG(st.st_mode)) {
        if ((uintmax_t)st.st_size > (uintmax_t)SIZE_MAX) {
            cli_tool_error(MJ_ERR_TOO_LARGE, "'%s' is too large for this machine", path);
            close(fd);
            return -1;
        }
        cap = (size_t)st.st_size;
    }
    unsigned char *buf = malloc(cap > 0 ? cap : 1);
    if (buf == NULL) {
        cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate %zu bytes to read '%s'", cap, path);
        close(fd);
        return -1;
    }

    size_t used = 0;
    for (;;) {
        if (used == cap) {
            /* Full: probe for more before growing, so a regular file is read with one buffer. */
            unsigned char probe[4096];
            ssize_t r = read(fd, probe, sizeof probe);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                goto read_error;
            if (r == 0)
                break;
            size_t want = cap + (size_t)r;
            size_t newcap = cap < SIZE_MAX / 2 ? cap * 2 : SIZE_MAX;
            if (newcap < want)
                newcap = want + ((size_t)1 << 20);
            unsigned char *grown = realloc(buf, newcap);
            if (grown == NULL) {
                cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate %zu bytes to read '%s'",
                               newcap, path);
                free(buf);
                close(fd);
                return -1;
            }
            buf = grown;
            cap = newcap;
            memcpy(buf + used, probe, (size_t)r);
            used += (size_t)r;
            continue;
        }
        size_t chunk = cap - used < FIO_CHUNK ? cap - used : FIO_CHUNK;
        ssize_t r = read(fd, buf + used, chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            goto read_error;
        if (r == 0)
            break;
        used += (size_t)r;
    }
    close(fd);
    *data = buf;
    *size = used;
    return 0;

read_error:
    cli_error("cannot read '%s': %s", path, strerror(errno));
    free(buf);
    close(fd);
    return -1;
}

static int write_all(int fd, const void *data, size_t size)
{
    const unsigned char *p = data;
    while (size > 0) {
        size_t chunk = size < FIO_CHUNK ? size : FIO_CHUNK;
        ssize_t w = write(fd, p, chunk);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        size -= (size_t)w;
    }
    return 0;
}

int fio_stage(const char *path, const void *data, size_t size, fio_pending *pending)
{
    static const char tail[] = ".mergejit-XXXXXX";
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash != NULL ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dirlen;

    pending->tmp = NULL;
    pending->path = path;
    if (base[0] == '\0') {
        cli_error("cannot write '%s': %s", path, strerror(EISDIR));
        return -1;
    }

    size_t len = dirlen + 1 + strlen(base) + sizeof tail;
    char *tmp = malloc(len);
    if (tmp == NULL) {
        cli_tool_error(MJ_ERR_HOST_MEMORY, "out of host memory");
        return -1;
    }
    memcpy(tmp, path, dirlen);
    snprintf(tmp + dirlen, len - dirlen, ".%s%s", base, tail);

    int fd = mkstemp(tmp);
    if (fd < 0) {
        cli_error("cannot create a temporary file for '%s': %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    int err = 0;
    if (fchmod(fd, (mode_t)0666 & ~mask) != 0 || write_all(fd, data, size) != 0 ||
        fsync(fd) != 0)
        err = errno;
    if (close(fd) != 0 && err == 0)
        err = errno;
    if (err != 0) {
        cli_error("cannot write '%s': %s", tmp, strerror(err));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    pending->tmp = tmp;
    return 0;
}

/* Flushes the directory entry of `path` (best effort: some file systems refuse). */
static void sync_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    if (slash == NULL) {
        dir = malloc(2);
        if (dir != NULL)
            memcpy(dir, ".", 2);
    } else {
        size_t len = slash == path ? 1 : (size_t)(slash - path);
        dir = malloc(len + 1);
        if (dir != NULL) {
            memcpy(dir, path, len);
            dir[len] = '\0';
        }
    }
    if (dir == NULL)
        return;
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

int fio_commit(fio_pending *pending)
{
    if (pending->tmp == NULL)
        return -1;
    if (rename(pending->tmp, pending->path) != 0) {
        cli_error("cannot rename '%s' to '%s': %s", pending->tmp, pending->path,
                  strerror(errno));
        fio_discard(pending);
        return -1;
    }
    free(pending->tmp);
    pending->tmp = NULL;
    sync_parent(pending->path);
    return 0;
}

void fio_discard(fio_pending *pending)
{
    if (pending->tmp != NULL) {
        unlink(pending->tmp);
        free(pending->tmp);
        pending->tmp = NULL;
    }
}

int fio_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || lstat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
