/* Each kernel's NVRTC program: the module's source generated for the spec normalized to the
 * tile parameters that kernel's code uses, with the module's other kernels left uninstantiated
 * templates. Tiles that differ only in what a kernel does not use then give that kernel the
 * same program to the byte, hence the same compile key and disk cache entry
 * (core/loader.c), so that the tuner's candidates, or sorters of one key type with different
 * tiles, compile it once. Internal. */
#ifndef MJ_KERNEL_PROGRAM_H
#define MJ_KERNEL_PROGRAM_H

#include <stddef.h>

#include "gen.h"
#include "spec.h"

/* The tile parameters a kernel's code may depend on. */
enum {
    MJ_USES_NT = 1u << 0,    /* MJ_NT (and MJ_NV): the merge tile's threads */
    MJ_USES_VT = 1u << 1,    /* MJ_VT (and MJ_NV, MJ_BS_NV) */
    MJ_USES_BS_NT = 1u << 2, /* MJ_BS_NT (and MJ_BS_NV): the blocksort's threads */
    MJ_USES_TILE = MJ_USES_NT | MJ_USES_VT | MJ_USES_BS_NT
};

/* What kernel k of the primitive uses (MJ_USES_*): every parameter unless its templates are
 * known not to read it (test_kernel_program compares the PTX of tiles that differ in each). */
unsigned mj__kernel_tile_uses(mj_primitive primitive, mj_kernel_id k);

/* The tile of a program whose kernel uses none of the parameters: the smallest valid one. */
#define MJ_PROGRAM_NT MJ_MIN_NT
#define MJ_PROGRAM_VT 1

/* spec with the tile parameters kernel k does not use set alike for every tile: VT unused,
 * MJ_PROGRAM_VT; NT and blocksort threads unused, both MJ_PROGRAM_NT; NT alone unused, NT :=
 * the blocksort's threads; blocksort threads alone unused, they := NT. Should the result fail
 * mj__spec_check (none does for a spec that passes it), *out is spec itself: no sharing. */
void mj__program_spec(const mj_kernel_spec *spec, mj_kernel_id k, mj_kernel_spec *out);

/* Kernel k's program for spec: mj__gen_kernel_source of the source of mj__program_spec.
 * Returns 0 with *out (malloc'd, NUL-terminated) and *len (may be NULL); -1 with err for an
 * invalid spec or a kernel that its module does not define once; MJ_GEN_NO_MEMORY. */
int mj__gen_program_source(const mj_kernel_spec *spec, mj_kernel_id k, char **out,
                           size_t *len, char *err, size_t errcap);

#endif
