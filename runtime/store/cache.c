/* SPDX-License-Identifier: Apache-2.0 */
/* The on-disk cache of compiled kernel binaries: see cache.h for the contract.
 *
 * Entry layout, integers little-endian:
 *   0  char[8]   magic "MJCACHE1"
 *   8  uint32    format version (3)
 *  12  int32     ptxas's register count (-1 unknown)
 *  16  uint8[32] key
 *  48  uint64    payload size
 *  56  uint8[32] SHA-256 of the register count, the spill bytes and the payload, in that order
 *  88  int64     ptxas's spill bytes (-1 unknown)
 *  96  payload: the module's kernel pack (store/kernel_pack.h)
 * Older entries are reported as damaged and rebuilt: version 1 has no ptxas figures, and
 * version 2 holds one image of every kernel, compiled as one program. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* PATH_MAX, O_CLOEXEC/O_NOFOLLOW, unlinkat when built on its own */
#endif

#include "store/cache.h"

#include "base/file_io.h"
#include "base/sha256.h"
#include "base/host_alloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "MJCACHE1"
#define FORMAT_VERSION 3u
#define HEADER_SIZE 96
#define OFF_VERSION 8
#define OFF_REGISTERS 12
#define OFF_KEY 16
#define OFF_SIZE 48
#define OFF_HASH 56
#define OFF_SPILLS 88

