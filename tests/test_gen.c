/* The code generator (gen/gen.h): every built-in key kind and a range of value sizes generate
 * a self-contained, deterministic translation unit; the spec's fields reach the output; custom
 * types are pasted with their static_asserts; invalid specs are refused with a message; each
 * primitive's template list holds what its templates include, in order. CPU only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "templates_embedded.h"
#include "test_support.h"

static const size_t value_sizes[] = {0, 1, 4, 8, 12, 16, 64};
#define N_VALUE_SIZES (sizeof value_sizes / sizeof value_sizes[0])

static mj_kernel_spec builtin_spec(mj_key_kind key, size_t value_size) {
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

static mj_kernel_spec custom_spec(void) {
    mj_kernel_spec s = builtin_spec(MJ_KEY_CUSTOM, 0);
    s.type_name = "pair128";
    s.type_source = custom_source;
    s.type_size = 16;
    s.type_align = 8;
    s.less = custom_less;
    return s;
}

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

/* ---------------------------------------------------------------- custom keys */

START_TEST(custom_type)
{
    mj_kernel_spec s = custom_spec();
    size_t n1, n2;
    char *a = gen_ok(&s, &n1);
    char *b = gen_ok(&s, &n2);
    ck_assert(outputs_equal(a, n1, b, n2));
    ck_assert_msg(strstr(a, custom_source) != NULL, "the type's source is missing");
    ck_assert_msg(strstr(a, "typedef pair128 mj_key;") != NULL, "the typedef is missing");
    ck_assert_msg(strstr(a, "static_assert(sizeof(mj_key) == 16") != NULL,
                  "the sizeof static_assert is missing");
    ck_assert_msg(strstr(a, "static_assert(alignof(mj_key) == 8") != NULL,
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
    ck_assert(strstr(c, "static_assert(sizeof(mj_key) == 32") != NULL);
    ck_assert(strstr(c, "static_assert(alignof(mj_key) == 16") != NULL);
    free(a);
    free(b);
    free(c);
}
END_TEST

/* ---------------------------------------------------------------- invalid specs */

/* The spec is refused by both mj__spec_check and mj__gen_source, with a message. */
static void assert_rejected(const mj_kernel_spec *s, const char *why) {
    char err[512] = "";
    ck_assert_msg(mj__spec_check(s, err, sizeof err) == -1, "%s: accepted by mj__spec_check", why);
    ck_assert_msg(err[0] != '\0', "%s: no message from mj__spec_check", why);
    char *src = (char *)1;
    size_t len = 0;
    err[0] = '\0';
    ck_assert_msg(mj__gen_source(s, &src, &len, err, sizeof err) == -1,
                  "%s: accepted by mj__gen_source", why);
    ck_assert_msg(err[0] != '\0', "%s: no message from mj__gen_source", why);
    ck_assert_msg(src == NULL, "%s: *out is not NULL after a failure", why);
}

START_TEST(invalid_specs)
{
    mj_kernel_spec s, ok = builtin_spec(MJ_KEY_U32, 4);
    char err[512];
    ck_assert_msg(mj__spec_check(&ok, err, sizeof err) == 0, "base spec refused: %s", err);
    mj_kernel_spec cok = custom_spec();
    ck_assert_msg(mj__spec_check(&cok, err, sizeof err) == 0, "custom spec refused: %s", err);

    static const int bad_nt[] = {0, -256, 1, 16, 31, 48, 96, 100, 255, 257, 2048, 4096};
    for (size_t i = 0; i < sizeof bad_nt / sizeof *bad_nt; ++i) {
        s = ok;
        s.nt = bad_nt[i];
        char why[64];
        snprintf(why, sizeof why, "NT %d", bad_nt[i]);
        assert_rejected(&s, why);
    }
    static const int good_nt[] = {32, 64, 128, 256, 512, 1024};
    for (size_t i = 0; i < sizeof good_nt / sizeof *good_nt; ++i) {
        s = ok;
        s.nt = good_nt[i];
        s.vt = 5;
        ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "NT %d refused: %s", s.nt, err);
    }

    /* Blocksort threads: 0 (= NT) or NT times a power of two, up to 1024. */
    static const int bad_bs[] = {-256, 1, 128, 384, 2048};
    for (size_t i = 0; i < sizeof bad_bs / sizeof *bad_bs; ++i) {
        s = ok;
        s.bs_nt = bad_bs[i];
        char why[64];
        snprintf(why, sizeof why, "blocksort NT %d with NT 256", bad_bs[i]);
        assert_rejected(&s, why);
    }
    static const int good_bs[] = {0, 256, 512, 1024};
    for (size_t i = 0; i < sizeof good_bs / sizeof *good_bs; ++i) {
        s = ok;
        s.bs_nt = good_bs[i];
        s.vt = 5;
        ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "blocksort NT %d refused: %s",
                      s.bs_nt, err);
    }
    /* Tiles over static shared memory are refused before NVRTC sees them. */
    s = ok;
    s.bs_nt = 1024;
    s.vt = 7; /* 7168 keys + 7168 positions: 57 KB */
    assert_rejected(&s, "blocksort 1024 x 7 with 4-byte values");
    mj__spec_check(&s, err, sizeof err);
    ck_assert_msg(strstr(err, "shared memory") != NULL, "unclear message: %s", err);
    s.value_size = 0; /* keys alone: 28 KB */
    ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "1024 x 7 keys refused: %s", err);

    s = ok;
    s.vt = 0;
    assert_rejected(&s, "VT 0");
    s.vt = -3;
    assert_rejected(&s, "VT -3");
    s.vt = MJ_MAX_VT + 1;
    assert_rejected(&s, "VT MJ_MAX_VT + 1");
    s.vt = MJ_MAX_VT;
    s.nt = 64; /* so that the tile fits in shared memory */
    ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "VT MJ_MAX_VT refused: %s", err);
    s.vt = 1;
    ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "VT 1 refused: %s", err);

    s = ok;
    s.value_size = MJ_MAX_VALUE_SIZE + 1;
    ck_assert_int_eq(s.value_size, 65);
    assert_rejected(&s, "value size 65");
    s.value_size = MJ_MAX_VALUE_SIZE;
    ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "value size 64 refused: %s", err);

    s = ok;
    s.key = MJ_KEY_KIND_COUNT;
    assert_rejected(&s, "key kind MJ_KEY_KIND_COUNT");
    s.key = (mj_key_kind)-1;
    assert_rejected(&s, "key kind -1");
    s.key = (mj_key_kind)1000;
    assert_rejected(&s, "key kind 1000");

    s = ok;
    s.order = (mj_order)7;
    assert_rejected(&s, "order 7");

    s = cok;
    s.type_name = NULL;
    assert_rejected(&s, "custom without type_name");
    s.type_name = "";
    assert_rejected(&s, "custom with an empty type_name");
    s.type_name = "1abc";
    assert_rejected(&s, "custom with type_name 1abc");
    s = cok;
    s.type_source = NULL;
    assert_rejected(&s, "custom without type_source");
    s = cok;
    s.less = NULL;
    assert_rejected(&s, "custom without less");
    s = cok;
    s.type_size = 12;
    s.type_align = 8;
    assert_rejected(&s, "type_size 12, align 8");
    s.type_size = 20;
    s.type_align = 16;
    assert_rejected(&s, "type_size 20, align 16");
    s.type_size = 0;
    s.type_align = 8;
    assert_rejected(&s, "type_size 0");
    s.type_size = 16;
    s.type_align = 0;
    assert_rejected(&s, "type_align 0");
    s.type_size = 12;
    s.type_align = 3;
    assert_rejected(&s, "type_align 3");
    s.type_size = 12;
    s.type_align = 4;
    ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "size 12 align 4 refused: %s", err);

    static const char *const bad_less[] = {
        "a < b; }", "a < b;",       "#define X",     "a < b # c",  "(a < b",  "a < b)",
        "a[0 < b)", "(a < b]",      "{a < b",        "a < b}",     ")(",      "",
        "   ",      "\n\t ",        "a < b) || (a", "a < b /*",   "a < b // x", "a < \\\nb",
        "a < b \")\"",
    };
    for (size_t i = 0; i < sizeof bad_less / sizeof *bad_less; ++i) {
        char why[96];
        snprintf(why, sizeof why, "comparator '%s'", bad_less[i]);
        s = ok;
        s.less = bad_less[i];
        assert_rejected(&s, why);
        s = cok;
        s.less = bad_less[i];
        assert_rejected(&s, why);
    }
    static const char *const good_less[] = {"a < b", "(a) < (b)", "a[0] < b[0]",
                                            "((a & 0xff) < (b & 0xff))", "a / 2 < b / 2",
                                            "a.c < 'x'"};
    for (size_t i = 0; i < sizeof good_less / sizeof *good_less; ++i) {
        s = ok;
        s.less = good_less[i];
        ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "'%s' refused: %s",
                      good_less[i], err);
    }
}
END_TEST

