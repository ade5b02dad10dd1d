/* SPDX-License-Identifier: Apache-2.0 */
/* Contexts: device, primary context, cache directory, last error; the tuning records and the
 * bundle index read at creation, and the module table, which the context owns. */
#include "core/context.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_io.h"
#include "base/host_alloc.h"
#include "driver/dl_nvrtc.h"
#include "store/bundle_file.h"
#include "store/bundle_read.h"
#include "store/cache.h"
#include "store/tuning_file.h"
#include "store/tuning_parse.h"

mj_status mj__fail(mj_context *ctx, mj_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&ctx->lock);
    vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
    pthread_mutex_unlock(&ctx->lock);
    va_end(ap);
    return status;
}

mj_status mj__fail_cuda(mj_context *ctx, CUresult r, const char *what) {
    char text[256];
    mj__cuda_describe(ctx->cu, r, text, sizeof text);
    return mj__fail(ctx, r == CUDA_ERROR_OUT_OF_MEMORY ? MJ_ERR_DEVICE_MEMORY : MJ_ERR_CUDA,
                    "%s failed: %s", what, text);
}

mj_status mj__ctx_enter(mj_context *ctx) {
    if (!ctx->cu)
        return mj__fail(ctx, MJ_ERR_UNSUPPORTED,
                        "this context is compile-only: it has no device to run on");
    CUresult r = ctx->cu->ctx_push(ctx->primary);
    return r == CUDA_SUCCESS ? MJ_OK : mj__fail_cuda(ctx, r, "cuCtxPushCurrent");
}

void mj__ctx_leave(mj_context *ctx) {
    CUcontext popped;
    ctx->cu->ctx_pop(&popped);
}

void mj_context_options_init(mj_context_options *options) {
    memset(options, 0, sizeof *options);
    options->target_sm = 90;
}

static mj_status open_device(mj_context *ctx) {
    char err[512];
    const mj_cuda_api *cu = mj__cuda_load(err, sizeof err);
    if (!cu) return mj__fail(ctx, MJ_ERR_NO_DRIVER, "%s", err);
    ctx->cu = cu;
    int count = 0;
    CUresult r = cu->device_count(&count);
    if (r != CUDA_SUCCESS) return mj__fail_cuda(ctx, r, "cuDeviceGetCount");
    if (ctx->device_ordinal < 0 || ctx->device_ordinal >= count)
        return mj__fail(ctx, MJ_ERR_NO_DEVICE, "no CUDA device %d: the driver reports %d device%s",
                        ctx->device_ordinal, count, count == 1 ? "" : "s");
    if ((r = cu->device_get(&ctx->device, ctx->device_ordinal)) != CUDA_SUCCESS)
        return mj__fail_cuda(ctx, r, "cuDeviceGet");
    int major = 0, minor = 0;
    if ((r = cu->device_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                  ctx->device)) != CUDA_SUCCESS ||
        (r = cu->device_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                  ctx->device)) != CUDA_SUCCESS)
        return mj__fail_cuda(ctx, r, "cuDeviceGetAttribute");
    ctx->sm = major * 10 + minor;
    if ((r = cu->device_attribute(&ctx->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                  ctx->device)) != CUDA_SUCCESS)
        return mj__fail_cuda(ctx, r, "cuDeviceGetAttribute");
    if ((r = cu->device_name(ctx->device_name, (int)sizeof ctx->device_name, ctx->device)) !=
        CUDA_SUCCESS)
        return mj__fail_cuda(ctx, r, "cuDeviceGetName");
    if ((r = cu->primary_retain(&ctx->primary, ctx->device)) != CUDA_SUCCESS) {
        ctx->primary = NULL;
        return mj__fail_cuda(ctx, r, "cuDevicePrimaryCtxRetain");
    }
    return MJ_OK;
}

mj_status mj__tuning_path(mj_context *ctx, const char *option, char *path, int *named) {
    char err[512];
    const char *env = getenv("MERGEJIT_TUNING");
    *named = option != NULL || (env && *env);
    if (option) {
        if (strlen(option) >= MJ_PATH_CAP)
            return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "the tuning file path is too long");
        strcpy(path, option);
        return MJ_OK;
    }
    if (mj__tuning_default_path(path, MJ_PATH_CAP, err, sizeof err)) path[0] = '\0';
    return MJ_OK;
}

/* Opening NVRTC takes milliseconds (a dlopen of a large library; once a process) and every
 * sorter needs it, even one from the disk cache, whose key names NVRTC's version. A device
 * context opens it on a thread of its own while the driver starts the device beside it. */
static void *nvrtc_preload(void *arg) {
    (void)arg;
    mj__nvrtc_load(NULL, 0);
    return NULL;
}