/* True for exactly 64 lowercase hex digits at s (s may be shorter: the NUL stops it). */
static int is_hex64(const char *s)
{
    for (int i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

/* "<64 hex>.mjc": a finished entry. */
static int is_entry_name(const char *name)
{
    return is_hex64(name) && strcmp(name + 64, ".mjc") == 0;
}

/* ".<64 hex>.tmp.<anything>": a temporary file left by an interrupted store. */
static int is_temp_name(const char *name)
{
    return name[0] == '.' && is_hex64(name + 1) && strncmp(name + 65, ".tmp.", 5) == 0 &&
           name[70] != '\0';
}

static int entry_path(char *out, size_t cap, const char *dir, const uint8_t key[32],
                      char *err, size_t errcap)
{
    char hex[65];
    mj__sha256_hex(key, hex);
    int n = snprintf(out, cap, "%s/%s.mjc", dir, hex);
    if (n < 0 || (size_t)n >= cap) {
        mj__set_err(err, errcap, "cache directory path %s is too long", dir);
        return -1;
    }
    return 0;
}

/* Removes a damaged entry. When seen is given, only if path still names that file: another
 * process may have renamed a good entry over it since we opened it, and that one stays. */
static int remove_damaged(const char *path, const struct stat *seen)
{
    struct stat now;
    if (lstat(path, &now) != 0)
        return errno == ENOENT ? 0 : -1;
    if (seen && (now.st_dev != seen->st_dev || now.st_ino != seen->st_ino))
        return 0;
    int rc = S_ISDIR(now.st_mode) ? rmdir(path) : unlink(path);
    return rc == 0 || errno == ENOENT ? 0 : -1;
}

/* Reports a damaged entry: removes it and says what failed, and whether removal failed. */
static mj_cache_result damaged(const char *path, const struct stat *seen, const char *what,
                               char *err, size_t errcap)
{
    if (remove_damaged(path, seen) != 0)
        mj__set_err(err, errcap, "cache entry %s %s (and could not be removed: %s)", path, what,
                    strerror(errno));
    else
        mj__set_err(err, errcap, "cache entry %s %s", path, what);
    return MJ_CACHE_DAMAGED;
}

/* The entry's checksum: the ptxas figures are covered with the payload, so that a flipped
 * figure is caught like a flipped byte of code. */
static void entry_digest(const uint8_t *hdr, const void *payload, size_t n, uint8_t out[32])
{
    mj_sha256 h;
    mj__sha256_init(&h);
    mj__sha256_update(&h, hdr + OFF_REGISTERS, 4);
    mj__sha256_update(&h, hdr + OFF_SPILLS, 8);
    mj__sha256_update(&h, payload, n);
    mj__sha256_final(&h, out);
}

/* Checks a header against the key and the file's size; returns what is wrong, or NULL. */
static const char *check_header(const uint8_t *hdr, const uint8_t key[32], uint64_t file_size)
{
    if (memcmp(hdr, MAGIC, 8) != 0)
        return "has a bad magic number";
    if (mj__get_le32(hdr + OFF_VERSION) != FORMAT_VERSION)
        return "has an unsupported format version";
    if (memcmp(hdr + OFF_KEY, key, 32) != 0)
        return "belongs to another key";
    uint64_t payload = mj__get_le64(hdr + OFF_SIZE);
    if (file_size - HEADER_SIZE < payload)
        return "truncated";
    if (file_size - HEADER_SIZE > payload)
        return "has trailing bytes";
    return NULL;
}

/* Reads and checks an open entry. Returns HIT with *data and *size, ERROR with err, or DAMAGED
 * with *bad saying what is wrong (the caller removes the file). */
static mj_cache_result read_entry(int fd, const struct stat *st, const uint8_t key[32],
                                  const char *path, void **data, size_t *size,
                                  mj_cache_meta *meta, const char **bad, char *err,
                                  size_t errcap)
{
    if (!S_ISREG(st->st_mode)) {
        *bad = "is not a regular file";
        return MJ_CACHE_DAMAGED;
    }
    if (st->st_uid != geteuid()) { /* planted by someone else: never loaded */
        *bad = "belongs to another user";
        return MJ_CACHE_DAMAGED;
    }
    uint8_t hdr[HEADER_SIZE];
    ssize_t got = mj__read_full(fd, hdr, HEADER_SIZE);
    if (got < 0) {
        mj__set_err(err, errcap, "cannot read cache entry %s: %s", path, strerror(errno));
        return MJ_CACHE_ERROR;
    }
    if (got < HEADER_SIZE || (uint64_t)st->st_size < HEADER_SIZE) {
        *bad = "truncated";
        return MJ_CACHE_DAMAGED;
    }
    if ((*bad = check_header(hdr, key, (uint64_t)st->st_size)) != NULL)
        return MJ_CACHE_DAMAGED;

    uint64_t n64 = mj__get_le64(hdr + OFF_SIZE);
    size_t n = (size_t)n64;
    if (n != n64) {
        mj__set_err(err, errcap, "cache entry %s is too large for this process", path);
        return MJ_CACHE_ERROR;
    }
    uint8_t *payload = mj__malloc(n ? n : 1); /* never NULL on a hit, even when empty */
    if (!payload) {
        mj__set_err(err, errcap, "out of memory reading cache entry %s", path);
        return MJ_CACHE_ERROR;
    }
    got = mj__read_full(fd, payload, n);
    if (got < 0) {
        mj__set_err(err, errcap, "cannot read cache entry %s: %s", path, strerror(errno));
        free(payload);
        return MJ_CACHE_ERROR;
    }
    if ((size_t)got < n) { /* shrank since fstat */
        *bad = "truncated";
    } else {
        uint8_t digest[32];
        entry_digest(hdr, payload, n, digest);
        if (memcmp(digest, hdr + OFF_HASH, 32) != 0)
            *bad = "fails its checksum";
    }
    if (*bad) {
        free(payload);
        return MJ_CACHE_DAMAGED;
    }
    *data = payload;
    *size = n;
    if (meta) {
        meta->registers = (int32_t)mj__get_le32(hdr + OFF_REGISTERS);
        meta->spill_bytes = (int64_t)mj__get_le64(hdr + OFF_SPILLS);
    }
    return MJ_CACHE_HIT;
}

mj_cache_result mj__cache_load(const char *dir, const uint8_t key[32], void **data,
                               size_t *size, mj_cache_meta *meta, char *err, size_t errcap)
{
    char path[PATH_MAX];
    if (entry_path(path, sizeof path, dir, key, err, errcap) != 0)
        return MJ_CACHE_ERROR;

    /* O_NONBLOCK so that a FIFO planted under an entry's name cannot hang the open; it
     * changes nothing for regular files. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            return MJ_CACHE_MISS;
        if (errno == ELOOP) /* O_NOFOLLOW met a symbolic link */
            return damaged(path, NULL, "is a symbolic link", err, errcap);
        mj__set_err(err, errcap, "cannot open cache entry %s: %s", path, strerror(errno));
        return MJ_CACHE_ERROR;
    }
    struct stat st;
    const char *bad = NULL;
    mj_cache_result res;
    if (fstat(fd, &st) != 0) {
        mj__set_err(err, errcap, "cannot stat cache entry %s: %s", path, strerror(errno));
        res = MJ_CACHE_ERROR;
    } else {
        res = read_entry(fd, &st, key, path, data, size, meta, &bad, err, errcap);
    }
    /* A hit is a use: its modification time orders the entries for eviction (mj__cache_prune_dir;
     * access times are not kept on many mounts). A read-only cache just keeps the old time. */
    if (res == MJ_CACHE_HIT)
        (void)futimens(fd, NULL);
    close(fd);
    if (res == MJ_CACHE_DAMAGED)
        res = damaged(path, &st, bad, err, errcap);
    return res;
}

/* What a store needs of dir before it writes: created (private) when missing, and ours. The
 * writability probe takes the same step, so that it answers for a store. */
static int open_dir(const char *dir, char *err, size_t errcap)
{
    if (mj__dir_ensure_private(dir, err, errcap) != 0)
        return -1;
    return mj__cache_check_dir(dir, err, errcap);
}

int mj__cache_store(const char *dir, const uint8_t key[32], const void *data, size_t size,
                    const mj_cache_meta *meta, char *err, size_t errcap)
{
    if (open_dir(dir, err, errcap) != 0)
        return -1;
    char path[PATH_MAX];
    char hex[65];
    mj__sha256_hex(key, hex);
    if (entry_path(path, sizeof path, dir, key, err, errcap) != 0)
        return -1;
    uint8_t hdr[HEADER_SIZE];
    memcpy(hdr, MAGIC, 8);
    mj__put_le32(hdr + OFF_VERSION, FORMAT_VERSION);
    mj__put_le32(hdr + OFF_REGISTERS, (uint32_t)(meta ? meta->registers : -1));
    memcpy(hdr + OFF_KEY, key, 32);
    mj__put_le64(hdr + OFF_SIZE, size);
    mj__put_le64(hdr + OFF_SPILLS, (uint64_t)(meta ? meta->spill_bytes : -1));
    entry_digest(hdr, data, size, hdr + OFF_HASH);

    /* The temporary file is ".<hex>.tmp.XXXXXX" in dir, which is_temp_name recognizes. Mode
     * 0600 and no fsync: an entry is private, and one lost in a crash is only rebuilt. */
    const mj_span parts[] = {{hdr, sizeof hdr}, {data, size}};
    return mj__write_file_atomic(path, dir, hex, parts, 2, 0600, 0, err, errcap);
}

int mj__cache_check_dir(const char *dir, char *err, size_t errcap)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        mj__set_err(err, errcap, "cannot use cache directory %s: %s", dir, strerror(errno));
        return -1;
    }
    const char *why = "refused: another user could place kernels there that this process would "
                      "run; choose a private directory (MERGEJIT_CACHE_DIR)";
    if (!S_ISDIR(st.st_mode)) {
        mj__set_err(err, errcap, "cache directory %s is not a directory", dir);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        mj__set_err(err, errcap, "cache directory %s belongs to uid %u, not to this user (uid "
                                "%u): %s", dir, (unsigned)st.st_uid, (unsigned)geteuid(), why);
        return -1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        mj__set_err(err, errcap, "cache directory %s is writable by %s (mode %04o): %s, or "
                                "chmod go-w it", dir,
                    (st.st_mode & S_IWOTH) ? "every user" : "its group",
                    (unsigned)(st.st_mode & 07777), why);
        return -1;
    }
    return 0;
}

