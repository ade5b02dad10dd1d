/* Single-pass scan with decoupled look-back (block/cta_look_back.cuh): each input element is
 * read once. One block per tile; tiles are numbered by an atomic counter in the order blocks
 * start. Each tile loads all its input into registers before storing any output and reads no
 * other tile's input, so out == in scans in place. */
#ifndef MJ_KERNEL_SCAN_CUH
#define MJ_KERNEL_SCAN_CUH

#include "common/spec_default.cuh"
#include "block/cta_scan.cuh"
#include "block/value_states.cuh"

/* in, out: n elements (out == in allowed); inclusive: 1 for inclusive, 0 for exclusive;
 * total: NULL, or where the combination of all n goes. state, values: see above; the grid
 * has exactly one block per tile (one block when n == 0). */
extern "C" __global__ void __launch_bounds__(MJ_NT)
    mj_scan_tiles(const mj_key *in, mj_key *out, mj_i64 n, int inclusive, mj_key *total,
                  mj_u32 *state, mj_key_words *values) {
    __shared__ __align__(16) mj_key s_tile[MJ_SCAN_NV]; /* mj_scan_load's 16-byte words */
    __shared__ mj_key s_warp[MJ_SCAN_WARPS];
    __shared__ mj_key s_prefix;
    __shared__ int s_id;
    int tid = threadIdx.x, lane = tid & 31;
    if (n == 0) {
        if (tid == 0 && total) *total = mj_identity();
        return;
    }
    mj_i64 tiles = (n + MJ_SCAN_NV - 1) / MJ_SCAN_NV;
    /* After the counter: 8 bytes on for words, 16 (aligned) for pairs. */
    mj_u32 *states = state + (MJ_PAIRED_STATE ? 4 : 2);
    mj_value_states st = {(mj_u64 *)states, states, values, values + tiles};
    if (tid == 0) s_id = (int)atomicAdd(state, 1u);
    __syncthreads();
    int tile = s_id;
    mj_i64 first = (mj_i64)tile * MJ_SCAN_NV;
    int count = (int)mj_min<mj_i64>(n - first, MJ_SCAN_NV);

    mj_key x[MJ_VT];
    mj_scan_load(in + first, count, x, s_tile, tid);
    mj_key aggregate;
    mj_key p = mj_cta_scan(mj_thread_reduce(x), s_warp, tid, &aggregate);
    if (tid < 32) {
        mj_key before = mj_look_back(st, tile, aggregate, false, lane, mj_key_sum());
        if (lane == 0) {
            s_prefix = before;
            if (total && tile == tiles - 1) *total = mj_op(before, aggregate);
        }
    }
    __syncthreads();
    p = mj_op(s_prefix, p);
    if (inclusive) {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) x[i] = p = mj_op(p, x[i]);
    } else {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) {
            mj_key y = x[i];
            x[i] = p;
            p = mj_op(p, y);
        }
    }
    mj_scan_store(out + first, count, x, s_tile, tid);
}

#endif
