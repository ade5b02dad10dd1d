/* SPDX-License-Identifier: Apache-2.0 */
/* The code generator (gen/gen.h): every built-in key kind and a range of value sizes generate
 * a self-contained, deterministic translation unit; the spec's fields reach the output; custom
 * types are pasted with their static_asserts; each primitive's source defines exactly its
 * kernels. CPU only. Invalid specs: test_gen_invalid.c; template lists: test_gen_templates.c. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gen_support.h"
#include "primitives/registry.h"
#include "test_support.h"

static const size_t value_sizes[] = {0, 1, 4, 8, 12, 16, 64};
#define N_VALUE_SIZES (sizeof value_sizes / sizeof value_sizes[0])

/* Generates and checks success; the caller frees. */
static char *gen_ok(const mj_kernel_spec *s, size_t *len) {
    char err[512] = "";
    char *src = NULL;
    size_t n = 0;
    int rc = mj__gen_source(s, &src, &n, err, sizeof err);
    ck_assert_msg(rc == 0, "mj__gen_source failed for key %s: %s", mj_key_kind_name(s->key),
                  err);
    ck_assert_ptr_nonnull(src);
    ck_assert_uint_eq(strlen(src), n);
    ck_assert_uint_gt(n, 0);
    if (len) *len = n;
    return src;
}

/* 1 when some line of src starts with prefix. */
static int has_line_starting(const char *src, const char *prefix) {
    size_t plen = strlen(prefix);
    for (const char *p = src; p && *p;) {
        if (strncmp(p, prefix, plen) == 0) return 1;
        p = strchr(p, '\n');
        if (p) ++p;
    }
    return 0;
}

static int outputs_equal(const char *a, size_t alen, const char *b, size_t blen) {
    return alen == blen && memcmp(a, b, alen) == 0;
}

/* ---------------------------------------------------------------- built-in keys */

START_TEST(builtin_kinds_generate)
{
    mj_key_kind kind = (mj_key_kind)_i;
    for (size_t v = 0; v < N_VALUE_SIZES; ++v) {
        mj_kernel_spec s = builtin_spec(kind, value_sizes[v]);
        size_t n1, n2;
        char *a = gen_ok(&s, &n1);
        char *b = gen_ok(&s, &n2);
        ck_assert_msg(outputs_equal(a, n1, b, n2), "%s, %zu-byte values: not deterministic",
                      mj_key_kind_name(kind), value_sizes[v]);
        ck_assert_msg(strstr(a, "extern \"C\"") != NULL, "no extern \"C\"");
        ck_assert_msg(strstr(a, "mj_blocksort(") != NULL, "no mj_blocksort kernel");
        ck_assert_msg(strstr(a, "mj_partition(") != NULL, "no mj_partition kernel");
        ck_assert_msg(strstr(a, "mj_merge(") != NULL, "no mj_merge kernel");
        ck_assert_msg(strstr(a, "mj_partition4(") != NULL, "no mj_partition4 kernel");
        ck_assert_msg(strstr(a, "mj_partition4_one(") != NULL, "no mj_partition4_one kernel");
        ck_assert_msg(strstr(a, "mj_merge4(") != NULL, "no mj_merge4 kernel");
        ck_assert_msg(!has_line_starting(a, "#include \""), "%s, %zu-byte values: a "
                      "#include \"...\" line is left", mj_key_kind_name(kind), value_sizes[v]);
        ck_assert_msg(!has_line_starting(a, "#include"), "an #include line is left");
        /* The spec reaches the source. */
        ck_assert(has_line_starting(a, "#define MJ_NT 256"));
        ck_assert(has_line_starting(a, "#define MJ_VT 7"));
        ck_assert(has_line_starting(a, "#define MJ_BS_NT 256")); /* bs_nt 0: NT */
        ck_assert(has_line_starting(a, "#define MJ_SM 90"));
        char want[64];
        snprintf(want, sizeof want, "#define MJ_HAS_VALUES %d", value_sizes[v] > 0);
        ck_assert_msg(has_line_starting(a, want), "missing '%s'", want);
        ck_assert(has_line_starting(a, "typedef "));
        ck_assert(strstr(a, " mj_key;\n") != NULL);
        ck_assert(strstr(a, "mj_value") != NULL);
        ck_assert_uint_eq(mj__spec_key_size(&s), mj_key_kind_size(kind));
        free(a);
        free(b);
    }
}
END_TEST

