/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel pack (store/kernel_pack.h), the payload of a module built as one program per
 * kernel: images round-trip with their names, aligned; a payload without the magic is one
 * image of every kernel (bundles of format version 1); damaged packs are refused; packing
 * refuses what unpacking would. CPU only. */
#include <check.h>

#include "base/file_io.h"
#include "store/kernel_pack.h"
#include "test_support.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *pack3(size_t *size)
{
    static const char a[] = "\177ELF image of the blocksort", b[] = "x", c[] = ".entry mj_merge(";
    const mj_kernel_image in[3] = {
        {"mj_blocksort", a, sizeof a - 1}, {"mj_partition", b, 1}, {"mj_merge", c, sizeof c}};
    void *out = NULL;
    char err[256] = "";
    ck_assert_msg(mj__pack_kernels(in, 3, &out, size, err, sizeof err) == 0, "%s", err);
    return out;
}

START_TEST(round_trip)
{
    size_t size = 0;
    uint8_t *p = pack3(&size);
    mj_kernel_image out[MJ_PACK_MAX];
    char err[256] = "";
    ck_assert_int_eq(mj__unpack_kernels(p, size, out, err, sizeof err), 3);
    ck_assert_str_eq(out[0].kernel, "mj_blocksort");
    ck_assert_str_eq(out[1].kernel, "mj_partition");
    ck_assert_str_eq(out[2].kernel, "mj_merge");
    ck_assert_uint_eq(out[0].size, 27);
    ck_assert_mem_eq(out[0].data, "\177ELF image of the blocksort", 27);
    ck_assert_uint_eq(out[1].size, 1);
    ck_assert_str_eq(out[2].data, ".entry mj_merge(");
    ck_assert_uint_eq(out[2].size, 17); /* PTX keeps its NUL */
    for (int i = 0; i < 3; ++i)
        ck_assert_uint_eq((size_t)((const uint8_t *)out[i].data - p) % 16, 0);
    /* The same images pack to the same bytes. */
    size_t size2 = 0;
    uint8_t *q = pack3(&size2);
    ck_assert_uint_eq(size, size2);
    ck_assert_mem_eq(p, q, size);
    free(q);
    free(p);
}
END_TEST

START_TEST(unpacked_payload_is_one_image)
{
    static const char cubin[] = "\177ELF\2\1\1";
    mj_kernel_image out[MJ_PACK_MAX];
    char err[256] = "";
    ck_assert_int_eq(mj__unpack_kernels(cubin, sizeof cubin, out, err, sizeof err), 1);
    ck_assert_ptr_null(out[0].kernel);
    ck_assert_ptr_eq(out[0].data, cubin);
    ck_assert_uint_eq(out[0].size, sizeof cubin);
    ck_assert_int_eq(mj__unpack_kernels("MJK", 3, out, err, sizeof err), 1);
}
END_TEST

/* Every header or record field damaged alone is refused with a message. */
START_TEST(damage_refused)
{
    size_t size = 0;
    uint8_t *p = pack3(&size);
    uint8_t *d = malloc(size);
    mj_kernel_image out[MJ_PACK_MAX];
    static const struct {
        size_t at;
        int width;
        uint64_t value;
    } cases[] = {
        {8, 4, 0},                  /* no images */
        {8, 4, MJ_PACK_MAX + 1},    /* too many */
        {8, 4, 1000000},            /* records past the end */
        {12, 4, 1},                 /* reserved field */
        {16, 1, 0},                 /* an empty name */
        {16 + 32, 8, 1u << 30},     /* offset past the end */
        {16 + 40, 8, 1u << 30},     /* size past the end */
        {16 + 32, 8, 8},            /* an image over the records */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        memcpy(d, p, size);
        if (cases[i].width == 1)
            d[cases[i].at] = (uint8_t)cases[i].value;
        else if (cases[i].width == 4)
            mj__put_le32(d + cases[i].at, (uint32_t)cases[i].value);
        else
            mj__put_le64(d + cases[i].at, cases[i].value);
        char err[256] = "";
        ck_assert_msg(mj__unpack_kernels(d, size, out, err, sizeof err) == -1, "case %zu", i);
        ck_assert_msg(strstr(err, "kernel pack") != NULL, "case %zu: %s", i, err);
    }
    /* A name without its NUL. */
    memcpy(d, p, size);
    memset(d + 16, 'a', 32);
    char err[256] = "";
    ck_assert_int_eq(mj__unpack_kernels(d, size, out, err, sizeof err), -1);
    /* Truncated inside the records. */
    ck_assert_int_eq(mj__unpack_kernels(p, 40, out, err, sizeof err), -1);
    free(d);
    free(p);
}
END_TEST

START_TEST(pack_refuses)
{
    char name[40];
    memset(name, 'k', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    mj_kernel_image in[MJ_PACK_MAX + 1];
    for (int i = 0; i <= MJ_PACK_MAX; ++i) in[i] = (mj_kernel_image){"k", "x", 1};
    void *out = (void *)1;
    size_t size = 7;
    char err[256] = "";
    ck_assert_int_eq(mj__pack_kernels(in, MJ_PACK_MAX + 1, &out, &size, err, sizeof err), -1);
    ck_assert_ptr_null(out);
    ck_assert_uint_eq(size, 0);
    ck_assert_int_eq(mj__pack_kernels(in, 0, &out, &size, err, sizeof err), -1);
    in[0].kernel = name;
    ck_assert_int_eq(mj__pack_kernels(in, 1, &out, &size, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "too long"));
    ck_assert_int_eq(mj__pack_kernels(in + 1, MJ_PACK_MAX, &out, &size, err, sizeof err), 0);
    free(out);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernel_pack");
    TCase *tc = tcase_create("pack");
    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, unpacked_payload_is_one_image);
    tcase_add_test(tc, damage_refused);
    tcase_add_test(tc, pack_refuses);
    suite_add_tcase(s, tc);
    return mjt_run(s, 1);
}
