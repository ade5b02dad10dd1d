/* SPDX-License-Identifier: Apache-2.0 */
/* The mergesort pass profile on the GPU: mj_sorter_sort_profiled sorts as the CPU reference
 * does, at tile and run edges with MERGEJIT_MERGE_WAYS=2 and 4 and under the other schedule
 * switches, its passes are the schedule's model (tests/support/sort_passes_support.h) with a
 * time each, their sum is close to an unprofiled sort's time, and bad arguments leave the keys
 * as they were. Skips (exit 77) where there is no GPU; MJ_TEST_SMALL=1 keeps it short
 * (compute-sanitizer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "cli.h"
#include "sort_passes_support.h"
#include "test_support.h"

#define CAP 64

static mj_context *ctx;
static int small;

typedef struct sort_case {
    mj_key_kind key;
    size_t value_size;
} sort_case;

/* A mergesort sorter and what its passes depend on: MERGEJIT_MERGE_WAYS ("2" or "4"), fused
 * 2-way passes (MERGEJIT_FUSED_PARTITION) and the default tile (nv elements a merge tile, runs
 * tiles a blocksort run). */
typedef struct profiled_sorter {
    mj_sorter *s;
    sort_case c;
    const char *ways;
    int fused;
    long long nv, runs;
} profiled_sorter;

/* The sorter for c, with the switches (read as it is created) set: ways, fused 2-way passes
 * (0 or 1) and overlapped launches (MERGEJIT_PDL, 0 or 1). */
static profiled_sorter make_sorter(sort_case c, const char *ways, int fused, int pdl) {
    profiled_sorter p = {NULL, c, ways, fused, 0, 0};
    ck_assert_int_eq(setenv("MERGEJIT_MERGE_WAYS", ways, 1), 0);
    ck_assert_int_eq(setenv("MERGEJIT_FUSED_PARTITION", fused ? "1" : "0", 1), 0);
    ck_assert_int_eq(setenv("MERGEJIT_PDL", pdl ? "1" : "0", 1), 0);
    mj_sort_desc d;
    mj_sort_desc_init(&d, c.key, MJ_ASCENDING);
    d.value_size = c.value_size;
    mj_status st = mj_sorter_create(ctx, &d, &p.s);
    unsetenv("MERGEJIT_MERGE_WAYS");
    unsetenv("MERGEJIT_FUSED_PARTITION");
    unsetenv("MERGEJIT_PDL");
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    int nt = 0, vt = 0;
    mj_sorter_tile(p.s, &nt, &vt);
    mj_tile t;
    ck_assert_int_eq(mj_context_tile(ctx, MJ_MERGESORT, mj_key_kind_size(c.key), c.value_size, &t),
                     MJ_OK);
    ck_assert(t.nt == nt && t.vt == vt && t.bs_nt % nt == 0);
    p.nv = (long long)nt * vt;
    p.runs = t.bs_nt / nt;
    return p;
}

/* Host input of n elements: keys of the case's kind (all equal when `equal`), values holding
 * their index (kg_fill_values), so that the reference checks stability. */
typedef struct host_input {
    unsigned char *keys, *values;
} host_input;

static host_input make_input(sort_case c, size_t n, int equal, uint64_t seed) {
    size_t ks = mj_key_kind_size(c.key);
    host_input h = {malloc(n * ks + 1), malloc(n * c.value_size + 1)};
    ck_assert(h.keys && h.values);
    kg_fill_keys(c.key, h.keys, n, seed);
    for (size_t i = 1; equal && i < n; ++i) memcpy(h.keys + i * ks, h.keys, ks);
    kg_fill_values(h.values, c.value_size, n);
    return h;
}

/* One profiled sort of input h (n elements) with p's sorter, on `stream`, with temporary
 * storage of its own (own_temp) or the library's: the result is the CPU reference's, the
 * passes the model's, each with a time. */
