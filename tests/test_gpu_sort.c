/* SPDX-License-Identifier: Apache-2.0 */
/* Sorting on the GPU against a CPU stable sort. Skips (exit 77) where there is no GPU.
 * MJ_TEST_SMALL=1 runs a small subset (for compute-sanitizer). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "api/devmem.h"
#include "core/context.h"
#include "driver/compile.h"
#include "gen.h"
#include "primitives/run.h"
#include "shared/merge_frame.h"
#include "padded_keys_support.h"
#include "test_support.h"

static mj_context *ctx;
static int small;

enum {
    DIST_RANDOM, DIST_SORTED, DIST_REVERSED, DIST_EQUAL, DIST_FEW, DIST_NAN_MIX, DIST_COUNT
};
static const char *const dist_names[] = {"random", "sorted", "reversed", "all-equal",
                                         "few-distinct", "NaN mix"};

static int is_float(mj_key_kind kind) {
    return kind == MJ_KEY_F16 || kind == MJ_KEY_BF16 || kind == MJ_KEY_F32 || kind == MJ_KEY_F64;
}

/* Floats drawn mostly from the patterns where the order is subtle, each many times: NaNs of
 * both signs with several payloads (the smallest, the quiet bit alone and with a payload, the
 * largest), -0 and +0, the infinities, the smallest and largest subnormals and the smallest
 * normal of either sign; one key in four is random bits. */
static void fill_nan_mix(mj_key_kind kind, unsigned char *keys, size_t n, uint64_t seed) {
    size_t ks = mj_key_kind_size(kind);
    int mantissa = kind == MJ_KEY_F16 ? 10 : kind == MJ_KEY_BF16 ? 7 : kind == MJ_KEY_F32 ? 23 : 52;
    uint64_t all = ks == 8 ? ~0ull : (1ull << (8 * ks)) - 1, sign = 1ull << (8 * ks - 1);
    uint64_t m = (1ull << mantissa) - 1, e = (all >> 1) & ~m, quiet = 1ull << (mantissa - 1);
    uint64_t pos[] = {e | 1, e | quiet, e | quiet | 3, e | m, 0, e, 1, m, m + 1};
    uint64_t pool[2 * sizeof pos / sizeof *pos];
    size_t np = 0;
    for (size_t i = 0; i < sizeof pos / sizeof *pos; ++i) {
        pool[np++] = pos[i];
        pool[np++] = pos[i] | sign;
    }
    uint64_t s = seed;
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = mjt_rand(&s), bits = r % 4 ? pool[(r >> 8) % np] : mjt_rand(&s) & all;
        memcpy(keys + i * ks, &bits, ks); /* little-endian: the key is the low bytes */
    }
}

/* n keys of `kind` in distribution `dist`. */
static void *make_keys(mj_key_kind kind, mj_order order, int dist, size_t n, uint64_t seed) {
    size_t ks = mj_key_kind_size(kind);
    unsigned char *keys = malloc(n * ks + 1);
    ck_assert_ptr_nonnull(keys);
    if (dist == DIST_NAN_MIX)
        fill_nan_mix(kind, keys, n, seed);
    else
        kg_fill_keys(kind, keys, n, seed);
    if (n == 0) return keys;
    if (dist == DIST_SORTED || dist == DIST_REVERSED) {
        uint64_t *perm = malloc(n * sizeof *perm);
        unsigned char *tmp = malloc(n * ks);
        ck_assert(perm && tmp);
        ck_assert_int_eq(kg_reference_sort(kind, order, keys, n, perm), MJ_OK);
        for (size_t i = 0; i < n; ++i) {
            size_t at = dist == DIST_SORTED ? i : n - 1 - i;
            memcpy(tmp + at * ks, keys + perm[i] * ks, ks);
        }
        memcpy(keys, tmp, n * ks);
        free(perm);
        free(tmp);
    } else if (dist == DIST_EQUAL) {
        for (size_t i = 1; i < n; ++i) memcpy(keys + i * ks, keys, ks);
    } else if (dist == DIST_FEW) {
        uint64_t s = seed;
        size_t pool = n < 4 ? n : 4;
        for (size_t i = pool; i < n; ++i) memcpy(keys + i * ks, keys + (mjt_rand(&s) % pool) * ks, ks);
    }
    return keys;
}

/* Sorts n keys (and values of value_size when > 0) on the GPU with `desc` and checks the
 * result against the CPU reference exactly, values included (which checks stability). */
