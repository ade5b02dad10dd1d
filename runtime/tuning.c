/* Built-in tile shapes. Odd VT keeps a thread's run of 4-byte keys off the shared-memory bank
 * of its neighbours; larger keys and values take fewer per thread so that registers (keys,
 * positions and values) fit without spilling and the tile fits in static shared memory. */
#include "context.h"

void mj_default_tile(mj_primitive primitive, int sm, size_t key_size, size_t value_size,
                     int *nt, int *vt, int *bs_nt) {
    (void)sm; /* one table for now, measured on the H100 (sm_90); the autotuner will key it */
    size_t bytes = key_size + value_size;
    *nt = 256;
    /* Measured with bench_sort on an H100 at 2^24 and 2^27 (MERGEJIT_TILE sweep): 4-byte keys
     * alone are bound by instructions, not bytes, and gain from long runs per thread; pairs and
     * 8-byte keys peak near 9 to 11. */
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
    /* Keep the tile within static shared memory. */
#define SMEM(threads, v) mj_tile_smem(primitive, (threads), (v), key_size, value_size)
    while (*vt > 1 && SMEM(*nt, *vt) > MJ_STATIC_SMEM_LIMIT) *vt -= 2;
    while (*nt > 32 && SMEM(*nt, *vt) > MJ_STATIC_SMEM_LIMIT) *nt /= 2;
    /* The blocksort takes twice the merge tile where it fits: one more round in shared memory
     * instead of one more global pass. A segmented sort's head ranges take a little more
     * shared memory; it gives up two values per thread for the bigger blocksort. */
    *bs_nt = *nt;
    if (primitive == MJ_MERGE) return; /* no blocksort */
    if (primitive == MJ_SEGMENTED_SORT && *vt > 2 && SMEM(2 * *nt, *vt) > MJ_STATIC_SMEM_LIMIT &&
        SMEM(2 * *nt, *vt - 2) <= MJ_STATIC_SMEM_LIMIT)
        *vt -= 2;
    if (SMEM(2 * *nt, *vt) <= MJ_STATIC_SMEM_LIMIT) *bs_nt *= 2;
#undef SMEM
}