static void check_profiled(const profiled_sorter *p, host_input h, size_t n, int own_temp,
                           void *stream) {
    mj_sorter *s = p->s;
    sort_case c = p->c;
    size_t ks = mj_key_kind_size(c.key), vs = c.value_size;
    void *dk = NULL, *dv = NULL, *temp = NULL;
    size_t temp_bytes = 0;
    ck_assert_int_eq(mj__dev_alloc(ctx, &dk, n * ks), MJ_OK);
    ck_assert_int_eq(mj__dev_upload(ctx, dk, h.keys, n * ks), MJ_OK);
    if (vs) {
        ck_assert_int_eq(mj__dev_alloc(ctx, &dv, n * vs), MJ_OK);
        ck_assert_int_eq(mj__dev_upload(ctx, dv, h.values, n * vs), MJ_OK);
    }
    if (own_temp) {
        ck_assert_int_eq(mj_sorter_temp_size(s, n, 0, &temp_bytes), MJ_OK);
        ck_assert_int_eq(mj__dev_alloc(ctx, &temp, temp_bytes), MJ_OK);
    }
    char what[160];
    snprintf(what, sizeof what, "%s + %zu B values, ways %s, fused %d, n %zu, %s temp",
             mj_key_kind_name(c.key), vs, p->ways, p->fused, n, own_temp ? "own" : "library");

    mj_sort_pass got[CAP], want[CAP];
    int count = -1;
    mj_status st = mj_sorter_sort_profiled(s, dk, dv, n, temp, temp_bytes, stream, got, CAP,
                                           &count);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st), mj_context_last_error(ctx));
    /* Returned after the sort: read back without waiting. */
    unsigned char *out_k = malloc(n * ks + 1), *out_v = malloc(n * vs + 1);
    uint64_t *perm = malloc(n * sizeof *perm + 8);
    ck_assert(out_k && out_v && perm);
    ck_assert_int_eq(mj__dev_download(ctx, out_k, dk, n * ks), MJ_OK);
    if (vs) ck_assert_int_eq(mj__dev_download(ctx, out_v, dv, n * vs), MJ_OK);
    ck_assert_int_eq(kg_reference_sort(c.key, MJ_ASCENDING, h.keys, n, perm), MJ_OK);
    size_t first = 0, bad = kg_compare(ks, vs, h.keys, vs ? h.values : NULL, out_k,
                                       vs ? out_v : NULL, perm, n, &first);
    ck_assert_msg(bad == 0, "%s: %zu mismatches, first at %zu", what, bad, first);

    int want_count = mjt_model_passes(n, p->nv, p->runs, atoi(p->ways), p->fused, ks + vs, want,
                                      CAP);
    mjt_expect_passes(got, count, want, want_count, what);
    double sum = 0;
    for (int i = 0; i < count; ++i) {
        ck_assert_msg(got[i].ms > 0, "%s: pass %d took %g ms", what, i, got[i].ms);
        sum += got[i].ms;
    }
    int planned = -1;
    ck_assert_int_eq(mj_sorter_sort_passes(s, n, NULL, 0, &planned), MJ_OK);
    ck_assert_int_eq(planned, count);
    if (getenv("MJ_TEST_TRACE")) {
        char text[128];
        mj_sort_passes_text(got, count, text, sizeof text);
        fprintf(stderr, "%s: %s, %.3f ms\n", what, text, sum);
    }
    mj__dev_free(ctx, dk);
    mj__dev_free(ctx, dv);
    mj__dev_free(ctx, temp);
    free(out_k);
    free(out_v);
    free(perm);
}

/* Sizes at the edges of a tile and of a blocksort run (and 2^20 unless small). */
static size_t edge_sizes(long long nv, long long runs, size_t *out) {
    size_t t = (size_t)nv, b = (size_t)(nv * runs), k = 0;
    size_t all[] = {0, 1, t - 1, t, t + 1, b - 1, b, b + 1, 2 * b + 1, 5 * b + 3, 8 * b,
                    (size_t)1 << 20, ((size_t)1 << 20) + 1};
    size_t count = sizeof all / sizeof *all - (small ? 2 : 0);
    for (size_t i = 0; i < count; ++i) out[k++] = all[i];
    return k;
}

/* _i: MERGEJIT_MERGE_WAYS 2 or 4. Random keys at every edge size, and all-equal keys at two;
 * the library's temporary storage and the caller's in turn. */
START_TEST(test_profiled_sizes) {
    static const sort_case cases[] = {{MJ_KEY_U32, 0}, {MJ_KEY_F32, 4}, {MJ_KEY_U64, 8}};
    const char *ways = _i == 0 ? "2" : "4";
    size_t case_count = small ? 1 : sizeof cases / sizeof *cases;
    for (size_t c = 0; c < case_count; ++c) {
        profiled_sorter p = make_sorter(cases[c], ways, 1, 0);
        size_t sizes[16], count = edge_sizes(p.nv, p.runs, sizes);
        for (size_t i = 0; i < count; ++i) {
            size_t n = sizes[i];
            host_input h = make_input(cases[c], n, 0, 7 + i);
            check_profiled(&p, h, n, (int)(i & 1), NULL);
            free(h.keys);
            free(h.values);
            if (i != 6 && i != 9) continue;
            h = make_input(cases[c], n, 1, 11 + i);
            check_profiled(&p, h, n, 1, NULL);
            free(h.keys);
            free(h.values);
        }
        mj_sorter_destroy(p.s);
    }
}
END_TEST

