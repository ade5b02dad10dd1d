/* SPDX-License-Identifier: Apache-2.0 */
/* The reports' text buffer and shared helpers: see tune_text.h. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "tune_text.h"

/* ---------------------------------------------------------------- text in memory */

static int sb_reserve(tune_sbuf *b, size_t extra)
{
    if (b->failed)
        return -1;
    if (b->cap - b->len > extra)
        return 0;
    size_t cap = b->cap > 0 ? b->cap : 4096;
    while (cap - b->len <= extra) {
        if (cap > SIZE_MAX / 2) {
            b->failed = 1;
            return -1;
        }
        cap *= 2;
    }
    char *grown = realloc(b->data, cap);
    if (grown == NULL) {
        b->failed = 1;
        return -1;
    }
    b->data = grown;
    b->cap = cap;
    return 0;
}

void tune_sb_putc(tune_sbuf *b, char c)
{
    if (sb_reserve(b, 1) == 0) {
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
    }
}

void tune_sb_printf(tune_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if (sb_reserve(b, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

int tune_sb_write(tune_sbuf *b, const char *path)
{
    int rc = -1;
    if (b->failed) {
        fprintf(stderr, "mergejit tune: out of host memory while writing '%s'\n", path);
    } else {
        rc = cli_write_file(path, b->data != NULL ? b->data : "", b->len);
    }
    free(b->data);
    return rc;
}

/* ---------------------------------------------------------------- helpers over points */

const char *tune_primitive_label(mj_primitive p)
{
    const char *name = mj_primitive_name(p);
    return name != NULL ? name : "unknown";
}

double tune_finite_or_zero(double v)
{
    return isfinite(v) ? v : 0.0;
}

int tune_size_count(const tune_run_info *info)
{
    if (info->size_count < 0)
        return 0;
    return info->size_count < TUNE_MAX_SIZES ? info->size_count : TUNE_MAX_SIZES;
}
