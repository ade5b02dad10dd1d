/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the deployment-bundle reader (mj__bundle_read_index, then
 * mj__bundle_read_payload for every entry). The input is read three ways: as given; with the
 * header's index hash recomputed, so that the fuzzer reaches the record checks; and with every
 * in-file payload's SHA-256 and then the index hash recomputed, so that payload reads succeed. */
#include "fuzz_util.h"

#include "store/bundle_file.h"
#include "store/bundle_read.h"
#include "base/sha256.h"

#define HEADER_SIZE 64
#define RECORD 256
#define H_COUNT 12
#define H_HASH 32
#define R_SHA 64
#define R_OFFSET 96
#define R_SIZE 104

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void read_bundle(const char *path, const uint8_t *data, size_t size)
{
    fuzz_write_file(path, data, size);
    char err[512];
    mj_bundle_index b;
    if (mj__bundle_read_index(path, &b, err, sizeof err) != 0) {
        FUZZ_CHECK(b.entries == NULL && b.count == 0, "a failed read left entries behind");
        mj__bundle_index_free(&b);
        return;
    }
    for (size_t i = 0; i < b.count; i++) {
        const mj_bundle_entry *e = &b.entries[i];
        FUZZ_CHECK(e->offset <= size && e->size <= size - e->offset,
                   "entry %zu lies outside the file but was accepted", i);
        FUZZ_CHECK(mj__bundle_find(&b, e->request) == e, "entry %zu is not found by its key", i);
        void *payload = NULL;
        if (mj__bundle_read_payload(path, e, &payload, err, sizeof err) == 0) {
            FUZZ_CHECK(payload != NULL, "a payload read succeeded with no buffer");
            FUZZ_CHECK(memcmp(payload, data + e->offset, (size_t)e->size) == 0,
                       "entry %zu: the payload read is not the file's bytes", i);
            free(payload);
        } else {
            FUZZ_CHECK(payload == NULL, "a failed payload read left a buffer");
        }
    }
    mj__bundle_index_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_path(0, "bundle");
    read_bundle(path, data, size);
    if (size < HEADER_SIZE || size > (1u << 22))
        return 0;
    uint32_t count = le32(data + H_COUNT);
    if (count > (size - HEADER_SIZE) / RECORD)
        return 0;
    uint8_t *copy = malloc(size);
    FUZZ_CHECK(copy != NULL, "out of memory");
    memcpy(copy, data, size);
    uint8_t *index = copy + HEADER_SIZE;
    size_t index_len = (size_t)count * RECORD;

    /* The index hash only. */
    mj__sha256_hash(index, index_len, copy + H_HASH);
    read_bundle(path, copy, size);

    /* The payload hashes too, for the payloads inside the file. */
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *r = index + (size_t)i * RECORD;
        uint64_t off = le64(r + R_OFFSET), n = le64(r + R_SIZE);
        if (off <= size && n <= size - off)
            mj__sha256_hash(copy + off, (size_t)n, r + R_SHA);
    }
    mj__sha256_hash(index, index_len, copy + H_HASH);
    read_bundle(path, copy, size);
    free(copy);
    return 0;
}
