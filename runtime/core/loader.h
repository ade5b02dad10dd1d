/* SPDX-License-Identifier: Apache-2.0 */
/* The loader: a module for a kernel spec from the context's table, its bundle, the disk cache,
 * or NVRTC, in that order, each step calling only down. Internal. */
#ifndef MJ_LOADER_H
#define MJ_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "core/context.h"
#include "driver/compile.h"
#include "driver/dl_nvrtc.h"
#include "gen.h"
#include "mergejit.h"
#include "store/bundle_file.h"
#include "store/cache.h"

/* A compiled binary and where it came from. */
typedef struct mj_binary {
    uint8_t key[32];       /* the disk cache's key */
    void *data;            /* malloc'd; NULL when source is MJ_SOURCE_MEMORY */
    size_t size;
    mj_cache_meta meta;    /* ptxas's figures, -1 unknown */
    mj_build_times times;  /* compiled: how the build spent its time; else -1s */
    int source;            /* MJ_SOURCE_COMPILED, _DISK, or _MEMORY (already loaded) */
    mj_target target;      /* what it was compiled for */
} mj_binary;

/* The binary of spec's kernels in the set `kernels` (a part of mj__primitive_kernels, or all
 * of them) from the disk cache or NVRTC; unless need_data, only the news (source
 * MJ_SOURCE_MEMORY, data NULL) when the context has loaded it already. Each part has its own
 * key (the whole set keeps the key of the source alone, so that bundles and caches written
 * before parts existed still match): one entry read serves a module that was stored. A module
 * not in the cache is built by mj__module_build over the context's cache directory, and
 * stored. ptx: PTX for compute_<spec's sm> (MJ_ERR_UNSUPPORTED when NVRTC does not know that
 * sm), for bundles; else a cubin for spec's sm, or PTX for the newest sm NVRTC knows when that
 * is older. */
mj_status mj__binary_get(mj_context *ctx, const mj_kernel_spec *spec, mj_kernel_set kernels,
                         int need_data, int ptx, mj_binary *out);

/* A program's disk cache key: its compile key (mj__compile_key of the program's source), hashed
 * apart from the modules' keys. */
void mj__program_key(const mj_nvrtc_api *nv, mj_target target, const char *program,
                     uint8_t key[32]);

/* Builds spec's kernels in `kernels` (of its primitive), each as its own NVRTC program
 * (mj__gen_program_source: normalized to the tile parameters the kernel uses, so that tiles
 * which differ only in others share it). With a cache_dir (NULL or "": none), a program whose
 * binary is there under its key (mj__program_key) is taken from it, and each compiled one is
 * stored there; the rest compile `threads` at once (0: as many as mj__compile_threads gives),
 * the heaviest first (mj__kernel_build_weight); a custom comparator's cubin that spilled or
 * kept a stack frame under the generator's register caps is compiled once more without them
 * (spec->uncapped), and that build is the program's, in the cache too. Their binaries are
 * packed in kernel order into out->data (store/kernel_pack.h), ptxas's figures combined into
 * out->meta, and out->source is MJ_SOURCE_COMPILED when any program was compiled, else
 * MJ_SOURCE_DISK. out->times count only the programs compiled (none: programs 0 and the times
 * -1). The bytes depend neither on threads nor on that order. MJ_OK, or a status with the
 * reason (one NVRTC log) in why. Leaves out->key alone. */
mj_status mj__module_build(const mj_nvrtc_api *nv, mj_target target, const mj_kernel_spec *spec,
                           mj_kernel_set kernels, const char *cache_dir, int threads,
                           mj_binary *out, char *why, size_t whycap);

/* The module of spec's kernels in the set `kernels` (as mj__binary_get): from the context's
 * bundle (entry: its record for spec's request, or NULL; a bundle's module holds all of the
 * primitive's kernels, whatever the set), memory, the disk cache, or NVRTC. *source tells
 * which (MJ_SOURCE_*), *ms how long this call took. The module joins the context's table
 * (core/context.h), which frees it. */
mj_status mj__module_get(mj_context *ctx, const mj_kernel_spec *spec,
                         const mj_bundle_entry *entry, mj_kernel_set kernels,
                         const mj_module **out, int *source, double *ms);

#endif
