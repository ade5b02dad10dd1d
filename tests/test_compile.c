/* SPDX-License-Identifier: Apache-2.0 */
/* NVRTC compiles the generated source (runtime/driver/compile.h): every built-in key kind for
 * sm_75, sm_80 and sm_90 with the default tiles, ptxas reporting every kernel of the primitive
 * and no spills or stack frame (mergesort for every kind; merge, segmented and locality sort
 * for a few; reduce and scan for u32, u64, f64 and 12- and 16-byte structs with their own
 * operators; lbs, expand and move over i32 and i64 offsets with 1- to 64-byte values; sorted
 * search over built-in keys and a 16-byte struct; bulk remove and insert; set operations over
 * built-in keys and a 16-byte struct with 0- to 64-byte values); custom types; comparator and
 * type errors reported with NVRTC's log; mergesort's waits for the kernel before it (sm_90 PTX:
 * ahead of every global access); custom keys stored as words, padding included (sm_90 PTX);
 * the choice of target; the cache key; the ptxas report parser; and the module's build
 * (core/loader.c), its kernels as separate programs on several threads: the same bytes as one
 * after another, a compile error reported once, a program that spills under the register caps
 * built again without them. Needs NVRTC (required on CI), no GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/compile.h"
#include "core/loader.h"
#include "core/tile_choice.h"
#include "driver/dl_nvrtc.h"
#include "gen.h"
#include "kernel_program.h"
#include "store/kernel_pack.h"
#include "test_support.h"

#define ERR_CAP 32768

static const mj_nvrtc_api *nvrtc(void) {
    char err[1024] = "";
    const mj_nvrtc_api *nv = mj__nvrtc_load(err, sizeof err);
    ck_assert_msg(nv != NULL, "NVRTC is required for this test: %s", err);
    return nv;
}

static mj_kernel_spec primitive_spec(mj_primitive primitive, mj_key_kind key, mj_order order,
                                     size_t value_size, int sm) {
    mj_kernel_spec s;
    memset(&s, 0, sizeof s);
    s.primitive = primitive;
    s.key = key;
    s.order = order;
    s.value_size = value_size;
    s.sm = sm;
    mj__default_tile(primitive, sm, mj_key_kind_size(key), value_size, &s.nt, &s.vt, &s.bs_nt);
    return s;
}

static mj_kernel_spec spec_for(mj_key_kind key, mj_order order, size_t value_size, int sm) {
    return primitive_spec(MJ_MERGESORT, key, order, value_size, sm);
}

static char *gen(const mj_kernel_spec *s) {
    char err[512] = "";
    char *src = NULL;
    size_t len = 0;
    ck_assert_msg(mj__gen_source(s, &src, &len, err, sizeof err) == 0, "generate: %s", err);
    return src;
}

static mj_target cubin_target(const mj_nvrtc_api *nv, int sm) {
    mj_target t;
    char err[512] = "";
    ck_assert_msg(mj__choose_target(nv, sm, &t, err, sizeof err) == 0, "target sm_%d: %s", sm,
                  err);
    ck_assert_int_eq(t.sm, sm);
    ck_assert_int_eq(t.ptx, 0);
    return t;
}

/* Compiles spec for its sm to a cubin and checks ptxas's report: every kernel of the
 * primitive, no spills and no stack frame (a register array the compiler did not unroll goes
 * to local memory without a spill: a 4-way merge once lost a quarter of its speed so).
 * Returns the most registers a kernel uses. */
static int compile_clean(const mj_nvrtc_api *nv, const mj_kernel_spec *s, const char *what) {
    char *src = gen(s);
    mj_target t = cubin_target(nv, s->sm);
    char *err = malloc(ERR_CAP);
    ck_assert_ptr_nonnull(err);
    err[0] = '\0';
    void *bin = NULL;
    size_t size = 0;
    char *log = NULL;
    mj_status st = mj__compile(nv, src, t, &bin, &size, &log, err, ERR_CAP);
    ck_assert_msg(st == MJ_OK, "%s (NT %d, VT %d, sm_%d): %s: %s", what, s->nt, s->vt, s->sm,
                  mj_status_name(st), err);
    ck_assert_ptr_nonnull(bin);
    ck_assert_uint_gt(size, 4);
    ck_assert_msg(memcmp(bin, "\177ELF", 4) == 0, "%s: the cubin is not an ELF file", what);
    ck_assert_ptr_nonnull(log);
    long spills = -1, frame = -1;
    int regs = -1;
    int kernels = mj__ptxas_report(log, &spills, &frame, &regs);
    int want = __builtin_popcount(mj__primitive_kernels(s->primitive));
    ck_assert_msg(kernels == want, "%s (sm_%d): ptxas reported %d kernels, not %d; log:\n%s",
                  what, s->sm, kernels, want, log);
    ck_assert_msg(spills == 0, "%s (NT %d, VT %d, sm_%d): %ld bytes of spills; log:\n%s", what,
                  s->nt, s->vt, s->sm, spills, log);
    ck_assert_msg(frame == 0, "%s (NT %d, VT %d, sm_%d): %ld bytes of stack frame; log:\n%s",
                  what, s->nt, s->vt, s->sm, frame, log);
    ck_assert_msg(regs > 0 && regs <= 255, "%s: %d registers", what, regs);
    free(log);
    free(bin);
    free(err);
    free(src);
    return regs;
}

/* ---------------------------------------------------------------- every built-in kind */

START_TEST(builtin_kinds_compile_clean)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_key_kind kind = (mj_key_kind)_i;
    static const int sms[] = {75, 80, 90};
    /* 4-byte values descending (for floats a different comparator), and ascending on sm_90,
     * whose 4-way merge takes a launch bound for both; the others ascending. */
    static const struct {
        size_t value_size;
        mj_order order;
    } values[] = {{0, MJ_ASCENDING}, {4, MJ_DESCENDING}, {4, MJ_ASCENDING}, {8, MJ_ASCENDING}};
    for (size_t i = 0; i < sizeof sms / sizeof *sms; ++i)
        for (size_t v = 0; v < sizeof values / sizeof *values; ++v) {
            mj_order order = values[v].order;
            if (values[v].value_size == 4 && order == MJ_ASCENDING && sms[i] != 90) continue;
            mj_kernel_spec s = spec_for(kind, order, values[v].value_size, sms[i]);
            char what[96];
            snprintf(what, sizeof what, "%s keys, %zu-byte values, %s", mj_key_kind_name(kind),
                     values[v].value_size, order == MJ_DESCENDING ? "descending" : "ascending");
            compile_clean(nv, &s, what);
        }
}
END_TEST

/* Merge, segmented sort and locality sort (the primitives before MJ_REDUCE): a few key and
 * value sizes on every target. */
