/* Load-balancing search within a tile (the seed's CTALoadBalance): the block loads its range
 * of offsets into shared memory, each thread finds where its share of the tile's merge starts
 * and walks it serially (mj_cta_lbs_walk: the segmented reduce's visit needs the merge's
 * order). Where only each output's place in the merge is wanted, the offsets mark it and a
 * block max-scan fills in the rest instead, fewer instructions than the walk: the items'
 * owners (mj_cta_load_balance: lbs, expand, move, join) and every output's source
 * (mj_cta_lbs_sources: bulk insert). The offsets are any indexable whose elements convert to
 * mj_i64: the key array of lbs and expand, or the run-time-sized indices of bulk insert
 * (mj_index_array), so the functions are templates over it. */
#ifndef MJ_CTA_LOAD_BALANCE_CUH
#define MJ_CTA_LOAD_BALANCE_CUH

#include "common/spec_default.cuh"
#include "shared/load_balance.h"
#include "block/await_split.cuh"

#define MJ_LBS_NV (MJ_NT * MJ_VT)

/* Static shared memory of the lbs and expand tile kernels: the offsets (one more than a tile)
 * and the owner of each item. */
#define MJ_LBS_SHARED(s_off, s_owner)                                                         \
    __shared__ mj_key s_off[MJ_LBS_NV + 1];                                                   \
    __shared__ int s_owner[MJ_LBS_NV]

/* Merge path over the items [x0, x0 + items) and offsets[0, objects): how many of the first
 * diag outputs are items. Offsets go before equal items. */
