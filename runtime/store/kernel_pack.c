/* SPDX-License-Identifier: Apache-2.0 */
/* A module's binaries, one per kernel, in one payload: see kernel_pack.h for the layout. */
#include "store/kernel_pack.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_io.h"
#include "base/host_alloc.h"

#define MAGIC "MJKPACK1"
#define HEADER 16
#define RECORD 48
#define ALIGN 16

static size_t aligned(size_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

int mj__pack_kernels(const mj_kernel_image *images, int count, void **out, size_t *size,
                     char *err, size_t errcap) {
    *out = NULL;
    *size = 0;
    if (count < 1 || count > MJ_PACK_MAX) {
        mj__set_err(err, errcap, "a module of %d kernels cannot be packed (1 to %d)", count,
                    MJ_PACK_MAX);
        return -1;
    }
    size_t total = aligned(HEADER + (size_t)count * RECORD);
    for (int i = 0; i < count; ++i) {
        if (strlen(images[i].kernel) >= MJ_PACK_NAME_CAP) {
            mj__set_err(err, errcap, "kernel name %s is too long to pack", images[i].kernel);
            return -1;
        }
        total = aligned(total + images[i].size);
    }
    uint8_t *p = mj__calloc(1, total);
    if (!p) {
        mj__set_err(err, errcap, "out of host memory packing a %zu-byte module", total);
        return -1;
    }
    memcpy(p, MAGIC, 8);
    mj__put_le32(p + 8, (uint32_t)count);
    size_t at = aligned(HEADER + (size_t)count * RECORD);
    for (int i = 0; i < count; ++i) {
        uint8_t *r = p + HEADER + (size_t)i * RECORD;
        memcpy(r, images[i].kernel, strlen(images[i].kernel));
        mj__put_le64(r + 32, at);
        mj__put_le64(r + 40, images[i].size);
        memcpy(p + at, images[i].data, images[i].size);
        at = aligned(at + images[i].size);
    }
    *out = p;
    *size = total;
    return 0;
}

int mj__unpack_kernels(const void *payload, size_t size, mj_kernel_image images[MJ_PACK_MAX],
                       char *err, size_t errcap) {
    const uint8_t *p = payload;
    if (size < 8 || memcmp(p, MAGIC, 8) != 0) {
        images[0] = (mj_kernel_image){NULL, payload, size};
        return 1;
    }
    uint32_t count = size >= HEADER ? mj__get_le32(p + 8) : 0;
    if (count < 1 || count > MJ_PACK_MAX || mj__get_le32(p + 12) != 0 ||
        size < HEADER + (size_t)count * RECORD) {
        mj__set_err(err, errcap, "the module's kernel pack has a damaged header");
        return -1;
    }
    for (uint32_t i = 0; i < count; ++i) {
        const uint8_t *r = p + HEADER + (size_t)i * RECORD;
        uint64_t off = mj__get_le64(r + 32), n = mj__get_le64(r + 40);
        if (memchr(r, '\0', MJ_PACK_NAME_CAP) == NULL || r[0] == '\0' || off > size ||
            n > size - off || off < HEADER + (size_t)count * RECORD) {
            mj__set_err(err, errcap, "the module's kernel pack has a damaged record %u", i);
            return -1;
        }
        images[i] = (mj_kernel_image){(const char *)r, p + off, (size_t)n};
    }
    return (int)count;
}
