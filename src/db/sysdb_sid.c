/*
 * sysdb lookups by SID (objectSIDString, indexed): libsss_nss_idmap's by-SID calls where ids
 * are not mapped from SIDs, so the SID is only known from the directory's objectSid. The
 * index read gives the entry's id; the entry itself then comes through the lookup by id,
 * so the read cache and the flat form serve it as any other lookup.
 */
#include "config.h"

#include "db/sysdb_private.h"

/* The id of the entry of kind whose SID is sid. Several (a directory that reused a SID
 * before the cache saw the old holder go): the one with the latest update wins. */
static errno_t sysdb_sid_id(struct sysdb_ctx *sysdb, enum sysdb_kind kind, const char *sid,
                            uint32_t *_id)
{
    const char *attrs[] = { sysdb_kinds[kind].id_attr, SYSDB_A_LAST_UPDATE, NULL };
    TALLOC_CTX *tmp_ctx;
    struct ldb_message **msgs = NULL;
    uint64_t best_upd = 0;
    uint64_t upd;
    uint32_t id;
    bool found = false;
    char *filter;
    size_t count = 0;
    size_t i;
    errno_t ret;

    if (sid[0] == '\0' || strlen(sid) > SYSDB_NAME_MAX) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    filter = talloc_asprintf(tmp_ctx, "(%s=%s)", SYSDB_A_SID,
                             ldb_binary_encode_string(tmp_ctx, sid));
    if (filter == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sysdb_search_filter(tmp_ctx, sysdb, filter, attrs, &msgs, &count);
    if (ret != EOK) {
        goto done;
    }
    for (i = 0; i < count; i++) {
        /* Users and groups share the index: the kind is the one with its id. */
        if (sysdb_msg_u32(msgs[i], sysdb_kinds[kind].id_attr, &id) != EOK) {
            continue;
        }
        upd = ldb_msg_find_attr_as_uint64(msgs[i], SYSDB_A_LAST_UPDATE, 0);
        if (!found || upd > best_upd) {
            *_id = id;
            best_upd = upd;
            found = true;
        }
    }
    ret = found ? EOK : ENOENT;
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_get_user_by_sid(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                              const char *sid, struct sysdb_user **_user)
{
    uint32_t uid = 0;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && sid != NULL && _user != NULL, EINVAL);
    ret = sysdb_sid_id(sysdb, SYSDB_KIND_USER, sid, &uid);
    if (ret != EOK) {
        return ret;
    }
    return sysdb_get_user_by_uid(mem_ctx, sysdb, uid, _user);
}

errno_t sysdb_get_group_by_sid(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               const char *sid, struct sysdb_group **_group)
{
    uint32_t gid = 0;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && sid != NULL && _group != NULL, EINVAL);
    ret = sysdb_sid_id(sysdb, SYSDB_KIND_GROUP, sid, &gid);
    if (ret != EOK) {
        return ret;
    }
    return sysdb_get_group_by_gid(mem_ctx, sysdb, gid, _group);
}
