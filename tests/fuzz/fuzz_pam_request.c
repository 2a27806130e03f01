/*
 * libFuzzer harness for the PAM request bodies a client sends sssd_pam (pam_req.c), and
 * for the item blobs a back-end answers with (pam_items_walk). A parsed request must keep
 * the parser's promises (a user, strings NUL-terminated, tokens of bounded size); the walk
 * must only ever hand out items inside the blob. The reply builder is exercised with
 * whatever was parsed. Built by tests/fuzz/run.sh with pam_req.c and resp_packet.c.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "responder/pam/pam_req.h"
#include "sss_client/sss_cli.h"

struct walk_ctx {
    const uint8_t *start;
    size_t len;
};

static errno_t check_item(void *pvt, uint32_t type, const uint8_t *data, uint32_t len)
{
    struct walk_ctx *w = pvt;

    if (data < w->start || data + len > w->start + w->len) {
        __builtin_trap();
    }
    return EOK;
}

static void check_parse(uint32_t cmd, const uint8_t *data, size_t size)
{
    struct pam_reply_build b;
    struct pam_data *pd = NULL;

    if (pam_req_parse(NULL, cmd, data, size, &pd) != EOK) {
        return;
    }
    if (pd->user == NULL || pd->user[0] == '\0' || pd->service == NULL
            || pd->domains == NULL || pd->authtok.len > PAM_REQ_MAX_TOK
            || pd->newauthtok.len > PAM_REQ_MAX_TOK
            || (pd->authtok.len > 0) != (pd->authtok.data != NULL)) {
        __builtin_trap();
    }
    if (pam_reply_start(&b, pd, cmd, 0) == EOK) {
        (void)pam_reply_add(&b, SSS_PAM_DOMAIN_NAME, pd->user, strlen(pd->user) + 1);
    }
    talloc_free(pd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct walk_ctx w = { .start = data, .len = size };

    debug_level = 0;
    check_parse(SSS_PAM_AUTHENTICATE, data, size);
    (void)pam_items_walk(data, size, check_item, &w);
    return 0;
}
