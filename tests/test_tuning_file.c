/* The tuning file: round trips, lookups, every kind of bad line, foreign files and versions,
 * reading and writing failures, and the default path. CPU only. */
#include <check.h>

#include "test_support.h"
#include "store/tuning_file.h"
#include "store/tuning_parse.h"
#include "store/tuning_write.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */

static mj_tuning_entry entry(const char *device, int sm, mj_primitive p, size_t key_size,
                             size_t value_size, int nt, int vt, int bs_nt, double gkeys)
{
    mj_tuning_entry e;
    memset(&e, 0, sizeof e);
    snprintf(e.device, sizeof e.device, "%s", device);
    e.sm = sm;
    e.primitive = p;
    e.key_size = key_size;
    e.value_size = value_size;
    e.nt = nt;
    e.vt = vt;
    e.bs_nt = bs_nt;
    e.gkeys = gkeys;
    return e;
}

static void set_ok(mj_tuning *t, mj_tuning_entry e)
{
    ck_assert_int_eq(mj__tuning_set(t, &e), 0);
}

static int path_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Names in dir apart from "." and ".."; *temps counts those that look like temporary files. */
static int count_names(const char *dir, int *temps)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "opendir %s: %s", dir, strerror(errno));
    int all = 0;
    *temps = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        all++;
        if (strstr(e->d_name, ".tmp."))
            (*temps)++;
    }
    closedir(d);
    return all;
}

static void assert_same_entry(const mj_tuning_entry *got, const mj_tuning_entry *want)
{
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got->device, want->device);
    ck_assert_int_eq(got->sm, want->sm);
    ck_assert_int_eq(got->primitive, want->primitive);
    ck_assert_uint_eq(got->key_size, want->key_size);
    ck_assert_uint_eq(got->value_size, want->value_size);
    ck_assert_int_eq(got->nt, want->nt);
    ck_assert_int_eq(got->vt, want->vt);
    ck_assert_int_eq(got->bs_nt, want->bs_nt);
    /* The file keeps two decimals. */
    ck_assert_msg(fabs(got->gkeys - round(want->gkeys * 100) / 100) < 1e-9, "gkeys %.17g for %.17g",
                  got->gkeys, want->gkeys);
}

/* Every entry of want is in got, equal, and got has no others. */
static void assert_same_tuning(const mj_tuning *got, const mj_tuning *want)
{
    ck_assert_uint_eq(got->count, want->count);
    for (size_t i = 0; i < want->count; i++) {
        const mj_tuning_entry *w = &want->entries[i];
        assert_same_entry(mj__tuning_find(got, w->device, w->sm, w->primitive, w->key_size,
                                          w->value_size),
                          w);
    }
}

static int parse_str(const char *text, mj_tuning *out, char *err, size_t errcap)
{
    return mj__tuning_parse(text, strlen(text), "/path/x", out, err, errcap);
}

/* text must be rejected with a message naming the file, the line and containing want. */
static void assert_bad(const char *text, size_t len, int line, const char *want)
{
    char err[512] = "", where[64];
    mj_tuning t = {(mj_tuning_entry *)&t, 99, 99}; /* parse overwrites it */
    int rc = mj__tuning_parse(text, len, "/path/x", &t, err, sizeof err);
    ck_assert_msg(rc == -1, "accepted (rc %d): %s", rc, text);
    ck_assert_ptr_null(t.entries);
    ck_assert_uint_eq(t.count, 0);
    snprintf(where, sizeof where, "tuning file /path/x, line %d: ", line);
    ck_assert_msg(strncmp(err, where, strlen(where)) == 0, "want '%s' in: %s", where, err);
    ck_assert_msg(strstr(err, want) != NULL, "want '%s' in: %s", want, err);
}

#define HEAD "mergejit-tuning 1\ndevice 90 NVIDIA H100 80GB HBM3\n"

/* A bad line as line 3, after the header and a device line. */
static void assert_bad_line(const char *line, const char *want)
{
    char text[1024];
    ck_assert_int_lt(snprintf(text, sizeof text, HEAD "%s\n", line), (int)sizeof text);
    assert_bad(text, strlen(text), 3, want);
}

/* ---------------------------------------------------------------- round trips */

