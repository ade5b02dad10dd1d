/* SPDX-License-Identifier: Apache-2.0 */
/* Sorters (public: mergejit.h): building one from a description, its getters, and the
 * dispatch of mj_sorter_temp_size and mj_sorter_sort to the primitives' entry points
 * (primitives/registry.h). */
#include <stdlib.h>
#include <string.h>

#include "base/host_alloc.h"
#include "core/context.h"
#include "core/loader.h"
#include "core/tile_choice.h"
#include "gen.h"
#include "mergejit.h"
#include "primitives/mergesort.h"
#include "primitives/registry.h"
#include "primitives/run.h"

mj_status mj_sorter_create(mj_context *ctx, const mj_sort_desc *desc, mj_sorter **out) {
    if (!ctx) return MJ_ERR_INVALID_ARGUMENT;
    if (!desc || !out) return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "desc and out are required");
    *out = NULL;
    mj_kernel_spec spec;
    const mj_bundle_entry *entry = NULL;
    mj_status st = mj__spec_from_desc(ctx, desc, &spec);
    if (!st) st = mj__choose_tile(ctx, desc, &spec, &entry);
    if (st) return st;
    size_t key_size = mj__spec_key_size(&spec);

    int ways = 0, fused = 0, pdl = 0, serpentine = 0;
    if (desc->primitive == MJ_MERGESORT &&
        (st = mj__mergesort_env(ctx, key_size + spec.value_size, &ways, &fused, &pdl,
                                &serpentine)))
        return st;

    mj_sorter *s = mj__calloc(1, sizeof *s);
    if (!s) return mj__fail(ctx, MJ_ERR_HOST_MEMORY, "out of host memory");
    s->ctx = ctx;
    s->primitive = desc->primitive;
    /* The description's threshold is the caller's own choice: it outranks
     * MERGEJIT_MERGE_WAYS, which is for experiments (the tuning file's does not). */
    s->merge_ways = desc->merge4_log2 ? 0 : ways;
    /* Every kernel a run may launch is built and loaded here, as one module, so that no run
     * builds or loads anything: loading a module waits for the work queued on the device
     * (cuModuleLoadDataEx does, whatever the loading mode) and holds up other threads'
     * launches meanwhile, so a run that loaded one would stall its caller's pipeline. */
    mj_kernel_set kernels = desc->primitive == MJ_MERGESORT
                           ? mj__mergesort_kernels(fused, s->merge_ways != 2)
                           : mj__primitive_kernels(desc->primitive);
    st = mj__module_get(ctx, &spec, entry, kernels, &s->mod, &s->source, &s->build_ms);
    if (st) {
        mj_sorter_destroy(s);
        return st;
    }
    s->key_size = key_size;
    s->key_align = desc->key == MJ_KEY_CUSTOM ? desc->type_align : key_size;
    s->value_size = desc->value_size;
    s->has_op = desc->op != NULL;
    s->has_less = desc->key != MJ_KEY_CUSTOM || desc->less != NULL;
    s->value_align = mj__value_align(desc->value_size);
    s->nt = spec.nt;
    s->vt = spec.vt;
    s->bs_nt = mj__spec_bs_nt(&spec);
    s->merge4_log2 = mj__merge4_log2(ctx, desc, key_size);
    s->fused = fused;
    s->pdl = pdl;
    s->serpentine = serpentine;
    *out = s;
    return MJ_OK;
}

void mj_sorter_destroy(mj_sorter *sorter) { free(sorter); }

int mj_sorter_source(const mj_sorter *s) { return s ? s->source : -1; }
double mj_sorter_build_ms(const mj_sorter *s) { return s ? s->build_ms : 0; }

/* A module's build times when it was compiled with NVRTC, else none. */
static mj_build_times times_of(const mj_module *m, int source) {
    if (source == MJ_SOURCE_COMPILED) return m->times;
    return (mj_build_times){0, 0, -1, -1, -1};
}

void mj_sorter_build_times(const mj_sorter *s, mj_build_times *out) {
    if (!out) return;
    *out = s ? times_of(s->mod, s->source) : times_of(NULL, -1);
}

void mj_sorter_tile(const mj_sorter *s, int *nt, int *vt) {
    if (nt) *nt = s ? s->nt : 0;
    if (vt) *vt = s ? s->vt : 0;
}
void mj_sorter_resources(const mj_sorter *s, int *registers, long *spill_bytes) {
    if (registers) *registers = s ? s->mod->registers : -1;
    if (spill_bytes) *spill_bytes = s ? s->mod->spill_bytes : -1;
}

mj_status mj_sorter_temp_size(const mj_sorter *s, size_t n, int indices, size_t *bytes) {
    if (!s || !bytes) return MJ_ERR_INVALID_ARGUMENT;
    const mj_primitive_entry *e = mj__primitive_entry(s->primitive);
    return indices && e->index_temp_size ? e->index_temp_size(s, n, bytes)
                                         : e->temp_size(s, n, bytes);
}

mj_status mj_sorter_sort(mj_sorter *s, void *keys, void *values, size_t n, void *temp,
                         size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    const mj_primitive_entry *e = mj__primitive_entry(s->primitive);
    mj_status st = mj__sorter_expect(s, e->sort ? 1u << s->primitive : 0, "mj_sorter_sort");
    if (st || (st = mj__check_values(s, values, n))) return st;
    return e->sort(s, keys, values, n, temp, temp_bytes, stream);
}
