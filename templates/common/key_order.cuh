/* Built-in orders for floating-point keys. Each maps a value to an unsigned integer whose
 * integer order is the documented total order: -inf < ... < -0 < +0 < ... < +inf, every NaN
 * last. The descending map reverses the non-NaN values and still puts NaNs last, so both
 * orders compare with a single unsigned <. */
#ifndef MJ_KEY_ORDER_CUH
#define MJ_KEY_ORDER_CUH

#include "common/mj_common.cuh"

/* 16-bit floating-point keys travel as bit patterns: NVRTC cannot reach the toolkit's
 * cuda_fp16.h/cuda_bf16.h, and sorting needs only the order, not arithmetic. */
struct mj_f16 { mj_u16 bits; };
struct mj_bf16 { mj_u16 bits; };

/* Sign-magnitude to two's-order: flip all bits of negatives, only the sign of positives. */
MJ_DEVICE mj_u16 mj_ord16(mj_u16 b, bool nan) {
    return nan ? (mj_u16)0xFFFF : (mj_u16)(b ^ ((b & 0x8000) ? 0xFFFF : 0x8000));
}
MJ_DEVICE mj_u32 mj_ord32(mj_u32 b, bool nan) {
    return nan ? 0xFFFFFFFFu : b ^ ((b & 0x80000000u) ? 0xFFFFFFFFu : 0x80000000u);
}
MJ_DEVICE mj_u64 mj_ord64(mj_u64 b, bool nan) {
    return nan ? ~0ull : b ^ ((b >> 63) ? ~0ull : 0x8000000000000000ull);
}
/* Descending: complement the non-NaN ordinals; NaN keeps the largest value. */
MJ_DEVICE mj_u16 mj_desc16(mj_u16 o) { return o == 0xFFFF ? o : (mj_u16)~o; }
MJ_DEVICE mj_u32 mj_desc32(mj_u32 o) { return o == 0xFFFFFFFFu ? o : ~o; }
MJ_DEVICE mj_u64 mj_desc64(mj_u64 o) { return o == ~0ull ? o : ~o; }

MJ_DEVICE bool mj_f16_nan(mj_u16 b) { return (b & 0x7C00) == 0x7C00 && (b & 0x03FF); }
MJ_DEVICE bool mj_bf16_nan(mj_u16 b) { return (b & 0x7F80) == 0x7F80 && (b & 0x007F); }

MJ_DEVICE mj_u16 mj_key_ord(mj_f16 x) { return mj_ord16(x.bits, mj_f16_nan(x.bits)); }
MJ_DEVICE mj_u16 mj_key_ord(mj_bf16 x) { return mj_ord16(x.bits, mj_bf16_nan(x.bits)); }
MJ_DEVICE mj_u32 mj_key_ord(float x) { return mj_ord32(__float_as_uint(x), x != x); }
MJ_DEVICE mj_u64 mj_key_ord(double x) {
    return mj_ord64((mj_u64)__double_as_longlong(x), x != x);
}

#endif
