/* Sorters: building one from a description, the run machinery every primitive shares, and
 * the host side of mergesort (temporary storage, pass schedule, launches). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge_frame.h"
#include "sorter.h"
#include "host_alloc.h"

#define MJ_PARTITION_THREADS 128

/* The alignment the generated value type needs (see gen.c's value types). */
static size_t value_alignment(size_t v) {
    if (v == 0) return 1;
    if (v == 16) return 16;
    return v % 8 == 0 ? 8 : v % 4 == 0 ? 4 : v % 2 == 0 ? 2 : 1;
}

mj_status mj_spec_from_desc(mj_context *ctx, const mj_sort_desc *desc, mj_kernel_spec *spec) {
    if ((unsigned)desc->key >= MJ_KEY_KIND_COUNT)
        return mj_fail(ctx, MJ_ERR_INVALID_ARGUMENT, "unknown key kind %d", (int)desc->key);
    if ((unsigned)desc->primitive >= MJ_PRIMITIVE_COUNT)
        return mj_fail(ctx, MJ_ERR_INVALID_ARGUMENT, "unknown primitive %d",
                       (int)desc->primitive);
    if (desc->value_size > MJ_MAX_VALUE_SIZE)
        return mj_fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                       "value_size %zu is over the largest supported, %d bytes",
                       desc->value_size, MJ_MAX_VALUE_SIZE);
    *spec = (mj_kernel_spec){
        .primitive = desc->primitive,
        .key = desc->key,
        .order = desc->order,
        .less = desc->less,
        .type_name = desc->type_name,
        .type_source = desc->type_source,
        .type_size = desc->type_size,
        .type_align = desc->type_align,
        .value_size = desc->value_size,
        .sm = ctx->sm,
    };
    return MJ_OK;
}

mj_status mj_sorter_create(mj_context *ctx, const mj_sort_desc *desc, mj_sorter **out) {
    if (!ctx) return MJ_ERR_INVALID_ARGUMENT;
    if (!desc || !out) return mj_fail(ctx, MJ_ERR_INVALID_ARGUMENT, "desc and out are required");
    *out = NULL;
    mj_kernel_spec spec;
    const mj_bundle_entry *entry = NULL;
    mj_status st = mj_spec_from_desc(ctx, desc, &spec);
    if (!st) st = mj_choose_tile(ctx, desc, &spec, &entry);
    if (st) return st;
    size_t key_size = mj_spec_key_size(&spec);

    mj_sorter *s = mj_calloc(1, sizeof *s);
    if (!s) return mj_fail(ctx, MJ_ERR_HOST_MEMORY, "out of host memory");
    st = mj_module_get(ctx, &spec, entry, &s->mod, &s->source, &s->build_ms);
    if (st) {
        free(s);
        return st;
    }
    s->ctx = ctx;
    s->key_size = key_size;
    s->key_align = desc->key == MJ_KEY_CUSTOM ? desc->type_align : key_size;
    s->value_size = desc->value_size;
    s->value_align = value_alignment(desc->value_size);
    s->nt = spec.nt;
    s->vt = spec.vt;
    s->bs_nt = mj_spec_bs_nt(&spec);
    s->primitive = desc->primitive;
    *out = s;
    return MJ_OK;
}

void mj_sorter_destroy(mj_sorter *sorter) { free(sorter); }

int mj_sorter_source(const mj_sorter *s) { return s ? s->source : -1; }
double mj_sorter_build_ms(const mj_sorter *s) { return s ? s->build_ms : 0; }
void mj_sorter_tile(const mj_sorter *s, int *nt, int *vt) {
    if (nt) *nt = s ? s->nt : 0;
    if (vt) *vt = s ? s->vt : 0;
}
void mj_sorter_resources(const mj_sorter *s, int *registers, long *spill_bytes) {
    if (registers) *registers = s ? s->mod->registers : -1;
    if (spill_bytes) *spill_bytes = s ? s->mod->spill_bytes : -1;
}

