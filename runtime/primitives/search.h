/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of sorted search: its passes, for the join too. Internal. */
#ifndef MJ_SEARCH_PRIM_H
#define MJ_SEARCH_PRIM_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* Launches the passes of a sorted search of a (a_count keys, sorted) in b that write `out`
 * (checked by the caller; match_counts, when set, already cleared in stream order), with the
 * merge partitions in `partitions` (mj__merge_temp(s, a_count + b_count) bytes), on stream.
 * a_count + b_count must be above 0. The sorter's module holds the search's kernels. */
mj_status mj__search_passes(mj_sorter *s, const void *a, size_t a_count, const void *b,
                            size_t b_count, const mj_search_outputs *out, CUdeviceptr partitions,
                            CUstream stream);

#endif
