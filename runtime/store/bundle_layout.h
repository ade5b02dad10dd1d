/* The byte layout of bundle files, shared by the reader (bundle_file.c) and the writer
 * (bundle_write.c); the record layout is described in bundle_file.c. Internal to store/. */
#ifndef MJ_BUNDLE_LAYOUT_H
#define MJ_BUNDLE_LAYOUT_H

#include "mergejit.h"
#include "store/bundle_file.h"

#define MAGIC "MJBUNDLE"
#define FORMAT_VERSION 1u
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
#define R_PAD (R_LABEL + MJ_BUNDLE_LABEL_CAP)

_Static_assert(R_PAD <= MJ_BUNDLE_RECORD, "bundle record fields overflow the record");
_Static_assert(MJ_BUNDLE_RECORD % PAYLOAD_ALIGN == 0 && HEADER_SIZE % PAYLOAD_ALIGN == 0,
               "the first payload is aligned without padding");
_Static_assert(sizeof MJ_VERSION_STRING - 1 <= H_LIBVER_CAP,
               "MJ_VERSION_STRING does not fit the bundle header");

#endif
