/*
 * sysdb netgroups (sysdb_netgroups.h): one entry per netgroup under cn=netgroups, keyed like
 * users and groups by the short key form of the name: a sysdb kind without ids
 * (SYSDB_KIND_NETGROUP), so DNs, the store's message, delete and expiry are the code users
 * and groups share. Triples and member netgroup names are two packed values
 * (NUL-terminated strings back to back), as group member lists are. No index is needed:
 * lookups are by DN; the listing for sss_cache -N is a one-level scan of the container.
 */
#include "config.h"

#include <ctype.h>

#include "db/sysdb_private.h"
#include "db/sysdb_netgroups.h"

#define SYSDB_A_NG_TRIPLES "ngTriples"
#define SYSDB_A_NG_MEMBERS "ngMembers"

static const char *const sysdb_netgr_attrs[] = {
    SYSDB_A_NAME, SYSDB_A_NG_TRIPLES, SYSDB_A_NG_MEMBERS, SYSDB_A_ORIG_DN,
    SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE, NULL
};

errno_t sysdb_store_netgroup(struct sysdb_ctx *sysdb, const struct sysdb_netgroup *ng,
                             time_t now, uint32_t cache_timeout)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    const char *stored;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && ng != NULL && ng->name != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_entry_msg(tmp_ctx, sysdb, SYSDB_KIND_NETGROUP, ng->name, 0, &msg, &stored);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_set_packed(msg, SYSDB_A_NG_TRIPLES, ng->triples, "netgroup triples");
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_set_packed(msg, SYSDB_A_NG_MEMBERS, ng->members, "netgroup members");
    if (ret != EOK) {
        goto done;
    }
    if (ng->orig_dn != NULL && (strlen(ng->orig_dn) > SYSDB_ATTR_MAX
                                || !sysdb_utf8_valid(ng->orig_dn, strlen(ng->orig_dn)))) {
        ret = EINVAL;
        goto done;
    }
    ret = sysdb_msg_set_str(msg, SYSDB_A_ORIG_DN, ng->orig_dn);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_set_times(msg, SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE, now,
                              (uint64_t)now + cache_timeout);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_write_entry(sysdb, msg, SYSDB_EXISTS_UNKNOWN);
    ret = sysdb_transaction_end(sysdb, ret);

done:
    talloc_free(tmp_ctx);
    return ret;
}

static errno_t sysdb_msg_to_netgroup(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                     struct ldb_message *msg, struct sysdb_netgroup **_ng)
{
    struct sysdb_netgroup *ng;
    size_t count;
    errno_t ret;

    ng = talloc_zero(mem_ctx, struct sysdb_netgroup);
    if (ng == NULL) {
        return ENOMEM;
    }
    talloc_steal(ng, msg);
    ng->name = sysdb_msg_name(sysdb, msg);
    if (ng->name == NULL) {
        ret = EIO;
        goto done;
    }
    ret = sysdb_msg_times(msg, SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE, &ng->last_update,
                          &ng->expire);
    if (ret != EOK) {
        goto done;
    }
    ng->orig_dn = sysdb_msg_str(msg, SYSDB_A_ORIG_DN);
    ret = sysdb_msg_names(ng, msg, SYSDB_A_NG_TRIPLES, &ng->triples, &count);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_names(ng, msg, SYSDB_A_NG_MEMBERS, &ng->members, &count);

done:
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Malformed netgroup entry %s\n",
              ldb_dn_get_linearized(msg->dn));
        talloc_free(ng);
        return ret;
    }
    *_ng = ng;
    return EOK;
}

errno_t sysdb_get_netgroup(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                           struct sysdb_netgroup **_ng)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    struct ldb_dn *dn;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && name != NULL && _ng != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_name_dn(tmp_ctx, sysdb, SYSDB_KIND_NETGROUP, name, &dn);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_read_entry(tmp_ctx, sysdb, dn, sysdb_netgr_attrs, &msg);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_to_netgroup(mem_ctx, sysdb, msg, _ng);

