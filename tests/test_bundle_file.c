/* Deployment bundle files: round trips, lookups, the writer's refusals, and damaged, truncated,
 * foreign and future files. CPU only. */
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
#include <sys/stat.h>
#include <unistd.h>

/* The layout, as bundle_file.c lays it out. */
#define HEADER_SIZE 64
#define RECORD 256
#define H_VERSION 8
#define H_COUNT 12
#define H_LIBVER 16
#define H_HASH 32
#define R_REQUEST 0
#define R_OFFSET 96
#define R_SIZE 104
#define R_PRIMITIVE 116
#define R_KEY 120
#define R_NT 132
#define R_VT 136
#define R_BS_NT 140
#define R_LABEL 156
#define R_PAD 252

/* ---------------------------------------------------------------- helpers */

static void path_in(char *out, size_t cap, const char *dir, const char *name)
{
    ck_assert_int_lt(snprintf(out, cap, "%s/%s", dir, name), (int)cap);
}

/* Deterministic bytes that differ with seed, so payloads can be told apart. */
static uint8_t *make_payload(size_t n, unsigned seed)
{
    uint8_t *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    uint64_t s = 0x9e3779b97f4a7c15ull * (seed + 1);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)mjt_rand(&s);
    return p;
}

static void fill_entry(mj_bundle_entry *e, unsigned i, const void *payload, size_t size)
{
    memset(e, 0, sizeof *e);
    char name[32];
    snprintf(name, sizeof name, "request %u", i);
    mj__sha256_hash(name, strlen(name), e->request);
    snprintf(name, sizeof name, "source %u", i);
    mj__sha256_hash(name, strlen(name), e->source_key);
    /* Every field differs between entries, so a mixed-up field cannot pass. */
    e->sm = 80 + (int)i * 5;
    e->primitive = (mj_primitive)(i % MJ_PRIMITIVE_COUNT);
    e->key = (mj_key_kind)((4 + i * 3) % MJ_KEY_KIND_COUNT);
    e->key_size = 4 + i;
    e->value_size = i * 8;
    e->nt = 128 << i;
    e->vt = 7 + (int)i;
    e->bs_nt = 64 + (int)i * 32;
    e->registers = i == 0 ? -1 : 40 + (int)i;
    e->spill_bytes = i == 0 ? -1 : 1234567890123L + (long)i;
    snprintf(e->label, sizeof e->label, "entry-%u rec: a.k < b.k", i);
    e->payload = payload;
    e->size = size;
}

static void write_ok(const char *path, const mj_bundle_entry *e, size_t n)
{
    char err[512] = "";
    ck_assert_msg(mj__bundle_write_file(path, e, n, err, sizeof err) == 0, "write: %s", err);
}

static void read_ok(const char *path, mj_bundle_index *b)
{
    char err[512] = "";
    ck_assert_msg(mj__bundle_read_index(path, b, err, sizeof err) == 0, "read: %s", err);
}

/* read_index must fail, leave *out empty, and say something containing want and the path. */
static void read_fails(const char *path, const char *want, const char *what)
{
    char err[512] = "";
    mj_bundle_index b;
    memset(&b, 0xa5, sizeof b);
    ck_assert_msg(mj__bundle_read_index(path, &b, err, sizeof err) != 0, "%s: read passed", what);
    ck_assert_msg(b.entries == NULL && b.count == 0, "%s: index left set", what);
    ck_assert_msg(strstr(err, path) != NULL, "%s: message does not name the path: %s", what,
                  err);
    ck_assert_msg(!want || strstr(err, want) != NULL, "%s: want \"%s\" in: %s", what, want, err);
}

static int count_names(const char *dir)
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

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Recomputes the index hash after a test has edited records, so the record checks (not the
 * hash) are what must catch the edit. */
