/* Pass 0 of mergesort: every block sorts one tile of MJ_BS_NV keys (and their values) on its
 * own. Its tile may be a power-of-two multiple of the merge kernel's: a bigger sorted run
 * costs the blocksort one more round through shared memory but saves a whole global merge
 * pass (a partition and a merge over all the data).
 * Keys may be sorted in place (keys_out == keys_in): the tile is read into shared memory
 * before anything is written. values_in NULL means "the values are the keys' indices" (index
 * sorts), which needs an integer value type.
 * A mergesort of floats in a built-in order (MJ_KEY_MAP) maps each key to its ordinal as it
 * loads it, and back to its bits as it stores it when map_out is set (the blocksort is the
 * sort's only pass); other sorts ignore map_out.
 * Segmented sorts (MJ_SEGMENTED) also take the head flags, one bit per element (bit i % 32 of
 * word i / 32, head_words words), sort each segment within the tile on its own, and write the
 * tile's range of heads (global positions) for the first queued merge pass, and mark its merge
 * tiles final in `where` when its segments all end inside it (work_queue.h).
 * It is launched plainly (it must follow whatever the caller queued before), but lets a kernel
 * after it that is launched overlapped (mergesort's first pass under MERGEJIT_PDL) be
 * scheduled at once: that one waits for this one's end itself.
 * MJ_BLOCKSORT_MIN_BLOCKS: the generator's register cap for 4-byte keys (gen.c
 * blocksort_min_blocks). */
#ifndef MJ_KERNEL_BLOCKSORT_CUH
#define MJ_KERNEL_BLOCKSORT_CUH

#include "common/spec_default.cuh"
#include "block/tile_io.cuh"
#include "block/cta_blocksort.cuh"
#if MJ_SEGMENTED
#include "shared/work_queue.h"

/* The MJ_VT head flags of elements [pos, pos + MJ_VT) (MJ_VT <= 32). */
MJ_DEVICE unsigned mj_thread_heads(const mj_u32 *heads, mj_i64 head_words, mj_i64 pos) {
    mj_i64 w = pos >> 5;
    mj_u64 lo = w < head_words ? heads[w] : 0;
    mj_u64 hi = w + 1 < head_words ? heads[w + 1] : 0;
    mj_u64 window = (hi << 32 | lo) >> (pos & 31);
    return (unsigned)(window & ((1ull << MJ_VT) - 1));
}
#endif

/* Without a cap the bound names no minimum: a minimum of 1 changes ptxas's choices (u32 pairs:
 * 58 registers without, 64 with). */
#if MJ_BLOCKSORT_MIN_BLOCKS > 1
#define MJ_BLOCKSORT_BOUNDS MJ_BS_NT, MJ_BLOCKSORT_MIN_BLOCKS
#else
#define MJ_BLOCKSORT_BOUNDS MJ_BS_NT
#endif

extern "C" __global__ void __launch_bounds__(MJ_BLOCKSORT_BOUNDS)
mj_blocksort(const mj_key *keys_in, const mj_value *values_in, mj_key *keys_out,
             mj_value *values_out, mj_i64 n, int map_out
#if MJ_SEGMENTED
             , const mj_u32 *heads, mj_i64 head_words, mj_heads_range *tile_heads, mj_u8 *where
#endif
) {
    __shared__ mj_key s_keys[MJ_BS_NV];
#if MJ_HAS_VALUES
    __shared__ int s_pos[MJ_BS_NV];
#else
    int *s_pos = 0; /* positions are kept only for values */
#endif
    mj_allow_next_kernel();
    int tid = threadIdx.x;
    mj_i64 tile0 = (mj_i64)blockIdx.x * MJ_BS_NV;
    int count = (int)mj_min((mj_i64)MJ_BS_NV, n - tile0);
#if MJ_SEGMENTED
    __shared__ unsigned s_heads[MJ_BS_NT];
    unsigned my_heads = mj_thread_heads(heads, head_words, tile0 + MJ_VT * tid);
#else
    unsigned *s_heads = 0;
    unsigned my_heads = 0;
#endif

    /* Warps load and store only their own slots, so in-place sorts are safe without a block
     * barrier; the sort's rounds only read other warps' slots after their own barriers. */
    mj_key keys[MJ_VT];
    int pos[MJ_VT];
    mj_load_by_warps<MJ_BS_NT>(keys_in + tile0, count, s_keys, keys, true, tid);
    unsigned range = mj_cta_sort<MJ_BS_NT>(keys, pos, count, my_heads, s_keys, s_pos, s_heads,
                                           tid);
#if MJ_SEGMENTED
    if (tid == 0) {
        int first = mj_heads_first(range), last = mj_heads_last(range);
        mj_heads_range r = {first < count ? tile0 + first : MJ_NO_FIRST,
                            last >= 0 ? tile0 + last : -1};
        tile_heads[blockIdx.x] = r;
    }
    /* Bit 0 of a thread's flags is the head flag at its position. */
    int final = mj_leaf_final(tile0, count, n, mj_thread_heads(heads, head_words, tile0) & 1,
                              mj_thread_heads(heads, head_words, tile0 + count) & 1);
    /* The merge tiles this leaf covers (the last leaf may cover fewer); the host cleared them. */
    for (int t = tid; final && t < MJ_BS_NV / MJ_NV && t * MJ_NV < count; t += MJ_BS_NT)
        where[blockIdx.x * (MJ_BS_NV / MJ_NV) + t] = MJ_TILE_FINAL;
#else
    (void)range;
#endif

    /* mj_cta_sort ends with a barrier, so the warps may reuse their slots at once. */
    mj_store_by_warps<MJ_BS_NT>(keys, s_keys, count, keys_out + tile0, map_out != 0, tid);
#if MJ_HAS_VALUES
    mj_regs_to_shared(pos, s_pos, tid);
    __syncwarp();
    mj_merge_src src = mj_two_runs(keys_in, values_in, tile0, count, keys_in, values_in, 0,
                                   count);
    mj_gather_values(s_pos, count, src, values_out + tile0, tid);
#else
    (void)values_in;
    (void)values_out;
#endif
}

#endif