static void check_sort(mj_key_kind kind, mj_order order, size_t value_size, int dist, size_t n,
                       uint64_t seed) {
    size_t ks = mj_key_kind_size(kind);
    void *keys = make_keys(kind, order, dist, n, seed);
    void *values = NULL;
    if (value_size) {
        values = malloc(n * value_size + 1);
        ck_assert_ptr_nonnull(values);
        kg_fill_values(values, value_size, n);
    }
    void *dk = NULL, *dv = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &dk, n * ks), MJ_OK);
    ck_assert_int_eq(mj__dev_upload(ctx, dk, keys, n * ks), MJ_OK);
    if (value_size) {
        ck_assert_int_eq(mj__dev_alloc(ctx, &dv, n * value_size), MJ_OK);
        ck_assert_int_eq(mj__dev_upload(ctx, dv, values, n * value_size), MJ_OK);
    }
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, kind, order);
    mj_status st = value_size ? mj_sort_pairs(ctx, &desc, dk, dv, n, value_size, NULL)
                              : mj_sort_keys(ctx, &desc, dk, n, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);

    void *out_k = malloc(n * ks + 1), *out_v = value_size ? malloc(n * value_size + 1) : NULL;
    uint64_t *perm = malloc(n * sizeof *perm + 8);
    ck_assert(out_k && perm);
    ck_assert_int_eq(mj__dev_download(ctx, out_k, dk, n * ks), MJ_OK);
    if (value_size) ck_assert_int_eq(mj__dev_download(ctx, out_v, dv, n * value_size), MJ_OK);
    ck_assert_int_eq(kg_reference_sort(kind, order, keys, n, perm), MJ_OK);
    size_t first = 0;
    size_t bad = kg_compare(ks, value_size, keys, values, out_k, out_v, perm, n, &first);
    if (getenv("MJ_TEST_TRACE"))
        fprintf(stderr, "%s %s values=%zu %s n=%zu ok\n", mj_key_kind_name(kind),
                order == MJ_ASCENDING ? "asc" : "desc", value_size, dist_names[dist], n);
    ck_assert_msg(bad == 0, "%s %s values=%zu %s n=%zu: %zu mismatches, first at %zu",
                  mj_key_kind_name(kind), order == MJ_ASCENDING ? "asc" : "desc", value_size,
                  dist_names[dist], n, bad, first);
    mj__dev_free(ctx, dk);
    mj__dev_free(ctx, dv);
    free(keys);
    free(values);
    free(out_k);
    free(out_v);
    free(perm);
}

/* The sizes around the default tile of a key/value size, up to several tiles and a few
 * million. */
static size_t sizes_for(mj_key_kind kind, size_t value_size, size_t *out) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, kind, MJ_ASCENDING);
    d.value_size = value_size;
    mj_sorter *s;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    int nt, vt;
    mj_sorter_tile(s, &nt, &vt);
    mj_sorter_destroy(s);
    size_t nv = (size_t)nt * (size_t)vt, k = 0;
    /* The last (a few million) only for floats' NaN mixes. */
    size_t fixed[] = {0, 1, 2, nv - 1, nv, nv + 1, 2 * nv + 3, 5 * nv - 1, 8 * nv,
                      (1u << 16) - 1, (1u << 16) + 1, (1u << 20) + 1, 1000000, 3000017};
    size_t count = small ? 9 : sizeof fixed / sizeof *fixed;
    for (size_t i = 0; i < count; ++i) out[k++] = fixed[i];
    return k;
}

/* Every key kind, ascending and descending, keys and pairs, every distribution (the NaN mix
 * for floats, in both orders). */
START_TEST(test_every_kind) {
    mj_key_kind kind = (mj_key_kind)_i;
    size_t value_sizes[] = {0, 8, 4};
    for (size_t vi = 0; vi < (small ? 2u : 3u); ++vi) {
        size_t sizes[20];
        size_t ns = sizes_for(kind, value_sizes[vi], sizes);
        for (int order = 0; order < 2; ++order)
            for (int dist = 0; dist < DIST_COUNT; ++dist)
                for (size_t si = 0; si < ns; ++si) {
                    /* Descending and the large sizes on random inputs only, to bound time;
                     * floats' NaN mixes at every size in both orders. */
                    if (dist == DIST_NAN_MIX ? !is_float(kind)
                                             : sizes[si] > 1000000 ||
                                                   ((order || sizes[si] > 100000) &&
                                                    dist != DIST_RANDOM))
                        continue;
                    check_sort(kind, (mj_order)order, value_sizes[vi], dist, sizes[si],
                               (uint64_t)(kind * 1000 + dist * 10 + si));
                }
    }
}
END_TEST

/* A key kind and value size that test_merge_ways and test_schedules sort. */
typedef struct pass_case {
    mj_key_kind kind;
    size_t value_size;
} pass_case;

/* Sorts each of the cases, ascending, at the sizes where mergesort's passes change, against
 * the CPU reference: 1 and a merge tile and one either side, the sizes in `large`, and at the
 * edges of 0 to `doublings` doublings of the blocksort's runs (exactly, one past, one short,
 * one merge tile past: lists of unequal length, a last frame with a short or empty list B,
 * and twice the edge less one). Few distinct keys (stability across the lists) and, not under
 * MJ_TEST_SMALL, random ones. `setting` names the environment in MJ_TEST_TRACE's lines. */
static void sort_pass_edges(const pass_case *cases, size_t count, const size_t *large,
                            size_t nlarge, int doublings, uint64_t seed, const char *setting) {
    static const int dists[] = {DIST_FEW, DIST_RANDOM};
    enum { MAX_DOUBLINGS = 7, PER_EDGE = 5, MAX_LARGE = 4 };
    ck_assert(doublings <= MAX_DOUBLINGS && nlarge <= MAX_LARGE);
    for (size_t c = 0; c < count; ++c) {
        mj_key_kind kind = cases[c].kind;
        mj_tile t;
        ck_assert_int_eq(mj_context_tile(ctx, MJ_MERGESORT, mj_key_kind_size(kind),
                                         cases[c].value_size, &t), MJ_OK);
        size_t nv = (size_t)t.nt * (size_t)t.vt, run = nv * (size_t)(t.bs_nt / t.nt);
        size_t sizes[4 + MAX_LARGE + PER_EDGE * (MAX_DOUBLINGS + 1)] = {1, nv - 1, nv, nv + 1};
        size_t ns = 4;
        for (size_t i = 0; i < nlarge; ++i) sizes[ns++] = large[i];
        for (int k = 0; k <= doublings; ++k) {
            size_t edge = run << k;
            size_t around[PER_EDGE] = {edge, edge + 1, edge - 1, edge + nv, 2 * edge - 1};
            for (size_t i = 0; i < PER_EDGE; ++i) sizes[ns++] = around[i];
        }
        for (size_t si = 0; si < ns; ++si)
            for (int d = 0; d < (small ? 1 : 2); ++d) {
                if (getenv("MJ_TEST_TRACE")) fprintf(stderr, "%s ", setting);
                check_sort(kind, MJ_ASCENDING, cases[c].value_size, dists[d], sizes[si],
                           seed + 1000 * c + 10 * si + (uint64_t)d);
            }
    }
}

