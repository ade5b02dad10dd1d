/* Moving the elements a tile keeps to where they go (bulk remove): the tile has
 * numbered its kept elements in shared memory, s_dest[i] the slot of element i in the tile's
 * output (-1 for an element dropped), and knows where its output starts. */
#ifndef MJ_CTA_MOVE_KEPT_CUH
#define MJ_CTA_MOVE_KEPT_CUH

#include "common/spec_default.cuh"

/* out[out_base + s_dest[i]] = in[i] for the tile's kept elements i < len, in the
 * block-strided order (element tid + MJ_NT * k, so a warp's stores fall on consecutive slots
 * and coalesce like a copy's): every load is issued before the first store. Only slots in
 * [0, out_count) are written, whatever s_dest says. `in` may be global or shared memory. */
template <typename T>
MJ_DEVICE void mj_move_kept(const T *in, T *out, mj_i64 out_base, mj_i64 out_count,
                            const int *s_dest, int len, int tid) {
    T x[MJ_VT];
    int dest[MJ_VT];
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        int i = tid + MJ_NT * k;
        dest[k] = i < len ? s_dest[i] : -1;
        if (dest[k] >= 0) x[k] = in[i];
    }
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        mj_i64 o = out_base + dest[k];
        if (dest[k] >= 0 && o >= 0 && o < out_count) out[o] = x[k];
    }
}

#endif