START_TEST(primitives_compile_clean)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_primitive primitive = (mj_primitive)_i;
    static const int sms[] = {75, 80, 90};
    static const struct {
        mj_key_kind key;
        size_t value_size;
    } cases[] = {{MJ_KEY_U32, 0}, {MJ_KEY_U32, 4}, {MJ_KEY_U64, 0}, {MJ_KEY_U64, 4},
                 {MJ_KEY_U64, 8}, {MJ_KEY_F32, 4}, {MJ_KEY_F64, 0}};
    for (size_t i = 0; i < sizeof sms / sizeof *sms; ++i)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
            mj_kernel_spec s =
                primitive_spec(primitive, cases[c].key, MJ_ASCENDING, cases[c].value_size, sms[i]);
            char what[96];
            snprintf(what, sizeof what, "%s of %s keys, %zu-byte values",
                     mj_primitive_name(primitive), mj_key_kind_name(cases[c].key),
                     cases[c].value_size);
            compile_clean(nv, &s, what);
        }
}
END_TEST

/* Reduce, scan and the segmented reduction: built-in keys with the default operator or max,
 * and custom structs of 12 and 16 bytes with non-commutative operators (affine maps and 2x2
 * matrices over integers mod 2^32), with the default tiles on every target: no spills. */
START_TEST(reduce_scan_compile_clean)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_primitive primitive = (mj_primitive)_i;
    static const int sms[] = {75, 80, 90};
    static const struct {
        mj_key_kind key;
        const char *name, *source, *op, *identity;
        size_t size, align;
    } cases[] = {
        {MJ_KEY_U32, NULL, NULL, NULL, NULL, 0, 0},
        {MJ_KEY_U32, NULL, NULL, "max(a, b)", "0", 0, 0},
        {MJ_KEY_U64, NULL, NULL, NULL, NULL, 0, 0},
        {MJ_KEY_F64, NULL, NULL, "fmax(a, b)", "-INFINITY", 0, 0},
        {MJ_KEY_CUSTOM, "affine", "struct affine { unsigned m, c, tag; };\n",
         "affine{a.m * b.m, a.c * b.m + b.c, a.tag + b.tag}", "affine{1, 0, 0}", 12, 4},
        {MJ_KEY_CUSTOM, "mat2", "struct __align__(16) mat2 { unsigned a, b, c, d; };\n",
         "mat2{a.a * b.a + a.b * b.c, a.a * b.b + a.b * b.d, a.c * b.a + a.d * b.c, "
         "a.c * b.b + a.d * b.d}", "mat2{1, 0, 0, 1}", 16, 16},
    };
    for (size_t i = 0; i < sizeof sms / sizeof *sms; ++i)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
            mj_kernel_spec s = primitive_spec(primitive, cases[c].key, MJ_ASCENDING, 0, sms[i]);
            s.op = cases[c].op;
            s.identity = cases[c].identity;
            if (cases[c].key == MJ_KEY_CUSTOM) {
                s.type_name = cases[c].name;
                s.type_source = cases[c].source;
                s.type_size = cases[c].size;
                s.type_align = cases[c].align;
                mj__default_tile(primitive, sms[i], s.type_size, 0, &s.nt, &s.vt, &s.bs_nt);
            }
            char what[160];
            snprintf(what, sizeof what, "%s of %s, %s", mj_primitive_name(primitive),
                     cases[c].name ? cases[c].name : mj_key_kind_name(cases[c].key),
                     cases[c].op ? cases[c].op : "a + b");
            compile_clean(nv, &s, what);
        }
}
END_TEST

/* Load-balancing search (no values), interval expand and interval move (1-, 4-, 8-, 12-, 16-
 * and 64-byte values) over i32 and i64 offsets, with the default tiles on every target: no
 * spills. */
START_TEST(lbs_family_compile_clean)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_primitive primitive = (mj_primitive)_i;
    static const int sms[] = {75, 80, 90};
    static const mj_key_kind keys[] = {MJ_KEY_I32, MJ_KEY_I64};
    static const size_t values[] = {1, 4, 8, 12, 16, 64};
    size_t nv_count = primitive == MJ_LOAD_BALANCE ? 1 : sizeof values / sizeof *values;
    for (size_t i = 0; i < sizeof sms / sizeof *sms; ++i)
        for (size_t k = 0; k < 2; ++k)
            for (size_t v = 0; v < nv_count; ++v) {
                size_t value_size = primitive == MJ_LOAD_BALANCE ? 0 : values[v];
                mj_kernel_spec s =
                    primitive_spec(primitive, keys[k], MJ_ASCENDING, value_size, sms[i]);
                char what[96];
                snprintf(what, sizeof what, "%s of %s offsets, %zu-byte values",
                         mj_primitive_name(primitive), mj_key_kind_name(keys[k]), value_size);
                compile_clean(nv, &s, what);
            }
}
END_TEST

/* Sorted search and join (the search's kernels and the key-independent scans and lbs): 1-, 2-,
 * 4- and 8-byte built-in keys in both orders (floats through their total order) and a 16-byte
 * struct with a two-field comparator, with the default tiles on every target: no spills. */
START_TEST(search_compile_clean)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_primitive primitive = (mj_primitive)_i;
    static const int sms[] = {75, 80, 90};
    static const struct {
        mj_key_kind key;
        mj_order order;
    } cases[] = {{MJ_KEY_U8, MJ_ASCENDING},  {MJ_KEY_F16, MJ_DESCENDING},
                 {MJ_KEY_U32, MJ_ASCENDING}, {MJ_KEY_F32, MJ_DESCENDING},
                 {MJ_KEY_I64, MJ_ASCENDING}, {MJ_KEY_F64, MJ_ASCENDING},
                 {MJ_KEY_CUSTOM, MJ_ASCENDING}};
    for (size_t i = 0; i < sizeof sms / sizeof *sms; ++i)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
            mj_kernel_spec s =
                primitive_spec(primitive, cases[c].key, cases[c].order, 0, sms[i]);
            if (cases[c].key == MJ_KEY_CUSTOM) {
                s.type_name = "pair";
                s.type_source = "struct pair { unsigned long long hi, lo; };\n";
                s.type_size = 16;
                s.type_align = 8;
                s.less = "a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)";
                mj__default_tile(primitive, sms[i], 16, 0, &s.nt, &s.vt, &s.bs_nt);
            }
            char what[96];
            snprintf(what, sizeof what, "%s of %s keys, %s", mj_primitive_name(primitive),
                     mj_key_kind_name(cases[c].key),
                     cases[c].order == MJ_DESCENDING ? "descending" : "ascending");
            compile_clean(nv, &s, what);
        }
}
END_TEST

/* Set operations and select (_i): 1-, 2-, 4- and 8-byte built-in keys in both orders and a
 * 16-byte struct with a two-field comparator, alone and with 4-, 12- and 64-byte values, with
 * the default tiles on every target: no spills. Select with a selection operator. */
