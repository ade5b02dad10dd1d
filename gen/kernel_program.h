/* SPDX-License-Identifier: Apache-2.0 */
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

/* What kernel k of the primitive uses (MJ_USES_*): every parameter but those its row
 * (catalog.c) ignores; every parameter for an unknown kernel. */
unsigned mj__kernel_tile_uses(mj_primitive primitive, int k);

/* The tile of a program whose kernel uses none of the parameters: the smallest valid one. */
#define MJ_PROGRAM_NT MJ_MIN_NT
#define MJ_PROGRAM_VT 1

/* spec with the tile parameters kernel k does not use set alike for every tile: VT unused,
 * MJ_PROGRAM_VT; NT and blocksort threads unused, both MJ_PROGRAM_NT; NT alone unused, NT :=
 * the blocksort's threads; blocksort threads alone unused, they := NT. Should the result fail
 * mj__spec_check (none does for a spec that passes it), *out is spec itself: no sharing. */
void mj__program_spec(const mj_kernel_spec *spec, int k, mj_kernel_spec *out);

/* The program of kernel k of spec's primitive: mj__gen_kernel_source of the source of
 * mj__program_spec. Returns 0 with *out (malloc'd, NUL-terminated) and *len (may be NULL); -1
 * with err for an invalid spec or a kernel that its module does not define once;
 * MJ_GEN_NO_MEMORY. */
int mj__gen_program_source(const mj_kernel_spec *spec, int k, char **out, size_t *len,
                           char *err, size_t errcap);

#endif
