/* SPDX-License-Identifier: Apache-2.0 */
#include "api/devmem.h"

#include <stdint.h>

#include "core/context.h"

#define DPTR(p) ((CUdeviceptr)(uintptr_t)(p))

/* Runs one driver call inside the context, turning a failure into a status and message. */
#define IN_CONTEXT(ctx, call, what)                                                         \
    do {                                                                                    \
        mj_status st_ = mj__ctx_enter(ctx);                                                  \
        if (st_) return st_;                                                                \
        CUresult r_ = (call);                                                               \
        mj__ctx_leave(ctx);                                                                  \
        return r_ == CUDA_SUCCESS ? MJ_OK : mj__fail_cuda(ctx, r_, what);                    \
    } while (0)

mj_status mj__dev_alloc(mj_context *ctx, void **ptr, size_t bytes) {
    CUdeviceptr p = 0;
    mj_status st = mj__ctx_enter(ctx);
    if (st) return st;
    CUresult r = ctx->cu->mem_alloc(&p, bytes ? bytes : 1);
    mj__ctx_leave(ctx);
    *ptr = (void *)(uintptr_t)p;
    return r == CUDA_SUCCESS ? MJ_OK : mj__fail_cuda(ctx, r, "cuMemAlloc");
}

mj_status mj__dev_free(mj_context *ctx, void *ptr) {
    if (!ptr) return MJ_OK;
    IN_CONTEXT(ctx, ctx->cu->mem_free(DPTR(ptr)), "cuMemFree");
}

mj_status mj__dev_upload(mj_context *ctx, void *dst, const void *src, size_t bytes) {
    if (!bytes) return MJ_OK;
    IN_CONTEXT(ctx, ctx->cu->memcpy_htod(DPTR(dst), src, bytes), "cuMemcpyHtoD");
}

mj_status mj__dev_download(mj_context *ctx, void *dst, const void *src, size_t bytes) {
    if (!bytes) return MJ_OK;
    IN_CONTEXT(ctx, ctx->cu->memcpy_dtoh(dst, DPTR(src), bytes), "cuMemcpyDtoH");
}

mj_status mj__dev_copy(mj_context *ctx, void *dst, const void *src, size_t bytes) {
    if (!bytes) return MJ_OK;
    IN_CONTEXT(ctx, ctx->cu->memcpy_dtod_async(DPTR(dst), DPTR(src), bytes, NULL),
               "cuMemcpyDtoDAsync");
}

mj_status mj__dev_sync(mj_context *ctx, void *stream) {
    IN_CONTEXT(ctx, ctx->cu->stream_sync((CUstream)stream), "cuStreamSynchronize");
}

mj_status mj__dev_time(mj_context *ctx, mj_status (*fn)(void *arg), void *arg, float *ms) {
    mj_status st = mj__ctx_enter(ctx);
    if (st) return st;
    const mj_cuda_api *cu = ctx->cu;
    CUevent a = NULL, b = NULL;
    CUresult r = cu->event_create(&a, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS) r = cu->event_create(&b, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS) r = cu->event_record(a, NULL);
    if (r == CUDA_SUCCESS) {
        st = fn(arg);
        r = cu->event_record(b, NULL);
    }
    if (r == CUDA_SUCCESS) r = cu->event_sync(b);
    if (r == CUDA_SUCCESS && st == MJ_OK) r = cu->event_elapsed(ms, a, b);
    if (a) cu->event_destroy(a);
    if (b) cu->event_destroy(b);
    mj__ctx_leave(ctx);
    if (st) return st;
    return r == CUDA_SUCCESS ? MJ_OK : mj__fail_cuda(ctx, r, "timing with events");
}
