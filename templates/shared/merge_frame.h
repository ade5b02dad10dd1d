/* The merge passes' arithmetic: which sorted lists a tile merges in a pass, and which part of
 * them; mergesort's passes merge four lists (mj_frame4) or two (mj_frame), the segmented and
 * locality sorts' queued passes two. Written in the common subset of C and CUDA C++ so that
 * the kernels and the host (and the host's CPU model in tests) run the very same arithmetic.
 *
 * In the pass where `coop` tiles make one output list, the tiles [first, first + coop) with
 * first = tile & ~(coop - 1) form a frame: list A is the first half of the frame's input, list
 * B the second half. Each tile emits nv outputs of the frame; the merge path split at the
 * tile's first output diagonal is its partition. */
#ifndef MJ_MERGE_FRAME_H
#define MJ_MERGE_FRAME_H

#include "shared/host_device.h"

typedef struct mj_frame {
    long long a0, a_count; /* list A: [a0, a0 + a_count) */
    long long b0, b_count; /* list B: [b0, b0 + b_count), b0 = a0 + half a frame */
} mj_frame;

typedef struct mj_range {
    long long a_begin, a_end; /* the tile's part of A */
    long long b_begin, b_end; /* the tile's part of B */
} mj_range;

MJ_HD long long mj_clamp_count(long long want, long long begin, long long n) {
    long long left = n - begin;
    return left <= 0 ? 0 : (want < left ? want : left);
}

/* Lanes that find one merge path split together (mj_group_merge_path) when a partition
 * kernel that runs alone (mergesort's 2-way passes', the queued passes') makes `searches` of
 * them. A few searches are bound by the latency of their chains of dependent loads, which more
 * lanes shorten; many are bound by the traffic of their scattered loads, which more lanes add
 * to.
 * The thresholds are an H100's (merge partitions of 2^24 to 2^27 keys, measured before the
 * merge primitive's partitions overlapped its merges): there 4 lanes took 2^25 keys' splits
 * from 25 to 16 us, 2 lanes 2^26 keys' from 29 to 22 us, and at 2^27 (19785 splits) one lane
 * was fastest. */
MJ_HD int mj_search_lanes(long long searches) {
    return searches <= 6144 ? 4 : searches <= 16384 ? 2 : 1;
}

/* Lanes a 4-way split of a 4-way pass's partition when the pass makes `splits` of them.
 * Up to MJ_SPLIT4_GROUP_MOST splits, a group of lanes searches each together (corank.h's window
 * search; MJ_SPLIT4_HALF lanes, half a warp, else MJ_SPLIT4_WARP, below): a level is one round
 * of loads and a few shuffles and comparisons, no chain of adjustments. On an H100 its
 * partitions took 17-22 us against 22-25 for one lane at 2^24 u32 keys (2850 splits; ncu), u64
 * keys 18-26 against 23-30 (3120), and bench_sort went from 1.26 to 1.30x CUB there for u32
 * keys, 1.66 to 1.70x for u64, 1.27 to 1.31x for f32. At 5700-6241 splits (2^25) the two came
 * out even; u32 pairs went 1.33 -> 1.28x at 11900 splits; at 2^27 (22800) the group's
 * partitions took 70-105 us against 44-53, the 16 lanes' comparisons bound by issue. Once a
 * lane compared its slot with two other lists, not three (kernel_partition4.cuh), groups came
 * out ahead up to 5958 splits (H100, whole sorts: u32 keys at 2^25 1.221 ms against 1.247 with
 * one lane, u32 pairs at 2^24 1.189 against 1.208; the one lane's timings from the next run)
 * and stayed behind at 2^27 (64-98 us a pass against 41-51), hence 6144.
 * Up to MJ_SPLIT4_WARP_MOST splits a whole warp searches each, a lane comparing its slot with
 * one list, not two (H100, main against it, two bench_sort turns each, ratio to CUB): u32 keys
 * 2^24 (2850 splits) 1.505/1.508 -> 1.529/1.530, partitions 18.0-22.2 -> 16.7-20.1 us (ncu);
 * u64 keys 2^22 (1093) 1.488/1.482 -> 1.531/1.530, 2^24 (4369) 1.762 -> 1.776; but u32 keys
 * 2^25 (5700) 1.517/1.515 -> 1.475/1.480 and u32 pairs 2^24 (5958) 1.391 -> 1.354: twice the
 * lanes a split, and a third more issue slots, where half-warps were already near the bound.
 * With this rule (the next run): u32 keys 2^24 1.508/1.503 -> 1.531/1.525, 2^25 1.517/1.518 ->
 * 1.527/1.528, u32 pairs 2^24 1.395/1.390 -> 1.395/1.398, 16-byte structs 2^22 1.466/1.461 ->
 * 1.535/1.542.
 * Above, one lane searches (mj_corank4, in kernel mj_partition4_one) and the others leave at
 * once. Its split is a chain of a few hundred dependent instructions a level, so a warp of 32
 * splits is as slow as its slowest lane's path through the branches of all 32; spreading them
 * to about 32768 threads fills an H100 without adding issue slots where it is full (from 1 to
 * 8 lanes a split: u64 keys 2^24 1.44 -> 1.52x, but at 2^27 1.36 -> 1.29x for u32). Never a
 * group there: at most 4 above MJ_SPLIT4_GROUP_MOST splits. */
