/* SPDX-License-Identifier: Apache-2.0 */
/* The "C" numeric locale: see c_numeric.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* newlocale/uselocale when built on its own */
#endif

#include "base/c_numeric.h"

int mj__c_numeric_begin(mj_c_numeric *s)
{
    s->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (s->c == (locale_t)0)
        return -1;
    s->old = uselocale(s->c);
    return 0;
}

void mj__c_numeric_end(mj_c_numeric *s)
{
    uselocale(s->old);
    freelocale(s->c);
}
