/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of the merge primitive: partitions of the output into tiles, then one block
 * per tile, started while the partitions are still being found (mj__launch_overlapped). */
#include "primitives/merge.h"

#include <stdint.h>

#include "core/context.h"
#include "gen.h"
#include "primitives/run.h"
#include "shared/merge_frame.h"

/* The partitions the first waves of merge blocks wait for, found with more lanes: so many
 * waves of resident blocks, in groups of so many lanes (at most MJ_MP_NT / MJ_MP_BOUNDS, see
 * kernel_merge_partition.cuh). The sweep behind 4 and 4: docs/TUNING.md. */
#define MJ_EARLY_WAVES 4
#define MJ_EARLY_LANES 4

mj_status mj__merge_temp(const mj_sorter *s, size_t n, size_t *bytes) {
    long long nv = (long long)s->nt * s->vt;
    /* Counts from 2^63 on would turn negative as long long and give no tiles. */
    if (n > (size_t)INT64_MAX - (size_t)nv)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu outputs are too many", n);
    long long tiles = mj_tile_count((long long)n, nv);
    mj_temp_layout l = {0, 0};
    mj__temp_part(&l, (size_t)tiles + 1, sizeof(long long));
    if (l.overflow || tiles >= 0x7fffffffll)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu outputs need more blocks than a grid has",
                        n);
    *bytes = l.total;
    return MJ_OK;
}

mj_status mj__merge_partition_launch(mj_sorter *s, CUdeviceptr a, long long a_count,
                                     CUdeviceptr b, long long b_count, long long tiles,
                                     CUdeviceptr partitions, CUstream stream) {
    long long early = (long long)MJ_EARLY_WAVES * s->mod->resident;
    if (early <= 0 || early > tiles + 1) early = tiles + 1;
    int early_lanes = MJ_EARLY_LANES;
    long long grid = (early * early_lanes + MJ_MP_NT - 1) / MJ_MP_NT +
                     (tiles + 1 - early + MJ_MP_NT / MJ_MP_LANES - 1) / (MJ_MP_NT / MJ_MP_LANES);
    void *pp[] = {&a, &a_count, &b, &b_count, &tiles, &partitions, &early, &early_lanes};
    return mj__launch(s, MJ_K_MERGE_PARTITION, grid, MJ_MP_NT, pp, stream);
}

mj_status mj_sorter_merge(mj_sorter *s, const void *a_keys, const void *a_values,
                          size_t a_count, const void *b_keys, const void *b_values,
                          size_t b_count, void *out_keys, void *out_values, void *temp,
                          size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_context *ctx = s->ctx;
    mj_status st = mj__sorter_expect(s, 1u << MJ_MERGE, "mj_sorter_merge");
    if (st) return st;
    size_t n;
    if (__builtin_add_overflow(a_count, b_count, &n) || n > (size_t)0x7fffffffffffffffll)
        return mj__fail(ctx, MJ_ERR_TOO_LARGE, "a_count + b_count overflows");
    size_t ks = s->key_size, vs = s->value_size;
    if (!vs && (a_values || b_values || out_values))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        "this sorter merges keys only (value_size 0) but values were given");
    size_t need = 0;
    if ((st = mj__merge_temp(s, n, &need)) || (st = mj__run_check_temp(s, need, temp, temp_bytes)))
        return st;
    /* n is below 2^31 tiles (mj__merge_temp) of a bounded tile size, so no product overflows.
     * Without values (vs 0) no value array is checked. */
    const mj_array a[] = {{a_keys, a_count * ks, "a_keys"},
                          {b_keys, b_count * ks, "b_keys"},
                          {out_keys, n * ks, "out_keys"},
                          {a_values, a_count * vs, "a_values"},
                          {b_values, b_count * vs, "b_values"},
                          {out_values, n * vs, "out_values"}};
    const size_t align[] = {s->key_align,   s->key_align,   s->key_align,
                            s->value_align, s->value_align, s->value_align};
    mj_run rn;
    st = mj__run_open(s, a, align, 6, n ? MJ_RUN_TEMP : MJ_RUN_ENTER, need, temp, stream, &rn);
    if (!st && n) {
        long long tiles = mj_tile_count((long long)n, (long long)s->nt * s->vt);
        long long ac = (long long)a_count, bc = (long long)b_count;
        CUdeviceptr ak = DPTR(a_keys), bk = DPTR(b_keys), ok = DPTR(out_keys);
        CUdeviceptr av = DPTR(a_values), bv = DPTR(b_values), ov = DPTR(out_values);
        /* The kernel reads a NULL a_values as "write positions" (index sorts' passes); an empty
         * a may come without values, and then b's are what is written: any non-NULL pointer
         * will do, since nothing of a is read. */
        if (vs && !av) av = bv;
        CUdeviceptr partitions = rn.base;
        void *mp[] = {&ak, &av, &ac, &bk, &bv, &bc, &ok, &ov, &partitions};
        if (!(st = mj__merge_partition_launch(s, ak, ac, bk, bc, tiles, partitions, rn.stream)))
            st = mj__launch_overlapped(s, MJ_K_MERGE_ARRAYS, tiles, (unsigned)s->nt, mp,
                                       rn.stream);
    }
    return mj__run_close(s, &rn, st);
}
