/* The 4-way split (co-rank) of a stable merge of four sorted lists: for an output diagonal d,
 * how many elements of each list are among the merge's first d outputs. The coarse partition
 * of mergesort's 4-way passes (kernel_partition4.cuh). Written in the common subset of C and
 * CUDA C++ so that the kernel and the CPU test (test_corank) run the very same search; the
 * includer defines mj_key and mj_less(a, b) first (the generated spec does).
 *
 * The merge orders elements by (key, list, position): on equal keys the lower list first, which
 * keeps it stable when the lists are consecutive runs of the input. Lists are padded past their
 * ends with elements ordered after every real one (by list, then position), never loaded.
 *
 * The search works down the powers of two r (the idea of Varman et al.'s multisequence
 * selection). At granularity r a list's samples are its elements at positions r - 1, 2r - 1,
 * ...; the state is the floor(d / r) smallest samples of all four lists, a prefix of each
 * list's: a[l] / r of them. From r to h = r / 2 the samples double: each list has one new
 * sample after the last one it holds, and the next one it does not hold comes after the
 * largest held sample (it was a sample at r already). So the floor(d / h) smallest at h are the
 * samples up to that largest one, less their largest few or plus the smallest next one. A level
 * costs a round of four independent loads (the new samples), about ten comparisons, and a load
 * more when the adjustment removes a list's older sample and compares again. At r = 1 the
 * samples are the elements and the state is the split. From r above the longest list (or d) to
 * 1: about log2 of the longest list levels, as many rounds of loads as one 2-way merge path
 * search over it, where a search of the 2-way path between two merged pairs takes the square of
 * that (each probe of the outer search is an inner search). */
#ifndef MJ_CORANK_H
#define MJ_CORANK_H

#include "shared/host_device.h"

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

/* An element as the search compares it: a real one with its key, or a padding one past its
 * list's end (no key). Its list goes beside it. The search compares samples of two lists only
 * (the largest held sample's own new sample, which comes after it, it skips), so positions
 * need not be kept. */
typedef struct mj_cr_elem {
    mj_key key;
    int pad;
} mj_cr_elem;

MJ_HD mj_cr_elem mj_cr_load(const mj_key *keys, long long begin, long long count,
                            long long pos) {
    mj_cr_elem e = MJ_CR_ZERO;
    e.pad = pos >= count;
    if (!e.pad) e.key = MJ_CR_LOAD(keys, begin + pos);
    return e;
}

/* Whether x of list lx goes before y of another list ly: by key, then list; padding last. */
MJ_HD int mj_cr_before(mj_cr_elem x, int lx, mj_cr_elem y, int ly) {
    if (x.pad || y.pad) return x.pad == y.pad ? lx < ly : y.pad;
    if (mj_less(x.key, y.key)) return 1;
    if (mj_less(y.key, x.key)) return 0;
    return lx < ly;
}

/* The split at diagonal d, 0 <= d <= count[0] + ... + count[3], of the merge of the lists
 * keys[begin[l], begin[l] + count[l]), each sorted by mj_less: at[l] of list l's elements go
 * before it, and at[0] + ... + at[3] = d whatever mj_less does. */
MJ_HD void mj_corank4(const mj_key *keys, const long long begin[4], const long long count[4],
                      long long d, long long at[4]) {
    long long most = count[0];
    MJ_UNROLL
    for (int l = 1; l < 4; ++l) most = count[l] > most ? count[l] : most;
    int lr = 0; /* r = 2^lr; shifts, not 64-bit divisions, which cost a GPU dearly */
    while ((1ll << lr) <= (d < most ? d : most)) ++lr;
    /* The floor(d / r) smallest samples at r: none when r > d; when r is above every count,
     * they are all padding, list 0's first. */
    long long a[4];
    mj_cr_elem top[4] = MJ_CR_ZERO;  /* each list's largest held sample (a[l] > 0, known[l]) */
    mj_cr_elem prev[4] = MJ_CR_ZERO; /* the one before it, where fresh[l]: top[l] is new here */
    int known[4], fresh[4];
    MJ_UNROLL
    for (int l = 0; l < 4; ++l) {
        a[l] = 0;
        known[l] = 0;
    }
    a[0] = d >> lr << lr;
    for (int lh = lr - 1; lh >= 0; --lh) {
        long long h = 1ll << lh;
        /* One round of loads: the new samples, and the tops a last adjustment left unknown. */
        MJ_CR_LEVEL();
        mj_cr_elem next[4];
        MJ_UNROLL
        for (int l = 0; l < 4; ++l) {
            if (a[l] > 0 && !known[l]) {
                top[l] = mj_cr_load(keys, begin[l], count[l], a[l] - 1);
                known[l] = 1;
            }
            next[l] = mj_cr_load(keys, begin[l], count[l], a[l] + h - 1);
        }
        /* The largest held sample, z of list zl: the new samples before it are held, and
         * nothing else (zl's own comes after it). */
        int zl = a[0] > 0 ? 0 : -1;
        mj_cr_elem z = top[0];
        MJ_UNROLL
        for (int l = 1; l < 4; ++l)
            if (a[l] > 0 && (zl < 0 || mj_cr_before(z, zl, top[l], l))) {
                z = top[l];
                zl = l;
            }
        long long held = 0;
        MJ_UNROLL
        for (int l = 0; l < 4; ++l) {
            fresh[l] = zl >= 0 && l != zl && mj_cr_before(next[l], l, z, zl);
            if (fresh[l]) {
                prev[l] = top[l];
                top[l] = next[l];
                known[l] = 1;
                a[l] += h;
            }
            held += a[l] >> lh;
        }
        /* held is 2 floor(d / r) plus the fresh ones, so at most one is missing. */
        long long excess = held - (d >> lh);
        if (excess < 0) {
            int first = 0;
            mj_cr_elem f = next[0];
            MJ_UNROLL
            for (int l = 1; l < 4; ++l)
                if (mj_cr_before(next[l], l, f, first)) {
                    f = next[l];
                    first = l;
                }
            MJ_UNROLL
            for (int l = 0; l < 4; ++l)
                if (l == first) {
                    top[l] = next[l];
                    known[l] = 1;
                    a[l] += h;
                }
        }
        /* Too many: drop the largest held samples, each a list's top. */
        for (; excess > 0; --excess) {
            int last = a[0] > 0 ? 0 : -1;
            mj_cr_elem m = top[0];
            MJ_UNROLL
            for (int l = 1; l < 4; ++l)
                if (a[l] > 0 && (last < 0 || mj_cr_before(m, last, top[l], l))) {
                    m = top[l];
                    last = l;
                }
            MJ_UNROLL
            for (int l = 0; l < 4; ++l)
                if (l == last) {
                    a[l] -= h;
                    if (fresh[l]) {
                        top[l] = prev[l];
                        fresh[l] = 0;
                    } else if (a[l] > 0 && excess > 1) {
                        top[l] = mj_cr_load(keys, begin[l], count[l], a[l] - 1);
                    } else {
                        known[l] = 0; /* loaded with the next level's samples if needed */
                    }
                }
        }
    }
    MJ_UNROLL
    for (int l = 0; l < 4; ++l) at[l] = a[l];
}

#endif
