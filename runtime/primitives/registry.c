/* SPDX-License-Identifier: Apache-2.0 */
/* Each primitive's host entry points: see registry.h. */
#include "primitives/registry.h"

#include "primitives/join.h"
#include "primitives/load_balance.h"
#include "primitives/merge.h"
#include "primitives/mergesort.h"
#include "primitives/queued.h"
#include "primitives/reduce_by_key.h"
#include "primitives/scan.h"
#include "primitives/select.h"
#include "primitives/segreduce.h"
#include "primitives/setops.h"

/* mj_sorter_sort's mergesort: not profiled. */
static mj_status mergesort_sort(mj_sorter *s, void *keys, void *values, size_t n, void *temp,
                                size_t temp_bytes, void *stream) {
    return mj__mergesort_sort(s, keys, values, n, temp, temp_bytes, stream, NULL);
}

/* The sorted search's temporary storage is the merge partitions' (search.c); lbs's serves
 * expand, move and the bulk operations, whose partitions are the same. */
static const mj_primitive_entry entries[MJ_PRIMITIVE_COUNT] = {
    [MJ_MERGESORT] = {mj__mergesort_temp, mj__mergesort_index_temp, mergesort_sort},
    [MJ_MERGE] = {mj__merge_temp, NULL, NULL},
    [MJ_SEGMENTED_SORT] = {mj__queued_temp, NULL, NULL},
    [MJ_LOCALITY_SORT] = {mj__queued_temp, NULL, mj__locality_sort},
    [MJ_REDUCE] = {mj__reduce_temp, NULL, NULL},
    [MJ_SCAN] = {mj__scan_temp, NULL, NULL},
    [MJ_LOAD_BALANCE] = {mj__lbs_temp, NULL, NULL},
    [MJ_INTERVAL_EXPAND] = {mj__lbs_temp, NULL, NULL},
    [MJ_SORTED_SEARCH] = {mj__merge_temp, NULL, NULL},
    [MJ_BULK_REMOVE] = {mj__lbs_temp, NULL, NULL},
    [MJ_BULK_INSERT] = {mj__lbs_temp, NULL, NULL},
    [MJ_INTERVAL_MOVE] = {mj__lbs_temp, NULL, NULL},
    [MJ_JOIN] = {mj__join_temp, NULL, NULL},
    [MJ_SET_OPS] = {mj__setops_temp, NULL, NULL},
    [MJ_SELECT] = {mj__select_temp, NULL, NULL},
    [MJ_SEGMENTED_REDUCE] = {mj__segreduce_temp, NULL, NULL},
    [MJ_REDUCE_BY_KEY] = {mj__reduce_by_key_temp, NULL, NULL},
};

const mj_primitive_entry *mj__primitive_entry(mj_primitive p) {
    return (unsigned)p < MJ_PRIMITIVE_COUNT ? &entries[p] : NULL;
}
