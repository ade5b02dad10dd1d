/* Coarse partitioning for one 4-way mergesort pass: for every tile of nv outputs, the 4-way
 * split at the tile's first output diagonal within its frame (templates/shared/corank.h), four
 * offsets into the frame's lists; mj_merge4 reads its tile's entry and the next. `lanes`
 * threads a tile (mj_split4_lanes), and two kernels search: mj_partition4, where a group of
 * MJ_SPLIT4_WARP or MJ_SPLIT4_HALF of them search together (mj_corank4_lanes), and
 * mj_partition4_one, where all but the first leave and it searches alone (mj_corank4). A sort's
 * passes all have the same tiles, so it launches one of them (mj_split4_grouped says which):
 * as two programs, a sort builds only the searches it runs, each program about half the
 * NVRTC time of one with all four searches. 2-way passes use mj_partition
 * (kernel_partition.cuh), whose merge path search is shorter. The tile size is an argument, as
 * mj_partition's, and the diagonal is computed once, before the search. Launched overlapped or
 * not (MERGEJIT_PDL), as mj_partition: it waits for the pass before it ahead of its first
 * load, once its tile's frame and diagonal are known. */
#ifndef MJ_KERNEL_PARTITION4_CUH
#define MJ_KERNEL_PARTITION4_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "shared/corank.h"
#include "warp/warp_shfl.cuh"

/* keys + begin, opaque to the compiler, which would otherwise fold each load's address back
 * into keys + (begin + pos): 64-bit adds on a search's chain, not one multiply-add. Done on a
 * char pointer: NVVM's address-space test takes one (on a pointer to a custom struct key NVRTC
 * aborted with "Broken function found"). */
MJ_DEVICE const mj_key *mj_search_list(const mj_key *keys, mj_i64 begin) {
    const char *start = (const char *)(keys + begin);
    asm("" : "+l"(start));
    __builtin_assume(__isGlobal(start));
    return (const mj_key *)start;
}

/* Whether the slot of lane `from`, of a list lower than this lane's where `low`, goes before
 * this lane's slot (key x, class cls): mj_cw_before_by on the other lane's key and class. */
MJ_DEVICE bool mj_cw_ask(const mj_key &x, int cls, int from, bool low) {
    return mj_cw_before_by(mj_shfl_key(x, from), __shfl_sync(0xffffffffu, cls, from), x, cls,
                           low);
}

/* mj_corank4_window by a group of G lanes, G 16 or 32 (mj_split4_lanes). Lane 4 l + k of a
 * half-warp holds list l's slot k (`mine` is list l): each loads its slot, takes others' by
 * shuffles and counts those before it, and a ballot gives every lane each list's held slots.
 * With G 16 the warp's halves make two searches, a lane comparing its slot with lists l + 1
 * and l + 2; both start from the larger of their r (any power of two above min(d, most) is a
 * right start), so that both go through the same levels and every shuffle has the whole warp.
 * With G 32 both halves hold the same slots, the first comparing each with list l + 1's, the
 * second with list l + 2's: four comparisons a lane, not eight, so a level's chain of
 * instructions is shorter (few warps, each mostly waiting on its instruction before, make
 * mj_partition4's time) for more issue slots a split. List l + 3's slots, either way: that
 * list's lanes (with G 32, those of the first half) compared theirs with this one as their
 * list l + 1, and since exactly one of two slots goes first, ballots of those answers give the
 * rest. */
template <typename P, int G>
MJ_DEVICE void mj_corank4_lanes(const mj_key *mine, const mj_i64 count[4], mj_i64 d_in,
                                mj_i64 at[4]) {
    int lane = threadIdx.x & 31, l = (lane >> 2) & 3, k = lane & 3;
    /* G 16: the half-warp's first lane; G 32: which list this half compares with. */
    int half = G == 16 ? lane & 16 : 0, side = G == 32 ? lane >> 4 : 0;
    P d = (P)d_in, r = mj_cr_top<P>(count, d);
#pragma unroll
    for (int x = 16; x > 0; x >>= 1) {
        P other = __shfl_xor_sync(0xffffffffu, r, x);
        r = other > r ? other : r;
    }
    /* Selected rather than indexed: an index would put the array in local memory. */
    P n = (P)(l == 0 ? count[0] : l == 1 ? count[1] : l == 2 ? count[2] : count[3]);
    /* A lane keeps its own list's state alone; the others' come by shuffles at the end. */
    P own = l == 0 ? d & ~(r - 1) : 0;
    /* The lists this lane compares with (l + 1 + side, and l + 2 where G is 16; mod 4), their
     * first lanes and whether they are lower than l; the first lane of list l + 3 in the
     * first half. */
    int list1 = (l + 1 + side) & 3, first1 = half + 16 * side + 4 * list1;
    int first2 = half + 4 * ((l + 2) & 3), prev = half + 4 * ((l + 3) & 3);
    bool low1 = list1 < l, low2 = l >= 2;
    for (P h = r >> 1; h > 0; h >>= 1) {
        mj_cr_elem x = mj_cw_slot<P>(mine, n, own, h, l, k);
        int cls = x.rank & ~3;
        /* How many of the compared lists' slots go before this one; and the ballot of the
         * comparisons with slot k of each lane's list l + 1 + side. */
        int before = 0;
        unsigned asked = 0;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            bool b = mj_cw_ask(x.key, cls, first1 + i, low1);
            before += b;
            unsigned ballot = __ballot_sync(0xffffffffu, b);
            asked = k == i ? ballot : asked;
            if (G == 16) before += mj_cw_ask(x.key, cls, first2 + i, low2);
        }
        /* The lower slots of its own list, those of lists l + 1 and l + 2 before it (G 32:
         * this half's count and the other's), and those of list l + 3 that this one does not
         * go before. */
        if (G == 32) before += __shfl_xor_sync(0xffffffffu, before, 16);
        int place = k + before + 4 - __popc(asked >> prev & 15);
        unsigned held = __ballot_sync(0xffffffffu, place < MJ_CW_HELD(d, h)) >> half;
        own += (P)__popc(held >> 4 * l & 15) * h - 3 * h;
    }
