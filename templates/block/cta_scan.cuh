/* Block-level pieces of reduce and scan over a tile of MJ_NT threads x MJ_VT elements, with
 * the spec's operator mj_op (associative, not assumed commutative: every combination keeps
 * the elements' order) and its identity mj_identity.
 * A thread holds MJ_VT consecutive elements of the tile (tid * MJ_VT + i). Global accesses go
 * through the warp's own 32 * MJ_VT slots of shared memory (coalesced, __syncwarp only); a
 * tile's missing elements are the identity, so a partial tile needs no other care. These are
 * not tile_io.cuh's warp transposes, which fill nothing past a tile's end and leave the slots
 * busy: with both added there, u32 scans measured about 20% slower on an H100 (stop 32).
 * Keys cross lanes by warp shuffles (warp_shfl.cuh). */
#ifndef MJ_CTA_SCAN_CUH
#define MJ_CTA_SCAN_CUH

#include "common/spec_default.cuh"
#include "warp/warp_shfl.cuh"

#define MJ_SCAN_NV (MJ_NT * MJ_VT)
#define MJ_SCAN_WARPS (MJ_NT / 32)

/* Inclusive scan across the warp: lane l gets x_0 op ... op x_l. */
MJ_DEVICE mj_key mj_warp_scan(mj_key x, int lane) {
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        mj_key y = mj_shfl_up_key(x, d);
        if (lane >= d) x = mj_op(y, x);
    }
    return x;
}

/* Reduction across the warp, in lane order; the result is lane 0's. After the step of d,
 * lane l holds x_l op ... op x_min(l + 2d - 1, 31). */
MJ_DEVICE mj_key mj_warp_reduce(mj_key x, int lane) {
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        mj_key y = mj_shfl_down_key(x, d);
        if (lane + d < 32) x = mj_op(x, y);
    }
    return x;
}

/* A warp's 32 * MJ_VT keys copied from `from` to `to` (both 16-byte aligned) as 16-byte words,
 * 2 * MJ_VT * sizeof(mj_key) of them (32 keys of any size are a whole number): a quarter of
 * the requests of 4-byte accesses (docs/TUNING.md), every load issued before the first store. */
MJ_DEVICE void mj_warp_copy_words(const mj_key *from, mj_key *to, int lane) {
    constexpr int words = 2 * MJ_VT * (int)sizeof(mj_key), rounds = (words + 31) / 32;
    const uint4 *f = (const uint4 *)from;
    uint4 *t = (uint4 *)to, v[rounds];
#pragma unroll
    for (int k = 0; k < rounds; ++k)
        if (lane + 32 * k < words) v[k] = f[lane + 32 * k];
#pragma unroll
    for (int k = 0; k < rounds; ++k)
        if (lane + 32 * k < words) t[lane + 32 * k] = v[k];
}

/* x[i] = in[tid * MJ_VT + i], the identity from `count` (<= MJ_SCAN_NV) on. s: the tile's
 * MJ_SCAN_NV slots of shared memory, 16-byte aligned; this thread's warp uses only its own.
 * All loads are issued before the first shared-memory store. */
MJ_DEVICE void mj_scan_load(const mj_key *in, int count, mj_key (&x)[MJ_VT], mj_key *s,
                            int tid) {
    int lane = tid & 31, first = (tid - lane) * MJ_VT;
    const mj_key *src = in + first;
    mj_key *ws = s + first;
    if (count >= MJ_SCAN_NV && ((size_t)in & 15) == 0) {
        mj_warp_copy_words(src, ws, lane); /* a whole tile from a 16-byte aligned start */
    } else {
        int have = count - first;
        mj_key id = mj_identity();
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) x[i] = lane + 32 * i < have ? src[lane + 32 * i] : id;
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) ws[lane + 32 * i] = x[i];
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) x[i] = ws[lane * MJ_VT + i];
    __syncwarp(); /* the slots are free for the next store or load */
}

/* out[tid * MJ_VT + i] = x[i] for the first `count` elements of the tile; s as above. */
MJ_DEVICE void mj_scan_store(mj_key *out, int count, const mj_key (&x)[MJ_VT], mj_key *s,
                             int tid) {
    int lane = tid & 31, first = (tid - lane) * MJ_VT;
    mj_key *dst = out + first;
    mj_key *ws = s + first;
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) ws[lane * MJ_VT + i] = x[i];
    __syncwarp();
    if (count >= MJ_SCAN_NV) {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) dst[lane + 32 * i] = ws[lane + 32 * i];
    } else {
        int have = count - first;
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i)
            if (lane + 32 * i < have) dst[lane + 32 * i] = ws[lane + 32 * i];
    }
    __syncwarp();
}

/* x[0] op ... op x[MJ_VT - 1]. */
MJ_DEVICE mj_key mj_thread_reduce(const mj_key (&x)[MJ_VT]) {
    mj_key t = x[0];
#pragma unroll
    for (int i = 1; i < MJ_VT; ++i) t = mj_op(t, x[i]);
    return t;
}

/* The block's scan of its threads' totals t: returns what the threads before this one hold
 * (the identity for thread 0); *aggregate gets the whole tile's, in warp 0 only. s_warp:
 * MJ_SCAN_WARPS slots of shared memory. Ends after a block barrier; s_warp is read after it,
 * so a caller reusing s_warp must pass another barrier first. */
MJ_DEVICE mj_key mj_cta_scan(const mj_key &t, mj_key *s_warp, int tid, mj_key *aggregate) {
    int lane = tid & 31, warp = tid >> 5;
    mj_key in_warp = mj_warp_scan(t, lane);
    if (lane == 31) s_warp[warp] = in_warp;
    mj_key before_in_warp = mj_shfl_up_key(in_warp, 1);
    __syncthreads();
    mj_key p = mj_identity();
#pragma unroll
    for (int w = 0; w < MJ_SCAN_WARPS; ++w)
        if (w < warp) p = mj_op(p, s_warp[w]);
    if (lane) p = mj_op(p, before_in_warp);
    if (warp == 0) {
        mj_key a = s_warp[0];
#pragma unroll
        for (int w = 1; w < MJ_SCAN_WARPS; ++w) a = mj_op(a, s_warp[w]);
        *aggregate = a;
    }
    return p;
}

#endif
