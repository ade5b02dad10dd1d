/* SPDX-License-Identifier: Apache-2.0 */
/* Writing the tuning file: see tuning_file.h for the contract and the format. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* newlocale/uselocale, PATH_MAX when built on its own */
#endif

#include "store/tuning_write.h"

#include "base/c_numeric.h"
#include "base/file_io.h"
#include "base/host_alloc.h"
#include "base/strbuf.h"
#include "store/tuning_file.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        const char *bad = mj__tuning_check_device_name(e->device, len, why, sizeof why);
        if (!bad)
            bad = mj__tuning_check_sm(e->sm, why, sizeof why);
        if (!bad)
            bad = mj__tuning_check_tile(e->primitive, clamp_ll(e->key_size),
                                        clamp_ll(e->value_size), e->nt, e->vt, e->bs_nt,
                                        e->gkeys, why, sizeof why);
        if (!bad)
            bad = mj__tuning_check_merge4(e->primitive, e->merge4_log2, why, sizeof why);
        if (!bad && i > 0 && items[i - 1].group == items[i].group &&
            cmp_items(&items[i - 1], &items[i]) == 0)
            bad = "it repeats another entry's device, sm, primitive, key and value size";
        if (bad) {
            mj__set_err(err, errcap, "cannot write tuning file %s: entry %zu: %s", path,
                        items[i].index, bad);
            return -1;
        }
    }
    return 0;
}

/* The file's text, in b; 0, or -1 with err. */
static int format_text(const char *path, const mj_tuning *t, mj_strbuf *b, char *err,
                       size_t errcap)
{
    size_t n = t->count;
    sort_item *items = mj__malloc((n ? n : 1) * sizeof *items);
    if (!items) {
        mj__set_err(err, errcap, "out of memory writing tuning file %s", path);
        return MJ_IO_NO_MEMORY;
    }
    /* Each entry's group is the index of the first entry of its device: quadratic, but a
     * tuning file holds tens of entries. */
    for (size_t i = 0; i < n; i++) {
        const mj_tuning_entry *e = &t->entries[i];
        size_t g = i;
        for (size_t j = 0; j < i; j++)
            if (t->entries[j].sm == e->sm &&
                mj__tuning_same_device(t->entries[j].device, e->device)) {
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
        mj__sb_printf(b, MJ_TUNING_HEADER_WORD " %d\n# written by mergejit %s\n",
                      MJ_TUNING_FORMAT_VERSION, MJ_VERSION_STRING);
        for (size_t i = 0; i < n; i++) {
            const mj_tuning_entry *e = items[i].e;
            if (i == 0 || items[i - 1].group != items[i].group)
                mj__sb_printf(b, "\ndevice %d %.*s\n", e->sm, MJ_TUNING_DEVICE_CAP,
                              e->device);
            mj__sb_printf(b, "tile %s %zu %zu %d %d %d %.2f %d\n",
                          mj_primitive_name(e->primitive), e->key_size, e->value_size, e->nt,
                          e->vt, e->bs_nt, e->gkeys, e->merge4_log2);
        }
        if (b->failed) {
            mj__set_err(err, errcap, "out of memory writing tuning file %s", path);
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
    if (mj__path_split(path, dir, sizeof dir, &base, why, sizeof why) != 0 ||
        mj__dir_ensure_private(dir, why, sizeof why) != 0) {
        mj__set_err(err, errcap, "cannot write tuning file %s: %s", path, why);
        return -1;
    }
    /* Mode 0600; fsync so that a crash after the rename leaves the new file, not an empty
     * one. */
    const mj_span part = {data, len};
    return mj__write_file_atomic(path, dir, base, &part, 1, 0600, MJ_SYNC_FILE, err, errcap);
}

int mj__tuning_write(const char *path, const mj_tuning *t, char *err, size_t errcap)
{
    if (!path || !*path) {
        mj__set_err(err, errcap, "the tuning file path is empty");
        return -1;
    }
    mj_c_numeric loc;
    if (mj__c_numeric_begin(&loc) != 0) {
        mj__set_err(err, errcap, "out of memory writing tuning file %s", path);
        return MJ_IO_NO_MEMORY;
    }
    mj_strbuf b;
    mj__sb_init(&b);
    mj_tuning empty = {0};
    int rc = format_text(path, t ? t : &empty, &b, err, errcap);
    mj__c_numeric_end(&loc);
    if (rc == 0)
        rc = replace_file(path, b.data, b.len, err, errcap);
    mj__sb_free(&b);
    return rc;
}
