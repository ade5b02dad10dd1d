/* SPDX-License-Identifier: Apache-2.0 */
/* Tile shapes: the tuning file's records and the order in which a sorter's tile is chosen
 * (the built-in defaults are the catalogue's, gen/catalog.h); and the spec a description
 * asks for. */
#include "core/tile_choice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_io.h"
#include "core/bundle_match.h"
#include "core/context.h"
#include "store/tuning_file.h"
#include "store/tuning_parse.h"
#include "store/tuning_write.h"

mj_status mj__spec_from_desc(mj_context *ctx, const mj_sort_desc *desc, mj_kernel_spec *spec) {
    if ((unsigned)desc->key >= MJ_KEY_KIND_COUNT)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "unknown key kind %d", (int)desc->key);
    if (!mj__primitive_row(desc->primitive))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "unknown primitive %d",
                        (int)desc->primitive);
    if (!mj__has_value_op(desc->primitive) && (desc->value_type || desc->value_type_source))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s takes no value_type or value_type_source (reduce by key alone "
                        "combines values): leave them NULL",
                        mj_primitive_name(desc->primitive));
    if (desc->value_size > MJ_MAX_VALUE_SIZE)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        "value_size %zu is over the largest supported, %d bytes",
                        desc->value_size, MJ_MAX_VALUE_SIZE);
    char why[128];
    if (mj__tuning_check_merge4(desc->primitive, desc->merge4_log2, why, sizeof why))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "%s", why);
    *spec = (mj_kernel_spec){
        .primitive = desc->primitive,
        .key = desc->key,
        .order = desc->order,
        .less = desc->less,
        .type_name = desc->type_name,
        .type_source = desc->type_source,
        .type_size = desc->type_size,
        .type_align = desc->type_align,
        .value_size = desc->value_size,
        .sm = ctx->sm,
    };
    /* The primitives with an operator take op and identity; the sorts ignore them. */
    if (mj__takes_op(desc->primitive)) {
        spec->op = desc->op;
        spec->identity = desc->identity;
    }
    /* Reduce and scan use the operator, not the order: one kernel (one cache and bundle entry)
     * whatever order and less say. */
    if (mj__is_reduce_or_scan(desc->primitive)) {
        if (desc->value_size)
            return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                            "%s takes no values: value_size must be 0, not %zu",
                            mj_primitive_name(desc->primitive), desc->value_size);
        spec->order = MJ_ASCENDING;
        spec->less = NULL;
        /* The defaults spelled out, so that a bundle entry built either way serves both (the
         * generated source is the same). f16, bf16 and custom keys have none: the generator
         * refuses them without op. */
        int arithmetic = desc->key != MJ_KEY_CUSTOM && desc->key != MJ_KEY_F16 &&
                         desc->key != MJ_KEY_BF16;
        if (arithmetic && !desc->op && !desc->identity) {
            spec->op = "a + b";
            spec->identity = "0";
        }
    }
    /* Reduce by key: the keys keep their order or less, the values their type and operator
     * (the default spelled out, as for reduce and scan). */
    if (mj__has_value_op(desc->primitive)) {
        spec->value_type = desc->value_type;
        spec->value_type_source = desc->value_type_source;
        if (!desc->op && !desc->identity && !desc->value_type_source) {
            spec->op = "a + b";
            spec->identity = "0";
        }
    }
    /* Load-balancing search, expand and move compare offsets as integers: one kernel whatever
     * order and less say. */
    if (mj__is_lbs(desc->primitive)) {
        spec->order = MJ_ASCENDING;
        spec->less = NULL;
    }
    /* Bulk remove and insert only move elements, as bytes: one kernel whatever order and less
     * say, and built-in keys of one size share it (as the unsigned kind of that size). */
    if (mj__is_bulk(desc->primitive)) {
        spec->order = MJ_ASCENDING;
        spec->less = NULL;
        static const mj_key_kind by_size[9] = {[1] = MJ_KEY_U8, [2] = MJ_KEY_U16,
                                               [4] = MJ_KEY_U32, [8] = MJ_KEY_U64};
        if (desc->key != MJ_KEY_CUSTOM) spec->key = by_size[mj_key_kind_size(desc->key)];
    }
    return MJ_OK;
}

/* MERGEJIT_TILE=NTxVT or NTxVTxBS overrides the tile shapes (BS: blocksort threads, else
 * NT), for tuning experiments. A bad shape is caught by the generator's spec check. */
static int tile_override(int *nt, int *vt, int *bs_nt) {
    const char *s = getenv("MERGEJIT_TILE");
    int a, b, c;
    int got = s ? sscanf(s, "%dx%dx%d", &a, &b, &c) : 0;
    if (got < 2) return 0;
    *nt = a;
    *vt = b;
    *bs_nt = got == 3 ? c : a;
    return 1;
}

/* This device's tuning record for a primitive and sizes, or NULL. */
static const mj_tuning_entry *record(const mj_context *ctx, mj_primitive primitive,
                                     size_t key_size, size_t value_size) {
    return mj__tuning_find(&ctx->tuning, ctx->tuning.count ? ctx->tuning.entries[0].device : "",
                           ctx->sm, primitive, key_size, value_size);
}

/* The tile for a primitive and sizes without a bundle: environment, tuning file, default; and
 * the tuning file's 4-way threshold whichever tile that is. */
