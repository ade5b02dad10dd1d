/* SPDX-License-Identifier: Apache-2.0 */
/* Deployment bundles: the helpers the reader and the writer share. See bundle_file.h for the
 * contract and bundle_layout.h for the byte layout. */
#include "store/bundle_file.h"

#include "base/host_alloc.h"

#include <stdlib.h>
#include <string.h>

/* Duplicate request keys: sorted pointers, then neighbours compared, so a million entries
 * cost a sort rather than a trillion comparisons. */
static int cmp_key_ptr(const void *a, const void *b)
{
    return memcmp(*(const uint8_t *const *)a, *(const uint8_t *const *)b, 32);
}

int mj__bundle_find_duplicate(const uint8_t **keys, size_t count, size_t *first,
                              size_t *second)
{
    if (count < 2)
        return 0;
    const uint8_t **sorted = mj__malloc(count * sizeof *sorted);
    if (!sorted)
        return -1;
    memcpy(sorted, keys, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, cmp_key_ptr);
    const uint8_t *dup = NULL;
    for (size_t i = 1; i < count && !dup; i++)
        if (memcmp(sorted[i - 1], sorted[i], 32) == 0)
            dup = sorted[i];
    free(sorted);
    if (!dup)
        return 0;
    /* Name the entries in the caller's order, which is what people can find. */
    size_t a = count, b = count;
    for (size_t i = 0; i < count; i++) {
        if (memcmp(keys[i], dup, 32) != 0)
            continue;
        if (a == count)
            a = i;
        else {
            b = i;
            break;
        }
    }
    *first = a;
    *second = b;
    return 1;
}

const mj_bundle_entry *mj__bundle_find(const mj_bundle_index *b, const uint8_t request[32])
{
    if (!b)
        return NULL;
    for (size_t i = 0; i < b->count; i++)
        if (memcmp(b->entries[i].request, request, 32) == 0)
            return &b->entries[i];
    return NULL;
}

int mj__bundle_add_target(mj_bundle_target *targets, size_t *count, mj_bundle_target t)
{
    for (size_t i = 0; i < *count; i++)
        if (targets[i].sm == t.sm && targets[i].ptx == t.ptx)
            return 0;
    if (*count == MJ_BUNDLE_TARGETS_MAX)
        return -1;
    targets[(*count)++] = t;
    return 0;
}

void mj__bundle_index_free(mj_bundle_index *b)
{
    if (!b)
        return;
    free(b->entries);
    memset(b, 0, sizeof *b);
}
