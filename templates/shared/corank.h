/* The 4-way split (co-rank) of a stable merge of four sorted lists: for an output diagonal d,
 * how many elements of each list are among the merge's first d outputs. The coarse partition
 * of mergesort's 4-way passes (kernel_partition4.cuh), found by a warp a split. Written in the
 * common subset of C and CUDA C++ so that the kernel and the CPU test (test_corank) run the very
 * same search: on the CPU one "lane" does every lane's part, phase by phase, which is what the
 * warp does between its __syncwarp()s. The includer defines mj_key and mj_less(a, b) first.
 *
 * The merge orders elements by (key, list, position): on equal keys the lower list first, which
 * keeps it stable when the lists are consecutive runs of the input. Lists are padded past their
 * ends with elements ordered after every real one (by list, then position), never loaded.
 *
 * The search goes down the powers of K = 8 (Varman et al.'s multisequence selection, K-ary).
 * At granularity r a list's samples are its elements at r - 1, 2r - 1, ...; the state is the
 * m = floor(d / r) smallest samples of all four lists, a prefix of each list's, a[l] / r of
 * them, and u[l]: how many of the 3 largest held samples are list l's. At r = 1 the samples
 * are the elements and a is the split. From r to h = r / K, t = floor(d / h) in [Km, Km + K).
 * Why the new state lies in a band of 7K - 4 samples at h, all loaded in one round:
 * - Below: let z3 be the 4th largest held sample at r. An h-sample <= z3 is, in z3's list, at
 *   most K(its r-samples <= z3); in another list l, whose next r-sample after those <= z3 is
 *   > z3, at most K(l's r-samples <= z3) + K - 1. So at most K(m - 3) + 3(K - 1) < Km <= t
 *   h-samples are <= z3: all are held at h. In list l that covers everything up to its last
 *   r-sample <= z3, position lo[l] - 1 with lo[l] = a[l] - u[l] r (u sums to 3).
 * - Above: let y be the smallest r-sample not held. In y's list K(its held) + K - 1 h-samples
 *   come before y, in every other list at least K(its held): at least Km + K - 1 >= t. So none
 *   at or after y is held at h, nor any of list l's from a[l] + r - 1 (an r-sample not held).
 * So the held h-samples are list l's up to lo[l], plus the c = t - (sum of lo[l]) / h smallest
 * of the band: list l's h-samples at lo[l] + jh - 1, 1 <= j < (u[l] + 1) K, 7K - 4 in all
 * (fewer while m < 3; then lo = 0 and u counts every held sample). The band is at most 52
 * samples, one or two loads a lane, and the c smallest are those whose rank in the band (its
 * place in its list plus a binary search in each other list's part) is below c. At least 3 of
 * them are > z3 (t - (Km - 3)), so the 3 largest held at h are in the band, ranks c - 1 .. c - 3:
 * the next u. One round of independent loads per level: ceil(log8(d + 1)) rounds (9 below
 * 2^27) where a search down the powers of two takes three times as many.
 *
 * A comparator that is no strict weak order can make the band's ranks inconsistent; the counts
 * stay within each list's band, and the split is clamped into the lists and made to add up to
 * d at the end, so that the tiles still cover their frame. */
#ifndef MJ_CORANK_H
#define MJ_CORANK_H

#if defined(__CUDACC__)
#define MJ_CR __device__ __forceinline__
#define MJ_CR_SYNC() __syncwarp()
#define MJ_CR_ADD(p) atomicAdd((p), 1)
#else
#define MJ_CR static inline
#define MJ_CR_SYNC() ((void)0)
#define MJ_CR_ADD(p) (++*(p))
#endif

#ifndef MJ_UNROLL
#if defined(__CUDACC__)
#define MJ_UNROLL _Pragma("unroll")
#else
#define MJ_UNROLL
#endif
#endif

/* Zero-initialized (so that no copy reads an unset key, which C compilers warn about). */
#if defined(__cplusplus)
#define MJ_CR_ZERO {}
#else
#define MJ_CR_ZERO {0}
#endif

/* How the search reads key i of the array, and what it does as a level starts: hooks for a
 * test that counts the loads and the rounds of them. */
