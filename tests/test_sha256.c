/* SPDX-License-Identifier: Apache-2.0 */
/* SHA-256 (base/sha256.h), which names every cache entry: the standard vectors, a million 'a's
 * fed in uneven chunks, and the hex digits. CPU only. */
#include <check.h>

#include "base/sha256.h"
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static Suite *sha256_suite(void)
{
    Suite *s = suite_create("sha256");
    TCase *sha = tcase_create("sha256");
    tcase_add_test(sha, sha256_vectors);
    tcase_add_test(sha, sha256_million_a);
    tcase_add_test(sha, sha256_hex_digits);
    suite_add_tcase(s, sha);
    return s;
}

int main(void)
{
    return mjt_run(sha256_suite(), 1);
}
