/*
 * sysdb_creds: cached credentials (see sysdb_creds.h for the rules). Four attributes on the
 * user entry: the libcrypt hash, the time of the last online authentication, the count of
 * failed offline attempts and the time of the last one. A check reads them without a
 * transaction (the back-end is the only writer, and runs one request at a time), computes
 * the hash outside any transaction (a few ms), and writes only when something changed: a
 * failure to count, or a count to reset. A right password with nothing to reset costs one
 * read and one hash, no commit.
 */
#include "config.h"

#include <crypt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "db/sysdb_private.h"
#include "db/sysdb_creds.h"

#define SYSDB_A_PW_HASH "pwHash"          /* libcrypt hash ($y$...) */
#define SYSDB_A_PW_ONLINE "pwOnline"      /* last successful online authentication */
#define SYSDB_A_PW_FAILED "pwFailed"      /* failed offline attempts since */
#define SYSDB_A_PW_FAILED_AT "pwFailedAt" /* the last failed offline attempt */
#define SYSDB_A_ACCESS "pamAccessStatus"  /* the last online access verdict (PAM status) */

/* Stored times are bounded so that time + days or minutes never overflows. */
#define SYSDB_CREDS_TIME_MAX ((uint64_t)INT64_MAX / 4)

static const char *const sysdb_creds_attrs[] = {
    SYSDB_A_PW_HASH, SYSDB_A_PW_ONLINE, SYSDB_A_PW_FAILED, SYSDB_A_PW_FAILED_AT, NULL
};

/* Libcrypt state, with the phrase as a C string: both wiped by sysdb_creds_wipe(). */
struct sysdb_creds_buf {
    struct crypt_data cd;
    char phrase[SYSDB_CREDS_PASSWORD_MAX + 1];
    char setting[CRYPT_GENSALT_OUTPUT_SIZE];
};

static int sysdb_creds_wipe(struct sysdb_creds_buf *buf)
{
    explicit_bzero(buf, sizeof(*buf));
    return 0;
}

/* A zeroed buffer on mem_ctx, wiped when freed (also on an error path). */
static struct sysdb_creds_buf *sysdb_creds_buf_new(TALLOC_CTX *mem_ctx)
{
    struct sysdb_creds_buf *buf;

    buf = talloc_zero(mem_ctx, struct sysdb_creds_buf);
    if (buf != NULL) {
        talloc_set_destructor(buf, sysdb_creds_wipe);
    }
    return buf;
}

/* Copies a cacheable password into buf->phrase; false when it cannot be cached (and so
 * can never match): empty, too long, or holding a NUL byte. */
static bool sysdb_creds_phrase(struct sysdb_creds_buf *buf, const uint8_t *password,
                               size_t len)
{
    if (len == 0 || len > SYSDB_CREDS_PASSWORD_MAX || memchr(password, '\0', len) != NULL) {
        return false;
    }
    memcpy(buf->phrase, password, len);
    buf->phrase[len] = '\0';
    return true;
}

/* Equality of two n-byte strings in time independent of where they differ. */
static bool sysdb_creds_equal(const char *a, const char *b, size_t n)
{
    volatile unsigned char diff = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        diff |= (unsigned char)(a[i] ^ b[i]);
    }
    return diff == 0;
}

/* The entry's creds attributes. ENOENT: no such user. */
static errno_t sysdb_creds_read(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                const char *name, struct ldb_message **_msg)
{
    struct ldb_dn *dn;
    errno_t ret;

    ret = sysdb_name_dn(mem_ctx, sysdb, SYSDB_KIND_USER, name, &dn);
    if (ret != EOK) {
        return ret;
    }
    return sysdb_read_entry(mem_ctx, sysdb, dn, sysdb_creds_attrs, _msg);
}

/* An optional number attribute (missing: 0). EIO when malformed or over max. */
static errno_t sysdb_creds_num(const struct ldb_message *msg, const char *attr, uint64_t max,
                               uint64_t *_num)
{
    if (ldb_msg_find_element(msg, attr) == NULL) {
        *_num = 0;
        return EOK;
    }
    return sysdb_msg_num(msg, attr, max, _num);
}

/* Writes msg (REPLACE elements) onto the existing user entry, in a transaction. */
static errno_t sysdb_creds_write(struct sysdb_ctx *sysdb, struct ldb_message *msg)
{
    errno_t ret;

    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_write_entry(sysdb, msg, SYSDB_EXISTS_YES);
    return sysdb_transaction_end(sysdb, ret);
}