/* Mergesort's passes, at each setting of MERGEJIT_MERGE_WAYS: 4 (4-way passes, a 2-way one
 * first where the doublings after the blocksort are odd), 2 (2-way passes only) and unset (by
 * size: 2-way below MJ_MERGE4_MIN_BYTES of keys and values, 4-way from it), at the passes'
 * edges (sort_pass_edges) up to 7 doublings. Unset, also the sizes either side of the size
 * rule's edge (2^25 u32 keys, 2^23 u64 pairs; not under MJ_TEST_SMALL). Keys and pairs.
 * MJ_TEST_SMALL: u32 keys and u64 pairs, up to 2 doublings (a 4-way pass, and a 2-way one
 * before it). */
START_TEST(test_merge_ways) {
    static const pass_case cases[] = {
        {MJ_KEY_U32, 0}, {MJ_KEY_U64, 8}, {MJ_KEY_U32, 4}, {MJ_KEY_F32, 0}};
    static const char *const settings[] = {"4", "2", ""};
    const char *ways = settings[_i];
    char setting[64];
    snprintf(setting, sizeof setting, "MERGEJIT_MERGE_WAYS=%s", ways);
    ck_assert_int_eq(setenv("MERGEJIT_MERGE_WAYS", ways, 1), 0);
    size_t count = small ? 2u : sizeof cases / sizeof *cases;
    sort_pass_edges(cases, count, NULL, 0, small ? 2 : 7, 100 * (uint64_t)_i, setting);
    for (size_t c = 0; c < count && !*ways && !small; ++c) {
        /* The first size at or past the rule's edge runs 4-way passes, the one before 2-way. */
        mj_key_kind kind = cases[c].kind;
        size_t bytes = mj_key_kind_size(kind) + cases[c].value_size;
        size_t four = ((size_t)MJ_MERGE4_MIN_BYTES + bytes - 1) / bytes;
        ck_assert_int_eq(mj_sort_ways((long long)four, (long long)bytes, 0, 0), 4);
        ck_assert_int_eq(mj_sort_ways((long long)four - 1, (long long)bytes, 0, 0), 2);
        for (size_t n = four - 1; n <= four; ++n) {
            if (getenv("MJ_TEST_TRACE")) fprintf(stderr, "MERGEJIT_MERGE_WAYS unset ");
            check_sort(kind, MJ_ASCENDING, cases[c].value_size, DIST_FEW, n, 1000 + n);
        }
    }
    unsetenv("MERGEJIT_MERGE_WAYS");
}
END_TEST

/* Mergesort's launch schedule, loop index i: MERGEJIT_FUSED_PARTITION = i & 1 (each 2-way pass
 * one launch, its merge kernel finding its own splits) and MERGEJIT_PDL = i >> 1 (the passes'
 * kernels launched overlapped); serpentine pass order except for i = 1 (MERGEJIT_SERPENTINE=0:
 * every pass from its first tile); at the passes' edges (sort_pass_edges) up to 3 doublings and
 * 2^20 + 1 and 2^20 (seven or eight passes); u32 and u64 keys, u32 pairs, f32 keys (their last
 * pass maps the keys back to bits); also 4-way passes (MERGEJIT_MERGE_WAYS=4, whose kernels
 * overlap too) at a few sizes, one with many splits a pass (a small tile). Unfused, every
 * sort's sorter (one a call) builds mj_partition at create.
 * MJ_TEST_SMALL: u32 keys and u32 pairs, up to one doubling, 2^20 + 1 but not 2^20. */
START_TEST(test_schedules) {
    static const pass_case cases[] = {
        {MJ_KEY_U32, 0}, {MJ_KEY_U32, 4}, {MJ_KEY_U64, 0}, {MJ_KEY_F32, 0}};
    static const size_t large[] = {(1u << 20) + 1, 1u << 20};
    char fused[2] = {(char)('0' + (_i & 1)), 0}, pdl[2] = {(char)('0' + (_i >> 1)), 0};
    char setting[64];
    snprintf(setting, sizeof setting, "MERGEJIT_FUSED_PARTITION=%s MERGEJIT_PDL=%s%s", fused,
             pdl, _i == 1 ? " MERGEJIT_SERPENTINE=0" : "");
    ck_assert_int_eq(setenv("MERGEJIT_FUSED_PARTITION", fused, 1), 0);
    ck_assert_int_eq(setenv("MERGEJIT_PDL", pdl, 1), 0);
    ck_assert_int_eq(setenv("MERGEJIT_SERPENTINE", _i == 1 ? "0" : "1", 1), 0);
    /* The unfused schedule's sorter has the 2-way partition from create, the fused one's
     * never. */
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &desc, &s), MJ_OK);
    ck_assert_uint_eq(s->mod->kernels & (1u << MJ_K_PARTITION),
                      (_i & 1) ? 0u : 1u << MJ_K_PARTITION);
    mj_sorter_destroy(s);
    sort_pass_edges(cases, small ? 2u : sizeof cases / sizeof *cases, large, small ? 1u : 2u,
                    small ? 1 : 3, 1000 * (uint64_t)_i, setting);
    /* 4-way passes: overlapped or not (they have no fused form). */
    ck_assert_int_eq(setenv("MERGEJIT_MERGE_WAYS", "4", 1), 0);
    size_t four[] = {(1u << 20) + 1, 3000017};
    for (size_t i = 0; i < (small ? 1u : 2u); ++i) {
        if (getenv("MJ_TEST_TRACE"))
            fprintf(stderr, "MERGEJIT_MERGE_WAYS=4 MERGEJIT_PDL=%s ", pdl);
        check_sort(MJ_KEY_U32, MJ_ASCENDING, 4, DIST_FEW, four[i], 77 + i);
    }
    /* Those passes' splits are searched by groups of lanes (mj_partition4); past
     * MJ_SPLIT4_GROUP_MOST splits a pass, by one lane each (mj_partition4_one): a 32 x 1 tile
     * makes 6251 at 200009 keys. */
    ck_assert_int_eq(setenv("MERGEJIT_TILE", "32x1", 1), 0);
    ck_assert_int_gt(200009 / 32, MJ_SPLIT4_GROUP_MOST);
    check_sort(MJ_KEY_U32, MJ_ASCENDING, 4, DIST_FEW, 200009, 79);
    unsetenv("MERGEJIT_TILE");
    unsetenv("MERGEJIT_MERGE_WAYS");
    unsetenv("MERGEJIT_FUSED_PARTITION");
    unsetenv("MERGEJIT_PDL");
    unsetenv("MERGEJIT_SERPENTINE");
}
END_TEST

