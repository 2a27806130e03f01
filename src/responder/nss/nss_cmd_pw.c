/*
 * passwd answers: a user found by cache_req becomes one passwd record in the reply and in
 * the memory cache (nss_mc_record_ttl() decides whether and for how long,
 * nss_mc_record_keys() under which keys).
 */
#include "responder/nss/nss_private.h"

errno_t nss_pw_answer(struct nss_ctx *nctx, struct nss_reply *reply,
                      struct cache_req_result *res, const struct nss_request *nreq)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    struct nss_pw_entry pw;
    uint32_t ttl;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = nss_format_pw(tmp_ctx, nctx->fmt, nctx->rctx, res->domain, res->user, &pw);
    if (ret != EOK) {
        goto done;
    }
    ret = nss_reply_passwd_add(reply, &pw);
    if (ret != EOK) {
        goto done;
    }
    ttl = nss_mc_record_ttl(nctx, res);
    if (ttl > 0) {
        ret = nss_mc_store_passwd_keys(nctx->mc[NSS_MC_PASSWD], &pw, ttl,
                                       nss_mc_record_keys(nctx, res, nreq, pw.name, pw.uid,
                                                          true));
        if (ret != EOK) {
            DEBUG(SSSDBG_MINOR_FAILURE, "Memory cache: cannot store user %s: %s\n", pw.name,
                  sss_strerror(ret));
            ret = EOK;
        }
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}
