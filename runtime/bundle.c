/* Bundles in the runtime: request keys, serving a context from its bundle, the builder and
 * the listing. The file format is bundle_file.c's. */
#include "bundle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "host_alloc.h"
#include "file_io.h"

/* Strings are hashed with their length (or -1 for NULL) in front, so that no two requests
 * hash the same bytes. */
static void hash_str(mj_sha256 *h, const char *s) {
    long long n = s ? (long long)strlen(s) : -1;
    mj_sha256_update(h, &n, sizeof n);
    if (s) mj_sha256_update(h, s, (size_t)n);
}

static void hash_num(mj_sha256 *h, long long v) { mj_sha256_update(h, &v, sizeof v); }

void mj_bundle_request_key(const mj_kernel_spec *spec, uint8_t out[32]) {
    mj_sha256 h;
    mj_sha256_init(&h);
    hash_str(&h, "mergejit bundle request 1");
    hash_num(&h, spec->sm);
    hash_num(&h, spec->primitive);
    hash_num(&h, spec->key);
    hash_num(&h, spec->order);
    hash_str(&h, spec->less);
    int custom = spec->key == MJ_KEY_CUSTOM;
    hash_str(&h, custom ? spec->type_name : NULL);
    hash_str(&h, custom ? spec->type_source : NULL);
    hash_num(&h, custom ? (long long)spec->type_size : 0);
    hash_num(&h, custom ? (long long)spec->type_align : 0);
    hash_num(&h, (long long)spec->value_size);
    mj_sha256_final(&h, out);
}

/* The source key: the generated source and the target it was compiled for. */
static void source_key(const char *src, int sm, uint8_t out[32]) {
    mj_sha256 h;
    mj_sha256_init(&h);
    hash_str(&h, "mergejit bundle source 1");
    hash_num(&h, sm);
    hash_str(&h, src);
    mj_sha256_final(&h, out);
}

const mj_bundle_entry *mj_bundle_lookup(const mj_context *ctx, const mj_kernel_spec *spec) {
    if (!ctx->bundle) return NULL;
    uint8_t request[32];
    mj_bundle_request_key(spec, request);
    return mj_bundle_find(ctx->bundle, request);
}

/* "u32 asc", "u32: a > b", "rec: a.k < b.k" (truncated to the label's room). */
static void request_label(const mj_kernel_spec *spec, char *out, size_t cap) {
    const char *type = spec->key == MJ_KEY_CUSTOM ? spec->type_name : mj_key_kind_name(spec->key);
    if (spec->less)
        snprintf(out, cap, "%s: %s", type ? type : "?", spec->less);
    else
        snprintf(out, cap, "%s %s", type ? type : "?",
                 spec->order == MJ_DESCENDING ? "desc" : "asc");
}

mj_status mj_bundle_check_entry(mj_context *ctx, const mj_kernel_spec *spec,
                                const mj_bundle_entry *entry) {
    char *src = NULL, err[512];
    size_t len;
    uint8_t key[32];
    int rc = mj_gen_source(spec, &src, &len, err, sizeof err);
    if (rc) return mj_fail(ctx, mj_gen_status(rc), "%s", err);
    source_key(src, spec->sm, key);
    free(src);
    if (memcmp(key, entry->source_key, 32) == 0) return MJ_OK;
    return mj_fail(ctx, MJ_ERR_NOT_IN_BUNDLE,
                   "bundle %s holds %s %s for sm_%d, but compiled from other kernel source than "
                   "this library (mergejit %s) generates: it was written by mergejit %s",
                   ctx->bundle_path, mj_primitive_name(spec->primitive), entry->label, spec->sm,
                   MJ_VERSION_STRING, ctx->bundle->version);
}

mj_status mj_bundle_missing(mj_context *ctx, const mj_kernel_spec *spec,
                            const mj_bundle_entry *entry) {
    char label[MJ_BUNDLE_LABEL_CAP];
    request_label(spec, label, sizeof label);
    if (entry)
        return mj_fail(ctx, MJ_ERR_NOT_IN_BUNDLE,
                       "bundle %s holds %s of %s with %zu-byte values for sm_%d with tile "
                       "%dx%dx%d, not the %dx%dx%d asked for",
                       ctx->bundle_path, mj_primitive_name(spec->primitive), label,
                       spec->value_size, spec->sm, entry->nt, entry->vt, entry->bs_nt, spec->nt,
                       spec->vt, mj_spec_bs_nt(spec));
    size_t same_sm = 0;
    for (size_t i = 0; i < ctx->bundle->count; ++i) same_sm += ctx->bundle->entries[i].sm == spec->sm;
    return mj_fail(ctx, MJ_ERR_NOT_IN_BUNDLE,
                   "bundle %s has no %s of %s with %zu-byte values for sm_%d (it holds %zu "
                   "entries, %zu of them for sm_%d)%s",
                   ctx->bundle_path, mj_primitive_name(spec->primitive), label, spec->value_size,
                   spec->sm, ctx->bundle->count, same_sm, spec->sm,
                   ctx->flags & MJ_CONTEXT_BUNDLE_FALLBACK
                       ? ""
                       : "; add it with mergejit gen, or allow compiling with "
                         "MJ_CONTEXT_BUNDLE_FALLBACK");
}