/* The other schedules, on a stream of the CUDA runtime's (the events are recorded on it and
 * the call waits for it): _i 0 a partition kernel before each 2-way merge, 1 overlapped
 * launches (MERGEJIT_PDL=1: the events sit between kernels that may otherwise overlap), each
 * with 2-way passes, then with a 2-way pass and 4-way ones. */
START_TEST(test_profiled_schedules) {
    mjt_cudart rt;
    ck_assert_int_eq(mjt_cudart_load(&rt), 0);
    void *stream = NULL;
    ck_assert_int_eq(rt.stream_create(&stream), 0);
    sort_case c = {MJ_KEY_U64, 4};
    for (int w = 0; w < 2; ++w) {
        profiled_sorter p = make_sorter(c, w ? "4" : "2", _i == 1, _i == 1);
        size_t n = (size_t)(p.nv * p.runs) * (small ? 5 : 300) + 17; /* odd doublings */
        host_input h = make_input(c, n, 0, 3);
        check_profiled(&p, h, n, 1, stream);
        free(h.keys);
        free(h.values);
        mj_sorter_destroy(p.s);
    }
    rt.stream_destroy(stream);
}
END_TEST

typedef struct timed_sort {
    mj_sorter *s;
    void *keys;
    size_t n;
} timed_sort;

