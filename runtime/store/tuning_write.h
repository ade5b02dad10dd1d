/* SPDX-License-Identifier: Apache-2.0 */
/* Writing a tuning file (the format: tuning_file.h). Internal. */
#ifndef MJ_TUNING_WRITE_H
#define MJ_TUNING_WRITE_H

#include "store/tuning_file.h"

/* Writes t to path atomically (a temporary file in the same directory renamed into place;
 * the directory is created, mode 0700, when missing), grouped by device in a stable order.
 * 0, or -1 with err; on failure no temporary file is left behind. */
int mj__tuning_write(const char *path, const mj_tuning *t, char *err, size_t errcap);

#endif