template <typename Offsets>
MJ_DEVICE mj_i64 mj_lbs_path(const Offsets &offsets, mj_i64 objects, mj_i64 items, mj_i64 diag,
                             mj_i64 x0 = 0) {
    mj_i64 lo = diag > objects ? diag - objects : 0, hi = diag < items ? diag : items;
    while (lo < hi) {
        mj_i64 mid = (lo + hi) >> 1;
        if ((mj_i64)offsets[diag - 1 - mid] <= x0 + mid)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The coarse partition, one thread an entry (blocks of MJ_LBS_PARTITION_THREADS):
 * partitions[t] for t in [0, tiles] is how many of the first (first + t) * MJ_LBS_NV outputs
 * of the merge are items (first: the launch's first tile, for a join's launches over a part
 * of the tiles at a time), found by samples shared by the block, then probes of each thread
 * (shared/load_balance.h). The entries are mj_lbs_path's for sorted offsets; for unsorted ones
 * each stays inside its diagonal's bounds. (A warp an entry, 32 probes a round, cut the
 * dependent loads from 20 to 4 but was 13% slower at 2^27 items on an H100: 32 times the
 * loads; docs/TUNING.md.) The tile kernel may start while this one runs
 * (mj__launch_overlapped): every entry is set to -1 before its block lets the tile kernel
 * start (mj_open_split), and each tile waits until its two entries are found
 * (mj_cta_lbs_load). Every thread of the block must call it. */
template <typename Offsets>
MJ_DEVICE void mj_lbs_partition_entry(const Offsets &offsets, mj_i64 objects, mj_i64 items,
                                      mj_i64 tiles, mj_i64 *partitions, mj_i64 first = 0) {
    enum { P = MJ_LBS_PARTITION_THREADS };
    __shared__ mj_i64 s_at[P], s_value[P], s_span[2];
    int tid = threadIdx.x;
    mj_i64 t = (mj_i64)blockIdx.x * P + tid;
    bool mine = t <= tiles;
    volatile mj_i64 *slot = partitions + t;
    mj_open_split(slot, mine);
    /* This entry's y (shared/load_balance.h) lies in [lo, hi], inside [y0, y1]. */
    mj_i64 diag = mj_min((first + t) * MJ_LBS_NV, items + objects);
    mj_i64 y0 = mj_max(diag - items, (mj_i64)0), y1 = mj_min(diag, objects), lo = y0, hi = y1;
    for (int round = 0; round < MJ_LBS_SAMPLE_ROUNDS; ++round) {
        /* The block's span: its first bracket's start to its last's end (sorted offsets give
         * brackets in order). */
        if (tid == 0) s_span[0] = lo;
        if (tid == P - 1) s_span[1] = hi;
        __syncthreads();
        mj_i64 a = s_span[0], b = s_span[1];
        if (b - a <= P) break; /* the same for every thread: no sample would narrow much */
        mj_i64 at = mj_lbs_sample_at(a, b, tid);
        s_at[tid] = at;
        s_value[tid] = (mj_i64)offsets[at];
        __syncthreads();
        int c = 0; /* the samples below the diagonal: a prefix for sorted offsets */
        for (int n = P; n > 0;) {
            int half = n >> 1;
            if (s_value[c + half] < diag - s_at[c + half]) {
                c += half + 1;
                n -= half + 1;
            } else {
                n = half;
            }
        }
        if (c > 0) lo = mj_max(lo, s_at[c - 1] + 1);
        if (c < P) hi = mj_min(hi, s_at[c]);
        __syncthreads(); /* the samples are read before the next round writes them */
    }
    while (lo < hi) { /* unsorted offsets may cross lo and hi: the loop ends, y is clamped */
        mj_i64 at[MJ_LBS_PROBES], value[MJ_LBS_PROBES];
#pragma unroll
        for (int i = 0; i < MJ_LBS_PROBES; ++i) {
            at[i] = mj_lbs_probe_at(lo, hi, i);
            value[i] = (mj_i64)offsets[at[i]];
        }
        mj_i64 next_lo = lo, next_hi = hi;
#pragma unroll
        for (int i = 0; i < MJ_LBS_PROBES; ++i) {
            if (value[i] < diag - at[i])
                next_lo = mj_max(next_lo, at[i] + 1);
            else
                next_hi = mj_min(next_hi, at[i]);
        }
        lo = next_lo;
        hi = next_hi;
    }
    if (mine) *slot = diag - mj_min(mj_max(lo, y0), y1);
}

/* What mj_cta_lbs_load does with each offset beyond storing it: nothing (the default).
 * `own_loads`: the call reads arrays of its own, so the loop over the offsets is not unrolled.
 * Unrolled by four, as the compiler does the bare loop, it held the registers of four offsets
 * and of what the call loads (move of 8-byte offsets and values: 58 -> 88 registers); not
 * unrolled for every caller, it cost bulk insert, whose tiles load several offsets a thread,
 * 4% at 2^27 (H200, docs/TUNING.md). */
struct mj_lbs_with_offset {
    enum { own_loads = 0 };
    MJ_DEVICE void operator()(int, mj_i64, mj_i64) const {}
};

/* The range of tile first + blockIdx.x (its partition entries those of blockIdx.x:
 * mj_lbs_partition_entry with the same first), and its offsets from r.base into s_off, each
 * less the tile's first item and clamped to [-1, MJ_LBS_NV + 1] where `relative` (below); no
 * barrier after the offsets. with(k, j, offset) is called for each offset loaded, k its slot
 * in s_off and j its index in the offsets: a caller that reads its own per-object arrays there
 * has their loads in flight with the offsets', not after a barrier (interval move).
 * `overlapped`: the tile kernel was started while the partition kernel runs
 * (mj__launch_overlapped), so threads 0 and 1 await an entry each, as the merge's
 * and the search's tiles do, and a barrier passes them on (every thread of the block calls
 * it). Every thread awaiting both was slower at 2^27 than a plain launch, and the barrier a
 * tile cost interval gather 3.5% at 2^27 where the overlap gained nothing (H200,
 * docs/TUNING.md): the launches that gain from the overlap set it, the others read the
 * entries plainly. */
template <typename Offsets, typename Off, typename With = mj_lbs_with_offset>
MJ_DEVICE mj_lbs_range mj_cta_lbs_load(const Offsets &offsets, mj_i64 objects, mj_i64 items,
                                       const mj_i64 *partitions, Off *s_off, int tid,
                                       mj_i64 first, bool relative, bool overlapped,
                                       const With &with = With()) {
    mj_i64 tile = blockIdx.x, p0, p1;
    if (overlapped) {
        __shared__ mj_i64 s_entry[2];
        if (tid < 2) s_entry[tid] = mj_await_split(partitions + tile + tid);
        __syncthreads();
        p0 = s_entry[0];
        p1 = s_entry[1];
    } else {
        p0 = partitions[tile];
        p1 = partitions[tile + 1];
    }
    mj_lbs_range r = mj_lbs_tile_range(first + tile, MJ_LBS_NV, items, objects, p0, p1);
    int loads = (int)r.loads;
    auto load = [&](int i) {
        mj_i64 v = offsets[r.base + i];
        with(i, r.base + i, v);
        if (relative) v = mj_min(mj_max(v - r.x0, (mj_i64)-1), (mj_i64)MJ_LBS_NV + 1);
        s_off[i] = (Off)v;
    };
    if (With::own_loads) {
#pragma unroll 1 /* mj_lbs_with_offset */
        for (int i = tid; i < loads; i += MJ_NT) load(i);
    } else {
        for (int i = tid; i < loads; i += MJ_NT) load(i);
    }
    return r;
}

/* The tile's share of the merge: loads the offsets from r.base into s_off, then each thread
 * walks its MJ_VT outputs, calling visit(x, y, yb, item) at each: item 1 for the tile's item
 * x, met after y of the tile's offsets, 0 for its offset y, met after x items; yb is 1 when
 * s_off[0] is the offset before the tile (s_off[yb + y] is offset y). Each output x + y of the
 * tile is visited exactly once, whatever the offsets hold (they only decide which of x and y
 * steps). s_off and what visit wrote are valid after it returns. The block's tile is
 * first + blockIdx.x, its partition entries those of blockIdx.x (mj_lbs_partition_entry with
 * the same first). `relative`: s_off holds each offset less the tile's first item, clamped to
 * [-1, MJ_LBS_NV + 1], which keeps every comparison the walk makes: an int a slot where the
 * offsets are 8 bytes, half the shared memory (the segmented reduce's occupancy). */
template <typename Offsets, typename Off, typename Visit>
MJ_DEVICE mj_lbs_range mj_cta_lbs_walk(const Offsets &offsets, mj_i64 objects, mj_i64 items,
                                       const mj_i64 *partitions, Off *s_off, int tid,
                                       const Visit &visit, mj_i64 first = 0,
                                       bool relative = false) {
    mj_lbs_range r = mj_cta_lbs_load(offsets, objects, items, partitions, s_off, tid, first,
                                     relative, false);
    mj_i64 x0 = relative ? 0 : r.x0; /* the tile's first item, as s_off counts */
    __syncthreads();
    int nx = (int)(r.x1 - r.x0), ny = (int)(r.y1 - r.y0), yb = r.y0 > 0;
    const Off *tile_off = s_off + yb; /* the tile's own offsets */
    /* Where this thread's share starts: the merge path within the tile. */
    int diag = mj_min(tid * MJ_VT, nx + ny);
    int x = (int)mj_lbs_path(tile_off, ny, nx, diag, x0), y = diag - x;
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        mj_i64 off = y < ny ? (mj_i64)tile_off[y] : 0;
        if (mj_lbs_offset_first(y < ny, x < nx, off, x0 + x)) {
            visit(x, y, yb, 0);
            ++y;
        } else if (x < nx) {
            visit(x, y, yb, 1);
            ++x;
        }
    }
    __syncthreads();
    return r;
}