START_TEST(spec_changes_output)
{
    mj_key_kind kind = (mj_key_kind)_i;
    mj_kernel_spec base = builtin_spec(kind, 4);
    size_t n0;
    char *src0 = gen_ok(&base, &n0);

    mj_kernel_spec variants[6];
    const char *what[6] = {"NT", "VT", "order", "value size", "sm", "comparator"};
    for (int i = 0; i < 6; ++i) variants[i] = base;
    variants[0].nt = 128;
    variants[1].vt = 9;
    variants[2].order = MJ_DESCENDING;
    variants[3].value_size = 8;
    variants[4].sm = 80;
    variants[5].less = "b < a";
    for (int i = 0; i < 6; ++i) {
        size_t n1;
        char *src1 = gen_ok(&variants[i], &n1);
        ck_assert_msg(!outputs_equal(src0, n0, src1, n1), "%s: changing %s does not change "
                      "the source", mj_key_kind_name(kind), what[i]);
        free(src1);
    }
    free(src0);
}
END_TEST

START_TEST(comparator_is_pasted)
{
    mj_kernel_spec s = builtin_spec(MJ_KEY_I32, 0);
    s.less = "(a ^ 5) < (b ^ 5)";
    char *src = gen_ok(&s, NULL);
    ck_assert_ptr_nonnull(strstr(src, "(a ^ 5) < (b ^ 5)"));
    /* Its errors are reported against a file called "comparator". */
    ck_assert_ptr_nonnull(strstr(src, "#line 1 \"comparator\""));
    free(src);
}
END_TEST

/* Reduce folds in any order only for a sum of built-in arithmetic keys (the default, spelled
 * "a + b"): not for another operator, a 16-bit float's bits, or a custom type's operator+. */
