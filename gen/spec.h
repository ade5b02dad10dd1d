/* SPDX-License-Identifier: Apache-2.0 */
/* A kernel spec (what the generator is asked for) and its checks. Internal; gen.h includes
 * it. */
#ifndef MJ_SPEC_H
#define MJ_SPEC_H

#include <stddef.h>

#include "catalog.h"
#include "mergejit.h"

typedef struct mj_kernel_spec {
    mj_primitive primitive;
    mj_key_kind key;
    mj_order order;
    const char *less;        /* NULL: the built-in order (not used by reduce, scan, lbs,
                                expand and move) */
    const char *op;          /* reduce and scan: NULL is a + b (built-in keys but f16, bf16) */
    const char *identity;    /* reduce and scan: NULL is KEY(0) (only with the default op);
                                reduce by key: op and identity combine values */
    const char *type_name;   /* MJ_KEY_CUSTOM */
    const char *type_source; /* MJ_KEY_CUSTOM */
    size_t type_size, type_align;
    size_t value_size;       /* 0: keys only */
    const char *value_type;  /* reduce by key: the values' CUDA type (NULL for the others) */
    const char *value_type_source; /* reduce by key: CUDA source defining it, or NULL */
    int nt, vt;              /* merge tile shape */
    int bs_nt;               /* blocksort threads: nt times a power of two; 0 means nt */
    int sm;                  /* target, e.g. 90 (recorded in the source) */
    int uncapped;            /* 1: no register caps (gen.c capped_blocks): the loader's second
                                build of a program whose custom comparator spilled under them */
} mj_kernel_spec;

#define MJ_MAX_VALUE_SIZE 64
#define MJ_MAX_VT 63
#define MJ_MIN_NT 32   /* NT and blocksort threads: powers of two in MJ_MIN_NT..MJ_MAX_NT */
#define MJ_MAX_NT 1024

/* Size of the key in bytes (custom: type_size). */
size_t mj__spec_key_size(const mj_kernel_spec *spec);

/* Whether spec orders its keys by a built-in order: a built-in key kind and no comparator of
 * the caller's (the register caps and the loader's rebuild without them tell the two apart). */
static inline int mj__spec_builtin_order(const mj_kernel_spec *spec) {
    return spec->key != MJ_KEY_CUSTOM && !spec->less;
}

/* The alignment of a value array's elements of v bytes, which runs check (api/sorter.c) and
 * the generated value types take: 16 for 16 bytes, else the largest power of two up to 8
 * dividing v (1 for 0). */
size_t mj__value_align(size_t v);

/* Threads of the blocksort kernel (bs_nt, or nt when bs_nt is 0). */
int mj__spec_bs_nt(const mj_kernel_spec *spec);

/* The largest VT a segmented sort takes (a thread's head flags are one 32-bit word). */
#define MJ_SEG_MAX_VT 32

/* Checks a tile shape for a primitive and sizes (thread counts, VT range, static shared
 * memory; reduce and scan have no values and no blocksort: bs_nt is nt); 0 when usable, else
 * -1 with a message. Part of mj__spec_check. */
int mj__tile_shape_check(mj_primitive primitive, size_t key_size, size_t value_size, int nt,
                         int vt, int bs_nt, char *err, size_t errcap);

/* The bounds any tile's numbers lie in, whatever its primitive's further rules (those are
 * mj__tile_shape_check's): a known primitive, key_size 1..256, value_size 0..MJ_MAX_VALUE_SIZE,
 * NT a power of two in MJ_MIN_NT..MJ_MAX_NT, VT 1..MJ_MAX_VT, bs_nt NT times a power of two
 * up to MJ_MAX_NT. The tuning file's reader and writer use it. NULL, or what is wrong (written
 * into why). Numbers arrive as long long so that a parser can pass what it read before
 * narrowing it. */
const char *mj__tile_bounds_check(mj_primitive primitive, long long key_size,
                                  long long value_size, long long nt, long long vt,
                                  long long bs_nt, char *why, size_t cap);

/* Checks the spec; 0 when usable, else -1 with a message. */
int mj__spec_check(const mj_kernel_spec *spec, char *err, size_t errcap);

#endif
