/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of the relational join. Internal. */
#ifndef MJ_JOIN_PRIM_H
#define MJ_JOIN_PRIM_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* Temporary bytes for joins of a_count + b_count == n keys (any split of n), checking that the
 * tiles fit a grid (MJ_ERR_TOO_LARGE otherwise). */
mj_status mj__join_temp(const mj_sorter *s, size_t n, size_t *bytes);

/* mj_join_plan.stamp of a plan mj_sorter_join_plan filled ("mjpl"). */
#define MJ_JOIN_PLAN_STAMP 0x6d6a706cu

#endif
