/* Getting a module for a kernel spec: the context's bundle, its table, the disk cache, then
 * NVRTC. Each step calls only down; the context owns the table the modules join. */
#include "core/loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/file_io.h"
#include "base/host_alloc.h"
#include "core/bundle_match.h"
#include "core/context.h"
#include "driver/compile.h"
#include "driver/dl_nvrtc.h"
#include "store/bundle_file.h"
#include "store/bundle_read.h"
#include "store/cache.h"

static mj_module *find(mj_context *ctx, const uint8_t key[32]) {
    for (mj_module *m = ctx->modules; m; m = m->next)
        if (memcmp(m->key, key, 32) == 0) return m;
    return NULL;
}

/* Loads the binary into the primary context, looks up the kernels, and for merges and sorted
 * searches counts the tile blocks the GPU holds at once. */
static mj_status load_module(mj_context *ctx, const void *binary, const mj_kernel_spec *spec,
                             mj_module *m) {
    if (!ctx->cu) return MJ_OK; /* compile-only: nothing to load */
    mj_status st = mj__ctx_enter(ctx);
    if (st) return st;
    CUresult r = ctx->cu->module_load_data(&m->module, binary);
    if (r != CUDA_SUCCESS) {
        m->module = NULL;
        mj__ctx_leave(ctx);
        return mj__fail_cuda(ctx, r, "cuModuleLoadData");
    }
    unsigned wanted = mj__primitive_kernels(spec->primitive);
    for (int k = 0; k < MJ_K_COUNT; ++k) {
        if (!(wanted & (1u << k))) continue;
        r = ctx->cu->module_function(&m->fn[k], m->module, mj__kernel_name((mj_kernel_id)k));
        if (r != CUDA_SUCCESS) {
            ctx->cu->module_unload(m->module);
            m->module = NULL;
            mj__ctx_leave(ctx);
            return mj__fail_cuda(ctx, r, mj__kernel_name((mj_kernel_id)k));
        }
    }
    /* The kernel of one block a tile after the merge partitions: the merge's or the search's. */
    mj_kernel_id tiles = wanted & (1u << MJ_K_SEARCH) ? MJ_K_SEARCH : MJ_K_MERGE_ARRAYS;
    int per_sm = 0;
    if ((wanted & (1u << tiles)) &&
        ctx->cu->occupancy(&per_sm, m->fn[tiles], spec->nt, 0) == CUDA_SUCCESS)
        m->merge_resident = per_sm * ctx->sm_count;
    mj__ctx_leave(ctx);
    return MJ_OK;
}

/* The module with `key` from the context's table, or NULL. */
static mj_module *remembered(mj_context *ctx, const uint8_t key[32]) {
    pthread_mutex_lock(&ctx->lock);
    mj_module *m = find(ctx, key);
    pthread_mutex_unlock(&ctx->lock);
    return m;
}

/* Loads binary as a new module and adds it to the table; when another thread added the same
 * key meanwhile, keeps that one. */
static mj_status remember(mj_context *ctx, const mj_kernel_spec *spec, const uint8_t key[32],
                          const void *binary, size_t size, const mj_cache_meta *meta,
                          int source, double t0, const mj_module **out) {
    mj_module *m = mj__calloc(1, sizeof *m);
    if (!m) return mj__fail(ctx, MJ_ERR_HOST_MEMORY, "out of host memory");
    memcpy(m->key, key, 32);
    m->source = source;
    m->binary_size = size;
    m->registers = meta->registers;
    m->spill_bytes = (long)meta->spill_bytes;
    mj_status st = load_module(ctx, binary, spec, m);
    if (st != MJ_OK) {
        free(m);
        return st;
    }
    pthread_mutex_lock(&ctx->lock);
    mj_module *other = find(ctx, key);
    if (other) {
        pthread_mutex_unlock(&ctx->lock);
        if (m->module && mj__ctx_enter(ctx) == MJ_OK) {
            ctx->cu->module_unload(m->module);
            mj__ctx_leave(ctx);
        }
        free(m);
        m = other;
    } else {
        m->build_ms = mj__now_ms() - t0;
        m->next = ctx->modules;
        ctx->modules = m;
        pthread_mutex_unlock(&ctx->lock);
    }
    *out = m;
    return MJ_OK;
}

