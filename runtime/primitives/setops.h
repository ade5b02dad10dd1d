/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of the multiset operations. Internal. */
#ifndef MJ_SETOPS_PRIM_H
#define MJ_SETOPS_PRIM_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* Temporary bytes for a_count + b_count = n: a partition entry per tile and one more, and a
 * look-back state per tile and the tile counter; MJ_ERR_TOO_LARGE when n reaches 2^62 or the
 * tiles do not fit a grid. */
mj_status mj__setops_temp(const mj_sorter *s, size_t n, size_t *bytes);

#endif
