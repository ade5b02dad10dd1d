/* The host side of mergesort. Internal. */
#ifndef MJ_MERGESORT_H
#define MJ_MERGESORT_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* The lists a merge pass may merge (*ways: 4, the default, or 2), from MERGEJIT_MERGE_WAYS,
 * read as a mergesort sorter is created: 2 makes every pass a 2-way one (the same kernels), to
 * time the two schedules from one build. MJ_ERR_INVALID_ARGUMENT for another value. */
mj_status mj__mergesort_ways(mj_context *ctx, int *ways);

/* Temporary bytes a mergesort of n elements needs (indices: an index sort), checking that n
 * fits memory and a grid (MJ_ERR_TOO_LARGE otherwise). */
mj_status mj__mergesort_temp(const mj_sorter *s, size_t n, int indices, size_t *bytes);

/* Runs a mergesort in place for mj_sorter_sort, which has checked the values. */
mj_status mj__mergesort_sort(mj_sorter *s, void *keys, void *values, size_t n, void *temp,
                             size_t temp_bytes, void *stream);

#endif
