/* SPDX-License-Identifier: Apache-2.0 */
/* The built-in float orders as the kernels compute them (templates/shared/float_order.h, the
 * one definition, compiled here as C): for f16 and bf16 over every bit pattern, for f32 and
 * f64 over edge patterns, their neighbours, a sweep and random patterns. Each map is a
 * bijection with its inverse; the ascending ordinals follow the value order of the non-NaN keys
 * (checked against the floats' own comparison, -0 just before +0), every NaN lies above +inf in
 * the documented order among NaNs; the descending ordinals reverse the non-NaN keys and keep
 * the NaNs last; and both agree with the CPU reference the GPU tests sort with (kg_rank in
 * tools/cli, written by cases). CPU only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "shared/float_order.h"
#include "test_support.h"

/* ck_assert marks a point at every call, which over millions of patterns costs most of the
 * run: fail through ck_abort_msg only. */
#define EXPECT(cond, ...)                       \
    do {                                        \
        if (!(cond)) ck_abort_msg(__VA_ARGS__); \
    } while (0)

/* ---------------------------------------------------------------- the maps by kind */

static uint64_t asc(mj_key_kind k, uint64_t b) {
    switch (k) {
    case MJ_KEY_F16: return mj_f16_asc((unsigned short)b);
    case MJ_KEY_BF16: return mj_bf16_asc((unsigned short)b);
    case MJ_KEY_F32: return mj_f32_asc((unsigned)b);
    default: return mj_f64_asc(b);
    }
}
static uint64_t bits_of(mj_key_kind k, uint64_t a) {
    switch (k) {
    case MJ_KEY_F16: return mj_f16_bits((unsigned short)a);
    case MJ_KEY_BF16: return mj_bf16_bits((unsigned short)a);
    case MJ_KEY_F32: return mj_f32_bits((unsigned)a);
    default: return mj_f64_bits(a);
    }
}
static uint64_t flip(mj_key_kind k, uint64_t a) {
    switch (k) {
    case MJ_KEY_F16: return mj_f16_flip((unsigned short)a);
    case MJ_KEY_BF16: return mj_bf16_flip((unsigned short)a);
    case MJ_KEY_F32: return mj_f32_flip((unsigned)a);
    default: return mj_f64_flip(a);
    }
}

/* ---------------------------------------------------------------- the formats themselves */

typedef struct format {
    int width, mantissa;
} format;
static format format_of(mj_key_kind k) {
    switch (k) {
    case MJ_KEY_F16: return (format){16, 10};
    case MJ_KEY_BF16: return (format){16, 7};
    case MJ_KEY_F32: return (format){32, 23};
    default: return (format){64, 52};
    }
}
static uint64_t sign_bit(format f) { return 1ull << (f.width - 1); }
static uint64_t all_ones(format f) { return f.width == 64 ? ~0ull : (1ull << f.width) - 1; }
static uint64_t payload_mask(format f) { return (1ull << f.mantissa) - 1; }
/* Exponent all ones: the infinities and NaNs. */
static uint64_t exp_mask(format f) { return (all_ones(f) >> 1) & ~payload_mask(f); }
static int is_nan(format f, uint64_t b) {
    return (b & exp_mask(f)) == exp_mask(f) && (b & payload_mask(f));
}
/* The ascending ordinal of the smallest positive NaN: 2^W minus both signs' NaN patterns. */
static uint64_t first_nan(format f) { return all_ones(f) - 2 * payload_mask(f) + 1; }

/* The value of non-NaN bits (exact: every such value of these formats is a double). */
static double value_of(mj_key_kind k, uint64_t b) {
    if (k == MJ_KEY_F32) {
        uint32_t u = (uint32_t)b;
        float x;
        memcpy(&x, &u, 4);
        return x;
    }
    if (k == MJ_KEY_F64) {
        double x;
        memcpy(&x, &b, 8);
        return x;
    }
    format f = format_of(k);
    int ebits = f.width - 1 - f.mantissa, bias = (1 << (ebits - 1)) - 1;
    int e = (int)((b & exp_mask(f)) >> f.mantissa);
    double m = (double)(b & payload_mask(f)), v;
    if (e == (1 << ebits) - 1)
        v = INFINITY;
    else if (e == 0)
        v = ldexp(m, 1 - bias - f.mantissa);
    else
        v = ldexp(m + ldexp(1, f.mantissa), e - bias - f.mantissa);
    return (b & sign_bit(f)) ? -v : v;
}

/* 1 when non-NaN x (bits) sorts strictly before y ascending: by value, and -0 before +0. */
static int value_before(mj_key_kind k, uint64_t x, uint64_t y) {
    double a = value_of(k, x), b = value_of(k, y);
    if (a != b) return a < b;
    return a == 0 && signbit(a) && !signbit(b);
}

/* ---------------------------------------------------------------- per pattern */

