/* Helpers of the code generator's tests (test_gen*.c): a valid spec for a built-in key kind and
 * one for a custom 16-byte key. Header-only, so that the support library's sources stay as they
 * are; static inline, so that a program leaving one of them unused compiles without a warning. */
#ifndef MJ_TEST_GEN_SUPPORT_H
#define MJ_TEST_GEN_SUPPORT_H

#include <string.h>

#include "gen.h"

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

#endif
