/* SPDX-License-Identifier: Apache-2.0 */
#include "driver/dl_open.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dlsym's answer is copied into a function pointer: POSIX gives both one representation. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers are not void *");

/* "a, then b; VAR=<path> names another": what was looked for when the variable is not set. */
static void candidates_text(const mj_dl_library *lib, char *out, size_t cap) {
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < lib->count && len < cap; ++i) {
        int n = snprintf(out + len, cap - len, "%s%s", i ? ", then " : "", lib->candidates[i]);
        if (n < 0) return;
        len += (size_t)n;
    }
    if (len < cap) snprintf(out + len, cap - len, "; %s=<path> names another", lib->env);
}

void *mj__dl_open(const mj_dl_library *lib, const char **opened, char *err, size_t errcap) {
    const char *path = getenv(lib->env);
    void *handle = NULL;
    *opened = NULL;
    if (path && *path) {
        handle = dlopen(*opened = path, RTLD_NOW | RTLD_LOCAL);
    } else {
        for (size_t i = 0; !handle && i < lib->count; ++i)
            handle = dlopen(*opened = lib->candidates[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (handle) return handle;
    const char *why = dlerror();
    char tried[256];
    if (path && *path)
        snprintf(tried, sizeof tried, "%s", path);
    else
        candidates_text(lib, tried, sizeof tried);
    snprintf(err, errcap, "cannot load %s (%s): %s", lib->what, tried,
             why ? why : "unknown error");
    dlerror(); /* frees glibc's message, taken above */
    return NULL;
}

int mj__dl_resolve(void *handle, const mj_dl_library *lib, const char *opened,
                   const mj_dl_symbol *syms, size_t count, char *err, size_t errcap) {
    for (size_t i = 0; i < count; ++i) {
        void *fn = dlsym(handle, syms[i].name);
        if (!fn) {
            snprintf(err, errcap, "%s (%s) lacks %s", lib->what, opened, syms[i].name);
            dlerror(); /* takes glibc's message for the failed lookup ... */
            dlerror(); /* ... and frees it */
            dlclose(handle);
            return -1;
        }
        memcpy(syms[i].slot, &fn, sizeof fn);
    }
    return 0;
}
