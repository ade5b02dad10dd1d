#include "gen.h"

#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "templates_embedded.h"

/* Before the spec: what the spec's types and comparator use. */
static const char *const prelude_templates[] = {"mj_common.cuh", "key_order.cuh", NULL};

/* Templates in dependency order, after the spec, per primitive. Each list holds every file its
 * templates include (test_gen_templates checks it), as the generator drops their #include
 * lines. */
static const char *const mergesort_templates[] = {
    "merge_frame.h", "merge_path.cuh",    "serial_merge.cuh",     "sort_network.cuh",
    "tile_io.cuh",   "cta_blocksort.cuh", "cta_merge.cuh",        "kernel_blocksort.cuh",
    "kernel_partition.cuh", "kernel_merge.cuh", NULL,
};
static const char *const merge_templates[] = {
    "merge_frame.h", "merge_path.cuh", "serial_merge.cuh", "tile_io.cuh", "cta_merge.cuh",
    "kernel_merge_arrays.cuh", NULL,
};
static const char *const segsort_templates[] = {
    "merge_frame.h",  "work_queue.h",      "merge_path.cuh", "serial_merge.cuh",
    "sort_network.cuh", "tile_io.cuh",     "cta_blocksort.cuh", "cta_merge.cuh",
    "kernel_blocksort.cuh", "kernel_heads.cuh", "kernel_queue_partition.cuh",
    "kernel_queue_work.cuh", NULL,
};
static const char *const locality_templates[] = {
    "merge_frame.h",  "work_queue.h",      "merge_path.cuh", "serial_merge.cuh",
    "sort_network.cuh", "tile_io.cuh",     "cta_blocksort.cuh", "cta_merge.cuh",
    "kernel_blocksort.cuh", "kernel_queue_partition.cuh", "kernel_queue_work.cuh", NULL,
};
static const char *const reduce_templates[] = {"cta_scan.cuh", "kernel_reduce.cuh", NULL};
static const char *const scan_templates[] = {"cta_scan.cuh", "kernel_scan.cuh", NULL};
static const char *const lbs_templates[] = {
    "load_balance.h", "cta_load_balance.cuh", "kernel_lbs_partition.cuh", "kernel_lbs.cuh", NULL,
};
static const char *const expand_templates[] = {
    "load_balance.h", "cta_load_balance.cuh", "kernel_lbs_partition.cuh", "kernel_expand.cuh",
    NULL,
};

static const char *const kernel_names[MJ_K_COUNT] = {
    [MJ_K_BLOCKSORT] = "mj_blocksort",
    [MJ_K_PARTITION] = "mj_partition",
    [MJ_K_MERGE] = "mj_merge",
    [MJ_K_MERGE_PARTITION] = "mj_merge_partition",
    [MJ_K_MERGE_ARRAYS] = "mj_merge_arrays",
    [MJ_K_HEADS_FLAGS] = "mj_heads_from_flags",
    [MJ_K_HEADS_INDICES] = "mj_heads_from_indices",
    [MJ_K_QUEUE_PARTITION] = "mj_queue_partition",
    [MJ_K_QUEUE_WORK] = "mj_queue_work",
    [MJ_K_QUEUE_FINISH] = "mj_queue_finish",
    [MJ_K_REDUCE] = "mj_reduce_tiles",
    [MJ_K_SCAN] = "mj_scan_tiles",
    [MJ_K_LBS_PARTITION] = "mj_lbs_partition",
    [MJ_K_LBS] = "mj_lbs_tiles",
    [MJ_K_EXPAND] = "mj_expand_tiles",
};

const char *mj__kernel_name(mj_kernel_id id) {
    return (unsigned)id < MJ_K_COUNT ? kernel_names[id] : NULL;
}