/* A new modify message for the entry read. */
static struct ldb_message *sysdb_creds_msg(TALLOC_CTX *mem_ctx, struct ldb_message *read)
{
    struct ldb_message *msg;

    msg = ldb_msg_new(mem_ctx);
    if (msg != NULL) {
        msg->dn = read->dn;
    }
    return msg;
}

_Static_assert(SYSDB_CREDS_HASH_SIZE == CRYPT_OUTPUT_SIZE, "libcrypt's output size");

errno_t sysdb_creds_hash(const uint8_t *password, size_t len, uint32_t min_len,
                         char hash[SYSDB_CREDS_HASH_SIZE])
{
    /* On the stack, not talloc: this may run in a worker thread. */
    struct sysdb_creds_buf buf;
    const char *out;
    errno_t ret;

    SSS_CHECK_ARG(password != NULL && len > 0 && hash != NULL, EINVAL);

    hash[0] = '\0';
    memset(&buf, 0, sizeof(buf));
    if (len < min_len || !sysdb_creds_phrase(&buf, password, len)) {
        ret = EOK;      /* not cacheable: "" */
        goto done;
    }
    /* NULL random bytes: libxcrypt takes the salt from getentropy(). */
    if (crypt_gensalt_rn("$y$", SYSDB_CREDS_YESCRYPT_COST, NULL, 0, buf.setting,
                         sizeof(buf.setting)) == NULL) {
        ret = ERR_INTERNAL;
        goto done;
    }
    out = crypt_rn(buf.phrase, buf.setting, &buf.cd, sizeof(buf.cd));
    if (out == NULL || out[0] == '*' || strlen(out) >= SYSDB_CREDS_HASH_SIZE) {
        ret = ERR_INTERNAL;
        goto done;
    }
    memcpy(hash, out, strlen(out) + 1);
    ret = EOK;

done:
    sysdb_creds_wipe(&buf);
    return ret;
}

errno_t sysdb_creds_store(struct sysdb_ctx *sysdb, const char *name, const char *hash,
                          time_t now)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    struct ldb_message_element *el;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && name != NULL && hash != NULL, EINVAL);
    SSS_CHECK_ARG(now >= 0 && (uint64_t)now <= SYSDB_CREDS_TIME_MAX, EINVAL);
    /* Only hashes libcrypt calls strong: a caller's mistake must not store a weak one. */
    SSS_CHECK_ARG(hash[0] == '\0' || crypt_checksalt(hash) == CRYPT_SALT_OK, EINVAL);

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    msg = ldb_msg_new(tmp_ctx);
    if (msg == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sysdb_name_dn(msg, sysdb, SYSDB_KIND_USER, name, &msg->dn);
    if (ret != EOK) {
        goto done;
    }
    /* "" (not cacheable) removes an older hash. */
    ret = sysdb_msg_set_str(msg, SYSDB_A_PW_HASH, hash[0] == '\0' ? NULL : hash);
    if (ret == EOK) {
        ret = sysdb_msg_set_num(msg, SYSDB_A_PW_ONLINE, (uint64_t)now);
    }
    if (ret == EOK) {
        ret = sysdb_msg_set_num(msg, SYSDB_A_PW_FAILED, 0);
    }
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_creds_write(sysdb, msg);
    if (ret == ENOENT) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot cache the password of %s: the user is not cached\n",
              name);
    }

done:
    /* The message's copy of the hash is wiped before it is freed. */
    el = msg != NULL ? ldb_msg_find_element(msg, SYSDB_A_PW_HASH) : NULL;
    for (unsigned i = 0; el != NULL && i < el->num_values; i++) {
        explicit_bzero(el->values[i].data, el->values[i].length);
    }
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_creds_save(struct sysdb_ctx *sysdb, const char *name,
                         const uint8_t *password, size_t len,
                         const struct sysdb_creds_policy *pol, time_t now)
{
    char hash[SYSDB_CREDS_HASH_SIZE];
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && name != NULL && pol != NULL, EINVAL);
    SSS_CHECK_ARG(password != NULL && len > 0, EINVAL);
    SSS_CHECK_ARG(now >= 0 && (uint64_t)now <= SYSDB_CREDS_TIME_MAX, EINVAL);

    ret = sysdb_creds_hash(password, len, pol->min_len, hash);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Hashing the password of %s failed: %s\n", name,
              sss_strerror(ret));
        goto done;
    }
    if (hash[0] == '\0') {
        DEBUG(SSSDBG_TRACE_FUNC, "Password of %s not cached (length %zu, minimum %" PRIu32
              ", maximum %d, or a NUL byte); any older hash removed\n",
              name, len, pol->min_len, SYSDB_CREDS_PASSWORD_MAX);
    }
    ret = sysdb_creds_store(sysdb, name, hash, now);