/* ---------------------------------------------------------------- kernels built at create */

#define SORT_THREADS 4

/* One thread of test_kernels_at_create: a small sort (2-way passes only), then a large one
 * (4-way passes where the variant has them), u32 keys on the shared sorter. Fails are
 * reported, not asserted (Check's asserts belong to the test's thread). */
typedef struct sort_job {
    mj_context *ctx;
    mj_sorter *sorter;
    size_t n[2];
    uint32_t *keys[2], *out[2];
    mj_status st;
} sort_job;

static void *sort_thread(void *arg) {
    sort_job *j = arg;
    for (int i = 0; i < 2 && !j->st; ++i) {
        void *dk = NULL;
        size_t bytes = j->n[i] * sizeof(uint32_t);
        if (!(j->st = mj__dev_alloc(j->ctx, &dk, bytes)) &&
            !(j->st = mj__dev_upload(j->ctx, dk, j->keys[i], bytes)) &&
            !(j->st = mj_sorter_sort(j->sorter, dk, NULL, j->n[i], NULL, 0, NULL)) &&
            !(j->st = mj__dev_sync(j->ctx, NULL)))
            j->st = mj__dev_download(j->ctx, j->out[i], dk, bytes);
        mj__dev_free(j->ctx, dk);
    }
    return NULL;
}

static int u32_cmp(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* A new context on the test's device, with its own empty cache directory. */
static mj_context *fresh_context(const char *dir, unsigned flags) {
    mj_context_options o;
    mj_context_options_init(&o);
    o.cache_dir = dir;
    o.flags = flags;
    mj_context *c = NULL;
    mj_status st = mj_context_create(&o, &c);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(c));
    return c;
}

enum {
    K_P = 1u << MJ_K_PARTITION,
    K_FOUR = 1u << MJ_K_PARTITION4 | 1u << MJ_K_PARTITION4_ONE | 1u << MJ_K_MERGE4
};

/* The environment of a test_kernels_at_create variant, its tile (nt 0: the default; else
 * nt x 1, blocksort nt threads) and its large sort's size (`many`: a 4-way pass of
 * MJ_SPLIT4_GROUP_MOST + 1 tiles, its splits one lane each; else 4 blocksort runs + 3, or by
 * size the first size of the 4-way rule). */
static const struct {
    const char *ways, *fused;
    int nt, many;
} sort_variants[] = {
    {"4", "", 0, 0},   /* a fused 2-way pass, then a 4-way one (groups of lanes a split) */
    {"2", "0", 0, 0},  /* unfused 2-way passes: no 4-way kernels built */
    {"4", "0", 0, 0},  /* an unfused 2-way pass, then a 4-way one */
    {"4", "", 32, 1},  /* one lane a split */
    {"4", "0", 32, 1}, /* 13 doublings: a 2-way pass first */
    {"", "", 0, 0},    /* by size, groups of lanes (the last: not MJ_TEST_SMALL) */
};
#define SORT_VARIANTS (int)(sizeof sort_variants / sizeof *sort_variants)

/* A compiled mergesort sorter builds at create, as one module, every kernel its sorts may
 * launch: the blocksort and the 2-way merge, the 4-way passes' merge and both their partitions
 * (not under MERGEJIT_MERGE_WAYS=2), and the 2-way partition under MERGEJIT_FUSED_PARTITION=0.
 * Threads sorting small (one blocksort run), then large keys on one sorter all sort right,
 * and no sort builds or loads a module (the context's modules stay as create left them). _i
 * indexes sort_variants: MERGEJIT_MERGE_WAYS, MERGEJIT_FUSED_PARTITION, the tile and the
 * large size. */
