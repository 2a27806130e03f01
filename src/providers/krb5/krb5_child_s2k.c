/*
 * The AES string-to-key of Kerberos with OpenSSL (see krb5_child_s2k.h). The facts:
 *   RFC 3962 (aes*-cts-hmac-sha1-96): tkey = PBKDF2-HMAC-SHA1(password, salt, iter,
 *     keylen); key = DK(tkey, "kerberos"), DK per RFC 3961: the constant n-folded to
 *     one AES block, encrypted with tkey, each block encrypted again until keylen bytes.
 *     AES's random-to-key is the identity.
 *   RFC 8009 (aes128-cts-hmac-sha256-128, aes256-cts-hmac-sha384-192): the salt is
 *     "enctype-name" 0x00 salt; tkey = PBKDF2-HMAC-SHA256/384 of it; key =
 *     KDF-HMAC-SHA2(tkey, "kerberos", keylen): the first keylen bytes of
 *     HMAC(tkey, 00000001 | "kerberos" | 00 | keylen in bits, 32-bit big-endian).
 * Every intermediate is on the stack and wiped with OPENSSL_cleanse before returning.
 */
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "providers/krb5/krb5_child_s2k.h"

#define K5S2K_BLOCK 16
#define K5S2K_NFOLD_MAX 64

static const char K5S2K_CONSTANT[] = "kerberos";

size_t k5s2k_key_len(int32_t enctype)
{
    switch (enctype) {
    case K5S2K_AES128_SHA1:
    case K5S2K_AES128_SHA256:
        return 16;
    case K5S2K_AES256_SHA1:
    case K5S2K_AES256_SHA384:
        return 32;
    default:
        return 0;
    }
}

uint32_t k5s2k_default_iter(int32_t enctype)
{
    /* RFC 3962 section 4 and RFC 8009 section 4. */
    return enctype == K5S2K_AES128_SHA256 || enctype == K5S2K_AES256_SHA384 ? 32768 : 4096;
}

