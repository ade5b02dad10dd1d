/* Moving a tile between global memory, shared memory and registers. Global accesses are
 * strided by MJ_NT (element tid + MJ_NT * i) so each warp touches consecutive addresses;
 * register arrays hold a thread's MJ_VT consecutive elements (tid * MJ_VT + i), the layout the
 * sort network and the serial merge work on. An odd MJ_VT keeps those shared-memory accesses
 * free of bank conflicts for 4-byte keys. */
#ifndef MJ_TILE_IO_CUH
#define MJ_TILE_IO_CUH

#include "spec_default.cuh"

#define MJ_NV (MJ_NT * MJ_VT)

/* s[0, total) = a[0, a_len) followed by b[0, total - a_len). */
MJ_DEVICE void mj_load_to_shared(const mj_key *a, int a_len, const mj_key *b, int total,
                                 mj_key *s, int tid) {
    if (total == MJ_NV && a_len == MJ_NV) {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) s[tid + MJ_NT * i] = a[tid + MJ_NT * i];
    } else {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) {
            int j = tid + MJ_NT * i;
            if (j < total) s[j] = j < a_len ? a[j] : b[j - a_len];
        }
    }
}

MJ_DEVICE void mj_store_from_shared(const mj_key *s, int total, mj_key *out, int tid) {
    if (total == MJ_NV) {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) out[tid + MJ_NT * i] = s[tid + MJ_NT * i];
    } else {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) {
            int j = tid + MJ_NT * i;
            if (j < total) out[j] = s[j];
        }
    }
}

template <typename T>
MJ_DEVICE void mj_regs_to_shared(const T regs[MJ_VT], T *s, int tid) {
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) s[MJ_VT * tid + i] = regs[i];
}

template <typename T>
MJ_DEVICE void mj_shared_to_regs(const T *s, T regs[MJ_VT], int tid) {
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) regs[i] = s[MJ_VT * tid + i];
}

/* dst[j] = the value of output j's source, for j < total. s_pos[j] is that source's position
 * in the tile's input, which is a[0, a_len) then b: global a_begin + p or b_begin + p - a_len.
 * With src NULL the value is the source's global index itself (index sorts).
 * Every load is done before the barrier and every store after it, so dst may be src. */
MJ_DEVICE void mj_gather_values(const int *s_pos, int total, const mj_value *src,
                                mj_i64 a_begin, int a_len, mj_i64 b_begin, mj_value *dst,
                                int tid) {
    mj_value v[MJ_VT];
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) {
        int j = tid + MJ_NT * i;
        if (j < total) {
            int p = s_pos[j];
            mj_i64 g = p < a_len ? a_begin + p : b_begin + (p - a_len);
#if MJ_VALUE_IS_INDEX
            v[i] = src ? src[g] : (mj_value)g;
#else
            v[i] = src[g];
#endif
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) {
        int j = tid + MJ_NT * i;
        if (j < total) dst[j] = v[i];
    }
}

#endif
