/*
 * The netgroup entry points of libnss_sss: glibc's setnetgrent/getnetgrent_r/endnetgrent
 * (and innetgr(), which runs the three on a private struct __netgrent) with SSSD 2.8's
 * client contract. _nss_sss_setnetgrent sends one SETNETGRENT request and keeps the whole
 * reply (every record of the netgroup; num_results is their number plus one, 0 meaning
 * not found) in result->data; _nss_sss_getnetgrent_r hands out
 * one record per call from there, with no further request; _nss_sss_endnetgrent frees it.
 * All state lives in the caller's struct __netgrent, so calls on different ones (innetgr()
 * from several threads) never mix, and no lock is held between calls.
 *
 * Nested netgroups come back as group_val records: glibc looks them up itself (and stops
 * loops). A buffer too small answers TRYAGAIN/ERANGE without moving on, so the caller can
 * retry with a bigger one; the end of the netgroup is NSS_STATUS_RETURN.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/sss_cli.h"
#include "sss_client/nss/nss_private.h"

/*
 * The leading members of glibc's struct __netgrent (its internal netgroup.h, stable since
 * glibc 2.1): the only ones an NSS module reads or writes. glibc owns the rest.
 */
struct __netgrent {
    enum { triple_val, group_val } type;
    union {
        struct {
            const char *host;
            const char *user;
            const char *domain;
        } triple;
        const char *group;
    } val;
    char *data;
    size_t data_size;
    union {
        char *cursor;
        unsigned long int position;
    } idx;
};

/* Reply head: num_results, reserved. */
#define NETGR_HEAD (2 * sizeof(uint32_t))

enum nss_status _nss_sss_setnetgrent(const char *netgroup, struct __netgrent *result);
enum nss_status _nss_sss_getnetgrent_r(struct __netgrent *result, char *buffer,
                                       size_t buflen, int *errnop);
enum nss_status _nss_sss_endnetgrent(struct __netgrent *result);

static void netgr_clear(struct __netgrent *result)
{
    free(result->data);
    result->data = NULL;
    result->data_size = 0;
    result->idx.position = 0;
}

enum nss_status _nss_sss_setnetgrent(const char *netgroup, struct __netgrent *result)
{
    int saved_errno = errno;
    uint8_t *reply = NULL;
    size_t reply_len = 0;
    enum nss_status st;
    uint32_t count = 0;
    int errnop = 0;
    size_t len;

    if (result == NULL) {
        return NSS_STATUS_UNAVAIL;
    }
    netgr_clear(result);
    if (nss_sss_loops_disabled() || nss_sss_check_name(netgroup, &len) != 0) {
        return NSS_STATUS_NOTFOUND;
    }
    st = nss_sss_request(SSS_NSS_SETNETGRENT, netgroup, len + 1, &reply, &reply_len,
                         &errnop);
    if (st != NSS_STATUS_SUCCESS) {
        errno = errnop;
        return st;
    }
    /* num_results counts the netgroup itself too: 1 and no records is an empty one. */
    if (nss_reply_count(reply, reply_len, &count) != 0 || count == 0) {
        free(reply);
        errno = saved_errno;    /* not found is no error (issue 17, item 5) */
        return NSS_STATUS_NOTFOUND;
    }
    result->data = (char *)reply;
    result->data_size = reply_len;
    result->idx.position = NETGR_HEAD;
    errno = saved_errno;
    return NSS_STATUS_SUCCESS;
}

enum nss_status _nss_sss_getnetgrent_r(struct __netgrent *result, char *buffer,
                                       size_t buflen, int *errnop)
{
    struct nss_netgr_ent ent;
    size_t consumed = 0;
    size_t pos;
    int ret;

    if (result == NULL || errnop == NULL) {
        return NSS_STATUS_UNAVAIL;
    }
    if (buffer == NULL || buflen == 0) {
        *errnop = ERANGE;
        return NSS_STATUS_TRYAGAIN;
    }
    pos = result->idx.position;
    if (result->data == NULL || pos >= result->data_size) {
        return NSS_STATUS_RETURN;
    }
    ret = nss_parse_netgr((const uint8_t *)result->data + pos, result->data_size - pos,
                          &consumed, &ent, buffer, buflen);
    if (ret != 0) {
        /* ERANGE: the same record again with a bigger buffer; EBADMSG: as SSSD. */
        *errnop = ret;
        return NSS_STATUS_TRYAGAIN;
    }
    if (ent.is_triple) {
        result->type = triple_val;
        result->val.triple.host = ent.host;
        result->val.triple.user = ent.user;
        result->val.triple.domain = ent.domain;
    } else {
        result->type = group_val;
        result->val.group = ent.member;
    }
    result->idx.position = pos + consumed;
    return NSS_STATUS_SUCCESS;
}

enum nss_status _nss_sss_endnetgrent(struct __netgrent *result)
{
    /* Nothing is held by the responder for this netgroup: SSSD 2.8's module sends no
     * ENDNETGRENT either. */
    if (result != NULL) {
        netgr_clear(result);
    }
    return NSS_STATUS_SUCCESS;
}