mj_status mj__binary_get(mj_context *ctx, const mj_kernel_spec *spec, int need_data,
                         mj_binary *out) {
    memset(out, 0, sizeof *out);
    char err[1024];
    const mj_nvrtc_api *nv = mj__nvrtc_load(err, sizeof err);
    if (!nv) return mj__fail(ctx, MJ_ERR_NO_COMPILER, "%s", err);
    mj_target target;
    if (mj__choose_target(nv, spec->sm, &target, err, sizeof err))
        return mj__fail(ctx, MJ_ERR_UNSUPPORTED, "%s", err);
    char *src = NULL;
    size_t len = 0;
    int rc = mj__gen_source(spec, &src, &len, err, sizeof err);
    if (rc) return mj__fail(ctx, mj__gen_status(rc), "%s", err);
    mj__compile_key(nv, target, src, out->key);
    out->meta.registers = -1;
    out->meta.spill_bytes = -1;
    out->source = MJ_SOURCE_COMPILED;
    if (!need_data && remembered(ctx, out->key)) { /* loaded: the caller needs no binary */
        free(src);
        out->source = MJ_SOURCE_MEMORY;
        return MJ_OK;
    }
    /* A damaged or unreadable entry is not an error: it is rebuilt below. */
    if (ctx->cache_dir[0] && mj__cache_load(ctx->cache_dir, out->key, &out->data, &out->size,
                                            &out->meta, err, sizeof err) == MJ_CACHE_HIT) {
        free(src);
        out->source = MJ_SOURCE_DISK;
        return MJ_OK;
    }
    char *why = mj__malloc(MJ_ERROR_CAP);
    char *log = NULL;
    mj_status st = why ? mj__compile(nv, src, target, &out->data, &out->size, &log, why,
                                     MJ_ERROR_CAP)
                       : MJ_ERR_HOST_MEMORY;
    free(src);
    if (st != MJ_OK) mj__fail(ctx, st, "%s", why ? why : "out of host memory");
    free(why);
    if (st == MJ_OK && !target.ptx) {
        long spills;
        int regs;
        if (mj__ptxas_report(log, &spills, &regs) > 0) {
            out->meta.registers = regs;
            out->meta.spill_bytes = spills;
        }
    }
    free(log);
    /* A cache that cannot be written (read-only, full) costs a recompile next time, never
     * this sort. */
    if (st == MJ_OK && ctx->cache_dir[0])
        mj__cache_store(ctx->cache_dir, out->key, out->data, out->size, &out->meta, err,
                        sizeof err);
    return st;
}

/* The module for spec from the context's bundle (entry is its record for the request). */
static mj_status from_bundle(mj_context *ctx, const mj_kernel_spec *spec,
                             const mj_bundle_entry *entry, double t0, const mj_module **out,
                             int *source) {
    /* Bundle modules are kept under the entry's source key, which only a checked entry's
     * module gets: a second request skips regenerating the source. */
    const mj_module *m = remembered(ctx, entry->source_key);
    if (m) {
        *out = m;
        *source = MJ_SOURCE_MEMORY;
        return MJ_OK;
    }
    mj_status st = mj__bundle_check_entry(ctx, spec, entry);
    if (st) return st;
    void *binary = NULL;
    char err[1024];
    int rc = mj__bundle_read_payload(ctx->bundle_path, entry, &binary, err, sizeof err);
    if (rc) return mj__fail(ctx, mj__io_status(rc), "%s", err);
    mj_cache_meta meta = {entry->registers, entry->spill_bytes};
    st = remember(ctx, spec, entry->source_key, binary, (size_t)entry->size, &meta,
                  MJ_SOURCE_BUNDLE, t0, out);
    free(binary);
    if (st == MJ_OK) *source = MJ_SOURCE_BUNDLE;
    return st;
}

mj_status mj__module_get(mj_context *ctx, const mj_kernel_spec *spec,
                         const mj_bundle_entry *entry, const mj_module **out, int *source,
                         double *ms) {
    double t0 = mj__now_ms();
    mj_status st;
    if (ctx->bundle) {
        if (entry && entry->nt == spec->nt && entry->vt == spec->vt &&
            entry->bs_nt == mj__spec_bs_nt(spec))
            st = from_bundle(ctx, spec, entry, t0, out, source);
        else
            st = mj__bundle_missing(ctx, spec, entry);
        if (st != MJ_ERR_NOT_IN_BUNDLE || !(ctx->flags & MJ_CONTEXT_BUNDLE_FALLBACK)) {
            *ms = mj__now_ms() - t0;
            return st;
        }
    }
    /* Compiles run outside the lock so that threads of one context build different kernels
     * at once; two threads building the same one keep the first to finish. */
    mj_binary b;
    if ((st = mj__binary_get(ctx, spec, 0, &b))) return st;
    if (b.source == MJ_SOURCE_MEMORY) {
        *out = remembered(ctx, b.key);
        *source = MJ_SOURCE_MEMORY;
    } else {
        st = remember(ctx, spec, b.key, b.data, b.size, &b.meta, b.source, t0, out);
        *source = b.source;
    }
    free(b.data);
    *ms = mj__now_ms() - t0;
    return st;
}