#define K(id) (1u << (id))
unsigned mj__primitive_kernels(mj_primitive primitive) {
    switch (primitive) {
    case MJ_MERGESORT: return K(MJ_K_BLOCKSORT) | K(MJ_K_PARTITION) | K(MJ_K_MERGE);
    case MJ_MERGE: return K(MJ_K_MERGE_PARTITION) | K(MJ_K_MERGE_ARRAYS);
    case MJ_SEGMENTED_SORT:
        return K(MJ_K_BLOCKSORT) | K(MJ_K_HEADS_FLAGS) | K(MJ_K_HEADS_INDICES) |
               K(MJ_K_QUEUE_PARTITION) | K(MJ_K_QUEUE_WORK) | K(MJ_K_QUEUE_FINISH);
    case MJ_LOCALITY_SORT:
        return K(MJ_K_BLOCKSORT) | K(MJ_K_QUEUE_PARTITION) | K(MJ_K_QUEUE_WORK) |
               K(MJ_K_QUEUE_FINISH);
    case MJ_REDUCE: return K(MJ_K_REDUCE);
    case MJ_SCAN: return K(MJ_K_SCAN);
    case MJ_LOAD_BALANCE: return K(MJ_K_LBS_PARTITION) | K(MJ_K_LBS);
    case MJ_INTERVAL_EXPAND: return K(MJ_K_LBS_PARTITION) | K(MJ_K_EXPAND);
    default: return 0;
    }
}
#undef K

const char *const *mj__prelude_templates(void) { return prelude_templates; }

const char *const *mj__primitive_templates(mj_primitive primitive) {
    switch (primitive) {
    case MJ_MERGESORT: return mergesort_templates;
    case MJ_MERGE: return merge_templates;
    case MJ_SEGMENTED_SORT: return segsort_templates;
    case MJ_LOCALITY_SORT: return locality_templates;
    case MJ_REDUCE: return reduce_templates;
    case MJ_SCAN: return scan_templates;
    case MJ_LOAD_BALANCE: return lbs_templates;
    case MJ_INTERVAL_EXPAND: return expand_templates;
    default: return NULL;
    }
}

static const struct {
    const char *cuda_type;
    int float_bits; /* 0 for integers */
} builtin_keys[MJ_KEY_KIND_COUNT] = {
    [MJ_KEY_U8] = {"mj_u8", 0},     [MJ_KEY_I8] = {"signed char", 0},
    [MJ_KEY_U16] = {"mj_u16", 0},   [MJ_KEY_I16] = {"short", 0},
    [MJ_KEY_U32] = {"mj_u32", 0},   [MJ_KEY_I32] = {"int", 0},
    [MJ_KEY_U64] = {"mj_u64", 0},   [MJ_KEY_I64] = {"long long", 0},
    [MJ_KEY_F16] = {"mj_f16", 16},  [MJ_KEY_BF16] = {"mj_bf16", 16},
    [MJ_KEY_F32] = {"float", 32},   [MJ_KEY_F64] = {"double", 64},
};

size_t mj__spec_key_size(const mj_kernel_spec *spec) {
    return spec->key == MJ_KEY_CUSTOM ? spec->type_size : mj_key_kind_size(spec->key);
}

static int is_type_name(const char *s) {
    if (!s || !(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))) return 0;
    for (; *s; ++s) {
        int ok = *s == '_' || *s == ':' || (*s >= '0' && *s <= '9') ||
                 (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z');
        if (!ok) return 0;
    }
    return 1;
}

/* The comparator is pasted into `return (bool)(...);`, a reduce or scan operator and its
 * identity into `return (mj_key)(...);`. Refusing ';', '#' and unbalanced brackets keeps each
 * one expression: it cannot close the function and add code of its own. `what` names it in
 * messages ("comparator", "operator", "identity"), `over` says what it may use. */
