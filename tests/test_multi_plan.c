/* SPDX-License-Identifier: Apache-2.0 */
/* A CPU model of the sample sort across ranks (primitives/multi_plan.h, the plan api/multi*.c
 * runs over NCCL): P = 1..8 simulated ranks with integer keys and a host comparator. Each rank
 * sorts its shard stably, samples it where the plan says, the samples are ordered by a stable
 * sort (as the GPU's index sort orders them), the plan picks the splitters, each rank splits
 * its shard by binary searches (the GPU's sorted search), each receiver lays its runs out and
 * runs the merge tree step by step. The concatenated result must be the stable sort of the
 * whole (keys and input positions), and no receiver may get as many as
 *     N / P + N / s + n_max / s + P + 1
 * keys (the bound proven in multi_plan.h), for random, all-equal, few-distinct, sorted and
 * reverse keys, empty ranks, one rank holding everything, very unequal shards, N < P, N = 0,
 * and sample counts s from 1 to the library's. CPU only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primitives/multi_plan.h"
#include "test_support.h"

#define MAXP 8

typedef struct elem {
    uint32_t key, pos; /* pos: the global input position (rank order, then shard order) */
} elem;

static int elem_cmp(const void *x, const void *y) {
    const elem *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Samples ordered by key, ties by their index (rank 0's first): a stable sort. */
typedef struct sample {
    uint32_t key, index;
} sample;
static int sample_cmp(const void *x, const void *y) {
    const sample *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static uint64_t lower_bound(const elem *e, uint64_t n, uint32_t key) {
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (e[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The stable merge of a (na) and b (nb) into out: on equal keys a's first. */
static void merge(const elem *a, uint64_t na, const elem *b, uint64_t nb, elem *out) {
    uint64_t i = 0, j = 0, k = 0;
    while (i < na || j < nb) {
        if (j >= nb || (i < na && !(b[j].key < a[i].key)))
            out[k++] = a[i++];
        else
            out[k++] = b[j++];
    }
}

enum { D_RANDOM, D_EQUAL, D_FEW, D_SORTED, D_REVERSE, D_SKEWED, D_COUNT };
enum { S_EQUAL, S_FIRST_EMPTY, S_HALF_EMPTY, S_ONE_HOLDS_ALL, S_GEOMETRIC, S_BELOW_P, S_NONE,
       S_COUNT };
static const char *const dist_names[] = {"random", "all-equal", "few", "sorted", "reverse",
                                         "skewed"};
static const char *const shape_names[] = {"equal", "first empty", "half empty", "one holds all",
                                          "geometric", "N < P", "none"};

/* The shard sizes of `shape` for P ranks around `base` keys each. */
static void shard_sizes(int shape, int P, uint64_t base, uint64_t *n) {
    for (int r = 0; r < P; ++r) {
        switch (shape) {
        case S_EQUAL: n[r] = base; break;
        case S_FIRST_EMPTY: n[r] = r == 0 ? 0 : base + (uint64_t)r; break;
        case S_HALF_EMPTY: n[r] = r % 2 ? 0 : base * 2 + 1; break;
        case S_ONE_HOLDS_ALL: n[r] = r == P / 2 ? base * (uint64_t)P : 0; break;
        case S_GEOMETRIC: n[r] = (base * 4) >> (2 * r < 20 ? 2 * r : 20); break;
        case S_BELOW_P: n[r] = r + 1 < P ? 1 : 0; break;
        default: n[r] = 0; break;
        }
    }
}

static uint32_t key_at(int dist, uint64_t i, uint64_t N, uint64_t *rng) {
    switch (dist) {
    case D_RANDOM: return (uint32_t)(mjt_rand(rng) % (N + 1));
    case D_EQUAL: return 7;
    case D_FEW: return (uint32_t)(mjt_rand(rng) % 3);
    case D_SORTED: return (uint32_t)i;
    case D_REVERSE: return (uint32_t)(N - i);
    default: return mjt_rand(rng) % 10 ? 5 : (uint32_t)(mjt_rand(rng) % 100); /* 90% one key */
    }
}

/* One simulated sort of P shards; fails the test on a wrong result or a broken bound. */
static void simulate(int P, const uint64_t *n, size_t s, int dist, uint64_t seed,
                     const char *what) {
    uint64_t N = 0, n_max = 0, rng = seed;
    for (int r = 0; r < P; ++r) {
        N += n[r];
        n_max = n[r] > n_max ? n[r] : n_max;
    }
    elem *all = malloc((N + 1) * sizeof *all), *result = malloc((N + 1) * sizeof *all);
    elem *shard[MAXP];
    ck_assert(all && result);
    for (uint64_t i = 0; i < N; ++i) all[i] = (elem){key_at(dist, i, N, &rng), (uint32_t)i};

    /* Each rank sorts its shard stably. */
    uint64_t at = 0;
    for (int r = 0; r < P; ++r) {
        shard[r] = all + at;
        at += n[r];
    }
    elem *sorted = malloc((N + 1) * sizeof *sorted);
    ck_assert_ptr_nonnull(sorted);
    memcpy(sorted, all, N * sizeof *all);
    for (int r = 0; r < P; ++r) qsort(shard[r], n[r], sizeof *all, elem_cmp);

    /* The samples, rank 0's first, and their order. */
    size_t m = 0;
    for (int r = 0; r < P; ++r) m += mj__multi_sample_count(n[r], s);
    sample *smp = malloc((m + 1) * sizeof *smp);
    uint32_t *order = malloc((m + 1) * sizeof *order);
    int *smp_rank = malloc((m + 1) * sizeof *smp_rank);
    uint64_t *smp_pos = malloc((m + 1) * sizeof *smp_pos);
    ck_assert(smp && order && smp_rank && smp_pos);
    size_t k = 0;
    for (int r = 0; r < P; ++r)
        for (size_t j = 0; j < mj__multi_sample_count(n[r], s); ++j, ++k) {
            smp_pos[k] = mj__multi_sample_position(n[r], s, j);
            ck_assert_uint_lt(smp_pos[k], n[r]);
            smp[k] = (sample){shard[r][smp_pos[k]].key, (uint32_t)k};
            smp_rank[k] = r;
        }
    qsort(smp, m, sizeof *smp, sample_cmp);
    for (k = 0; k < m; ++k) order[k] = smp[k].index;

    mj_splitter sp[MAXP];
    ck_assert_int_eq(mj__multi_pick_splitters(P, n, s, order, m, sp), 0);
    /* Splitters are samples, ascending in (key, rank, position). */
    for (int q = 1; q < P && m; ++q) {
        const mj_splitter *x = &sp[q - 1];
        ck_assert_uint_lt(x->sample, m);
        ck_assert_int_eq(x->rank, smp_rank[x->sample]);
        ck_assert_uint_eq(x->position, smp_pos[x->sample]);
        if (q > 1) {
            const mj_splitter *w = &sp[q - 2];
            elem a = shard[w->rank][w->position], b = shard[x->rank][x->position];
            ck_assert_msg(a.key < b.key || (a.key == b.key && (w->rank < x->rank ||
                          (w->rank == x->rank && w->position <= x->position))),
                          "%s: splitters %d and %d out of order", what, q - 1, q);
        }
    }

    /* Each rank's split row, from binary searches of the splitters' keys in the whole shard;
     * and the same split found by a search of the bracket alone (mj__multi_bracket), as the
     * GPU's sorted search of [lo, hi) finds it. */
    uint64_t rows[MAXP * (MAXP + 1)], bracketed[MAXP * (MAXP + 1)];
    for (int r = 0; r < P; ++r) {
        uint64_t lower[MAXP], equal[MAXP], found[MAXP], none[MAXP] = {0};
        for (int q = 1; q < P; ++q) {
            const mj_splitter *x = &sp[q - 1];
            uint32_t key = m ? shard[x->rank][x->position].key : 0;
            lower[q - 1] = lower_bound(shard[r], n[r], key);
            equal[q - 1] = lower_bound(shard[r], n[r], key + 1) - lower[q - 1];
            if (key == UINT32_MAX) equal[q - 1] = n[r] - lower[q - 1];
            if (!m) {
                found[q - 1] = 0;
                continue;
            }
            uint64_t lo = 0, hi = 0;
            ck_assert_int_eq(mj__multi_bracket(P, r, n, s, order, m, x, &lo, &hi), 0);
            ck_assert_uint_le(lo, hi);
            ck_assert_uint_le(hi, n[r]);
            uint64_t want = r < x->rank ? lower[q - 1] + equal[q - 1] : lower[q - 1];
            if (r == x->rank) want = x->position;
            ck_assert_msg(lo <= want && want <= hi, "%s: rank %d, splitter %d: split %llu "
                          "outside [%llu, %llu]", what, r, q, (unsigned long long)want,
                          (unsigned long long)lo, (unsigned long long)hi);
            /* The bracket's search: the upper bound before the splitter's rank, else the
             * lower bound, in [lo, hi). */
            uint64_t b = lower_bound(shard[r] + lo, hi - lo, key);
            if (r < x->rank)
                b = key == UINT32_MAX ? hi - lo : lower_bound(shard[r] + lo, hi - lo, key + 1);
            found[q - 1] = r == x->rank ? 0 : lo + b;
        }
        mj__multi_split_row(P, r, n[r], sp, lower, equal, rows + r * (P + 1));
        mj__multi_split_row(P, r, n[r], sp, found, none, bracketed + r * (P + 1));
        for (int q = 0; q <= P; ++q)
            ck_assert_msg(bracketed[r * (P + 1) + q] == rows[r * (P + 1) + q],
                          "%s: rank %d, split %d: %llu by the bracket, %llu by the shard", what,
                          r, q, (unsigned long long)bracketed[r * (P + 1) + q],
                          (unsigned long long)rows[r * (P + 1) + q]);
    }

    /* Each receiver: its runs laid out in buffer `first`, then the merge tree. */
    uint64_t done = 0;
    for (int q = 0; q < P; ++q) {
        uint64_t recv[MAXP], off[MAXP];
        uint64_t total = mj__multi_recv(P, q, rows, (size_t)P + 1, recv, off);
        /* total < N / P + N / s + n_max / s + P + 1, times P * s. */
        ck_assert_msg(total * P * s < N * s + N * P + n_max * P + (uint64_t)(P + 1) * P * s,
                      "%s: rank %d receives %llu of %llu keys, above the bound", what, q,
                      (unsigned long long)total, (unsigned long long)N);
        elem *buf[2] = {malloc((total + 1) * sizeof *all), malloc((total + 1) * sizeof *all)};
        ck_assert(buf[0] && buf[1]);
        mj_merge_step steps[2 * MAXP];
        int first = -1;
        size_t count = mj__multi_merge_schedule(P, recv, steps, &first);
        ck_assert_uint_le(count, mj__multi_merge_steps_max(P));
        /* As the library does: the receiver's own run stays in its shard when the tree's
         * first level reads it from there (a_run, b_run), and is laid out only when the tree
         * has no step. */
        for (int r = 0; r < P; ++r)
            if (r != q || !count)
                memcpy(buf[first] + off[r], shard[r] + rows[r * (P + 1) + q],
                       recv[r] * sizeof *all);
        int level = -1, from = 1 - first;
        for (size_t i = 0; i < count; ++i) {
            const mj_merge_step *st = &steps[i];
            if (st->level != level) { /* a new level reads what the last one wrote */
                ck_assert_int_eq(st->level, level + 1);
                ck_assert_int_eq(st->from, 1 - from);
                level = st->level;
                from = st->from;
            }
            ck_assert_int_eq(st->from, from);
            ck_assert_uint_le(st->a_at + st->a_count + st->b_count, total);
            elem *src = buf[from] + st->a_at, *dst = buf[1 - from] + st->a_at;
            const elem *a = src, *b = src + st->a_count;
            ck_assert_int_eq(st->a_run < 0, st->level > 0);
            ck_assert(st->level == 0 ? st->b_run > st->a_run || (st->b_run < 0 && !st->b_count)
                                     : st->b_run < 0);
            if (st->a_run >= 0) {
                ck_assert_uint_eq(st->a_count, recv[st->a_run]);
                ck_assert_uint_eq(st->a_at, off[st->a_run]);
            }
            if (st->b_run >= 0) ck_assert_uint_eq(st->b_count, recv[st->b_run]);
            if (st->a_run == q) a = shard[q] + rows[q * (P + 1) + q];
            if (st->b_run == q) b = shard[q] + rows[q * (P + 1) + q];
            merge(a, st->a_count, b, st->b_count, dst);
        }
        ck_assert_int_eq(count ? 1 - from : first, 0); /* the output holds the result */
        memcpy(result + done, buf[0], total * sizeof *all);
        done += total;
        free(buf[0]);
        free(buf[1]);
    }
    ck_assert_uint_eq(done, N);
    qsort(sorted, N, sizeof *sorted, elem_cmp);
    for (uint64_t i = 0; i < N; ++i)
        ck_assert_msg(result[i].key == sorted[i].key && result[i].pos == sorted[i].pos,
                      "%s: element %llu of %llu is (%u, %u), expected (%u, %u)", what,
                      (unsigned long long)i, (unsigned long long)N, result[i].key, result[i].pos,
                      sorted[i].key, sorted[i].pos);
    free(all);
    free(sorted);
    free(result);
    free(smp);
    free(order);
    free(smp_rank);
    free(smp_pos);
}

/* Every shape and distribution for P = _i + 1 ranks, at several sample counts. */
START_TEST(sorts_like_the_cpu) {
    int P = _i + 1;
    const size_t samples[] = {1, 3, 16, MJ__MULTI_SAMPLES};
    const uint64_t bases[] = {1, 7, 300, 2000};
    for (size_t si = 0; si < sizeof samples / sizeof *samples; ++si)
        for (size_t bi = 0; bi < sizeof bases / sizeof *bases; ++bi)
            for (int shape = 0; shape < S_COUNT; ++shape)
                for (int dist = 0; dist < D_COUNT; ++dist) {
                    uint64_t n[MAXP];
                    shard_sizes(shape, P, bases[bi], n);
                    char what[160];
                    snprintf(what, sizeof what, "P=%d s=%zu base=%llu %s %s", P, samples[si],
                             (unsigned long long)bases[bi], shape_names[shape],
                             dist_names[dist]);
                    simulate(P, n, samples[si], dist, 1000 * (uint64_t)P + si * 100 + bi * 10 +
                             (uint64_t)dist, what);
                }
}
END_TEST

/* All-equal keys in equal shards split within a few keys of N / P with the library's s. */
START_TEST(equal_keys_balance) {
    for (int P = 2; P <= MAXP; ++P) {
        uint64_t n[MAXP];
        shard_sizes(S_EQUAL, P, 5000, n);
        simulate(P, n, MJ__MULTI_SAMPLES, D_EQUAL, 3, "all-equal balance");
        /* The plan alone: every receiver within 8 keys of N / P. */
        size_t m = 0;
        for (int r = 0; r < P; ++r) m += mj__multi_sample_count(n[r], MJ__MULTI_SAMPLES);
        uint32_t *order = malloc(m * sizeof *order);
        ck_assert_ptr_nonnull(order);
        for (size_t k = 0; k < m; ++k) order[k] = (uint32_t)k; /* equal keys: index order */
        mj_splitter sp[MAXP];
        ck_assert_int_eq(mj__multi_pick_splitters(P, n, MJ__MULTI_SAMPLES, order, m, sp), 0);
        uint64_t rows[MAXP * (MAXP + 1)], lower[MAXP], equal[MAXP];
        for (int q = 1; q < P; ++q) {
            lower[q - 1] = 0;
            equal[q - 1] = 5000;
        }
        for (int r = 0; r < P; ++r)
            mj__multi_split_row(P, r, n[r], sp, lower, equal, rows + r * (P + 1));
        for (int q = 0; q < P; ++q) {
            uint64_t recv[MAXP], off[MAXP];
            uint64_t total = mj__multi_recv(P, q, rows, (size_t)P + 1, recv, off);
            ck_assert_msg(total + 8 >= 5000 && total <= 5000 + 8, "P=%d: rank %d gets %llu", P,
                          q, (unsigned long long)total);
        }
        free(order);
    }
}
END_TEST

/* Positions and weights: spans cover the shard, each sample inside its span, two strided runs
 * that list the same positions. */
START_TEST(samples_cover_the_shard) {
    const size_t samples[] = {1, 2, 3, 7, 64, MJ__MULTI_SAMPLES};
    for (size_t si = 0; si < sizeof samples / sizeof *samples; ++si)
        for (uint64_t n = 0; n < 3000; n += n < 40 ? 1 : 37) {
            size_t s = samples[si], c = mj__multi_sample_count(n, s);
            ck_assert_uint_eq(c, n < s ? n : s);
            uint64_t start = 0, prev = 0;
            for (size_t j = 0; j < c; ++j) {
                uint64_t w = mj__multi_sample_weight(n, s, j);
                uint64_t p = mj__multi_sample_position(n, s, j);
                ck_assert(w >= n / c && w <= n / c + 1);
                ck_assert(p >= start && p < start + w && p - start == w / 2);
                ck_assert(j == 0 || p > prev);
                prev = p;
                start += w;
            }
            ck_assert_uint_eq(start, n);
            mj_sample_run runs[2];
            int k = mj__multi_sample_runs(n, s, runs);
            ck_assert_int_eq(k, c == 0 ? 0 : n % c ? 2 : 1);
            size_t j = 0;
            for (int i = 0; i < k; ++i)
                for (uint64_t t = 0; t < runs[i].count; ++t, ++j)
                    ck_assert_uint_eq(runs[i].first + t * runs[i].stride,
                                      mj__multi_sample_position(n, s, j));
            ck_assert_uint_eq(j, c);
        }
}
END_TEST

/* The merge tree: levels alternate buffers, cover every live element once per level, and the
 * last writes the output; empty runs take no part. */
START_TEST(merge_tree_shapes) {
    uint64_t rng = 11;
    for (int runs = 1; runs <= 17; ++runs)
        for (int trial = 0; trial < 40; ++trial) {
            uint64_t counts[17], total = 0;
            int live = 0;
            for (int r = 0; r < runs; ++r) {
                counts[r] = mjt_rand(&rng) % 3 ? mjt_rand(&rng) % 50 + 1 : 0;
                total += counts[r];
                live += counts[r] > 0;
            }
            mj_merge_step steps[34];
            int first = -1;
            size_t k = mj__multi_merge_schedule(runs, counts, steps, &first);
            ck_assert_uint_le(k, mj__multi_merge_steps_max(runs));
            int levels = 0;
            while ((1 << levels) < live) ++levels;
            ck_assert_int_eq(first, levels & 1);
            uint64_t covered[6] = {0};
            for (size_t i = 0; i < k; ++i) {
                ck_assert_int_lt(steps[i].level, levels);
                ck_assert_int_eq(steps[i].from, (first + steps[i].level) & 1);
                ck_assert(steps[i].a_count > 0);
                /* Level 0 names its runs: one each, the b run after the a run. */
                if (steps[i].level == 0) {
                    ck_assert(steps[i].a_run >= 0 && steps[i].a_run < runs);
                    ck_assert_uint_eq(steps[i].a_count, counts[steps[i].a_run]);
                    if (steps[i].b_count) {
                        ck_assert(steps[i].b_run > steps[i].a_run && steps[i].b_run < runs);
                        ck_assert_uint_eq(steps[i].b_count, counts[steps[i].b_run]);
                    } else {
                        ck_assert_int_eq(steps[i].b_run, -1);
                    }
                } else {
                    ck_assert(steps[i].a_run == -1 && steps[i].b_run == -1);
                }
                ck_assert(i == 0 || steps[i].level > steps[i - 1].level ||
                          steps[i].a_at == steps[i - 1].a_at + steps[i - 1].a_count +
                                               steps[i - 1].b_count);
                covered[steps[i].level] += steps[i].a_count + steps[i].b_count;
            }
            for (int l = 0; l < levels; ++l) ck_assert_uint_eq(covered[l], total);
            ck_assert(k == 0 || steps[k - 1].from == 1);
        }
}
END_TEST

/* Search results that no strict weak order gives still make ascending splits within n; an
 * order that names samples that do not exist is refused. */
START_TEST(bad_inputs_stay_inside) {
    mj_splitter sp[3] = {{0, 1, 5}, {1, 0, 0}, {2, 2, 1}};
    uint64_t lower[3] = {90, 3, UINT64_MAX}, equal[3] = {UINT64_MAX, 0, 4}, split[5];
    for (int rank = 0; rank < 4; ++rank) {
        mj__multi_split_row(4, rank, 10, sp, lower, equal, split);
        ck_assert_uint_eq(split[0], 0);
        ck_assert_uint_eq(split[4], 10);
        for (int q = 1; q <= 4; ++q) ck_assert(split[q] >= split[q - 1] && split[q] <= 10);
    }
    uint64_t n[2] = {3, 2};
    uint32_t order[5] = {9, 0, 1, 2, 3};
    ck_assert_int_eq(mj__multi_pick_splitters(2, n, 4, order, 5, sp), -1);
    ck_assert_int_eq(mj__multi_pick_splitters(2, n, 4, order, 4, sp), -1);
}
END_TEST

static Suite *multi_plan_suite(void) {
    Suite *s = suite_create("multi_plan");
    TCase *tc = tcase_create("plan");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, sorts_like_the_cpu, 0, MAXP);
    tcase_add_test(tc, equal_keys_balance);
    tcase_add_test(tc, samples_cover_the_shard);
    tcase_add_test(tc, merge_tree_shapes);
    tcase_add_test(tc, bad_inputs_stay_inside);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(multi_plan_suite(), 1); }