#define MJ_SPLIT4_WARP 32
#define MJ_SPLIT4_HALF 16
#define MJ_SPLIT4_WARP_MOST 4608
#define MJ_SPLIT4_GROUP_MOST 6144
MJ_HD int mj_split4_lanes(long long splits) {
    if (splits <= MJ_SPLIT4_WARP_MOST) return MJ_SPLIT4_WARP;
    if (splits <= MJ_SPLIT4_GROUP_MOST) return MJ_SPLIT4_HALF;
    int lanes = 1;
    while (lanes < 32 && splits * lanes * 2 <= 32768) lanes *= 2;
    return lanes;
}

/* Whether a sort of n elements searches its 4-way splits over 32-bit positions (corank.h: they
 * fit where a frame holds fewer than 2^31 elements, as every frame does where n does). */
MJ_HD int mj_split4_narrow(long long n) { return n < (1ll << 31); }

/* Whether a 4-way pass of a sort of n elements whose splits take `lanes` lanes each
 * (mj_split4_lanes) searches them by groups (kernel mj_partition4, over 32-bit positions only),
 * or one lane a split (mj_partition4_one). mj_split4_lanes gives groups at most
 * MJ_SPLIT4_GROUP_MOST tiles, so n is below 2^31 there (a tile holds at most 1024 x 63); were
 * it not, one lane would search. */
MJ_HD int mj_split4_grouped(int lanes, long long n) {
    return (lanes == MJ_SPLIT4_HALF || lanes == MJ_SPLIT4_WARP) && mj_split4_narrow(n);
}

/* The merge primitive's partition kernel (kernel_merge_arrays.cuh): threads a block, the
 * spacing of the entries that bound the searches of the entries between them, and the lanes
 * of such a search. */
#define MJ_MP_NT 128
#define MJ_MP_STRIDE 8
#define MJ_MP_LANES 2

/* Narrows [*lo, *hi], the range where the merge path's split at output diagonal d lies, by
 * two known splits: p_left at d_left <= d and p_right at d_right >= d. Between d_left and d
 * the path takes at most d - d_left outputs from a, and between d and d_right at most
 * d_right - d; so the split lies in [p_right - (d_right - d), p_left + (d - d_left)] too. */
MJ_HD void mj_narrow_split(long long d, long long d_left, long long p_left, long long d_right,
                           long long p_right, long long *lo, long long *hi) {
    long long least = p_left < p_right - (d_right - d) ? p_right - (d_right - d) : p_left;
    long long most = p_left + (d - d_left) < p_right ? p_left + (d - d_left) : p_right;
    *lo = *lo < least ? least : *lo;
    *hi = most < *hi ? most : *hi;
}

/* Tiles of nv elements needed for n elements. */
MJ_HD long long mj_tile_count(long long n, long long nv) { return (n + nv - 1) / nv; }

/* Merge passes after the blocksort: the number of doublings until one list covers all tiles. */
MJ_HD int mj_pass_count(long long tiles) {
    int passes = 0;
    while (tiles > (1ll << passes)) ++passes;
    return passes;
}

