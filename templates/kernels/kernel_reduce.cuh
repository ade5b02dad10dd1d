/* Reduce: of in[0, n)'s T tiles, block b of G combines [b * T / G, (b + 1) * T / G) in order
 * (an even share: blocks differ by at most one tile) and writes the result to out[b] (the
 * identity for a block with no elements, which covers n == 0). The host runs it once over the
 * input into per-block partials, then once more with a single block over the partials into
 * the caller's out; or only once when one block covers the input. */
#ifndef MJ_KERNEL_REDUCE_CUH
#define MJ_KERNEL_REDUCE_CUH

#include "common/spec_default.cuh"
#include "block/cta_scan.cuh"

extern "C" __global__ void __launch_bounds__(MJ_NT)
    mj_reduce_tiles(const mj_key *in, mj_i64 n, mj_key *out) {
    __shared__ __align__(16) mj_key s_tile[MJ_SCAN_NV]; /* mj_scan_load's 16-byte words */
    /* Two sets of warp totals, a tile's and the next's: one barrier a tile suffices. */
    __shared__ mj_key s_warp[2][MJ_SCAN_WARPS];
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    mj_i64 tiles = (n + MJ_SCAN_NV - 1) / MJ_SCAN_NV;
    mj_i64 begin = (mj_i64)blockIdx.x * tiles / gridDim.x * MJ_SCAN_NV;
    mj_i64 end = mj_min<mj_i64>(n, ((mj_i64)blockIdx.x + 1) * tiles / gridDim.x * MJ_SCAN_NV);
    mj_key acc = mj_identity(); /* thread 0's */
    int parity = 0;
    for (mj_i64 first = begin; first < end; first += MJ_SCAN_NV, parity ^= 1) {
        int count = (int)mj_min<mj_i64>(end - first, MJ_SCAN_NV);
        mj_key x[MJ_VT];
        mj_scan_load(in + first, count, x, s_tile, tid);
        mj_key w = mj_warp_reduce(mj_thread_reduce(x), lane);
        if (lane == 0) s_warp[parity][warp] = w;
        __syncthreads();
        if (tid == 0) {
#pragma unroll
            for (int i = 0; i < MJ_SCAN_WARPS; ++i) acc = mj_op(acc, s_warp[parity][i]);
        }
    }
    if (tid == 0) out[blockIdx.x] = acc;
}

#endif