#ifndef MJ_CR_LOAD
#define MJ_CR_LOAD(keys, i) ((keys)[i])
#endif
#ifndef MJ_CR_LEVEL
#define MJ_CR_LEVEL()
#endif

#define MJ_CR_LG_FAN 3 /* K = 8: a level descends by 8 */
#define MJ_CR_FAN (1 << MJ_CR_LG_FAN)
#define MJ_CR_BAND (7 * MJ_CR_FAN - 4)
/* Band slots a lane handles at once (a warp's 32 lanes cover the band in one chunk), so that
 * its loads are all in flight together and its searches interleave. */
#define MJ_CR_CHUNK 2
/* The largest power of two not above a list's part of the band, 4K - 1: the first step of the
 * binary searches in it. */
#define MJ_CR_SEARCH_STEP (2 * MJ_CR_FAN)

/* An element as the search compares it: a real one with its key, or a padding one past its
 * list's end (no key). Its list goes beside it; positions are never compared, since two
 * elements of one list are ordered by their places in the band. */
typedef struct mj_cr_elem {
    mj_key key;
    int pad;
} mj_cr_elem;

/* What the lanes of one search share (shared memory on the GPU): the band of a level, the
 * elements of each list among its c smallest, and the lists of the 3 largest of those. */
typedef struct mj_cr_shared {
    mj_cr_elem band[MJ_CR_BAND];
    int taken[4];
    int top[3];
} mj_cr_shared;

MJ_CR mj_cr_elem mj_cr_load(const mj_key *keys, long long begin, long long count,
                            long long pos) {
    mj_cr_elem e = MJ_CR_ZERO;
    e.pad = pos >= count;
    if (!e.pad) e.key = MJ_CR_LOAD(keys, begin + pos);
    return e;
}

/* Whether x of list lx goes before y of another list ly: by key, then list; padding last. */
MJ_CR int mj_cr_before(mj_cr_elem x, int lx, mj_cr_elem y, int ly) {
    if (x.pad || y.pad) return x.pad == y.pad ? lx < ly : y.pad;
    if (mj_less(x.key, y.key)) return 1;
    if (mj_less(y.key, x.key)) return 0;
    return lx < ly;
}

/* v[l] for an l known only at run time, without indexing (which would put v in local memory). */
MJ_CR long long mj_cr_pick(const long long v[4], int l) {
    long long x = v[0];
    MJ_UNROLL
    for (int m = 1; m < 4; ++m) x = l == m ? v[m] : x;
    return x;
}

/* The split at diagonal d, 0 <= d <= count[0] + ... + count[3], of the merge of the lists
 * keys[begin[l], begin[l] + count[l]), each sorted by mj_less: at[l] of list l's elements go
 * before it, and at[0] + ... + at[3] = d whatever mj_less does. Lane `lane` of `lanes` does its
 * share; on the GPU every lane of a warp calls it with the same lists and d (lanes
 * MJ_CR_LANES, merge_frame.h), on the CPU one caller does all (lane 0 of 1). sh: the search's
 * shared scratch. */
