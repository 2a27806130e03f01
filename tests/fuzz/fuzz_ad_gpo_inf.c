/* libFuzzer harness: arbitrary bytes as a GPO's GptTmpl.inf read from the DC's SYSVOL into
 * ad_gpo_inf_parse() (src/providers/ad/ad_gpo_policy.c: UTF-16LE or UTF-8, [Privilege
 * Rights]), whose result is applied twice to a resultant policy and checked with
 * ad_gpo_check(); the same bytes, NUL-terminated, as a gPLink value and as a computer DN
 * (ad_gpo_gplink_parse, ad_gpo_som_dns, ad_gpo_candidates) and as a gPCFileSysPath
 * (ad_gpo_smb_uri). Checks that accepted SID lists are NULL-terminated arrays of non-empty
 * strings whose count matches num; ASan catches reads past the input. Needs
 * src/providers/ad/ad_gpo_policy.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "providers/ad/ad_gpo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_settings(const struct ad_gpo_settings *s)
{
    for (int k = 0; k < AD_GPO_NUM_KEYS; k++) {
        if (s->sids[k] == NULL) {
            if (s->num[k] != 0) {
                abort();
            }
            continue;
        }
        for (size_t i = 0; i < s->num[k]; i++) {
            if (s->sids[k][i] == NULL || s->sids[k][i][0] == '\0') {
                abort();
            }
        }
        if (s->sids[k][s->num[k]] != NULL) {
            abort();
        }
    }
}

static void fuzz_inf(const uint8_t *copy, size_t size)
{
    struct ad_gpo_settings *s;
    struct ad_gpo_settings *result;
    const char *groups[] = { "S-1-5-32-544", NULL };

    if (ad_gpo_inf_parse(NULL, copy, size, &s) != EOK) {
        return;
    }
    check_settings(s);
    result = talloc_zero(NULL, struct ad_gpo_settings);
    if (result != NULL && ad_gpo_settings_apply(result, s) == EOK
            && ad_gpo_settings_apply(result, s) == EOK) {
        check_settings(result);
        for (int r = 0; r < AD_GPO_RIGHT_NUM; r++) {
            (void)ad_gpo_check(result, r, r % 2 == 0, "S-1-5-21-1-2-3-1105", groups, 2);
        }
    }
    talloc_free(result);
    talloc_free(s);
}

static void fuzz_ldap_values(const char *str)
{
    struct ad_gpo_link *links;
    struct ad_gpo_som som;
    char **soms;
    char **dns;
    char *uri;
    size_t num;

    if (ad_gpo_gplink_parse(NULL, str, str[0] == '[' && str[1] == 'x', &links, &num) == EOK) {
        som = (struct ad_gpo_som){ .dn = "DC=x", .links = links, .num_links = num };
        if (ad_gpo_candidates(NULL, &som, 1, &dns, &num) == EOK) {
            talloc_free(dns);
        }
        talloc_free(links);
    }
    if (ad_gpo_som_dns(NULL, str, &soms, &num) == EOK) {
        for (size_t i = 0; i < num; i++) {
            if (soms[i] == NULL) {
                abort();
            }
        }
        talloc_free(soms);
    }
    if (ad_gpo_smb_uri(NULL, "dc.example", str, &uri) == EOK) {
        talloc_free(uri);
    }
    (void)ad_gpo_has_security_cse(str);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy;

    /* An exact-size copy: a read past the file is a heap overflow ASan sees. */
    copy = malloc(size > 0 ? size : 1);
    if (copy == NULL) {
        return 0;
    }
    memcpy(copy, data, size);
    fuzz_inf(copy, size);
    free(copy);
    copy = malloc(size + 1);
    if (copy == NULL) {
        return 0;
    }
    memcpy(copy, data, size);
    copy[size] = '\0';
    fuzz_ldap_values((const char *)copy);
    free(copy);
    return 0;
}
