/* Indices whose width the caller gives at run time (index_size 4: unsigned 32-bit, 8: unsigned
 * 64-bit), read as mj_i64: one kernel serves both widths, the choice a uniform branch. A 64-bit
 * index above 2^63 - 1 reads as negative, which the kernels treat like any index out of range. */
#ifndef MJ_INDEX_ARRAY_CUH
#define MJ_INDEX_ARRAY_CUH

#include "common/spec_default.cuh"

struct mj_index_array {
    const void *p;
    int wide; /* 8-byte indices */
    MJ_DEVICE mj_i64 operator[](mj_i64 i) const {
        return wide ? (mj_i64)((const mj_u64 *)p)[i] : (mj_i64)((const mj_u32 *)p)[i];
    }
};

MJ_DEVICE mj_index_array mj_indices(const void *p, int index_size) {
    mj_index_array a = {p, index_size == 8};
    return a;
}

/* How many of a[0, count) are below x, for ascending a (binary search): a is an
 * mj_index_array or anything indexed like one (the segmented reduce's offsets in shared
 * memory), I the type its positions are counted in. */
template <typename A, typename I>
MJ_DEVICE I mj_index_lower_bound(const A &a, I count, I x) {
    I lo = 0, hi = count;
    while (lo < hi) {
        I mid = (lo + hi) >> 1;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Index i of an array of the given width (wide: 8 bytes, else 4) set to v, or read. */
MJ_DEVICE void mj_put_index(void *p, mj_i64 i, mj_u64 v, bool wide) {
    if (wide)
        ((mj_u64 *)p)[i] = v;
    else
        ((mj_u32 *)p)[i] = (mj_u32)v;
}

MJ_DEVICE mj_u64 mj_get_index(const void *p, mj_i64 i, bool wide) {
    return wide ? ((const mj_u64 *)p)[i] : ((const mj_u32 *)p)[i];
}

#endif
