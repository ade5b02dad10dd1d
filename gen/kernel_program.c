#include "kernel_program.h"

#include <stdio.h>
#include <stdlib.h>

#define NT MJ_USES_NT
#define VT MJ_USES_VT
#define BS MJ_USES_BS_NT

/* What each kernel's templates do not read; 0 (the default, also for a new kernel) is "uses
 * every parameter". Mergesort's partitions take the tile size as an argument; the segment
 * heads kernels have no tile; the blocksort's tile is MJ_BS_NT x MJ_VT (but see
 * mj__kernel_tile_uses); the merge and queue kernels have no blocksort. */
static const unsigned char ignores[MJ_K_COUNT] = {
    [MJ_K_PARTITION] = NT | VT | BS,      [MJ_K_PARTITION4] = NT | VT | BS,
    [MJ_K_PARTITION4_ONE] = NT | VT | BS, [MJ_K_HEADS_FLAGS] = NT | VT | BS,
    [MJ_K_HEADS_INDICES] = NT | VT | BS,  [MJ_K_BLOCKSORT] = NT,
    [MJ_K_MERGE] = BS,                    [MJ_K_MERGE4] = BS,
    [MJ_K_QUEUE_PARTITION] = BS,          [MJ_K_QUEUE_WORK] = BS,
    [MJ_K_QUEUE_FINISH] = BS,
};

unsigned mj__kernel_tile_uses(mj_primitive primitive, mj_kernel_id k) {
    if ((unsigned)k >= MJ_K_COUNT) return MJ_USES_TILE;
    /* A segmented sort's blocksort marks the merge tiles (MJ_NV) its segments finish. */
    if (k == MJ_K_BLOCKSORT && primitive == MJ_SEGMENTED_SORT) return MJ_USES_TILE;
    return MJ_USES_TILE & ~(unsigned)ignores[k];
}

void mj__program_spec(const mj_kernel_spec *spec, mj_kernel_id k, mj_kernel_spec *out) {
    unsigned uses = mj__kernel_tile_uses(spec->primitive, k);
    *out = *spec;
    if (!(uses & VT)) out->vt = MJ_PROGRAM_VT;
    if (uses & NT)
        out->bs_nt = uses & BS ? mj__spec_bs_nt(spec) : spec->nt;
    else
        out->nt = out->bs_nt = uses & BS ? mj__spec_bs_nt(spec) : MJ_PROGRAM_NT;
    char err[8];
    if (mj__spec_check(out, err, sizeof err)) *out = *spec;
}

int mj__gen_program_source(const mj_kernel_spec *spec, mj_kernel_id k, char **out,
                           size_t *len, char *err, size_t errcap) {
    *out = NULL;
    const char *name = mj__kernel_name(k);
    if (!name) {
        snprintf(err, errcap, "unknown kernel %d", (int)k);
        return -1;
    }
    mj_kernel_spec normal;
    mj__program_spec(spec, k, &normal);
    char *src = NULL;
    int rc = mj__gen_source(&normal, &src, NULL, err, errcap);
    if (rc) return rc;
    rc = mj__gen_kernel_source(src, name, out, len);
    free(src);
    if (rc == MJ_GEN_NO_MEMORY)
        snprintf(err, errcap, "out of host memory while generating source");
    else if (rc) /* a template list without the kernel: a bug that test_gen catches */
        snprintf(err, errcap, "the generated source of %s does not define kernel %s once",
                 mj_primitive_name(spec->primitive), name);
    return rc;
}