int mj__cache_default_dir(char *out, size_t cap, char *err, size_t errcap)
{
    return mj__env_path(out, cap, "MERGEJIT_CACHE_DIR", "XDG_CACHE_HOME", "mergejit",
                        ".cache/mergejit", "cache directory", err, errcap);
}

/* Opens dir for listing. Returns 1 with *d set, 0 when dir does not exist, -1 with err. */
static int open_listing(const char *dir, DIR **d, char *err, size_t errcap)
{
    *d = opendir(dir);
    if (*d)
        return 1;
    if (errno == ENOENT)
        return 0;
    mj__set_err(err, errcap, "cannot open cache directory %s: %s", dir, strerror(errno));
    return -1;
}

/* Ends a listing: readdir gives NULL both at the end and on error; errno tells them apart. */
static int close_listing(DIR *d, const char *dir, char *err, size_t errcap)
{
    int e = errno;
    closedir(d);
    if (e != 0) {
        mj__set_err(err, errcap, "cannot read cache directory %s: %s", dir, strerror(e));
        return -1;
    }
    return 0;
}

int mj__cache_clear_dir(const char *dir, size_t *removed, char *err, size_t errcap)
{
    size_t count = 0;
    if (removed)
        *removed = 0;
    DIR *d;
    int rc = open_listing(dir, &d, err, errcap);
    if (rc <= 0)
        return rc;
    struct dirent *ent;
    for (errno = 0; (ent = readdir(d)) != NULL; errno = 0) {
        if (!is_entry_name(ent->d_name) && !is_temp_name(ent->d_name))
            continue;
        if (unlinkat(dirfd(d), ent->d_name, 0) == 0)
            count++;
        else if (errno != ENOENT) { /* ENOENT: someone else removed it first */
            mj__set_err(err, errcap, "cannot remove %s/%s: %s", dir, ent->d_name, strerror(errno));
            closedir(d);
            if (removed)
                *removed = count;
            return -1;
        }
    }
    if (removed)
        *removed = count;
    return close_listing(d, dir, err, errcap);
}

