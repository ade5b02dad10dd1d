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
 * costs a round of independent loads (the four new samples, and tops a last adjustment left
 * unknown), seven comparisons, and for each largest sample removed past the first (itself
 * known) three more and a load where it was a list's older sample. At r = 1 the samples are
 * the elements and the state is the split. From r above the longest list (or d) to
 * 1: about log2 of the longest list levels, as many rounds of loads as one 2-way merge path
 * search over it, where a search of the 2-way path between two merged pairs takes the square of
 * that (each probe of the outer search is an inner search).
 *
 * A level is a chain of dependent instructions, so it is written for few of them: 32-bit
 * positions where they fit, no variable shifts, selects rather than branches (a warp's lanes
 * would part at each), elements that carry their list and class in one rank. */
#ifndef MJ_CORANK_H
#define MJ_CORANK_H

#include "shared/host_device.h"

/* A truth value: predicates on a GPU where an int would be a register and a select. */
#if defined(__cplusplus)
#define MJ_CR_BOOL bool
#else
#define MJ_CR_BOOL _Bool
#endif

/* Zero-initialized (so that no copy reads an unset key, which C compilers warn about). */
#if defined(__cplusplus)
#define MJ_CR_ZERO {}
#else
#define MJ_CR_ZERO {0}
#endif

/* A list as the search reads it (its first element), how it reads the key at pos, and what
 * it does as a level starts: hooks for a test that counts the loads and the rounds of them on
 * virtual lists. */
#ifndef MJ_CR_LOAD
typedef const mj_key *mj_cr_list;
#define MJ_CR_LOAD(list, pos) ((list)[pos])
#endif
#ifndef MJ_CR_LEVEL
#define MJ_CR_LEVEL()
#endif

/* Positions within a list are of type mj_cr_pos: 32-bit unsigned where the frame holds fewer
 * than 2^31 elements (what the 4-way partitions pick for every n below that: mj_split4_narrow),
 * since 64-bit integer work takes about two instructions for one on a GPU (adds, compares,
 * selects) and a split's levels are one dependent chain; 64-bit above. Unsigned, so that
 * wrapping is defined: with total < 2^31 no position the search forms reaches 2^32 (a list's
 * held count stays at most d + h and its next sample at d + h - 1, h <= 2^30). CUDA picks the
 * type per call (a template); C, for the CPU test, by MJ_CR_POS (default 64-bit). */
#if defined(__cplusplus)
#define MJ_CR_POS_T template <typename mj_cr_pos>
#else
#ifndef MJ_CR_POS
#define MJ_CR_POS unsigned long long
#endif
typedef MJ_CR_POS mj_cr_pos;
#define MJ_CR_POS_T
#endif

/* An element as the search compares it, with its rank: its list plus 4 x its class, which
 * orders it against elements of other lists without its key when either is not a real one.
 * Classes: no element (a list holds no sample yet: before everything), a real one (ordered by
 * key, then list), padding past its list's end (after every real one; by list, never loaded).
 * The search compares samples of two lists only (the largest held sample's own new sample,
 * which comes after it, it skips), so positions need not be kept. */
enum { MJ_CR_NONE = 0, MJ_CR_REAL = 4, MJ_CR_PAD = 8 };

typedef struct mj_cr_elem {
    mj_key key;
    int rank;
} mj_cr_elem;

MJ_HD mj_cr_elem mj_cr_none(int list) {
    mj_cr_elem e = MJ_CR_ZERO;
    e.rank = MJ_CR_NONE + list;
    return e;
}

/* The element at pos of a list, its key read only where `want` (callers select, rather than
 * branch around a load, which costs a GPU a reconvergence); no element where `none` (the top
 * of a list that holds no sample). */
MJ_CR_POS_T MJ_HD mj_cr_elem mj_cr_load(mj_cr_list list, mj_cr_pos count, mj_cr_pos pos, int l,
                                        MJ_CR_BOOL want, MJ_CR_BOOL none) {
    mj_cr_elem e = MJ_CR_ZERO;
    e.rank = l + (none ? MJ_CR_NONE : pos < count ? MJ_CR_REAL : MJ_CR_PAD);
    if (want && !none && pos < count) e.key = MJ_CR_LOAD(list, pos);
    return e;
}

