#include "driver/dl_nccl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "mergejit.h" /* mj_nccl_version: public */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static mj_nccl_api api;
static int loaded;
static char load_error[1024];

static const char *const candidates[] = {"libnccl.so.2", "libnccl.so"};

/* A library without one of the entry points is not the NCCL we need: closed again, and
 * glibc's message for the failed lookup taken and released (dlerror's second call frees it). */
#define SYM(member, name)                                                                   \
    if (!(*(void **)&api.member = dlsym(lib, name))) {                                      \
        snprintf(load_error, sizeof load_error, "NCCL (%s) lacks %s", tried, name);         \
        dlerror();                                                                          \
        dlerror();                                                                          \
        dlclose(lib);                                                                       \
        return;                                                                             \
    }

static void load(void) {
    const char *path = getenv("MERGEJIT_NCCL");
    void *lib = NULL;
    const char *tried = path;
    if (path && *path) {
        lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    } else {
        for (size_t i = 0; !lib && i < sizeof candidates / sizeof *candidates; ++i)
            lib = dlopen(tried = candidates[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib) tried = "libnccl.so.2, then libnccl.so; MERGEJIT_NCCL=<path> names another";
    }
    if (!lib) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load NCCL (%s): %s", tried,
                 why ? why : "unknown error");
        dlerror(); /* frees glibc's message, taken above */
        return;
    }
    SYM(get_version, "ncclGetVersion");
    SYM(error_string, "ncclGetErrorString");
    SYM(comm_count, "ncclCommCount");
    SYM(comm_user_rank, "ncclCommUserRank");
    SYM(comm_cu_device, "ncclCommCuDevice");
    SYM(comm_async_error, "ncclCommGetAsyncError");
    SYM(group_start, "ncclGroupStart");
    SYM(group_end, "ncclGroupEnd");
    SYM(send, "ncclSend");
    SYM(recv, "ncclRecv");
    SYM(all_gather, "ncclAllGather");
    SYM(comm_init_all, "ncclCommInitAll");
    SYM(comm_destroy, "ncclCommDestroy");
    /* ncclSend and ncclRecv came with 2.7; the types and results used here are older. */
    if (api.get_version(&api.version) != MJ_NCCL_SUCCESS || api.version < 2700) {
        snprintf(load_error, sizeof load_error, "NCCL (%s) is older than 2.7 (version %d)",
                 tried, api.version);
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
