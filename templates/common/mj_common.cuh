/* Basic types and helpers shared by every template. NVRTC has no <stdint.h> without a toolkit
 * include path, so fixed-width names are spelled out here. */
#ifndef MJ_COMMON_CUH
#define MJ_COMMON_CUH

typedef long long mj_i64;
typedef unsigned long long mj_u64;
typedef unsigned int mj_u32;
typedef unsigned short mj_u16;
typedef unsigned char mj_u8;

#define MJ_DEVICE __device__ __forceinline__

template <typename T> MJ_DEVICE T mj_min(T a, T b) { return b < a ? b : a; }
template <typename T> MJ_DEVICE T mj_max(T a, T b) { return a < b ? b : a; }
template <typename T> MJ_DEVICE void mj_swap(T &a, T &b) { T t = a; a = b; b = t; }

/* Programmatic dependent launch (sm_90 and newer; no-ops before). A kernel the host launches
 * with the overlap attribute (mj_launch_overlapped) may start once every block of the kernel
 * before it has called mj_allow_next_kernel; mj_await_prior_kernels waits until the kernels
 * before have ended and their writes are visible. */
MJ_DEVICE void mj_allow_next_kernel() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
MJ_DEVICE void mj_await_prior_kernels() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

#endif
