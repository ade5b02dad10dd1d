/* SPDX-License-Identifier: Apache-2.0 */
/* Writing a deployment bundle (the format: bundle_file.h). Internal. */
#ifndef MJ_BUNDLE_WRITE_H
#define MJ_BUNDLE_WRITE_H

#include <stddef.h>

#include "store/bundle_file.h"

/* Writes entries (payload and size set; offset and sha are computed) to path atomically: a
 * temporary file in the same directory, renamed into place. Two entries with the same request
 * key are refused. 0, or -1 with err; on failure no temporary file is left behind. */
int mj__bundle_write_file(const char *path, const mj_bundle_entry *entries, size_t count,
                          char *err, size_t errcap);

#endif
