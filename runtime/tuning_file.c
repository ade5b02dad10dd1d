/* The tuning file: see tuning_file.h for the contract and the format.
 *
 * Numbers are read and written in the "C" numeric locale whatever the application has set,
 * so a file written under one locale reads under any other. The writer checks every entry
 * with the reader's rules first, so whatever it writes reads back. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* newlocale/uselocale, O_CLOEXEC, PATH_MAX when built on its own */
#endif

#include "tuning_file.h"

#include "cache.h"
#include "file_io.h"
#include "host_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER_WORD "mergejit-tuning"
#define FORMAT_VERSION 1
#define MAX_FILE_SIZE ((size_t)64 << 20) /* far beyond any real tuning file */
#define MAX_FIELDS 9                     /* "tile" and its 7 fields, plus one to see extras */
#define MAX_GKEYS 1e9 /* Gkeys/s: far beyond any GPU */
#define SHOWN 40                         /* at most this much of a bad token in a message */

/* ---------------------------------------------------------------- the "C" numeric locale */

typedef struct c_numeric {
    locale_t c, old;
} c_numeric;

/* Switches this thread to the "C" numeric locale. 0, or -1 when it cannot be made. */
static int c_numeric_begin(c_numeric *s)
{
    s->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (s->c == (locale_t)0)
        return -1;
    s->old = uselocale(s->c);
    return 0;
}

static void c_numeric_end(c_numeric *s)
{
    uselocale(s->old);
    freelocale(s->c);
}

/* ---------------------------------------------------------------- entries */

/* The device name as stored: bounded, since an entry built by hand may not terminate it. */
static int same_device(const char *a, const char *b)
{
    return strncmp(a, b, MJ_TUNING_DEVICE_CAP) == 0;
}

static mj_tuning_entry *find_entry(const mj_tuning *t, const char *device, int sm,
                                   mj_primitive primitive, size_t key_size, size_t value_size)
{
    if (!t || !device)
        return NULL;
    for (size_t i = 0; i < t->count; i++) {
        mj_tuning_entry *e = &t->entries[i];
        if (e->sm == sm && e->primitive == primitive && e->key_size == key_size &&
            e->value_size == value_size && same_device(e->device, device))
            return e;
    }
    return NULL;
}

/* Appends a copy of e. 0, or -1 when memory ran out (t unchanged). */
static int append_entry(mj_tuning *t, const mj_tuning_entry *e)
{
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        if (cap < t->cap || cap > SIZE_MAX / sizeof *t->entries)
            return -1;
        mj_tuning_entry *p = mj_realloc(t->entries, cap * sizeof *p);
        if (!p)
            return -1;
        t->entries = p;
        t->cap = cap;
    }
    mj_tuning_entry *dst = &t->entries[t->count++];
    *dst = *e;
    dst->device[MJ_TUNING_DEVICE_CAP - 1] = '\0';
    return 0;
}

const mj_tuning_entry *mj_tuning_find(const mj_tuning *t, const char *device, int sm,
                                      mj_primitive primitive, size_t key_size,
                                      size_t value_size)
{
    return find_entry(t, device, sm, primitive, key_size, value_size);
}

int mj_tuning_set(mj_tuning *t, const mj_tuning_entry *e)
{
    mj_tuning_entry *old =
        find_entry(t, e->device, e->sm, e->primitive, e->key_size, e->value_size);
    if (old) {
        *old = *e;
        old->device[MJ_TUNING_DEVICE_CAP - 1] = '\0';
        return 0;
    }
    return append_entry(t, e);
}

void mj_tuning_free(mj_tuning *t)
{
    if (!t)
        return;
    free(t->entries);
    t->entries = NULL;
    t->count = t->cap = 0;
}

/* ---------------------------------------------------------------- validation */

