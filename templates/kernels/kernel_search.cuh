/* Sorted search (see shared/sorted_search.h): the merge partition kernel
 * (kernel_merge_partition.cuh) splits the merge of `first` and `second` into tiles, then one
 * block per tile loads its keys and the two halos into shared memory, each thread finds its
 * split (merge path) and walks MJ_VT steps of the merge (thread/search_walk.cuh), leaving for
 * each key met how many of the other array's keys came before it and whether its neighbour is
 * equivalent, by tile position in shared memory; those are then stored coalesced, with a
 * first's equivalent count where asked (thread/search_count.cuh: one pass, not a pass of each
 * bound). */
#ifndef MJ_KERNEL_SEARCH_CUH
#define MJ_KERNEL_SEARCH_CUH

#include "common/spec_default.cuh"
#include "shared/load_balance.h"
#include "shared/sorted_search.h"
#include "thread/merge_path.cuh"
#include "thread/search_walk.cuh"
#include "thread/search_count.cuh"
#include "thread/index_array.cuh"
#include "block/tile_io.cuh"
#include "block/await_split.cuh"

/* Writes key i's outputs from its tile result r, where the other array's keys before the
 * tile number `base`, and its equivalent count (a first's: mj_search_count); returns 1 when it
 * has a match. */
MJ_DEVICE unsigned mj_search_store(const mj_search_side &side, mj_i64 i, mj_i64 base,
                                   unsigned r, mj_u64 count, bool wide) {
    mj_u64 bound = (mj_u64)base + (r & ~MJ_SEARCH_MATCH);
    unsigned match = r >> 31;
    if (side.indices) mj_put_index(side.indices, i, bound, wide);
    if (side.matches) side.matches[i] = (unsigned char)match;
    if (side.counts) mj_put_index(side.counts, i, count, wide);
    return match;
}

/* The one array a side writes when it writes indices alone or counts alone (no match bytes,
 * no matched count), else null. */
MJ_DEVICE void *mj_search_lone_array(const mj_search_side &side) {
    if (side.matches || side.matched || (side.indices && side.counts)) return 0;
    return side.indices ? side.indices : side.counts;
}

