/*
 * sysdb groups: store (with gid takeover, member lists replaced or kept), lookups by name
 * and gid, enumeration, delete and expire. A group's member user names and nested group
 * names are two packed values on the group entry; storing them never touches user entries.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "db/sysdb_private.h"
#include "db/sysdb_bigcache.h"

static const struct sysdb_flat_view sysdb_group_view;

static errno_t sysdb_msg_to_group(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                  struct ldb_message *msg, struct sysdb_group **_group)
{
    struct sysdb_group *grp;
    size_t count;
    errno_t ret;

    grp = talloc_zero(mem_ctx, struct sysdb_group);
    if (grp == NULL) {
        return ENOMEM;
    }
    talloc_steal(grp, msg);

    grp->name = sysdb_msg_name(sysdb, msg);
    if (grp->name == NULL) {
        ret = EIO;
        goto done;
    }
    ret = sysdb_msg_u32(msg, SYSDB_A_GID, &grp->gid);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_times(msg, SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE, &grp->last_update,
                          &grp->expire);
    if (ret != EOK) {
        goto done;
    }
    grp->orig_dn = sysdb_msg_str(msg, SYSDB_A_ORIG_DN);
    grp->sid = sysdb_msg_str(msg, SYSDB_A_SID);

    ret = sysdb_msg_names(grp, msg, SYSDB_A_MEMBERS, &grp->members, &count);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_names(grp, msg, SYSDB_A_MEMBER_GROUPS, &grp->member_groups, &count);

done:
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Malformed group entry %s\n",
              ldb_dn_get_linearized(msg->dn));
        talloc_free(grp);
        return ret;
    }
    *_group = grp;
    return EOK;
}

/* Sets a packed list attribute from a built list (NULL or empty: attribute removed). */
static errno_t sysdb_msg_set_list(struct ldb_message *msg, const char *attr,
                                  struct sysdb_name_list *list)
{
    const char *data = NULL;
    size_t len = 0;

    if (list != NULL) {
        data = sysdb_name_list_data(list, &len);
    }
    return sysdb_msg_set_val(msg, attr, len ? data : NULL, len);
}

