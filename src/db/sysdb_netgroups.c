/*
 * sysdb netgroups (sysdb_netgroups.h): one entry per netgroup under cn=netgroups, keyed like
 * users and groups by the short key form of the name. Triples and member netgroup names are
 * two packed values (NUL-terminated strings back to back), as group member lists are. No
 * index is needed: lookups are by DN; the listing for sss_cache -N is a one-level scan of
 * the container.
 */
#include "config.h"

#include <ctype.h>

#include "db/sysdb_private.h"
#include "db/sysdb_netgroups.h"

#define SYSDB_NETGR_CONTAINER "cn=netgroups"
#define SYSDB_A_NG_TRIPLES "ngTriples"
#define SYSDB_A_NG_MEMBERS "ngMembers"
/* LMDB's key limit on the DN's casefolded form (as sysdb_ldb.c checks for users). */
#define SYSDB_NETGR_DN_MAX 500

static const char *const sysdb_netgr_attrs[] = {
    SYSDB_A_NAME, SYSDB_A_NG_TRIPLES, SYSDB_A_NG_MEMBERS, SYSDB_A_ORIG_DN,
    SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE, NULL
};

static struct ldb_dn *sysdb_netgr_base(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb)
{
    return ldb_dn_new(mem_ctx, sysdb->ldb, SYSDB_NETGR_CONTAINER);
}

/* The DN of the netgroup whose key form is key ("name@domain"). */
static errno_t sysdb_netgr_dn(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *key,
                              struct ldb_dn **_dn)
{
    size_t len = strlen(key);
    struct ldb_dn *dn;
    struct ldb_val val;
    const char *folded;

    if (len <= sysdb->domain_len + 1 || key[len - sysdb->domain_len - 1] != '@') {
        return EINVAL;
    }
    dn = sysdb_netgr_base(mem_ctx, sysdb);
    if (dn == NULL) {
        return ENOMEM;
    }
    val.data = (uint8_t *)discard_const(key);
    val.length = len - sysdb->domain_len - 1;
    if (!ldb_dn_add_child_val(dn, SYSDB_A_NAME, val)) {
        talloc_free(dn);
        return ENOMEM;
    }
    folded = ldb_dn_get_casefold(dn);
    if (folded == NULL) {
        talloc_free(dn);
        return ENOMEM;
    }
    if (strlen(folded) > SYSDB_NETGR_DN_MAX) {
        DEBUG(SSSDBG_OP_FAILURE, "Netgroup name %s is too long for a cache key\n", key);
        talloc_free(dn);
        return EINVAL;
    }
    *_dn = dn;
    return EOK;
}

static errno_t sysdb_netgr_name_dn(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                   const char *name, struct ldb_dn **_dn)
{
    char *key;
    errno_t ret;

    ret = sysdb_name_key(mem_ctx, sysdb, name, &key);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_netgr_dn(mem_ctx, sysdb, key, _dn);
    talloc_free(key);
    return ret;
}

/* Packs a NULL-terminated list of strings (NULL: none) into one value on mem_ctx; *_data
 * NULL and *_len 0 for none. EINVAL for an empty, non-UTF-8 or oversize string. */
static errno_t sysdb_netgr_pack(TALLOC_CTX *mem_ctx, const char *const *list, const char *what,
                                char **_data, size_t *_len)
{
    size_t total = 0;
    size_t n;
    size_t len;
    char *data;
    char *p;

    for (n = 0; list != NULL && list[n] != NULL; n++) {
        len = strlen(list[n]);
        if (len == 0 || len > SYSDB_ATTR_MAX || !sysdb_utf8_valid(list[n], len)) {
            DEBUG(SSSDBG_OP_FAILURE, "Netgroup %s value %zu is empty, too long or not "
                  "UTF-8\n", what, n);
            return EINVAL;
        }
        total += len + 1;
    }
    if (n > SYSDB_LIST_MAX) {
        DEBUG(SSSDBG_OP_FAILURE, "Netgroup has %zu %s, at most %d are kept\n", n, what,
              SYSDB_LIST_MAX);
        return EINVAL;
    }
    if (n == 0) {
        *_data = NULL;
        *_len = 0;
        return EOK;
    }
    data = talloc_size(mem_ctx, total);
    if (data == NULL) {
        return ENOMEM;
    }
    for (p = data, n = 0; list[n] != NULL; n++) {
        len = strlen(list[n]) + 1;
        memcpy(p, list[n], len);
        p += len;
    }
    *_data = data;
    *_len = total;
    return EOK;
}