/* Everything that one pattern alone must satisfy. */
static void check_pattern(mj_key_kind k, uint64_t b) {
    format f = format_of(k);
    const char *name = mj_key_kind_name(k);
    uint64_t a = asc(k, b), d = flip(k, a);
    EXPECT(a <= all_ones(f), "%s %#llx: ordinal %#llx is wider than the key", name,
                  (unsigned long long)b, (unsigned long long)a);
    EXPECT(bits_of(k, a) == b, "%s %#llx: back from its ordinal as %#llx", name,
                  (unsigned long long)b, (unsigned long long)bits_of(k, a));
    EXPECT(flip(k, d) == a, "%s %#llx: flip is not its own inverse", name,
                  (unsigned long long)b);
    int nan = is_nan(f, b);
    EXPECT(nan ? a >= first_nan(f) && d == a : a < first_nan(f) && d < first_nan(f),
                  "%s %#llx (%s): ordinals %#llx, %#llx on the wrong side of the NaNs", name,
                  (unsigned long long)b, nan ? "NaN" : "not NaN", (unsigned long long)a,
                  (unsigned long long)d);
    uint64_t key = b; /* little-endian: the low bytes are the key */
    EXPECT(a == kg_rank(k, MJ_ASCENDING, &key),
                  "%s %#llx: ascending ordinal %#llx, the CPU reference's rank %#llx", name,
                  (unsigned long long)b, (unsigned long long)a,
                  (unsigned long long)kg_rank(k, MJ_ASCENDING, &key));
    EXPECT(d == kg_rank(k, MJ_DESCENDING, &key),
                  "%s %#llx: descending ordinal %#llx, the CPU reference's rank %#llx", name,
                  (unsigned long long)b, (unsigned long long)d,
                  (unsigned long long)kg_rank(k, MJ_DESCENDING, &key));
}

/* ---------------------------------------------------------------- every 16-bit pattern */

/* f16 and bf16: each map hits every ordinal once; walking the ordinals up visits the non-NaN
 * values in increasing order (descending: decreasing), then the positive NaNs by increasing
 * payload, then the negative NaNs by decreasing payload. */
START_TEST(every_16_bit_pattern) {
    mj_key_kind k = _i ? MJ_KEY_BF16 : MJ_KEY_F16;
    format f = format_of(k);
    const char *name = mj_key_kind_name(k);
    unsigned char *seen_asc = calloc(65536, 1), *seen_desc = calloc(65536, 1);
    ck_assert(seen_asc && seen_desc);
    for (uint64_t b = 0; b < 65536; ++b) {
        check_pattern(k, b);
        uint64_t a = asc(k, b);
        EXPECT(!seen_asc[a]++ && !seen_desc[flip(k, a)]++,
                      "%s %#llx: an ordinal taken twice", name, (unsigned long long)b);
    }
    uint64_t t = first_nan(f), n = payload_mask(f);
    ck_assert_uint_eq(t, asc(k, exp_mask(f) | 1)); /* the smallest positive NaN */
    for (uint64_t o = 0; o + 1 < t; ++o) {
        uint64_t x = bits_of(k, o), y = bits_of(k, o + 1);
        EXPECT(value_before(k, x, y), "%s ascending: %#llx then %#llx", name,
                      (unsigned long long)x, (unsigned long long)y);
        x = bits_of(k, flip(k, o));
        y = bits_of(k, flip(k, o + 1));
        EXPECT(value_before(k, y, x), "%s descending: %#llx then %#llx", name,
                      (unsigned long long)x, (unsigned long long)y);
    }
    ck_assert_uint_eq(bits_of(k, 0), sign_bit(f) | exp_mask(f)); /* -inf first */
    ck_assert_uint_eq(bits_of(k, t - 1), exp_mask(f));           /* +inf last */
    for (uint64_t i = 0; i < n; ++i) {
        EXPECT(bits_of(k, t + i) == (exp_mask(f) | (i + 1)), "%s: NaN ordinal %llu", name,
               (unsigned long long)(t + i));
        EXPECT(bits_of(k, t + n + i) == (sign_bit(f) | exp_mask(f) | (n - i)),
               "%s: NaN ordinal %llu", name, (unsigned long long)(t + n + i));
    }
    free(seen_asc);
    free(seen_desc);
}
END_TEST

/* ---------------------------------------------------------------- f32 and f64 */

/* Patterns around which the order changes: zeros, the smallest and largest subnormals and
 * normals, the infinities, the NaNs' ends and the quiet bit, each with either sign. */
