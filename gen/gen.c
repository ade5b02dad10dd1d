/* SPDX-License-Identifier: Apache-2.0 */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "templates_embedded.h"

static const struct {
    const char *cuda_type;
    const char *format;  /* floats: their name in shared/float_order.h; NULL for integers */
    const char *ordinal; /* floats: the unsigned type of their ordinals */
} builtin_keys[MJ_KEY_KIND_COUNT] = {
    [MJ_KEY_U8] = {"mj_u8", NULL, NULL},     [MJ_KEY_I8] = {"signed char", NULL, NULL},
    [MJ_KEY_U16] = {"mj_u16", NULL, NULL},   [MJ_KEY_I16] = {"short", NULL, NULL},
    [MJ_KEY_U32] = {"mj_u32", NULL, NULL},   [MJ_KEY_I32] = {"int", NULL, NULL},
    [MJ_KEY_U64] = {"mj_u64", NULL, NULL},   [MJ_KEY_I64] = {"long long", NULL, NULL},
    [MJ_KEY_F16] = {"mj_f16", "f16", "mj_u16"}, [MJ_KEY_BF16] = {"mj_bf16", "bf16", "mj_u16"},
    [MJ_KEY_F32] = {"float", "f32", "mj_u32"},  [MJ_KEY_F64] = {"double", "f64", "mj_u64"},
};

/* Mergesort of floats in a built-in order holds its keys as ordinals (shared/float_order.h):
 * the blocksort maps each key once as it loads it and the last pass maps it back as it stores
 * it, so that every comparison between is a plain unsigned <. mj_key is then the ordinal type
 * (the same size as the float). The queued sorts leave tiles where a pass finds them, with no
 * last store of every key to map back in, and the other primitives search keys where the
 * caller keeps them (their partitions, the searches): they map at each comparison
 * (mj_key_ord), in the same order. */
static int maps_keys(const mj_kernel_spec *spec) {
    return mj__primitive_traits(spec->primitive)->ordinals && mj__spec_builtin_order(spec) &&
           builtin_keys[spec->key].format;
}

/* A custom key is held as its bytes (emit_bytes_type) by every primitive but reduce and scan,
 * whose operator builds keys of the type: a copy of the type's struct, in registers, shared
 * memory or to the output, would move its fields and leave the padding bytes unwritten (issue
 * 43); the words move every byte, and the comparator sees the type through a bit cast. */
static int keys_as_bytes(const mj_kernel_spec *spec) {
    return spec->key == MJ_KEY_CUSTOM && !mj__is_reduce_or_scan(spec->primitive);
}

/* The minimum resident blocks per multiprocessor (a launch bound) of a kernel of nt threads
 * whose registers are capped at `threads` a multiprocessor, where such caps were measured:
 * 4-byte keys on sm_90. Custom comparators take them too (a 4-byte struct compared by one
 * field compiled to 58 registers without, two blocksort blocks a multiprocessor instead of
 * three); a custom comparator's program that spills under them is built again with
 * spec->uncapped (core/loader.c). 1 (no cap) otherwise, and for blocks of more than
 * `threads`. */
static int capped_blocks(const mj_kernel_spec *spec, int threads, int nt) {
    if (spec->uncapped || mj__spec_key_size(spec) != 4 || spec->sm != 90 || nt > threads)
        return 1;
    return threads / nt;
}

/* The 4-way merge kernel's minimum resident blocks per multiprocessor (its launch bound). On an
 * H100 (bench_sort, 2^24 and 2^27) a cap of 1536 threads' registers (40 a thread, from 48) took
 * u32 keys from 1.27 to 1.36 of CUB and u32 pairs from 1.20 to 1.40. Wider elements would spill
 * under it, so only 4-byte keys take it, and only on sm_90, where it was measured (on sm_80
 * the pairs spill 16 bytes). With values of at most 4 bytes the cap is 1280 threads (48
 * registers): under 1536, ascending pairs spill 32 bytes and descending ones too, where 1280
 * leaves none; one H100 run (u32 pairs, 1536 -> 1280):
 * 2^25 1.276 -> 1.263 of CUB, 2^27 1.389 -> 1.372, and for keys alone 1536 stays (1280 lost
 * 3%: u32 2^27 1.348 -> 1.306). A custom comparator with values keeps no cap: a 4-byte struct
 * with 4-byte values spilled 24 bytes under 1280 (ptxas, sm_90), a rebuild on every cold
 * build. */
