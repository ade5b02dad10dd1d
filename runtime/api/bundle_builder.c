/* SPDX-License-Identifier: Apache-2.0 */
/* The bundle builder behind `mergejit gen` and the listing of a bundle (public: mergejit.h).
 * The file format is store/bundle_file.h's; request and source keys are core/bundle_match.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_io.h"
#include "base/host_alloc.h"
#include "core/bundle_match.h"
#include "core/context.h"
#include "core/loader.h"
#include "core/tile_choice.h"
#include "gen.h"
#include "mergejit.h"
#include "store/bundle_file.h"
#include "store/bundle_read.h"
#include "store/bundle_write.h"

struct mj_bundle_builder {
    mj_bundle_entry *entries; /* payloads malloc'd */
    size_t count, cap;
    char error[MJ_ERROR_CAP];
};

mj_status mj_bundle_builder_create(mj_bundle_builder **out) {
    if (!out) return MJ_ERR_INVALID_ARGUMENT;
    *out = mj__calloc(1, sizeof **out);
    return *out ? MJ_OK : MJ_ERR_HOST_MEMORY;
}

void mj_bundle_builder_destroy(mj_bundle_builder *b) {
    if (!b) return;
    for (size_t i = 0; i < b->count; ++i) free((void *)b->entries[i].payload);
    free(b->entries);
    free(b);
}

const char *mj_bundle_builder_last_error(const mj_bundle_builder *b) {
    return b ? b->error : "no bundle builder (NULL)";
}

size_t mj_bundle_builder_count(const mj_bundle_builder *b) { return b ? b->count : 0; }

/* Copies the context's message of a failure into the builder. */
static mj_status from_context(mj_bundle_builder *b, mj_context *ctx, mj_status st) {
    snprintf(b->error, sizeof b->error, "%s", mj_context_last_error(ctx));
    return st;
}

/* Adds desc's kernels for ctx's target: a cubin, or with ptx PTX for its compute
 * capability. */
static mj_status add(mj_bundle_builder *b, mj_context *ctx, const mj_sort_desc *desc, int ptx) {
    if (!b) return MJ_ERR_INVALID_ARGUMENT;
    if (!ctx || !desc) {
        snprintf(b->error, sizeof b->error, "a context and a description are required");
        return MJ_ERR_INVALID_ARGUMENT;
    }
    mj_kernel_spec spec;
    mj_status st = mj__spec_from_desc(ctx, desc, &spec);
    if (!st) st = mj__choose_tile(ctx, desc, &spec, NULL);
    if (st) return from_context(b, ctx, st);
    mj_bundle_entry e;
    memset(&e, 0, sizeof e);
    (ptx ? mj__bundle_ptx_request_key : mj__bundle_request_key)(&spec, e.request);
    for (size_t i = 0; i < b->count; ++i)
        if (memcmp(b->entries[i].request, e.request, 32) == 0) return MJ_OK;

    char *src = NULL, err[512];
    size_t len;
    int rc = mj__gen_source(&spec, &src, &len, err, sizeof err);
    if (rc) {
        snprintf(b->error, sizeof b->error, "%s", err);
        return mj__gen_status(rc);
    }
    mj__bundle_source_key(src, spec.sm, ptx, e.source_key);
    free(src);
    mj_binary bin;
    /* Every kernel of the primitive, one payload: a bundle's sorter compiles nothing later. */
    if ((st = mj__binary_get(ctx, &spec, mj__primitive_kernels(spec.primitive), 1, ptx, &bin)))
        return from_context(b, ctx, st);
    if (b->count == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        mj_bundle_entry *grown = mj__realloc(b->entries, cap * sizeof *grown);
        if (!grown) {
            free(bin.data);
            snprintf(b->error, sizeof b->error, "out of host memory");
            return MJ_ERR_HOST_MEMORY;
        }
        b->entries = grown;
        b->cap = cap;
    }
    e.sm = spec.sm;
    e.ptx = ptx;
    e.primitive = spec.primitive;
    e.key = spec.key;
    e.key_size = mj__spec_key_size(&spec);
    e.value_size = spec.value_size;
    e.nt = spec.nt;
    e.vt = spec.vt;
    e.bs_nt = mj__spec_bs_nt(&spec);
    e.registers = bin.meta.registers;
    e.spill_bytes = (long)bin.meta.spill_bytes;
    mj__bundle_request_label(&spec, e.label, sizeof e.label);
    e.size = bin.size;
    e.payload = bin.data;
    b->entries[b->count++] = e;
    return MJ_OK;
}

mj_status mj_bundle_builder_add(mj_bundle_builder *b, mj_context *ctx,
                                const mj_sort_desc *desc) {
    return add(b, ctx, desc, 0);
}

mj_status mj_bundle_builder_add_ptx(mj_bundle_builder *b, mj_context *ctx,
                                    const mj_sort_desc *desc) {
    return add(b, ctx, desc, 1);
}

mj_status mj_bundle_builder_write(mj_bundle_builder *b, const char *path) {
    if (!b) return MJ_ERR_INVALID_ARGUMENT;
    if (!path || !*path) {
        snprintf(b->error, sizeof b->error, "a path to write the bundle to is required");
        return MJ_ERR_INVALID_ARGUMENT;
    }
    int rc = mj__bundle_write_file(path, b->entries, b->count, b->error, sizeof b->error);
    return rc ? mj__io_status(rc) : MJ_OK;
}

/* ---------------------------------------------------------------- the listing */

mj_status mj_bundle_list(const char *path, void (*fn)(void *arg, const mj_bundle_info *entry),
                         void *arg, char *err, size_t err_cap) {
    char scratch[8];
    if (!err) {
        err = scratch;
        err_cap = sizeof scratch;
    }
    if (!path || !fn) {
        snprintf(err, err_cap, "a path and a function are required");
        return MJ_ERR_INVALID_ARGUMENT;
    }
    mj_bundle_index b;
    int rc = mj__bundle_read_index(path, &b, err, err_cap);
    if (rc) return mj__io_status(rc);
    for (size_t i = 0; i < b.count; ++i) {
        const mj_bundle_entry *e = &b.entries[i];
        mj_bundle_info info = {
            .sm = e->sm,
            .ptx = e->ptx,
            .primitive = e->primitive,
            .key = e->key,
            .label = e->label,
            .key_size = e->key_size,
            .value_size = e->value_size,
            .nt = e->nt,
            .vt = e->vt,
            .bs_nt = e->bs_nt,
            .registers = e->registers,
            .spill_bytes = e->spill_bytes,
            .bytes = (size_t)e->size,
        };
        fn(arg, &info);
    }
    mj__bundle_index_free(&b);
    return MJ_OK;
}
