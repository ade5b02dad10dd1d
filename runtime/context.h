/* The context's insides, shared by the runtime's files. Internal. */
#ifndef MJ_CONTEXT_H
#define MJ_CONTEXT_H

#include <pthread.h>
#include <stdint.h>

#include "bundle_file.h"
#include "cache.h"
#include "compile.h"
#include "dl_cuda.h"
#include "gen.h"
#include "mergejit.h"
#include "tuning_file.h"

#define MJ_ERROR_CAP 32768
#define MJ_PATH_CAP 4096

enum { MJ_SOURCE_COMPILED = 0, MJ_SOURCE_DISK = 1, MJ_SOURCE_MEMORY = 2, MJ_SOURCE_BUNDLE = 3 };

/* One loaded binary and its kernels; lives until the context is destroyed. */
typedef struct mj_module {
    struct mj_module *next;
    uint8_t key[32];
    CUmodule module;       /* 0 in compile-only contexts */
    CUfunction fn[MJ_K_COUNT]; /* those of mj_primitive_kernels(primitive) */
    int source;            /* MJ_SOURCE_COMPILED, _DISK or _BUNDLE: how it first arrived */
    double build_ms;
    size_t binary_size;
    int registers;         /* ptxas's figures; -1 unknown */
    long spill_bytes;
    int merge_resident;    /* merges: mj_merge_arrays blocks resident at once (0 unknown) */
} mj_module;

struct mj_context {
    pthread_mutex_t lock;  /* guards modules and error */
    char error[MJ_ERROR_CAP];
    unsigned flags;
    int device_ordinal;
    int sm;                /* the device's (or the requested) compute capability, e.g. 90 */
    int sm_count;          /* multiprocessors (0 in compile-only contexts) */
    char cache_dir[MJ_PATH_CAP]; /* "" when the disk cache is off */
    char device_name[256];
    const mj_cuda_api *cu; /* NULL in compile-only contexts */
    CUdevice device;
    CUcontext primary;
    mj_module *modules;
    char tuning_path[MJ_PATH_CAP]; /* "" when no tuning file was read */
    mj_tuning tuning;      /* the records of this device and sm */
    char bundle_path[MJ_PATH_CAP]; /* "" when the context has no bundle */
    mj_bundle_index *bundle;
};

/* Records a message (printf-style) as the context's last error and returns status. */
mj_status mj_fail(mj_context *ctx, mj_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* For a failed driver call: MJ_ERR_DEVICE_MEMORY for out-of-memory, else MJ_ERR_CUDA, with
 * `what` and the driver's description of r. */
mj_status mj_fail_cuda(mj_context *ctx, CUresult r, const char *what);

/* Makes the context's primary context current on this thread for the duration of a call. */
mj_status mj_ctx_enter(mj_context *ctx);
void mj_ctx_leave(mj_context *ctx);

/* A compiled binary and where it came from. */
typedef struct mj_binary {
    uint8_t key[32];       /* the disk cache's key */
    void *data;            /* malloc'd; NULL when source is MJ_SOURCE_MEMORY */
    size_t size;
    mj_cache_meta meta;    /* ptxas's figures, -1 unknown */
    int source;            /* MJ_SOURCE_COMPILED, _DISK, or _MEMORY (already loaded) */
} mj_binary;

/* The binary for spec from the disk cache or NVRTC; unless need_data, only the news
 * (source MJ_SOURCE_MEMORY, data NULL) when the context has loaded it already. */
mj_status mj_binary_get(mj_context *ctx, const mj_kernel_spec *spec, int need_data,
                        mj_binary *out);

/* The module for spec: from the context's bundle (entry: its record for spec's request, or
 * NULL), memory, the disk cache, or NVRTC. *source tells which (MJ_SOURCE_*), *ms how long
 * this call took. */
mj_status mj_module_get(mj_context *ctx, const mj_kernel_spec *spec,
                        const mj_bundle_entry *entry, const mj_module **out, int *source,
                        double *ms);
void mj_modules_free(mj_context *ctx);

/* Default tile shapes for a key size and value size on an sm: the merge tile (nt x vt) and
 * the blocksort's threads (bs_nt x vt). */
void mj_default_tile(mj_primitive primitive, int sm, size_t key_size, size_t value_size,
                     int *nt, int *vt, int *bs_nt);

/* Checks desc and fills spec from it for the context's sm, without a tile. */
mj_status mj_spec_from_desc(mj_context *ctx, const mj_sort_desc *desc, mj_kernel_spec *spec);

/* Sets spec's tile: the description's own, else MERGEJIT_TILE, else the bundle's entry for
 * the request (*entry, NULL when none), else the tuning file's record, else the default. */
mj_status mj_choose_tile(mj_context *ctx, const mj_sort_desc *desc, mj_kernel_spec *spec,
                         const mj_bundle_entry **entry);

/* Reads the tuning file and bundle that the options name (at context creation). */
mj_status mj_tuning_open(mj_context *ctx, const char *option);
mj_status mj_bundle_open(mj_context *ctx, const char *option);

double mj_now_ms(void);

#endif
