/* SPDX-License-Identifier: Apache-2.0 */
/* The rules of a tile: see tile_rules.h. */
#include "tile_rules.h"

/* ---- Shared memory of a tile. */

/* The merge tile's VT keys past its end (copies of its last key: cta_merge.cuh), counted for
 * the blocksort's tile too; + 16: room for the padding that aligns the second array. */
size_t mj__smem_sort(int nt, int vt, size_t key_size, size_t value_size) {
    size_t nv = (size_t)nt * (size_t)vt;
    return (nv + (size_t)vt) * key_size + 4 * (value_size ? nv : 1) + 16;
}
/* A segmented sort's: the sort's and a head range per thread. */
size_t mj__smem_segsort(int nt, int vt, size_t key_size, size_t value_size) {
    return mj__smem_sort(nt, vt, key_size, value_size) + 4 * (size_t)nt;
}
/* The tile, two sets of warp totals (reduce) or one and the tile's prefix (scan). */
size_t mj__smem_op(int nt, int vt, size_t key_size, size_t value_size) {
    (void)value_size;
    return ((size_t)nt * (size_t)vt + 2 * (size_t)(nt / 32) + 1) * key_size + 16;
}
size_t mj__smem_lbs(int nt, int vt, size_t key_size, size_t value_size) {
    (void)value_size;
    size_t nv = (size_t)nt * (size_t)vt;
    return (nv + 1) * key_size + 4 * nv + 16;
}
/* Move: the lbs tile's offsets and owners, and each offset's gather and scatter entries. */
size_t mj__smem_move(int nt, int vt, size_t key_size, size_t value_size) {
    (void)value_size;
    size_t nv = (size_t)nt * (size_t)vt;
    return (nv + 1) * 3 * key_size + 4 * nv + 16;
}
/* Segmented reduce: the tile's offsets as 4-byte positions within the tile (one more than a
 * tile) and elements, a carry per warp and the prefix, and 1 KB that ptxas adds to them (sm_90:
 * 924-944 bytes more than these arrays at 128 x 23, 256 x 15 and 128 x 31 for u32). */
size_t mj__smem_segreduce(int nt, int vt, size_t key_size, size_t value_size) {
    (void)value_size;
    size_t nv = (size_t)nt * (size_t)vt;
    return (nv + 1) * 4 + nv * key_size + (size_t)(nt / 32) * (key_size + 8) + key_size + 1024;
}
/* The tile's keys with the one before and the one after, and an int result per key. */
size_t mj__smem_search(int nt, int vt, size_t key_size, size_t value_size) {
    (void)value_size;
    size_t nv = (size_t)nt * (size_t)vt;
    return (nv + 2) * key_size + 4 * nv + 16;
}
/* Join: the search's tile, or the larger of its lbs tile (8-byte offsets, one more than a
 * tile, and an owner per row) and its scans' (a count a slot). */
size_t mj__smem_join(int nt, int vt, size_t key_size, size_t value_size) {
    size_t nv = (size_t)nt * (size_t)vt;
    size_t search = mj__smem_search(nt, vt, key_size, value_size);
    size_t lbs = 8 * (nv + 1) + 4 * nv + 16;
    return search > lbs ? search : lbs;
}
/* Set operations: the tile's keys with three more and VT of slack, an output position per key
 * with values or keys over 4 bytes, a path start per thread and the tile's end, the warp
 * totals, the tile's range and a few words, and room for the arrays' alignment. Values go
 * from global memory to global memory. */
size_t mj__smem_setops(int nt, int vt, size_t key_size, size_t value_size) {
    size_t nv = (size_t)nt * (size_t)vt;
    return (nv + 3 + (size_t)vt) * key_size + (value_size || key_size > 4 ? 4 * nv : 4) +
           4 * (size_t)(nt + 1) + 4 * (size_t)(nt / 32) + 128;
}
/* Reduce by key: the key before the tile and the tile's keys, its values (reused for the runs
 * it closes) and a head position each, and a run summary (a count and a value) per warp and
 * for the tile's prefix, with room for their alignment. */
size_t mj__smem_reduce_by_key(int nt, int vt, size_t key_size, size_t value_size) {
    size_t nv = (size_t)nt * (size_t)vt;
    return (nv + 1) * key_size + nv * (value_size + 4) +
           (size_t)(nt / 32 + 1) * (value_size + 16) + 64;
}
/* Remove: a slot per source element and the warp totals; insert: positions within the tile
 * (4 bytes, one more than a tile) and a source per output. Elements go straight to global
 * memory. */
size_t mj__smem_remove(int nt, int vt, size_t key_size, size_t value_size) {
    (void)key_size;
    (void)value_size;
    return 4 * (size_t)nt * (size_t)vt + 4 * (size_t)(nt / 32) + 16;
}
size_t mj__smem_insert(int nt, int vt, size_t key_size, size_t value_size) {
    (void)key_size;
    (void)value_size;
    size_t nv = (size_t)nt * (size_t)vt;
    return 4 * (nv + 1) + 4 * nv + 16;
}

