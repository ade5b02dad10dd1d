/* SPDX-License-Identifier: Apache-2.0 */
/* The multi-GPU sorter (public: mergejit.h): building one over a communicator, its getters,
 * and the collective step and verdict its phases (multi_sort.c) are made of. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "api/multi.h"

#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/clock.h"
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

/* Ends the communicator's pending work and the communicator itself; the sorter is done. */
static void abort_comm(mj_multi_sorter *m) {
    m->nccl->comm_abort(m->comm);
    m->comm = NULL;
    m->aborted = 1;
}

mj_status mj__multi_wait(mj_multi_sorter *m, CUstream stream) {
    const mj_cuda_api *cu = m->ctx->cu;
    double start = mj__now_ms();
    for (int polls = 0;; ++polls) {
        CUresult r = cu->stream_query(stream);
        if (r == CUDA_SUCCESS) return MJ_OK;
        if (r != CUDA_ERROR_NOT_READY) return mj__fail_cuda(m->ctx, r, "waiting for the ranks");
        int e = MJ_NCCL_SUCCESS;
        if (m->nccl->comm_async_error(m->comm, &e) == MJ_NCCL_SUCCESS &&
            e != MJ_NCCL_SUCCESS && e != MJ_NCCL_IN_PROGRESS) {
            char text[256];
            mj__nccl_describe(m->nccl, e, text, sizeof text);
            abort_comm(m);
            return mj__fail(m->ctx, MJ_ERR_CUDA, "NCCL reported an error while rank %d waited "
                            "for the others: %s; the communicator was aborted", m->rank, text);
        }
        double waited = (mj__now_ms() - start) / 1e3;
        if (m->timeout > 0 && waited > m->timeout) {
            abort_comm(m);
            return mj__fail(m->ctx, MJ_ERR_TIMEOUT, "rank %d waited %.1f s for the other ranks "
                            "(its timeout); the communicator was aborted: a rank did not call, "
                            "or called with another sorter", m->rank, waited);
        }
        /* Spin briefly (a step takes tens of microseconds), then sleep between polls. */
        if (polls < 2000) {
            sched_yield();
        } else {
            struct timespec pause = {0, 50000};
            nanosleep(&pause, NULL);
        }
    }
}

mj_status mj__multi_usable(mj_multi_sorter *m, const char *fn) {
    if (!m->aborted) return MJ_OK;
    return mj__fail(m->ctx, MJ_ERR_INVALID_ARGUMENT, "%s: this sorter's communicator was "
                    "aborted after an earlier failure; destroy the sorter and make a new "
                    "communicator", fn);
}

mj_status mj__multi_scratch(mj_multi_sorter *m, size_t bytes, CUstream stream, char **base) {
    const mj_cuda_api *cu = m->ctx->cu;
    CUresult r = CUDA_SUCCESS;
    if (m->scratch_used) r = cu->stream_wait_event(stream, m->scratch_free, 0);
    if (r == CUDA_SUCCESS && bytes > m->scratch_bytes) {
        /* The last use (an exchange, perhaps) must be over: waited for with the timeout. */
        mj_status st = m->scratch_used ? mj__multi_wait(m, stream) : MJ_OK;
        if (st) return st;
        if (m->scratch) r = cu->mem_free(DPTR(m->scratch));
        if (r == CUDA_SUCCESS) {
            m->scratch = NULL;
            m->scratch_bytes = 0;
            CUdeviceptr p = 0;
            size_t want = bytes + bytes / 16; /* room for shards that vary a little */
            r = cu->mem_alloc(&p, want);
            if (r == CUDA_ERROR_OUT_OF_MEMORY && want > bytes) r = cu->mem_alloc(&p, want = bytes);
            if (r == CUDA_SUCCESS) {
                m->scratch = (void *)(uintptr_t)p;
                m->scratch_bytes = want;
            }
        }
    }
    *base = m->scratch;
    if (r == CUDA_SUCCESS) return MJ_OK;
    char what[96];
    snprintf(what, sizeof what, "the sort's temporary storage (%zu bytes)", bytes);
    return mj__fail_cuda(m->ctx, r, what);
}

void mj__multi_scratch_done(mj_multi_sorter *m, CUstream stream) {
    if (m->ctx->cu->event_record(m->scratch_free, stream) == CUDA_SUCCESS) m->scratch_used = 1;
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
    /* Wait first, with the timeout: a copy to pageable memory returns only once it is done,
     * so queued behind a collective that a rank never joins it would block for ever. */
    mj_status st = mj__multi_wait(m, stream);
    if (st) return st;
    CUresult r = bytes ? cu->memcpy_dtoh_async(host, DPTR(dev), bytes, stream) : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS) r = cu->stream_sync(stream); /* the stream is idle but for the copy */
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

/* 600 s, or $MERGEJIT_MULTI_TIMEOUT. */
static mj_status default_timeout(mj_multi_sorter *m) {
    const char *env = getenv("MERGEJIT_MULTI_TIMEOUT");
    m->timeout = 600;
    if (!env || !*env) return MJ_OK;
    char *end;
    double t = strtod(env, &end);
    if (*end || !isfinite(t) || t < 0)
        return mj__fail(m->ctx, MJ_ERR_INVALID_ARGUMENT, FN ": MERGEJIT_MULTI_TIMEOUT=%s is "
                        "not a number of seconds (0 or more)", env);
    m->timeout = t;
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
    /* The splitters' splits, equal counts, and their brackets' ends (split in multi_sort.c). */
    m->search_out = mj__calloc(4 * P, sizeof *m->search_out);
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
    if (r == CUDA_SUCCESS) r = m->ctx->cu->event_create(&m->scratch_free, CU_EVENT_DISABLE_TIMING);
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
    mj_status st = default_timeout(m);
    if (!st) st = query_comm(m);
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
    if ((m->ctl || m->scratch_free) && mj__ctx_enter(m->ctx) == MJ_OK) {
        const mj_cuda_api *cu = m->ctx->cu;
        if (m->scratch_used) cu->event_sync(m->scratch_free); /* the last call's work */
        if (m->scratch) cu->mem_free(DPTR(m->scratch));
        if (m->scratch_free) cu->event_destroy(m->scratch_free);
        if (m->ctl) cu->mem_free(DPTR(m->ctl));
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

mj_status mj_multi_sorter_set_timeout(mj_multi_sorter *m, double seconds) {
    if (!m) return MJ_ERR_INVALID_ARGUMENT;
    if (!isfinite(seconds) || seconds < 0)
        return mj__fail(m->ctx, MJ_ERR_INVALID_ARGUMENT, "mj_multi_sorter_set_timeout: %g is "
                        "not a number of seconds (0 or more)", seconds);
    m->timeout = seconds;
    return MJ_OK;
}

void mj_multi_sorter_rank(const mj_multi_sorter *m, int *rank, int *ranks) {
    if (rank) *rank = m ? m->rank : -1;
    if (ranks) *ranks = m ? m->ranks : 0;
}