START_TEST(reduce_commutes_only_for_sums)
{
    struct {
        mj_key_kind key;
        const char *op;
        int commutes;
    } cases[] = {{MJ_KEY_U32, NULL, 1},          {MJ_KEY_U32, "a + b", 1},
                 {MJ_KEY_F64, "a + b", 1},       {MJ_KEY_I8, "a + b", 1},
                 {MJ_KEY_U32, "max(a, b)", 0},   {MJ_KEY_U64, "b + a", 0},
                 {MJ_KEY_F16, "a + b", 0},       {MJ_KEY_CUSTOM, "a + b", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        mj_kernel_spec s = cases[i].key == MJ_KEY_CUSTOM ? custom_spec()
                                                         : builtin_spec(cases[i].key, 0);
        s.primitive = MJ_REDUCE;
        s.less = NULL;
        s.op = cases[i].op;
        s.identity = cases[i].op ? "0" : NULL;
        if (cases[i].key == MJ_KEY_CUSTOM) s.identity = "pair128{0, 0}";
        char *src = gen_ok(&s, NULL);
        const char *want = cases[i].commutes ? "#define MJ_OP_COMMUTES 1\n"
                                             : "#define MJ_OP_COMMUTES 0\n";
        ck_assert_msg(strstr(src, want), "case %zu: no '%s'", i, want);
        free(src);
        s.primitive = MJ_SCAN; /* scan keeps the order always: no flag */
        src = gen_ok(&s, NULL);
        ck_assert_msg(!strstr(src, "#define MJ_OP_COMMUTES"), "case %zu: scan has the flag", i);
        free(src);
    }
}
END_TEST

/* ---------------------------------------------------------------- custom keys */

/* Mergesort of floats in a built-in order holds keys as ordinals (MJ_KEY_MAP): the key type is
 * the ordinal's, the comparator a plain <, the maps the format's in the spec's order. Every
 * other sort or primitive of the same key, and the same sort with a comparator of its own,
 * keeps the float type and compares through mj_key_ord; integers never map. */
START_TEST(float_keys_map_in_mergesort)
{
    static const struct {
        mj_key_kind key;
        const char *format, *ordinal, *type;
    } floats[] = {{MJ_KEY_F16, "f16", "mj_u16", "mj_f16"},
                  {MJ_KEY_BF16, "bf16", "mj_u16", "mj_bf16"},
                  {MJ_KEY_F32, "f32", "mj_u32", "float"},
                  {MJ_KEY_F64, "f64", "mj_u64", "double"}};
    for (size_t i = 0; i < sizeof floats / sizeof *floats; ++i)
        for (int order = 0; order < 2; ++order)
            for (int p = MJ_MERGESORT; p <= MJ_LOCALITY_SORT; ++p)
                for (int own_less = 0; own_less < 2; ++own_less) {
                    mj_kernel_spec s = builtin_spec(floats[i].key, 4);
                    s.order = (mj_order)order;
                    s.primitive = (mj_primitive)p;
                    if (own_less) s.less = "a < b";
                    int maps = p == MJ_MERGESORT && !own_less;
                    char *src = gen_ok(&s, NULL), want[128];
                    const char *what = mj_key_kind_name(floats[i].key);
                    ck_assert_msg(strstr(src, maps ? "#define MJ_KEY_MAP 1\n"
                                                   : "#define MJ_KEY_MAP 0\n"),
                                  "%s %s, own less %d: MJ_KEY_MAP", what,
                                  mj_primitive_name(s.primitive), own_less);
                    snprintf(want, sizeof want, "typedef %s mj_key;\n",
                             maps ? floats[i].ordinal : floats[i].type);
                    ck_assert_msg(strstr(src, want), "%s: no '%s'", what, want);
                    if (maps) {
                        snprintf(want, sizeof want, order ? "return mj_%s_flip(mj_%s_asc(b));"
                                                          : "return mj_%s_asc(b);",
                                 floats[i].format, floats[i].format);
                        ck_assert_msg(strstr(src, want), "%s: no '%s'", what, want);
                        snprintf(want, sizeof want, order ? "return mj_%s_bits(mj_%s_flip(o));"
                                                          : "return mj_%s_bits(o);",
                                 floats[i].format, floats[i].format);
                        ck_assert_msg(strstr(src, want), "%s: no '%s'", what, want);
                        ck_assert(strstr(src, "    return a < b;\n"));
                    } else if (!own_less) {
                        ck_assert(strstr(src, order ? "mj_key_ord_desc(a) < mj_key_ord_desc(b)"
                                                    : "mj_key_ord(a) < mj_key_ord(b)"));
                    }
                    ck_assert(!strstr(src, "mj_key_in(mj_key b)") == !maps);
                    free(src);
                }
    for (int key = MJ_KEY_U8; key <= MJ_KEY_I64; ++key) {
        mj_kernel_spec s = builtin_spec((mj_key_kind)key, 0);
        s.order = MJ_DESCENDING;
        char *src = gen_ok(&s, NULL);
        ck_assert(strstr(src, "#define MJ_KEY_MAP 0\n"));
        ck_assert(strstr(src, "    return b < a;\n"));
        free(src);
    }
}
END_TEST

START_TEST(custom_type)
{
    mj_kernel_spec s = custom_spec();
    size_t n1, n2;
    char *a = gen_ok(&s, &n1);
    char *b = gen_ok(&s, &n2);
    ck_assert(outputs_equal(a, n1, b, n2));
    ck_assert_msg(strstr(a, custom_source) != NULL, "the type's source is missing");
    ck_assert_msg(strstr(a, "struct mj_key { mj_u64 w[2]; };") != NULL, "the key's bytes are "
                  "missing");
    ck_assert_msg(strstr(a, "static_assert(sizeof(pair128) == 16") != NULL,
                  "the sizeof static_assert is missing");
    ck_assert_msg(strstr(a, "static_assert(alignof(pair128) == 8") != NULL,
                  "the alignof static_assert is missing");
    ck_assert(strstr(a, custom_less) != NULL);
    ck_assert(strstr(a, "as declared") != NULL);
    ck_assert(!has_line_starting(a, "#include"));
    ck_assert_uint_eq(mj__spec_key_size(&s), 16);

    /* The declared size and alignment reach the asserts. */
    mj_kernel_spec t = s;
    t.type_size = 32;
    t.type_align = 16;
    t.vt = 5; /* 256 x 7 tiles of 32-byte keys would not fit in shared memory */
    char *c = gen_ok(&t, NULL);
    ck_assert(strstr(c, "static_assert(sizeof(pair128) == 32") != NULL);
    ck_assert(strstr(c, "static_assert(alignof(pair128) == 16") != NULL);
    ck_assert(strstr(c, "struct __align__(16) mj_key { mj_u64 w[4]; };") != NULL);
    free(a);
    free(b);
    free(c);
}
END_TEST

/* A custom key is held as its bytes (issue 43: a struct assignment of the type left the
 * output's padding bytes unwritten): every primitive but reduce and scan declares mj_key as an
 * opaque struct of the type's size in the widest word its size and alignment allow, keeps the
 * type's source and asserts, and compares through a bit cast to the type. Reduce and scan,
 * whose operator builds keys, keep the type; built-in keys keep their own types (every such
 * source is as before). */
START_TEST(custom_keys_move_bytes)
{
    static const struct {
        const char *source, *name;
        size_t size, align;
        const char *key; /* the bytes' mj_key */
    } types[] = {
        {"struct padded { unsigned char a; unsigned long long b; };\n", "padded", 16, 8,
         "struct mj_key { mj_u64 w[2]; };\n"},
        {"struct tail { unsigned int a; unsigned short b; };\n", "tail", 8, 4,
         "struct mj_key { mj_u32 w[2]; };\n"},
        {"struct odd { unsigned char a[3]; };\n", "odd", 3, 1, "struct mj_key { mj_u8 w[3]; };\n"},
        {"struct __align__(16) wide { unsigned int a; unsigned char b; };\n", "wide", 16, 16,
         "struct __align__(16) mj_key { mj_u64 w[2]; };\n"},
    };
    for (size_t i = 0; i < sizeof types / sizeof *types; ++i)
        for (int p = 0; p < MJ_PRIMITIVE_COUNT; ++p) {
            mj_kernel_spec s = custom_spec();
            s.primitive = (mj_primitive)p;
            if (mj__has_value_op(s.primitive)) {
                s.value_size = 4;
                s.value_type = "unsigned";
            }
            s.type_source = types[i].source;
            s.type_name = types[i].name;
            s.type_size = types[i].size;
            s.type_align = types[i].align;
            s.less = "a.a < b.a";
            s.nt = 128;
            s.vt = 5;
            int fold = mj__is_reduce_or_scan(s.primitive);
            if (fold) {
                s.op = "a";
                s.identity = "a";
                s.bs_nt = 128;
            }
            char err[512], want[160];
            if (mj__spec_check(&s, err, sizeof err)) {
                ck_assert_msg(mj__is_lbs(s.primitive), "%s: %s", mj_primitive_name(p), err);
                continue; /* lbs, expand and move take index keys */
            }
            char *src = gen_ok(&s, NULL);
            const char *what = mj_primitive_name(s.primitive), *t = types[i].name;
            ck_assert_msg(strstr(src, types[i].source), "%s %s: no type source", what, t);
            snprintf(want, sizeof want, "typedef %s mj_key;\n", t);
            ck_assert_msg(!strstr(src, want) == !fold, "%s: '%s'", what, want);
            ck_assert_msg((strstr(src, types[i].key) == NULL) == fold, "%s: '%s'", what, types[i].key);
            snprintf(want, sizeof want, "static_assert(sizeof(%s) == %zu, ", fold ? "mj_key" : t,
                     types[i].size);
            ck_assert_msg(has_line_starting(src, want), "%s: no '%s'", what, want);
            snprintf(want, sizeof want, "static_assert(alignof(%s) == %zu, ",
                     fold ? "mj_key" : t, types[i].align);
            ck_assert_msg(has_line_starting(src, want), "%s: no '%s'", what, want);
            snprintf(want, sizeof want, "static_assert(__is_trivially_copyable(%s), ", t);
            ck_assert_msg(has_line_starting(src, want) == !fold, "%s: '%s'", what, want);
            /* Bulk remove and insert only move keys: no comparator. */
            snprintf(want, sizeof want, "    const %s &a = __builtin_bit_cast(%s, mj_a), "
                                        "&b = __builtin_bit_cast(%s, mj_b);\n", t, t, t);
            int compares = mj__primitive_traits(s.primitive)->comparator;
            ck_assert_msg(!strstr(src, want) == !compares, "%s: '%s'", what, want);
            ck_assert_msg(!strstr(src, "mj_less(") == !compares, "%s: mj_less", what);
            free(src);
        }
    for (int p = 0; p < MJ_PRIMITIVE_COUNT; ++p) {
        mj_kernel_spec s = primitive_spec((mj_primitive)p, MJ_KEY_I32, 0, 128, 5);
        if (mj__primitive_traits(s.primitive)->values == MJ_VALUES_REQUIRED) s.value_size = 4;
        if (mj__has_value_op(s.primitive)) s.value_type = "mj_u32";
        char *src = gen_ok(&s, NULL);
        ck_assert(strstr(src, "\ntypedef int mj_key;\ntypedef mj_u32 mj_value;\n"));
        ck_assert(!strstr(src, "__builtin_bit_cast"));
        free(src);
    }
}
END_TEST

static int count_of(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle)) ++n;
    return n;
}