static int check_expression(const char *e, const char *what, const char *over, char *err,
                            size_t errcap) {
    int depth = 0;
    char stack[256];
    if (!e[strspn(e, " \t\r\n")]) {
        snprintf(err, errcap, "the %s expression is empty", what);
        return -1;
    }
    for (const char *p = e; *p; ++p) {
        char c = *p;
        /* A comment or a line continuation would swallow the generated code after the
         * comparator; a string literal could hide brackets from the count below. */
        if ((c == '/' && (p[1] == '/' || p[1] == '*')) || c == '\\' || c == '"') {
            snprintf(err, errcap, "the %s must be one expression%s: comments, string "
                                  "literals and line continuations are not allowed in it",
                     what, over);
            return -1;
        }
        if (c == ';' || c == '#') {
            snprintf(err, errcap, "the %s must be one expression%s: '%c' is not allowed in it",
                     what, over, c);
            return -1;
        }
        if (c == '(' || c == '[' || c == '{') {
            if (depth == (int)sizeof stack) break;
            stack[depth++] = c;
        } else if (c == ')' || c == ']' || c == '}') {
            char open = c == ')' ? '(' : c == ']' ? '[' : '{';
            if (depth == 0 || stack[depth - 1] != open) {
                snprintf(err, errcap, "the %s expression has an unbalanced '%c'", what, c);
                return -1;
            }
            --depth;
        }
    }
    if (depth != 0) {
        snprintf(err, errcap, "the %s expression has an unclosed bracket", what);
        return -1;
    }
    return 0;
}

static int is_reduce_or_scan(mj_primitive p) { return p == MJ_REDUCE || p == MJ_SCAN; }
static int is_lbs(mj_primitive p) { return p == MJ_LOAD_BALANCE || p == MJ_INTERVAL_EXPAND; }

/* Load-balancing search and expand: the key is the index type of the offsets and outputs;
 * lbs has no values, expand moves values of 1 to MJ_MAX_VALUE_SIZE bytes. */
static int check_lbs(const mj_kernel_spec *spec, char *err, size_t errcap) {
    const char *name = mj_primitive_name(spec->primitive);
    if (spec->key != MJ_KEY_I32 && spec->key != MJ_KEY_I64) {
        snprintf(err, errcap, "%s takes i32 or i64 keys (the index type of the offsets), not %s",
                 name, spec->key == MJ_KEY_CUSTOM ? "a custom type" : mj_key_kind_name(spec->key));
        return -1;
    }
    if (spec->primitive == MJ_LOAD_BALANCE && spec->value_size) {
        snprintf(err, errcap, "lbs takes no values: value_size must be 0, not %zu",
                 spec->value_size);
        return -1;
    }
    if (spec->primitive == MJ_INTERVAL_EXPAND &&
        (spec->value_size < 1 || spec->value_size > MJ_MAX_VALUE_SIZE)) {
        snprintf(err, errcap, "expand moves values of 1 to %d bytes: value_size %zu",
                 MJ_MAX_VALUE_SIZE, spec->value_size);
        return -1;
    }
    return 0;
}

/* A reduce's or scan's operator and identity: given together, or both left to the default
 * (a + b and KEY(0)), which only built-in arithmetic keys have: f16 and bf16 are bit patterns
 * here (NVRTC has no cuda_fp16.h without the toolkit), with no + to default to. */
static int check_operator(const mj_kernel_spec *spec, char *err, size_t errcap) {
    const char *name = mj_primitive_name(spec->primitive);
    if (spec->value_size) {
        snprintf(err, errcap, "%s takes no values: value_size must be 0, not %zu", name,
                 spec->value_size);
        return -1;
    }
    if (!spec->op) {
        if (spec->key == MJ_KEY_CUSTOM || spec->key == MJ_KEY_F16 || spec->key == MJ_KEY_BF16) {
            snprintf(err, errcap, "%s of %s keys needs an operator (op) and its identity: there "
                                  "is no built-in a + b for them%s",
                     name, spec->key == MJ_KEY_CUSTOM ? "custom" : mj_key_kind_name(spec->key),
                     spec->key == MJ_KEY_CUSTOM ? "" : " (they are 16-bit patterns, a.bits)");
            return -1;
        }
        if (spec->identity) {
            snprintf(err, errcap, "%s: an identity was given without an operator (op)", name);
            return -1;
        }
        return 0;
    }
    if (!spec->identity) {
        snprintf(err, errcap, "%s: the operator '%s' needs its identity (identity), the value "
                              "of an empty %s", name, spec->op, name);
        return -1;
    }
    if (check_expression(spec->op, "operator", " over a and b", err, errcap) ||
        check_expression(spec->identity, "identity", "", err, errcap))
        return -1;
    return 0;
}

