/* SPDX-License-Identifier: Apache-2.0 */
/* NVRTC compilation of a generated translation unit, and the choice of target. Internal. */
#ifndef MJ_COMPILE_H
#define MJ_COMPILE_H

#include <stddef.h>
#include <stdint.h>
#include "driver/dl_nvrtc.h"
#include "mergejit.h"

typedef struct mj_target {
    int sm;     /* what NVRTC compiles for */
    int ptx;    /* 1: PTX for compute_<sm>, finished by the driver; 0: cubin for sm_<sm> */
} mj_target;

/* The target for a device (or a requested) sm: a cubin when NVRTC knows that sm; PTX for the
 * newest sm it knows when the device is newer; -1 with err when the sm is older than any. */
int mj__choose_target(const mj_nvrtc_api *nv, int sm, mj_target *out, char *err, size_t errcap);

/* The NVRTC options for a target, NULL-terminated; stable for hashing. From NVRTC 12.4 on,
 * --minimal (no runtime API declarations: a shorter parse). From NVRTC 12.9 on, --no-cache:
 * NVRTC's own cache would hide ptxas's report on a hit, and the disk cache here already keeps
 * every binary. */
int mj__compile_options(const mj_nvrtc_api *nv, mj_target target, const char *opts[8],
                        char storage[64]);

/* Compiles source. On success *binary (malloc'd) and *size, status MJ_OK. On a rejected
 * source MJ_ERR_COMPILE with NVRTC's log in err. *log (may be NULL) receives the full program
 * log either way (ptxas's -v report for cubins), malloc'd. */
mj_status mj__compile(const mj_nvrtc_api *nv, const char *source, mj_target target,
                      void **binary, size_t *size, char **log, char *err, size_t errcap);

/* One program of a module's build: a kernel's source in; its binary, NVRTC's log, the time it
 * took and its status out. */
typedef struct mj_compile_job {
    const char *source;
    void *binary;      /* malloc'd; NULL on failure */
    size_t size;
    char *log;         /* malloc'd; NULL when there was none */
    double ms;         /* wall-clock time of the whole program (front end and ptxas) */
    mj_status status;
    char *err;         /* malloc'd message when status is not MJ_OK */
} mj_compile_job;

/* Compiles jobs[0..count) on up to `threads` host threads at once, the caller's among them
 * (NVRTC is thread-safe across programs), so a build costs about its slowest program rather
 * than their sum on enough cores. The results do not depend on the thread count. Returns
 * MJ_OK, or the status of the first failed job in order with its message in err: one log,
 * however many programs failed alike. The caller frees the jobs' results
 * (mj__compile_jobs_free) either way. *times (may be NULL) gets the times. */
mj_status mj__compile_jobs(const mj_nvrtc_api *nv, mj_target target, mj_compile_job *jobs,
                           int count, int threads, mj_build_times *times, char *err,
                           size_t errcap);
void mj__compile_jobs_free(mj_compile_job *jobs, int count);

/* Threads for a build of `jobs` programs: MERGEJIT_JIT_THREADS when it is a positive number,
 * else the CPUs this process may run on; at most jobs. */
int mj__compile_threads(int jobs);

/* The cache key: SHA-256 over the library version, NVRTC version, options, target and source. */
void mj__compile_key(const mj_nvrtc_api *nv, mj_target target, const char *source,
                     uint8_t key[32]);

/* Reads ptxas's report in a compile log: spill stores and loads, and stack frames (local memory:
 * spills, or an array the compiler did not keep in registers; frame_bytes may be NULL), each
 * summed over every kernel, and the largest register count. Returns the number of kernels
 * reported (0: no report). */
int mj__ptxas_report(const char *log, long *spill_bytes, long *frame_bytes,
                     int *max_registers);

/* ptxas's own time in a compile log: its "Compile time = T ms" lines summed over the kernels,
 * or -1 when the log has none (PTX targets; a ptxas that does not report it). */
double mj__ptxas_ms(const char *log);

/* Test hook, never set by the library: when non-zero, mj__compile fails as if
 * nvrtcCompileProgram had returned this nvrtcResult. Hidden from the shared library. */
extern int mj__fault_nvrtc_result;

#endif
