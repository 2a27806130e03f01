/*
 * initgroups answers: the gids of the groups the user is a member of (deduplicated by
 * cache_req; the primary gid only when the provider listed it: glibc adds it itself), in
 * the reply and in the memory cache, keyed by the name as asked and by the fully qualified
 * name "user@domain".
 */
#include "responder/nss/nss_private.h"

errno_t nss_initgr_answer(struct nss_ctx *nctx, struct nss_reply *reply,
                          struct cache_req_result *res, const char *asked)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    char *unique;
    uint32_t ttl;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = nss_reply_initgr_add(reply, res->gids, res->num_gids);
    if (ret != EOK) {
        goto done;
    }
    ttl = nss_mc_record_ttl(nctx, res);
    if (ttl > 0 && asked != NULL) {
        unique = talloc_asprintf(tmp_ctx, "%s@%s", res->short_name, res->domain->name);
        if (unique == NULL) {
            ret = ENOMEM;
            goto done;
        }
        ret = nss_mc_store_initgr_ttl(nctx->mc[NSS_MC_INITGROUPS], asked, unique, res->gids,
                                      res->num_gids, ttl);
        if (ret != EOK) {
            DEBUG(SSSDBG_MINOR_FAILURE, "Memory cache: cannot store the groups of %s: %s\n",
                  asked, sss_strerror(ret));
            ret = EOK;
        }
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}
