/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of the segmented reduction. Internal. */
#ifndef MJ_SEGREDUCE_PRIM_H
#define MJ_SEGREDUCE_PRIM_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* Temporary bytes for merged = n elements + count offsets: a partition entry per tile and one
 * more, then the look-back's storage (the scan's); MJ_ERR_TOO_LARGE when the tiles do not fit
 * a grid or memory. */
mj_status mj__segreduce_temp(const mj_sorter *s, size_t merged, size_t *bytes);

#endif