static int is_pow2(long long v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* The rules a tile obeys, shared by the reader and the writer. NULL, or what is wrong
 * (written into why). Sizes arrive as long long so that the reader can pass what it read
 * before narrowing it. */
static const char *check_tile(mj_primitive primitive, long long key_size, long long value_size,
                              long long nt, long long vt, long long bs_nt, double gkeys,
                              char *why, size_t cap)
{
    if (mj_primitive_name(primitive) == NULL)
        snprintf(why, cap, "primitive %d is unknown", (int)primitive);
    else if (key_size < 1 || key_size > 256)
        snprintf(why, cap, "key_size %lld is out of range (1..256)", key_size);
    else if (value_size < 0 || value_size > 64)
        snprintf(why, cap, "value_size %lld is out of range (0..64)", value_size);
    else if (!is_pow2(nt) || nt < 32 || nt > 1024)
        snprintf(why, cap, "nt %lld is not a power of two in 32..1024", nt);
    else if (vt < 1 || vt > 63)
        snprintf(why, cap, "vt %lld is out of range (1..63)", vt);
    else if (bs_nt < nt || bs_nt > 1024 || bs_nt % nt != 0 || !is_pow2(bs_nt / nt))
        snprintf(why, cap, "bs_nt %lld is not nt (%lld) times a power of two, at most 1024",
                 bs_nt, nt);
    else if (!isfinite(gkeys) || gkeys < 0 || gkeys > MAX_GKEYS)
        /* The cap keeps every accepted value short enough to be written and read back. */
        snprintf(why, cap, "gkeys %g is out of range (0 to %g)", gkeys, MAX_GKEYS);
    else
        return NULL;
    return why;
}

static const char *check_sm(long long sm, char *why, size_t cap)
{
    if (sm >= 10 && sm <= 999)
        return NULL;
    snprintf(why, cap, "sm %lld is out of range (10..999)", sm);
    return why;
}

/* A name the reader gives back unchanged: non-empty, terminated within the cap, no control
 * characters (a newline would end the line, a tab would be taken for a separator), no space
 * at either end (the reader drops those). */
static const char *check_device_name(const char *name, size_t len, char *why, size_t cap)
{
    if (len == 0)
        snprintf(why, cap, "the device name is empty");
    else if (len >= MJ_TUNING_DEVICE_CAP)
        snprintf(why, cap, "the device name is %zu bytes long (at most %d)", len,
                 MJ_TUNING_DEVICE_CAP - 1);
    else if (name[0] == ' ' || name[len - 1] == ' ')
        snprintf(why, cap, "the device name '%.*s' starts or ends with a space", (int)len,
                 name);
    else {
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)name[i];
            if (c < 0x20 || c == 0x7f) {
                snprintf(why, cap, "the device name has a control character (byte %zu)", i + 1);
                return why;
            }
        }
        return NULL;
    }
    return why;
}

/* ---------------------------------------------------------------- parsing */

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
    mj_set_err(s->err, s->errcap, "tuning file %s, line %zu: %s", s->name, s->line, what);
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
    if (check_sm(sm, why, sizeof why))
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
    if (check_device_name(name, len, why, sizeof why))
        return line_err(s, "%s", why);
    memcpy(s->device, name, len);
    s->device[len] = '\0';
    s->sm = (int)sm;
    s->have_device = 1;
    return 0;
}

