/* libFuzzer harness: arbitrary bytes as a CLDAP reply datagram to the AD LDAP ping into
 * sdap_cldap_parse() (src/providers/ldap/sdap_connect_cldap.c: the BER of the LDAP message,
 * then the NETLOGON_SAM_LOGON_RESPONSE_EX in its Netlogon value), and as a Netlogon value
 * alone into sdap_netlogon_parse(). The message id expected is the input's second byte's
 * position in a real reply (1), so real replies parse. Checks the promise that accepted
 * names are NUL-terminated strings no longer than a DNS name; ASan catches reads past the
 * input. Needs src/providers/ldap/sdap_connect_cldap.c. */
#include <arpa/nameser.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "providers/ldap/sdap_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_names(char *site, char *forest)
{
    if (strlen(site) >= NS_MAXDNAME || strlen(forest) >= NS_MAXDNAME) {
        abort();
    }
    talloc_free(site);
    talloc_free(forest);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *site = NULL;
    char *forest = NULL;
    uint8_t *copy;

    /* An exact-size copy: a read past the datagram is a heap overflow ASan sees. */
    copy = malloc(size > 0 ? size : 1);
    if (copy == NULL) {
        return 0;
    }
    memcpy(copy, data, size);
    if (sdap_cldap_parse(NULL, copy, size, 1, &site, &forest) == EOK) {
        check_names(site, forest);
    }
    if (sdap_netlogon_parse(NULL, copy, size, &site, &forest) == EOK) {
        check_names(site, forest);
    }
    free(copy);
    return 0;
}