done:
    explicit_bzero(hash, sizeof(hash));
    return ret;
}

/* Does password hash to the stored hash? EOK, ERR_AUTH_FAILED, ERR_NO_CACHED_CREDS (a
 * stored method libcrypt calls weak or unknown: never trusted), ERR_INTERNAL. */
static errno_t sysdb_creds_verify(struct sysdb_creds_buf *buf, const char *name,
                                  const uint8_t *password, size_t len, const char *stored)
{
    const char *out;
    size_t stored_len = strlen(stored);

    if (crypt_checksalt(stored) != CRYPT_SALT_OK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cached hash of %s uses a weak or unknown method: "
              "ignored\n", name);
        return ERR_NO_CACHED_CREDS;
    }
    if (!sysdb_creds_phrase(buf, password, len)) {
        return ERR_AUTH_FAILED;
    }
    out = crypt_rn(buf->phrase, stored, &buf->cd, sizeof(buf->cd));
    if (out == NULL || out[0] == '*') {
        DEBUG(SSSDBG_CRIT_FAILURE, "crypt_rn failed on the cached hash of %s: %d\n",
              name, errno);
        return ERR_INTERNAL;
    }
    if (strlen(out) != stored_len || !sysdb_creds_equal(out, stored, stored_len)) {
        return ERR_AUTH_FAILED;
    }
    return EOK;
}

/* The delay rule, before any hashing. EOK: the user may try (*_failed: the count to build
 * on, reset to 0 when a past delay is over); ERR_AUTH_DELAYED with *_until. */
static errno_t sysdb_creds_delay(const struct sysdb_creds_policy *pol, time_t now,
                                 uint64_t failed, uint64_t failed_at,
                                 uint64_t *_failed, time_t *_until)
{
    uint64_t end;

    *_failed = failed;
    if (pol->failed_attempts == 0 || failed < pol->failed_attempts) {
        return EOK;
    }
    if (pol->failed_delay_min == 0) {
        *_until = 0;
        return ERR_AUTH_DELAYED;
    }
    end = failed_at + (uint64_t)pol->failed_delay_min * 60;
    if (end < (uint64_t)now) {
        *_failed = 0;
        return EOK;
    }
    *_until = (time_t)end;
    return ERR_AUTH_DELAYED;
}

