/* SPDX-License-Identifier: Apache-2.0 */
/* Names of statuses and key kinds, their parsing and sizes, the version, and the defaults of
 * mj_sort_desc_init. CPU only. */
#include <string.h>

#include "test_support.h"

/* ---------------------------------------------------------------- names */

START_TEST(names)
{
    const char *names[MJ_ERR_TIMEOUT + 1];
    for (int s = MJ_OK; s <= MJ_ERR_TIMEOUT; ++s) {
        names[s] = mj_status_name((mj_status)s);
        ck_assert_ptr_nonnull(names[s]);
        ck_assert_msg(strncmp(names[s], "MJ_", 3) == 0, "status %d: %s", s, names[s]);
        for (int t = 0; t < s; ++t)
            ck_assert_msg(strcmp(names[s], names[t]) != 0, "statuses %d and %d share %s", t, s,
                          names[s]);
    }
    ck_assert_str_eq(mj_status_name(MJ_OK), "MJ_OK");
    ck_assert_str_eq(mj_status_name(MJ_ERR_COMPILE), "MJ_ERR_COMPILE");
    ck_assert_str_eq(mj_status_name(MJ_ERR_TIMEOUT), "MJ_ERR_TIMEOUT");
    ck_assert_ptr_nonnull(mj_status_name((mj_status)99));

    static const size_t sizes[MJ_KEY_KIND_COUNT] = {
        [MJ_KEY_U8] = 1,  [MJ_KEY_I8] = 1,  [MJ_KEY_U16] = 2,  [MJ_KEY_I16] = 2,
        [MJ_KEY_U32] = 4, [MJ_KEY_I32] = 4, [MJ_KEY_U64] = 8,  [MJ_KEY_I64] = 8,
        [MJ_KEY_F16] = 2, [MJ_KEY_BF16] = 2, [MJ_KEY_F32] = 4, [MJ_KEY_F64] = 8,
        [MJ_KEY_CUSTOM] = 0,
    };
    for (int k = 0; k < MJ_KEY_KIND_COUNT; ++k) {
        const char *name = mj_key_kind_name((mj_key_kind)k);
        ck_assert_ptr_nonnull(name);
        ck_assert_int_eq(mj_key_kind_parse(name), k);
        ck_assert_msg(mj_key_kind_size((mj_key_kind)k) == sizes[k], "%s: size %zu", name,
                      mj_key_kind_size((mj_key_kind)k));
        for (int j = 0; j < k; ++j) ck_assert_str_ne(name, mj_key_kind_name((mj_key_kind)j));
    }
    ck_assert_str_eq(mj_key_kind_name(MJ_KEY_U32), "u32");
    ck_assert_str_eq(mj_key_kind_name(MJ_KEY_BF16), "bf16");
    ck_assert_ptr_null(mj_key_kind_name(MJ_KEY_KIND_COUNT));
    ck_assert_int_eq(mj_key_kind_parse("u128"), MJ_KEY_KIND_COUNT);
    ck_assert_int_eq(mj_key_kind_parse("U32"), MJ_KEY_KIND_COUNT);
    ck_assert_int_eq(mj_key_kind_parse(""), MJ_KEY_KIND_COUNT);
    ck_assert_int_eq(mj_key_kind_parse(NULL), MJ_KEY_KIND_COUNT);
    ck_assert_uint_eq(mj_key_kind_size(MJ_KEY_KIND_COUNT), 0);

    ck_assert_str_eq(mj_version(), MJ_VERSION_STRING);
    mj_sort_desc d;
    memset(&d, 0x55, sizeof d);
    mj_sort_desc_init(&d, MJ_KEY_F64, MJ_DESCENDING);
    ck_assert_int_eq(d.key, MJ_KEY_F64);
    ck_assert_int_eq(d.order, MJ_DESCENDING);
    ck_assert_ptr_null(d.less);
    ck_assert_ptr_null(d.type_name);
    ck_assert_uint_eq(d.value_size, 0);
}
END_TEST

static Suite *names_suite(void) {
    Suite *s = suite_create("names");
    TCase *tc = tcase_create("context");
    tcase_add_test(tc, names);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(names_suite(), 1); }