/* Each primitive's source defines exactly its kernels, segmented code only for segmented sorts,
 * and its tile limits; names parse back. */
START_TEST(primitives_generate)
{
    mj_primitive p = (mj_primitive)_i;
    mj_kernel_spec s = builtin_spec(MJ_KEY_U32, 4);
    s.primitive = p;
    char err[512] = "";
    char *src = NULL;
    size_t len = 0;
    ck_assert_msg(mj__gen_source(&s, &src, &len, err, sizeof err) == 0, "%s: %s",
                  mj_primitive_name(p), err);
    unsigned kernels = mj__primitive_kernels(p);
    ck_assert_uint_ne(kernels, 0);
    for (int k = 0; k < MJ_K_COUNT; ++k) {
        char decl[96];
        snprintf(decl, sizeof decl, "%s(", mj__kernel_name((mj_kernel_id)k));
        int defined = 0;
        for (const char *at = strstr(src, decl); at && !defined; at = strstr(at + 1, decl))
            defined = at > src && (at[-1] == '\n' || at[-1] == ' '); /* not a call's prefix */
        ck_assert_msg(defined == !!(kernels & (1u << k)), "%s: kernel %s %s", mj_primitive_name(p),
                      mj__kernel_name((mj_kernel_id)k), defined ? "defined" : "missing");
    }
    char flag[32];
    snprintf(flag, sizeof flag, "#define MJ_SEGMENTED %d\n", p == MJ_SEGMENTED_SORT);
    ck_assert_ptr_nonnull(strstr(src, flag));
    ck_assert_ptr_nonnull(strstr(src, mj_primitive_name(p)));
    ck_assert_int_eq(mj_primitive_parse(mj_primitive_name(p)), p);
    free(src);

    /* A segmented sort's head flags are one word per thread: VT up to 32. */
    s.vt = 33;
    s.bs_nt = 0;
    s.value_size = 0;
    s.nt = 32;
    int refused = mj__spec_check(&s, err, sizeof err) != 0;
    ck_assert_int_eq(refused, p == MJ_SEGMENTED_SORT);
    s.primitive = MJ_PRIMITIVE_COUNT;
    ck_assert_int_ne(mj__spec_check(&s, err, sizeof err), 0);
    ck_assert_int_eq(mj_primitive_parse("bogus"), MJ_PRIMITIVE_COUNT);
    ck_assert_ptr_null(mj_primitive_name(MJ_PRIMITIVE_COUNT));
}
END_TEST

