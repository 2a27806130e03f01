/*
 * sysdb users: store (with uid takeover), lookups by name and uid, enumeration, delete and
 * expire, and the user's group list from initgroups (stored on the user entry as packed
 * group names plus the gids those groups had when the list was saved).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/sysdb_private.h"
#include "db/sysdb_rcache.h"

static errno_t sysdb_msg_to_user(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                 struct ldb_message *msg, struct sysdb_user **_user)
{
    struct sysdb_user *user;
    uint64_t num;
    errno_t ret;

    user = talloc_zero(mem_ctx, struct sysdb_user);
    if (user == NULL) {
        return ENOMEM;
    }
    talloc_steal(user, msg);

    user->name = sysdb_msg_name(sysdb, msg);
    if (user->name == NULL) {
        ret = EIO;
        goto done;
    }
    ret = sysdb_msg_num(msg, SYSDB_A_UID, UINT32_MAX, &num);
    if (ret != EOK) {
        goto done;
    }
    user->uid = (uint32_t)num;
    ret = sysdb_msg_num(msg, SYSDB_A_PRIMARY_GID, UINT32_MAX, &num);
    if (ret != EOK) {
        goto done;
    }
    user->gid = (uint32_t)num;
    ret = sysdb_msg_num(msg, SYSDB_A_LAST_UPDATE, INT64_MAX, &num);
    if (ret != EOK) {
        goto done;
    }
    user->last_update = (time_t)num;
    ret = sysdb_msg_num(msg, SYSDB_A_EXPIRE, INT64_MAX, &num);
    if (ret != EOK) {
        goto done;
    }
    user->expire = (time_t)num;
    user->gecos = sysdb_msg_str(msg, SYSDB_A_GECOS);
    user->home = sysdb_msg_str(msg, SYSDB_A_HOME);
    user->shell = sysdb_msg_str(msg, SYSDB_A_SHELL);
    user->orig_dn = sysdb_msg_str(msg, SYSDB_A_ORIG_DN);
    ret = EOK;

done:
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Malformed user entry %s\n", ldb_dn_get_linearized(msg->dn));
        talloc_free(user);
        return ret;
    }
    *_user = user;
    return EOK;
}

/* The part of a user store inside its transaction: the same query finds the entry itself
 * when its id is unchanged (then a modify), and any other name holding the id (deleted).
 * Otherwise: add, or modify if the add finds the name (its id changed). */
static errno_t sysdb_user_replace(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, uint32_t uid,
                                  struct ldb_message *msg)
{
    bool kept;
    errno_t ret;

    ret = sysdb_delete_conflicts(mem_ctx, sysdb, SYSDB_KIND_USER, uid, msg->dn, &kept, NULL);
    if (ret != EOK) {
        return ret;
    }
    return sysdb_write_entry(sysdb, msg, kept ? SYSDB_EXISTS_YES : SYSDB_EXISTS_UNKNOWN);
}

errno_t sysdb_store_user(struct sysdb_ctx *sysdb, const struct sysdb_user *user,
                         time_t now, uint32_t cache_timeout)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    char *stored;
    char *key;
    errno_t ret;

    if (sysdb == NULL || user == NULL || user->name == NULL || now < 0) {
        return EINVAL;
    }
    if (user->uid == 0 || user->gid == 0) {
        DEBUG(SSSDBG_OP_FAILURE, "Refusing to cache %s with uid/gid 0\n", user->name);
        return EINVAL;
    }
    if (sysdb_check_attr(user->gecos, "gecos") != EOK
            || sysdb_check_attr(user->home, "home directory") != EOK
            || sysdb_check_attr(user->shell, "shell") != EOK
            || sysdb_check_attr(user->orig_dn, "original DN") != EOK) {
        return EINVAL;
    }

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_name_stored(tmp_ctx, sysdb, user->name, &stored);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_name_key(tmp_ctx, sysdb, user->name, &key);
    if (ret != EOK) {
        goto done;
    }

    msg = ldb_msg_new(tmp_ctx);
    if (msg == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sysdb_entry_dn(msg, sysdb, SYSDB_KIND_USER, key, &msg->dn);
    if (ret == EOK) ret = sysdb_msg_set_str(msg, SYSDB_A_NAME, sysdb_name_attr(stored, key));
    if (ret == EOK) ret = sysdb_msg_set_id(msg, SYSDB_KIND_USER, user->uid);
    if (ret == EOK) ret = sysdb_msg_set_num(msg, SYSDB_A_PRIMARY_GID, user->gid);
    if (ret == EOK) ret = sysdb_msg_set_str(msg, SYSDB_A_GECOS, user->gecos);
    if (ret == EOK) ret = sysdb_msg_set_str(msg, SYSDB_A_HOME, user->home);
    if (ret == EOK) ret = sysdb_msg_set_str(msg, SYSDB_A_SHELL, user->shell);
    if (ret == EOK) ret = sysdb_msg_set_str(msg, SYSDB_A_ORIG_DN, user->orig_dn);
    if (ret == EOK) ret = sysdb_msg_set_num(msg, SYSDB_A_LAST_UPDATE, (uint64_t)now);
    if (ret == EOK) {
        ret = sysdb_msg_set_num(msg, SYSDB_A_EXPIRE, (uint64_t)now + cache_timeout);
    }
    if (ret != EOK) {
        goto done;
    }

    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_user_replace(tmp_ctx, sysdb, user->uid, msg);
    ret = sysdb_transaction_end(sysdb, ret);

done:
    talloc_free(tmp_ctx);
    return ret;
}

