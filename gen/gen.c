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
static const char *const move_templates[] = {
    "load_balance.h",  "cta_load_balance.cuh", "kernel_lbs_partition.cuh",
    "interval_move.h", "kernel_move.cuh",      NULL,
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
    [MJ_K_MOVE] = "mj_move_tiles",
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
    case MJ_INTERVAL_MOVE: return K(MJ_K_LBS_PARTITION) | K(MJ_K_MOVE);
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
    case MJ_INTERVAL_MOVE: return move_templates;
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
    if (mj__is_reduce_or_scan(spec->primitive)) {
        emit_operator(&sb, spec);
        goto primitive;
    }
    /* No comparator for lbs, expand and move: offsets compare as integers. */
    if (mj__is_lbs(spec->primitive)) goto primitive;
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
