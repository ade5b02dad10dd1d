/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Keys for the demo and for verification: random keys per built-in type, the built-in orders
 * as integer ranks (mj_order's rules), a CPU stable sort (LSD radix on the ranks, stable by
 * construction) and the comparison of a GPU result with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---------------------------------------------------------------- raw access */

static uint64_t load_bits(const void *key, size_t size)
{
    switch (size) {
    case 1: { uint8_t v; memcpy(&v, key, 1); return v; }
    case 2: { uint16_t v; memcpy(&v, key, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, key, 4); return v; }
    case 8: { uint64_t v; memcpy(&v, key, 8); return v; }
    default: return 0;
    }
}

static void store_bits(void *key, size_t size, uint64_t bits)
{
    switch (size) {
    case 1: { uint8_t v = (uint8_t)bits; memcpy(key, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)bits; memcpy(key, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(key, &v, 4); break; }
    case 8: memcpy(key, &bits, 8); break;
    default: break;
    }
}

static int is_float_kind(mj_key_kind kind)
{
    return kind == MJ_KEY_F16 || kind == MJ_KEY_BF16 || kind == MJ_KEY_F32 || kind == MJ_KEY_F64;
}

static int is_signed_int_kind(mj_key_kind kind)
{
    return kind == MJ_KEY_I8 || kind == MJ_KEY_I16 || kind == MJ_KEY_I32 || kind == MJ_KEY_I64;
}

static uint64_t width_mask(size_t size)
{
    return size >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
}

/* ---------------------------------------------------------------- random numbers */

/* splitmix64: small, fast, and good enough for test data. */
uint64_t kg_splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const uint32_t f32_specials[] = {
    0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu, /* NaNs */
    0x00000000u, 0x80000000u,                                        /* +0, -0 */
    0x7F800000u, 0xFF800000u,                                        /* +inf, -inf */
    0x00000001u, 0x80000001u, 0x007FFFFFu, 0x807FFFFFu,              /* subnormals */
    0x00800000u, 0x80800000u, 0x7F7FFFFFu, 0xFF7FFFFFu,              /* min normal, max */
    0x3F800000u, 0xBF800000u,                                        /* 1, -1 */
};

static const uint64_t f64_specials[] = {
    0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull,
    0xFFF0000000000001ull, 0x7FFFFFFFFFFFFFFFull,
    0x0000000000000000ull, 0x8000000000000000ull,
    0x7FF0000000000000ull, 0xFFF0000000000000ull,
    0x0000000000000001ull, 0x8000000000000001ull, 0x000FFFFFFFFFFFFFull, 0x800FFFFFFFFFFFFFull,
    0x0010000000000000ull, 0x8010000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull,
    0x3FF0000000000000ull, 0xBFF0000000000000ull,
};

#define POOL_SIZE 1024

void kg_fill_keys(mj_key_kind kind, void *keys, size_t n, uint64_t seed)
{
    size_t size = mj_key_kind_size(kind);
    unsigned char *out = keys;
    uint64_t state = seed ^ 0x6A09E667F3BCC908ull;
    uint64_t pool[POOL_SIZE];

    if (size == 0)
        return;
    for (size_t i = 0; i < POOL_SIZE; i++)
        pool[i] = kg_splitmix(&state);

    for (size_t i = 0; i < n; i++) {
        uint64_t pick = kg_splitmix(&state) >> 58; /* 0..63 */
        uint64_t bits = kg_splitmix(&state);
        switch (kind) {
        case MJ_KEY_F16:
        case MJ_KEY_BF16:
            break; /* random 16-bit patterns: every class of value, many duplicates */
        case MJ_KEY_F32:
            if (pick < 4)
                bits = f32_specials[bits % (sizeof f32_specials / sizeof f32_specials[0])];
            else if (pick < 20)
                bits = pool[bits % POOL_SIZE];
            break;
        case MJ_KEY_F64:
            if (pick < 4)
                bits = f64_specials[bits % (sizeof f64_specials / sizeof f64_specials[0])];
            else if (pick < 20)
                bits = pool[bits % POOL_SIZE];
            break;
        default:
            if (pick < 16)
                bits = pool[bits % POOL_SIZE];
            break;
        }
        store_bits(out + i * size, size, bits);
    }
}

void kg_fill_values(void *values, size_t value_size, size_t n)
{
    unsigned char *out = values;
    for (size_t i = 0; i < n; i++) {
        unsigned char *v = out + i * value_size;
        uint64_t index = (uint64_t)i;
        for (size_t j = 0; j < value_size; j += 8) {
            uint64_t word = index;
            if (j > 0) {
                uint64_t state = index * 0x100000001B3ull + j;
                word = kg_splitmix(&state);
            }
            for (size_t b = 0; b < 8 && j + b < value_size; b++)
                v[j + b] = (unsigned char)(word >> (8 * b));
        }
    }
}

/* ---------------------------------------------------------------- order */

/* The mantissa's bits of a float kind: a NaN's payload, and the number of NaN patterns of
 * each sign. */
static uint64_t mantissa_mask(mj_key_kind kind)
{
    switch (kind) {
    case MJ_KEY_F16: return 0x3FFu;
    case MJ_KEY_BF16: return 0x7Fu;
    case MJ_KEY_F32: return 0x7FFFFFu;
    case MJ_KEY_F64: return 0xFFFFFFFFFFFFFull;
    default: return 0;
    }
}

int kg_is_nan(mj_key_kind kind, const void *key)
{
    switch (kind) {
    case MJ_KEY_F16: {
        uint64_t b = load_bits(key, 2);
        return (b & 0x7C00u) == 0x7C00u && (b & 0x03FFu) != 0;
    }
    case MJ_KEY_BF16: {
        uint64_t b = load_bits(key, 2);
        return (b & 0x7F80u) == 0x7F80u && (b & 0x007Fu) != 0;
    }
    case MJ_KEY_F32: {
        uint64_t b = load_bits(key, 4);
        return (b & 0x7F800000u) == 0x7F800000u && (b & 0x007FFFFFu) != 0;
    }
    case MJ_KEY_F64: {
        uint64_t b = load_bits(key, 8);
        return (b & 0x7FF0000000000000ull) == 0x7FF0000000000000ull &&
               (b & 0x000FFFFFFFFFFFFFull) != 0;
    }
    default:
        return 0;
    }
}

uint64_t kg_rank(mj_key_kind kind, mj_order order, const void *key)
{
    size_t size = mj_key_kind_size(kind);
    uint64_t mask = width_mask(size);
    uint64_t sign = (uint64_t)1 << (8 * size - 1);
    uint64_t bits = load_bits(key, size);
    uint64_t rank;

    if (is_float_kind(kind)) {
        /* A W-bit kind has `nans` NaN patterns of each sign: the 2^W - 2 * nans other keys take
         * the ranks below first_nan, the NaNs the ranks from it up, in both orders: first the
         * positive NaNs by increasing payload, then the negative ones by decreasing payload.
         * (Written by cases, apart from the kernels' arithmetic in shared/float_order.h, which
         * test_float_order checks against this.) */
        uint64_t nans = mantissa_mask(kind), payload = bits & nans;
        uint64_t first_nan = mask - 2 * nans + 1;
        if (kg_is_nan(kind, key))
            return (bits & sign) ? mask - (payload - 1) : first_nan + (payload - 1);
        /* -inf < negatives < -0 < +0 < positives < +inf as unsigned integers (negatives'
         * bits flipped, positives' sign set): -inf lands on nans, just above where the
         * negative NaNs' patterns land, so subtracting nans starts the ranks at 0. */
        rank = ((bits & sign) ? (~bits & mask) : (bits | sign)) - nans;
        return order == MJ_DESCENDING ? first_nan - 1 - rank : rank;
    } else if (is_signed_int_kind(kind)) {
        rank = bits ^ sign;
    } else {
        rank = bits;
    }
    if (order == MJ_DESCENDING)
        rank = ~rank & mask;
    return rank;
}

int kg_less(mj_key_kind kind, mj_order order, const void *a, const void *b)
{
    return kg_rank(kind, order, a) < kg_rank(kind, order, b);
}

/* ---------------------------------------------------------------- reference sort */

mj_status kg_reference_sort(mj_key_kind kind, mj_order order, const void *keys, size_t n,
                            uint64_t *perm)
{
    size_t size = mj_key_kind_size(kind);
    const unsigned char *in = keys;
    mj_status st = MJ_OK;

    if (n == 0)
        return MJ_OK;
    if (size == 0 || size > 8)
        return MJ_ERR_INVALID_ARGUMENT;
    if (n > SIZE_MAX / sizeof(uint64_t))
        return MJ_ERR_TOO_LARGE;

    uint64_t *rank = malloc(n * sizeof *rank);
    uint64_t *rank2 = malloc(n * sizeof *rank2);
    uint64_t *idx2 = malloc(n * sizeof *idx2);
    size_t(*hist)[256] = calloc(size, sizeof *hist);
    if (rank == NULL || rank2 == NULL || idx2 == NULL || hist == NULL) {
        st = MJ_ERR_HOST_MEMORY;
        goto done;
    }

    for (size_t i = 0; i < n; i++) {
        uint64_t r = kg_rank(kind, order, in + i * size);
        rank[i] = r;
        perm[i] = (uint64_t)i;
        for (size_t d = 0; d < size; d++)
            hist[d][(r >> (8 * d)) & 0xFF]++;
    }

    /* LSD radix sort, one byte per pass: each pass is stable, so the whole sort is. */
    uint64_t *src_rank = rank, *src_idx = perm, *dst_rank = rank2, *dst_idx = idx2;
    for (size_t d = 0; d < size; d++) {
        size_t offset[256], sum = 0;
        int trivial = 0;
        for (int b = 0; b < 256; b++) {
            if (hist[d][b] == n)
                trivial = 1; /* every key has this byte: the pass would not move anything */
            offset[b] = sum;
            sum += hist[d][b];
        }
        if (trivial)
            continue;
        for (size_t i = 0; i < n; i++) {
            size_t to = offset[(src_rank[i] >> (8 * d)) & 0xFF]++;
            dst_rank[to] = src_rank[i];
            dst_idx[to] = src_idx[i];
        }
        uint64_t *t;
        t = src_rank; src_rank = dst_rank; dst_rank = t;
        t = src_idx; src_idx = dst_idx; dst_idx = t;
    }
    if (src_idx != perm)
        memcpy(perm, src_idx, n * sizeof *perm);

done:
    free(rank);
    free(rank2);
    free(idx2);
    free(hist);
    return st;
}

size_t kg_compare(size_t key_size, size_t value_size, const void *in_keys, const void *in_values,
                  const void *out_keys, const void *out_values, const uint64_t *perm, size_t n,
                  size_t *first)
{
    const unsigned char *ik = in_keys, *iv = in_values, *ok = out_keys, *ov = out_values;
    size_t bad = 0;
    *first = n;
    for (size_t i = 0; i < n; i++) {
        size_t from = (size_t)perm[i];
        int differs = memcmp(ok + i * key_size, ik + from * key_size, key_size) != 0;
        if (!differs && value_size > 0)
            differs = memcmp(ov + i * value_size, iv + from * value_size, value_size) != 0;
        if (differs) {
            if (bad == 0)
                *first = i;
            bad++;
        }
    }
    return bad;
}

/* ---------------------------------------------------------------- printing */

/* 2^e as a double, for |e| well inside the normal range. */
static double pow2(int e)
{
    uint64_t bits = (uint64_t)(e + 1023) << 52;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static double half_to_double(uint64_t b)
{
    int exp = (int)((b >> 10) & 0x1F);
    unsigned mant = (unsigned)(b & 0x3FF);
    double v;
    if (exp == 31) { /* inf or NaN: take them from float bit patterns */
        uint32_t fb = 0x7F800000u | (mant != 0 ? 0x00400000u : 0u);
        float f;
        memcpy(&f, &fb, sizeof f);
        v = f;
    } else if (exp == 0) {
        v = (double)mant * pow2(-24);
    } else {
        v = (double)(mant | 0x400) * pow2(exp - 25);
    }
    return (b & 0x8000u) ? -v : v;
}

const char *kg_format_key(mj_key_kind kind, const void *key, char *buf, size_t len)
{
    size_t size = mj_key_kind_size(kind);
    uint64_t bits = load_bits(key, size);
    int hexw = (int)(2 * size);
    double d = 0.0;

    switch (kind) {
    case MJ_KEY_U8: case MJ_KEY_U16: case MJ_KEY_U32: case MJ_KEY_U64:
        snprintf(buf, len, "%llu", (unsigned long long)bits);
        return buf;
    case MJ_KEY_I8: case MJ_KEY_I16: case MJ_KEY_I32: case MJ_KEY_I64: {
        long long v;
        if (size == 8)
            memcpy(&v, &bits, sizeof v);
        else if (bits >> (8 * size - 1))
            v = (long long)bits - (long long)(width_mask(size) + 1);
        else
            v = (long long)bits;
        snprintf(buf, len, "%lld", v);
        return buf;
    }
    case MJ_KEY_F16:
        d = half_to_double(bits);
        break;
    case MJ_KEY_BF16: {
        uint32_t fb = (uint32_t)bits << 16;
        float f;
        memcpy(&f, &fb, sizeof f);
        d = f;
        break;
    }
    case MJ_KEY_F32: {
        uint32_t fb = (uint32_t)bits;
        float f;
        memcpy(&f, &fb, sizeof f);
        d = f;
        break;
    }
    case MJ_KEY_F64:
        memcpy(&d, &bits, sizeof d);
        break;
    default:
        snprintf(buf, len, "?");
        return buf;
    }
    snprintf(buf, len, "%.9g (0x%0*llx)", d, hexw, (unsigned long long)bits);
    return buf;
}

mj_status kg_reference_segmented_sort(mj_key_kind kind, mj_order order, const void *keys,
                                      size_t n, const uint8_t *heads, uint64_t *perm)
{
    size_t size = mj_key_kind_size(kind);
    for (size_t at = 0; at < n;) {
        size_t end = at + 1;
        while (end < n && !heads[end])
            end++;
        mj_status st = kg_reference_sort(kind, order, (const unsigned char *)keys + at * size,
                                         end - at, perm + at);
        if (st != MJ_OK)
            return st;
        for (size_t i = at; i < end; i++)
            perm[i] += at;
        at = end;
    }
    return MJ_OK;
}
