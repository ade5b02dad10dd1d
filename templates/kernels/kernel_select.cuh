/* Select (CUB's DeviceSelect::If and ::Unique) in one pass over the input: one block a tile
 * of MJ_NV elements, numbered in the order the blocks start. The tile is read in MJ_VT rounds,
 * each warp loading 32 consecutive elements a round (element k * MJ_NT + tid in round k)
 * straight into registers; a lane marks what it keeps (the selection operator holds, or the
 * key is not equivalent to the one before it) and a ballot a round counts a warp's kept ones.
 * Warp 0 scans those counts in tile order and learns how many the tiles before keep (the
 * count look-back); then each lane stores its kept elements from its registers, a warp's kept
 * elements of a round on consecutive slots. No element passes through shared memory, so the
 * tile costs one read of the input and one coalesced write of what it keeps. The last tile
 * writes the count. */
#ifndef MJ_KERNEL_SELECT_CUH
#define MJ_KERNEL_SELECT_CUH

#include "common/spec_default.cuh"
#include "block/tile_io.cuh"
#include "block/count_states.cuh"
#include "warp/warp_shfl.cuh"
#include "warp/warp_count_scan.cuh"

/* What mj_select_tiles keeps: the values of mj_select_kind (mergejit.h). */
#define MJ_KEEP_SELECTED 0
#define MJ_KEEP_UNIQUE 1

/* A tile's groups of 32 elements, (round, warp) in tile order, and how many of them each lane
 * of warp 0 scans. */
#define MJ_SELECT_WARPS (MJ_NT / 32)
#define MJ_SELECT_GROUPS (MJ_VT * MJ_SELECT_WARPS)
#define MJ_SELECT_PER_LANE ((MJ_SELECT_GROUPS + 31) / 32)

/* Neither is ordered before the other. */
MJ_DEVICE bool mj_equivalent(const mj_key &a, const mj_key &b) {
    return !mj_less(a, b) && !mj_less(b, a);
}

/* Warp 0: turns each group's kept count in s_groups into the group's first slot in the
 * tile's output and returns the tile's total (in every lane). */
MJ_DEVICE int mj_select_number_groups(int *s_groups, int lane) {
    int c[MJ_SELECT_PER_LANE], sum = 0;
#pragma unroll
    for (int j = 0; j < MJ_SELECT_PER_LANE; ++j) {
        int g = lane * MJ_SELECT_PER_LANE + j;
        c[j] = g < MJ_SELECT_GROUPS ? s_groups[g] : 0;
        sum += c[j];
    }
    int inclusive = mj_warp_count_scan(sum, lane);
    int slot = inclusive - sum;
#pragma unroll
    for (int j = 0; j < MJ_SELECT_PER_LANE; ++j) {
        int g = lane * MJ_SELECT_PER_LANE + j;
        if (g < MJ_SELECT_GROUPS) s_groups[g] = slot;
        slot += c[j];
    }
    return __shfl_sync(0xFFFFFFFFu, inclusive, 31);
}

/* Round k's element for each thread, k * MJ_NT + tid, every load issued before the first use.
 * Lanes past the end load the tile's last key (and keep nothing), so that no operator sees
 * an unset key. */
MJ_DEVICE void mj_select_load(const mj_key *in, int len, int tid, mj_key *x) {
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) x[k] = in[mj_min(k * MJ_NT + tid, len - 1)];
}

/* Round k's ballot: the lanes of this warp that keep their element (the selection operator
 * holds, or the key is not equivalent to the one before it), none past the tile's end. Unique:
 * s_before[g] is the key before group g (group g = k * MJ_SELECT_WARPS + warp holds tile
 * elements 32 g to 32 g + 31): the last of group g - 1, or for g = 0 the tile's first's. */
