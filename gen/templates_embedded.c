/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>
#include "templates_embedded.h"

const mj_template *mj__template_find(const char *name) {
    for (size_t i = 0; i < mj__template_count; ++i)
        if (strcmp(mj__templates[i].name, name) == 0) return &mj__templates[i];
    return NULL;
}
