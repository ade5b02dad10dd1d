/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the test programs. */
#ifndef MJ_TEST_SUPPORT_H
#define MJ_TEST_SUPPORT_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "mergejit.h"

#define MJT_SKIP 77 /* ctest's SKIP_RETURN_CODE */

/* A context on device 0, or exit(MJT_SKIP) after one line saying why when the machine has no
 * usable GPU. Call from main, before the suite runs. */
mj_context *mjt_gpu_context_or_skip(const char *program);

/* Whether MJ_TEST_SMALL asks for small sizes (non-zero): GPU tests under compute-sanitizer. */
int mjt_small(void);

/* A compile-only context for sm (no driver needed) with its own cache directory `dir`
 * (NULL: the environment's default). Fails the test on error. */
mj_context *mjt_compile_context(int sm, const char *dir);
/* The same with the bundle and tuning file named (NULL: the environment's; "": none). */
mj_context *mjt_deploy_context(int sm, const char *dir, const char *bundle, const char *tuning);

/* st must be want, with a message in the context's last error that holds needle (when not
 * NULL); `what` names the call in the failure. */
void mjt_expect(mj_context *ctx, mj_status st, mj_status want, const char *needle,
                const char *what);

/* A fresh directory under /tmp (malloc'd path) and its recursive removal. */
char *mjt_tmpdir(void);
void mjt_rmtree(const char *path);

/* Runs the suite and returns the exit status. GPU suites pass fork = 0: a CUDA driver
 * initialised in the parent does not work in a forked child. */
int mjt_run(Suite *s, int fork);

uint64_t mjt_rand(uint64_t *state);

/* The CUDA runtime API, opened with dlopen as the library opens the driver, so that GPU tests
 * can use memory and streams the way an application does (the primary-context promise) while
 * the test programs build without the toolkit's headers. */
typedef struct mjt_cudart {
    int (*stream_create)(void **stream);
    int (*stream_sync)(void *stream);
    int (*stream_destroy)(void *stream);
    int (*mem_alloc)(void **p, size_t bytes);
    int (*mem_free)(void *p);
    int (*copy)(void *dst, const void *src, size_t bytes, int kind); /* 1 to, 2 from device */
    int (*stream_create_flags)(void **stream, unsigned flags); /* 1: non-blocking */
    int (*launch_host_func)(void *stream, void (*fn)(void *), void *data);
    int (*memset_async)(void *p, int value, size_t bytes, void *stream);
} mjt_cudart;
/* Fills rt and returns 0; -1 after a line on stderr when libcudart or one of its functions is
 * missing. Usable outside a test (from main). */
int mjt_cudart_load(mjt_cudart *rt);

/* The modules the context holds (its table: every module a sorter of it built or loaded). */
int mjt_context_modules(mj_context *ctx);
/* The sorter for desc, after a first create that fails as NVRTC running out of memory
 * (injected): that create gives MJ_ERR_HOST_MEMORY naming NVRTC's error, no sorter and no
 * module in ctx (which starts with none and keeps no disk cache); the second builds. Fails the
 * test otherwise. */
mj_sorter *mjt_create_after_failed_build(mj_context *ctx, const mj_sort_desc *desc);

/* Writes n bytes to path, replacing it; fails the test on error. */
void mjt_write_file(const char *path, const void *data, size_t n);
/* The whole file (malloc'd, with a NUL after its bytes, so text can be read as a string);
 * *n (may be NULL) gets its size. Fails the test on error. */
void *mjt_read_file(const char *path, size_t *n);

/* The mergejit tool's exit status (-1 when it did not exit normally) and output. */
typedef struct mjt_tool_run {
    int status;
    char *out, *err;
} mjt_tool_run;

/* Runs the tool with args (NULL-terminated, without argv[0]) and the environment changes
 * `env` ("NAME=VALUE" strings, NULL-terminated; may be NULL). */
mjt_tool_run mjt_run_tool(const char *const *args, const char *const *env);
void mjt_tool_run_free(mjt_tool_run *r);

#endif