/* Calls fn(arg, name, st, err, errcap) for each entry of ours in dir that is a regular file. A
 * missing dir lists nothing. fn returns 0 to go on, -1 to stop with err. 0, or -1 with err. */
static int list_entries(const char *dir,
                        int (*fn)(void *arg, const char *name, const struct stat *st, char *err,
                                  size_t errcap),
                        void *arg, char *err, size_t errcap)
{
    DIR *d;
    int rc = open_listing(dir, &d, err, errcap);
    if (rc <= 0)
        return rc;
    struct dirent *ent;
    for (errno = 0; (ent = readdir(d)) != NULL; errno = 0) {
        struct stat st;
        if (!is_entry_name(ent->d_name))
            continue;
        if (fstatat(dirfd(d), ent->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT) /* removed since it was listed */
                continue;
            mj__set_err(err, errcap, "cannot stat %s/%s: %s", dir, ent->d_name, strerror(errno));
            closedir(d);
            return -1;
        }
        if (S_ISREG(st.st_mode) && fn(arg, ent->d_name, &st, err, errcap) != 0) {
            closedir(d);
            return -1;
        }
    }
    return close_listing(d, dir, err, errcap);
}

typedef struct entry_totals {
    size_t count;
    uint64_t bytes;
} entry_totals;

static int add_to_totals(void *arg, const char *name, const struct stat *st, char *err,
                         size_t errcap)
{
    (void)name;
    (void)err;
    (void)errcap;
    entry_totals *t = arg;
    t->count++;
    t->bytes += (uint64_t)st->st_size;
    return 0;
}

int mj__cache_stats_dir(const char *dir, size_t *entries, uint64_t *bytes, char *err,
                        size_t errcap)
{
    entry_totals t = {0, 0};
    int rc = list_entries(dir, add_to_totals, &t, err, errcap);
    *entries = rc == 0 ? t.count : 0;
    *bytes = rc == 0 ? t.bytes : 0;
    return rc;
}

/* An entry met while pruning: its name, size and last use. */
typedef struct prune_entry {
    char name[72];
    uint64_t bytes;
    struct timespec used;
} prune_entry;

typedef struct prune_list {
    prune_entry *at;
    size_t count, cap;
    uint64_t bytes;
} prune_list;