/* The schedule: the blocksort sorts runs of `runs` tiles (a power of two), then each merge
 * pass doubles the lists; pass p merges frames of mj_pass_coop(p, runs) tiles. */
MJ_HD int mj_sort_passes(long long n, long long nv, long long runs) {
    return mj_pass_count(mj_tile_count(n, nv * runs));
}
MJ_HD long long mj_pass_coop(int pass, long long runs) { return (2 * runs) << pass; }

/* The input size, in bytes of keys and values, from which mergesort's passes merge four lists
 * (MJ_MERGE4_MIN_BYTES): below it every pass merges two. From one H100 run of bench_sort
 * (speed over CUB's DeviceMergeSort, 2-way passes against 4-way, with fused 2-way passes,
 * serpentine order, mj_split4_lanes and the 32-bit co-rank of corank.h): at 2^25 bytes u64
 * keys (2^22 elements) 1.31 against 1.42, u32 pairs (2^22) 1.12 against 1.23, u32 keys (2^23)
 * 1.21 against 1.19; at 2^24 bytes u64 keys (2^21) 1.38 against 1.24, u32 pairs 1.08 against
 * 0.98-1.00, u32 keys (2^22) 1.20 against 0.98 (a short sort's 4-way partitions, a chain of
 * dependent instructions each, cost more than the passes they save). */
#define MJ_MERGE4_MIN_BYTES (1ll << 25)

/* The lists mergesort's passes merge (`ways` for the schedule below) for n elements of `bytes`
 * each (key and value; n * bytes fits in memory): setting 2 or 4 forces that
 * (MERGEJIT_MERGE_WAYS), 0 chooses by size: four from 2^min_log2 bytes on (1 to 62: the
 * description's or the tuning file's mj_sort_desc.merge4_log2), from MJ_MERGE4_MIN_BYTES where
 * min_log2 is 0. */
MJ_HD int mj_sort_ways(long long n, long long bytes, int setting, int min_log2) {
    if (setting == 2 || setting == 4) return setting;
    return n * bytes >= (min_log2 ? 1ll << min_log2 : MJ_MERGE4_MIN_BYTES) ? 4 : 2;
}

/* Mergesort's schedule when a pass may merge four lists (ways 4) or two (ways 2: the schedule
 * above, which the segmented and locality sorts keep). 2-way passes run mj_partition and
 * mj_merge, 4-way ones mj_partition4 or mj_partition4_one (mj_split4_grouped) and mj_merge4.
 * `levels` is mj_sort_passes: the doublings of the blocksort's runs until one list covers all
 * tiles. A 4-way pass does two of them: it reads and writes every element once where two 2-way
 * passes would twice. An odd count leaves one doubling for a 2-way pass, and that one goes
 * first, on the shortest lists: next to the blocksort, which absorbs it when its runs double (a
 * larger blocksort tile flips the parity), and where its partition searches are the
 * shortest. */
MJ_HD int mj_merge_passes(int levels, int ways) { return ways == 4 ? (levels + 1) / 2 : levels; }

/* The lists pass `pass` merges into one: 2 or 4. */
MJ_HD int mj_pass_ways(int pass, int levels, int ways) {
    return ways == 4 && !(pass == 0 && (levels & 1)) ? 4 : 2;
}

/* The tiles of pass `pass`'s frames (its output lists): runs << the doublings done by its end. */
MJ_HD long long mj_pass_frame(int pass, int levels, int ways, long long runs) {
    int doublings = ways == 4 ? 2 * (pass + 1) - (levels & 1) : pass + 1;
    return runs << doublings;
}

MJ_HD mj_frame mj_sort_frame(long long tile, long long coop, long long nv, long long n) {
    mj_frame f;
    long long half = nv * (coop >> 1);
    f.a0 = (tile & ~(coop - 1)) * nv;
    f.a_count = mj_clamp_count(half, f.a0, n);
    f.b0 = f.a0 + half;
    f.b_count = mj_clamp_count(half, f.b0, n);
    return f;
}

/* The output diagonal, within its frame, at which `tile` starts. */
MJ_HD long long mj_tile_diag(long long tile, long long coop, long long nv) {
    return nv * (tile & (coop - 1));
}

