/* SPDX-License-Identifier: Apache-2.0 */
/* Opening a library with dlopen at first use, and finding its entry points: what the loaders
 * of libcuda, NVRTC and NCCL (dl_cuda.c, dl_nvrtc.c, dl_nccl.c) share. Internal. */
#ifndef MJ_DL_OPEN_H
#define MJ_DL_OPEN_H

#include <stddef.h>

/* A library to open: the file the environment variable `env` names when it is set and not
 * empty, else the first of candidates[0..count) that dlopen finds. `what` names it in
 * messages ("NVRTC", "the CUDA driver"). */
typedef struct mj_dl_library {
    const char *what;
    const char *env;
    const char *const *candidates;
    size_t count;
} mj_dl_library;

/* Opens lib: the handle, with *opened the name dlopen took (the variable's path or the
 * candidate found); else NULL with "cannot load WHAT (TRIED): dlopen's reason" in err, TRIED
 * being the variable's path, or the candidates in order and the variable that names another. */
void *mj__dl_open(const mj_dl_library *lib, const char **opened, char *err, size_t errcap);

/* An entry point: its symbol, and the function pointer of a loader's table that receives it. */
typedef struct mj_dl_symbol {
    const char *name;
    void *slot; /* the address of the function pointer */
} mj_dl_symbol;

/* Fills the slots of syms[0..count) from handle (lib's, opened as `opened`). Returns 0; else
 * closes handle and returns -1 with "WHAT (OPENED) lacks SYMBOL" in err: a library without one
 * of them is not the one wanted. */
int mj__dl_resolve(void *handle, const mj_dl_library *lib, const char *opened,
                   const mj_dl_symbol *syms, size_t count, char *err, size_t errcap);

#endif
