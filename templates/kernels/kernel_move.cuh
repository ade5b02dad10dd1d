/* Interval move (gather, scatter or both): the load-balancing search's tiles, each item copying
 * one element, out[dst] = in[src], where an item i of interval j with rank r has
 * src = gather ? gather[j] + r : i and dst = scatter ? scatter[j] + r : i. Items are taken in
 * strided order, so a warp's reads and writes are contiguous within an interval. */
#ifndef MJ_KERNEL_MOVE_CUH
#define MJ_KERNEL_MOVE_CUH

#include "common/spec_default.cuh"
#include "shared/load_balance.h"
#include "block/cta_load_balance.cuh"
#include "shared/interval_move.h"

/* Items a thread loads before it stores: all VT while their elements fit in about 32 registers,
 * fewer of large elements (which would spill); the loads of a batch are in flight together. */
#define MJ_MOVE_BATCH                                                                          \
    (sizeof(mj_value) * MJ_VT <= 128 ? MJ_VT : (int)(128 / sizeof(mj_value)))

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_move_tiles(const mj_key *offsets, mj_i64 objects, mj_i64 items, const mj_i64 *partitions,
              const mj_key *gather, const mj_key *scatter, const mj_value *__restrict__ in,
              mj_u64 in_count, mj_value *__restrict__ out, mj_u64 out_count) {
    MJ_LBS_SHARED(s_off, s_owner);
    /* Per loaded interval k: what its items add to their index to get their source and their
     * destination (mj_move_shift; 0 without gather or scatter: the item's own index). One
     * comparison with the count then bounds an index exactly (interval_move.h). */
    __shared__ mj_u64 s_src[MJ_LBS_NV + 1], s_dst[MJ_LBS_NV + 1];
    int tid = threadIdx.x;
    mj_lbs_range r = mj_cta_load_balance(offsets, objects, items, partitions, s_off, s_owner,
                                         tid, false);
    int nx = (int)(r.x1 - r.x0);
    if (nx == 0) return; /* the whole block: a tile of empty intervals copies nothing */
    int loads = (int)r.loads;
    for (int k = tid; k < loads; k += MJ_NT) {
        mj_i64 off = (mj_i64)s_off[k];
        s_src[k] = gather ? mj_move_shift((mj_i64)gather[r.base + k], off) : 0;
        s_dst[k] = scatter ? mj_move_shift((mj_i64)scatter[r.base + k], off) : 0;
    }
    __syncthreads();
    const int batch = MJ_MOVE_BATCH;
#pragma unroll
    for (int b = 0; b < MJ_VT; b += batch) {
        mj_value v[batch];
        mj_u64 dst[batch];
#pragma unroll
        for (int k = 0; k < batch; ++k) {
            int i = (b + k) * MJ_NT + tid;
            dst[k] = out_count; /* skipped */
            if (b + k < MJ_VT && i < nx) {
                int o = s_owner[i];
                mj_i64 item = r.x0 + i;
                mj_u64 src = mj_move_index(item, s_src[o]), d = mj_move_index(item, s_dst[o]);
                if (src < in_count && d < out_count) {
                    v[k] = in[src];
                    dst[k] = d;
                }
            }
        }
#pragma unroll
        for (int k = 0; k < batch; ++k)
            if (dst[k] < out_count) out[dst[k]] = v[k];
    }
}

#endif
