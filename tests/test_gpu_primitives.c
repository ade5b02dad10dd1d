/* Merge, segmented sort and locality sort on the GPU against CPU references. Keys are u32 or
 * u64; values are 4-byte tags naming each input element, so equal keys out of order (an
 * unstable result) fail the comparison. Skips (exit 77) where there is no GPU.
 * MJ_TEST_SMALL=1 runs smaller sizes (for compute-sanitizer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "test_support.h"

static mj_context *ctx;
static int small, verbose;

/* MJ_TEST_VERBOSE=1: one line per case before it runs, to find a case that hangs. */
static void say(const char *what) {
    if (verbose) {
        fprintf(stderr, "  %s\n", what);
        fflush(stderr);
    }
}

typedef struct item {
    uint64_t key;
    uint32_t tag;
    uint32_t seg;
} item;

/* Order by segment, key, then tag (the input position): a stable segmented sort. */
static int item_cmp(const void *x, const void *y) {
    const item *a = x, *b = y;
    if (a->seg != b->seg) return a->seg < b->seg ? -1 : 1;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->tag < b->tag ? -1 : a->tag > b->tag;
}

static void *dev_copy(const void *host, size_t bytes) {
    void *d = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &d, bytes), MJ_OK);
    if (bytes) ck_assert_int_eq(mj__dev_upload(ctx, d, host, bytes), MJ_OK);
    return d;
}

static void *host_copy(const void *dev, size_t bytes) {
    void *h = malloc(bytes + 1);
    ck_assert_ptr_nonnull(h);
    if (bytes) ck_assert_int_eq(mj__dev_download(ctx, h, dev, bytes), MJ_OK);
    return h;
}

static void put_key(void *keys, size_t ks, size_t i, uint64_t k) {
    if (ks == 4)
        ((uint32_t *)keys)[i] = (uint32_t)k;
    else
        ((uint64_t *)keys)[i] = k;
}
static uint64_t get_key(const void *keys, size_t ks, size_t i) {
    return ks == 4 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
}

static mj_sorter *make_sorter(mj_primitive primitive, mj_key_kind kind, size_t value_size) {
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, kind, MJ_ASCENDING);
    desc.primitive = primitive;
    desc.value_size = value_size;
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, &desc, &s);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    return s;
}

/* Checks n keys (and tags) from the device against the reference items, sorted. */
static void expect(const void *d_keys, const void *d_tags, size_t ks, item *ref, size_t n,
                   const char *what) {
    qsort(ref, n, sizeof *ref, item_cmp);
    void *keys = host_copy(d_keys, n * ks);
    uint32_t *tags = d_tags ? host_copy(d_tags, n * 4) : NULL;
    for (size_t i = 0; i < n; ++i) {
        uint64_t k = get_key(keys, ks, i);
        ck_assert_msg(k == ref[i].key, "%s: key %zu of %zu is %llu, expected %llu", what, i, n,
                      (unsigned long long)k, (unsigned long long)ref[i].key);
        if (tags)
            ck_assert_msg(tags[i] == ref[i].tag, "%s: value %zu of %zu is %u, expected %u "
                          "(unstable?)", what, i, n, tags[i], ref[i].tag);
    }
    free(keys);
    free(tags);
}

/* ---------------------------------------------------------------- merge */

enum { M_RANDOM, M_EQUAL, M_A_BELOW, M_B_BELOW, M_INTERLEAVED, M_COUNT };
static const char *const merge_names[] = {"random", "equal", "a-below-b", "b-below-a",
                                          "interleaved"};

static uint64_t merge_key(int dist, int list, size_t i, size_t count, uint64_t *rng) {
    switch (dist) {
    case M_EQUAL: return 7;
    case M_A_BELOW: return list == 0 ? i : count + i;
    case M_B_BELOW: return list == 1 ? i : count + i;
    case M_INTERLEAVED: return 2 * i + (uint64_t)list;
    default: return mjt_rand(rng) % 100000; /* sorted below */
    }
}

