/* SPDX-License-Identifier: Apache-2.0 */
/* A sorter's insides and the run machinery every primitive's host side shares: argument and
 * pointer checks, temporary storage (layout, allocation in stream order), a run's one prologue
 * and epilogue (mj__run_open, mj__run_close), launches. Internal. */
#ifndef MJ_RUN_H
#define MJ_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "core/context.h"
#include "gen.h"
#include "mergejit.h"

struct mj_sorter {
    mj_context *ctx;
    const mj_module *mod;  /* every kernel its runs may launch, built at create */
    mj_primitive primitive;
    size_t key_size, key_align;
    size_t value_size, value_align;
    int nt, vt, bs_nt;
    /* mergesort's schedule, from the environment as the sorter is built (mj__mergesort_env):
     * merge_ways 0 (by size), 2 or 4; fused 2-way passes (one launch a pass), overlapped
     * launches of the passes and serpentine pass order, 0 or 1 each. */
    int merge_ways, fused, pdl, serpentine;
    /* Where 4-way passes start where merge_ways is 0 (mj__merge4_log2; 0: the built-in rule). */
    int merge4_log2;
    int source;
    double build_ms;
    int has_op;   /* select: built with a selection operator (mj_sort_desc.op) */
    int has_less; /* an order: a built-in key, or a custom one with less (select may lack it) */
};

#define MJ_TEMP_ALIGN 256
#define DPTR(p) ((CUdeviceptr)(uintptr_t)(p))

/* Builds a temporary-storage layout part by part: each part aligned to MJ_TEMP_ALIGN. */
typedef struct mj_temp_layout {
    size_t total;
    int overflow;
} mj_temp_layout;
/* Reserves count * size bytes; returns the part's offset. */
size_t mj__temp_part(mj_temp_layout *t, size_t count, size_t size);

/* The sorter was built for one of the primitives in `mask` (bits 1 << MJ_*); else fails. */
mj_status mj__sorter_expect(const mj_sorter *s, unsigned mask, const char *function);

/* `values` is given exactly when the sorter carries values (NULL allowed for n == 0). */
mj_status mj__check_values(mj_sorter *s, const void *values, size_t n);

/* 1 when [a, a + an) and [b, b + bn) share a byte (empty ranges share none). */
int mj__ranges_overlap(const void *a, size_t an, const void *b, size_t bn);

/* A device array of a call: where it is, its size in bytes, its name in messages. */
typedef struct mj_array {
    const void *p;
    size_t bytes;
    const char *name;
} mj_array;

/* Each given array of a[first, count) (the outputs) must not overlap any given array before
 * it: MJ_ERR_INVALID_ARGUMENT "fn: X overlaps Y" for the first that does. NULL arrays are
 * not given. */
mj_status mj__check_overlaps(mj_sorter *s, const char *fn, const mj_array *a, int first,
                             int count);

/* Sizes each array's bytes, count[i] * size[i] (MJ_ERR_TOO_LARGE "fn: X does not fit in
 * memory" when one does not fit in size_t). */
mj_status mj__array_bytes(mj_sorter *s, const char *fn, mj_array *a, const size_t *count,
                          const size_t *size, int arrays);

/* Each non-empty array is device memory aligned to align[i] (call inside the context). */
mj_status mj__check_array_pointers(mj_sorter *s, const mj_array *a, const size_t *align,
                                   int arrays);

/* A run's device side, from mj__run_open to mj__run_close: its temporary storage and stream,
 * and what the close undoes. mj__run_check_temp checks the caller's (temp, temp_bytes) before
 * anything else; mj__run_begin checks the pointer or, when temp is NULL, allocates `need` bytes
 * in stream order (inside the context); mj__run_end frees what mj__run_begin allocated. */
typedef struct mj_run {
    CUdeviceptr base;
    CUstream stream;
    int owned;   /* base was allocated by mj__run_begin */
    int entered; /* mj__run_open entered the context */
} mj_run;
mj_status mj__run_check_temp(mj_sorter *s, size_t need, const void *temp, size_t temp_bytes);
mj_status mj__run_begin(mj_sorter *s, size_t need, void *temp, void *stream, mj_run *run);
void mj__run_end(mj_sorter *s, mj_run *run);

/* The steps of mj__run_open, in order; a run takes them up to the last it needs. */
typedef enum mj_run_steps {
    MJ_RUN_ENTER, /* enter the context: a run that reads and writes nothing */
    MJ_RUN_CHECK, /* check the arrays: a run that needs no temporary storage */
    MJ_RUN_TEMP   /* take `need` bytes of temporary storage (none when 0) */
} mj_run_steps;

/* A run's prologue, once the checks that need no device have passed (mj__run_check_temp
 * among them): enters the context, checks the arrays as mj__check_array_pointers does and
 * takes the temporary storage as mj__run_begin does, as far as `steps` says. run->base is temp
 * where nothing is taken. Every run, opened or failed, ends in mj__run_close, which frees what
 * was taken, leaves the context if it was entered and returns st: its one exit. */
mj_status mj__run_open(mj_sorter *s, const mj_array *a, const size_t *align, int arrays,
                       mj_run_steps steps, size_t need, void *temp, void *stream, mj_run *run);
mj_status mj__run_close(mj_sorter *s, mj_run *run, mj_status st);

/* Zeroes `bytes` at p in stream order (inside the context); a failure is "<what> failed: ...". */
mj_status mj__run_clear(mj_sorter *s, CUdeviceptr p, size_t bytes, CUstream stream,
                        const char *what);

/* Launches kernel k (its index in the sorter's primitive's row, catalog.h: MJ_K_*). */
mj_status mj__launch(mj_sorter *s, int k, long long grid, unsigned block, void **params,
                     CUstream stream);
/* mj__launch, but the kernel may start before the kernel ahead of it in the stream has ended,
 * once every block of that one has called mj_allow_next_kernel (mj_common.cuh; programmatic
 * dependent launch when the module's code was compiled for sm_90 or newer, a plain launch
 * otherwise: code for an older sm, PTX among it, run on a newer device lacks the
 * griddepcontrol instructions that make the overlap safe; and a driver without
 * cuLaunchKernelEx). The kernel itself must wait for
 * what it reads of the other's output, and call mj_await_prior_kernels before it ends, so
 * that later work in the stream finds both kernels over. */
mj_status mj__launch_overlapped(mj_sorter *s, int k, long long grid, unsigned block,
                                void **params, CUstream stream);

#endif