/* Every attribute a struct sysdb_user needs, not the (possibly large) group list; the
 * initgroups read adds the gids and their expiry. */
#define SYSDB_USER_ATTRS SYSDB_A_NAME, SYSDB_A_UID, SYSDB_A_PRIMARY_GID, SYSDB_A_GECOS, \
    SYSDB_A_HOME, SYSDB_A_SHELL, SYSDB_A_ORIG_DN, SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE
static const char *sysdb_user_attrs[] = { SYSDB_USER_ATTRS, NULL };
static const char *sysdb_initgr_attrs[] = {
    SYSDB_USER_ATTRS, SYSDB_A_INITGR_GIDS, SYSDB_A_INITGR_EXPIRE, NULL
};

/* Reads the entry a user key names (by key-form name, or by uid), with attrs. */
static errno_t sysdb_user_read_msg(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                   const struct sysdb_rc_key *key, const char *const *attrs,
                                   struct ldb_message **_msg)
{
    struct ldb_dn *dn;
    errno_t ret;

    if (key->name == NULL) {
        return sysdb_search_by_id(mem_ctx, sysdb, SYSDB_KIND_USER, key->id,
                                  attrs, _msg);
    }
    ret = sysdb_entry_dn(mem_ctx, sysdb, SYSDB_KIND_USER, key->name, &dn);
    if (ret != EOK) {
        return ret;
    }
    return sysdb_read_entry(mem_ctx, sysdb, dn, attrs, _msg);
}

/* A user by key: from the read cache, or read, flattened and cached (misses too). */
static errno_t sysdb_user_fetch(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                const struct sysdb_rc_key *key, struct sysdb_user **_user)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    struct sysdb_user *user;
    const void *cached;
    void *blob;
    size_t len;
    uint64_t gen;
    errno_t ret;

    gen = sysdb_rcache_gen(sysdb);
    if (sysdb_rcache_get(sysdb, key, gen, &cached, &len)) {
        if (cached == NULL) {
            return ENOENT;
        }
        user = sysdb_unflat_user(mem_ctx, cached, len);
        if (user == NULL) {
            return ENOMEM;
        }
        *_user = user;
        return EOK;
    }

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_user_read_msg(tmp_ctx, sysdb, key, sysdb_user_attrs, &msg);
    if (ret == ENOENT) {
        sysdb_rcache_put(sysdb, key, gen, NULL, 0);
    }
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_to_user(tmp_ctx, sysdb, msg, &user);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_flat_user(tmp_ctx, user, &blob, &len);
    if (ret != EOK) {
        goto done;
    }
    sysdb_rcache_put(sysdb, key, gen, blob, len);
    user = sysdb_unflat_user(mem_ctx, blob, len);
    if (user == NULL) {
        ret = ENOMEM;
        goto done;
    }
    *_user = user;

