/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the cache-entry reader (mj__cache_load). The input is the entry file of a
 * fixed key in a private cache directory, read as given and then with the key, payload size
 * and checksum fields set to match (so that the fuzzer also reaches hits). Any result is fine;
 * a crash, leak or a hit that disagrees with the file is not. */
#include "fuzz_util.h"

#include "store/cache.h"
#include "base/sha256.h"

#define HEADER_SIZE 96
#define OFF_REGISTERS 12
#define OFF_KEY 16
#define OFF_SIZE 48
#define OFF_HASH 56
#define OFF_SPILLS 88

static const uint8_t key[32] = {0x6d, 0x65, 0x72, 0x67, 0x65, 0x6a, 0x69, 0x74, 0x2d, 0x66, 0x75,
                                0x7a, 0x7a, 0x2d, 0x6b, 0x65, 0x79, 0x01, 0x02, 0x03, 0x04, 0x05,
                                0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f};

static void load(const uint8_t *data, size_t size)
{
    char hex[65], name[80];
    mj__sha256_hex(key, hex);
    snprintf(name, sizeof name, "%s.mjc", hex);
    const char *dir = fuzz_tmpdir();
    const char *path = fuzz_path(0, name);
    fuzz_write_file(path, data, size);

    char err[512] = "";
    void *out = NULL;
    size_t n = 0;
    mj_cache_meta meta = {0, 0};
    mj_cache_result r = mj__cache_load(dir, key, &out, &n, &meta, err, sizeof err);
    FUZZ_CHECK(r == MJ_CACHE_HIT || r == MJ_CACHE_MISS || r == MJ_CACHE_DAMAGED ||
                   r == MJ_CACHE_ERROR,
               "unknown result %d", (int)r);
    if (r == MJ_CACHE_HIT) {
        FUZZ_CHECK(out != NULL, "a hit with no buffer");
        FUZZ_CHECK(size >= HEADER_SIZE && n == size - HEADER_SIZE,
                   "a hit of %zu bytes from a file of %zu", n, size);
        FUZZ_CHECK(memcmp(out, data + HEADER_SIZE, n) == 0, "the payload is not the file's");
        free(out);
    } else {
        FUZZ_CHECK(r != MJ_CACHE_MISS, "the entry was written but missed: %s", err);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    load(data, size);
    if (size < HEADER_SIZE)
        return 0;
    uint8_t *copy = malloc(size);
    FUZZ_CHECK(copy != NULL, "out of memory");
    memcpy(copy, data, size);
    memcpy(copy + OFF_KEY, key, 32);
    uint64_t n = size - HEADER_SIZE;
    for (int i = 0; i < 8; i++)
        copy[OFF_SIZE + i] = (uint8_t)(n >> (8 * i));
    mj_sha256 h;
    mj__sha256_init(&h);
    mj__sha256_update(&h, copy + OFF_REGISTERS, 4);
    mj__sha256_update(&h, copy + OFF_SPILLS, 8);
    mj__sha256_update(&h, copy + HEADER_SIZE, (size_t)n);
    mj__sha256_final(&h, copy + OFF_HASH);
    load(copy, size);
    free(copy);
    return 0;
}
