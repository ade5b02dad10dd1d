/* SPDX-License-Identifier: Apache-2.0 */
#include "driver/dl_nccl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "driver/dl_open.h"
#include "mergejit.h" /* mj_nccl_version: public */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static mj_nccl_api api;
static int loaded;
static char load_error[1024];

static const char *const candidates[] = {"libnccl.so.2", "libnccl.so"};
static const mj_dl_library nccl = {"NCCL", "MERGEJIT_NCCL", candidates,
                                   sizeof candidates / sizeof *candidates};

static void load(void) {
    const char *opened;
    void *lib = mj__dl_open(&nccl, &opened, load_error, sizeof load_error);
    if (!lib) return;
    const mj_dl_symbol syms[] = {
        {"ncclGetVersion", &api.get_version},
        {"ncclGetErrorString", &api.error_string},
        {"ncclCommCount", &api.comm_count},
        {"ncclCommUserRank", &api.comm_user_rank},
        {"ncclCommCuDevice", &api.comm_cu_device},
        {"ncclCommGetAsyncError", &api.comm_async_error},
        {"ncclGroupStart", &api.group_start},
        {"ncclGroupEnd", &api.group_end},
        {"ncclSend", &api.send},
        {"ncclRecv", &api.recv},
        {"ncclAllGather", &api.all_gather},
        {"ncclCommInitAll", &api.comm_init_all},
        {"ncclGetUniqueId", &api.get_unique_id},
        {"ncclCommInitRank", &api.comm_init_rank},
        {"ncclCommDestroy", &api.comm_destroy},
        {"ncclCommAbort", &api.comm_abort},
    };
    if (mj__dl_resolve(lib, &nccl, opened, syms, sizeof syms / sizeof *syms, load_error,
                       sizeof load_error))
        return;
    /* ncclSend and ncclRecv came with 2.7; the types and results used here are older. */
    if (api.get_version(&api.version) != MJ_NCCL_SUCCESS || api.version < 2700) {
        snprintf(load_error, sizeof load_error, "NCCL (%s) is older than 2.7 (version %d)",
                 opened, api.version);
        dlclose(lib);
        return;
    }
    loaded = 1;
}

const mj_nccl_api *mj__nccl_load(char *err, size_t errcap) {
    pthread_once(&once, load);
    if (!loaded && err) snprintf(err, errcap, "%s", load_error);
    return loaded ? &api : NULL;
}

void mj__nccl_describe(const mj_nccl_api *a, int result, char *out, size_t cap) {
    static const char *const names[] = {"ncclSuccess",       "ncclUnhandledCudaError",
                                        "ncclSystemError",   "ncclInternalError",
                                        "ncclInvalidArgument", "ncclInvalidUsage",
                                        "ncclRemoteError",   "ncclInProgress"};
    const char *name = result >= 0 && result < 8 ? names[result] : "NCCL error";
    const char *text = a ? a->error_string(result) : NULL;
    snprintf(out, cap, "%s (%d): %s", name, result, text ? text : "no description");
}

int mj_nccl_version(void) {
    const mj_nccl_api *nc = mj__nccl_load(NULL, 0);
    return nc ? nc->version : 0;
}
