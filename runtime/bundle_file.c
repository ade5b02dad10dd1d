/* Deployment bundle files: see bundle_file.h for the contract and the header layout.
 *
 * Record layout, MJ_BUNDLE_RECORD (256) bytes, integers little-endian:
 *    0  uint8[32] request key
 *   32  uint8[32] source key
 *   64  uint8[32] SHA-256 of the payload
 *   96  uint64    payload offset (from the start of the file)
 *  104  uint64    payload size
 *  112  uint32    sm
 *  116  uint32    primitive (mj_primitive)
 *  120  uint32    key kind (mj_key_kind)
 *  124  uint32    key size
 *  128  uint32    value size
 *  132  int32     nt
 *  136  int32     vt
 *  140  int32     bs_nt
 *  144  int32     registers (-1 unknown)
 *  148  int64     spill bytes (-1 unknown)
 *  156  char[96]  label, NUL-padded (the writer always leaves a NUL; the reader terminates it
 *                 anyway)
 *  252  uint8[4]  zero
 *
 * The index (all records, in the order given to the writer) starts at byte 64. The payloads
 * follow it in the same order, each at the next multiple of 16 with zero bytes between. The
 * header's index hash is SHA-256 over the records' bytes, exactly as the header describes.
 *
 * The library-version field (header bytes 16..31) is outside that hash; the reader requires
 * it to be printable ASCII followed only by NULs, so that damage there is caught in most
 * cases and never reaches a message as raw bytes. A change that keeps it printable (say
 * "0.1.0" to "1.1.0") goes unnoticed, which is harmless: it is only shown to people.
 *
 * The writer refuses what the reader would refuse (duplicate request keys, fields out of
 * range), so a file it writes always reads back. The file is created with mode 0644: a bundle
 * is shipped to be read by other users, unlike the cache's private entries. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* PATH_MAX, O_CLOEXEC when built on its own */
#endif

#include "bundle_file.h"

#include "file_io.h"
#include "sha256.h"
#include "host_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "MJBUNDLE"
#define FORMAT_VERSION 1u
#define HEADER_SIZE 64
#define MJ_BUNDLE_RECORD 256
#define MAX_ENTRIES ((uint32_t)1 << 20)
#define PAYLOAD_ALIGN 16

/* Header fields. */
#define H_VERSION 8
#define H_COUNT 12
#define H_LIBVER 16
#define H_LIBVER_CAP 16
#define H_HASH 32

/* Record fields. */
#define R_REQUEST 0
#define R_SOURCE 32
#define R_SHA 64
#define R_OFFSET 96
#define R_SIZE 104
#define R_SM 112
#define R_PRIMITIVE 116
#define R_KEY 120
#define R_KEY_SIZE 124
#define R_VALUE_SIZE 128
#define R_NT 132
#define R_VT 136
#define R_BS_NT 140
#define R_REGISTERS 144
#define R_SPILL 148
#define R_LABEL 156
#define R_PAD (R_LABEL + MJ_BUNDLE_LABEL_CAP)

_Static_assert(R_PAD <= MJ_BUNDLE_RECORD, "bundle record fields overflow the record");
_Static_assert(MJ_BUNDLE_RECORD % PAYLOAD_ALIGN == 0 && HEADER_SIZE % PAYLOAD_ALIGN == 0,
               "the first payload is aligned without padding");
_Static_assert(sizeof MJ_VERSION_STRING - 1 <= H_LIBVER_CAP,
               "MJ_VERSION_STRING does not fit the bundle header");

/* Two's complement by conversion through unsigned, which is well defined both ways round on
 * the platforms we build for (and implementation-defined, not undefined, elsewhere). */
static int32_t get_le32s(const uint8_t *p) { return (int32_t)mj_get_le32(p); }
static int64_t get_le64s(const uint8_t *p) { return (int64_t)mj_get_le64(p); }

/* Duplicate request keys: sorted pointers, then neighbours compared, so a million entries
 * cost a sort rather than a trillion comparisons. */
