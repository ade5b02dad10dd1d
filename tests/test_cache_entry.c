/* SPDX-License-Identifier: Apache-2.0 */
/* The on-disk kernel cache's entries (store/cache.h): round trips with and without ptxas's
 * figures, every kind of damaged entry, clearing and statistics, the default directory, and
 * the size cap: pruning by last use, the cap's syntax, whether an entry could be stored.
 * CPU only. */
#include <check.h>

#include "cache_support.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- round trips */

START_TEST(store_load_roundtrip)
{
    char dir[PATH_MAX], nested[PATH_MAX + 16], path[PATH_MAX + 80], err[512];
    make_tmpdir(dir, sizeof dir);
    snprintf(nested, sizeof nested, "%s/a/b//c/", dir);
    static const size_t sizes[] = {0, 1, 4096, 1u << 20};
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint8_t key[32];
        char name[32];
        snprintf(name, sizeof name, "roundtrip %u", i);
        key_of(key, name);
        uint8_t *p = make_payload(sizes[i], i);
        store_ok(nested, key, p, sizes[i]);
        assert_hit(nested, key, p, sizes[i]);
        entry_file(path, sizeof path, nested, key);
        struct stat st;
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_int_eq((long long)st.st_size, (long long)(HEADER_SIZE + sizes[i]));
        ck_assert_int_eq(st.st_mode & 0777, 0600);
        free(p);
    }
    /* Missing parents were created private. */
    struct stat st;
    snprintf(path, sizeof path, "%s/a/b", dir);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    ck_assert_int_eq(st.st_mode & 0777, 0700);

    /* Storing again replaces the entry. */
    uint8_t key[32];
    key_of(key, "roundtrip 1");
    uint8_t *p = make_payload(300, 99);
    store_ok(nested, key, p, 300);
    assert_hit(nested, key, p, 300);
    free(p);

    /* Absent key, and a directory that does not exist: MISS, outputs untouched. */
    key_of(key, "never stored");
    void *data = (void *)&data;
    size_t size = 7;
    ck_assert_int_eq(mj__cache_load(nested, key, &data, &size, NULL, err, sizeof err),
                     MJ_CACHE_MISS);
    ck_assert_ptr_eq(data, (void *)&data);
    ck_assert_uint_eq(size, 7);
    snprintf(path, sizeof path, "%s/nowhere", dir);
    ck_assert_int_eq(mj__cache_load(path, key, &data, &size, NULL, err, sizeof err), MJ_CACHE_MISS);
    ck_assert(!path_exists(path));
}
END_TEST

/* ---------------------------------------------------------------- damaged entries */

enum damage {
    TRUNCATE_ONE,
    TRUNCATE_HALF_HEADER,
    EMPTY_FILE,
    TRAILING_BYTE,
    FLIP_PAYLOAD,
    FOREIGN_KEY,
    GARBAGE,
    DIRECTORY,
    SYMLINK,
    N_DAMAGE
};

/* Stores a good entry for key, damages it one way, and expects DAMAGED with the file gone;
 * then the key must work again. */
