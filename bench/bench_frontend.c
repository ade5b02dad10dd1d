/* SPDX-License-Identifier: Apache-2.0 */
/* Where NVRTC's time goes in one sorter's build, program by program (issue 21).
 *
 *   bench_frontend [--primitive P] [--type T] [--values B] [--order asc|desc] [--sm SM]
 *                  [--nt NT --vt VT] [--reps R] [--only NAME] [--extra OPT]
 *
 * For the sorter's tile (--nt and --vt, else the built-in default, as `mergejit demo` without
 * a tuning file) it compiles, one program at a time on this thread, R times each, and prints
 * the least CPU time of this thread (as the wall time of an idle machine, steadier on a busy
 * one):
 *   floor     an empty kernel with the library's options: what NVRTC costs at all;
 *   parse     the sorter's source with every kernel left a template: what reading the
 *             prelude, spec and templates costs, nothing instantiated;
 *   <kernel>  each kernel's own program, as the library compiles it: generated for the tile
 *             parameters the kernel uses (gen/kernel_program.h), so that e.g. the partitions'
 *             programs are the same for every tile.
 * Each as PTX (compute_SM: NVRTC's front end and optimizer, no ptxas) and, for the kernels,
 * as a cubin (sm_SM: what a build pays, ptxas included). Plain C over the library's internals
 * (the generator, the NVRTC loader and its options); needs NVRTC, no GPU. --only NAME keeps
 * one row (floor, parse or a kernel). --extra OPT appends one NVRTC option to every compile,
 * to compare options run against run, e.g. -Ofast-compile=min, or
 * --fdevice-time-trace=FILE (NVRTC 12.8+: its own time trace, FILE.json) with --only and
 * --reps 1, PTX only: NVRTC 13.0 crashes on a second traced compile in one process.
 * FE_DUMP=DIR writes each kernel's program to DIR/<kernel>.cu; FE_LOAD=DIR reads each from
 * there instead of generating it, so that an edit of a dumped program (a template change tried
 * by hand, a part taken out to see what it costs) is timed, or counted by nvrtc_work.sh, with
 * the library's own options and without rebuilding.
 * --once ptx|cubin|none compiles each kernel's program once to that target (none: not at all)
 * and times nothing: for an instruction counter (bench/nvrtc_work.sh runs valgrind's), whose
 * counts, unlike this host's CPU times, do not change from run to run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/file_io.h"
#include "base/host_alloc.h"
#include "core/context.h"
#include "core/tile_choice.h"
#include "driver/compile.h"
#include "gen.h"
#include "kernel_program.h"

static const char empty_kernel[] = "extern \"C\" __global__ void mj_empty() {}\n";

/* This thread's CPU time, ms: NVRTC compiles on the calling thread, and its CPU time varies far
 * less than the wall clock on a machine that other work shares. */
static double thread_cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* One compile of source for target, `extra` appended to the library's options; its ms, or -1
 * with NVRTC's log on stderr. */
static double compile_ms(const mj_nvrtc_api *nv, const char *source, mj_target target,
                         const char *extra) {
    const char *opts[10];
    char storage[64];
    int n = mj__compile_options(nv, target, opts, storage);
    if (extra) opts[n++] = extra;
    nvrtcProgram prog;
    if (nv->create(&prog, source, "mergejit.cu", 0, NULL, NULL) != NVRTC_SUCCESS) return -1;
    double t0 = thread_cpu_ms();
    nvrtcResult r = nv->compile(prog, n, opts);
    double ms = thread_cpu_ms() - t0;
    if (r != NVRTC_SUCCESS) {
        size_t len = 0;
        nv->log_size(prog, &len);
        char *log = malloc(len + 1);
        if (log && nv->log(prog, log) == NVRTC_SUCCESS) fprintf(stderr, "%s\n", log);
        free(log);
        ms = -1;
    }
    nv->destroy(&prog);
    return ms;
}