size_t mj_temp_part(mj_temp_layout *t, size_t count, size_t size) {
    size_t bytes, at;
    if (__builtin_mul_overflow(count, size, &bytes) ||
        __builtin_add_overflow(t->total, (size_t)MJ_TEMP_ALIGN - 1, &at)) {
        t->overflow = 1;
        return 0;
    }
    at &= ~(size_t)(MJ_TEMP_ALIGN - 1);
    if (__builtin_add_overflow(at, bytes, &t->total)) t->overflow = 1;
    return at;
}

/* Mergesort's temporary storage: [key scratch][second key scratch, index sorts only]
 * [value scratch][partitions]. */
typedef struct temp_layout {
    size_t keys, keys2, values, partitions, total;
} temp_layout;

static mj_status layout(const mj_sorter *s, size_t n, int indices, temp_layout *t) {
    mj_temp_layout l = {0, 0};
    size_t tiles = (size_t)mj_tile_count((long long)n, (long long)s->nt * s->vt);
    t->keys = mj_temp_part(&l, n, s->key_size);
    t->keys2 = mj_temp_part(&l, indices ? n : 0, s->key_size);
    t->values = mj_temp_part(&l, n, s->value_size);
    t->partitions = mj_temp_part(&l, tiles, sizeof(long long));
    t->total = l.total;
    if (l.overflow)
        return mj_fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements do not fit in memory", n);
    if (tiles > 0x7fffffffull)
        return mj_fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements need more blocks than a grid has",
                       n);
    return MJ_OK;
}

mj_status mj_mergesort_temp(const mj_sorter *s, size_t n, int indices, size_t *bytes) {
    temp_layout t;
    mj_status st = layout(s, n, indices, &t);
    if (st == MJ_OK) *bytes = t.total;
    return st;
}

mj_status mj_check_values(mj_sorter *s, const void *values, size_t n) {
    if (s->value_size && !values && n)
        return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                       "this sorter carries %zu-byte values: values is required", s->value_size);
    if (!s->value_size && values)
        return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                       "this sorter sorts keys only (value_size 0) but values were given");
    return MJ_OK;
}

mj_status mj_sorter_temp_size(const mj_sorter *s, size_t n, int indices, size_t *bytes) {
    if (!s || !bytes) return MJ_ERR_INVALID_ARGUMENT;
    switch (s->primitive) {
    case MJ_MERGE: return mj_merge_temp(s, n, bytes);
    case MJ_SEGMENTED_SORT:
    case MJ_LOCALITY_SORT: return mj_queued_temp(s, n, bytes);
    default: return mj_mergesort_temp(s, n, indices, bytes);
    }
}

static mj_status launched(mj_sorter *s, mj_kernel_id k, CUresult r) {
    if (r == CUDA_SUCCESS) return MJ_OK;
    char what[64];
    snprintf(what, sizeof what, "launching %s", mj_kernel_name(k));
    return mj_fail_cuda(s->ctx, r, what);
}

mj_status mj_launch(mj_sorter *s, mj_kernel_id k, long long grid, unsigned block,
                    void **params, CUstream stream) {
    return launched(s, k, s->ctx->cu->launch(s->mod->fn[k], (unsigned)grid, 1, 1, block, 1, 1, 0,
                                             stream, params, NULL));
}

mj_status mj_launch_overlapped(mj_sorter *s, mj_kernel_id k, long long grid, unsigned block,
                               void **params, CUstream stream) {
    if (s->ctx->sm < 90) return mj_launch(s, k, grid, block, params, stream);
    CUlaunchAttribute overlap = {.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION};
    overlap.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config = {.gridDimX = (unsigned)grid, .gridDimY = 1, .gridDimZ = 1,
                             .blockDimX = block, .blockDimY = 1, .blockDimZ = 1,
                             .hStream = stream, .attrs = &overlap, .numAttrs = 1};
    return launched(s, k, s->ctx->cu->launch_ex(&config, s->mod->fn[k], params, NULL));
}