START_TEST(test_kernels_at_create) {
    ck_assert_int_eq(setenv("MERGEJIT_MERGE_WAYS", sort_variants[_i].ways, 1), 0);
    ck_assert_int_eq(setenv("MERGEJIT_FUSED_PARTITION", sort_variants[_i].fused, 1), 0);
    char *dir = mjt_tmpdir();
    mj_context *c = fresh_context(dir, 0);
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, MJ_KEY_U32, MJ_ASCENDING);
    if (sort_variants[_i].nt) {
        desc.nt = desc.bs_nt = sort_variants[_i].nt;
        desc.vt = 1;
    }
    mj_sorter *s = NULL;
    ck_assert_int_eq(mj_sorter_create(c, &desc, &s), MJ_OK);
    mj_kernel_set kernels = mj__primitive_kernels(MJ_MERGESORT);
    if (strcmp(sort_variants[_i].fused, "0")) kernels &= ~K_P;
    if (!strcmp(sort_variants[_i].ways, "2")) kernels &= ~K_FOUR;
    mj_build_times t;
    mj_sorter_build_times(s, &t);
    ck_assert_int_eq(mj_sorter_source(s), 0);
    ck_assert_int_eq(t.programs, __builtin_popcount(kernels));
    ck_assert_uint_eq(s->mod->kernels, kernels);
    int modules = mjt_context_modules(c);
    ck_assert_int_eq(modules, 1);

    size_t run = (size_t)s->bs_nt * (size_t)s->vt, nv = (size_t)s->nt * (size_t)s->vt;
    size_t small_n = run - 1;
    size_t large_n = sort_variants[_i].many ? (MJ_SPLIT4_GROUP_MOST + 1) * nv + 3
                     : *sort_variants[_i].ways ? 4 * run + 3
                                               : (size_t)MJ_MERGE4_MIN_BYTES / 4;
    /* The large sort's passes have as many tiles as it: groups of lanes up to the rule's
     * most. */
    long long tiles = mj_tile_count((long long)large_n, (long long)nv);
    ck_assert_int_eq(tiles > MJ_SPLIT4_GROUP_MOST, sort_variants[_i].many);
    if (sort_variants[_i].many) /* odd: its 4-way passes follow a 2-way one */
        ck_assert_int_eq(mj_sort_passes((long long)large_n, (long long)nv, 1), 13);
    sort_job jobs[SORT_THREADS];
    pthread_t threads[SORT_THREADS];
    for (int k = 0; k < SORT_THREADS; ++k) {
        sort_job *j = &jobs[k];
        *j = (sort_job){.ctx = c, .sorter = s, .n = {small_n, large_n}};
        for (int i = 0; i < 2; ++i) {
            j->keys[i] = malloc(j->n[i] * sizeof(uint32_t));
            j->out[i] = malloc(j->n[i] * sizeof(uint32_t));
            ck_assert(j->keys[i] && j->out[i]);
            kg_fill_keys(MJ_KEY_U32, j->keys[i], j->n[i], (uint64_t)(10 * k + i + 1));
        }
    }
    for (int k = 0; k < SORT_THREADS; ++k)
        ck_assert_int_eq(pthread_create(&threads[k], NULL, sort_thread, &jobs[k]), 0);
    for (int k = 0; k < SORT_THREADS; ++k) ck_assert_int_eq(pthread_join(threads[k], NULL), 0);
    for (int k = 0; k < SORT_THREADS; ++k) {
        sort_job *j = &jobs[k];
        ck_assert_msg(j->st == MJ_OK, "thread %d: %s: %s", k, mj_status_name(j->st),
                      mj_context_last_error(c));
        for (int i = 0; i < 2; ++i) {
            qsort(j->keys[i], j->n[i], sizeof(uint32_t), u32_cmp);
            ck_assert_msg(memcmp(j->keys[i], j->out[i], j->n[i] * sizeof(uint32_t)) == 0,
                          "thread %d, n %zu: not sorted", k, j->n[i]);
            free(j->keys[i]);
            free(j->out[i]);
        }
    }
    ck_assert_int_eq(mjt_context_modules(c), modules);
    int regs = 0;
    long spills = -1;
    mj_sorter_resources(s, &regs, &spills);
    ck_assert(regs > 0 && spills == 0);
    mj_sorter_destroy(s);
    mj_context_destroy(c);
    unsetenv("MERGEJIT_MERGE_WAYS");
    unsetenv("MERGEJIT_FUSED_PARTITION");
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* A build failing at create (NVRTC out of memory, injected) is create's status and message,
 * with no sorter; the next create builds and its sorter sorts, 4-way passes included. */
START_TEST(test_create_build_fails) {
    char *dir = mjt_tmpdir();
    mj_context *c = fresh_context(dir, MJ_CONTEXT_NO_DISK_CACHE);
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *s = mjt_create_after_failed_build(c, &desc);
    size_t n = (size_t)MJ_MERGE4_MIN_BYTES / 4 + 5;
    uint32_t *keys = malloc(n * 4), *out = malloc(n * 4);
    ck_assert(keys && out);
    kg_fill_keys(MJ_KEY_U32, keys, n, 5);
    void *dk = NULL;
    ck_assert_int_eq(mj__dev_alloc(c, &dk, n * 4), MJ_OK);
    ck_assert_int_eq(mj__dev_upload(c, dk, keys, n * 4), MJ_OK);
    ck_assert_int_eq(mj_sorter_sort(s, dk, NULL, n, NULL, 0, NULL), MJ_OK);
    ck_assert_int_eq(mj__dev_sync(c, NULL), MJ_OK);
    ck_assert_int_eq(mj__dev_download(c, out, dk, n * 4), MJ_OK);
    qsort(keys, n, 4, u32_cmp);
    ck_assert(memcmp(out, keys, n * 4) == 0);
    mj_sorter_destroy(s);
    mj__dev_free(c, dk);
    mj_context_destroy(c);
    free(keys);
    free(out);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_large) {
    check_sort(MJ_KEY_U32, MJ_ASCENDING, 0, DIST_RANDOM, 100000000, 7);
    check_sort(MJ_KEY_F64, MJ_ASCENDING, 8, DIST_RANDOM, 100000000, 8);
}
END_TEST

