/* libFuzzer harness: arbitrary bytes as sssd_pam reply bodies into pam_sss's reply parser,
 * then, for a reply it accepts, everything pam_sss does with it short of PAM calls: walking
 * the items and making the text of every USER_INFO item. Checks the parser's promises (a
 * PAM status, exactly `count` items filling the body, string items ending in their only
 * NUL) and aborts when one is broken. Needs src/sss_client/pam/pam_reply.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/sss_cli.h"
#include "sss_client/pam/pam_sss_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_string(const struct pam_sss_item *it)
{
    if (it->len == 0 || it->data[it->len - 1] != '\0'
            || strlen((const char *)it->data) + 1 != it->len) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pam_sss_reply reply;
    struct pam_sss_item it;
    size_t cursor = 0;
    uint32_t seen = 0;
    uint8_t *body;
    char *text;

    /* An exact-size copy, so any read past the end is caught. */
    body = malloc(size ? size : 1);
    if (body == NULL) {
        return 0;
    }
    memcpy(body, data, size);

    if (pam_sss_reply_parse(body, size, &reply) == 0) {
        if (reply.status < 0 || reply.status > PAM_SSS_MAX_PAM_STATUS) {
            abort();
        }
        while (pam_sss_reply_next(&reply, &cursor, &it)) {
            seen++;
            switch (it.type) {
            case SSS_PAM_SYSTEM_INFO:
            case SSS_PAM_DOMAIN_NAME:
            case SSS_PAM_ENV_ITEM:
            case SSS_ENV_ITEM:
            case SSS_ALL_ENV_ITEM:
            case SSS_PAM_TEXT_MSG:
                check_string(&it);
                break;
            case SSS_PAM_USER_INFO:
                text = NULL;
                if (pam_sss_user_info_text(it.data, it.len, &text) == 0) {
                    if (text == NULL) {
                        abort();
                    }
                    (void)strlen(text);
                    free(text);
                }
                break;
            default:
                break;
            }
        }
        if (seen != reply.count || cursor != reply.items_len) {
            abort();
        }
    }

    free(body);
    return 0;
}