/* Whether a side writes nothing. */
MJ_DEVICE bool mj_search_writes_none(const mj_search_side &side) {
    return !side.indices && !side.matches && !side.counts && !side.matched;
}

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_search_tiles(const mj_key *first, mj_i64 first_count, const mj_key *second,
                mj_i64 second_count, const mj_i64 *partitions, mj_search_side out_first,
                mj_search_side out_second, int flags) {
    __shared__ mj_key s_keys[MJ_NV + 2];
    __shared__ unsigned s_result[MJ_NV + 1]; /* and a spare slot: mj_search_walk */
    __shared__ mj_i64 s_split[2];
    __shared__ unsigned s_matched[2];
    __shared__ mj_i64 s_beyond; /* counts: the trail's run of seconds past the tile */
    int tid = threadIdx.x;
    mj_i64 tile = blockIdx.x;
    if (tid < 2) {
        s_split[tid] = mj_await_split(partitions + tile + tid);
        s_matched[tid] = 0;
    }
    __syncthreads();
    mj_lbs_range r = mj_lbs_tile_range(tile, MJ_NV, first_count, second_count, s_split[0],
                                       s_split[1]);
    int fl = (int)(r.x1 - r.x0), total = fl + (int)(r.y1 - r.y0);
    int lead = r.x0 > 0, trail = r.y1 < second_count;
    mj_key *s = s_keys + 1; /* tile positions; s[-1] and s[total] are the halos */
    mj_merge_src src = mj_two_runs(first, 0, r.x0, fl, second, 0, r.y0, total);
    mj_load_to_shared<MJ_NT>(src, total, s, tid);
    if (tid == 0 && lead) s[-1] = first[r.x0 - 1];
    if (tid == MJ_NT - 1 && trail) s[total] = second[r.y1];
    __syncthreads();

    /* Counts: when the tile's last first equals the trail, the seconds past the tile that equal
     * it too (mj_search_count), by warp 0 before its walk. The 32 seconds after the trail in
     * one round of loads first: most runs end there, and a search of the whole rest of the
     * array takes some six rounds of dependent loads at 2^27 keys; the rest of a longer run by
     * the merges' group search. The test is the block's, so the warp's lanes search together. */
    bool counts = out_first.counts != 0;
    if (counts && tid < 32) {
        mj_i64 beyond = 0;
        if (trail && fl > 0 && !mj_less(s[fl - 1], s[total])) {
            mj_key_repeat k = {s[total]};
            mj_i64 at = r.y1 + 1 + tid; /* the trail, at r.y1, is in the run */
            unsigned above = __ballot_sync(0xffffffffu, at >= second_count ||
                                                            mj_less(k.k, second[at]));
            beyond = above ? __ffs(above)
                           : mj_group_search(32, second, k, 0, r.y1 + 33, second_count) - r.y1;
        }
        if (tid == 0) s_beyond = beyond;
    }

    int diag = min(MJ_VT * tid, total);
    int p = mj_merge_path(s, fl, s + fl, total - fl, diag);
    /* Bounds alone need no comparison more. */
    if (flags & MJ_SEARCH_MATCHES)
        mj_search_walk<true>(s, p, fl + diag - p, fl, total, total - diag, lead, trail,
                             s_result, MJ_NV);
    else
        mj_search_walk<false>(s, p, fl + diag - p, fl, total, total - diag, lead, trail,
                              s_result, MJ_NV);
    __syncthreads();

    /* The common searches (lower or upper bounds of one array, counts) write one array of one
     * side: a loop over that side's tile positions alone, with none of the per-key tests of
     * which outputs exist, which made the stores most of the kernel's instructions (ncu, u32
     * lower bounds on an H200). Not unrolled: the loop is short, and unrolled it doubled the
     * kernel's code. */
    void *lone_first = mj_search_lone_array(out_first);
    void *lone_second = mj_search_lone_array(out_second);
    bool wide = flags & MJ_SEARCH_WIDE;
    mj_i64 beyond = counts ? s_beyond : 0;
    if ((lone_first && mj_search_writes_none(out_second)) ||
        (lone_second && mj_search_writes_none(out_first))) {
        bool firsts = lone_first != 0;
        void *out = firsts ? lone_first : lone_second;
        int begin = (firsts ? 0 : fl) + tid, end = firsts ? fl : total;
        mj_i64 at = firsts ? r.x0 : r.y0 - fl, base = firsts ? r.y0 : r.x0;
        if (counts) {
#pragma unroll 1
            for (int j = begin; j < end; j += MJ_NT)
                mj_put_index(out, at + j,
                             mj_search_count(s, j, s_result[j], fl, total, trail, beyond), wide);
        } else {
#pragma unroll 1
            for (int j = begin; j < end; j += MJ_NT)
                mj_put_index(out, at + j, (mj_u64)base + (s_result[j] & ~MJ_SEARCH_MATCH), wide);
        }
    } else {
        unsigned matched_first = 0, matched_second = 0;
        /* Not unrolled: the stores index no registers, and unrolled they were most of ptxas's
         * time. */
#pragma unroll 1
        for (int i = 0; i < MJ_VT; ++i) {
            int j = tid + MJ_NT * i;
            if (j < fl) {
                unsigned res = s_result[j];
                mj_u64 count = counts ? mj_search_count(s, j, res, fl, total, trail, beyond) : 0;
                matched_first += mj_search_store(out_first, r.x0 + j, r.y0, res, count, wide);
            } else if (j < total) {
                matched_second += mj_search_store(out_second, r.y0 + (j - fl), r.x0, s_result[j],
                                                  0, wide);
            }
        }
        if (out_first.matched || out_second.matched) {
            /* One atomic a warp in shared memory, one a block in global memory. */
#pragma unroll
            for (int d = 16; d > 0; d >>= 1) {
                matched_first += __shfl_xor_sync(0xffffffffu, matched_first, d);
                matched_second += __shfl_xor_sync(0xffffffffu, matched_second, d);
            }
            if ((tid & 31) == 0) {
                atomicAdd(&s_matched[0], matched_first);
                atomicAdd(&s_matched[1], matched_second);
            }
            __syncthreads();
            if (tid == 0 && out_first.matched && s_matched[0])
                atomicAdd(out_first.matched, (unsigned long long)s_matched[0]);
            if (tid == 0 && out_second.matched && s_matched[1])
                atomicAdd(out_second.matched, (unsigned long long)s_matched[1]);
        }
    }
    /* Work after this kernel in the stream may take the partition kernel to be over too. */
    mj_await_prior_kernels();
}

#endif
