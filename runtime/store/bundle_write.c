/* SPDX-License-Identifier: Apache-2.0 */
/* Writing deployment bundle files: see bundle_file.h for the contract and bundle_layout.h for
 * the byte layout. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* PATH_MAX when built on its own */
#endif

#include "store/bundle_write.h"

#include "base/file_io.h"
#include "base/host_alloc.h"
#include "base/sha256.h"
#include "store/bundle_file.h"
#include "store/bundle_layout.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What is wrong with an entry the writer was given, or NULL. */
static const char *check_entry_in(const mj_bundle_entry *e)
{
    if (memchr(e->label, '\0', MJ_BUNDLE_LABEL_CAP) == NULL)
        return "has a label that is not NUL-terminated";
    if (e->size > 0 && !e->payload)
        return "has no payload";
    if (e->sm < 0)
        return "has a negative sm";
    if (e->ptx != 0 && e->ptx != 1)
        return "has an unknown binary form (ptx is neither 0 nor 1)";
    if ((unsigned)e->primitive >= MJ_PRIMITIVE_COUNT)
        return "has an unknown primitive";
    if ((unsigned)e->key >= MJ_KEY_KIND_COUNT)
        return "has an unknown key kind";
    if (e->key_size > UINT32_MAX || e->value_size > UINT32_MAX)
        return "has a key or value size too large for the format";
    if (e->nt <= 0 || e->vt <= 0 || e->bs_nt <= 0)
        return "has a tile size (nt, vt, bs_nt) that is not positive";
    if ((size_t)e->size != e->size)
        return "has a payload too large for this process";
    return NULL;
}

static void put_record(uint8_t *r, const mj_bundle_entry *e, uint64_t offset,
                       const uint8_t sha[32])
{
    memset(r, 0, MJ_BUNDLE_RECORD);
    memcpy(r + R_REQUEST, e->request, 32);
    memcpy(r + R_SOURCE, e->source_key, 32);
    memcpy(r + R_SHA, sha, 32);
    mj__put_le64(r + R_OFFSET, offset);
    mj__put_le64(r + R_SIZE, e->size);
    mj__put_le32(r + R_SM, (uint32_t)e->sm);
    mj__put_le32(r + R_PRIMITIVE, (uint32_t)e->primitive);
    mj__put_le32(r + R_KEY, (uint32_t)e->key);
    mj__put_le32(r + R_KEY_SIZE, (uint32_t)e->key_size);
    mj__put_le32(r + R_VALUE_SIZE, (uint32_t)e->value_size);
    mj__put_le32(r + R_NT, (uint32_t)e->nt);
    mj__put_le32(r + R_VT, (uint32_t)e->vt);
    mj__put_le32(r + R_BS_NT, (uint32_t)e->bs_nt);
    mj__put_le32(r + R_REGISTERS, (uint32_t)(int32_t)e->registers);
    mj__put_le64(r + R_SPILL, (uint64_t)(int64_t)e->spill_bytes);
    r[R_FORM] = (uint8_t)e->ptx;
    /* Only up to the NUL, so whatever follows it in the caller's buffer stays out. */
    memcpy(r + R_LABEL, e->label, strlen(e->label));
}

/* The header and index, with offsets and hashes filled in; malloc'd, *n bytes. */
static uint8_t *build_index(const mj_bundle_entry *entries, size_t count, size_t *n)
{
    size_t len = HEADER_SIZE + count * MJ_BUNDLE_RECORD;
    uint8_t *buf = mj__calloc(1, len);
    if (!buf)
        return NULL;
    memcpy(buf, MAGIC, 8);
    mj__put_le32(buf + H_VERSION, FORMAT_VERSION);
    mj__put_le32(buf + H_COUNT, (uint32_t)count);
    memcpy(buf + H_LIBVER, MJ_VERSION_STRING, sizeof MJ_VERSION_STRING - 1);
    uint64_t pos = len;
    for (size_t i = 0; i < count; i++) {
        const mj_bundle_entry *e = &entries[i];
        uint8_t sha[32];
        mj__sha256_hash(e->payload, (size_t)e->size, sha);
        put_record(buf + HEADER_SIZE + i * MJ_BUNDLE_RECORD, e, pos, sha);
        pos += e->size;
        pos = (pos + PAYLOAD_ALIGN - 1) / PAYLOAD_ALIGN * PAYLOAD_ALIGN;
    }
    mj__sha256_hash(buf + HEADER_SIZE, count * MJ_BUNDLE_RECORD, buf + H_HASH);
    *n = len;
    return buf;
}

