/* SPDX-License-Identifier: Apache-2.0 */
/* The byte layout of bundle files, shared by the reader (bundle_read.c) and the writer
 * (bundle_write.c); the header is described in bundle_file.h. Internal to store/.
 *
 * Record layout, MJ_BUNDLE_RECORD (256) bytes, integers little-endian:
 *    0  uint8[32] request key
 *   32  uint8[32] source key
 *   64  uint8[32] SHA-256 of the payload
 *   96  uint64    payload offset (from the start of the file)
 *  104  uint64    payload size
 *  112  uint32    sm
 *  116  uint32    primitive (mj_primitive)
 *  120  uint32    key kind (mj_key_kind)
 *  124  uint32    key size
 *  128  uint32    value size
 *  132  int32     nt
 *  136  int32     vt
 *  140  int32     bs_nt
 *  144  int32     registers (-1 unknown)
 *  148  int64     spill bytes (-1 unknown)
 *  156  char[96]  label, NUL-padded (the writer always leaves a NUL; the reader terminates it
 *                 anyway)
 *  252  uint8     form: 0 a cubin for sm_<sm>, 1 PTX for compute_<sm> (format 3 on; zero
 *                 before, when every entry was a cubin)
 *  253  uint8[3]  zero
 *
 * The index (all records, in the order given to the writer) starts at byte 64. The payloads
 * follow it in the same order, each at the next multiple of 16 with zero bytes between. The
 * header's index hash is SHA-256 over the records' bytes, exactly as the header describes.
 *
 * The library-version field (header bytes 16..31) is outside that hash; the reader requires
 * it to be printable ASCII followed only by NULs, so that damage there is caught in most
 * cases and never reaches a message as raw bytes. A change that keeps it printable (say
 * "0.1.0" to "1.1.0") goes unnoticed, which is harmless: it is only shown to people.
 *
 * The writer refuses what the reader would refuse (duplicate request keys, fields out of
 * range), so a file it writes always reads back. The file is created with mode 0644: a bundle
 * is shipped to be read by other users, unlike the cache's private entries. */
#ifndef MJ_BUNDLE_LAYOUT_H
#define MJ_BUNDLE_LAYOUT_H

#include "mergejit.h"
#include "store/bundle_file.h"

#define MAGIC "MJBUNDLE"
/* Version 3 records say whether an entry is a cubin or PTX (R_FORM); version 2 payloads are
 * kernel packs (store/kernel_pack.h), as version 3's are; version 1 payloads, one image of
 * every kernel, still load. Versions 1 and 2 hold cubins only. */
#define FORMAT_VERSION 3u
#define FORM_VERSION 3u /* the first version with R_FORM */
#define OLDEST_FORMAT_VERSION 1u
#define HEADER_SIZE 64
#define MJ_BUNDLE_RECORD 256
#define MAX_ENTRIES ((uint32_t)1 << 20)
#define PAYLOAD_ALIGN 16

/* Header fields. */
#define H_VERSION 8
#define H_COUNT 12
#define H_LIBVER 16
#define H_LIBVER_CAP 16
#define H_HASH 32

/* Record fields. */
#define R_REQUEST 0
#define R_SOURCE 32
#define R_SHA 64
#define R_OFFSET 96
#define R_SIZE 104
#define R_SM 112
#define R_PRIMITIVE 116
#define R_KEY 120
#define R_KEY_SIZE 124
#define R_VALUE_SIZE 128
#define R_NT 132
#define R_VT 136
#define R_BS_NT 140
#define R_REGISTERS 144
#define R_SPILL 148
#define R_LABEL 156
#define R_FORM (R_LABEL + MJ_BUNDLE_LABEL_CAP)
#define R_PAD (R_FORM + 1)

_Static_assert(R_PAD <= MJ_BUNDLE_RECORD, "bundle record fields overflow the record");
_Static_assert(MJ_BUNDLE_RECORD % PAYLOAD_ALIGN == 0 && HEADER_SIZE % PAYLOAD_ALIGN == 0,
               "the first payload is aligned without padding");
_Static_assert(sizeof MJ_VERSION_STRING - 1 <= H_LIBVER_CAP,
               "MJ_VERSION_STRING does not fit the bundle header");

#endif
