/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA driver API, opened with dlopen at first use so that the library loads and runs on
 * machines without a driver. cuda.h is used for its types only. Internal.
 * MERGEJIT_LIBCUDA names another library file to open (tests use it to simulate a machine
 * without a driver). */
#ifndef MJ_DL_CUDA_H
#define MJ_DL_CUDA_H

#include <cuda.h>
#include <stddef.h>

typedef struct mj_cuda_api {
    CUresult (*init)(unsigned);
    CUresult (*driver_version)(int *);
    CUresult (*device_count)(int *);
    CUresult (*device_get)(CUdevice *, int);
    CUresult (*device_name)(char *, int, CUdevice);
    CUresult (*device_attribute)(int *, CUdevice_attribute, CUdevice);
    CUresult (*primary_retain)(CUcontext *, CUdevice);
    CUresult (*primary_release)(CUdevice);
    CUresult (*ctx_push)(CUcontext);
    CUresult (*ctx_pop)(CUcontext *);
    CUresult (*module_load_data_ex)(CUmodule *, const void *, unsigned, CUjit_option *,
                                    void **);
    CUresult (*module_unload)(CUmodule);
    CUresult (*module_function)(CUfunction *, CUmodule, const char *);
    CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       unsigned, CUstream, void **, void **);
    CUresult (*launch_ex)(const CUlaunchConfig *, CUfunction, void **, void **); /* or NULL */
    CUresult (*mem_alloc)(CUdeviceptr *, size_t);
    CUresult (*mem_free)(CUdeviceptr);
    CUresult (*mem_alloc_async)(CUdeviceptr *, size_t, CUstream); /* NULL on old drivers */
    CUresult (*mem_free_async)(CUdeviceptr, CUstream);
    CUresult (*memcpy_htod)(CUdeviceptr, const void *, size_t);
    CUresult (*memcpy_dtoh)(void *, CUdeviceptr, size_t);
    CUresult (*memcpy_dtod_async)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*memcpy_htod_async)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*memcpy_dtoh_async)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*memcpy_2d_async)(const CUDA_MEMCPY2D *, CUstream);
    CUresult (*memset_d8_async)(CUdeviceptr, unsigned char, size_t, CUstream);
    CUresult (*stream_sync)(CUstream);
    CUresult (*stream_query)(CUstream);
    CUresult (*stream_wait_event)(CUstream, CUevent, unsigned);
    CUresult (*ctx_sync)(void);
    CUresult (*event_create)(CUevent *, unsigned);
    CUresult (*event_record)(CUevent, CUstream);
    CUresult (*event_sync)(CUevent);
    CUresult (*event_elapsed)(float *, CUevent, CUevent);
    CUresult (*event_destroy)(CUevent);
    CUresult (*error_name)(CUresult, const char **);
    CUresult (*error_string)(CUresult, const char **);
    CUresult (*pointer_attribute)(void *, CUpointer_attribute, CUdeviceptr);
    CUresult (*mem_info)(size_t *, size_t *);
    CUresult (*occupancy)(int *, CUfunction, int, size_t);
} mj_cuda_api;

/* The loaded and initialised (cuInit) driver, or NULL with the reason copied into err.
 * Loads once per process; later calls return the same answer. */
const mj_cuda_api *mj__cuda_load(char *err, size_t errcap);

/* "CUDA_ERROR_OUT_OF_MEMORY: out of memory" style text for a result. */
void mj__cuda_describe(const mj_cuda_api *api, CUresult r, char *out, size_t cap);

#endif
