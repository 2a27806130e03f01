/*
 * group answers: a group found by cache_req becomes one group record (members formatted
 * and filtered by nss_format_gr()) in the reply and in the memory cache.
 */
#include "responder/nss/nss_private.h"

errno_t nss_gr_answer(struct nss_ctx *nctx, struct nss_reply *reply,
                      struct cache_req_result *res, const struct nss_request *nreq)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    const struct nss_gr_entry *kept;
    struct nss_gr_entry gr;
    uint32_t ttl;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    kept = nss_grcache_get(nctx->grcache, res->domain, res->group, res->gen);
    if (kept != NULL) {
        gr = *kept;
    } else {
        ret = nss_format_gr(tmp_ctx, nctx->fmt, nctx->rctx, res->domain, res->group, &gr);
        if (ret != EOK) {
            goto done;
        }
        nss_grcache_put(nctx->grcache, res->domain, res->group, res->gen, &gr);
    }
    ret = nss_reply_group_add(reply, &gr);
    if (ret != EOK) {
        goto done;
    }
    ttl = nss_mc_record_ttl(nctx, res);
    if (ttl > 0) {
        ret = nss_mc_store_group_keys(nctx->mc[NSS_MC_GROUP], &gr, ttl,
                                      nss_mc_record_keys(nctx, res, nreq, gr.name, gr.gid,
                                                         false));
        if (ret != EOK) {
            DEBUG(SSSDBG_MINOR_FAILURE, "Memory cache: cannot store group %s: %s\n", gr.name,
                  sss_strerror(ret));
            ret = EOK;
        }
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}
