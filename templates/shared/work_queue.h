/* The arithmetic of queued merge passes (segmented and locality sort), in the common subset of
 * C and CUDA C++ like merge_frame.h, so that the kernels and the CPU model in the tests run the
 * same code.
 *
 * A queued pass is a mergesort pass (same frames, same partitions) in which a tile does only
 * the work its data needs: a MERGE when its outputs come from both lists, or from one list at
 * another place, and nothing (NONE) when its outputs are its inputs at the same place.
 *
 * No tile is ever copied. The passes work on two buffers, the result buffer (0) and scratch
 * (1), and a per-tile byte says which of them holds the tile's data (MJ_IN_SCRATCH). A merge
 * reads each input from the buffer that holds it and writes its tile to the other one; the
 * buffer it leaves was its own tile's, which no other merge of the pass reads, so passes need
 * no copies to keep the buffers in step. The bytes are double-buffered: a pass reads the
 * locations it starts from and writes those it leaves. The blocksort sorts in place, so every
 * tile starts in buffer 0; after the last pass the tiles left in scratch are copied back.
 *
 * A tile may also be final (MJ_TILE_FINAL): a segmented blocksort tile whose segments all end
 * inside it. No pass touches it again (a segmented sort permutes each segment within its own
 * span, and every merge the passes make reads and writes only segments that cross a list
 * interface).
 *
 * Segmented sort: every list carries the range of segment heads it contains (first and last,
 * global positions). Merging lists A and B only moves the segment that spans their interface:
 * A before its last head and B from its first head stay where they are. */
#ifndef MJ_WORK_QUEUE_H
#define MJ_WORK_QUEUE_H

#include "shared/merge_frame.h"

enum { MJ_JOB_NONE = 0, MJ_JOB_MERGE = 1 };
/* Bits of a tile's location byte. */
enum { MJ_IN_SCRATCH = 1, MJ_TILE_FINAL = 2 };

/* Heads within a list: first and last position, or MJ_NO_FIRST / -1 when it has none. */
typedef struct mj_heads_range {
    long long first, last;
} mj_heads_range;

#define MJ_NO_FIRST 0x7fffffffffffffffll

MJ_HD mj_heads_range mj_heads_combine(mj_heads_range x, mj_heads_range y) {
    mj_heads_range r;
    r.first = x.first < y.first ? x.first : y.first;
    r.last = x.last > y.last ? x.last : y.last;
    return r;
}

/* Where the locked parts start, as offsets into each list: A[0, a_lock) and B[b_lock, ...)
 * keep their places; A[a_lock, ...) and B[0, b_lock) are merged by key. */
typedef struct mj_frame_lock {
    long long a_lock, b_lock;
} mj_frame_lock;

MJ_HD mj_frame_lock mj_frame_locks(mj_frame f, mj_heads_range a, mj_heads_range b) {
    mj_frame_lock l;
    l.a_lock = a.last >= f.a0 ? a.last - f.a0 : 0;
    l.b_lock = b.first < f.b0 + f.b_count ? b.first - f.b0 : f.b_count;
    return l;
}

/* The same locks in one tile's coordinates, where A's part holds positions [0, a_len) and B's
 * part [a_len, total): see mj_seg in serial_merge.cuh. */
MJ_HD long long mj_clamp_ll(long long x, long long lo, long long hi) {
    return x < lo ? lo : x > hi ? hi : x;
}
MJ_HD void mj_tile_locks(mj_frame f, mj_range r, mj_frame_lock l, int *a_lock, int *b_lock) {
    long long a_len = r.a_end - r.a_begin, b_len = r.b_end - r.b_begin;
    *a_lock = (int)mj_clamp_ll(l.a_lock - (r.a_begin - f.a0), 0, a_len);
    *b_lock = (int)(a_len + mj_clamp_ll(l.b_lock - (r.b_begin - f.b0), 0, b_len));
}

/* The job of a tile whose output starts at out0, given its input ranges and location byte. */
MJ_HD int mj_tile_job(mj_range r, long long out0, int where) {
    int a_empty = r.a_begin == r.a_end, b_empty = r.b_begin == r.b_end;
    long long src0 = a_empty ? r.b_begin : r.a_begin;
    if (where & MJ_TILE_FINAL) return MJ_JOB_NONE;
    return (!a_empty && !b_empty) || src0 != out0 ? MJ_JOB_MERGE : MJ_JOB_NONE;
}

/* A run [begin, begin + len) of at most nv elements lies in at most two tiles, which may sit in
 * different buffers: how many of its elements are in the first tile. */
MJ_HD int mj_run_split(long long begin, int len, long long nv) {
    long long first = nv - begin % nv;
    return first < len ? (int)first : len;
}

/* A segmented blocksort tile [t0, t0 + count) of n is final when a segment starts at t0 and
 * another at t0 + count (the ends of the data count as both). */
MJ_HD int mj_leaf_final(long long t0, long long count, long long n, int head_at_t0,
                        int head_after) {
    return (t0 == 0 || head_at_t0) && (t0 + count == n || head_after);
}

/* Threads per block of the queue partition kernel, which queues the jobs of
 * MJ_QP_NT / lanes - 1 tiles (the host sizes its grid from this too). */
#define MJ_QP_NT 128

#endif
