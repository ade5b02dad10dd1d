/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the tuning file: see tuning_file.h for the contract and the format. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* newlocale/uselocale, O_CLOEXEC when built on its own */
#endif

#include "store/tuning_parse.h"

#include "base/c_numeric.h"
#include "base/file_io.h"
#include "base/host_alloc.h"
#include "store/tuning_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILE_SIZE ((size_t)64 << 20) /* far beyond any real tuning file */
#define MAX_FIELDS 10                    /* "tile" and its 8 fields, plus one to see extras */
#define SHOWN 40                         /* at most this much of a bad token in a message */

typedef struct token {
    const char *p;
    size_t n;
} token;

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The width to print a token with: bad tokens may be long (a foreign file's line). */
static int shown(token t)
{
    return (int)(t.n < SHOWN ? t.n : SHOWN);
}

static int token_is(token t, const char *s)
{
    return t.n == strlen(s) && memcmp(t.p, s, t.n) == 0;
}

/* Splits [p, end) at spaces and tabs into at most max tokens; returns how many there are,
 * max + 1 standing for "more than max". */
static size_t split(const char *p, const char *end, token *tok, size_t max)
{
    size_t n = 0;
    for (;;) {
        while (p < end && is_blank(*p))
            p++;
        if (p == end)
            return n;
        if (n == max)
            return max + 1;
        tok[n].p = p;
        while (p < end && !is_blank(*p))
            p++;
        tok[n].n = (size_t)(p - tok[n].p);
        n++;
    }
}

/* Decimal digits only (no sign, no spaces). 0 with *v, -1 when not a number, -2 when larger
 * than INT_MAX. */
static int parse_int(token t, long long *v)
{
    if (t.n == 0)
        return -1;
    long long x = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.p[i] < '0' || t.p[i] > '9')
            return -1;
        if (x <= INT_MAX)
            x = x * 10 + (t.p[i] - '0');
    }
    if (x > INT_MAX)
        return -2;
    *v = x;
    return 0;
}

/* A plain decimal number, optionally with an exponent: no sign, hex, "inf" or "nan".
 * Returns 0 with *v (possibly infinite, which the caller rejects), or -1. */
static int parse_number(token t, double *v)
{
    char buf[64];
    if (t.n == 0 || t.n >= sizeof buf || !((t.p[0] >= '0' && t.p[0] <= '9') || t.p[0] == '.'))
        return -1;
    for (size_t i = 0; i < t.n; i++) {
        char c = t.p[i];
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' ||
              c == '-'))
            return -1;
    }
    memcpy(buf, t.p, t.n);
    buf[t.n] = '\0';
    char *end;
    errno = 0;
    double x = strtod(buf, &end);
    if (end != buf + t.n)
        return -1;
    *v = errno == ERANGE && x != 0 ? HUGE_VAL : x;
    return 0;
}

typedef struct parse_state {
    const char *name;
    size_t line;
    int have_device;
    char device[MJ_TUNING_DEVICE_CAP];
    int sm;
    int version; /* the header's: 1 or 2 */
    char *err;
    size_t errcap;
} parse_state;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int line_err(parse_state *s, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    mj__set_err(s->err, s->errcap, "tuning file %s, line %zu: %s", s->name, s->line, what);
    return -1;
}

/* Reads integer field `what` of a line; 0 with *v, or -1 with the error set. */
static int int_field(parse_state *s, token t, const char *what, long long *v)
{
    int rc = parse_int(t, v);
    if (rc == -1)
        return line_err(s, "%s '%.*s' is not a number", what, shown(t), t.p);
    if (rc == -2)
        return line_err(s, "%s %.*s is out of range", what, shown(t), t.p);
    return 0;
}

