/* SPDX-License-Identifier: Apache-2.0 */
/* The primitive catalogue, the ground of gen/: a row per primitive (its name, traits,
 * templates, kernels, shared-memory rule and default tiles) and a row per kernel
 * (its name, build weight, the tile parameters it ignores, and whether its grid is sized by
 * the blocks resident at once). A kernel is named by its index in its primitive's row, and a
 * set of a primitive's kernels is a mask of those indexes, so kernels have no global numbering
 * and no ceiling but a primitive's MJ_KERNELS_MAX. Everything below api/ that differs by
 * primitive reads it here; only tile_rules.h (the arithmetic its rows name) lies below it.
 * Internal. */
#ifndef MJ_CATALOG_H
#define MJ_CATALOG_H

#include <stddef.h>

#include "mergejit.h"
#include "tile_rules.h"

/* A primitive's kernels are indexes 0..MJ_KERNELS_MAX-1 of its row. */
#define MJ_KERNELS_MAX 16
/* A set of one primitive's kernels: bit k for index k. The bits enter the disk cache keys of
 * modules of some of a primitive's kernels (core/loader.c), so a row's indexes are only ever
 * added to, never renumbered. */
typedef unsigned mj_kernel_set;
_Static_assert(MJ_KERNELS_MAX <= 8 * sizeof(mj_kernel_set), "a kernel set has a bit a kernel");

/* The kernel indexes the host side launches, by row. Primitives that share host code share
 * indexes: the segmented and locality sorts (primitives/queued.c; locality has no heads
 * kernels), lbs, expand and move (primitives/load_balance.c), and the merge, sorted search and
 * join (the search launches the merge's partition, the join the search's kernels). */
enum { /* mergesort; the blocksort is also the queued sorts' */
    MJ_K_BLOCKSORT = 0,
    MJ_K_PARTITION = 1,      /* 2-way passes */
    MJ_K_MERGE = 2,
    MJ_K_PARTITION4 = 3,     /* 4-way passes, a group of lanes a split */
    MJ_K_PARTITION4_ONE = 4, /* 4-way passes, one lane a split */
    MJ_K_MERGE4 = 5,
};
enum { /* segmented and locality sorts */
    MJ_K_HEADS_FLAGS = 1,
    MJ_K_HEADS_INDICES = 2,
    MJ_K_QUEUE_PARTITION = 3,
    MJ_K_QUEUE_WORK = 4,
    MJ_K_QUEUE_FINISH = 5,
};
enum { /* merge, sorted search, join */
    MJ_K_MERGE_PARTITION = 0,
    MJ_K_MERGE_ARRAYS = 1,
    MJ_K_SEARCH = 1,
    MJ_K_JOIN_REDUCE = 2,
    MJ_K_JOIN_SPINE = 3,
    MJ_K_JOIN_OFFSETS = 4,
    MJ_K_JOIN_UNMATCHED = 5,
    MJ_K_JOIN_PARTITION = 6,
    MJ_K_JOIN_TILES = 7,
};
enum { MJ_K_REDUCE = 0, MJ_K_SCAN = 0 };
enum { MJ_K_LBS_PARTITION = 0, MJ_K_LBS = 1, MJ_K_EXPAND = 1, MJ_K_MOVE = 1 };
enum { MJ_K_REMOVE_PARTITION = 0, MJ_K_REMOVE = 1, MJ_K_INSERT_PARTITION = 0, MJ_K_INSERT = 1 };
enum { MJ_K_SETOP_PARTITION = 0, MJ_K_SETOP = 1 };
enum { MJ_K_SELECT = 0 };
enum { MJ_K_SEGREDUCE_PARTITION = 0, MJ_K_SEGREDUCE = 1 };
enum { MJ_K_REDUCE_BY_KEY = 0 };

/* The tile parameters a kernel's code may depend on. */
enum {
    MJ_USES_NT = 1u << 0,    /* MJ_NT (and MJ_NV): the merge tile's threads */
    MJ_USES_VT = 1u << 1,    /* MJ_VT (and MJ_NV, MJ_BS_NV) */
    MJ_USES_BS_NT = 1u << 2, /* MJ_BS_NT (and MJ_BS_NV): the blocksort's threads */
    MJ_USES_TILE = MJ_USES_NT | MJ_USES_VT | MJ_USES_BS_NT
};

typedef struct mj_kernel_row {
    const char *name;       /* its extern "C" name */
    int weight;             /* about what NVRTC takes to build its program, relative to its
                               module's others (0 when not measured): a build starts its
                               programs heaviest first, so that on fewer threads than programs
                               the longest does not start last (wall time only, never the
                               binary) */
    unsigned char ignores;  /* MJ_USES_* its templates are known not to read
                               (test_kernel_program compares the PTX of tiles differing in
                               each): its program is generated without them (kernel_program.h) */
    unsigned char resident; /* its grid is the blocks resident at once (the loader counts them
                               at load), not one a tile; at most one a primitive */
} mj_kernel_row;

