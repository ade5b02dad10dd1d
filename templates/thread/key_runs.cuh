/* Runs of equivalent keys in a sorted array, found by galloping from one end: a probe 1, 2,
 * 4, ... slots on, then a binary search inside the last step, so a short run (the usual case)
 * costs a read or two and a long one about 2 log2 of its length. The multiset operations'
 * balanced path (thread/balanced_search.cuh) and sorted search's equivalent counts
 * (thread/search_count.cuh) find their runs with them. I is the index type: int inside a
 * tile's shared memory, mj_i64 over global arrays. */
#ifndef MJ_KEY_RUNS_CUH
#define MJ_KEY_RUNS_CUH

#include "common/spec_default.cuh"

/* The first i in [0, end) from which keys[i, end) are all not ordered before x, for keys
 * sorted and keys[end - 1] not ordered after x: the start of x's run that ends at end. Probes
 * end - 1, end - 2, end - 4, ... then bisects the last gap. */
template <typename I>
MJ_DEVICE I mj_run_begin(const mj_key *keys, I end, const mj_key &x) {
    I lo = 0, hi = end;
    for (I step = 1; hi > 0; step <<= 1) {
        I probe = hi > step ? hi - step : 0;
        if (mj_less(keys[probe], x)) {
            lo = probe + 1;
            break;
        }
        hi = probe;
    }
    while (lo < hi) {
        I mid = lo + ((hi - lo) >> 1);
        if (mj_less(keys[mid], x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first i in [begin, limit) whose key is ordered after x (limit when none), for keys
 * sorted and keys[begin, ...) not ordered before x: the end of x's run, looked for no further
 * than limit. Probes begin, begin + 1, begin + 3, ... then bisects the last gap. */
template <typename I>
MJ_DEVICE I mj_run_end(const mj_key *keys, I begin, I limit, const mj_key &x) {
    I lo = begin, hi = limit;
    for (I step = 1; lo < limit; step <<= 1) {
        I probe = limit - lo > step ? lo + step - 1 : limit - 1;
        if (mj_less(x, keys[probe])) {
            hi = probe;
            break;
        }
        lo = probe + 1;
    }
    while (lo < hi) {
        I mid = lo + ((hi - lo) >> 1);
        if (mj_less(x, keys[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* mj_run_end for a run that is mostly short (sorted search's counts over random keys: a run
 * of one or none): the PROBES keys from begin are read at once, independent loads and no
 * branch, one round of shared-memory latency where the gallop takes three for a run of one or
 * two, and the gallop goes on only past them. limit must be at least 1 (a probe past it reads
 * keys[limit - 1] and is not counted). */
template <int PROBES, typename I>
MJ_DEVICE I mj_run_end_near(const mj_key *keys, I begin, I limit, const mj_key &x) {
    I end = begin;
#pragma unroll
    for (int k = 0; k < PROBES; ++k)
        end += begin + k < limit && !mj_less(x, keys[mj_min<I>(begin + k, limit - 1)]);
    return end == begin + PROBES ? mj_run_end(keys, end, limit, x) : end;
}

#endif
