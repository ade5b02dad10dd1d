/* Segment descriptions to the one form the segmented sort reads: one head flag bit per
 * element, bit i % 32 of word i / 32. */
#ifndef MJ_KERNEL_HEADS_CUH
#define MJ_KERNEL_HEADS_CUH

#include "common/mj_common.cuh"

/* One byte per element, non-zero at heads. One thread per element over whole words (launch
 * head_words * 32 threads in blocks of a multiple of 32): a warp's ballot is one word. */
extern "C" __global__ void mj_heads_from_flags(const mj_u8 *flags, mj_i64 n, mj_u32 *heads,
                                               mj_i64 head_words) {
    mj_i64 i = (mj_i64)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned word = __ballot_sync(0xffffffffu, i < n && flags[i] != 0);
    if ((threadIdx.x & 31) == 0 && (i >> 5) < head_words) heads[i >> 5] = word;
}

/* Head positions (segment starts, or CSR offsets), in any order, 4-byte unsigned or 8-byte
 * signed; positions outside [0, n) are ignored, repeats are empty segments. heads must be
 * zeroed first. One thread per position. */
extern "C" __global__ void mj_heads_from_indices(const void *indices, int index_size,
                                                 mj_i64 count, mj_i64 n, mj_u32 *heads) {
    mj_i64 i = (mj_i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    mj_i64 h = index_size == 4 ? (mj_i64)((const mj_u32 *)indices)[i]
                               : ((const mj_i64 *)indices)[i];
    if (h >= 0 && h < n) atomicOr(&heads[h >> 5], 1u << (h & 31));
}

#endif
