/* test_corank over 32-bit positions, which mj_partition4 takes for every sort below 2^31
 * elements (templates/shared/corank.h). */
#define MJ_CR_POS unsigned
#include "test_corank.c"
