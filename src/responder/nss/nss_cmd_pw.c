/*
 * passwd answers: a user found by cache_req becomes one passwd record in the reply and in
 * the memory cache (nss_mc_record_ttl() decides whether and for how long,
 * nss_mc_record_keys() under which keys). And its original data for libsss_nss_idmap
 * (GETORIGBYNAME, GETORIGBYUSERNAME), as SSSD 2.8 sends it (nss_protocol_fill_orig): its
 * fixed attributes in SSSD's order where we have them (objectSIDString, mail, originalDN),
 * then every value of each attribute [nss] user_attributes names, from the user's
 * ldap_user_extra_attrs; no memory cache. GETORIGBYNAME of a group: nss_cmd_sid.c.
 */
#include <strings.h>

#include "responder/nss/nss_sid.h"

/* The attribute user_attributes[i] names ("+name": name), or NULL: "-name" (it removes
 * from InfoPipe's defaults; NSS has none), or named before (sent once). */
static const char *nss_orig_wanted(char **user_attributes, size_t i)
{
    const char *want = user_attributes[i] + (user_attributes[i][0] == '+');
    size_t k;

    if (want[0] == '-') {
        return NULL;
    }
    for (k = 0; k < i; k++) {
        if (strcasecmp(user_attributes[k] + (user_attributes[k][0] == '+'), want) == 0) {
            return NULL;
        }
    }
    return want;
}

/* Appends name, value to pairs (n so far). */
static void nss_orig_put(const char **pairs, size_t *n, const char *name, const char *value)
{
    if (value != NULL) {
        pairs[(*n)++] = name;
        pairs[(*n)++] = value;
    }
}

errno_t nss_orig_answer(struct nss_ctx *nctx, struct nss_reply *reply,
                        struct cache_req_result *res)
{
    const struct sysdb_user *u = res->user;
    const char *want;
    const char **pairs;
    char *sid = NULL;
    size_t num_extra = 0;
    size_t n = 0;
    size_t i, j;
    errno_t ret;

    while (u->extra != NULL && u->extra[num_extra] != NULL) {
        num_extra++;
    }
    pairs = talloc_zero_array(NULL, const char *, 6 + num_extra + 1);
    if (pairs == NULL) {
        return ENOMEM;
    }
    /* SSSD sends the SID first; a user without one (none stored, not mapped) is sent
     * without. */
    ret = nss_sid_of_entry(pairs, nctx, res->domain, u->sid, u->uid, &sid);
    if (ret == ENOMEM) {
        goto done;
    }
    nss_orig_put(pairs, &n, "objectSIDString", sid);
    nss_orig_put(pairs, &n, "mail", u->email);
    nss_orig_put(pairs, &n, "originalDN", u->orig_dn);
    for (i = 0; nctx->user_attributes != NULL && nctx->user_attributes[i] != NULL; i++) {
        want = nss_orig_wanted(nctx->user_attributes, i);
        for (j = 0; want != NULL && j + 1 < num_extra; j += 2) {
            if (strcasecmp(u->extra[j], want) == 0) {
                nss_orig_put(pairs, &n, u->extra[j], u->extra[j + 1]);
            }
        }
    }
    /* BOTH where the user is its own group (auto_private_groups = true), as SSSD. */
    ret = nss_reply_orig_add(reply, nss_sid_type_of(nctx, res->domain, NULL), pairs);
done:
    talloc_free(pairs);
    return ret;
}

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