int mj__spec_check(const mj_kernel_spec *spec, char *err, size_t errcap) {
    if ((unsigned)spec->primitive >= MJ_PRIMITIVE_COUNT) {
        snprintf(err, errcap, "unknown primitive %d", (int)spec->primitive);
        return -1;
    }
    if ((unsigned)spec->key >= MJ_KEY_KIND_COUNT) {
        snprintf(err, errcap, "unknown key kind %d", (int)spec->key);
        return -1;
    }
    if (spec->order != MJ_ASCENDING && spec->order != MJ_DESCENDING) {
        snprintf(err, errcap, "unknown order %d", (int)spec->order);
        return -1;
    }
    if (spec->sm < 10 || spec->sm > 1000) {
        snprintf(err, errcap, "target sm %d is not a compute capability", spec->sm);
        return -1;
    }
    if (spec->key == MJ_KEY_CUSTOM) {
        if (!is_type_name(spec->type_name)) {
            snprintf(err, errcap, "a custom key needs type_name, a C++ identifier (got %s%s%s)",
                     spec->type_name ? "'" : "", spec->type_name ? spec->type_name : "none",
                     spec->type_name ? "'" : "");
            return -1;
        }
        if (!spec->type_source) {
            snprintf(err, errcap, "a custom key needs type_source, the CUDA source defining %s",
                     spec->type_name);
            return -1;
        }
        if (spec->type_size == 0 || spec->type_align == 0 ||
            (spec->type_align & (spec->type_align - 1)) || spec->type_size % spec->type_align) {
            snprintf(err, errcap, "a custom key needs a non-zero size that is a multiple of its "
                                  "alignment, a power of two (got size %zu, align %zu)",
                     spec->type_size, spec->type_align);
            return -1;
        }
        if (!spec->less && !is_reduce_or_scan(spec->primitive) && !is_lbs(spec->primitive)) {
            snprintf(err, errcap, "a custom key needs a comparator expression (less)");
            return -1;
        }
    }
    if (is_reduce_or_scan(spec->primitive)) {
        if (check_operator(spec, err, errcap)) return -1;
    } else if (is_lbs(spec->primitive)) {
        if (check_lbs(spec, err, errcap)) return -1;
    } else if (spec->less && check_expression(spec->less, "comparator", " over a and b", err,
                                              errcap)) {
        return -1;
    }
    return mj__tile_shape_check(spec->primitive, mj__spec_key_size(spec), spec->value_size,
                                spec->nt, spec->vt, mj__spec_bs_nt(spec), err, errcap);
}

