/* SPDX-License-Identifier: Apache-2.0 */
/* Specs the code generator refuses (gen/gen.h), each with a message from both mj__spec_check
 * and mj__gen_source: tile sizes, key kinds and sizes, custom types and comparators, and the
 * comparators it accepts. CPU only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gen_support.h"
#include "test_support.h"

/* ---------------------------------------------------------------- invalid specs */

/* The spec is refused by both mj__spec_check and mj__gen_source, with a message. */
static void assert_rejected(const mj_kernel_spec *s, const char *why) {
    char err[512] = "";
    ck_assert_msg(mj__spec_check(s, err, sizeof err) == -1, "%s: accepted by mj__spec_check", why);
    ck_assert_msg(err[0] != '\0', "%s: no message from mj__spec_check", why);
    char *src = (char *)1;
    size_t len = 0;
    err[0] = '\0';
    ck_assert_msg(mj__gen_source(s, &src, &len, err, sizeof err) == -1,
                  "%s: accepted by mj__gen_source", why);
    ck_assert_msg(err[0] != '\0', "%s: no message from mj__gen_source", why);
    ck_assert_msg(src == NULL, "%s: *out is not NULL after a failure", why);
}

START_TEST(invalid_specs)
{
    mj_kernel_spec s, ok = builtin_spec(MJ_KEY_U32, 4);
    char err[512];
    ck_assert_msg(mj__spec_check(&ok, err, sizeof err) == 0, "base spec refused: %s", err);
    mj_kernel_spec cok = custom_spec();
    ck_assert_msg(mj__spec_check(&cok, err, sizeof err) == 0, "custom spec refused: %s", err);

    static const int bad_nt[] = {0, -256, 1, 16, 31, 48, 96, 100, 255, 257, 2048, 4096};
    for (size_t i = 0; i < sizeof bad_nt / sizeof *bad_nt; ++i) {
        s = ok;
        s.nt = bad_nt[i];
        char why[64];
        snprintf(why, sizeof why, "NT %d", bad_nt[i]);
        assert_rejected(&s, why);
    }
    static const int good_nt[] = {32, 64, 128, 256, 512, 1024};
    for (size_t i = 0; i < sizeof good_nt / sizeof *good_nt; ++i) {
        s = ok;
        s.nt = good_nt[i];
        s.vt = 5;
        ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "NT %d refused: %s", s.nt, err);
    }

    /* Blocksort threads: 0 (= NT) or NT times a power of two, up to 1024. */
    static const int bad_bs[] = {-256, 1, 128, 384, 2048};
    for (size_t i = 0; i < sizeof bad_bs / sizeof *bad_bs; ++i) {
        s = ok;
        s.bs_nt = bad_bs[i];
        char why[64];
        snprintf(why, sizeof why, "blocksort NT %d with NT 256", bad_bs[i]);
        assert_rejected(&s, why);
    }
    static const int good_bs[] = {0, 256, 512, 1024};
    for (size_t i = 0; i < sizeof good_bs / sizeof *good_bs; ++i) {
        s = ok;
        s.bs_nt = good_bs[i];
        s.vt = 5;
        ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "blocksort NT %d refused: %s",
                      s.bs_nt, err);
    }
    /* Tiles over static shared memory are refused before NVRTC sees them. */
    s = ok;
    s.bs_nt = 1024;
    s.vt = 7; /* 7168 keys + 7168 positions: 57 KB */
    assert_rejected(&s, "blocksort 1024 x 7 with 4-byte values");
    mj__spec_check(&s, err, sizeof err);
    ck_assert_msg(strstr(err, "shared memory") != NULL, "unclear message: %s", err);
    s.value_size = 0; /* keys alone: 28 KB */
    ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "1024 x 7 keys refused: %s", err);

    s = ok;
    s.vt = 0;
    assert_rejected(&s, "VT 0");
    s.vt = -3;
    assert_rejected(&s, "VT -3");
    s.vt = MJ_MAX_VT + 1;
    assert_rejected(&s, "VT MJ_MAX_VT + 1");
    s.vt = MJ_MAX_VT;
    s.nt = 64; /* so that the tile fits in shared memory */
    ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "VT MJ_MAX_VT refused: %s", err);
    s.vt = 1;
    ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "VT 1 refused: %s", err);

    s = ok;
    s.value_size = MJ_MAX_VALUE_SIZE + 1;
    ck_assert_int_eq(s.value_size, 65);
    assert_rejected(&s, "value size 65");
    s.value_size = MJ_MAX_VALUE_SIZE;
    ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "value size 64 refused: %s", err);

    s = ok;
    s.key = MJ_KEY_KIND_COUNT;
    assert_rejected(&s, "key kind MJ_KEY_KIND_COUNT");
    s.key = (mj_key_kind)-1;
    assert_rejected(&s, "key kind -1");
    s.key = (mj_key_kind)1000;
    assert_rejected(&s, "key kind 1000");

    s = ok;
    s.order = (mj_order)7;
    assert_rejected(&s, "order 7");

    s = cok;
    s.type_name = NULL;
    assert_rejected(&s, "custom without type_name");
    s.type_name = "";
    assert_rejected(&s, "custom with an empty type_name");
    s.type_name = "1abc";
    assert_rejected(&s, "custom with type_name 1abc");
    s = cok;
    s.type_source = NULL;
    assert_rejected(&s, "custom without type_source");
    s = cok;
    s.less = NULL;
    assert_rejected(&s, "custom without less");
    s = cok;
    s.type_size = 12;
    s.type_align = 8;
    assert_rejected(&s, "type_size 12, align 8");
    s.type_size = 20;
    s.type_align = 16;
    assert_rejected(&s, "type_size 20, align 16");
    s.type_size = 0;
    s.type_align = 8;
    assert_rejected(&s, "type_size 0");
    s.type_size = 16;
    s.type_align = 0;
    assert_rejected(&s, "type_align 0");
    s.type_size = 12;
    s.type_align = 3;
    assert_rejected(&s, "type_align 3");
    s.type_size = 12;
    s.type_align = 4;
    ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "size 12 align 4 refused: %s", err);

    static const char *const bad_less[] = {
        "a < b; }", "a < b;",       "#define X",     "a < b # c",  "(a < b",  "a < b)",
        "a[0 < b)", "(a < b]",      "{a < b",        "a < b}",     ")(",      "",
        "   ",      "\n\t ",        "a < b) || (a", "a < b /*",   "a < b // x", "a < \\\nb",
        "a < b \")\"",
    };
    for (size_t i = 0; i < sizeof bad_less / sizeof *bad_less; ++i) {
        char why[96];
        snprintf(why, sizeof why, "comparator '%s'", bad_less[i]);
        s = ok;
        s.less = bad_less[i];
        assert_rejected(&s, why);
        s = cok;
        s.less = bad_less[i];
        assert_rejected(&s, why);
    }
    static const char *const good_less[] = {"a < b", "(a) < (b)", "a[0] < b[0]",
                                            "((a & 0xff) < (b & 0xff))", "a / 2 < b / 2",
                                            "a.c < 'x'"};
    for (size_t i = 0; i < sizeof good_less / sizeof *good_less; ++i) {
        s = ok;
        s.less = good_less[i];
        ck_assert_msg(mj__spec_check(&s, err, sizeof err) == 0, "'%s' refused: %s",
                      good_less[i], err);
    }
}
END_TEST

static Suite *gen_invalid_suite(void) {
    Suite *s = suite_create("gen_invalid");
    TCase *tci = tcase_create("invalid");
    tcase_add_test(tci, invalid_specs);
    suite_add_tcase(s, tci);
    return s;
}

int main(void) { return mjt_run(gen_invalid_suite(), 1); }
