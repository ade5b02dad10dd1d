/* Getting a module for a kernel spec: the context's table, then the disk cache, then NVRTC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "context.h"
#include "dl_nvrtc.h"

static mj_module *find(mj_context *ctx, const uint8_t key[32]) {
    for (mj_module *m = ctx->modules; m; m = m->next)
        if (memcmp(m->key, key, 32) == 0) return m;
    return NULL;
}

/* Loads the binary into the primary context and looks up the kernels. */
static mj_status load_module(mj_context *ctx, const void *binary, mj_primitive primitive,
                             mj_module *m) {
    if (!ctx->cu) return MJ_OK; /* compile-only: nothing to load */
    mj_status st = mj_ctx_enter(ctx);
    if (st) return st;
    CUresult r = ctx->cu->module_load_data(&m->module, binary);
    if (r != CUDA_SUCCESS) {
        m->module = NULL;
        mj_ctx_leave(ctx);
        return mj_fail_cuda(ctx, r, "cuModuleLoadData");
    }
    unsigned wanted = mj_primitive_kernels(primitive);
    for (int k = 0; k < MJ_K_COUNT; ++k) {
        if (!(wanted & (1u << k))) continue;
        r = ctx->cu->module_function(&m->fn[k], m->module, mj_kernel_name((mj_kernel_id)k));
        if (r != CUDA_SUCCESS) {
            ctx->cu->module_unload(m->module);
            m->module = NULL;
            mj_ctx_leave(ctx);
            return mj_fail_cuda(ctx, r, mj_kernel_name((mj_kernel_id)k));
        }
    }
    mj_ctx_leave(ctx);
    return MJ_OK;
}

mj_status mj_module_get(mj_context *ctx, const mj_kernel_spec *spec, const mj_module **out,
                        int *source, double *ms) {
    double t0 = mj_now_ms();
    char err[1024];
    const mj_nvrtc_api *nv = mj_nvrtc_load(err, sizeof err);
    if (!nv) return mj_fail(ctx, MJ_ERR_NO_COMPILER, "%s", err);
    mj_target target;
    if (mj_choose_target(nv, ctx->sm, &target, err, sizeof err))
        return mj_fail(ctx, MJ_ERR_UNSUPPORTED, "%s", err);
    char *src = NULL;
    size_t len = 0;
    if (mj_gen_source(spec, &src, &len, err, sizeof err))
        return mj_fail(ctx, src ? MJ_ERR_HOST_MEMORY : MJ_ERR_INVALID_ARGUMENT, "%s", err);
    uint8_t key[32];
    mj_compile_key(nv, target, src, key);

    /* Compiles run outside the lock so that threads of one context build different kernels
     * at once; two threads building the same one keep the first to finish. */
    pthread_mutex_lock(&ctx->lock);
    mj_module *m = find(ctx, key);
    if (m) {
        pthread_mutex_unlock(&ctx->lock);
        free(src);
        *out = m;
        *source = MJ_SOURCE_MEMORY;
        *ms = mj_now_ms() - t0;
        return MJ_OK;
    }
    pthread_mutex_unlock(&ctx->lock);

    m = calloc(1, sizeof *m);
    if (!m) {
        free(src);
        return mj_fail(ctx, MJ_ERR_HOST_MEMORY, "out of host memory");
    }
    memcpy(m->key, key, 32);
    void *binary = NULL;
    size_t size = 0;
    mj_status st = MJ_OK;
    m->source = MJ_SOURCE_COMPILED;
    if (ctx->cache_dir[0]) {
        /* A damaged or unreadable entry is not an error: it is rebuilt below. */
        if (mj_cache_load(ctx->cache_dir, key, &binary, &size, err, sizeof err) == MJ_CACHE_HIT)
            m->source = MJ_SOURCE_DISK;
    }
    if (!binary) {
        char *why = malloc(MJ_ERROR_CAP);
        st = why ? mj_compile(nv, src, target, &binary, &size, NULL, why, MJ_ERROR_CAP)
                 : MJ_ERR_HOST_MEMORY;
        if (st != MJ_OK) mj_fail(ctx, st, "%s", why ? why : "out of host memory");
        free(why);
        /* A cache that cannot be written (read-only, full) costs a recompile next time,
         * never this sort. */
        if (st == MJ_OK && ctx->cache_dir[0])
            mj_cache_store(ctx->cache_dir, key, binary, size, err, sizeof err);
    }
    free(src);
    if (st == MJ_OK) {
        m->binary_size = size;
        st = load_module(ctx, binary, spec->primitive, m);
    }
    free(binary);
    if (st != MJ_OK) {
        free(m);
        return st;
    }

    pthread_mutex_lock(&ctx->lock);
    mj_module *other = find(ctx, key); /* another thread may have won the race */
    if (other) {
        pthread_mutex_unlock(&ctx->lock);
        if (m->module && mj_ctx_enter(ctx) == MJ_OK) {
            ctx->cu->module_unload(m->module);
            mj_ctx_leave(ctx);
        }
        free(m);
        m = other;
    } else {
        m->build_ms = mj_now_ms() - t0;
        m->next = ctx->modules;
        ctx->modules = m;
        pthread_mutex_unlock(&ctx->lock);
    }
    *out = m;
    *source = m->source;
    *ms = mj_now_ms() - t0;
    return MJ_OK;
}

void mj_modules_free(mj_context *ctx) {
    mj_module *m = ctx->modules;
    while (m) {
        mj_module *next = m->next;
        if (m->module) ctx->cu->module_unload(m->module);
        free(m);
        m = next;
    }
    ctx->modules = NULL;
}
