/* SPDX-License-Identifier: Apache-2.0 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "driver/compile.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/sha256.h"
#include "base/host_alloc.h"

int mj__choose_target(const mj_nvrtc_api *nv, int sm, mj_target *out, char *err,
                      size_t errcap) {
    int best = -1;
    for (int i = 0; i < nv->arch_count; ++i) {
        if (nv->arch_list[i] == sm) {
            out->sm = sm;
            out->ptx = 0;
            return 0;
        }
        if (nv->arch_list[i] < sm && nv->arch_list[i] > best) best = nv->arch_list[i];
    }
    if (best < 0) {
        snprintf(err, errcap, "NVRTC %d.%d cannot compile for sm_%d: the oldest target it "
                              "knows is sm_%d", nv->major, nv->minor, sm, nv->arch_list[0]);
        return -1;
    }
    out->sm = best;
    out->ptx = 1;
    return 0;
}

int mj__compile_options(const mj_nvrtc_api *nv, mj_target target, const char *opts[8],
                        char storage[64]) {
    int n = 0;
    snprintf(storage, 64, "--gpu-architecture=%s_%d", target.ptx ? "compute" : "sm", target.sm);
    opts[n++] = storage;
    opts[n++] = "-std=c++17";
    if (!target.ptx) opts[n++] = "--ptxas-options=-v";
    /* From NVRTC 12.4 on, --minimal leaves out the runtime API's types and functions, which
     * the templates never use: a shorter parse in every program, the same PTX. */
    if (nv->major > 12 || (nv->major == 12 && nv->minor >= 4)) opts[n++] = "--minimal";
    if (nv->major > 12 || (nv->major == 12 && nv->minor >= 9)) opts[n++] = "--no-cache";
    opts[n] = NULL;
    return n;
}

void mj__compile_key(const mj_nvrtc_api *nv, mj_target target, const char *source,
                     uint8_t key[32]) {
    const char *opts[8];
    char storage[64], head[128];
    mj__compile_options(nv, target, opts, storage);
    mj_sha256 h;
    mj__sha256_init(&h);
    int n = snprintf(head, sizeof head, "mergejit %s|nvrtc %d.%d|", MJ_VERSION_STRING,
                     nv->major, nv->minor);
    mj__sha256_update(&h, head, (size_t)n);
    for (int i = 0; opts[i]; ++i) mj__sha256_update(&h, opts[i], strlen(opts[i]) + 1);
    mj__sha256_update(&h, "|", 1);
    mj__sha256_update(&h, source, strlen(source));
    mj__sha256_final(&h, key);
}

int mj__fault_nvrtc_result;

static char *program_log(const mj_nvrtc_api *nv, nvrtcProgram prog) {
    size_t n = 0;
    if (nv->log_size(prog, &n) != NVRTC_SUCCESS) n = 0;
    char *text = mj__malloc(n + 1);
    if (!text) return NULL;
    if (n == 0 || nv->log(prog, text) != NVRTC_SUCCESS) n = 0;
    text[n] = '\0';
    return text;
}

mj_status mj__compile(const mj_nvrtc_api *nv, const char *source, mj_target target,
                      void **binary, size_t *size, char **log, char *err, size_t errcap) {
    const char *opts[8];
    char storage[64];
    int nopts = mj__compile_options(nv, target, opts, storage);
    nvrtcProgram prog;
    *binary = NULL;
    *size = 0;
    if (log) *log = NULL;
    nvrtcResult r = nv->create(&prog, source, "mergejit.cu", 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) {
        snprintf(err, errcap, "nvrtcCreateProgram failed: %s", nv->error_string(r));
        return r == NVRTC_ERROR_OUT_OF_MEMORY ? MJ_ERR_HOST_MEMORY : MJ_ERR_COMPILE;
    }
    r = mj__fault_nvrtc_result ? (nvrtcResult)mj__fault_nvrtc_result
                              : nv->compile(prog, nopts, opts);
    char *text = program_log(nv, prog);
    mj_status st = MJ_OK;
    if (r != NVRTC_SUCCESS) {
        snprintf(err, errcap, "NVRTC could not compile the generated kernels for %s: %s\n%s",
                 storage, nv->error_string(r), text ? text : "(no log)");
        st = r == NVRTC_ERROR_OUT_OF_MEMORY ? MJ_ERR_HOST_MEMORY : MJ_ERR_COMPILE;
    } else {
        size_t n = 0;
        nvrtcResult rs = target.ptx ? nv->ptx_size(prog, &n) : nv->cubin_size(prog, &n);
        void *buf = rs == NVRTC_SUCCESS ? mj__malloc(n ? n : 1) : NULL;
        if (!buf) {
            snprintf(err, errcap, "out of host memory for a %zu-byte binary", n);
            st = MJ_ERR_HOST_MEMORY;
        } else if ((target.ptx ? nv->ptx(prog, buf) : nv->cubin(prog, buf)) != NVRTC_SUCCESS) {
            free(buf);
            snprintf(err, errcap, "NVRTC compiled but did not hand over the binary");
            st = MJ_ERR_COMPILE;
        } else {
            *binary = buf;
            *size = n;
        }
    }
    nv->destroy(&prog);
    if (log)
        *log = text;
    else
        free(text);
    return st;
}

