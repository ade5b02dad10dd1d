/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of the merge primitive, and its partitions for the sorted search. Internal. */
#ifndef MJ_MERGE_H
#define MJ_MERGE_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* Temporary bytes a merge of n outputs needs, checking that n fits a grid (MJ_ERR_TOO_LARGE
 * otherwise). */
mj_status mj__merge_temp(const mj_sorter *s, size_t n, size_t *bytes);

/* Launches the partition kernel of a merge of a and b in tiles of the sorter's tile:
 * partitions[t] for t in [0, tiles] becomes how many of the first t tiles' outputs come from a
 * (ties: a first). The kernel of the tiles is launched next with mj__launch_overlapped and
 * waits for its entries (mj_await_split, block/await_split.cuh). */
mj_status mj__merge_partition_launch(mj_sorter *s, CUdeviceptr a, long long a_count,
                                     CUdeviceptr b, long long b_count, long long tiles,
                                     CUdeviceptr partitions, CUstream stream);

#endif