static int add_to_list(void *arg, const char *name, const struct stat *st, char *err,
                       size_t errcap)
{
    prune_list *l = arg;
    if (l->count == l->cap) {
        size_t grown = l->cap ? 2 * l->cap : 64;
        prune_entry *more = mj__realloc(l->at, grown * sizeof *l->at);
        if (!more) {
            mj__set_err(err, errcap, "out of host memory while listing the cache");
            return -1;
        }
        l->at = more;
        l->cap = grown;
    }
    prune_entry *e = &l->at[l->count++];
    memcpy(e->name, name, strlen(name) + 1); /* is_entry_name: 68 characters */
    e->bytes = (uint64_t)st->st_size;
    e->used = st->st_mtim;
    l->bytes += e->bytes;
    return 0;
}

static int older_first(const void *x, const void *y)
{
    const prune_entry *a = x, *b = y;
    if (a->used.tv_sec != b->used.tv_sec)
        return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
    if (a->used.tv_nsec != b->used.tv_nsec)
        return a->used.tv_nsec < b->used.tv_nsec ? -1 : 1;
    return strcmp(a->name, b->name); /* the same order in every process */
}

int mj__cache_prune_dir(const char *dir, uint64_t max_bytes, size_t *removed, uint64_t *kept,
                        char *err, size_t errcap)
{
    prune_list l = {NULL, 0, 0, 0};
    size_t gone = 0;
    int rc = list_entries(dir, add_to_list, &l, err, errcap);
    if (rc == 0 && l.bytes > max_bytes) {
        qsort(l.at, l.count, sizeof *l.at, older_first);
        for (size_t i = 0; i < l.count && l.bytes > max_bytes; i++) {
            char path[PATH_MAX];
            if (snprintf(path, sizeof path, "%s/%s", dir, l.at[i].name) >= (int)sizeof path)
                continue;
            if (unlink(path) == 0) {
                gone++;
                l.bytes -= l.at[i].bytes;
            } else if (errno == ENOENT) { /* another process pruned it first */
                l.bytes -= l.at[i].bytes;
            } else {
                mj__set_err(err, errcap, "cannot remove %s: %s", path, strerror(errno));
                rc = -1;
            }
        }
    }
    free(l.at);
    if (removed)
        *removed = gone;
    if (kept)
        *kept = rc == 0 ? l.bytes : 0;
    return rc;
}

int mj__cache_max_bytes(const char *text, uint64_t *out, char *err, size_t errcap)
{
    if (!text) {
        *out = MJ_CACHE_MAX_DEFAULT;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = text[0] >= '0' && text[0] <= '9' ? strtoull(text, &end, 10) : 0;
    int shift = 0;
    if (end && *end) {
        static const char units[] = "KMGT";
        char c = end[0] >= 'a' && end[0] <= 'z' ? (char)(end[0] - 'a' + 'A') : end[0];
        const char *u = strchr(units, c);
        shift = u ? 10 * (int)(u - units + 1) : -1;
        end += shift > 0;
        if (*end == 'i' && end[1] == 'B') /* "KiB": the same powers of 1024 */
            end += 2;
        else if (*end == 'B')
            end += 1;
    }
    if (!end || end == text || *end || errno || shift < 0 || (shift && v > (~0ull >> shift))) {
        mj__set_err(err, errcap, "MERGEJIT_CACHE_MAX=\"%s\" is not a size: bytes, optionally "
                                 "with K, M, G or T (powers of 1024), e.g. 2G; 0 for no limit",
                    text);
        return -1;
    }
    *out = v ? (uint64_t)v << shift : UINT64_MAX;
    return 0;
}

int mj__cache_check_writable(const char *dir, char *err, size_t errcap)
{
    /* Tried, not guessed from permissions: root passes access(2) on directories it cannot
     * write (a read-only mount, /proc). The probe is named as an interrupted store's
     * temporary file, which clear removes should it ever be left. */
    if (open_dir(dir, err, errcap) != 0)
        return -1;
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/.%064d.tmp.XXXXXX", dir, 0) >= (int)sizeof path) {
        mj__set_err(err, errcap, "cache directory path too long: %s", dir);
        return -1;
    }
    int fd = mkstemp(path);
    if (fd < 0) {
        mj__set_err(err, errcap, "cache directory %s cannot be written: %s", dir, strerror(errno));
        return -1;
    }
    close(fd);
    unlink(path);
    return 0;
}