/* Both NULL, or the same string. */
static bool sysdb_same_str(const char *a, const char *b)
{
    return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* The part of a group store inside its transaction. *_stored_expired: whether the entry was
 * written expired (members unknown). */
static errno_t sysdb_group_replace(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                   const struct sysdb_group *grp, const char *stored,
                                   bool with_members, struct ldb_message *msg, time_t now,
                                   bool *_stored_expired)
{
    struct ldb_message *kept_msg = NULL;
    struct ldb_message **holders;
    size_t count;
    bool kept;
    errno_t ret;

    *_stored_expired = false;
    if (with_members) {
        /* The whole entry: as for users, the gid's unique index makes the usual cases (the
         * same name with its gid, a new name with a free gid) one modify or add with no
         * search; only a write meeting another group's gid goes on to the holders below.
         * (Reading holders costs more than the modify that fails on a new entry: an
         * existing one costs a search ~60k instructions, batched or not.) */
        ret = sysdb_write_unique(sysdb, msg);
        if (ret != EEXIST) {
            return ret;
        }
    }
    ret = sysdb_gid_holders_get(sysdb, grp->gid, &holders, &count);
    /* The holders of the gid (read for the whole batch by sysdb_groups_prefetch, else
     * searched) are the entry itself when its id is unchanged (then a modify), and any
     * other name holding the id (deleted). Otherwise: add, or modify if the add finds the
     * name (its id changed). */
    if (ret == EOK) {
        ret = sysdb_delete_holders(sysdb, SYSDB_KIND_GROUP, grp->gid, holders, count,
                                   msg->dn, &kept, &kept_msg);
    } else {
        ret = sysdb_delete_conflicts(mem_ctx, sysdb, SYSDB_KIND_GROUP, grp->gid,
                                     msg->dn, &kept, &kept_msg);
    }
    if (ret != EOK) {
        return ret;
    }
    /* Seen again through an initgroups, unchanged: nothing to write. A modify would rewrite
     * the whole record, member lists included (700 KB for 50,000 members) for every member
     * whose groups are looked up. */
    if (!with_members && kept && kept_msg != NULL
            && sysdb_same_str(sysdb_msg_name(sysdb, kept_msg), stored)
            && sysdb_same_str(sysdb_msg_str(kept_msg, SYSDB_A_ORIG_DN), grp->orig_dn)
            && sysdb_same_str(sysdb_msg_str(kept_msg, SYSDB_A_SID), grp->sid)) {
        return EOK;
    }
    /* Without members (a group seen through initgroups) the entry is not fresh: a group
     * already cached with this gid keeps its members and its expiry; a new one (or one
     * whose gid changed) is stored expired, so the next getgrnam/getgrgid fetches its
     * members instead of answering an empty list until it expires. */
    if (!with_members && !kept) {
        ret = sysdb_msg_set_times(msg, SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE, now, 0);
        if (ret != EOK) {
            return ret;
        }
        *_stored_expired = true;
    }
    return sysdb_write_entry(sysdb, msg, kept ? SYSDB_EXISTS_YES : SYSDB_EXISTS_UNKNOWN);
}

/* The store behind both public variants; lists are written when with_members is true. */
static errno_t sysdb_store_group_int(struct sysdb_ctx *sysdb, const struct sysdb_group *grp,
                                     bool with_members, struct sysdb_name_list *members,
                                     struct sysdb_name_list *member_groups,
                                     time_t now, uint32_t cache_timeout,
                                     bool *_stored_expired)
{
    TALLOC_CTX *tmp_ctx;
    struct sysdb_str_attr strs[2];
    struct ldb_message *msg;
    bool stored_expired = false;
    const char *stored;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(grp != NULL, EINVAL);
    SSS_CHECK_ARG(grp->name != NULL, EINVAL);
    SSS_CHECK_ARG(now >= 0, EINVAL);
    if (grp->gid == 0) {
        DEBUG(SSSDBG_OP_FAILURE, "Refusing to cache group %s with gid 0\n", grp->name);
        return EINVAL;
    }
    strs[0] = (struct sysdb_str_attr){ SYSDB_A_ORIG_DN, "original DN", grp->orig_dn };
    strs[1] = (struct sysdb_str_attr){ SYSDB_A_SID, "SID", grp->sid };
    ret = sysdb_check_attrs(strs, 2);
    if (ret != EOK) {
        return ret;
    }

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_entry_msg(tmp_ctx, sysdb, SYSDB_KIND_GROUP, grp->name, grp->gid,
                          &msg, &stored);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_set_strs(msg, strs, 2);
    if (ret != EOK) {
        goto done;
    }
    if (with_members) {
        ret = sysdb_msg_set_times(msg, SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE, now,
                                  (uint64_t)now + cache_timeout);
        if (ret != EOK) {
            goto done;
        }
        ret = sysdb_msg_set_list(msg, SYSDB_A_MEMBERS, members);
        if (ret != EOK) {
            goto done;
        }
        ret = sysdb_msg_set_list(msg, SYSDB_A_MEMBER_GROUPS, member_groups);
        if (ret != EOK) {
            goto done;
        }
    }

    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_group_replace(tmp_ctx, sysdb, grp, stored, with_members, msg, now,
                              &stored_expired);
    if (ret == EOK && with_members && sysdb->tx_depth == 1) {
        /* Only with its members is the message the whole entry a read would return. Only
         * a group's own store (its own transaction): the many groups an initgroups stores
         * in one would each pay the flattening of its members for no reply. */
        sysdb_pending_entry(sysdb, &sysdb_group_view, SYSDB_RC_GROUP_NAME, grp->name,
                            SYSDB_RC_GROUP_GID, grp->gid, msg);
    }
    ret = sysdb_transaction_end(sysdb, ret);
    if (ret == EOK && _stored_expired != NULL) {
        *_stored_expired = stored_expired;
    }

done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_store_group(struct sysdb_ctx *sysdb, const struct sysdb_group *grp,
                          bool with_members, time_t now, uint32_t cache_timeout)
{
    return sysdb_store_group_ext(sysdb, grp, with_members, now, cache_timeout, NULL);
}

errno_t sysdb_store_group_ext(struct sysdb_ctx *sysdb, const struct sysdb_group *grp,
                              bool with_members, time_t now, uint32_t cache_timeout,
                              bool *_stored_expired)
{
    TALLOC_CTX *tmp_ctx;
    struct sysdb_name_list *members = NULL;
    struct sysdb_name_list *member_groups = NULL;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(grp != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    if (with_members) {
        ret = sysdb_name_list_make(tmp_ctx, sysdb, grp->members, &members);
        if (ret != EOK) {
            goto done;
        }
        ret = sysdb_name_list_make(tmp_ctx, sysdb, grp->member_groups, &member_groups);
        if (ret != EOK) {
            goto done;
        }
    }
    ret = sysdb_store_group_int(sysdb, grp, with_members, members, member_groups,
                                now, cache_timeout, _stored_expired);

done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_store_group_lists(struct sysdb_ctx *sysdb, const struct sysdb_group *grp,
                                struct sysdb_name_list *members,
                                struct sysdb_name_list *member_groups,
                                time_t now, uint32_t cache_timeout)
{
    return sysdb_store_group_int(sysdb, grp, true, members, member_groups,
                                 now, cache_timeout, NULL);
}

/* Bytes of the packed member lists: a lower bound of the flat size. */
static size_t sysdb_group_msg_bytes(const struct ldb_message *msg)
{
    const struct ldb_message_element *el;
    size_t n = 0;

    el = ldb_msg_find_element(msg, SYSDB_A_MEMBERS);
    if (el != NULL && el->num_values == 1) {
        n += el->values[0].length;
    }
    el = ldb_msg_find_element(msg, SYSDB_A_MEMBER_GROUPS);
    if (el != NULL && el->num_values == 1) {
        n += el->values[0].length;
    }
    return n;
}

/* The read cache's form of a group entry read; E2BIG when its lists make it too big to
 * keep flat (a 50,000-member group would pay a millisecond for the copy). */
static errno_t sysdb_group_flatten(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                   struct ldb_message *msg, void **_blob, size_t *_len)
{
    struct sysdb_group *grp;
    errno_t ret;

    if (sysdb_group_msg_bytes(msg) > SYSDB_RCACHE_MAX_ENTRY) {
        return E2BIG;
    }
    ret = sysdb_msg_to_group(mem_ctx, sysdb, msg, &grp);
    if (ret != EOK) {
        return ret;
    }
    return sysdb_flat_group(mem_ctx, grp, _blob, _len);
}

static const struct sysdb_flat_view sysdb_group_view = {
    .kind = SYSDB_KIND_GROUP,
    .attrs = NULL,
    .flatten = sysdb_group_flatten,
};

/* A group too big to keep flat, just read: its parsed tree itself is kept in the big-group
 * cache and shared with this result (or, when it cannot be kept, is the result). */
static errno_t sysdb_group_keep_big(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                    const struct sysdb_rc_key *key, uint64_t gen,
                                    struct ldb_message *msg, struct sysdb_group **_group)
{
    struct sysdb_group *grp;
    size_t bytes = sysdb_group_msg_bytes(msg);
    errno_t ret;

    ret = sysdb_msg_to_group(mem_ctx, sysdb, msg, &grp);
    if (ret != EOK) {
        return ret;
    }
    if (sysdb_bigcache_put(sysdb->bigcache, key, gen, grp, bytes)) {
        grp = sysdb_bigcache_get(sysdb->bigcache, mem_ctx, key, gen);
        if (grp == NULL) {
            return ENOMEM;
        }
    }
    *_group = grp;
    return EOK;
}

/* A group by key (key-form name or gid): from the read cache or the big-group cache, or
 * read, flattened and cached when small enough (misses too). */
static errno_t sysdb_group_fetch(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                 const struct sysdb_rc_key *key, struct sysdb_group **_group)
{
    struct sysdb_flat flat;
    struct sysdb_group *grp = NULL;
    errno_t ret;

    ret = sysdb_flat_cached(sysdb, key, &flat);
    if (ret == EAGAIN) {
        grp = sysdb_bigcache_get(sysdb->bigcache, mem_ctx, key, flat.gen);
        if (grp != NULL) {
            *_group = grp;
            return EOK;
        }
        ret = sysdb_flat_load(sysdb, &sysdb_group_view, key, &flat);
    }
    if (ret == E2BIG) {
        ret = sysdb_group_keep_big(mem_ctx, sysdb, key, flat.gen, flat.msg, &grp);
    } else if (ret == EOK) {
        grp = sysdb_unflat_group(mem_ctx, flat.blob, flat.len);
        ret = grp != NULL ? EOK : ENOMEM;
    }
    sysdb_flat_done(&flat);
    if (ret == EOK) {
        *_group = grp;
    }
    return ret;
}

errno_t sysdb_get_group_by_name(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                const char *name, struct sysdb_group **_group)
{
    char keybuf[SYSDB_KEY_ROOM];
    struct sysdb_rc_key key;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(name != NULL, EINVAL);
    SSS_CHECK_ARG(_group != NULL, EINVAL);
    ret = sysdb_rc_name_key(sysdb, SYSDB_RC_GROUP_NAME, name, keybuf, &key);
    if (ret != EOK) {
        return ret;
    }
    return sysdb_group_fetch(mem_ctx, sysdb, &key, _group);
}

errno_t sysdb_get_group_by_gid(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               uint32_t gid, struct sysdb_group **_group)
{
    struct sysdb_rc_key key = { .kind = SYSDB_RC_GROUP_GID, .id = gid };

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(_group != NULL, EINVAL);
    return sysdb_group_fetch(mem_ctx, sysdb, &key, _group);
}

static errno_t sysdb_group_parse(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                  struct ldb_message *msg, void *slot)
{
    return sysdb_msg_to_group(mem_ctx, sysdb, msg, slot);
}

errno_t sysdb_enumerate_groups(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                              struct sysdb_group ***_groups, size_t *_count)
{
    void *groups;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(_groups != NULL && _count != NULL, EINVAL);
    ret = sysdb_entry_enumerate(mem_ctx, sysdb, SYSDB_KIND_GROUP, NULL, sysdb_group_parse,
                                &groups, _count);
    if (ret == EOK) {
        *_groups = groups;
    }
    return ret;
}

errno_t sysdb_delete_group(struct sysdb_ctx *sysdb, const char *name)
{
    return sysdb_delete_by_name(sysdb, SYSDB_KIND_GROUP, name);
}

errno_t sysdb_expire_group(struct sysdb_ctx *sysdb, const char *name)
{
    return sysdb_expire_by_name(sysdb, SYSDB_KIND_GROUP, name);
}

errno_t sysdb_expire_all_groups(struct sysdb_ctx *sysdb)
{
    return sysdb_expire_all(sysdb, SYSDB_KIND_GROUP);
}
