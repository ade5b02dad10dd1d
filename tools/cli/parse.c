/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing of option values: counts, integers, seeds, orders, key types, targets. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* a * b into *r; 0 on success, -1 on overflow. */
static int mul_u64(uint64_t a, uint64_t b, uint64_t *r)
{
    if (a != 0 && b > UINT64_MAX / a)
        return -1;
    *r = a * b;
    return 0;
}

/* Reads decimal digits (with '_' allowed between two digits) at *p into *value, counting them
 * in *ndigits. Returns -1 on overflow. */
static int read_digits(const char **p, uint64_t *value, int *ndigits)
{
    const char *s = *p;
    uint64_t v = *value;
    int n = 0;
    for (;;) {
        if (isdigit((unsigned char)*s)) {
            unsigned d = (unsigned)(*s - '0');
            if (v > (UINT64_MAX - d) / 10)
                return -1;
            v = v * 10 + d;
            n++;
            s++;
        } else if (*s == '_' && n > 0 && isdigit((unsigned char)s[1])) {
            s++;
        } else {
            break;
        }
    }
    *p = s;
    *value = v;
    *ndigits = n;
    return 0;
}

/* K, M, G, T (binary), optionally followed by "i" and/or "B"; 1 when there is no suffix.
 * Returns 0 for an unknown suffix. */
static uint64_t suffix_multiplier(const char *s)
{
    uint64_t m;
    switch (*s) {
    case '\0': return 1;
    case 'k': case 'K': m = (uint64_t)1 << 10; break;
    case 'm': case 'M': m = (uint64_t)1 << 20; break;
    case 'g': case 'G': m = (uint64_t)1 << 30; break;
    case 't': case 'T': m = (uint64_t)1 << 40; break;
    default: return 0;
    }
    s++;
    if (*s == 'i')
        s++;
    if (*s == 'B')
        s++;
    return *s == '\0' ? m : 0;
}

int cli_parse_size(const char *s, uint64_t *out)
{
    const char *p = s;
    uint64_t mant = 0;
    int nint = 0, nfrac = 0;

    if (read_digits(&p, &mant, &nint) != 0 || nint == 0)
        return -1;

    if (*p == '^') { /* base^exponent */
        uint64_t exponent = 0, v = 1;
        int nexp = 0;
        p++;
        if (read_digits(&p, &exponent, &nexp) != 0 || nexp == 0 || *p != '\0')
            return -1;
        for (uint64_t k = 0; k < exponent; k++) {
            if (mul_u64(v, mant, &v) != 0)
                return -1;
            if (v == 0 || v == 1)
                break; /* 0^k and 1^k stay put */
        }
        *out = v;
        return 0;
    }

    if (*p == '.') {
        p++;
        if (read_digits(&p, &mant, &nfrac) != 0)
            return -1;
    }
    long exp10 = 0;
    if (*p == 'e' || *p == 'E') {
        uint64_t e = 0;
        int nexp = 0;
        p++;
        if (*p == '+')
            p++;
        if (read_digits(&p, &e, &nexp) != 0 || nexp == 0 || e > 40)
            return -1;
        exp10 = (long)e;
    }
    uint64_t mult = suffix_multiplier(p);
    if (mult == 0)
        return -1;

    uint64_t v;
    if (mul_u64(mant, mult, &v) != 0)
        return -1;
    long scale = exp10 - nfrac;
    for (; scale > 0; scale--)
        if (mul_u64(v, 10, &v) != 0)
            return -1;
    for (; scale < 0; scale++) {
        if (v % 10 != 0)
            return -1; /* not a whole number */
        v /= 10;
    }
    *out = v;
    return 0;
}

int cli_parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    if (!isdigit((unsigned char)s[0]) && !(s[0] == '-' && isdigit((unsigned char)s[1])))
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_int_list(const char *s, long lo, long hi, long *out, int cap)
{
    int n = 0;
    while (*s) {
        char item[32];
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= sizeof item || n == cap)
            return -1;
        memcpy(item, s, len);
        item[len] = '\0';
        if (cli_parse_int(item, lo, hi, &out[n++]) != 0)
            return -1;
        s += len;
        if (*s == ',' && *++s == '\0')
            return -1; /* a trailing comma */
    }
    return n ? n : -1;
}