/* ---------------------------------------------------------------- template lists */

/* The generator pastes each template with its #include "..." lines blanked, so what it emits
 * (the prelude, the spec, the primitive's list) must hold every file a template includes,
 * before that template. spec_default.cuh, which gives a template compiled on its own the
 * spec's definitions, stands for the spec the generator writes in its place. Includes under
 * `#if MJ_SEGMENTED` (or its #else) count as the primitive defines it; under any other
 * condition the check cannot tell and fails, so that it is taught the new condition. */
#define MAX_ORDER 48

/* What a conditional means for the #include lines inside it, for one primitive. */
enum cond { COND_GUARD, COND_TRUE, COND_FALSE, COND_UNKNOWN };

static const char *skip_blanks(const char *p) {
    while (*p == ' ' || *p == '\t') ++p;
    return p;
}

/* 1 when line is the directive `#word`; *rest is what follows it. */
static int directive(const char *line, const char *word, const char **rest) {
    const char *p = skip_blanks(line);
    if (*p++ != '#') return 0;
    p = skip_blanks(p);
    size_t n = strlen(word);
    if (strncmp(p, word, n) != 0 || (p[n] && !strchr(" \t\n", p[n]))) return 0;
    *rest = skip_blanks(p + n);
    return 1;
}

/* 1 when p starts with the identifier id, alone up to the end of the line. */
static int is_only(const char *p, const char *id) {
    size_t n = strlen(id);
    return strncmp(p, id, n) == 0 && *skip_blanks(p + n) == '\n';
}

