/* SPDX-License-Identifier: Apache-2.0 */
#include "driver/dl_nvrtc.h"

#include <pthread.h>
#include <stdio.h>

#include "driver/dl_open.h"
#include "mergejit.h" /* mj_nvrtc_version: public */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static mj_nvrtc_api api;
static int loaded;
static char load_error[512];

static const char *const candidates[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
static const mj_dl_library nvrtc = {"NVRTC", "MERGEJIT_LIBNVRTC", candidates,
                                    sizeof candidates / sizeof *candidates};

static void load(void) {
    const char *opened;
    void *lib = mj__dl_open(&nvrtc, &opened, load_error, sizeof load_error);
    if (!lib) return;
    const mj_dl_symbol syms[] = {
        {"nvrtcVersion", &api.version},
        {"nvrtcGetNumSupportedArchs", &api.num_archs},
        {"nvrtcGetSupportedArchs", &api.archs},
        {"nvrtcCreateProgram", &api.create},
        {"nvrtcCompileProgram", &api.compile},
        {"nvrtcGetProgramLogSize", &api.log_size},
        {"nvrtcGetProgramLog", &api.log},
        {"nvrtcGetCUBINSize", &api.cubin_size},
        {"nvrtcGetCUBIN", &api.cubin},
        {"nvrtcGetPTXSize", &api.ptx_size},
        {"nvrtcGetPTX", &api.ptx},
        {"nvrtcDestroyProgram", &api.destroy},
        {"nvrtcGetErrorString", &api.error_string},
    };
    if (mj__dl_resolve(lib, &nvrtc, opened, syms, sizeof syms / sizeof *syms, load_error,
                       sizeof load_error))
        return;
    if (api.version(&api.major, &api.minor) != NVRTC_SUCCESS ||
        api.num_archs(&api.arch_count) != NVRTC_SUCCESS || api.arch_count <= 0 ||
        api.arch_count > (int)(sizeof api.arch_list / sizeof *api.arch_list) ||
        api.archs(api.arch_list) != NVRTC_SUCCESS) {
        snprintf(load_error, sizeof load_error, "NVRTC did not report its version and targets");
        return;
    }
    loaded = 1;
}

const mj_nvrtc_api *mj__nvrtc_load(char *err, size_t errcap) {
    pthread_once(&once, load);
    if (!loaded && err) snprintf(err, errcap, "%s", load_error);
    return loaded ? &api : NULL;
}

int mj_nvrtc_version(void) {
    const mj_nvrtc_api *nv = mj__nvrtc_load(NULL, 0);
    return nv ? nv->major * 1000 + nv->minor * 10 : 0;
}
