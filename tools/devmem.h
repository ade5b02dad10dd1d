/*
 * Device-memory bridge used by the mergejit command (internal; implemented in runtime/ and
 * exported from the static library). It lets the tool move data to and from the GPU through
 * the library's own driver-API layer, so the tool never links the CUDA runtime.
 * Every function returns an mj_status and sets the context's last-error message on failure.
 */
#ifndef MERGEJIT_TOOLS_DEVMEM_H
#define MERGEJIT_TOOLS_DEVMEM_H

#include <stddef.h>

#include "mergejit.h"

mj_status mj_dev_alloc(mj_context *ctx, void **ptr, size_t bytes);
mj_status mj_dev_free(mj_context *ctx, void *ptr);
mj_status mj_dev_upload(mj_context *ctx, void *dst, const void *src, size_t bytes);
mj_status mj_dev_download(mj_context *ctx, void *dst, const void *src, size_t bytes);
mj_status mj_dev_sync(mj_context *ctx, void *stream);
/* elapsed device time in ms of running fn(arg) on the legacy default stream, measured with events */
mj_status mj_dev_time(mj_context *ctx, mj_status (*fn)(void *arg), void *arg, float *ms);

#endif /* MERGEJIT_TOOLS_DEVMEM_H */
