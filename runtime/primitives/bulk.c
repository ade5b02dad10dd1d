/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of bulk remove (kernel_remove.cuh) and bulk insert (kernel_insert.cuh):
 * argument checks, then a partition kernel and one block per tile. Every check comes before
 * the first launch. Their temporary storage is lbs's (mj__lbs_temp): one 8-byte partition
 * entry per tile of n elements, plus one. */
#include <stdint.h>

#include "core/context.h"
#include "gen.h"
#include "primitives/load_balance.h"
#include "primitives/run.h"
#include "shared/bulk_remove.h"
#include "shared/load_balance.h"

/* The checks common to both before the arrays: the index size and the output values. */
static mj_status check_call(mj_sorter *s, const char *fn, size_t index_size,
                            const void *out_values, size_t out_count) {
    if (index_size != 4 && index_size != 8)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s: index_size must be 4 (uint32_t) or 8 (uint64_t), not %zu", fn,
                        index_size);
    if (s->value_size && out_count && !out_values)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s: this sorter carries %zu-byte values: out_values is required", fn,
                        s->value_size);
    if (!s->value_size && out_values)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s: this sorter moves keys only (value_size 0) but out_values was "
                        "given", fn);
    return MJ_OK;
}

mj_status mj_sorter_bulk_remove(mj_sorter *s, const void *keys, const void *values, size_t n,
                                const void *indices, size_t num_indices, size_t index_size,
                                void *out_keys, void *out_values, void *temp,
                                size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    const char *fn = "mj_sorter_bulk_remove";
    mj_context *ctx = s->ctx;
    mj_status st = mj__sorter_expect(s, 1u << MJ_BULK_REMOVE, fn);
    if (st) return st;
    if (num_indices > n)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s: %zu indices to remove from %zu elements (num_indices > n)", fn,
                        num_indices, n);
    if (n > (size_t)INT64_MAX / 2)
        return mj__fail(ctx, MJ_ERR_TOO_LARGE, "%s: %zu elements are too many", fn, n);
    size_t m = n - num_indices;
    if ((st = mj__check_values(s, values, n)) || (st = check_call(s, fn, index_size, out_values, m)))
        return st;
    if ((n && !keys) || (num_indices && !indices) || (m && !out_keys))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                        n && !keys ? "keys" : num_indices && !indices ? "indices" : "out_keys");
    enum { KEYS, VALUES, INDICES, OUT_KEYS, OUT_VALUES, ARRAYS };
    mj_array a[ARRAYS] = {{keys, 0, "keys"},         {values, 0, "values"},
                          {indices, 0, "indices"},   {out_keys, 0, "out_keys"},
                          {out_values, 0, "out_values"}};
    size_t vs = s->value_size;
    size_t count[ARRAYS] = {n, vs ? n : 0, num_indices, m, vs ? m : 0};
    size_t size[ARRAYS] = {s->key_size, vs, index_size, s->key_size, vs};
    size_t align[ARRAYS] = {s->key_align, s->value_align, index_size, s->key_align,
                            s->value_align};
    size_t need = 0;
    if ((st = mj__array_bytes(s, fn, a, count, size, ARRAYS)) ||
        (st = mj__check_overlaps(s, fn, a, OUT_KEYS, ARRAYS)) || (st = mj__lbs_temp(s, n, &need)) ||
        (st = mj__run_check_temp(s, need, temp, temp_bytes)))
        return st;
    /* Nothing kept: nothing to write, and no array is read. */
    mj_run rn;
    st = mj__run_open(s, a, align, ARRAYS, m ? MJ_RUN_TEMP : MJ_RUN_ENTER, need, temp, stream, &rn);
    if (!st && m) {
        long long nv = (long long)s->nt * s->vt, nn = (long long)n, ni = (long long)num_indices;
        long long tiles = mj_remove_tile_count(nn, nv), out_count = (long long)m;
        int isz = (int)index_size;
        CUdeviceptr k = DPTR(keys), v = DPTR(values), ix = DPTR(indices), parts = rn.base;
        CUdeviceptr ok = DPTR(out_keys), ov = DPTR(out_values);
        void *pp[] = {&ix, &isz, &ni, &nn, &tiles, &parts};
        void *tp[] = {&k, &v, &nn, &ix, &isz, &parts, &ok, &ov, &out_count};
        long long grid = (tiles + 1 + MJ_REMOVE_PARTITION_NT - 1) / MJ_REMOVE_PARTITION_NT;
        if (!(st = mj__launch(s, MJ_K_REMOVE_PARTITION, grid, MJ_REMOVE_PARTITION_NT, pp,
                              rn.stream)))
            st = mj__launch(s, MJ_K_REMOVE, tiles, (unsigned)s->nt, tp, rn.stream);
    }
    return mj__run_close(s, &rn, st);
}

