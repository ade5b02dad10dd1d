/* SPDX-License-Identifier: Apache-2.0 */
/* Getting a module for a kernel spec: the context's bundle, its table, the disk cache, then
 * NVRTC. Each step calls only down; the context owns the table the modules join. */
#include "core/loader.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/file_io.h"
#include "base/host_alloc.h"
#include "base/sha256.h"
#include "core/bundle_match.h"
#include "core/context.h"
#include "driver/compile.h"
#include "driver/dl_nvrtc.h"
#include "kernel_program.h"
#include "store/bundle_file.h"
#include "store/bundle_read.h"
#include "store/cache.h"
#include "store/kernel_pack.h"

static mj_module *find(mj_context *ctx, const uint8_t key[32]) {
    for (mj_module *m = ctx->modules; m; m = m->next)
        if (memcmp(m->key, key, 32) == 0) return m;
    return NULL;
}

/* Unloads the module's images (inside the primary context). */
static void unload_images(mj_context *ctx, mj_module *m) {
    for (int i = 0; i < m->image_count; ++i) ctx->cu->module_unload(m->images[i]);
    m->image_count = 0;
}

/* A cubin is an ELF file; anything else NVRTC wrote is PTX text, which the driver reads up to
 * its NUL, so it must end in one inside the image. */
static int is_cubin(const mj_kernel_image *image) {
    return image->size >= 4 && memcmp(image->data, "\177ELF", 4) == 0;
}

/* Loads one image with cuModuleLoadDataEx; PTX is compiled for the device there, and what
 * the driver's compiler says about a failure goes into the message. */
static mj_status load_image(mj_context *ctx, const mj_kernel_image *image, CUmodule *out) {
    int cubin = is_cubin(image);
    if (!cubin && (image->size == 0 || ((const char *)image->data)[image->size - 1] != '\0'))
        return mj__fail(ctx, MJ_ERR_CUDA, "cannot load the module: its image of %s is neither "
                        "a cubin nor NUL-terminated PTX (damaged)",
                        image->kernel ? image->kernel : "every kernel");
    char log[2048] = "";
    CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof log};
    CUresult r = ctx->cu->module_load_data_ex(out, image->data, 2, keys, values);
    if (r == CUDA_SUCCESS) return MJ_OK;
    log[sizeof log - 1] = '\0';
    char what[2600];
    snprintf(what, sizeof what, "cuModuleLoadDataEx (%s%s%s%s%s)",
             image->kernel ? image->kernel : "every kernel",
             cubin ? ", a cubin" : ", PTX the driver compiles for this GPU",
             r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION
                 ? ": the PTX is newer than this driver reads; update the driver, or build the "
                   "bundle with an NVRTC no newer than it"
                 : "",
             log[0] ? "; the driver's log: " : "", log);
    return mj__fail_cuda(ctx, r, what);
}

/* Loads the binary (a kernel pack, or one image of every kernel) into the primary context,
 * looks up the kernels, and for merges and sorted searches counts the tile blocks the GPU
 * holds at once. */
