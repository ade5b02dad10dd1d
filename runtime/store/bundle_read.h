/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a deployment bundle (the format: bundle_file.h). Internal. */
#ifndef MJ_BUNDLE_READ_H
#define MJ_BUNDLE_READ_H

#include <stddef.h>

#include "store/bundle_file.h"

/* Reads and checks the header and index of path. 0, or -1 with err naming the path and the
 * problem (missing, not a bundle, another format version, damaged index, payload outside the
 * file, duplicate entries). */
int mj__bundle_read_index(const char *path, mj_bundle_index *out, char *err, size_t errcap);

/* Reads an entry's payload from path into *data (malloc'd) and checks its SHA-256. 0, or -1
 * with err (I/O, changed or damaged file). */
int mj__bundle_read_payload(const char *path, const mj_bundle_entry *e, void **data, char *err,
                            size_t errcap);

#endif
