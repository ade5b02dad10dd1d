/* The host side of mergesort. Internal. */
#ifndef MJ_MERGESORT_H
#define MJ_MERGESORT_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* The lists mergesort's merge passes merge, from MERGEJIT_MERGE_WAYS, read as a mergesort
 * sorter is created: *ways 0 (unset: 4-way passes from MJ_MERGE4_MIN_BYTES of input on,
 * merge_frame.h's mj_sort_ways), 2 (every pass 2-way) or 4 (4-way wherever two doublings are
 * left), to time the schedules from one build. MJ_ERR_INVALID_ARGUMENT for another value. */
mj_status mj__mergesort_ways(mj_context *ctx, int *ways);

/* Temporary bytes a mergesort of n elements needs (indices: an index sort), checking that n
 * fits memory and a grid (MJ_ERR_TOO_LARGE otherwise). */
mj_status mj__mergesort_temp(const mj_sorter *s, size_t n, int indices, size_t *bytes);

/* Runs a mergesort in place for mj_sorter_sort, which has checked the values. */
mj_status mj__mergesort_sort(mj_sorter *s, void *keys, void *values, size_t n, void *temp,
                             size_t temp_bytes, void *stream);

#endif
