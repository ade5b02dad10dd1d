/* SPDX-License-Identifier: Apache-2.0 */
/* templates/thread/key_runs.cuh's gallops over ints, every read checked to stay inside the
 * range the kernel may read: the models of the multiset operations (the balanced path) and of
 * sorted search (the equivalent counts) share them. Needs Check (ck_assert). */
#ifndef MJT_KEY_RUNS_MODEL_H
#define MJT_KEY_RUNS_MODEL_H

/* mj_run_begin: the first i in [0, end) from which k[i, end) are all not below x. */
static inline long long mjt_run_begin(const int *k, long long end, int x) {
    long long lo = 0, hi = end;
    for (long long step = 1; hi > 0; step <<= 1) {
        long long probe = hi > step ? hi - step : 0;
        ck_assert(probe >= 0 && probe < end);
        if (k[probe] < x) {
            lo = probe + 1;
            break;
        }
        hi = probe;
    }
    while (lo < hi) {
        long long mid = lo + ((hi - lo) >> 1);
        ck_assert(mid >= 0 && mid < end);
        if (k[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* mj_run_end: the first i in [begin, limit) whose key is above x, limit when none. */
static inline long long mjt_run_end(const int *k, long long begin, long long limit, int x) {
    long long lo = begin, hi = limit;
    for (long long step = 1; lo < limit; step <<= 1) {
        long long probe = limit - lo > step ? lo + step - 1 : limit - 1;
        ck_assert(probe >= begin && probe < limit);
        if (x < k[probe]) {
            hi = probe;
            break;
        }
        lo = probe + 1;
    }
    while (lo < hi) {
        long long mid = lo + ((hi - lo) >> 1);
        ck_assert(mid >= begin && mid < limit);
        if (x < k[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* mj_run_end_near: `probes` keys from begin read at once (a probe past limit reads
 * k[limit - 1] and does not count), the gallop past them. */
static inline long long mjt_run_end_near(const int *k, long long begin, long long limit, int x,
                                         int probes) {
    ck_assert(limit >= 1);
    long long end = begin;
    for (int p = 0; p < probes; ++p) {
        long long at = begin + p < limit ? begin + p : limit - 1;
        ck_assert(at >= 0 && at < limit);
        end += begin + p < limit && !(x < k[at]);
    }
    return end == begin + probes ? mjt_run_end(k, end, limit, x) : end;
}

#endif
