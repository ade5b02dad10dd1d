/* SPDX-License-Identifier: Apache-2.0 */
/* A CUDA driver with one device that runs nothing, for tests of the tool's host side (the
 * tuner's pipeline: builders, measuring loop, checks, reports) on machines without a GPU.
 * Loaded through MERGEJIT_LIBCUDA. Device memory is host memory, copies are memcpy, modules
 * and kernels are tokens, launches do nothing and every timed span lasts 1 ms. A kernel's
 * output is therefore whatever its buffer held; with MJT_FAKE_CUDA_SORT=1 in the environment
 * every device-to-host copy of a whole number of 4-byte words arrives sorted as u32, so that
 * the tuner's checks of 4-byte-key sorts pass (its one download of a sort is the output). */
#include <cuda.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PTR(d) ((void *)(uintptr_t)(d))

static int context_token;

static CUresult ok_init(unsigned flags) { (void)flags; return CUDA_SUCCESS; }
static CUresult driver_version(int *v) { *v = 13000; return CUDA_SUCCESS; }
static CUresult device_count(int *n) { *n = 1; return CUDA_SUCCESS; }
static CUresult device_get(CUdevice *d, int ordinal)
{
    *d = 0;
    return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
static CUresult device_name(char *name, int len, CUdevice d)
{
    (void)d;
    if (len > 0) {
        strncpy(name, "fake GPU (runs nothing)", (size_t)len - 1);
        name[len - 1] = '\0';
    }
    return CUDA_SUCCESS;
}
static CUresult device_attribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: *v = 1 << 30; break;
    default: *v = 1; break;
    }
    return CUDA_SUCCESS;
}
static CUresult primary_retain(CUcontext *c, CUdevice d)
{
    (void)d;
    *c = (CUcontext)(void *)&context_token;
    return CUDA_SUCCESS;
}
static CUresult primary_release(CUdevice d) { (void)d; return CUDA_SUCCESS; }
static CUresult ctx_push(CUcontext c) { (void)c; return CUDA_SUCCESS; }
static CUresult ctx_pop(CUcontext *c)
{
    if (c)
        *c = (CUcontext)(void *)&context_token;
    return CUDA_SUCCESS;
}
static CUresult module_load(CUmodule *m, const void *image, unsigned n, CUjit_option *o,
                            void **v)
{
    (void)image, (void)n, (void)o, (void)v;
    *m = malloc(1);
    return *m ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult module_unload(CUmodule m) { free(m); return CUDA_SUCCESS; }
static CUresult module_function(CUfunction *f, CUmodule m, const char *name)
{
    (void)name;
    *f = (CUfunction)(void *)m;
    return CUDA_SUCCESS;
}
static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned smem, CUstream s, void **params,
                       void **extra)
{
    (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)smem, (void)s;
    (void)params, (void)extra;
    return CUDA_SUCCESS;
}
static CUresult mem_alloc(CUdeviceptr *p, size_t bytes)
{
    size_t whole = (bytes + 255) / 256 * 256; /* aligned as cuMemAlloc's are */
    void *m = aligned_alloc(256, whole ? whole : 256);
    if (m)
        memset(m, 0, whole);
    *p = (CUdeviceptr)(uintptr_t)m;
    return m ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult mem_free(CUdeviceptr p) { free(PTR(p)); return CUDA_SUCCESS; }
static CUresult htod(CUdeviceptr d, const void *h, size_t n)
{
    memcpy(PTR(d), h, n);
    return CUDA_SUCCESS;
}
static int cmp_u32(const void *a, const void *b)
{
    uint32_t x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    return (x > y) - (x < y);
}
static CUresult dtoh(void *h, CUdeviceptr d, size_t n)
{
    memcpy(h, PTR(d), n);
    const char *sort = getenv("MJT_FAKE_CUDA_SORT");
    if (sort && strcmp(sort, "1") == 0 && n % 4 == 0)
        qsort(h, n / 4, 4, cmp_u32);
    return CUDA_SUCCESS;
}
static CUresult dtod_async(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
    (void)st;
    memmove(PTR(d), PTR(s), n);
    return CUDA_SUCCESS;
}
static CUresult htod_async(CUdeviceptr d, const void *h, size_t n, CUstream st)
{
    (void)st;
    return htod(d, h, n);
}
static CUresult dtoh_async(void *h, CUdeviceptr d, size_t n, CUstream st)
{
    (void)st;
    return dtoh(h, d, n);
}
static CUresult memcpy_2d(const CUDA_MEMCPY2D *c, CUstream st)
{
    (void)st;
    const char *src = c->srcMemoryType == CU_MEMORYTYPE_HOST ? c->srcHost : PTR(c->srcDevice);
    char *dst = c->dstMemoryType == CU_MEMORYTYPE_HOST ? c->dstHost : PTR(c->dstDevice);
    for (size_t y = 0; y < c->Height; y++)
        memmove(dst + (c->dstY + y) * c->dstPitch + c->dstXInBytes,
                src + (c->srcY + y) * c->srcPitch + c->srcXInBytes, c->WidthInBytes);
    return CUDA_SUCCESS;
}
static CUresult memset_d8(CUdeviceptr d, unsigned char v, size_t n, CUstream st)
{
    (void)st;
    memset(PTR(d), v, n);
    return CUDA_SUCCESS;
}
static CUresult stream_query(CUstream s) { (void)s; return CUDA_SUCCESS; }
static CUresult stream_wait_event(CUstream s, CUevent e, unsigned flags)
{
    (void)s, (void)e, (void)flags;
    return CUDA_SUCCESS;
}
static CUresult stream_sync(CUstream s) { (void)s; return CUDA_SUCCESS; }
static CUresult ctx_sync(void) { return CUDA_SUCCESS; }
static CUresult event_create(CUevent *e, unsigned flags)
{
    (void)flags;
    *e = malloc(1);
    return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult event_record(CUevent e, CUstream s) { (void)e, (void)s; return CUDA_SUCCESS; }
static CUresult event_sync(CUevent e) { (void)e; return CUDA_SUCCESS; }
static CUresult event_elapsed(float *ms, CUevent a, CUevent b)
{
    (void)a, (void)b;
    *ms = 1.0f;
    return CUDA_SUCCESS;
}
static CUresult event_destroy(CUevent e) { free(e); return CUDA_SUCCESS; }
static CUresult error_name(CUresult r, const char **s)
{
    (void)r;
    *s = "CUDA_ERROR_FAKE";
    return CUDA_SUCCESS;
}
static CUresult error_string(CUresult r, const char **s)
{
    (void)r;
    *s = "an error of the fake driver";
    return CUDA_SUCCESS;
}
static CUresult pointer_attribute(void *data, CUpointer_attribute a, CUdeviceptr p)
{
    (void)p;
    if (a != CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned type = CU_MEMORYTYPE_DEVICE;
    memcpy(data, &type, sizeof type);
    return CUDA_SUCCESS;
}
static CUresult mem_info(size_t *free_bytes, size_t *total)
{
    *free_bytes = (size_t)64 << 30;
    *total = (size_t)80 << 30;
    return CUDA_SUCCESS;
}
static CUresult occupancy(int *blocks, CUfunction f, int threads, size_t smem)
{
    (void)f, (void)smem;
    *blocks = threads > 0 && 2048 / threads > 0 ? 2048 / threads : 1;
    return CUDA_SUCCESS;
}

static const struct {
    const char *name;
    void *fn;
} table[] = {
    {"cuInit", (void *)ok_init},
    {"cuDriverGetVersion", (void *)driver_version},
    {"cuDeviceGetCount", (void *)device_count},
    {"cuDeviceGet", (void *)device_get},
    {"cuDeviceGetName", (void *)device_name},
    {"cuDeviceGetAttribute", (void *)device_attribute},
    {"cuDevicePrimaryCtxRetain", (void *)primary_retain},
    {"cuDevicePrimaryCtxRelease", (void *)primary_release},
    {"cuCtxPushCurrent", (void *)ctx_push},
    {"cuCtxPopCurrent", (void *)ctx_pop},
    {"cuModuleLoadDataEx", (void *)module_load},
    {"cuModuleUnload", (void *)module_unload},
    {"cuModuleGetFunction", (void *)module_function},
    {"cuLaunchKernel", (void *)launch},
    {"cuMemAlloc", (void *)mem_alloc},
    {"cuMemFree", (void *)mem_free},
    {"cuMemcpyHtoD", (void *)htod},
    {"cuMemcpyDtoH", (void *)dtoh},
    {"cuMemcpyDtoDAsync", (void *)dtod_async},
    {"cuMemcpyHtoDAsync", (void *)htod_async},
    {"cuMemcpyDtoHAsync", (void *)dtoh_async},
    {"cuMemcpy2DAsync", (void *)memcpy_2d},
    {"cuMemsetD8Async", (void *)memset_d8},
    {"cuStreamSynchronize", (void *)stream_sync},
    {"cuStreamQuery", (void *)stream_query},
    {"cuStreamWaitEvent", (void *)stream_wait_event},
    {"cuCtxSynchronize", (void *)ctx_sync},
    {"cuEventCreate", (void *)event_create},
    {"cuEventRecord", (void *)event_record},
    {"cuEventSynchronize", (void *)event_sync},
    {"cuEventElapsedTime", (void *)event_elapsed},
    {"cuEventDestroy", (void *)event_destroy},
    {"cuGetErrorName", (void *)error_name},
    {"cuGetErrorString", (void *)error_string},
    {"cuPointerGetAttribute", (void *)pointer_attribute},
    {"cuMemGetInfo", (void *)mem_info},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessor", (void *)occupancy},
};

/* What the library resolves every entry point through; the rest (stream-ordered allocation,
 * extended launches) is reported missing, as on an old driver. */
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status)
{
    (void)version, (void)flags;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (strcmp(symbol, table[i].name) == 0) {
            *pfn = table[i].fn;
            if (status)
                *status = CU_GET_PROC_ADDRESS_SUCCESS;
            return CUDA_SUCCESS;
        }
    *pfn = NULL;
    if (status)
        *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}
