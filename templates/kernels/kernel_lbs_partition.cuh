/* Load-balancing search and interval expand, coarse partition: partitions[t] for t in
 * [0, tiles] is how many of the first t * MJ_LBS_NV outputs of the merge of the items with the
 * offsets are items (mj_lbs_path), one thread an entry. */
#ifndef MJ_KERNEL_LBS_PARTITION_CUH
#define MJ_KERNEL_LBS_PARTITION_CUH

#include "common/spec_default.cuh"
#include "shared/load_balance.h"
#include "block/cta_load_balance.cuh"

extern "C" __global__ void __launch_bounds__(MJ_LBS_PARTITION_THREADS)
mj_lbs_partition(const mj_key *offsets, mj_i64 objects, mj_i64 items, mj_i64 tiles,
                 mj_i64 *partitions) {
    mj_lbs_partition_entry(offsets, objects, items, tiles, partitions);
}

#endif
