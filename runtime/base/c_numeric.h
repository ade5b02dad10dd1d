/* SPDX-License-Identifier: Apache-2.0 */
/* Numbers in the "C" numeric locale on this thread, whatever the application has set, so that
 * a text file written under one locale reads under any other. Internal. Include it from a
 * file built with _GNU_SOURCE (newlocale, uselocale). */
#ifndef MJ_C_NUMERIC_H
#define MJ_C_NUMERIC_H

#include <locale.h>

typedef struct mj_c_numeric {
    locale_t c, old;
} mj_c_numeric;

/* Switches this thread to the "C" numeric locale. 0, or -1 when it cannot be made. */
int mj__c_numeric_begin(mj_c_numeric *s);
/* Gives the thread its locale back. */
void mj__c_numeric_end(mj_c_numeric *s);

#endif
