/* SHA-256 and the on-disk kernel cache: vectors, round trips, damaged entries, concurrent
 * writers, failures, clearing and the default directory. CPU only. */
#include <check.h>

#include "store/cache.h"
#include "base/file_io.h"
#include "base/sha256.h"
#include "test_support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define HEADER_SIZE 96 /* the entry header, as laid out in cache.c */

/* Every test works under this directory; main removes it whatever the tests did. */
static char g_root[] = "/tmp/mj_test_cache.XXXXXX";

/* ---------------------------------------------------------------- helpers */

static void make_tmpdir(char *out, size_t cap)
{
    ck_assert_int_lt(snprintf(out, cap, "%s/t.XXXXXX", g_root), (int)cap);
    ck_assert_msg(mkdtemp(out) != NULL, "mkdtemp: %s", strerror(errno));
}

static void key_of(uint8_t key[32], const char *name)
{
    mj__sha256_hash(name, strlen(name), key);
}

static void entry_file(char *out, size_t cap, const char *dir, const uint8_t key[32])
{
    char hex[65];
    mj__sha256_hex(key, hex);
    ck_assert_int_lt(snprintf(out, cap, "%s/%s.mjc", dir, hex), (int)cap);
}

/* Deterministic bytes that differ with seed, so payloads can be told apart. */
static uint8_t *make_payload(size_t n, unsigned seed)
{
    uint8_t *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    uint32_t x = 2463534242u + seed * 7919u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
    return p;
}

static void assert_hit(const char *dir, const uint8_t key[32], const void *want, size_t n)
{
    char err[512] = "";
    void *data = NULL;
    size_t size = 12345;
    mj_cache_result r = mj__cache_load(dir, key, &data, &size, NULL, err, sizeof err);
    ck_assert_msg(r == MJ_CACHE_HIT, "load gave %d: %s", (int)r, err);
    ck_assert_ptr_nonnull(data);
    ck_assert_uint_eq(size, n);
    ck_assert_int_eq(memcmp(data, want, n), 0);
    free(data);
}

static void store_ok(const char *dir, const uint8_t key[32], const void *data, size_t n)
{
    char err[512] = "";
    ck_assert_msg(mj__cache_store(dir, key, data, n, NULL, err, sizeof err) == 0, "store: %s", err);
}

/* Counts names in dir, apart from "." and "..", and those that look like temporary files. */
static void count_names(const char *dir, int *all, int *temps)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "opendir %s: %s", dir, strerror(errno));
    *all = *temps = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        (*all)++;
        if (strstr(e->d_name, ".tmp."))
            (*temps)++;
    }
    closedir(d);
}

static int path_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static int chmod_dirs(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_D)
        chmod(path, 0700);
    return 0;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

/* rm -rf, making read-only directories writable first. */
static void remove_tree(const char *path)
{
    nftw(path, chmod_dirs, 16, FTW_PHYS);
    nftw(path, remove_one, 16, FTW_PHYS | FTW_DEPTH);
}

/* ---------------------------------------------------------------- SHA-256 */

static void assert_digest(const uint8_t digest[32], const char *want)
{
    char hex[65];
    mj__sha256_hex(digest, hex);
    ck_assert_str_eq(hex, want);
}

static void assert_sha256(const char *msg, const char *want)
{
    uint8_t d[32];
    mj__sha256_hash(msg, strlen(msg), d);
    assert_digest(d, want);
    /* Byte by byte through update must agree with the one-shot call. */
    mj_sha256 h;
    mj__sha256_init(&h);
    for (const char *p = msg; *p; p++)
        mj__sha256_update(&h, p, 1);
    mj__sha256_final(&h, d);
    assert_digest(d, want);
}

