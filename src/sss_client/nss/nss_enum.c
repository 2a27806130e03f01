/*
 * Enumeration (set/get/end*ent) for libnss_sss: GET*ENT asks sssd_nss for up to
 * SSS_NSS_GETENT_COUNT records; the reply is kept in a per-process buffer (under its mutex)
 * and handed out one record per call. A record that does not fit the caller's buffer stays
 * next in line (ERANGE; glibc retries with a bigger buffer).
 */
#include <errno.h>
#include <stdlib.h>

#include "sss_client/sss_cli.h"
#include "sss_client/nss/nss_private.h"

struct nss_enum nss_pw_enum = NSS_ENUM_INITIALIZER;
struct nss_enum nss_gr_enum = NSS_ENUM_INITIALIZER;

static void enum_lock(struct nss_enum *e, int *old_cancel)
{
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, old_cancel);
    pthread_mutex_lock(&e->lock);
}

static void enum_unlock(struct nss_enum *e, int old_cancel)
{
    pthread_mutex_unlock(&e->lock);
    pthread_setcancelstate(old_cancel, NULL);
}

static void enum_clear(struct nss_enum *e)
{
    free(e->buf);
    e->buf = NULL;
    e->len = 0;
    e->pos = 0;
    e->left = 0;
}

/* SET*ENT and END*ENT: drop what is buffered and tell the server. */
static enum nss_status enum_command(struct nss_enum *e, uint32_t cmd)
{
    enum nss_status st;
    uint8_t *reply = NULL;
    size_t reply_len = 0;
    int old_cancel;
    int err = 0;

    if (nss_sss_loops_disabled()) {
        return NSS_STATUS_NOTFOUND;
    }
    enum_lock(e, &old_cancel);
    enum_clear(e);
    st = nss_sss_enum_request(cmd, NULL, 0, &reply, &reply_len, &err);
    free(reply);
    enum_unlock(e, old_cancel);
    return st;
}

enum nss_status nss_enum_set(struct nss_enum *e, uint32_t cmd)
{
    return enum_command(e, cmd);
}

enum nss_status nss_enum_get(struct nss_enum *e, uint32_t cmd, size_t rec_min,
                             nss_enum_parse_fn parse, void *result,
                             char *buf, size_t buflen, int *errnop)
{
    int saved_errno = errno;
    enum nss_status st = NSS_STATUS_SUCCESS;
    int old_cancel;
    int ret;

    if (nss_sss_loops_disabled()) {
        return NSS_STATUS_NOTFOUND;
    }
    enum_lock(e, &old_cancel);
    for (;;) {
        size_t consumed = 0;

        if (e->left == 0) {
            uint32_t count = SSS_NSS_GETENT_COUNT;
            uint8_t *reply = NULL;
            size_t reply_len = 0;
            uint32_t n = 0;

            enum_clear(e);
            st = nss_sss_enum_request(cmd, &count, sizeof(count), &reply, &reply_len, errnop);
            if (st != NSS_STATUS_SUCCESS) {
                break;
            }
            ret = nss_reply_count(reply, reply_len, &n);
            if (ret == 0 && n > (reply_len - 8) / rec_min) {
                ret = EBADMSG;      /* more records than could fit */
            }
            if (ret != 0) {
                free(reply);
                st = nss_sss_status(EBADMSG, errnop);
                break;
            }
            if (n == 0) {
                free(reply);
                *errnop = 0;                /* as SSSD: glibc reports ENOENT itself */
                st = NSS_STATUS_NOTFOUND;   /* the end of the enumeration */
                break;
            }
            e->buf = reply;
            e->len = reply_len;
            e->pos = 8;
            e->left = n;
        }

        ret = parse(e->buf + e->pos, e->len - e->pos, &consumed, result, buf, buflen);
        if (ret == ERANGE) {
            st = nss_sss_status(ERANGE, errnop);   /* keep the record for the retry */
            break;
        }
        if (ret != 0) {
            enum_clear(e);
            st = nss_sss_status(EBADMSG, errnop);
            break;
        }
        e->pos += consumed;
        e->left--;
        st = NSS_STATUS_SUCCESS;
        break;
    }
    enum_unlock(e, old_cancel);
    if (st == NSS_STATUS_SUCCESS) {
        errno = saved_errno;
    }
    return st;
}

enum nss_status nss_enum_end(struct nss_enum *e, uint32_t cmd)
{
    return enum_command(e, cmd);
}

/* In a fork child: the locks may have been held by threads that are gone. The buffers they
 * guarded may be half-replaced: forget them (leaked in the child, not freed twice). */
static void enum_reset(struct nss_enum *e)
{
    pthread_mutex_init(&e->lock, NULL);
    e->buf = NULL;
    e->len = 0;
    e->pos = 0;
    e->left = 0;
}

void nss_enum_after_fork(void)
{
    enum_reset(&nss_pw_enum);
    enum_reset(&nss_gr_enum);
}