static int merge4_min_blocks(const mj_kernel_spec *spec) {
    if (spec->value_size > 4 || (spec->value_size && !mj__spec_builtin_order(spec))) return 1;
    return capped_blocks(spec, spec->value_size ? 1280 : 1536, spec->nt);
}

/* The blocksort's minimum resident blocks per multiprocessor (its launch bound; 1 but for
 * mergesort). Built-in 4-byte keys alone sort in 512-thread tiles on sm_90; u32 keys compile
 * to 40 registers there (three blocks a multiprocessor), but f32 keys, mapped to their
 * ordinals, took 54-60 (two). A cap of 1536 threads' registers gives every such key 40
 * without spilling (ptxas, both orders: test_compile); on an H100 f32 keys went from 1.32 to
 * 1.35 of CUB at 2^24 and from 1.42 to 1.45 at 2^27 (bench_sort), as fast as u32 keys.
 * Measured only on sm_90; values and wider keys keep no cap. */
static int blocksort_min_blocks(const mj_kernel_spec *spec) {
    if (!mj__primitive_traits(spec->primitive)->capped_blocksort || spec->value_size) return 1;
    return capped_blocks(spec, 1536, mj__spec_bs_nt(spec));
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

/* A struct `name` of opaque bytes, size of them, moved in words of the widest size (up to 8)
 * that divides both size and align: a copy writes every byte, padding of the type it stands
 * for included. An alignment over 8 is declared, so that copies may take 16-byte words. */
static void emit_bytes_type(mj_strbuf *sb, const char *name, size_t size, size_t align) {
    size_t w = 8;
    while (size % w || align % w) w /= 2;
    mj__sb_puts(sb, "struct ");
    if (align > w) mj__sb_printf(sb, "__align__(%zu) ", align);
    mj__sb_printf(sb, "%s { mj_u%zu w[%zu]; };\n", name, w * 8, size / w);
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
        /* Element i of a value array lies at i * v bytes: aligned to the largest power of two
         * dividing v, taken up to a word. */
        size_t align = v & (0 - v);
        emit_bytes_type(sb, "mj_value", v, align < 8 ? align : 8);
    }
    }
}

static void emit_builtin_less(mj_strbuf *sb, const mj_kernel_spec *spec) {
    int desc = spec->order == MJ_DESCENDING;
    if (!builtin_keys[spec->key].format || maps_keys(spec))
        mj__sb_printf(sb, "    return %s;\n", desc && !maps_keys(spec) ? "b < a" : "a < b");
    else if (!desc)
        mj__sb_puts(sb, "    return mj_key_ord(a) < mj_key_ord(b);\n");
    else
        mj__sb_puts(sb, "    return mj_key_ord_desc(a) < mj_key_ord_desc(b);\n");
}

/* The maps between a float's bits and its ordinal in the spec's order (maps_keys). */
static void emit_key_maps(mj_strbuf *sb, const mj_kernel_spec *spec) {
    const char *f = builtin_keys[spec->key].format;
    int desc = spec->order == MJ_DESCENDING;
    mj__sb_puts(sb, "MJ_DEVICE mj_key mj_key_in(mj_key b) {\n");
    if (desc)
        mj__sb_printf(sb, "    return mj_%s_flip(mj_%s_asc(b));\n}\n", f, f);
    else
        mj__sb_printf(sb, "    return mj_%s_asc(b);\n}\n", f);
    mj__sb_puts(sb, "MJ_DEVICE mj_key mj_key_out(mj_key o) {\n");
    if (desc)
        mj__sb_printf(sb, "    return mj_%s_bits(mj_%s_flip(o));\n}\n", f, f);
    else
        mj__sb_printf(sb, "    return mj_%s_bits(o);\n}\n", f);
}