static void fill_sample(mj_tuning *t)
{
    set_ok(t, entry("NVIDIA H100 80GB HBM3", 90, MJ_MERGE, 8, 8, 128, 9, 128, 0));
    set_ok(t, entry("NVIDIA H100 80GB HBM3", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, 20.41));
    set_ok(t, entry("NVIDIA A100-SXM4-40GB", 80, MJ_SEGMENTED_SORT, 4, 4, 128, 15, 256, 3.14159));
    set_ok(t, entry("NVIDIA H100 80GB HBM3", 90, MJ_MERGESORT, 4, 4, 256, 15, 256, 11.006));
    set_ok(t, entry("NVIDIA H100 80GB HBM3", 90, MJ_LOCALITY_SORT, 256, 64, 32, 1, 1024, 0.5));
    set_ok(t, entry("NVIDIA A100-SXM4-40GB", 80, MJ_MERGESORT, 8, 0, 1024, 63, 1024, 1234.567));
    /* Same name, another sm: a device of its own. */
    set_ok(t, entry("NVIDIA H100 80GB HBM3", 89, MJ_MERGESORT, 1, 0, 64, 7, 64, 7));
    set_ok(t, entry("Odd  name\xc3\xa9 with #hash", 75, MJ_MERGESORT, 2, 0, 512, 3, 1024, 1e6));
}