static mj_status run_plain(void *arg) {
    timed_sort *t = arg;
    return mj_sorter_sort(t->s, t->keys, NULL, t->n, NULL, 0, NULL);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define REPS 5

/* The passes' times add up to about an unprofiled sort's (medians of REPS each, fresh input
 * each time): the events cost a few microseconds a pass, not a share of the sort. Not under
 * MJ_TEST_SMALL, whose runs under compute-sanitizer time nothing that means anything. */
START_TEST(test_profiled_time) {
    static const struct { sort_case c; const char *ways; int log2n; } runs_of[] = {
        {{MJ_KEY_U32, 0}, "2", 20}, {{MJ_KEY_U64, 0}, "4", 22}};
    for (int r = 0; r < 2; ++r) {
        sort_case c = runs_of[r].c;
        size_t ks = mj_key_kind_size(c.key), n = (size_t)1 << runs_of[r].log2n;
        profiled_sorter ps = make_sorter(c, runs_of[r].ways, 1, 0);
        mj_sorter *s = ps.s;
        host_input h = make_input(c, n, 0, 5);
        void *src = NULL, *dk = NULL;
        ck_assert_int_eq(mj__dev_alloc(ctx, &src, n * ks), MJ_OK);
        ck_assert_int_eq(mj__dev_alloc(ctx, &dk, n * ks), MJ_OK);
        ck_assert_int_eq(mj__dev_upload(ctx, src, h.keys, n * ks), MJ_OK);
        double plain[REPS], profiled[REPS];
        mj_sort_pass p[CAP];
        int count = 0;
        timed_sort t = {s, dk, n};
        for (int i = 0; i < 2 * REPS + 2; ++i) { /* a warm-up of each first */
            ck_assert_int_eq(mj__dev_copy(ctx, dk, src, n * ks), MJ_OK);
            if (i % 2 == 0) {
                float ms = 0;
                ck_assert_int_eq(mj__dev_time(ctx, run_plain, &t, &ms), MJ_OK);
                if (i >= 2) plain[i / 2 - 1] = ms;
                continue;
            }
            mj_status st = mj_sorter_sort_profiled(s, dk, NULL, n, NULL, 0, NULL, p, CAP, &count);
            ck_assert_msg(st == MJ_OK, "%s", mj_context_last_error(ctx));
            double sum = 0;
            for (int k = 0; k < count; ++k) sum += p[k].ms;
            if (i >= 2) profiled[i / 2 - 1] = sum;
        }
        qsort(plain, REPS, sizeof *plain, cmp_double);
        qsort(profiled, REPS, sizeof *profiled, cmp_double);
        double a = plain[REPS / 2], b = profiled[REPS / 2];
        char text[128];
        mj_sort_passes_text(p, count, text, sizeof text);
        printf("test_gpu_profile: %s n=%zu %s: profiled %.4f ms (passes summed), plain %.4f ms\n",
               mj_key_kind_name(c.key), n, text, b, a);
        ck_assert_msg(b >= 0.5 * a && b <= 2 * a + 0.005 * count,
                      "%s n=%zu: the passes add up to %.4f ms, a plain sort takes %.4f ms",
                      mj_key_kind_name(c.key), n, b, a);
        mj__dev_free(ctx, src);
        mj__dev_free(ctx, dk);
        free(h.keys);
        free(h.values);
        mj_sorter_destroy(s);
    }
}
END_TEST

/* Each refusal leaves the keys on the device as they were and says why. */
START_TEST(test_profiled_bad_arguments) {
    sort_case c = {MJ_KEY_U32, 0};
    profiled_sorter ps = make_sorter(c, "2", 1, 0);
    mj_sorter *s = ps.s;
    size_t n = (size_t)(ps.nv * ps.runs) * 3 + 5, need_temp = 0;
    host_input h = make_input(c, n, 0, 9);
    uint32_t *back = malloc(n * 4 + 4);
    void *dk = NULL, *temp = NULL;
    ck_assert_int_eq(mj__dev_alloc(ctx, &dk, n * 4 + 4), MJ_OK);
    ck_assert_int_eq(mj__dev_upload(ctx, dk, h.keys, n * 4), MJ_OK);
    ck_assert_int_eq(mj_sorter_temp_size(s, n, 0, &need_temp), MJ_OK);
    ck_assert_int_eq(mj__dev_alloc(ctx, &temp, need_temp + 256), MJ_OK);
    mj_sort_pass p[CAP];
    int need = 0, count = -1;
    ck_assert_int_eq(mj_sorter_sort_passes(s, n, NULL, 0, &need), MJ_OK);
    ck_assert_int_eq(need, 3); /* bs+2x2 */

    mjt_expect(ctx, mj_sorter_sort_profiled(s, dk, NULL, n, NULL, 0, NULL, p, need - 1, &count),
               MJ_ERR_INVALID_ARGUMENT, "has room for", "capacity too small");
    ck_assert_int_eq(count, need);
    mjt_expect(ctx, mj_sorter_sort_profiled(s, dk, NULL, n, temp, need_temp - 1, NULL, p, CAP,
                                            &count),
               MJ_ERR_INVALID_ARGUMENT, "too small", "temp too small");
    mjt_expect(ctx, mj_sorter_sort_profiled(s, dk, NULL, n, (char *)temp + 8, need_temp, NULL, p,
                                            CAP, &count),
               MJ_ERR_INVALID_ARGUMENT, "aligned", "temp misaligned");
    mjt_expect(ctx, mj_sorter_sort_profiled(s, (char *)dk + 2, NULL, n, NULL, 0, NULL, p, CAP,
                                            &count),
               MJ_ERR_INVALID_ARGUMENT, "aligned", "keys misaligned");
    mjt_expect(ctx, mj_sorter_sort_profiled(s, back, NULL, n, NULL, 0, NULL, p, CAP, &count),
               MJ_ERR_INVALID_ARGUMENT, "host memory", "keys in host memory");
    mjt_expect(ctx, mj_sorter_sort_profiled(s, NULL, NULL, n, NULL, 0, NULL, p, CAP, &count),
               MJ_ERR_INVALID_ARGUMENT, "keys is NULL", "NULL keys");
    ck_assert_int_eq(mj__dev_download(ctx, back, dk, n * 4), MJ_OK);
    ck_assert(memcmp(back, h.keys, n * 4) == 0);

    /* And then it sorts. */
    ck_assert_int_eq(mj_sorter_sort_profiled(s, dk, NULL, n, temp, need_temp, NULL, p, need,
                                             &count), MJ_OK);
    ck_assert_int_eq(count, need);
    ck_assert_int_eq(mj__dev_download(ctx, back, dk, n * 4), MJ_OK);
    for (size_t i = 1; i < n; ++i) ck_assert_uint_le(back[i - 1], back[i]);
    mj__dev_free(ctx, dk);
    mj__dev_free(ctx, temp);
    free(back);
    free(h.keys);
    free(h.values);
    mj_sorter_destroy(s);
}
END_TEST

int main(void) {
    small = mjt_small();
    ctx = mjt_gpu_context_or_skip("test_gpu_profile");
    Suite *s = suite_create("gpu_profile");
    TCase *tc = tcase_create("profile");
    tcase_set_timeout(tc, 1200);
    tcase_add_loop_test(tc, test_profiled_sizes, 0, 2);
    tcase_add_loop_test(tc, test_profiled_schedules, 0, 2);
    if (!small) tcase_add_test(tc, test_profiled_time);
    tcase_add_test(tc, test_profiled_bad_arguments);
    suite_add_tcase(s, tc);
    int rc = mjt_run(s, 0);
    mj_context_destroy(ctx);
    return rc;
}
