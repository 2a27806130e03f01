/*
 * The trusted domains of the configured domains, as the responders see them: the list a
 * domain's back-end records in the domain's cache (sysdb_subdomains.h, ad_subdomains.c).
 * Read when a name's '@' suffix is no configured domain, the only time it matters: such
 * names were "not found" (or an e-mail address) before, so the path of every other name
 * is untouched, and the list read is always the back-end's latest (no signal to miss).
 * A domain whose cache file does not exist yet is skipped: opening would create it, and
 * only its back-end creates a cache. A down-level name ("B\dave") is read here too, only
 * when it has a backslash.
 */
#include <strings.h>
#include <sys/stat.h>

#include "responder/common/responder_domains.h"
#include "db/sysdb_subdomains.h"

struct resp_domain *resp_domain_trusting(struct resp_ctx *rctx, TALLOC_CTX *mem_ctx,
                                         const char *name, char **_dns_name)
{
    struct sysdb_subdom sub;
    struct sysdb_ctx *sysdb;
    struct stat st;
    TALLOC_CTX *tmp_ctx;
    struct resp_domain *found = NULL;
    char *path;
    size_t i;

    SSS_CHECK_ARG(rctx != NULL && _dns_name != NULL, NULL);
    if (name == NULL || name[0] == '\0') {
        return NULL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return NULL;
    }
    for (i = 0; found == NULL && i < rctx->num_domains; i++) {
        struct resp_domain *dom = &rctx->domains[i];

        if (dom->sysdb == NULL) {
            path = talloc_asprintf(tmp_ctx, "%s/cache_%s.ldb", rctx->db_dir, dom->name);
            if (path == NULL || stat(path, &st) != 0) {
                continue;
            }
        }
        if (resp_domain_sysdb(rctx, dom, &sysdb) != EOK) {
            continue;
        }
        /* By its DNS name or its flat (NetBIOS) name, as SSSD's domain part matches. */
        if (sysdb_subdom_find(tmp_ctx, sysdb, name, &sub) != EOK) {
            continue;
        }
        /* A trusted domain configured itself is its own back-end's, not the trusting
         * domain's (whose back-end does not route to it either, ad_subdom_route). */
        found = resp_domain_find(rctx, sub.name);
        if (found != NULL) {
            *_dns_name = NULL;
        } else {
            *_dns_name = talloc_strdup(mem_ctx, sub.name);
            found = *_dns_name != NULL ? dom : NULL;
        }
    }
    talloc_free(tmp_ctx);
    return found;
}