static int u64_cmp(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static void check_merge(mj_sorter *s, size_t ks, int values, int dist, size_t a_count,
                        size_t b_count) {
    size_t counts[2] = {a_count, b_count}, n = a_count + b_count;
    void *keys[2], *dk[2], *dv[2];
    uint32_t *tags[2];
    item *ref = malloc((n + 1) * sizeof *ref);
    ck_assert_ptr_nonnull(ref);
    uint64_t rng = 12345 + dist;
    size_t at = 0;
    for (int l = 0; l < 2; ++l) {
        uint64_t *raw = malloc((counts[l] + 1) * 8);
        keys[l] = malloc(counts[l] * ks + 1);
        tags[l] = malloc(counts[l] * 4 + 1);
        ck_assert(raw && keys[l] && tags[l]);
        for (size_t i = 0; i < counts[l]; ++i) raw[i] = merge_key(dist, l, i, n, &rng);
        qsort(raw, counts[l], 8, u64_cmp);
        for (size_t i = 0; i < counts[l]; ++i) {
            put_key(keys[l], ks, i, raw[i]);
            tags[l][i] = (uint32_t)(l << 31 | i);
            ref[at++] = (item){raw[i], tags[l][i], 0};
        }
        free(raw);
        dk[l] = dev_copy(keys[l], counts[l] * ks);
        dv[l] = values ? dev_copy(tags[l], counts[l] * 4) : NULL;
    }
    void *ok = NULL, *ov = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &ok, n * ks), MJ_OK);
    if (values) ck_assert_int_eq(mj__dev_alloc(ctx, &ov, n * 4), MJ_OK);
    char what[128];
    snprintf(what, sizeof what, "merge of %zu-byte keys%s, %s, %zu + %zu", ks,
             values ? " with values" : "", merge_names[dist], a_count, b_count);
    say(what);
    mj_status st = mj_sorter_merge(s, dk[0], dv[0], a_count, dk[1], dv[1], b_count, ok, ov,
                                   NULL, 0, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    expect(ok, ov, ks, ref, n, what);
    for (int l = 0; l < 2; ++l) {
        mj__dev_free(ctx, dk[l]);
        mj__dev_free(ctx, dv[l]);
        free(keys[l]);
        free(tags[l]);
    }
    mj__dev_free(ctx, ok);
    mj__dev_free(ctx, ov);
    free(ref);
}

START_TEST(test_merge) {
    static const size_t sizes[][2] = {{0, 0},       {0, 1000},      {1000, 0},    {1, 1},
                                      {5000, 3},    {12345, 67890}, {1 << 20, (1 << 20) + 7}};
    size_t cases = small ? 6 : sizeof sizes / sizeof *sizes;
    for (int keys64 = 0; keys64 < 2; ++keys64)
        for (int values = 0; values < 2; ++values) {
            mj_sorter *s = make_sorter(MJ_MERGE, keys64 ? MJ_KEY_U64 : MJ_KEY_U32,
                                       values ? 4 : 0);
            for (int dist = 0; dist < M_COUNT; ++dist)
                for (size_t c = 0; c < cases; ++c)
                    check_merge(s, keys64 ? 8 : 4, values, dist, sizes[c][0], sizes[c][1]);
            mj_sorter_destroy(s);
        }
}
END_TEST

/* The merge kernel starts while the partitions are still being found and waits for each
 * entry it reads to be found (kernel_merge_arrays.cuh): entries left in temporary storage by
 * earlier runs, or zeros, must never be taken for this run's. Three runs share one
 * caller-provided temporary buffer that starts as zeros: random lists, then lists whose
 * partitions all differ from the first run's (all of a below all of b), then random again.
 * The run has about twice as many tiles as the early partitions cover (four waves of
 * resident blocks: on an H100 at most 6 x 132 x 4 = 3168 tiles of 9472 keys), so both
 * partition paths are used, also under MJ_TEST_SMALL (compute-sanitizer). */