MJ_CR void mj_corank4(const mj_key *keys, const long long begin[4], const long long count[4],
                      long long d, int lane, int lanes, mj_cr_shared *sh, long long at[4]) {
    long long a[4];
    int u[4];
    MJ_UNROLL
    for (int l = 0; l < 4; ++l) {
        a[l] = 0;
        u[l] = 0;
    }
    int lr = 0; /* r = 2^lr > d: no sample is held yet */
    while ((1ll << lr) <= d) lr += MJ_CR_LG_FAN;
    for (int lh = lr - MJ_CR_LG_FAN; lh >= 0; lh -= MJ_CR_LG_FAN) {
        MJ_CR_LEVEL();
        /* The band: list l's part starts at off[l], len[l] samples after lo[l]. */
        long long lo[4], off[4], base = 0;
        int len[4], size = 0;
        MJ_UNROLL
        for (int l = 0; l < 4; ++l) {
            lo[l] = a[l] - ((long long)u[l] << (lh + MJ_CR_LG_FAN));
            len[l] = (u[l] + 1) * MJ_CR_FAN - 1;
            off[l] = size;
            size += len[l];
            base += lo[l] >> lh;
        }
        long long c = (d >> lh) - base;
        /* One round of independent loads: a lane's slots s0 + lane + i lanes. */
        for (int s0 = 0; s0 < size; s0 += MJ_CR_CHUNK * lanes) {
            mj_cr_elem got[MJ_CR_CHUNK];
            MJ_UNROLL
            for (int i = 0; i < MJ_CR_CHUNK; ++i) {
                int s = s0 + lane + i * lanes, l = 0;
                MJ_UNROLL
                for (int m = 1; m < 4; ++m) l = s >= off[m] ? m : l;
                long long j = s - mj_cr_pick(off, l) + 1;
                got[i] = mj_cr_load(keys, mj_cr_pick(begin, l),
                                    s < size ? mj_cr_pick(count, l) : 0, /* past the band: none */
                                    mj_cr_pick(lo, l) + (j << lh) - 1);
            }
            MJ_UNROLL
            for (int i = 0; i < MJ_CR_CHUNK; ++i)
                if (s0 + lane + i * lanes < size) sh->band[s0 + lane + i * lanes] = got[i];
        }
        if (lane == 0) {
            MJ_UNROLL
            for (int l = 0; l < 4; ++l) sh->taken[l] = 0;
            MJ_UNROLL
            for (int i = 0; i < 3; ++i) sh->top[i] = -1;
        }
        MJ_CR_SYNC();
        /* Each band element's rank in the band: its place in its list's part plus, in each other
         * list's part, how many go before it (a binary search of fixed steps: parts are at most
         * 2 MJ_CR_SEARCH_STEP - 1 long). The c smallest are held at h. */
        for (int s0 = 0; s0 < size; s0 += MJ_CR_CHUNK * lanes) {
            MJ_UNROLL
            for (int i = 0; i < MJ_CR_CHUNK; ++i) {
                int s = s0 + lane + i * lanes, l = 0;
                if (s >= size) continue;
                MJ_UNROLL
                for (int m = 1; m < 4; ++m) l = s >= off[m] ? m : l;
                mj_cr_elem x = sh->band[s];
                long long rank = s - mj_cr_pick(off, l);
                MJ_UNROLL
                for (int m = 0; m < 4; ++m) {
                    if (m == l) continue;
                    int first = 0;
                    MJ_UNROLL
                    for (int step = MJ_CR_SEARCH_STEP; step > 0; step >>= 1)
                        if (first + step <= len[m] &&
                            mj_cr_before(sh->band[off[m] + first + step - 1], m, x, l))
                            first += step;
                    rank += first;
                }
                if (rank < c) {
                    MJ_CR_ADD(&sh->taken[l]);
                    if (rank >= c - 3) sh->top[c - 1 - rank] = l;
                }
            }
        }
        MJ_CR_SYNC();
        MJ_UNROLL
        for (int l = 0; l < 4; ++l) {
            a[l] = lo[l] + ((long long)sh->taken[l] << lh);
            u[l] = 0;
        }
        MJ_UNROLL
        for (int i = 0; i < 3; ++i) {
            int t = sh->top[i];
            MJ_UNROLL
            for (int l = 0; l < 4; ++l) u[l] += t == l;
        }
        /* Only a broken comparator leaves more tops in a list than it holds. */
        MJ_UNROLL
        for (int l = 0; l < 4; ++l) u[l] = (long long)u[l] <= a[l] >> lh ? u[l] : (int)(a[l] >> lh);
        MJ_CR_SYNC(); /* the next level's band overwrites what was just read */
    }
    /* Into the lists and adding up to d (a no-op unless the comparator is broken). */
    long long sum = 0;
    MJ_UNROLL
    for (int l = 0; l < 4; ++l) {
        a[l] = a[l] < 0 ? 0 : a[l] < count[l] ? a[l] : count[l];
        sum += a[l];
    }
    MJ_UNROLL
    for (int l = 0; l < 4; ++l) {
        long long less = sum > d ? (sum - d < a[l] ? sum - d : a[l]) : 0;
        long long more = sum < d ? (d - sum < count[l] - a[l] ? d - sum : count[l] - a[l]) : 0;
        a[l] += more - less;
        sum += more - less;
        at[l] = a[l];
    }
}

#endif
