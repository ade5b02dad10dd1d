/* Load-balancing search's tile arithmetic: the work items 0..items-1 merged with the objects'
 * offsets (an offset goes before the item equal to it, so an item follows the offset of the
 * object that owns it). Written in the common subset of C and CUDA C++ so that the kernels and
 * the CPU model in test_lbs_model run the very same arithmetic. */
#ifndef MJ_LOAD_BALANCE_H
#define MJ_LOAD_BALANCE_H

#include "shared/host_device.h"

/* A coarse partition block: a thread for each of its entries. */
#define MJ_LBS_PARTITION_THREADS 128

/* Partition blocks for the entries 0..tiles. */
MJ_HD long long mj_lbs_partition_blocks(long long tiles) {
    return (tiles + MJ_LBS_PARTITION_THREADS) / MJ_LBS_PARTITION_THREADS;
}

/* The coarse partition's search (mj_lbs_partition_entry): the entry of diagonal d is d less
 * y, y the offsets among the first d outputs, those with offsets[j] < d - j (for sorted
 * offsets a prefix of them), y in [max(0, d - items), min(d, objects)]. A block first narrows
 * its threads' brackets in MJ_LBS_SAMPLE_ROUNDS rounds of one load a thread: samples spread
 * over the span of the whole block's brackets, shared by all of it in shared memory; then
 * each thread narrows its own bracket MJ_LBS_PROBES loads at a time, all in flight at once.
 * Five or six dependent loads an entry instead of a binary search's twenty at 2^20 offsets, and
 * hardly more loads in all: the block's samples serve 128 entries, and a thread's last probes
 * fall on the offsets its tile then reads. */
#define MJ_LBS_SAMPLE_ROUNDS 2
#define MJ_LBS_PROBES 7

/* Sample k of a block round over [a, b), b - a > MJ_LBS_PARTITION_THREADS: inside it and
 * strictly increasing in k. */
MJ_HD long long mj_lbs_sample_at(long long a, long long b, int k) {
    return a + (b - a) * (k + 1) / (MJ_LBS_PARTITION_THREADS + 1);
}

/* Probe i of a thread's round over [lo, hi), hi > lo: inside it and nondecreasing in i. */
MJ_HD long long mj_lbs_probe_at(long long lo, long long hi, int i) {
    return lo + (hi - lo) * (i + 1) / (MJ_LBS_PROBES + 1);
}

/* A tile's share of the merge: items [x0, x1) and offsets [y0, y1). Its block loads the
 * offsets [base, base + loads): those of the tile and the one before (the owner of the tile's
 * first item), at least one when there are any (bulk insert may have none). */
typedef struct mj_lbs_range {
    long long x0, x1, y0, y1;
    long long base, loads;
} mj_lbs_range;

MJ_HD long long mj_lbs_tile_count(long long items, long long objects, long long nv) {
    return (items + objects + nv - 1) / nv;
}

/* Tile `tile` of nv merged outputs, from the partition entries p0 and p1 (the items among the
 * first outputs before the tile and before the next). Sorted offsets give p0 <= p1 <=
 * p0 + tile length and no more than `objects` offsets taken; the clamps only matter for
 * unsorted ones (the caller's contract), whose tiles must still stay inside the tile's length
 * and both arrays. */
MJ_HD mj_lbs_range mj_lbs_tile_range(long long tile, long long nv, long long items,
                                     long long objects, long long p0, long long p1) {
    mj_lbs_range r;
    long long n = items + objects;
    long long d0 = tile * nv < n ? tile * nv : n;
    long long d1 = d0 + nv < n ? d0 + nv : n;
    long long lo = d1 - objects > p0 ? d1 - objects : p0;
    long long hi = p0 + (d1 - d0) < items ? p0 + (d1 - d0) : items;
    r.x0 = p0;
    r.x1 = p1 < lo ? lo : p1 > hi ? hi : p1;
    r.y0 = d0 - r.x0;
    r.y1 = d1 - r.x1;
    r.base = r.y0 > 0 ? r.y0 - 1 : 0;
    r.loads = objects == 0 ? 0 : r.y1 - r.base > 1 ? r.y1 - r.base : 1;
    return r;
}

/* One step of a serial walk at item `item` and offset value `off`: the offset goes first when
 * there is one left and it is not above the item (or no item is left). */
MJ_HD int mj_lbs_offset_first(int offsets_left, int items_left, long long off, long long item) {
    return offsets_left && (!items_left || off <= item);
}

#endif
