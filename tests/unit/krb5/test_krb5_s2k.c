/* Unit tests of krb5_child_s2k.c, the AES string-to-key with OpenSSL: the n-fold vectors
 * of RFC 3961 appendix A.1, the key vectors of RFC 3962 appendix B and RFC 8009
 * appendix A, the same keys as libk5crypto's own krb5_c_string_to_key_with_params for
 * passwords, salts and counts of many shapes (every enctype), and refused arguments.
 * This program does not link krb5_child_s2k_hook.c: libkrb5 here is the real one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <krb5/krb5.h>

#include "providers/krb5/krb5_child_s2k.h"
#include "tests/unit/common/tc_common.h"

static size_t unhex(const char *hex, uint8_t *out, size_t max)
{
    size_t n = 0;
    unsigned int v;

    while (*hex != '\0') {
        if (*hex == ' ') {
            hex++;
            continue;
        }
        assert_true(n < max);
        assert_int_equal(sscanf(hex, "%2x", &v), 1);
        out[n++] = (uint8_t)v;
        hex += 2;
    }
    return n;
}

static void assert_hex(const uint8_t *got, size_t len, const char *hex)
{
    uint8_t want[64];

    assert_int_equal(unhex(hex, want, sizeof(want)), len);
    assert_memory_equal(got, want, len);
}

static void test_nfold(void **state)
{
    static const struct { const char *in; size_t bits; const char *out; } v[] = {
        { "012345", 64, "be072631276b1955" },
        { "password", 56, "78a07b6caf85fa" },
        { "Rough Consensus, and Running Code", 64, "bb6ed30870b7f0e0" },
        { "password", 168, "59e4a8ca7c0385c3c37b3f6d2000247cb6e6bd5b3e" },
        { "MASSACHVSETTS INSTITVTE OF TECHNOLOGY", 192,
          "db3b0d8f0b061e603282b308a50841229ad798fab9540c1b" },
        { "Q", 168, "518a54a215a8452a518a54a215a8452a518a54a215" },
        { "ba", 168, "fb25d531ae8974499f52fd92ea9857c4ba24cf297e" },
        { "kerberos", 64, "6b65726265726f73" },
        { "kerberos", 128, "6b65726265726f737b9b5b2b93132b93" },
        { "kerberos", 168, "8372c236344e5f1550cd0747e15d62ca7a5a3bcea4" },
        { "kerberos", 256, "6b65726265726f737b9b5b2b93132b935c9bdcdad95c9899c4cae4dee6d6cae4" },
    };
    uint8_t out[32];
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        k5s2k_nfold((const uint8_t *)v[i].in, strlen(v[i].in), out, v[i].bits / 8);
        assert_hex(out, v[i].bits / 8, v[i].out);
    }
}

struct s2k_vec {
    int32_t enctype;
    const char *pw;
    const char *salt;         /* hex when salt_hex */
    bool salt_hex;
    uint32_t iter;
    const char *key;
};

static void check_vec(const struct s2k_vec *v)
{
    uint8_t salt[128];
    uint8_t key[K5S2K_KEY_MAX];
    size_t salt_len;
    size_t len = k5s2k_key_len(v->enctype);

    if (v->salt_hex) {
        salt_len = unhex(v->salt, salt, sizeof(salt));
    } else {
        salt_len = strlen(v->salt);
        memcpy(salt, v->salt, salt_len);
    }
    assert_int_equal(k5s2k_derive(v->enctype, (const uint8_t *)v->pw, strlen(v->pw), salt,
                                  salt_len, v->iter, key, len), EOK);
    assert_hex(key, len, v->key);
}

static void test_rfc3962(void **state)
{
    static const char x64[] = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX";
    static const char x65[] = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX";
    const struct s2k_vec v[] = {
        { 17, "password", "ATHENA.MIT.EDUraeburn", false, 1,
          "42263c6e89f4fc28b8df68ee09799f15" },
        { 18, "password", "ATHENA.MIT.EDUraeburn", false, 1,
          "fe697b52bc0d3ce14432ba036a92e65bbb52280990a2fa27883998d72af30161" },
        { 17, "password", "ATHENA.MIT.EDUraeburn", false, 2,
          "c651bf29e2300ac27fa469d693bdda13" },
        { 18, "password", "ATHENA.MIT.EDUraeburn", false, 2,
          "a2e16d16b36069c135d5e9d2e25f896102685618b95914b467c67622225824ff" },
        { 17, "password", "ATHENA.MIT.EDUraeburn", false, 1200,
          "4c01cd46d632d01e6dbe230a01ed642a" },
        { 18, "password", "ATHENA.MIT.EDUraeburn", false, 1200,
          "55a6ac740ad17b4846941051e1e8b0a7548d93b0ab30a8bc3ff16280382b8c2a" },
        { 17, "password", "1234567878563412", true, 5,
          "e9b23d52273747dd5c35cb55be619d8e" },
        { 18, "password", "1234567878563412", true, 5,
          "97a4e786be20d81a382d5ebc96d5909cabcdadc87ca48f574504159f16c36e31" },
        { 17, x64, "pass phrase equals block size", false, 1200,
          "59d1bb789a828b1aa54ef9c2883f69ed" },
        { 18, x64, "pass phrase equals block size", false, 1200,
          "89adee3608db8bc71f1bfbfe459486b05618b70cbae22092534e56c553ba4b34" },
        { 17, x65, "pass phrase exceeds block size", false, 1200,
          "cb8005dc5f90179a7f02104c0018751d" },
        { 18, x65, "pass phrase exceeds block size", false, 1200,
          "d78c5c9cb872a8c9dad4697f0bb5b2d21496c82beb2caeda2112fceea057401b" },
        { 17, "\xf0\x9d\x84\x9e", "EXAMPLE.COMpianist", false, 50,
          "f149c1f2e154a73452d43e7fe62a56e5" },
        { 18, "\xf0\x9d\x84\x9e", "EXAMPLE.COMpianist", false, 50,
          "4b6d9839f84406df1f09cc166db4b83c571848b784a3d6bdc346589a3e393f9e" },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        check_vec(&v[i]);
    }
}

