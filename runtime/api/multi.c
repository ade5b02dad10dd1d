/* SPDX-License-Identifier: Apache-2.0 */
/* The multi-GPU sorter (public: mergejit.h): building one over a communicator, its getters,
 * and the collective step and verdict its phases (multi_sort.c) are made of. */
#include "api/multi.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/host_alloc.h"
#include "core/context.h"
#include "driver/dl_nccl.h"

#define FN "mj_multi_sorter_create"

static mj_status fail_nccl(mj_multi_sorter *m, int r, const char *what) {
    char text[256];
    mj__nccl_describe(m->nccl, r, text, sizeof text);
    return mj__fail(m->ctx, MJ_ERR_CUDA, "%s failed: %s", what, text);
}

mj_status mj__multi_gather(mj_multi_sorter *m, void *dev, size_t bytes, void *host,
                           CUstream stream) {
    const mj_nccl_api *nc = m->nccl;
    char *base = dev;
    int r = nc->all_gather(base + (size_t)m->rank * bytes, base, bytes, MJ_NCCL_UINT8, m->comm,
                           stream);
    if (r != MJ_NCCL_SUCCESS) return fail_nccl(m, r, "ncclAllGather");
    return host ? mj__multi_download(m, host, dev, bytes * (size_t)m->ranks, stream) : MJ_OK;
}

mj_status mj__multi_verdict(mj_multi_sorter *m, const uint64_t *status, size_t stride,
                            const char *fn) {
    for (int r = 0; r < m->ranks; ++r) {
        uint64_t st = status[(size_t)r * stride];
        if (st == MJ_OK) continue;
        if (st >= 64) st = MJ_ERR_CUDA; /* not a status: a damaged gather */
        if (status[(size_t)m->rank * stride] != MJ_OK) return (mj_status)st; /* ours stands */
        return mj__fail(m->ctx, (mj_status)st, "%s: rank %d of %d failed (%s); see its "
                        "context's message", fn, r, m->ranks, mj_status_name((mj_status)st));
    }
    return MJ_OK;
}

mj_status mj__multi_upload(mj_multi_sorter *m, void *dev, const void *host, size_t bytes,
                           CUstream stream) {
    if (!bytes) return MJ_OK;
    CUresult r = m->ctx->cu->memcpy_htod_async(DPTR(dev), host, bytes, stream);
    return r == CUDA_SUCCESS ? MJ_OK : mj__fail_cuda(m->ctx, r, "cuMemcpyHtoDAsync");
}

mj_status mj__multi_copy(mj_multi_sorter *m, void *dst, const void *src, size_t bytes,
                         CUstream stream) {
    if (!bytes) return MJ_OK;
    CUresult r = m->ctx->cu->memcpy_dtod_async(DPTR(dst), DPTR(src), bytes, stream);
    return r == CUDA_SUCCESS ? MJ_OK : mj__fail_cuda(m->ctx, r, "cuMemcpyDtoDAsync");
}

mj_status mj__multi_download(mj_multi_sorter *m, void *host, const void *dev, size_t bytes,
                             CUstream stream) {
    const mj_cuda_api *cu = m->ctx->cu;
    CUresult r = bytes ? cu->memcpy_dtoh_async(host, DPTR(dev), bytes, stream) : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS) r = cu->stream_sync(stream);
    return r == CUDA_SUCCESS ? MJ_OK : mj__fail_cuda(m->ctx, r, "reading back a collective");
}

/* The sorter of `primitive` with value_size for desc: the caller's description for the local
 * sort, the library's tile for the helpers. */
static mj_status helper(mj_context *ctx, const mj_sort_desc *desc, mj_primitive primitive,
                        size_t value_size, int own_tile, mj_sorter **out) {
    mj_sort_desc d = *desc;
    d.primitive = primitive;
    d.value_size = value_size;
    if (!own_tile) d.nt = d.vt = d.bs_nt = 0;
    return mj_sorter_create(ctx, &d, out);
}

/* The communicator's size, this rank and its device, which must be ctx's. */
static mj_status query_comm(mj_multi_sorter *m) {
    const mj_nccl_api *nc = m->nccl;
    int device = -1, r = nc->comm_count(m->comm, &m->ranks);
    if (r == MJ_NCCL_SUCCESS) r = nc->comm_user_rank(m->comm, &m->rank);
    if (r == MJ_NCCL_SUCCESS) r = nc->comm_cu_device(m->comm, &device);
    if (r != MJ_NCCL_SUCCESS) {
        char text[256];
        mj__nccl_describe(nc, r, text, sizeof text);
        return mj__fail(m->ctx, MJ_ERR_INVALID_ARGUMENT, FN ": comm is not a usable NCCL "
                        "communicator: %s", text);
    }
    if (m->ranks < 1 || m->rank < 0 || m->rank >= m->ranks)
        return mj__fail(m->ctx, MJ_ERR_INVALID_ARGUMENT, FN ": comm reports rank %d of %d",
                        m->rank, m->ranks);
    if (device != m->ctx->device_ordinal)
        return mj__fail(m->ctx, MJ_ERR_INVALID_ARGUMENT, FN ": comm's rank %d is on device %d, "
                        "but ctx is on device %d", m->rank, device, m->ctx->device_ordinal);
    return MJ_OK;
}

