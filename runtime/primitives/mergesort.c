/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of mergesort: temporary storage, the pass schedule (a blocksort, then merge
 * passes of four lists or two, each a partition and a merge kernel of its kind, or a 2-way
 * pass's merge kernel alone finding its own partitions) and the launches. */
#include "primitives/mergesort.h"

#include <stdint.h>
#include <stdlib.h>

#include "core/context.h"
#include "gen.h"
#include "primitives/run.h"
#include "shared/merge_frame.h"

#define MJ_PARTITION_THREADS 128

/* The schedule switches where MERGEJIT_FUSED_PARTITION and MERGEJIT_PDL are unset. One H100
 * run of bench_sort (speed over CUB's DeviceMergeSort; u32 keys, u64 keys, u32 pairs; two
 * launches a pass -> fused): 2^16 0.81/0.80/0.87 -> 1.06/1.03/1.19, 2^20 0.88/0.95/0.88 ->
 * 1.26/1.28/1.22, 2^22 0.95/1.11/0.99 -> 1.21/1.23/1.05, 2^24 u32 1.03 -> 1.08, 2^27 the same
 * within 1%. PDL on top of it gained at 2^16-2^18 (up to 7%) and lost at 2^20-2^22 (up to 14%)
 * then. With the 4-way passes of later sessions it pays for 4-byte elements alone: two H100
 * runs of bench_sort (PDL off -> on), u32 keys at 2^22 1.24 -> 1.30, 2^24 1.47 -> 1.50, 2^25
 * 1.50 -> 1.52, 2^27 1.594 -> 1.60, f32 keys alike; but at 2^20 u64 keys 1.29 -> 1.16 and u32
 * pairs 1.23 -> 1.12, and u64 keys at 2^25-2^27 lost 1-1.5%; three more runs of 4-byte keys,
 * mergejit's own rate: 2^18 +2-10%, 2^20 +1%, 2^21 -1.5-2%, 2^22-2^23 +3.5-4%, 2^24 +2%. So it
 * is on for sorters of 4-byte elements (MJ_PDL_DEFAULT_BYTES: key and value together) and off
 * for the rest. Serpentine order (pass p walks its tiles from the last when p is even, so that
 * it starts on what the pass before wrote last, still in L2), one H100 run of bench_sort
 * --sizes 22,24,25,27 (u32 keys, u64 keys, u32 pairs; off -> on): 2^22 1.18/1.22/1.05 ->
 * 1.19/1.31/1.12, 2^24 1.07/1.43/1.20 -> 1.12/1.44/1.21, 2^25 and 2^27 the same within 0.5%. */
#define MJ_FUSED_PARTITION_DEFAULT 1
#define MJ_PDL_DEFAULT_BYTES 4
#define MJ_SERPENTINE_DEFAULT 1

/* Mergesort's temporary storage: [key scratch][second key scratch, index sorts only]
 * [value scratch][partitions: a tile's 4-way split, 4 offsets (2-way passes use one)]. */
typedef struct temp_layout {
    size_t keys, keys2, values, partitions, total;
} temp_layout;

static mj_status layout(const mj_sorter *s, size_t n, int indices, temp_layout *t) {
    mj_temp_layout l = {0, 0};
    size_t nv = (size_t)s->nt * s->vt;
    size_t tiles = n / nv + (n % nv != 0); /* in size_t: n may be beyond what long long holds */
    t->keys = mj__temp_part(&l, n, s->key_size);
    t->keys2 = mj__temp_part(&l, indices ? n : 0, s->key_size);
    t->values = mj__temp_part(&l, n, s->value_size);
    t->partitions = mj__temp_part(&l, tiles, 4 * sizeof(long long));
    t->total = l.total;
    if (l.overflow)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements do not fit in memory", n);
    if (tiles > 0x7fffffffull)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements need more blocks than a grid has",
                        n);
    return MJ_OK;
}

static mj_status temp_of(const mj_sorter *s, size_t n, int indices, size_t *bytes) {
    temp_layout t;
    mj_status st = layout(s, n, indices, &t);
    if (st == MJ_OK) *bytes = t.total;
    return st;
}

mj_status mj__mergesort_temp(const mj_sorter *s, size_t n, size_t *bytes) {
    return temp_of(s, n, 0, bytes);
}

mj_status mj__mergesort_index_temp(const mj_sorter *s, size_t n, size_t *bytes) {
    return temp_of(s, n, 1, bytes);
}

