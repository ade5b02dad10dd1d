/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing the tuning file's text (store/tuning_parse.h): what a person might write, every kind
 * of bad line, foreign files and other format versions. CPU only. */
#include <check.h>

#include "test_support.h"
#include "tuning_support.h"
#include "store/tuning_file.h"
#include "store/tuning_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

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

/* ---------------------------------------------------------------- lenient text */

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
    /* Version 2: the merge4 field (0, or 1 to 62 for mergesort), and no line without it. */
    static const char v2[] = "mergejit-tuning 2\ndevice 90 X\n"
                             "tile mergesort 4 0 256 23 512 1 24\ntile merge 4 0 256 23 256 1 0\n";
    char v2_err[512] = "";
    mj_tuning v2_t;
    ck_assert_msg(mj__tuning_parse(v2, sizeof v2 - 1, "/path/x", &v2_t, v2_err, sizeof v2_err) == 0,
                  "%s", v2_err);
    ck_assert_uint_eq(v2_t.count, 2);
    ck_assert_int_eq(mj__tuning_find(&v2_t, "X", 90, MJ_MERGESORT, 4, 0)->merge4_log2, 24);
    ck_assert_int_eq(mj__tuning_find(&v2_t, "X", 90, MJ_MERGE, 4, 0)->merge4_log2, 0);
    mj__tuning_free(&v2_t);
    static const struct {
        const char *line, *want;
    } v2_bad[] = {
        {"tile mergesort 4 0 256 23 512 1", "needs 8 fields"},
        {"tile mergesort 4 0 256 23 512 1 24 1", "needs 8 fields"},
        {"tile mergesort 4 0 256 23 512 1 63", "merge4_log2 63 is out of range (0, or 1 to 62)"},
        {"tile mergesort 4 0 256 23 512 1 -1", "merge4 '-1' is not a number"},
        {"tile merge 4 0 256 23 256 1 24", "merge4_log2 is for mergesort only"},
    };
    for (size_t i = 0; i < sizeof v2_bad / sizeof *v2_bad; i++) {
        char text[256];
        snprintf(text, sizeof text, "mergejit-tuning 2\ndevice 90 X\n%s\n", v2_bad[i].line);
        assert_bad(text, strlen(text), 3, v2_bad[i].want);
    }
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
                          "'mergejit-tuning 2')");
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
    ck_assert_int_eq(parse_str("mergejit-tuning 3\ndevice 90 X\nsomething new\n", &t, err,
                               sizeof err),
                     -1);
    ck_assert_str_eq(err, "/path/x is tuning format version 3; this library reads versions 1 to 2");
    ck_assert_ptr_null(t.entries);
    ck_assert_int_eq(parse_str("mergejit-tuning 0", &t, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "version 0;"));
    ck_assert_int_eq(parse_str("mergejit-tuning 99999999999999999999\r\n", &t, err, sizeof err),
                     -1);
    ck_assert_ptr_nonnull(strstr(err, "version 99999999999999999999;"));
    ck_assert_int_eq(parse_str("mergejit-tuning 001\n", &t, err, sizeof err), 0);
}
END_TEST

static Suite *tuning_parse_suite(void)
{
    Suite *s = suite_create("tuning_parse");
    TCase *tc = tcase_create("tuning_file");
    tcase_add_test(tc, parse_lenient);
    tcase_add_test(tc, bad_tile_lines);
    tcase_add_test(tc, bad_device_lines);
    tcase_add_test(tc, foreign_files);
    tcase_add_test(tc, other_versions);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mjt_run(tuning_parse_suite(), 1);
}
