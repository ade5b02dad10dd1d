/* SPDX-License-Identifier: Apache-2.0 */
/* Reading deployment bundle files: see bundle_file.h for the contract and bundle_layout.h for
 * the byte layout. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* PATH_MAX, O_CLOEXEC when built on its own */
#endif

#include "store/bundle_read.h"

#include "base/file_io.h"
#include "base/host_alloc.h"
#include "base/sha256.h"
#include "store/bundle_file.h"
#include "store/bundle_layout.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Two's complement by conversion through unsigned, which is well defined both ways round on
 * the platforms we build for (and implementation-defined, not undefined, elsewhere). */
static int32_t get_le32s(const uint8_t *p) { return (int32_t)mj__get_le32(p); }
static int64_t get_le64s(const uint8_t *p) { return (int64_t)mj__get_le64(p); }

/* Decodes record r into e, or says what is wrong with it (its payload's bounds and fields;
 * duplicates are checked over the whole index afterwards). */
static const char *get_record(const uint8_t *r, uint32_t version, uint64_t index_end,
                              uint64_t file_size, mj_bundle_entry *e)
{
    memset(e, 0, sizeof *e);
    memcpy(e->request, r + R_REQUEST, 32);
    memcpy(e->source_key, r + R_SOURCE, 32);
    memcpy(e->sha, r + R_SHA, 32);
    memcpy(e->label, r + R_LABEL, MJ_BUNDLE_LABEL_CAP);
    e->label[MJ_BUNDLE_LABEL_CAP - 1] = '\0';
    e->offset = mj__get_le64(r + R_OFFSET);
    e->size = mj__get_le64(r + R_SIZE);
    uint32_t sm = mj__get_le32(r + R_SM), primitive = mj__get_le32(r + R_PRIMITIVE),
             key = mj__get_le32(r + R_KEY);
    int32_t nt = get_le32s(r + R_NT), vt = get_le32s(r + R_VT), bs_nt = get_le32s(r + R_BS_NT);
    int64_t spill = get_le64s(r + R_SPILL);

    if (e->offset < index_end)
        return "has a payload that overlaps the header or index";
    if (e->offset > file_size || e->size > file_size - e->offset)
        return "has a payload that lies outside the file (truncated?)";
    if (sm > INT_MAX)
        return "has an impossible sm";
    if (primitive >= MJ_PRIMITIVE_COUNT)
        return "has an unknown primitive";
    if (key >= MJ_KEY_KIND_COUNT)
        return "has an unknown key kind";
    if (nt <= 0 || vt <= 0 || bs_nt <= 0)
        return "has a tile size (nt, vt, bs_nt) that is not positive";
#if LONG_MAX < INT64_MAX
    if (spill < LONG_MIN || spill > LONG_MAX)
        return "has a spill count too large for this process";
#endif
    /* Before format 3 the form byte was reserved: every entry was a cubin. */
    int has_form = version >= FORM_VERSION;
    if (has_form && r[R_FORM] > 1)
        return "has an unknown binary form (neither cubin nor PTX)";
    for (int i = has_form ? R_PAD : R_FORM; i < MJ_BUNDLE_RECORD; i++)
        if (r[i] != 0)
            return "has nonzero reserved bytes";
    e->ptx = has_form ? r[R_FORM] : 0;
    e->sm = (int)sm;
    e->primitive = (mj_primitive)primitive;
    e->key = (mj_key_kind)key;
    e->key_size = mj__get_le32(r + R_KEY_SIZE);
    e->value_size = mj__get_le32(r + R_VALUE_SIZE);
    e->nt = nt;
    e->vt = vt;
    e->bs_nt = bs_nt;
    e->registers = get_le32s(r + R_REGISTERS);
    e->spill_bytes = (long)spill;
    return NULL;
}

