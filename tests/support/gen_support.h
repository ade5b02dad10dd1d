/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the code generator's tests (test_gen*.c, test_*_args.c): a valid spec for a
 * built-in key kind, one for a custom 16-byte key and one of any primitive and tile, and the
 * generator's answer to a spec (its source, or a refusal with a message). Header-only, so that
 * the support library's sources stay as they are; static inline, so that a program leaving one
 * of them unused compiles without a warning. */
#ifndef MJ_TEST_GEN_SUPPORT_H
#define MJ_TEST_GEN_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "test_support.h"

static inline mj_kernel_spec builtin_spec(mj_key_kind key, size_t value_size) {
    mj_kernel_spec s;
    memset(&s, 0, sizeof s);
    s.primitive = MJ_MERGESORT;
    s.key = key;
    s.order = MJ_ASCENDING;
    s.value_size = value_size;
    s.nt = 256;
    s.vt = 7;
    s.sm = 90;
    return s;
}

static const char custom_source[] =
    "struct pair128 { unsigned long long hi, lo; };\n";
static const char custom_less[] = "a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)";

static inline mj_kernel_spec custom_spec(void) {
    mj_kernel_spec s = builtin_spec(MJ_KEY_CUSTOM, 0);
    s.type_name = "pair128";
    s.type_source = custom_source;
    s.type_size = 16;
    s.type_align = 8;
    s.less = custom_less;
    return s;
}

/* builtin_spec for primitive p with an nt x vt tile. */
static inline mj_kernel_spec primitive_spec(mj_primitive p, mj_key_kind key, size_t value_size,
                                            int nt, int vt) {
    mj_kernel_spec s = builtin_spec(key, value_size);
    s.primitive = p;
    s.nt = nt;
    s.vt = vt;
    return s;
}

/* The generator refuses the spec, with `needle` in its message; `what` names the case. */
static inline void refused(const mj_kernel_spec *s, const char *needle, const char *what) {
    char err[512] = "";
    char *src = NULL;
    size_t len = 0;
    ck_assert_msg(mj__gen_source(s, &src, &len, err, sizeof err) != 0, "%s: accepted", what);
    ck_assert_ptr_null(src);
    ck_assert_msg(strstr(err, needle) != NULL, "%s: '%s' is not in: %s", what, needle, err);
}

/* The generated source of an accepted spec (malloc'd). */
static inline char *generated(const mj_kernel_spec *s) {
    char err[512] = "";
    char *src = NULL;
    size_t len = 0;
    ck_assert_msg(mj__gen_source(s, &src, &len, err, sizeof err) == 0, "%s", err);
    return src;
}

/* What the generator refuses of every primitive that merges two sorted inputs without a
 * blocksort (sorted search, join, set operations): a blocksort tile, a 1024 x 7 tile of
 * smem_key (over the static shared memory), and a custom key without a comparator or with a
 * statement in it. */
static inline void refuses_merge_path_specs(mj_primitive p, mj_key_kind smem_key) {
    const char *name = mj_primitive_name(p);
    char what[128];
    mj_kernel_spec s = primitive_spec(p, MJ_KEY_U32, 0, 128, 11);
    s.bs_nt = 256;
    snprintf(what, sizeof what, "%s with a blocksort tile", name);
    refused(&s, "blocksort", what);
    s = primitive_spec(p, smem_key, 0, 1024, 7);
    snprintf(what, sizeof what, "%s with a tile over the shared memory", name);
    refused(&s, "shared memory", what);
    s = custom_spec();
    s.primitive = p;
    s.less = NULL;
    snprintf(what, sizeof what, "custom %s without less", name);
    refused(&s, "comparator", what);
    s.less = "a.hi < b.hi; }";
    snprintf(what, sizeof what, "custom %s with a statement in less", name);
    refused(&s, "comparator", what);
}

#endif
