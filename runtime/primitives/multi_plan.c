/* SPDX-License-Identifier: Apache-2.0 */
/* The sample sort's plan across ranks: samples, splitters, splits, receives, the merge tree.
 * The reasoning and the balance bound are in multi_plan.h. */
#include "primitives/multi_plan.h"

/* Weights times the rank count, against q * N: 128 bits leave no product to overflow. */
__extension__ typedef unsigned __int128 mj_u128;

size_t mj__multi_sample_count(uint64_t n, size_t s) { return n < s ? (size_t)n : s; }

/* Span j of a shard of n keys in c spans: its start and width. */
static void span(uint64_t n, size_t c, size_t j, uint64_t *start, uint64_t *width) {
    uint64_t d = n / c, e = n % c;
    if (j < e) {
        *start = j * (d + 1);
        *width = d + 1;
    } else {
        *start = e * (d + 1) + (j - e) * d;
        *width = d;
    }
}

uint64_t mj__multi_sample_position(uint64_t n, size_t s, size_t j) {
    uint64_t start, width;
    span(n, mj__multi_sample_count(n, s), j, &start, &width);
    return start + width / 2;
}

uint64_t mj__multi_sample_weight(uint64_t n, size_t s, size_t j) {
    uint64_t start, width;
    span(n, mj__multi_sample_count(n, s), j, &start, &width);
    return width;
}

int mj__multi_sample_runs(uint64_t n, size_t s, mj_sample_run runs[2]) {
    size_t c = mj__multi_sample_count(n, s);
    if (c == 0) return 0;
    uint64_t d = n / c, e = n % c;
    int k = 0;
    if (e) runs[k++] = (mj_sample_run){(d + 1) / 2, d + 1, e};
    if (c > e) runs[k++] = (mj_sample_run){e * (d + 1) + d / 2, d, c - e};
    return k;
}

int mj__multi_pick_splitters(int ranks, const uint64_t *n, size_t s, const uint32_t *order,
                             size_t m, mj_splitter *out) {
    uint64_t total = 0;
    size_t samples = 0;
    for (int r = 0; r < ranks; ++r) {
        total += n[r];
        samples += mj__multi_sample_count(n[r], s);
    }
    if (samples != m) return -1;
    for (int q = 1; q < ranks; ++q) out[q - 1] = (mj_splitter){0, 0, 0};
    int q = 1;
    uint64_t before = 0; /* the weight of the samples before this one */
    for (size_t k = 0; k < m && q < ranks; ++k) {
        size_t idx = order[k];
        if (idx >= m) return -1;
        /* The rank whose samples hold idx, and the sample's place among them. */
        int r = 0;
        size_t j = idx;
        while (j >= mj__multi_sample_count(n[r], s)) j -= mj__multi_sample_count(n[r++], s);
        uint64_t after = before + mj__multi_sample_weight(n[r], s, j);
        for (; q < ranks && (mj_u128)after * (unsigned)ranks > (mj_u128)q * total; ++q)
            out[q - 1] = (mj_splitter){idx, r, mj__multi_sample_position(n[r], s, j)};
        before = after;
    }
    /* Only an order that is not a permutation leaves splitters unset: repeat the last. */
    for (; q < ranks && q > 1; ++q) out[q - 1] = out[q - 2];
    return 0;
}

int mj__multi_bracket(int ranks, int rank, const uint64_t *n, size_t s, const uint32_t *order,
                      size_t m, const mj_splitter *sp, uint64_t *lo, uint64_t *hi) {
    if (rank == sp->rank) {
        *lo = *hi = sp->position;
        return 0;
    }
    size_t first = 0; /* this rank's samples are [first, first + c) of all */
    for (int r = 0; r < rank && r < ranks; ++r) first += mj__multi_sample_count(n[r], s);
    size_t c = mj__multi_sample_count(n[rank], s), before = 0, k = 0;
    for (; k < m && order[k] != sp->sample; ++k)
        before += order[k] >= first && order[k] - first < c;
    if (k == m) return -1;
    *lo = before ? mj__multi_sample_position(n[rank], s, before - 1) + 1 : 0;
    *hi = before < c ? mj__multi_sample_position(n[rank], s, before) : n[rank];
    return 0;
}

void mj__multi_split_row(int ranks, int rank, uint64_t n, const mj_splitter *sp,
                         const uint64_t *lower, const uint64_t *equal, uint64_t *split) {
    split[0] = 0;
    for (int q = 1; q < ranks; ++q) {
        const mj_splitter *x = &sp[q - 1];
        uint64_t v = lower[q - 1];
        if (rank < x->rank && __builtin_add_overflow(v, equal[q - 1], &v)) v = n;
        if (rank == x->rank) v = x->position;
        if (v < split[q - 1]) v = split[q - 1];
        split[q] = v < n ? v : n;
    }
    split[ranks] = n;
}

uint64_t mj__multi_recv(int ranks, int rank, const uint64_t *rows, size_t stride, uint64_t *recv,
                        uint64_t *offset) {
    uint64_t total = 0;
    for (int r = 0; r < ranks; ++r) {
        const uint64_t *row = rows + (size_t)r * stride;
        recv[r] = row[rank + 1] > row[rank] ? row[rank + 1] - row[rank] : 0;
        offset[r] = total;
        total += recv[r];
    }
    return total;
}

size_t mj__multi_merge_steps_max(int runs) { return runs > 0 ? 2 * (size_t)runs : 0; }

size_t mj__multi_merge_schedule(int runs, const uint64_t *counts, mj_merge_step *steps,
                                int *first) {
    /* Empty runs take no place and no part: the tree is over the others, in order. */
    int live = 0, levels = 0;
    for (int r = 0; r < runs; ++r) live += counts[r] > 0;
    while ((1 << levels) < live) ++levels;
    *first = levels & 1;
    size_t done = 0;
    int from = *first;
    for (int level = 0; level < levels; ++level, from ^= 1) {
        /* Live run t goes to group t >> (level + 1), as its a half or its b half. */
        uint64_t at = 0;
        int t = 0, open = 0;
        for (int r = 0; r < runs; ++r) {
            if (!counts[r]) continue;
            if ((t & ((2 << level) - 1)) == 0) {
                done += open;
                steps[done] = (mj_merge_step){level, from, at, 0, 0, -1, -1};
                open = 1;
            }
            if ((t >> level) & 1) {
                steps[done].b_count += counts[r];
                if (level == 0) steps[done].b_run = r;
            } else {
                steps[done].a_count += counts[r];
                if (level == 0) steps[done].a_run = r;
            }
            at += counts[r];
            ++t;
        }
        done += open;
    }
    return done;
}
