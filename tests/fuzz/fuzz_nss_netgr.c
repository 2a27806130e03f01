/* libFuzzer harness: arbitrary bytes as the body of sssd_nss's SETNETGRENT reply, through
 * libnss_sss's own entry points exactly as glibc drives them: _nss_sss_setnetgrent keeps
 * the reply, _nss_sss_getnetgrent_r is called until it ends or fails, with a buffer size
 * taken from the input (ERANGE, then a retry with more room), then _nss_sss_endnetgrent.
 * The socket request is replaced by a function handing back the input, so nothing but the
 * module's own code reads the bytes. Needs nss_netgroup.c and nss_parse.c. */
#include <errno.h>
#include <nss.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/nss/nss_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
enum nss_status _nss_sss_setnetgrent(const char *netgroup, void *result);
enum nss_status _nss_sss_getnetgrent_r(void *result, char *buffer, size_t buflen,
                                       int *errnop);
enum nss_status _nss_sss_endnetgrent(void *result);

static const uint8_t *fuzz_reply;
static size_t fuzz_reply_len;

/* The stand-ins for nss_request.c: the "reply" is the fuzz input. */
int nss_sss_loops_disabled(void)
{
    return 0;
}

int nss_sss_check_name(const char *name, size_t *len)
{
    if (name == NULL || name[0] == '\0') {
        return ENOENT;
    }
    *len = strlen(name);
    return 0;
}

enum nss_status nss_sss_request(uint32_t cmd, const void *body, size_t body_len,
                                uint8_t **reply, size_t *reply_len, int *errnop)
{
    (void)cmd;
    (void)body;
    (void)body_len;
    /* an exact-size copy, so any read past the end is caught */
    *reply = malloc(fuzz_reply_len ? fuzz_reply_len : 1);
    if (*reply == NULL) {
        *errnop = ENOMEM;
        return NSS_STATUS_TRYAGAIN;
    }
    memcpy(*reply, fuzz_reply, fuzz_reply_len);
    *reply_len = fuzz_reply_len;
    return NSS_STATUS_SUCCESS;
}

/* glibc's struct __netgrent is bigger than the part the module uses: room to spare. */
struct fake_netgrent {
    uint64_t words[32];
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fake_netgrent ng;
    enum nss_status st;
    size_t buflen;
    char *buf;
    int err = 0;
    int guard;

    if (size < 2) {
        return 0;
    }
    buflen = (size_t)data[0] * 4 + data[1] % 4;
    fuzz_reply = data + 2;
    fuzz_reply_len = size - 2;
    memset(&ng, 0, sizeof(ng));
    buf = malloc(buflen ? buflen : 1);
    if (buf == NULL) {
        return 0;
    }
    st = _nss_sss_setnetgrent("ng", &ng);
    for (guard = 0; st == NSS_STATUS_SUCCESS && guard < 100000; guard++) {
        st = _nss_sss_getnetgrent_r(&ng, buf, buflen, &err);
        if (st == NSS_STATUS_TRYAGAIN && err == ERANGE && buflen < 65536) {
            /* as glibc does: a bigger buffer, the same record */
            free(buf);
            buflen = buflen * 2 + 1;
            buf = malloc(buflen);
            if (buf == NULL) {
                break;
            }
            st = NSS_STATUS_SUCCESS;
        }
    }
    _nss_sss_endnetgrent(&ng);
    free(buf);
    return 0;
}