int cli_parse_primitives(const char *s, mj_primitive *out)
{
    int n = 0;
    while (*s) {
        char item[32];
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= sizeof item)
            return -1;
        memcpy(item, s, len);
        item[len] = '\0';
        mj_primitive p = mj_primitive_parse(item);
        if (p == MJ_PRIMITIVE_COUNT)
            return -1;
        for (int i = 0; i < n; i++)
            if (out[i] == p)
                return -1;
        out[n++] = p;
        s += len;
        if (*s == ',' && *++s == '\0')
            return -1;
    }
    return n ? n : -1;
}

const char *cli_primitive_names(void)
{
    static char list[256]; /* filled once; the names are fixed */
    if (!list[0])
        for (int p = 0; p < MJ_PRIMITIVE_COUNT; p++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", p ? ", " : "",
                     mj_primitive_name((mj_primitive)p));
    return list;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    int base = 10;
    const char *digits = s;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        digits = s + 2;
    }
    if (!isxdigit((unsigned char)digits[0]))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(digits, &end, base);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int cli_parse_order(const char *s, mj_order *out)
{
    if (strcmp(s, "asc") == 0 || strcmp(s, "ascending") == 0) {
        *out = MJ_ASCENDING;
        return 0;
    }
    if (strcmp(s, "desc") == 0 || strcmp(s, "descending") == 0) {
        *out = MJ_DESCENDING;
        return 0;
    }
    return -1;
}

int cli_parse_builtin_kind(const char *s, mj_key_kind *out)
{
    mj_key_kind k = mj_key_kind_parse(s);
    if (k == MJ_KEY_KIND_COUNT || k == MJ_KEY_CUSTOM)
        return -1;
    *out = k;
    return 0;
}

int cli_key_type(const char *cmd, const char *s, mj_key_kind *out)
{
    if (mj_key_kind_parse(s) == MJ_KEY_CUSTOM)
        return cli_usage_error(cmd, "custom key types are not offered by '%s' (they need "
                                    "CUDA source; use the library API)", cmd);
    if (cli_parse_builtin_kind(s, out) != 0)
        return cli_usage_error(cmd, "unknown key type '%s' (use one of: %s)", s,
                               cli_builtin_kind_list());
    return CLI_OK;
}

int cli_parse_sm(const char *s, int *out)
{
    long v;
    if (strncmp(s, "sm_", 3) == 0)
        s += 3;
    else if (strncmp(s, "sm", 2) == 0)
        s += 2;
    const char *dot = strchr(s, '.');
    if (dot != NULL) { /* "9.0" */
        char major[8];
        size_t len = (size_t)(dot - s);
        long minor;
        if (len == 0 || len >= sizeof major)
            return -1;
        memcpy(major, s, len);
        major[len] = '\0';
        if (cli_parse_int(major, 1, 99, &v) != 0 || cli_parse_int(dot + 1, 0, 9, &minor) != 0)
            return -1;
        *out = (int)(v * 10 + minor);
        return 0;
    }
    if (cli_parse_int(s, 10, 999, &v) != 0)
        return -1;
    *out = (int)v;
    return 0;
}

const char *cli_builtin_kind_list(void)
{
    static char list[128];
    if (list[0] == '\0') {
        size_t used = 0;
        for (int k = 0; k < (int)MJ_KEY_CUSTOM; k++) {
            const char *name = mj_key_kind_name((mj_key_kind)k);
            if (name == NULL)
                continue;
            size_t len = strlen(name);
            if (used + len + 2 > sizeof list)
                break;
            if (used > 0)
                list[used++] = ' ';
            memcpy(list + used, name, len);
            used += len;
            list[used] = '\0';
        }
    }
    return list;
}

const char *cli_order_name(mj_order order)
{
    return order == MJ_DESCENDING ? "desc" : "asc";
}
