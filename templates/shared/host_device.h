/* What the shared headers (templates/shared/) write their functions and loops with, defined
 * once for all of them: in a kernel, MJ_HD makes a function host and device and inlined, and
 * MJ_UNROLL unrolls a loop (so that small arrays stay in registers); in C (the host code and
 * the CPU tests include the same headers) they are static inline and nothing. */
#ifndef MJ_HOST_DEVICE_H
#define MJ_HOST_DEVICE_H

#if defined(__CUDACC__)
#define MJ_HD __host__ __device__ __forceinline__
#else
#define MJ_HD static inline
#endif

#ifndef MJ_UNROLL
#if defined(__CUDACC__)
#define MJ_UNROLL _Pragma("unroll")
#else
#define MJ_UNROLL
#endif
#endif

#endif