done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_get_user_by_name(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               const char *name, struct sysdb_user **_user)
{
    char keybuf[SYSDB_KEY_ROOM];
    struct sysdb_rc_key key = { .kind = SYSDB_RC_USER_NAME, .name = keybuf };

    if (sysdb == NULL || name == NULL || _user == NULL) {
        return EINVAL;
    }
    key.len = sysdb_name_key_buf(sysdb, name, keybuf);
    if (key.len == 0) {
        return EINVAL;
    }
    return sysdb_user_fetch(mem_ctx, sysdb, &key, _user);
}

errno_t sysdb_get_user_by_uid(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                              uint32_t uid, struct sysdb_user **_user)
{
    struct sysdb_rc_key key = { .kind = SYSDB_RC_USER_UID, .id = uid };

    if (sysdb == NULL || _user == NULL) {
        return EINVAL;
    }
    return sysdb_user_fetch(mem_ctx, sysdb, &key, _user);
}

errno_t sysdb_enumerate_users(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                              struct sysdb_user ***_users, size_t *_count)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message **msgs;
    struct sysdb_user **users;
    size_t count;
    size_t i;
    errno_t ret;

    if (sysdb == NULL || _users == NULL || _count == NULL) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_search_all(tmp_ctx, sysdb, SYSDB_KIND_USER, &msgs, &count);
    if (ret != EOK) {
        goto done;
    }
    users = talloc_zero_array(tmp_ctx, struct sysdb_user *, count + 1);
    if (users == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < count; i++) {
        /* Drop the group lists: enumeration only needs the passwd fields. */
        ldb_msg_remove_attr(msgs[i], SYSDB_A_INITGR_NAMES);
        ldb_msg_remove_attr(msgs[i], SYSDB_A_INITGR_GIDS);
        ret = sysdb_msg_to_user(users, sysdb, msgs[i], &users[i]);
        if (ret != EOK) {
            goto done;
        }
    }
    *_users = talloc_steal(mem_ctx, users);
    *_count = count;
    ret = EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_delete_user(struct sysdb_ctx *sysdb, const char *name)
{
    return sysdb_delete_by_name(sysdb, SYSDB_KIND_USER, name);
}

errno_t sysdb_expire_user(struct sysdb_ctx *sysdb, const char *name)
{
    return sysdb_expire_by_name(sysdb, SYSDB_KIND_USER, name);
}

errno_t sysdb_expire_all_users(struct sysdb_ctx *sysdb)
{
    return sysdb_expire_all(sysdb, SYSDB_KIND_USER);
}

/* Looks up the gids of the listed groups (packed stored names), writing packed decimals. */
static size_t sysdb_names_count(const char *const *names)
{
    size_t n = 0;

    while (names[n] != NULL) {
        n++;
    }
    return n;
}

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
    if (ret == EOK) {
        ret = sysdb_msg_set_val(msg, SYSDB_A_INITGR_GIDS, gids_len ? gids : NULL, gids_len);
    }
    if (ret == EOK) ret = sysdb_msg_set_num(msg, SYSDB_A_INITGR_UPDATE, (uint64_t)now);
    if (ret == EOK) {
        ret = sysdb_msg_set_num(msg, SYSDB_A_INITGR_EXPIRE, (uint64_t)now + cache_timeout);
    }
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

    if (sysdb == NULL || user == NULL || now < 0) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_name_list_new(tmp_ctx, sysdb, &list);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_name_list_add(list, group_names, (size_t)-1);
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
    if (gids == NULL && group_names != NULL && group_names[0] != NULL) {
        return EINVAL;
    }
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
    const struct ldb_message_element *el;
    const char **strs;
    uint32_t *gids = NULL;
    size_t count;
    size_t i;
    char *end;
    unsigned long v;
    errno_t ret;

    el = ldb_msg_find_element(msg, SYSDB_A_INITGR_GIDS);
    ret = sysdb_packed_split(mem_ctx, el && el->num_values == 1 ? &el->values[0] : NULL,
                             &strs, &count);
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