/* *out from the one-digit variable `name`: one of the two digits in `choices`, or `unset` when
 * the variable is unset or empty; another value fails, naming the variable. */
static mj_status env_digit(mj_context *ctx, const char *name, const char choices[2], int unset,
                           int *out) {
    const char *env = getenv(name);
    *out = unset;
    if (!env || !*env) return MJ_OK;
    if (env[1] || (env[0] != choices[0] && env[0] != choices[1]))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "%s is \"%s\": it takes %c or %c", name,
                        env, choices[0], choices[1]);
    *out = env[0] - '0';
    return MJ_OK;
}

mj_status mj__mergesort_env(mj_context *ctx, size_t element_bytes, int *ways, int *fused,
                            int *pdl, int *serpentine) {
    mj_status st = env_digit(ctx, "MERGEJIT_MERGE_WAYS", "24", 0, ways);
    if (!st) st = env_digit(ctx, "MERGEJIT_FUSED_PARTITION", "01", MJ_FUSED_PARTITION_DEFAULT,
                            fused);
    if (!st)
        st = env_digit(ctx, "MERGEJIT_PDL", "01", element_bytes == MJ_PDL_DEFAULT_BYTES, pdl);
    if (!st) st = env_digit(ctx, "MERGEJIT_SERPENTINE", "01", MJ_SERPENTINE_DEFAULT, serpentine);
    return st;
}

/* The passes of a sort of n elements; its 4-way passes' partition kernel (by groups of lanes
 * or one lane a split: mj_split4_grouped; every pass has the same tiles) and lanes a split. */
typedef struct plan {
    long long nv, runs, tiles;
    int levels, ways, passes;
    int partition4;
    int lanes4;
} plan;

static plan plan_of(const mj_sorter *s, long long n) {
    plan p;
    p.nv = (long long)s->nt * s->vt;
    p.runs = s->bs_nt / s->nt;
    p.tiles = mj_tile_count(n, p.nv);
    p.levels = mj_sort_passes(n, p.nv, p.runs);
    p.ways = mj_sort_ways(n, (long long)(s->key_size + s->value_size), s->merge_ways,
                          s->merge4_log2);
    p.passes = mj_merge_passes(p.levels, p.ways);
    p.lanes4 = mj_split4_lanes(p.tiles);
    p.partition4 = mj_split4_grouped(p.lanes4, n) ? MJ_K_PARTITION4 : MJ_K_PARTITION4_ONE;
    return p;
}

/* Pass p's kernels: its partition kernel (NO_PARTITION for a fused 2-way pass, whose merge
 * finds its own splits) and its merge kernel. */
#define NO_PARTITION (-1)
static void pass_kernels(const mj_sorter *s, const plan *pl, int p, int *partition,
                         int *merge) {
    int four = mj_pass_ways(p, pl->levels, pl->ways) == 4;
    *partition = four ? pl->partition4 : s->fused ? NO_PARTITION : MJ_K_PARTITION;
    *merge = four ? MJ_K_MERGE4 : MJ_K_MERGE;
}

mj_kernel_set mj__mergesort_kernels(int fused, int four_way) {
    mj_kernel_set four = 1u << MJ_K_PARTITION4 | 1u << MJ_K_PARTITION4_ONE | 1u << MJ_K_MERGE4;
    return mj__primitive_kernels(MJ_MERGESORT) & ~(fused ? 1u << MJ_K_PARTITION : 0u) &
           ~(four_way ? 0u : four);
}

mj_status mj__mergesort_passes(const mj_sorter *s, size_t n, mj_sort_pass *out, int capacity,
                               int *count) {
    temp_layout t;
    mj_status st = layout(s, n, 0, &t);
    if (st) return st;
    *count = 0;
    if (n == 0) return MJ_OK; /* nothing is launched */
    plan p = plan_of(s, (long long)n);
    size_t bytes, element = s->key_size + s->value_size;
    if (__builtin_mul_overflow(n, 2 * element, &bytes)) bytes = SIZE_MAX; /* cannot fit anyway */
    *count = 1 + p.passes;
    for (int i = 0; i < *count && i < capacity; ++i) {
        int partition = NO_PARTITION, merge = MJ_K_BLOCKSORT;
        if (i > 0) pass_kernels(s, &p, i - 1, &partition, &merge);
        out[i].kind = i == 0 ? MJ_PASS_BLOCKSORT : merge == MJ_K_MERGE4 ? MJ_PASS_MERGE4
                                                                       : MJ_PASS_MERGE2;
        out[i].launches = partition == NO_PARTITION ? 1 : 2;
        out[i].ms = 0;
        out[i].bytes = bytes;
    }
    return MJ_OK;
}