/* The file's contents as spans: the index, then each payload, with zero padding between
 * payloads only (the file ends with the last one). malloc'd, *n spans; NULL when out of
 * memory. */
static mj_span *body_spans(const uint8_t *index, size_t index_len,
                           const mj_bundle_entry *entries, size_t count, size_t *n)
{
    static const uint8_t zeros[PAYLOAD_ALIGN];
    mj_span *parts = mj__malloc((2 * count + 1) * sizeof *parts);
    if (!parts)
        return NULL;
    size_t k = 0;
    parts[k++] = (mj_span){index, index_len};
    for (size_t i = 0; i < count; i++) {
        size_t size = (size_t)entries[i].size;
        size_t pad = (PAYLOAD_ALIGN - size % PAYLOAD_ALIGN) % PAYLOAD_ALIGN;
        parts[k++] = (mj_span){entries[i].payload, size};
        if (i + 1 < count)
            parts[k++] = (mj_span){zeros, pad};
    }
    *n = k;
    return parts;
}

int mj__bundle_write_file(const char *path, const mj_bundle_entry *entries, size_t count,
                          char *err, size_t errcap)
{
    if (!path || !*path) {
        mj__set_err(err, errcap, "the bundle path is empty");
        return -1;
    }
    if (count > 0 && !entries) {
        mj__set_err(err, errcap, "cannot write bundle %s: no entries given", path);
        return -1;
    }
    if (count > MAX_ENTRIES) {
        mj__set_err(err, errcap, "cannot write bundle %s: %zu entries (at most %u)", path, count,
                    (unsigned)MAX_ENTRIES);
        return -1;
    }
    mj_bundle_target targets[MJ_BUNDLE_TARGETS_MAX];
    size_t target_count = 0;
    for (size_t i = 0; i < count; i++) {
        const char *bad = check_entry_in(&entries[i]);
        mj_bundle_target t = {entries[i].sm, entries[i].ptx};
        if (!bad && mj__bundle_add_target(targets, &target_count, t) != 0)
            bad = "has a target beyond the most distinct targets (sm and form) a bundle may hold";
        if (bad) {
            mj__set_err(err, errcap, "cannot write bundle %s: entry %zu %s", path, i, bad);
            return -1;
        }
    }
    const uint8_t **keys = mj__malloc((count ? count : 1) * sizeof *keys);
    if (!keys) {
        mj__set_err(err, errcap, "out of memory writing bundle %s", path);
        return MJ_IO_NO_MEMORY;
    }
    for (size_t i = 0; i < count; i++)
        keys[i] = entries[i].request;
    size_t a = 0, b = 0;
    int dup = mj__bundle_find_duplicate(keys, count, &a, &b);
    free(keys);
    if (dup < 0) {
        mj__set_err(err, errcap, "out of memory writing bundle %s", path);
        return MJ_IO_NO_MEMORY;
    }
    if (dup > 0) {
        mj__set_err(err, errcap,
                    "cannot write bundle %s: entries %zu (%s) and %zu (%s) have the same "
                    "request key",
                    path, a, entries[a].label, b, entries[b].label);
        return -1;
    }

    char dir[PATH_MAX], why[2 * PATH_MAX + 128];
    const char *base;
    if (mj__path_split(path, dir, sizeof dir, &base, why, sizeof why) != 0) {
        mj__set_err(err, errcap, "cannot write bundle %s: %s", path, why);
        return -1;
    }
    size_t index_len = 0, nparts = 0;
    uint8_t *index = build_index(entries, count, &index_len);
    mj_span *parts = index ? body_spans(index, index_len, entries, count, &nparts) : NULL;
    if (!parts) {
        mj__set_err(err, errcap, "out of memory writing bundle %s", path);
        free(index);
        return MJ_IO_NO_MEMORY;
    }
    /* The temporary file ".<name>.tmp.XXXXXX" beside path does not pass for a bundle. Mode
     * 0644, set whatever the umask; fsync before the rename, so that a crash leaves the old
     * bundle or all the new, and of the directory after it. */
    int rc = mj__write_file_atomic(path, dir, base, parts, nparts, 0644,
                                   MJ_SYNC_FILE | MJ_SYNC_DIR, why, sizeof why);
    free(parts);
    free(index);
    if (rc != 0)
        mj__set_err(err, errcap, "cannot write bundle %s: %s", path, why);
    return rc;
}
