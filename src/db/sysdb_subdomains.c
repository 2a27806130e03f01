/*
 * sysdb subdomains (sysdb_subdomains.h): one multi-valued attribute of the domain's cache
 * entry (cn=sysdb), a value "NAME FLAT SID DIRECTION TYPE ATTRIBUTES" per trusted domain.
 * A forest has a handful of trusts and the list is rewritten whole at each refresh (every
 * few hours): one replace of the attribute is all it needs.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "db/sysdb_private.h"
#include "db/sysdb_subdomains.h"

#define SYSDB_A_SUBDOM "trustedDomain"

static bool subdom_field_valid(const char *s)
{
    size_t len = s != NULL ? strlen(s) : 0;

    return len > 0 && len <= SYSDB_NAME_MAX && strchr(s, ' ') == NULL
           && sysdb_utf8_valid(s, len);
}

static bool subdom_u32(const char *s, uint32_t *_v)
{
    char *end = NULL;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || *s == '\0' || *s == '-' || *end != '\0' || v > UINT32_MAX) {
        return false;
    }
    *_v = (uint32_t)v;
    return true;
}

/* "NAME FLAT SID DIR TYPE ATTRS" -> its parts (pointing into a copy on mem_ctx). */
static errno_t subdom_parse(TALLOC_CTX *mem_ctx, const struct ldb_val *val,
                            struct sysdb_subdom *_sub)
{
    char *parts[6];
    char *copy;
    char *p;
    size_t i;

    copy = talloc_strndup(mem_ctx, (const char *)val->data, val->length);
    if (copy == NULL) {
        return ENOMEM;
    }
    for (i = 0, p = copy; i < 6; i++) {
        parts[i] = p;
        p = strchr(p, ' ');
        if ((p == NULL) != (i == 5)) {
            return EINVAL;
        }
        if (p != NULL) {
            *p++ = '\0';
        }
    }
    for (i = 0; i < 3; i++) {
        if (!subdom_field_valid(parts[i])) {
            return EINVAL;
        }
    }
    if (!subdom_u32(parts[3], &_sub->direction) || !subdom_u32(parts[4], &_sub->type)
            || !subdom_u32(parts[5], &_sub->attributes)) {
        return EINVAL;
    }
    _sub->name = parts[0];
    _sub->flat = parts[1];
    _sub->sid = parts[2];
    return EOK;
}

errno_t sysdb_subdom_replace(struct sysdb_ctx *sysdb, const struct sysdb_subdom *subs,
                             size_t n)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    char *value;
    size_t i;
    int lret;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && (subs != NULL || n == 0), EINVAL);
    for (i = 0; i < n; i++) {
        SSS_CHECK_ARG(subdom_field_valid(subs[i].name) && subdom_field_valid(subs[i].flat)
                      && subdom_field_valid(subs[i].sid), EINVAL);
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    msg = sysdb_msg_new(tmp_ctx, sysdb, SYSDB_BASE_DN);
    if (msg == NULL) {
        ret = ENOMEM;
        goto done;
    }
    lret = ldb_msg_add_empty(msg, SYSDB_A_SUBDOM, LDB_FLAG_MOD_REPLACE, NULL);
    for (i = 0; lret == LDB_SUCCESS && i < n; i++) {
        value = talloc_asprintf(msg, "%s %s %s %" PRIu32 " %" PRIu32 " %" PRIu32,
                                subs[i].name, subs[i].flat, subs[i].sid, subs[i].direction,
                                subs[i].type, subs[i].attributes);
        lret = value == NULL ? LDB_ERR_OPERATIONS_ERROR
                             : ldb_msg_add_string(msg, SYSDB_A_SUBDOM, value);
    }
    if (lret != LDB_SUCCESS) {
        ret = ENOMEM;
        goto done;
    }
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    /* REPLACE with no value removes the attribute: the last trust gone. */
    ret = sysdb_write_entry(sysdb, msg, SYSDB_EXISTS_YES);
    ret = sysdb_transaction_end(sysdb, ret);
done:
    talloc_free(tmp_ctx);
    return ret;
}