/* Records marks[i] on the stream, when there are marks (a profiled sort). */
static mj_status mark(mj_sorter *s, CUevent *marks, int i, CUstream stream) {
    if (!marks) return MJ_OK;
    CUresult r = s->ctx->cu->event_record(marks[i], stream);
    return r == CUDA_SUCCESS ? MJ_OK : mj__fail_cuda(s->ctx, r, "recording a pass's event");
}

/* Blocksort from (keys_src, values_src) into buffer pair `cur`, then merge passes ping-ponging
 * between the pairs (merge_frame.h: mj_sort_ways, mj_merge_passes and the passes' lists and
 * frames), 2-way ones through mj_partition and mj_merge (or mj_merge alone, fused: s->fused),
 * 4-way ones through mj_partition4 or mj_partition4_one (pl->partition4) and mj_merge4. With
 * s->pdl, every kernel after the blocksort is launched overlapped with the one before
 * (mj__launch_overlapped; each waits for the one before as it starts). With s->serpentine, even
 * passes walk their tiles backwards (the merge kernels' `reverse`). The blocksort's buffer is
 * chosen by the parity of the pass count so that the last pass lands in pair 0. values_src 0
 * with values: index sort. The last pass is told to store keys as bits again (map_out: sorts
 * that hold float keys as ordinals, see the generator's MJ_KEY_MAP; the kernels of other sorts
 * ignore it) unless the keys are not kept (keys_kept 0: index sorts). marks, when not NULL (a
 * profiled sort), are events recorded on the stream before the blocksort (marks[0]) and after
 * each pass (marks[1] after the blocksort, marks[2 + p] after merge pass p); the launches are
 * the same either way. */
static mj_status schedule(mj_sorter *s, const plan *pl, CUdeviceptr keys_src,
                          CUdeviceptr values_src, CUdeviceptr k[2], CUdeviceptr v[2],
                          CUdeviceptr partitions, long long n, int keys_kept, CUstream stream,
                          CUevent *marks) {
    long long nv = pl->nv, runs = pl->runs, tiles = pl->tiles;
    long long bs_tiles = mj_tile_count(n, nv * runs);
    int levels = pl->levels, ways = pl->ways, passes = pl->passes;
    int cur = passes & 1;
    int fused = s->fused;
    mj_status (*launch_pass)(mj_sorter *, int, long long, unsigned, void **, CUstream) =
        s->pdl ? mj__launch_overlapped : mj__launch;
    mj_status st;

    int map_out = keys_kept && passes == 0;
    void *bs_params[] = {&keys_src, &values_src, &k[cur], &v[cur], &n, &map_out};
    if ((st = mark(s, marks, 0, stream)) ||
        (st = mj__launch(s, MJ_K_BLOCKSORT, bs_tiles, (unsigned)s->bs_nt, bs_params, stream)) ||
        (st = mark(s, marks, 1, stream)))
        return st;
    int lanes = mj_search_lanes(tiles), lanes4 = pl->lanes4;
    for (int p = 0; p < passes; ++p) {
        long long coop = mj_pass_frame(p, levels, ways, runs);
        int partition, merge;
        pass_kernels(s, pl, p, &partition, &merge);
        int four = merge == MJ_K_MERGE4;
        /* The partitions take the tile size as an argument (one program for every tile). */
        void *pp2[] = {&k[cur], &n, &nv, &coop, &tiles, &partitions, &lanes};
        void *pp4[] = {&k[cur], &n, &nv, &coop, &tiles, &partitions, &lanes4};
        long long threads = tiles * (four ? lanes4 : lanes);
        if (partition != NO_PARTITION &&
            (st = launch_pass(s, partition,
                              (threads + MJ_PARTITION_THREADS - 1) / MJ_PARTITION_THREADS,
                              MJ_PARTITION_THREADS, four ? pp4 : pp2, stream)))
            return st;
        map_out = keys_kept && p == passes - 1;
        int reverse = s->serpentine && !(p & 1); /* the blocksort walks forwards */
        /* The driver reads as many entries as the kernel has parameters: mj_merge4, which has
         * no `fused`, leaves the last. */
        void *mp[] = {&k[cur], &v[cur], &k[cur ^ 1], &v[cur ^ 1], &partitions, &n, &coop, &map_out,
                      &reverse, &fused};
        if ((st = launch_pass(s, merge, tiles, (unsigned)s->nt, mp, stream)) ||
            (st = mark(s, marks, 2 + p, stream)))
            return st;
        cur ^= 1;
    }
    return MJ_OK;
}

