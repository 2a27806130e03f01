/*
 * The string-to-key of the AES Kerberos enctypes (RFC 3962: aes128/256-cts-hmac-sha1-96;
 * RFC 8009: aes128-cts-hmac-sha256-128, aes256-cts-hmac-sha384-192) done with OpenSSL,
 * for krb5_child: Debian's libk5crypto runs its own PBKDF2, about twice as slow as
 * OpenSSL's, and the 4,096 (or 32,768) rounds are most of a login's CPU. No libkrb5 types
 * here: krb5_child_s2k_hook.c puts this under libkrb5.
 */
#ifndef SSS_KRB5_CHILD_S2K_H
#define SSS_KRB5_CHILD_S2K_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* The enctype numbers (RFC 3961 registry). */
#define K5S2K_AES128_SHA1       17
#define K5S2K_AES256_SHA1       18
#define K5S2K_AES128_SHA256     19
#define K5S2K_AES256_SHA384     20

#define K5S2K_KEY_MAX           32
#define K5S2K_SALT_MAX          4096    /* longer salts: left to libk5crypto */

/* The key length of an enctype derived here, 0 for any other enctype. */
size_t k5s2k_key_len(int32_t enctype);

/* The iteration count an enctype takes when the KDC gives no s2kparams. */
uint32_t k5s2k_default_iter(int32_t enctype);

/* The long-term key of enctype for password and salt (the KDC's salt: for RFC 8009 the
 * enctype name is prepended here) with iter PBKDF2 rounds, into key (k5s2k_key_len
 * bytes). EINVAL for an enctype not derived here or iter 0; EIO if OpenSSL fails. Every
 * intermediate is wiped. */
errno_t k5s2k_derive(int32_t enctype, const uint8_t *password, size_t pw_len,
                     const uint8_t *salt, size_t salt_len, uint32_t iter,
                     uint8_t *key, size_t key_len);

/* OpenSSL's first use in a process costs more than half a derivation (~1 ms: its
 * configuration, the default provider, fetching PBKDF2, SHA-1 and AES): done by a spare
 * krb5_child while it waits, so a login pays none of it. Holds no secret. */
void k5s2k_warm_up(void);

/* ---- krb5_child_s2k_hook.c: what the derivations were made from ------------------------ */

#define K5S2K_SEEN_SALT_MAX     512

/* The inputs of one AES derivation, the password aside: what the KDC's PA-ETYPE-INFO2
 * named (or what the caller gave libkrb5 as its salt). No secret. */
struct k5s2k_seen {
    int32_t enctype;            /* 0: none */
    uint32_t iter;
    size_t salt_len;
    uint8_t salt[K5S2K_SEEN_SALT_MAX];
};

/* The last AES derivation the hook made (enctype 0 after k5s2k_seen_reset, or when the
 * salt was too long to record): the key of a successful AS exchange comes from it. */
extern struct k5s2k_seen k5s2k_last;
void k5s2k_seen_reset(void);

/* While set, a derivation with exactly these inputs is refused (KRB5_PREAUTH_FAILED) and
 * k5s2k_refused is set: the retry after a failed optimistic pre-authentication uses it
 * so that a wrong password is not tried a second time with the same key. */
extern const struct k5s2k_seen *k5s2k_refuse;
extern bool k5s2k_refused;

/* RFC 3961 section 5.1: the n-fold of in into out (out_len bytes); for the tests. */
void k5s2k_nfold(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len);

#endif /* SSS_KRB5_CHILD_S2K_H */