#pragma unroll
    for (int m = 0; m < 4; ++m) at[m] = (mj_i64)__shfl_sync(0xffffffffu, own, half + 4 * m);
    mj_cr_settle(at, count, d_in);
}

/* Both partition kernels: `lanes` threads a tile; the thread's tile's frame and diagonal are
 * worked out first (they need no memory: under an overlapped launch, while the pass before
 * ends), then the split is searched and the tile's first lane stores it. Group (mj_partition4):
 * lanes is MJ_SPLIT4_WARP or MJ_SPLIT4_HALF and n below 2^31 (the host launches it only where
 * mj_split4_grouped holds), and every thread searches, a group past the last tile on empty
 * lists (no loads; with G 16, beside the group of its warp's other half). Else
 * (mj_partition4_one) the first of a tile's lanes searches alone and the others leave at
 * once, over 32-bit positions where every frame is below 2^31 elements (mj_split4_narrow; n is
 * uniform), 64-bit above. Group is a template parameter (`if constexpr`), so that each
 * kernel's program compiles its own searches only. */
template <bool Group>
MJ_DEVICE void mj_partition4_tile(const mj_key *keys, mj_i64 n, mj_i64 nv, mj_i64 coop,
                                  mj_i64 tiles, mj_i64 *partitions, int lanes) {
    mj_allow_next_kernel();
    mj_i64 thread = (mj_i64)blockIdx.x * blockDim.x + threadIdx.x;
    mj_i64 tile = thread / lanes;
    bool real = tile < tiles;
    if (!Group && (!real || thread % lanes)) return;
    mj_frame4 f = mj_sort_frame4(real ? tile : 0, coop, nv, n);
    mj_i64 count[4], split[4];
#pragma unroll
    for (int l = 0; l < 4; ++l) count[l] = real ? f.count[l] : 0;
    mj_i64 d = real ? mj_min(mj_tile_diag(tile, coop, nv), mj_frame4_total(f)) : 0;
    mj_await_prior_kernels();
    if constexpr (Group) {
        /* The lane's list, selected by its start rather than indexed (local memory). */
        int own = (threadIdx.x >> 2) & 3;
        const mj_key *mine = mj_search_list(keys, own == 0   ? f.begin[0]
                                                  : own == 1 ? f.begin[1]
                                                  : own == 2 ? f.begin[2]
                                                             : f.begin[3]);
        if (lanes == MJ_SPLIT4_WARP)
            mj_corank4_lanes<unsigned, MJ_SPLIT4_WARP>(mine, count, d, split);
        else
            mj_corank4_lanes<unsigned, MJ_SPLIT4_HALF>(mine, count, d, split);
    } else {
        const mj_key *list[4];
#pragma unroll
        for (int l = 0; l < 4; ++l) list[l] = mj_search_list(keys, f.begin[l]);
        if (mj_split4_narrow(n))
            mj_corank4<unsigned>(list, count, d, split);
        else
            mj_corank4<unsigned long long>(list, count, d, split);
    }
    if (!real || thread % lanes) return;
#pragma unroll
    for (int l = 0; l < 4; ++l) partitions[4 * tile + l] = split[l];
}

extern "C" __global__ void mj_partition4(const mj_key *keys, mj_i64 n, mj_i64 nv, mj_i64 coop,
                                         mj_i64 tiles, mj_i64 *partitions, int lanes) {
    mj_partition4_tile<true>(keys, n, nv, coop, tiles, partitions, lanes);
}

extern "C" __global__ void mj_partition4_one(const mj_key *keys, mj_i64 n, mj_i64 nv,
                                             mj_i64 coop, mj_i64 tiles, mj_i64 *partitions,
                                             int lanes) {
    mj_partition4_tile<false>(keys, n, nv, coop, tiles, partitions, lanes);
}

#endif
