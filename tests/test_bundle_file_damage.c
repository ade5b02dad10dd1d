/* SPDX-License-Identifier: Apache-2.0 */
/* Deployment bundle files the reader must refuse (store/bundle_read.h): every header and record
 * byte and bit changed, damaged payloads, truncated, foreign and future files, and wrong records
 * that carry a matching index hash. CPU only. */
#include <check.h>

#include "bundle_file_support.h"
#include "base/sha256.h"
#include "test_support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */

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
     * outside the hash: see store/bundle_layout.h). */
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
    put32(file + H_VERSION, 4);
    mjt_write_file(f.path, file, len);
    char err[512] = "", want[4200];
    mj_bundle_index b;
    ck_assert_int_ne(mj__bundle_read_index(f.path, &b, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s is bundle format version 4; this library reads versions 1 to 3",
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
    CASE(r2[RECORD - 1] = 1, "reserved", "padding");
    CASE(r2[R_PAD] = 1, "reserved", "padding after the form");
    CASE(r1[R_FORM] = 2, "unknown binary form", "form 2");
    CASE(r0[R_FORM] = 0xff, "unknown binary form", "form 255");
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

/* Formats 1 and 2 had no form byte (every entry a cubin): their files still read, with the
 * byte reserved, so a PTX flag there is refused rather than taken. */
START_TEST(older_versions)
{
    fixture f;
    fixture_init(&f);
    size_t len = 0;
    uint8_t *file = mjt_read_file(f.path, &len);
    for (uint32_t version = 1; version <= 2; version++) {
        put32(file + H_VERSION, version);
        file[HEADER_SIZE + RECORD + R_FORM] = 1; /* entry 1, PTX in format 3 */
        mjt_write_file(f.path, file, len);
        read_fails(f.path, "entry 1", "a form byte in an old format");
        read_fails(f.path, "reserved", "a form byte in an old format");
        file[HEADER_SIZE + RECORD + R_FORM] = 0;
        rehash(file);
        mjt_write_file(f.path, file, len);
        mj_bundle_index b;
        read_ok(f.path, &b);
        ck_assert_uint_eq(b.count, N3);
        for (unsigned i = 0; i < N3; i++)
            ck_assert_int_eq(b.entries[i].ptx, 0);
        assert_payload(f.path, &b.entries[1], f.payload[1]);
        mj__bundle_index_free(&b);
        file[HEADER_SIZE + RECORD + R_FORM] = 1;
        rehash(file);
    }
    free(file);
    fixture_free(&f);
}
END_TEST

/* More distinct targets than a bundle may hold (a file no writer makes): refused. */
START_TEST(too_many_targets)
{
    char *dir = mjt_tmpdir();
    char path[4096];
    path_in(path, sizeof path, dir, "targets.mjb");
    uint8_t *p = make_payload(32, 5);
    mj_bundle_entry e[65];
    for (unsigned i = 0; i < 65; i++) {
        fill_entry(&e[i], i, p, 32);
        e[i].sm = 10 + (int)(i % 64); /* the 65th repeats the first target */
        e[i].ptx = 0;
    }
    write_ok(path, e, 65);
    mj_bundle_index b;
    read_ok(path, &b);
    ck_assert_uint_eq(b.target_count, 64);
    mj__bundle_index_free(&b);
    size_t len = 0;
    uint8_t *file = mjt_read_file(path, &len);
    put32(file + HEADER_SIZE + 64 * RECORD + R_SM, 200); /* the 65th: a new target */
    rehash(file);
    mjt_write_file(path, file, len);
    read_fails(path, "most distinct targets", "65 targets");
    free(file);
    free(p);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

static Suite *bundle_damage_suite(void)
{
    Suite *s = suite_create("bundle_file_damage");
    TCase *tc = tcase_create("bundle_file");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_header_and_record_byte);
    tcase_add_test(tc, payload_byte_flipped);
    tcase_add_test(tc, truncated);
    tcase_add_test(tc, foreign_files);
    tcase_add_test(tc, future_version);
    tcase_add_test(tc, bad_records_with_good_hash);
    tcase_add_test(tc, older_versions);
    tcase_add_test(tc, too_many_targets);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(bundle_damage_suite(), 1); }