done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_delete_netgroup(struct sysdb_ctx *sysdb, const char *name)
{
    return sysdb_delete_by_name(sysdb, SYSDB_KIND_NETGROUP, name);
}

errno_t sysdb_expire_netgroup(struct sysdb_ctx *sysdb, const char *name)
{
    return sysdb_expire_by_name(sysdb, SYSDB_KIND_NETGROUP, name);
}

errno_t sysdb_expire_all_netgroups(struct sysdb_ctx *sysdb)
{
    return sysdb_expire_all(sysdb, SYSDB_KIND_NETGROUP);
}

errno_t sysdb_list_netgroups(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                             const char ***_names, size_t *_count)
{
    static const char *const attrs[] = { SYSDB_A_NAME, NULL };
    TALLOC_CTX *tmp_ctx;
    struct ldb_message **msgs = NULL;
    const char **names;
    const char *name;
    size_t count = 0;
    size_t n = 0;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && _names != NULL && _count != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_search_all(tmp_ctx, sysdb, SYSDB_KIND_NETGROUP, attrs, &msgs, &count);
    if (ret != EOK) {
        goto done;
    }
    names = talloc_zero_array(tmp_ctx, const char *, count + 1);
    if (names == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < count; i++) {
        name = sysdb_msg_name(sysdb, msgs[i]);
        if (name != NULL) {
            names[n++] = talloc_steal(names, name);
        }
    }
    *_names = talloc_steal(mem_ctx, names);
    *_count = n;

done:
    talloc_free(tmp_ctx);
    return ret;
}

/* One field of a triple up to delim, trimmed; NULL when empty. Moves *p past delim. */
static errno_t sysdb_netgr_field(TALLOC_CTX *mem_ctx, const char **p, char delim, char **_out)
{
    const char *s = *p;
    const char *begin;
    size_t len;

    while (*s != '\0' && isspace((unsigned char)*s)) {
        s++;
    }
    begin = s;
    while (*s != '\0' && *s != delim) {
        s++;
    }
    if (*s == '\0') {
        return EINVAL;
    }
    len = (size_t)(s - begin);
    while (len > 0 && isspace((unsigned char)begin[len - 1])) {
        len--;
    }
    *_out = NULL;
    if (len > 0) {
        *_out = talloc_strndup(mem_ctx, begin, len);
        if (*_out == NULL) {
            return ENOMEM;
        }
    }
    *p = s + 1;
    return EOK;
}

errno_t sysdb_netgr_split_triple(TALLOC_CTX *mem_ctx, const char *triple, char **_host,
                                 char **_user, char **_domain)
{
    TALLOC_CTX *tmp_ctx;
    const char *p = triple;
    char *host = NULL;
    char *user = NULL;
    char *domain = NULL;
    errno_t ret;

    SSS_CHECK_ARG(triple != NULL && _host != NULL && _user != NULL && _domain != NULL,
                  EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    while (*p != '\0' && isspace((unsigned char)*p)) {
        p++;
    }
    if (*p != '(') {
        ret = EINVAL;
        goto done;
    }
    p++;
    ret = sysdb_netgr_field(tmp_ctx, &p, ',', &host);
    if (ret == EOK) {
        ret = sysdb_netgr_field(tmp_ctx, &p, ',', &user);
    }
    if (ret == EOK) {
        ret = sysdb_netgr_field(tmp_ctx, &p, ')', &domain);
    }
    if (ret != EOK) {
        goto done;
    }
    while (*p != '\0' && isspace((unsigned char)*p)) {
        p++;
    }
    if (*p != '\0') {
        ret = EINVAL;
        goto done;
    }
    *_host = talloc_steal(mem_ctx, host);
    *_user = talloc_steal(mem_ctx, user);
    *_domain = talloc_steal(mem_ctx, domain);

done:
    talloc_free(tmp_ctx);
    return ret;
}