START_TEST(roundtrip)
{
    char *dir = mjt_tmpdir(), path[PATH_MAX], err[512] = "";
    snprintf(path, sizeof path, "%s/tuning", dir);
    mj_tuning t = {0}, back;
    fill_sample(&t);
    ck_assert_uint_eq(t.count, 8);
    ck_assert_msg(mj__tuning_write(path, &t, err, sizeof err) == 0, "write: %s", err);
    ck_assert_msg(mj__tuning_read(path, &back, err, sizeof err) == 0, "read: %s", err);
    assert_same_tuning(&back, &t);

    /* Writing what was read gives the same bytes. */
    char *first = mjt_read_file(path, NULL);
    ck_assert_msg(mj__tuning_write(path, &back, err, sizeof err) == 0, "write: %s", err);
    char *second = mjt_read_file(path, NULL);
    ck_assert_str_eq(first, second);

    /* The layout: devices in order of first appearance, entries sorted within each. */
    const char *want = "mergejit-tuning 1\n"
                       "# written by mergejit " MJ_VERSION_STRING "\n"
                       "\n"
                       "device 90 NVIDIA H100 80GB HBM3\n"
                       "tile mergesort 4 0 256 23 512 20.41\n"
                       "tile mergesort 4 4 256 15 256 11.01\n"
                       "tile merge 8 8 128 9 128 0.00\n"
                       "tile locality 256 64 32 1 1024 0.50\n"
                       "\n"
                       "device 80 NVIDIA A100-SXM4-40GB\n"
                       "tile mergesort 8 0 1024 63 1024 1234.57\n"
                       "tile segsort 4 4 128 15 256 3.14\n"
                       "\n"
                       "device 89 NVIDIA H100 80GB HBM3\n"
                       "tile mergesort 1 0 64 7 64 7.00\n"
                       "\n"
                       "device 75 Odd  name\xc3\xa9 with #hash\n"
                       "tile mergesort 2 0 512 3 1024 1000000.00\n";
    ck_assert_str_eq(first, want);
    free(first);
    free(second);

    /* An empty table round-trips too. */
    mj_tuning empty = {0};
    ck_assert_int_eq(mj__tuning_write(path, &empty, err, sizeof err), 0);
    mj__tuning_free(&back);
    ck_assert_int_eq(mj__tuning_read(path, &back, err, sizeof err), 0);
    ck_assert_uint_eq(back.count, 0);

    mj__tuning_free(&back);
    mj__tuning_free(&t);
    ck_assert_ptr_null(t.entries);
    ck_assert_uint_eq(t.count, 0);
    mj__tuning_free(&t); /* twice is fine */
    mj__tuning_free(NULL);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* Text a person might write: CRLF, tabs, comments, blank lines, no final newline, a device
 * section resumed later, trailing spaces after a name, exponents and leading zeros. */
START_TEST(parse_lenient)
{
    static const char text[] =
        "mergejit-tuning 1\r\n"
        "# a comment\r\n"
        "\r\n"
        "   \t\n"
        "device\t90   NVIDIA H100 80GB HBM3  \t \r\n"
        "  # indented comment\n"
        "\ttile  mergesort\t4 0 256 23 512 20.41  \n"
        "device 80 A100\n"
        "tile merge 008 8 128 9 128 2e1\n"
        "device 90 NVIDIA H100 80GB HBM3\n"
        "tile segsort 4 0 128 15 128 .5";
    char err[512] = "";
    mj_tuning t;
    ck_assert_msg(mj__tuning_parse(text, strlen(text), "x", &t, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(t.count, 3);
    mj_tuning_entry e1 = entry("NVIDIA H100 80GB HBM3", 90, MJ_MERGESORT, 4, 0, 256, 23, 512,
                               20.41);
    mj_tuning_entry e2 = entry("A100", 80, MJ_MERGE, 8, 8, 128, 9, 128, 20);
    mj_tuning_entry e3 = entry("NVIDIA H100 80GB HBM3", 90, MJ_SEGMENTED_SORT, 4, 0, 128, 15,
                               128, 0.5);
    assert_same_entry(mj__tuning_find(&t, e1.device, 90, MJ_MERGESORT, 4, 0), &e1);
    assert_same_entry(mj__tuning_find(&t, "A100", 80, MJ_MERGE, 8, 8), &e2);
    assert_same_entry(mj__tuning_find(&t, e3.device, 90, MJ_SEGMENTED_SORT, 4, 0), &e3);
    mj__tuning_free(&t);

    /* Only the header, with and without its newline. */
    ck_assert_int_eq(parse_str("mergejit-tuning 1", &t, err, sizeof err), 0);
    ck_assert_uint_eq(t.count, 0);
    ck_assert_int_eq(parse_str("mergejit-tuning 1\n", &t, err, sizeof err), 0);
    ck_assert_uint_eq(t.count, 0);
    /* len bounds the text: what follows is not read. */
    static const char longer[] = "mergejit-tuning 1\nbogus";
    ck_assert_int_eq(mj__tuning_parse(longer, 18, "x", &t, err, sizeof err), 0);
    ck_assert_int_eq(mj__tuning_parse(longer, sizeof longer - 1, "x", &t, err, sizeof err), -1);
}
END_TEST

/* ---------------------------------------------------------------- find and set */

START_TEST(find_and_set)
{
    mj_tuning t = {0};
    ck_assert_ptr_null(mj__tuning_find(&t, "A", 90, MJ_MERGESORT, 4, 0));
    fill_sample(&t);
    const char *h100 = "NVIDIA H100 80GB HBM3";
    const mj_tuning_entry *e = mj__tuning_find(&t, h100, 90, MJ_MERGESORT, 4, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(e->vt, 23);
    /* Misses: each part of the key alone. */
    ck_assert_ptr_null(mj__tuning_find(&t, "NVIDIA H100 80GB HBM", 90, MJ_MERGESORT, 4, 0));
    ck_assert_ptr_null(mj__tuning_find(&t, "NVIDIA H100 80GB HBM3 ", 90, MJ_MERGESORT, 4, 0));
    ck_assert_ptr_null(mj__tuning_find(&t, "nvidia h100 80gb hbm3", 90, MJ_MERGESORT, 4, 0));
    ck_assert_ptr_null(mj__tuning_find(&t, h100, 86, MJ_MERGESORT, 4, 0));
    ck_assert_ptr_null(mj__tuning_find(&t, h100, 90, MJ_SEGMENTED_SORT, 4, 0));
    ck_assert_ptr_null(mj__tuning_find(&t, h100, 90, MJ_MERGESORT, 8, 0));
    ck_assert_ptr_null(mj__tuning_find(&t, h100, 90, MJ_MERGESORT, 4, 8));
    ck_assert_ptr_null(mj__tuning_find(&t, NULL, 90, MJ_MERGESORT, 4, 0));
    /* The same name on sm 89 is another entry. */
    e = mj__tuning_find(&t, h100, 89, MJ_MERGESORT, 1, 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(e->vt, 7);

    /* set replaces the entry with the same key, keeping the count. */
    size_t n = t.count;
    set_ok(&t, entry(h100, 90, MJ_MERGESORT, 4, 0, 512, 11, 1024, 30.5));
    ck_assert_uint_eq(t.count, n);
    e = mj__tuning_find(&t, h100, 90, MJ_MERGESORT, 4, 0);
    ck_assert_int_eq(e->nt, 512);
    ck_assert_int_eq(e->vt, 11);
    ck_assert_int_eq(e->bs_nt, 1024);
    ck_assert(e->gkeys == 30.5);
    /* ... and adds one that differs in any part. */
    set_ok(&t, entry(h100, 90, MJ_MERGESORT, 4, 8, 128, 7, 128, 1));
    ck_assert_uint_eq(t.count, n + 1);
    /* Many entries: growth keeps the earlier ones. */
    for (size_t k = 1; k <= 200; k++)
        set_ok(&t, entry("grow", 70, MJ_MERGE, k, 0, 64, 3, 64, (double)k));
    ck_assert_uint_eq(t.count, n + 201);
    for (size_t k = 1; k <= 200; k++) {
        e = mj__tuning_find(&t, "grow", 70, MJ_MERGE, k, 0);
        ck_assert_ptr_nonnull(e);
        ck_assert(e->gkeys == (double)k);
    }
    ck_assert_int_eq(mj__tuning_find(&t, h100, 90, MJ_MERGESORT, 4, 0)->nt, 512);
    mj__tuning_free(&t);
}
END_TEST

/* ---------------------------------------------------------------- bad lines */

START_TEST(bad_tile_lines)
{
    /* The message the format's documentation gives, whole. */
    char err[512];
    mj_tuning t;
    ck_assert_int_eq(parse_str(HEAD "\n# c\n\n\ntile mergesort 4 0 256 0 512 1\n", &t, err,
                               sizeof err),
                     -1);
    ck_assert_str_eq(err, "tuning file /path/x, line 7: vt 0 is out of range (1..63)");

    assert_bad_line("tile mergesort 4 0 256 64 512 1", "vt 64 is out of range (1..63)");
    assert_bad_line("tile quicksort 4 0 256 23 512 1", "unknown primitive 'quicksort'");
    assert_bad_line("tile MergeSort 4 0 256 23 512 1", "unknown primitive");
    assert_bad_line("tile mergesort 0 0 256 23 512 1", "key_size 0 is out of range (1..256)");
    assert_bad_line("tile mergesort 257 0 256 23 512 1", "key_size 257 is out of range");
    assert_bad_line("tile mergesort 4 65 256 23 512 1", "value_size 65 is out of range (0..64)");
    assert_bad_line("tile mergesort 4 0 48 23 512 1", "nt 48 is not a power of two");
    assert_bad_line("tile mergesort 4 0 16 23 512 1", "nt 16 ");
    assert_bad_line("tile mergesort 4 0 2048 23 2048 1", "nt 2048 ");
    assert_bad_line("tile mergesort 4 0 0 23 512 1", "nt 0 ");
    assert_bad_line("tile mergesort 4 0 128 23 384 1", "bs_nt 384 ");
    assert_bad_line("tile mergesort 4 0 256 23 128 1", "bs_nt 128 ");
    assert_bad_line("tile mergesort 4 0 512 23 2048 1", "bs_nt 2048 ");
    assert_bad_line("tile mergesort 4 0 256 23 0 1", "bs_nt 0 ");
    assert_bad_line("tile mergesort 4 0 256 23 512 -1", "gkeys '-1'");
    assert_bad_line("tile mergesort 4 0 256 23 512 inf", "gkeys 'inf'");
    assert_bad_line("tile mergesort 4 0 256 23 512 nan", "gkeys 'nan'");
    assert_bad_line("tile mergesort 4 0 256 23 512 0x10", "gkeys '0x10'");
    assert_bad_line("tile mergesort 4 0 256 23 512 1e999", "gkeys inf is out of range");
    /* Accepted values must be writable and readable again (found by fuzz_tuning). */
    assert_bad_line("tile mergesort 4 0 256 23 512 1e62", "gkeys 1e+62 is out of range");
    assert_bad_line("tile mergesort 4 0 256 23 512 20.4x", "gkeys '20.4x'");
    assert_bad_line("tile mergesort 4 0 256 23 512 1.2.3", "gkeys '1.2.3'");
    /* Numbers with junk, signs, fractions, overflow. */
    assert_bad_line("tile mergesort 4 0 256x 23 512 1", "nt '256x' is not a number");
    assert_bad_line("tile mergesort +4 0 256 23 512 1", "key_size '+4' is not a number");
    assert_bad_line("tile mergesort 4 -0 256 23 512 1", "value_size '-0' is not a number");
    assert_bad_line("tile mergesort 4 0 256 2.0 512 1", "vt '2.0' is not a number");
    assert_bad_line("tile mergesort 4 0 256 23 512\xff 1", "bs_nt '512\xff' is not a number");
    assert_bad_line("tile mergesort 4 0 256 99999999999999999999999 512 1",
                    "vt 99999999999999999999999 is out of range");
    assert_bad_line("tile mergesort 4 0 256 23 512 1\r\r", "gkeys '1\r'");
    /* Missing and extra fields. */
    assert_bad_line("tile mergesort 4 0 256 23 512", "needs 7 fields");
    assert_bad_line("tile mergesort 4 0 256 23 512 1 2", "needs 7 fields");
    assert_bad_line("tile mergesort 4 0 256 23 512 1 # note", "needs 7 fields");
    assert_bad_line("tile", "needs 7 fields");
    /* Unknown keywords. */
    assert_bad_line("tiles mergesort 4 0 256 23 512 1", "unknown keyword 'tiles'");
    assert_bad_line("Device 90 X", "unknown keyword 'Device'");
    assert_bad_line("mergejit-tuning 1", "unknown keyword 'mergejit-tuning'");
    assert_bad_line("// comment", "unknown keyword '//'");

    /* A tile before any device. */
    static const char early[] = "mergejit-tuning 1\ntile mergesort 4 0 256 23 512 1\n";
    assert_bad(early, strlen(early), 2, "before any device line");
    /* A duplicate, even with other lines and a device line between. */
    static const char dup[] = HEAD "tile mergesort 4 0 256 23 512 1\n"
                                   "device 80 A100\ntile mergesort 4 0 256 23 512 1\n"
                                   "device 90 NVIDIA H100 80GB HBM3\n"
                                   "tile mergesort 4 0 128 15 256 2\n";
    assert_bad(dup, strlen(dup), 7, "a second tile for mergesort, key_size 4, value_size 0");
    /* A NUL byte: not a text file. */
    static const char nul[] = HEAD "tile mergesort 4 0 256 23\0 512 1\n";
    assert_bad(nul, sizeof nul - 1, 3, "NUL");
    static const char nul_comment[] = HEAD "# \0\n";
    assert_bad(nul_comment, sizeof nul_comment - 1, 3, "NUL");
}
END_TEST

START_TEST(bad_device_lines)
{
    assert_bad_line("device", "(device SM NAME)");
    assert_bad_line("device 90", "(device SM NAME)");
    assert_bad_line("device 90   \t ", "(device SM NAME)");
    assert_bad_line("device 9 X", "sm 9 is out of range (10..999)");
    assert_bad_line("device 1000 X", "sm 1000 is out of range (10..999)");
    assert_bad_line("device 9a X", "sm '9a' is not a number");
    assert_bad_line("device -90 X", "sm '-90' is not a number");
    assert_bad_line("device 90 A\x01" "B", "control character");
    assert_bad_line("device 90 A\tB", "control character");
    assert_bad_line("device 90 A\rB", "control character");

    /* The name may be 255 bytes, not 256. */
    char line[600], name[300];
    memset(name, 'n', 256);
    name[256] = '\0';
    snprintf(line, sizeof line, "device 90 %s", name);
    assert_bad_line(line, "256 bytes long");
    name[255] = '\0';
    char text[700];
    snprintf(text, sizeof text, "mergejit-tuning 1\ndevice 90 %s\ntile merge 4 0 64 3 64 0\n",
             name);
    mj_tuning t;
    char err[512] = "";
    ck_assert_msg(parse_str(text, &t, err, sizeof err) == 0, "%s", err);
    ck_assert_ptr_nonnull(mj__tuning_find(&t, name, 90, MJ_MERGE, 4, 0));
    mj__tuning_free(&t);

    /* An error's message fits whatever buffer it is given, or none. */
    char small[12];
    memset(small, 'z', sizeof small);
    ck_assert_int_eq(parse_str(HEAD "device 9 X\n", &t, small, sizeof small), -1);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
    ck_assert_int_eq(parse_str(HEAD "device 9 X\n", &t, NULL, 0), -1);
}
END_TEST

/* ---------------------------------------------------------------- foreign files, versions */

static void assert_foreign(const void *text, size_t len)
{
    char err[512] = "";
    mj_tuning t;
    ck_assert_int_eq(mj__tuning_parse(text, len, "/path/x", &t, err, sizeof err), -1);
    ck_assert_ptr_null(t.entries);
    ck_assert_uint_eq(t.count, 0);
    ck_assert_str_eq(err, "/path/x is not a mergejit tuning file (its first line is not "
                          "'mergejit-tuning 1')");
}

START_TEST(foreign_files)
{
    /* The start of a kernel cache entry: magic, version, then binary. */
    static const unsigned char cache_bytes[96] = {'M', 'J', 'C', 'A', 'C', 'H', 'E', '1', 1, 0,
                                                  0, 0, 0, 0, 0, 0, 0xde, 0xad, '\n', 0xbe};
    assert_foreign(cache_bytes, sizeof cache_bytes);
    uint64_t seed = 42;
    unsigned char noise[4096];
    for (int round = 0; round < 20; round++) {
        for (size_t i = 0; i < sizeof noise; i++)
            noise[i] = (unsigned char)mjt_rand(&seed);
        assert_foreign(noise, sizeof noise);
    }
    assert_foreign("", 0);
    assert_foreign(NULL, 0);
    assert_foreign("\n", 1);
    assert_foreign("mergejit-tuning", 15);
    assert_foreign("mergejit-tuning\n1\n", 18);
    assert_foreign("mergejit-tuning 1 extra\n", 24);
    assert_foreign("mergejit-tuning one\n", 20);
    assert_foreign("mergejit-tuning -1\n", 19);
    assert_foreign("mergejit-tuning 1\0\n", 19);
    assert_foreign("\xef\xbb\xbfmergejit-tuning 1\n", 21); /* a byte-order mark */
    assert_foreign("# comment\nmergejit-tuning 1\n", 28);
    assert_foreign("\nmergejit-tuning 1\n", 19);
    assert_foreign("mergejit-cache 1\n", 17);
    assert_foreign("{\"device\": \"H100\"}\n", 19);
}
END_TEST

START_TEST(other_versions)
{
    char err[512] = "";
    mj_tuning t;
    ck_assert_int_eq(parse_str("mergejit-tuning 2\ndevice 90 X\nsomething new\n", &t, err,
                               sizeof err),
                     -1);
    ck_assert_str_eq(err, "/path/x is tuning format version 2; this library reads version 1");
    ck_assert_ptr_null(t.entries);
    ck_assert_int_eq(parse_str("mergejit-tuning 0", &t, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "version 0;"));
    ck_assert_int_eq(parse_str("mergejit-tuning 99999999999999999999\r\n", &t, err, sizeof err),
                     -1);
    ck_assert_ptr_nonnull(strstr(err, "version 99999999999999999999;"));
    ck_assert_int_eq(parse_str("mergejit-tuning 001\n", &t, err, sizeof err), 0);
}
END_TEST

/* ---------------------------------------------------------------- reading */

START_TEST(read_cases)
{
    char *dir = mjt_tmpdir(), path[PATH_MAX], err[512];
    mj_tuning t = {(mj_tuning_entry *)&t, 5, 5};

    /* Missing: 1, empty, and err says so. */
    snprintf(path, sizeof path, "%s/none", dir);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_read(path, &t, err, sizeof err), 1);
    ck_assert_ptr_null(t.entries);
    ck_assert_uint_eq(t.count, 0);
    ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
    snprintf(path, sizeof path, "%s/no/such/dir/tuning", dir);
    ck_assert_int_eq(mj__tuning_read(path, &t, err, sizeof err), 1);

    /* A directory, and a path through a regular file: errors, not "missing". */
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_read(dir, &t, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "not a regular file") != NULL, "message: %s", err);
    snprintf(path, sizeof path, "%s/plain", dir);
    mjt_write_file(path, "x", 1);
    snprintf(path, sizeof path, "%s/plain/tuning", dir);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_read(path, &t, err, sizeof err), -1);
    ck_assert_str_ne(err, "");

    /* A bad file names its path and line. */
    snprintf(path, sizeof path, "%s/bad", dir);
    static const char bad[] = "mergejit-tuning 1\r\ndevice 90 X\r\ntile merge 4 0 64 3 64 1\r\n"
                              "tile merge 4 0 64 3 32 1\r\n";
    mjt_write_file(path, bad, sizeof bad - 1);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_read(path, &t, err, sizeof err), -1);
    ck_assert_ptr_null(t.entries);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "tuning file %s, line 4: bs_nt 32", path);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "message: %s", err);

    /* Empty and foreign files on disk. */
    snprintf(path, sizeof path, "%s/empty", dir);
    mjt_write_file(path, "", 0);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_read(path, &t, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "is not a mergejit tuning file"));
    snprintf(path, sizeof path, "%s/binary", dir);
    static const unsigned char bin[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, '\n', 0};
    mjt_write_file(path, bin, sizeof bin);
    ck_assert_int_eq(mj__tuning_read(path, &t, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "is not a mergejit tuning file"));

    /* A good one. */
    snprintf(path, sizeof path, "%s/good", dir);
    static const char good[] = "mergejit-tuning 1\ndevice 90 X\ntile merge 4 0 64 3 64 1.25";
    mjt_write_file(path, good, sizeof good - 1);
    ck_assert_msg(mj__tuning_read(path, &t, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(t.count, 1);
    ck_assert(mj__tuning_find(&t, "X", 90, MJ_MERGE, 4, 0)->gkeys == 1.25);
    mj__tuning_free(&t);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* ---------------------------------------------------------------- writing */

START_TEST(write_cases)
{
    char *dir = mjt_tmpdir(), path[PATH_MAX], sub[PATH_MAX], err[512];
    mj_tuning t = {0}, back;
    fill_sample(&t);

    /* Missing parents are created, private. */
    snprintf(path, sizeof path, "%s/a/b/c/tuning", dir);
    ck_assert_msg(mj__tuning_write(path, &t, err, sizeof err) == 0, "write: %s", err);
    struct stat st;
    snprintf(sub, sizeof sub, "%s/a/b", dir);
    ck_assert_int_eq(stat(sub, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    ck_assert_int_eq(st.st_mode & 0777, 0700);
    ck_assert_int_eq(mj__tuning_read(path, &back, err, sizeof err), 0);
    assert_same_tuning(&back, &t);
    mj__tuning_free(&back);
    int temps;
    snprintf(sub, sizeof sub, "%s/a/b/c", dir);
    ck_assert_int_eq(count_names(sub, &temps), 1);
    ck_assert_int_eq(temps, 0);

    /* A relative path: the temporary file goes beside it. */
    char cwd[PATH_MAX];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(sub), 0);
    ck_assert_msg(mj__tuning_write("rel", &t, err, sizeof err) == 0, "write: %s", err);
    ck_assert_int_eq(chdir(cwd), 0);
    ck_assert_int_eq(count_names(sub, &temps), 2);
    ck_assert_int_eq(temps, 0);

    /* The parent is a regular file. */
    snprintf(sub, sizeof sub, "%s/plain", dir);
    mjt_write_file(sub, "x", 1);
    snprintf(path, sizeof path, "%s/plain/tuning", dir);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_write(path, &t, err, sizeof err), -1);
    ck_assert_msg(strstr(err, sub) && strstr(err, "not a directory"), "message: %s", err);

    /* The path is a non-empty directory: the rename fails (for root too), and the temporary
     * file is removed. */
    snprintf(sub, sizeof sub, "%s/busy", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    snprintf(path, sizeof path, "%s/busy/tuning", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    char inner[PATH_MAX + 8];
    snprintf(inner, sizeof inner, "%s/x", path);
    mjt_write_file(inner, "x", 1);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_write(path, &t, err, sizeof err), -1);
    ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
    ck_assert_int_eq(count_names(sub, &temps), 1);
    ck_assert_int_eq(temps, 0);
    /* A path that names a directory. */
    snprintf(path, sizeof path, "%s/busy/", dir);
    ck_assert_int_eq(mj__tuning_write(path, &t, err, sizeof err), -1);
    ck_assert_int_eq(mj__tuning_write("", &t, err, sizeof err), -1);

    /* A read-only directory: root ignores the mode, so only others see the failure. */
    snprintf(sub, sizeof sub, "%s/ro", dir);
    ck_assert_int_eq(mkdir(sub, 0500), 0);
    snprintf(path, sizeof path, "%s/ro/tuning", dir);
    err[0] = '\0';
    int rc = mj__tuning_write(path, &t, err, sizeof err);
    int all = count_names(sub, &temps);
    ck_assert_int_eq(temps, 0);
    if (geteuid() != 0) {
        ck_assert_int_eq(rc, -1);
        ck_assert_msg(strstr(err, sub) != NULL, "message: %s", err);
        ck_assert_int_eq(all, 0);
    } else {
        ck_assert_int_eq(rc, 0);
        ck_assert_int_eq(all, 1);
    }
    ck_assert_int_eq(chmod(sub, 0700), 0);

    /* Entries that would not read back are refused, and the old file stays as it was. */
    snprintf(path, sizeof path, "%s/keep", dir);
    ck_assert_int_eq(mj__tuning_write(path, &t, err, sizeof err), 0);
    char *before = mjt_read_file(path, NULL);
    static const struct {
        mj_tuning_entry e;
        const char *want;
    } refused[] = {
        {{"X", 90, MJ_MERGESORT, 4, 0, 256, 0, 512, 1}, "vt 0 is out of range"},
        {{"X", 90, MJ_MERGESORT, 4, 0, 256, 23, 384, 1}, "bs_nt 384"},
        {{"X", 90, MJ_MERGESORT, 0, 0, 256, 23, 512, 1}, "key_size 0"},
        {{"X", 90, MJ_PRIMITIVE_COUNT, 4, 0, 256, 23, 512, 1}, "primitive"},
        {{"X", 9, MJ_MERGESORT, 4, 0, 256, 23, 512, 1}, "sm 9"},
        {{"X", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, -1}, "gkeys"},
        {{"X", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, NAN}, "gkeys"},
        {{"", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, 1}, "empty"},
        {{"a\nb", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, 1}, "control character"},
        {{" X", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, 1}, "space"},
        {{"X ", 90, MJ_MERGESORT, 4, 0, 256, 23, 512, 1}, "space"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        mj_tuning one = {0};
        set_ok(&one, entry("Y", 80, MJ_MERGE, 4, 0, 64, 3, 64, 1));
        ck_assert_int_eq(mj__tuning_set(&one, &refused[i].e), 0);
        err[0] = '\0';
        ck_assert_int_eq(mj__tuning_write(path, &one, err, sizeof err), -1);
        ck_assert_msg(strstr(err, refused[i].want) && strstr(err, path) && strstr(err, "entry 1"),
                      "case %zu: %s", i, err);
        mj__tuning_free(&one);
    }
    /* Nothing is created for a refused table. */
    char fresh[PATH_MAX + 16];
    snprintf(fresh, sizeof fresh, "%s/fresh/tuning", dir);
    ck_assert_int_eq(mj__tuning_write(fresh, &(mj_tuning){(mj_tuning_entry *)&refused[0].e, 1, 1},
                                      err, sizeof err),
                     -1);
    ck_assert(!path_exists(fresh));
    /* A table built by hand with a duplicate. */
    mj_tuning_entry two[2] = {entry("X", 90, MJ_MERGE, 4, 0, 64, 3, 64, 1),
                              entry("X", 90, MJ_MERGE, 4, 0, 128, 3, 128, 2)};
    mj_tuning dup = {two, 2, 2};
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_write(path, &dup, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "repeats") != NULL, "message: %s", err);
    char *after = mjt_read_file(path, NULL);
    ck_assert_str_eq(before, after);
    free(before);
    free(after);
    snprintf(sub, sizeof sub, "%s", dir);
    count_names(sub, &temps);
    ck_assert_int_eq(temps, 0);

    mj__tuning_free(&t);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

/* ---------------------------------------------------------------- the default path */

START_TEST(default_path_env)
{
    char out[PATH_MAX], err[512];
    setenv("MERGEJIT_TUNING", "/opt/mj/tuning.txt", 1);
    setenv("XDG_CONFIG_HOME", "/xdg", 1);
    setenv("HOME", "/home/someone", 1);
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/opt/mj/tuning.txt");

    setenv("MERGEJIT_TUNING", "relative/tuning", 1); /* taken as it is */
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "relative/tuning");

    setenv("MERGEJIT_TUNING", "", 1); /* empty counts as unset */
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/xdg/mergejit/tuning");

    unsetenv("MERGEJIT_TUNING");
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/xdg/mergejit/tuning");

    setenv("XDG_CONFIG_HOME", "relative/xdg", 1); /* not absolute: ignored */
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/home/someone/.config/mergejit/tuning");

    setenv("XDG_CONFIG_HOME", "", 1);
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "/home/someone/.config/mergejit/tuning");

    /* Too small a buffer: -1, a message, and no partial path. */
    char small[20];
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_default_path(small, sizeof small, err, sizeof err), -1);
    ck_assert_str_ne(err, "");
    ck_assert_str_eq(small, "");
    /* Exactly fitting is fine. */
    char exact[sizeof "/home/someone/.config/mergejit/tuning"];
    ck_assert_int_eq(mj__tuning_default_path(exact, sizeof exact, err, sizeof err), 0);
    ck_assert_str_eq(exact, "/home/someone/.config/mergejit/tuning");

    unsetenv("XDG_CONFIG_HOME");
    setenv("HOME", "", 1);
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), -1);
    ck_assert_str_ne(err, "");
    unsetenv("HOME");
    err[0] = '\0';
    ck_assert_int_eq(mj__tuning_default_path(out, sizeof out, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "MERGEJIT_TUNING"));
}
END_TEST

/* ---------------------------------------------------------------- main */

static Suite *tuning_file_suite(void)
{
    Suite *s = suite_create("tuning_file");
    TCase *tc = tcase_create("tuning_file");
    tcase_add_test(tc, roundtrip);
    tcase_add_test(tc, parse_lenient);
    tcase_add_test(tc, find_and_set);
    tcase_add_test(tc, bad_tile_lines);
    tcase_add_test(tc, bad_device_lines);
    tcase_add_test(tc, foreign_files);
    tcase_add_test(tc, other_versions);
    tcase_add_test(tc, read_cases);
    tcase_add_test(tc, write_cases);
    tcase_add_test(tc, default_path_env);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mjt_run(tuning_file_suite(), 1); /* forked: default_path_env changes the env */
}
