/* Sorters (public: mergejit.h): building one from a description, its getters, and the
 * dispatch of mj_sorter_temp_size and mj_sorter_sort to the primitives' entry points
 * (primitives/registry.h). */
#include <pthread.h>
#include <stdatomic.h>
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

/* The alignment the generated value type needs (see gen.c's value types). */
static size_t value_alignment(size_t v) {
    if (v == 0) return 1;
    if (v == 16) return 16;
    return v % 8 == 0 ? 8 : v % 4 == 0 ? 4 : v % 2 == 0 ? 2 : 1;
}

/* Keeps spec for a build after create, its strings copied into one allocation (the
 * description's belong to the caller). 0, or -1 when host memory ran out. */
static int keep_spec(mj_sorter *s, const mj_kernel_spec *spec) {
    s->spec = *spec;
    const char **text[] = {&s->spec.less, &s->spec.op, &s->spec.identity, &s->spec.type_name,
                           &s->spec.type_source};
    size_t total = 1;
    for (size_t i = 0; i < sizeof text / sizeof *text; ++i)
        if (*text[i]) total += strlen(*text[i]) + 1;
    char *at = s->spec_text = mj__malloc(total);
    if (!at) return -1;
    for (size_t i = 0; i < sizeof text / sizeof *text; ++i) {
        if (!*text[i]) continue;
        size_t n = strlen(*text[i]) + 1;
        memcpy(at, *text[i], n);
        *text[i] = at;
        at += n;
    }
    return 0;
}

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
    pthread_mutex_init(&s->later_lock, NULL);
    s->ctx = ctx;
    s->primitive = desc->primitive;
    /* The kernels only some runs use wait for the first run that launches them
     * (mj__sorter_build_later: those of that run), unless the sorter cannot run (compile-only)
     * or the context asks for everything now: every kernel its runs may launch, as one module
     * (a mergesort with fused 2-way passes never launches the 2-way partition, so no context
     * builds it). */
    mj_kernel_set later = mj__primitive_later_kernels(desc->primitive);
    st = mj__module_get(ctx, &spec, entry, mj__primitive_kernels(desc->primitive) & ~later,
                        &s->mod, &s->source, &s->build_ms);
    if (desc->primitive == MJ_MERGESORT) later &= mj__mergesort_kernels(fused);
    if (!st && (s->mod->kernels & later) != later) {
        if (keep_spec(s, &spec))
            st = mj__fail(ctx, MJ_ERR_HOST_MEMORY, "out of host memory");
        else if (!ctx->cu || (ctx->flags & MJ_CONTEXT_BUILD_ALL))
            st = mj__sorter_build_later(s, later);
    }
    if (st) {
        mj_sorter_destroy(s);
        return st;
    }
    s->key_size = key_size;
    s->key_align = desc->key == MJ_KEY_CUSTOM ? desc->type_align : key_size;
    s->value_size = desc->value_size;
    s->value_align = value_alignment(desc->value_size);
    s->nt = spec.nt;
    s->vt = spec.vt;
    s->bs_nt = mj__spec_bs_nt(&spec);
    /* The description's threshold is the caller's own choice: it outranks
     * MERGEJIT_MERGE_WAYS, which is for experiments (the tuning file's does not). */
    s->merge_ways = desc->merge4_log2 ? 0 : ways;
    s->merge4_log2 = mj__merge4_log2(ctx, desc, key_size);
    s->fused = fused;
    s->pdl = pdl;
    s->serpentine = serpentine;
    *out = s;
    return MJ_OK;
}

void mj_sorter_destroy(mj_sorter *sorter) {
    if (!sorter) return;
    pthread_mutex_destroy(&sorter->later_lock);
    free(sorter->spec_text);
    free(sorter);
}

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

/* Later module i once built (its fields then final), else NULL: so are those after it. */
static const mj_module *later_of(const mj_sorter *s, int i) {
    return atomic_load_explicit(&((mj_sorter *)s)->later[i].mod, memory_order_acquire);
}

/* A figure of two builds together: -1 (unknown, nothing built) in one gives the other's. */
static double sum_known(double a, double b) { return a < 0 ? b : b < 0 ? a : a + b; }
static double max_of(double a, double b) { return a > b ? a : b; }

int mj_sorter_later_build(const mj_sorter *s, int *source, double *ms, mj_build_times *times) {
    int built = 0, src = -1;
    double total = 0;
    mj_build_times t = times_of(NULL, -1);
    for (int i = 0; s && i < MJ_LATER_MOST; ++i) {
        const mj_module *m = later_of(s, i);
        if (!m) break;
        const mj_later_module *p = &s->later[i];
        mj_build_times pt = times_of(m, p->source);
        /* compiled < disk < memory: the costliest way any module arrived */
        if (!built++ || p->source < src) src = p->source;
        total += p->ms;
        t.programs += pt.programs;
        t.threads = t.threads > pt.threads ? t.threads : pt.threads;
        t.frontend_ms = sum_known(t.frontend_ms, pt.frontend_ms);
        t.ptxas_ms = sum_known(t.ptxas_ms, pt.ptxas_ms);
        t.slowest_ms = max_of(t.slowest_ms, pt.slowest_ms);
    }
    if (!built) return 0;
    if (source) *source = src;
    if (ms) *ms = total;
    if (times) *times = t;
    return built;
}

void mj_sorter_tile(const mj_sorter *s, int *nt, int *vt) {
    if (nt) *nt = s ? s->nt : 0;
    if (vt) *vt = s ? s->vt : 0;
}
void mj_sorter_resources(const mj_sorter *s, int *registers, long *spill_bytes) {
    int regs = s ? s->mod->registers : -1;
    long spills = s ? s->mod->spill_bytes : -1;
    /* Each module once: a later one holds none of the kernels of create or of another. */
    for (int i = 0; s && i < MJ_LATER_MOST; ++i) {
        const mj_module *m = later_of(s, i);
        if (!m) break;
        /* unknown (-1) in any module: unknown */
        regs = regs < 0 || m->registers < 0 ? -1 : regs > m->registers ? regs : m->registers;
        spills = spills < 0 || m->spill_bytes < 0 ? -1 : spills + m->spill_bytes;
    }
    if (registers) *registers = regs;
    if (spill_bytes) *spill_bytes = spills;
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