/* Select: a ballot, a kept count (then a first slot) and unique's last key for each group of
 * 32 elements (a warp's round), and the tile number and output base. Keys and values stay in
 * registers. */
size_t mj__smem_select(int nt, int vt, size_t key_size, size_t value_size) {
    (void)value_size;
    return (8 + key_size) * (size_t)vt * (size_t)(nt / 32) + key_size + 16;
}

/* ---- Default tiles. */

/* Keeps shrinking VT by two, then halving the threads, while the tile is over the static
 * shared memory. */
static void fit_tile(mj_smem_rule *smem, size_t key_size, size_t value_size, int *nt, int *vt) {
    while (*vt > 1 && smem(*nt, *vt, key_size, value_size) > MJ_STATIC_SMEM_LIMIT) *vt -= 2;
    while (*nt > 32 && smem(*nt, *vt, key_size, value_size) > MJ_STATIC_SMEM_LIMIT) *nt /= 2;
}

/* Reduce and scan read each element once and are bound by memory: 256 threads, and per
 * thread about 60 bytes of 4-byte keys (15, odd: the warp's transposition through shared
 * memory is then free of bank conflicts), fewer of larger keys, whose registers (VT keys and
 * the shuffled words) must not spill (ptxas, sm_75 to sm_90: test_compile). Not yet tuned
 * on a GPU. */
void mj__tile_op(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                 int *vt, int *bs_nt) {
    (void)sm;
    (void)value_size;
    *nt = 256;
    if (key_size <= 2)
        *vt = 23;
    else if (key_size <= 4)
        *vt = 15;
    else if (key_size <= 8)
        *vt = 9;
    else if (key_size <= 16)
        *vt = 5;
    else if (key_size <= 32)
        *vt = 3;
    else
        *vt = 1;
    while (*nt > 32 && smem(*nt, *vt, key_size, 0) > MJ_STATIC_SMEM_LIMIT) *nt /= 2;
    *bs_nt = *nt;
}

/* Load-balancing search, expand and move: the seed's 128 x 11 (a thread's serial walk of 11
 * steps over items and offsets; registers hold no keys across it); the sm_90 rows have the
 * tuner's winners where they beat it (docs/TUNING.md). Move's tile of i64 offsets takes 39 KB
 * of shared memory, 5 blocks an SM on an H100. */
void mj__tile_lbs(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                  int *vt, int *bs_nt) {
    (void)smem;
    (void)sm;
    (void)key_size;
    (void)value_size;
    *nt = *bs_nt = 128;
    *vt = 11;
}

/* The number of steps a thread walks for elements of `widest` bytes: the seed's 11 up to 8,
 * fewer for larger ones. */
static int steps_for(size_t widest) {
    return widest <= 8 ? 11 : widest <= 16 ? 7 : widest <= 32 ? 5 : 3;
}

/* Sorted search, and the join whose first kernels are the search's: the lbs tile, 128 x 11,
 * for keys up to 8 bytes (a thread holds VT keys and positions through its walk), fewer steps
 * for larger keys; within static shared memory (the tile's keys and an int result each). Not
 * yet tuned. */
void mj__tile_search(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                     int *vt, int *bs_nt) {
    (void)sm;
    (void)value_size;
    *nt = 128;
    *vt = steps_for(key_size);
    fit_tile(smem, key_size, 0, nt, vt);
    *bs_nt = *nt;
}

/* Set operations: the seed's 128 x 11 for keys and values up to 8 bytes (a thread walks 11
 * slots, holding the key of each and, with values, its position, then has its 11 values in
 * flight), fewer steps for larger ones; within static shared memory (the tile's keys, and an
 * int each with values). The sm_90 rows have 4-byte keys measured, alone and with 4-byte
 * values (docs/TUNING.md). */
void mj__tile_setops(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                     int *vt, int *bs_nt) {
    (void)sm;
    *nt = 128;
    *vt = steps_for(key_size > value_size ? key_size : value_size);
    fit_tile(smem, key_size, value_size, nt, vt);
    *bs_nt = *nt;
}

/* Bulk remove and insert copy each element once, through registers (a thread's MJ_VT elements
 * in flight at once): fewer per thread as they grow, so that the registers of the larger of
 * key and value fit. Not yet tuned. */
static void bulk_tile(int threads, size_t key_size, size_t value_size, int *nt, int *vt,
                      int *bs_nt) {
    *nt = *bs_nt = threads;
    *vt = steps_for(key_size > value_size ? key_size : value_size);
}

void mj__tile_remove(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                     int *vt, int *bs_nt) {
    (void)smem;
    (void)sm;
    bulk_tile(256, key_size, value_size, nt, vt, bs_nt);
}