static void check_damage(const char *dir, const uint8_t key[32], enum damage kind,
                         int flip_at)
{
    char path[PATH_MAX + 80], other[PATH_MAX + 80], err[512] = "";
    size_t n = 1000;
    uint8_t *p = make_payload(n, (unsigned)kind);
    store_ok(dir, key, p, n);
    entry_file(path, sizeof path, dir, key);
    uint8_t okey[32];
    key_of(okey, "the other key");
    entry_file(other, sizeof other, dir, okey);
    const char *reason = NULL;
    size_t len;
    uint8_t *bytes;

    switch (kind) {
    case TRUNCATE_ONE:
        ck_assert_int_eq(truncate(path, HEADER_SIZE + (off_t)n - 1), 0);
        reason = "truncated";
        break;
    case TRUNCATE_HALF_HEADER:
        ck_assert_int_eq(truncate(path, HEADER_SIZE / 2), 0);
        reason = "truncated";
        break;
    case EMPTY_FILE:
        ck_assert_int_eq(truncate(path, 0), 0);
        reason = "truncated";
        break;
    case TRAILING_BYTE:
        bytes = mjt_read_file(path, &len);
        bytes[len] = 0;
        mjt_write_file(path, bytes, len + 1);
        free(bytes);
        reason = "trailing bytes";
        break;
    case FLIP_PAYLOAD:
        bytes = mjt_read_file(path, &len);
        bytes[flip_at] ^= 0x01;
        mjt_write_file(path, bytes, len);
        free(bytes);
        reason = flip_at >= HEADER_SIZE ? "checksum" : NULL;
        break;
    case FOREIGN_KEY: /* a valid entry of another key, copied under this key's name */
        store_ok(dir, okey, p, n);
        bytes = mjt_read_file(other, &len);
        mjt_write_file(path, bytes, len);
        free(bytes);
        reason = "another key";
        break;
    case GARBAGE:
        bytes = make_payload(HEADER_SIZE + n, 1234);
        mjt_write_file(path, bytes, HEADER_SIZE + n);
        free(bytes);
        reason = "magic";
        break;
    case DIRECTORY:
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(mkdir(path, 0700), 0);
        reason = "not a regular file";
        break;
    case SYMLINK: /* even a link to a perfectly good copy of the entry is refused */
        snprintf(other, sizeof other, "%s/good-copy", dir);
        ck_assert_int_eq(rename(path, other), 0);
        ck_assert_int_eq(symlink(other, path), 0);
        reason = "symbolic link";
        break;
    case N_DAMAGE:
        break;
    }

    void *data = NULL;
    size_t size = 0;
    mj_cache_result r = mj__cache_load(dir, key, &data, &size, NULL, err, sizeof err);
    ck_assert_msg(r == MJ_CACHE_DAMAGED, "damage %d (byte %d): load gave %d: %s", (int)kind,
                  flip_at, (int)r, err);
    ck_assert_msg(strstr(err, path) != NULL, "message does not name the entry: %s", err);
    if (reason)
        ck_assert_msg(strstr(err, reason) != NULL, "expected \"%s\" in: %s", reason, err);
    ck_assert_msg(!path_exists(path), "damaged entry %s was not removed", path);
    if (kind == SYMLINK) { /* the link went, not what it pointed to */
        ck_assert(path_exists(other));
        ck_assert_int_eq(unlink(other), 0);
    }
    /* A second load is now a plain miss, and the key works again. */
    ck_assert_int_eq(mj__cache_load(dir, key, &data, &size, NULL, err, sizeof err), MJ_CACHE_MISS);
    store_ok(dir, key, p, n);
    assert_hit(dir, key, p, n);
    free(p);
}

/* ptxas's figures travel with the binary; an entry without them (NULL meta) reads as -1. */
START_TEST(meta_roundtrip)
{
    char dir[PATH_MAX];
    make_tmpdir(dir, sizeof dir);
    uint8_t key[32], key2[32];
    memset(key, 0x5a, sizeof key);
    memset(key2, 0xa5, sizeof key2);
    uint8_t payload[300];
    memset(payload, 7, sizeof payload);
    char err[512] = "";
    mj_cache_meta meta = {40, 96}, got = {0, 0};
    ck_assert_int_eq(mj__cache_store(dir, key, payload, sizeof payload, &meta, err, sizeof err), 0);
    ck_assert_int_eq(mj__cache_store(dir, key2, payload, sizeof payload, NULL, err, sizeof err), 0);
    void *data = NULL;
    size_t size = 0;
    ck_assert_int_eq(mj__cache_load(dir, key, &data, &size, &got, err, sizeof err), MJ_CACHE_HIT);
    ck_assert_int_eq(got.registers, 40);
    ck_assert_int_eq(got.spill_bytes, 96);
    free(data);
    ck_assert_int_eq(mj__cache_load(dir, key2, &data, &size, &got, err, sizeof err), MJ_CACHE_HIT);
    ck_assert_int_eq(got.registers, -1);
    ck_assert_int_eq(got.spill_bytes, -1);
    free(data);
}
END_TEST

