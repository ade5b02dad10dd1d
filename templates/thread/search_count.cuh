/* A first's equivalent count in the same pass as its lower bound (shared/sorted_search.h): in
 * the merge with ties to the firsts, the seconds equal to a first follow it and every first
 * equal to it, so they are the seconds from its bound on that are not above it. A tile finds
 * those it holds from the key's bound in shared memory (mj_run_end_near: the first
 * MJ_SEARCH_COUNT_PROBES seconds read at once, a gallop only past them); a run that reaches
 * the tile's end goes on past it only when the second after the tile (the trail halo) equals
 * the key, and then the key is the tile's last first, so one search of the seconds past the
 * tile a tile (mj_key_repeat with mj_group_search, by one warp) serves every first that needs
 * it. */
#ifndef MJ_SEARCH_COUNT_CUH
#define MJ_SEARCH_COUNT_CUH

#include "common/spec_default.cuh"
#include "shared/sorted_search.h"
#include "thread/key_runs.cuh"

/* One key at every index: the merge path of an array against it is the array's upper bound
 * of the key (the first position whose key is above it). */
struct mj_key_repeat {
    mj_key k;
    MJ_DEVICE const mj_key &operator[](mj_i64) const { return k; }
};

/* The equivalent count of the first at tile position j, whose result r the walk left: the
 * tile's seconds from its bound not above it, and `beyond` (the trail's run past the tile)
 * when they reach the tile's end and the trail equals the key. The bound is clamped into the
 * tile: a position no thread wrote (unsorted input) holds anything. */
MJ_DEVICE mj_u64 mj_search_count(const mj_key *s, int j, unsigned r, int fl, int total,
                                 int trail, mj_i64 beyond) {
    unsigned before = min(r & ~MJ_SEARCH_MATCH, (unsigned)(total - fl));
    int b = fl + (int)before;
    int end = mj_run_end_near<MJ_SEARCH_COUNT_PROBES>(s, b, total, s[j]);
    bool on = end == total && trail && !mj_less(s[j], s[total]);
    return (mj_u64)(end - b) + (on ? (mj_u64)beyond : 0);
}

#endif
