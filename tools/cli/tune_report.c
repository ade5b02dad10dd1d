/* SPDX-License-Identifier: Apache-2.0 */
/* The autotuner's outcome names, its JSON report of every point, and a progress line for
 * terminals. The JSON, like the SVG (tune_svg.c), is built in memory and then written through
 * a temporary file and a rename, so a reader never sees half a report. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* fileno, isatty */
#endif

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tune.h"
#include "tune_text.h"

const char *tune_outcome_name(tune_outcome o)
{
    switch (o) {
    case TUNE_PENDING: return "pending";
    case TUNE_MEASURED: return "measured";
    case TUNE_SPILLS: return "spills";
    case TUNE_INVALID: return "invalid";
    case TUNE_BUILD_FAILED: return "build-failed";
    case TUNE_RUN_FAILED: return "run-failed";
    case TUNE_SKIPPED: return "skipped";
    }
    return "unknown";
}

/* ---------------------------------------------------------------- JSON */

/* A JSON string of at most `max` bytes of s (note[] need not end in a NUL). */
static void json_string(tune_sbuf *b, const char *s, size_t max)
{
    char buf[8];
    tune_sb_putc(b, '"');
    for (size_t i = 0; s != NULL && i < max && s[i] != '\0'; i++)
        tune_sb_printf(b, "%s", cli_json_char((unsigned char)s[i], buf));
    tune_sb_putc(b, '"');
}

static void json_point(tune_sbuf *b, const tune_point *p, int sizes)
{
    tune_sb_printf(b, "    {\"primitive\": ");
    json_string(b, tune_primitive_label(p->primitive), SIZE_MAX);
    tune_sb_printf(b,
                   ", \"key_size\": %zu, \"value_size\": %zu, \"nt\": %d, \"vt\": %d, "
                   "\"bs_nt\": %d, \"default\": %s, \"outcome\": \"%s\", \"registers\": %d, "
                   "\"spill_bytes\": %ld, \"gkeys\": [",
                   p->key_size, p->value_size, p->nt, p->vt, p->bs_nt,
                   p->is_default ? "true" : "false", tune_outcome_name(p->outcome), p->registers,
                   p->spill_bytes);
    for (int s = 0; s < sizes; s++)
        tune_sb_printf(b, "%s%.6g", s > 0 ? ", " : "", tune_finite_or_zero(p->gkeys[s]));
    tune_sb_printf(b, "], \"score\": %.6g, \"note\": ", tune_finite_or_zero(p->score));
    json_string(b, p->note, sizeof p->note);
    tune_sb_putc(b, '}');
}

int tune_write_json(const char *path, const tune_run_info *info, const tune_point *points,
                    size_t count)
{
    tune_sbuf b = {0};
    int sizes = tune_size_count(info);
    tune_sb_printf(&b, "{\n  \"device\": ");
    json_string(&b, info->device, SIZE_MAX);
    tune_sb_printf(&b, ",\n  \"sm\": %d,\n  \"sizes\": [", info->sm);
    for (int s = 0; s < sizes; s++) {
        int lg = info->log2_sizes[s];
        tune_sb_printf(&b, "%s%llu", s > 0 ? ", " : "",
                       lg >= 0 && lg < 64 ? 1ull << lg : 0ull);
    }
    tune_sb_printf(&b, "],\n  \"reps\": %d,\n  \"points\": [", info->reps);
    for (size_t i = 0; i < count; i++) {
        tune_sb_printf(&b, "%s\n", i > 0 ? "," : "");
        json_point(&b, &points[i], sizes);
    }
    tune_sb_printf(&b, "%s]\n}\n", count > 0 ? "\n  " : "");
    return tune_sb_write(&b, path);
}

/* ---------------------------------------------------------------- progress */

/* Width of the progress line: under 100 columns so that a 100-column terminal never wraps
 * it (a wrapped line can no longer be redrawn with '\r'). */
#define PROGRESS_WIDTH 99
#define PROGRESS_BAR 20
#define PROGRESS_WHAT 40

static void format_eta(char *buf, size_t len, size_t done, size_t total, double elapsed_s)
{
    double eta = done > 0 ? elapsed_s / (double)done * (double)(total - done) : -1;
    if (!(eta >= 0) || eta > 1e7) {
        snprintf(buf, len, "--");
        return;
    }
    long s = (long)(eta + 0.5);
    if (s < 60)
        snprintf(buf, len, "%lds", s);
    else if (s < 3600)
        snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
    else
        snprintf(buf, len, "%ldh%02ldm", s / 3600, s / 60 % 60);
}

void tune_progress(FILE *f, size_t done, size_t total, double elapsed_s, const char *what)
{
    if (f == NULL || !isatty(fileno(f)))
        return;
    if (done > total)
        done = total;
    char bar[PROGRESS_BAR + 1];
    size_t filled = total > 0 ? done * PROGRESS_BAR / total : PROGRESS_BAR;
    for (size_t i = 0; i < PROGRESS_BAR; i++)
        bar[i] = i < filled ? '#' : ' ';
    bar[PROGRESS_BAR] = '\0';
    char eta[32];
    format_eta(eta, sizeof eta, done, total, elapsed_s);

    char line[PROGRESS_WIDTH + 1];
    /* A line cut at the terminal's width is intended. */
    if (snprintf(line, sizeof line, "[%s] %zu/%zu points, ETA %s  %.*s", bar, done, total, eta,
                 PROGRESS_WHAT, what != NULL ? what : "") < 0)
        return;
    /* Padding wipes what a longer previous line left behind. */
    fprintf(f, "\r%-*s", PROGRESS_WIDTH, line);
    if (done == total)
        fputc('\n', f);
    fflush(f);
}