/* A 16-byte struct with a two-field comparator, as pairs, against a CPU stable sort. */
struct rec {
    uint64_t hi, lo;
};
static int rec_cmp(const void *a, const void *b) {
    const struct rec *x = a, *y = b;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
    if (x->lo != y->lo) return x->lo > y->lo ? -1 : 1; /* lo descending */
    return 0;
}
struct rec_at {
    struct rec r;
    uint32_t at;
};
static int rec_at_cmp(const void *a, const void *b) {
    const struct rec_at *x = a, *y = b;
    int c = rec_cmp(&x->r, &y->r);
    return c ? c : (x->at < y->at ? -1 : x->at > y->at);
}

START_TEST(test_custom_struct) {
    size_t n = small ? 5000 : 3000001;
    struct rec *keys = malloc(n * sizeof *keys);
    uint32_t *vals = malloc(n * 4);
    struct rec_at *ref = malloc(n * sizeof *ref);
    uint64_t s = 99;
    for (size_t i = 0; i < n; ++i) {
        keys[i].hi = mjt_rand(&s) % 1000;
        keys[i].lo = mjt_rand(&s) % 7;
        vals[i] = (uint32_t)i;
        ref[i].r = keys[i];
        ref[i].at = (uint32_t)i;
    }
    qsort(ref, n, sizeof *ref, rec_at_cmp);
    mj_sort_desc d;
    memset(&d, 0, sizeof d);
    d.key = MJ_KEY_CUSTOM;
    d.type_name = "rec";
    d.type_source = "struct rec { unsigned long long hi, lo; };";
    d.type_size = 16;
    d.type_align = 8;
    d.less = "a.hi < b.hi || (a.hi == b.hi && a.lo > b.lo)";
    void *dk, *dv;
    ck_assert_int_eq(mj__dev_alloc(ctx, &dk, n * 16), MJ_OK);
    ck_assert_int_eq(mj__dev_alloc(ctx, &dv, n * 4), MJ_OK);
    ck_assert_int_eq(mj__dev_upload(ctx, dk, keys, n * 16), MJ_OK);
    ck_assert_int_eq(mj__dev_upload(ctx, dv, vals, n * 4), MJ_OK);
    mj_status st = mj_sort_pairs(ctx, &d, dk, dv, n, 4, NULL);
    ck_assert_msg(st == MJ_OK, "%s", mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_download(ctx, keys, dk, n * 16), MJ_OK);
    ck_assert_int_eq(mj__dev_download(ctx, vals, dv, n * 4), MJ_OK);
    for (size_t i = 0; i < n; ++i) {
        ck_assert_msg(vals[i] == ref[i].at, "position %zu: value %u, expected %u", i, vals[i],
                      ref[i].at);
        ck_assert(keys[i].hi == ref[i].r.hi && keys[i].lo == ref[i].r.lo);
    }
    mj__dev_free(ctx, dk);
    mj__dev_free(ctx, dv);
    free(keys);
    free(vals);
    free(ref);
}
END_TEST

/* Index sorts leave the keys alone and give the stable permutation, 4- and 8-byte. */
START_TEST(test_indices) {
    size_t n = small ? 10000 : 2000003;
    for (size_t width = 4; width <= 8; width += 4) {
        float *keys = malloc(n * 4), *after = malloc(n * 4);
        kg_fill_keys(MJ_KEY_F32, keys, n, width);
        uint64_t *perm = malloc(n * 8);
        unsigned char *idx = malloc(n * width);
        ck_assert_int_eq(kg_reference_sort(MJ_KEY_F32, MJ_DESCENDING, keys, n, perm), MJ_OK);
        void *dk, *di;
        ck_assert_int_eq(mj__dev_alloc(ctx, &dk, n * 4), MJ_OK);
        ck_assert_int_eq(mj__dev_alloc(ctx, &di, n * width), MJ_OK);
        ck_assert_int_eq(mj__dev_upload(ctx, dk, keys, n * 4), MJ_OK);
        mj_sort_desc d;
        mj_sort_desc_init(&d, MJ_KEY_F32, MJ_DESCENDING);
        mj_status st = mj_sort_indices(ctx, &d, dk, di, n, width, NULL);
        ck_assert_msg(st == MJ_OK, "%s", mj_context_last_error(ctx));
        ck_assert_int_eq(mj__dev_download(ctx, idx, di, n * width), MJ_OK);
        ck_assert_int_eq(mj__dev_download(ctx, after, dk, n * 4), MJ_OK);
        ck_assert(memcmp(keys, after, n * 4) == 0);
        for (size_t i = 0; i < n; ++i) {
            uint64_t got = width == 4 ? ((uint32_t *)idx)[i] : ((uint64_t *)idx)[i];
            ck_assert_msg(got == perm[i], "index %zu: %llu, expected %llu", i,
                          (unsigned long long)got, (unsigned long long)perm[i]);
        }
        mj__dev_free(ctx, dk);
        mj__dev_free(ctx, di);
        free(keys);
        free(after);
        free(perm);
        free(idx);
    }
}
END_TEST

/* Sorting with indices: the keys sorted in place and each one's input position, as torch.sort
 * gives them, for floats held as ordinals (descending, NaNs included: their bits come back)
 * and u64 keys, 4- and 8-byte indices, at sizes from 0 through tile edges to millions; indices
 * over the keys, and a sorter without an index width, are refused with the data untouched. */
