/* SPDX-License-Identifier: Apache-2.0 */
/* test_corank over 32-bit positions, which the 4-way partitions take for every sort below 2^31
 * elements (templates/shared/corank.h, mj_split4_narrow). */
#define MJ_CR_POS unsigned
#include "test_corank.c"
