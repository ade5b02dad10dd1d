/* Reduce by key in one pass over the input (CUB's DeviceReduce::ReduceByKey): each run of
 * adjacent equivalent keys (neither ordered before the other by mj_less) gives its first key
 * and the combination of its values with the spec's value operator (mj_value_op, identity
 * mj_value_identity; associative, combined in order). One block per tile, numbered as blocks
 * start; a tile
 *   - flags its run heads (an element whose key is not equivalent to the one before it; the
 *     tile's first compares with the previous tile's last key, read from global memory);
 *   - summarises each thread's elements as (heads, value of the run open at its end), scans
 *     the summaries across the block and looks back over the tiles before it
 *     (cta_look_back.cuh, tile_sum.cuh): the count gives where its runs go, the value is the run the tiles
 *     before leave open, which continues into the tile up to its first head;
 *   - compacts what it emits in shared memory, then stores it coalesced: for its r-th head,
 *     run R + r's first key (R: heads before the tile) and run R + r - 1's value, which that
 *     head closes. The tile holding the last element writes the last run's value and the
 *     count.
 * Keys move as their bytes (a custom key's padding too); values are built by the operator. */
#ifndef MJ_KERNEL_REDUCE_BY_KEY_CUH
#define MJ_KERNEL_REDUCE_BY_KEY_CUH

#include "common/spec_default.cuh"
#include "warp/warp_shfl_any.cuh"
#include "block/tile_sum.cuh"
#include "block/tile_io.cuh"

/* A span's heads and the combination of its values from its last head on (all of them when
 * it has none): a later span's values continue an earlier span's open run up to its first
 * head. */
typedef mj_tile_sum<mj_value> mj_rbk_sum;
struct mj_rbk_combine {
    static constexpr bool commutes = false; /* a count and the last run's value */
    MJ_DEVICE mj_rbk_sum identity() const { return {0, mj_value_identity()}; }
    MJ_DEVICE mj_rbk_sum operator()(const mj_rbk_sum &a, const mj_rbk_sum &b) const {
        return {a.count + b.count, b.count ? b.value : mj_value_op(a.value, b.value)};
    }
};

MJ_DEVICE bool mj_equivalent(const mj_key &a, const mj_key &b) {
    return !mj_less(a, b) && !mj_less(b, a);
}

/* keys, values: n elements; out_keys, out_values: room for every run (n); out_count: one
 * 64-bit count. state: the tile counter (its first 4 bytes), then from 16 bytes on the
 * tiles' look-back words, two per tile, all zero before the launch; state_values: two values
 * per tile when values are over 8 bytes (tile_sum.cuh). The grid has one block per tile
 * and n > 0. */
extern "C" __global__ void __launch_bounds__(MJ_NT)
    mj_reduce_by_key_tiles(const mj_key *keys, const mj_value *values, mj_i64 n,
                           mj_key *out_keys, mj_value *out_values, mj_u64 *out_count,
                           mj_u64 *state, mj_value *state_values) {
    __shared__ mj_key s_keys[MJ_NV + 1]; /* the key before the tile, then the tile's */
    __shared__ mj_value s_values[MJ_NV]; /* the tile's values, then the runs it closes */
    __shared__ int s_pos[MJ_NV];         /* the tile's heads' positions */
    __shared__ mj_rbk_sum s_warp[MJ_NT / 32];
    __shared__ mj_rbk_sum s_prefix;
    __shared__ int s_tile;
    const mj_rbk_combine combine;
    int tid = threadIdx.x;
    if (tid == 0) s_tile = (int)atomicAdd((mj_u32 *)state, 1u);
    __syncthreads();
    int tile = s_tile;
    mj_i64 first = (mj_i64)tile * MJ_NV;
    int count = (int)mj_min<mj_i64>(n - first, MJ_NV);
    mj_copy_tile<MJ_NT>(keys + first, count, s_keys + 1, tid);
    mj_copy_tile<MJ_NT>(values + first, count, s_values, tid);
    if (tid == 0 && tile > 0) s_keys[0] = keys[first - 1];
    __syncthreads();

    /* This thread's elements tid * MJ_VT + i; those past the input are the identity, never
     * heads, so they change no summary. */
    bool head[MJ_VT];
    mj_value v[MJ_VT];
    mj_rbk_sum mine = combine.identity();
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) {
        int j = tid * MJ_VT + i;
        v[i] = j < count ? s_values[j] : mj_value_identity();
        head[i] = j < count && (first + j == 0 || !mj_equivalent(s_keys[j], s_keys[j + 1]));
        mine = combine(mine, mj_rbk_sum{head[i] ? 1ull : 0ull, v[i]});
    }
    mj_rbk_sum tile_sum;
    mj_rbk_sum before = mj_cta_sum_scan(mine, s_warp, tid, combine, &tile_sum);
    if (tid < 32) {
        mj_sum_states<mj_value> st = {state + 2, state_values};
        mj_rbk_sum prefix = mj_look_back(st, tile, tile_sum, false, tid, combine);
        if (tid == 0) s_prefix = prefix;
    }
    __syncthreads();

    /* Every thread has read s_values (before the scan's barrier): it now takes the closed
     * runs' values, s_pos the heads' positions, by the heads' order in the tile. */
    mj_u64 tile_runs = s_prefix.count; /* runs before the tile's first head */
    mj_rbk_sum at = combine(s_prefix, before);
    mj_u64 run = at.count;
    mj_value open = at.value;
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) {
        if (head[i]) {
            int r = (int)(run - tile_runs);
            s_pos[r] = tid * MJ_VT + i;
            s_values[r] = open; /* run `run - 1`'s, which this head closes */
            ++run;
            open = v[i];
        } else {
            open = mj_value_op(open, v[i]);
        }
    }
    /* The last element's thread: the last run's value and the count of runs. */
    if (first + count == n && tid == (count - 1) / MJ_VT) {
        out_values[run - 1] = open;
        *out_count = run;
    }
    __syncthreads();
    for (int r = tid; r < (int)tile_sum.count; r += MJ_NT) {
        mj_u64 g = tile_runs + r;
        out_keys[g] = s_keys[1 + s_pos[r]];
        if (g > 0) out_values[g - 1] = s_values[r];
    }
}

#endif
