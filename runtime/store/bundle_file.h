/* SPDX-License-Identifier: Apache-2.0 */
/* Deployment bundles: many compiled kernel binaries in one versioned file. Internal.
 *
 * Layout, integers little-endian:
 *   0  char[8]   magic "MJBUNDLE"
 *   8  uint32    format version (3; versions 1 and 2 are read too)
 *  12  uint32    entry count
 *  16  char[16]  library version that wrote it (NUL-padded; for messages only)
 *  32  uint8[32] SHA-256 of the index (the entry records)
 *  64  index: count records of MJ_BUNDLE_RECORD bytes (see bundle_layout.h)
 *      then the payloads, each at the offset its record gives.
 *
 * A record holds the entry's request key (what a context asks for: see
 * core/bundle_match.c), its source key (hash of the generated source it was compiled from),
 * the tile, the target (an sm, and whether the entry is a cubin for it or PTX for its compute
 * capability), ptxas's register and spill figures, a label for people, and the payload's
 * offset, size and SHA-256. A payload is the module's kernel pack (store/kernel_pack.h); in
 * version 1, one image of every kernel. Reading checks the magic, version, index hash, that
 * every payload lies inside the file and does not overlap the index, that no two records share
 * a request key and that the entries name at most MJ_BUNDLE_TARGETS_MAX targets; a payload's
 * own hash is checked when it is read.
 *
 * This header has the types; bundle_read.h reads a file and bundle_write.h writes one. */
#ifndef MJ_BUNDLE_FILE_H
#define MJ_BUNDLE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "mergejit.h"

#define MJ_BUNDLE_LABEL_CAP 96
/* Distinct targets (sm and form) one bundle may hold: far more than there are GPU
 * generations, and few enough that a lookup keeps them on the stack. */
#define MJ_BUNDLE_TARGETS_MAX 64

/* What an entry's binary runs on: a cubin for sm_<sm>, or PTX for compute_<sm>, which the
 * driver compiles at load for that sm or any newer one. */
typedef struct mj_bundle_target {
    int sm;
    int ptx;
} mj_bundle_target;

typedef struct mj_bundle_entry {
    uint8_t request[32];    /* what a context looks the entry up by */
    uint8_t source_key[32]; /* SHA-256 of the generated source and target */
    int sm;                 /* the binary's target, e.g. 90 */
    int ptx;                /* 1: PTX for compute_<sm>; 0: a cubin for sm_<sm> */
    mj_primitive primitive;
    mj_key_kind key;
    size_t key_size, value_size;
    int nt, vt, bs_nt;
    int registers;          /* ptxas's largest count over the kernels; -1 unknown */
    long spill_bytes;       /* ptxas's spill stores + loads over the kernels; -1 unknown */
    char label[MJ_BUNDLE_LABEL_CAP]; /* for people, e.g. "u32 asc" or "rec: a.k < b.k" */
    uint64_t offset, size;  /* the payload, in the file */
    uint8_t sha[32];        /* SHA-256 of the payload */
    const void *payload;    /* writer only: the binary (size bytes) */
} mj_bundle_entry;

typedef struct mj_bundle_index {
    char version[17];       /* library version that wrote the file */
    mj_bundle_entry *entries;
    size_t count;
    mj_bundle_target targets[MJ_BUNDLE_TARGETS_MAX]; /* the entries' distinct targets, in the
                                                        order they first appear */
    size_t target_count;
} mj_bundle_index;

/* The entry with this request key, or NULL. */
const mj_bundle_entry *mj__bundle_find(const mj_bundle_index *b, const uint8_t request[32]);

void mj__bundle_index_free(mj_bundle_index *b);

/* Adds t to targets[0..*count) unless it is there. 0, or -1 when it is not there and *count
 * is MJ_BUNDLE_TARGETS_MAX already. */
int mj__bundle_add_target(mj_bundle_target *targets, size_t *count, mj_bundle_target t);

/* Finds two equal request keys, for the reader and the writer: sorted pointers, then
 * neighbours compared. Returns 1 and sets *first and *second (indexes, first < second) when
 * two keys are equal, 0 when none are, -1 when out of memory. keys[i] points at entry i's
 * 32-byte request key. */
int mj__bundle_find_duplicate(const uint8_t **keys, size_t count, size_t *first,
                              size_t *second);

#endif
