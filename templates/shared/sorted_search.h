/* Sorted search's tile arithmetic, in the common subset of C and CUDA C++ so that the kernel
 * (kernel_search.cuh) and the CPU model in test_search_model run the very same arithmetic.
 *
 * The search merges two sorted arrays, `first` and `second`, a first before an equivalent
 * second: a and b for a's lower bound, b and a for its upper bound. A key's bound in the other
 * array is then how many of the other's keys the merge puts before it. A first's equivalent
 * key, if any, is the second right after it in the other array (the merge would have put a
 * second that is ordered before it ahead of it); a second's is the first right before it.
 * Tiles split the merge as mj_lbs_tile_range does (firsts as its items, seconds as its
 * offsets), and a tile keeps its keys in tile positions: firsts [0, fl), seconds [fl, total),
 * with the first before the tile at -1 and the second after it at total (the halos). */
#ifndef MJ_SORTED_SEARCH_H
#define MJ_SORTED_SEARCH_H

#include "shared/host_device.h"

/* What a tile writes for the keys of one array (each pointer may be null): the bound (an
 * index, 4 or 8 bytes), a match byte, the equivalent count (an index; the firsts' alone, so
 * in a pass with a as the first array: the seconds from a key's bound on that are not above
 * it), and the count of keys with a match (added atomically). The host passes it by value, so
 * its layout is the same in C and CUDA. */
typedef struct mj_search_side {
    void *indices;
    unsigned char *matches;
    void *counts;
    unsigned long long *matched;
} mj_search_side;

/* The kernel's flags: indices of 8 bytes (else 4); match flags or match counts are asked for
 * (else the neighbour comparison is skipped and no key matches). */
#define MJ_SEARCH_WIDE 1
#define MJ_SEARCH_MATCHES 2

/* A tile's result for one key: its count of the other's keys before it within the tile, and
 * the match in the top bit. */
#define MJ_SEARCH_MATCH 0x80000000u

/* The seconds an equivalent count reads at once from its first's bound before it gallops
 * (thread/search_count.cuh): four measured faster than eight on an H200 (docs/TUNING.md);
 * for random keys (runs of mean one) about one key in fifty has a longer run. */
#define MJ_SEARCH_COUNT_PROBES 4

/* A thread walks the tile's merge from tile positions a (the next first, firsts below fl) and
 * b (the next second, seconds below total); the step's output is a + b - fl. Whether the step
 * takes the first, given whether the second's key is ordered before the first's: while firsts
 * remain and the second is not before it (ties to the first), or once the seconds are done. */
MJ_HD int mj_search_takes_first(int a, int b, int fl, int total, int second_before) {
    return (b >= total) | ((a < fl) & !second_before);
}

/* Whether the key taken has the key that decides its match: a first's is the second at b (the
 * one it was compared with), a second's the first at a - 1 (the last taken). Past the tile,
 * the halos: the second at total exists with trail, the first at -1 with lead. */
MJ_HD int mj_search_has_neighbour(int first, int a, int b, int total, int lead, int trail) {
    return first ? (b < total) | trail : (a > 0) | lead;
}

/* The taken key's result: how many of the other array's keys the tile puts before it (the
 * seconds taken, b - fl, for a first; the firsts taken, a, for a second), and the match. */
MJ_HD unsigned mj_search_result(int first, int a, int b, int fl, int match) {
    return (unsigned)(first ? b - fl : a) | (match ? MJ_SEARCH_MATCH : 0u);
}

#endif