/* The largest v of the threads before this one in the block (-1 for thread 0). */
MJ_DEVICE int mj_cta_max_before(int v, int tid) {
    __shared__ int s_warp[MJ_NT / 32];
    int lane = tid & 31, warp = tid >> 5;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        int y = __shfl_up_sync(0xFFFFFFFFu, v, d);
        if (lane >= d) v = max(v, y);
    }
    if (lane == 31) s_warp[warp] = v;
    int before = __shfl_up_sync(0xFFFFFFFFu, v, 1);
    if (lane == 0) before = -1;
    __syncthreads();
#pragma unroll /* the warps before this one, read whole: no loop */
    for (int w = 0; w < MJ_NT / 32; ++w)
        if (w < warp) before = max(before, s_warp[w]);
    return before;
}

/* The block's scan of marks: s[0, MJ_LBS_NV) holds a mark (>= 0, 0 where none; sorted input
 * makes them grow along the slots) a slot. Each slot becomes emit(slot, its mark, the largest
 * mark at or before it). Thread t takes the slots from t * MJ_VT: their largest mark, the
 * block's scan of those, then the slots again (read twice rather than kept: registers). Every
 * slot, not only the tile's, so that the passes test no bound: those tests cost as many
 * instructions as the passes' own work. The caller's barrier publishes s. */
template <typename Emit>
MJ_DEVICE void mj_cta_scan_marks(int *s, int tid, const Emit &emit) {
    int x0 = tid * MJ_VT, run = 0;
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) run = max(run, s[x0 + k]);
    run = mj_cta_max_before(run, tid);
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        int m = s[x0 + k];
        run = max(run, m);
        s[x0 + k] = emit(x0 + k, m, run);
    }
}

