/* SPDX-License-Identifier: Apache-2.0 */
/* The tuning file: see tuning_file.h for the contract and the format. This file holds what
 * the reader (tuning_parse.c) and the writer (tuning_write.c) share: the entries, the rules an
 * entry obeys, and the default path.
 *
 * Numbers are read and written in the "C" numeric locale whatever the application has set
 * (base/c_numeric.h), so a file written under one locale reads under any other. The writer
 * checks every entry with the reader's rules first, so whatever it writes reads back. */
#include "store/tuning_file.h"

#include "base/file_io.h"
#include "base/host_alloc.h"
#include "gen.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GKEYS 1e9 /* Gkeys/s: far beyond any GPU */

/* ---------------------------------------------------------------- entries */

int mj__tuning_same_device(const char *a, const char *b)
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
            e->value_size == value_size && mj__tuning_same_device(e->device, device))
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
        mj_tuning_entry *p = mj__realloc(t->entries, cap * sizeof *p);
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

const mj_tuning_entry *mj__tuning_find(const mj_tuning *t, const char *device, int sm,
                                       mj_primitive primitive, size_t key_size,
                                       size_t value_size)
{
    return find_entry(t, device, sm, primitive, key_size, value_size);
}

int mj__tuning_set(mj_tuning *t, const mj_tuning_entry *e)
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

void mj__tuning_free(mj_tuning *t)
{
    if (!t)
        return;
    free(t->entries);
    t->entries = NULL;
    t->count = t->cap = 0;
}

/* ---------------------------------------------------------------- validation */

const char *mj__tuning_check_tile(mj_primitive primitive, long long key_size,
                                  long long value_size, long long nt, long long vt,
                                  long long bs_nt, double gkeys, char *why, size_t cap)
{
    if (mj__tile_bounds_check(primitive, key_size, value_size, nt, vt, bs_nt, why, cap))
        return why;
    if (!isfinite(gkeys) || gkeys < 0 || gkeys > MAX_GKEYS) {
        /* The cap keeps every accepted value short enough to be written and read back. */
        snprintf(why, cap, "gkeys %g is out of range (0 to %g)", gkeys, MAX_GKEYS);
        return why;
    }
    return NULL;
}

const char *mj__tuning_check_merge4(mj_primitive primitive, long long merge4_log2, char *why,
                                    size_t cap)
{
    int merge4 = mj__primitive_traits(primitive)->merge4;
    if (merge4_log2 == 0 || (merge4 && merge4_log2 >= 1 && merge4_log2 <= 62)) return NULL;
    if (merge4)
        snprintf(why, cap, "merge4_log2 %lld is out of range (0, or 1 to 62)", merge4_log2);
    else
        snprintf(why, cap, "merge4_log2 is for mergesort only (%s takes 0, not %lld)",
                 mj_primitive_name(primitive), merge4_log2);
    return why;
}

const char *mj__tuning_check_sm(long long sm, char *why, size_t cap)
{
    if (sm >= 10 && sm <= 999)
        return NULL;
    snprintf(why, cap, "sm %lld is out of range (10..999)", sm);
    return why;
}

const char *mj__tuning_check_device_name(const char *name, size_t len, char *why,
                                         size_t cap)
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

/* ---------------------------------------------------------------- the default path */

int mj__tuning_default_path(char *out, size_t cap, char *err, size_t errcap)
{
    return mj__env_path(out, cap, "MERGEJIT_TUNING", "XDG_CONFIG_HOME", "mergejit/tuning",
                        ".config/mergejit/tuning", "tuning file", err, errcap);
}
