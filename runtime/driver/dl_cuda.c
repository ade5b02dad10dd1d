/* SPDX-License-Identifier: Apache-2.0 */
#include "driver/dl_cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "driver/dl_open.h"
#include "mergejit.h" /* mj_driver_version: public */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static mj_cuda_api api;
static int loaded;
static char load_error[512];

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t,
                                CUdriverProcAddressQueryResult *);

/* Driver entry points are looked up by base name through cuGetProcAddress, which returns the
 * variant matching the API version we were written against (12.0, so 12.x drivers work). */
static int resolve(get_proc_fn get, const char *name, void **slot, int required) {
    CUdriverProcAddressQueryResult found;
    if (get(name, slot, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS ||
        found != CU_GET_PROC_ADDRESS_SUCCESS || !*slot) {
        *slot = NULL;
        if (required) {
            snprintf(load_error, sizeof load_error,
                     "the CUDA driver lacks %s (driver too old for mergejit)", name);
            return -1;
        }
    }
    return 0;
}

#define RESOLVE(member, name, required)                                                     \
    if (resolve(get, name, (void **)&api.member, required)) return

static const char *const candidates[] = {"libcuda.so.1"};
static const mj_dl_library libcuda = {"the CUDA driver", "MERGEJIT_LIBCUDA", candidates, 1};

static void load(void) {
    const char *opened;
    void *lib = mj__dl_open(&libcuda, &opened, load_error, sizeof load_error);
    if (!lib) return;
    get_proc_fn get = (get_proc_fn)dlsym(lib, "cuGetProcAddress_v2");
    if (!get) {
        snprintf(load_error, sizeof load_error,
                 "the CUDA driver (%s) is older than 12.0 (no cuGetProcAddress_v2)", opened);
        return;
    }
    RESOLVE(init, "cuInit", 1);
    RESOLVE(driver_version, "cuDriverGetVersion", 1);
    RESOLVE(device_count, "cuDeviceGetCount", 1);
    RESOLVE(device_get, "cuDeviceGet", 1);
    RESOLVE(device_name, "cuDeviceGetName", 1);
    RESOLVE(device_attribute, "cuDeviceGetAttribute", 1);
    RESOLVE(primary_retain, "cuDevicePrimaryCtxRetain", 1);
    RESOLVE(primary_release, "cuDevicePrimaryCtxRelease", 1);
    RESOLVE(ctx_push, "cuCtxPushCurrent", 1);
    RESOLVE(ctx_pop, "cuCtxPopCurrent", 1);
    RESOLVE(module_load_data_ex, "cuModuleLoadDataEx", 1);
    RESOLVE(module_unload, "cuModuleUnload", 1);
    RESOLVE(module_function, "cuModuleGetFunction", 1);
    RESOLVE(launch, "cuLaunchKernel", 1);
    RESOLVE(launch_ex, "cuLaunchKernelEx", 0); /* overlapped launches fall back without it */
    RESOLVE(mem_alloc, "cuMemAlloc", 1);
    RESOLVE(mem_free, "cuMemFree", 1);
    RESOLVE(mem_alloc_async, "cuMemAllocAsync", 0);
    RESOLVE(mem_free_async, "cuMemFreeAsync", 0);
    RESOLVE(memcpy_htod, "cuMemcpyHtoD", 1);
    RESOLVE(memcpy_dtoh, "cuMemcpyDtoH", 1);
    RESOLVE(memcpy_dtod_async, "cuMemcpyDtoDAsync", 1);
    RESOLVE(memcpy_htod_async, "cuMemcpyHtoDAsync", 1);
    RESOLVE(memcpy_dtoh_async, "cuMemcpyDtoHAsync", 1);
    RESOLVE(memcpy_2d_async, "cuMemcpy2DAsync", 1);
    RESOLVE(memset_d8_async, "cuMemsetD8Async", 1);
    RESOLVE(stream_sync, "cuStreamSynchronize", 1);
    RESOLVE(stream_query, "cuStreamQuery", 1);
    RESOLVE(stream_wait_event, "cuStreamWaitEvent", 1);
    RESOLVE(ctx_sync, "cuCtxSynchronize", 1);
    RESOLVE(event_create, "cuEventCreate", 1);
    RESOLVE(event_record, "cuEventRecord", 1);
    RESOLVE(event_sync, "cuEventSynchronize", 1);
    RESOLVE(event_elapsed, "cuEventElapsedTime", 1);
    RESOLVE(event_destroy, "cuEventDestroy", 1);
    RESOLVE(error_name, "cuGetErrorName", 1);
    RESOLVE(error_string, "cuGetErrorString", 1);
    RESOLVE(pointer_attribute, "cuPointerGetAttribute", 1);
    RESOLVE(mem_info, "cuMemGetInfo", 1);
    RESOLVE(occupancy, "cuOccupancyMaxActiveBlocksPerMultiprocessor", 1);
    if (!api.mem_free_async) api.mem_alloc_async = NULL; /* use both or neither */
    CUresult r = api.init(0);
    if (r != CUDA_SUCCESS) {
        char what[200];
        mj__cuda_describe(&api, r, what, sizeof what);
        snprintf(load_error, sizeof load_error, "the CUDA driver failed to initialise: %s",
                 what);
        return;
    }
    loaded = 1;
}

const mj_cuda_api *mj__cuda_load(char *err, size_t errcap) {
    pthread_once(&once, load);
    if (!loaded && err) snprintf(err, errcap, "%s", load_error);
    return loaded ? &api : NULL;
}

void mj__cuda_describe(const mj_cuda_api *a, CUresult r, char *out, size_t cap) {
    const char *name = NULL, *text = NULL;
    if (a && a->error_name) a->error_name(r, &name);
    if (a && a->error_string) a->error_string(r, &text);
    snprintf(out, cap, "%s (%d): %s", name ? name : "CUDA error", (int)r,
             text ? text : "no description");
}

int mj_driver_version(void) {
    const mj_cuda_api *cu = mj__cuda_load(NULL, 0);
    int v = 0;
    if (cu && cu->driver_version(&v) != CUDA_SUCCESS) v = 0;
    return v;
}
