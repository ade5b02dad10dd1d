/* SPDX-License-Identifier: Apache-2.0 */
/* A monotonic clock for the build and load times a sorter reports. Internal. */
#ifndef MJ_CLOCK_H
#define MJ_CLOCK_H

/* Milliseconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double mj__now_ms(void);

#endif