/* Load-balancing search's emit: an item's owner is the last mark at or before it. */
struct mj_lbs_owner_emit {
    MJ_DEVICE int operator()(int, int, int run) const { return run; }
};

/* Fills s_owner[0, x1 - x0) with each item's owner as an index into s_off (the offsets from
 * r.base) and returns the tile's range; s_off and s_owner are valid after it returns (the slots
 * of s_owner from x1 - x0 up to MJ_LBS_NV hold indices too, of no item). The owners the walk
 * would give, found without it (the walk's steps cost more instructions than the tile's loads
 * and stores: lbs, expand and move were bound by them): each of the tile's offsets marks the
 * item it starts at with its index into s_off (of equal offsets the last, which owns the item),
 * then a max-scan over the items gives each the last mark at or before it, or 0 (the offset
 * before the tile, or the first) where there is none. The tile is first + blockIdx.x, as the
 * walk's; `overlapped` and `with` as mj_cta_lbs_load's (what `with` stores in shared memory is
 * valid after it returns). */
template <typename Offsets, typename Off, typename With = mj_lbs_with_offset>
MJ_DEVICE mj_lbs_range mj_cta_load_balance(const Offsets &offsets, mj_i64 objects, mj_i64 items,
                                           const mj_i64 *partitions, Off *s_off, int *s_owner,
                                           int tid, bool overlapped, mj_i64 first = 0,
                                           const With &with = With()) {
    mj_lbs_range r = mj_cta_lbs_load(offsets, objects, items, partitions, s_off, tid, first,
                                     false, overlapped, with);
    int nx = (int)(r.x1 - r.x0), ny = (int)(r.y1 - r.y0), yb = r.y0 > 0;
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) s_owner[tid + k * MJ_NT] = 0;
    __syncthreads();
    for (int y = tid; y < ny; y += MJ_NT) {
        mj_i64 at = (mj_i64)s_off[yb + y] - r.x0;
        if (at >= 0 && at < nx) atomicMax(&s_owner[at], y + yb);
    }
    __syncthreads();
    mj_cta_scan_marks(s_owner, tid, mj_lbs_owner_emit());
    __syncthreads();
    return r;
}

/* The merge's emit: a marked output is offset mark - 1, noted ~(mark - 1); any other is an
 * item, its slot less the `run` offsets before it. No more than the tile's last item, which
 * only unsorted offsets would pass (nx = 0 makes it ~0: the tile's first offset). */
struct mj_lbs_source_emit {
    int nx;
    MJ_DEVICE int operator()(int slot, int mark, int run) const {
        return mark ? ~(mark - 1) : min(slot - run, nx - 1);
    }
};

/* The source of each of the tile's outputs, what the walk visits there, without the walk:
 * s_src[k] for k < (x1 - x0) + (y1 - y0) is x for the tile's item x, ~y for its offset y. Each
 * offset y marks its output, after the tile's items below it and the y offsets before it, with
 * y + 1 (the larger where unsorted offsets mark one twice); a max-scan gives every other
 * output the offsets before it. s_off: the offsets from r.base, relative to the tile's first
 * item (mj_cta_lbs_load's `relative`). Unsorted offsets give sources inside the tile's items
 * and offsets. s_off and s_src are valid after it returns. Bulk insert's, its one caller,
 * whose tiles are started while the partition kernel runs (mj_cta_lbs_load's `overlapped`). */
template <typename Offsets>
MJ_DEVICE mj_lbs_range mj_cta_lbs_sources(const Offsets &offsets, mj_i64 objects, mj_i64 items,
                                          const mj_i64 *partitions, int *s_off, int *s_src,
                                          int tid) {
    mj_lbs_range r = mj_cta_lbs_load(offsets, objects, items, partitions, s_off, tid, 0, true,
                                     true);
    int nx = (int)(r.x1 - r.x0), ny = (int)(r.y1 - r.y0), yb = r.y0 > 0;
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) s_src[tid + k * MJ_NT] = 0;
    __syncthreads();
    /* atomicMax: unsorted offsets may mark one output twice (racecheck would see it). */
    for (int y = tid; y < ny; y += MJ_NT)
        atomicMax(&s_src[min(max(s_off[yb + y], 0), nx) + y], y + 1);
    __syncthreads();
    mj_cta_scan_marks(s_src, tid, mj_lbs_source_emit{nx});
    __syncthreads();
    return r;
}

#endif
