/* SPDX-License-Identifier: Apache-2.0 */
/* NVRTC, opened with dlopen at first use: a program that only loads cached or bundled
 * binaries needs no compiler. nvrtc.h is used for its types only. Internal.
 * MERGEJIT_LIBNVRTC names another library file to open (tests use it to simulate a machine
 * without NVRTC). */
#ifndef MJ_DL_NVRTC_H
#define MJ_DL_NVRTC_H

#include <nvrtc.h>
#include <stddef.h>

typedef struct mj_nvrtc_api {
    nvrtcResult (*version)(int *, int *);
    nvrtcResult (*num_archs)(int *);
    nvrtcResult (*archs)(int *);
    nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                          const char *const *);
    nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*log_size)(nvrtcProgram, size_t *);
    nvrtcResult (*log)(nvrtcProgram, char *);
    nvrtcResult (*cubin_size)(nvrtcProgram, size_t *);
    nvrtcResult (*cubin)(nvrtcProgram, char *);
    nvrtcResult (*ptx_size)(nvrtcProgram, size_t *);
    nvrtcResult (*ptx)(nvrtcProgram, char *);
    nvrtcResult (*destroy)(nvrtcProgram *);
    const char *(*error_string)(nvrtcResult);
    int major, minor;    /* its version */
    int arch_count;
    int arch_list[64];   /* the sm numbers it can compile for, ascending */
} mj_nvrtc_api;

/* The loaded NVRTC, or NULL with the reason in err. Loads once per process. */
const mj_nvrtc_api *mj__nvrtc_load(char *err, size_t errcap);

#endif