static void test_rfc8009(void **state)
{
    const struct s2k_vec v[] = {
        { 19, "password", "10DF9DD783E5BC8ACEA1730E74355F61" "41544845" "4e412e4d"
          "49542e45" "44557261" "65627572" "6e", true, 32768,
          "089bca48b105ea6ea77ca5d2f39dc5e7" },
        { 20, "password", "10DF9DD783E5BC8ACEA1730E74355F61" "41544845" "4e412e4d"
          "49542e45" "44557261" "65627572" "6e", true, 32768,
          "45bd806dbf6a833a9cffc1c94589a222367a79bc21c413718906e9f578a78467" },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        check_vec(&v[i]);
    }
}

/* The same key as libk5crypto for each enctype, over empty, long and binary passwords
 * and salts, default and odd counts. */
static void test_same_as_libk5crypto(void **state)
{
    static const int32_t enctypes[] = { 17, 18, 19, 20 };
    /* libk5crypto takes no count below the enctype's default. */
    static const uint32_t iters[] = { 0, 1, 4321, 40000 };
    krb5_context kctx = NULL;
    krb5_keyblock kb;
    krb5_data pw_d;
    krb5_data salt_d;
    krb5_data params_d;
    uint8_t pw[200];
    uint8_t salt[300];
    uint8_t params[4];
    uint8_t key[K5S2K_KEY_MAX];
    size_t pw_len;
    size_t salt_len;
    uint32_t iter;
    size_t e;
    size_t i;
    size_t k;

    (void)state;
    assert_int_equal(krb5_init_context(&kctx), 0);
    srandom(13);
    for (e = 0; e < sizeof(enctypes) / sizeof(enctypes[0]); e++) {
        for (i = 0; i < 12; i++) {
            pw_len = i == 0 ? 0 : (size_t)random() % sizeof(pw);
            salt_len = i == 1 ? 0 : (size_t)random() % sizeof(salt);
            for (k = 0; k < pw_len; k++) {
                pw[k] = (uint8_t)random();
            }
            for (k = 0; k < salt_len; k++) {
                salt[k] = (uint8_t)random();
            }
            iter = k5s2k_default_iter(enctypes[e]) + iters[i % 4];
            params[0] = 0;
            params[1] = (uint8_t)(iter >> 16);
            params[2] = (uint8_t)(iter >> 8);
            params[3] = (uint8_t)iter;
            pw_d.data = (char *)pw;
            pw_d.length = (unsigned int)pw_len;
            salt_d.data = (char *)salt;
            salt_d.length = (unsigned int)salt_len;
            params_d.data = (char *)params;
            params_d.length = 4;
            assert_int_equal(krb5_c_string_to_key_with_params(kctx, enctypes[e], &pw_d,
                                                              &salt_d, &params_d, &kb), 0);
            assert_int_equal(k5s2k_derive(enctypes[e], pw, pw_len, salt, salt_len,
                                          iter, key, k5s2k_key_len(enctypes[e])),
                             EOK);
            assert_int_equal(kb.length, k5s2k_key_len(enctypes[e]));
            assert_memory_equal(key, kb.contents, kb.length);
            krb5_free_keyblock_contents(kctx, &kb);
        }
        /* The default count: no s2kparams. */
        assert_int_equal(krb5_c_string_to_key_with_params(kctx, enctypes[e], &pw_d, &salt_d,
                                                          NULL, &kb), 0);
        assert_int_equal(k5s2k_derive(enctypes[e], pw, pw_len, salt, salt_len,
                                      k5s2k_default_iter(enctypes[e]), key,
                                      k5s2k_key_len(enctypes[e])), EOK);
        assert_memory_equal(key, kb.contents, kb.length);
        krb5_free_keyblock_contents(kctx, &kb);
    }
    krb5_free_context(kctx);
}

static void test_refused(void **state)
{
    uint8_t key[K5S2K_KEY_MAX];
    static uint8_t big[K5S2K_SALT_MAX + 1];

    (void)state;
    /* Not derived here: rc4-hmac (23), camellia (25, 26), des3 (16). */
    assert_int_equal(k5s2k_key_len(23), 0);
    assert_int_equal(k5s2k_key_len(25), 0);
    assert_int_equal(k5s2k_key_len(16), 0);
    assert_int_equal(k5s2k_derive(23, (const uint8_t *)"pw", 2, (const uint8_t *)"s", 1,
                                  4096, key, 16), EINVAL);
    /* A key length that is not the enctype's, a zero count, an oversized salt. */
    assert_int_equal(k5s2k_derive(18, (const uint8_t *)"pw", 2, (const uint8_t *)"s", 1,
                                  4096, key, 16), EINVAL);
    assert_int_equal(k5s2k_derive(17, (const uint8_t *)"pw", 2, (const uint8_t *)"s", 1,
                                  0, key, 16), EINVAL);
    assert_int_equal(k5s2k_derive(17, (const uint8_t *)"pw", 2, big, sizeof(big),
                                  1, key, 16), EINVAL);
    assert_int_equal(k5s2k_derive(17, NULL, 2, (const uint8_t *)"s", 1, 1, key, 16), EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nfold),
        cmocka_unit_test(test_rfc3962),
        cmocka_unit_test(test_rfc8009),
        cmocka_unit_test(test_same_as_libk5crypto),
        cmocka_unit_test(test_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
