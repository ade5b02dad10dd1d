/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA templates embedded at build time (cmake/embed_templates.cmake). Internal. */
#ifndef MJ_TEMPLATES_EMBEDDED_H
#define MJ_TEMPLATES_EMBEDDED_H

#include <stddef.h>

typedef struct mj_template {
    const char *name; /* file name, e.g. "merge_path.cuh" */
    const char *text; /* NUL-terminated */
    size_t size;      /* bytes without the NUL */
} mj_template;

extern const mj_template mj__templates[];
extern const size_t mj__template_count;

/* The template called name, or NULL. */
const mj_template *mj__template_find(const char *name);

#endif
