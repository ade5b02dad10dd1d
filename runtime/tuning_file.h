/* The tuning file: tile shapes measured by `mergejit tune`, keyed by device name, sm,
 * primitive, key size and value size. Internal.
 *
 * Text, one record per line, so that a person can read and edit it:
 *
 *   mergejit-tuning 1
 *   # comments and blank lines are ignored
 *   device 90 NVIDIA H100 80GB HBM3
 *   tile mergesort 4 0 256 23 512 20.41
 *   tile merge 8 8 128 9 128 0
 *
 * The first line names the format and its version. "device SM NAME" starts a device's section
 * (NAME runs to the end of the line, trailing spaces dropped). "tile PRIMITIVE KEY_SIZE
 * VALUE_SIZE NT VT BS_NT GKEYS" gives one tile: PRIMITIVE as mj_primitive_name spells it,
 * sizes in bytes, the merge tile NT x VT, the blocksort's threads BS_NT, and the throughput the
 * tuner measured (Gkeys/s, 0 when unknown). */
#ifndef MJ_TUNING_FILE_H
#define MJ_TUNING_FILE_H

#include <stddef.h>

#include "mergejit.h"

#define MJ_TUNING_DEVICE_CAP 256

typedef struct mj_tuning_entry {
    char device[MJ_TUNING_DEVICE_CAP];
    int sm;
    mj_primitive primitive;
    size_t key_size, value_size;
    int nt, vt, bs_nt;
    double gkeys;
} mj_tuning_entry;

typedef struct mj_tuning {
    mj_tuning_entry *entries;
    size_t count, cap;
} mj_tuning;

/* The file a context reads when its options name none: $MERGEJIT_TUNING, else
 * $XDG_CONFIG_HOME/mergejit/tuning, else $HOME/.config/mergejit/tuning. 0, or -1 with err. */
int mj_tuning_default_path(char *out, size_t cap, char *err, size_t errcap);

/* Parses text (len bytes; need not be NUL-terminated). `name` is used in messages. A file that
 * is not a tuning file, of another format version, or with a bad line is rejected: -1 and err
 * naming `name`, the line number and what is wrong; *out is then empty. 0 on success. */
int mj_tuning_parse(const char *text, size_t len, const char *name, mj_tuning *out, char *err,
                    size_t errcap);

/* Reads and parses path. 0 on success; 1 when the file does not exist (*out empty, err says
 * so); -1 when it cannot be read or does not parse (err). */
int mj_tuning_read(const char *path, mj_tuning *out, char *err, size_t errcap);

/* Writes t to path atomically (a temporary file in the same directory renamed into place;
 * the directory is created, mode 0700, when missing), grouped by device in a stable order.
 * 0, or -1 with err; on failure no temporary file is left behind. */
int mj_tuning_write(const char *path, const mj_tuning *t, char *err, size_t errcap);

/* The entry for a device, sm, primitive, key size and value size, or NULL. */
const mj_tuning_entry *mj_tuning_find(const mj_tuning *t, const char *device, int sm,
                                      mj_primitive primitive, size_t key_size,
                                      size_t value_size);

/* Adds e, replacing the entry with the same device, sm, primitive, key and value size.
 * 0, or -1 when host memory ran out (t unchanged). */
int mj_tuning_set(mj_tuning *t, const mj_tuning_entry *e);

void mj_tuning_free(mj_tuning *t);

#endif