/* Whether reduce may combine the keys in any order (kernel_reduce.cuh): only for a sum of
 * built-in arithmetic keys (the default, which the tile choice spells "a + b"), where the
 * library knows the operator commutes; a custom type's operator+ need not. */
static int op_commutes(const mj_kernel_spec *spec) {
    int arithmetic = spec->key != MJ_KEY_CUSTOM && spec->key != MJ_KEY_F16 &&
                     spec->key != MJ_KEY_BF16;
    return arithmetic && (!spec->op || !strcmp(spec->op, "a + b"));
}

/* The operator `fn` over two `type`s and its identity `identity_fn`, from the spec's op and
 * identity (NULL: a + b and 0): reduce and scan combine keys (mj_op, mj_identity), reduce by
 * key values (mj_value_op, mj_value_identity). */
static void emit_operator(mj_strbuf *sb, const mj_kernel_spec *spec, const char *type,
                          const char *fn, const char *identity_fn) {
    /* NVRTC has no <math.h>: identities like -INFINITY (max) still read as in CUDA C++. */
    mj__sb_puts(sb, "#ifndef INFINITY\n#define INFINITY __int_as_float(0x7f800000)\n#endif\n");
    mj__sb_printf(sb, "MJ_DEVICE %s %s(const %s &a, const %s &b) {\n", type, fn, type, type);
    mj__sb_printf(sb, "#line 1 \"operator\"\n    return (%s)(", type);
    mj__sb_puts(sb, spec->op ? spec->op : "a + b");
    mj__sb_puts(sb, "\n    );\n}\n#line 1 \"mergejit_spec\"\n");
    mj__sb_printf(sb, "MJ_DEVICE %s %s() {\n", type, identity_fn);
    mj__sb_printf(sb, "#line 1 \"identity\"\n    return (%s)(", type);
    mj__sb_puts(sb, spec->identity ? spec->identity : "0");
    mj__sb_puts(sb, "\n    );\n}\n");
}

/* The head of `MJ_DEVICE bool name(...)` over `keys` keys (1 or 2), named a (and b) for the
 * caller's expression: a custom key held as its bytes is seen as its type, a bit cast of the
 * bytes in registers (the comparator and select's predicate alike). */
static void emit_key_predicate_head(mj_strbuf *sb, const mj_kernel_spec *spec, const char *name,
                                    int keys) {
    int bytes = keys_as_bytes(spec);
    mj__sb_printf(sb, "MJ_DEVICE bool %s(", name);
    for (int i = 0; i < keys; ++i)
        mj__sb_printf(sb, "%sconst mj_key &%s%c", i ? ", " : "", bytes ? "mj_" : "", "ab"[i]);
    mj__sb_puts(sb, ") {\n");
    if (!bytes) return;
    mj__sb_printf(sb, "    const %s ", spec->type_name);
    for (int i = 0; i < keys; ++i)
        mj__sb_printf(sb, "%s&%c = __builtin_bit_cast(%s, mj_%c)", i ? ", " : "", "ab"[i],
                      spec->type_name, "ab"[i]);
    mj__sb_puts(sb, ";\n");
}

/* Select: mj_select_op, the selection operator over one key, seen as the type as mj_less
 * sees it. Without one the sorter only runs unique (the host refuses a selection). */
static void emit_select_op(mj_strbuf *sb, const mj_kernel_spec *spec) {
    emit_key_predicate_head(sb, spec, "mj_select_op", 1);
    mj__sb_puts(sb, "#line 1 \"selection operator\"\n    return (bool)(");
    mj__sb_puts(sb, spec->op ? spec->op : "false");
    mj__sb_puts(sb, "\n    );\n}\n");
}

/* Reduce by key's values: the caller's type (and its source), checked against value_size and
 * the alignment a run checks the value arrays for, as mj_value. */