START_TEST(sha256_vectors)
{
    assert_sha256("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_sha256("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    /* 56 bytes: the padding needs a second block. */
    assert_sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    assert_sha256("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                  "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}
END_TEST

START_TEST(sha256_million_a)
{
    static const size_t chunks[] = {1, 3, 7, 13, 31, 63, 64, 65, 127, 129, 1000, 4099};
    size_t total = 1000000, done = 0;
    char *a = malloc(4099);
    ck_assert_ptr_nonnull(a);
    memset(a, 'a', 4099);
    mj_sha256 h;
    mj__sha256_init(&h);
    mj__sha256_update(&h, NULL, 0); /* an empty update changes nothing */
    for (size_t i = 0; done < total; i++) {
        size_t n = chunks[i % (sizeof chunks / sizeof chunks[0])];
        if (n > total - done)
            n = total - done;
        mj__sha256_update(&h, a, n);
        done += n;
    }
    uint8_t d[32];
    mj__sha256_final(&h, d);
    assert_digest(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}
END_TEST

START_TEST(sha256_hex_digits)
{
    uint8_t d[32];
    for (int i = 0; i < 32; i++)
        d[i] = (uint8_t)(i * 0x11 + (i & 1 ? 0x0f : 0xf0));
    char hex[65];
    memset(hex, 'X', sizeof hex);
    mj__sha256_hex(d, hex);
    ck_assert_uint_eq(strlen(hex), 64);
    for (int i = 0; i < 32; i++) {
        char two[3];
        snprintf(two, sizeof two, "%02x", d[i]);
        ck_assert_int_eq(hex[2 * i], two[0]);
        ck_assert_int_eq(hex[2 * i + 1], two[1]);
    }
}
END_TEST

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

/* A cache another user could write to is refused; an entry owned by someone else is never
 * loaded (it is damaged, and rebuilt by the caller). */
START_TEST(unsafe_locations)
{
    char dir[PATH_MAX], sub[PATH_MAX + 16], err[512] = "";
    make_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(mj__cache_check_dir(dir, err, sizeof err), 0);
    snprintf(sub, sizeof sub, "%s/none", dir);
    ck_assert_int_eq(mj__cache_check_dir(sub, err, sizeof err), 0); /* created private later */
    ck_assert_int_eq(chmod(dir, 0777), 0);
    ck_assert_int_eq(mj__cache_check_dir(dir, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "writable by every user"));
    ck_assert_int_eq(chmod(dir, 0770), 0);
    ck_assert_int_eq(mj__cache_check_dir(dir, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "its group"));
    uint8_t key[32];
    key_of(key, "unsafe");
    ck_assert_int_eq(mj__cache_store(dir, key, "x", 1, NULL, err, sizeof err), -1);
    ck_assert_int_eq(chmod(dir, 0700), 0);
    ck_assert_int_eq(mj__cache_check_dir(dir, err, sizeof err), 0);
    char file[PATH_MAX + 16];
    snprintf(file, sizeof file, "%s/plain", dir);
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(mj__cache_check_dir(file, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a directory"));

    /* Ownership can only be given away by root; elsewhere that part cannot be set up. */
    store_ok(dir, key, "payload", 7);
    if (geteuid() == 0) {
        char entry[PATH_MAX + 80];
        entry_file(entry, sizeof entry, dir, key);
        ck_assert_int_eq(chown(entry, 12345, 12345), 0);
        void *data = NULL;
        size_t size = 0;
        ck_assert_int_eq(mj__cache_load(dir, key, &data, &size, NULL, err, sizeof err),
                         MJ_CACHE_DAMAGED);
        ck_assert_ptr_nonnull(strstr(err, "belongs to another user"));
        ck_assert_int_eq(chown(dir, 12345, 12345), 0);
        ck_assert_int_eq(mj__cache_check_dir(dir, err, sizeof err), -1);
        ck_assert_ptr_nonnull(strstr(err, "belongs to uid 12345"));
        ck_assert_int_eq(chown(dir, 0, 0), 0);
    }
}
END_TEST

/* A disk that fills mid-write: the store fails with the reason, leaves no temporary file and
 * no entry, and works again once there is room. */
START_TEST(full_disk)
{
    char dir[PATH_MAX], err[512] = "";
    make_tmpdir(dir, sizeof dir);
    uint8_t key[32];
    key_of(key, "full");
    uint8_t *payload = make_payload(100000, 7);
    mj__fault_write_errno = ENOSPC;
    ck_assert_int_eq(mj__cache_store(dir, key, payload, 100000, NULL, err, sizeof err), -1);
    mj__fault_write_errno = 0;
    ck_assert_msg(strstr(err, strerror(ENOSPC)) != NULL, "%s", err);
    int all, temps;
    count_names(dir, &all, &temps);
    ck_assert_int_eq(all, 0);
    void *data = NULL;
    size_t size = 0;
    ck_assert_int_eq(mj__cache_load(dir, key, &data, &size, NULL, err, sizeof err), MJ_CACHE_MISS);
    store_ok(dir, key, payload, 100000);
    assert_hit(dir, key, payload, 100000);
    free(payload);
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

/* ---------------------------------------------------------------- concurrency */

#define ROUNDS 200
#define N_THREADS 8
#define N_PAYLOADS N_THREADS

struct shared {
    const char *dir;
    uint8_t key[32];
    uint8_t *payload[N_PAYLOADS];
    size_t size[N_PAYLOADS];
};

static void shared_init(struct shared *s, const char *dir)
{
    s->dir = dir;
    key_of(s->key, "contended");
    for (int i = 0; i < N_PAYLOADS; i++) {
        s->size[i] = 3000 + 1777 * (size_t)i; /* distinct sizes and bytes per writer */
        s->payload[i] = make_payload(s->size[i], 100 + (unsigned)i);
    }
}

static void shared_free(struct shared *s)
{
    for (int i = 0; i < N_PAYLOADS; i++)
        free(s->payload[i]);
}

/* One load; returns 0 for a miss or a hit on one of the payloads, -1 otherwise. */
static int load_one(const struct shared *s, int *hit)
{
    void *data = NULL;
    size_t size = 0;
    char err[512];
    mj_cache_result r = mj__cache_load(s->dir, s->key, &data, &size, NULL, err, sizeof err);
    if (r == MJ_CACHE_MISS)
        return 0;
    if (r != MJ_CACHE_HIT) {
        fprintf(stderr, "concurrent load gave %d: %s\n", (int)r, err);
        return -1;
    }
    int ok = 0;
    for (int i = 0; i < N_PAYLOADS; i++)
        ok |= size == s->size[i] && memcmp(data, s->payload[i], size) == 0;
    free(data);
    *hit += ok;
    return ok ? 0 : -1;
}

static int store_rounds(const struct shared *s, int which)
{
    char err[512];
    for (int r = 0; r < ROUNDS; r++) {
        size_t n = s->size[which];
        if (mj__cache_store(s->dir, s->key, s->payload[which], n, NULL, err, sizeof err) != 0) {
            fprintf(stderr, "concurrent store failed: %s\n", err);
            return -1;
        }
    }
    return 0;
}

static void assert_one_entry(const struct shared *s)
{
    int all, temps;
    count_names(s->dir, &all, &temps);
    ck_assert_int_eq(temps, 0);
    ck_assert_int_eq(all, 1);
    char path[PATH_MAX + 80];
    entry_file(path, sizeof path, s->dir, s->key);
    ck_assert(path_exists(path));
    int hits = 0;
    ck_assert_int_eq(load_one(s, &hits), 0);
    ck_assert_int_eq(hits, 1);
}

START_TEST(concurrent_processes)
{
    char dir[PATH_MAX];
    make_tmpdir(dir, sizeof dir);
    struct shared s;
    shared_init(&s, dir);
    pid_t pid[2];
    for (int i = 0; i < 2; i++) {
        pid[i] = fork();
        ck_assert_int_ge(pid[i], 0);
        if (pid[i] == 0)
            _exit(store_rounds(&s, i) == 0 ? 0 : 1);
    }
    /* Read while both writers run. */
    int running = 2, bad = 0, hits = 0, loads = 0;
    while (running > 0) {
        bad += load_one(&s, &hits) != 0;
        loads++;
        for (int i = 0; i < 2; i++) {
            int status;
            if (pid[i] > 0 && waitpid(pid[i], &status, WNOHANG) == pid[i]) {
                ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                              "writer process %d failed", i);
                pid[i] = 0;
                running--;
            }
        }
    }
    ck_assert_int_eq(bad, 0);
    ck_assert_int_gt(loads, 0);
    assert_one_entry(&s);
    shared_free(&s);
}
END_TEST

struct writer {
    const struct shared *s;
    int which;
    int rc;
};

static atomic_int g_writers_left;

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    w->rc = store_rounds(w->s, w->which);
    atomic_fetch_sub(&g_writers_left, 1);
    return NULL;
}

struct reader {
    const struct shared *s;
    int bad, hits, loads;
};

static void *reader_main(void *arg)
{
    struct reader *r = arg;
    do {
        r->bad += load_one(r->s, &r->hits) != 0;
        r->loads++;
    } while (atomic_load(&g_writers_left) > 0);
    return NULL;
}

START_TEST(concurrent_threads)
{
    char dir[PATH_MAX];
    make_tmpdir(dir, sizeof dir);
    struct shared s;
    shared_init(&s, dir);
    atomic_store(&g_writers_left, N_THREADS);
    struct writer w[N_THREADS];
    pthread_t wt[N_THREADS], rt;
    struct reader r = {&s, 0, 0, 0};
    ck_assert_int_eq(pthread_create(&rt, NULL, reader_main, &r), 0);
    for (int i = 0; i < N_THREADS; i++) {
        w[i] = (struct writer){&s, i, -1};
        ck_assert_int_eq(pthread_create(&wt[i], NULL, writer_main, &w[i]), 0);
    }
    for (int i = 0; i < N_THREADS; i++) {
        ck_assert_int_eq(pthread_join(wt[i], NULL), 0);
        ck_assert_msg(w[i].rc == 0, "writer thread %d failed", i);
    }
    ck_assert_int_eq(pthread_join(rt, NULL), 0);
    ck_assert_int_eq(r.bad, 0);
    ck_assert_int_gt(r.loads, 0);
    assert_one_entry(&s);
    shared_free(&s);
}
END_TEST

/* ---------------------------------------------------------------- failures */

START_TEST(store_failures)
{
    char dir[PATH_MAX], path[PATH_MAX + 80], err[512];
    make_tmpdir(dir, sizeof dir);
    uint8_t key[32];
    key_of(key, "failures");
    static const char payload[] = "payload";

    /* The parent of the cache directory is a regular file. */
    char file[PATH_MAX + 16], below[PATH_MAX + 32];
    snprintf(file, sizeof file, "%s/plain", dir);
    mjt_write_file(file, "x", 1);
    snprintf(below, sizeof below, "%s/sub", file);
    err[0] = '\0';
    ck_assert_int_eq(mj__cache_store(below, key, payload, sizeof payload, NULL, err, sizeof err),
                     -1);
    ck_assert_msg(strstr(err, file) && strstr(err, "not a directory"), "message: %s", err);
    err[0] = '\0';
    ck_assert_int_eq(mj__dir_ensure_private(file, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "not a directory") != NULL, "message: %s", err);
    err[0] = '\0';
    ck_assert_int_eq(mj__dir_ensure_private("", err, sizeof err), -1);
    ck_assert_str_ne(err, "");
    ck_assert_int_eq(mj__dir_ensure_private(dir, err, sizeof err), 0);
    /* A NULL or empty err buffer is allowed. */
    ck_assert_int_eq(mj__dir_ensure_private(file, NULL, 0), -1);

    /* A read-only directory: root ignores the mode, so only others see the failure. */
    char ro[PATH_MAX + 16];
    snprintf(ro, sizeof ro, "%s/ro", dir);
    ck_assert_int_eq(mkdir(ro, 0500), 0);
    err[0] = '\0';
    int rc = mj__cache_store(ro, key, payload, sizeof payload, NULL, err, sizeof err);
    int all, temps;
    count_names(ro, &all, &temps);
    ck_assert_int_eq(temps, 0);
    if (geteuid() != 0) {
        ck_assert_int_eq(rc, -1);
        ck_assert_msg(strstr(err, ro) != NULL, "message does not name the directory: %s", err);
        ck_assert_int_eq(all, 0);
    } else {
        ck_assert_int_eq(rc, 0);
        ck_assert_int_eq(all, 1);
    }
    ck_assert_int_eq(chmod(ro, 0700), 0);

    /* The final rename fails (a non-empty directory holds the name): the temporary file must
     * not be left behind. This fails for root too. */
    char sub[PATH_MAX + 16];
    snprintf(sub, sizeof sub, "%s/busy", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    entry_file(path, sizeof path, sub, key);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    char inner[PATH_MAX + 96];
    snprintf(inner, sizeof inner, "%s/x", path);
    mjt_write_file(inner, "x", 1);
    err[0] = '\0';
    ck_assert_int_eq(mj__cache_store(sub, key, payload, sizeof payload, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, path) != NULL, "message does not name the entry: %s", err);
    count_names(sub, &all, &temps);
    ck_assert_int_eq(temps, 0);
    ck_assert_int_eq(all, 1);
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
    ck_assert_str_ne(err, "");
}
END_TEST

/* ---------------------------------------------------------------- main */

static Suite *cache_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *sha = tcase_create("sha256");
    tcase_add_test(sha, sha256_vectors);
    tcase_add_test(sha, sha256_million_a);
    tcase_add_test(sha, sha256_hex_digits);
    suite_add_tcase(s, sha);

    TCase *tc = tcase_create("cache");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, store_load_roundtrip);
    tcase_add_test(tc, meta_roundtrip);
    tcase_add_test(tc, unsafe_locations);
    tcase_add_test(tc, full_disk);
    tcase_add_test(tc, damaged_entries);
    tcase_add_test(tc, concurrent_processes);
    tcase_add_test(tc, concurrent_threads);
    tcase_add_test(tc, store_failures);
    tcase_add_test(tc, clear_and_stats);
    tcase_add_test(tc, default_dir_env);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (!mkdtemp(g_root)) {
        perror("mkdtemp");
        return 1;
    }
    SRunner *sr = srunner_create(cache_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    remove_tree(g_root);
    return failed == 0 ? 0 : 1;
}
