/* SPDX-License-Identifier: Apache-2.0 */
#include "base/clock.h"

#include <time.h>

double mj__now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