/* Whether x goes before y (of another list): by key, then list, where both are real; else by
 * rank. Both sides computed (the keys of others are zero), so that a GPU selects without
 * branches. */
MJ_HD int mj_cr_before(mj_cr_elem x, mj_cr_elem y) {
    MJ_CR_BOOL by_rank = x.rank < y.rank, real = (x.rank & y.rank & MJ_CR_REAL) != 0;
    MJ_CR_BOOL lt = mj_less(x.key, y.key), gt = mj_less(y.key, x.key);
    return (real & lt) | (by_rank & !(real & gt));
}

/* The later (or the earlier) of two elements. */
MJ_HD mj_cr_elem mj_cr_later(mj_cr_elem x, mj_cr_elem y) { return mj_cr_before(x, y) ? y : x; }
MJ_HD mj_cr_elem mj_cr_earlier(mj_cr_elem x, mj_cr_elem y) { return mj_cr_before(y, x) ? y : x; }

/* Where both searches start (mj_corank4, mj_corank4_window): r, the least power of two above
 * min(d, most); then h = r / 2 each level. Sums and masks, not variable shifts, which a GPU
 * does in several instructions on 64 bits. The state at r, the floor(d / r) smallest samples,
 * is none when r > d, else all padding, list 0's first: a[0] = d rounded down to r. */
MJ_CR_POS_T MJ_HD mj_cr_pos mj_cr_top(const long long count[4], mj_cr_pos d) {
    mj_cr_pos most = 0, r = 1;
    MJ_UNROLL
    for (int l = 0; l < 4; ++l) most = (mj_cr_pos)count[l] > most ? (mj_cr_pos)count[l] : most;
    while (r <= (d < most ? d : most)) r += r;
    return r;
}

/* The split at diagonal d, 0 <= d <= count[0] + ... + count[3], of the merge of the lists
 * list[l][0, count[l]), each sorted by mj_less: at[l] of list l's elements go before it, and
 * at[0] + ... + at[3] = d whatever mj_less does. The total must fit mj_cr_pos (see above). */
