/* Bundles in the runtime: what a context looks entries up by, serving sorters from a bundle,
 * and the builder behind `mergejit gen`. Internal. */
#ifndef MJ_BUNDLE_H
#define MJ_BUNDLE_H

#include "context.h"

/* The request key: SHA-256 of everything in spec that a caller asks for (primitive, key type
 * and order or comparator, value size, target sm), not the tile, which the bundle chooses. */
void mj_bundle_request_key(const mj_kernel_spec *spec, uint8_t out[32]);

/* The context's bundle entry for spec's request, or NULL (also when it has no bundle). */
const mj_bundle_entry *mj_bundle_lookup(const mj_context *ctx, const mj_kernel_spec *spec);

/* Checks that entry was compiled from the source this library generates for spec (spec has
 * the entry's tile); its source key is then the module table's key for it. A bundle written
 * by a library with other templates fails with MJ_ERR_NOT_IN_BUNDLE. */
mj_status mj_bundle_check_entry(mj_context *ctx, const mj_kernel_spec *spec,
                                const mj_bundle_entry *entry);

/* Reports that the bundle lacks spec (entry: the record for its request with another tile,
 * or NULL): MJ_ERR_NOT_IN_BUNDLE with a message saying what was asked and what it holds. */
mj_status mj_bundle_missing(mj_context *ctx, const mj_kernel_spec *spec,
                            const mj_bundle_entry *entry);

#endif