static double fastest(const mj_nvrtc_api *nv, const char *source, mj_target target, int reps,
                      const char *extra) {
    double best = -1;
    for (int i = 0; i < reps; ++i) {
        double ms = compile_ms(nv, source, target, extra);
        if (ms < 0) return -1;
        if (best < 0 || ms < best) best = ms;
    }
    return best;
}

/* The module source with every kernel left a template: a kernel name no kernel has keeps
 * none (mj__gen_kernel_source then reports -1 but its text is what we want, so it is rebuilt
 * here from the same rule). */
static char *all_templates(const char *src) {
    static const char head[] = "extern \"C\" __global__ void";
    size_t extra = 0;
    for (const char *p = src; (p = strstr(p, head)); ++p) extra += 16;
    char *out = malloc(strlen(src) + extra + 1), *o = out;
    if (!out) return NULL;
    for (const char *p = src, *at;; p = at + 10) {
        at = strstr(p, head);
        size_t n = at ? (size_t)(at - p) : strlen(p);
        memcpy(o, p, n);
        o += n;
        if (!at) break;
        memcpy(o, "template <int>", 14);
        o += 14;
    }
    *o = '\0';
    return out;
}

/* Kernel `name`'s program from $FE_LOAD/<name>.cu (NUL-terminated, malloc'd); NULL when FE_LOAD
 * is not set. Exits on a file it cannot read. */
static char *loaded_program(const char *name) {
    const char *dir = getenv("FE_LOAD");
    if (!dir) return NULL;
    char path[512], err[640];
    void *data = NULL;
    size_t size = 0;
    snprintf(path, sizeof path, "%s/%s.cu", dir, name);
    char *text = NULL;
    if (mj__read_file(path, &data, &size, err, sizeof err) == MJ_OK &&
        (text = mj__realloc(data, size + 1))) {
        text[size] = '\0';
        return text;
    }
    if (data) fprintf(stderr, "bench_frontend: no memory for %s\n", path);
    else fprintf(stderr, "bench_frontend: %s\n", err);
    free(data);
    exit(1);
}

static void row(const char *name, double ptx, double cubin) {
    printf("%-18s %9.1f", name, ptx);
    if (cubin >= 0)
        printf(" %9.1f %9.1f\n", cubin, cubin - ptx);
    else
        printf(" %9s %9s\n", "-", "-");
}

/* A row is measured when --only names it or is not given. */
static int wanted_row(const char *only, const char *name) { return !only || !strcmp(only, name); }