/* Each primitive's source defines exactly its kernels (and each kernel's program that one
 * alone), segmented code only for segmented sorts,
 * and its tile limits; names parse back. */
/* Whether the primitive's row has a kernel of that name. */
static int has_kernel(mj_primitive p, const char *name) {
    for (int k = 0; k < MJ_KERNELS_MAX; ++k)
        if (mj__kernel_name(p, k) && strcmp(mj__kernel_name(p, k), name) == 0) return 1;
    return 0;
}

START_TEST(primitives_generate)
{
    mj_primitive p = (mj_primitive)_i;
    /* Reduce, scan, segmented reduce, lbs, search and join carry no values; lbs, expand and
     * move take an index type; reduce by key's values have a type. */
    int lbs = mj__is_lbs(p);
    int no_values = p == MJ_REDUCE || p == MJ_SCAN || p == MJ_SEGMENTED_REDUCE ||
                    p == MJ_LOAD_BALANCE || p == MJ_SORTED_SEARCH || p == MJ_JOIN;
    mj_kernel_spec s = builtin_spec(lbs ? MJ_KEY_I32 : MJ_KEY_U32, no_values ? 0 : 4);
    s.primitive = p;
    if (mj__has_value_op(p)) s.value_type = "unsigned";
    char err[512] = "";
    char *src = NULL;
    size_t len = 0;
    ck_assert_msg(mj__gen_source(&s, &src, &len, err, sizeof err) == 0, "%s: %s",
                  mj_primitive_name(p), err);
    mj_kernel_set kernels = mj__primitive_kernels(p);
    ck_assert_uint_ne(kernels, 0);
    /* Every primitive's kernels (the catalogue's): defined in this source exactly when they
     * are this primitive's (the search and the join hold the merge's partition kernel, not
     * its mj_merge_arrays). */
    for (int q = 0; q < MJ_PRIMITIVE_COUNT; ++q)
        for (int k = 0; k < MJ_KERNELS_MAX; ++k) {
            const char *name = mj__kernel_name((mj_primitive)q, k);
            if (!name) continue;
            char decl[96];
            snprintf(decl, sizeof decl, "%s(", name);
            int defined = 0;
            for (const char *at = strstr(src, decl); at && !defined; at = strstr(at + 1, decl))
                defined = at > src && (at[-1] == '\n' || at[-1] == ' '); /* not a call's prefix */
            int want = has_kernel(p, name);
            ck_assert_msg(defined == want, "%s: kernel %s %s", mj_primitive_name(p), name,
                          defined ? "defined" : "missing");
            if (want) continue;
            char *none = NULL;
            ck_assert_int_eq(mj__gen_kernel_source(src, name, &none, NULL), -1);
            ck_assert_ptr_null(none);
        }
    /* Each kernel's own program (built at once with the others): the same lines, that kernel
     * the only extern "C" one, the others uninstantiated templates. */
    int lines = count_of(src, "\n"), definitions = count_of(src, "extern \"C\" __global__");
    for (int k = 0; k < MJ_KERNELS_MAX; ++k) {
        const char *name = mj__kernel_name(p, k);
        if (!(kernels & (1u << k))) {
            ck_assert_ptr_null(name);
            continue;
        }
        char *one = NULL;
        size_t one_len = 0;
        int rc = mj__gen_kernel_source(src, name, &one, &one_len);
        ck_assert_msg(rc == 0, "%s: no program for %s", mj_primitive_name(p), name);
        ck_assert_uint_eq(one_len, strlen(one));
        ck_assert_int_eq(count_of(one, "\n"), lines);
        ck_assert_int_eq(count_of(one, "extern \"C\" __global__"), 1);
        ck_assert_int_eq(count_of(one, "template <int> __global__"), definitions - 1);
        const char *def = strstr(one, "extern \"C\" __global__");
        const char *paren = strchr(def, '(');
        if (strncmp(paren, "(MJ_", 4) == 0) paren = strchr(paren + 1, '('); /* launch bounds */
        ck_assert_msg(paren - def > (ptrdiff_t)strlen(name) &&
                      strncmp(paren - strlen(name), name, strlen(name)) == 0,
                      "%s: the program for %s keeps another kernel", mj_primitive_name(p), name);
        free(one);
    }

    char flag[32];
    snprintf(flag, sizeof flag, "#define MJ_SEGMENTED %d\n", p == MJ_SEGMENTED_SORT);
    ck_assert_ptr_nonnull(strstr(src, flag));
    ck_assert_ptr_nonnull(strstr(src, mj_primitive_name(p)));
    ck_assert_int_eq(mj_primitive_parse(mj_primitive_name(p)), p);
    free(src);

    /* Its traits row: exactly one kind (a primitive added without a row would be all zero),
     * and a blocksort only where there is a blocksort kernel. */
    const mj_primitive_traits *t = mj__primitive_traits(p);
    ck_assert_int_eq(t->comparator + t->op + t->index_key + t->moves, 1);
    ck_assert_int_eq(t->blocksort, has_kernel(p, "mj_blocksort"));
    /* The traits of one primitive's generation go with the kernels that need them. */
    ck_assert_int_eq(t->merge4, has_kernel(p, "mj_merge4"));
    ck_assert_int_eq(t->segmented, has_kernel(p, "mj_heads_from_flags"));
    ck_assert(!t->capped_blocksort || t->blocksort);
    ck_assert(!t->ordinals || t->comparator);
    ck_assert_int_eq(mj__primitive_traits(MJ_PRIMITIVE_COUNT)->comparator, 0);
    /* The public view of the row, and the spec check keeping its value rule. */
    mj_primitive_info info;
    ck_assert_int_eq(mj_primitive_query(p, &info), MJ_OK);
    ck_assert_int_eq(info.comparator, t->comparator);
    ck_assert_int_eq(info.op, t->op);
    ck_assert_int_eq(info.index_keys, t->index_key);
    ck_assert_int_eq(info.values, t->values);
    for (size_t vs = 0; vs <= 4; vs += 4) {
        mj_kernel_spec v = s;
        v.value_size = vs;
        int ok = info.values == MJ_VALUES_ANY || (info.values == MJ_VALUES_NONE) == (vs == 0);
        ck_assert_msg((mj__spec_check(&v, err, sizeof err) == 0) == ok, "%s, %zu-byte values: %s",
                      mj_primitive_name(p), vs, err);
    }
    ck_assert_int_eq(mj_primitive_query(MJ_PRIMITIVE_COUNT, &info), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_primitive_query(p, NULL), MJ_ERR_INVALID_ARGUMENT);

    /* A segmented sort's head flags are one word per thread: VT up to 32. */
    s.vt = 33;
    s.bs_nt = 0;
    /* expand, move and reduce by key need values */
    s.value_size = info.values == MJ_VALUES_REQUIRED ? 4 : 0;
    s.nt = 32;
    int refused = mj__spec_check(&s, err, sizeof err) != 0;
    ck_assert_int_eq(refused, p == MJ_SEGMENTED_SORT);
    s.primitive = MJ_PRIMITIVE_COUNT;
    ck_assert_int_ne(mj__spec_check(&s, err, sizeof err), 0);
    ck_assert_int_eq(mj_primitive_parse("bogus"), MJ_PRIMITIVE_COUNT);
    ck_assert_ptr_null(mj_primitive_name(MJ_PRIMITIVE_COUNT));
}
END_TEST