START_TEST(setops_compile_clean)
{
    mj_primitive primitive = (mj_primitive)_i;
    const mj_nvrtc_api *nv = nvrtc();
    static const int sms[] = {75, 80, 90};
    static const struct {
        mj_key_kind key;
        mj_order order;
        size_t value_size;
    } cases[] = {{MJ_KEY_U8, MJ_ASCENDING, 0},   {MJ_KEY_F16, MJ_DESCENDING, 4},
                 {MJ_KEY_U32, MJ_ASCENDING, 0},  {MJ_KEY_U32, MJ_ASCENDING, 4},
                 {MJ_KEY_F32, MJ_DESCENDING, 12}, {MJ_KEY_I64, MJ_ASCENDING, 64},
                 {MJ_KEY_F64, MJ_ASCENDING, 8},  {MJ_KEY_CUSTOM, MJ_ASCENDING, 12}};
    for (size_t i = 0; i < sizeof sms / sizeof *sms; ++i)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
            size_t vs = cases[c].value_size;
            mj_kernel_spec s = primitive_spec(primitive, cases[c].key, cases[c].order, vs,
                                              sms[i]);
            if (primitive == MJ_SELECT)
                s.op = cases[c].key == MJ_KEY_F16      ? "a.bits != 0"
                       : cases[c].key == MJ_KEY_CUSTOM ? "a.lo != 0"
                                                       : "a != 0";
            if (cases[c].key == MJ_KEY_CUSTOM) {
                s.type_name = "pair";
                s.type_source = "struct pair { unsigned long long hi, lo; };\n";
                s.type_size = 16;
                s.type_align = 8;
                s.less = "a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)";
                mj__default_tile(primitive, sms[i], 16, vs, &s.nt, &s.vt, &s.bs_nt);
            }
            char what[96];
            snprintf(what, sizeof what, "%s of %s keys, %s, %zu-byte values",
                     mj_primitive_name(primitive), mj_key_kind_name(cases[c].key),
                     cases[c].order == MJ_DESCENDING ? "descending" : "ascending", vs);
            compile_clean(nv, &s, what);
        }
}
END_TEST

/* Select of 4-byte keys on sm_90 keeps three blocks of 512 a multiprocessor (40 registers or
 * fewer) with the selection operators of the tests, the demo and the benchmark: the one
 * look-back's ordered window scan once made ptxas give `a % 100 < 1` 62 registers, two blocks,
 * and select a fifth slower on an H200 (TUNING.md, Select). */
START_TEST(select_keeps_its_occupancy)
{
    /* At 512 x 11 (the tile of 4-byte keys with values) a thread holds its keys alone across
     * the count look-back, the ballots waiting in shared memory: 32 registers, four blocks of
     * 512 a multiprocessor. A selection operator that took 62 (an ordered scan of the
     * look-back's window) or 40 (the ballots in registers) cost select a fifth and a tenth. */
    const mj_nvrtc_api *nv = nvrtc();
    static const char *const ops[] = {"a % 100 < 1", "a % 100 < 99", "(a & 1) == 0", "a != 0"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; ++i) {
        mj_kernel_spec s = primitive_spec(MJ_SELECT, MJ_KEY_U32, MJ_ASCENDING, 0, 90);
        s.op = ops[i];
        s.nt = s.bs_nt = 512;
        s.vt = 11;
        char what[96];
        snprintf(what, sizeof what, "select of u32 keys by %s", ops[i]);
        int regs = compile_clean(nv, &s, what);
        ck_assert_msg(regs <= 32, "%s: %d registers, more than the 32 that four blocks of 512 "
                      "a multiprocessor allow", what, regs);
    }
}
END_TEST

/* Bulk remove and insert: u32 and u64 keys and a 12-byte struct, alone and with 4-, 12- and
 * 64-byte values, with the default tiles on every target: no spills. */
START_TEST(bulk_compile_clean)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_primitive primitive = (mj_primitive)_i;
    static const int sms[] = {75, 80, 90};
    static const mj_key_kind keys[] = {MJ_KEY_U32, MJ_KEY_U64, MJ_KEY_CUSTOM};
    static const size_t values[] = {0, 4, 12, 64};
    for (size_t i = 0; i < sizeof sms / sizeof *sms; ++i)
        for (size_t k = 0; k < 3; ++k)
            for (size_t v = 0; v < 4; ++v) {
                mj_kernel_spec s = primitive_spec(primitive, keys[k], MJ_ASCENDING, values[v],
                                                  sms[i]);
                if (keys[k] == MJ_KEY_CUSTOM) {
                    s.type_name = "rec12";
                    s.type_source = "struct rec12 { unsigned a, b, c; };";
                    s.type_size = 12;
                    s.type_align = 4;
                    mj__default_tile(primitive, sms[i], 12, values[v], &s.nt, &s.vt, &s.bs_nt);
                }
                char what[96];
                snprintf(what, sizeof what, "%s of %s keys, %zu-byte values",
                         mj_primitive_name(primitive),
                         keys[k] == MJ_KEY_CUSTOM ? "rec12" : mj_key_kind_name(keys[k]),
                         values[v]);
                compile_clean(nv, &s, what);
            }
}
END_TEST

/* ---------------------------------------------------------------- custom types and errors */

static const char u128_source[] = "struct u128 { unsigned long long hi, lo; };\n";
static const char u128_less[] = "a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)";

/* A mergesort of a custom struct key on sm_90 with its default tile. */
static mj_kernel_spec struct_spec(const char *name, const char *source, size_t size,
                                  size_t align, const char *less, size_t value_size) {
    mj_kernel_spec s = spec_for(MJ_KEY_CUSTOM, MJ_ASCENDING, value_size, 90);
    s.type_name = name;
    s.type_source = source;
    s.type_size = size;
    s.type_align = align;
    s.less = less;
    mj__default_tile(MJ_MERGESORT, 90, size, value_size, &s.nt, &s.vt, &s.bs_nt);
    return s;
}

static mj_kernel_spec u128_spec(size_t size, size_t align) {
    return struct_spec("u128", u128_source, size, align, u128_less, 0);
}

/* A 4-byte struct compared by `less`. */
static mj_kernel_spec k4_spec(const char *less, size_t value_size) {
    return struct_spec("k4", "struct k4 { unsigned x; };\n", 4, 4, less, value_size);
}

START_TEST(custom_struct_compiles)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_kernel_spec s = u128_spec(16, 8);
    compile_clean(nv, &s, "custom 16-byte struct");
    s.value_size = 8;
    mj__default_tile(MJ_MERGESORT, 90, 16, 8, &s.nt, &s.vt, &s.bs_nt);
    compile_clean(nv, &s, "custom 16-byte struct with 8-byte values");
    /* A struct with a nested struct and arrays (a numpy record's shape): the 4-way partition's
     * address-space hint once broke NVVM on such a key pointer ("Broken function found"). */
    s = u128_spec(32, 8);
    s.type_name = "rec";
    s.type_source = "struct inner { short p; unsigned char q[2][3]; };\n"
                    "struct __align__(8) rec { unsigned char a; float pos[3]; inner tag; "
                    "double w; };\n";
    s.less = "a.w < b.w || (a.w == b.w && a.tag.p > b.tag.p)";
    compile_clean(nv, &s, "custom 32-byte record with a nested struct and arrays");
    /* A 4-byte struct takes the register caps of 4-byte keys on sm_90 (gen.c capped_blocks):
     * a cheap comparator compiles under them as it is, with and without values. */
    s = k4_spec("a.x < b.x", 0);
    compile_clean(nv, &s, "custom 4-byte struct");
    s = k4_spec("a.x < b.x", 4);
    compile_clean(nv, &s, "custom 4-byte struct with 4-byte values");
}
END_TEST

