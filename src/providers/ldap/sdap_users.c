/*
 * Looking up one user, by name or by uid, under ldap_user_search_base:
 * (&(objectClass=<user oc>)(<name attr>=<escaped name>)<ldap_user_search_filter>) or the
 * same with the uid number. The request is sdap_id_lookup_one's own, and its entry is
 * parsed when the result is read: no entry gives ENOENT; several entries give EINVAL
 * (logged as a duplicate: the directory is inconsistent and guessing could hand out the
 * wrong identity); one unusable entry (see sdap_schema.c) gives ENOENT.
 */
#include "util/util.h"
#include "providers/ldap/sdap_private.h"

struct tevent_req *sdap_get_user_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                      struct sdap_id_ctx *id_ctx, enum sdap_by by,
                                      const char *name, uint32_t id)
{
    return sdap_id_lookup_one_send(mem_ctx, ev, id_ctx, SDAP_KIND_USERS, by, name, id);
}

errno_t sdap_get_user_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                           struct sdap_user **_user)
{
    TALLOC_CTX *tmp_ctx;
    const struct sdap_options *opts = NULL;
    struct sdap_entry *entry = NULL;
    errno_t ret;

    if (!SSS_ARG_VALID(_user != NULL)) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sdap_id_lookup_one_recv(tmp_ctx, req, &opts, &entry);
    if (ret != EOK) {
        goto done;
    }
    ret = sdap_parse_user(mem_ctx, opts, entry, _user);
    if (ret == EINVAL) {
        ret = ENOENT;   /* unusable entry, logged */
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}
