/* SPDX-License-Identifier: Apache-2.0 */
/* Each primitive's host entry points, a row per primitive (the host half of the catalogue,
 * gen/catalog.h): what api/sorter.c dispatches to instead of naming primitives. Internal. */
#ifndef MJ_REGISTRY_H
#define MJ_REGISTRY_H

#include <stddef.h>

#include "mergejit.h"

typedef struct mj_primitive_entry {
    /* Temporary bytes a run over n elements needs (mj_sorter_temp_size), checking that n fits
     * memory and a grid (MJ_ERR_TOO_LARGE otherwise). */
    mj_status (*temp_size)(const mj_sorter *s, size_t n, size_t *bytes);
    /* The same for an index sort (mj_sorter_sort_indices); NULL: temp_size serves. */
    mj_status (*index_temp_size)(const mj_sorter *s, size_t n, size_t *bytes);
    /* mj_sorter_sort, after it has checked the values; NULL where it does not run. */
    mj_status (*sort)(mj_sorter *s, void *keys, void *values, size_t n, void *temp,
                      size_t temp_bytes, void *stream);
} mj_primitive_entry;

/* The primitive's entry points; NULL for an unknown primitive (or a number without a row). */
const mj_primitive_entry *mj__primitive_entry(mj_primitive p);

#endif
