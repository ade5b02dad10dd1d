/* SPDX-License-Identifier: Apache-2.0 */
/* Device memory, copies and timing through the library's driver handle, for the tool, tests
 * and benchmarks (which must not link the CUDA runtime). Internal, but exported from the
 * static library. */
#ifndef MJ_DEVMEM_H
#define MJ_DEVMEM_H

#include <stddef.h>
#include "mergejit.h"

mj_status mj__dev_alloc(mj_context *ctx, void **ptr, size_t bytes);
mj_status mj__dev_free(mj_context *ctx, void *ptr);
mj_status mj__dev_upload(mj_context *ctx, void *dst, const void *src, size_t bytes);
mj_status mj__dev_download(mj_context *ctx, void *dst, const void *src, size_t bytes);
/* Device-to-device copy, ordered on the legacy default stream. */
mj_status mj__dev_copy(mj_context *ctx, void *dst, const void *src, size_t bytes);
mj_status mj__dev_sync(mj_context *ctx, void *stream);
/* Elapsed device time in ms of fn(arg) on the legacy default stream, measured with events. */
mj_status mj__dev_time(mj_context *ctx, mj_status (*fn)(void *arg), void *arg, float *ms);

#endif
