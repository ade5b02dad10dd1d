/* Built-in orders for floating-point keys: each key maps to its ordinal (shared/float_order.h),
 * an unsigned integer whose integer order is the documented total order, -inf < ... < -0 < +0
 * < ... < +inf < NaNs (NaNs ordered among themselves by their bits), so both orders compare
 * with a single unsigned <. Custom comparators may use mj_key_ord too, e.g. on a struct's
 * float field: mj_key_ord(a.x) < mj_key_ord(b.x). */
#ifndef MJ_KEY_ORDER_CUH
#define MJ_KEY_ORDER_CUH

#include "common/mj_common.cuh"
#include "shared/float_order.h"

/* 16-bit floating-point keys travel as bit patterns: NVRTC cannot reach the toolkit's
 * cuda_fp16.h/cuda_bf16.h, and sorting needs only the order, not arithmetic. */
struct mj_f16 { mj_u16 bits; };
struct mj_bf16 { mj_u16 bits; };

/* The ascending ordinal. */
MJ_DEVICE mj_u16 mj_key_ord(mj_f16 x) { return mj_f16_asc(x.bits); }
MJ_DEVICE mj_u16 mj_key_ord(mj_bf16 x) { return mj_bf16_asc(x.bits); }
MJ_DEVICE mj_u32 mj_key_ord(float x) { return mj_f32_asc(__float_as_uint(x)); }
MJ_DEVICE mj_u64 mj_key_ord(double x) { return mj_f64_asc((mj_u64)__double_as_longlong(x)); }

/* The descending ordinal: the non-NaN values reversed, NaNs still last. */
MJ_DEVICE mj_u16 mj_key_ord_desc(mj_f16 x) { return mj_f16_flip(mj_key_ord(x)); }
MJ_DEVICE mj_u16 mj_key_ord_desc(mj_bf16 x) { return mj_bf16_flip(mj_key_ord(x)); }
MJ_DEVICE mj_u32 mj_key_ord_desc(float x) { return mj_f32_flip(mj_key_ord(x)); }
MJ_DEVICE mj_u64 mj_key_ord_desc(double x) { return mj_f64_flip(mj_key_ord(x)); }

#endif
