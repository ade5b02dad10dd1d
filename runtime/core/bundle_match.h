/* SPDX-License-Identifier: Apache-2.0 */
/* Matching requests against the context's bundle: the request and source keys, the lookup,
 * the check that an entry was compiled from this library's source, and the message for a
 * missing one. Internal. (The builder behind `mergejit gen` is api/bundle_builder.c.) */
#ifndef MJ_BUNDLE_MATCH_H
#define MJ_BUNDLE_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "core/context.h"
#include "gen.h"
#include "mergejit.h"
#include "store/bundle_file.h"

/* The request key: SHA-256 of everything in spec that a caller asks for (primitive, key type
 * and order or comparator, value size, target: a cubin for spec's sm), not the tile, which
 * the bundle chooses. mj__bundle_ptx_request_key: the same request as PTX for compute_<sm>. */
void mj__bundle_request_key(const mj_kernel_spec *spec, uint8_t out[32]);
void mj__bundle_ptx_request_key(const mj_kernel_spec *spec, uint8_t out[32]);

/* The source key: SHA-256 of the generated source and the target it was compiled for. */
void mj__bundle_source_key(const char *src, int sm, int ptx, uint8_t out[32]);

/* Which of the targets that a bundle holds a request for (have[0..n)) a device of compute
 * capability device_sm loads, as a fat binary chooses: a cubin for device_sm itself; else a
 * cubin of the same major version and a lower minor (binary compatible), the newest such;
 * else PTX for the newest compute capability not above device_sm, which the driver compiles
 * for the device. A cubin of another major version never runs, nor PTX for a newer compute
 * capability. The index into have, or -1 when none of them runs on the device. */
int mj__bundle_choose(int device_sm, const mj_bundle_target *have, size_t n);

/* "sm_90" for a cubin's target, "compute_80" for PTX's (cap bytes). */
void mj__bundle_target_name(mj_bundle_target t, char *out, size_t cap);

/* A label for people: "u32 asc", "u32: a > b", "rec: a.k < b.k", for reduce and scan
 * "u32: max(a, b), 0" (operator, identity; truncated to cap). */
void mj__bundle_request_label(const mj_kernel_spec *spec, char *out, size_t cap);

/* The context's bundle entry for spec's request that runs on spec's sm (the device's;
 * mj__bundle_choose picks among the request's targets), or NULL (also when it has no
 * bundle). The entry's sm may differ from spec's. */
const mj_bundle_entry *mj__bundle_lookup(const mj_context *ctx, const mj_kernel_spec *spec);

/* Checks that entry was compiled from the source this library generates for spec at the
 * entry's target (spec has the entry's tile); its source key is then the module table's key
 * for it. A bundle written by a library with other templates fails with
 * MJ_ERR_NOT_IN_BUNDLE. */
mj_status mj__bundle_check_entry(mj_context *ctx, const mj_kernel_spec *spec,
                                 const mj_bundle_entry *entry);

/* Reports that the bundle lacks spec (entry: the record for its request with another tile,
 * or NULL): MJ_ERR_NOT_IN_BUNDLE with a message saying what was asked, what it holds, and
 * for which targets it holds the request when none of them runs on spec's sm. */
mj_status mj__bundle_missing(mj_context *ctx, const mj_kernel_spec *spec,
                             const mj_bundle_entry *entry);

#endif