/* "tile PRIMITIVE KEY_SIZE VALUE_SIZE NT VT BS_NT GKEYS". */
static int parse_tile(parse_state *s, const char *p, const char *end, mj_tuning *out)
{
    static const char *const names[] = {"key_size", "value_size", "nt", "vt", "bs_nt"};
    token tok[MAX_FIELDS];
    size_t n = split(p, end, tok, MAX_FIELDS);
    if (n != 8)
        return line_err(s,
                        "a tile line needs 7 fields (PRIMITIVE KEY_SIZE VALUE_SIZE NT VT BS_NT "
                        "GKEYS), not %s%zu",
                        n > 8 ? "more than " : "", n > 8 ? (size_t)7 : n - 1);
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
    char why[256];
    if (check_tile(prim, v[0], v[1], v[2], v[3], v[4], gkeys, why, sizeof why))
        return line_err(s, "%s", why);
    if (find_entry(out, s->device, s->sm, prim, (size_t)v[0], (size_t)v[1]))
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
    if (append_entry(out, &e) != 0) {
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

/* The first line: 0 when it is our header, else -1 with err. */
static int check_header(const char *p, const char *end, const char *name, char *err,
                        size_t errcap)
{
    token tok[2];
    size_t n = memchr(p, '\0', (size_t)(end - p)) ? 0 : split(p, end, tok, 2);
    long long version = 0;
    int rc = n == 2 && token_is(tok[0], HEADER_WORD) ? parse_int(tok[1], &version) : -1;
    if (rc != -1) {
        if (rc == 0 && version == FORMAT_VERSION)
            return 0;
        mj_set_err(err, errcap, "%s is tuning format version %.*s; this library reads version %d",
                   name, shown(tok[1]), tok[1].p, FORMAT_VERSION);
        return -1;
    }
    mj_set_err(err, errcap,
               "%s is not a mergejit tuning file (its first line is not '" HEADER_WORD " 1')",
               name);
    return -1;
}

int mj_tuning_parse(const char *text, size_t len, const char *name, mj_tuning *out, char *err,
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
    c_numeric loc;
    if (c_numeric_begin(&loc) != 0) {
        mj_set_err(err, errcap, "cannot read tuning file %s: out of memory", name);
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
            rc = check_header(p, line_end, name, err, errcap);
        else
            rc = parse_line(&s, p, line_end, out);
        p = next;
    }
    c_numeric_end(&loc);
    if (rc != 0)
        mj_tuning_free(out);
    return rc;
}

int mj_tuning_read(const char *path, mj_tuning *out, char *err, size_t errcap)
{
    memset(out, 0, sizeof *out);
    /* O_NONBLOCK so that a FIFO at the path cannot hang the open. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT) {
            mj_set_err(err, errcap, "tuning file %s does not exist", path);
            return 1;
        }
        mj_set_err(err, errcap, "cannot open tuning file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        mj_set_err(err, errcap, "cannot stat tuning file %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        mj_set_err(err, errcap, "tuning file %s is not a regular file", path);
        close(fd);
        return -1;
    }
    if ((uint64_t)st.st_size > MAX_FILE_SIZE) {
        mj_set_err(err, errcap, "%s is too large (%lld bytes) to be a tuning file", path,
                   (long long)st.st_size);
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    char *buf = mj_malloc(size ? size : 1);
    if (!buf) {
        mj_set_err(err, errcap, "out of memory reading tuning file %s", path);
        close(fd);
        return MJ_IO_NO_MEMORY;
    }
    ssize_t got = mj_read_full(fd, buf, size); /* fewer when it shrank since fstat */
    int e = errno;
    close(fd);
    if (got < 0) {
        mj_set_err(err, errcap, "cannot read tuning file %s: %s", path, strerror(e));
        free(buf);
        return -1;
    }
    int rc = mj_tuning_parse(buf, (size_t)got, path, out, err, errcap);
    free(buf);
    return rc;
}

/* ---------------------------------------------------------------- writing */

typedef struct text_buf {
    char *p;
    size_t len, cap;
    int failed; /* out of memory */
} text_buf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(text_buf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap * 2 + (size_t)n + 256;
        char *p = mj_realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
}

/* An entry and the rank of its device section (the device's first appearance in t). */
typedef struct sort_item {
    const mj_tuning_entry *e;
    size_t index, group;
} sort_item;

static int cmp_size(size_t a, size_t b)
{
    return a < b ? -1 : a > b;
}

static int cmp_items(const void *pa, const void *pb)
{
    const sort_item *a = pa, *b = pb;
    int c = cmp_size(a->group, b->group);
    if (!c)
        c = cmp_size((size_t)a->e->primitive, (size_t)b->e->primitive);
    if (!c)
        c = cmp_size(a->e->key_size, b->e->key_size);
    if (!c)
        c = cmp_size(a->e->value_size, b->e->value_size);
    return c;
}

static long long clamp_ll(size_t v)
{
    return v > (unsigned long long)LLONG_MAX ? LLONG_MAX : (long long)v;
}

/* Checks every entry with the reader's rules (and for duplicates, which sorting has made
 * neighbours) so that the file written reads back. 0, or -1 with err. */
static int check_entries(const char *path, const sort_item *items, size_t n, char *err,
                         size_t errcap)
{
    char why[320];
    for (size_t i = 0; i < n; i++) {
        const mj_tuning_entry *e = items[i].e;
        size_t len = strnlen(e->device, MJ_TUNING_DEVICE_CAP);
        const char *bad = check_device_name(e->device, len, why, sizeof why);
        if (!bad)
            bad = check_sm(e->sm, why, sizeof why);
        if (!bad)
            bad = check_tile(e->primitive, clamp_ll(e->key_size), clamp_ll(e->value_size),
                             e->nt, e->vt, e->bs_nt, e->gkeys, why, sizeof why);
        if (!bad && i > 0 && items[i - 1].group == items[i].group &&
            cmp_items(&items[i - 1], &items[i]) == 0)
            bad = "it repeats another entry's device, sm, primitive, key and value size";
        if (bad) {
            mj_set_err(err, errcap, "cannot write tuning file %s: entry %zu: %s", path,
                       items[i].index, bad);
            return -1;
        }
    }
    return 0;
}

/* The file's text, in b; 0, or -1 with err. */
static int format_text(const char *path, const mj_tuning *t, text_buf *b, char *err,
                       size_t errcap)
{
    size_t n = t->count;
    sort_item *items = mj_malloc((n ? n : 1) * sizeof *items);
    if (!items) {
        mj_set_err(err, errcap, "out of memory writing tuning file %s", path);
        return MJ_IO_NO_MEMORY;
    }
    /* Each entry's group is the index of the first entry of its device: quadratic, but a
     * tuning file holds tens of entries. */
    for (size_t i = 0; i < n; i++) {
        const mj_tuning_entry *e = &t->entries[i];
        size_t g = i;
        for (size_t j = 0; j < i; j++)
            if (t->entries[j].sm == e->sm && same_device(t->entries[j].device, e->device)) {
                g = items[j].group;
                break;
            }
        items[i].e = e;
        items[i].index = i;
        items[i].group = g;
    }
    qsort(items, n, sizeof *items, cmp_items);
    int rc = check_entries(path, items, n, err, errcap);
    if (rc == 0) {
        put(b, HEADER_WORD " %d\n# written by mergejit %s\n", FORMAT_VERSION,
            MJ_VERSION_STRING);
        for (size_t i = 0; i < n; i++) {
            const mj_tuning_entry *e = items[i].e;
            if (i == 0 || items[i - 1].group != items[i].group)
                put(b, "\ndevice %d %.*s\n", e->sm, MJ_TUNING_DEVICE_CAP, e->device);
            put(b, "tile %s %zu %zu %d %d %d %.2f\n", mj_primitive_name(e->primitive),
                e->key_size, e->value_size, e->nt, e->vt, e->bs_nt, e->gkeys);
        }
        if (b->failed) {
            mj_set_err(err, errcap, "out of memory writing tuning file %s", path);
            rc = MJ_IO_NO_MEMORY;
        }
    }
    free(items);
    return rc;
}

/* Writes data to a temporary file beside path and renames it into place, creating missing
 * directories first. 0, or -1 with err and no temporary file left. */
static int replace_file(const char *path, const char *data, size_t len, char *err,
                        size_t errcap)
{
    char dir[PATH_MAX], why[PATH_MAX + 128];
    const char *base;
    if (mj_path_split(path, dir, sizeof dir, &base, why, sizeof why) != 0 ||
        mj_cache_ensure_dir(dir, why, sizeof why) != 0) {
        mj_set_err(err, errcap, "cannot write tuning file %s: %s", path, why);
        return -1;
    }
    /* Mode 0600; fsync so that a crash after the rename leaves the new file, not an empty
     * one. */
    const mj_span part = {data, len};
    return mj_write_file_atomic(path, dir, base, &part, 1, 0600, MJ_SYNC_FILE, err, errcap);
}

int mj_tuning_write(const char *path, const mj_tuning *t, char *err, size_t errcap)
{
    if (!path || !*path) {
        mj_set_err(err, errcap, "the tuning file path is empty");
        return -1;
    }
    c_numeric loc;
    if (c_numeric_begin(&loc) != 0) {
        mj_set_err(err, errcap, "out of memory writing tuning file %s", path);
        return MJ_IO_NO_MEMORY;
    }
    text_buf b = {0};
    mj_tuning empty = {0};
    int rc = format_text(path, t ? t : &empty, &b, err, errcap);
    c_numeric_end(&loc);
    if (rc == 0)
        rc = replace_file(path, b.p, b.len, err, errcap);
    free(b.p);
    return rc;
}

/* ---------------------------------------------------------------- the default path */

int mj_tuning_default_path(char *out, size_t cap, char *err, size_t errcap)
{
    const char *v;
    int n;
    if ((v = getenv("MERGEJIT_TUNING")) != NULL && *v)
        n = snprintf(out, cap, "%s", v);
    else if ((v = getenv("XDG_CONFIG_HOME")) != NULL && v[0] == '/') /* relative: ignored */
        n = snprintf(out, cap, "%s/mergejit/tuning", v);
    else if ((v = getenv("HOME")) != NULL && *v)
        n = snprintf(out, cap, "%s/.config/mergejit/tuning", v);
    else {
        mj_set_err(err, errcap,
                   "no tuning file path: none of MERGEJIT_TUNING, XDG_CONFIG_HOME, HOME is set");
        if (cap > 0)
            out[0] = '\0';
        return -1;
    }
    if (n < 0 || (size_t)n >= cap) {
        mj_set_err(err, errcap, "the tuning file path (%d bytes) does not fit in %zu bytes", n,
                   cap);
        if (cap > 0)
            out[0] = '\0';
        return -1;
    }
    return 0;
}
