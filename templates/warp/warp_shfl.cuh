/* Keys of any type across the lanes of a warp: shuffles of 4-byte words, a key padded to whole
 * words. Every lane of the warp takes part (full mask). */
#ifndef MJ_WARP_SHFL_CUH
#define MJ_WARP_SHFL_CUH

#include "common/spec_default.cuh"

#define MJ_KEY_WORDS ((int)((sizeof(mj_key) + 3) / 4))

struct mj_key_words {
    mj_u32 w[MJ_KEY_WORDS];
};

MJ_DEVICE mj_key_words mj_to_words(const mj_key &x) {
    mj_key_words u;
    u.w[MJ_KEY_WORDS - 1] = 0; /* padding of a key that is not whole words */
    memcpy(&u, &x, sizeof(mj_key));
    return u;
}

MJ_DEVICE mj_key mj_from_words(const mj_key_words &u) {
    mj_key x;
    memcpy(&x, &u, sizeof(mj_key));
    return x;
}

MJ_DEVICE mj_key mj_shfl_up_key(const mj_key &x, int delta) {
    mj_key_words u = mj_to_words(x);
#pragma unroll
    for (int i = 0; i < MJ_KEY_WORDS; ++i) u.w[i] = __shfl_up_sync(0xFFFFFFFFu, u.w[i], delta);
    return mj_from_words(u);
}

MJ_DEVICE mj_key mj_shfl_down_key(const mj_key &x, int delta) {
    mj_key_words u = mj_to_words(x);
#pragma unroll
    for (int i = 0; i < MJ_KEY_WORDS; ++i)
        u.w[i] = __shfl_down_sync(0xFFFFFFFFu, u.w[i], delta);
    return mj_from_words(u);
}

MJ_DEVICE mj_key mj_shfl_key(const mj_key &x, int lane) {
    mj_key_words u = mj_to_words(x);
#pragma unroll
    for (int i = 0; i < MJ_KEY_WORDS; ++i) u.w[i] = __shfl_sync(0xFFFFFFFFu, u.w[i], lane);
    return mj_from_words(u);
}

#endif