/* A mergesort's build starts its 4-way merge first, then the 4-way partitions, and its 2-way
 * partition last (the order of bench_frontend's measures); a kernel not measured, or no
 * kernel, weighs 0. */
START_TEST(build_weights)
{
    static const int order[] = {MJ_K_MERGE4,    MJ_K_PARTITION4_ONE, MJ_K_PARTITION4,
                                MJ_K_BLOCKSORT, MJ_K_MERGE,          MJ_K_PARTITION};
    for (int i = 1; i < 6; ++i)
        ck_assert_int_gt(mj__kernel_build_weight(MJ_MERGESORT, order[i - 1]),
                         mj__kernel_build_weight(MJ_MERGESORT, order[i]));
    ck_assert_int_gt(mj__kernel_build_weight(MJ_MERGESORT, MJ_K_PARTITION), 0);
    ck_assert_int_eq(mj__kernel_build_weight(MJ_SCAN, MJ_K_SCAN), 0);
    ck_assert_int_eq(mj__kernel_build_weight(MJ_MERGESORT, MJ_KERNELS_MAX), 0);
    ck_assert_int_eq(mj__kernel_build_weight(MJ_MERGESORT, -1), 0);
    ck_assert_int_eq(mj__kernel_build_weight(MJ_PRIMITIVE_COUNT, MJ_K_BLOCKSORT), 0);
}
END_TEST