/* Compiling s must fail with MJ_ERR_COMPILE and a message holding each of `needles`. */
static void compile_fails(const mj_nvrtc_api *nv, const mj_kernel_spec *s,
                          const char *const *needles, size_t n_needles) {
    char *src = gen(s);
    mj_target t = cubin_target(nv, s->sm);
    char *err = malloc(ERR_CAP);
    ck_assert_ptr_nonnull(err);
    err[0] = '\0';
    void *bin = (void *)1;
    size_t size = 99;
    char *log = NULL;
    mj_status st = mj__compile(nv, src, t, &bin, &size, &log, err, ERR_CAP);
    ck_assert_msg(st == MJ_ERR_COMPILE, "expected MJ_ERR_COMPILE, got %s", mj_status_name(st));
    ck_assert_ptr_null(bin);
    ck_assert_uint_eq(size, 0);
    ck_assert_ptr_nonnull(log);
    ck_assert_msg(log[0] != '\0', "NVRTC gave no log");
    /* The message carries NVRTC's log. */
    ck_assert_msg(strstr(err, log) != NULL || strlen(err) == ERR_CAP - 1,
                  "the message does not hold the log:\n%s\nlog:\n%s", err, log);
    for (size_t i = 0; i < n_needles; ++i)
        ck_assert_msg(strstr(err, needles[i]) != NULL, "'%s' is not in the message:\n%s",
                      needles[i], err);
    /* Without a log pointer it fails the same way. */
    err[0] = '\0';
    st = mj__compile(nv, src, t, &bin, &size, NULL, err, ERR_CAP);
    ck_assert_int_eq(st, MJ_ERR_COMPILE);
    ck_assert_ptr_null(bin);
    ck_assert_str_ne(err, "");
    free(log);
    free(err);
    free(src);
}

START_TEST(comparator_syntax_error)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_kernel_spec s = spec_for(MJ_KEY_U32, MJ_ASCENDING, 0, 90);
    s.less = "a < < b";
    static const char *const needles[] = {"comparator", "error"};
    compile_fails(nv, &s, needles, 2);
    /* An unknown name in a custom type's comparator too. */
    mj_kernel_spec c = u128_spec(16, 8);
    c.less = "a.hi < b.middle";
    static const char *const needles2[] = {"comparator", "middle"};
    compile_fails(nv, &c, needles2, 2);
}
END_TEST

START_TEST(custom_wrong_size)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_kernel_spec s = u128_spec(12, 4);
    static const char *const needles[] = {"as declared", "u128"};
    compile_fails(nv, &s, needles, 2);
    /* The right size with the wrong alignment. */
    s = u128_spec(16, 16);
    compile_fails(nv, &s, needles, 2);
    /* A type source that does not compile is reported against "type_source". */
    s = u128_spec(16, 8);
    s.type_source = "struct u128 { unsigned long long hi, lo }\n";
    static const char *const needles2[] = {"type_source"};
    compile_fails(nv, &s, needles2, 1);
}
END_TEST

/* ---------------------------------------------------------------- targets and keys */

START_TEST(choose_target)
{
    const mj_nvrtc_api *nv = nvrtc();
    ck_assert_int_gt(nv->arch_count, 0);
    int newest = 0, oldest = 1 << 30;
    for (int i = 0; i < nv->arch_count; ++i) {
        if (nv->arch_list[i] > newest) newest = nv->arch_list[i];
        if (nv->arch_list[i] < oldest) oldest = nv->arch_list[i];
    }
    mj_target t;
    char err[512];

    for (int sm = 75; sm <= 90; sm += 5) {
        if (sm == 85) continue;
        t = cubin_target(nv, sm);
        ck_assert_int_eq(t.sm, sm);
    }

    err[0] = '\0';
    t.sm = t.ptx = -5;
    ck_assert_int_eq(mj__choose_target(nv, 70, &t, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "sm_70") != NULL, "message: %s", err);
    ck_assert_int_eq(mj__choose_target(nv, oldest - 1, &t, err, sizeof err), -1);

    err[0] = '\0';
    ck_assert_msg(mj__choose_target(nv, 200, &t, err, sizeof err) == 0, "sm_200: %s", err);
    ck_assert_int_eq(t.ptx, 1);
    ck_assert_int_eq(t.sm, newest);
    ck_assert_int_eq(mj__choose_target(nv, newest, &t, err, sizeof err), 0);
    ck_assert_int_eq(t.ptx, 0);
    ck_assert_int_eq(t.sm, newest);
    ck_assert_int_eq(mj__choose_target(nv, newest + 1, &t, err, sizeof err), 0);
    ck_assert_int_eq(t.ptx, 1);
    ck_assert_int_eq(t.sm, newest);

    /* Options: cubins get ptxas's report, PTX does not. */
    const char *opts[8];
    char storage[64];
    mj_target cubin = {90, 0}, ptx = {newest, 1};
    int n = mj__compile_options(nv, cubin, opts, storage);
    ck_assert_int_ge(n, 2);
    ck_assert_ptr_null(opts[n]);
    ck_assert_str_eq(opts[0], "--gpu-architecture=sm_90");
    int verbose = 0;
    for (int i = 0; i < n; ++i) verbose |= strstr(opts[i], "ptxas-options=-v") != NULL;
    ck_assert(verbose);
    /* NVRTC 12.9 and later cache compiles themselves and then print no ptxas report. */
    int no_cache = 0;
    for (int i = 0; i < n; ++i) no_cache |= strcmp(opts[i], "--no-cache") == 0;
    ck_assert_int_eq(no_cache, nv->major > 12 || (nv->major == 12 && nv->minor >= 9));
    /* NVRTC 12.4 and later parse without the runtime API's declarations. */
    int minimal = 0;
    for (int i = 0; i < n; ++i) minimal |= strcmp(opts[i], "--minimal") == 0;
    ck_assert_int_eq(minimal, nv->major > 12 || (nv->major == 12 && nv->minor >= 4));
    n = mj__compile_options(nv, ptx, opts, storage);
    char want[64];
    snprintf(want, sizeof want, "--gpu-architecture=compute_%d", newest);
    ck_assert_str_eq(opts[0], want);
    for (int i = 0; i < n; ++i) ck_assert(strstr(opts[i], "ptxas") == NULL);
}
END_TEST

START_TEST(compile_to_ptx)
{
    /* What a device newer than NVRTC gets: PTX text for the newest target, finished by the
     * driver. */
    const mj_nvrtc_api *nv = nvrtc();
    char err[ERR_CAP / 8];
    mj_target t;
    ck_assert_int_eq(mj__choose_target(nv, 1000, &t, err, sizeof err), 0);
    ck_assert_int_eq(t.ptx, 1);
    mj_kernel_spec s = spec_for(MJ_KEY_U32, MJ_ASCENDING, 4, 90);
    char *src = gen(&s);
    void *bin = NULL;
    size_t size = 0;
    mj_status st = mj__compile(nv, src, t, &bin, &size, NULL, err, sizeof err);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), err);
    ck_assert_uint_gt(size, 0);
    const char *text = bin;
    ck_assert_msg(strstr(text, ".entry mj_merge") != NULL, "no mj_merge entry in the PTX");
    ck_assert(strstr(text, ".entry mj_partition") != NULL);
    ck_assert(strstr(text, ".entry mj_merge4") != NULL);
    ck_assert(strstr(text, ".entry mj_partition4(") != NULL);
    ck_assert(strstr(text, ".entry mj_partition4_one(") != NULL);
    ck_assert(strstr(text, ".entry mj_blocksort") != NULL);
    free(bin);
    free(src);
}
END_TEST

