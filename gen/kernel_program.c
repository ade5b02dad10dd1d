/* SPDX-License-Identifier: Apache-2.0 */
#include "kernel_program.h"

#include <stdio.h>
#include <stdlib.h>

#define NT MJ_USES_NT
#define VT MJ_USES_VT
#define BS MJ_USES_BS_NT

unsigned mj__kernel_tile_uses(mj_primitive primitive, int k) {
    const mj_kernel_row *kernel = mj__kernel_row(primitive, k);
    return MJ_USES_TILE & ~(unsigned)(kernel ? kernel->ignores : 0);
}

void mj__program_spec(const mj_kernel_spec *spec, int k, mj_kernel_spec *out) {
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

int mj__gen_program_source(const mj_kernel_spec *spec, int k, char **out, size_t *len,
                           char *err, size_t errcap) {
    *out = NULL;
    const char *name = mj__kernel_name(spec->primitive, k);
    if (!name) {
        snprintf(err, errcap, "%s has no kernel %d", mj_primitive_name(spec->primitive), k);
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
