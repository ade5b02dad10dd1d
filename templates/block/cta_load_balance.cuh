/* Load-balancing search within a tile (the seed's CTALoadBalance): the block loads its range
 * of offsets into shared memory, each thread finds where its share of the tile's merge starts
 * and walks it serially, noting for each item met the offset that owns it. */
#ifndef MJ_CTA_LOAD_BALANCE_CUH
#define MJ_CTA_LOAD_BALANCE_CUH

#include "common/spec_default.cuh"
#include "shared/load_balance.h"

#define MJ_LBS_NV (MJ_NT * MJ_VT)

/* Static shared memory of the tile kernels: the offsets (one more than a tile) and the owner
 * of each item. */
#define MJ_LBS_SHARED(s_off, s_owner)                                                         \
    __shared__ mj_key s_off[MJ_LBS_NV + 1];                                                   \
    __shared__ int s_owner[MJ_LBS_NV]

/* Merge path over the items [0, items) and offsets[0, objects): how many of the first diag
 * outputs are items (offsets go before equal items), found by a warp: each round its 32 lanes
 * test 32 points of the range and a ballot narrows it 32-fold, so that 2^20 offsets cost 4
 * rounds of loads instead of a binary search's 20 one after another. Call from all 32 lanes
 * with the same arguments; every lane gets the result. */
MJ_DEVICE mj_i64 mj_lbs_path_warp(const mj_key *offsets, mj_i64 objects, mj_i64 items,
                                  mj_i64 diag, int lane) {
    mj_i64 lo = diag > objects ? diag - objects : 0, hi = diag < items ? diag : items;
    while (lo < hi) {
        mj_i64 mid = mj_lbs_probe(lo, hi, lane);
        /* True from the answer on (sorted offsets). */
        bool item_first = mid < hi && (mj_i64)offsets[diag - 1 - mid] <= mid;
        unsigned ballot = __ballot_sync(0xffffffffu, item_first);
        mj_lbs_narrow(&lo, &hi, __ffs(ballot) - 1);
    }
    return lo;
}

/* Fills s_owner[0, x1 - x0) with each item's owner as an index into s_off (the offsets from
 * r.base) and returns the tile's range; s_off and s_owner are valid after it returns. */
MJ_DEVICE mj_lbs_range mj_cta_load_balance(const mj_key *offsets, mj_i64 objects, mj_i64 items,
                                           const mj_i64 *partitions, mj_key *s_off,
                                           int *s_owner, int tid) {
    mj_i64 tile = blockIdx.x;
    mj_lbs_range r = mj_lbs_tile_range(tile, MJ_LBS_NV, items, objects, partitions[tile],
                                       partitions[tile + 1]);
    int loads = (int)r.loads;
    for (int i = tid; i < loads; i += MJ_NT) s_off[i] = offsets[r.base + i];
    __syncthreads();
    int nx = (int)(r.x1 - r.x0), ny = (int)(r.y1 - r.y0), yb = r.y0 > 0;
    const mj_key *tile_off = s_off + yb; /* the tile's own offsets */
    /* Where this thread's share starts: the merge path within the tile. */
    int diag = mj_min(tid * MJ_VT, nx + ny);
    int lo = diag > ny ? diag - ny : 0, hi = diag < nx ? diag : nx;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if ((mj_i64)tile_off[diag - 1 - mid] <= r.x0 + mid)
            hi = mid;
        else
            lo = mid + 1;
    }
    int x = lo, y = diag - lo;
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        mj_i64 off = y < ny ? (mj_i64)tile_off[y] : 0;
        if (mj_lbs_offset_first(y < ny, x < nx, off, r.x0 + x)) {
            ++y;
        } else if (x < nx) {
            s_owner[x] = mj_lbs_owner(y, yb);
            ++x;
        }
    }
    __syncthreads();
    return r;
}

#endif
