/*
 * The group entry points of libnss_sss (glibc's NSS module interface): by name and by gid
 * (memory cache first, then sssd_nss), and enumeration. A buffer too small answers
 * TRYAGAIN/ERANGE and glibc retries with a bigger one. Such a retry is answered from the reply
 * that did not fit (kept per thread, used once, for the same command and key): glibc starts
 * small and doubles, so a 10,000-member group took six round trips to sssd_nss, each one
 * formatting the whole group again. errno is left as it was on success.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/sss_cli.h"
#include "sss_client/nss/nss_mc.h"
#include "sss_client/nss/nss_private.h"

enum nss_status _nss_sss_getgrnam_r(const char *name, struct group *result,
                                    char *buffer, size_t buflen, int *errnop);
enum nss_status _nss_sss_getgrgid_r(gid_t gid, struct group *result,
                                    char *buffer, size_t buflen, int *errnop);
enum nss_status _nss_sss_setgrent(void);
enum nss_status _nss_sss_getgrent_r(struct group *result,
                                    char *buffer, size_t buflen, int *errnop);
enum nss_status _nss_sss_endgrent(void);


/* The reply that last did not fit this thread's buffer, and the request it answers. */
static __thread uint8_t *toosmall_reply;
static __thread size_t toosmall_len;
static __thread uint32_t toosmall_cmd;
static __thread char toosmall_key[256];
static __thread size_t toosmall_keylen;

/* Takes the kept reply if it answers (cmd, key); any kept reply is dropped either way. */
static uint8_t *toosmall_take(uint32_t cmd, const void *key, size_t keylen, size_t *_len)
{
    uint8_t *reply = toosmall_reply;

    toosmall_reply = NULL;
    if (reply != NULL && toosmall_cmd == cmd && toosmall_keylen == keylen
            && memcmp(toosmall_key, key, keylen) == 0) {
        *_len = toosmall_len;
        return reply;
    }
    free(reply);
    return NULL;
}

static void toosmall_keep(uint32_t cmd, const void *key, size_t keylen, uint8_t *reply,
                          size_t len)
{
    if (keylen > sizeof(toosmall_key)) {
        free(reply);
        return;
    }
    toosmall_reply = reply;
    toosmall_len = len;
    toosmall_cmd = cmd;
    memcpy(toosmall_key, key, keylen);
    toosmall_keylen = keylen;
}

/* One by-name or by-id lookup through sssd_nss (or the kept reply), parsed into the buffer. */
static enum nss_status lookup(uint32_t cmd, const void *key, size_t keylen,
                              struct group *result, char *buffer, size_t buflen,
                              int *errnop, int saved_errno)
{
    uint8_t *reply;
    size_t reply_len = 0;
    enum nss_status st = NSS_STATUS_SUCCESS;
    int ret;

    reply = toosmall_take(cmd, key, keylen, &reply_len);
    if (reply == NULL) {
        st = nss_sss_request(cmd, key, keylen, &reply, &reply_len, errnop);
        if (st != NSS_STATUS_SUCCESS) {
            return st;
        }
    }
    ret = nss_parse_one_group(reply, reply_len, result, buffer, buflen);
    if (ret == ERANGE) {
        toosmall_keep(cmd, key, keylen, reply, reply_len);
    } else {
        free(reply);
    }
    st = nss_sss_status(ret, errnop);
    if (st == NSS_STATUS_SUCCESS) {
        errno = saved_errno;
    }
    return st;
}

enum nss_status _nss_sss_getgrnam_r(const char *name, struct group *result,
                                    char *buffer, size_t buflen, int *errnop)
{
    int saved_errno = errno;
    size_t len;
    int ret;

    if (nss_sss_loops_disabled()) {
        return NSS_STATUS_NOTFOUND;
    }
    ret = nss_sss_check_name(name, &len);
    if (ret != 0) {
        *errnop = ret == ENOENT ? 0 : ret;      /* empty: not found; too long: EINVAL */
        return NSS_STATUS_NOTFOUND;
    }
    ret = nss_mc_getgrnam(name, len, result, buffer, buflen);
    if (ret == 0 || ret == ERANGE) {
        errno = saved_errno;
        return nss_sss_status(ret, errnop);
    }
    return lookup(SSS_NSS_GETGRNAM, name, len + 1, result, buffer, buflen, errnop, saved_errno);
}

enum nss_status _nss_sss_getgrgid_r(gid_t gid, struct group *result,
                                    char *buffer, size_t buflen, int *errnop)
{
    int saved_errno = errno;
    uint32_t id = (uint32_t)gid;
    int ret;

    if (nss_sss_loops_disabled()) {
        return NSS_STATUS_NOTFOUND;
    }
    ret = nss_mc_getgrgid(gid, result, buffer, buflen);
    if (ret == 0 || ret == ERANGE) {
        errno = saved_errno;
        return nss_sss_status(ret, errnop);
    }
    return lookup(SSS_NSS_GETGRGID, &id, sizeof(id), result, buffer, buflen, errnop,
                  saved_errno);
}

static int parse_gr(const uint8_t *p, size_t len, size_t *consumed,
                    void *result, char *buf, size_t buflen)
{
    return nss_parse_group(p, len, consumed, result, buf, buflen);
}

enum nss_status _nss_sss_setgrent(void)
{
    return nss_enum_set(&nss_gr_enum, SSS_NSS_SETGRENT);
}

enum nss_status _nss_sss_getgrent_r(struct group *result,
                                    char *buffer, size_t buflen, int *errnop)
{
    return nss_enum_get(&nss_gr_enum, SSS_NSS_GETGRENT, NSS_GR_REC_MIN, parse_gr,
                        result, buffer, buflen, errnop);
}

enum nss_status _nss_sss_endgrent(void)
{
    return nss_enum_end(&nss_gr_enum, SSS_NSS_ENDGRENT);
}
