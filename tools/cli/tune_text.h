/* SPDX-License-Identifier: Apache-2.0 */
/* What the tuner's two reports (tune_report.c: JSON; tune_svg.c: SVG) share: a growing text
 * buffer written out atomically, and small helpers over points. Internal to mergejit_cli. */
#ifndef MERGEJIT_TOOLS_TUNE_TEXT_H
#define MERGEJIT_TOOLS_TUNE_TEXT_H

#include <stddef.h>

#include "tune.h"

/* A growing string. An allocation failure is remembered and reported once, at the end. */
typedef struct tune_sbuf {
    char *data;
    size_t len, cap;
    int failed;
} tune_sbuf;

void tune_sb_putc(tune_sbuf *b, char c);
void tune_sb_printf(tune_sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Writes the text to `path` through a temporary file and frees it. 0, or -1 after printing
 * why. */
int tune_sb_write(tune_sbuf *b, const char *path);

/* mj_primitive_name, or "unknown". */
const char *tune_primitive_label(mj_primitive p);
/* Non-finite values (a failed timing) are reported as 0, "not measured". */
double tune_finite_or_zero(double v);
/* info->size_count, kept inside gkeys[] whatever the caller filled in. */
int tune_size_count(const tune_run_info *info);

#endif