/* Mergesort's kernels, the join's, and every kernel's name. */
START_TEST(kernel_sets)
{
    ck_assert_uint_eq(mj__primitive_kernels(MJ_MERGESORT),
                      1u << MJ_K_BLOCKSORT | 1u << MJ_K_MERGE | 1u << MJ_K_PARTITION |
                          1u << MJ_K_PARTITION4 | 1u << MJ_K_PARTITION4_ONE | 1u << MJ_K_MERGE4);
    ck_assert_uint_ne(mj__primitive_kernels(MJ_JOIN) & 1u << MJ_K_JOIN_UNMATCHED, 0);
    ck_assert_str_eq(mj__kernel_name(MJ_MERGESORT, MJ_K_PARTITION4), "mj_partition4");
    ck_assert_str_eq(mj__kernel_name(MJ_MERGESORT, MJ_K_PARTITION4_ONE), "mj_partition4_one");
    ck_assert_ptr_null(mj__kernel_name(MJ_MERGESORT, MJ_KERNELS_MAX));
    ck_assert_ptr_null(mj__kernel_name(MJ_MERGESORT, -1));
    ck_assert_ptr_null(mj__kernel_name(MJ_PRIMITIVE_COUNT, 0));
}
END_TEST

/* The catalogue's rows: a kernel at most once in a row, at most one sized by residency; the
 * indexes that host files share between primitives (catalog.h) name the same kernel in each
 * (queued.c launches the segmented and locality sorts' by one index, load_balance.c lbs's,
 * expand's and move's, the search the merge's partition, the join the search's kernels). */
