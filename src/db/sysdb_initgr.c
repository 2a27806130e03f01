/*
 * sysdb initgroups: a user's group list, the result of its last initgroups lookup, stored on
 * the user entry as packed group names plus the gids those groups had when the list was
 * saved (so a read needs no group entry), with its own update time and expiry. Reads of
 * the user with its gids go through the read cache as one flat entry.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/sysdb_private.h"

static size_t sysdb_names_count(const char *const *names)
{
    size_t n = 0;

    while (names[n] != NULL) {
        n++;
    }
    return n;
}

/* Looks up the gids of the listed groups (packed stored names), writing packed decimals. */
static errno_t sysdb_initgr_gids(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                 const char *names, size_t names_len, size_t count,
                                 char **_gids, size_t *_gids_len)
{
    TALLOC_CTX *tmp_ctx;
    const char *attrs[] = { SYSDB_A_GID, NULL };
    struct ldb_message *msg;
    struct ldb_dn *dn;
    const char *p;
    char *key;
    char *gids;
    size_t glen = 0;
    size_t i;
    uint64_t gid;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    gids = talloc_size(tmp_ctx, count * 11 + 1);
    key = talloc_size(tmp_ctx, sysdb_name_room(sysdb, SYSDB_NAME_MAX + sysdb->domain_len + 1));
    if (gids == NULL || key == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0, p = names; i < count && p < names + names_len; i++, p += strlen(p) + 1) {
        if (sysdb_name_write(sysdb, p, strlen(p), true, key) == 0) {
            ret = EINVAL;
            goto done;
        }
        ret = sysdb_entry_dn(tmp_ctx, sysdb, SYSDB_KIND_GROUP, key, &dn);
        if (ret != EOK) {
            goto done;
        }
        ret = sysdb_read_entry(tmp_ctx, sysdb, dn, attrs, &msg);
        if (ret == ENOENT) {
            DEBUG(SSSDBG_OP_FAILURE, "initgroups lists group %s, which is not cached\n", p);
            goto done;
        }
        if (ret != EOK) {
            goto done;
        }
        ret = sysdb_msg_num(msg, SYSDB_A_GID, UINT32_MAX, &gid);
        if (ret != EOK) {
            goto done;
        }
        glen += (size_t)snprintf(gids + glen, 12, "%" PRIu64, gid) + 1;
        talloc_free(dn);
        talloc_free(msg);
    }
    *_gids = talloc_steal(mem_ctx, gids);
    *_gids_len = glen;
    ret = EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}

/* The gids text of a list whose gids the caller gave (aligned with the names). */
static errno_t sysdb_initgr_given_gids(TALLOC_CTX *mem_ctx, const uint32_t *given,
                                       size_t count, char **_gids, size_t *_gids_len)
{
    char *gids;
    size_t glen = 0;
    size_t i;

    gids = talloc_size(mem_ctx, count * 11 + 1);
    if (gids == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < count; i++) {
        if (given[i] == 0) {
            talloc_free(gids);
            return EINVAL;
        }
        glen += (size_t)snprintf(gids + glen, 12, "%" PRIu32, given[i]) + 1;
    }
    *_gids = gids;
    *_gids_len = glen;
    return EOK;
}

/* The part of an initgroups store inside its transaction: the gids of the list (given, or
 * read from the groups), then the user entry's list attributes. */
static errno_t sysdb_initgr_write(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                  const char *user, const char *const *group_names,
                                  struct sysdb_name_list *list, const uint32_t *given_gids,
                                  struct ldb_message *msg, time_t now, uint32_t cache_timeout)
{
    const char *names;
    size_t names_len;
    size_t count = sysdb_name_list_count(list);
    char *gids = NULL;
    size_t gids_len = 0;
    errno_t ret;