MJ_CR_POS_T MJ_HD void mj_corank4(const mj_cr_list list[4], const long long count[4],
                                  long long d_in, long long at[4]) {
    mj_cr_pos n[4], d = (mj_cr_pos)d_in;
    MJ_UNROLL
    for (int l = 0; l < 4; ++l) n[l] = (mj_cr_pos)count[l];
    mj_cr_pos r = mj_cr_top(count, d);
    /* The floor(d / r) smallest samples at r: none when r > d; when r is above every count,
     * they are all padding, list 0's first. The held elements always add up to d rounded down
     * to a multiple of the granularity. */
    mj_cr_pos a[4];
    mj_cr_elem top[4]; /* each list's largest held sample as a level starts (if known[l]) */
    int known[4], fresh[4];
    MJ_UNROLL
    for (int l = 0; l < 4; ++l) {
        a[l] = 0;
        known[l] = 0;
        top[l] = mj_cr_none(l);
    }
    a[0] = d & ~(r - 1);
    for (mj_cr_pos h = r >> 1; h > 0; h >>= 1) {
        /* One round of loads: the new samples, and the tops a last adjustment left unknown. */
        MJ_CR_LEVEL();
        mj_cr_elem next[4], cur[4]; /* cur: each list's largest held sample now */
        MJ_UNROLL
        for (int l = 0; l < 4; ++l) {
            mj_cr_elem t = mj_cr_load(list[l], n[l], a[l] - 1, l, !known[l], a[l] == 0);
            top[l] = known[l] ? top[l] : t;
            known[l] = 1;
            next[l] = mj_cr_load(list[l], n[l], a[l] + h - 1, l, 1, 0);
        }
        /* The largest held sample z (a list that holds none has no element, before all): the
         * new samples before it are held, and nothing else (z's own list's comes after it). */
        mj_cr_elem z = mj_cr_later(mj_cr_later(top[0], top[1]), mj_cr_later(top[2], top[3]));
        /* (Lists are told apart by rank, not by an index, which a compiler may turn into
         * indexing the arrays: local memory on a GPU.) */
        int nfresh = 0;
        MJ_UNROLL
        for (int l = 0; l < 4; ++l) {
            fresh[l] = top[l].rank != z.rank && mj_cr_before(next[l], z);
            cur[l] = fresh[l] ? next[l] : top[l];
            a[l] += fresh[l] ? h : 0;
            nfresh += fresh[l];
        }
        /* Held: 2 floor(d / r) samples of h and the fresh ones; wanted: floor(d / h), one more
         * than 2 floor(d / r) where d has bit h. So at most one is missing. */
        int excess = nfresh - ((d & h) != 0);
        if (excess < 0) {
            mj_cr_elem f = mj_cr_earlier(mj_cr_earlier(next[0], next[1]),
                                         mj_cr_earlier(next[2], next[3]));
            MJ_UNROLL
            for (int l = 0; l < 4; ++l)
                if (next[l].rank == f.rank) {
                    cur[l] = f;
                    a[l] += h;
                }
        }
        /* Too many: drop the largest held samples, each a list's current top, z first. The one
         * before it takes its place: the level's first top where the dropped one was fresh,
         * else one loaded now where another drop follows (it may be next), else with the next
         * level's samples. One load a drop at most, of the position selected, not one under a
         * branch for each list. */
        mj_cr_elem m = z;
        for (; excess > 0; --excess) {
            int dropped[4], load_now = 0;
            mj_cr_list at_list = list[0];
            mj_cr_pos pos = 0, cnt = 0;
            MJ_UNROLL
            for (int l = 0; l < 4; ++l) {
                dropped[l] = cur[l].rank == m.rank;
                if (dropped[l]) {
                    a[l] -= h;
                    cur[l] = top[l];
                    known[l] = fresh[l] || excess > 1;
                    load_now = !fresh[l] && excess > 1;
                    fresh[l] = 0;
                    at_list = list[l];
                    cnt = n[l];
                    pos = a[l] - 1;
                }
            }
            if (load_now) {
                mj_cr_elem t = mj_cr_load(at_list, cnt, pos, m.rank & 3, 1, pos + 1 == 0);
                MJ_UNROLL
                for (int l = 0; l < 4; ++l)
                    if (dropped[l]) cur[l] = t;
            }
            if (excess > 1)
                m = mj_cr_later(mj_cr_later(cur[0], cur[1]), mj_cr_later(cur[2], cur[3]));
        }
        MJ_UNROLL
        for (int l = 0; l < 4; ++l) top[l] = cur[l];
    }
    MJ_UNROLL
    for (int l = 0; l < 4; ++l) at[l] = (long long)a[l];
}

/* The same split by windows: the search of a group of 16 GPU lanes (kernel_partition4.cuh),
 * with mj_corank4's levels but no chain of adjustments. At granularity r the state is again
 * c[l] = a[l] / r, list l's samples among the floor(d / r) smallest, and z the largest of
 * them. At h = r / 2, list l's samples below index 2 c[l] are at most z and those from
 * 2 c[l] + 1 on are above it (that one is an r-sample not held); of the four lists' samples
 * 2 c[l], at most three are at most z (z's own list's comes after it). So the floor(d / h)
 * smallest at h take at most one sample above z and leave out at most three of those up to z:
 * list l holds 2 c[l] - 3 to 2 c[l] + 1 of them. Its samples 2 c[l] - 3 .. 2 c[l] are its four
 * slots (one before the list's start is no element, before all); those below are held and
 * those above not, so the held slots are the smallest 12 + (bit h of d) of the 16: below the
 * slots lie 2 floor(d / r) - 12 samples (no-elements counted), and floor(d / h) is
 * 2 floor(d / r) plus that bit. A slot is held when fewer slots than that go before it: its
 * own list's lower ones, and the other lists' as compared. Then c[l] at h is 2 c[l] - 3 plus
 * list l's held slots. A level is one round of loads (a slot each) and each slot's
 * comparisons with the other lists' slots, which the lanes do at once. */

/* Slot k (0 to 3) of list l, whose state is a (in elements, a multiple of 2h): its sample at
 * a + (k - 2) h - 1, no element where that is before the list. No test overflows mj_cr_pos:
 * a <= d + h and (3 - k) h <= 3 * 2^30 (see mj_cr_pos). */
MJ_CR_POS_T MJ_HD mj_cr_elem mj_cw_slot(mj_cr_list list, mj_cr_pos count, mj_cr_pos a,
                                       mj_cr_pos h, int l, int k) {
    mj_cr_pos back = (mj_cr_pos)(3 - k) * h;
    return mj_cr_load(list, count, a + h - back - 1, l, 1, a < back);
}