/* Builds the initgroups blob from one read of the user entry. ENOENT: no such user. */
static errno_t sysdb_initgr_read_blob(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                      const struct sysdb_rc_key *key,
                                      void **_blob, size_t *_len)
{
    struct sysdb_rc_key ukey = *key;
    struct sysdb_initgr_head head = { 0 };
    struct ldb_message *msg;
    struct sysdb_user *user;
    uint32_t *gids = NULL;
    void *ublob;
    size_t ulen;
    char *blob;
    size_t ofs;
    uint64_t num;
    errno_t ret;

    ukey.kind = SYSDB_RC_USER_NAME;
    ret = sysdb_user_read_msg(mem_ctx, sysdb, &ukey, sysdb_initgr_attrs, &msg);
    if (ret != EOK) {
        return ret;
    }
    if (ldb_msg_find_element(msg, SYSDB_A_INITGR_EXPIRE) != NULL) {
        ret = sysdb_msg_num(msg, SYSDB_A_INITGR_EXPIRE, INT64_MAX, &num);
        if (ret == EOK) {
            ret = sysdb_msg_gids(mem_ctx, msg, &gids, &head.count);
        }
        if (ret != EOK) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Malformed group list in %s\n",
                  ldb_dn_get_linearized(msg->dn));
            return ret;
        }
        head.expire = (int64_t)num;
        head.have_list = 1;
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
    head.user_len = ulen;
    ofs = SYSDB_INITGR_USER_OFS(head.count);
    blob = talloc_zero_size(mem_ctx, ofs + ulen);
    if (blob == NULL) {
        return ENOMEM;
    }
    memcpy(blob, &head, sizeof(head));
    if (head.count > 0) {
        memcpy(blob + sizeof(head), gids, head.count * sizeof(uint32_t));
    }
    memcpy(blob + ofs, ublob, ulen);
    *_blob = blob;
    *_len = ofs + ulen;
    return EOK;
}

errno_t sysdb_get_user_initgroups(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                  const char *name, struct sysdb_user **_user,
                                  bool *_have_list, uint32_t **_gids, size_t *_count,
                                  time_t *_expire)
{
    char keybuf[SYSDB_KEY_ROOM];
    struct sysdb_rc_key key = { .kind = SYSDB_RC_INITGR, .name = keybuf };
    struct sysdb_initgr_head head;
    TALLOC_CTX *tmp_ctx = NULL;
    const void *cached;
    void *blob;
    size_t len;
    struct sysdb_user *user = NULL;
    uint32_t *gids = NULL;
    uint64_t gen;
    errno_t ret;

    if (sysdb == NULL || name == NULL || _have_list == NULL || _gids == NULL
            || _count == NULL) {
        return EINVAL;
    }
    key.len = sysdb_name_key_buf(sysdb, name, keybuf);
    if (key.len == 0) {
        return EINVAL;
    }
    gen = sysdb_rcache_gen(sysdb);
    if (sysdb_rcache_get(sysdb, &key, gen, &cached, &len)) {
        if (cached == NULL) {
            return ENOENT;
        }
    } else {
        tmp_ctx = talloc_new(NULL);
        if (tmp_ctx == NULL) {
            return ENOMEM;
        }
        ret = sysdb_initgr_read_blob(tmp_ctx, sysdb, &key, &blob, &len);
        if (ret == ENOENT) {
            sysdb_rcache_put(sysdb, &key, gen, NULL, 0);
        }
        if (ret != EOK) {
            goto done;
        }
        sysdb_rcache_put(sysdb, &key, gen, blob, len);
        cached = blob;
    }

    memcpy(&head, cached, sizeof(head));
    if (_user != NULL) {
        user = sysdb_unflat_user(mem_ctx, (const char *)cached
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
        memcpy(gids, (const char *)cached + sizeof(head), head.count * sizeof(uint32_t));
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
    ret = EOK;

done:
    talloc_free(tmp_ctx);
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

    if (sysdb == NULL || user == NULL || _gids == NULL || _count == NULL) {
        return EINVAL;
    }
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
    const struct ldb_message_element *el;
    const char **names;
    size_t count;
    time_t expire;
    errno_t ret;

    if (sysdb == NULL || user == NULL || _names == NULL || _count == NULL) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_read_initgr(tmp_ctx, sysdb, user, SYSDB_A_INITGR_NAMES, &msg, &expire);
    if (ret != EOK) {
        goto done;
    }
    el = ldb_msg_find_element(msg, SYSDB_A_INITGR_NAMES);
    ret = sysdb_packed_split(tmp_ctx, el && el->num_values == 1 ? &el->values[0] : NULL,
                             &names, &count);
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