/* The PTX of entry `name` (up to the next entry), or NULL. */
static char *ptx_entry(const char *ptx, const char *name) {
    char head[64];
    snprintf(head, sizeof head, ".entry %s(", name);
    const char *at = strstr(ptx, head);
    if (!at) return NULL;
    const char *end = strstr(at + 1, ".entry ");
    return strndup(at, end ? (size_t)(end - at) : strlen(at));
}

/* Mergesort's pass kernels may be launched overlapped with the kernel before (MERGEJIT_PDL):
 * compiled for sm_90, each waits for it (griddepcontrol.wait) before its first global load or
 * store, and lets the next start; the blocksort, launched plainly, lets the next start. PTX
 * for sm_80 has neither instruction. */
START_TEST(mergesort_overlap_instructions)
{
    const mj_nvrtc_api *nv = nvrtc();
    char err[ERR_CAP / 8];
    static const char *const passes[] = {"mj_partition", "mj_merge", "mj_partition4",
                                         "mj_partition4_one", "mj_merge4"};
    enum { PASSES = sizeof passes / sizeof *passes };
    for (int sm = 80; sm <= 90; sm += 10) {
        mj_kernel_spec s = spec_for(MJ_KEY_U32, MJ_ASCENDING, 4, sm);
        char *src = gen(&s);
        mj_target t = {sm, 1};
        void *bin = NULL;
        size_t size = 0;
        mj_status st = mj__compile(nv, src, t, &bin, &size, NULL, err, sizeof err);
        ck_assert_msg(st == MJ_OK, "sm_%d: %s: %s", sm, mj_status_name(st), err);
        for (size_t k = 0; k <= PASSES; ++k) {
            const char *name = k < PASSES ? passes[k] : "mj_blocksort";
            char *body = ptx_entry(bin, name);
            ck_assert_msg(body != NULL, "sm_%d: no %s in the PTX", sm, name);
            char *wait = strstr(body, "griddepcontrol.wait");
            char *allow = strstr(body, "griddepcontrol.launch_dependents");
            if (sm < 90 || k == PASSES) {
                ck_assert_msg(!wait, "sm_%d %s: waits", sm, name);
                ck_assert_msg(!allow == (sm < 90), "sm_%d %s: launch_dependents", sm, name);
            } else {
                ck_assert_msg(wait && allow, "sm_%d %s: no griddepcontrol", sm, name);
                char *load = strstr(body, "ld.global"), *store = strstr(body, "st.global");
                ck_assert_msg(load && wait < load, "%s: a global load before the wait", name);
                ck_assert_msg(store && wait < store, "%s: a global store before the wait", name);
            }
            free(body);
        }
        free(bin);
        free(src);
    }
}
END_TEST

/* Reduce by key: built-in and custom keys with built-in and custom values of 1 to 64 bytes
 * (9 bytes: the look-back's byte copies; over 8: its flag and fence), the default tiles on
 * every target: no spills, no stack frame. A padded custom key is stored in 8-byte words,
 * never byte by byte. */
START_TEST(reduce_by_key_compile_clean)
{
    const mj_nvrtc_api *nv = nvrtc();
    static const int sms[] = {75, 80, 90};
    static const char v64_source[] = "struct v64 { unsigned long long w[8]; };";
    static const char b9_source[] =
        "struct b9 { unsigned char b[9]; };\n"
        "__device__ b9 b9_add(const b9 &x, const b9 &y) {\n"
        "    b9 r;\n"
        "    for (int i = 0; i < 9; ++i) r.b[i] = (unsigned char)(x.b[i] + y.b[i]);\n"
        "    return r;\n"
        "}";
    static const struct {
        mj_key_kind key;
        mj_order order;
        const char *type, *source, *op, *identity;
        size_t value_size;
    } cases[] = {
        {MJ_KEY_U8, MJ_ASCENDING, "unsigned char", NULL, "a + b", "0", 1},
        {MJ_KEY_U32, MJ_ASCENDING, "unsigned", NULL, "a + b", "0", 4},
        {MJ_KEY_F32, MJ_DESCENDING, "float", NULL, "max(a, b)", "-INFINITY", 4},
        {MJ_KEY_F64, MJ_ASCENDING, "double", NULL, "a + b", "0", 8},
        {MJ_KEY_CUSTOM, MJ_ASCENDING, "aff", "struct aff { unsigned m, c; };",
         "aff{a.m * b.m, a.c * b.m + b.c}", "aff{1u, 0u}", 8},
        {MJ_KEY_U32, MJ_ASCENDING, "b9", b9_source, "b9_add(a, b)", "b9{}", 9},
        {MJ_KEY_I64, MJ_ASCENDING, "v64", v64_source,
         "v64{{a.w[0] + b.w[0], a.w[1], a.w[2], a.w[3], a.w[4], a.w[5], a.w[6], b.w[7]}}",
         "v64{}", 64},
    };
    for (size_t i = 0; i < sizeof sms / sizeof *sms; ++i)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
            size_t vs = cases[c].value_size;
            mj_kernel_spec s = primitive_spec(MJ_REDUCE_BY_KEY, cases[c].key, cases[c].order, vs,
                                              sms[i]);
            s.value_type = cases[c].type;
            s.value_type_source = cases[c].source;
            s.op = cases[c].op;
            s.identity = cases[c].identity;
            if (cases[c].key == MJ_KEY_CUSTOM) {
                s.type_name = "pair";
                s.type_source = "struct pair { unsigned long long hi, lo; };\n";
                s.type_size = 16;
                s.type_align = 8;
                s.less = "a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)";
                mj__default_tile(MJ_REDUCE_BY_KEY, sms[i], 16, vs, &s.nt, &s.vt, &s.bs_nt);
            }
            char what[96];
            snprintf(what, sizeof what, "reduce by key of %s keys, %s values",
                     mj_key_kind_name(cases[c].key), cases[c].type);
            compile_clean(nv, &s, what);
        }
    /* The padded key's output is stored in words. */
    mj_kernel_spec s = primitive_spec(MJ_REDUCE_BY_KEY, MJ_KEY_CUSTOM, MJ_ASCENDING, 4, 90);
    s.type_name = "padded";
    s.type_source = "struct padded { unsigned char a; unsigned long long b; };";
    s.type_size = 16;
    s.type_align = 8;
    s.less = "a.a < b.a || (a.a == b.a && a.b < b.b)";
    s.value_type = "unsigned";
    mj__default_tile(s.primitive, 90, 16, 4, &s.nt, &s.vt, &s.bs_nt);
    char *src = gen(&s), err[512];
    void *bin = NULL;
    size_t size = 0;
    mj_status st = mj__compile(nv, src, (mj_target){90, 1}, &bin, &size, NULL, err, sizeof err);
    ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), err);
    char *body = ptx_entry(bin, "mj_reduce_by_key_tiles");
    ck_assert_ptr_nonnull(body);
    ck_assert(strstr(body, "st.global.u64") || strstr(body, "st.global.v2.u64"));
    ck_assert(!strstr(body, "st.global.u8"));
    free(body);
    free(bin);
    free(src);
}
END_TEST