/* Common body of sort, sort_indices and sort_with_indices: checks, temporary storage, schedule.
 * values NULL with values_final: the values are generated as the keys' indices (index sorts),
 * values_final gets them. `indices` (sort_indices): the keys are only read, sorted in temporary
 * storage (keys_final unused), so only the indices come out. */
static mj_status run(mj_sorter *s, const void *keys, void *keys_final, const void *values,
                     void *values_final, size_t n, int indices, void *temp, size_t temp_bytes,
                     void *stream, CUevent *marks) {
    temp_layout t;
    mj_status st;
    if ((st = layout(s, n, indices, &t)) || (st = mj__run_check_temp(s, t.total, temp, temp_bytes)))
        return st;
    plan pl = plan_of(s, (long long)n);
    /* layout checked both products; values are given exactly when there are values. */
    const mj_array a[] = {{keys, n * s->key_size, "keys"},
                          {values ? values : values_final, n * s->value_size,
                           values ? "values" : "indices"}};
    const size_t align[] = {s->key_align, s->value_align};
    mj_run rn;
    st = mj__run_open(s, a, align, 2, n ? MJ_RUN_TEMP : MJ_RUN_ENTER, t.total, temp, stream, &rn);
    if (!st && n) {
        CUdeviceptr base = rn.base;
        CUdeviceptr k[2], v[2];
        if (indices) {
            k[0] = base + t.keys;
            k[1] = base + t.keys2;
        } else {
            k[0] = DPTR(keys_final);
            k[1] = base + t.keys;
        }
        v[0] = DPTR(values_final);
        v[1] = s->value_size ? base + t.values : 0;
        st = schedule(s, &pl, DPTR(keys), DPTR(values), k, v, base + t.partitions, (long long)n,
                      !indices, rn.stream, marks);
    }
    return mj__run_close(s, &rn, st);
}

mj_status mj__mergesort_sort(mj_sorter *s, void *keys, void *values, size_t n, void *temp,
                             size_t temp_bytes, void *stream, CUevent *marks) {
    return run(s, keys, keys, values, values, n, 0, temp, temp_bytes, stream, marks);
}

/* What both index sorts check before their run: the sorter, the index width, indices. */
static mj_status check_index_sort(mj_sorter *s, const void *indices, size_t n,
                                  const char *function) {
    mj_status st = mj__sorter_expect(s, 1u << MJ_MERGESORT, function);
    if (st) return st;
    if (s->value_size != 4 && s->value_size != 8)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "index sorts need a sorter with value_size 4 or 8 (the index width), "
                        "not %zu", s->value_size);
    if (s->value_size == 4 && n > 0x100000000ull)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE,
                        "%zu elements need 8-byte indices (value_size 8)", n);
    if (!indices && n) return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "indices is NULL");
    return MJ_OK;
}

mj_status mj_sorter_sort_indices(mj_sorter *s, const void *keys, void *indices, size_t n,
                                 void *temp, size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_status st = check_index_sort(s, indices, n, "mj_sorter_sort_indices");
    return st ? st : run(s, keys, NULL, NULL, indices, n, 1, temp, temp_bytes, stream, NULL);
}

mj_status mj_sorter_sort_with_indices(mj_sorter *s, void *keys, void *indices, size_t n,
                                      void *temp, size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    static const char fn[] = "mj_sorter_sort_with_indices";
    mj_array a[] = {{keys, 0, "keys"}, {indices, 0, "indices"}};
    const size_t count[] = {n, n}, size[] = {s->key_size, s->value_size};
    mj_status st = check_index_sort(s, indices, n, fn);
    if (!st) st = mj__array_bytes(s, fn, a, count, size, 2);
    if (!st) st = mj__check_overlaps(s, fn, a, 1, 2);
    return st ? st : run(s, keys, keys, NULL, indices, n, 0, temp, temp_bytes, stream, NULL);
}