errno_t sysdb_creds_check(struct sysdb_ctx *sysdb, const char *name,
                          const uint8_t *password, size_t len,
                          const struct sysdb_creds_policy *pol, time_t now,
                          time_t *_expires, time_t *_delayed_until)
{
    TALLOC_CTX *tmp_ctx;
    struct sysdb_creds_buf *buf;
    struct ldb_message *read;
    struct ldb_message *msg;
    struct ldb_message_element *el;
    const char *stored;
    uint64_t online;
    uint64_t failed;
    uint64_t failed_at;
    uint64_t count;
    time_t expires = 0;
    time_t until = 0;
    errno_t ret;
    errno_t result;

    SSS_CHECK_ARG(sysdb != NULL && name != NULL && pol != NULL, EINVAL);
    SSS_CHECK_ARG(password != NULL || len == 0, EINVAL);
    SSS_CHECK_ARG(now >= 0 && (uint64_t)now <= SYSDB_CREDS_TIME_MAX, EINVAL);

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    buf = sysdb_creds_buf_new(tmp_ctx);
    if (buf == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sysdb_creds_read(tmp_ctx, sysdb, name, &read);
    if (ret != EOK) {
        goto done;
    }
    stored = sysdb_msg_str(read, SYSDB_A_PW_HASH);
    if (stored == NULL || stored[0] == '\0') {
        ret = ERR_NO_CACHED_CREDS;
        goto done;
    }
    ret = sysdb_creds_num(read, SYSDB_A_PW_ONLINE, SYSDB_CREDS_TIME_MAX, &online);
    if (ret == EOK) {
        ret = sysdb_creds_num(read, SYSDB_A_PW_FAILED, UINT32_MAX, &failed);
    }
    if (ret == EOK) {
        ret = sysdb_creds_num(read, SYSDB_A_PW_FAILED_AT, SYSDB_CREDS_TIME_MAX, &failed_at);
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Malformed cached credentials of %s\n", name);
        goto done;
    }

    if (pol->expiration_days != 0) {
        expires = (time_t)(online + (uint64_t)pol->expiration_days * 86400);
        if (expires < now) {
            DEBUG(SSSDBG_TRACE_FUNC, "Cached credentials of %s expired at %lld\n",
                  name, (long long)expires);
            ret = ERR_CACHED_CREDS_EXPIRED;
            goto done;
        }
    }
    ret = sysdb_creds_delay(pol, now, failed, failed_at, &count, &until);
    if (ret != EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "Offline authentication of %s delayed until %lld\n",
              name, (long long)until);
        goto done;
    }

    result = sysdb_creds_verify(buf, name, password, len, stored);
    /* The stored hash is wiped from the message read before anything else happens. */
    el = ldb_msg_find_element(read, SYSDB_A_PW_HASH);
    explicit_bzero(el->values[0].data, el->values[0].length);
    if (result != EOK && result != ERR_AUTH_FAILED) {
        ret = result;
        goto done;
    }

    msg = sysdb_creds_msg(tmp_ctx, read);
    if (msg == NULL) {
        ret = ENOMEM;
        goto done;
    }
    if (result == EOK) {
        if (failed != 0) {
            ret = sysdb_msg_set_num(msg, SYSDB_A_PW_FAILED, 0);
        }
    } else {
        ret = sysdb_msg_set_num(msg, SYSDB_A_PW_FAILED, count < UINT32_MAX ? count + 1 : count);
        if (ret == EOK) {
            ret = sysdb_msg_set_num(msg, SYSDB_A_PW_FAILED_AT, (uint64_t)now);
        }
    }
    if (ret == EOK && msg->num_elements > 0) {
        ret = sysdb_creds_write(sysdb, msg);
    }
    if (ret != EOK) {
        /* Reported as the write's error either way: nothing is granted on it. */
        DEBUG(SSSDBG_OP_FAILURE, "Cannot update the failed-attempt count of %s: %s\n",
              name, sss_strerror(ret));
        goto done;
    }
    ret = result;

done:
    if (ret == EOK && _expires != NULL) {
        *_expires = expires;
    }
    if (ret == ERR_AUTH_DELAYED && _delayed_until != NULL) {
        *_delayed_until = until;
    }
    talloc_free(tmp_ctx);   /* wipes buf */
    return ret;
}

errno_t sysdb_creds_set_access(struct sysdb_ctx *sysdb, const char *name, uint32_t status)
{
    struct ldb_message *msg;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && name != NULL, EINVAL);
    msg = ldb_msg_new(NULL);
    if (msg == NULL) {
        return ENOMEM;
    }
    ret = sysdb_name_dn(msg, sysdb, SYSDB_KIND_USER, name, &msg->dn);
    if (ret == EOK) {
        ret = sysdb_msg_set_num(msg, SYSDB_A_ACCESS, status);
    }
    if (ret == EOK) {
        ret = sysdb_creds_write(sysdb, msg);
    }
    talloc_free(msg);
    return ret;
}

errno_t sysdb_creds_get_access(struct sysdb_ctx *sysdb, const char *name, bool *_known,
                               uint32_t *_status)
{
    static const char *const attrs[] = { SYSDB_A_ACCESS, NULL };
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    struct ldb_dn *dn;
    uint64_t status;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && name != NULL && _known != NULL && _status != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_name_dn(tmp_ctx, sysdb, SYSDB_KIND_USER, name, &dn);
    if (ret == EOK) {
        ret = sysdb_read_entry(tmp_ctx, sysdb, dn, attrs, &msg);
    }
    if (ret != EOK) {
        goto done;
    }
    *_known = ldb_msg_find_element(msg, SYSDB_A_ACCESS) != NULL;
    if (*_known) {
        ret = sysdb_msg_num(msg, SYSDB_A_ACCESS, UINT32_MAX, &status);
        if (ret != EOK) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Malformed access verdict of %s\n", name);
            goto done;
        }
        *_status = (uint32_t)status;
    }

done:
    talloc_free(tmp_ctx);
    return ret;
}
