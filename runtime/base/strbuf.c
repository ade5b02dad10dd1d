/* SPDX-License-Identifier: Apache-2.0 */
#include "base/strbuf.h"
#include "base/host_alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mj__sb_init(mj_strbuf *sb) { memset(sb, 0, sizeof *sb); }

static int reserve(mj_strbuf *sb, size_t extra) {
    if (sb->failed) return 0;
    if (sb->len + extra + 1 <= sb->cap) return 1;
    size_t cap = sb->cap ? sb->cap : 4096;
    while (cap < sb->len + extra + 1) cap *= 2;
    char *p = mj__realloc(sb->data, cap);
    if (!p) {
        free(sb->data);
        sb->data = NULL;
        sb->failed = 1;
        return 0;
    }
    sb->data = p;
    sb->cap = cap;
    return 1;
}

void mj__sb_append(mj_strbuf *sb, const char *text, size_t n) {
    if (!reserve(sb, n)) return;
    memcpy(sb->data + sb->len, text, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void mj__sb_puts(mj_strbuf *sb, const char *text) { mj__sb_append(sb, text, strlen(text)); }

void mj__sb_printf(mj_strbuf *sb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) { /* an encoding error: fail as for memory, never drop text silently */
        if (!sb->failed) {
            free(sb->data);
            sb->data = NULL;
            sb->failed = 1;
        }
        return;
    }
    if (!reserve(sb, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

char *mj__sb_take(mj_strbuf *sb, size_t *len) {
    char *p = sb->failed ? NULL : sb->data ? sb->data : mj__calloc(1, 1);
    if (len) *len = p ? sb->len : 0;
    mj__sb_init(sb);
    return p;
}

void mj__sb_free(mj_strbuf *sb) {
    free(sb->data);
    mj__sb_init(sb);
}