/* Whether slot t goes before slot s of another list, from their keys, their classes (a rank
 * less its list) and whether t's list is the lower one. The lanes of t and s each ask from their
 * side, and both answer through the same comparison, of the lower list's slot with the other
 * (where both are real: whether its key goes before the lower list's, which wins ties), so they
 * agree that exactly one goes first whatever mj_less does (if it answers alike for the same
 * keys). Selects, not branches: the lanes of a group hold different lists. */
MJ_HD int mj_cw_before_by(mj_key tk, int t_class, mj_key sk, int s_class, MJ_CR_BOOL t_low) {
    MJ_CR_BOOL real = (t_class & s_class & MJ_CR_REAL) != 0;
    /* Keys up to 8 bytes are selected and compared once; a larger struct key would be
     * selected through local memory, so both comparisons are made and an answer selected. */
    MJ_CR_BOOL high_less;
    if (sizeof(mj_key) <= 8) {
        high_less = mj_less(t_low ? sk : tk, t_low ? tk : sk);
    } else {
        MJ_CR_BOOL s_less = mj_less(sk, tk), t_less = mj_less(tk, sk);
        high_less = t_low ? s_less : t_less;
    }
    /* By rank: classes are multiples of 4, so equal ones leave the lower list first. */
    return real ? high_less != t_low : t_class < s_class + t_low;
}

/* The same from two elements: their classes and lists are their ranks' parts. */
MJ_HD int mj_cw_before(mj_cr_elem t, mj_cr_elem s) {
    return mj_cw_before_by(t.key, t.rank & ~3, s.key, s.rank & ~3, (t.rank & 3) < (s.rank & 3));
}

/* How many of a level's slots are held (see above). */
#define MJ_CW_HELD(d, h) (12 + (((d) & (h)) != 0))

/* Splits inside the lists that add up to d (0 <= d <= the total): what a comparator that is
 * no order still gets from the window search. With an order it changes nothing. */
MJ_HD void mj_cr_settle(long long at[4], const long long count[4], long long d) {
    long long sum = 0;
    MJ_UNROLL
    for (int l = 0; l < 4; ++l) {
        at[l] = at[l] < 0 ? 0 : at[l] > count[l] ? count[l] : at[l];
        sum += at[l];
    }
    MJ_UNROLL
    for (int l = 0; l < 4; ++l) {
        long long room = count[l] - at[l];
        long long move = sum > d ? (at[l] < sum - d ? at[l] : sum - d)
                                 : -(room < d - sum ? room : d - sum);
        at[l] -= move;
        sum -= move;
    }
}

/* The window search on one thread, slot by slot where the lanes go at once: the CPU test's
 * model of mj_corank4_lanes. Starts from any power of two r above min(d, most) (the lanes of
 * a warp share theirs). */
MJ_CR_POS_T MJ_HD void mj_corank4_window(const mj_cr_list list[4], const long long count[4],
                                         long long d_in, mj_cr_pos r, long long at[4]) {
    mj_cr_pos d = (mj_cr_pos)d_in, a[4] = {0, 0, 0, 0};
    a[0] = d & ~(r - 1);
    for (mj_cr_pos h = r >> 1; h > 0; h >>= 1) {
        MJ_CR_LEVEL();
        mj_cr_elem slot[16];
        for (int s = 0; s < 16; ++s)
            slot[s] = mj_cw_slot(list[s >> 2], (mj_cr_pos)count[s >> 2], a[s >> 2], h, s >> 2,
                                 s & 3);
        int held[4] = {0, 0, 0, 0};
        for (int s = 0; s < 16; ++s) {
            int before = s & 3;
            for (int t = 0; t < 16; ++t)
                if (t >> 2 != s >> 2) before += mj_cw_before(slot[t], slot[s]);
            held[s >> 2] += before < MJ_CW_HELD(d, h);
        }
        for (int l = 0; l < 4; ++l) a[l] += (mj_cr_pos)held[l] * h - 3 * h;
    }
    for (int l = 0; l < 4; ++l) at[l] = (long long)a[l];
    mj_cr_settle(at, count, d_in);
}

#endif