int mj__tile_shape_check(mj_primitive primitive, size_t key_size, size_t value_size, int nt,
                         int vt, int bs_nt, char *err, size_t errcap) {
    if ((unsigned)primitive >= MJ_PRIMITIVE_COUNT) {
        snprintf(err, errcap, "unknown primitive %d", (int)primitive);
        return -1;
    }
    if (nt < MJ_MIN_NT || nt > MJ_MAX_NT || (nt & (nt - 1))) {
        snprintf(err, errcap, "NT must be a power of two from %d to %d, not %d", MJ_MIN_NT,
                 MJ_MAX_NT, nt);
        return -1;
    }
    if (bs_nt < nt || bs_nt > MJ_MAX_NT || (bs_nt & (bs_nt - 1))) {
        snprintf(err, errcap, "blocksort threads must be a power of two from NT (%d) to %d, "
                              "not %d", nt, MJ_MAX_NT, bs_nt);
        return -1;
    }
    if (vt < 1 || vt > MJ_MAX_VT) {
        snprintf(err, errcap, "VT must be from 1 to %d, not %d", MJ_MAX_VT, vt);
        return -1;
    }
    if (primitive == MJ_SEGMENTED_SORT && vt > MJ_SEG_MAX_VT) {
        snprintf(err, errcap, "a segmented sort takes VT up to %d, not %d", MJ_SEG_MAX_VT, vt);
        return -1;
    }
    if (is_reduce_or_scan(primitive) && (value_size || bs_nt != nt)) {
        snprintf(err, errcap, "%s has no values and no blocksort: value size 0 and blocksort "
                              "threads NT, not %zu and %d", mj_primitive_name(primitive),
                 value_size, bs_nt);
        return -1;
    }
    if (key_size == 0 || value_size > MJ_MAX_VALUE_SIZE) {
        snprintf(err, errcap, "key size %zu and value size %zu: keys need at least one byte "
                              "and values take at most %d", key_size, value_size,
                 MJ_MAX_VALUE_SIZE);
        return -1;
    }
    if (is_lbs(primitive) && bs_nt != nt) {
        snprintf(err, errcap, "%s has no blocksort: blocksort threads must be NT (%d), not %d",
                 mj_primitive_name(primitive), nt, bs_nt);
        return -1;
    }
    /* The merge primitive has no blocksort; its tile is the merge tile. */
    int big_nt = primitive == MJ_MERGE || is_reduce_or_scan(primitive) || is_lbs(primitive)
                     ? nt
                     : bs_nt;
    size_t smem = mj__tile_smem(primitive, big_nt, vt, key_size, value_size);
    if (smem > MJ_STATIC_SMEM_LIMIT) {
        snprintf(err, errcap, "a tile of %d x %d needs %zu bytes of shared memory, over the %d "
                              "a kernel may declare; use fewer threads or a smaller VT",
                 big_nt, vt, smem, MJ_STATIC_SMEM_LIMIT);
        return -1;
    }
    return 0;
}

static int is_pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }

const char *mj__tile_bounds_check(mj_primitive primitive, long long key_size,
                                  long long value_size, long long nt, long long vt,
                                  long long bs_nt, char *why, size_t cap) {
    if (mj_primitive_name(primitive) == NULL)
        snprintf(why, cap, "primitive %d is unknown", (int)primitive);
    else if (key_size < 1 || key_size > 256)
        snprintf(why, cap, "key_size %lld is out of range (1..256)", key_size);
    else if (value_size < 0 || value_size > MJ_MAX_VALUE_SIZE)
        snprintf(why, cap, "value_size %lld is out of range (0..%d)", value_size,
                 MJ_MAX_VALUE_SIZE);
    else if (!is_pow2(nt) || nt < MJ_MIN_NT || nt > MJ_MAX_NT)
        snprintf(why, cap, "nt %lld is not a power of two in %d..%d", nt, MJ_MIN_NT, MJ_MAX_NT);
    else if (vt < 1 || vt > MJ_MAX_VT)
        snprintf(why, cap, "vt %lld is out of range (1..%d)", vt, MJ_MAX_VT);
    else if (bs_nt < nt || bs_nt > MJ_MAX_NT || bs_nt % nt != 0 || !is_pow2(bs_nt / nt))
        snprintf(why, cap, "bs_nt %lld is not nt (%lld) times a power of two, at most %d",
                 bs_nt, nt, MJ_MAX_NT);
    else
        return NULL;
    return why;
}

int mj__spec_bs_nt(const mj_kernel_spec *spec) { return spec->bs_nt ? spec->bs_nt : spec->nt; }

size_t mj__tile_smem(mj_primitive primitive, int nt, int vt, size_t key_size,
                     size_t value_size) {
    size_t nv = (size_t)nt * (size_t)vt;
    /* The tile, two sets of warp totals (reduce) or one and the tile's prefix (scan). */
    if (is_reduce_or_scan(primitive)) return (nv + 2 * (size_t)(nt / 32) + 1) * key_size + 16;
    if (is_lbs(primitive)) return (nv + 1) * key_size + 4 * nv + 16;
    size_t heads = primitive == MJ_SEGMENTED_SORT ? 4 * (size_t)nt : 0;
    /* + 16: room for the padding that aligns the second array */
    return nv * key_size + 4 * (value_size ? nv : 1) + heads + 16;
}