MJ_DEVICE unsigned mj_select_ballot(const mj_key *x, int k, const mj_key *s_before,
                                    mj_i64 first, int len, int kind, int tid) {
    int i = k * MJ_NT + tid, lane = tid & 31, g = k * MJ_SELECT_WARPS + (tid >> 5);
    bool keep;
    if (kind == MJ_KEEP_UNIQUE) {
        /* The key before: the lane below's, or for lane 0 the last of the group before. */
        mj_key prev = mj_shfl_up_key(x[k], 1);
        if (lane == 0) prev = s_before[g];
        keep = first + i == 0 || !mj_equivalent(prev, x[k]);
    } else {
        keep = mj_select_op(x[k]);
    }
    return __ballot_sync(0xFFFFFFFFu, keep && i < len);
}

/* One block a tile (the grid has exactly one a tile; n > 0). states: a look-back word a
 * tile, then the tile counter, all zero before the launch. Outputs hold n elements. */
extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_select_tiles(const mj_key *keys, const mj_value *values, mj_i64 n, int kind,
                mj_u64 *states, mj_key *out_keys, mj_value *out_values, mj_u64 *out_count) {
    __shared__ int s_groups[MJ_SELECT_GROUPS]; /* kept counts, then first slots */
    __shared__ unsigned s_kept[MJ_SELECT_GROUPS]; /* the groups' ballots */
    __shared__ mj_key s_before[MJ_SELECT_GROUPS + 1]; /* unique: the key before each group */
    __shared__ mj_i64 s_tile, s_base;
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    mj_i64 tiles = gridDim.x;
    if (tid == 0) s_tile = (mj_i64)atomicAdd(states + tiles, 1ull);
    __syncthreads();
    mj_i64 tile = s_tile, first = tile * MJ_NV;
    int len = (int)mj_min<mj_i64>(n - first, MJ_NV);
    mj_key x[MJ_VT];
    mj_select_load(keys + first, len, tid, x);
    /* Unique: lane 0 of a group compares with the last key of the group before, which
     * another warp loaded; it passes through shared memory (one barrier) rather than being
     * read again from global memory a round at a time, each read in the ballot's path. */
    if (kind == MJ_KEEP_UNIQUE) {
        if (tid == 0 && first > 0) s_before[0] = keys[first - 1];
        if (lane == 31)
#pragma unroll
            for (int k = 0; k < MJ_VT; ++k) s_before[k * MJ_SELECT_WARPS + warp + 1] = x[k];
        __syncthreads();
    }
    /* Each round's ballot goes to shared memory with its count, and is read back there after
     * the look-back rather than held across it: while the block waits, a thread's registers
     * are its keys alone (more blocks a multiprocessor keep more loads in flight). */
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        unsigned kept = mj_select_ballot(x, k, s_before, first, len, kind, tid);
        if (lane == 0) {
            s_kept[k * MJ_SELECT_WARPS + warp] = kept;
            s_groups[k * MJ_SELECT_WARPS + warp] = __popc(kept);
        }
    }
    __syncthreads();
    if (warp == 0) {
        int count = mj_select_number_groups(s_groups, lane);
        mj_u64 before = mj_count_look_back(states, tile, (mj_u64)count, lane);
        if (lane == 0) {
            s_base = (mj_i64)before;
            if (tile == tiles - 1) *out_count = before + (mj_u64)count;
        }
    }
    __syncthreads();

    /* Where each kept element goes: its group's first slot and the kept lanes below it. */
    unsigned below = (1u << lane) - 1, kept[MJ_VT];
    mj_i64 base = s_base;
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        kept[k] = s_kept[k * MJ_SELECT_WARPS + warp];
        if (kept[k] >> lane & 1)
            out_keys[base + s_groups[k * MJ_SELECT_WARPS + warp] + __popc(kept[k] & below)] = x[k];
    }
    if (MJ_HAS_VALUES) {
        mj_value v[MJ_VT];
#pragma unroll
        for (int k = 0; k < MJ_VT; ++k)
            if (kept[k] >> lane & 1) v[k] = values[first + k * MJ_NT + tid];
#pragma unroll
        for (int k = 0; k < MJ_VT; ++k)
            if (kept[k] >> lane & 1)
                out_values[base + s_groups[k * MJ_SELECT_WARPS + warp] +
                           __popc(kept[k] & below)] = v[k];
    }
}

#endif