START_TEST(test_merge_reused_temp) {
    size_t half = (size_t)1 << 25, n = 2 * half;
    mj_sorter *s = make_sorter(MJ_MERGE, MJ_KEY_U32, 0);
    size_t temp_bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, n, 0, &temp_bytes), MJ_OK);
    void *zeros = calloc(1, temp_bytes), *temp = dev_copy(zeros, temp_bytes);
    uint32_t *in = malloc(n * 4), *want = malloc(n * 4);
    ck_assert(zeros && in && want);
    void *d_in = NULL, *d_out = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &d_in, n * 4), MJ_OK);
    ck_assert_int_eq(mj__dev_alloc(ctx, &d_out, n * 4), MJ_OK);
    uint64_t rng = 99;
    for (int round = 0; round < 3; ++round) {
        for (size_t i = 0; i < n; ++i)
            in[i] = round == 1 ? (uint32_t)i : (uint32_t)(mjt_rand(&rng) % 1000000);
        for (int l = 0; l < 2 && round != 1; ++l) {
            uint64_t *raw = malloc(half * 8);
            ck_assert_ptr_nonnull(raw);
            for (size_t i = 0; i < half; ++i) raw[i] = in[l * half + i];
            qsort(raw, half, 8, u64_cmp);
            for (size_t i = 0; i < half; ++i) in[l * half + i] = (uint32_t)raw[i];
            free(raw);
        }
        size_t ia = 0, ib = half;
        for (size_t i = 0; i < n; ++i)
            want[i] = ib == n || (ia < half && in[ia] <= in[ib]) ? in[ia++] : in[ib++];
        ck_assert_int_eq(mj__dev_upload(ctx, d_in, in, n * 4), MJ_OK);
        mj_status st = mj_sorter_merge(s, d_in, NULL, half, (uint32_t *)d_in + half, NULL, half,
                                       d_out, NULL, temp, temp_bytes, NULL);
        ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
        ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
        ck_assert_int_eq(mj__dev_download(ctx, in, d_out, n * 4), MJ_OK);
        /* One assertion, not one a key: each passing one costs Check a write. */
        size_t bad = 0;
        while (bad < n && in[bad] == want[bad]) ++bad;
        ck_assert_msg(bad == n, "round %d: key %zu of %zu is %u, expected %u", round, bad, n,
                      bad < n ? in[bad] : 0, bad < n ? want[bad] : 0);
    }
    mj__dev_free(ctx, d_in);
    mj__dev_free(ctx, d_out);
    mj__dev_free(ctx, temp);
    free(zeros);
    free(in);
    free(want);
    mj_sorter_destroy(s);
}
END_TEST

/* ---------------------------------------------------------------- segmented sort */

/* Segment lengths: a fixed length, or one of the patterns below. */
enum { L_RANDOM = -1, L_POWER = -2, L_EMPTIES = -3 };

/* Fills heads[0, *count) with segment starts covering n (possibly repeated: empty segments)
 * and returns the count. */
static size_t make_heads(long len, size_t n, uint64_t *heads, uint64_t *rng) {
    size_t count = 0, at = 0;
    while (at < n) {
        heads[count++] = at;
        size_t l;
        if (len > 0) {
            l = (size_t)len;
        } else if (len == L_RANDOM) {
            l = 1 + mjt_rand(rng) % 2000;
        } else if (len == L_POWER) { /* P(l > x) ~ 1/x: many short, a few very long */
            double u = (double)(mjt_rand(rng) % 1000000 + 1) / 1000001.0;
            l = (size_t)(1.0 / u);
            if (l > n) l = n;
        } else { /* L_EMPTIES: three empty segments before each short one */
            heads[count++] = at;
            heads[count++] = at;
            l = 1 + mjt_rand(rng) % 50;
        }
        at += l;
    }
    return count;
}