errno_t sysdb_store_netgroup(struct sysdb_ctx *sysdb, const struct sysdb_netgroup *ng,
                             time_t now, uint32_t cache_timeout)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    char *stored;
    char *key;
    char *data;
    size_t len;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && ng != NULL && ng->name != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    msg = ldb_msg_new(tmp_ctx);
    if (msg == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sysdb_name_stored(tmp_ctx, sysdb, ng->name, &stored);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_name_key(tmp_ctx, sysdb, ng->name, &key);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_netgr_dn(msg, sysdb, key, &msg->dn);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_set_str(msg, SYSDB_A_NAME, sysdb_name_attr(stored, key));
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_netgr_pack(msg, ng->triples, "triples", &data, &len);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_set_val(msg, SYSDB_A_NG_TRIPLES, data, len);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_netgr_pack(msg, ng->members, "members", &data, &len);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_set_val(msg, SYSDB_A_NG_MEMBERS, data, len);
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
    ret = sysdb_netgr_name_dn(tmp_ctx, sysdb, name, &dn);
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
    struct ldb_dn *dn;
    int lret;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && name != NULL, EINVAL);
    ret = sysdb_netgr_name_dn(NULL, sysdb, name, &dn);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    lret = sysdb_ldb_delete(sysdb, dn);
    ret = lret == LDB_ERR_NO_SUCH_OBJECT ? ENOENT : sysdb_ldb_error(sysdb, lret, "Delete");
    ret = sysdb_transaction_end(sysdb, ret);

done:
    talloc_free(dn);
    return ret;
}

/* Inside a transaction: sets the expiry of the entry at dn (which must exist). */
static errno_t sysdb_netgr_expire_dn(struct sysdb_ctx *sysdb, struct ldb_dn *dn)
{
    struct ldb_message *msg;
    errno_t ret;

    msg = ldb_msg_new(NULL);
    if (msg == NULL) {
        return ENOMEM;
    }
    msg->dn = dn;
    ret = sysdb_msg_set_num(msg, SYSDB_A_EXPIRE, SYSDB_EXPIRED_TS);
    if (ret == EOK) {
        ret = sysdb_write_entry(sysdb, msg, SYSDB_EXISTS_YES);
    }
    talloc_free(msg);
    return ret;
}

errno_t sysdb_expire_netgroup(struct sysdb_ctx *sysdb, const char *name)
{
    struct ldb_dn *dn;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && name != NULL, EINVAL);
    ret = sysdb_netgr_name_dn(NULL, sysdb, name, &dn);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_netgr_expire_dn(sysdb, dn);
    ret = sysdb_transaction_end(sysdb, ret);

done:
    talloc_free(dn);
    return ret;
}

/* Every netgroup entry (a one-level scan of the container), reading attrs. */
static errno_t sysdb_netgr_all(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               const char *const *attrs, struct ldb_result **_res)
{
    struct ldb_result *res = NULL;
    struct ldb_dn *base;
    int lret;

    base = sysdb_netgr_base(mem_ctx, sysdb);
    if (base == NULL) {
        return ENOMEM;
    }
    sysdb_ldb_enter();
    lret = ldb_search(sysdb->ldb, mem_ctx, &res, base, LDB_SCOPE_ONELEVEL,
                      discard_const_p(const char *, attrs), NULL);
    sysdb_ldb_leave();
    if (lret == LDB_ERR_NO_SUCH_OBJECT) {
        /* The container is implicit: no netgroup was ever stored. */
        res = talloc_zero(mem_ctx, struct ldb_result);
        if (res == NULL) {
            return ENOMEM;
        }
        lret = LDB_SUCCESS;
    }
    if (lret != LDB_SUCCESS) {
        return sysdb_ldb_error(sysdb, lret, "Netgroup search");
    }
    *_res = res;
    return EOK;
}

errno_t sysdb_expire_all_netgroups(struct sysdb_ctx *sysdb)
{
    static const char *const attrs[] = { SYSDB_A_EXPIRE, NULL };
    TALLOC_CTX *tmp_ctx;
    struct ldb_result *res;
    unsigned int i;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_netgr_all(tmp_ctx, sysdb, attrs, &res);
    for (i = 0; ret == EOK && i < res->count; i++) {
        ret = sysdb_netgr_expire_dn(sysdb, res->msgs[i]->dn);
    }
    ret = sysdb_transaction_end(sysdb, ret);

done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_list_netgroups(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                             const char ***_names, size_t *_count)
{
    static const char *const attrs[] = { SYSDB_A_NAME, NULL };
    TALLOC_CTX *tmp_ctx;
    struct ldb_result *res;
    const char **names;
    const char *name;
    size_t n = 0;
    unsigned int i;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && _names != NULL && _count != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_netgr_all(tmp_ctx, sysdb, attrs, &res);
    if (ret != EOK) {
        goto done;
    }
    names = talloc_zero_array(tmp_ctx, const char *, res->count + 1);
    if (names == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < res->count; i++) {
        name = sysdb_msg_name(sysdb, res->msgs[i]);
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
