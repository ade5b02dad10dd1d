/* SPDX-License-Identifier: Apache-2.0 */
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

static void request_key(const mj_kernel_spec *spec, int ptx, uint8_t out[32]) {
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
    /* Only the primitives with an operator hash it: the sorts' keys stay those of older
     * bundles. Reduce by key adds its values' type. */
    if (mj__takes_op(spec->primitive)) {
        hash_str(&h, spec->op);
        hash_str(&h, spec->identity);
    }
    if (mj__has_value_op(spec->primitive)) {
        hash_str(&h, spec->value_type);
        hash_str(&h, spec->value_type_source);
    }
    /* Likewise only PTX has a form in the key: cubins keep the keys they had. */
    if (ptx) hash_str(&h, "ptx");
    mj__sha256_final(&h, out);
}

void mj__bundle_request_key(const mj_kernel_spec *spec, uint8_t out[32]) {
    request_key(spec, 0, out);
}

void mj__bundle_ptx_request_key(const mj_kernel_spec *spec, uint8_t out[32]) {
    request_key(spec, 1, out);
}

void mj__bundle_source_key(const char *src, int sm, int ptx, uint8_t out[32]) {
    mj_sha256 h;
    mj__sha256_init(&h);
    hash_str(&h, "mergejit bundle source 1");
    hash_num(&h, sm);
    hash_str(&h, src);
    if (ptx) hash_str(&h, "ptx"); /* PTX and a cubin of one source are two modules */
    mj__sha256_final(&h, out);
}

/* How well a target suits a device: 3 a cubin for its sm, 2 a cubin of the same major
 * version and a lower minor, 1 PTX for its compute capability or an older one, 0 none of
 * these (it does not run there). */
static int fit(int device_sm, mj_bundle_target t) {
    if (t.ptx) return t.sm <= device_sm ? 1 : 0;
    if (t.sm == device_sm) return 3;
    return t.sm / 10 == device_sm / 10 && t.sm < device_sm ? 2 : 0;
}

int mj__bundle_choose(int device_sm, const mj_bundle_target *have, size_t n) {
    int best = -1, best_fit = 0;
    for (size_t i = 0; i < n; ++i) {
        int f = fit(device_sm, have[i]);
        /* Of two of a kind the newer: nearer the device, and what it was tuned for. */
        if (f > best_fit || (f && f == best_fit && have[i].sm > have[best].sm)) {
            best = (int)i;
            best_fit = f;
        }
    }
    return best;
}

void mj__bundle_target_name(mj_bundle_target t, char *out, size_t cap) {
    snprintf(out, cap, "%s_%d", t.ptx ? "compute" : "sm", t.sm);
}

/* The targets the bundle holds spec's request for (spec's sm aside), into have[] with their
 * entries; returns how many. */
static size_t request_targets(const mj_bundle_index *b, const mj_kernel_spec *spec,
                              mj_bundle_target have[MJ_BUNDLE_TARGETS_MAX],
                              const mj_bundle_entry *found[MJ_BUNDLE_TARGETS_MAX]) {
    mj_kernel_spec at = *spec;
    size_t n = 0;
    for (size_t i = 0; i < b->target_count; ++i) {
        uint8_t request[32];
        at.sm = b->targets[i].sm;
        request_key(&at, b->targets[i].ptx, request);
        const mj_bundle_entry *e = mj__bundle_find(b, request);
        if (!e) continue;
        have[n] = b->targets[i];
        found[n++] = e;
    }
    return n;
}

const mj_bundle_entry *mj__bundle_lookup(const mj_context *ctx, const mj_kernel_spec *spec) {
    if (!ctx->bundle) return NULL;
    mj_bundle_target have[MJ_BUNDLE_TARGETS_MAX];
    const mj_bundle_entry *found[MJ_BUNDLE_TARGETS_MAX];
    size_t n = request_targets(ctx->bundle, spec, have, found);
    int i = mj__bundle_choose(spec->sm, have, n);
    return i < 0 ? NULL : found[i];
}

