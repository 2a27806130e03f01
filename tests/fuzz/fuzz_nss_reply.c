/* libFuzzer harness: arbitrary bytes as sssd_nss reply bodies into libnss_sss's parsers
 * (passwd, group, enumeration runs of records, initgroups and the gid array), with a
 * buffer size taken from the input so ERANGE paths run too. Needs src/sss_client/nss/nss_parse.c. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/nss/nss_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct passwd pw;
    struct group gr;
    const uint8_t *gids;
    uint32_t count;
    size_t buflen;
    size_t pos;
    uint8_t *body;
    char *buf;
    gid_t *groups;
    long int start, gsize;

    if (size < 2) {
        return 0;
    }
    buflen = (size_t)data[0] * 16 + data[1];
    data += 2;
    size -= 2;
    /* exact-size copies, so any read past the end is caught */
    body = malloc(size ? size : 1);
    buf = malloc(buflen ? buflen : 1);
    if (body == NULL || buf == NULL) {
        free(body);
        free(buf);
        return 0;
    }
    memcpy(body, data, size);

    if (nss_parse_one_passwd(body, size, &pw, buf, buflen) == 0) {
        (void)strlen(pw.pw_name);
        (void)strlen(pw.pw_shell);
    }
    if (nss_parse_one_group(body, size, &gr, buf, buflen) == 0) {
        char **m;

        for (m = gr.gr_mem; *m != NULL; m++) {
            (void)strlen(*m);
        }
    }

    /* enumeration: a run of records after the 8-byte head */
    for (pos = 8; pos < size;) {
        size_t consumed = 0;

        if (nss_parse_passwd(body + pos, size - pos, &consumed, &pw, buf, buflen) != 0) {
            break;
        }
        pos += consumed;
    }
    for (pos = 8; pos < size;) {
        size_t consumed = 0;

        if (nss_parse_group(body + pos, size - pos, &consumed, &gr, buf, buflen) != 0) {
            break;
        }
        pos += consumed;
    }

    if (nss_parse_initgr(body, size, &gids, &count) == 0) {
        start = 1;
        gsize = 1;
        groups = malloc(sizeof(gid_t));
        if (groups != NULL) {
            groups[0] = 0;
            (void)nss_add_gids(gids, count, &start, &gsize, &groups, (long int)(buflen % 64));
            free(groups);
        }
    }

    free(body);
    free(buf);
    return 0;
}