/* The output diagonal, within frame f, where the tile's outputs begin (end 0) or end (end 1),
 * clamped to the frame's elements. The merge path splits there are the tile's partitions: the
 * first is mj_partition's entry for the tile, the second the next tile's entry, or a_count
 * where the tile ends its frame (the search at diagonal a_count + b_count finds a_count without
 * a round). The fused 2-way pass (mj_merge with fused set) searches both itself. */
MJ_HD long long mj_tile_split_diag(mj_frame f, long long tile, long long coop, long long nv,
                                   int end) {
    long long d = mj_tile_diag(tile, coop, nv) + (end ? nv : 0), total = f.a_count + f.b_count;
    return d < total ? d : total;
}

/* True when the tile's end is its frame's end (so its end partition is a_count itself, not
 * the next tile's partition, which belongs to another frame). */
MJ_HD int mj_tile_ends_frame(long long tile, long long coop, long long tiles) {
    return ((tile + 1) & (coop - 1)) == 0 || tile + 1 == tiles;
}

/* The tile's input ranges, given the A-offsets (within the frame) of the merge path at its
 * first and one-past-last output diagonals. */
MJ_HD mj_range mj_sort_range(mj_frame f, long long tile, long long coop, long long nv,
                             long long p_begin, long long p_end) {
    mj_range r;
    long long total = f.a_count + f.b_count;
    long long d0 = mj_tile_diag(tile, coop, nv);
    long long d1 = d0 + nv < total ? d0 + nv : total;
    r.a_begin = f.a0 + p_begin;
    r.a_end = f.a0 + p_end;
    r.b_begin = f.b0 + (d0 - p_begin);
    r.b_end = f.b0 + (d1 - p_end);
    return r;
}

/* A 4-way mergesort pass (kernel_merge4.cuh): the tiles [first, first + coop) with first =
 * tile & ~(coop - 1) form a frame whose four lists, coop / 4 tiles each (clamped to n), merge
 * into its output. Each tile emits nv outputs of the frame; its partition is the 4-way split at
 * its first output diagonal (templates/shared/corank.h): how many of each list's elements go
 * before it. */
typedef struct mj_frame4 {
    long long begin[4], count[4]; /* list l: [begin[l], begin[l] + count[l]) */
} mj_frame4;

typedef struct mj_range4 {
    long long begin[4], end[4]; /* the tile's part of list l, in the keys' positions */
} mj_range4;

MJ_HD mj_frame4 mj_sort_frame4(long long tile, long long coop, long long nv, long long n) {
    mj_frame4 f;
    long long len = nv * (coop / 4), first = (tile & ~(coop - 1)) * nv;
    MJ_UNROLL
    for (int l = 0; l < 4; ++l) {
        f.begin[l] = first + l * len;
        f.count[l] = mj_clamp_count(len, f.begin[l], n);
    }
    return f;
}

MJ_HD long long mj_frame4_total(mj_frame4 f) {
    return f.count[0] + f.count[1] + f.count[2] + f.count[3];
}

/* The tile's parts of the lists, given the splits (offsets within the lists) at its first
 * output diagonal and at its last plus one: the next tile's partition, or the lists' counts
 * when the tile ends its frame (mj_tile_ends_frame). Splits from a search over sorted lists
 * give ranges inside the lists that add up to the tile's outputs; the clamps only matter for
 * splits that a comparator which is no strict weak order made, whose tiles must still stay
 * inside the lists and the tile. */
MJ_HD mj_range4 mj_sort_range4(mj_frame4 f, long long tile, long long nv, long long n,
                               const long long *p_begin, const long long *p_end) {
    mj_range4 r;
    long long room = mj_clamp_count(nv, tile * nv, n);
    MJ_UNROLL
    for (int l = 0; l < 4; ++l) {
        long long b = p_begin[l] < 0 ? 0 : p_begin[l] < f.count[l] ? p_begin[l] : f.count[l];
        long long e = p_end[l] < b ? b : p_end[l] < f.count[l] ? p_end[l] : f.count[l];
        e = e - b < room ? e : b + room;
        room -= e - b;
        r.begin[l] = f.begin[l] + b;
        r.end[l] = f.begin[l] + e;
    }
    return r;
}

#endif