START_TEST(catalogue_rows)
{
    for (int p = 0; p < MJ_PRIMITIVE_COUNT; ++p) {
        int resident = 0;
        for (int k = 0; k < MJ_KERNELS_MAX; ++k) {
            const mj_kernel_row *row = mj__kernel_row((mj_primitive)p, k);
            if (!row) continue;
            resident += row->resident;
            for (int j = k + 1; j < MJ_KERNELS_MAX; ++j)
                ck_assert_msg(!mj__kernel_name((mj_primitive)p, j) ||
                                  strcmp(mj__kernel_name((mj_primitive)p, j), row->name) != 0,
                              "%s has %s twice", mj_primitive_name((mj_primitive)p), row->name);
        }
        ck_assert_int_le(resident, 1);
        ck_assert_int_eq(mj__resident_kernel((mj_primitive)p) >= 0, resident);
    }
    static const struct {
        mj_primitive p;
        int k;
        const char *name;
    } shared[] = {
        {MJ_MERGESORT, MJ_K_BLOCKSORT, "mj_blocksort"},
        {MJ_SEGMENTED_SORT, MJ_K_BLOCKSORT, "mj_blocksort"},
        {MJ_LOCALITY_SORT, MJ_K_BLOCKSORT, "mj_blocksort"},
        {MJ_SEGMENTED_SORT, MJ_K_QUEUE_PARTITION, "mj_queue_partition"},
        {MJ_LOCALITY_SORT, MJ_K_QUEUE_PARTITION, "mj_queue_partition"},
        {MJ_SEGMENTED_SORT, MJ_K_QUEUE_WORK, "mj_queue_work"},
        {MJ_LOCALITY_SORT, MJ_K_QUEUE_WORK, "mj_queue_work"},
        {MJ_SEGMENTED_SORT, MJ_K_QUEUE_FINISH, "mj_queue_finish"},
        {MJ_LOCALITY_SORT, MJ_K_QUEUE_FINISH, "mj_queue_finish"},
        {MJ_MERGE, MJ_K_MERGE_PARTITION, "mj_merge_partition"},
        {MJ_SORTED_SEARCH, MJ_K_MERGE_PARTITION, "mj_merge_partition"},
        {MJ_JOIN, MJ_K_MERGE_PARTITION, "mj_merge_partition"},
        {MJ_SORTED_SEARCH, MJ_K_SEARCH, "mj_search_tiles"},
        {MJ_JOIN, MJ_K_SEARCH, "mj_search_tiles"},
        {MJ_LOAD_BALANCE, MJ_K_LBS_PARTITION, "mj_lbs_partition"},
        {MJ_INTERVAL_EXPAND, MJ_K_LBS_PARTITION, "mj_lbs_partition"},
        {MJ_INTERVAL_MOVE, MJ_K_LBS_PARTITION, "mj_lbs_partition"},
    };
    for (size_t i = 0; i < sizeof shared / sizeof *shared; ++i)
        ck_assert_str_eq(mj__kernel_name(shared[i].p, shared[i].k), shared[i].name);
    ck_assert_ptr_null(mj__kernel_row(MJ_LOCALITY_SORT, MJ_K_HEADS_FLAGS));
    /* Every primitive has its host row too (primitives/registry.c): a temp size; the sorts
     * that mj_sorter_sort runs, a sort. */
    for (int p = 0; p < MJ_PRIMITIVE_COUNT; ++p) {
        const mj_primitive_entry *e = mj__primitive_entry((mj_primitive)p);
        ck_assert_ptr_nonnull(e);
        ck_assert_ptr_nonnull(e->temp_size);
        ck_assert_int_eq(e->sort != NULL, p == MJ_MERGESORT || p == MJ_LOCALITY_SORT);
    }
    ck_assert_ptr_null(mj__primitive_entry(MJ_PRIMITIVE_COUNT));
}
END_TEST

static Suite *gen_suite(void) {
    Suite *s = suite_create("gen");
    TCase *tc = tcase_create("builtin");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, builtin_kinds_generate, MJ_KEY_U8, MJ_KEY_CUSTOM);
    tcase_add_loop_test(tc, spec_changes_output, MJ_KEY_U8, MJ_KEY_CUSTOM);
    tcase_add_test(tc, comparator_is_pasted);
    tcase_add_test(tc, reduce_commutes_only_for_sums);
    tcase_add_test(tc, float_keys_map_in_mergesort);
    tcase_add_loop_test(tc, primitives_generate, MJ_MERGESORT, MJ_PRIMITIVE_COUNT);
    tcase_add_test(tc, build_weights);
    tcase_add_test(tc, kernel_sets);
    tcase_add_test(tc, catalogue_rows);
    suite_add_tcase(s, tc);
    TCase *tcc = tcase_create("custom");
    tcase_add_test(tcc, custom_type);
    tcase_add_test(tcc, custom_keys_move_bytes);
    suite_add_tcase(s, tcc);
    return s;
}

int main(void) { return mjt_run(gen_suite(), 1); }
