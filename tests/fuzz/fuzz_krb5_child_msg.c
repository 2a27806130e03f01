/* libFuzzer harness: arbitrary bytes as both messages between sssd_be and krb5_child.
 * The first byte picks the direction: even, the request krb5_child parses from sssd_be;
 * odd, the response sssd_be parses from the child. A message the decoder accepts must
 * re-encode to exactly the same bytes (nothing read that was not there, nothing lost),
 * its strings must hold no NUL and its enumerations be in range; anything else aborts.
 * Needs src/providers/krb5/krb5_child_msg.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "providers/krb5/krb5_child_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_same(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    if (alen != blen || memcmp(a, b, alen) != 0) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct krb5_child_req *req = NULL;
    struct krb5_child_rsp *rsp = NULL;
    uint8_t *body;
    uint8_t *again = NULL;
    size_t len = 0;
    int dir;

    if (size == 0) {
        return 0;
    }
    dir = data[0] & 1;
    data++;
    size--;
    /* An exact-size copy, so any read past the end is caught. */
    body = malloc(size ? size : 1);
    if (body == NULL) {
        return 0;
    }
    memcpy(body, data, size);
    if (dir == 0) {
        if (krb5_child_req_decode(NULL, body, size, &req) == EOK) {
            if (req->cmd < KRB5_CHILD_AUTH || req->cmd > KRB5_CHILD_CMD_MAX
                    || (req->flags & ~KRB5_CHILD_F_ALL) != 0) {
                abort();
            }
            if (krb5_child_req_encode(NULL, req, &again, &len) != EOK) {
                abort();
            }
            check_same(body, size, again, len);
        }
        talloc_free(req);
    } else {
        if (krb5_child_rsp_decode(NULL, body, size, &rsp) == EOK) {
            if (rsp->status > KRB5_CHILD_STATUS_MAX) {
                abort();
            }
            if (krb5_child_rsp_encode(NULL, rsp, &again, &len) != EOK) {
                abort();
            }
            check_same(body, size, again, len);
        }
        talloc_free(rsp);
    }
    talloc_free(again);
    free(body);
    return 0;
}
