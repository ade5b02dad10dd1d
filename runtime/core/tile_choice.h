/* SPDX-License-Identifier: Apache-2.0 */
/* Tile shapes: the tuning file's records and the order in which a sorter's tile is chosen
 * (the built-in defaults are the catalogue's, gen/catalog.h: mj__default_tile); and the spec
 * a description asks for. Internal. */
#ifndef MJ_TILE_CHOICE_H
#define MJ_TILE_CHOICE_H

#include <stddef.h>

#include "core/context.h"
#include "gen.h"
#include "mergejit.h"
#include "store/bundle_file.h"

/* Checks desc and fills spec from it for the context's sm, without a tile. */
mj_status mj__spec_from_desc(mj_context *ctx, const mj_sort_desc *desc, mj_kernel_spec *spec);

/* Sets spec's tile: the description's own, else MERGEJIT_TILE, else the bundle's entry for
 * the request (*entry, NULL when none), else the tuning file's record, else the default. */
mj_status mj__choose_tile(mj_context *ctx, const mj_sort_desc *desc, mj_kernel_spec *spec,
                          const mj_bundle_entry **entry);

/* The input size (log2 of bytes of keys and values) from which a mergesort's passes merge four
 * lists: the description's merge4_log2, else the tuning file's record for the device, primitive
 * and sizes; 0 where neither sets it (the built-in rule). */
int mj__merge4_log2(const mj_context *ctx, const mj_sort_desc *desc, size_t key_size);

#endif
