/* The code generator: a kernel spec in, one self-contained CUDA translation unit out, the same
 * bytes every time for the same spec. Pure C; no CUDA needed. Internal. */
#ifndef MJ_GEN_H
#define MJ_GEN_H

#include <stddef.h>
#include "mergejit.h"

/* Every kernel a module may hold; a primitive's module holds those of mj__primitive_kernels. */
typedef enum mj_kernel_id {
    MJ_K_BLOCKSORT,       /* mergesort, segmented and locality sort */
    MJ_K_PARTITION,       /* mergesort */
    MJ_K_MERGE,           /* mergesort */
    MJ_K_MERGE_PARTITION, /* merge */
    MJ_K_MERGE_ARRAYS,    /* merge */
    MJ_K_HEADS_FLAGS,     /* segmented sort */
    MJ_K_HEADS_INDICES,   /* segmented sort */
    MJ_K_QUEUE_PARTITION, /* segmented and locality sort */
    MJ_K_QUEUE_WORK,      /* segmented and locality sort */
    MJ_K_QUEUE_FINISH,    /* segmented and locality sort */
    MJ_K_REDUCE,          /* reduce */
    MJ_K_SCAN,            /* scan */
    MJ_K_LBS_PARTITION,   /* load-balancing search and interval expand */
    MJ_K_LBS,             /* load-balancing search */
    MJ_K_EXPAND,          /* interval expand */
    MJ_K_COUNT
} mj_kernel_id;

/* The kernel's extern "C" name. */
const char *mj__kernel_name(mj_kernel_id id);
/* Bit k set: the primitive's module has kernel k. */
unsigned mj__primitive_kernels(mj_primitive primitive);

/* The embedded templates (by file name, NULL-terminated) the source is made of, in order:
 * the prelude before the spec, then the primitive's own after it (NULL for an unknown
 * primitive). Exposed for test_gen_templates, which checks each list against the #include
 * lines. */
const char *const *mj__prelude_templates(void);
const char *const *mj__primitive_templates(mj_primitive primitive);

typedef struct mj_kernel_spec {
    mj_primitive primitive;
    mj_key_kind key;
    mj_order order;
    const char *less;        /* NULL: the built-in order (not used by reduce, scan, lbs and
                                expand) */
    const char *op;          /* reduce and scan: NULL is a + b (built-in keys but f16, bf16) */
    const char *identity;    /* reduce and scan: NULL is KEY(0) (only with the default op) */
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
#define MJ_MIN_NT 32   /* NT and blocksort threads: powers of two in MJ_MIN_NT..MJ_MAX_NT */
#define MJ_MAX_NT 1024

/* Size of the key in bytes (custom: type_size). */
size_t mj__spec_key_size(const mj_kernel_spec *spec);

/* Threads of the blocksort kernel (bs_nt, or nt when bs_nt is 0). */
int mj__spec_bs_nt(const mj_kernel_spec *spec);

/* Static shared memory a kernel with nt threads and the spec's VT declares: one tile of keys,
 * a tile of int positions when values are carried, alignment padding, and for segmented sorts
 * a head range per thread; for reduce and scan, a tile of keys and a few more per warp; for
 * lbs and expand, a tile of offsets and one more, and an int per item. */
size_t mj__tile_smem(mj_primitive primitive, int nt, int vt, size_t key_size,
                     size_t value_size);

/* The largest VT a segmented sort takes (a thread's head flags are one 32-bit word). */
#define MJ_SEG_MAX_VT 32

/* What a kernel may declare statically (without the dynamic-shared-memory opt-in). */
#define MJ_STATIC_SMEM_LIMIT (48 * 1024)

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

/* Writes the translation unit to *out (malloc'd, NUL-terminated; *len without the NUL).
 * Returns 0; -1 with err for an invalid spec; MJ_GEN_NO_MEMORY with err when host memory ran
 * out. mj__gen_status gives the status for a failure. */
#define MJ_GEN_NO_MEMORY (-2)
mj_status mj__gen_status(int rc);
int mj__gen_source(const mj_kernel_spec *spec, char **out, size_t *len, char *err,
                   size_t errcap);

#endif
