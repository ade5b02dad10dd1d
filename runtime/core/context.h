/* SPDX-License-Identifier: Apache-2.0 */
/* The context's insides: its state, lock and last error, entering its primary context, and
 * the table of loaded modules that it owns. Internal. */
#ifndef MJ_CONTEXT_H
#define MJ_CONTEXT_H

#include <pthread.h>
#include <stdint.h>

#include "driver/compile.h"
#include "driver/dl_cuda.h"
#include "gen.h"
#include "mergejit.h"
#include "store/tuning_file.h" /* the context keeps its tuning records by value */

struct mj_bundle_index; /* store/bundle_file.h */

#define MJ_ERROR_CAP 32768
#define MJ_PATH_CAP 4096

/* mj_sorter_source's values; _BUNDLE_PTX: the bundle's PTX, compiled by the driver at load. */
enum {
    MJ_SOURCE_COMPILED = 0,
    MJ_SOURCE_DISK = 1,
    MJ_SOURCE_MEMORY = 2,
    MJ_SOURCE_BUNDLE = 3,
    MJ_SOURCE_BUNDLE_PTX = 4
};

/* One loaded binary and its kernels; lives until the context is destroyed. */
typedef struct mj_module {
    struct mj_module *next;
    uint8_t key[32];
    uint8_t spec_key[32];  /* the spec it was first asked for (core/loader.c), if has_spec_key */
    int has_spec_key;
    CUmodule images[MJ_KERNELS_MAX]; /* one per kernel image (store/kernel_pack.h); none in
                                        compile-only contexts */
    int image_count;
    mj_primitive primitive; /* whose row its kernels index */
    mj_kernel_set kernels; /* bit k: fn[k] is set, for kernel k of the primitive's row (all of
                              its kernels, or the part a sorter asked for: core/loader.h) */
    CUfunction fn[MJ_KERNELS_MAX];
    int source;            /* MJ_SOURCE_COMPILED, _DISK, _BUNDLE or _BUNDLE_PTX: how it
                              first arrived */
    int code_sm;           /* the sm its code was compiled for, which may be older than the
                              device's (PTX, a same-major cubin) */
    double build_ms;
    mj_build_times times;  /* compiled in this process: how the build spent its time */
    size_t binary_size;
    int registers;         /* ptxas's figures; -1 unknown */
    long spill_bytes;
    int resident;          /* blocks of the module's kernel sized by residency (catalog.h:
                              mj__resident_kernel) resident on the device at once (0 unknown
                              or none) */
} mj_module;

struct mj_context {
    pthread_mutex_t lock;  /* guards modules and error */
    char error[MJ_ERROR_CAP];
    unsigned flags;
    int device_ordinal;
    int sm;                /* the device's (or the requested) compute capability, e.g. 90 */
    int sm_count;          /* multiprocessors (0 in compile-only contexts) */
    char cache_dir[MJ_PATH_CAP]; /* "" when the disk cache is off */
    uint64_t cache_max;    /* the cache's size cap in bytes (UINT64_MAX: none) */
    char device_name[256];
    const mj_cuda_api *cu; /* NULL in compile-only contexts */
    CUdevice device;
    CUcontext primary;
    mj_module *modules;
    char tuning_path[MJ_PATH_CAP]; /* "" when no tuning file was read */
    mj_tuning tuning;      /* the records of this device and sm */
    char bundle_path[MJ_PATH_CAP]; /* "" when the context has no bundle */
    struct mj_bundle_index *bundle;
    pthread_t nvrtc_thread; /* opening NVRTC beside the device's start (context.c) */
    int nvrtc_preloading;   /* nvrtc_thread runs or ran: joined at destroy */
};

/* Records a message (printf-style) as the context's last error and returns status. */
mj_status mj__fail(mj_context *ctx, mj_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* For a failed driver call: MJ_ERR_DEVICE_MEMORY for out-of-memory, else MJ_ERR_CUDA, with
 * `what` and the driver's description of r. */
mj_status mj__fail_cuda(mj_context *ctx, CUresult r, const char *what);

/* Makes the context's primary context current on this thread for the duration of a call. */
mj_status mj__ctx_enter(mj_context *ctx);
void mj__ctx_leave(mj_context *ctx);

/* The tuning file path that `option` (a context option or mj_tuning_save's argument) names,
 * else the default one ("" when none can be formed); *named says whether someone named it,
 * as an option or $MERGEJIT_TUNING. path has room for MJ_PATH_CAP bytes. */
mj_status mj__tuning_path(mj_context *ctx, const char *option, char *path, int *named);

#endif