mj_status mj_bundle_open(mj_context *ctx, const char *option) {
    const char *path = option ? option : getenv("MERGEJIT_BUNDLE");
    if (!path || !*path) return MJ_OK;
    if (strlen(path) >= sizeof ctx->bundle_path)
        return mj_fail(ctx, MJ_ERR_INVALID_ARGUMENT, "the bundle path is too long");
    mj_bundle_index *b = mj_calloc(1, sizeof *b);
    if (!b) return mj_fail(ctx, MJ_ERR_HOST_MEMORY, "out of host memory");
    char err[1024];
    int rc = mj_bundle_read_index(path, b, err, sizeof err);
    if (rc) {
        free(b);
        return mj_fail(ctx, mj_io_status(rc), "%s", err);
    }
    strcpy(ctx->bundle_path, path);
    ctx->bundle = b;
    return MJ_OK;
}

const char *mj_context_bundle(const mj_context *ctx) { return ctx ? ctx->bundle_path : ""; }

/* ---------------------------------------------------------------- the builder */

struct mj_bundle_builder {
    mj_bundle_entry *entries; /* payloads malloc'd */
    size_t count, cap;
    char error[MJ_ERROR_CAP];
};

mj_status mj_bundle_builder_create(mj_bundle_builder **out) {
    if (!out) return MJ_ERR_INVALID_ARGUMENT;
    *out = mj_calloc(1, sizeof **out);
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

mj_status mj_bundle_builder_add(mj_bundle_builder *b, mj_context *ctx,
                                const mj_sort_desc *desc) {
    if (!b) return MJ_ERR_INVALID_ARGUMENT;
    if (!ctx || !desc) {
        snprintf(b->error, sizeof b->error, "a context and a description are required");
        return MJ_ERR_INVALID_ARGUMENT;
    }
    mj_kernel_spec spec;
    mj_status st = mj_spec_from_desc(ctx, desc, &spec);
    if (!st) st = mj_choose_tile(ctx, desc, &spec, NULL);
    if (st) return from_context(b, ctx, st);
    mj_bundle_entry e;
    memset(&e, 0, sizeof e);
    mj_bundle_request_key(&spec, e.request);
    for (size_t i = 0; i < b->count; ++i)
        if (memcmp(b->entries[i].request, e.request, 32) == 0) return MJ_OK;

    char *src = NULL, err[512];
    size_t len;
    int rc = mj_gen_source(&spec, &src, &len, err, sizeof err);
    if (rc) {
        snprintf(b->error, sizeof b->error, "%s", err);
        return mj_gen_status(rc);
    }
    source_key(src, spec.sm, e.source_key);
    free(src);
    mj_binary bin;
    if ((st = mj_binary_get(ctx, &spec, 1, &bin))) return from_context(b, ctx, st);
    if (b->count == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        mj_bundle_entry *grown = mj_realloc(b->entries, cap * sizeof *grown);
        if (!grown) {
            free(bin.data);
            snprintf(b->error, sizeof b->error, "out of host memory");
            return MJ_ERR_HOST_MEMORY;
        }
        b->entries = grown;
        b->cap = cap;
    }
    e.sm = spec.sm;
    e.primitive = spec.primitive;
    e.key = spec.key;
    e.key_size = mj_spec_key_size(&spec);
    e.value_size = spec.value_size;
    e.nt = spec.nt;
    e.vt = spec.vt;
    e.bs_nt = mj_spec_bs_nt(&spec);
    e.registers = bin.meta.registers;
    e.spill_bytes = (long)bin.meta.spill_bytes;
    request_label(&spec, e.label, sizeof e.label);
    e.size = bin.size;
    e.payload = bin.data;
    b->entries[b->count++] = e;
    return MJ_OK;
}

mj_status mj_bundle_builder_write(mj_bundle_builder *b, const char *path) {
    if (!b) return MJ_ERR_INVALID_ARGUMENT;
    if (!path || !*path) {
        snprintf(b->error, sizeof b->error, "a path to write the bundle to is required");
        return MJ_ERR_INVALID_ARGUMENT;
    }
    int rc = mj_bundle_write_file(path, b->entries, b->count, b->error, sizeof b->error);
    return rc ? mj_io_status(rc) : MJ_OK;
}

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
    int rc = mj_bundle_read_index(path, &b, err, err_cap);
    if (rc) return mj_io_status(rc);
    for (size_t i = 0; i < b.count; ++i) {
        const mj_bundle_entry *e = &b.entries[i];
        mj_bundle_info info = {
            .sm = e->sm,
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
    mj_bundle_index_free(&b);
    return MJ_OK;
}
