/* SPDX-License-Identifier: Apache-2.0 */
/* The host-side plan of the sample sort across ranks (api/multi*.c runs it over NCCL): where
 * each rank samples its sorted shard, which samples become splitters, where each shard splits,
 * what each rank receives, and the merge tree over the runs a rank receives. Pure arithmetic:
 * no CUDA, no NCCL, no comparator (the sample's order arrives as a permutation). Internal.
 *
 * Order. Keys are ordered by (key, rank, index in the rank's sorted shard). A stable sort of
 * each shard keeps equal keys in input order, so this is the global input order among equal
 * keys: the result is stable across ranks, and runs of equal keys split by position.
 *
 * Samples. A shard of n keys gives c = min(n, s) samples. Its sorted positions are cut into c
 * spans, the first n % c of d + 1 keys and the others of d = n / c keys; sample j sits in the
 * middle of span j (its start plus half its width, rounded down) and weighs the span's width.
 * The positions form two strided runs, so two 2D copies gather them. A rank with no keys gives
 * none.
 *
 * Splitters. Over all M samples in order, with C(x) the weight of the samples before x,
 * splitter q (1 <= q < P) is the first sample x with (C(x) + weight(x)) * P > q * N: the sample
 * whose span holds the target q * N / P. Rank r's split for it is the number of its keys
 * ordered before the splitter (key k, rank r_q, index i_q): its keys not after k when r < r_q,
 * its keys before k when r > r_q, i_q when r == r_q. Receiver q gets, from every rank, the keys
 * from split q to split q + 1 (split 0 = 0, split P = the shard's size).
 *
 * Bound (every receiver, proven here). For a key x let G(x) be the number of keys before it
 * and W(x) its estimate from the samples, the sum over ranks of the span starts b_m(r) where m
 * samples of r come before x. Rank r's count before x lies in [p_{m-1} + 1, p_m] and so does
 * b_m (a span starts after the sample before it and at or before its own), with p the sample
 * positions: the two differ by at most half a span, floor(w_r / 2) with w_r = ceil(n_r / c_r).
 * Summed, |G - W| <= H = sum_r floor(w_r / 2). The choice gives q N / P - w_max < W(splitter q)
 * <= q N / P, exactly for q = 0 and P. So receiver q gets
 *     G(x_{q+1}) - G(x_q) < N / P + w_max + 2 H <= N / P + N / s + n_max / s + P + 1,
 * as w_r <= n_r / s + 1 (w_r = 1 when n_r <= s, then floor(w_r / 2) = 0). For s = 1024 and
 * P = 8: at most 2 P / s = 1.6% above N / P, plus P + 1.
 *
 * Merges. A receiver lays its P runs out in rank order and merges neighbours pairwise (the
 * lower rank as a, stable) level by level, between the output and a temporary buffer of the
 * same size, starting in the one that makes the last level write the output. */
#ifndef MJ_MULTI_PLAN_H
#define MJ_MULTI_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* Samples per rank. */
#define MJ__MULTI_SAMPLES 1024

/* c = min(n, s) samples, positions first, first + stride, ... (count of them). */
typedef struct mj_sample_run {
    uint64_t first, stride, count;
} mj_sample_run;

/* How many samples a shard of n keys gives: min(n, s). */
size_t mj__multi_sample_count(uint64_t n, size_t s);
/* Sample j's position in the sorted shard and the width of its span (its weight). */
uint64_t mj__multi_sample_position(uint64_t n, size_t s, size_t j);
uint64_t mj__multi_sample_weight(uint64_t n, size_t s, size_t j);
/* The positions as strided runs: how many runs (0, 1 or 2) are written to runs. */
int mj__multi_sample_runs(uint64_t n, size_t s, mj_sample_run runs[2]);

/* A splitter: sample `sample` of the ordered samples (its index among all samples, rank 0's
 * first), which is sample `index` of rank `rank`, at `position` in that rank's shard. */
typedef struct mj_splitter {
    size_t sample;
    int rank;
    uint64_t position;
} mj_splitter;

/* The ranks - 1 splitters (q = 1 .. ranks - 1 in out[0 .. ranks - 2]) from the samples of
 * shards of n[0 .. ranks - 1] keys with s samples at most each, given their order: order[k] is
 * the index of the k-th smallest of the m = sum of mj__multi_sample_count(n[r], s) samples
 * (rank 0's first). With no keys at all (m = 0) the splitters are all rank 0, position 0: every
 * split is then 0. Returns 0, or -1 when m does not match n, or order holds an index out of
 * range (out is then unspecified). */
int mj__multi_pick_splitters(int ranks, const uint64_t *n, size_t s, const uint32_t *order,
                             size_t m, mj_splitter *out);

/* Where rank `rank`'s split for splitter sp lies in its shard, from the samples' order alone
 * (see Bound above): with c of its samples before the splitter in order, in [*lo, *hi], lo
 * the position after its sample c - 1 (0 for none) and hi its sample c's (n[rank] past its
 * last). A search of the splitter's key in the shard's keys [lo, hi) then finds the split:
 * lo plus the key's upper bound there for a rank before the splitter's, its lower bound for a
 * rank after it (this rank's samples equal to the key come before the splitter in order in
 * the first case and after it in the second). For the splitter's own rank lo = hi =
 * sp->position. Returns 0, or -1 when the splitter's sample is not in order[0 .. m). */
int mj__multi_bracket(int ranks, int rank, const uint64_t *n, size_t s, const uint32_t *order,
                      size_t m, const mj_splitter *sp, uint64_t *lo, uint64_t *hi);

/* Rank `rank`'s split points split[0 .. ranks] in its shard of n keys: 0, then for each
 * splitter q (sp[q - 1]) from the search of its key in the shard, lower[q - 1] (the first key
 * not before it) and equal[q - 1] (how many keys are equivalent to it), then n. Clamped to be
 * ascending and within n, so that even a comparator that is not a strict weak order gives
 * counts that stay inside the arrays. */
void mj__multi_split_row(int ranks, int rank, uint64_t n, const mj_splitter *sp,
                         const uint64_t *lower, const uint64_t *equal, uint64_t *split);

/* What rank `rank` receives from each rank, from every rank's split row (rank r's split q at
 * rows[r * stride + q]): recv[r] keys from rank r, at offset[r] of its output (rank order).
 * Returns the total. */
uint64_t mj__multi_recv(int ranks, int rank, const uint64_t *rows, size_t stride, uint64_t *recv,
                        uint64_t *offset);

/* One step of the merge tree: a_count elements at a_at and the b_count after them, read from
 * buffer `from` (0 the output, 1 the temporary buffer), merged to the same place in the other
 * buffer; b_count 0 (the odd run out of a level) is a copy. At level 0 each half is one run,
 * a_run and b_run (its rank; -1 for no b), which the receiver may read from where it already
 * is instead (its own part, from its input); above level 0 both are -1. */
typedef struct mj_merge_step {
    int level;
    int from;
    uint64_t a_at, a_count, b_count;
    int a_run, b_run;
} mj_merge_step;

/* The most steps a merge tree of `runs` runs takes. */
size_t mj__multi_merge_steps_max(int runs);
/* The merge tree of `runs` adjacent runs of counts[0 .. runs - 1] elements, laid out in order
 * in buffer *first (0 the output, 1 the temporary buffer: chosen so that the last level writes
 * the output): its steps in order, level by level; returns how many. Empty runs take no part
 * (the tree is over the others), so one non-empty run needs no step and *first is then 0. */
size_t mj__multi_merge_schedule(int runs, const uint64_t *counts, mj_merge_step *steps,
                                int *first);

#endif