START_TEST(test_sort_with_indices) {
    static const struct {
        mj_key_kind kind;
        mj_order order;
    } cases[] = {{MJ_KEY_F32, MJ_DESCENDING}, {MJ_KEY_U64, MJ_ASCENDING}};
    for (size_t c = 0; c < 2; ++c)
        for (size_t width = 4; width <= 8; width += 4) {
            mj_key_kind kind = cases[c].kind;
            size_t ks = mj_key_kind_size(kind);
            mj_sort_desc d;
            mj_sort_desc_init(&d, kind, cases[c].order);
            d.value_size = width;
            mj_sorter *so;
            ck_assert_int_eq(mj_sorter_create(ctx, &d, &so), MJ_OK);
            int nt, vt;
            mj_sorter_tile(so, &nt, &vt);
            size_t nv = (size_t)nt * (size_t)vt;
            size_t sizes[] = {0, 1, nv - 1, nv + 1, 4 * nv + 7, small ? 30011 : 2000003};
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; ++si) {
                size_t n = sizes[si];
                unsigned char *keys = malloc(n * ks + 1), *got = malloc(n * ks + 1);
                unsigned char *idx = malloc(n * width + 1);
                uint64_t *perm = malloc(n * 8 + 8);
                ck_assert(keys && got && idx && perm);
                if (kind == MJ_KEY_F32)
                    fill_nan_mix(kind, keys, n, 7 + si);
                else
                    kg_fill_keys(kind, keys, n, 7 + si);
                ck_assert_int_eq(kg_reference_sort(kind, cases[c].order, keys, n, perm), MJ_OK);
                void *dk = NULL, *di = NULL;
                ck_assert_int_eq(mj__dev_alloc(ctx, &dk, n * ks + 1), MJ_OK);
                ck_assert_int_eq(mj__dev_alloc(ctx, &di, n * width + 1), MJ_OK);
                ck_assert_int_eq(mj__dev_upload(ctx, dk, keys, n * ks), MJ_OK);
                mj_status st = mj_sorter_sort_with_indices(so, dk, di, n, NULL, 0, NULL);
                ck_assert_msg(st == MJ_OK, "%s", mj_context_last_error(ctx));
                ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
                ck_assert_int_eq(mj__dev_download(ctx, got, dk, n * ks), MJ_OK);
                ck_assert_int_eq(mj__dev_download(ctx, idx, di, n * width), MJ_OK);
                for (size_t i = 0; i < n; ++i) {
                    uint64_t at = width == 4 ? ((uint32_t *)idx)[i] : ((uint64_t *)idx)[i];
                    ck_assert_msg(at == perm[i], "%s n=%zu index %zu: %llu, expected %llu",
                                  mj_key_kind_name(kind), n, i, (unsigned long long)at,
                                  (unsigned long long)perm[i]);
                    ck_assert_msg(memcmp(got + i * ks, keys + perm[i] * ks, ks) == 0,
                                  "%s n=%zu key %zu", mj_key_kind_name(kind), n, i);
                }
                if (n > 1) { /* indices over the keys: refused, the keys as they were */
                    ck_assert_int_eq(mj__dev_upload(ctx, dk, keys, n * ks), MJ_OK);
                    st = mj_sorter_sort_with_indices(so, dk, dk, n, NULL, 0, NULL);
                    ck_assert_int_eq(st, MJ_ERR_INVALID_ARGUMENT);
                    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "overlaps"));
                    ck_assert_int_eq(mj__dev_download(ctx, got, dk, n * ks), MJ_OK);
                    ck_assert(memcmp(got, keys, n * ks) == 0);
                }
                mj__dev_free(ctx, dk);
                mj__dev_free(ctx, di);
                free(keys);
                free(got);
                free(idx);
                free(perm);
            }
            mj_sorter_destroy(so);
        }
    /* A sorter without values has no index width. */
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *so;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &so), MJ_OK);
    int dummy = 0;
    ck_assert_int_eq(mj_sorter_sort_with_indices(so, &dummy, &dummy, 1, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "value_size 4 or 8"));
    mj_sorter_destroy(so);
}
END_TEST

/* Memory and a stream from the CUDA runtime API (mjt_cudart, opened as the library opens
 * the driver): the primary-context promise. */
START_TEST(test_runtime_interop) {
    mjt_cudart rt;
    ck_assert_int_eq(mjt_cudart_load(&rt), 0);
    size_t n = small ? 30000 : 3000000;
    uint64_t *keys = malloc(n * 8), *perm = malloc(n * 8), *out = malloc(n * 8);
    kg_fill_keys(MJ_KEY_I64, keys, n, 5);
    void *dk = NULL, *stream = NULL;
    ck_assert_int_eq(rt.mem_alloc(&dk, n * 8), 0);
    ck_assert_int_eq(rt.stream_create(&stream), 0);
    ck_assert_int_eq(rt.copy(dk, keys, n * 8, 1 /* host to device */), 0);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_I64, MJ_ASCENDING);
    mj_status st = mj_sort_keys(ctx, &d, dk, n, stream);
    ck_assert_msg(st == MJ_OK, "%s", mj_context_last_error(ctx));
    ck_assert_int_eq(rt.stream_sync(stream), 0);
    ck_assert_int_eq(rt.copy(out, dk, n * 8, 2 /* device to host */), 0);
    ck_assert_int_eq(kg_reference_sort(MJ_KEY_I64, MJ_ASCENDING, keys, n, perm), MJ_OK);
    size_t first;
    ck_assert_uint_eq(kg_compare(8, 0, keys, NULL, out, NULL, perm, n, &first), 0);
    rt.stream_destroy(stream);
    rt.mem_free(dk);
    free(keys);
    free(perm);
    free(out);
}
END_TEST

/* More than 2^31 elements: 64-bit counts all the way through. Checked by order and by
 * histogram (a CPU reference of 2 GiB would take longer than the sort is worth). */
