/*
 * sysdb groups: store (with gid takeover, member lists replaced or kept), lookups by name
 * and gid, enumeration, delete and expire. A group's member user names and nested group
 * names are two packed values on the group entry; storing them never touches user entries.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "db/sysdb_private.h"
#include "db/sysdb_rcache.h"
#include "db/sysdb_bigcache.h"

static errno_t sysdb_msg_to_group(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                  struct ldb_message *msg, struct sysdb_group **_group)
{
    const struct ldb_message_element *el;
    struct sysdb_group *grp;
    uint64_t num;
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
    ret = sysdb_msg_num(msg, SYSDB_A_GID, UINT32_MAX, &num);
    if (ret != EOK) {
        goto done;
    }
    grp->gid = (uint32_t)num;
    ret = sysdb_msg_num(msg, SYSDB_A_LAST_UPDATE, INT64_MAX, &num);
    if (ret != EOK) {
        goto done;
    }
    grp->last_update = (time_t)num;
    ret = sysdb_msg_num(msg, SYSDB_A_EXPIRE, INT64_MAX, &num);
    if (ret != EOK) {
        goto done;
    }
    grp->expire = (time_t)num;
    grp->orig_dn = sysdb_msg_str(msg, SYSDB_A_ORIG_DN);

    el = ldb_msg_find_element(msg, SYSDB_A_MEMBERS);
    ret = sysdb_packed_split(grp, el && el->num_values == 1 ? &el->values[0] : NULL,
                             &grp->members, &count);
    if (ret != EOK) {
        goto done;
    }
    el = ldb_msg_find_element(msg, SYSDB_A_MEMBER_GROUPS);
    ret = sysdb_packed_split(grp, el && el->num_values == 1 ? &el->values[0] : NULL,
                             &grp->member_groups, &count);

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
    bool kept;
    errno_t ret;

    /* The same query finds the entry itself when its id is unchanged (then a modify),
     * and any other name holding the id (deleted). Otherwise: add, or modify if the add
     * finds the name (its id changed). */
    ret = sysdb_delete_conflicts(mem_ctx, sysdb, SYSDB_KIND_GROUP, grp->gid,
                                 msg->dn, &kept, &kept_msg);
    if (ret != EOK) {
        return ret;
    }
    *_stored_expired = false;
    /* Seen again through an initgroups, unchanged: nothing to write. A modify would rewrite
     * the whole record, member lists included (700 KB for 50,000 members) for every member
     * whose groups are looked up. */
    if (!with_members && kept && kept_msg != NULL
            && sysdb_same_str(sysdb_msg_name(sysdb, kept_msg), stored)
            && sysdb_same_str(sysdb_msg_str(kept_msg, SYSDB_A_ORIG_DN), grp->orig_dn)) {
        return EOK;
    }
    /* Without members (a group seen through initgroups) the entry is not fresh: a group
     * already cached with this gid keeps its members and its expiry; a new one (or one
     * whose gid changed) is stored expired, so the next getgrnam/getgrgid fetches its
     * members instead of answering an empty list until it expires. */
    if (!with_members && !kept) {
        ret = sysdb_msg_set_num(msg, SYSDB_A_LAST_UPDATE, (uint64_t)now);
        if (ret == EOK) {
            ret = sysdb_msg_set_num(msg, SYSDB_A_EXPIRE, 0);
        }
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
    struct ldb_message *msg;
    bool stored_expired = false;
    char *stored;
    char *key;
    errno_t ret;

    if (sysdb == NULL || grp == NULL || grp->name == NULL || now < 0) {
        return EINVAL;
    }
    if (grp->gid == 0) {
        DEBUG(SSSDBG_OP_FAILURE, "Refusing to cache group %s with gid 0\n", grp->name);
        return EINVAL;
    }
    if (sysdb_check_attr(grp->orig_dn, "original DN") != EOK) {
        return EINVAL;
    }

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_name_stored(tmp_ctx, sysdb, grp->name, &stored);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_name_key(tmp_ctx, sysdb, grp->name, &key);
    if (ret != EOK) {
        goto done;
    }

    msg = ldb_msg_new(tmp_ctx);
    if (msg == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sysdb_entry_dn(msg, sysdb, SYSDB_KIND_GROUP, key, &msg->dn);
    if (ret == EOK) ret = sysdb_msg_set_str(msg, SYSDB_A_NAME, sysdb_name_attr(stored, key));
    if (ret == EOK) ret = sysdb_msg_set_id(msg, SYSDB_KIND_GROUP, grp->gid);
    if (ret == EOK) ret = sysdb_msg_set_str(msg, SYSDB_A_ORIG_DN, grp->orig_dn);
    if (ret == EOK && with_members) {
        ret = sysdb_msg_set_num(msg, SYSDB_A_LAST_UPDATE, (uint64_t)now);
        if (ret == EOK) {
            ret = sysdb_msg_set_num(msg, SYSDB_A_EXPIRE, (uint64_t)now + cache_timeout);
        }
        if (ret == EOK) {
            ret = sysdb_msg_set_list(msg, SYSDB_A_MEMBERS, members);
        }
        if (ret == EOK) {
            ret = sysdb_msg_set_list(msg, SYSDB_A_MEMBER_GROUPS, member_groups);
        }
    }
    if (ret != EOK) {
        goto done;
    }

    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_group_replace(tmp_ctx, sysdb, grp, stored, with_members, msg, now,
                              &stored_expired);
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

    if (sysdb == NULL || grp == NULL) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    if (with_members) {
        ret = sysdb_name_list_new(tmp_ctx, sysdb, &members);
        if (ret == EOK) {
            ret = sysdb_name_list_add(members, grp->members, (size_t)-1);
        }
        if (ret == EOK) {
            ret = sysdb_name_list_new(tmp_ctx, sysdb, &member_groups);
        }
        if (ret == EOK) {
            ret = sysdb_name_list_add(member_groups, grp->member_groups, (size_t)-1);
        }
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

/* A group by key (key-form name or gid): from the read cache, or read, flattened and
 * cached when small enough (misses too). */
static errno_t sysdb_group_fetch(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                 const struct sysdb_rc_key *key, struct sysdb_group **_group)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    struct sysdb_group *grp;
    struct ldb_dn *dn;
    const void *cached;
    void *blob;
    size_t len;
    size_t bytes;
    uint64_t gen;
    errno_t ret;

    gen = sysdb_rcache_gen(sysdb);
    if (sysdb_rcache_get(sysdb, key, gen, &cached, &len)) {
        if (cached == NULL) {
            return ENOENT;
        }
        grp = sysdb_unflat_group(mem_ctx, cached, len);
        if (grp == NULL) {
            return ENOMEM;
        }
        *_group = grp;
        return EOK;
    }
    grp = sysdb_bigcache_get(sysdb->bigcache, mem_ctx, key, gen);
    if (grp != NULL) {
        *_group = grp;
        return EOK;
    }

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    if (key->name == NULL) {
        ret = sysdb_search_by_id(tmp_ctx, sysdb, SYSDB_KIND_GROUP, key->id,
                                 NULL, &msg);
    } else {
        ret = sysdb_entry_dn(tmp_ctx, sysdb, SYSDB_KIND_GROUP, key->name, &dn);
        if (ret == EOK) {
            ret = sysdb_read_entry(tmp_ctx, sysdb, dn, NULL, &msg);
        }
    }
    if (ret == ENOENT) {
        sysdb_rcache_put(sysdb, key, gen, NULL, 0);
    }
    if (ret != EOK) {
        goto done;
    }
    bytes = sysdb_group_msg_bytes(msg);
    if (bytes > SYSDB_RCACHE_MAX_ENTRY) {
        /* Too big for a flat copy (a 50,000-member group would pay a millisecond for it):
         * the parsed tree itself is kept, and shared with this result. */
        ret = sysdb_msg_to_group(tmp_ctx, sysdb, msg, &grp);
        if (ret != EOK) {
            goto done;
        }
        if (sysdb_bigcache_put(sysdb->bigcache, key, gen, grp, bytes)) {
            grp = sysdb_bigcache_get(sysdb->bigcache, mem_ctx, key, gen);
            ret = grp != NULL ? EOK : ENOMEM;
        } else {
            talloc_steal(mem_ctx, grp);
        }
        if (ret == EOK) {
            *_group = grp;
        }
        goto done;
    }
    ret = sysdb_msg_to_group(tmp_ctx, sysdb, msg, &grp);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_flat_group(tmp_ctx, grp, &blob, &len);
    if (ret != EOK) {
        goto done;
    }
    sysdb_rcache_put(sysdb, key, gen, blob, len);
    grp = sysdb_unflat_group(mem_ctx, blob, len);
    if (grp == NULL) {
        ret = ENOMEM;
        goto done;
    }
    *_group = grp;

done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_get_group_by_name(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                const char *name, struct sysdb_group **_group)
{
    char keybuf[SYSDB_KEY_ROOM];
    struct sysdb_rc_key key = { .kind = SYSDB_RC_GROUP_NAME, .name = keybuf };

    if (sysdb == NULL || name == NULL || _group == NULL) {
        return EINVAL;
    }
    key.len = sysdb_name_key_buf(sysdb, name, keybuf);
    if (key.len == 0) {
        return EINVAL;
    }
    return sysdb_group_fetch(mem_ctx, sysdb, &key, _group);
}

errno_t sysdb_get_group_by_gid(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               uint32_t gid, struct sysdb_group **_group)
{
    struct sysdb_rc_key key = { .kind = SYSDB_RC_GROUP_GID, .id = gid };

    if (sysdb == NULL || _group == NULL) {
        return EINVAL;
    }
    return sysdb_group_fetch(mem_ctx, sysdb, &key, _group);
}

errno_t sysdb_enumerate_groups(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               struct sysdb_group ***_groups, size_t *_count)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message **msgs;
    struct sysdb_group **groups;
    size_t count;
    size_t i;
    errno_t ret;

    if (sysdb == NULL || _groups == NULL || _count == NULL) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_search_all(tmp_ctx, sysdb, SYSDB_KIND_GROUP, &msgs, &count);
    if (ret != EOK) {
        goto done;
    }
    groups = talloc_zero_array(tmp_ctx, struct sysdb_group *, count + 1);
    if (groups == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < count; i++) {
        ret = sysdb_msg_to_group(groups, sysdb, msgs[i], &groups[i]);
        if (ret != EOK) {
            goto done;
        }
    }
    *_groups = talloc_steal(mem_ctx, groups);
    *_count = count;
    ret = EOK;

done:
    talloc_free(tmp_ctx);
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
