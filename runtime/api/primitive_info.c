/* SPDX-License-Identifier: Apache-2.0 */
/* mj_primitive_query: a primitive's traits row (gen/spec.c), as the public header puts it. */
#include "mergejit.h"
#include "spec.h"

mj_status mj_primitive_query(mj_primitive primitive, mj_primitive_info *info) {
    if (!info || !mj__primitive_row(primitive))
        return MJ_ERR_INVALID_ARGUMENT;
    const mj_primitive_traits *t = mj__primitive_traits(primitive);
    info->comparator = t->comparator;
    info->op = t->op;
    info->index_keys = t->index_key;
    info->values = (mj_values_rule)t->values;
    return MJ_OK;
}
