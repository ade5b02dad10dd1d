/* Sorters: building one from a description, and the host side of mergesort (temporary
 * storage, pass schedule, launches). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "merge_frame.h"

struct mj_sorter {
    mj_context *ctx;
    const mj_module *mod;
    size_t key_size, key_align;
    size_t value_size, value_align;
    int nt, vt, bs_nt;
    int source;
    double build_ms;
};

#define MJ_TEMP_ALIGN 256
#define MJ_PARTITION_THREADS 128

/* The alignment the generated value type needs (see gen.c's value types). */
static size_t value_alignment(size_t v) {
    if (v == 0) return 1;
    if (v == 16) return 16;
    return v % 8 == 0 ? 8 : v % 4 == 0 ? 4 : v % 2 == 0 ? 2 : 1;
}

/* MERGEJIT_TILE=NTxVT or NTxVTxBS overrides the tile shapes (BS: blocksort threads, else
 * NT), for tuning experiments. A bad shape is caught by the generator's spec check. */
static void tile_override(int *nt, int *vt, int *bs_nt) {
    const char *s = getenv("MERGEJIT_TILE");
    int a, b, c;
    int got = s ? sscanf(s, "%dx%dx%d", &a, &b, &c) : 0;
    if (got >= 2) {
        *nt = a;
        *vt = b;
        *bs_nt = got == 3 ? c : a;
    }
}

