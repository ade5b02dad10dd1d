/* SPDX-License-Identifier: Apache-2.0 */
/* Deployment bundle files written and read back (store/bundle_write.h, store/bundle_read.h):
 * round trips with their exact layout, lookups, empty bundles and payloads, the writer's
 * refusals and failures, which leave nothing behind, and overwriting. CPU only. */
#include <check.h>

#include "bundle_file_support.h"
#include "test_support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
        ck_assert_int_eq(g->ptx, w->ptx);
        ck_assert_uint_eq(file[HEADER_SIZE + i * RECORD + R_FORM], i == 1);
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
    ck_assert_uint_eq(file[H_VERSION], 3);
    /* The distinct targets, in the order they first appear. */
    ck_assert_uint_eq(b.target_count, N3);
    for (unsigned i = 0; i < N3; i++) {
        ck_assert_int_eq(b.targets[i].sm, f.e[i].sm);
        ck_assert_int_eq(b.targets[i].ptx, f.e[i].ptx);
    }

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
    e[1].ptx = 2;
    write_refused(dir, e, 3, "unknown binary form");
    fill_entry(&e[1], 1, p, 64);

    /* At most 64 distinct targets (sm and form): 64 are written, a 65th is refused. */
    mj_bundle_entry many[65];
    for (unsigned i = 0; i < 65; i++) {
        fill_entry(&many[i], i, p, 64);
        many[i].sm = 10 + (int)(i / 2);
        many[i].ptx = (int)(i % 2);
    }
    write_refused(dir, many, 65, "most distinct targets");
    write_ok(path, many, 64);
    many[64].sm = many[0].sm; /* a target already there */
    many[64].ptx = many[0].ptx;
    write_ok(path, many, 65);

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

static Suite *bundle_write_suite(void)
{
    Suite *s = suite_create("bundle_file_write");
    TCase *tc = tcase_create("bundle_file");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, roundtrip_three);
    tcase_add_test(tc, zero_entries);
    tcase_add_test(tc, empty_payload);
    tcase_add_test(tc, writer_refusals);
    tcase_add_test(tc, write_failures);
    tcase_add_test(tc, overwrite_replaces);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(bundle_write_suite(), 1); }
