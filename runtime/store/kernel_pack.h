/* SPDX-License-Identifier: Apache-2.0 */
/* A module's binaries, one per kernel, as the one payload that the disk cache and bundles
 * keep for it: the kernels of a module are compiled as separate NVRTC programs (so that they
 * build at once on several threads) and loaded as one CUmodule each. Internal.
 *
 * Layout, integers little-endian:
 *   0  char[8]   magic "MJKPACK1"
 *   8  uint32    image count (1..MJ_PACK_MAX)
 *  12  uint32    zero
 *  16  count records of 48 bytes: char[32] kernel name (NUL-padded, at least one NUL),
 *      uint64 offset (from the start of the payload), uint64 size
 *      then the images (cubins, or NUL-terminated PTX), each at the next multiple of 16.
 * A payload without the magic is one image holding every kernel: what bundles of format
 * version 1 hold. */
#ifndef MJ_KERNEL_PACK_H
#define MJ_KERNEL_PACK_H

#include <stddef.h>

#define MJ_PACK_MAX 32
#define MJ_PACK_NAME_CAP 32

typedef struct mj_kernel_image {
    const char *kernel;  /* its kernel's name; NULL: every kernel (an unpacked payload) */
    const void *data;
    size_t size;
} mj_kernel_image;

/* Packs count images (their kernels named) into *out (malloc'd) and *size. 0, or -1 with err
 * (a name too long, too many images, out of memory). */
int mj__pack_kernels(const mj_kernel_image *images, int count, void **out, size_t *size,
                     char *err, size_t errcap);

/* The images in payload (pointing into it; names too). Returns their count (1 with a NULL
 * kernel for a payload without the magic), or -1 with err when the pack is damaged. */
int mj__unpack_kernels(const void *payload, size_t size, mj_kernel_image images[MJ_PACK_MAX],
                       char *err, size_t errcap);

#endif
