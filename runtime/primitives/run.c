/* SPDX-License-Identifier: Apache-2.0 */
/* The run machinery every primitive's host side shares: argument and pointer checks,
 * temporary storage (layout, allocation in stream order), a run's one prologue and epilogue
 * (mj__run_open, mj__run_close), launches. */
#include "primitives/run.h"

#include <stdio.h>
#include <stdint.h>

#include "core/context.h"
#include "gen.h"

size_t mj__temp_part(mj_temp_layout *t, size_t count, size_t size) {
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

mj_status mj__check_values(mj_sorter *s, const void *values, size_t n) {
    if (s->value_size && !values && n)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "this sorter carries %zu-byte values: values is required", s->value_size);
    if (!s->value_size && values)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "this sorter sorts keys only (value_size 0) but values were given");
    return MJ_OK;
}

static mj_status launched(mj_sorter *s, int k, CUresult r) {
    if (r == CUDA_SUCCESS) return MJ_OK;
    char what[64];
    snprintf(what, sizeof what, "launching %s", mj__kernel_name(s->primitive, k));
    return mj__fail_cuda(s->ctx, r, what);
}

/* The sorter's module when it holds kernel k, else NULL after the message: a bug, since create
 * builds every kernel a run may launch. */
static const mj_module *module_of(mj_sorter *s, int k) {
    if ((unsigned)k < MJ_KERNELS_MAX && (s->mod->kernels & (1u << k))) return s->mod;
    mj__fail(s->ctx, MJ_ERR_UNSUPPORTED, "launching %s: the sorter has not built it",
             mj__kernel_name(s->primitive, k));
    return NULL;
}

mj_status mj__launch(mj_sorter *s, int k, long long grid, unsigned block, void **params,
                     CUstream stream) {
    const mj_module *m = module_of(s, k);
    if (!m) return MJ_ERR_UNSUPPORTED;
    return launched(s, k, s->ctx->cu->launch(m->fn[k], (unsigned)grid, 1, 1, block, 1, 1, 0,
                                             stream, params, NULL));
}

mj_status mj__launch_overlapped(mj_sorter *s, int k, long long grid, unsigned block,
                                void **params, CUstream stream) {
    const mj_module *m = module_of(s, k);
    if (!m) return MJ_ERR_UNSUPPORTED;
    if (m->code_sm < 90 || !s->ctx->cu->launch_ex)
        return mj__launch(s, k, grid, block, params, stream);
    CUlaunchAttribute overlap = {.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION};
    overlap.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config = {.gridDimX = (unsigned)grid, .gridDimY = 1, .gridDimZ = 1,
                             .blockDimX = block, .blockDimY = 1, .blockDimZ = 1,
                             .hStream = stream, .attrs = &overlap, .numAttrs = 1};
    return launched(s, k, s->ctx->cu->launch_ex(&config, m->fn[k], params, NULL));
}

mj_status mj__sorter_expect(const mj_sorter *s, unsigned mask, const char *function) {
    if (mask & (1u << s->primitive)) return MJ_OK;
    return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "%s cannot run a sorter built for %s",
                    function, mj_primitive_name(s->primitive));
}

/* p must be device memory the GPU can reach, aligned to `align` (call inside the context). */
static mj_status check_pointer(mj_sorter *s, const void *p, size_t align, const char *what) {
    if (!p) return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "%s is NULL", what);
    if ((uintptr_t)p % align)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "%s (%p) is not aligned to %zu bytes",
                        what, p, align);
    unsigned type = 0;
    CUresult r = s->ctx->cu->pointer_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, DPTR(p));
    if (r != CUDA_SUCCESS)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s (%p) is not memory the GPU can reach (host memory from malloc?)",
                        what, p);
    return MJ_OK;
}

