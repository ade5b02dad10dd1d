/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of the queued sorts, segmented sort and locality sort. Internal. */
#ifndef MJ_QUEUED_H
#define MJ_QUEUED_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* Temporary bytes a queued sort of n elements needs, checking that n fits memory and a grid
 * (MJ_ERR_TOO_LARGE otherwise). */
mj_status mj__queued_temp(const mj_sorter *s, size_t n, size_t *bytes);

/* Runs a locality sort (queued passes, no segments) for mj_sorter_sort, which has checked the
 * values. */
mj_status mj__locality_sort(mj_sorter *s, void *keys, void *values, size_t n, void *temp,
                            size_t temp_bytes, void *stream);

#endif
