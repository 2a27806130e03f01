/* libFuzzer harness: arbitrary bytes as a DNS answer to an SRV query into sss_srv_parse()
 * (src/util/sss_srv.c, what ad_server = _srv_ reads from the network), then the RFC 2782
 * order of what it accepted. Checks the parser's promises (1..SSS_SRV_MAX_RECORDS records,
 * each target a non-empty host name of [A-Za-z0-9._-]) and aborts when one is broken;
 * ASan catches reads past the input. Needs src/util/sss_srv.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/sss_srv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t fixed_rnd(void *pvt)
{
    uint32_t *s = pvt;

    *s = *s * 1103515245u + 12345u;
    return *s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sss_srv_rec *recs = NULL;
    uint32_t seed = (uint32_t)size;
    uint8_t *copy;
    size_t num = 0;
    uint32_t ttl = 0;
    size_t i;

    /* An exact-size copy: a read past the answer is a heap overflow ASan sees. */
    copy = malloc(size > 0 ? size : 1);
    if (copy == NULL) {
        return 0;
    }
    memcpy(copy, data, size);
    if (sss_srv_parse(NULL, copy, size, &recs, &num, &ttl) == EOK) {
        if (num == 0 || num > SSS_SRV_MAX_RECORDS) {
            abort();
        }
        for (i = 0; i < num; i++) {
            if (recs[i].host == NULL || recs[i].host[0] == '\0'
                    || strspn(recs[i].host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                              "0123456789._-") != strlen(recs[i].host)) {
                abort();
            }
        }
        sss_srv_order(recs, num, fixed_rnd, &seed);
        for (i = 1; i < num; i++) {
            if (recs[i - 1].priority > recs[i].priority) {
                abort();
            }
        }
        talloc_free(recs);
    }
    free(copy);
    return 0;
}
