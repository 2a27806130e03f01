/*
 * _nss_sss_initgroups_dyn: the user's groups for getgrouplist/initgroups, memory cache
 * first, then sssd_nss's INITGR reply. gids are appended per glibc's contract (see
 * nss_add_gids: the `group` argument is skipped, *groups grows, limit is respected).
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
        *errnop = ret;
        return NSS_STATUS_NOTFOUND;
    }

    ret = nss_mc_initgroups_dyn(user, len, group, start, size, groups, limit);
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
        ret = nss_add_gids(gids, count, group, start, size, groups, limit);
    }
    free(reply);
    st = nss_sss_status(ret, errnop);
    if (st == NSS_STATUS_SUCCESS) {
        errno = saved_errno;
    }
    return st;
}
