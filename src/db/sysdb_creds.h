/*
 * sysdb_creds: cached credentials, for offline authentication. After a successful online
 * authentication the back-end (the cache's only writer) stores a salted, slow libcrypt hash
 * of the password on the user's entry, with the time; while the domain is offline it checks
 * a password against that hash. SSSD's rules (sysdb_cache_auth in SSSD 2.8):
 *   - offline_credentials_expiration (days): the hash is accepted until the last online
 *     authentication + that many days; 0 = forever.
 *   - every wrong offline password is counted with its time; after
 *     offline_failed_login_attempts of them, the user waits offline_failed_login_delay
 *     minutes from the last failure (during the wait even the right password is refused;
 *     once it is over the count starts again from 0). A delay of 0 refuses the user until
 *     the next successful online authentication. 0 attempts = no limit.
 *   - a successful online authentication stores a new hash and resets the count; a
 *     successful offline one resets the count.
 *
 * The hash: yescrypt ("$y$", libxcrypt's crypt_gensalt_rn + crypt_rn, cost
 * SYSDB_CREDS_YESCRYPT_COST, a 128-bit random salt from the kernel). Checks accept any hash
 * libcrypt knows how to verify except the weak, unsalted or fast ones (DES, MD5, NT...):
 * crypt_checksalt() must call the method CRYPT_SALT_OK. The comparison runs in constant
 * time, and every copy of the password and of the hashes this module makes is wiped
 * (explicit_bzero) before it returns. The password never reaches a log.
 *
 * Stored on the user entry, so deleting the user (or another user taking its uid) removes
 * the hash; storing the user again or sss_cache keep it.
 *
 * Passwords are bytes (no NUL inside: libcrypt takes C strings), at most
 * SYSDB_CREDS_PASSWORD_MAX bytes: longer ones are never cached, hence never match.
 *
 * Errors common to both functions: EINVAL (bad arguments), ENOENT (the user is not cached),
 * ENOMEM, EIO (ldb failure or a malformed stored value), ERR_INTERNAL (libcrypt failed).
 */
#ifndef SSS_SYSDB_CREDS_H
#define SSS_SYSDB_CREDS_H

#include <stdint.h>
#include <stddef.h>
#include <time.h>

#include "db/sysdb.h"

/* yescrypt cost (libxcrypt's count: 1..11; memory and time double with each step).
 * Measured on the project's 2-core VM (bench_sysdb_creds, p50 of one hash): cost 1 1.1 ms,
 * 2 2.2 ms, 3 4.4 ms, 4 8.8 ms, 5 (libxcrypt's default) 17.9 ms; SHA-512 ($6$) 5,000 rounds
 * 1.4-1.9 ms, 10,000 2.7-3.8 ms. Cost 2 keeps a whole sysdb_creds_check() at 2.1 ms p50
 * (well under the 5 ms offline login target) while every guess stays memory-hard (yescrypt
 * fills a large table per guess), which SHA-512's rounds are not. */
#define SYSDB_CREDS_YESCRYPT_COST 2

/* Longest password cached (libcrypt takes CRYPT_MAX_PASSPHRASE_SIZE bytes with the NUL). */
#define SYSDB_CREDS_PASSWORD_MAX 511

struct sysdb_creds_policy {
    uint32_t expiration_days;    /* offline_credentials_expiration, 0 = never expire */
    uint32_t failed_attempts;    /* offline_failed_login_attempts, 0 = no limit */
    uint32_t failed_delay_min;   /* offline_failed_login_delay (minutes) */
    uint32_t min_len;            /* cache_credentials_minimal_first_factor_length: shorter
                                  * passwords are not cached */
};

/*
 * After a successful ONLINE authentication of name (short or internal form): stores a new
 * salted hash of the password, now as the last online authentication, and resets the
 * failed-attempt count. A password that cannot be cached (shorter than pol->min_len,
 * longer than SYSDB_CREDS_PASSWORD_MAX, or holding a NUL byte) is not cached and an older
 * hash is removed (the time and the reset are still stored): EOK.
 * Errors: EINVAL (also an empty password), ENOENT, ENOMEM, EIO, ERR_INTERNAL.
 */
errno_t sysdb_creds_save(struct sysdb_ctx *sysdb, const char *name,
                         const uint8_t *password, size_t len,
                         const struct sysdb_creds_policy *pol, time_t now);

/*
 * sysdb_creds_save() in two halves, so that the slow half can run off the event loop:
 *
 * sysdb_creds_hash() makes the salted hash of a password into hash (NUL-terminated), or
 * an empty string when the password cannot be cached (the rules of sysdb_creds_save). It
 * touches no cache, allocates nothing (no talloc) and keeps no state: it may run in any
 * thread. Its own copies of the password are wiped before it returns; the caller wipes
 * hash. Errors: EINVAL (also an empty password), ERR_INTERNAL (libcrypt failed).
 *
 * sysdb_creds_store() then stores that result as sysdb_creds_save() does (hash "" removes
 * an older one), now as the last online authentication, and resets the failed count. It
 * runs where the cache is written (the back-end's loop). Errors: EINVAL, ENOENT, ENOMEM,
 * EIO.
 */
#define SYSDB_CREDS_HASH_SIZE 384   /* libcrypt's CRYPT_OUTPUT_SIZE */
errno_t sysdb_creds_hash(const uint8_t *password, size_t len, uint32_t min_len,
                         char hash[SYSDB_CREDS_HASH_SIZE]);
errno_t sysdb_creds_store(struct sysdb_ctx *sysdb, const char *name, const char *hash,
                          time_t now);

/*
 * OFFLINE authentication of name at now.
 *   EOK                       the password matches: *_expires = when the cached hash stops
 *                             being accepted (0 = never); the failed count is reset.
 *   ERR_AUTH_FAILED           wrong (or empty, or uncacheable) password: counted, with now
 *                             as the last failure.
 *   ERR_NO_CACHED_CREDS       no hash is cached for the user.
 *   ERR_CACHED_CREDS_EXPIRED  the hash is older than pol->expiration_days.
 *   ERR_AUTH_DELAYED          too many failures: *_delayed_until = when the user may try
 *                             again (0: not before an online authentication, delay 0);
 *                             nothing is counted.
 * _expires and _delayed_until may be NULL; each is set only with its own result.
 * Also ENOENT, EINVAL, ENOMEM, EIO, ERR_INTERNAL (then nothing is known to match).
 */
errno_t sysdb_creds_check(struct sysdb_ctx *sysdb, const char *name,
                          const uint8_t *password, size_t len,
                          const struct sysdb_creds_policy *pol, time_t now,
                          time_t *_expires, time_t *_delayed_until);

/*
 * The last access verdict reached online for a user (access_provider = ldap: the PAM status
 * of ldap_access_order), kept on the user entry so that it still decides after a restart
 * while the domain is offline, as SSSD keeps ldap_access_filter's last result in its
 * cache. Gone with the user entry.
 * set: Errors EINVAL, ENOENT (the user is not cached), ENOMEM, EIO.
 * get: *_known false when none is stored. Errors EINVAL, ENOENT, ENOMEM, EIO (malformed).
 */
errno_t sysdb_creds_set_access(struct sysdb_ctx *sysdb, const char *name, uint32_t status);
errno_t sysdb_creds_get_access(struct sysdb_ctx *sysdb, const char *name, bool *_known,
                               uint32_t *_status);

#endif /* SSS_SYSDB_CREDS_H */
