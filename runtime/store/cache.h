/* SPDX-License-Identifier: Apache-2.0 */
/* The on-disk cache of compiled kernel binaries. Internal.
 *
 * An entry is one file, <dir>/<64 hex digits of the key>.mjc, holding a header (magic,
 * format version, the key, ptxas's register and spill figures, the payload's size and a
 * SHA-256) and the payload (a kernel pack, store/kernel_pack.h: a module's, or one kernel's
 * program's; core/loader.c keeps both, under keys of their sources).
 * Entries are written to a temporary file in the same directory and renamed into place, so
 * readers never see a partial entry and several processes may store the same key at once.
 * A read checks everything in the header against the file and the key it was asked for, and
 * that the file belongs to this user; any mismatch is reported as damaged, and the caller
 * rebuilds and stores over it. */
#ifndef MJ_CACHE_H
#define MJ_CACHE_H

#include <stddef.h>
#include <stdint.h>

typedef enum mj_cache_result {
    MJ_CACHE_HIT = 0,     /* *data and *size filled; free(*data) when done */
    MJ_CACHE_MISS = 1,    /* no entry for the key */
    MJ_CACHE_DAMAGED = 2, /* an entry exists but fails a check (truncated, flipped, foreign);
                             it has been removed */
    MJ_CACHE_ERROR = 3    /* I/O or memory error; err says what */
} mj_cache_result;

/* The default cache directory: $MERGEJIT_CACHE_DIR, else $XDG_CACHE_HOME/mergejit, else
 * $HOME/.cache/mergejit. Returns 0, or -1 when none can be formed (err says why). */
int mj__cache_default_dir(char *out, size_t cap, char *err, size_t errcap);

/* Refuses a cache directory that another user could write to: one owned by another user, or
 * writable by its group or everyone. A missing one is fine (it is created private). 0, or -1
 * with err explaining why. */
int mj__cache_check_dir(const char *dir, char *err, size_t errcap);

/* What ptxas reported when the entry was compiled (-1: unknown, e.g. PTX). */
typedef struct mj_cache_meta {
    int32_t registers;
    int64_t spill_bytes;
} mj_cache_meta;

/* On a hit, *meta (may be NULL) gets the entry's ptxas figures, and the entry's modification
 * time becomes now: the time of its last use, which mj__cache_prune_dir evicts by. */
mj_cache_result mj__cache_load(const char *dir, const uint8_t key[32], void **data,
                               size_t *size, mj_cache_meta *meta, char *err, size_t errcap);

/* Writes the entry atomically (temp file + rename) with its ptxas figures (meta NULL:
 * unknown). Returns 0 or -1 with err; on failure no partial file is left behind. */
int mj__cache_store(const char *dir, const uint8_t key[32], const void *data, size_t size,
                    const mj_cache_meta *meta, char *err, size_t errcap);

/* Removes every entry (and stale temporary file) of ours in dir; other files are left
 * alone. *removed may be NULL. Returns 0 or -1 with err. A missing dir is 0 removed. */
int mj__cache_clear_dir(const char *dir, size_t *removed, char *err, size_t errcap);

/* Counts entries and their bytes. A missing dir is 0/0. Returns 0 or -1 with err. */
int mj__cache_stats_dir(const char *dir, size_t *entries, uint64_t *bytes, char *err,
                        size_t errcap);

/* Removes the least recently used entries of dir (oldest modification time first: stored or
 * loaded) until their bytes are at most max_bytes. *removed (may be NULL) gets how many went,
 * *kept (may be NULL) the bytes of those left. Other files are left alone, temporary files
 * too (another process may be writing one). A missing dir is 0 removed. Returns 0 or -1 with
 * err. Several processes may prune at once: an entry already gone counts as removed by the
 * other. */
int mj__cache_prune_dir(const char *dir, uint64_t max_bytes, size_t *removed, uint64_t *kept,
                        char *err, size_t errcap);

/* 0 when an entry can be stored in dir: it is created (private) if missing, must be ours
 * (mj__cache_check_dir), and a file is created in it and removed. -1 with err. */
int mj__cache_check_writable(const char *dir, char *err, size_t errcap);

/* The cache's size cap: 1 GiB by default; MERGEJIT_CACHE_MAX changes it. */
#define MJ_CACHE_MAX_DEFAULT (1ull << 30)

/* The cap that `text` (MERGEJIT_CACHE_MAX's value; NULL: unset) asks for: bytes with an optional
 * K, M, G or T (KiB... accepted), powers of 1024; "0" is no cap (UINT64_MAX). 0, or -1 with
 * err for anything else. */
int mj__cache_max_bytes(const char *text, uint64_t *out, char *err, size_t errcap);

#endif