START_TEST(damaged_entries)
{
    char dir[PATH_MAX];
    make_tmpdir(dir, sizeof dir);
    uint8_t key[32];
    key_of(key, "damaged");
    for (int kind = 0; kind < N_DAMAGE; kind++)
        check_damage(dir, key, (enum damage)kind, HEADER_SIZE + 500);
    /* Every single header byte matters: magic, version, ptxas figures, key, size, checksum. */
    for (int at = 0; at < HEADER_SIZE; at++)
        check_damage(dir, key, FLIP_PAYLOAD, at);
    check_damage(dir, key, FLIP_PAYLOAD, HEADER_SIZE);
    check_damage(dir, key, FLIP_PAYLOAD, HEADER_SIZE + 999);
}
END_TEST

/* ---------------------------------------------------------------- clear and stats */

START_TEST(clear_and_stats)
{
    char dir[PATH_MAX], path[PATH_MAX + 80], err[512];
    make_tmpdir(dir, sizeof dir);
    size_t entries = 99, removed = 99;
    uint64_t bytes = 99;
    ck_assert_int_eq(mj__cache_stats_dir(dir, &entries, &bytes, err, sizeof err), 0);
    ck_assert_uint_eq(entries, 0);
    ck_assert_uint_eq(bytes, 0);

    static const size_t sizes[] = {0, 10, 5000};
    uint64_t want = 0;
    uint8_t key[32];
    for (unsigned i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "entry %u", i);
        key_of(key, name);
        uint8_t *p = make_payload(sizes[i], i);
        store_ok(dir, key, p, sizes[i]);
        free(p);
        want += HEADER_SIZE + sizes[i];
    }
    /* A leftover of an interrupted store, and files that are not ours. */
    char hex[65];
    mj__sha256_hex(key, hex);
    snprintf(path, sizeof path, "%s/.%s.tmp.Ab12Cd", dir, hex);
    mjt_write_file(path, "partial", 7);
    static const char *const foreign[] = {
        "notes.txt", "abc.mjc", ".mjc",
        "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.mjc",
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.mjc.bak",
        ".0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.tmp.",
    };
    size_t n_foreign = sizeof foreign / sizeof foreign[0];
    for (size_t i = 0; i < n_foreign; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, foreign[i]);
        mjt_write_file(path, "keep me", 7);
    }

    ck_assert_int_eq(mj__cache_stats_dir(dir, &entries, &bytes, err, sizeof err), 0);
    ck_assert_uint_eq(entries, 3);
    ck_assert_uint_eq(bytes, want);

    ck_assert_int_eq(mj__cache_clear_dir(dir, &removed, err, sizeof err), 0);
    ck_assert_uint_eq(removed, 4); /* three entries and the leftover */
    ck_assert_int_eq(mj__cache_stats_dir(dir, &entries, &bytes, err, sizeof err), 0);
    ck_assert_uint_eq(entries, 0);
    ck_assert_uint_eq(bytes, 0);
    int all, temps;
    count_names(dir, &all, &temps);
    ck_assert_int_eq(all, (int)n_foreign);
    for (size_t i = 0; i < n_foreign; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, foreign[i]);
        ck_assert_msg(path_exists(path), "%s was removed", foreign[i]);
    }

    /* Clearing again removes nothing; NULL for the count is allowed. */
    ck_assert_int_eq(mj__cache_clear_dir(dir, &removed, err, sizeof err), 0);
    ck_assert_uint_eq(removed, 0);
    ck_assert_int_eq(mj__cache_clear_dir(dir, NULL, err, sizeof err), 0);

    /* A directory that does not exist is empty. */
    snprintf(path, sizeof path, "%s/missing", dir);
    removed = 99;
    ck_assert_int_eq(mj__cache_clear_dir(path, &removed, err, sizeof err), 0);
    ck_assert_uint_eq(removed, 0);
    entries = bytes = 99;
    ck_assert_int_eq(mj__cache_stats_dir(path, &entries, &bytes, err, sizeof err), 0);
    ck_assert_uint_eq(entries, 0);
    ck_assert_uint_eq(bytes, 0);
}
END_TEST