static int cmp_key_ptr(const void *a, const void *b)
{
    return memcmp(*(const uint8_t *const *)a, *(const uint8_t *const *)b, 32);
}

/* Returns 1 and sets *first and *second (indexes, first < second) when two keys are equal, 0
 * when none are, -1 when out of memory. keys[i] points at entry i's 32-byte request key. */
static int find_duplicate(const uint8_t **keys, size_t count, size_t *first, size_t *second)
{
    if (count < 2)
        return 0;
    const uint8_t **sorted = mj_malloc(count * sizeof *sorted);
    if (!sorted)
        return -1;
    memcpy(sorted, keys, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, cmp_key_ptr);
    const uint8_t *dup = NULL;
    for (size_t i = 1; i < count && !dup; i++)
        if (memcmp(sorted[i - 1], sorted[i], 32) == 0)
            dup = sorted[i];
    free(sorted);
    if (!dup)
        return 0;
    /* Name the entries in the caller's order, which is what people can find. */
    size_t a = count, b = count;
    for (size_t i = 0; i < count; i++) {
        if (memcmp(keys[i], dup, 32) != 0)
            continue;
        if (a == count)
            a = i;
        else {
            b = i;
            break;
        }
    }
    *first = a;
    *second = b;
    return 1;
}

/* ---------------------------------------------------------------- writing */

/* What is wrong with an entry the writer was given, or NULL. */
static const char *check_entry_in(const mj_bundle_entry *e)
{
    if (memchr(e->label, '\0', MJ_BUNDLE_LABEL_CAP) == NULL)
        return "has a label that is not NUL-terminated";
    if (e->size > 0 && !e->payload)
        return "has no payload";
    if (e->sm < 0)
        return "has a negative sm";
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
    mj_put_le64(r + R_OFFSET, offset);
    mj_put_le64(r + R_SIZE, e->size);
    mj_put_le32(r + R_SM, (uint32_t)e->sm);
    mj_put_le32(r + R_PRIMITIVE, (uint32_t)e->primitive);
    mj_put_le32(r + R_KEY, (uint32_t)e->key);
    mj_put_le32(r + R_KEY_SIZE, (uint32_t)e->key_size);
    mj_put_le32(r + R_VALUE_SIZE, (uint32_t)e->value_size);
    mj_put_le32(r + R_NT, (uint32_t)e->nt);
    mj_put_le32(r + R_VT, (uint32_t)e->vt);
    mj_put_le32(r + R_BS_NT, (uint32_t)e->bs_nt);
    mj_put_le32(r + R_REGISTERS, (uint32_t)(int32_t)e->registers);
    mj_put_le64(r + R_SPILL, (uint64_t)(int64_t)e->spill_bytes);
    /* Only up to the NUL, so whatever follows it in the caller's buffer stays out. */
    memcpy(r + R_LABEL, e->label, strlen(e->label));
}

