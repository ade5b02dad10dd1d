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
 * index, 4 or 8 bytes), a match byte, the equivalent count (an index), and the count of keys
 * with a match (added atomically). The host passes it by value, so its layout is the same in
 * C and CUDA. */
typedef struct mj_search_side {
    void *indices;
    unsigned char *matches;
    void *counts;
    unsigned long long *matched;
} mj_search_side;

/* The kernel's flags: indices of 8 bytes (else 4); counts = bound - the count already there
 * (the second of the two passes that a_counts takes; else counts = bound); match flags or
 * counts are asked for (else the neighbour comparison is skipped and no key matches). */
#define MJ_SEARCH_WIDE 1
#define MJ_SEARCH_SUBTRACT 2
#define MJ_SEARCH_MATCHES 4

/* A tile's result for one key: its count of the other's keys before it within the tile, and
 * the match in the top bit. */
#define MJ_SEARCH_MATCH 0x80000000u

/* For the tile's merge output j, taken from tile position pos: how many of the other array's
 * keys the tile puts before it. */
MJ_HD int mj_search_before(int j, int pos, int fl) { return j - (pos < fl ? pos : pos - fl); }

/* The tile position of the key that decides the match of the key at pos with `before` keys
 * of the other array before it: the next second for a first, the previous first for a
 * second. */
MJ_HD int mj_search_neighbour(int pos, int before, int fl) {
    return pos < fl ? fl + before : before - 1;
}

/* Whether the tile holds that neighbour: inside the tile, or a halo that exists (lead: a first
 * before the tile; trail: a second after it). */
MJ_HD int mj_search_has_neighbour(int n, int total, int lead, int trail) {
    return n < 0 ? lead : n >= total ? trail : 1;
}

#endif
