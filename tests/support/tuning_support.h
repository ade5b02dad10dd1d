/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the tuning file's tests (test_tuning_*.c): entries built field by field, a sample
 * table, and comparisons that fail the test. Header-only, so that the support library's sources
 * stay as they are; static inline, so that a program leaving some of them unused compiles
 * without a warning. */
#ifndef MJ_TEST_TUNING_SUPPORT_H
#define MJ_TEST_TUNING_SUPPORT_H

#include <check.h>

#include "test_support.h"
#include "store/tuning_file.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static inline mj_tuning_entry entry(const char *device, int sm, mj_primitive p, size_t key_size,
                                    size_t value_size, int nt, int vt, int bs_nt, double gkeys)
{
    mj_tuning_entry e;
    memset(&e, 0, sizeof e);
    snprintf(e.device, sizeof e.device, "%s", device);
    e.sm = sm;
    e.primitive = p;
    e.key_size = key_size;
    e.value_size = value_size;
    e.nt = nt;
    e.vt = vt;
    e.bs_nt = bs_nt;
    e.gkeys = gkeys;
    return e;
}

static inline void set_ok(mj_tuning *t, mj_tuning_entry e)
{
    ck_assert_int_eq(mj__tuning_set(t, &e), 0);
}

static inline void assert_same_entry(const mj_tuning_entry *got, const mj_tuning_entry *want)
{
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got->device, want->device);
    ck_assert_int_eq(got->sm, want->sm);
    ck_assert_int_eq(got->primitive, want->primitive);
    ck_assert_uint_eq(got->key_size, want->key_size);
    ck_assert_uint_eq(got->value_size, want->value_size);
    ck_assert_int_eq(got->nt, want->nt);
    ck_assert_int_eq(got->vt, want->vt);
    ck_assert_int_eq(got->bs_nt, want->bs_nt);
    ck_assert_int_eq(got->merge4_log2, want->merge4_log2);
    /* The file keeps two decimals. */
    ck_assert_msg(fabs(got->gkeys - round(want->gkeys * 100) / 100) < 1e-9, "gkeys %.17g for %.17g",
                  got->gkeys, want->gkeys);
}

/* Every entry of want is in got, equal, and got has no others. */
static inline void assert_same_tuning(const mj_tuning *got, const mj_tuning *want)
{
    ck_assert_uint_eq(got->count, want->count);
    for (size_t i = 0; i < want->count; i++) {
        const mj_tuning_entry *w = &want->entries[i];
        assert_same_entry(mj__tuning_find(got, w->device, w->sm, w->primitive, w->key_size,
                                          w->value_size),
                          w);
    }
}

static inline void fill_sample(mj_tuning *t)
{
    set_ok(t, entry("NVIDIA H100 80GB HBM3", 90, MJ_MERGE, 8, 8, 128, 9, 128, 0));
    mj_tuning_entry e = entry("NVIDIA H100 80GB HBM3", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, 20.41);
    e.merge4_log2 = 24; /* its 4-way threshold: 2^24 bytes */
    set_ok(t, e);
    set_ok(t, entry("NVIDIA A100-SXM4-40GB", 80, MJ_SEGMENTED_SORT, 4, 4, 128, 15, 256, 3.14159));
    set_ok(t, entry("NVIDIA H100 80GB HBM3", 90, MJ_MERGESORT, 4, 4, 256, 15, 256, 11.006));
    set_ok(t, entry("NVIDIA H100 80GB HBM3", 90, MJ_LOCALITY_SORT, 256, 64, 32, 1, 1024, 0.5));
    set_ok(t, entry("NVIDIA A100-SXM4-40GB", 80, MJ_MERGESORT, 8, 0, 1024, 63, 1024, 1234.567));
    /* Same name, another sm: a device of its own. */
    set_ok(t, entry("NVIDIA H100 80GB HBM3", 89, MJ_MERGESORT, 1, 0, 64, 7, 64, 7));
    set_ok(t, entry("Odd  name\xc3\xa9 with #hash", 75, MJ_MERGESORT, 2, 0, 512, 3, 1024, 1e6));
}

#endif
