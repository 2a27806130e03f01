/*
 * _nss_sss_initgroups_dyn: the user's groups for getgrouplist/initgroups, memory cache
 * first, then sssd_nss's INITGR reply. gids are appended exactly as SSSD's module appends
 * them (nss_add_gids), so programs that call the module directly see the same *start,
 * *size and array; `group` is not used (glibc removes duplicates itself).
 */
#include <errno.h>
#include <stdlib.h>

#include "sss_client/sss_cli.h"
#include "sss_client/nss/nss_mc.h"
#include "sss_client/nss/nss_private.h"

enum nss_status _nss_sss_initgroups_dyn(const char *user, gid_t group, long int *start,
                                        long int *size, gid_t **groups, long int limit,
                                        int *errnop);

enum nss_status _nss_sss_initgroups_dyn(const char *user, gid_t group, long int *start,
                                        long int *size, gid_t **groups, long int limit,
                                        int *errnop)
{
    int saved_errno = errno;
    const uint8_t *gids = NULL;
    uint8_t *reply = NULL;
    size_t reply_len = 0;
    enum nss_status st;
    uint32_t count = 0;
    size_t len;
    int ret;

    if (nss_sss_loops_disabled()) {
        return NSS_STATUS_NOTFOUND;
    }
    if (start == NULL || size == NULL || groups == NULL) {
        *errnop = EINVAL;
        return NSS_STATUS_UNAVAIL;
    }
    ret = nss_sss_check_name(user, &len);
    if (ret != 0) {
        *errnop = ret == ENOENT ? 0 : ret;      /* empty: not found; too long: EINVAL */
        return NSS_STATUS_NOTFOUND;
    }

    ret = nss_mc_initgroups_dyn(user, len, start, size, groups, limit);
    if (ret != ENOENT) {
        st = nss_sss_status(ret, errnop);
        if (st == NSS_STATUS_SUCCESS) {
            errno = saved_errno;
        }
        return st;
    }

    st = nss_sss_request(SSS_NSS_INITGR, user, len + 1, &reply, &reply_len, errnop);
    if (st != NSS_STATUS_SUCCESS) {
        return st;
    }
    ret = nss_parse_initgr(reply, reply_len, &gids, &count);
    if (ret == 0) {
        ret = nss_add_gids(gids, count, start, size, groups, limit);
    }
    free(reply);
    st = nss_sss_status(ret, errnop);
    if (st == NSS_STATUS_SUCCESS) {
        errno = saved_errno;
    }
    return st;
}
