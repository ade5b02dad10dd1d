/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of reduce and scan. Internal. */
#ifndef MJ_SCAN_H
#define MJ_SCAN_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* Temporary bytes a reduce of n elements needs (0 when one block covers them), checking that
 * n fits a grid (MJ_ERR_TOO_LARGE otherwise). */
mj_status mj__reduce_temp(const mj_sorter *s, size_t n, size_t *bytes);

/* Temporary bytes a scan of n elements needs (0 for n == 0): the tile counter and states,
 * checking that n fits a grid (MJ_ERR_TOO_LARGE otherwise). */
mj_status mj__scan_temp(const mj_sorter *s, size_t n, size_t *bytes);

/* The decoupled look-back's storage for `tiles` tiles of the sorter's keys
 * (kernel_scan.cuh), added to l: the tile counter and states (*state_bytes, cleared before each
 * launch; 0 for no tiles), whose offset it returns, then the values of keys over 8 bytes at
 * *values. The scan's, and the segmented reduction's that shares its look-back. */
size_t mj__look_back_parts(const mj_sorter *s, size_t tiles, mj_temp_layout *l,
                           size_t *state_bytes, size_t *values);

#endif
