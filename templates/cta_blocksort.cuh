/* Sorts one tile of up to NT * MJ_VT keys held in registers in thread order (thread tid holds
 * elements tid * MJ_VT + i). Each thread sorts its own keys with the network, then log2(NT)
 * rounds merge pairs of sorted runs through shared memory, doubling the run length each round.
 * On return the registers hold the sorted tile in thread order, and pos[] (when values are
 * carried) each output's original position in the tile.
 *
 * A partial tile (count < MJ_NV) is handled by counts, not sentinels: a comparator has no
 * "largest key" in general. The one thread that straddles `count` fills its empty slots with
 * copies of its largest valid key; they sort after the valid keys (stability keeps equal keys
 * behind), and every merge round clips its runs at `count`, so the copies are never read. */
#ifndef MJ_CTA_BLOCKSORT_CUH
#define MJ_CTA_BLOCKSORT_CUH

#include "spec_default.cuh"
#include "sort_network.cuh"
#include "merge_path.cuh"
#include "serial_merge.cuh"
#include "tile_io.cuh"

/* s_keys and s_pos have NT * MJ_VT slots. */
template <int NT>
MJ_DEVICE void mj_cta_sort(mj_key keys[MJ_VT], int pos[MJ_VT], int count, mj_key *s_keys,
                           int *s_pos, int tid) {
    int mine = count - MJ_VT * tid;
    if (mine > 0 && mine < MJ_VT) {
        mj_key top = keys[0];
#pragma unroll
        for (int i = 1; i < MJ_VT; ++i)
            if (i < mine && mj_less(top, keys[i])) top = keys[i];
#pragma unroll
        for (int i = 1; i < MJ_VT; ++i)
            if (i >= mine) keys[i] = top;
    }
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) pos[i] = MJ_VT * tid + i;
    mj_sort_network(keys, pos);

#pragma unroll 1
    for (int coop = 2; coop <= NT; coop *= 2) {
        mj_regs_to_shared(keys, s_keys, tid);
#if MJ_HAS_VALUES
        mj_regs_to_shared(pos, s_pos, tid);
#endif
        __syncthreads();
        int first = tid & ~(coop - 1);
        int start = MJ_VT * first;
        int a_begin = min(count, start);
        int a_end = min(count, start + MJ_VT * (coop >> 1));
        int b_end = min(count, start + MJ_VT * coop);
        int a_len = a_end - a_begin;
        int b_len = b_end - a_end;
        int diag = min(MJ_VT * (tid - first), a_len + b_len);
        int p = mj_merge_path(s_keys + a_begin, a_len, s_keys + a_end, b_len, diag);
        int at[MJ_VT];
        mj_serial_merge(s_keys, a_begin + p, a_end, a_end + diag - p, b_end, keys, at);
#if MJ_HAS_VALUES
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i)
            if (MJ_VT * tid + i < count) pos[i] = s_pos[at[i]];
#endif
        __syncthreads();
    }
}

#endif
