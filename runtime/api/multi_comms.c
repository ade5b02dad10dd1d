/* SPDX-License-Identifier: Apache-2.0 */
/* Communicators for programs that do not link NCCL (public: mergejit.h): all of one process's
 * devices through ncclCommInitAll, one rank a process through ncclGetUniqueId and
 * ncclCommInitRank, and their destruction. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/host_alloc.h"
#include "core/context.h"
#include "driver/dl_cuda.h"
#include "driver/dl_nccl.h"
#include "mergejit.h"

static mj_status say(char *err, size_t cap, mj_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static mj_status say(char *err, size_t cap, mj_status st, const char *fmt, ...) {
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return st;
}

mj_status mj_multi_comms_create(int count, const int *devices, void **comms, char *err,
                                size_t err_cap) {
    if (err && err_cap) err[0] = '\0';
    if (count < 1 || !comms)
        return say(err, err_cap, MJ_ERR_INVALID_ARGUMENT, "mj_multi_comms_create: count must be "
                   "at least 1 (it is %d) and comms not NULL", count);
    for (int i = 0; i < count; ++i) comms[i] = NULL;
    char why[1024];
    const mj_nccl_api *nc = mj__nccl_load(why, sizeof why);
    if (!nc) return say(err, err_cap, MJ_ERR_UNSUPPORTED, "%s", why);
    const mj_cuda_api *cu = mj__cuda_load(why, sizeof why);
    if (!cu) return say(err, err_cap, MJ_ERR_NO_DRIVER, "%s", why);
    int have = 0;
    if (cu->device_count(&have) != CUDA_SUCCESS || have < 1)
        return say(err, err_cap, MJ_ERR_NO_DEVICE, "no CUDA device");
    for (int i = 0; i < count; ++i) {
        int d = devices ? devices[i] : i;
        if (d < 0 || d >= have)
            return say(err, err_cap, MJ_ERR_NO_DEVICE, "device %d does not exist (%d device%s)",
                        d, have, have == 1 ? "" : "s");
        for (int j = 0; j < i; ++j)
            if (devices && devices[j] == d)
                return say(err, err_cap, MJ_ERR_INVALID_ARGUMENT, "device %d is named twice: "
                           "one rank a device", d);
    }
    mj_nccl_comm *made = mj__calloc((size_t)count, sizeof *made);
    if (!made) return say(err, err_cap, MJ_ERR_HOST_MEMORY, "out of host memory");
    int r = nc->comm_init_all(made, count, devices);
    if (r != MJ_NCCL_SUCCESS) {
        mj__nccl_describe(nc, r, why, sizeof why);
        free(made);
        return say(err, err_cap, MJ_ERR_CUDA, "ncclCommInitAll failed: %s", why);
    }
    for (int i = 0; i < count; ++i) comms[i] = made[i];
    free(made);
    return MJ_OK;
}

mj_status mj_multi_id_create(mj_multi_id *id, char *err, size_t err_cap) {
    if (err && err_cap) err[0] = '\0';
    if (!id)
        return say(err, err_cap, MJ_ERR_INVALID_ARGUMENT, "mj_multi_id_create: id is NULL");
    char why[1024];
    const mj_nccl_api *nc = mj__nccl_load(why, sizeof why);
    if (!nc) return say(err, err_cap, MJ_ERR_UNSUPPORTED, "%s", why);
    mj_nccl_unique_id made;
    int r = nc->get_unique_id(&made);
    if (r != MJ_NCCL_SUCCESS) {
        mj__nccl_describe(nc, r, why, sizeof why);
        return say(err, err_cap, MJ_ERR_CUDA, "ncclGetUniqueId failed: %s", why);
    }
    memcpy(id->bytes, made.internal, sizeof id->bytes);
    return MJ_OK;
}

mj_status mj_multi_comm_create(mj_context *ctx, const mj_multi_id *id, int ranks, int rank,
                               void **comm) {
    if (!ctx) return MJ_ERR_INVALID_ARGUMENT;
    if (!id || !comm)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "mj_multi_comm_create: id and comm are "
                        "required");
    *comm = NULL;
    if (ranks < 1 || rank < 0 || rank >= ranks)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "mj_multi_comm_create: rank %d of %d is "
                        "out of range (ranks must be at least 1, 0 <= rank < ranks)", rank, ranks);
    char why[1024];
    const mj_nccl_api *nc = mj__nccl_load(why, sizeof why);
    if (!nc) return mj__fail(ctx, MJ_ERR_UNSUPPORTED, "mj_multi_comm_create: %s", why);
    if (!ctx->cu)
        return mj__fail(ctx, MJ_ERR_UNSUPPORTED, "mj_multi_comm_create: this context is "
                        "compile-only: it has no device");
    /* NCCL takes the device of the current context: ctx's. */
    mj_status st = mj__ctx_enter(ctx);
    if (st) return st;
    mj_nccl_unique_id u;
    memcpy(u.internal, id->bytes, sizeof u.internal);
    mj_nccl_comm made = NULL;
    int r = nc->comm_init_rank(&made, ranks, u, rank);
    mj__ctx_leave(ctx);
    if (r != MJ_NCCL_SUCCESS) {
        mj__nccl_describe(nc, r, why, sizeof why);
        return mj__fail(ctx, MJ_ERR_CUDA, "mj_multi_comm_create: ncclCommInitRank (rank %d of "
                        "%d) failed: %s", rank, ranks, why);
    }
    *comm = made;
    return MJ_OK;
}

void mj_multi_comms_destroy(int count, void **comms) {
    if (!comms || count < 1) return;
    const mj_nccl_api *nc = mj__nccl_load(NULL, 0);
    for (int i = 0; nc && i < count; ++i)
        if (comms[i]) nc->comm_destroy(comms[i]);
}
