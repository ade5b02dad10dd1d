/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel specs: their key size and the checks of a spec and of a tile shape (against the
 * primitive's row in catalog.c). The generator (gen.c) writes source only for specs that
 * pass. */
#include "spec.h"

#include <stdio.h>
#include <string.h>

size_t mj__spec_key_size(const mj_kernel_spec *spec) {
    return spec->key == MJ_KEY_CUSTOM ? spec->type_size : mj_key_kind_size(spec->key);
}

size_t mj__value_align(size_t v) {
    if (v == 0) return 1;
    if (v == 16) return 16;
    return v % 8 == 0 ? 8 : v % 4 == 0 ? 4 : v % 2 == 0 ? 2 : 1;
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


/* value_size against the primitive's rule (its traits row). */
static int check_values(const mj_kernel_spec *spec, char *err, size_t errcap) {
    const char *name = mj_primitive_name(spec->primitive);
    int rule = mj__primitive_traits(spec->primitive)->values;
    if (rule == MJ_VALUES_NONE && spec->value_size) {
        snprintf(err, errcap, "%s takes no values: value_size must be 0, not %zu", name,
                 spec->value_size);
        return -1;
    }
    if (rule == MJ_VALUES_REQUIRED &&
        (spec->value_size < 1 || spec->value_size > MJ_MAX_VALUE_SIZE)) {
        snprintf(err, errcap, "%s moves values of 1 to %d bytes: value_size %zu", name,
                 MJ_MAX_VALUE_SIZE, spec->value_size);
        return -1;
    }
    return 0;
}

/* A value type's name: a C++ type name, which may be several words ("unsigned long long"). */
static int is_value_type_name(const char *s) {
    if (!s || !*s || *s == ' ' || s[strlen(s) - 1] == ' ') return 0;
    for (; *s; ++s) {
        int ok = *s == '_' || *s == ':' || *s == ' ' || (*s >= '0' && *s <= '9') ||
                 (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z');
        if (!ok) return 0;
    }
    return 1;
}

/* The value type and its operator (reduce by key), or their absence (every other primitive,
 * whose generated source and cache keys must not depend on fields it does not use). */
static int check_value_type(const mj_kernel_spec *spec, char *err, size_t errcap) {
    const char *name = mj_primitive_name(spec->primitive);
    if (!mj__has_value_op(spec->primitive)) {
        if (spec->value_type || spec->value_type_source) {
            snprintf(err, errcap, "%s takes no value_type or value_type_source (reduce by key "
                                  "alone combines values): leave them NULL", name);
            return -1;
        }
        return 0;
    }
    if (!is_value_type_name(spec->value_type)) {
        snprintf(err, errcap, "%s needs value_type, the CUDA type of its values, e.g. \"float\" "
                              "or \"unsigned long long\" (got %s%s%s)",
                 name, spec->value_type ? "'" : "", spec->value_type ? spec->value_type : "none",
                 spec->value_type ? "'" : "");
        return -1;
    }
    if (!spec->op && (spec->identity || spec->value_type_source)) {
        snprintf(err, errcap, "%s: %s", name,
                 spec->identity ? "an identity was given without an operator (op)"
                                : "a value type of value_type_source needs an operator (op) "
                                  "and its identity: the default is a + b and 0");
        return -1;
    }
    if (spec->op && !spec->identity) {
        snprintf(err, errcap, "%s: the operator '%s' needs its identity (identity)", name,
                 spec->op);
        return -1;
    }
    if (spec->op && (check_expression(spec->op, "operator", " over a and b", err, errcap) ||
                     check_expression(spec->identity, "identity", "", err, errcap)))
        return -1;
    return 0;
}

/* Load-balancing search, expand and move: the key is the index type of the offsets and
 * outputs. */
static int check_lbs(const mj_kernel_spec *spec, char *err, size_t errcap) {
    if (spec->key != MJ_KEY_I32 && spec->key != MJ_KEY_I64) {
        snprintf(err, errcap, "%s takes i32 or i64 keys (the index type of the offsets), not %s",
                 mj_primitive_name(spec->primitive),
                 spec->key == MJ_KEY_CUSTOM ? "a custom type" : mj_key_kind_name(spec->key));
        return -1;
    }
    return 0;
}

/* A reduce's or scan's operator and identity: given together, or both left to the default
 * (a + b and KEY(0)), which only built-in arithmetic keys have: f16 and bf16 are bit patterns
 * here (NVRTC has no cuda_fp16.h without the toolkit), with no + to default to. */
static int check_operator(const mj_kernel_spec *spec, char *err, size_t errcap) {
    const char *name = mj_primitive_name(spec->primitive);
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
    if (!mj__primitive_row(spec->primitive)) {
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
        const mj_primitive_traits *t = mj__primitive_traits(spec->primitive);
        /* A selection by op alone orders nothing: select needs less for unique only. */
        if (!spec->less && t->comparator && !(t->predicate && spec->op)) {
            snprintf(err, errcap, "a custom key needs a comparator expression (less)%s",
                     t->predicate ? ", or a selection operator (op) for a sorter that only "
                                    "selects"
                                  : "");
            return -1;
        }
    }
    if (check_values(spec, err, errcap) || check_value_type(spec, err, errcap)) return -1;
    if (mj__is_reduce_or_scan(spec->primitive)) {
        if (check_operator(spec, err, errcap)) return -1;
    } else if (mj__is_lbs(spec->primitive)) {
        if (check_lbs(spec, err, errcap)) return -1;
    } else if (mj__is_bulk(spec->primitive)) {
        /* Elements are only moved: no comparator is pasted, whatever less says. */
    } else if (spec->less && check_expression(spec->less, "comparator", " over a and b", err,
                                              errcap)) {
        return -1;
    } else if (mj__primitive_traits(spec->primitive)->predicate) {
        if (spec->identity) {
            snprintf(err, errcap, "%s takes no identity (its op is a selection operator)",
                     mj_primitive_name(spec->primitive));
            return -1;
        }
        if (spec->op && check_expression(spec->op, "selection operator", " over a", err, errcap))
            return -1;
    }
    return mj__tile_shape_check(spec->primitive, mj__spec_key_size(spec), spec->value_size,
                                spec->nt, spec->vt, mj__spec_bs_nt(spec), err, errcap);
}

int mj__tile_shape_check(mj_primitive primitive, size_t key_size, size_t value_size, int nt,
                         int vt, int bs_nt, char *err, size_t errcap) {
    if (!mj__primitive_row(primitive)) {
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
    if (mj__primitive_traits(primitive)->segmented && vt > MJ_SEG_MAX_VT) {
        snprintf(err, errcap, "a segmented sort takes VT up to %d, not %d", MJ_SEG_MAX_VT, vt);
        return -1;
    }
    if (mj__is_reduce_or_scan(primitive) && (value_size || bs_nt != nt)) {
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
    const mj_primitive_traits *traits = mj__primitive_traits(primitive);
    if (traits->fixed_nt && bs_nt != nt) {
        snprintf(err, errcap, "%s has no blocksort: blocksort threads must be NT (%d), not %d",
                 mj_primitive_name(primitive), nt, bs_nt);
        return -1;
    }
    /* Without a blocksort the largest block is the merge tile's. */
    int big_nt = traits->blocksort ? bs_nt : nt;
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
