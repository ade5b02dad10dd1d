/* Matching requests against the context's bundle: see bundle_match.h. The file format is
 * store/bundle_file.h's. */
#include "core/bundle_match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"

/* Strings are hashed with their length (or -1 for NULL) in front, so that no two requests
 * hash the same bytes. */
static void hash_str(mj_sha256 *h, const char *s) {
    long long n = s ? (long long)strlen(s) : -1;
    mj__sha256_update(h, &n, sizeof n);
    if (s) mj__sha256_update(h, s, (size_t)n);
}

static void hash_num(mj_sha256 *h, long long v) { mj__sha256_update(h, &v, sizeof v); }

void mj__bundle_request_key(const mj_kernel_spec *spec, uint8_t out[32]) {
    mj_sha256 h;
    mj__sha256_init(&h);
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
    /* Only reduce and scan have an operator: the sorts' keys stay those of older bundles. */
    if (spec->primitive == MJ_REDUCE || spec->primitive == MJ_SCAN) {
        hash_str(&h, spec->op);
        hash_str(&h, spec->identity);
    }
    mj__sha256_final(&h, out);
}

void mj__bundle_source_key(const char *src, int sm, uint8_t out[32]) {
    mj_sha256 h;
    mj__sha256_init(&h);
    hash_str(&h, "mergejit bundle source 1");
    hash_num(&h, sm);
    hash_str(&h, src);
    mj__sha256_final(&h, out);
}

const mj_bundle_entry *mj__bundle_lookup(const mj_context *ctx, const mj_kernel_spec *spec) {
    if (!ctx->bundle) return NULL;
    uint8_t request[32];
    mj__bundle_request_key(spec, request);
    return mj__bundle_find(ctx->bundle, request);
}

void mj__bundle_request_label(const mj_kernel_spec *spec, char *out, size_t cap) {
    const char *type = spec->key == MJ_KEY_CUSTOM ? spec->type_name : mj_key_kind_name(spec->key);
    if (spec->primitive == MJ_REDUCE || spec->primitive == MJ_SCAN)
        snprintf(out, cap, "%s: %s, %s", type ? type : "?", spec->op ? spec->op : "a + b",
                 spec->identity ? spec->identity : "0");
    else if (spec->less)
        snprintf(out, cap, "%s: %s", type ? type : "?", spec->less);
    else
        snprintf(out, cap, "%s %s", type ? type : "?",
                 spec->order == MJ_DESCENDING ? "desc" : "asc");
}

mj_status mj__bundle_check_entry(mj_context *ctx, const mj_kernel_spec *spec,
                                 const mj_bundle_entry *entry) {
    char *src = NULL, err[512];
    size_t len;
    uint8_t key[32];
    int rc = mj__gen_source(spec, &src, &len, err, sizeof err);
    if (rc) return mj__fail(ctx, mj__gen_status(rc), "%s", err);
    mj__bundle_source_key(src, spec->sm, key);
    free(src);
    if (memcmp(key, entry->source_key, 32) == 0) return MJ_OK;
    return mj__fail(ctx, MJ_ERR_NOT_IN_BUNDLE,
                    "bundle %s holds %s %s for sm_%d, but compiled from other kernel source than "
                    "this library (mergejit %s) generates: it was written by mergejit %s",
                    ctx->bundle_path, mj_primitive_name(spec->primitive), entry->label, spec->sm,
                    MJ_VERSION_STRING, ctx->bundle->version);
}

mj_status mj__bundle_missing(mj_context *ctx, const mj_kernel_spec *spec,
                             const mj_bundle_entry *entry) {
    char label[MJ_BUNDLE_LABEL_CAP];
    mj__bundle_request_label(spec, label, sizeof label);
    if (entry)
        return mj__fail(ctx, MJ_ERR_NOT_IN_BUNDLE,
                        "bundle %s holds %s of %s with %zu-byte values for sm_%d with tile "
                        "%dx%dx%d, not the %dx%dx%d asked for",
                        ctx->bundle_path, mj_primitive_name(spec->primitive), label,
                        spec->value_size, spec->sm, entry->nt, entry->vt, entry->bs_nt, spec->nt,
                        spec->vt, mj__spec_bs_nt(spec));
    size_t same_sm = 0;
    for (size_t i = 0; i < ctx->bundle->count; ++i) same_sm += ctx->bundle->entries[i].sm == spec->sm;
    return mj__fail(ctx, MJ_ERR_NOT_IN_BUNDLE,
                    "bundle %s has no %s of %s with %zu-byte values for sm_%d (it holds %zu "
                    "entries, %zu of them for sm_%d)%s",
                    ctx->bundle_path, mj_primitive_name(spec->primitive), label, spec->value_size,
                    spec->sm, ctx->bundle->count, same_sm, spec->sm,
                    ctx->flags & MJ_CONTEXT_BUNDLE_FALLBACK
                       ? ""
                       : "; add it with mergejit gen, or allow compiling with "
                         "MJ_CONTEXT_BUNDLE_FALLBACK");
}
