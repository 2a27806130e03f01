/*
 * Enumeration: SETPWENT / SETGRENT take a snapshot of the users (groups) cached in every
 * domain with enumerate = true, in domain order, into the client's state; GETPWENT /
 * GETGRENT(count) return up to count records from the client's cursor (an empty reply at
 * the end); ENDPWENT / ENDGRENT drop the snapshot. No back-end call is made: back-ends of
 * enumerating domains refresh their caches in the background. Domains without enumerate
 * contribute nothing (SSSD's default). A GET*ENT without SET*ENT takes the snapshot first.
 * Filtered users and groups are left out; nothing here is stored in the memory cache
 * (SSSD does not either).
 */
#include "responder/nss/nss_private.h"
#include "responder/common/resp_names.h"
#include "sss_client/sss_cli.h"

static bool nss_enum_is_pw(uint32_t cmd)
{
    return cmd == SSS_NSS_SETPWENT || cmd == SSS_NSS_GETPWENT || cmd == SSS_NSS_ENDPWENT;
}

static struct nss_enum_client *nss_enum_client(struct resp_request *rreq, bool create)
{
    struct resp_client *cli = resp_request_client(rreq);
    struct nss_enum_client *ec = resp_client_get_data(cli);

    if (ec == NULL && create) {
        ec = talloc_zero(NULL, struct nss_enum_client);
        if (ec != NULL) {
            resp_client_set_data(cli, ec);
        }
    }
    return ec;
}

static errno_t nss_enum_add_domain(struct nss_ctx *nctx, struct nss_enum_list *list,
                                   struct resp_domain *dom, bool pw)
{
    struct resp_ctx *rctx = nctx->rctx;
    struct sysdb_user **users = NULL;
    struct sysdb_group **groups = NULL;
    struct sysdb_ctx *sysdb;
    TALLOC_CTX *tmp_ctx;
    char *short_name;
    size_t count = 0;
    size_t i;
    bool filtered;
    errno_t ret;

