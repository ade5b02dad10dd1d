/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of reduce by key. Internal. */
#ifndef MJ_REDUCE_BY_KEY_PRIM_H
#define MJ_REDUCE_BY_KEY_PRIM_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* Temporary bytes for n elements: the tile counter and two look-back words per tile, and two
 * values per tile for values over 8 bytes; MJ_ERR_TOO_LARGE when n reaches 2^62 or the tiles
 * do not fit a grid. */
mj_status mj__reduce_by_key_temp(const mj_sorter *s, size_t n, size_t *bytes);

#endif