mj_status mj_sorter_expect(mj_sorter *s, unsigned mask, const char *function) {
    if (mask & (1u << s->primitive)) return MJ_OK;
    return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "%s cannot run a sorter built for %s",
                   function, mj_primitive_name(s->primitive));
}

/* Blocksort from (keys_src, values_src) into buffer pair `cur`, then merge passes ping-ponging
 * between the pairs. The blocksort's buffer is chosen by the parity of the pass count so that
 * the last pass lands in pair 0. values_src 0 with values: index sort. The blocksort's runs
 * span `runs` merge tiles, so the first merge pass makes lists of 2 * runs tiles. */
static mj_status schedule(mj_sorter *s, CUdeviceptr keys_src, CUdeviceptr values_src,
                          CUdeviceptr k[2], CUdeviceptr v[2], CUdeviceptr partitions,
                          long long n, CUstream stream) {
    long long nv = (long long)s->nt * s->vt;
    long long runs = s->bs_nt / s->nt;
    long long tiles = mj_tile_count(n, nv);
    long long bs_tiles = mj_tile_count(n, nv * runs);
    int passes = mj_sort_passes(n, nv, runs);
    int cur = passes & 1;
    mj_status st;

    void *bs_params[] = {&keys_src, &values_src, &k[cur], &v[cur], &n};
    if ((st = mj_launch(s, MJ_K_BLOCKSORT, bs_tiles, (unsigned)s->bs_nt, bs_params, stream)))
        return st;
    int lanes = mj_search_lanes(tiles);
    for (int p = 0; p < passes; ++p) {
        long long coop = mj_pass_coop(p, runs);
        void *pp[] = {&k[cur], &n, &coop, &tiles, &partitions, &lanes};
        if ((st = mj_launch(s, MJ_K_PARTITION,
                            (tiles * lanes + MJ_PARTITION_THREADS - 1) / MJ_PARTITION_THREADS,
                            MJ_PARTITION_THREADS, pp, stream)))
            return st;
        void *mp[] = {&k[cur], &v[cur], &k[cur ^ 1], &v[cur ^ 1], &partitions, &n, &coop};
        if ((st = mj_launch(s, MJ_K_MERGE, tiles, (unsigned)s->nt, mp, stream)))
            return st;
        cur ^= 1;
    }
    return MJ_OK;
}

mj_status mj_check_pointer(mj_sorter *s, const void *p, size_t align, const char *what) {
    if (!p) return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "%s is NULL", what);
    if ((uintptr_t)p % align)
        return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "%s (%p) is not aligned to %zu bytes",
                       what, p, align);
    unsigned type = 0;
    CUresult r = s->ctx->cu->pointer_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, DPTR(p));
    if (r != CUDA_SUCCESS)
        return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                       "%s (%p) is not memory the GPU can reach (host memory from malloc?)",
                       what, p);
    return MJ_OK;
}

mj_status mj_run_check_temp(mj_sorter *s, size_t need, const void *temp, size_t temp_bytes) {
    if (temp && temp_bytes < need)
        return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                       "temporary storage of %zu bytes is too small: %zu needed", temp_bytes,
                       need);
    if (temp && (uintptr_t)temp % MJ_TEMP_ALIGN)
        return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                       "temporary storage must be aligned to %d bytes", MJ_TEMP_ALIGN);
    return MJ_OK;
}

mj_status mj_run_begin(mj_sorter *s, size_t need, void *temp, void *stream, mj_run *run) {
    mj_context *ctx = s->ctx;
    run->base = DPTR(temp);
    run->stream = (CUstream)stream;
    run->owned = 0;
    if (temp) return mj_check_pointer(s, temp, MJ_TEMP_ALIGN, "temp");
    CUresult r = ctx->cu->mem_alloc_async ? ctx->cu->mem_alloc_async(&run->base, need, run->stream)
                                          : ctx->cu->mem_alloc(&run->base, need);
    if (r != CUDA_SUCCESS) return mj_fail_cuda(ctx, r, "allocating temporary storage");
    run->owned = 1;
    return MJ_OK;
}