/* "device SM NAME": the line is [p, end), already past leading blanks. */
static int parse_device(parse_state *s, const char *p, const char *end)
{
    token tok[2];
    size_t n = split(p, end, tok, 2);
    if (n < 2)
        return line_err(s, "a device line needs an sm and a name (device SM NAME)");
    long long sm;
    if (int_field(s, tok[1], "sm", &sm) != 0)
        return -1;
    char why[256];
    if (mj__tuning_check_sm(sm, why, sizeof why))
        return line_err(s, "%s", why);
    const char *name = tok[1].p + tok[1].n;
    while (name < end && is_blank(*name))
        name++;
    const char *name_end = end;
    while (name_end > name && is_blank(name_end[-1]))
        name_end--;
    size_t len = (size_t)(name_end - name);
    if (len == 0)
        return line_err(s, "a device line needs a name after the sm (device SM NAME)");
    if (mj__tuning_check_device_name(name, len, why, sizeof why))
        return line_err(s, "%s", why);
    memcpy(s->device, name, len);
    s->device[len] = '\0';
    s->sm = (int)sm;
    s->have_device = 1;
    return 0;
}

/* "tile PRIMITIVE KEY_SIZE VALUE_SIZE NT VT BS_NT GKEYS MERGE4" (version 1: no MERGE4). */
static int parse_tile(parse_state *s, const char *p, const char *end, mj_tuning *out)
{
    static const char *const names[] = {"key_size", "value_size", "nt", "vt", "bs_nt"};
    token tok[MAX_FIELDS];
    size_t n = split(p, end, tok, MAX_FIELDS);
    size_t fields = s->version == 1 ? 7 : 8;
    if (n != fields + 1)
        return line_err(s,
                        "a tile line needs %zu fields (PRIMITIVE KEY_SIZE VALUE_SIZE NT VT BS_NT "
                        "GKEYS%s), not %s%zu",
                        fields, s->version == 1 ? "" : " MERGE4",
                        n > fields + 1 ? "more than " : "", n > fields + 1 ? fields : n - 1);
    if (!s->have_device)
        return line_err(s, "a tile line comes before any device line");

    char prim_name[16];
    mj_primitive prim = MJ_PRIMITIVE_COUNT;
    if (tok[1].n < sizeof prim_name) {
        memcpy(prim_name, tok[1].p, tok[1].n);
        prim_name[tok[1].n] = '\0';
        prim = mj_primitive_parse(prim_name);
    }
    if (prim == MJ_PRIMITIVE_COUNT)
        return line_err(s, "unknown primitive '%.*s' (mergesort, merge, segsort or locality)",
                        shown(tok[1]), tok[1].p);
    long long v[5];
    for (int i = 0; i < 5; i++)
        if (int_field(s, tok[2 + i], names[i], &v[i]) != 0)
            return -1;
    double gkeys;
    if (parse_number(tok[7], &gkeys) != 0)
        return line_err(s, "gkeys '%.*s' is not a finite number >= 0", shown(tok[7]),
                        tok[7].p);
    long long merge4 = 0;
    if (s->version > 1 && int_field(s, tok[8], "merge4", &merge4) != 0)
        return -1;
    char why[256];
    if (mj__tuning_check_tile(prim, v[0], v[1], v[2], v[3], v[4], gkeys, why, sizeof why) ||
        mj__tuning_check_merge4(prim, merge4, why, sizeof why))
        return line_err(s, "%s", why);
    if (mj__tuning_find(out, s->device, s->sm, prim, (size_t)v[0], (size_t)v[1]))
        return line_err(s, "a second tile for %s, key_size %lld, value_size %lld on this device",
                        prim_name, v[0], v[1]);

    mj_tuning_entry e;
    memset(&e, 0, sizeof e);
    memcpy(e.device, s->device, sizeof e.device);
    e.sm = s->sm;
    e.primitive = prim;
    e.key_size = (size_t)v[0];
    e.value_size = (size_t)v[1];
    e.nt = (int)v[2];
    e.vt = (int)v[3];
    e.bs_nt = (int)v[4];
    e.gkeys = gkeys;
    e.merge4_log2 = (int)merge4;
    if (mj__tuning_set(out, &e) != 0) { /* an append: no entry is alike (above) */
        line_err(s, "out of memory");
        return MJ_IO_NO_MEMORY;
    }
    return 0;
}