/* Custom keys move as bytes (issue 43): for a struct of a byte, 7 bytes of padding and an
 * 8-byte field, the kernels that write keys store 8-byte words (sm_90 PTX), padding included,
 * never the byte field alone (st.global.u8, as a copy of the struct did). */
START_TEST(custom_keys_store_words)
{
    const mj_nvrtc_api *nv = nvrtc();
    char err[ERR_CAP / 8];
    static const struct {
        mj_primitive p;
        const char *kernels[3];
    } cases[] = {
        {MJ_MERGESORT, {"mj_blocksort", "mj_merge", "mj_merge4"}},
        {MJ_MERGE, {"mj_merge_arrays"}},
        {MJ_SEGMENTED_SORT, {"mj_queue_work"}},
        {MJ_LOCALITY_SORT, {"mj_queue_work"}},
        {MJ_SET_OPS, {"mj_setop_tiles"}},
        {MJ_SELECT, {"mj_select_tiles"}},
        {MJ_BULK_REMOVE, {"mj_remove_tiles"}},
        {MJ_BULK_INSERT, {"mj_insert_tiles"}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        mj_kernel_spec s = primitive_spec(cases[c].p, MJ_KEY_CUSTOM, MJ_ASCENDING, 0, 90);
        s.type_name = "padded";
        s.type_source = "struct padded { unsigned char a; unsigned long long b; };";
        s.type_size = 16;
        s.type_align = 8;
        s.less = "a.a < b.a || (a.a == b.a && a.b < b.b)";
        mj__default_tile(s.primitive, 90, 16, 0, &s.nt, &s.vt, &s.bs_nt);
        char *src = gen(&s);
        mj_target t = {90, 1};
        void *bin = NULL;
        size_t size = 0;
        const char *name = mj_primitive_name(s.primitive);
        mj_status st = mj__compile(nv, src, t, &bin, &size, NULL, err, sizeof err);
        ck_assert_msg(st == MJ_OK, "%s: %s: %s", name, mj_status_name(st), err);
        for (size_t k = 0; k < 3 && cases[c].kernels[k]; ++k) {
            char *body = ptx_entry(bin, cases[c].kernels[k]);
            ck_assert_msg(body != NULL, "%s: no %s in the PTX", name, cases[c].kernels[k]);
            ck_assert_msg(strstr(body, "st.global.u64") || strstr(body, "st.global.v2.u64"),
                          "%s %s: no 8-byte stores", name, cases[c].kernels[k]);
            ck_assert_msg(!strstr(body, "st.global.u8"), "%s %s: stores single bytes", name,
                          cases[c].kernels[k]);
            free(body);
        }
        free(bin);
        free(src);
    }
}
END_TEST

START_TEST(compile_key)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_kernel_spec s = spec_for(MJ_KEY_U32, MJ_ASCENDING, 0, 90);
    char *src = gen(&s);
    char *src_same = gen(&s);
    s.order = MJ_DESCENDING;
    char *src_other = gen(&s);
    mj_target t90 = {90, 0}, t80 = {80, 0}, p90 = {90, 1};
    uint8_t k1[32], k2[32], k3[32], k4[32], k5[32];
    mj__compile_key(nv, t90, src, k1);
    mj__compile_key(nv, t90, src_same, k2);
    mj__compile_key(nv, t90, src_other, k3);
    mj__compile_key(nv, t80, src, k4);
    mj__compile_key(nv, p90, src, k5);
    ck_assert(memcmp(k1, k2, 32) == 0);
    ck_assert_msg(memcmp(k1, k3, 32) != 0, "a different source gives the same key");
    ck_assert_msg(memcmp(k1, k4, 32) != 0, "a different sm gives the same key");
    ck_assert_msg(memcmp(k1, k5, 32) != 0, "PTX and cubin give the same key");
    /* A one-character change at the very end still changes it. */
    size_t len = strlen(src);
    src_same[len - 1] ^= 1;
    mj__compile_key(nv, t90, src_same, k2);
    ck_assert(memcmp(k1, k2, 32) != 0);
    free(src);
    free(src_same);
    free(src_other);
}
END_TEST

START_TEST(ptxas_report_parse)
{
    /* Both spellings of the spill line: older ptxas indents it, NVRTC 13 prefixes it. */
    static const char log[] =
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function 'mj_merge' for 'sm_90'\n"
        "ptxas info    : Function properties for mj_merge\n"
        /* NVRTC 13's ptxas prefixes the line with "ptxas         .     ". */
        "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
        "ptxas info    : Used 64 registers, used 0 barriers, 15360 bytes smem, "
        "400 bytes cmem[0]\n"
        "ptxas info    : Compiling entry function 'mj_partition' for 'sm_90'\n"
        "ptxas info    : Function properties for mj_partition\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 255 registers, used 0 barriers, 400 bytes cmem[0]\n"
        "ptxas info    : Compiling entry function 'mj_blocksort' for 'sm_90'\n"
        "ptxas info    : Function properties for mj_blocksort\n"
        "    40 bytes stack frame, 100 bytes spill stores, 4 bytes spill loads\n"
        "ptxas info    : Used 32 registers, used 1 barriers, 7680 bytes smem, "
        "392 bytes cmem[0]\n";
    long spills = -1, frame = -1;
    int regs = -1;
    ck_assert_int_eq(mj__ptxas_report(log, &spills, &frame, &regs), 3);
    ck_assert_int_eq(spills, 8 + 12 + 100 + 4);
    ck_assert_int_eq(frame, 16 + 40);
    ck_assert_int_eq(regs, 255);

    static const char clean[] =
        "ptxas info    : Function properties for k\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 17 registers\n";
    ck_assert_int_eq(mj__ptxas_report(clean, &spills, &frame, &regs), 1);
    ck_assert_int_eq(spills, 0);
    ck_assert_int_eq(frame, 0);
    ck_assert_int_eq(regs, 17);

    spills = frame = regs = 7;
    ck_assert_int_eq(mj__ptxas_report("", &spills, &frame, &regs), 0);
    ck_assert_int_eq(frame, 0);
    ck_assert_int_eq(spills, 0);
    ck_assert_int_eq(regs, 0);
    ck_assert_int_eq(mj__ptxas_report(NULL, &spills, &frame, &regs), 0);
    ck_assert_int_eq(mj__ptxas_report(log, &spills, NULL, &regs), 3); /* frames not wanted */
    ck_assert_int_eq(spills, 8 + 12 + 100 + 4);
    ck_assert_int_eq(mj__ptxas_report("warning: something\n", &spills, &frame, &regs), 0);
}
END_TEST