void mj_run_end(mj_sorter *s, mj_run *run) {
    mj_context *ctx = s->ctx;
    if (!run->owned) return;
    if (ctx->cu->mem_free_async) {
        ctx->cu->mem_free_async(run->base, run->stream);
    } else {
        ctx->cu->stream_sync(run->stream);
        ctx->cu->mem_free(run->base);
    }
    run->owned = 0;
}

/* Common body of sort and sort_indices: checks, temporary storage, schedule. */
static mj_status run(mj_sorter *s, const void *keys, void *keys_final, const void *values,
                     void *values_final, size_t n, int indices, void *temp, size_t temp_bytes,
                     void *stream) {
    mj_context *ctx = s->ctx;
    temp_layout t;
    mj_status st;
    if ((st = layout(s, n, indices, &t)) || (st = mj_run_check_temp(s, t.total, temp, temp_bytes)))
        return st;
    if ((st = mj_ctx_enter(ctx))) return st;
    if (n == 0) {
        mj_ctx_leave(ctx);
        return MJ_OK;
    }
    mj_run rn;
    if ((st = mj_check_pointer(s, keys, s->key_align, "keys")) ||
        (keys_final && keys_final != keys &&
         (st = mj_check_pointer(s, keys_final, s->key_align, "keys"))) ||
        (values && (st = mj_check_pointer(s, values, s->value_align, "values"))) ||
        (values_final && values_final != values &&
         (st = mj_check_pointer(s, values_final, s->value_align, "indices"))) ||
        (st = mj_run_begin(s, t.total, temp, stream, &rn))) {
        mj_ctx_leave(ctx);
        return st;
    }
    CUdeviceptr base = rn.base;
    CUdeviceptr k[2], v[2];
    if (indices) {
        k[0] = base + t.keys;
        k[1] = base + t.keys2;
    } else {
        k[0] = DPTR(keys_final);
        k[1] = base + t.keys;
    }
    v[0] = DPTR(values_final);
    v[1] = s->value_size ? base + t.values : 0;
    st = schedule(s, DPTR(keys), DPTR(values), k, v, base + t.partitions, (long long)n,
                  rn.stream);
    mj_run_end(s, &rn);
    mj_ctx_leave(ctx);
    return st;
}

mj_status mj_sorter_sort(mj_sorter *s, void *keys, void *values, size_t n, void *temp,
                         size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_status st = mj_sorter_expect(s, 1u << MJ_MERGESORT | 1u << MJ_LOCALITY_SORT,
                                    "mj_sorter_sort");
    if (st || (st = mj_check_values(s, values, n))) return st;
    if (s->primitive == MJ_LOCALITY_SORT)
        return mj_locality_sort(s, keys, values, n, temp, temp_bytes, stream);
    return run(s, keys, keys, values, values, n, 0, temp, temp_bytes, stream);
}

mj_status mj_sorter_sort_indices(mj_sorter *s, const void *keys, void *indices, size_t n,
                                 void *temp, size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_status st = mj_sorter_expect(s, 1u << MJ_MERGESORT, "mj_sorter_sort_indices");
    if (st) return st;
    if (s->value_size != 4 && s->value_size != 8)
        return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                       "index sorts need a sorter with value_size 4 or 8 (the index width), "
                       "not %zu", s->value_size);
    if (s->value_size == 4 && n > 0x100000000ull)
        return mj_fail(s->ctx, MJ_ERR_TOO_LARGE,
                       "%zu elements need 8-byte indices (value_size 8)", n);
    if (!indices && n) return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "indices is NULL");
    return run(s, keys, NULL, NULL, indices, n, 1, temp, temp_bytes, stream);
}
