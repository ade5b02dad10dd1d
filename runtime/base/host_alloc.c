/* SPDX-License-Identifier: Apache-2.0 */
#include "base/host_alloc.h"

#include <stdlib.h>

long mj__fault_alloc_countdown;

/* Whether this allocation is the one the test hook fails. */
static int injected(void)
{
    if (__atomic_load_n(&mj__fault_alloc_countdown, __ATOMIC_RELAXED) <= 0)
        return 0;
    return __atomic_sub_fetch(&mj__fault_alloc_countdown, 1, __ATOMIC_RELAXED) == 0;
}

void *mj__malloc(size_t n)
{
    return injected() ? NULL : malloc(n);
}

void *mj__calloc(size_t count, size_t size)
{
    return injected() ? NULL : calloc(count, size);
}

void *mj__realloc(void *p, size_t n)
{
    return injected() ? NULL : realloc(p, n);
}