static size_t edge_patterns(format f, uint64_t *out) {
    uint64_t m = payload_mask(f), e = exp_mask(f), quiet = 1ull << (f.mantissa - 1);
    uint64_t lowest_normal = 1ull << f.mantissa;
    uint64_t pos[] = {0, 1, m, lowest_normal, e - 1, e, e | 1, e | quiet, e | m, e | (quiet - 1),
                      e | (quiet + 1), lowest_normal * 3 / 2, (e >> 1) & ~m /* 1.0 */};
    size_t n = 0;
    for (size_t i = 0; i < sizeof pos / sizeof *pos; ++i) {
        out[n++] = pos[i];
        out[n++] = pos[i] | sign_bit(f);
    }
    return n;
}

static int cmp_ordinal(const void *x, const void *y) {
    const uint64_t *a = x, *b = y; /* {ordinal, bits} */
    return (a[0] > b[0]) - (a[0] < b[0]);
}

/* Pairs of {ascending ordinal, bits} sorted by ordinal: the keys in order, checked by pairs
 * (non-NaN keys by value, equal ordinals only for equal bits). */
static void check_sorted(mj_key_kind k, uint64_t (*pairs)[2], size_t count) {
    format f = format_of(k);
    qsort(pairs, count, sizeof *pairs, cmp_ordinal);
    for (size_t i = 0; i + 1 < count; ++i) {
        uint64_t x = pairs[i][1], y = pairs[i + 1][1];
        if (pairs[i][0] == pairs[i + 1][0]) {
            EXPECT(x == y, "%s: %#llx and %#llx share an ordinal", mj_key_kind_name(k),
                          (unsigned long long)x, (unsigned long long)y);
            continue;
        }
        if (is_nan(f, y)) continue; /* NaNs after the rest: check_pattern */
        EXPECT(!is_nan(f, x) && value_before(k, x, y), "%s: %#llx sorts before %#llx",
                      mj_key_kind_name(k), (unsigned long long)x, (unsigned long long)y);
    }
}

START_TEST(wide_patterns) {
    mj_key_kind k = _i ? MJ_KEY_F64 : MJ_KEY_F32;
    format f = format_of(k);
    int small = mjt_small();
    size_t randoms = small ? 20000 : 1000000, near = 300;
    uint64_t edges[32];
    size_t ne = edge_patterns(f, edges);
    size_t cap = ne * (2 * near + 1) + randoms + 65536;
    uint64_t(*pairs)[2] = malloc(cap * sizeof *pairs);
    ck_assert_ptr_nonnull(pairs);
    size_t count = 0;
    uint64_t rng = 7 + (uint64_t)_i;
    /* Each edge and its neighbours (patterns wrap at the key's width). */
    for (size_t i = 0; i < ne; ++i)
        for (uint64_t d = 0; d <= 2 * near; ++d) {
            uint64_t b = (edges[i] + d - near) & all_ones(f);
            pairs[count][0] = asc(k, b);
            pairs[count++][1] = b;
        }
    /* A sweep over the whole range (every 65536th pattern, shifted for f64), then random ones
     * with a random exponent so that NaNs, infinities and subnormals come up often. */
    for (uint64_t j = 0; j < 65536; ++j) {
        uint64_t b = f.width == 32 ? j << 16 | (j * 40503u & 0xFFFF) : j << 48 | (j * 0x9E3779B9u);
        pairs[count][0] = asc(k, b);
        pairs[count++][1] = b;
    }
    for (size_t i = 0; i < randoms; ++i) {
        uint64_t b = mjt_rand(&rng) & all_ones(f);
        if (i % 4 == 0) b |= exp_mask(f);
        if (i % 4 == 1) b &= ~exp_mask(f);
        pairs[count][0] = asc(k, b);
        pairs[count++][1] = b;
    }
    for (size_t i = 0; i < count; ++i) check_pattern(k, pairs[i][1]);
    check_sorted(k, pairs, count);
    /* The ends: -inf is ordinal 0, +inf the last before the NaNs, whose first is the smallest
     * positive NaN and whose last is the negative NaN of payload 1. */
    ck_assert_uint_eq(asc(k, sign_bit(f) | exp_mask(f)), 0);
    ck_assert_uint_eq(asc(k, exp_mask(f)), first_nan(f) - 1);
    ck_assert_uint_eq(asc(k, exp_mask(f) | 1), first_nan(f));
    ck_assert_uint_eq(asc(k, sign_bit(f) | exp_mask(f) | 1), all_ones(f));
    ck_assert_uint_eq(asc(k, sign_bit(f) | exp_mask(f) | payload_mask(f)),
                      first_nan(f) + payload_mask(f));
    ck_assert_uint_eq(flip(k, asc(k, exp_mask(f))), 0); /* descending: +inf first */
    free(pairs);
}
END_TEST

int main(void) {
    Suite *s = suite_create("float_order");
    TCase *tc = tcase_create("maps");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, every_16_bit_pattern, 0, 2);
    tcase_add_loop_test(tc, wide_patterns, 0, 2);
    suite_add_tcase(s, tc);
    return mjt_run(s, 1);
}