int main(int argc, char **argv) {
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, MJ_KEY_U32, MJ_ASCENDING);
    int sm = 90, reps = 3;
    const char *extra = NULL, *only = NULL, *once = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *o = argv[i], *v = argv[i + 1];
        if (!strcmp(o, "--type")) desc.key = mj_key_kind_parse(v);
        else if (!strcmp(o, "--values")) desc.value_size = (size_t)atoi(v);
        else if (!strcmp(o, "--order")) desc.order = !strcmp(v, "desc") ? MJ_DESCENDING : MJ_ASCENDING;
        else if (!strcmp(o, "--sm")) sm = atoi(v);
        else if (!strcmp(o, "--nt")) desc.nt = atoi(v);
        else if (!strcmp(o, "--vt")) desc.vt = atoi(v);
        else if (!strcmp(o, "--reps")) reps = atoi(v);
        else if (!strcmp(o, "--extra")) extra = v;
        else if (!strcmp(o, "--only")) only = v;
        else if (!strcmp(o, "--once")) once = v;
        else if (!strcmp(o, "--primitive")) {
            desc.primitive = mj_primitive_parse(v);
        } else {
            fprintf(stderr, "bench_frontend: unknown option %s\n", o);
            return 2;
        }
    }
    int trace = extra && !strncmp(extra, "--fdevice-time-trace", 20);
    int bad_once = once && strcmp(once, "ptx") && strcmp(once, "cubin") && strcmp(once, "none");
    if (argc % 2 == 0 || reps < 1 || (trace && (!only || reps != 1)) || bad_once) {
        fprintf(stderr, "usage: bench_frontend [--primitive P] [--type T] [--values B] "
                        "[--order asc|desc] [--sm SM] [--nt NT --vt VT] [--reps R] [--only NAME] "
                        "[--extra OPT] [--once ptx|cubin|none]\n");
        return 2;
    }
    mj_context_options co = {.flags = MJ_CONTEXT_COMPILE_ONLY | MJ_CONTEXT_NO_DISK_CACHE,
                             .target_sm = sm, .tuning_file = ""};
    mj_context *ctx = NULL;
    if (mj_context_create(&co, &ctx) != MJ_OK) {
        fprintf(stderr, "bench_frontend: no compile-only context\n");
        return 1;
    }
    mj_kernel_spec spec;
    if (mj__spec_from_desc(ctx, &desc, &spec) != MJ_OK ||
        mj__choose_tile(ctx, &desc, &spec, NULL) != MJ_OK) {
        fprintf(stderr, "bench_frontend: %s\n", mj_context_last_error(ctx));
        return 1;
    }
    char err[1024];
    const mj_nvrtc_api *nv = mj__nvrtc_load(err, sizeof err);
    char *src = NULL;
    size_t len = 0;
    if (!nv || mj__gen_source(&spec, &src, &len, err, sizeof err)) {
        fprintf(stderr, "bench_frontend: %s\n", err);
        return 1;
    }
    mj_target ptx = {sm, 1}, cubin = {sm, 0};
    if (!once) {
        printf("NVRTC %d.%d, %s of %s keys, %zu-byte values, NT %d VT %d, sm_%d; fastest of %d; "
               "source %zu bytes\n", nv->major, nv->minor, mj_primitive_name(spec.primitive),
               mj_key_kind_name(spec.key), spec.value_size, spec.nt, spec.vt, sm, reps, len);
        if (extra) printf("with %s\n", extra);
        printf("%-18s %9s %9s %9s\n", "program", "ptx ms", "cubin ms", "ptxas ms");
    }
    const char *topt = extra;
    if (!once && wanted_row(only, "floor"))
        row("floor", fastest(nv, empty_kernel, ptx, reps, topt), -1);
    if (!once && wanted_row(only, "parse")) {
        char *parse = all_templates(src);
        row("parse", parse ? fastest(nv, parse, ptx, reps, topt) : -1, -1);
        free(parse);
    }
    double sum_ptx = 0, sum_cubin = 0, slowest = 0;
    int status = 0;
    mj_kernel_set wanted = mj__primitive_kernels(spec.primitive);
    for (int k = 0; k < MJ_KERNELS_MAX; ++k) {
        if (!(wanted & (1u << k))) continue;
        const char *name = mj__kernel_name(spec.primitive, k);
        if (!wanted_row(only, name)) continue;
        char *one = loaded_program(name);
        if (!one && mj__gen_program_source(&spec, k, &one, NULL, err, sizeof err)) {
            fprintf(stderr, "bench_frontend: %s\n", err);
            status = 1;
            continue;
        }
        if (getenv("FE_DUMP")) {
            char path[256];
            snprintf(path, sizeof path, "%s/%s.cu", getenv("FE_DUMP"), name);
            FILE *f = fopen(path, "w");
            if (f) { fputs(one, f); fclose(f); }
        }
        if (once) {
            if (strcmp(once, "none") &&
                compile_ms(nv, one, !strcmp(once, "ptx") ? ptx : cubin, extra) < 0)
                status = 1;
            printf("%s\n", name);
            free(one);
            continue;
        }
        double p = fastest(nv, one, ptx, reps, topt);
        double c = trace ? -1 : fastest(nv, one, cubin, reps, NULL);
        row(name, p, c);
        sum_ptx += p;
        sum_cubin += c;
        slowest = c > slowest ? c : slowest;
        free(one);
    }
    if (!once)
        printf("%-18s %9.1f %9.1f %9.1f   (slowest cubin %.1f)\n", "sum", sum_ptx, sum_cubin,
               sum_cubin - sum_ptx, slowest);
    free(src);
    mj_context_destroy(ctx);
    return once ? status : 0;
}
