/*
 * The passwd entry points of libnss_sss (glibc's NSS module interface): by name and by uid
 * (memory cache first, then sssd_nss), and enumeration. A buffer too small answers
 * TRYAGAIN/ERANGE; glibc retries with a bigger one and the lookup is simply made again.
 * errno is left as it was on success.
 */
#include <errno.h>
#include <stdlib.h>

#include "sss_client/sss_cli.h"
#include "sss_client/nss/nss_mc.h"
#include "sss_client/nss/nss_private.h"

enum nss_status _nss_sss_getpwnam_r(const char *name, struct passwd *result,
                                    char *buffer, size_t buflen, int *errnop);
enum nss_status _nss_sss_getpwuid_r(uid_t uid, struct passwd *result,
                                    char *buffer, size_t buflen, int *errnop);
enum nss_status _nss_sss_setpwent(void);
enum nss_status _nss_sss_getpwent_r(struct passwd *result,
                                    char *buffer, size_t buflen, int *errnop);
enum nss_status _nss_sss_endpwent(void);


/* Answers from a by-name or by-id reply, or from the memory cache's result. */
static enum nss_status finish(enum nss_status st, uint8_t *reply, size_t reply_len,
                              struct passwd *result, char *buffer, size_t buflen,
                              int *errnop, int saved_errno)
{
    int ret;

    if (st != NSS_STATUS_SUCCESS) {
        return st;
    }
    ret = nss_parse_one_passwd(reply, reply_len, result, buffer, buflen);
    free(reply);
    st = nss_sss_status(ret, errnop);
    if (st == NSS_STATUS_SUCCESS) {
        errno = saved_errno;
    }
    return st;
}

enum nss_status _nss_sss_getpwnam_r(const char *name, struct passwd *result,
                                    char *buffer, size_t buflen, int *errnop)
{
    int saved_errno = errno;
    uint8_t *reply = NULL;
    size_t reply_len = 0;
    enum nss_status st;
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
    ret = nss_mc_getpwnam(name, len, result, buffer, buflen);
    if (ret == 0 || ret == ERANGE) {
        errno = saved_errno;
        return nss_sss_status(ret, errnop);
    }
    st = nss_sss_request(SSS_NSS_GETPWNAM, name, len + 1, &reply, &reply_len, errnop);
    return finish(st, reply, reply_len, result, buffer, buflen, errnop, saved_errno);
}

enum nss_status _nss_sss_getpwuid_r(uid_t uid, struct passwd *result,
                                    char *buffer, size_t buflen, int *errnop)
{
    int saved_errno = errno;
    uint32_t id = (uint32_t)uid;
    uint8_t *reply = NULL;
    size_t reply_len = 0;
    enum nss_status st;
    int ret;

    if (nss_sss_loops_disabled()) {
        return NSS_STATUS_NOTFOUND;
    }
    ret = nss_mc_getpwuid(uid, result, buffer, buflen);
    if (ret == 0 || ret == ERANGE) {
        errno = saved_errno;
        return nss_sss_status(ret, errnop);
    }
    st = nss_sss_request(SSS_NSS_GETPWUID, &id, sizeof(id), &reply, &reply_len, errnop);
    return finish(st, reply, reply_len, result, buffer, buflen, errnop, saved_errno);
}

static int parse_pw(const uint8_t *p, size_t len, size_t *consumed,
                    void *result, char *buf, size_t buflen)
{
    return nss_parse_passwd(p, len, consumed, result, buf, buflen);
}

enum nss_status _nss_sss_setpwent(void)
{
    return nss_enum_set(&nss_pw_enum, SSS_NSS_SETPWENT);
}

enum nss_status _nss_sss_getpwent_r(struct passwd *result,
                                    char *buffer, size_t buflen, int *errnop)
{
    return nss_enum_get(&nss_pw_enum, SSS_NSS_GETPWENT, NSS_PW_REC_MIN, parse_pw,
                        result, buffer, buflen, errnop);
}

enum nss_status _nss_sss_endpwent(void)
{
    return nss_enum_end(&nss_pw_enum, SSS_NSS_ENDPWENT);
}