static void check_segsort(mj_sorter *s, size_t ks, int values, size_t n, long len,
                          mj_segments_kind kind, uint64_t seed) {
    uint64_t rng = seed;
    uint64_t *heads = malloc((4 * n + 4) * sizeof *heads);
    ck_assert_ptr_nonnull(heads);
    size_t count = make_heads(len, n, heads, &rng);
    void *keys = malloc(n * ks + 1);
    uint32_t *tags = malloc(n * 4 + 1);
    item *ref = malloc((n + 1) * sizeof *ref);
    ck_assert(keys && tags && ref);
    size_t h = 0;
    uint32_t seg = 0;
    for (size_t i = 0; i < n; ++i) {
        while (h < count && heads[h] == i) {
            ++h;
            ++seg;
        }
        uint64_t k = mjt_rand(&rng) % (len > 0 && len < 64 ? 8 : 1000000); /* ties too */
        put_key(keys, ks, i, k);
        tags[i] = (uint32_t)i;
        ref[i] = (item){k, (uint32_t)i, seg};
    }
    /* The segments in the requested form. */
    void *data = NULL;
    size_t bytes = 0, index_size = 0, entries = 0;
    if (kind == MJ_SEGMENTS_FLAGS || kind == MJ_SEGMENTS_FLAG_BITS) {
        size_t words = (n + 31) / 32;
        bytes = kind == MJ_SEGMENTS_FLAGS ? n : words * 4;
        unsigned char *f = calloc(bytes + 1, 1);
        ck_assert_ptr_nonnull(f);
        for (size_t i = 0; i < count; ++i) {
            if (kind == MJ_SEGMENTS_FLAGS)
                f[heads[i]] = 1;
            else
                ((uint32_t *)f)[heads[i] / 32] |= 1u << (heads[i] % 32);
        }
        if (kind == MJ_SEGMENTS_FLAG_BITS && n % 32) /* bits past n must be ignored */
            ((uint32_t *)f)[words - 1] |= ~0u << (n % 32);
        data = f;
    } else {
        index_size = kind == MJ_SEGMENTS_HEADS ? 4 : 8;
        entries = count + (kind == MJ_SEGMENTS_OFFSETS); /* CSR: the end offset n too */
        heads[count] = n;
        bytes = entries * index_size;
        data = malloc(bytes + 1);
        ck_assert_ptr_nonnull(data);
        for (size_t i = 0; i < entries; ++i) {
            if (index_size == 4)
                ((uint32_t *)data)[i] = (uint32_t)heads[i];
            else
                ((uint64_t *)data)[i] = heads[i];
        }
    }
    void *dk = dev_copy(keys, n * ks), *dv = values ? dev_copy(tags, n * 4) : NULL;
    void *dd = dev_copy(data, bytes);
    mj_segments segs = {kind, dd, entries, index_size};
    char what[160];
    snprintf(what, sizeof what, "segmented sort of %zu %zu-byte keys%s, segment length %ld "
             "(%zu heads), segments kind %d", n, ks, values ? " with values" : "", len, count,
             (int)kind);
    say(what);
    mj_status st = mj_sorter_segmented_sort(s, dk, dv, n, &segs, NULL, 0, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    expect(dk, dv, ks, ref, n, what);
    mj__dev_free(ctx, dk);
    mj__dev_free(ctx, dv);
    mj__dev_free(ctx, dd);
    free(data);
    free(keys);
    free(tags);
    free(ref);
    free(heads);
}

START_TEST(test_segsort_lengths) {
    static const long lens[] = {1, 32, 300, 10000, 1000000, L_RANDOM, L_POWER, L_EMPTIES};
    size_t n = small ? 70000 : 1100000;
    mj_sorter *pairs = make_sorter(MJ_SEGMENTED_SORT, MJ_KEY_U32, 4);
    mj_sorter *keys64 = make_sorter(MJ_SEGMENTED_SORT, MJ_KEY_U64, 0);
    /* Every length in two of the four forms; length 300 in all four. */
    for (size_t i = 0; i < sizeof lens / sizeof *lens; ++i)
        for (int kind = 0; kind < 4; ++kind) {
            if (kind == (int)(i % 4) || lens[i] == 300)
                check_segsort(pairs, 4, 1, n, lens[i], (mj_segments_kind)kind, 100 + i);
            if (kind == (int)((i + 1) % 4))
                check_segsort(keys64, 8, 0, n, lens[i], (mj_segments_kind)kind, 200 + i);
        }
    mj_sorter_destroy(pairs);
    mj_sorter_destroy(keys64);
}
END_TEST

/* One segment length after another on one size, around every tile size. */
START_TEST(test_segsort_every_length) {
    mj_sorter *s = make_sorter(MJ_SEGMENTED_SORT, MJ_KEY_U32, 4);
    int nt, vt;
    mj_sorter_tile(s, &nt, &vt);
    size_t nv = (size_t)nt * vt, n = small ? 5 * nv + 17 : 9 * nv + 17;
    for (long len = 1; len <= 40; ++len)
        check_segsort(s, 4, 1, n, len, MJ_SEGMENTS_HEADS, (uint64_t)len);
    for (long k = 1; k <= 8; k *= 2)
        for (long d = -1; d <= 1; ++d)
            check_segsort(s, 4, 1, n, (long)(k * nv) + d, MJ_SEGMENTS_OFFSETS, (uint64_t)(k + d));
    check_segsort(s, 4, 1, n, (long)n - 1, MJ_SEGMENTS_FLAGS, 1);
    check_segsort(s, 4, 1, n, (long)n, MJ_SEGMENTS_FLAG_BITS, 2);
    for (size_t m = 1; m <= 3; ++m) check_segsort(s, 4, 1, m, 1, MJ_SEGMENTS_FLAGS, m);
    mj_sorter_destroy(s);
}
END_TEST

/* ---------------------------------------------------------------- locality sort */

enum { N_SWAPS_FEW, N_SWAPS_MANY, N_BLOCKS, N_REVERSED, N_RANDOM, N_COUNT };
static const char *const near_names[] = {"sorted with 10 swaps", "sorted with 1% swaps",
                                         "shuffled blocks", "reversed", "random"};

static void check_locality(mj_sorter *s, size_t ks, int values, int dist, size_t n) {
    uint64_t rng = 777 + dist;
    uint64_t *raw = malloc((n + 1) * 8);
    ck_assert_ptr_nonnull(raw);
    for (size_t i = 0; i < n; ++i) raw[i] = dist == N_RANDOM ? mjt_rand(&rng) % n : i / 3;
    if (dist == N_REVERSED)
        for (size_t i = 0; i < n / 2; ++i) {
            uint64_t t = raw[i];
            raw[i] = raw[n - 1 - i];
            raw[n - 1 - i] = t;
        }
    if (dist == N_SWAPS_FEW || dist == N_SWAPS_MANY) {
        size_t swaps = dist == N_SWAPS_FEW ? 10 : n / 100;
        for (size_t k = 0; k < swaps && n > 1; ++k) {
            size_t i = mjt_rand(&rng) % n, j = mjt_rand(&rng) % n;
            uint64_t t = raw[i];
            raw[i] = raw[j];
            raw[j] = t;
        }
    }
    if (dist == N_BLOCKS) { /* blocks of 1000 sorted keys in a shuffled order */
        size_t blocks = (n + 999) / 1000;
        for (size_t b = blocks; b > 1; --b) {
            size_t c = mjt_rand(&rng) % b, x = b - 1;
            for (size_t i = 0; i < 1000 && x * 1000 + i < n && c * 1000 + i < n; ++i) {
                uint64_t t = raw[x * 1000 + i];
                raw[x * 1000 + i] = raw[c * 1000 + i];
                raw[c * 1000 + i] = t;
            }
        }
    }
    void *keys = malloc(n * ks + 1);
    uint32_t *tags = malloc(n * 4 + 1);
    item *ref = malloc((n + 1) * sizeof *ref);
    ck_assert(keys && tags && ref);
    for (size_t i = 0; i < n; ++i) {
        put_key(keys, ks, i, raw[i]);
        tags[i] = (uint32_t)i;
        ref[i] = (item){raw[i], (uint32_t)i, 0};
    }
    void *dk = dev_copy(keys, n * ks), *dv = values ? dev_copy(tags, n * 4) : NULL;
    char what[128];
    snprintf(what, sizeof what, "locality sort of %zu %zu-byte keys%s, %s", n, ks,
             values ? " with values" : "", near_names[dist]);
    say(what);
    mj_status st = mj_sorter_sort(s, dk, dv, n, NULL, 0, NULL);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_int_eq(mj__dev_sync(ctx, NULL), MJ_OK);
    expect(dk, dv, ks, ref, n, what);
    mj__dev_free(ctx, dk);
    mj__dev_free(ctx, dv);
    free(raw);
    free(keys);
    free(tags);
    free(ref);
}

START_TEST(test_locality) {
    static const size_t sizes[] = {0, 1, 1000, 70001, 1100000};
    size_t cases = small ? 4 : 5;
    mj_sorter *pairs = make_sorter(MJ_LOCALITY_SORT, MJ_KEY_U32, 4);
    mj_sorter *keys64 = make_sorter(MJ_LOCALITY_SORT, MJ_KEY_U64, 0);
    for (int dist = 0; dist < N_COUNT; ++dist)
        for (size_t c = 0; c < cases; ++c) {
            check_locality(pairs, 4, 1, dist, sizes[c]);
            check_locality(keys64, 8, 0, dist, sizes[c]);
        }
    mj_sorter_destroy(pairs);
    mj_sorter_destroy(keys64);
}
END_TEST

/* ---------------------------------------------------------------- misuse */

START_TEST(test_wrong_calls) {
    mj_sorter *merge = make_sorter(MJ_MERGE, MJ_KEY_U32, 0);
    mj_sorter *seg = make_sorter(MJ_SEGMENTED_SORT, MJ_KEY_U32, 0);
    uint32_t host[4] = {4, 3, 2, 1};
    void *d = dev_copy(host, sizeof host);
    ck_assert_int_eq(mj_sorter_sort(merge, d, NULL, 4, NULL, 0, NULL), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "merge"));
    ck_assert_int_eq(mj_sorter_sort(seg, d, NULL, 4, NULL, 0, NULL), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_sorter_segmented_sort(seg, d, NULL, 4, NULL, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    mj_segments bad = {MJ_SEGMENTS_HEADS, d, 2, 3};
    ck_assert_int_eq(mj_sorter_segmented_sort(seg, d, NULL, 4, &bad, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "4 or 8"));
    bad.kind = (mj_segments_kind)9;
    ck_assert_int_eq(mj_sorter_segmented_sort(seg, d, NULL, 4, &bad, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    mj_segments host_flags = {MJ_SEGMENTS_FLAGS, host, 0, 0};
    ck_assert_int_eq(mj_sorter_segmented_sort(seg, d, NULL, 4, &host_flags, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_sorter_merge(merge, d, NULL, 2, host, NULL, 2, d, NULL, NULL, 0, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_sorter_merge(merge, d, NULL, SIZE_MAX, d, NULL, 2, d, NULL, NULL, 0,
                                     NULL), MJ_ERR_TOO_LARGE);
    /* None of that touched the data. */
    uint32_t back[4];
    ck_assert_int_eq(mj__dev_download(ctx, back, d, sizeof back), MJ_OK);
    ck_assert_mem_eq(back, host, sizeof host);
    mj__dev_free(ctx, d);
    mj_sorter_destroy(merge);
    mj_sorter_destroy(seg);
}
END_TEST

int main(void) {
    small = mjt_small();
    verbose = getenv("MJ_TEST_VERBOSE") && atoi(getenv("MJ_TEST_VERBOSE"));
    ctx = mjt_gpu_context_or_skip("test_gpu_primitives");
    Suite *s = suite_create("gpu_primitives");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, test_wrong_calls);
    tcase_add_test(tc, test_merge);
    tcase_add_test(tc, test_merge_reused_temp);
    tcase_add_test(tc, test_segsort_every_length);
    tcase_add_test(tc, test_segsort_lengths);
    tcase_add_test(tc, test_locality);
    suite_add_tcase(s, tc);
    int rc = mjt_run(s, 0);
    mj_context_destroy(ctx);
    return rc;
}
