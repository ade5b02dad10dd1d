/* Tile shapes: the built-in defaults per sm, the tuning file's records, and the order in
 * which a sorter's tile is chosen; and the spec a description asks for. */
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
    if ((unsigned)desc->primitive >= MJ_PRIMITIVE_COUNT)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "unknown primitive %d",
                        (int)desc->primitive);
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
    /* Reduce and scan use the operator, not the order: one kernel (one cache and bundle entry)
     * whatever order and less say. The sorts ignore op and identity. */
    if (mj__is_reduce_or_scan(desc->primitive)) {
        if (desc->value_size)
            return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                            "%s takes no values: value_size must be 0, not %zu",
                            mj_primitive_name(desc->primitive), desc->value_size);
        spec->order = MJ_ASCENDING;
        spec->less = NULL;
        spec->op = desc->op;
        spec->identity = desc->identity;
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

/* The winners of `mergejit tune` on an H100 (sm_90) where they beat the rule below by 3% or
 * more (or, within a few percent of the winner, a tile that compiles in less time or does not
 * spill): NT x VT, blocksort threads. Sizes not listed, and other sms, take the rule. Where each
 * entry comes from, and the winners left out: docs/TUNING.md. */
static const struct {
    mj_primitive primitive;
    unsigned char key_size, value_size;
    short nt, vt, bs_nt;
} sm90_tiles[] = {
    {MJ_MERGESORT, 4, 8, 256, 19, 256},     {MJ_MERGESORT, 8, 0, 256, 21, 256},
    {MJ_MERGESORT, 8, 4, 128, 17, 128},     {MJ_MERGESORT, 8, 8, 128, 17, 128},
    {MJ_MERGESORT, 16, 0, 128, 13, 128},    {MJ_MERGESORT, 16, 4, 128, 17, 128},
    {MJ_MERGESORT, 16, 8, 128, 17, 128},    {MJ_MERGE, 4, 0, 512, 15, 512},
    {MJ_MERGE, 4, 4, 512, 7, 512},          {MJ_MERGE, 8, 0, 512, 7, 512},
    {MJ_MERGE, 16, 0, 128, 19, 128},        {MJ_MERGE, 16, 4, 128, 19, 128},
    {MJ_SEGMENTED_SORT, 4, 4, 128, 11, 256},
    {MJ_SEGMENTED_SORT, 4, 8, 128, 7, 256}, {MJ_SEGMENTED_SORT, 8, 0, 256, 13, 256},
    {MJ_SEGMENTED_SORT, 8, 4, 128, 11, 256}, {MJ_SEGMENTED_SORT, 8, 8, 128, 7, 256},
    {MJ_SEGMENTED_SORT, 16, 0, 128, 7, 256}, {MJ_SEGMENTED_SORT, 16, 4, 128, 5, 256},
    {MJ_SEGMENTED_SORT, 16, 8, 128, 5, 256}, {MJ_LOCALITY_SORT, 4, 4, 128, 9, 256},
    {MJ_LOCALITY_SORT, 8, 0, 128, 15, 256}, {MJ_LOCALITY_SORT, 8, 4, 256, 5, 512},
    {MJ_LOCALITY_SORT, 8, 8, 128, 9, 256},  {MJ_LOCALITY_SORT, 16, 0, 128, 7, 256},
    {MJ_LOCALITY_SORT, 16, 8, 128, 5, 256},
    {MJ_SCAN, 4, 0, 128, 47, 128},          {MJ_SCAN, 8, 0, 128, 31, 128},
    {MJ_LOAD_BALANCE, 4, 0, 128, 19, 128},  {MJ_INTERVAL_EXPAND, 4, 4, 128, 15, 128},
    {MJ_INTERVAL_EXPAND, 8, 4, 128, 13, 128}, {MJ_INTERVAL_EXPAND, 8, 8, 64, 7, 64},
    {MJ_INTERVAL_MOVE, 4, 4, 128, 7, 128},  {MJ_BULK_INSERT, 4, 4, 256, 7, 256},
    {MJ_SET_OPS, 4, 0, 256, 23, 256},      {MJ_SET_OPS, 4, 4, 128, 19, 128},
};