START_TEST(test_over_2g) {
    size_t n = (1ull << 31) + 1000;
    unsigned char *keys = malloc(n);
    ck_assert_ptr_nonnull(keys);
    uint64_t s = 3, hist[256] = {0}, after[256] = {0};
    for (size_t i = 0; i < n; i += 8) {
        uint64_t r = mjt_rand(&s);
        for (size_t j = 0; j < 8 && i + j < n; ++j) keys[i + j] = (unsigned char)(r >> (8 * j));
    }
    for (size_t i = 0; i < n; ++i) hist[keys[i]]++;
    void *dk;
    ck_assert_int_eq(mj__dev_alloc(ctx, &dk, n), MJ_OK);
    ck_assert_int_eq(mj__dev_upload(ctx, dk, keys, n), MJ_OK);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U8, MJ_ASCENDING);
    mj_status st = mj_sort_keys(ctx, &d, dk, n, NULL);
    ck_assert_msg(st == MJ_OK, "%s", mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_download(ctx, keys, dk, n), MJ_OK);
    size_t disorder = 0;
    for (size_t i = 0; i < n; ++i) {
        after[keys[i]]++;
        disorder += i && keys[i - 1] > keys[i];
    }
    ck_assert_msg(disorder == 0, "%zu adjacent pairs out of order", disorder);
    ck_assert(memcmp(hist, after, sizeof hist) == 0);
    mj__dev_free(ctx, dk);
    free(keys);
}
END_TEST

/* Bad arguments give a status and leave the data as it was. */
START_TEST(test_bad_arguments) {
    size_t n = 1000;
    uint32_t host[1000], back[1000];
    for (size_t i = 0; i < n; ++i) host[i] = (uint32_t)(n - i);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    /* A host pointer. */
    mj_status st = mj_sort_keys(ctx, &d, host, n, NULL);
    ck_assert_int_eq(st, MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "keys"));
    ck_assert_uint_eq(host[0], n);
    void *dk;
    ck_assert_int_eq(mj__dev_alloc(ctx, &dk, n * 4 + 4), MJ_OK);
    ck_assert_int_eq(mj__dev_upload(ctx, dk, host, n * 4), MJ_OK);
    /* Misaligned. */
    ck_assert_int_eq(mj_sort_keys(ctx, &d, (char *)dk + 2, n, NULL), MJ_ERR_INVALID_ARGUMENT);
    /* Temporary storage too small. */
    mj_sorter *s;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &s), MJ_OK);
    size_t need = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, n, 0, &need), MJ_OK);
    void *temp;
    ck_assert_int_eq(mj__dev_alloc(ctx, &temp, need), MJ_OK);
    ck_assert_int_eq(mj_sorter_sort(s, dk, NULL, n, temp, need - 1, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    /* Values to a keys-only sorter. */
    ck_assert_int_eq(mj_sorter_sort(s, dk, dk, n, temp, need, NULL), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj__dev_download(ctx, back, dk, n * 4), MJ_OK);
    ck_assert(memcmp(host, back, n * 4) == 0);
    /* And with the right storage it sorts. */
    ck_assert_int_eq(mj_sorter_sort(s, dk, NULL, n, temp, need, NULL), MJ_OK);
    ck_assert_int_eq(mj__dev_download(ctx, back, dk, n * 4), MJ_OK);
    for (size_t i = 0; i < n; ++i) ck_assert_uint_eq(back[i], i + 1);
    /* A comparator that does not compile. */
    d.less = "a < < b";
    ck_assert_int_eq(mj_sort_keys(ctx, &d, dk, n, NULL), MJ_ERR_COMPILE);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "comparator"));
    mj_sorter_destroy(s);
    mj__dev_free(ctx, temp);
    mj__dev_free(ctx, dk);
}
END_TEST

/* Padded custom keys keep every byte (padded_keys_support.h; issue 43), keys alone and with
 * values, sorter and one-call forms, up to 2 10^6 keys: past 32 MiB, so 4-way merge passes. */
START_TEST(test_padded_keys) {
    padk_run(ctx, MJ_MERGESORT, 0, -1, 2000000, small);
}
END_TEST

int main(void) {
    small = mjt_small();
    ctx = mjt_gpu_context_or_skip("test_gpu_sort");
    Suite *s = suite_create("gpu_sort");
    /* Four cases, so that a sanitizer can run them side by side (CK_RUN_CASE; tools/gpu-check
     * does): racecheck over the whole suite takes longer than a device command may. */
    TCase *kinds = tcase_create("kinds"), *passes = tcase_create("passes"),
          *create = tcase_create("create"), *misc = tcase_create("misc");
    TCase *cases[] = {kinds, passes, create, misc};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        tcase_set_timeout(cases[i], 1200);
        suite_add_tcase(s, cases[i]);
    }
    tcase_add_loop_test(kinds, test_every_kind, 0, MJ_KEY_CUSTOM);
    tcase_add_test(kinds, test_custom_struct);
    tcase_add_test(kinds, test_padded_keys);
    tcase_add_loop_test(passes, test_merge_ways, 0, 3);
    tcase_add_loop_test(passes, test_schedules, 0, 4);
    tcase_add_loop_test(create, test_kernels_at_create, 0,
                        small ? SORT_VARIANTS - 1 : SORT_VARIANTS);
    tcase_add_test(create, test_create_build_fails);
    tcase_add_test(misc, test_indices);
    tcase_add_test(misc, test_sort_with_indices);
    tcase_add_test(misc, test_runtime_interop);
    tcase_add_test(misc, test_bad_arguments);
    if (!small) {
        tcase_add_test(misc, test_large);
        tcase_add_test(misc, test_over_2g);
    }
    int rc = mjt_run(s, 0);
    mj_context_destroy(ctx);
    return rc;
}