static errno_t subdom_read(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                           struct ldb_message_element **_el)
{
    const char *attrs[] = { SYSDB_A_SUBDOM, NULL };
    struct ldb_message *msg;
    struct ldb_dn *dn;
    errno_t ret;

    dn = ldb_dn_new(mem_ctx, sysdb->ldb, SYSDB_BASE_DN);
    if (dn == NULL) {
        return ENOMEM;
    }
    ret = sysdb_read_entry(mem_ctx, sysdb, dn, attrs, &msg);
    if (ret != EOK) {
        return ret;
    }
    *_el = ldb_msg_find_element(msg, SYSDB_A_SUBDOM);
    return EOK;
}

errno_t sysdb_subdom_list(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                          struct sysdb_subdom **_subs, size_t *_n)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message_element *el = NULL;
    struct sysdb_subdom *subs;
    size_t n = 0;
    unsigned int i;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && _subs != NULL && _n != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = subdom_read(tmp_ctx, sysdb, &el);
    if (ret != EOK) {
        goto done;
    }
    subs = talloc_zero_array(tmp_ctx, struct sysdb_subdom, el != NULL ? el->num_values + 1 : 1);
    if (subs == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; el != NULL && i < el->num_values; i++) {
        ret = subdom_parse(subs, &el->values[i], &subs[n]);
        if (ret == ENOMEM) {
            goto done;
        }
        if (ret != EOK) {
            DEBUG(SSSDBG_CRIT_FAILURE, "%s: a malformed trusted domain record skipped\n",
                  sysdb->path);
            continue;
        }
        n++;
    }
    *_subs = talloc_steal(mem_ctx, subs);
    *_n = n;
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_subdom_find(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                          struct sysdb_subdom *_sub)
{
    struct sysdb_subdom *subs = NULL;
    size_t n = 0;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && name != NULL && _sub != NULL, EINVAL);
    ret = sysdb_subdom_list(mem_ctx, sysdb, &subs, &n);
    if (ret != EOK) {
        return ret;
    }
    for (i = 0; i < n; i++) {
        if (strcasecmp(subs[i].name, name) == 0 || strcasecmp(subs[i].flat, name) == 0) {
            *_sub = subs[i];
            return EOK;     /* the strings stay on subs, on mem_ctx */
        }
    }
    talloc_free(subs);
    return ENOENT;
}

errno_t sysdb_subdom_purge(struct sysdb_ctx *sysdb, const char *name, size_t *_removed)
{
    static const enum sysdb_kind kinds[] = { SYSDB_KIND_USER, SYSDB_KIND_GROUP };
    /* The name is the RDN (plus the name attribute when the case is preserved). */
    const char *const attrs[] = { SYSDB_A_NAME, NULL };
    TALLOC_CTX *tmp_ctx;
    struct ldb_message **msgs = NULL;
    size_t removed = 0;
    size_t count = 0;
    size_t slen;
    size_t nlen;
    size_t i;
    size_t k;
    const char *n;
    char *short_name;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && subdom_field_valid(name) && _removed != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    slen = strlen(name);
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    for (k = 0; ret == EOK && k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        ret = sysdb_search_all(tmp_ctx, sysdb, kinds[k], attrs, &msgs, &count);
        for (i = 0; ret == EOK && i < count; i++) {
            /* The stored name is "NAME@b.test" + "@" + this cache's domain. */
            n = sysdb_msg_name(sysdb, msgs[i]);
            if (n == NULL || sysdb_short_name(tmp_ctx, sysdb, n, &short_name) != EOK) {
                continue;
            }
            n = short_name;
            nlen = strlen(n);
            if (nlen <= slen + 1 || n[nlen - slen - 1] != '@'
                    || strcasecmp(n + nlen - slen, name) != 0) {
                continue;
            }
            ret = sysdb_delete_by_name(sysdb, kinds[k], n);
            if (ret == ENOENT) {
                ret = EOK;      /* a group removed with... nothing: gone already */
                continue;
            }
            removed += ret == EOK ? 1 : 0;
        }
    }
    ret = sysdb_transaction_end(sysdb, ret);
    if (ret == EOK) {
        *_removed = removed;
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}
