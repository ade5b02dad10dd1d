#include "driver/dl_nvrtc.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "mergejit.h" /* mj_driver_version, mj_nvrtc_version: public */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static mj_nvrtc_api api;
static int loaded;
static char load_error[512];

static const char *const candidates[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};

#define SYM(member, name)                                                                   \
    if (!(*(void **)&api.member = dlsym(lib, name))) {                                      \
        snprintf(load_error, sizeof load_error, "NVRTC lacks %s", name);                    \
        return;                                                                             \
    }

static void load(void) {
    const char *path = getenv("MERGEJIT_LIBNVRTC");
    void *lib = NULL;
    const char *tried = path;
    if (path && *path) {
        lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    } else {
        for (size_t i = 0; !lib && i < sizeof candidates / sizeof *candidates; ++i)
            lib = dlopen(tried = candidates[i], RTLD_NOW | RTLD_LOCAL);
        tried = "libnvrtc.so.13/.12";
    }
    if (!lib) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load NVRTC (%s): %s", tried,
                 why ? why : "unknown error");
        dlerror(); /* frees glibc's message, taken above */
        return;
    }
    SYM(version, "nvrtcVersion");
    SYM(num_archs, "nvrtcGetNumSupportedArchs");
    SYM(archs, "nvrtcGetSupportedArchs");
    SYM(create, "nvrtcCreateProgram");
    SYM(compile, "nvrtcCompileProgram");
    SYM(log_size, "nvrtcGetProgramLogSize");
    SYM(log, "nvrtcGetProgramLog");
    SYM(cubin_size, "nvrtcGetCUBINSize");
    SYM(cubin, "nvrtcGetCUBIN");
    SYM(ptx_size, "nvrtcGetPTXSize");
    SYM(ptx, "nvrtcGetPTX");
    SYM(destroy, "nvrtcDestroyProgram");
    SYM(error_string, "nvrtcGetErrorString");
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
