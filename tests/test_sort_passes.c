/* SPDX-License-Identifier: Apache-2.0 */
/* The mergesort pass profile without a GPU: mj_sorter_sort_passes against the schedule's model
 * (tests/support/sort_passes_support.h) at tile and run edges under each MERGEJIT_MERGE_WAYS
 * and MERGEJIT_FUSED_PARTITION, what mj_sorter_sort_profiled refuses before it touches the
 * device, and mj_sort_passes_text. In compile-only contexts (NVRTC runs, no driver needed). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context_support.h"
#include "sort_passes_support.h"
#include "test_support.h"

/* A small fixed tile, so that the sizes below sit on its edges whatever the defaults are. */
#define NT 128
#define VT 7
#define BS_NT 256
#define NV ((long long)NT * VT)
#define RUNS ((long long)BS_NT / NT)

#define CAP 40

static mj_sorter *make_sorter(mj_context *ctx, mj_primitive primitive, mj_key_kind key,
                              size_t value_size) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, key, MJ_ASCENDING);
    d.primitive = primitive;
    d.value_size = value_size;
    if (primitive == MJ_MERGESORT) {
        d.nt = NT;
        d.vt = VT;
        d.bs_nt = BS_NT;
    }
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(ctx, &d, &s);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    return s;
}

/* The sizes around every edge: tiles, blocksort runs, doublings, the 4-way threshold. */
static size_t edge_sizes(size_t element, size_t *out) {
    size_t bs = (size_t)(NV * RUNS), m4 = (size_t)MJ_MERGE4_MIN_BYTES / element, k = 0;
    size_t bases[] = {0, 1, 2, (size_t)NV, bs, 2 * bs, 3 * bs, 4 * bs, 8 * bs, 1000 * bs,
                      (size_t)1 << 20, m4, 2 * m4, (size_t)1 << 30};
    for (size_t i = 0; i < sizeof bases / sizeof *bases; ++i)
        for (int d = -1; d <= 1; ++d)
            if (bases[i] + d <= (size_t)1 << 31 && !(bases[i] == 0 && d < 0))
                out[k++] = bases[i] + d;
    return k;
}

/* mj_sorter_sort_passes against the model, for keys only and for pairs, at each setting of the
 * two switches (read as a sorter is created); a capacity below the count fills what fits. */
START_TEST(plan_matches_model) {
    static const char *const ways_settings[] = {"2", "4", ""};
    static const char *const fused_settings[] = {"1", "0"};
    static const struct { mj_key_kind key; size_t value_size; } cases[] = {
        {MJ_KEY_U32, 0}, {MJ_KEY_U64, 8}};
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c)
        for (int w = 0; w < 3; ++w)
            for (int f = 0; f < 2; ++f) {
                ck_assert_int_eq(setenv("MERGEJIT_MERGE_WAYS", ways_settings[w], 1), 0);
                ck_assert_int_eq(setenv("MERGEJIT_FUSED_PARTITION", fused_settings[f], 1), 0);
                mj_sorter *s = make_sorter(ctx, MJ_MERGESORT, cases[c].key, cases[c].value_size);
                size_t element = mj_key_kind_size(cases[c].key) + cases[c].value_size;
                size_t sizes[64];
                size_t count = edge_sizes(element, sizes);
                for (size_t i = 0; i < count; ++i) {
                    size_t n = sizes[i];
                    char what[128];
                    snprintf(what, sizeof what, "%zu B elements, ways \"%s\", fused %s, n %zu",
                             element, ways_settings[w], fused_settings[f], n);
                    mj_sort_pass want[CAP], got[CAP];
                    int want_count = mjt_model_passes(n, NV, RUNS, w == 2 ? 0 : 2 + 2 * w,
                                                      f == 0, element, want, CAP);
                    int got_count = -1;
                    ck_assert_int_eq(mj_sorter_sort_passes(s, n, NULL, 0, &got_count), MJ_OK);
                    ck_assert_msg(got_count == want_count, "%s: count %d, model %d", what,
                                  got_count, want_count);
                    memset(got, 0xab, sizeof got);
                    ck_assert_int_eq(mj_sorter_sort_passes(s, n, got, CAP, &got_count), MJ_OK);
                    mjt_expect_passes(got, got_count, want, want_count, what);
                    for (int p = 0; p < got_count; ++p) ck_assert(got[p].ms == 0);
                    ck_assert_uint_eq(((unsigned char *)&got[got_count])[0], 0xab);
                    if (want_count < 2) continue;
                    /* Room for one pass fewer: those that fit, the whole count. */
                    memset(got, 0xab, sizeof got);
                    ck_assert_int_eq(mj_sorter_sort_passes(s, n, got, want_count - 1, &got_count),
                                     MJ_OK);
                    ck_assert_int_eq(got_count, want_count);
                    mjt_expect_passes(got, want_count - 1, want, want_count - 1, what);
                    ck_assert_uint_eq(((unsigned char *)&got[want_count - 1])[0], 0xab);
                }
                mj_sorter_destroy(s);
            }
    unsetenv("MERGEJIT_MERGE_WAYS");
    unsetenv("MERGEJIT_FUSED_PARTITION");
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* Everything mj_sorter_sort_profiled and mj_sorter_sort_passes refuse, each with its message
 * (in a compile-only context, the argument checks come before the device is needed). */