static void emit_value_type_of(mj_strbuf *sb, const mj_kernel_spec *spec) {
    if (spec->value_type_source) {
        mj__sb_puts(sb, "#line 1 \"value_type_source\"\n");
        mj__sb_puts(sb, spec->value_type_source);
        mj__sb_puts(sb, "\n#line 1 \"mergejit_spec\"\n");
    }
    const char *t = spec->value_type;
    mj__sb_printf(sb, "typedef %s mj_value;\n", t);
    mj__sb_printf(sb, "static_assert(sizeof(mj_value) == %zu, \"mergejit: sizeof(%s) is not %zu "
                      "as declared (value_size)\");\n",
                  spec->value_size, t, spec->value_size);
    mj__sb_printf(sb, "static_assert(alignof(mj_value) <= %zu, \"mergejit: alignof(%s) is over "
                      "%zu, the alignment of arrays of %zu-byte values\");\n",
                  mj__value_align(spec->value_size), t, mj__value_align(spec->value_size),
                  spec->value_size);
    mj__sb_printf(sb, "static_assert(__is_trivially_copyable(mj_value), \"mergejit: %s must be "
                      "trivially copyable\");\n", t);
}

/* The kernel a definition starting at `at` (just past `extern "C" __global__ void`) defines:
 * its name's start and length (0 when the text is not a definition of that form). */
static size_t kernel_name_at(const char *at, const char **name) {
    *name = at;
    while (*at == ' ' || *at == '\n') ++at;
    if (strncmp(at, "__launch_bounds__(", 18) == 0) {
        at = strchr(at, ')');
        if (!at) return 0; /* *name is not used */
        ++at;
        while (*at == ' ' || *at == '\n') ++at;
    }
    size_t n = 0;
    while ((at[n] >= 'a' && at[n] <= 'z') || (at[n] >= 'A' && at[n] <= 'Z') ||
           (at[n] >= '0' && at[n] <= '9') || at[n] == '_')
        ++n;
    *name = at;
    return at[n] == '(' ? n : 0;
}