static mj_status load_module(mj_context *ctx, const void *binary, size_t size,
                             const mj_kernel_spec *spec, mj_kernel_set wanted, mj_module *m) {
    m->primitive = spec->primitive;
    m->kernels = wanted;
    if (!ctx->cu) return MJ_OK; /* compile-only: nothing to load */
    mj_kernel_image images[MJ_PACK_MAX];
    char err[256];
    int count = mj__unpack_kernels(binary, size, images, err, sizeof err);
    if (count < 0 || count > MJ_KERNELS_MAX)
        return mj__fail(ctx, MJ_ERR_CUDA, "cannot load the module: %s",
                        count < 0 ? err : "more images than kernels");
    mj_status st = mj__ctx_enter(ctx);
    if (st) return st;
    while (m->image_count < count) {
        st = load_image(ctx, &images[m->image_count], &m->images[m->image_count]);
        if (st != MJ_OK) {
            unload_images(ctx, m);
            mj__ctx_leave(ctx);
            return st;
        }
        ++m->image_count;
    }
    CUresult r = CUDA_SUCCESS;
    /* Each kernel is loaded onto the device here, at create: cuModuleGetFunction loads it even
     * under lazy module loading (cuFuncIsLoaded says so, H200 and CUDA 13), so its first launch
     * neither loads it nor waits, and needs no cuFuncLoad. */
    const char *what = "cuModuleGetFunction";
    for (int k = 0; k < MJ_KERNELS_MAX && r == CUDA_SUCCESS; ++k) {
        if (!(wanted & (1u << k))) continue;
        what = mj__kernel_name(spec->primitive, k);
        r = CUDA_ERROR_NOT_FOUND; /* unless an image holds it */
        for (int i = 0; i < count && r != CUDA_SUCCESS; ++i)
            if (!images[i].kernel || strcmp(images[i].kernel, what) == 0)
                r = ctx->cu->module_function(&m->fn[k], m->images[i], what);
    }
    if (r != CUDA_SUCCESS) {
        unload_images(ctx, m);
        mj__ctx_leave(ctx);
        return mj__fail_cuda(ctx, r, what);
    }
    /* The kernel whose grid is sized by what fits at once (the search's or the merge's, after
     * the merge partitions; the reduce's, one wave of blocks over the input). */
    int tiles = mj__resident_kernel(spec->primitive), per_sm = 0;
    if (tiles >= 0 && (wanted & (1u << tiles)) &&
        ctx->cu->occupancy(&per_sm, m->fn[tiles], spec->nt, 0) == CUDA_SUCCESS)
        m->resident = per_sm * ctx->sm_count;
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

/* A digest of everything the generated source of spec's kernels in `kernels` depends on (the
 * spec's fields; the templates and NVRTC are fixed within a process): the table's key for a
 * module asked for again, which skips generating and hashing tens of kB of source. */
static void spec_key(const mj_kernel_spec *spec, mj_kernel_set kernels, uint8_t key[32]) {
    mj_sha256 h;
    mj__sha256_init(&h);
    long long num[] = {spec->primitive, spec->key, spec->order, (long long)spec->type_size,
                       (long long)spec->type_align, (long long)spec->value_size, spec->nt,
                       spec->vt, mj__spec_bs_nt(spec), spec->sm, kernels};
    mj__sha256_update(&h, num, sizeof num);
    const char *text[] = {spec->less,       spec->op,         spec->identity,
                          spec->type_name,  spec->type_source, spec->value_type,
                          spec->value_type_source};
    for (size_t i = 0; i < sizeof text / sizeof *text; ++i) {
        /* Each string with its length (-1 for none), so that no two specs run together. */
        long long len = text[i] ? (long long)strlen(text[i]) : -1;
        mj__sha256_update(&h, &len, sizeof len);
        if (text[i]) mj__sha256_update(&h, text[i], (size_t)len);
    }
    mj__sha256_final(&h, key);
}

/* The module first built or loaded here for the spec key, or NULL. */
static mj_module *remembered_spec(mj_context *ctx, const uint8_t key[32]) {
    pthread_mutex_lock(&ctx->lock);
    mj_module *m = ctx->modules;
    while (m && !(m->has_spec_key && memcmp(m->spec_key, key, 32) == 0)) m = m->next;
    pthread_mutex_unlock(&ctx->lock);
    return m;
}

/* Loads binary as a new module and adds it to the table, found again by key and, when skey is
 * not NULL, by that spec key (spec_key); when another thread added the same key meanwhile,
 * keeps that one. */
static mj_status remember(mj_context *ctx, const mj_kernel_spec *spec, mj_kernel_set kernels,
                          const uint8_t key[32], const uint8_t *skey, const void *binary,
                          size_t size, const mj_cache_meta *meta,
                          const mj_build_times *times, int source, int code_sm, double t0,
                          const mj_module **out) {
    mj_module *m = mj__calloc(1, sizeof *m);
    if (!m) return mj__fail(ctx, MJ_ERR_HOST_MEMORY, "out of host memory");
    memcpy(m->key, key, 32);
    if (skey) {
        memcpy(m->spec_key, skey, 32);
        m->has_spec_key = 1;
    }
    m->source = source;
    m->code_sm = code_sm;
    m->binary_size = size;
    m->registers = meta->registers;
    m->spill_bytes = (long)meta->spill_bytes;
    m->times = *times;
    mj_status st = load_module(ctx, binary, size, spec, kernels, m);
    if (st != MJ_OK) {
        free(m);
        return st;
    }
    pthread_mutex_lock(&ctx->lock);
    mj_module *other = find(ctx, key);
    if (other) {
        pthread_mutex_unlock(&ctx->lock);
        if (m->image_count && mj__ctx_enter(ctx) == MJ_OK) {
            unload_images(ctx, m);
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

/* The times of a module that was not compiled here. */
static const mj_build_times no_times = {0, 0, -1, -1, -1};

/* key := SHA-256(key, tag): a key kept apart from the one it is made from. */
static void tag_key(uint8_t key[32], const char *tag, size_t len) {
    mj_sha256 h;
    mj__sha256_init(&h);
    mj__sha256_update(&h, key, 32);
    mj__sha256_update(&h, tag, len);
    mj__sha256_final(&h, key);
}

void mj__program_key(const mj_nvrtc_api *nv, mj_target target, const char *program,
                     uint8_t key[32]) {
    mj__compile_key(nv, target, program, key);
    /* Hashed apart from module keys: a module of one kernel has its program's source. */
    tag_key(key, "|program", 8);
}

/* One kernel's program in a module's build. */
typedef struct program {
    int kernel; /* its index in the primitive's row */
    char *source;
    uint8_t key[32];
    mj_kernel_image image; /* its binary: in entry, or a compile job's */
    void *entry;           /* the payload of the cache entry it came from, else NULL */
    mj_cache_meta meta;    /* ptxas's figures for this program, -1 unknown */
} program;

/* The program's binary from its disk cache entry, a pack of one image of its kernel. A
 * damaged entry was removed by the read, and one that holds anything else is stored over once
 * the program is compiled: either way it is rebuilt. */
static int program_from_cache(const char *dir, program *p) {
    size_t size = 0;
    char err[256];
    if (mj__cache_load(dir, p->key, &p->entry, &size, &p->meta, err, sizeof err) !=
        MJ_CACHE_HIT)
        return 0;
    mj_kernel_image images[MJ_PACK_MAX];
    if (mj__unpack_kernels(p->entry, size, images, err, sizeof err) == 1 && images[0].kernel &&
        strcmp(images[0].kernel, p->image.kernel) == 0) {
        p->image = images[0];
        return 1;
    }
    free(p->entry);
    p->entry = NULL;
    p->meta.registers = -1;
    p->meta.spill_bytes = -1;
    return 0;
}

/* Stores an entry. A cache that cannot be written (read-only, full, not ours) costs a compile
 * next time, never this build; the first such failure in a process says so on stderr, once,
 * since every later process would pay the compile without a word. */
static void cache_put(const char *dir, const uint8_t key[32], const void *data, size_t size,
                      const mj_cache_meta *meta) {
    static atomic_int warned;
    char err[512];
    if (mj__cache_store(dir, key, data, size, meta, err, sizeof err) == 0 ||
        atomic_exchange(&warned, 1))
        return;
    fprintf(stderr, "mergejit: warning: the disk cache cannot be written (%s); kernels will be "
                    "compiled again by every process (MERGEJIT_CACHE_DIR chooses another "
                    "directory)\n", err);
}

/* Stores a compiled program under its key. */
static void store_program(const char *dir, const program *p) {
    void *pack = NULL;
    size_t size = 0;
    char err[256];
    if (mj__pack_kernels(&p->image, 1, &pack, &size, err, sizeof err) == 0)
        cache_put(dir, p->key, pack, size, &p->meta);
    free(pack);
}

/* A module's ptxas figures: the largest register count and the spills summed, over its
 * programs that have a report. */
static void add_meta(mj_cache_meta *module, const mj_cache_meta *one) {
    if (one->registers < 0 || one->spill_bytes < 0) return;
    module->registers = one->registers > module->registers ? one->registers : module->registers;
    module->spill_bytes = (module->spill_bytes < 0 ? 0 : module->spill_bytes) + one->spill_bytes;
}

/* A custom comparator's program that spilled or kept a stack frame under the register caps
 * the generator gives 4-byte keys (gen.c capped_blocks; the comparator can need more) is
 * compiled again without them, once, on this thread; the job then holds that build, which the
 * cache keeps under the capped source's key, so that a later build finds it at once. Its time
 * is added to the build's. Built-in orders keep their spills, which test_compile rules out for
 * the default tiles and the tuner reports for its candidates. PTX has no report: the driver
 * finishes it under the caps. */
static mj_status rebuild_uncapped(const mj_nvrtc_api *nv, mj_target target,
                                  const mj_kernel_spec *spec, const program *p,
                                  mj_compile_job *job, mj_build_times *times, char *why,
                                  size_t whycap) {
    long spills = 0, frame = 0;
    int regs;
    if (target.ptx || spec->uncapped || mj__spec_builtin_order(spec) ||
        mj__ptxas_report(job->log, &spills, &frame, &regs) <= 0 || (!spills && !frame))
        return MJ_OK;
    mj_kernel_spec open = *spec;
    open.uncapped = 1;
    mj_compile_job again = {0};
    char *source = NULL;
    int rc = mj__gen_program_source(&open, p->kernel, &source, NULL, why, whycap);
    if (rc) return mj__gen_status(rc);
    mj_status st = MJ_OK;
    if (strcmp(source, p->source) != 0) { /* else no cap was in it */
        mj_build_times t = no_times;
        again.source = source;
        st = mj__compile_jobs(nv, target, &again, 1, 1, &t, why, whycap);
        if (st == MJ_OK) {
            mj__compile_jobs_free(job, 1);
            *job = again;
            job->source = p->source;
            again = (mj_compile_job){0};
            times->programs += t.programs;
            if (times->ptxas_ms >= 0 && t.ptxas_ms >= 0) {
                times->frontend_ms += t.frontend_ms;
                times->ptxas_ms += t.ptxas_ms;
            }
            times->slowest_ms += t.slowest_ms; /* it follows the program it rebuilds */
        }
        mj__compile_jobs_free(&again, 1);
    }
    free(source);
    return st;
}

/* A module's images, one a kernel, are one kernel pack. */
_Static_assert(MJ_KERNELS_MAX <= MJ_PACK_MAX, "a kernel pack holds every kernel of a module");

mj_status mj__module_build(const mj_nvrtc_api *nv, mj_target target, const mj_kernel_spec *spec,
                           mj_kernel_set kernels, const char *cache_dir, int threads,
                           mj_binary *out, char *why, size_t whycap) {
    program progs[MJ_KERNELS_MAX];
    mj_compile_job jobs[MJ_KERNELS_MAX];
    int todo[MJ_KERNELS_MAX], weight[MJ_KERNELS_MAX]; /* the programs to compile, and weights */
    int count = 0, compiled = 0;
    int use_cache = cache_dir && cache_dir[0];
    mj_status st = MJ_OK;
    memset(jobs, 0, sizeof jobs);
    out->data = NULL;
    out->size = 0;
    out->meta.registers = -1;
    out->meta.spill_bytes = -1;
    out->times = no_times;
    for (int k = 0; k < MJ_KERNELS_MAX && st == MJ_OK; ++k) {
        if (!(kernels & (1u << k))) continue;
        program *p = &progs[count];
        memset(p, 0, sizeof *p);
        p->kernel = k;
        p->image.kernel = mj__kernel_name(spec->primitive, k);
        p->meta.registers = -1;
        p->meta.spill_bytes = -1;
        int rc = mj__gen_program_source(spec, k, &p->source, NULL, why, whycap);
        if (rc) {
            st = mj__gen_status(rc);
            break;
        }
        mj__program_key(nv, target, p->source, p->key);
        if (!use_cache || !program_from_cache(cache_dir, p)) {
            /* Compiled heaviest first (a stable insertion sort by weight), so that on fewer
             * threads than programs the longest does not start last. */
            int w = mj__kernel_build_weight(spec->primitive, k), j = compiled++;
            for (; j > 0 && weight[j - 1] < w; --j) {
                todo[j] = todo[j - 1];
                weight[j] = weight[j - 1];
            }
            todo[j] = count;
            weight[j] = w;
        }
        ++count;
    }
    for (int j = 0; j < compiled; ++j) jobs[j].source = progs[todo[j]].source;
    if (threads <= 0) threads = mj__compile_threads(compiled);
    if (st == MJ_OK && compiled)
        st = mj__compile_jobs(nv, target, jobs, compiled, threads, &out->times, why, whycap);
    for (int j = 0; j < compiled && st == MJ_OK; ++j) {
        program *p = &progs[todo[j]];
        st = rebuild_uncapped(nv, target, spec, p, &jobs[j], &out->times, why, whycap);
        if (st != MJ_OK) break;
        p->image.data = jobs[j].binary;
        p->image.size = jobs[j].size;
        long spills;
        int regs;
        if (!target.ptx && mj__ptxas_report(jobs[j].log, &spills, NULL, &regs) > 0) {
            p->meta.registers = regs;
            p->meta.spill_bytes = spills;
        }
        if (use_cache) store_program(cache_dir, p);
    }
    mj_kernel_image images[MJ_KERNELS_MAX];
    for (int i = 0; i < count && st == MJ_OK; ++i) {
        if (!target.ptx) add_meta(&out->meta, &progs[i].meta);
        images[i] = progs[i].image;
    }
    if (st == MJ_OK && mj__pack_kernels(images, count, &out->data, &out->size, why, whycap))
        st = MJ_ERR_HOST_MEMORY;
    out->source = compiled ? MJ_SOURCE_COMPILED : MJ_SOURCE_DISK;
    mj__compile_jobs_free(jobs, compiled);
    for (int i = 0; i < count; ++i) {
        free(progs[i].source);
        free(progs[i].entry);
    }
    return st;
}

/* A part's key: the whole module's with the part's kernels (indexes in the primitive's row)
 * hashed in. */
static void part_key(mj_kernel_set kernels, uint8_t key[32]) {
    char part[32];
    int n = snprintf(part, sizeof part, "|kernels %#x", kernels);
    tag_key(key, part, (size_t)n);
}

mj_status mj__binary_get(mj_context *ctx, const mj_kernel_spec *spec, mj_kernel_set kernels,
                         int need_data, int ptx, mj_binary *out) {
    memset(out, 0, sizeof *out);
    char err[1024];
    const mj_nvrtc_api *nv = mj__nvrtc_load(err, sizeof err);
    if (!nv) return mj__fail(ctx, MJ_ERR_NO_COMPILER, "%s", err);
    mj_target target;
    if (mj__choose_target(nv, spec->sm, &target, err, sizeof err))
        return mj__fail(ctx, MJ_ERR_UNSUPPORTED, "%s", err);
    if (ptx && target.ptx)
        return mj__fail(ctx, MJ_ERR_UNSUPPORTED, "NVRTC %d.%d cannot compile PTX for compute_%d: "
                        "the newest target it knows is sm_%d", nv->major, nv->minor, spec->sm,
                        target.sm);
    target.ptx |= ptx;
    out->target = target;
    char *src = NULL;
    size_t len = 0;
    int rc = mj__gen_source(spec, &src, &len, err, sizeof err);
    if (rc) return mj__fail(ctx, mj__gen_status(rc), "%s", err);
    mj__compile_key(nv, target, src, out->key);
    if (kernels != mj__primitive_kernels(spec->primitive)) part_key(kernels, out->key);
    out->meta.registers = -1;
    out->meta.spill_bytes = -1;
    out->times = no_times;
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
    free(src);
    /* Each program comes from its own cache entry where a module of another tile stored it. */
    char *why = mj__malloc(MJ_ERROR_CAP);
    mj_status st = why ? mj__module_build(nv, target, spec, kernels, ctx->cache_dir, 0, out, why,
                                          MJ_ERROR_CAP)
                       : MJ_ERR_HOST_MEMORY;
    if (st != MJ_OK) mj__fail(ctx, st, "%s", why ? why : "out of host memory");
    free(why);
    /* Then the cache is brought back under its cap (least recently used first); a prune that
     * fails leaves it over, for the next. */
    if (st == MJ_OK && ctx->cache_dir[0]) {
        cache_put(ctx->cache_dir, out->key, out->data, out->size, &out->meta);
        if (ctx->cache_max != UINT64_MAX)
            mj__cache_prune_dir(ctx->cache_dir, ctx->cache_max, NULL, NULL, err, sizeof err);
    }
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
    int from = entry->ptx ? MJ_SOURCE_BUNDLE_PTX : MJ_SOURCE_BUNDLE;
    st = remember(ctx, spec, mj__primitive_kernels(spec->primitive), entry->source_key, NULL,
                  binary, (size_t)entry->size, &meta, &no_times, from, entry->sm, t0, out);
    free(binary);
    if (st == MJ_OK) *source = from;
    return st;
}

mj_status mj__module_get(mj_context *ctx, const mj_kernel_spec *spec,
                         const mj_bundle_entry *entry, mj_kernel_set kernels,
                         const mj_module **out, int *source, double *ms) {
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
    uint8_t skey[32];
    spec_key(spec, kernels, skey);
    const mj_module *known = remembered_spec(ctx, skey);
    if (known) {
        *out = known;
        *source = MJ_SOURCE_MEMORY;
        *ms = mj__now_ms() - t0;
        return MJ_OK;
    }
    /* Compiles run outside the lock so that threads of one context build different kernels
     * at once; two threads building the same one keep the first to finish. */
    mj_binary b;
    if ((st = mj__binary_get(ctx, spec, kernels, 0, 0, &b))) return st;
    if (b.source == MJ_SOURCE_MEMORY) {
        *out = remembered(ctx, b.key);
        *source = MJ_SOURCE_MEMORY;
    } else {
        st = remember(ctx, spec, kernels, b.key, skey, b.data, b.size, &b.meta, &b.times,
                      b.source, b.target.sm, t0, out);
        *source = b.source;
    }
    free(b.data);
    *ms = mj__now_ms() - t0;
    return st;
}
