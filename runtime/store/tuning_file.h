/* SPDX-License-Identifier: Apache-2.0 */
/* The tuning file: tile shapes measured by `mergejit tune`, keyed by device name, sm,
 * primitive, key size and value size. Internal.
 *
 * Text, one record per line, so that a person can read and edit it:
 *
 *   mergejit-tuning 2
 *   # comments and blank lines are ignored
 *   device 90 NVIDIA H100 80GB HBM3
 *   tile mergesort 4 0 256 23 512 20.41 25
 *   tile merge 8 8 128 9 128 0 0
 *
 * The first line names the format and its version. "device SM NAME" starts a device's section
 * (NAME runs to the end of the line, trailing spaces dropped). "tile PRIMITIVE KEY_SIZE
 * VALUE_SIZE NT VT BS_NT GKEYS MERGE4" gives one tile: PRIMITIVE as mj_primitive_name spells it,
 * sizes in bytes, the merge tile NT x VT, the blocksort's threads BS_NT, the throughput the
 * tuner measured (Gkeys/s, 0 when unknown), and for mergesort the input size (log2 of bytes of
 * keys and values) from which its passes merge four lists (0: the built-in rule; 0 for other
 * primitives). Version 1 files, whose tile lines end at GKEYS, are read too (MERGE4 0).
 *
 * This header holds the entries and the rules they obey; tuning_parse.h reads a file and
 * tuning_write.h writes one. */
#ifndef MJ_TUNING_FILE_H
#define MJ_TUNING_FILE_H

#include <stddef.h>

#include "mergejit.h"

#define MJ_TUNING_DEVICE_CAP 256
#define MJ_TUNING_HEADER_WORD "mergejit-tuning" /* the first line: this and the version */
#define MJ_TUNING_FORMAT_VERSION 2

typedef struct mj_tuning_entry {
    char device[MJ_TUNING_DEVICE_CAP];
    int sm;
    mj_primitive primitive;
    size_t key_size, value_size;
    int nt, vt, bs_nt;
    double gkeys;
    int merge4_log2; /* mj_tile.merge4_log2: 0, or mergesort's 4-way threshold */
} mj_tuning_entry;

typedef struct mj_tuning {
    mj_tuning_entry *entries;
    size_t count, cap;
} mj_tuning;

/* The file a context reads when its options name none: $MERGEJIT_TUNING, else
 * $XDG_CONFIG_HOME/mergejit/tuning, else $HOME/.config/mergejit/tuning. 0, or -1 with err. */
int mj__tuning_default_path(char *out, size_t cap, char *err, size_t errcap);

/* The entry for a device, sm, primitive, key size and value size, or NULL. */
const mj_tuning_entry *mj__tuning_find(const mj_tuning *t, const char *device, int sm,
                                       mj_primitive primitive, size_t key_size,
                                       size_t value_size);

/* Adds e, replacing the entry with the same device, sm, primitive, key and value size.
 * 0, or -1 when host memory ran out (t unchanged). */
int mj__tuning_set(mj_tuning *t, const mj_tuning_entry *e);

void mj__tuning_free(mj_tuning *t);

/* Device names as stored compare equal: bounded, since an entry built by hand may not
 * terminate its name. */
int mj__tuning_same_device(const char *a, const char *b);

/* The rules an entry obeys, shared by the reader and the writer (so that whatever is written
 * reads back). Each returns NULL, or what is wrong (written into why). */
/* The tile: mj__tile_bounds_check (gen.h), and gkeys finite in 0..1e9. */
const char *mj__tuning_check_tile(mj_primitive primitive, long long key_size,
                                  long long value_size, long long nt, long long vt,
                                  long long bs_nt, double gkeys, char *why, size_t cap);
/* merge4_log2: 0, or 1 to 62 for mergesort (mj_sort_desc.merge4_log2). */
const char *mj__tuning_check_merge4(mj_primitive primitive, long long merge4_log2, char *why,
                                    size_t cap);
/* sm 10..999. */
const char *mj__tuning_check_sm(long long sm, char *why, size_t cap);
/* A name the reader gives back unchanged: non-empty, terminated within the cap, no control
 * characters (a newline would end the line, a tab would be taken for a separator), no space
 * at either end (the reader drops those). */
const char *mj__tuning_check_device_name(const char *name, size_t len, char *why,
                                         size_t cap);

#endif
