/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of mergesort. Internal. */
#ifndef MJ_MERGESORT_H
#define MJ_MERGESORT_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* Mergesort's schedule from the environment, read as a mergesort sorter of element_bytes
 * (key and value) is created, to time the schedules from one build (the kernels and temporary
 * storage are the same for all):
 * - MERGEJIT_MERGE_WAYS, the lists a merge pass merges: *ways 0 (unset: 4-way passes from
 *   MJ_MERGE4_MIN_BYTES of input on, merge_frame.h's mj_sort_ways), 2 (every pass 2-way) or 4
 *   (4-way wherever two doublings are left);
 * - MERGEJIT_FUSED_PARTITION, *fused 1: each 2-way pass is one launch, its merge kernel
 *   finding its tiles' partitions itself; 0: a partition kernel, then the merge kernel;
 * - MERGEJIT_PDL, *pdl 1: the passes' kernels launch overlapped (programmatic dependent
 *   launch, where the code and driver allow it; mj__launch_overlapped); 0: plainly;
 * - MERGEJIT_SERPENTINE, *serpentine 1: every other pass takes its tiles from the last, so
 *   that it starts where the pass before ended; 0: every pass from the first.
 * Unset, the last three take mergesort.c's defaults (PDL's by element_bytes).
 * MJ_ERR_INVALID_ARGUMENT, naming the variable, for another value. */
mj_status mj__mergesort_env(mj_context *ctx, size_t element_bytes, int *ways, int *fused,
                            int *pdl, int *serpentine);

/* The kernels (a set of its row's) a mergesort sorter's sorts may launch, which it builds at
 * create: every one of its primitive's but mj_partition when its 2-way passes are fused
 * (fused, as mj__mergesort_env reads it at create), and but the 4-way passes' three when no
 * sort of it merges four lists (four_way 0: MERGEJIT_MERGE_WAYS=2). */
mj_kernel_set mj__mergesort_kernels(int fused, int four_way);

/* Temporary bytes a mergesort of n elements needs, and an index sort of n, checking that n
 * fits memory and a grid (MJ_ERR_TOO_LARGE otherwise). */
mj_status mj__mergesort_temp(const mj_sorter *s, size_t n, size_t *bytes);
mj_status mj__mergesort_index_temp(const mj_sorter *s, size_t n, size_t *bytes);

/* The passes of a mergesort of n elements (mj_sorter_sort_passes): *count of them, the first
 * min(*count, capacity) described in out (ms 0). MJ_ERR_TOO_LARGE as mj__mergesort_temp. */
mj_status mj__mergesort_passes(const mj_sorter *s, size_t n, mj_sort_pass *out, int capacity,
                               int *count);

/* Runs a mergesort in place for mj_sorter_sort, which has checked the values. marks: NULL, or
 * (a profiled sort) the count of mj__mergesort_passes plus one events, recorded on the stream
 * before the first pass and after each. */
mj_status mj__mergesort_sort(mj_sorter *s, void *keys, void *values, size_t n, void *temp,
                             size_t temp_bytes, void *stream, CUevent *marks);

#endif
