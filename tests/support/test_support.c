/* SPDX-License-Identifier: Apache-2.0 */
#include "test_support.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/context.h"
#include "driver/compile.h"

int mjt_small(void) {
    const char *v = getenv("MJ_TEST_SMALL");
    return v && atoi(v);
}

mj_context *mjt_gpu_context_or_skip(const char *program) {
    mj_context *ctx = NULL;
    mj_status st = mj_context_create(NULL, &ctx);
    if (st == MJ_ERR_NO_DRIVER || st == MJ_ERR_NO_DEVICE) {
        printf("SKIP %s: no GPU here (%s: %s)\n", program, mj_status_name(st),
               mj_context_last_error(ctx));
        mj_context_destroy(ctx);
        exit(MJT_SKIP);
    }
    if (st != MJ_OK) {
        fprintf(stderr, "%s: cannot create a context: %s: %s\n", program, mj_status_name(st),
                mj_context_last_error(ctx));
        exit(1);
    }
    return ctx;
}

mj_context *mjt_deploy_context(int sm, const char *dir, const char *bundle, const char *tuning) {
    mj_context_options o;
    mj_context_options_init(&o);
    o.flags = MJ_CONTEXT_COMPILE_ONLY;
    o.target_sm = sm;
    o.cache_dir = dir;
    o.bundle = bundle;
    o.tuning_file = tuning;
    mj_context *ctx = NULL;
    mj_status st = mj_context_create(&o, &ctx);
    ck_assert_msg(st == MJ_OK, "compile-only context: %s: %s", mj_status_name(st),
                  mj_context_last_error(ctx));
    return ctx;
}

mj_context *mjt_compile_context(int sm, const char *dir) {
    return mjt_deploy_context(sm, dir, NULL, NULL);
}

void mjt_expect(mj_context *ctx, mj_status st, mj_status want, const char *needle,
                const char *what) {
    ck_assert_msg(st == want, "%s: expected %s, got %s (%s)", what, mj_status_name(want),
                  mj_status_name(st), mj_context_last_error(ctx));
    ck_assert_msg(mj_context_last_error(ctx)[0] != '\0', "%s: no message", what);
    if (needle)
        ck_assert_msg(strstr(mj_context_last_error(ctx), needle) != NULL,
                      "%s: '%s' is not in the message: %s", what, needle,
                      mj_context_last_error(ctx));
}

char *mjt_tmpdir(void) {
    char *path = strdup("/tmp/mergejit-test-XXXXXX");
    ck_assert_ptr_nonnull(path);
    ck_assert_ptr_nonnull(mkdtemp(path));
    return path;
}

void mjt_rmtree(const char *path) {
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char child[4096];
            snprintf(child, sizeof child, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
                mjt_rmtree(child);
            else
                unlink(child);
        }
        closedir(d);
    }
    rmdir(path);
}

int mjt_run(Suite *s, int fork) {
    SRunner *sr = srunner_create(s);
    if (!fork) srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

uint64_t mjt_rand(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void mjt_write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

void *mjt_read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    ck_assert_int_ge(len, 0);
    rewind(f);
    char *buf = malloc((size_t)len + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    if (n) *n = (size_t)len;
    return buf;
}

mjt_tool_run mjt_run_tool(const char *const *args, const char *const *env) {
    char *dir = mjt_tmpdir();
    char out_path[4096], err_path[4096];
    snprintf(out_path, sizeof out_path, "%s/stdout", dir);
    snprintf(err_path, sizeof err_path, "%s/stderr", dir);
    const char *argv[32] = {MJ_TOOL_PATH};
    int argc = 1;
    for (; args[argc - 1]; ++argc) {
        ck_assert_int_lt(argc, 31);
        argv[argc] = args[argc - 1];
    }
    argv[argc] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        for (int i = 0; env && env[i]; ++i) putenv((char *)env[i]);
        int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0) _exit(126);
        execv(MJ_TOOL_PATH, (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    mjt_tool_run r;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    ck_assert_msg(r.status != 127, "could not run %s", MJ_TOOL_PATH);
    r.out = mjt_read_file(out_path, NULL);
    r.err = mjt_read_file(err_path, NULL);
    mjt_rmtree(dir);
    free(dir);
    return r;
}

void mjt_tool_run_free(mjt_tool_run *r) {
    free(r->out);
    free(r->err);
}


int mjt_cudart_load(mjt_cudart *rt) {
    void *h = dlopen("libcudart.so.13", RTLD_NOW);
    if (!h) h = dlopen("libcudart.so", RTLD_NOW);
    if (!h) {
        fprintf(stderr, "libcudart is needed for this test: %s\n", dlerror());
        return -1;
    }
    /* Through void * per POSIX's dlsym: ISO C has no cast between object and function
     * pointers. */
    *(void **)&rt->stream_create = dlsym(h, "cudaStreamCreate");
    *(void **)&rt->stream_sync = dlsym(h, "cudaStreamSynchronize");
    *(void **)&rt->stream_destroy = dlsym(h, "cudaStreamDestroy");
    *(void **)&rt->mem_alloc = dlsym(h, "cudaMalloc");
    *(void **)&rt->mem_free = dlsym(h, "cudaFree");
    *(void **)&rt->copy = dlsym(h, "cudaMemcpy");
    *(void **)&rt->stream_create_flags = dlsym(h, "cudaStreamCreateWithFlags");
    *(void **)&rt->launch_host_func = dlsym(h, "cudaLaunchHostFunc");
    *(void **)&rt->memset_async = dlsym(h, "cudaMemsetAsync");
    if (rt->stream_create && rt->stream_sync && rt->stream_destroy && rt->mem_alloc &&
        rt->mem_free && rt->copy && rt->stream_create_flags && rt->launch_host_func &&
        rt->memset_async)
        return 0;
    fprintf(stderr, "libcudart lacks a function this test needs\n");
    return -1;
}

int mjt_context_modules(mj_context *ctx) {
    int count = 0;
    pthread_mutex_lock(&ctx->lock);
    for (const mj_module *m = ctx->modules; m; m = m->next) ++count;
    pthread_mutex_unlock(&ctx->lock);
    return count;
}

mj_sorter *mjt_create_after_failed_build(mj_context *ctx, const mj_sort_desc *desc) {
    mj_sorter *s = NULL;
    mj__fault_nvrtc_result = NVRTC_ERROR_OUT_OF_MEMORY;
    mj_status st = mj_sorter_create(ctx, desc, &s);
    mj__fault_nvrtc_result = 0;
    ck_assert_msg(st == MJ_ERR_HOST_MEMORY, "%s", mj_status_name(st));
    ck_assert_ptr_null(s);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "NVRTC_ERROR_OUT_OF_MEMORY"));
    ck_assert_int_eq(mjt_context_modules(ctx), 0);
    st = mj_sorter_create(ctx, desc, &s);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), mj_context_last_error(ctx));
    return s;
}
