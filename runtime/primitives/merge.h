/* The host side of the merge primitive. Internal. */
#ifndef MJ_MERGE_H
#define MJ_MERGE_H

#include <stddef.h>

#include "mergejit.h"
#include "primitives/run.h"

/* Temporary bytes a merge of n outputs needs, checking that n fits a grid (MJ_ERR_TOO_LARGE
 * otherwise). */
mj_status mj__merge_temp(const mj_sorter *s, size_t n, size_t *bytes);

#endif
