/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a tuning file (the format: tuning_file.h). Internal. */
#ifndef MJ_TUNING_PARSE_H
#define MJ_TUNING_PARSE_H

#include <stddef.h>

#include "store/tuning_file.h"

/* Parses text (len bytes; need not be NUL-terminated). `name` is used in messages. A file that
 * is not a tuning file, of another format version, or with a bad line is rejected: -1 and err
 * naming `name`, the line number and what is wrong; *out is then empty. 0 on success. */
int mj__tuning_parse(const char *text, size_t len, const char *name, mj_tuning *out, char *err,
                     size_t errcap);

/* Reads and parses path. 0 on success; 1 when the file does not exist (*out empty, err says
 * so); -1 when it cannot be read or does not parse (err). */
int mj__tuning_read(const char *path, mj_tuning *out, char *err, size_t errcap);

#endif
