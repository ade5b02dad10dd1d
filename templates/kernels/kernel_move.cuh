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

/* Per loaded interval k (object j, offset off): its gather and scatter entries, or its offset
 * where there is no such array (the shift, entry less offset, is then 0: the item's own index).
 * Kept as the index type, not as the 8-byte shift each item adds to its index: with 4-byte
 * offsets a tile's shared memory is 16 bytes a slot instead of 24, which holds more blocks a
 * multiprocessor. Loaded with the offsets (mj_cta_lbs_load's `with`): in flight with their
 * loads, where a pass of their own after the owners cost each tile a round trip to memory and
 * a barrier that every warp waited at. */
struct mj_move_entries {
    enum { own_loads = 1 }; /* mj_lbs_with_offset */
    const mj_key *gather, *scatter;
    mj_key *s_gather, *s_scatter;
    MJ_DEVICE void operator()(int k, mj_i64 j, mj_i64 off) const {
        s_gather[k] = gather ? gather[j] : (mj_key)off;
        s_scatter[k] = scatter ? scatter[j] : (mj_key)off;
    }
};

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_move_tiles(const mj_key *offsets, mj_i64 objects, mj_i64 items, const mj_i64 *partitions,
              const mj_key *gather, const mj_key *scatter, const mj_value *__restrict__ in,
              mj_u64 in_count, mj_value *__restrict__ out, mj_u64 out_count) {
    MJ_LBS_SHARED(s_off, s_owner);
    __shared__ mj_key s_gather[MJ_LBS_NV + 1], s_scatter[MJ_LBS_NV + 1]; /* mj_move_entries */
    int tid = threadIdx.x;
    mj_lbs_range r = mj_cta_load_balance(offsets, objects, items, partitions, s_off, s_owner,
                                         tid, false, 0,
                                         mj_move_entries{gather, scatter, s_gather, s_scatter});
    int nx = (int)(r.x1 - r.x0);
    if (nx == 0) return; /* the whole block: a tile of empty intervals copies nothing */
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
                mj_i64 item = r.x0 + i, off = (mj_i64)s_off[o];
                /* One comparison with the count then bounds an index exactly
                 * (interval_move.h). */
                mj_u64 src = mj_move_index(item, mj_move_shift((mj_i64)s_gather[o], off));
                mj_u64 d = mj_move_index(item, mj_move_shift((mj_i64)s_scatter[o], off));
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