    ret = resp_domain_sysdb(rctx, dom, &sysdb);
    if (ret != EOK) {
        return ret;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = pw ? sysdb_enumerate_users(list, sysdb, &users, &count)
             : sysdb_enumerate_groups(list, sysdb, &groups, &count);
    if (ret != EOK) {
        goto done;
    }
    list->items = talloc_realloc(list, list->items, struct nss_enum_item,
                                 list->count + count + 1);
    if (list->items == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < count; i++) {
        ret = sysdb_short_name(tmp_ctx, sysdb, pw ? users[i]->name : groups[i]->name,
                               &short_name);
        if (ret != EOK) {
            goto done;
        }
        filtered = pw ? resp_user_is_filtered(rctx, dom, short_name)
                      : resp_group_is_filtered(rctx, dom, short_name);
        if (filtered) {
            continue;
        }
        list->items[list->count].dom = dom;
        list->items[list->count].user = pw ? users[i] : NULL;
        list->items[list->count].group = pw ? NULL : groups[i];
        list->count++;
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t nss_enum_snapshot(struct nss_ctx *nctx, struct nss_enum_client *ec, bool pw)
{
    struct nss_enum_list *list;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(nctx != NULL && ec != NULL, EINVAL);
    list = talloc_zero(ec, struct nss_enum_list);
    if (list == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < nctx->rctx->num_domains; i++) {
        if (!nctx->rctx->domains[i].enumerate) {
            continue;
        }
        ret = nss_enum_add_domain(nctx, list, &nctx->rctx->domains[i], pw);
        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "Cannot enumerate domain %s: %s\n",
                  nctx->rctx->domains[i].name, sss_strerror(ret));
        }
    }
    if (pw) {
        talloc_free(ec->pw);
        ec->pw = list;
    } else {
        talloc_free(ec->gr);
        ec->gr = list;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Enumeration of %s: %zu entries\n", pw ? "users" : "groups",
          list->count);
    return EOK;
}

errno_t nss_cmd_setent(struct resp_request *rreq)
{
    struct nss_ctx *nctx = talloc_get_type(resp_request_pvt(rreq), struct nss_ctx);
    struct nss_enum_client *ec = nss_enum_client(rreq, true);
    errno_t ret;

    nss_probe_start(rreq, NULL);
    if (ec == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = nss_enum_snapshot(nctx, ec, nss_enum_is_pw(resp_request_cmd(rreq)));
    if (ret != EOK) {
        goto done;
    }
    ret = resp_request_done_status(rreq, 0);
done:
    nss_probe_done(rreq, NULL, ret, 0, NULL);
    return ret;
}

/* Adds the record of one snapshot item to reply. */
static errno_t nss_enum_add_item(struct nss_ctx *nctx, struct nss_enum_item *it, bool pw,
                                 struct nss_reply *reply)
{
    TALLOC_CTX *tmp_ctx;
    struct nss_pw_entry pwe;
    struct nss_gr_entry gre;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    if (pw) {
        ret = nss_format_pw(tmp_ctx, nctx->fmt, nctx->rctx, it->dom, it->user, &pwe);
        if (ret != EOK) {
            goto done;
        }
        ret = nss_reply_passwd_add(reply, &pwe);
    } else {
        ret = nss_format_gr(tmp_ctx, nctx->fmt, nctx->rctx, it->dom, it->group, &gre);
        if (ret != EOK) {
            goto done;
        }
        ret = nss_reply_group_add(reply, &gre);
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t nss_enum_fill(struct nss_ctx *nctx, struct nss_enum_list *list, bool pw,
                      uint32_t count, struct nss_reply *reply)
{
    uint32_t n;
    errno_t ret;

    SSS_CHECK_ARG(nctx != NULL && list != NULL && reply != NULL, EINVAL);
    for (n = 0; n < count && list->pos < list->count; n++) {
        ret = nss_enum_add_item(nctx, &list->items[list->pos++], pw, reply);
        if (ret != EOK) {
            return ret;
        }
    }
    return EOK;
}

/* GET*ENT without its probes: the reply, or an error that closes the connection. */
static errno_t nss_getent(struct resp_request *rreq, struct nss_request *nreq,
                          unsigned int *_entries)
{
    struct nss_ctx *nctx = talloc_get_type(resp_request_pvt(rreq), struct nss_ctx);
    struct nss_enum_client *ec;
    struct nss_enum_list *list;
    struct nss_reply *reply;
    bool pw;
    errno_t ret;

    pw = nss_enum_is_pw(nreq->cmd);
    ec = nss_enum_client(rreq, true);
    if (ec == NULL) {
        return ENOMEM;
    }
    if ((pw ? ec->pw : ec->gr) == NULL) {
        ret = nss_enum_snapshot(nctx, ec, pw);
        if (ret != EOK) {
            return ret;
        }
    }
    list = pw ? ec->pw : ec->gr;
    reply = nss_reply_new(rreq, nreq->cmd, nctx->pwfield);
    if (reply == NULL) {
        return ENOMEM;
    }
    ret = nss_enum_fill(nctx, list, pw, nreq->count, reply);
    if (ret != EOK) {
        talloc_free(reply);
        return ret;
    }
    *_entries = nss_reply_num_results(reply);
    return resp_request_done(rreq, nss_reply_finish(rreq, reply));
}

errno_t nss_cmd_getent(struct resp_request *rreq)
{
    struct nss_request nreq;
    unsigned int entries = 0;
    const uint8_t *body;
    size_t len;
    errno_t ret;

    nss_probe_start(rreq, NULL);
    body = resp_request_body(rreq, &len);
    ret = nss_request_parse(resp_request_cmd(rreq), body, len, &nreq);
    if (ret != EOK) {
        /* Only a malformed count can fail here: the connection is closed. */
        nss_probe_done(rreq, NULL, EBADMSG, 0, NULL);
        return EBADMSG;
    }
    ret = nss_getent(rreq, &nreq, &entries);
    nss_probe_done(rreq, NULL, ret, entries, NULL);
    return ret;
}

errno_t nss_cmd_endent(struct resp_request *rreq)
{
    struct nss_enum_client *ec = nss_enum_client(rreq, false);
    errno_t ret;

    nss_probe_start(rreq, NULL);
    if (ec != NULL) {
        if (nss_enum_is_pw(resp_request_cmd(rreq))) {
            talloc_zfree(ec->pw);
        } else {
            talloc_zfree(ec->gr);
        }
    }
    ret = resp_request_done_status(rreq, 0);
    nss_probe_done(rreq, NULL, ret, 0, NULL);
    return ret;
}