/* What sets a primitive apart, which the spec and tile checks read. */
typedef struct mj_primitive_traits {
    unsigned char blocksort;  /* has a blocksort pass, whose threads may be NT times a power
                                 of two (the others' tile is NT threads) */
    unsigned char comparator; /* orders keys by order or less (a custom key needs less) */
    unsigned char op;         /* combines with an operator and identity (no values) */
    unsigned char predicate;  /* orders keys (comparator) and may also take a selection
                                 operator over one key (mj_sort_desc.op), no identity */
    unsigned char value_op;   /* combines its values (of value_type) with an operator and
                                 identity; with a comparator for the keys */
    unsigned char index_key;  /* the key is the index type of offsets (i32 or i64) */
    unsigned char moves;      /* only moves elements, as bytes (no comparator, no operator) */
    unsigned char fixed_nt;   /* refuses blocksort threads other than NT */
    unsigned char values;     /* mj_values_rule (mergejit.h): what value_size may be */
    /* What the generator and the tile checks do for one primitive alone (gen.c says why): */
    unsigned char segmented;  /* sorts segments: MJ_SEGMENTED, VT up to MJ_SEG_MAX_VT */
    unsigned char merge4;     /* merges four lists a pass above a size (merge4_log2), its 4-way
                                 merge under a launch bound (MJ_MERGE4_MIN_BLOCKS) */
    unsigned char ordinals;   /* holds built-in float keys as their ordinals */
    unsigned char capped_blocksort; /* its blocksort takes the register caps of 4-byte keys */
} mj_primitive_traits;

/* A tuned tile: for keys and values of these sizes, NT x VT and blocksort threads. */
typedef struct mj_tile_row {
    unsigned char key_size, value_size; /* key_size 0 ends a list */
    short nt, vt, bs_nt;
} mj_tile_row;

typedef struct mj_primitive_row {
    const char *name;                /* mj_primitive_name's */
    mj_primitive_traits traits;      /* exactly one of comparator, op, index_key and moves
                                        (value_op goes with comparator) */
    const char *const *templates;    /* embedded templates after the spec, in order
                                        (NULL-terminated) */
    const mj_kernel_row *kernels[MJ_KERNELS_MAX]; /* by index; NULL where none */
    mj_smem_rule *smem;              /* the static shared memory of its tile */
    mj_tile_rule *tile;              /* its default tile where none is tuned */
    const mj_tile_row *sm90;         /* its tuned tiles for sm_90 and newer, or NULL */
} mj_primitive_row;

/* The primitive's row, or NULL for an unknown primitive. */
const mj_primitive_row *mj__primitive_row(mj_primitive p);

/* Kernel k of the primitive's row, or NULL (no such kernel, or an unknown primitive). */
const mj_kernel_row *mj__kernel_row(mj_primitive p, int k);
/* Its extern "C" name (NULL for none) and build weight (0 for none). */
const char *mj__kernel_name(mj_primitive p, int k);
int mj__kernel_build_weight(mj_primitive p, int k);

/* Every kernel of the primitive's module (0 for an unknown primitive). */
mj_kernel_set mj__primitive_kernels(mj_primitive p);
/* The index of the primitive's kernel whose grid is sized by residency, or -1. */
int mj__resident_kernel(mj_primitive p);

/* The embedded templates (by file name, NULL-terminated) the source is made of, in order:
 * the prelude before the spec, then the primitive's own after it (NULL for an unknown
 * primitive). Each list holds every file its templates include (test_gen_templates checks
 * it), as the generator drops their #include lines. */
const char *const *mj__prelude_templates(void);
const char *const *mj__primitive_templates(mj_primitive p);

/* The primitive's traits; an all-zero row for an unknown primitive. */
const mj_primitive_traits *mj__primitive_traits(mj_primitive p);

/* Whether the spec's op (and identity) are part of what the primitive's source is made of:
 * an operator (reduce, scan, segmented reduce), a selection operator (select) or an operator
 * over values (reduce by key). */
static inline int mj__takes_op(mj_primitive p) {
    const mj_primitive_traits *t = mj__primitive_traits(p);
    return t->op || t->predicate || t->value_op;
}

/* The primitives that combine with an operator, those whose key is an index type (offsets),
 * and those that only move elements (neither a comparator, an operator nor offsets). */
static inline int mj__is_reduce_or_scan(mj_primitive p) { return mj__primitive_traits(p)->op; }
static inline int mj__is_lbs(mj_primitive p) { return mj__primitive_traits(p)->index_key; }
static inline int mj__is_bulk(mj_primitive p) { return mj__primitive_traits(p)->moves; }
/* The primitives with a value type, whose operator combines values (reduce by key). */
static inline int mj__has_value_op(mj_primitive p) { return mj__primitive_traits(p)->value_op; }

/* Static shared memory a kernel with nt threads and VT vt declares for the primitive's tile
 * (its row's rule, tile_rules.c); SIZE_MAX for an unknown primitive. */
size_t mj__tile_smem(mj_primitive p, int nt, int vt, size_t key_size, size_t value_size);

/* The default tile of the primitive for a key size and value size on an sm: the merge tile
 * (nt x vt) and the blocksort's threads (bs_nt x vt); its row's tuned tile for those sizes on
 * sm_90 and newer, else its rule's. 0s for an unknown primitive. */
void mj__default_tile(mj_primitive p, int sm, size_t key_size, size_t value_size, int *nt,
                      int *vt, int *bs_nt);

#endif
