/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo --primitive search` (cmd_demo.c hands it over after opening the device): n
 * random keys of --type, the first half and the second each sorted on the CPU, searched in one
 * another with every output (lower bound, 8-byte indices), checked key by key against binary
 * searches over the keys' ranks on the CPU, then timed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "devmem.h"

int demo_is_search(mj_primitive primitive) { return primitive == MJ_SORTED_SEARCH; }

typedef struct search_job {
    mj_sorter *s;
    void *a, *b, *temp;
    size_t na, nb, temp_bytes;
    mj_search_outputs out;
} search_job;

static mj_status run_search(void *arg)
{
    search_job *j = arg;
    return mj_sorter_sorted_search(j->s, j->a, j->na, j->b, j->nb, &j->out, j->temp,
                                   j->temp_bytes, NULL);
}

/* The first position in r[0, n) whose rank is not below v (lower) or above v (upper). */
static size_t rank_bound(const uint64_t *r, size_t n, uint64_t v, int upper)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (upper ? r[mid] <= v : r[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Every output of one side against the ranks: mismatches, the first in *first. */
static size_t check_side(const uint64_t *mine, size_t n, const uint64_t *other, size_t m,
                         int upper, const uint64_t *idx, const uint8_t *match,
                         const uint64_t *count, uint64_t *matched, size_t *first)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        size_t lo = rank_bound(other, m, mine[i], 0), hi = rank_bound(other, m, mine[i], 1);
        *matched += hi > lo;
        int ok = idx[i] == (upper ? hi : lo) && match[i] == (hi > lo) &&
                 (!count || count[i] == hi - lo);
        if (!ok && bad++ == 0)
            *first = i;
    }
    return bad;
}

/* Sorts n keys of `kind` on the CPU in place; their ranks (kg_rank) into rank. */
static mj_status sort_keys(const demo_opts *o, unsigned char *keys, size_t n, uint64_t *rank)
{
    size_t ks = mj_key_kind_size(o->kind);
    uint64_t *perm = malloc((n ? n : 1) * sizeof *perm);
    unsigned char *tmp = malloc(n * ks + 1);
    mj_status st = perm && tmp ? kg_reference_sort(o->kind, o->order, keys, n, perm)
                               : MJ_ERR_HOST_MEMORY;
    if (st == MJ_OK) {
        for (size_t i = 0; i < n; i++)
            memcpy(tmp + i * ks, keys + perm[i] * ks, ks);
        memcpy(keys, tmp, n * ks);
        for (size_t i = 0; i < n; i++)
            rank[i] = kg_rank(o->kind, o->order, keys + i * ks);
    }
    free(perm);
    free(tmp);
    return st;
}

int demo_search_run(mj_context *ctx, const demo_opts *o, size_t n)
{
    size_t ks = mj_key_kind_size(o->kind), na = n / 2, nb = n - n / 2;
    search_job j;
    memset(&j, 0, sizeof j);
    j.na = na;
    j.nb = nb;
    j.out.bound = MJ_BOUND_LOWER;
    j.out.index_size = 8;
    unsigned char *keys = malloc(n * ks + 1);
    uint64_t *rank = malloc((n + 1) * sizeof *rank);
    uint64_t *a_idx = malloc((na + 1) * 8), *a_cnt = malloc((na + 1) * 8);
    uint64_t *b_idx = malloc((nb + 1) * 8), got_matched[2] = {0, 0};
    uint8_t *a_m = malloc(na + 1), *b_m = malloc(nb + 1);
    float *times = o->reps > 0 ? malloc((size_t)o->reps * sizeof *times) : NULL;
    int rc = CLI_OK, launched = 0;
    mj_status st = MJ_OK;
    if (!keys || !rank || !a_idx || !a_cnt || !b_idx || !a_m || !b_m ||
        (o->reps > 0 && !times)) {
        rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate the host buffers");
        goto done;
    }
    kg_fill_keys(o->kind, keys, n, o->seed);
    if ((st = sort_keys(o, keys, na, rank)) != MJ_OK ||
        (st = sort_keys(o, keys + na * ks, nb, rank + na)) != MJ_OK) {
        rc = cli_tool_error(st, "cannot sort the keys on the CPU");
        goto done;
    }
    printf("a: the first %zu keys, b: the other %zu, each sorted\n", na, nb);
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, o->kind, o->order);
    desc.primitive = MJ_SORTED_SEARCH;
    st = demo_sorter(ctx, &desc, n, &j.s, &j.temp_bytes);
    void **bufs[] = {&j.a, &j.b, &j.temp, &j.out.a_indices, &j.out.a_matches, &j.out.a_counts,
                     &j.out.b_indices, &j.out.b_matches, &j.out.match_counts};
    size_t sizes[] = {na * ks + 1, nb * ks + 1, j.temp_bytes, na * 8 + 8, na + 1, na * 8 + 8,
                      nb * 8 + 8, nb + 1, 16};
    for (size_t i = 0; st == MJ_OK && i < sizeof bufs / sizeof *bufs; i++)
        st = mj__dev_alloc(ctx, bufs[i], sizes[i]);
    if (st == MJ_OK && !(st = mj__dev_upload(ctx, j.a, keys, na * ks)))
        st = mj__dev_upload(ctx, j.b, keys + na * ks, nb * ks);
    if (st == MJ_OK) {
        launched = 1;
        st = run_search(&j);
    }
    if (st == MJ_OK && !(st = mj__dev_sync(ctx, NULL)) &&
        !(st = mj__dev_download(ctx, a_idx, j.out.a_indices, na * 8)) &&
        !(st = mj__dev_download(ctx, a_m, j.out.a_matches, na)) &&
        !(st = mj__dev_download(ctx, a_cnt, j.out.a_counts, na * 8)) &&
        !(st = mj__dev_download(ctx, b_idx, j.out.b_indices, nb * 8)) &&
        !(st = mj__dev_download(ctx, b_m, j.out.b_matches, nb)))
        st = mj__dev_download(ctx, got_matched, j.out.match_counts, 16);
    if (st != MJ_OK) {
        rc = cli_status_error(ctx, st);
        goto done;
    }
    uint64_t matched[2] = {0, 0};
    size_t first_a = 0, first_b = 0;
    size_t bad_a = check_side(rank, na, rank + na, nb, 0, a_idx, a_m, a_cnt, &matched[0],
                              &first_a);
    size_t bad_b = check_side(rank + na, nb, rank, na, 1, b_idx, b_m, NULL, &matched[1],
                              &first_b);
    int bad = bad_a || bad_b || matched[0] != got_matched[0] || matched[1] != got_matched[1];
    if (bad)
        printf("check: %zu of a's and %zu of b's keys differ from the CPU (first at %zu and "
               "%zu); match counts %llu and %llu, the CPU's %llu and %llu\n", bad_a, bad_b,
               first_a, first_b, (unsigned long long)got_matched[0],
               (unsigned long long)got_matched[1], (unsigned long long)matched[0],
               (unsigned long long)matched[1]);
    else
        printf("check: bounds, matches, counts and match counts (%llu of a, %llu of b) match "
               "the CPU\n", (unsigned long long)matched[0], (unsigned long long)matched[1]);
    float med = 0;
    if (rc == CLI_OK)
        rc = demo_time_runs(ctx, o, run_search, &j, times, &med);
    if (rc == CLI_OK && o->reps > 0) {
        printf("time: median %.3f ms over %ld runs (every output, two merges): %.2f Gkeys/s\n",
               med, o->reps, med > 0 ? (double)n / (med * 1e6) : 0.0);
    }
    if (rc == CLI_OK)
        rc = demo_verdict(bad);
done:
    if (launched)
        (void)mj__dev_sync(ctx, NULL);
    void *const dev[] = {j.a, j.b, j.temp, j.out.a_indices, j.out.a_matches, j.out.a_counts,
                         j.out.b_indices, j.out.b_matches, j.out.match_counts};
    demo_release(ctx, dev, sizeof dev / sizeof *dev, j.s);
    free(keys);
    free(rank);
    free(a_idx);
    free(a_cnt);
    free(b_idx);
    free(a_m);
    free(b_m);
    free(times);
    return rc;
}
