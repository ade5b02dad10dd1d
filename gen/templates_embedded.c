#include <string.h>
#include "templates_embedded.h"

const mj_template *mj_template_find(const char *name) {
    for (size_t i = 0; i < mj_template_count; ++i)
        if (strcmp(mj_templates[i].name, name) == 0) return &mj_templates[i];
    return NULL;
}