/* ---------------------------------------------------------------- default directory */

START_TEST(default_dir_env)
{
    char out[PATH_MAX], err[512];
    setenv("MERGEJIT_CACHE_DIR", "/opt/mj", 1);
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    setenv("HOME", "/home/someone", 1);
    ck_assert_int_eq(mj__cache_default_dir(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/opt/mj");

    setenv("MERGEJIT_CACHE_DIR", "", 1); /* empty counts as unset */
    ck_assert_int_eq(mj__cache_default_dir(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/xdg/mergejit");

    unsetenv("MERGEJIT_CACHE_DIR");
    ck_assert_int_eq(mj__cache_default_dir(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/xdg/mergejit");

    setenv("XDG_CACHE_HOME", "relative/xdg", 1); /* not absolute: ignored */
    ck_assert_int_eq(mj__cache_default_dir(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/home/someone/.cache/mergejit");

    setenv("XDG_CACHE_HOME", "", 1);
    ck_assert_int_eq(mj__cache_default_dir(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/home/someone/.cache/mergejit");

    /* Too small a buffer. */
    char small[10];
    err[0] = '\0';
    ck_assert_int_eq(mj__cache_default_dir(small, sizeof small, err, sizeof err), -1);
    ck_assert_str_ne(err, "");

    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    err[0] = '\0';
    ck_assert_int_eq(mj__cache_default_dir(out, sizeof out, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "MERGEJIT_CACHE_DIR"));
    ck_assert_str_eq(out, ""); /* as the tuning file's (one mj__env_path) */
}
END_TEST

/* ---------------------------------------------------------------- the size cap */

/* Sets the entry's modification time (its last use) to `sec` seconds of the epoch. */
static void set_used(const char *dir, const uint8_t key[32], time_t sec)
{
    char path[PATH_MAX + 80];
    entry_file(path, sizeof path, dir, key);
    struct timespec t[2] = {{sec, 0}, {sec, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* Pruning removes the least recently used entries first (a load counts as a use) until the
 * rest fit the cap, and nothing else: files not its own, nor entries when they fit. */
START_TEST(prune_least_recent)
{
    char dir[PATH_MAX], path[PATH_MAX + 80], err[512] = "";
    make_tmpdir(dir, sizeof dir);
    enum { N = 5 };
    uint8_t keys[N][32];
    uint8_t *payload = make_payload(1000, 1);
    uint64_t entry = HEADER_SIZE + 1000;
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "lru %d", i);
        key_of(keys[i], name);
        store_ok(dir, keys[i], payload, 1000);
        set_used(dir, keys[i], 1000000 + 10 * i); /* entry 0 the least recently used */
    }
    /* A load is a use: entry 1 becomes the most recent. */
    assert_hit(dir, keys[1], payload, 1000);
    snprintf(path, sizeof path, "%s/not-an-entry.mjc", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("left alone", f);
    fclose(f);

    size_t removed = 99;
    uint64_t kept = 0;
    ck_assert_int_eq(mj__cache_prune_dir(dir, 5 * entry, &removed, &kept, err, sizeof err), 0);
    ck_assert_uint_eq(removed, 0);
    ck_assert_uint_eq(kept, 5 * entry);

    /* Room for two and a half: entries 0, 2 and 3 go; 4 and the reloaded 1 stay. */
    ck_assert_int_eq(mj__cache_prune_dir(dir, 5 * entry / 2, &removed, &kept, err, sizeof err),
                     0);
    ck_assert_uint_eq(removed, 3);
    ck_assert_uint_eq(kept, 2 * entry);
    for (int i = 0; i < N; i++) {
        entry_file(path, sizeof path, dir, keys[i]);
        ck_assert_msg(path_exists(path) == (i == 1 || i == 4), "entry %d", i);
    }
    snprintf(path, sizeof path, "%s/not-an-entry.mjc", dir);
    ck_assert(path_exists(path));

    /* A cap below one entry empties the cache; a missing directory has nothing to prune. */
    ck_assert_int_eq(mj__cache_prune_dir(dir, 1, &removed, &kept, err, sizeof err), 0);
    ck_assert_uint_eq(removed, 2);
    ck_assert_uint_eq(kept, 0);
    snprintf(path, sizeof path, "%s/missing", dir);
    ck_assert_int_eq(mj__cache_prune_dir(path, 1, &removed, NULL, err, sizeof err), 0);
    ck_assert_uint_eq(removed, 0);
    free(payload);
}
END_TEST

START_TEST(cap_parsing)
{
    static const struct {
        const char *text;
        uint64_t want;
    } good[] = {{"0", UINT64_MAX},       {"1", 1},           {"4096", 4096},
                {"2K", 2048},            {"2k", 2048},       {"2KiB", 2048},
                {"2KB", 2048},           {"3M", 3u << 20},   {"1G", 1ull << 30},
                {"5g", 5ull << 30},      {"2T", 2ull << 40}, {"16777215T", 16777215ull << 40}};
    static const char *const bad[] = {"",   "abc", "-1",  "1X", "1.5G", " 1",  "1 G", "1GB2",
                                      "1Ki", "K",  "99999999999999999999", "16777216T"};
    char err[512];
    uint64_t v = 0;
    ck_assert_int_eq(mj__cache_max_bytes(NULL, &v, err, sizeof err), 0);
    ck_assert_uint_eq(v, MJ_CACHE_MAX_DEFAULT);
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        v = 0;
        ck_assert_msg(mj__cache_max_bytes(good[i].text, &v, err, sizeof err) == 0, "%s: %s",
                      good[i].text, err);
        ck_assert_msg(v == good[i].want, "%s gave %llu", good[i].text, (unsigned long long)v);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = 7;
        err[0] = '\0';
        ck_assert_msg(mj__cache_max_bytes(bad[i], &v, err, sizeof err) == -1, "'%s' taken",
                      bad[i]);
        ck_assert_uint_eq(v, 7);
        ck_assert_ptr_nonnull(strstr(err, "MERGEJIT_CACHE_MAX"));
    }
}
END_TEST

/* Whether an entry could be stored is tried, not guessed: a missing directory is created, one
 * under a regular file or on a file system that takes no files is refused with the reason. */
START_TEST(writable_check)
{
    char dir[PATH_MAX], sub[PATH_MAX + 32], err[512] = "";
    make_tmpdir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/new/deeper", dir);
    ck_assert_msg(mj__cache_check_writable(sub, err, sizeof err) == 0, "%s", err);
    ck_assert(path_exists(sub));
    int all, temps;
    count_names(sub, &all, &temps);
    ck_assert_int_eq(all, 0); /* the probe is gone */

    snprintf(sub, sizeof sub, "%s/file", dir);
    FILE *f = fopen(sub, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    strcat(sub, "/cache");
    ck_assert_int_eq(mj__cache_check_writable(sub, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "not a directory") != NULL, "%s", err);
    err[0] = '\0';
    ck_assert_int_eq(mj__cache_check_writable("/proc/mergejit-cache", err, sizeof err), -1);
    ck_assert_str_ne(err, "");
}
END_TEST

static Suite *cache_entry_suite(void)
{
    Suite *s = suite_create("cache_entry");
    TCase *tc = tcase_create("cache");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, store_load_roundtrip);
    tcase_add_test(tc, meta_roundtrip);
    tcase_add_test(tc, damaged_entries);
    tcase_add_test(tc, clear_and_stats);
    tcase_add_test(tc, default_dir_env);
    tcase_add_test(tc, prune_least_recent);
    tcase_add_test(tc, cap_parsing);
    tcase_add_test(tc, writable_check);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_cache_suite(cache_entry_suite());
}