static void rehash(uint8_t *file)
{
    uint32_t count = (uint32_t)file[H_COUNT] | (uint32_t)file[H_COUNT + 1] << 8 |
                     (uint32_t)file[H_COUNT + 2] << 16 | (uint32_t)file[H_COUNT + 3] << 24;
    mj__sha256_hash(file + HEADER_SIZE, (size_t)count * RECORD, file + H_HASH);
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

static void fixture_init(fixture *f)
{
    f->dir = mjt_tmpdir();
    path_in(f->path, sizeof f->path, f->dir, "kernels.mjb");
    for (unsigned i = 0; i < N3; i++) {
        f->payload[i] = make_payload(sizes3[i], i);
        fill_entry(&f->e[i], i, f->payload[i], sizes3[i]);
    }
    write_ok(f->path, f->e, N3);
}

static void fixture_free(fixture *f)
{
    for (unsigned i = 0; i < N3; i++)
        free(f->payload[i]);
    mjt_rmtree(f->dir);
    free(f->dir);
}

static void assert_payload(const char *path, const mj_bundle_entry *e, const void *want)
{
    char err[512] = "";
    void *data = NULL;
    ck_assert_msg(mj__bundle_read_payload(path, e, &data, err, sizeof err) == 0,
                  "read_payload %s: %s", e->label, err);
    ck_assert_ptr_nonnull(data);
    ck_assert_int_eq(memcmp(data, want, (size_t)e->size), 0);
    free(data);
}

/* ---------------------------------------------------------------- round trips */

START_TEST(roundtrip_three)
{
    fixture f;
    fixture_init(&f);
    mj_bundle_index b;
    read_ok(f.path, &b);
    ck_assert_str_eq(b.version, MJ_VERSION_STRING);
    ck_assert_uint_eq(b.count, N3);

    size_t file_len = 0;
    uint8_t *file = mjt_read_file(f.path, &file_len);
    uint64_t end_of_index = HEADER_SIZE + N3 * RECORD;
    for (unsigned i = 0; i < N3; i++) {
        const mj_bundle_entry *g = &b.entries[i], *w = &f.e[i];
        ck_assert_int_eq(memcmp(g->request, w->request, 32), 0);
        ck_assert_int_eq(memcmp(g->source_key, w->source_key, 32), 0);
        ck_assert_int_eq(g->sm, w->sm);
        ck_assert_int_eq(g->primitive, w->primitive);
        ck_assert_int_eq(g->key, w->key);
        ck_assert_uint_eq(g->key_size, w->key_size);
        ck_assert_uint_eq(g->value_size, w->value_size);
        ck_assert_int_eq(g->nt, w->nt);
        ck_assert_int_eq(g->vt, w->vt);
        ck_assert_int_eq(g->bs_nt, w->bs_nt);
        ck_assert_int_eq(g->registers, w->registers);
        ck_assert_int_eq(g->spill_bytes, w->spill_bytes);
        ck_assert_str_eq(g->label, w->label);
        ck_assert_uint_eq(g->size, sizes3[i]);
        ck_assert_ptr_null(g->payload);
        uint8_t sha[32];
        mj__sha256_hash(f.payload[i], sizes3[i], sha);
        ck_assert_int_eq(memcmp(g->sha, sha, 32), 0);
        /* Payloads in order, each 16-aligned, after the index, zeros between. */
        ck_assert_uint_eq(g->offset % 16, 0);
        if (i == 0) {
            ck_assert_uint_eq(g->offset, end_of_index);
        } else {
            uint64_t prev_end = b.entries[i - 1].offset + b.entries[i - 1].size;
            ck_assert_uint_eq(g->offset, (prev_end + 15) / 16 * 16);
            for (uint64_t p = prev_end; p < g->offset; p++)
                ck_assert_uint_eq(file[p], 0);
        }
        ck_assert_int_eq(memcmp(file + g->offset, f.payload[i], sizes3[i]), 0);
    }
    ck_assert_uint_eq(file_len, b.entries[N3 - 1].offset + b.entries[N3 - 1].size);
    ck_assert_int_eq(memcmp(file, "MJBUNDLE", 8), 0);

    for (unsigned i = 0; i < N3; i++) {
        ck_assert_ptr_eq(mj__bundle_find(&b, f.e[i].request), &b.entries[i]);
        assert_payload(f.path, &b.entries[i], f.payload[i]);
    }
    uint8_t miss[32];
    mj__sha256_hash("request 3", 9, miss);
    ck_assert_ptr_null(mj__bundle_find(&b, miss));
    memcpy(miss, f.e[1].request, 32);
    miss[31] ^= 1; /* differs in the last byte only */
    ck_assert_ptr_null(mj__bundle_find(&b, miss));

    struct stat st;
    ck_assert_int_eq(stat(f.path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0644);
    ck_assert_int_eq(count_names(f.dir), 1); /* no temporary file left */

    mj__bundle_index_free(&b);
    ck_assert_ptr_null(b.entries);
    ck_assert_uint_eq(b.count, 0);
    mj__bundle_index_free(&b); /* twice is harmless */
    free(file);
    fixture_free(&f);
}
END_TEST

START_TEST(zero_entries)
{
    char *dir = mjt_tmpdir();
    char path[4096];
    path_in(path, sizeof path, dir, "empty.mjb");
    write_ok(path, NULL, 0);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_size, HEADER_SIZE);
    mj_bundle_index b;
    read_ok(path, &b);
    ck_assert_uint_eq(b.count, 0);
    ck_assert_str_eq(b.version, MJ_VERSION_STRING);
    uint8_t key[32] = {0};
    ck_assert_ptr_null(mj__bundle_find(&b, key));
    mj__bundle_index_free(&b);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(empty_payload)
{
    char *dir = mjt_tmpdir();
    char path[4096];
    path_in(path, sizeof path, dir, "e.mjb");
    uint8_t *p = make_payload(33, 9);
    mj_bundle_entry e[2];
    fill_entry(&e[0], 0, NULL, 0); /* an empty payload first, then one after it */
    fill_entry(&e[1], 1, p, 33);
    write_ok(path, e, 2);
    mj_bundle_index b;
    read_ok(path, &b);
    ck_assert_uint_eq(b.count, 2);
    ck_assert_uint_eq(b.entries[0].size, 0);
    char err[512] = "";
    void *data = NULL;
    ck_assert_msg(mj__bundle_read_payload(path, &b.entries[0], &data, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_ptr_nonnull(data);
    free(data);
    assert_payload(path, &b.entries[1], p);
    mj__bundle_index_free(&b);
    free(p);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* ---------------------------------------------------------------- writer */

static void write_refused(const char *dir, const mj_bundle_entry *e, size_t n, const char *want)
{
    char path[4096], err[512] = "";
    path_in(path, sizeof path, dir, "refused.mjb");
    ck_assert_msg(mj__bundle_write_file(path, e, n, err, sizeof err) != 0, "wrote (%s)", want);
    ck_assert_msg(strstr(err, want) != NULL && strstr(err, path) != NULL, "want \"%s\": %s",
                  want, err);
    ck_assert_int_eq(count_names(dir), 0); /* neither the bundle nor a temporary file */
}

START_TEST(writer_refusals)
{
    char *dir = mjt_tmpdir();
    uint8_t *p = make_payload(64, 1);
    mj_bundle_entry e[3];
    for (unsigned i = 0; i < 3; i++)
        fill_entry(&e[i], i, p, 64);

    memcpy(e[2].request, e[0].request, 32);
    write_refused(dir, e, 3, "same request key");
    char err[512] = "";
    char path[4096];
    path_in(path, sizeof path, dir, "refused.mjb");
    mj__bundle_write_file(path, e, 3, err, sizeof err);
    ck_assert_msg(strstr(err, e[0].label) && strstr(err, e[2].label), "labels: %s", err);
    fill_entry(&e[2], 2, p, 64);

    e[1].nt = 0;
    write_refused(dir, e, 3, "not positive");
    fill_entry(&e[1], 1, p, 64);
    e[1].vt = -3;
    write_refused(dir, e, 3, "not positive");
    fill_entry(&e[1], 1, p, 64);
    e[1].primitive = MJ_PRIMITIVE_COUNT;
    write_refused(dir, e, 3, "unknown primitive");
    fill_entry(&e[1], 1, p, 64);
    e[1].key = MJ_KEY_KIND_COUNT;
    write_refused(dir, e, 3, "unknown key kind");
    fill_entry(&e[1], 1, p, 64);
    memset(e[1].label, 'x', sizeof e[1].label);
    write_refused(dir, e, 3, "not NUL-terminated");
    fill_entry(&e[1], 1, p, 64);
    e[1].payload = NULL;
    write_refused(dir, e, 3, "no payload");
    fill_entry(&e[1], 1, p, 64);

    write_ok(path, e, 3); /* all fixed: accepted */
    free(p);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(write_failures)
{
    char *dir = mjt_tmpdir();
    uint8_t *p = make_payload(100, 2);
    mj_bundle_entry e;
    fill_entry(&e, 0, p, 100);
    char missing[4096], path[4096], err[512] = "";

    /* A directory that does not exist: a message, and nothing created. */
    path_in(missing, sizeof missing, dir, "nope");
    path_in(path, sizeof path, missing, "b.mjb");
    ck_assert_int_ne(mj__bundle_write_file(path, &e, 1, err, sizeof err), 0);
    ck_assert_msg(strstr(err, path) != NULL, "%s", err);
    ck_assert_msg(strstr(err, strerror(ENOENT)) != NULL, "%s", err);
    struct stat st;
    ck_assert_int_ne(lstat(missing, &st), 0);
    ck_assert_int_eq(count_names(dir), 0);

    /* The destination is a directory: the rename fails after the temporary file was written,
     * and the temporary file must go. */
    char sub[4096];
    path_in(sub, sizeof sub, dir, "sub");
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    path_in(path, sizeof path, sub, "inner");
    mjt_write_file(path, "x", 1); /* non-empty, so rename cannot replace it */
    err[0] = '\0';
    ck_assert_int_ne(mj__bundle_write_file(sub, &e, 1, err, sizeof err), 0);
    ck_assert_msg(strstr(err, sub) != NULL, "%s", err);
    ck_assert_int_eq(count_names(dir), 1); /* only sub */
    ck_assert_int_eq(count_names(sub), 1); /* only inner */

    /* A path naming a directory by its trailing slash. */
    char slash[4096];
    ck_assert_int_lt(snprintf(slash, sizeof slash, "%s/", dir), (int)sizeof slash);
    err[0] = '\0';
    ck_assert_int_ne(mj__bundle_write_file(slash, &e, 1, err, sizeof err), 0);
    ck_assert_str_ne(err, "");
    ck_assert_int_eq(count_names(dir), 1);

    free(p);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(overwrite_replaces)
{
    fixture f;
    fixture_init(&f);
    uint8_t *p = make_payload(777, 42);
    mj_bundle_entry e;
    fill_entry(&e, 7, p, 777);
    write_ok(f.path, &e, 1);
    mj_bundle_index b;
    read_ok(f.path, &b);
    ck_assert_uint_eq(b.count, 1);
    ck_assert_int_eq(memcmp(b.entries[0].request, e.request, 32), 0);
    ck_assert_str_eq(b.entries[0].label, e.label);
    ck_assert_ptr_null(mj__bundle_find(&b, f.e[0].request));
    assert_payload(f.path, &b.entries[0], p);
    struct stat st;
    ck_assert_int_eq(stat(f.path, &st), 0);
    ck_assert_int_eq(st.st_size, HEADER_SIZE + RECORD + 777);
    ck_assert_int_eq(count_names(f.dir), 1);
    mj__bundle_index_free(&b);
    free(p);
    fixture_free(&f);
}
END_TEST

/* ---------------------------------------------------------------- damage */

START_TEST(every_header_and_record_byte)
{
    fixture f;
    fixture_init(&f);
    size_t len = 0;
    uint8_t *good = mjt_read_file(f.path, &len);
    uint8_t *bad = malloc(len);
    ck_assert_ptr_nonnull(bad);
    char path[4096], what[64];
    path_in(path, sizeof path, f.dir, "flipped.mjb");

    /* Every byte inverted, with the message each region must give. */
    for (size_t i = 0; i < HEADER_SIZE + RECORD; i++) {
        memcpy(bad, good, len);
        bad[i] ^= 0xff;
        mjt_write_file(path, bad, len);
        const char *want = i < 8 ? "is not a mergejit bundle"
                           : i < 12 ? "is bundle format version"
                           : i < 16 ? NULL /* the count: too many, or the hash disagrees */
                           : i < 32 ? "library version field"
                                    : "index is damaged (checksum mismatch)";
        snprintf(what, sizeof what, "byte %zu inverted", i);
        read_fails(path, want, what);
    }
    /* Every single bit, outside the library-version field (which is only shown to people and
     * outside the hash: see bundle_file.c). */
    for (size_t i = 0; i < HEADER_SIZE + RECORD; i++) {
        if (i >= H_LIBVER && i < H_HASH)
            continue;
        for (int bit = 0; bit < 8; bit++) {
            memcpy(bad, good, len);
            bad[i] ^= (uint8_t)(1u << bit);
            mjt_write_file(path, bad, len);
            snprintf(what, sizeof what, "byte %zu bit %d", i, bit);
            read_fails(path, NULL, what);
        }
    }
    /* The unflipped copy still reads: the failures were the flips. */
    mjt_write_file(path, good, len);
    mj_bundle_index b;
    read_ok(path, &b);
    mj__bundle_index_free(&b);
    free(bad);
    free(good);
    fixture_free(&f);
}
END_TEST

START_TEST(payload_byte_flipped)
{
    fixture f;
    fixture_init(&f);
    size_t len = 0;
    uint8_t *file = mjt_read_file(f.path, &len);
    mj_bundle_index b;
    read_ok(f.path, &b);
    file[b.entries[1].offset + b.entries[1].size / 2] ^= 0x10;
    mjt_write_file(f.path, file, len);

    mj_bundle_index b2;
    read_ok(f.path, &b2); /* payloads are not read with the index */
    char err[5000] = "", want[5000];
    void *data = (void *)1;
    ck_assert_int_ne(mj__bundle_read_payload(f.path, &b2.entries[1], &data, err, sizeof err), 0);
    ck_assert_ptr_null(data);
    snprintf(want, sizeof want, "bundle %s: entry %s is damaged (checksum mismatch)", f.path,
             f.e[1].label);
    ck_assert_str_eq(err, want);
    assert_payload(f.path, &b2.entries[0], f.payload[0]);
    assert_payload(f.path, &b2.entries[2], f.payload[2]);
    mj__bundle_index_free(&b2);
    mj__bundle_index_free(&b);
    free(file);
    fixture_free(&f);
}
END_TEST

START_TEST(truncated)
{
    fixture f;
    fixture_init(&f);
    size_t len = 0;
    uint8_t *file = mjt_read_file(f.path, &len);
    mj_bundle_index b;
    read_ok(f.path, &b); /* read before the cuts */
    char path[4096];
    path_in(path, sizeof path, f.dir, "cut.mjb");

    mjt_write_file(path, file, 40);
    read_fails(path, "truncated", "cut in the header");
    mjt_write_file(path, file, HEADER_SIZE + RECORD + 100);
    read_fails(path, "truncated", "cut in the index");
    mjt_write_file(path, file, HEADER_SIZE + N3 * RECORD);
    read_fails(path, "outside the file", "cut after the index");
    mjt_write_file(path, file, len - 1);
    read_fails(path, "outside the file", "cut in the last payload");

    /* The file shrinks after its index was read: the payload read notices. */
    mjt_write_file(f.path, file, len - 1);
    char err[512] = "";
    void *data = NULL;
    ck_assert_int_ne(mj__bundle_read_payload(f.path, &b.entries[2], &data, err, sizeof err), 0);
    ck_assert_msg(strstr(err, f.path) && strstr(err, f.e[2].label), "%s", err);
    assert_payload(f.path, &b.entries[0], f.payload[0]);
    /* And gone altogether. */
    ck_assert_int_eq(unlink(f.path), 0);
    ck_assert_int_ne(mj__bundle_read_payload(f.path, &b.entries[0], &data, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "cannot open") && strstr(err, f.path), "%s", err);

    mj__bundle_index_free(&b);
    free(file);
    fixture_free(&f);
}
END_TEST

START_TEST(foreign_files)
{
    char *dir = mjt_tmpdir();
    char path[4096], want[4200], err[512] = "";
    mj_bundle_index b;

    path_in(path, sizeof path, dir, "random.mjb");
    uint8_t *r = make_payload(4096, 77);
    mjt_write_file(path, r, 4096);
    read_fails(path, "is not a mergejit bundle", "random bytes");

    path_in(path, sizeof path, dir, "empty.mjb");
    mjt_write_file(path, "", 0);
    read_fails(path, "is not a mergejit bundle", "empty file");

    path_in(path, sizeof path, dir, "cache.mjc");
    memcpy(r, "MJCACHE1", 8);
    memset(r + 8, 0, 200);
    r[8] = 1; /* looks like a cache entry's header */
    mjt_write_file(path, r, 4096);
    read_fails(path, "is not a mergejit bundle", "cache entry");

    path_in(path, sizeof path, dir, "short.mjb");
    mjt_write_file(path, "MJBUN", 5);
    read_fails(path, "is not a mergejit bundle", "magic cut short");

    read_fails(dir, "is not a mergejit bundle", "a directory");

    path_in(path, sizeof path, dir, "missing.mjb");
    ck_assert_int_ne(mj__bundle_read_index(path, &b, err, sizeof err), 0);
    snprintf(want, sizeof want, "cannot open %s: %s", path, strerror(ENOENT));
    ck_assert_str_eq(err, want);

    free(r);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(future_version)
{
    fixture f;
    fixture_init(&f);
    size_t len = 0;
    uint8_t *file = mjt_read_file(f.path, &len);
    put32(file + H_VERSION, 2);
    mjt_write_file(f.path, file, len);
    char err[512] = "", want[4200];
    mj_bundle_index b;
    ck_assert_int_ne(mj__bundle_read_index(f.path, &b, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s is bundle format version 2; this library reads version 1",
             f.path);
    ck_assert_str_eq(err, want);
    free(file);
    fixture_free(&f);
}
END_TEST

/* Records that are wrong but carry a matching index hash, as a buggy writer would make: the
 * record checks themselves must catch them. */
START_TEST(bad_records_with_good_hash)
{
    fixture f;
    fixture_init(&f);
    size_t len = 0;
    uint8_t *good = mjt_read_file(f.path, &len);
    uint8_t *bad = malloc(len);
    ck_assert_ptr_nonnull(bad);
    char path[4096];
    path_in(path, sizeof path, f.dir, "crafted.mjb");
    uint8_t *r0 = bad + HEADER_SIZE, *r1 = bad + HEADER_SIZE + RECORD,
            *r2 = bad + HEADER_SIZE + 2 * RECORD;

#define CASE(edit, want, what)                                                                 \
    do {                                                                                       \
        memcpy(bad, good, len);                                                                \
        edit;                                                                                  \
        rehash(bad);                                                                           \
        mjt_write_file(path, bad, len);                                                            \
        read_fails(path, want, what);                                                          \
    } while (0)

    CASE(put64(r0 + R_OFFSET, HEADER_SIZE + RECORD), "overlaps", "payload inside the index");
    CASE(put64(r0 + R_OFFSET, 0), "overlaps", "payload at the header");
    CASE(put64(r2 + R_SIZE, get64(r2 + R_SIZE) + 1), "outside the file", "one byte too long");
    CASE(put64(r1 + R_OFFSET, len + 16), "outside the file", "offset past the end");
    CASE((put64(r1 + R_OFFSET, len), put64(r1 + R_SIZE, UINT64_MAX)), "outside the file",
         "offset + size overflows");
    CASE(put64(r1 + R_OFFSET, UINT64_MAX - 15), "outside the file", "huge offset");
    CASE(put32(r1 + R_PRIMITIVE, MJ_PRIMITIVE_COUNT), "unknown primitive", "primitive");
    CASE(put32(r1 + R_KEY, MJ_KEY_KIND_COUNT), "unknown key kind", "key kind");
    CASE(put32(r1 + R_KEY, 0xffffffffu), "unknown key kind", "key kind -1");
    CASE(put32(r1 + R_NT, 0), "not positive", "nt 0");
    CASE(put32(r1 + R_VT, (uint32_t)-2), "not positive", "vt -2");
    CASE(put32(r1 + R_BS_NT, 0), "not positive", "bs_nt 0");
    CASE(r2[R_PAD + 3] = 1, "reserved", "padding");
    CASE(memcpy(r2 + R_REQUEST, r0 + R_REQUEST, 32), "same request key", "duplicate keys");
    /* The header's count: more than the cap or than the file holds must be refused before
     * anything is hashed or allocated for it (so the hash is left as it is). */
#define COUNT_CASE(count, want, what)                                                          \
    do {                                                                                       \
        memcpy(bad, good, len);                                                                \
        put32(bad + H_COUNT, count);                                                           \
        mjt_write_file(path, bad, len);                                                            \
        read_fails(path, want, what);                                                          \
    } while (0)
    COUNT_CASE((1u << 20) + 1, "at most", "count over the cap");
    COUNT_CASE(0xffffffffu, "at most", "count -1");
    COUNT_CASE((uint32_t)(len / RECORD + 1), "truncated", "count past the end");
#undef COUNT_CASE
#undef CASE

    /* A label with no NUL in its 96 bytes is cut, not read past. */
    memcpy(bad, good, len);
    memset(r1 + R_LABEL, 'L', MJ_BUNDLE_LABEL_CAP);
    rehash(bad);
    mjt_write_file(path, bad, len);
    mj_bundle_index b;
    read_ok(path, &b);
    ck_assert_uint_eq(strlen(b.entries[1].label), MJ_BUNDLE_LABEL_CAP - 1);
    mj__bundle_index_free(&b);

    free(bad);
    free(good);
    fixture_free(&f);
}
END_TEST

/* ---------------------------------------------------------------- main */

static Suite *bundle_suite(void)
{
    Suite *s = suite_create("bundle_file");
    TCase *tc = tcase_create("bundle_file");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, roundtrip_three);
    tcase_add_test(tc, zero_entries);
    tcase_add_test(tc, empty_payload);
    tcase_add_test(tc, writer_refusals);
    tcase_add_test(tc, write_failures);
    tcase_add_test(tc, overwrite_replaces);
    tcase_add_test(tc, every_header_and_record_byte);
    tcase_add_test(tc, payload_byte_flipped);
    tcase_add_test(tc, truncated);
    tcase_add_test(tc, foreign_files);
    tcase_add_test(tc, future_version);
    tcase_add_test(tc, bad_records_with_good_hash);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(bundle_suite(), 1); }