/* The template's text without its #include "..." lines: the generator already placed every
 * dependency before it, and the result must be one self-contained translation unit. */
static void append_template(mj_strbuf *sb, const mj_template *t) {
    mj__sb_printf(sb, "#line 1 \"%s\"\n", t->name);
    const char *p = t->text, *end = t->text + t->size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl + 1 : end;
        if (strncmp(p, "#include \"", 10) == 0)
            mj__sb_puts(sb, "\n"); /* keep the line numbers of the file */
        else
            mj__sb_append(sb, p, (size_t)(stop - p));
        p = stop;
    }
}

static void emit_value_type(mj_strbuf *sb, size_t v) {
    switch (v) {
    case 0:
    case 4: mj__sb_puts(sb, "typedef mj_u32 mj_value;\n"); return;
    case 1: mj__sb_puts(sb, "typedef mj_u8 mj_value;\n"); return;
    case 2: mj__sb_puts(sb, "typedef mj_u16 mj_value;\n"); return;
    case 8: mj__sb_puts(sb, "typedef mj_u64 mj_value;\n"); return;
    case 16: mj__sb_puts(sb, "struct __align__(16) mj_value { mj_u64 lo, hi; };\n"); return;
    default: {
        /* Opaque bytes moved in the widest word that divides the size. */
        size_t w = v % 8 == 0 ? 8 : v % 4 == 0 ? 4 : v % 2 == 0 ? 2 : 1;
        mj__sb_printf(sb, "struct mj_value { mj_u%zu w[%zu]; };\n", w * 8, v / w);
    }
    }
}

static void emit_builtin_less(mj_strbuf *sb, const mj_kernel_spec *spec) {
    int bits = builtin_keys[spec->key].float_bits;
    int desc = spec->order == MJ_DESCENDING;
    if (!bits)
        mj__sb_printf(sb, "    return %s;\n", desc ? "b < a" : "a < b");
    else if (!desc)
        mj__sb_puts(sb, "    return mj_key_ord(a) < mj_key_ord(b);\n");
    else
        mj__sb_printf(sb, "    return mj_desc%d(mj_key_ord(a)) < mj_desc%d(mj_key_ord(b));\n",
                      bits, bits);
}

/* Reduce and scan: mj_op and mj_identity (the sorts' mj_less is not needed). */
static void emit_operator(mj_strbuf *sb, const mj_kernel_spec *spec) {
    /* NVRTC has no <math.h>: identities like -INFINITY (max) still read as in CUDA C++. */
    mj__sb_puts(sb, "#ifndef INFINITY\n#define INFINITY __int_as_float(0x7f800000)\n#endif\n");
    mj__sb_puts(sb, "MJ_DEVICE mj_key mj_op(const mj_key &a, const mj_key &b) {\n");
    mj__sb_puts(sb, "#line 1 \"operator\"\n    return (mj_key)(");
    mj__sb_puts(sb, spec->op ? spec->op : "a + b");
    mj__sb_puts(sb, "\n    );\n}\n#line 1 \"mergejit_spec\"\n");
    mj__sb_puts(sb, "MJ_DEVICE mj_key mj_identity() {\n");
    mj__sb_puts(sb, "#line 1 \"identity\"\n    return (mj_key)(");
    mj__sb_puts(sb, spec->identity ? spec->identity : "0");
    mj__sb_puts(sb, "\n    );\n}\n");
}

mj_status mj__gen_status(int rc) {
    return rc == MJ_GEN_NO_MEMORY ? MJ_ERR_HOST_MEMORY : MJ_ERR_INVALID_ARGUMENT;
}

