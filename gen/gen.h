/* The code generator: a kernel spec in, one self-contained CUDA translation unit out, the same
 * bytes every time for the same spec. Pure C; no CUDA needed. Internal. */
#ifndef MJ_GEN_H
#define MJ_GEN_H

#include <stddef.h>
#include "mergejit.h"
#include "spec.h"

/* Every kernel a module may hold; a primitive's module holds those of mj__primitive_kernels. */
typedef enum mj_kernel_id {
    MJ_K_BLOCKSORT,       /* mergesort, segmented and locality sort */
    MJ_K_PARTITION,       /* mergesort (2-way passes) */
    MJ_K_MERGE,           /* mergesort (2-way passes) */
    MJ_K_PARTITION4,      /* mergesort (4-way passes, a group of lanes a split) */
    MJ_K_PARTITION4_ONE,  /* mergesort (4-way passes, one lane a split) */
    MJ_K_MERGE4,          /* mergesort (4-way passes) */
    MJ_K_MERGE_PARTITION, /* merge */
    MJ_K_MERGE_ARRAYS,    /* merge */
    MJ_K_HEADS_FLAGS,     /* segmented sort */
    MJ_K_HEADS_INDICES,   /* segmented sort */
    MJ_K_QUEUE_PARTITION, /* segmented and locality sort */
    MJ_K_QUEUE_WORK,      /* segmented and locality sort */
    MJ_K_QUEUE_FINISH,    /* segmented and locality sort */
    MJ_K_REDUCE,          /* reduce */
    MJ_K_SCAN,            /* scan */
    MJ_K_LBS_PARTITION,   /* load-balancing search, interval expand and move */
    MJ_K_LBS,             /* load-balancing search */
    MJ_K_EXPAND,          /* interval expand */
    MJ_K_SEARCH,          /* sorted search (with MJ_K_MERGE_PARTITION) */
    MJ_K_REMOVE_PARTITION, /* bulk remove */
    MJ_K_REMOVE,          /* bulk remove */
    MJ_K_INSERT_PARTITION, /* bulk insert */
    MJ_K_INSERT,          /* bulk insert */
    MJ_K_MOVE,            /* interval move */
    MJ_K_JOIN_REDUCE,     /* join (with MJ_K_MERGE_PARTITION and MJ_K_SEARCH) */
    MJ_K_JOIN_SPINE,      /* join */
    MJ_K_JOIN_OFFSETS,    /* join */
    MJ_K_JOIN_UNMATCHED,  /* join */
    MJ_K_JOIN_PARTITION,  /* join */
    MJ_K_JOIN_TILES,      /* join */
    MJ_K_SETOP_PARTITION, /* set operations */
    MJ_K_SETOP,           /* set operations */
    MJ_K_COUNT
} mj_kernel_id;

/* The kernel's extern "C" name. */
const char *mj__kernel_name(mj_kernel_id id);
/* Kernel sets are bit masks of unsigned: bit k for kernel k. */
_Static_assert(MJ_K_COUNT <= 32, "a kernel set is a 32-bit unsigned mask");
/* Bit k set: the primitive's module has kernel k. */
unsigned mj__primitive_kernels(mj_primitive primitive);
/* About what NVRTC takes to build the kernel's program, relative to the module's other kernels
 * (0 when not measured): a build starts its programs in decreasing order of it, so that on
 * fewer threads than programs the longest does not start last. The order only changes the
 * build's wall time, never its binary. */
int mj__kernel_build_weight(mj_kernel_id id);

/* The embedded templates (by file name, NULL-terminated) the source is made of, in order:
 * the prelude before the spec, then the primitive's own after it (NULL for an unknown
 * primitive). Exposed for test_gen_templates, which checks each list against the #include
 * lines. */
const char *const *mj__prelude_templates(void);
const char *const *mj__primitive_templates(mj_primitive primitive);

/* Writes the translation unit to *out (malloc'd, NUL-terminated; *len without the NUL).
 * Returns 0; -1 with err for an invalid spec; MJ_GEN_NO_MEMORY with err when host memory ran
 * out. mj__gen_status gives the status for a failure. */
#define MJ_GEN_NO_MEMORY (-2)
mj_status mj__gen_status(int rc);
int mj__gen_source(const mj_kernel_spec *spec, char **out, size_t *len, char *err,
                   size_t errcap);

/* One kernel's program, for building a module's kernels as separate NVRTC programs at once:
 * module_source (from mj__gen_source) with every other kernel definition (`extern "C"
 * __global__ void [__launch_bounds__(...)] name(`) turned into an uninstantiated template,
 * which NVRTC parses but does not compile. Same lines, so NVRTC's messages point where they
 * do in the module. Returns 0 with *out (malloc'd) and *len; -1 when module_source defines no
 * kernel `kernel` exactly once; MJ_GEN_NO_MEMORY. */
int mj__gen_kernel_source(const char *module_source, const char *kernel, char **out,
                          size_t *len);

#endif