static void context_tile(const mj_context *ctx, mj_primitive primitive, size_t key_size,
                         size_t value_size, mj_tile *out) {
    memset(out, 0, sizeof *out);
    out->primitive = primitive;
    out->key_size = key_size;
    out->value_size = value_size;
    const mj_tuning_entry *e = record(ctx, primitive, key_size, value_size);
    out->merge4_log2 = e ? e->merge4_log2 : 0;
    if (tile_override(&out->nt, &out->vt, &out->bs_nt)) return;
    if (e) {
        out->nt = e->nt;
        out->vt = e->vt;
        out->bs_nt = e->bs_nt;
        out->gkeys = e->gkeys;
        out->tuned = 1;
        return;
    }
    mj__default_tile(primitive, ctx->sm, key_size, value_size, &out->nt, &out->vt, &out->bs_nt);
}

int mj__merge4_log2(const mj_context *ctx, const mj_sort_desc *desc, size_t key_size) {
    if (desc->merge4_log2 || !mj__primitive_traits(desc->primitive)->merge4)
        return desc->merge4_log2;
    const mj_tuning_entry *e = record(ctx, desc->primitive, key_size, desc->value_size);
    return e ? e->merge4_log2 : 0;
}

mj_status mj__choose_tile(mj_context *ctx, const mj_sort_desc *desc, mj_kernel_spec *spec,
                          const mj_bundle_entry **entry) {
    /* The request key leaves the tile out, so the entry is found before the tile is known. */
    const mj_bundle_entry *e = entry ? mj__bundle_lookup(ctx, spec) : NULL;
    if (entry) *entry = e;
    if (desc->nt || desc->vt || desc->bs_nt) {
        spec->nt = desc->nt;
        spec->vt = desc->vt;
        spec->bs_nt = desc->bs_nt;
    } else if (e && !tile_override(&spec->nt, &spec->vt, &spec->bs_nt)) {
        spec->nt = e->nt; /* the bundle's tile, unless an experiment overrides it */
        spec->vt = e->vt;
        spec->bs_nt = e->bs_nt;
    } else if (!e) {
        mj_tile t; /* environment, tuning file or default */
        context_tile(ctx, spec->primitive, mj__spec_key_size(spec), spec->value_size, &t);
        spec->nt = t.nt;
        spec->vt = t.vt;
        spec->bs_nt = t.bs_nt;
    }
    return MJ_OK;
}

mj_status mj_context_tile(mj_context *ctx, mj_primitive primitive, size_t key_size,
                          size_t value_size, mj_tile *out) {
    if (!ctx) return MJ_ERR_INVALID_ARGUMENT;
    if (!out || !mj__primitive_row(primitive) || key_size == 0)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        "mj_context_tile needs out, a known primitive and a key size");
    context_tile(ctx, primitive, key_size, value_size, out);
    return MJ_OK;
}

mj_status mj_tile_check(const mj_tile *t, char *why, size_t why_cap) {
    char scratch[8];
    if (!why) {
        why = scratch;
        why_cap = sizeof scratch;
    }
    if (!t) {
        snprintf(why, why_cap, "no tile");
        return MJ_ERR_INVALID_ARGUMENT;
    }
    return mj__tile_shape_check(t->primitive, t->key_size, t->value_size, t->nt, t->vt,
                                t->bs_nt ? t->bs_nt : t->nt, why, why_cap) ||
                   mj__tuning_check_merge4(t->primitive, t->merge4_log2, why, why_cap)
               ? MJ_ERR_INVALID_ARGUMENT
               : MJ_OK;
}

mj_status mj_tuning_save(mj_context *ctx, const char *path, const mj_tile *tiles, size_t count) {
    if (!ctx) return MJ_ERR_INVALID_ARGUMENT;
    if (!tiles && count)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "tiles is required when count > 0");
    char where[MJ_PATH_CAP], err[1024];
    int named;
    mj_status st = mj__tuning_path(ctx, path, where, &named);
    if (st) return st;
    if (!where[0])
        return mj__fail(ctx, MJ_ERR_FILE, "no tuning file path: set MERGEJIT_TUNING or HOME");
    for (size_t i = 0; i < count; ++i) {
        mj_tile t = tiles[i];
        if (!t.bs_nt) t.bs_nt = t.nt;
        if (mj_tile_check(&t, err, sizeof err))
            return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "tile %zu: %s", i, err);
    }
    mj_tuning file = {0};
    int rc = mj__tuning_read(where, &file, err, sizeof err);
    if (rc < 0) return mj__fail(ctx, mj__io_status(rc), "%s", err);
    for (size_t i = 0; i < count; ++i) {
        mj_tuning_entry e;
        memset(&e, 0, sizeof e);
        snprintf(e.device, sizeof e.device, "%s", ctx->cu ? ctx->device_name : "compile-only");
        e.sm = ctx->sm;
        e.primitive = tiles[i].primitive;
        e.key_size = tiles[i].key_size;
        e.value_size = tiles[i].value_size;
        e.nt = tiles[i].nt;
        e.vt = tiles[i].vt;
        e.bs_nt = tiles[i].bs_nt ? tiles[i].bs_nt : tiles[i].nt;
        e.gkeys = tiles[i].gkeys > 0 ? tiles[i].gkeys : 0;
        e.merge4_log2 = tiles[i].merge4_log2;
        if (mj__tuning_set(&file, &e)) {
            mj__tuning_free(&file);
            return mj__fail(ctx, MJ_ERR_HOST_MEMORY, "out of host memory");
        }
    }
    rc = mj__tuning_write(where, &file, err, sizeof err);
    mj__tuning_free(&file);
    return rc ? mj__fail(ctx, mj__io_status(rc), "%s", err) : MJ_OK;
}