    names = sysdb_name_list_data(list, &names_len);
    /* Given gids are used only when no name was dropped as a duplicate (then they are
     * aligned with the stored list); otherwise each group is read for its gid. */
    if (given_gids != NULL && group_names != NULL
            && count == sysdb_names_count(group_names)) {
        ret = sysdb_initgr_given_gids(mem_ctx, given_gids, count, &gids, &gids_len);
    } else {
        ret = sysdb_initgr_gids(mem_ctx, sysdb, names, names_len, count, &gids, &gids_len);
    }
    if (ret != EOK) {
        return ret;
    }
    /* An empty list is no value at all (ldb values are never empty here). */
    ret = sysdb_msg_set_val(msg, SYSDB_A_INITGR_NAMES, names_len ? names : NULL, names_len);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_msg_set_val(msg, SYSDB_A_INITGR_GIDS, gids_len ? gids : NULL, gids_len);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_msg_set_times(msg, SYSDB_A_INITGR_UPDATE, SYSDB_A_INITGR_EXPIRE, now,
                              (uint64_t)now + cache_timeout);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_write_entry(sysdb, msg, SYSDB_EXISTS_YES);
    if (ret == ENOENT) {
        DEBUG(SSSDBG_OP_FAILURE, "initgroups of %s, which is not cached\n", user);
    }
    return ret;
}

