/* SPDX-License-Identifier: Apache-2.0 */
/* Host memory for the library (runtime and generator): malloc, calloc and realloc with a test
 * hook that makes one chosen allocation fail, so that tests can walk every allocation path.
 * Memory from these is released with free(). */
#ifndef MJ_HOST_ALLOC_H
#define MJ_HOST_ALLOC_H

#include <stddef.h>

void *mj__malloc(size_t n);
void *mj__calloc(size_t count, size_t size);
void *mj__realloc(void *p, size_t n); /* on failure p is left as it was */

/* Test hook, never set by the library: when positive, every allocation counts it down and the
 * one that takes it to zero fails (NULL, as when the host is out of memory); zero is off.
 * Hidden from the shared library's users; tests link the static library and set it. */
extern long mj__fault_alloc_countdown;

#endif
