/*
 * libFuzzer harness for the sssd.conf parser: any bytes go to confdb_parse_buffer(); when
 * they make a valid configuration, a few typed lookups run over it, including each listed
 * domain's provider defaults. Everything hangs off one talloc context, freed per input.
 * Built apart from the Makefile, with the confdb and util sources compiled in.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/util.h"
#include "confdb/confdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_lookups(TALLOC_CTX *mem_ctx, struct confdb *cdb)
{
    const char *const *warnings;
    char **domains = NULL;
    char **services = NULL;
    char **list = NULL;
    char *section;
    char *value = NULL;
    uint32_t u;
    bool b;
    int i;
    size_t n;

    warnings = confdb_warnings(cdb);
    for (n = 0; warnings[n] != NULL; n++) {
        if (strchr(warnings[n], '\n') != NULL) {
            abort();            /* a warning is one line */
        }
    }

    (void)confdb_get_int(cdb, "sssd", "debug_level", &i);
    (void)confdb_get_int(cdb, "nss", "entry_negative_timeout", &i);
    (void)confdb_get_bool(cdb, "pam", "pam_cert_auth", &b);
    (void)confdb_get_list(cdb, mem_ctx, "nss", "filter_users", &list);
    (void)confdb_get_services(cdb, mem_ctx, &services);
    if (confdb_get_domains(cdb, mem_ctx, &domains) != EOK) {
        abort();                /* a loaded configuration always has domains */
    }
    for (n = 0; domains[n] != NULL; n++) {
        section = confdb_domain_section(mem_ctx, domains[n]);
        if (section == NULL) {
            continue;
        }
        if (confdb_get_string(cdb, mem_ctx, section, "id_provider", &value) != EOK ||
            value == NULL) {
            abort();            /* required at load */
        }
        (void)confdb_get_string(cdb, mem_ctx, section, "chpass_provider", &value);
        (void)confdb_get_string(cdb, mem_ctx, section, "sudo_provider", &value);
        (void)confdb_get_string(cdb, mem_ctx, section, "ldap_group_member", &value);
        (void)confdb_get_list(cdb, mem_ctx, section, "ldap_uri", &list);
        (void)confdb_get_int(cdb, section, "entry_cache_user_timeout", &i);
        (void)confdb_get_uint32(cdb, section, "max_id", &u);
        (void)confdb_get_bool(cdb, section, "enumerate", &b);
        (void)confdb_is_set(cdb, section, "ldap_schema");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    TALLOC_CTX *mem_ctx;
    struct confdb *cdb = NULL;
    char *error = NULL;
    errno_t ret;

    debug_level = 0;
    mem_ctx = talloc_new(NULL);
    if (mem_ctx == NULL) {
        return 0;
    }
    ret = confdb_parse_buffer(mem_ctx, "fuzz.conf", (const char *)data, size, &cdb, &error);
    if (ret == EOK) {
        if (cdb == NULL || error != NULL) {
            abort();
        }
        fuzz_lookups(mem_ctx, cdb);
    } else if (ret == ERR_INVALID_CONFIG) {
        if (error == NULL || strchr(error, '\n') != NULL) {
            abort();            /* one line, always */
        }
    } else if (ret != ENOMEM) {
        abort();
    }
    talloc_free(mem_ctx);
    return 0;
}
