/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of select. Internal. */
#ifndef MJ_SELECT_PRIM_H
#define MJ_SELECT_PRIM_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* Temporary bytes for n elements: a look-back state per tile and the tile counter;
 * MJ_ERR_TOO_LARGE when n reaches 2^62 or the tiles do not fit a grid. */
mj_status mj__select_temp(const mj_sorter *s, size_t n, size_t *bytes);

#endif
