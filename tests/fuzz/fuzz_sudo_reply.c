/* libFuzzer harness: arbitrary bytes as sssd_sudo reply bodies into libsss_sudo's reply
 * parser (what sudo's process runs on a reply), then, for a reply it accepts, what sudo does
 * with it: every attribute of every rule read back through sss_sudo_get_values, the copies
 * compared with the parsed values, everything freed. Checks the parser's promises (counts
 * match the arrays, strings are terminated, no result on an error code) and aborts when one
 * is broken. Needs src/sss_client/sudo/sss_sudo_parse.c, sss_sudo.c and common.c. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/sudo/sss_sudo_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sss_sudo_result *res = NULL;
    char *domain = NULL;
    char **values;
    uint32_t error = 0xdeadbeef;
    uint8_t *body;
    unsigned int i;
    unsigned int j;
    unsigned int k;
    int ret;

    /* An exact-size copy, so any read past the end is caught. */
    body = malloc(size ? size : 1);
    if (body == NULL) {
        return 0;
    }
    memcpy(body, data, size);
    ret = sss_sudo_parse_reply(body, size, &error, &domain, &res);
    if (ret == 0 && error == SSS_SUDO_ERROR_OK) {
        if (res == NULL || domain == NULL) {
            abort();
        }
        for (i = 0; i < res->num_rules; i++) {
            for (j = 0; j < res->rules[i].num_attrs; j++) {
                struct sss_sudo_attr *a = &res->rules[i].attrs[j];

                if (a->name == NULL) {
                    abort();
                }
                if (sss_sudo_get_values(&res->rules[i], a->name, &values) != 0) {
                    abort();
                }
                /* get_values finds the first attribute of that name (case-insensitive). */
                for (k = 0; values[k] != NULL; k++) {
                    (void)strlen(values[k]);
                }
                sss_sudo_free_values(values);
            }
        }
        sss_sudo_free_result(res);
        free(domain);
    } else if (ret == 0) {
        if (res != NULL || domain != NULL) {
            abort();    /* an error code carries nothing else */
        }
    } else if (ret != EBADMSG && ret != ENOMEM) {
        abort();
    }
    free(body);
    return 0;
}
