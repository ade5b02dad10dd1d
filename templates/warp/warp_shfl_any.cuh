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

/* x through `shfl`, one of the __shfl_*_sync intrinsics bound to its lane argument, a word at
 * a time. */
template <typename T, typename F> MJ_DEVICE T mj_shfl_words(const T &x, F shfl) {
    mj_words_of<T> u = mj_words(x);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) + 3) / 4; ++i) u.w[i] = shfl(u.w[i]);
    return mj_unwords<T>(u);
}

template <typename T> MJ_DEVICE T mj_shfl_up_any(const T &x, int delta) {
    return mj_shfl_words(x, [=](mj_u32 w) { return __shfl_up_sync(0xFFFFFFFFu, w, delta); });
}

template <typename T> MJ_DEVICE T mj_shfl_down_any(const T &x, int delta) {
    return mj_shfl_words(x, [=](mj_u32 w) { return __shfl_down_sync(0xFFFFFFFFu, w, delta); });
}

template <typename T> MJ_DEVICE T mj_shfl_xor_any(const T &x, int mask) {
    return mj_shfl_words(x, [=](mj_u32 w) { return __shfl_xor_sync(0xFFFFFFFFu, w, mask); });
}

template <typename T> MJ_DEVICE T mj_shfl_any(const T &x, int lane) {
    return mj_shfl_words(x, [=](mj_u32 w) { return __shfl_sync(0xFFFFFFFFu, w, lane); });
}

#endif