static size_t k5s2k_gcd(size_t a, size_t b)
{
    size_t t;

    while (b != 0) {
        t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static unsigned int k5s2k_bit(const uint8_t *buf, size_t n)
{
    return (buf[n / 8] >> (7 - n % 8)) & 1u;
}

void k5s2k_nfold(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
    unsigned int acc[K5S2K_NFOLD_MAX] = { 0 };
    size_t in_bits = in_len * 8;
    size_t lcm;
    size_t rot;
    size_t b;
    size_t j;
    unsigned int carry;
    unsigned int byte;

    assert(in_len > 0 && out_len > 0 && out_len <= K5S2K_NFOLD_MAX);
    lcm = in_len / k5s2k_gcd(in_len, out_len) * out_len;
    /* The input repeated to lcm bytes, copy c rotated right by 13 * c bits; each byte
     * summed into its column of the out_len-byte chunks. */
    for (j = 0; j < lcm; j++) {
        byte = 0;
        for (b = j * 8; b < j * 8 + 8; b++) {
            rot = (13 * (b / in_bits)) % in_bits;
            byte = (byte << 1) | k5s2k_bit(in, (b % in_bits + in_bits - rot) % in_bits);
        }
        acc[j % out_len] += byte;
    }
    /* The chunks' ones'-complement sum: carries propagate towards the first byte, and
     * the one out of it comes back in at the last. */
    do {
        carry = 0;
        for (j = out_len; j-- > 0; ) {
            acc[j] += carry;
            carry = acc[j] >> 8;
            acc[j] &= 0xff;
        }
        acc[out_len - 1] += carry;
    } while (carry != 0);
    for (j = 0; j < out_len; j++) {
        out[j] = (uint8_t)acc[j];
    }
}

/* RFC 3961's DK for AES: blocks of AES-ECB under tkey, the first of the n-folded
 * constant, each next one of the block before. */
static errno_t k5s2k_dk_aes(const uint8_t *tkey, size_t key_len, uint8_t *key)
{
    EVP_CIPHER_CTX *ctx = NULL;
    uint8_t block[K5S2K_BLOCK];
    size_t done;
    int n;
    errno_t ret = EIO;

    k5s2k_nfold((const uint8_t *)K5S2K_CONSTANT, sizeof(K5S2K_CONSTANT) - 1, block,
                sizeof(block));
    ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL
            || EVP_EncryptInit_ex(ctx, key_len == 16 ? EVP_aes_128_ecb() : EVP_aes_256_ecb(),
                                  NULL, tkey, NULL) != 1
            || EVP_CIPHER_CTX_set_padding(ctx, 0) != 1) {
        goto done;
    }
    for (done = 0; done < key_len; done += K5S2K_BLOCK) {
        if (EVP_EncryptUpdate(ctx, block, &n, block, K5S2K_BLOCK) != 1 || n != K5S2K_BLOCK) {
            goto done;
        }
        memcpy(key + done, block, K5S2K_BLOCK);
    }
    ret = EOK;
done:
    EVP_CIPHER_CTX_free(ctx);   /* cleanses the key schedule */
    OPENSSL_cleanse(block, sizeof(block));
    return ret;
}

/* RFC 8009's KDF-HMAC-SHA2(tkey, "kerberos", key_len * 8), one HMAC block. */
static errno_t k5s2k_kdf_sha2(const EVP_MD *md, const uint8_t *tkey, size_t key_len,
                              uint8_t *key)
{
    uint8_t msg[4 + sizeof(K5S2K_CONSTANT) + 4];
    uint8_t mac[EVP_MAX_MD_SIZE];
    unsigned int mac_len = 0;
    uint32_t bits = (uint32_t)key_len * 8;
    size_t off = 0;
    errno_t ret = EIO;

    msg[off++] = 0;
    msg[off++] = 0;
    msg[off++] = 0;
    msg[off++] = 1;
    memcpy(msg + off, K5S2K_CONSTANT, sizeof(K5S2K_CONSTANT));     /* with its 0x00 */
    off += sizeof(K5S2K_CONSTANT);
    msg[off++] = (uint8_t)(bits >> 24);
    msg[off++] = (uint8_t)(bits >> 16);
    msg[off++] = (uint8_t)(bits >> 8);
    msg[off++] = (uint8_t)bits;
    if (HMAC(md, tkey, (int)key_len, msg, off, mac, &mac_len) != NULL && mac_len >= key_len) {
        memcpy(key, mac, key_len);
        ret = EOK;
    }
    OPENSSL_cleanse(mac, sizeof(mac));
    return ret;
}

static const char *k5s2k_sha2_name(int32_t enctype)
{
    return enctype == K5S2K_AES128_SHA256 ? "aes128-cts-hmac-sha256-128"
                                          : "aes256-cts-hmac-sha384-192";
}

errno_t k5s2k_derive(int32_t enctype, const uint8_t *password, size_t pw_len,
                     const uint8_t *salt, size_t salt_len, uint32_t iter,
                     uint8_t *key, size_t key_len)
{
    uint8_t tkey[K5S2K_KEY_MAX];
    uint8_t saltp[K5S2K_SALT_MAX + 32];
    const uint8_t *s = salt;
    size_t s_len = salt_len;
    const char *name;
    const EVP_MD *md;
    bool sha2;
    errno_t ret;

    SSS_CHECK_ARG(password != NULL || pw_len == 0, EINVAL);
    SSS_CHECK_ARG(salt != NULL || salt_len == 0, EINVAL);
    SSS_CHECK_ARG(key != NULL && key_len == k5s2k_key_len(enctype) && key_len > 0, EINVAL);
    SSS_CHECK_ARG(iter > 0 && iter <= INT32_MAX && pw_len <= INT32_MAX, EINVAL);
    SSS_CHECK_ARG(salt_len <= K5S2K_SALT_MAX, EINVAL);

    sha2 = enctype == K5S2K_AES128_SHA256 || enctype == K5S2K_AES256_SHA384;
    if (sha2) {
        name = k5s2k_sha2_name(enctype);
        s_len = strlen(name) + 1;
        memcpy(saltp, name, s_len);
        if (salt_len > 0) {
            memcpy(saltp + s_len, salt, salt_len);
        }
        s_len += salt_len;
        s = saltp;
        md = enctype == K5S2K_AES128_SHA256 ? EVP_sha256() : EVP_sha384();
    } else {
        md = EVP_sha1();
    }
    /* PKCS5_PBKDF2_HMAC wants a non-NULL salt even when it is empty. */
    if (PKCS5_PBKDF2_HMAC((const char *)(password != NULL ? password : (const uint8_t *)""),
                          (int)pw_len, s != NULL ? s : (const uint8_t *)"", (int)s_len,
                          (int)iter, md, (int)key_len, tkey) != 1) {
        ret = EIO;
        goto done;
    }
    ret = sha2 ? k5s2k_kdf_sha2(md, tkey, key_len, key) : k5s2k_dk_aes(tkey, key_len, key);
done:
    OPENSSL_cleanse(tkey, sizeof(tkey));
    if (sha2) {
        OPENSSL_cleanse(saltp, s_len);
    }
    if (ret != EOK) {
        OPENSSL_cleanse(key, key_len);
    }
    return ret;
}

/* The SHA-1 enctypes only: MIT's default order and AD's put them first, and warming the
 * SHA-2 ones too would cost every spare ~0.5 ms more for the rare login that uses them
 * (which then pays it: ~0.3 ms). */
void k5s2k_warm_up(void)
{
    static const int32_t enctypes[] = { K5S2K_AES256_SHA1, K5S2K_AES128_SHA1 };
    uint8_t key[K5S2K_KEY_MAX];
    size_t i;

    for (i = 0; i < sizeof(enctypes) / sizeof(enctypes[0]); i++) {
        (void)k5s2k_derive(enctypes[i], (const uint8_t *)"", 0, (const uint8_t *)"", 0, 1,
                           key, k5s2k_key_len(enctypes[i]));
    }
    OPENSSL_cleanse(key, sizeof(key));
}