/* Host arrays and the collectives' device buffer, for m->ranks ranks. */
static mj_status allocate(mj_multi_sorter *m) {
    size_t P = (size_t)m->ranks, s = m->samples;
    m->row = P + 2;
    m->headers = mj__calloc(P, sizeof *m->headers);
    m->rows = mj__calloc(P * m->row, sizeof *m->rows);
    m->status = mj__calloc(P, sizeof *m->status);
    m->n = mj__calloc(P, sizeof *m->n);
    m->recv = mj__calloc(P, sizeof *m->recv);
    m->offset = mj__calloc(P, sizeof *m->offset);
    m->search_out = mj__calloc(2 * P, sizeof *m->search_out);
    m->order = mj__calloc(P * s, sizeof *m->order);
    m->splitters = mj__calloc(P, sizeof *m->splitters);
    m->steps = mj__calloc(mj__multi_merge_steps_max(m->ranks), sizeof *m->steps);
    if (!m->headers || !m->rows || !m->status || !m->n || !m->recv || !m->offset ||
        !m->search_out || !m->order || !m->splitters || !m->steps)
        return mj__fail(m->ctx, MJ_ERR_HOST_MEMORY, "out of host memory");
    mj_temp_layout l = {0, 0};
    m->ctl_headers = mj__temp_part(&l, P, sizeof *m->headers);
    m->ctl_rows = mj__temp_part(&l, P * m->row, sizeof *m->rows);
    m->ctl_status = mj__temp_part(&l, P, sizeof *m->status);
    if (l.overflow) return mj__fail(m->ctx, MJ_ERR_TOO_LARGE, FN ": %zu ranks are too many", P);
    mj_status st = mj__ctx_enter(m->ctx);
    if (st) return st;
    CUdeviceptr ctl = 0;
    int pitch = 0;
    CUresult r = m->ctx->cu->mem_alloc(&ctl, l.total);
    if (r == CUDA_SUCCESS)
        r = m->ctx->cu->device_attribute(&pitch, CU_DEVICE_ATTRIBUTE_MAX_PITCH, m->ctx->device);
    mj__ctx_leave(m->ctx);
    m->ctl = (void *)(uintptr_t)ctl;
    m->max_pitch = pitch > 0 ? (size_t)pitch : 0;
    return r == CUDA_SUCCESS ? MJ_OK : mj__fail_cuda(m->ctx, r, FN ": the collectives' buffer");
}

mj_status mj_multi_sorter_create(mj_context *ctx, const mj_sort_desc *desc, void *comm,
                                 mj_multi_sorter **out) {
    if (!ctx) return MJ_ERR_INVALID_ARGUMENT;
    if (!desc || !out)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": desc and out are required");
    *out = NULL;
    if (desc->primitive != MJ_MERGESORT) {
        const char *name = mj_primitive_name(desc->primitive);
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": the description must be for "
                        "mergesort, not %s", name ? name : "an unknown primitive");
    }
    if (!comm)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": comm is NULL (give the rank's "
                        "ncclComm_t)");
    char err[1024];
    const mj_nccl_api *nc = mj__nccl_load(err, sizeof err);
    if (!nc) return mj__fail(ctx, MJ_ERR_UNSUPPORTED, FN ": %s", err);
    if (!ctx->cu)
        return mj__fail(ctx, MJ_ERR_UNSUPPORTED, FN ": this context is compile-only: it has no "
                        "device to sort on");
    mj_multi_sorter *m = mj__calloc(1, sizeof *m);
    if (!m) return mj__fail(ctx, MJ_ERR_HOST_MEMORY, "out of host memory");
    m->ctx = ctx;
    m->nccl = nc;
    m->comm = comm;
    m->samples = MJ__MULTI_SAMPLES;
    mj_status st = query_comm(m);
    if (!st) st = helper(ctx, desc, MJ_MERGESORT, desc->value_size, 1, &m->sort);
    if (!st) st = helper(ctx, desc, MJ_MERGESORT, 4, 0, &m->index);
    if (!st) st = helper(ctx, desc, MJ_SORTED_SEARCH, 0, 0, &m->search);
    if (!st) st = helper(ctx, desc, MJ_MERGE, desc->value_size, 0, &m->merge);
    if (!st) st = allocate(m);
    if (st) {
        mj_multi_sorter_destroy(m);
        return st;
    }
    *out = m;
    return MJ_OK;
}

void mj_multi_sorter_destroy(mj_multi_sorter *m) {
    if (!m) return;
    if (m->ctl && mj__ctx_enter(m->ctx) == MJ_OK) {
        m->ctx->cu->mem_free(DPTR(m->ctl));
        mj__ctx_leave(m->ctx);
    }
    mj_sorter_destroy(m->sort);
    mj_sorter_destroy(m->index);
    mj_sorter_destroy(m->search);
    mj_sorter_destroy(m->merge);
    void *host[] = {m->headers, m->rows, m->status, m->n, m->recv, m->offset, m->search_out,
                    m->order, m->splitters, m->steps, m};
    for (size_t i = 0; i < sizeof host / sizeof *host; ++i) free(host[i]);
}

void mj_multi_sorter_rank(const mj_multi_sorter *m, int *rank, int *ranks) {
    if (rank) *rank = m ? m->rank : -1;
    if (ranks) *ranks = m ? m->ranks : 0;
}