mj_status mj_sorter_bulk_insert(mj_sorter *s, const void *a_keys, const void *a_values,
                                const void *positions, size_t a_count, size_t index_size,
                                const void *b_keys, const void *b_values, size_t b_count,
                                void *out_keys, void *out_values, void *temp,
                                size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    const char *fn = "mj_sorter_bulk_insert";
    mj_context *ctx = s->ctx;
    mj_status st = mj__sorter_expect(s, 1u << MJ_BULK_INSERT, fn);
    if (st) return st;
    size_t n;
    if (__builtin_add_overflow(a_count, b_count, &n) || n > (size_t)INT64_MAX / 2)
        return mj__fail(ctx, MJ_ERR_TOO_LARGE, "%s: a_count + b_count (%zu + %zu) is too many",
                        fn, a_count, b_count);
    if ((st = mj__check_values(s, a_values, a_count)) ||
        (st = mj__check_values(s, b_values, b_count)) ||
        (st = check_call(s, fn, index_size, out_values, n)))
        return st;
    if ((a_count && (!a_keys || !positions)) || (b_count && !b_keys) || (n && !out_keys))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                        a_count && !a_keys      ? "a_keys"
                        : a_count && !positions ? "positions"
                        : b_count && !b_keys    ? "b_keys"
                                                : "out_keys");
    enum { A_KEYS, A_VALUES, POSITIONS, B_KEYS, B_VALUES, OUT_KEYS, OUT_VALUES, ARRAYS };
    mj_array a[ARRAYS] = {{a_keys, 0, "a_keys"},     {a_values, 0, "a_values"},
                          {positions, 0, "positions"}, {b_keys, 0, "b_keys"},
                          {b_values, 0, "b_values"}, {out_keys, 0, "out_keys"},
                          {out_values, 0, "out_values"}};
    size_t vs = s->value_size;
    size_t count[ARRAYS] = {a_count, vs ? a_count : 0, a_count, b_count, vs ? b_count : 0, n,
                            vs ? n : 0};
    size_t size[ARRAYS] = {s->key_size, vs, index_size, s->key_size, vs, s->key_size, vs};
    size_t align[ARRAYS] = {s->key_align, s->value_align, index_size, s->key_align,
                            s->value_align, s->key_align, s->value_align};
    size_t need = 0;
    if ((st = mj__array_bytes(s, fn, a, count, size, ARRAYS)) ||
        (st = mj__check_overlaps(s, fn, a, OUT_KEYS, ARRAYS)) || (st = mj__lbs_temp(s, n, &need)) ||
        (st = mj__run_check_temp(s, need, temp, temp_bytes)))
        return st;
    mj_run rn;
    st = mj__run_open(s, a, align, ARRAYS, n ? MJ_RUN_TEMP : MJ_RUN_ENTER, need, temp, stream, &rn);
    if (!st && n) {
        long long nv = (long long)s->nt * s->vt, ac = (long long)a_count, bc = (long long)b_count;
        long long tiles = mj_lbs_tile_count(bc, ac, nv);
        int isz = (int)index_size;
        CUdeviceptr pos = DPTR(positions), parts = rn.base;
        CUdeviceptr ak = DPTR(a_keys), av = DPTR(a_values), bk = DPTR(b_keys), bv = DPTR(b_values);
        CUdeviceptr ok = DPTR(out_keys), ov = DPTR(out_values);
        void *pp[] = {&pos, &isz, &ac, &bc, &tiles, &parts};
        void *tp[] = {&pos, &isz, &ac, &bc, &parts, &ak, &av, &bk, &bv, &ok, &ov};
        long long grid = mj_lbs_partition_blocks(tiles);
        if (!(st = mj__launch(s, MJ_K_INSERT_PARTITION, grid, MJ_LBS_PARTITION_THREADS, pp,
                              rn.stream)))
            /* Started while the partitions are still being found (mj_cta_lbs_load). */
            st = mj__launch_overlapped(s, MJ_K_INSERT, tiles, (unsigned)s->nt, tp, rn.stream);
    }
    return mj__run_close(s, &rn, st);
}