/* Printable ASCII, then only NULs: what a writer puts there. */
static int libver_ok(const uint8_t *p)
{
    int i = 0;
    while (i < H_LIBVER_CAP && p[i] >= 0x20 && p[i] < 0x7f)
        i++;
    if (i == 0)
        return 0;
    for (; i < H_LIBVER_CAP; i++)
        if (p[i] != 0)
            return 0;
    return 1;
}

/* The checks on an open file; fills out on success (entries malloc'd). */
static int read_index_fd(int fd, const char *path, mj_bundle_index *out, char *err,
                         size_t errcap)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        mj__set_err(err, errcap, "cannot stat %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        mj__set_err(err, errcap, "%s is not a mergejit bundle (not a regular file)", path);
        return -1;
    }
    uint64_t file_size = (uint64_t)st.st_size;
    uint8_t hdr[HEADER_SIZE];
    ssize_t got = mj__pread_full(fd, hdr, HEADER_SIZE, 0);
    if (got < 0) {
        mj__set_err(err, errcap, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    if (got < 8 || memcmp(hdr, MAGIC, 8) != 0) {
        mj__set_err(err, errcap, "%s is not a mergejit bundle", path);
        return -1;
    }
    if (got < HEADER_SIZE) {
        mj__set_err(err, errcap, "bundle %s is truncated (in the header)", path);
        return -1;
    }
    uint32_t version = mj__get_le32(hdr + H_VERSION);
    if (version < OLDEST_FORMAT_VERSION || version > FORMAT_VERSION) {
        mj__set_err(err, errcap, "%s is bundle format version %u; this library reads versions "
                                "%u to %u", path, (unsigned)version, OLDEST_FORMAT_VERSION,
                    FORMAT_VERSION);
        return -1;
    }
    if (!libver_ok(hdr + H_LIBVER)) {
        mj__set_err(err, errcap, "bundle %s: header is damaged (library version field)", path);
        return -1;
    }
    uint32_t count = mj__get_le32(hdr + H_COUNT);
    if (count > MAX_ENTRIES) {
        mj__set_err(err, errcap, "bundle %s: header is damaged (%u entries; at most %u)", path,
                    (unsigned)count, (unsigned)MAX_ENTRIES);
        return -1;
    }
    uint64_t index_end = HEADER_SIZE + (uint64_t)count * MJ_BUNDLE_RECORD;
    if (index_end > file_size) {
        mj__set_err(err, errcap, "bundle %s is truncated (its index of %u entries does not fit)",
                    path, (unsigned)count);
        return -1;
    }

    size_t index_len = (size_t)count * MJ_BUNDLE_RECORD;
    uint8_t *index = mj__malloc(index_len ? index_len : 1);
    mj_bundle_entry *entries = count ? mj__calloc(count, sizeof *entries) : NULL;
    const uint8_t **keys = mj__malloc((count ? count : 1) * sizeof *keys);
    int rc = -1;
    if (!index || (count && !entries) || !keys) {
        mj__set_err(err, errcap, "out of memory reading bundle %s", path);
        rc = MJ_IO_NO_MEMORY;
        goto done;
    }
    got = mj__pread_full(fd, index, index_len, HEADER_SIZE);
    if (got < 0) {
        mj__set_err(err, errcap, "cannot read %s: %s", path, strerror(errno));
        goto done;
    }
    if ((size_t)got < index_len) { /* shrank since fstat */
        mj__set_err(err, errcap, "bundle %s is truncated (in the index)", path);
        goto done;
    }
    uint8_t digest[32];
    mj__sha256_hash(index, index_len, digest);
    if (memcmp(digest, hdr + H_HASH, 32) != 0) {
        mj__set_err(err, errcap, "bundle %s: index is damaged (checksum mismatch)", path);
        goto done;
    }
    mj_bundle_target targets[MJ_BUNDLE_TARGETS_MAX];
    size_t target_count = 0;
    for (size_t i = 0; i < count; i++) {
        const char *bad = get_record(index + i * MJ_BUNDLE_RECORD, version, index_end,
                                     file_size, &entries[i]);
        mj_bundle_target t = {entries[i].sm, entries[i].ptx};
        if (!bad && mj__bundle_add_target(targets, &target_count, t) != 0)
            bad = "has a target beyond the most distinct targets (sm and form) a bundle may hold";
        if (bad) {
            mj__set_err(err, errcap, "bundle %s: entry %zu (%s) %s", path, i, entries[i].label,
                        bad);
            goto done;
        }
        keys[i] = entries[i].request;
    }
    size_t a = 0, b = 0;
    int dup = mj__bundle_find_duplicate(keys, count, &a, &b);
    if (dup < 0) {
        mj__set_err(err, errcap, "out of memory reading bundle %s", path);
        rc = MJ_IO_NO_MEMORY;
        goto done;
    }
    if (dup > 0) {
        mj__set_err(err, errcap,
                    "bundle %s: entries %zu (%s) and %zu (%s) have the same request key", path,
                    a, entries[a].label, b, entries[b].label);
        goto done;
    }
    memcpy(out->version, hdr + H_LIBVER, H_LIBVER_CAP);
    out->version[H_LIBVER_CAP] = '\0';
    out->entries = entries;
    out->count = count;
    memcpy(out->targets, targets, target_count * sizeof *targets);
    out->target_count = target_count;
    entries = NULL;
    rc = 0;
done:
    free(index);
    free(entries);
    free(keys);
    return rc;
}

int mj__bundle_read_index(const char *path, mj_bundle_index *out, char *err, size_t errcap)
{
    memset(out, 0, sizeof *out); /* so that mj__bundle_index_free is safe after a failure */
    /* O_NONBLOCK so that a FIFO at path cannot hang the open; regular files ignore it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        mj__set_err(err, errcap, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = read_index_fd(fd, path, out, err, errcap);
    close(fd);
    return rc;
}

int mj__bundle_read_payload(const char *path, const mj_bundle_entry *e, void **data, char *err,
                            size_t errcap)
{
    *data = NULL;
    size_t n = (size_t)e->size;
    if (n != e->size) {
        mj__set_err(err, errcap, "bundle %s: entry %s is too large for this process", path,
                    e->label);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        mj__set_err(err, errcap, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        mj__set_err(err, errcap, "cannot stat %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    uint64_t file_size = (uint64_t)st.st_size;
    if (!S_ISREG(st.st_mode) || e->offset > file_size || e->size > file_size - e->offset) {
        mj__set_err(err, errcap, "bundle %s: entry %s lies outside the file (changed since its "
                    "index was read?)", path, e->label);
        close(fd);
        return -1;
    }
    uint8_t *buf = mj__malloc(n ? n : 1); /* never NULL on success, even when empty */
    if (!buf) {
        mj__set_err(err, errcap, "out of memory reading entry %s of bundle %s", e->label, path);
        close(fd);
        return MJ_IO_NO_MEMORY;
    }
    ssize_t got = mj__pread_full(fd, buf, n, e->offset);
    int read_errno = errno;
    close(fd);
    if (got < 0) {
        mj__set_err(err, errcap, "cannot read %s: %s", path, strerror(read_errno));
        free(buf);
        return -1;
    }
    if ((size_t)got < n) { /* shrank since fstat */
        mj__set_err(err, errcap, "bundle %s: entry %s lies outside the file (changed since its "
                    "index was read?)", path, e->label);
        free(buf);
        return -1;
    }
    uint8_t digest[32];
    mj__sha256_hash(buf, n, digest);
    if (memcmp(digest, e->sha, 32) != 0) {
        mj__set_err(err, errcap, "bundle %s: entry %s is damaged (checksum mismatch)", path,
                    e->label);
        free(buf);
        return -1;
    }
    *data = buf;
    return 0;
}
