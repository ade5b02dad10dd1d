/* Built-in tile shapes. Odd VT keeps a thread's run of 4-byte keys off the shared-memory bank
 * of its neighbours; larger keys and values take fewer per thread so that registers (keys,
 * positions and values) fit without spilling and the tile fits in static shared memory. */
#include "context.h"

void mj_default_tile(int sm, size_t key_size, size_t value_size, int *nt, int *vt) {
    (void)sm; /* one table for now, measured on the H100 (sm_90); the autotuner will key it */
    size_t bytes = key_size + value_size;
    *nt = 256;
    /* Measured with bench_sort on an H100 at 2^24 and 2^27 (MERGEJIT_TILE sweep): 4-byte keys
     * alone are bound by instructions, not bytes, and gain from long runs per thread; pairs and
     * 8-byte keys peak near 9 to 11. */
    if (bytes <= 4)
        *vt = 23;
    else if (bytes <= 8)
        /* 4-byte keys with values (u32/i32/f32 pairs, 4-byte index sorts) take 9, not 11:
         * for u32/i32 keys with 4-byte values at VT 11, ptxas (NVRTC 13, sm_90) keeps
         * mj_blocksort at 48 registers and spills 16 bytes; VT 9 is spill-free
         * (tests/test_compile.c checks the default tiles). */
        *vt = value_size && key_size != 4 ? 11 : 9;
    else if (bytes <= 16)
        *vt = 7;
    else if (bytes <= 32)
        *vt = 5;
    else
        *vt = 3;
    /* Keep s_keys + s_pos under 48 KB of static shared memory. */
    while (*vt > 1 && (size_t)*nt * (size_t)*vt * (key_size + 4) > 46 * 1024) *vt -= 2;
    while (*nt > 32 && (size_t)*nt * (size_t)*vt * (key_size + 4) > 46 * 1024) *nt /= 2;
}