/* The header and index, with offsets and hashes filled in; malloc'd, *n bytes. */
static uint8_t *build_index(const mj_bundle_entry *entries, size_t count, size_t *n)
{
    size_t len = HEADER_SIZE + count * MJ_BUNDLE_RECORD;
    uint8_t *buf = mj_calloc(1, len);
    if (!buf)
        return NULL;
    memcpy(buf, MAGIC, 8);
    mj_put_le32(buf + H_VERSION, FORMAT_VERSION);
    mj_put_le32(buf + H_COUNT, (uint32_t)count);
    memcpy(buf + H_LIBVER, MJ_VERSION_STRING, sizeof MJ_VERSION_STRING - 1);
    uint64_t pos = len;
    for (size_t i = 0; i < count; i++) {
        const mj_bundle_entry *e = &entries[i];
        uint8_t sha[32];
        mj_sha256_hash(e->payload, (size_t)e->size, sha);
        put_record(buf + HEADER_SIZE + i * MJ_BUNDLE_RECORD, e, pos, sha);
        pos += e->size;
        pos = (pos + PAYLOAD_ALIGN - 1) / PAYLOAD_ALIGN * PAYLOAD_ALIGN;
    }
    mj_sha256_hash(buf + HEADER_SIZE, count * MJ_BUNDLE_RECORD, buf + H_HASH);
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
    mj_span *parts = mj_malloc((2 * count + 1) * sizeof *parts);
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

int mj_bundle_write_file(const char *path, const mj_bundle_entry *entries, size_t count,
                         char *err, size_t errcap)
{
    if (!path || !*path) {
        mj_set_err(err, errcap, "the bundle path is empty");
        return -1;
    }
    if (count > 0 && !entries) {
        mj_set_err(err, errcap, "cannot write bundle %s: no entries given", path);
        return -1;
    }
    if (count > MAX_ENTRIES) {
        mj_set_err(err, errcap, "cannot write bundle %s: %zu entries (at most %u)", path, count,
                   (unsigned)MAX_ENTRIES);
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        const char *bad = check_entry_in(&entries[i]);
        if (bad) {
            mj_set_err(err, errcap, "cannot write bundle %s: entry %zu %s", path, i, bad);
            return -1;
        }
    }
    const uint8_t **keys = mj_malloc((count ? count : 1) * sizeof *keys);
    if (!keys) {
        mj_set_err(err, errcap, "out of memory writing bundle %s", path);
        return MJ_IO_NO_MEMORY;
    }
    for (size_t i = 0; i < count; i++)
        keys[i] = entries[i].request;
    size_t a = 0, b = 0;
    int dup = find_duplicate(keys, count, &a, &b);
    free(keys);
    if (dup < 0) {
        mj_set_err(err, errcap, "out of memory writing bundle %s", path);
        return MJ_IO_NO_MEMORY;
    }
    if (dup > 0) {
        mj_set_err(err, errcap,
                   "cannot write bundle %s: entries %zu (%s) and %zu (%s) have the same "
                   "request key",
                   path, a, entries[a].label, b, entries[b].label);
        return -1;
    }

    char dir[PATH_MAX], why[2 * PATH_MAX + 128];
    const char *base;
    if (mj_path_split(path, dir, sizeof dir, &base, why, sizeof why) != 0) {
        mj_set_err(err, errcap, "cannot write bundle %s: %s", path, why);
        return -1;
    }
    size_t index_len = 0, nparts = 0;
    uint8_t *index = build_index(entries, count, &index_len);
    mj_span *parts = index ? body_spans(index, index_len, entries, count, &nparts) : NULL;
    if (!parts) {
        mj_set_err(err, errcap, "out of memory writing bundle %s", path);
        free(index);
        return MJ_IO_NO_MEMORY;
    }
    /* The temporary file ".<name>.tmp.XXXXXX" beside path does not pass for a bundle. Mode
     * 0644, set whatever the umask; fsync before the rename, so that a crash leaves the old
     * bundle or all the new, and of the directory after it. */
    int rc = mj_write_file_atomic(path, dir, base, parts, nparts, 0644,
                                  MJ_SYNC_FILE | MJ_SYNC_DIR, why, sizeof why);
    free(parts);
    free(index);
    if (rc != 0)
        mj_set_err(err, errcap, "cannot write bundle %s: %s", path, why);
    return rc;
}

/* ---------------------------------------------------------------- reading */

/* Decodes record r into e, or says what is wrong with it (its payload's bounds and fields;
 * duplicates are checked over the whole index afterwards). */
static const char *get_record(const uint8_t *r, uint64_t index_end, uint64_t file_size,
                              mj_bundle_entry *e)
{
    memset(e, 0, sizeof *e);
    memcpy(e->request, r + R_REQUEST, 32);
    memcpy(e->source_key, r + R_SOURCE, 32);
    memcpy(e->sha, r + R_SHA, 32);
    memcpy(e->label, r + R_LABEL, MJ_BUNDLE_LABEL_CAP);
    e->label[MJ_BUNDLE_LABEL_CAP - 1] = '\0';
    e->offset = mj_get_le64(r + R_OFFSET);
    e->size = mj_get_le64(r + R_SIZE);
    uint32_t sm = mj_get_le32(r + R_SM), primitive = mj_get_le32(r + R_PRIMITIVE),
             key = mj_get_le32(r + R_KEY);
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
    for (int i = R_PAD; i < MJ_BUNDLE_RECORD; i++)
        if (r[i] != 0)
            return "has nonzero reserved bytes";
    e->sm = (int)sm;
    e->primitive = (mj_primitive)primitive;
    e->key = (mj_key_kind)key;
    e->key_size = mj_get_le32(r + R_KEY_SIZE);
    e->value_size = mj_get_le32(r + R_VALUE_SIZE);
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
        mj_set_err(err, errcap, "cannot stat %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        mj_set_err(err, errcap, "%s is not a mergejit bundle (not a regular file)", path);
        return -1;
    }
    uint64_t file_size = (uint64_t)st.st_size;
    uint8_t hdr[HEADER_SIZE];
    ssize_t got = mj_pread_full(fd, hdr, HEADER_SIZE, 0);
    if (got < 0) {
        mj_set_err(err, errcap, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    if (got < 8 || memcmp(hdr, MAGIC, 8) != 0) {
        mj_set_err(err, errcap, "%s is not a mergejit bundle", path);
        return -1;
    }
    if (got < HEADER_SIZE) {
        mj_set_err(err, errcap, "bundle %s is truncated (in the header)", path);
        return -1;
    }
    uint32_t version = mj_get_le32(hdr + H_VERSION);
    if (version != FORMAT_VERSION) {
        mj_set_err(err, errcap, "%s is bundle format version %u; this library reads version %u",
                   path, (unsigned)version, FORMAT_VERSION);
        return -1;
    }
    if (!libver_ok(hdr + H_LIBVER)) {
        mj_set_err(err, errcap, "bundle %s: header is damaged (library version field)", path);
        return -1;
    }
    uint32_t count = mj_get_le32(hdr + H_COUNT);
    if (count > MAX_ENTRIES) {
        mj_set_err(err, errcap, "bundle %s: header is damaged (%u entries; at most %u)", path,
                   (unsigned)count, (unsigned)MAX_ENTRIES);
        return -1;
    }
    uint64_t index_end = HEADER_SIZE + (uint64_t)count * MJ_BUNDLE_RECORD;
    if (index_end > file_size) {
        mj_set_err(err, errcap, "bundle %s is truncated (its index of %u entries does not fit)",
                   path, (unsigned)count);
        return -1;
    }

    size_t index_len = (size_t)count * MJ_BUNDLE_RECORD;
    uint8_t *index = mj_malloc(index_len ? index_len : 1);
    mj_bundle_entry *entries = count ? mj_calloc(count, sizeof *entries) : NULL;
    const uint8_t **keys = mj_malloc((count ? count : 1) * sizeof *keys);
    int rc = -1;
    if (!index || (count && !entries) || !keys) {
        mj_set_err(err, errcap, "out of memory reading bundle %s", path);
        rc = MJ_IO_NO_MEMORY;
        goto done;
    }
    got = mj_pread_full(fd, index, index_len, HEADER_SIZE);
    if (got < 0) {
        mj_set_err(err, errcap, "cannot read %s: %s", path, strerror(errno));
        goto done;
    }
    if ((size_t)got < index_len) { /* shrank since fstat */
        mj_set_err(err, errcap, "bundle %s is truncated (in the index)", path);
        goto done;
    }
    uint8_t digest[32];
    mj_sha256_hash(index, index_len, digest);
    if (memcmp(digest, hdr + H_HASH, 32) != 0) {
        mj_set_err(err, errcap, "bundle %s: index is damaged (checksum mismatch)", path);
        goto done;
    }
    for (size_t i = 0; i < count; i++) {
        const char *bad =
            get_record(index + i * MJ_BUNDLE_RECORD, index_end, file_size, &entries[i]);
        if (bad) {
            mj_set_err(err, errcap, "bundle %s: entry %zu (%s) %s", path, i, entries[i].label, bad);
            goto done;
        }
        keys[i] = entries[i].request;
    }
    size_t a = 0, b = 0;
    int dup = find_duplicate(keys, count, &a, &b);
    if (dup < 0) {
        mj_set_err(err, errcap, "out of memory reading bundle %s", path);
        rc = MJ_IO_NO_MEMORY;
        goto done;
    }
    if (dup > 0) {
        mj_set_err(err, errcap,
                   "bundle %s: entries %zu (%s) and %zu (%s) have the same request key", path,
                   a, entries[a].label, b, entries[b].label);
        goto done;
    }
    memcpy(out->version, hdr + H_LIBVER, H_LIBVER_CAP);
    out->version[H_LIBVER_CAP] = '\0';
    out->entries = entries;
    out->count = count;
    entries = NULL;
    rc = 0;
done:
    free(index);
    free(entries);
    free(keys);
    return rc;
}

int mj_bundle_read_index(const char *path, mj_bundle_index *out, char *err, size_t errcap)
{
    memset(out, 0, sizeof *out); /* so that mj_bundle_index_free is safe after a failure */
    /* O_NONBLOCK so that a FIFO at path cannot hang the open; regular files ignore it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        mj_set_err(err, errcap, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = read_index_fd(fd, path, out, err, errcap);
    close(fd);
    return rc;
}

const mj_bundle_entry *mj_bundle_find(const mj_bundle_index *b, const uint8_t request[32])
{
    if (!b)
        return NULL;
    for (size_t i = 0; i < b->count; i++)
        if (memcmp(b->entries[i].request, request, 32) == 0)
            return &b->entries[i];
    return NULL;
}

int mj_bundle_read_payload(const char *path, const mj_bundle_entry *e, void **data, char *err,
                           size_t errcap)
{
    *data = NULL;
    size_t n = (size_t)e->size;
    if (n != e->size) {
        mj_set_err(err, errcap, "bundle %s: entry %s is too large for this process", path,
                   e->label);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        mj_set_err(err, errcap, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        mj_set_err(err, errcap, "cannot stat %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    uint64_t file_size = (uint64_t)st.st_size;
    if (!S_ISREG(st.st_mode) || e->offset > file_size || e->size > file_size - e->offset) {
        mj_set_err(err, errcap, "bundle %s: entry %s lies outside the file (changed since its "
                   "index was read?)", path, e->label);
        close(fd);
        return -1;
    }
    uint8_t *buf = mj_malloc(n ? n : 1); /* never NULL on success, even when empty */
    if (!buf) {
        mj_set_err(err, errcap, "out of memory reading entry %s of bundle %s", e->label, path);
        close(fd);
        return MJ_IO_NO_MEMORY;
    }
    ssize_t got = mj_pread_full(fd, buf, n, e->offset);
    int read_errno = errno;
    close(fd);
    if (got < 0) {
        mj_set_err(err, errcap, "cannot read %s: %s", path, strerror(read_errno));
        free(buf);
        return -1;
    }
    if ((size_t)got < n) { /* shrank since fstat */
        mj_set_err(err, errcap, "bundle %s: entry %s lies outside the file (changed since its "
                   "index was read?)", path, e->label);
        free(buf);
        return -1;
    }
    uint8_t digest[32];
    mj_sha256_hash(buf, n, digest);
    if (memcmp(digest, e->sha, 32) != 0) {
        mj_set_err(err, errcap, "bundle %s: entry %s is damaged (checksum mismatch)", path,
                   e->label);
        free(buf);
        return -1;
    }
    *data = buf;
    return 0;
}

void mj_bundle_index_free(mj_bundle_index *b)
{
    if (!b)
        return;
    free(b->entries);
    memset(b, 0, sizeof *b);
}
