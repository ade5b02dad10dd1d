/* The built-in orders of floating-point keys (f16, bf16, f32, f64) as maps of bit patterns onto
 * unsigned integers of the same width (ordinals) whose integer order is the key order. Written
 * in the common subset of C and CUDA C++ so that the kernels and the CPU test
 * (test_float_order) run the very same arithmetic.
 *
 * Ascending: -inf < ... < -0 < +0 < ... < +inf < every NaN. The bits b of a W-bit format with
 * N = 2^mantissa_bits - 1 NaN patterns of each sign map to
 *     b ^ (b's sign ? all ones : the sign bit)   (IEEE 754 totalOrder's map: negative NaNs in
 *                                                 [0, N), -inf at N, positive NaNs at the top)
 *     - N, modulo 2^W                            (the negative NaNs move from the bottom to
 *                                                 the top)
 * so -inf is 0 and every NaN lies in [T, 2^W) with T = 2^W - 2N, the smallest positive NaN's
 * ordinal: first the positive NaNs by increasing payload, then the negative NaNs by decreasing
 * payload. NaNs with different bits are therefore different keys; only equal bits are equal.
 * Descending: the ascending ordinal a < T becomes T - 1 - a (the non-NaN values reversed); a
 * NaN keeps its ordinal, so NaNs stay last in the same order.
 * Each map is a bijection, so a sort may hold its keys as ordinals and store them back as the
 * very same bits.
 *
 * For each format F (f16, bf16, f32, f64; T its unsigned type):
 *   T mj_F_asc(T bits)  the ascending ordinal;
 *   T mj_F_bits(T a)    its inverse: the bits of ascending ordinal a;
 *   T mj_F_flip(T a)    ascending ordinal to descending and back (its own inverse). */
#ifndef MJ_FLOAT_ORDER_H
#define MJ_FLOAT_ORDER_H

#include "shared/host_device.h"

/* One format: F its name, T its unsigned type, SIGN the sign bit, NANS its N. The casts keep
 * 16-bit arithmetic from being done in int. */
#define MJ_FLOAT_ORDER(F, T, SIGN, NANS)                                             \
    MJ_HD T mj_##F##_asc(T b) {                                                      \
        return (T)((T)(b ^ ((b & (SIGN)) ? (T)~(T)0 : (T)(SIGN))) - (T)(NANS));      \
    }                                                                                \
    MJ_HD T mj_##F##_bits(T a) {                                                     \
        T v = (T)(a + (T)(NANS));                                                    \
        return (v & (SIGN)) ? (T)(v ^ (SIGN)) : (T)~v;                               \
    }                                                                                \
    MJ_HD T mj_##F##_flip(T a) {                                                     \
        T first_nan = (T)((T)0 - (T)(2 * (NANS)));                                   \
        return a < first_nan ? (T)(first_nan - 1 - a) : a;                           \
    }

MJ_FLOAT_ORDER(f16, unsigned short, 0x8000u, 0x3FFu)
MJ_FLOAT_ORDER(bf16, unsigned short, 0x8000u, 0x7Fu)
MJ_FLOAT_ORDER(f32, unsigned int, 0x80000000u, 0x7FFFFFu)
MJ_FLOAT_ORDER(f64, unsigned long long, 0x8000000000000000ull, 0xFFFFFFFFFFFFFull)

#undef MJ_FLOAT_ORDER

#endif
