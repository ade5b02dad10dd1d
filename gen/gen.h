/* SPDX-License-Identifier: Apache-2.0 */
/* The code generator: a kernel spec in, one self-contained CUDA translation unit out, the same
 * bytes every time for the same spec. Pure C; no CUDA needed. Internal. */
#ifndef MJ_GEN_H
#define MJ_GEN_H

#include <stddef.h>
#include "catalog.h"
#include "mergejit.h"
#include "spec.h"

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