/* Starts nvrtc_preload unless the context will never compile (a bundle without fallback). */
static void nvrtc_preload_start(mj_context *ctx, const mj_context_options *options) {
    const char *bundle = options->bundle ? options->bundle : getenv("MERGEJIT_BUNDLE");
    if (bundle && *bundle && !(ctx->flags & MJ_CONTEXT_BUNDLE_FALLBACK)) return;
    /* Without the thread the first sorter opens NVRTC itself: slower, never wrong. */
    ctx->nvrtc_preloading = pthread_create(&ctx->nvrtc_thread, NULL, nvrtc_preload, NULL) == 0;
}

/* Reads the tuning file that the options name, keeping this device's records. */
static mj_status tuning_open(mj_context *ctx, const char *option) {
    char path[MJ_PATH_CAP], err[1024];
    int named;
    mj_status st = mj__tuning_path(ctx, option, path, &named);
    if (st || !path[0]) return st;
    mj_tuning all = {0};
    int rc = mj__tuning_read(path, &all, err, sizeof err);
    if (rc == 1 && !named) return MJ_OK; /* no tuning yet: built-in defaults */
    if (rc != 0) return mj__fail(ctx, mj__io_status(rc), "%s", err);
    /* Keep this device's records; a compile-only context (no device name) takes the first
     * device in the file with its sm. */
    const char *device = NULL;
    for (size_t i = 0; i < all.count && !device; ++i)
        if (all.entries[i].sm == ctx->sm &&
            (!ctx->cu || strcmp(all.entries[i].device, ctx->device_name) == 0))
            device = all.entries[i].device;
    for (size_t i = 0; device && i < all.count; ++i)
        if (all.entries[i].sm == ctx->sm && strcmp(all.entries[i].device, device) == 0 &&
            mj__tuning_set(&ctx->tuning, &all.entries[i])) {
            mj__tuning_free(&all);
            return mj__fail(ctx, MJ_ERR_HOST_MEMORY, "out of host memory");
        }
    mj__tuning_free(&all);
    strcpy(ctx->tuning_path, path);
    return MJ_OK;
}

/* Reads the index of the bundle that the options name. */
static mj_status bundle_open(mj_context *ctx, const char *option) {
    const char *path = option ? option : getenv("MERGEJIT_BUNDLE");
    if (!path || !*path) return MJ_OK;
    if (strlen(path) >= sizeof ctx->bundle_path)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "the bundle path is too long");
    mj_bundle_index *b = mj__calloc(1, sizeof *b);
    if (!b) return mj__fail(ctx, MJ_ERR_HOST_MEMORY, "out of host memory");
    char err[1024];
    int rc = mj__bundle_read_index(path, b, err, sizeof err);
    if (rc) {
        free(b);
        return mj__fail(ctx, mj__io_status(rc), "%s", err);
    }
    strcpy(ctx->bundle_path, path);
    ctx->bundle = b;
    return MJ_OK;
}

/* Unloads and frees the module table (inside the primary context when there is one). */
static void modules_free(mj_context *ctx) {
    mj_module *m = ctx->modules;
    while (m) {
        mj_module *next = m->next;
        for (int i = 0; i < m->image_count; ++i) ctx->cu->module_unload(m->images[i]);
        free(m);
        m = next;
    }
    ctx->modules = NULL;
}

mj_status mj_context_create(const mj_context_options *options, mj_context **out) {
    if (!out) return MJ_ERR_INVALID_ARGUMENT;
    *out = NULL;
    mj_context_options defaults;
    if (!options) {
        mj_context_options_init(&defaults);
        options = &defaults;
    }
    mj_context *ctx = mj__calloc(1, sizeof *ctx);
    if (!ctx) return MJ_ERR_HOST_MEMORY;
    pthread_mutex_init(&ctx->lock, NULL);
    *out = ctx;
    ctx->flags = options->flags;
    ctx->device_ordinal = options->device;

    if (!(ctx->flags & MJ_CONTEXT_NO_DISK_CACHE)) {
        char err[512];
        if (options->cache_dir) {
            if (!*options->cache_dir || strlen(options->cache_dir) >= sizeof ctx->cache_dir)
                return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                                "the cache directory must be a non-empty path shorter than %zu "
                                "bytes", sizeof ctx->cache_dir);
            strcpy(ctx->cache_dir, options->cache_dir);
        } else if (mj__cache_default_dir(ctx->cache_dir, sizeof ctx->cache_dir, err,
                                         sizeof err)) {
            return mj__fail(ctx, MJ_ERR_CACHE, "%s", err);
        }
        if (mj__cache_check_dir(ctx->cache_dir, err, sizeof err))
            return mj__fail(ctx, MJ_ERR_CACHE, "%s", err);
        if (mj__cache_max_bytes(getenv("MERGEJIT_CACHE_MAX"), &ctx->cache_max, err, sizeof err))
            return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "%s", err);
    }

    if (ctx->flags & MJ_CONTEXT_COMPILE_ONLY) {
        if (options->target_sm < 10)
            return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                            "a compile-only context needs target_sm, e.g. 90 (got %d)",
                            options->target_sm);
        ctx->sm = options->target_sm;
    } else {
        nvrtc_preload_start(ctx, options);
        mj_status st = open_device(ctx);
        if (st) return st;
    }
    /* Both are read once, for the device's name and sm. */
    mj_status st = tuning_open(ctx, options->tuning_file);
    return st ? st : bundle_open(ctx, options->bundle);
}