mj_status mj_sorter_create(mj_context *ctx, const mj_sort_desc *desc, mj_sorter **out) {
    if (!ctx) return MJ_ERR_INVALID_ARGUMENT;
    if (!desc || !out) return mj_fail(ctx, MJ_ERR_INVALID_ARGUMENT, "desc and out are required");
    *out = NULL;
    if ((unsigned)desc->key >= MJ_KEY_KIND_COUNT)
        return mj_fail(ctx, MJ_ERR_INVALID_ARGUMENT, "unknown key kind %d", (int)desc->key);
    if (desc->value_size > MJ_MAX_VALUE_SIZE)
        return mj_fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                       "value_size %zu is over the largest supported, %d bytes",
                       desc->value_size, MJ_MAX_VALUE_SIZE);
    mj_kernel_spec spec = {
        .primitive = MJ_PRIM_MERGESORT,
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
    size_t key_size = mj_spec_key_size(&spec);
    mj_default_tile(ctx->sm, key_size, desc->value_size, &spec.nt, &spec.vt, &spec.bs_nt);
    tile_override(&spec.nt, &spec.vt, &spec.bs_nt);

    mj_sorter *s = calloc(1, sizeof *s);
    if (!s) return mj_fail(ctx, MJ_ERR_HOST_MEMORY, "out of host memory");
    mj_status st = mj_module_get(ctx, &spec, &s->mod, &s->source, &s->build_ms);
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
    s->bs_nt = spec.bs_nt;
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

/* Temporary storage: [key scratch][second key scratch, index sorts only][value scratch]
 * [partitions], each part aligned. Returns 0, or -1 when the sizes overflow size_t. */
typedef struct temp_layout {
    size_t keys, keys2, values, partitions, total;
} temp_layout;

static int add_part(size_t *at, size_t bytes, size_t *offset) {
    size_t aligned;
    if (__builtin_add_overflow(*at, MJ_TEMP_ALIGN - 1, &aligned)) return -1;
    aligned &= ~(size_t)(MJ_TEMP_ALIGN - 1);
    *offset = aligned;
    return __builtin_add_overflow(aligned, bytes, at) ? -1 : 0;
}

static int layout(const mj_sorter *s, size_t n, int indices, temp_layout *t) {
    size_t key_bytes, value_bytes, part_bytes;
    long long nv = (long long)s->nt * s->vt;
    size_t tiles = (size_t)mj_tile_count((long long)n, nv);
    if (__builtin_mul_overflow(n, s->key_size, &key_bytes) ||
        __builtin_mul_overflow(n, s->value_size, &value_bytes) ||
        __builtin_mul_overflow(tiles, sizeof(long long), &part_bytes))
        return -1;
    size_t at = 0;
    memset(t, 0, sizeof *t);
    if (add_part(&at, key_bytes, &t->keys) || add_part(&at, indices ? key_bytes : 0, &t->keys2) ||
        add_part(&at, value_bytes, &t->values) || add_part(&at, part_bytes, &t->partitions))
        return -1;
    t->total = at;
    return 0;
}

mj_status mj_sorter_temp_size(const mj_sorter *s, size_t n, int indices, size_t *bytes) {
    if (!s || !bytes) return MJ_ERR_INVALID_ARGUMENT;
    temp_layout t;
    if (layout(s, n, indices, &t))
        return mj_fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements do not fit in memory", n);
    *bytes = t.total;
    return MJ_OK;
}

static mj_status launch(mj_sorter *s, CUfunction f, long long grid, unsigned block,
                        void **params, CUstream stream, const char *name) {
    CUresult r = s->ctx->cu->launch(f, (unsigned)grid, 1, 1, block, 1, 1, 0, stream, params,
                                    NULL);
    return r == CUDA_SUCCESS ? MJ_OK : mj_fail_cuda(s->ctx, r, name);
}

/* Blocksort from (keys_src, values_src) into buffer pair `cur`, then merge passes ping-ponging
 * between the pairs. The blocksort's buffer is chosen by the parity of the pass count so that
 * the last pass lands in pair 0. values_src 0 with values: index sort. The blocksort's runs
 * span `runs` merge tiles, so the first merge pass makes lists of 2 * runs tiles. */
static mj_status schedule(mj_sorter *s, CUdeviceptr keys_src, CUdeviceptr values_src,
                          CUdeviceptr k[2], CUdeviceptr v[2], CUdeviceptr partitions,
                          long long n, CUstream stream) {
    const mj_module *m = s->mod;
    long long nv = (long long)s->nt * s->vt;
    long long runs = s->bs_nt / s->nt;
    long long tiles = mj_tile_count(n, nv);
    long long bs_tiles = mj_tile_count(n, nv * runs);
    int passes = mj_sort_passes(n, nv, runs);
    int cur = passes & 1;
    mj_status st;

    void *bs_params[] = {&keys_src, &values_src, &k[cur], &v[cur], &n};
    if ((st = launch(s, m->blocksort, bs_tiles, (unsigned)s->bs_nt, bs_params, stream,
                     "launching mj_blocksort")))
        return st;
    for (int p = 0; p < passes; ++p) {
        long long coop = mj_pass_coop(p, runs);
        void *pp[] = {&k[cur], &n, &coop, &tiles, &partitions};
        if ((st = launch(s, m->partition, (tiles + MJ_PARTITION_THREADS - 1) / MJ_PARTITION_THREADS,
                         MJ_PARTITION_THREADS, pp, stream, "launching mj_partition")))
            return st;
        void *mp[] = {&k[cur], &v[cur], &k[cur ^ 1], &v[cur ^ 1], &partitions, &n, &coop};
        if ((st = launch(s, m->merge, tiles, (unsigned)s->nt, mp, stream,
                         "launching mj_merge")))
            return st;
        cur ^= 1;
    }
    return MJ_OK;
}

static mj_status check_pointer(mj_sorter *s, const void *p, size_t align, const char *what) {
    if (!p) return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "%s is NULL", what);
    if ((uintptr_t)p % align)
        return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "%s (%p) is not aligned to %zu bytes",
                       what, p, align);
    unsigned type = 0;
    CUresult r = s->ctx->cu->pointer_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                               (CUdeviceptr)(uintptr_t)p);
    if (r != CUDA_SUCCESS)
        return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                       "%s (%p) is not memory the GPU can reach (host memory from malloc?)",
                       what, p);
    return MJ_OK;
}

