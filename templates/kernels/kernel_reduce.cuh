/* Reduce: of in[0, n)'s T tiles, block b of G combines [b * T / G, (b + 1) * T / G) (an even
 * share: blocks differ by at most one tile) and writes the result to out[b] (the identity for
 * a block with no elements, which covers n == 0): in order, tile by tile, or for an operator
 * that commutes (MJ_OP_COMMUTES) in an order of its own, each thread folding its 16-byte words
 * (strided across the whole share) in registers and the block
 * combining once at its end
 * (about a third of the instructions: ncu had the ordered kernel at 0.31 issued warps a
 * scheduler against CUB's 0.11, docs/TUNING.md). The host runs it once over the input into
 * per-block partials, then once more with a single block over the partials into the caller's
 * out; or only once when one block covers the input. */
#ifndef MJ_KERNEL_REDUCE_CUH
#define MJ_KERNEL_REDUCE_CUH

#include "common/spec_default.cuh"
#include "block/cta_scan.cuh"

#if MJ_OP_COMMUTES
/* This thread's fold of in[begin, end) in any order: 16-byte words MJ_REDUCE_WORDS at a time
 * (all in flight at once) where in + begin is 16-byte aligned, then the elements left one at
 * a time. A commuting operator's keys are built-in (1 to 8 bytes): a word holds a whole
 * number of them. */
#define MJ_REDUCE_WORDS 4
MJ_DEVICE mj_key mj_reduce_any_order(const mj_key *in, mj_i64 begin, mj_i64 end, int tid) {
    constexpr int per = 16 / (int)sizeof(mj_key);
    mj_key acc = mj_identity();
    mj_i64 rest = begin;
    if (((size_t)(in + begin) & 15) == 0) {
        const uint4 *w = (const uint4 *)(in + begin);
        mj_i64 words = (end - begin) / per, k = tid;
        for (; k + (MJ_REDUCE_WORDS - 1) * MJ_NT < words; k += MJ_REDUCE_WORDS * MJ_NT) {
            uint4 v[MJ_REDUCE_WORDS];
#pragma unroll
            for (int u = 0; u < MJ_REDUCE_WORDS; ++u) v[u] = w[k + u * MJ_NT];
#pragma unroll
            for (int u = 0; u < MJ_REDUCE_WORDS; ++u) {
                const mj_key *x = (const mj_key *)&v[u];
#pragma unroll
                for (int j = 0; j < per; ++j) acc = mj_op(acc, x[j]);
            }
        }
        for (; k < words; k += MJ_NT) {
            uint4 v = w[k];
            const mj_key *x = (const mj_key *)&v;
#pragma unroll
            for (int j = 0; j < per; ++j) acc = mj_op(acc, x[j]);
        }
        rest = begin + words * per;
    }
    for (mj_i64 i = rest + tid; i < end; i += MJ_NT) acc = mj_op(acc, in[i]);
    return acc;
}
#endif

extern "C" __global__ void __launch_bounds__(MJ_NT)
    mj_reduce_tiles(const mj_key *in, mj_i64 n, mj_key *out) {
    /* Two sets of warp totals, a tile's and the next's: one barrier a tile suffices. */
    __shared__ mj_key s_warp[2][MJ_SCAN_WARPS];
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    mj_i64 tiles = (n + MJ_SCAN_NV - 1) / MJ_SCAN_NV;
    mj_i64 begin = (mj_i64)blockIdx.x * tiles / gridDim.x * MJ_SCAN_NV;
    mj_i64 end = mj_min<mj_i64>(n, ((mj_i64)blockIdx.x + 1) * tiles / gridDim.x * MJ_SCAN_NV);
    mj_key acc = mj_identity(); /* thread 0's */
#if MJ_OP_COMMUTES
    mj_key w = mj_warp_reduce(mj_reduce_any_order(in, begin, end, tid), lane);
    if (lane == 0) s_warp[0][warp] = w;
    __syncthreads();
    if (tid == 0) {
#pragma unroll
        for (int i = 0; i < MJ_SCAN_WARPS; ++i) acc = mj_op(acc, s_warp[0][i]);
    }
#else
    __shared__ __align__(16) mj_key s_tile[MJ_SCAN_NV]; /* mj_scan_load's 16-byte words */
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
#endif
    if (tid == 0) out[blockIdx.x] = acc;
}

#endif
