/* SPDX-License-Identifier: Apache-2.0 */
/* Messages: usage errors, runtime failures, and small formatting helpers (and the sort of
 * timings that the reported medians come from). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout); /* keep stdout's lines before the message when both go to one place */
    if (cmd != NULL)
        fprintf(stderr, "mergejit %s: ", cmd);
    else
        fputs("mergejit: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (cmd != NULL)
        fprintf(stderr, "Try 'mergejit %s --help'.\n", cmd);
    else
        fprintf(stderr, "Try 'mergejit --help'.\n");
    return CLI_USAGE;
}

int cli_status_error(const mj_context *ctx, mj_status status)
{
    const char *msg = mj_context_last_error(ctx);
    if (msg == NULL || msg[0] == '\0')
        msg = "(no message)";
    fflush(stdout);
    fprintf(stderr, "mergejit: %s: %s", mj_status_name(status), msg);
    size_t len = strlen(msg);
    if (len == 0 || msg[len - 1] != '\n')
        fputc('\n', stderr);
    return CLI_FAILURE;
}

int cli_tool_error(mj_status status, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "mergejit: %s: ", mj_status_name(status));
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_FAILURE;
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fputs("mergejit: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_FAILURE;
}

const char *cli_json_char(unsigned char c, char *buf)
{
    if (c == '"' || c == '\\')
        snprintf(buf, 8, "\\%c", c);
    else if (c < 0x20)
        snprintf(buf, 8, "\\u%04x", c);
    else
        snprintf(buf, 8, "%c", c);
    return buf;
}

void cli_put_json_string(FILE *f, const char *s)
{
    char buf[8];
    if (s == NULL) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s != '\0'; s++)
        fputs(cli_json_char((unsigned char)*s, buf), f);
    fputc('"', f);
}

void cli_put_cache_json(FILE *f, mj_context *ctx, size_t entries, uint64_t bytes)
{
    fprintf(f, ", \"entries\": %zu, \"bytes\": %llu, \"max_bytes\": ", entries,
            (unsigned long long)bytes);
    uint64_t cap = mj_context_cache_max(ctx);
    if (cap == UINT64_MAX)
        fputs("null", f);
    else
        fprintf(f, "%llu", (unsigned long long)cap);
    fprintf(f, ", \"writable\": %s", mj_cache_check_writable(ctx) == MJ_OK ? "true" : "false");
}

void cli_put_one_line(FILE *f, const char *msg)
{
    int pending_space = 0, started = 0;
    if (msg == NULL)
        return;
    for (const char *p = msg; *p != '\0'; p++) {
        char c = *p;
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
            pending_space = started;
            continue;
        }
        if (pending_space)
            fputc(' ', f);
        pending_space = 0;
        started = 1;
        fputc(c, f);
    }
}

const char *cli_format_version(int version, char *buf, size_t len)
{
    if (version <= 0)
        snprintf(buf, len, "not found");
    else
        snprintf(buf, len, "%d.%d", version / 1000, (version % 1000) / 10);
    return buf;
}

const char *cli_format_nccl_version(int version, char *buf, size_t len)
{
    /* NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch from 2.9 on, major * 1000 +
     * minor * 100 + patch before. */
    if (version <= 0)
        snprintf(buf, len, "not found");
    else if (version >= 10000)
        snprintf(buf, len, "%d.%d.%d", version / 10000, version / 100 % 100, version % 100);
    else
        snprintf(buf, len, "%d.%d.%d", version / 1000, version / 100 % 10, version % 100);
    return buf;
}

const char *cli_format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    if (bytes < 1024) {
        snprintf(buf, len, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    double v = (double)bytes / 1024.0;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, len, "%.1f %s", v, units[u]);
    return buf;
}

const char *cli_source_phrase(int source)
{
    switch (source) {
    case 0: return "compiled with NVRTC";
    case 1: return "loaded from the disk cache";
    case 2: return "found in the context's memory";
    case 3: return "loaded from the bundle";
    case 4: return "loaded from the bundle as PTX, compiled by the driver for this GPU,";
    default: return "built (unknown source)";
    }
}

/* "<what>: <source> in X ms" and, for a compile, the split in parentheses (no newline). */
static void print_one_build(const char *what, int source, double ms, const mj_build_times *t)
{
    printf("%s: %s in %.1f ms", what, cli_source_phrase(source), ms);
    if (t->programs > 0) {
        printf(" (%d program%s on %d thread%s, slowest %.1f ms", t->programs,
               t->programs == 1 ? "" : "s", t->threads, t->threads == 1 ? "" : "s",
               t->slowest_ms);
        if (t->ptxas_ms >= 0)
            printf("; summed: front end %.1f ms + ptxas %.1f ms", t->frontend_ms, t->ptxas_ms);
        printf(")");
    }
}

void cli_print_build(const mj_sorter *sorter)
{
    int nt = 0, vt = 0;
    mj_sorter_tile(sorter, &nt, &vt);
    mj_build_times t;
    mj_sorter_build_times(sorter, &t);
    print_one_build("build", mj_sorter_source(sorter), mj_sorter_build_ms(sorter), &t);
    printf("; tile %d threads x %d values per thread\n", nt, vt);
}

void cli_print_again(mj_context *ctx, const mj_sort_desc *desc)
{
    struct timespec t0, t1;
    mj_sorter *s = NULL;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    mj_status st = mj_sorter_create(ctx, desc, &s);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st == MJ_OK)
        printf("again: %s in %.1f us\n", cli_source_phrase(mj_sorter_source(s)),
               (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3);
    mj_sorter_destroy(s);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

void cli_sort_floats(float *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_float);
}