static int find_name(const char *const *order, int n, const char *name) {
    for (int i = 0; i < n; ++i)
        if (strcmp(order[i], name) == 0) return i;
    return -1;
}

/* 0 when every file of order[0, n) is embedded, listed once, and every file it includes (for a
 * primitive whose MJ_SEGMENTED is segmented) comes before it; else -1 with why. */
static int check_order(const char *const *order, int n, int segmented, char *why, size_t cap) {
    for (int i = 0; i < n; ++i) {
        const mj_template *t = mj__template_find(order[i]);
        if (!t) {
            snprintf(why, cap, "%s is not an embedded template", order[i]);
            return -1;
        }
        if (find_name(order, i, order[i]) >= 0) {
            snprintf(why, cap, "%s is listed twice", order[i]);
            return -1;
        }
        enum cond stack[32];
        int depth = 0, line_no = 0;
        for (const char *line = t->text, *next; *line; line = next) {
            const char *nl = strchr(line, '\n');
            next = nl ? nl + 1 : line + strlen(line);
            const char *rest;
            ++line_no;
            if (directive(line, "if", &rest) || directive(line, "ifdef", &rest) ||
                directive(line, "ifndef", &rest)) {
                enum cond c = COND_UNKNOWN;
                if (directive(line, "if", &rest) && is_only(rest, "MJ_SEGMENTED"))
                    c = segmented ? COND_TRUE : COND_FALSE;
                else if (directive(line, "if", &rest) && is_only(rest, "!MJ_SEGMENTED"))
                    c = segmented ? COND_FALSE : COND_TRUE;
                else if (depth == 0 && directive(line, "ifndef", &rest)) {
                    /* An include guard: #ifndef X followed by #define X. */
                    size_t id = strspn(rest, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
                    const char *def;
                    if (id && directive(next, "define", &def) && strncmp(def, rest, id) == 0 &&
                        strchr(" \t\n", def[id]))
                        c = COND_GUARD;
                }
                ck_assert_int_lt(depth, (int)(sizeof stack / sizeof *stack));
                stack[depth++] = c;
            } else if (directive(line, "elif", &rest)) {
                if (depth) stack[depth - 1] = COND_UNKNOWN;
            } else if (directive(line, "else", &rest)) {
                if (depth && stack[depth - 1] == COND_TRUE) stack[depth - 1] = COND_FALSE;
                else if (depth && stack[depth - 1] == COND_FALSE) stack[depth - 1] = COND_TRUE;
            } else if (directive(line, "endif", &rest)) {
                if (depth) --depth;
            } else if (directive(line, "include", &rest)) {
                if (strncmp(line, "#include \"", 10) != 0) {
                    snprintf(why, cap, "%s:%d: the generator blanks only the lines that start "
                                       "with #include \"", order[i], line_no);
                    return -1;
                }
                const char *path = line + 10, *close = strchr(path, '"');
                ck_assert_ptr_nonnull(close);
                const char *base = path;
                for (const char *q = path; q < close; ++q)
                    if (*q == '/') base = q + 1;
                char name[128];
                snprintf(name, sizeof name, "%.*s", (int)(close - base), base);
                int off = 0, unknown = 0;
                for (int k = 0; k < depth; ++k) {
                    off |= stack[k] == COND_FALSE;
                    unknown |= stack[k] == COND_UNKNOWN;
                }
                if (off) continue;
                if (unknown) {
                    snprintf(why, cap, "%s:%d: an #include under a condition this check does "
                                       "not evaluate", order[i], line_no);
                    return -1;
                }
                if (find_name(order, i, name) < 0) {
                    snprintf(why, cap, "%s includes %s, which %s", order[i], name,
                             find_name(order, n, name) < 0 ? "is not in the list"
                                                           : "comes after it");
                    return -1;
                }
            }
        }
    }
    return 0;
}

/* The templates the generator emits for p, in order, with the spec's stand-in. */
static int emitted_order(mj_primitive p, const char **order) {
    int n = 0;
    for (const char *const *name = mj__prelude_templates(); *name; ++name) {
        ck_assert_int_lt(n, MAX_ORDER);
        order[n++] = *name;
    }
    order[n++] = "spec_default.cuh";
    const char *const *list = mj__primitive_templates(p);
    ck_assert_ptr_nonnull(list);
    for (const char *const *name = list; *name; ++name) {
        ck_assert_int_lt(n, MAX_ORDER);
        order[n++] = *name;
    }
    return n;
}

/* order without name; returns the new count. */
static int drop_name(const char **order, int n, const char *name) {
    int at = find_name(order, n, name);
    ck_assert_int_ge(at, 0);
    memmove(&order[at], &order[at + 1], (size_t)(n - at - 1) * sizeof *order);
    return n - 1;
}

/* Moves name to just after `after`. */
static void move_after(const char **order, int n, const char *name, const char *after) {
    n = drop_name(order, n, name);
    int at = find_name(order, n, after) + 1;
    ck_assert_int_gt(at, 0);
    memmove(&order[at + 1], &order[at], (size_t)(n - at) * sizeof *order);
    order[at] = name;
}

/* Every primitive's list holds what its templates include, in an order that satisfies it. */
START_TEST(template_lists_closed)
{
    mj_primitive p = (mj_primitive)_i;
    const char *order[MAX_ORDER];
    char why[256] = "";
    int n = emitted_order(p, order);
    ck_assert_msg(check_order(order, n, p == MJ_SEGMENTED_SORT, why, sizeof why) == 0, "%s: %s",
                  mj_primitive_name(p), why);
    ck_assert_ptr_null(mj__primitive_templates(MJ_PRIMITIVE_COUNT));
}
END_TEST

/* The check above fails for a list missing a file, a list out of order, a conditional include
 * that holds for the primitive, and a source without the prelude. */
START_TEST(template_lists_check_faults)
{
    const char *order[MAX_ORDER];
    char why[256] = "";
    int n = emitted_order(MJ_MERGESORT, order);
    n = drop_name(order, n, "tile_io.cuh");
    ck_assert_int_ne(check_order(order, n, 0, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "includes tile_io.cuh, which is not in the list"));

    n = emitted_order(MJ_MERGE, order);
    move_after(order, n, "merge_path.cuh", "cta_merge.cuh");
    ck_assert_int_ne(check_order(order, n, 0, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "includes merge_path.cuh, which comes after it"));

    /* kernel_blocksort.cuh includes work_queue.h under #if MJ_SEGMENTED only. */
    n = emitted_order(MJ_SEGMENTED_SORT, order);
    move_after(order, n, "work_queue.h", "kernel_blocksort.cuh");
    ck_assert_int_eq(check_order(order, n, 0, why, sizeof why), 0);
    ck_assert_int_ne(check_order(order, n, 1, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "kernel_blocksort.cuh includes work_queue.h"));

    n = emitted_order(MJ_LOCALITY_SORT, order);
    ck_assert_int_ne(check_order(order + 2, n - 2, 0, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "includes mj_common.cuh"));
}
END_TEST

static Suite *gen_suite(void) {
    Suite *s = suite_create("gen");
    TCase *tc = tcase_create("builtin");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, builtin_kinds_generate, MJ_KEY_U8, MJ_KEY_CUSTOM);
    tcase_add_loop_test(tc, spec_changes_output, MJ_KEY_U8, MJ_KEY_CUSTOM);
    tcase_add_test(tc, comparator_is_pasted);
    tcase_add_loop_test(tc, primitives_generate, MJ_MERGESORT, MJ_PRIMITIVE_COUNT);
    suite_add_tcase(s, tc);
    TCase *tcc = tcase_create("custom");
    tcase_add_test(tcc, custom_type);
    suite_add_tcase(s, tcc);
    TCase *tct = tcase_create("templates");
    tcase_add_loop_test(tct, template_lists_closed, MJ_MERGESORT, MJ_PRIMITIVE_COUNT);
    tcase_add_test(tct, template_lists_check_faults);
    suite_add_tcase(s, tct);
    TCase *tci = tcase_create("invalid");
    tcase_add_test(tci, invalid_specs);
    suite_add_tcase(s, tci);
    return s;
}

int main(void) { return mjt_run(gen_suite(), 1); }