/* One line after the header, without its end of line. */
static int parse_line(parse_state *s, const char *p, const char *end, mj_tuning *out)
{
    if (memchr(p, '\0', (size_t)(end - p)))
        return line_err(s, "has a NUL byte (this is not a text file)");
    while (p < end && is_blank(*p))
        p++;
    if (p == end || *p == '#')
        return 0;
    token kw;
    if (split(p, end, &kw, 1) == 0) /* cannot happen: p is not blank */
        return 0;
    if (token_is(kw, "device"))
        return parse_device(s, p, end);
    if (token_is(kw, "tile"))
        return parse_tile(s, p, end, out);
    return line_err(s, "unknown keyword '%.*s' (device or tile)", shown(kw), kw.p);
}

/* The first line: 0 with *version when it is our header (version 1 or 2), else -1 with err. */
static int check_header(const char *p, const char *end, const char *name, int *version,
                        char *err, size_t errcap)
{
    token tok[2];
    size_t n = memchr(p, '\0', (size_t)(end - p)) ? 0 : split(p, end, tok, 2);
    long long v = 0;
    int rc = n == 2 && token_is(tok[0], MJ_TUNING_HEADER_WORD) ? parse_int(tok[1], &v) : -1;
    if (rc != -1) {
        if (rc == 0 && v >= 1 && v <= MJ_TUNING_FORMAT_VERSION) {
            *version = (int)v;
            return 0;
        }
        mj__set_err(err, errcap,
                    "%s is tuning format version %.*s; this library reads versions 1 to %d",
                    name, shown(tok[1]), tok[1].p, MJ_TUNING_FORMAT_VERSION);
        return -1;
    }
    mj__set_err(err, errcap,
                "%s is not a mergejit tuning file (its first line is not '" MJ_TUNING_HEADER_WORD
                " %d')",
                name, MJ_TUNING_FORMAT_VERSION);
    return -1;
}

int mj__tuning_parse(const char *text, size_t len, const char *name, mj_tuning *out, char *err,
                     size_t errcap)
{
    memset(out, 0, sizeof *out);
    if (!name)
        name = "(text)";
    if (!text) {
        text = "";
        len = 0;
    }
    parse_state s = {.name = name, .err = err, .errcap = errcap};
    mj_c_numeric loc;
    if (mj__c_numeric_begin(&loc) != 0) {
        mj__set_err(err, errcap, "cannot read tuning file %s: out of memory", name);
        return MJ_IO_NO_MEMORY;
    }
    int rc = 0;
    const char *p = text, *end = text + len;
    for (s.line = 1; rc == 0 && (s.line == 1 || p < end); s.line++) {
        const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        const char *next = nl ? nl + 1 : end;
        const char *line_end = nl ? nl : end;
        if (line_end > p && line_end[-1] == '\r') /* "\r\n" */
            line_end--;
        if (s.line == 1)
            rc = check_header(p, line_end, name, &s.version, err, errcap);
        else
            rc = parse_line(&s, p, line_end, out);
        p = next;
    }
    mj__c_numeric_end(&loc);
    if (rc != 0)
        mj__tuning_free(out);
    return rc;
}

int mj__tuning_read(const char *path, mj_tuning *out, char *err, size_t errcap)
{
    memset(out, 0, sizeof *out);
    /* O_NONBLOCK so that a FIFO at the path cannot hang the open. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT) {
            mj__set_err(err, errcap, "tuning file %s does not exist", path);
            return 1;
        }
        mj__set_err(err, errcap, "cannot open tuning file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        mj__set_err(err, errcap, "cannot stat tuning file %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        mj__set_err(err, errcap, "tuning file %s is not a regular file", path);
        close(fd);
        return -1;
    }
    if ((uint64_t)st.st_size > MAX_FILE_SIZE) {
        mj__set_err(err, errcap, "%s is too large (%lld bytes) to be a tuning file", path,
                    (long long)st.st_size);
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    char *buf = mj__malloc(size ? size : 1);
    if (!buf) {
        mj__set_err(err, errcap, "out of memory reading tuning file %s", path);
        close(fd);
        return MJ_IO_NO_MEMORY;
    }
    ssize_t got = mj__read_full(fd, buf, size); /* fewer when it shrank since fstat */
    int e = errno;
    close(fd);
    if (got < 0) {
        mj__set_err(err, errcap, "cannot read tuning file %s: %s", path, strerror(e));
        free(buf);
        return -1;
    }
    int rc = mj__tuning_parse(buf, (size_t)got, path, out, err, errcap);
    free(buf);
    return rc;
}
