/* SPDX-License-Identifier: Apache-2.0 */
/* File helpers shared by the on-disk formats (cache entries, bundles, tuning files): error
 * messages, little-endian fields, whole reads and writes, atomic replacement and private
 * directories. Internal. */
#ifndef MJ_FILE_IO_H
#define MJ_FILE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mergejit.h"

/* printf into err (errcap bytes, always terminated); nothing when err is NULL or errcap 0. */
void mj__set_err(char *err, size_t errcap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static inline void mj__put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void mj__put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t mj__get_le32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline uint64_t mj__get_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Read up to n bytes, from the file position (read) or at offset (pread), retrying short
 * reads and EINTR. Return the count read (less than n only at end of file), or -1 with errno. */
ssize_t mj__read_full(int fd, void *buf, size_t n);
ssize_t mj__pread_full(int fd, void *buf, size_t n, uint64_t offset);

/* Writes all n bytes, retrying short writes and EINTR. Returns 0 or -1 with errno. */
int mj__write_all(int fd, const void *buf, size_t n);

/* The file readers and writers (tuning files, bundles) fail with -1 and a message for
 * anything about the file, and with MJ_IO_NO_MEMORY when host memory ran out; mj__io_status
 * gives the status for either. */
#define MJ_IO_NO_MEMORY (-2)
mj_status mj__io_status(int rc);

/* Test hook, never set by the library: when non-zero, mj__write_all writes half of what it is
 * given and then fails with this errno (e.g. ENOSPC, a disk that fills mid-write). Hidden from
 * the shared library's users; tests link the static library and set it. */
extern int mj__fault_write_errno;

/* Splits path into the directory that holds it ("." when it has none, "/" for the root) and
 * *base, its last component (a pointer into path). 0, or -1 with err ("the path names a
 * directory" for an empty last component, "the path is too long" when dir does not fit). */
int mj__path_split(const char *path, char *dir, size_t dircap, const char **base, char *err,
                   size_t errcap);

/* Reads the whole file at path into a buffer from mj__malloc that the caller frees (*data is
 * never NULL on success, even for an empty file). A regular file is read at its size, a pipe
 * or other stream to its end, a directory not at all. MJ_OK; else MJ_ERR_FILE (open, stat or
 * read failed), MJ_ERR_TOO_LARGE or MJ_ERR_HOST_MEMORY, with err ("cannot open 'PATH': ..."). */
mj_status mj__read_file(const char *path, void **data, size_t *size, char *err, size_t errcap);

/* A piece of a file's contents; size 0 writes nothing (data may then be NULL). */
typedef struct mj_span {
    const void *data;
    size_t size;
} mj_span;

/* Flags for mj__write_file_atomic. */
#define MJ_SYNC_FILE 1u /* fsync the temporary file before the rename */
#define MJ_SYNC_DIR 2u  /* after the rename, fsync dir too (best effort) */

/* Replaces path with the parts, written in order, so that readers see the old file or all of
 * the new one: writes them to a temporary file "<dir>/.<stem>.tmp.XXXXXX" (dir must be the
 * directory holding path, so that the rename is atomic; the leading dot keeps it from passing
 * for a finished file), sets its mode (mkostemp's 0600 is kept when mode is 0600), syncs as
 * flags say, closes it (some file systems report write errors only there) and renames it over
 * path. 0, or -1 with err naming the temporary file or dir, and no temporary file left. */
int mj__write_file_atomic(const char *path, const char *dir, const char *stem,
                          const mj_span *parts, size_t nparts, mode_t mode, unsigned flags,
                          char *err, size_t errcap);

/* Creates dir (and missing parents) with mode 0700, as mkdir -p does; an existing directory
 * (or a link to one) is fine. Returns 0 or -1 with err. For the cache directory and the tuning
 * file's; the messages say "cache directory" for both, as before this moved here. */
int mj__dir_ensure_private(const char *dir, char *err, size_t errcap);

/* Where the environment puts a file of ours: $var when set and not empty; else $xdg/xdg_tail
 * when $xdg is an absolute path (a relative one is ignored); else $HOME/home_tail. 0; or -1
 * with out emptied and err "no NAME path: none of VAR, XDG, HOME is set" or "the NAME path
 * (N bytes) does not fit in CAP bytes". For the cache directory and the tuning file. */
int mj__env_path(char *out, size_t cap, const char *var, const char *xdg, const char *xdg_tail,
                 const char *home_tail, const char *name, char *err, size_t errcap);

/* mj__write_file_atomic in two steps, for a caller that replaces several files together and
 * none unless all were written (the tool's sort: keys, then values). mj__file_stage writes and
 * syncs the temporary file as above and puts its path in tmp (tmpcap bytes); mj__file_commit
 * renames it over path and syncs dir as flags say. Each: 0, or -1 with err, and then no
 * temporary file is left. */
int mj__file_stage(const char *dir, const char *stem, const mj_span *parts, size_t nparts,
                   mode_t mode, unsigned flags, char *tmp, size_t tmpcap, char *err,
                   size_t errcap);
int mj__file_commit(const char *tmp, const char *path, const char *dir, unsigned flags,
                    char *err, size_t errcap);

#endif
