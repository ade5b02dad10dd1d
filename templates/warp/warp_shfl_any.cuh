/* Values of any trivially copyable type across the lanes of a warp: shuffles of 4-byte words,
 * the type padded to whole words (warp_shfl.cuh does the same for the spec's key type alone).
 * Every lane of the warp takes part (full mask). */
#ifndef MJ_WARP_SHFL_ANY_CUH
#define MJ_WARP_SHFL_ANY_CUH

#include "common/spec_default.cuh"

template <typename T> struct mj_words_of {
    mj_u32 w[(sizeof(T) + 3) / 4];
};

template <typename T> MJ_DEVICE mj_words_of<T> mj_words(const T &x) {
    mj_words_of<T> u;
    u.w[(sizeof(T) + 3) / 4 - 1] = 0; /* padding of a type that is not whole words */
    memcpy(&u, &x, sizeof(T));
    return u;
}

template <typename T> MJ_DEVICE T mj_unwords(const mj_words_of<T> &u) {
    T x;
    memcpy(&x, &u, sizeof(T));
    return x;
}

template <typename T> MJ_DEVICE T mj_shfl_up_any(const T &x, int delta) {
    mj_words_of<T> u = mj_words(x);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) + 3) / 4; ++i)
        u.w[i] = __shfl_up_sync(0xFFFFFFFFu, u.w[i], delta);
    return mj_unwords<T>(u);
}

template <typename T> MJ_DEVICE T mj_shfl_down_any(const T &x, int delta) {
    mj_words_of<T> u = mj_words(x);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) + 3) / 4; ++i)
        u.w[i] = __shfl_down_sync(0xFFFFFFFFu, u.w[i], delta);
    return mj_unwords<T>(u);
}

template <typename T> MJ_DEVICE T mj_shfl_xor_any(const T &x, int mask) {
    mj_words_of<T> u = mj_words(x);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) + 3) / 4; ++i)
        u.w[i] = __shfl_xor_sync(0xFFFFFFFFu, u.w[i], mask);
    return mj_unwords<T>(u);
}

template <typename T> MJ_DEVICE T mj_shfl_any(const T &x, int lane) {
    mj_words_of<T> u = mj_words(x);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) + 3) / 4; ++i)
        u.w[i] = __shfl_sync(0xFFFFFFFFu, u.w[i], lane);
    return mj_unwords<T>(u);
}

#endif
