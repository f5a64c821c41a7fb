/*
 * test_digest.c - unit tests of support/digest.c: SHA-256 on the test
 * vectors of FIPS 180-4's examples (empty, "abc", a million 'a's, the
 * 448-bit message), the same digests fed in pieces of every split, and
 * HMAC-SHA-256 on RFC 4231's cases 1, 2 and 6 (a key longer than a block).
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../support/digest.h"

static void check_hex(const unsigned char d[SHA256_LEN], const char *want)
{
    char hex[2 * SHA256_LEN + 1];
    digest_hex(d, hex);
    assert_string_equal(hex, want);
}

static void vectors(void **state)
{
    (void)state;
    unsigned char d[SHA256_LEN];
    sha256("", 0, d);
    check_hex(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256("abc", 3, d);
    check_hex(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256(m448, strlen(m448), d);
    check_hex(d, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    sha256(a, 1000000, d);
    check_hex(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

/* Every split of a 130-byte message into two updates (across the block
 * boundaries and the padding's 56-byte mark) gives the one-call digest. */
static void pieces(void **state)
{
    (void)state;
    unsigned char msg[130], whole[SHA256_LEN], split[SHA256_LEN];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (unsigned char)(i * 7 + 3);
    for (size_t n = 0; n <= sizeof msg; n++) {
        sha256(msg, n, whole);
        for (size_t k = 0; k <= n; k++) {
            Sha256 s;
            sha256_init(&s);
            sha256_update(&s, msg, k);
            sha256_update(&s, msg + k, n - k);
            sha256_final(&s, split);
            assert_memory_equal(whole, split, SHA256_LEN);
        }
    }
}

static void hmac_case(const void *key, size_t kl, const char *msg, const char *want)
{
    Hmac256 h;
    unsigned char d[SHA256_LEN];
    hmac256_init(&h, key, kl);
    hmac256_update(&h, msg, strlen(msg));
    hmac256_final(&h, d);
    check_hex(d, want);
}

static void hmac(void **state)
{
    (void)state;
    unsigned char k1[20], k6[131];
    memset(k1, 0x0b, sizeof k1);
    memset(k6, 0xaa, sizeof k6);
    hmac_case(k1, sizeof k1, "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    hmac_case("Jefe", 4, "what do ya want for nothing?",
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    hmac_case(k6, sizeof k6, "Test Using Larger Than Block-Size Key - Hash Key First",
              "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    assert_int_equal(digest_differs("abcd", "abcd", 4), 0);
    assert_int_not_equal(digest_differs("abcd", "abce", 4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vectors),
        cmocka_unit_test(pieces),
        cmocka_unit_test(hmac),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