/* The jobs of one build and the next one to take; every thread takes jobs until none is left. */
typedef struct job_queue {
    const mj_nvrtc_api *nv;
    mj_target target;
    mj_compile_job *jobs;
    int count;
    size_t errcap;
    atomic_int next;
} job_queue;

static void *run_jobs(void *arg) {
    job_queue *q = arg;
    for (int i; (i = atomic_fetch_add(&q->next, 1)) < q->count;) {
        mj_compile_job *j = &q->jobs[i];
        double t0 = mj__now_ms();
        j->err = mj__malloc(q->errcap);
        j->status = j->err ? mj__compile(q->nv, j->source, q->target, &j->binary, &j->size,
                                         &j->log, j->err, q->errcap)
                           : MJ_ERR_HOST_MEMORY;
        j->ms = mj__now_ms() - t0;
    }
    return NULL;
}

mj_status mj__compile_jobs(const mj_nvrtc_api *nv, mj_target target, mj_compile_job *jobs,
                           int count, int threads, mj_build_times *times, char *err,
                           size_t errcap) {
    job_queue q = {nv, target, jobs, count, errcap, 0};
    if (threads > count) threads = count;
    pthread_t helpers[64];
    int started = 0;
    /* A thread that cannot be started leaves its share to the others. */
    while (started < threads - 1 && started < 64 &&
           pthread_create(&helpers[started], NULL, run_jobs, &q) == 0)
        ++started;
    run_jobs(&q);
    for (int t = 0; t < started; ++t) pthread_join(helpers[t], NULL);
    if (times) {
        *times = (mj_build_times){count, started + 1, 0, 0, 0};
        int reported = 1;
        for (int i = 0; i < count; ++i) {
            double ptxas = target.ptx ? 0 : mj__ptxas_ms(jobs[i].log);
            reported &= ptxas >= 0;
            times->ptxas_ms += ptxas > 0 ? ptxas : 0;
            times->frontend_ms += jobs[i].ms - (ptxas > 0 ? ptxas : 0);
            if (jobs[i].ms > times->slowest_ms) times->slowest_ms = jobs[i].ms;
        }
        if (target.ptx)
            times->ptxas_ms = -1; /* the driver finishes PTX when it loads it */
        else if (!reported)
            times->frontend_ms = times->ptxas_ms = -1; /* this ptxas does not report its time */
    }
    for (int i = 0; i < count; ++i)
        if (jobs[i].status != MJ_OK) {
            snprintf(err, errcap, "%s", jobs[i].err ? jobs[i].err : "out of host memory");
            return jobs[i].status;
        }
    return MJ_OK;
}

void mj__compile_jobs_free(mj_compile_job *jobs, int count) {
    for (int i = 0; i < count; ++i) {
        free(jobs[i].binary);
        free(jobs[i].log);
        free(jobs[i].err);
        jobs[i].binary = jobs[i].log = jobs[i].err = NULL;
    }
}

int mj__compile_threads(int jobs) {
    const char *v = getenv("MERGEJIT_JIT_THREADS");
    long n = v && *v ? strtol(v, NULL, 10) : 0;
    if (n <= 0) {
        cpu_set_t set;
        n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                         : sysconf(_SC_NPROCESSORS_ONLN);
    }
    return n < 1 ? 1 : n < jobs ? (int)n : jobs;
}

double mj__ptxas_ms(const char *log) {
    double total = -1;
    for (const char *p = log; p && (p = strstr(p, "Compile time = ")); ++p) {
        double ms;
        if (sscanf(p, "Compile time = %lf ms", &ms) == 1) total = (total < 0 ? 0 : total) + ms;
    }
    return total;
}

int mj__ptxas_report(const char *log, long *spill_bytes, long *frame_bytes,
                     int *max_registers) {
    int kernels = 0;
    long frames = 0;
    *spill_bytes = 0;
    *max_registers = 0;
    for (const char *p = log; p && (p = strstr(p, "bytes spill stores")); ++p) {
        /* "N bytes stack frame, S bytes spill stores, L bytes spill loads", after a prefix
         * that depends on the version: none or spaces in older ptxas, "ptxas         .     "
         * in NVRTC 13's. Parse from the number before "bytes stack frame" on this line. */
        const char *line = p;
        while (line > log && line[-1] != '\n') --line;
        const char *num = strstr(line, "bytes stack frame");
        if (!num || num > p) continue;
        while (num > line && (num[-1] == ' ' || num[-1] == '\t')) --num;
        while (num > line && num[-1] >= '0' && num[-1] <= '9') --num;
        long frame = 0, stores = 0, loads = 0;
        if (sscanf(num, "%ld bytes stack frame, %ld bytes spill stores, %ld bytes spill loads",
                   &frame, &stores, &loads) == 3) {
            *spill_bytes += stores + loads;
            frames += frame;
            ++kernels;
        }
    }
    for (const char *p = log; p && (p = strstr(p, "Used ")); ++p) {
        int regs = 0;
        if (sscanf(p, "Used %d registers", &regs) == 1 && regs > *max_registers)
            *max_registers = regs;
    }
    if (frame_bytes) *frame_bytes = frames;
    return kernels;
}