int mj__gen_source(const mj_kernel_spec *spec, char **out, size_t *len, char *err,
                   size_t errcap) {
    *out = NULL;
    if (mj__spec_check(spec, err, errcap)) return -1;
    mj_strbuf sb;
    mj__sb_init(&sb);

    mj__sb_printf(&sb, "/* mergejit %s generated: %s of %s keys, %zu-byte values, "
                      "NT %d, VT %d, blocksort NT %d, sm_%d. */\n",
                  MJ_VERSION_STRING, mj_primitive_name(spec->primitive),
                  mj_key_kind_name(spec->key), spec->value_size, spec->nt, spec->vt,
                  mj__spec_bs_nt(spec), spec->sm);
    mj__sb_printf(&sb, "#define MJ_SPEC 1\n#define MJ_SM %d\n#define MJ_NT %d\n#define MJ_VT %d\n",
                  spec->sm, spec->nt, spec->vt);
    mj__sb_printf(&sb, "#define MJ_BS_NT %d\n", mj__spec_bs_nt(spec));
    mj__sb_printf(&sb, "#define MJ_HAS_VALUES %d\n#define MJ_VALUE_IS_INDEX %d\n",
                  spec->value_size > 0, spec->value_size == 4 || spec->value_size == 8);
    mj__sb_printf(&sb, "#define MJ_SEGMENTED %d\n", spec->primitive == MJ_SEGMENTED_SORT);

    for (const char *const *name = prelude_templates; *name; ++name) {
        const mj_template *t = mj__template_find(*name);
        if (!t) goto missing;
        append_template(&sb, t);
    }

    mj__sb_puts(&sb, "#line 1 \"mergejit_spec\"\n");
    if (spec->key == MJ_KEY_CUSTOM) {
        mj__sb_puts(&sb, "#line 1 \"type_source\"\n");
        mj__sb_puts(&sb, spec->type_source);
        mj__sb_puts(&sb, "\n#line 1 \"mergejit_spec\"\n");
        mj__sb_printf(&sb, "typedef %s mj_key;\n", spec->type_name);
        mj__sb_printf(&sb, "static_assert(sizeof(mj_key) == %zu, \"mergejit: sizeof(%s) is not "
                          "%zu as declared\");\n",
                     spec->type_size, spec->type_name, spec->type_size);
        mj__sb_printf(&sb, "static_assert(alignof(mj_key) == %zu, \"mergejit: alignof(%s) is not "
                          "%zu as declared\");\n",
                     spec->type_align, spec->type_name, spec->type_align);
    } else {
        mj__sb_printf(&sb, "typedef %s mj_key;\n", builtin_keys[spec->key].cuda_type);
    }
    emit_value_type(&sb, spec->value_size);
    if (is_reduce_or_scan(spec->primitive)) {
        emit_operator(&sb, spec);
        goto primitive;
    }
    if (is_lbs(spec->primitive)) goto primitive; /* no comparator: offsets compare as integers */
    mj__sb_puts(&sb, "MJ_DEVICE bool mj_less(const mj_key &a, const mj_key &b) {\n");
    if (spec->less) {
        mj__sb_puts(&sb, "#line 1 \"comparator\"\n    return (bool)(");
        mj__sb_puts(&sb, spec->less);
        mj__sb_puts(&sb, "\n    );\n");
    } else {
        emit_builtin_less(&sb, spec);
    }
    mj__sb_puts(&sb, "}\n");

primitive:
    /* mj__spec_check took the primitive: its list is not NULL. */
    for (const char *const *name = mj__primitive_templates(spec->primitive); *name; ++name) {
        const mj_template *t = mj__template_find(*name);
        if (!t) goto missing;
        append_template(&sb, t);
    }
    *out = mj__sb_take(&sb, len);
    if (!*out) {
        snprintf(err, errcap, "out of host memory while generating source");
        return MJ_GEN_NO_MEMORY;
    }
    return 0;
missing:
    mj__sb_free(&sb);
    snprintf(err, errcap, "a template is missing from this build of the library");
    return -1;
}