void mj_context_destroy(mj_context *ctx) {
    if (!ctx) return;
    if (ctx->nvrtc_preloading) pthread_join(ctx->nvrtc_thread, NULL);
    if (ctx->cu && ctx->primary) {
        if (mj__ctx_enter(ctx) == MJ_OK) {
            modules_free(ctx);
            mj__ctx_leave(ctx);
        }
        ctx->cu->primary_release(ctx->device);
    }
    modules_free(ctx);
    mj__tuning_free(&ctx->tuning);
    if (ctx->bundle) mj__bundle_index_free(ctx->bundle);
    free(ctx->bundle);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

const char *mj_context_last_error(const mj_context *ctx) {
    return ctx ? ctx->error : "no context (NULL)";
}

int mj_context_target_sm(const mj_context *ctx) { return ctx ? ctx->sm : 0; }
const char *mj_context_cache_dir(const mj_context *ctx) { return ctx ? ctx->cache_dir : ""; }
const char *mj_context_device_name(const mj_context *ctx) {
    return ctx ? ctx->device_name : "";
}
const char *mj_context_bundle(const mj_context *ctx) { return ctx ? ctx->bundle_path : ""; }

const char *mj_context_tuning_file(const mj_context *ctx) { return ctx ? ctx->tuning_path : ""; }


mj_status mj_cache_clear(mj_context *ctx, size_t *removed) {
    if (!ctx) return MJ_ERR_INVALID_ARGUMENT;
    if (removed) *removed = 0;
    if (!ctx->cache_dir[0]) return MJ_OK;
    char err[512];
    if (mj__cache_clear_dir(ctx->cache_dir, removed, err, sizeof err))
        return mj__fail(ctx, MJ_ERR_CACHE, "%s", err);
    return MJ_OK;
}

uint64_t mj_context_cache_max(const mj_context *ctx) { return ctx ? ctx->cache_max : 0; }

mj_status mj_cache_prune(mj_context *ctx, uint64_t max_bytes, size_t *removed,
                         uint64_t *kept_bytes) {
    if (!ctx) return MJ_ERR_INVALID_ARGUMENT;
    if (removed) *removed = 0;
    if (kept_bytes) *kept_bytes = 0;
    if (!ctx->cache_dir[0]) return MJ_OK;
    char err[512];
    if (mj__cache_prune_dir(ctx->cache_dir, max_bytes ? max_bytes : ctx->cache_max, removed,
                            kept_bytes, err, sizeof err))
        return mj__fail(ctx, MJ_ERR_CACHE, "%s", err);
    return MJ_OK;
}

mj_status mj_cache_parse_size(const char *text, uint64_t *bytes) {
    char err[256];
    uint64_t v;
    if (!text || !bytes || mj__cache_max_bytes(text, &v, err, sizeof err))
        return MJ_ERR_INVALID_ARGUMENT;
    *bytes = v;
    return MJ_OK;
}

mj_status mj_cache_check_writable(mj_context *ctx) {
    if (!ctx) return MJ_ERR_INVALID_ARGUMENT;
    if (!ctx->cache_dir[0]) return MJ_OK;
    char err[512];
    if (mj__cache_check_writable(ctx->cache_dir, err, sizeof err))
        return mj__fail(ctx, MJ_ERR_CACHE, "%s", err);
    return MJ_OK;
}

mj_status mj_cache_stats(mj_context *ctx, size_t *entries, uint64_t *bytes) {
    if (!ctx || !entries || !bytes) return MJ_ERR_INVALID_ARGUMENT;
    *entries = 0;
    *bytes = 0;
    if (!ctx->cache_dir[0]) return MJ_OK;
    char err[512];
    if (mj__cache_stats_dir(ctx->cache_dir, entries, bytes, err, sizeof err))
        return mj__fail(ctx, MJ_ERR_CACHE, "%s", err);
    return MJ_OK;
}