/* ---------------------------------------------------------------- the module's build */

static int count_of(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle)) ++n;
    return n;
}

/* Builds s's module (core/loader.c) with `threads` programs at once, no disk cache; checks it
 * succeeds. */
static mj_binary module_build(const mj_nvrtc_api *nv, const mj_kernel_spec *s, mj_target t,
                              int threads) {
    char *why = malloc(ERR_CAP);
    ck_assert_ptr_nonnull(why);
    why[0] = '\0';
    mj_binary b;
    memset(&b, 0, sizeof b);
    mj_status st =
        mj__module_build(nv, t, s, mj__primitive_kernels(s->primitive), NULL, threads, &b, why,
                         ERR_CAP);
    ck_assert_msg(st == MJ_OK, "%s, %d threads: %s: %s", mj_primitive_name(s->primitive),
                  threads, mj_status_name(st), why);
    free(why);
    return b;
}

/* The kernels build as separate programs on several threads: the same bytes as one after
 * another, one image per kernel of the primitive, and ptxas's figures those of the module compiled as one program, whose
 * kernels have the same PTX. */
START_TEST(parallel_build_matches_serial)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_kernel_spec specs[4] = {
        spec_for(MJ_KEY_U32, MJ_ASCENDING, 0, 90),
        primitive_spec(MJ_SEGMENTED_SORT, MJ_KEY_U32, MJ_ASCENDING, 0, 80),
        primitive_spec(MJ_SORTED_SEARCH, MJ_KEY_U32, MJ_ASCENDING, 0, 90),
        u128_spec(16, 8),
    };
    for (int i = 0; i < 4; ++i) {
        const mj_kernel_spec *s = &specs[i];
        char *src = gen(s);
        mj_target t = cubin_target(nv, s->sm);
        mj_binary serial = module_build(nv, s, t, 1);
        mj_binary parallel = module_build(nv, s, t, 4);
        mj_kernel_set kernels = mj__primitive_kernels(s->primitive);
        int count = __builtin_popcount(kernels);
        ck_assert_uint_eq(serial.size, parallel.size);
        ck_assert_msg(memcmp(serial.data, parallel.data, serial.size) == 0,
                      "%s: the parallel build differs from the serial one",
                      mj_primitive_name(s->primitive));
        ck_assert_int_eq(serial.times.programs, count);
        ck_assert_int_eq(serial.times.threads, 1);
        ck_assert_int_eq(parallel.times.threads, (count < 4 ? count : 4));
        ck_assert(parallel.times.slowest_ms > 0 && parallel.times.ptxas_ms > 0 &&
                  parallel.times.frontend_ms > 0);

        mj_kernel_image images[MJ_PACK_MAX];
        char err[256];
        ck_assert_int_eq(mj__unpack_kernels(parallel.data, parallel.size, images, err,
                                            sizeof err), count);
        for (int k = 0, at = 0; k < MJ_KERNELS_MAX; ++k) {
            if (!(kernels & (1u << k))) continue;
            ck_assert_str_eq(images[at].kernel, mj__kernel_name(s->primitive, k));
            ck_assert_msg(images[at].size > 4 && memcmp(images[at].data, "\177ELF", 4) == 0,
                          "%s: not a cubin", images[at].kernel);
            ++at;
        }

        /* The figures of the module as one program. */
        char *whole_err = malloc(ERR_CAP);
        void *bin = NULL;
        size_t size = 0;
        char *log = NULL;
        ck_assert_int_eq(mj__compile(nv, src, t, &bin, &size, &log, whole_err, ERR_CAP), MJ_OK);
        long spills;
        int regs;
        mj__ptxas_report(log, &spills, NULL, &regs);
        ck_assert_int_eq(parallel.meta.registers, regs);
        ck_assert_int_eq(parallel.meta.spill_bytes, spills);
        ck_assert_int_eq(spills, 0);
        free(log);
        free(bin);
        free(whole_err);
        free(serial.data);
        free(parallel.data);
        free(src);
    }
}
END_TEST

/* PTX targets: one NUL-terminated PTX text per kernel, holding that kernel alone. */
START_TEST(parallel_build_ptx)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_kernel_spec s = spec_for(MJ_KEY_U32, MJ_ASCENDING, 4, 90);
    mj_binary b = module_build(nv, &s, (mj_target){90, 1}, 3);
    ck_assert_double_eq(b.times.ptxas_ms, -1);
    ck_assert(b.times.frontend_ms > 0 && b.times.slowest_ms > 0);
    ck_assert_int_eq(b.meta.registers, -1);
    mj_kernel_image images[MJ_PACK_MAX];
    char err[256];
    /* mergesort: the blocksort, a partition and a merge for 2-way passes, and for 4-way ones a
     * merge and two partitions */
    int kernels = __builtin_popcount(mj__primitive_kernels(MJ_MERGESORT));
    ck_assert_int_eq(kernels, 6);
    ck_assert_int_eq(mj__unpack_kernels(b.data, b.size, images, err, sizeof err), kernels);
    for (int i = 0; i < kernels; ++i) {
        const char *text = images[i].data;
        ck_assert_int_eq(text[images[i].size - 1], '\0');
        ck_assert_int_eq(count_of(text, ".entry "), 1);
        char entry[64];
        snprintf(entry, sizeof entry, ".entry %s(", images[i].kernel);
        ck_assert_msg(strstr(text, entry) != NULL, "no %s in its PTX", entry);
    }
    free(b.data);
}
END_TEST

/* A comparator that spills under the register caps (here a remainder, whose blocksort needs
 * about 60 registers against the cap's 40): the module's build compiles that program again
 * without them, so the module has no spills, and the disk cache keeps the rebuilt program
 * under the capped source's key (a second build compiles nothing, and still has none). */
START_TEST(capped_spill_rebuilds_uncapped)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_kernel_spec s = k4_spec("a.x % 1000003u < b.x % 1000003u", 0);
    mj_target t = cubin_target(nv, 90);
    char *why = malloc(ERR_CAP);
    ck_assert_ptr_nonnull(why);
    /* The test means something only if the capped blocksort spills on this NVRTC. */
    char *src = NULL;
    ck_assert_int_eq(mj__gen_program_source(&s, MJ_K_BLOCKSORT, &src, NULL, why, ERR_CAP), 0);
    ck_assert_ptr_nonnull(strstr(src, "#define MJ_BLOCKSORT_MIN_BLOCKS 3"));
    void *bin = NULL;
    size_t size = 0;
    char *log = NULL;
    ck_assert_int_eq(mj__compile(nv, src, t, &bin, &size, &log, why, ERR_CAP), MJ_OK);
    long spills = 0, frame = 0;
    int regs = 0;
    ck_assert_int_eq(mj__ptxas_report(log, &spills, &frame, &regs), 1);
    ck_assert_msg(spills + frame > 0, "the capped blocksort did not spill (%d registers): pick "
                  "a comparator that does on this NVRTC", regs);
    free(log);
    free(bin);
    free(src);

    mj_kernel_set kernels = mj__primitive_kernels(MJ_MERGESORT);
    char *dir = mjt_tmpdir();
    for (int round = 0; round < 2; ++round) {
        mj_binary b;
        ck_assert_int_eq(mj__module_build(nv, t, &s, kernels, dir, 2, &b, why, ERR_CAP), MJ_OK);
        ck_assert_int_eq(b.meta.spill_bytes, 0);
        if (round == 0) {
            /* Every kernel once, and the blocksort again (the 4-way merge may be too). */
            ck_assert_int_gt(b.times.programs, __builtin_popcount(kernels));
            ck_assert_int_eq(b.source, MJ_SOURCE_COMPILED);
        } else {
            ck_assert_int_eq(b.source, MJ_SOURCE_DISK);
        }
        free(b.data);
    }
    mjt_rmtree(dir);
    free(dir);
    free(why);
}
END_TEST