void mj__tile_insert(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                     int *vt, int *bs_nt) {
    (void)smem;
    (void)sm;
    bulk_tile(128, key_size, value_size, nt, vt, bs_nt);
}

/* Select reads each element once and writes the kept ones once, bound by memory; its keys
 * stay in registers, and what sets its speed is how many loads are in flight while blocks
 * wait on the count look-back. Measured on an H200 (bench_primitives --only select,
 * MERGEJIT_TILE sweeps and mergejit tune, 2^24 and 2^27, docs/TUNING.md): 4-byte keys alone
 * 128 x 37 (select and unique 10-30% ahead of 512 x 11); 8-byte keys alone 256 x 23 (select
 * 12-33% and unique 0-27% ahead of 256 x 11, once unique's lane 0 took the key before its
 * group from shared memory; before that unique lost up to 16% there); 4-byte keys with values
 * 512 x 11; fewer of larger keys, so that their registers stay below a spill. */
void mj__tile_select(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                     int *vt, int *bs_nt) {
    (void)sm;
    *nt = key_size <= 4 ? 512 : 256;
    *vt = key_size <= 8 ? 11 : key_size <= 16 ? 7 : key_size <= 32 ? 5 : 3;
    if (value_size == 0 && key_size <= 4) {
        *nt = 128;
        *vt = 37;
    } else if (value_size == 0 && key_size <= 8) {
        *vt = 23;
    }
    fit_tile(smem, key_size, value_size, nt, vt);
    *bs_nt = *nt;
}

/* The sorts and the merge. Odd VT keeps a thread's run of 4-byte keys off the shared-memory
 * bank of its neighbours; larger keys and values take fewer per thread so that registers
 * (keys, positions and values) fit without spilling and the tile fits in static shared
 * memory. `queued`: a segmented or locality sort; `blocksort`: the primitive has one;
 * `segmented`: a segmented sort. */
static void sort_tile(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size,
                      int queued, int blocksort, int segmented, int *nt, int *vt, int *bs_nt) {
    size_t bytes = key_size + value_size;
    *nt = 256;
    /* Measured with bench_sort on an H100 (sm_90) at 2^24 and 2^27 (MERGEJIT_TILE sweep):
     * 4-byte keys alone are bound by instructions, not bytes, and gain from long runs per
     * thread; pairs and 8-byte keys peak near 9 to 11. */
    if (bytes <= 4)
        *vt = 23;
    else if (bytes <= 8)
        *vt = value_size ? 11 : 9;
    else if (bytes <= 16)
        *vt = 7;
    else if (bytes <= 32)
        *vt = 5;
    else
        *vt = 3;
    /* Segmented and locality sorts of 4-byte values with f32 or 8-byte keys spilled at these VT
     * under the register cap of the old persistent queue kernel (ptxas, sm_75 to sm_90): two
     * fewer. The one-merge-a-block kernel has no such cap; the rule stays until a tuning run
     * shows what these tiles should be without it. */
    if (queued && value_size == 4 && key_size <= 8) *vt -= 2;
    fit_tile(smem, key_size, value_size, nt, vt);
    /* The blocksort takes twice the merge tile where it fits: one more round in shared memory
     * instead of one more global pass. A segmented sort's head ranges take a little more
     * shared memory; it gives up two values per thread for the bigger blocksort. Before sm_80
     * a multiprocessor has 64 KB of shared memory: a guess, not measured, is that the doubled
     * blocksort pays only while two of its blocks fit there. */
    size_t bs_limit = sm < 80 ? 32 * 1024 : MJ_STATIC_SMEM_LIMIT;
#define SMEM(threads, v) smem((threads), (v), key_size, value_size)
    *bs_nt = *nt;
    if (!blocksort) return;
    if (segmented && *vt > 2 && SMEM(2 * *nt, *vt) > bs_limit &&
        SMEM(2 * *nt, *vt - 2) <= bs_limit)
        *vt -= 2;
    if (SMEM(2 * *nt, *vt) <= bs_limit) *bs_nt *= 2;
#undef SMEM
}

void mj__tile_mergesort(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                        int *vt, int *bs_nt) {
    sort_tile(smem, sm, key_size, value_size, 0, 1, 0, nt, vt, bs_nt);
}

void mj__tile_merge(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                    int *vt, int *bs_nt) {
    sort_tile(smem, sm, key_size, value_size, 0, 0, 0, nt, vt, bs_nt);
}

void mj__tile_segsort(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                      int *vt, int *bs_nt) {
    sort_tile(smem, sm, key_size, value_size, 1, 1, 1, nt, vt, bs_nt);
}

void mj__tile_locality(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                       int *vt, int *bs_nt) {
    sort_tile(smem, sm, key_size, value_size, 1, 1, 0, nt, vt, bs_nt);
}