mj_status mj__run_check_temp(mj_sorter *s, size_t need, const void *temp, size_t temp_bytes) {
    if (!temp && temp_bytes)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "temp is NULL but temp_bytes is %zu: a NULL temp (with temp_bytes 0) "
                        "has the library allocate it, and is not a size query as in CUB; "
                        "mj_sorter_temp_size gives the size (%zu bytes here)", temp_bytes, need);
    if (temp && temp_bytes < need)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "temporary storage of %zu bytes is too small: %zu needed", temp_bytes,
                        need);
    if (temp && (uintptr_t)temp % MJ_TEMP_ALIGN)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "temporary storage must be aligned to %d bytes", MJ_TEMP_ALIGN);
    return MJ_OK;
}

mj_status mj__run_begin(mj_sorter *s, size_t need, void *temp, void *stream, mj_run *run) {
    mj_context *ctx = s->ctx;
    run->base = DPTR(temp);
    run->stream = (CUstream)stream;
    run->owned = 0;
    if (temp) return check_pointer(s, temp, MJ_TEMP_ALIGN, "temp");
    CUresult r = ctx->cu->mem_alloc_async ? ctx->cu->mem_alloc_async(&run->base, need, run->stream)
                                          : ctx->cu->mem_alloc(&run->base, need);
    if (r != CUDA_SUCCESS) return mj__fail_cuda(ctx, r, "allocating temporary storage");
    run->owned = 1;
    return MJ_OK;
}

void mj__run_end(mj_sorter *s, mj_run *run) {
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

int mj__ranges_overlap(const void *a, size_t an, const void *b, size_t bn) {
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return an && bn && x < y + bn && y < x + an;
}

mj_status mj__array_bytes(mj_sorter *s, const char *fn, mj_array *a, const size_t *count,
                          const size_t *size, int arrays) {
    for (int i = 0; i < arrays; ++i)
        if (__builtin_mul_overflow(count[i], size[i], &a[i].bytes))
            return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%s: %s does not fit in memory", fn,
                            a[i].name);
    return MJ_OK;
}

mj_status mj__check_array_pointers(mj_sorter *s, const mj_array *a, const size_t *align,
                                   int arrays) {
    mj_status st = MJ_OK;
    for (int i = 0; i < arrays && !st; ++i)
        if (a[i].bytes) st = check_pointer(s, a[i].p, align[i], a[i].name);
    return st;
}

mj_status mj__run_open(mj_sorter *s, const mj_array *a, const size_t *align, int arrays,
                       mj_run_steps steps, size_t need, void *temp, void *stream, mj_run *run) {
    *run = (mj_run){DPTR(temp), (CUstream)stream, 0, 0};
    mj_status st = mj__ctx_enter(s->ctx);
    if (st) return st;
    run->entered = 1;
    if (steps >= MJ_RUN_CHECK) st = mj__check_array_pointers(s, a, align, arrays);
    if (!st && steps >= MJ_RUN_TEMP && need) st = mj__run_begin(s, need, temp, stream, run);
    return st;
}

mj_status mj__run_close(mj_sorter *s, mj_run *run, mj_status st) {
    mj__run_end(s, run);
    if (run->entered) mj__ctx_leave(s->ctx);
    return st;
}

mj_status mj__run_clear(mj_sorter *s, CUdeviceptr p, size_t bytes, CUstream stream,
                        const char *what) {
    CUresult r = s->ctx->cu->memset_d8_async(p, 0, bytes, stream);
    return r == CUDA_SUCCESS ? MJ_OK : mj__fail_cuda(s->ctx, r, what);
}

mj_status mj__check_overlaps(mj_sorter *s, const char *fn, const mj_array *a, int first,
                             int count) {
    for (int o = first; o < count; ++o)
        for (int i = 0; i < o; ++i)
            if (a[o].p && a[i].p && mj__ranges_overlap(a[o].p, a[o].bytes, a[i].p, a[i].bytes))
                return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "%s: %s overlaps %s", fn,
                                a[o].name, a[i].name);
    return MJ_OK;
}
