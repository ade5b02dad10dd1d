/* SPDX-License-Identifier: Apache-2.0 */
/* A growable string for building generated source, messages and text files. Internal. */
#ifndef MJ_STRBUF_H
#define MJ_STRBUF_H

#include <stddef.h>

typedef struct mj_strbuf {
    char *data;  /* NUL-terminated while ok */
    size_t len;
    size_t cap;
    int failed;  /* an allocation failed; data is then freed and NULL */
} mj_strbuf;

void mj__sb_init(mj_strbuf *sb);
void mj__sb_append(mj_strbuf *sb, const char *text, size_t n);
void mj__sb_puts(mj_strbuf *sb, const char *text);
void mj__sb_printf(mj_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the buffer over (NULL when an allocation failed) and resets sb. */
char *mj__sb_take(mj_strbuf *sb, size_t *len);
void mj__sb_free(mj_strbuf *sb);

#endif
