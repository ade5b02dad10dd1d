/* SPDX-License-Identifier: Apache-2.0 */
/* Writes seed inputs for fuzz_bundle and fuzz_cache into the corpus directories given:
 *   make_seeds BUNDLE_CORPUS_DIR CACHE_CORPUS_DIR
 * Run by hand when the formats change, after tools/fuzz-run has built the library, e.g.:
 *   clang -std=c11 -g -fsanitize=address,undefined -D_GNU_SOURCE -Iinclude -Iruntime -Igen \
 *     -I/usr/local/cuda/include tests/fuzz/make_seeds.c build-fuzz/libmergejit.a \
 *     -lpthread -ldl -lm -o /tmp/make_seeds
 *   /tmp/make_seeds tests/fuzz/corpus/fuzz_bundle tests/fuzz/corpus/fuzz_cache
 * (Not a fuzz target: tools/fuzz-run builds only fuzz_*.c.) */
#include "store/bundle_file.h"
#include "store/bundle_write.h"
#include "store/cache.h"
#include "base/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const uint8_t key[32] = {0x6d, 0x65, 0x72, 0x67, 0x65, 0x6a, 0x69, 0x74, 0x2d, 0x66, 0x75,
                                0x7a, 0x7a, 0x2d, 0x6b, 0x65, 0x79, 0x01, 0x02, 0x03, 0x04, 0x05,
                                0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f};

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: make_seeds BUNDLE_CORPUS_DIR CACHE_CORPUS_DIR\n");
        return 2;
    }
    char err[512], path[4096];
    static const char p1[] = "payload one", p2[] = "a second, longer payload of bytes";
    mj_bundle_entry e[2];
    memset(e, 0, sizeof e);
    for (int i = 0; i < 2; i++) {
        memset(e[i].request, 0x11 * (i + 1), 32);
        memset(e[i].source_key, 0x21 * (i + 1), 32);
        e[i].sm = 90;
        e[i].ptx = i; /* a cubin and PTX */
        e[i].primitive = i ? MJ_MERGE : MJ_MERGESORT;
        e[i].key = i ? MJ_KEY_CUSTOM : MJ_KEY_U32;
        e[i].key_size = i ? 8 : 4;
        e[i].value_size = i ? 0 : 4;
        e[i].nt = 128;
        e[i].vt = 15;
        e[i].bs_nt = 256;
        e[i].registers = i ? -1 : 40;
        e[i].spill_bytes = i ? -1 : 0;
        snprintf(e[i].label, sizeof e[i].label, "%s", i ? "rec: a.k < b.k" : "u32 asc");
        e[i].payload = i ? p2 : p1;
        e[i].size = i ? sizeof p2 : sizeof p1;
    }
    snprintf(path, sizeof path, "%s/two_entries.mjb", argv[1]);
    if (mj__bundle_write_file(path, e, 2, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    snprintf(path, sizeof path, "%s/empty.mjb", argv[1]);
    if (mj__bundle_write_file(path, e, 0, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }

    /* A cache entry: stored in the corpus directory itself, then renamed to a plain name. */
    mj_cache_meta meta = {32, 0};
    if (mj__cache_store(argv[2], key, p2, sizeof p2, &meta, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    char hex[65], from[4096];
    mj__sha256_hex(key, hex);
    snprintf(from, sizeof from, "%s/%s.mjc", argv[2], hex);
    snprintf(path, sizeof path, "%s/entry.mjc", argv[2]);
    if (rename(from, path) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}
