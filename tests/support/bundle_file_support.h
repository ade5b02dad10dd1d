/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers of the bundle file's tests (test_bundle_file_*.c): the byte layout, entries whose
 * fields all differ, writes and reads that fail the test on error, and a fixture of three
 * entries written to a fresh directory. Header-only, so that the support library's sources stay
 * as they are; static inline, so that a program leaving some of them unused compiles without a
 * warning. */
#ifndef MJ_TEST_BUNDLE_FILE_SUPPORT_H
#define MJ_TEST_BUNDLE_FILE_SUPPORT_H

#include <check.h>

#include "store/bundle_file.h"
#include "store/bundle_read.h"
#include "store/bundle_write.h"
#include "base/sha256.h"
#include "test_support.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The layout, as store/bundle_layout.h lays it out (restated rather than included, so that the
 * tests check the format itself, not that header's view of it). */
#define HEADER_SIZE 64
#define RECORD 256
#define H_VERSION 8
#define H_COUNT 12
#define H_LIBVER 16
#define H_HASH 32
#define R_REQUEST 0
#define R_OFFSET 96
#define R_SIZE 104
#define R_SM 112
#define R_PRIMITIVE 116
#define R_KEY 120
#define R_NT 132
#define R_VT 136
#define R_BS_NT 140
#define R_LABEL 156
#define R_FORM 252
#define R_PAD 253

static inline void path_in(char *out, size_t cap, const char *dir, const char *name)
{
    ck_assert_int_lt(snprintf(out, cap, "%s/%s", dir, name), (int)cap);
}

/* Deterministic bytes that differ with seed, so payloads can be told apart. */
static inline uint8_t *make_payload(size_t n, unsigned seed)
{
    uint8_t *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    uint64_t s = 0x9e3779b97f4a7c15ull * (seed + 1);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)mjt_rand(&s);
    return p;
}

static inline void fill_entry(mj_bundle_entry *e, unsigned i, const void *payload, size_t size)
{
    memset(e, 0, sizeof *e);
    char name[32];
    snprintf(name, sizeof name, "request %u", i);
    mj__sha256_hash(name, strlen(name), e->request);
    snprintf(name, sizeof name, "source %u", i);
    mj__sha256_hash(name, strlen(name), e->source_key);
    /* Every field differs between entries, so a mixed-up field cannot pass. */
    e->sm = 80 + (int)i * 5;
    e->ptx = i == 1; /* entry 1 is PTX */
    e->primitive = (mj_primitive)(i % MJ_PRIMITIVE_COUNT);
    e->key = (mj_key_kind)((4 + i * 3) % MJ_KEY_KIND_COUNT);
    e->key_size = 4 + i;
    e->value_size = i * 8;
    e->nt = 128 << (i % 4); /* a valid power of two for any i (no shift past int) */
    e->vt = 7 + (int)i;
    e->bs_nt = 64 + (int)i * 32;
    e->registers = i == 0 ? -1 : 40 + (int)i;
    e->spill_bytes = i == 0 ? -1 : 1234567890123L + (long)i;
    snprintf(e->label, sizeof e->label, "entry-%u rec: a.k < b.k", i);
    e->payload = payload;
    e->size = size;
}

static inline void write_ok(const char *path, const mj_bundle_entry *e, size_t n)
{
    char err[512] = "";
    ck_assert_msg(mj__bundle_write_file(path, e, n, err, sizeof err) == 0, "write: %s", err);
}

static inline void read_ok(const char *path, mj_bundle_index *b)
{
    char err[512] = "";
    ck_assert_msg(mj__bundle_read_index(path, b, err, sizeof err) == 0, "read: %s", err);
}

static inline int count_names(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "opendir %s: %s", dir, strerror(errno));
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* Three entries with payloads of 1 byte, about 100 KB and an odd middle size. */
#define N3 3
static const size_t sizes3[N3] = {1, 100003, 4099};

typedef struct fixture {
    char *dir;
    char path[4096];
    uint8_t *payload[N3];
    mj_bundle_entry e[N3];
} fixture;

static inline void fixture_init(fixture *f)
{
    f->dir = mjt_tmpdir();
    path_in(f->path, sizeof f->path, f->dir, "kernels.mjb");
    for (unsigned i = 0; i < N3; i++) {
        f->payload[i] = make_payload(sizes3[i], i);
        fill_entry(&f->e[i], i, f->payload[i], sizes3[i]);
    }
    write_ok(f->path, f->e, N3);
}

static inline void fixture_free(fixture *f)
{
    for (unsigned i = 0; i < N3; i++)
        free(f->payload[i]);
    mjt_rmtree(f->dir);
    free(f->dir);
}

static inline void assert_payload(const char *path, const mj_bundle_entry *e, const void *want)
{
    char err[512] = "";
    void *data = NULL;
    ck_assert_msg(mj__bundle_read_payload(path, e, &data, err, sizeof err) == 0,
                  "read_payload %s: %s", e->label, err);
    ck_assert_ptr_nonnull(data);
    ck_assert_int_eq(memcmp(data, want, (size_t)e->size), 0);
    free(data);
}

#endif