int mj__gen_kernel_source(const char *module_source, const char *kernel, char **out,
                          size_t *len) {
    static const char linkage[] = "extern \"C\"", head[] = "extern \"C\" __global__ void";
    mj_strbuf sb;
    mj__sb_init(&sb);
    int found = 0;
    const char *p = module_source;
    for (const char *at; (at = strstr(p, head)) != NULL; p = at + sizeof linkage - 1) {
        const char *name;
        size_t n = kernel_name_at(at + sizeof head - 1, &name);
        int keep = n == strlen(kernel) && strncmp(name, kernel, n) == 0;
        found += keep;
        mj__sb_append(&sb, p, (size_t)(at - p));
        mj__sb_puts(&sb, n && !keep ? "template <int>" : linkage);
    }
    mj__sb_puts(&sb, p);
    *out = mj__sb_take(&sb, len);
    if (!*out) return MJ_GEN_NO_MEMORY;
    if (found != 1) {
        free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

mj_status mj__gen_status(int rc) {
    return rc == MJ_GEN_NO_MEMORY ? MJ_ERR_HOST_MEMORY : MJ_ERR_INVALID_ARGUMENT;
}

int mj__gen_source(const mj_kernel_spec *spec, char **out, size_t *len, char *err,
                   size_t errcap) {
    *out = NULL;
    if (mj__spec_check(spec, err, errcap)) return -1;
    const mj_primitive_traits *traits = mj__primitive_traits(spec->primitive);
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
    /* Reduce by key's values are of the caller's type, never indices. */
    mj__sb_printf(&sb, "#define MJ_HAS_VALUES %d\n#define MJ_VALUE_IS_INDEX %d\n",
                  spec->value_size > 0,
                  (spec->value_size == 4 || spec->value_size == 8) &&
                      !mj__has_value_op(spec->primitive));
    mj__sb_printf(&sb, "#define MJ_SEGMENTED %d\n", traits->segmented);
    mj__sb_printf(&sb, "#define MJ_KEY_MAP %d\n", maps_keys(spec));
    mj__sb_printf(&sb, "#define MJ_BLOCKSORT_MIN_BLOCKS %d\n", blocksort_min_blocks(spec));
    if (traits->merge4)
        mj__sb_printf(&sb, "#define MJ_MERGE4_MIN_BLOCKS %d\n", merge4_min_blocks(spec));

    for (const char *const *name = mj__prelude_templates(); *name; ++name) {
        const mj_template *t = mj__template_find(*name);
        if (!t) goto missing;
        append_template(&sb, t);
    }

    mj__sb_puts(&sb, "#line 1 \"mergejit_spec\"\n");
    if (spec->key == MJ_KEY_CUSTOM) {
        mj__sb_puts(&sb, "#line 1 \"type_source\"\n");
        mj__sb_puts(&sb, spec->type_source);
        mj__sb_puts(&sb, "\n#line 1 \"mergejit_spec\"\n");
        int bytes = keys_as_bytes(spec);
        const char *checked = bytes ? spec->type_name : "mj_key";
        if (!bytes) mj__sb_printf(&sb, "typedef %s mj_key;\n", spec->type_name);
        mj__sb_printf(&sb, "static_assert(sizeof(%s) == %zu, \"mergejit: sizeof(%s) is not "
                          "%zu as declared\");\n",
                     checked, spec->type_size, spec->type_name, spec->type_size);
        mj__sb_printf(&sb, "static_assert(alignof(%s) == %zu, \"mergejit: alignof(%s) is not "
                          "%zu as declared\");\n",
                     checked, spec->type_align, spec->type_name, spec->type_align);
        if (bytes) {
            mj__sb_printf(&sb, "static_assert(__is_trivially_copyable(%s), \"mergejit: %s is "
                              "moved as bytes: it must be trivially copyable\");\n",
                         spec->type_name, spec->type_name);
            emit_bytes_type(&sb, "mj_key", spec->type_size, spec->type_align);
        }
    } else {
        mj__sb_printf(&sb, "typedef %s mj_key;\n", maps_keys(spec)
                                                          ? builtin_keys[spec->key].ordinal
                                                          : builtin_keys[spec->key].cuda_type);
        if (maps_keys(spec)) emit_key_maps(&sb, spec);
    }
    if (mj__has_value_op(spec->primitive))
        emit_value_type_of(&sb, spec);
    else
        emit_value_type(&sb, spec->value_size);
    if (mj__is_reduce_or_scan(spec->primitive)) {
        emit_operator(&sb, spec, "mj_key", "mj_op", "mj_identity");
        if (spec->primitive == MJ_REDUCE)
            mj__sb_printf(&sb, "#define MJ_OP_COMMUTES %d\n", op_commutes(spec));
        goto primitive;
    }
    /* No comparator for lbs, expand and move (offsets compare as integers), nor for bulk
     * remove and insert (elements are only moved). */
    if (mj__is_lbs(spec->primitive) || mj__is_bulk(spec->primitive)) goto primitive;
    emit_key_predicate_head(&sb, spec, "mj_less", 2);
    if (spec->less) {
        mj__sb_puts(&sb, "#line 1 \"comparator\"\n    return (bool)(");
        mj__sb_puts(&sb, spec->less);
        mj__sb_puts(&sb, "\n    );\n");
    } else if (spec->key == MJ_KEY_CUSTOM) {
        /* A select sorter with op alone (mj__spec_check): unique is refused on the host. */
        mj__sb_puts(&sb, "    return false;\n");
    } else {
        emit_builtin_less(&sb, spec);
    }
    mj__sb_puts(&sb, "}\n");
    if (mj__primitive_traits(spec->primitive)->predicate) emit_select_op(&sb, spec);
    if (mj__has_value_op(spec->primitive))
        emit_operator(&sb, spec, "mj_value", "mj_value_op", "mj_value_identity");

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