START_TEST(bad_arguments) {
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sorter *s = make_sorter(ctx, MJ_MERGESORT, MJ_KEY_U32, 0);
    void *fake = (void *)(uintptr_t)0x100000;
    mj_sort_pass passes[CAP];
    int count = -7;
    size_t n = 100000;

    ck_assert_int_eq(mj_sorter_sort_passes(NULL, n, passes, CAP, &count), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_sorter_sort_profiled(NULL, fake, NULL, n, NULL, 0, NULL, passes, CAP,
                                             &count), MJ_ERR_INVALID_ARGUMENT);
    mjt_expect(ctx, mj_sorter_sort_passes(s, n, passes, CAP, NULL), MJ_ERR_INVALID_ARGUMENT,
               "count is NULL", "passes, NULL count");
    mjt_expect(ctx, mj_sorter_sort_profiled(s, fake, NULL, n, NULL, 0, NULL, passes, CAP, NULL),
               MJ_ERR_INVALID_ARGUMENT, "count is NULL", "profiled, NULL count");
    mjt_expect(ctx, mj_sorter_sort_passes(s, n, NULL, 3, &count), MJ_ERR_INVALID_ARGUMENT,
               "passes is NULL", "passes, NULL passes");
    mjt_expect(ctx, mj_sorter_sort_profiled(s, fake, NULL, n, NULL, 0, NULL, passes, -1, &count),
               MJ_ERR_INVALID_ARGUMENT, "negative", "profiled, negative capacity");
    mjt_expect(ctx, mj_sorter_sort_profiled(s, fake, fake, n, NULL, 0, NULL, passes, CAP, &count),
               MJ_ERR_INVALID_ARGUMENT, "values were given", "profiled, values to a keys sorter");
    mjt_expect(ctx, mj_sorter_sort_passes(s, SIZE_MAX / 2, NULL, 0, &count), MJ_ERR_TOO_LARGE,
               "do not fit", "passes, too many elements");
    ck_assert_int_eq(count, -7); /* untouched by every refusal so far */

    /* Too little room: the count needed, and nothing run (here: nothing could run anyway). */
    int need = 0;
    ck_assert_int_eq(mj_sorter_sort_passes(s, n, NULL, 0, &need), MJ_OK);
    ck_assert_int_ge(need, 2);
    memset(passes, 0xab, sizeof passes);
    mjt_expect(ctx, mj_sorter_sort_profiled(s, fake, NULL, n, NULL, 0, NULL, passes, need - 1,
                                            &count),
               MJ_ERR_INVALID_ARGUMENT, "has room for", "profiled, capacity too small");
    ck_assert_int_eq(count, need);
    ck_assert_uint_eq(((unsigned char *)passes)[0], 0xab);
    count = -7;
    mjt_expect(ctx, mj_sorter_sort_profiled(s, fake, NULL, n, NULL, 0, NULL, NULL, 0, &count),
               MJ_ERR_INVALID_ARGUMENT, "has room for", "profiled, no room");
    ck_assert_int_eq(count, need);

    /* Good arguments: only the device is missing. */
    mjt_expect(ctx, mj_sorter_sort_profiled(s, fake, NULL, n, NULL, 0, NULL, passes, CAP, &count),
               MJ_ERR_UNSUPPORTED, "compile-only", "profiled in a compile-only context");
    mjt_expect(ctx, mj_sorter_sort_profiled(s, fake, NULL, 0, NULL, 0, NULL, NULL, 0, &count),
               MJ_ERR_UNSUPPORTED, "compile-only", "profiled, n 0, compile-only");
    ck_assert_int_eq(count, 0);
    mj_sorter_destroy(s);

    /* Pairs: values are required. */
    s = make_sorter(ctx, MJ_MERGESORT, MJ_KEY_U32, 4);
    mjt_expect(ctx, mj_sorter_sort_profiled(s, fake, NULL, n, NULL, 0, NULL, passes, CAP, &count),
               MJ_ERR_INVALID_ARGUMENT, "values is required", "profiled, pairs without values");
    mj_sorter_destroy(s);

    /* Other primitives: a locality sort is a sort, but not profiled; a reduction is no sort. */
    s = make_sorter(ctx, MJ_LOCALITY_SORT, MJ_KEY_U32, 0);
    mjt_expect(ctx, mj_sorter_sort_passes(s, n, NULL, 0, &count), MJ_ERR_UNSUPPORTED,
               "locality", "passes of a locality sort");
    mjt_expect(ctx, mj_sorter_sort_profiled(s, fake, NULL, n, NULL, 0, NULL, passes, CAP, &count),
               MJ_ERR_UNSUPPORTED, "locality", "profiled locality sort");
    mj_sorter_destroy(s);
    s = make_sorter(ctx, MJ_REDUCE, MJ_KEY_U32, 0);
    mjt_expect(ctx, mj_sorter_sort_passes(s, n, NULL, 0, &count), MJ_ERR_INVALID_ARGUMENT,
               "reduce", "passes of a reduction");
    mjt_expect(ctx, mj_sorter_sort_profiled(s, fake, NULL, n, NULL, 0, NULL, passes, CAP, &count),
               MJ_ERR_INVALID_ARGUMENT, "mj_sorter_sort_profiled", "profiled reduction");
    mj_sorter_destroy(s);

    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* The passes for people: runs of one kind, in order; truncation as snprintf's. */
START_TEST(passes_text) {
    mj_sort_pass p[16];
    char text[64];
    ck_assert_int_eq(mj_sort_passes_text(NULL, 0, text, sizeof text), 4);
    ck_assert_str_eq(text, "none");
    p[0].kind = MJ_PASS_BLOCKSORT;
    ck_assert_int_eq(mj_sort_passes_text(p, 1, text, sizeof text), 2);
    ck_assert_str_eq(text, "bs");
    for (int i = 1; i < 12; ++i) p[i].kind = MJ_PASS_MERGE2;
    ck_assert_int_eq(mj_sort_passes_text(p, 12, text, sizeof text), 7);
    ck_assert_str_eq(text, "bs+11x2");
    for (int i = 2; i < 7; ++i) p[i].kind = MJ_PASS_MERGE4;
    ck_assert_int_eq(mj_sort_passes_text(p, 7, text, sizeof text), 10);
    ck_assert_str_eq(text, "bs+1x2+5x4");
    p[7].kind = (mj_pass_kind)9; /* not a kind: shown, not trusted */
    ck_assert_int_eq(mj_sort_passes_text(p, 8, text, sizeof text), 14);
    ck_assert_str_eq(text, "bs+1x2+5x4+1x?");
    /* Truncated: the length of the whole text, what fits, terminated. */
    memset(text, 'z', sizeof text);
    ck_assert_int_eq(mj_sort_passes_text(p, 7, text, 5), 10);
    ck_assert_str_eq(text, "bs+1");
    ck_assert_int_eq(mj_sort_passes_text(p, 7, NULL, 0), 10);
    ck_assert_int_eq(mj_sort_passes_text(p, 7, text, 1), 10);
    ck_assert_str_eq(text, "");
}
END_TEST

/* Bandwidth of a kind: its bytes over its time, both summed; -1 without a timed pass of it. */
START_TEST(passes_gbs) {
    mj_sort_pass p[4] = {
        {MJ_PASS_BLOCKSORT, 1, 0.5, 1000000},
        {MJ_PASS_MERGE2, 2, 1.0, 2000000},
        {MJ_PASS_MERGE2, 2, 3.0, 6000000},
        {MJ_PASS_MERGE4, 2, 0.0, 2000000}, /* untimed, as from mj_sorter_sort_passes */
    };
    ck_assert(mj_sort_passes_gbs(p, 4, MJ_PASS_BLOCKSORT) == 2.0);
    ck_assert(mj_sort_passes_gbs(p, 4, MJ_PASS_MERGE2) == 2.0);  /* 8e6 bytes in 4 ms */
    ck_assert(mj_sort_passes_gbs(p, 2, MJ_PASS_MERGE2) == 2.0);  /* the first count only */
    ck_assert(mj_sort_passes_gbs(p, 1, MJ_PASS_MERGE2) == -1.0);
    ck_assert(mj_sort_passes_gbs(p, 4, MJ_PASS_MERGE4) == -1.0);
    ck_assert(mj_sort_passes_gbs(NULL, 0, MJ_PASS_MERGE2) == -1.0);
    p[2].ms = 1.0; /* 8e6 bytes in 2 ms: sums, not a mean of the passes' rates */
    ck_assert(mj_sort_passes_gbs(p, 4, MJ_PASS_MERGE2) == 4.0);
}
END_TEST

static Suite *sort_passes_suite(void) {
    Suite *s = suite_create("sort_passes");
    TCase *tc = tcase_create("passes");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, plan_matches_model);
    tcase_add_test(tc, passes_gbs);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, passes_text);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_forked(sort_passes_suite()); }