static errno_t sysdb_store_initgroups_int(struct sysdb_ctx *sysdb, const char *user,
                                          const char *const *group_names,
                                          const uint32_t *given_gids,
                                          time_t now, uint32_t cache_timeout)
{
    TALLOC_CTX *tmp_ctx;
    struct sysdb_name_list *list;
    struct ldb_message *msg;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(user != NULL, EINVAL);
    SSS_CHECK_ARG(now >= 0, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_name_list_make(tmp_ctx, sysdb, group_names, &list);
    if (ret != EOK) {
        goto done;
    }
    msg = ldb_msg_new(tmp_ctx);
    if (msg == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sysdb_name_dn(msg, sysdb, SYSDB_KIND_USER, user, &msg->dn);
    if (ret != EOK) {
        goto done;
    }

    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_initgr_write(tmp_ctx, sysdb, user, group_names, list, given_gids, msg,
                             now, cache_timeout);
    if (ret == EOK) {
        sysdb_pending_initgr(sysdb, user, msg);
    }
    ret = sysdb_transaction_end(sysdb, ret);

done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_store_initgroups(struct sysdb_ctx *sysdb, const char *user,
                               const char *const *group_names,
                               time_t now, uint32_t cache_timeout)
{
    return sysdb_store_initgroups_int(sysdb, user, group_names, NULL, now, cache_timeout);
}

errno_t sysdb_store_initgroups_gids(struct sysdb_ctx *sysdb, const char *user,
                                    const char *const *group_names, const uint32_t *gids,
                                    time_t now, uint32_t cache_timeout)
{
    SSS_CHECK_ARG(gids != NULL || group_names == NULL || group_names[0] == NULL, EINVAL);
    return sysdb_store_initgroups_int(sysdb, user, group_names, gids, now, cache_timeout);
}

/* Reads the user's group list attributes. ENOENT: no user or no list. */
static errno_t sysdb_read_initgr(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                 const char *user, const char *attr,
                                 struct ldb_message **_msg, time_t *_expire)
{
    const char *attrs[] = { attr, SYSDB_A_INITGR_EXPIRE, NULL };
    struct ldb_message *msg;
    struct ldb_dn *dn;
    uint64_t num;
    errno_t ret;

    ret = sysdb_name_dn(mem_ctx, sysdb, SYSDB_KIND_USER, user, &dn);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_read_entry(mem_ctx, sysdb, dn, attrs, &msg);
    if (ret != EOK) {
        return ret;
    }
    if (ldb_msg_find_element(msg, SYSDB_A_INITGR_EXPIRE) == NULL) {
        return ENOENT;
    }
    ret = sysdb_msg_num(msg, SYSDB_A_INITGR_EXPIRE, INT64_MAX, &num);
    if (ret != EOK) {
        return ret;
    }
    *_msg = msg;
    *_expire = (time_t)num;
    return EOK;
}

/* Parses the packed decimal gids of msg (none: NULL, 0). */
static errno_t sysdb_msg_gids(TALLOC_CTX *mem_ctx, const struct ldb_message *msg,
                              uint32_t **_gids, size_t *_count)
{
    const char **strs;
    uint32_t *gids = NULL;
    size_t count;
    size_t i;
    char *end;
    unsigned long v;
    errno_t ret;

    ret = sysdb_msg_names(mem_ctx, msg, SYSDB_A_INITGR_GIDS, &strs, &count);
    if (ret != EOK) {
        return ret;
    }
    if (count > 0) {
        gids = talloc_array(mem_ctx, uint32_t, count);
        if (gids == NULL) {
            return ENOMEM;
        }
    }
    for (i = 0; i < count; i++) {
        errno = 0;
        v = strtoul(strs[i], &end, 10);
        if (errno != 0 || *end != '\0' || end == strs[i] || v > UINT32_MAX) {
            return EIO;
        }
        gids[i] = (uint32_t)v;
    }
    talloc_free(strs);
    *_gids = gids;
    *_count = count;
    return EOK;
}

/* The read cache's initgroups entry: this header, the gids, then the flat user. */
struct sysdb_initgr_head {
    uint64_t user_len;
    uint64_t count;
    int64_t expire;
    uint64_t have_list;
};
#define SYSDB_INITGR_USER_OFS(count) \
    ((sizeof(struct sysdb_initgr_head) + (count) * sizeof(uint32_t) + 7) & ~(size_t)7)

/* The list part of the read cache's initgroups entry, from the list attributes in msg. */
static errno_t sysdb_initgr_list(TALLOC_CTX *mem_ctx, struct ldb_message *msg,
                                 struct sysdb_initgr_head *head, uint32_t **_gids)
{
    uint64_t num;
    errno_t ret;

    *head = (struct sysdb_initgr_head){ 0 };
    *_gids = NULL;
    if (ldb_msg_find_element(msg, SYSDB_A_INITGR_EXPIRE) != NULL) {
        ret = sysdb_msg_num(msg, SYSDB_A_INITGR_EXPIRE, INT64_MAX, &num);
        if (ret != EOK) {
            goto malformed;
        }
        ret = sysdb_msg_gids(mem_ctx, msg, _gids, &head->count);
        if (ret != EOK) {
            goto malformed;
        }
        head->expire = (int64_t)num;
        head->have_list = 1;
    }
    return EOK;

malformed:
    DEBUG(SSSDBG_CRIT_FAILURE, "Malformed group list in %s\n", ldb_dn_get_linearized(msg->dn));
    return ret;
}

/* The entry: head, gids, then at its aligned offset the flat user. */
static errno_t sysdb_initgr_assemble(TALLOC_CTX *mem_ctx, struct sysdb_initgr_head *head,
                                     const uint32_t *gids, const void *ublob, size_t ulen,
                                     void **_blob, size_t *_len)
{
    char *blob;
    size_t ofs;

    head->user_len = ulen;
    ofs = SYSDB_INITGR_USER_OFS(head->count);
    blob = talloc_zero_size(mem_ctx, ofs + ulen);
    if (blob == NULL) {
        return ENOMEM;
    }
    memcpy(blob, head, sizeof(*head));
    if (head->count > 0) {
        memcpy(blob + sizeof(*head), gids, head->count * sizeof(uint32_t));
    }
    memcpy(blob + ofs, ublob, ulen);
    *_blob = blob;
    *_len = ofs + ulen;
    return EOK;
}

errno_t sysdb_initgr_blob(TALLOC_CTX *mem_ctx, struct ldb_message *lists,
                          const void *ublob, size_t ulen, void **_blob, size_t *_len)
{
    struct sysdb_initgr_head head;
    uint32_t *gids;
    TALLOC_CTX *tmp_ctx;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_initgr_list(tmp_ctx, lists, &head, &gids);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_initgr_assemble(mem_ctx, &head, gids, ublob, ulen, _blob, _len);
done:
    talloc_free(tmp_ctx);
    return ret;
}

/* The read cache's initgroups entry from one read of the user entry (sysdb_initgr_view). */
static errno_t sysdb_initgr_flatten(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                   struct ldb_message *msg, void **_blob, size_t *_len)
{
    struct sysdb_initgr_head head;
    struct sysdb_user *user;
    uint32_t *gids;
    void *ublob;
    size_t ulen;
    errno_t ret;

    ret = sysdb_initgr_list(mem_ctx, msg, &head, &gids);
    if (ret != EOK) {
        return ret;
    }
    ldb_msg_remove_attr(msg, SYSDB_A_INITGR_GIDS);
    ret = sysdb_msg_to_user(mem_ctx, sysdb, msg, &user);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_flat_user(mem_ctx, user, &ublob, &ulen);
    if (ret != EOK) {
        return ret;
    }
    return sysdb_initgr_assemble(mem_ctx, &head, gids, ublob, ulen, _blob, _len);
}

static const char *const sysdb_initgr_attrs[] = {
    SYSDB_USER_ATTRS, SYSDB_A_INITGR_GIDS, SYSDB_A_INITGR_EXPIRE, NULL
};

static const struct sysdb_flat_view sysdb_initgr_view = {
    .kind = SYSDB_KIND_USER,
    .attrs = sysdb_initgr_attrs,
    .flatten = sysdb_initgr_flatten,
};

errno_t sysdb_get_user_initgroups(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                  const char *name, struct sysdb_user **_user,
                                  bool *_have_list, uint32_t **_gids, size_t *_count,
                                  time_t *_expire)
{
    char keybuf[SYSDB_KEY_ROOM];
    struct sysdb_rc_key key;
    struct sysdb_initgr_head head;
    struct sysdb_flat flat;
    struct sysdb_user *user = NULL;
    uint32_t *gids = NULL;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(name != NULL, EINVAL);
    SSS_CHECK_ARG(_have_list != NULL && _gids != NULL && _count != NULL, EINVAL);
    ret = sysdb_rc_name_key(sysdb, SYSDB_RC_INITGR, name, keybuf, &key);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_flat_cached(sysdb, &key, &flat);
    if (ret == EAGAIN) {
        ret = sysdb_flat_load(sysdb, &sysdb_initgr_view, &key, &flat);
    }
    if (ret != EOK) {
        goto done;
    }

    memcpy(&head, flat.blob, sizeof(head));
    if (_user != NULL) {
        user = sysdb_unflat_user(mem_ctx, (const char *)flat.blob
                                 + SYSDB_INITGR_USER_OFS(head.count), head.user_len);
        if (user == NULL) {
            ret = ENOMEM;
            goto done;
        }
    }
    if (head.count > 0) {
        gids = talloc_array(mem_ctx, uint32_t, head.count);
        if (gids == NULL) {
            talloc_free(user);
            ret = ENOMEM;
            goto done;
        }
        memcpy(gids, (const char *)flat.blob + sizeof(head), head.count * sizeof(uint32_t));
    }
    if (_user != NULL) {
        *_user = user;
    }
    *_have_list = head.have_list != 0;
    *_gids = gids;
    *_count = head.count;
    if (_expire != NULL) {
        *_expire = head.have_list ? (time_t)head.expire : 0;
    }

done:
    sysdb_flat_done(&flat);
    return ret;
}

errno_t sysdb_get_initgroups(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *user,
                             uint32_t **_gids, size_t *_count, time_t *_expire)
{
    uint32_t *gids;
    size_t count;
    time_t expire;
    bool have;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(user != NULL, EINVAL);
    SSS_CHECK_ARG(_gids != NULL && _count != NULL, EINVAL);
    ret = sysdb_get_user_initgroups(mem_ctx, sysdb, user, NULL, &have, &gids, &count, &expire);
    if (ret != EOK) {
        return ret;
    }
    if (!have) {
        return ENOENT;
    }
    *_gids = gids;
    *_count = count;
    if (_expire != NULL) {
        *_expire = expire;
    }
    return EOK;
}

errno_t sysdb_get_initgroups_names(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                   const char *user, const char ***_names, size_t *_count,
                                   time_t *_expire)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    const char **names;
    size_t count;
    time_t expire;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(user != NULL, EINVAL);
    SSS_CHECK_ARG(_names != NULL && _count != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_read_initgr(tmp_ctx, sysdb, user, SYSDB_A_INITGR_NAMES, &msg, &expire);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_names(tmp_ctx, msg, SYSDB_A_INITGR_NAMES, &names, &count);
    if (ret != EOK) {
        goto done;
    }
    talloc_steal(names, msg);
    *_names = talloc_steal(mem_ctx, names);
    *_count = count;
    if (_expire != NULL) {
        *_expire = expire;
    }

done:
    talloc_free(tmp_ctx);
    return ret;
}