/* Reduce and scan read each element once and are bound by memory: 256 threads, and per
 * thread about 60 bytes of 4-byte keys (15, odd: the warp's transposition through shared
 * memory is then free of bank conflicts), fewer of larger keys, whose registers (VT keys and
 * the shuffled words) must not spill (ptxas, sm_75 to sm_90: test_compile). Not yet tuned
 * on a GPU. */
static void scan_tile(mj_primitive primitive, size_t key_size, int *nt, int *vt) {
    *nt = 256;
    if (key_size <= 2)
        *vt = 23;
    else if (key_size <= 4)
        *vt = 15;
    else if (key_size <= 8)
        *vt = 9;
    else if (key_size <= 16)
        *vt = 5;
    else if (key_size <= 32)
        *vt = 3;
    else
        *vt = 1;
    while (*nt > 32 && mj__tile_smem(primitive, *nt, *vt, key_size, 0) > MJ_STATIC_SMEM_LIMIT)
        *nt /= 2;
}

/* Odd VT keeps a thread's run of 4-byte keys off the shared-memory bank of its neighbours;
 * larger keys and values take fewer per thread so that registers (keys, positions and values)
 * fit without spilling and the tile fits in static shared memory. */
void mj__default_tile(mj_primitive primitive, int sm, size_t key_size, size_t value_size,
                      int *nt, int *vt, int *bs_nt) {
    if (sm >= 90)
        for (size_t i = 0; i < sizeof sm90_tiles / sizeof *sm90_tiles; ++i)
            if (sm90_tiles[i].primitive == primitive && sm90_tiles[i].key_size == key_size &&
                sm90_tiles[i].value_size == value_size) {
                *nt = sm90_tiles[i].nt;
                *vt = sm90_tiles[i].vt;
                *bs_nt = sm90_tiles[i].bs_nt;
                return;
            }
    if (mj__is_reduce_or_scan(primitive)) {
        scan_tile(primitive, key_size, nt, vt);
        *bs_nt = *nt;
        return;
    }
    /* Load-balancing search, expand and move: the seed's 128 x 11 (a thread's serial walk of
     * 11 steps over items and offsets; registers hold no keys across it); the sm_90 table has
     * the tuner's winners where they beat it (docs/TUNING.md). Move's tile of i64 offsets
     * takes 39 KB of shared memory, 5 blocks an SM on an H100. */
    if (mj__is_lbs(primitive)) {
        *nt = *bs_nt = 128;
        *vt = 11;
        return;
    }
    /* Sorted search, and the join whose first kernels are the search's: the lbs tile, 128 x 11,
     * for keys up to 8 bytes (a thread holds VT keys and positions through its walk), fewer
     * steps for larger keys; within static shared memory (the tile's keys and an int result
     * each). Not yet tuned. */
    if (primitive == MJ_SORTED_SEARCH || primitive == MJ_JOIN) {
        *nt = *bs_nt = 128;
        *vt = key_size <= 8 ? 11 : key_size <= 16 ? 7 : key_size <= 32 ? 5 : 3;
        while (*vt > 1 && mj__tile_smem(primitive, *nt, *vt, key_size, 0) > MJ_STATIC_SMEM_LIMIT)
            *vt -= 2;
        while (*nt > 32 && mj__tile_smem(primitive, *nt, *vt, key_size, 0) > MJ_STATIC_SMEM_LIMIT)
            *nt /= 2;
        *bs_nt = *nt;
        return;
    }
    /* Set operations: the seed's 128 x 11 for keys and values up to 8 bytes (a thread walks
     * 11 slots, holding the key of each and, with values, its position, then has its 11
     * values in flight), fewer steps for larger ones; within static shared memory (the tile's
     * keys, and an int each with values). The sm_90 table has 4-byte keys measured, alone
     * and with 4-byte values (docs/TUNING.md). */
    if (primitive == MJ_SET_OPS) {
        size_t widest = key_size > value_size ? key_size : value_size;
        *nt = 128;
        *vt = widest <= 8 ? 11 : widest <= 16 ? 7 : widest <= 32 ? 5 : 3;
        while (*vt > 1 &&
               mj__tile_smem(primitive, *nt, *vt, key_size, value_size) > MJ_STATIC_SMEM_LIMIT)
            *vt -= 2;
        while (*nt > 32 &&
               mj__tile_smem(primitive, *nt, *vt, key_size, value_size) > MJ_STATIC_SMEM_LIMIT)
            *nt /= 2;
        *bs_nt = *nt;
        return;
    }
    /* Bulk remove and insert copy each element once, through registers (a thread's MJ_VT
     * elements in flight at once): fewer per thread as they grow, so that the registers of the
     * larger of key and value fit. Not yet tuned. */
    if (mj__is_bulk(primitive)) {
        size_t widest = key_size > value_size ? key_size : value_size;
        *nt = *bs_nt = primitive == MJ_BULK_REMOVE ? 256 : 128;
        *vt = widest <= 8 ? 11 : widest <= 16 ? 7 : widest <= 32 ? 5 : 3;
        return;
    }
    size_t bytes = key_size + value_size;
    *nt = 256;
    /* Measured with bench_sort on an H100 (sm_90) at 2^24 and 2^27 (MERGEJIT_TILE sweep):
     * 4-byte keys alone are bound by instructions, not bytes, and gain from long runs per
     * thread; pairs and 8-byte keys peak near 9 to 11. */
    if (bytes <= 4)
        *vt = 23;
    else if (bytes <= 8)
        *vt = value_size ? 11 : 9;
    else if (bytes <= 16)
        *vt = 7;
    else if (bytes <= 32)
        *vt = 5;
    else
        *vt = 3;
    /* Segmented and locality sorts of 4-byte values with f32 or 8-byte keys spilled at these VT
     * under the register cap of the old persistent queue kernel (ptxas, sm_75 to sm_90): two
     * fewer. The one-merge-a-block kernel has no such cap; the rule stays until a tuning run
     * shows what these tiles should be without it. */
    if ((primitive == MJ_LOCALITY_SORT || primitive == MJ_SEGMENTED_SORT) && value_size == 4 &&
        key_size <= 8)
        *vt -= 2;
    /* Keep the tile within static shared memory. */
#define SMEM(threads, v) mj__tile_smem(primitive, (threads), (v), key_size, value_size)
    while (*vt > 1 && SMEM(*nt, *vt) > MJ_STATIC_SMEM_LIMIT) *vt -= 2;
    while (*nt > 32 && SMEM(*nt, *vt) > MJ_STATIC_SMEM_LIMIT) *nt /= 2;
    /* The blocksort takes twice the merge tile where it fits: one more round in shared memory
     * instead of one more global pass. A segmented sort's head ranges take a little more
     * shared memory; it gives up two values per thread for the bigger blocksort. Before sm_80
     * a multiprocessor has 64 KB of shared memory: a guess, not measured, is that the doubled
     * blocksort pays only while two of its blocks fit there. */
    size_t bs_limit = sm < 80 ? 32 * 1024 : MJ_STATIC_SMEM_LIMIT;
    *bs_nt = *nt;
    if (primitive == MJ_MERGE) return; /* no blocksort */
    if (primitive == MJ_SEGMENTED_SORT && *vt > 2 && SMEM(2 * *nt, *vt) > bs_limit &&
        SMEM(2 * *nt, *vt - 2) <= bs_limit)
        *vt -= 2;
    if (SMEM(2 * *nt, *vt) <= bs_limit) *bs_nt *= 2;
#undef SMEM
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
    if (desc->merge4_log2 || desc->primitive != MJ_MERGESORT) return desc->merge4_log2;
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
    if (!out || (unsigned)primitive >= MJ_PRIMITIVE_COUNT || key_size == 0)
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