/* A comparator that does not compile fails every program alike: the message is NVRTC's log
 * once, as when the module compiled as one program, through the library too. */
START_TEST(parallel_build_error_reports_log_once)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_kernel_spec s = u128_spec(16, 8);
    s.less = "a.hi < b.middle";
    char *src = gen(&s);
    mj_target t = cubin_target(nv, 90);
    char *why = malloc(ERR_CAP), *whole = malloc(ERR_CAP);
    ck_assert(why && whole);
    mj_binary b;
    ck_assert_int_eq(mj__module_build(nv, t, &s, mj__primitive_kernels(s.primitive), NULL, 3,
                                      &b, why, ERR_CAP),
                     MJ_ERR_COMPILE);
    ck_assert_ptr_null(b.data);
    void *bin = NULL;
    size_t size = 0;
    ck_assert_int_eq(mj__compile(nv, src, t, &bin, &size, NULL, whole, ERR_CAP), MJ_ERR_COMPILE);
    ck_assert_int_eq(count_of(why, "NVRTC could not compile"), 1);
    ck_assert_int_eq(count_of(why, "middle"), count_of(whole, "middle"));
    ck_assert_int_ge(count_of(why, "middle"), 1);
    ck_assert_ptr_nonnull(strstr(why, "comparator"));

    setenv("MERGEJIT_JIT_THREADS", "3", 1);
    char *dir = mjt_tmpdir();
    mj_context *ctx = mjt_compile_context(90, dir);
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_CUSTOM, MJ_ASCENDING);
    d.type_name = "u128";
    d.type_source = u128_source;
    d.type_size = 16;
    d.type_align = 8;
    d.less = "a.hi < b.middle";
    mj_sorter *sorter = NULL;
    ck_assert_int_eq(mj_sorter_create(ctx, &d, &sorter), MJ_ERR_COMPILE);
    const char *msg = mj_context_last_error(ctx);
    ck_assert_int_eq(count_of(msg, "NVRTC could not compile"), 1);
    ck_assert_int_eq(count_of(msg, "middle"), count_of(whole, "middle"));
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
    unsetenv("MERGEJIT_JIT_THREADS");
    free(why);
    free(whole);
    free(src);
}
END_TEST

START_TEST(compile_threads)
{
    setenv("MERGEJIT_JIT_THREADS", "2", 1);
    ck_assert_int_eq(mj__compile_threads(6), 2);
    ck_assert_int_eq(mj__compile_threads(1), 1);
    setenv("MERGEJIT_JIT_THREADS", "0", 1); /* not a cap: the CPUs */
    ck_assert_int_ge(mj__compile_threads(6), 1);
    ck_assert_int_le(mj__compile_threads(6), 6);
    unsetenv("MERGEJIT_JIT_THREADS");
    ck_assert_int_eq(mj__compile_threads(1), 1);
    ck_assert_double_eq(mj__ptxas_ms("ptxas info    : Compile time = 1.5 ms\n"
                                     "ptxas info    : Compile time = 2.25 ms\n"), 3.75);
    ck_assert_double_eq(mj__ptxas_ms("ptxas info    : Used 17 registers\n"), -1);
    ck_assert_double_eq(mj__ptxas_ms(NULL), -1);
}
END_TEST

static Suite *compile_suite(void) {
    Suite *s = suite_create("compile");
    TCase *tc = tcase_create("builtin");
    /* 12 kinds x 3 targets x 3 value sizes; each loop iteration is a forked child. */
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, builtin_kinds_compile_clean, MJ_KEY_U8, MJ_KEY_CUSTOM);
    tcase_add_loop_test(tc, primitives_compile_clean, MJ_MERGE, MJ_REDUCE);
    tcase_add_loop_test(tc, reduce_scan_compile_clean, MJ_REDUCE, MJ_SCAN + 1);
    tcase_add_loop_test(tc, lbs_family_compile_clean, MJ_LOAD_BALANCE, MJ_INTERVAL_EXPAND + 1);
    tcase_add_loop_test(tc, lbs_family_compile_clean, MJ_INTERVAL_MOVE, MJ_INTERVAL_MOVE + 1);
    tcase_add_loop_test(tc, search_compile_clean, MJ_SORTED_SEARCH, MJ_SORTED_SEARCH + 1);
    tcase_add_loop_test(tc, search_compile_clean, MJ_JOIN, MJ_JOIN + 1);
    tcase_add_loop_test(tc, bulk_compile_clean, MJ_BULK_REMOVE, MJ_BULK_INSERT + 1);
    tcase_add_loop_test(tc, setops_compile_clean, MJ_SET_OPS, MJ_SELECT + 1);
    tcase_add_test(tc, reduce_by_key_compile_clean);
    tcase_add_test(tc, select_keeps_its_occupancy);
    suite_add_tcase(s, tc);
    TCase *tr = tcase_create("segmented reduce");
    tcase_set_timeout(tr, 900);
    tcase_add_loop_test(tr, reduce_scan_compile_clean, MJ_SEGMENTED_REDUCE,
                        MJ_SEGMENTED_REDUCE + 1);
    suite_add_tcase(s, tr);
    TCase *tx = tcase_create("custom and errors");
    tcase_set_timeout(tx, 300);
    tcase_add_test(tx, custom_struct_compiles);
    tcase_add_test(tx, comparator_syntax_error);
    tcase_add_test(tx, custom_wrong_size);
    tcase_add_test(tx, compile_to_ptx);
    tcase_add_test(tx, mergesort_overlap_instructions);
    tcase_add_test(tx, custom_keys_store_words);
    suite_add_tcase(s, tx);
    TCase *tt = tcase_create("targets");
    tcase_set_timeout(tt, 120);
    tcase_add_test(tt, choose_target);
    tcase_add_test(tt, compile_key);
    tcase_add_test(tt, ptxas_report_parse);
    tcase_add_test(tt, compile_threads);
    suite_add_tcase(s, tt);
    TCase *tp = tcase_create("parallel build");
    tcase_set_timeout(tp, 300);
    tcase_add_test(tp, parallel_build_matches_serial);
    tcase_add_test(tp, parallel_build_ptx);
    tcase_add_test(tp, parallel_build_error_reports_log_once);
    tcase_add_test(tp, capped_spill_rebuilds_uncapped);
    suite_add_tcase(s, tp);
    return s;
}

int main(void) { return mjt_run(compile_suite(), 1); }
