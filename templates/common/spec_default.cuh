/* The kernel specification the generator writes at the top of every translation unit: key
 * and value types, the comparator and the tile shapes. These defaults (u32 keys ascending
 * with 4-byte values, 128 x 7, blocksort 256 x 7) only let a template compile on its own, e.g.
 * `nvcc -c -x cu -I templates templates/kernels/kernel_merge.cuh`; the generator omits it. */
#ifndef MJ_SPEC
#define MJ_SPEC 1

#include "common/mj_common.cuh"

#define MJ_NT 128
#define MJ_VT 7
#define MJ_BS_NT 256
#define MJ_HAS_VALUES 1
#define MJ_VALUE_IS_INDEX 1
#define MJ_KEY_MAP 0 /* 1: keys are held as ordinals, see mj_key_loaded */
#define MJ_MERGE4_MIN_BLOCKS 1 /* the 4-way merge's launch bound (mergesort only) */
#define MJ_BLOCKSORT_MIN_BLOCKS 1 /* the blocksort's launch bound */

typedef mj_u32 mj_key;
typedef mj_u32 mj_value;
MJ_DEVICE bool mj_less(const mj_key &a, const mj_key &b) { return a < b; }
/* Reduce and scan: the operator and its identity (the generator writes them only for those). */
MJ_DEVICE mj_key mj_op(const mj_key &a, const mj_key &b) { return a + b; }
MJ_DEVICE mj_key mj_identity() { return 0; }
#define MJ_OP_COMMUTES 1 /* mj_op commutes: the generator says so of the default a + b only */
/* Select: the selection operator (the generator writes it only for select). */
MJ_DEVICE bool mj_select_op(const mj_key &a) { return (a & 1) != 0; }
/* Reduce by key: the value operator and its identity (likewise written only for it). */
MJ_DEVICE mj_value mj_value_op(const mj_value &a, const mj_value &b) { return a + b; }
MJ_DEVICE mj_value mj_value_identity() { return 0; }

#endif
