/* SPDX-License-Identifier: Apache-2.0 */
/* SHA-256, for cache keys and entry checks. Internal. */
#ifndef MJ_SHA256_H
#define MJ_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct mj_sha256 {
    uint32_t state[8];
    uint64_t length;      /* bytes hashed so far */
    uint8_t block[64];
    size_t fill;          /* bytes waiting in block */
} mj_sha256;

void mj__sha256_init(mj_sha256 *h);
void mj__sha256_update(mj_sha256 *h, const void *data, size_t n);
void mj__sha256_final(mj_sha256 *h, uint8_t out[32]);
/* One-shot convenience. */
void mj__sha256_hash(const void *data, size_t n, uint8_t out[32]);
/* 64 lowercase hex digits and a NUL into out[65]. */
void mj__sha256_hex(const uint8_t digest[32], char out[65]);

#endif
