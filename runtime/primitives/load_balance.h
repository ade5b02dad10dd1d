/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of load-balancing search, interval expand and interval move. Internal. */
#ifndef MJ_LOAD_BALANCE_PRIM_H
#define MJ_LOAD_BALANCE_PRIM_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* Temporary bytes for a merged length n (num_items + num_objects; for bulk remove the source
 * length, for bulk insert a_count + b_count): one partition entry per tile and one more,
 * checking that the tiles fit a grid (MJ_ERR_TOO_LARGE otherwise). */
mj_status mj__lbs_temp(const mj_sorter *s, size_t n, size_t *bytes);

#endif