/* Common body of sort and sort_indices: checks, temporary storage, schedule. */
static mj_status run(mj_sorter *s, const void *keys, void *keys_final, const void *values,
                     void *values_final, size_t n, int indices, void *temp, size_t temp_bytes,
                     void *stream) {
    mj_context *ctx = s->ctx;
    temp_layout t;
    if (layout(s, n, indices, &t))
        return mj_fail(ctx, MJ_ERR_TOO_LARGE, "%zu elements do not fit in memory", n);
    if (mj_tile_count((long long)n, (long long)s->nt * s->vt) > 0x7fffffffll)
        return mj_fail(ctx, MJ_ERR_TOO_LARGE, "%zu elements need more blocks than a grid has", n);
    if (temp && temp_bytes < t.total)
        return mj_fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                       "temporary storage of %zu bytes is too small: %zu needed", temp_bytes,
                       t.total);
    if (temp && (uintptr_t)temp % MJ_TEMP_ALIGN)
        return mj_fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                       "temporary storage must be aligned to %d bytes", MJ_TEMP_ALIGN);
    mj_status st = mj_ctx_enter(ctx);
    if (st) return st;
    if (n == 0) {
        mj_ctx_leave(ctx);
        return MJ_OK;
    }
    if ((st = check_pointer(s, keys, s->key_align, "keys")) ||
        (keys_final && keys_final != keys &&
         (st = check_pointer(s, keys_final, s->key_align, "keys"))) ||
        (values && (st = check_pointer(s, values, s->value_align, "values"))) ||
        (values_final && values_final != values &&
         (st = check_pointer(s, values_final, s->value_align, "indices"))) ||
        (temp && (st = check_pointer(s, temp, MJ_TEMP_ALIGN, "temp")))) {
        mj_ctx_leave(ctx);
        return st;
    }

    CUstream cs = (CUstream)stream;
    CUdeviceptr base = (CUdeviceptr)(uintptr_t)temp;
    int owned = 0;
    if (!base) {
        CUresult r = ctx->cu->mem_alloc_async
                         ? ctx->cu->mem_alloc_async(&base, t.total, cs)
                         : ctx->cu->mem_alloc(&base, t.total);
        if (r != CUDA_SUCCESS) {
            mj_ctx_leave(ctx);
            return mj_fail_cuda(ctx, r, "allocating temporary storage");
        }
        owned = 1;
    }
    CUdeviceptr k[2], v[2];
    if (indices) {
        k[0] = base + t.keys;
        k[1] = base + t.keys2;
    } else {
        k[0] = (CUdeviceptr)(uintptr_t)keys_final;
        k[1] = base + t.keys;
    }
    v[0] = (CUdeviceptr)(uintptr_t)values_final;
    v[1] = s->value_size ? base + t.values : 0;
    st = schedule(s, (CUdeviceptr)(uintptr_t)keys, (CUdeviceptr)(uintptr_t)values, k, v,
                  base + t.partitions, (long long)n, cs);
    if (owned) {
        if (ctx->cu->mem_free_async) {
            ctx->cu->mem_free_async(base, cs);
        } else {
            ctx->cu->stream_sync(cs);
            ctx->cu->mem_free(base);
        }
    }
    mj_ctx_leave(ctx);
    return st;
}

mj_status mj_sorter_sort(mj_sorter *s, void *keys, void *values, size_t n, void *temp,
                         size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    if (s->value_size && !values && n)
        return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                       "this sorter carries %zu-byte values: values is required", s->value_size);
    if (!s->value_size && values)
        return mj_fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                       "this sorter sorts keys only (value_size 0) but values were given");
    return run(s, keys, keys, values, values, n, 0, temp, temp_bytes, stream);
}

mj_status mj_sorter_sort_indices(mj_sorter *s, const void *keys, void *indices, size_t n,
                                 void *temp, size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
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
