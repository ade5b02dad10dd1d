/* The code generator: a kernel spec in, one self-contained CUDA translation unit out, the same
 * bytes every time for the same spec. Pure C; no CUDA needed. Internal. */
#ifndef MJ_GEN_H
#define MJ_GEN_H

#include <stddef.h>
#include "mergejit.h"

typedef enum mj_primitive {
    MJ_PRIM_MERGESORT = 0 /* kernels mj_blocksort, mj_partition, mj_merge */
} mj_primitive;

typedef struct mj_kernel_spec {
    mj_primitive primitive;
    mj_key_kind key;
    mj_order order;
    const char *less;        /* NULL: the built-in order */
    const char *type_name;   /* MJ_KEY_CUSTOM */
    const char *type_source; /* MJ_KEY_CUSTOM */
    size_t type_size, type_align;
    size_t value_size;       /* 0: keys only */
    int nt, vt;              /* merge tile shape */
    int bs_nt;               /* blocksort threads: nt times a power of two; 0 means nt */
    int sm;                  /* target, e.g. 90 (recorded in the source) */
} mj_kernel_spec;

#define MJ_MAX_VALUE_SIZE 64
#define MJ_MAX_VT 63

/* Size of the key in bytes (custom: type_size). */
size_t mj_spec_key_size(const mj_kernel_spec *spec);

/* Threads of the blocksort kernel (bs_nt, or nt when bs_nt is 0). */
int mj_spec_bs_nt(const mj_kernel_spec *spec);

/* Static shared memory a kernel with nt threads and the spec's VT declares: one tile of keys,
 * a tile of int positions when values are carried, and alignment padding. */
size_t mj_tile_smem(int nt, int vt, size_t key_size, size_t value_size);

/* What a kernel may declare statically (without the dynamic-shared-memory opt-in). */
#define MJ_STATIC_SMEM_LIMIT (48 * 1024)

/* Checks the spec; 0 when usable, else -1 with a message. */
int mj_spec_check(const mj_kernel_spec *spec, char *err, size_t errcap);

/* Writes the translation unit to *out (malloc'd, NUL-terminated; *len without the NUL).
 * Returns 0, or -1 with err (invalid spec or host memory). */
int mj_gen_source(const mj_kernel_spec *spec, char **out, size_t *len, char *err,
                  size_t errcap);

#endif