void mj__bundle_request_label(const mj_kernel_spec *spec, char *out, size_t cap) {
    const char *type = spec->key == MJ_KEY_CUSTOM ? spec->type_name : mj_key_kind_name(spec->key);
    if (mj__is_reduce_or_scan(spec->primitive))
        snprintf(out, cap, "%s: %s, %s", type ? type : "?", spec->op ? spec->op : "a + b",
                 spec->identity ? spec->identity : "0");
    else if (mj__has_value_op(spec->primitive))
        snprintf(out, cap, "%s %s, %s values: %s, %s", type ? type : "?",
                 spec->less ? spec->less : spec->order == MJ_DESCENDING ? "desc" : "asc",
                 spec->value_type ? spec->value_type : "?", spec->op ? spec->op : "a + b",
                 spec->identity ? spec->identity : "0");
    else if (mj__takes_op(spec->primitive) && spec->op) /* select's predicate */
        snprintf(out, cap, "%s: %s; keep %s", type ? type : "?",
                 spec->less ? spec->less : spec->order == MJ_DESCENDING ? "desc" : "asc",
                 spec->op);
    else if (spec->less)
        snprintf(out, cap, "%s: %s", type ? type : "?", spec->less);
    else
        snprintf(out, cap, "%s %s", type ? type : "?",
                 spec->order == MJ_DESCENDING ? "desc" : "asc");
}

mj_status mj__bundle_check_entry(mj_context *ctx, const mj_kernel_spec *spec,
                                 const mj_bundle_entry *entry) {
    char *src = NULL, err[512], target[32];
    size_t len;
    uint8_t key[32];
    mj_kernel_spec built = *spec; /* the source names the sm it was generated for */
    built.sm = entry->sm;
    int rc = mj__gen_source(&built, &src, &len, err, sizeof err);
    if (rc) return mj__fail(ctx, mj__gen_status(rc), "%s", err);
    mj__bundle_source_key(src, entry->sm, entry->ptx, key);
    free(src);
    if (memcmp(key, entry->source_key, 32) == 0) return MJ_OK;
    mj__bundle_target_name((mj_bundle_target){entry->sm, entry->ptx}, target, sizeof target);
    return mj__fail(ctx, MJ_ERR_NOT_IN_BUNDLE,
                    "bundle %s holds %s %s for %s, but compiled from other kernel source than "
                    "this library (mergejit %s) generates: it was written by mergejit %s",
                    ctx->bundle_path, mj_primitive_name(spec->primitive), entry->label, target,
                    MJ_VERSION_STRING, ctx->bundle->version);
}

mj_status mj__bundle_missing(mj_context *ctx, const mj_kernel_spec *spec,
                             const mj_bundle_entry *entry) {
    char label[MJ_BUNDLE_LABEL_CAP], target[32];
    mj__bundle_request_label(spec, label, sizeof label);
    if (entry) {
        mj__bundle_target_name((mj_bundle_target){entry->sm, entry->ptx}, target, sizeof target);
        return mj__fail(ctx, MJ_ERR_NOT_IN_BUNDLE,
                        "bundle %s holds %s of %s with %zu-byte values for %s with tile "
                        "%dx%dx%d, not the %dx%dx%d asked for",
                        ctx->bundle_path, mj_primitive_name(spec->primitive), label,
                        spec->value_size, target, entry->nt, entry->vt, entry->bs_nt, spec->nt,
                        spec->vt, mj__spec_bs_nt(spec));
    }
    size_t same_sm = 0;
    for (size_t i = 0; i < ctx->bundle->count; ++i) same_sm += ctx->bundle->entries[i].sm == spec->sm;
    /* The targets it has this request for, none of which runs on spec's sm. */
    mj_bundle_target have[MJ_BUNDLE_TARGETS_MAX];
    const mj_bundle_entry *found[MJ_BUNDLE_TARGETS_MAX];
    size_t n = request_targets(ctx->bundle, spec, have, found);
    char others[512] = "";
    size_t at = 0;
    for (size_t i = 0; i < n && at < sizeof others; ++i) {
        mj__bundle_target_name(have[i], target, sizeof target);
        at += (size_t)snprintf(others + at, sizeof others - at, "%s%s", i ? ", " : "", target);
    }
    char why[700] = "";
    if (n)
        snprintf(why, sizeof why, "; it has that request for %s only, which cannot run on sm_%d "
                 "(a cubin runs on its own sm and newer minor versions of the same major one, "
                 "PTX on its compute capability and newer)", others, spec->sm);
    return mj__fail(ctx, MJ_ERR_NOT_IN_BUNDLE,
                    "bundle %s has no %s of %s with %zu-byte values for sm_%d (it holds %zu "
                    "entries, %zu of them for sm_%d)%s%s",
                    ctx->bundle_path, mj_primitive_name(spec->primitive), label, spec->value_size,
                    spec->sm, ctx->bundle->count, same_sm, spec->sm, why,
                    ctx->flags & MJ_CONTEXT_BUNDLE_FALLBACK
                       ? ""
                       : "; add it with mergejit gen (--sm for a cubin, --ptx for PTX that "
                         "newer GPUs run too), or allow compiling with "
                         "MJ_CONTEXT_BUNDLE_FALLBACK");
}
