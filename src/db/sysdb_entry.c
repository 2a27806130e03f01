/*
 * sysdb entries of either kind: the kind descriptors (what differs between users and groups
 * where their code is shared), the message a store starts from, and a lookup's cold path:
 * reading an entry by its read-cache key, flattening it through the lookup's view and
 * caching it. The warm path (sysdb_flat_cached() and each kind's typed unflatten) stays
 * inline in the callers.
 */
#include "config.h"

#include <assert.h>

#include "db/sysdb_private.h"

const struct sysdb_kind_desc sysdb_kinds[] = {
    [SYSDB_KIND_USER] = {
        .name = "user",
        .container = "users",
        .id_attr = SYSDB_A_UID,
        .id_idx_attr = SYSDB_A_UID_IDX,
    },
    [SYSDB_KIND_GROUP] = {
        .name = "group",
        .container = "groups",
        .id_attr = SYSDB_A_GID,
        .id_idx_attr = SYSDB_A_GID_IDX,
    },
    [SYSDB_KIND_NETGROUP] = {
        .name = "netgroup",
        .container = "netgroups",
    },
};

errno_t sysdb_entry_msg(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, enum sysdb_kind kind,
                        const char *name, uint32_t id, struct ldb_message **_msg,
                        const char **_stored)
{
    struct ldb_message *msg;
    char *stored;
    char *key;
    errno_t ret;

    msg = ldb_msg_new(mem_ctx);
    if (msg == NULL) {
        return ENOMEM;
    }
    ret = sysdb_name_stored(msg, sysdb, name, &stored);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_name_key(msg, sysdb, name, &key);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_entry_dn(msg, sysdb, kind, key, &msg->dn);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_set_str(msg, SYSDB_A_NAME, sysdb_name_attr(stored, key));
    if (ret != EOK) {
        goto done;
    }
    if (sysdb_kinds[kind].id_attr != NULL) {
        ret = sysdb_msg_set_id(msg, kind, id);
    }

done:
    if (ret != EOK) {
        talloc_free(msg);
        return ret;
    }
    *_msg = msg;
    *_stored = stored;
    return EOK;
}

/* The entry a read-cache key names: by its key-form name (one read by DN) or by id. */
/*
 * The entry of key. A name's absence is answered from the database's pages
 * (sysdb_rcache_probe_dn) when they can tell, rather than by an ldb search, which after any
 * other process's commit first reloads ldb's own records (a cold lookup's miss: ~57k
 * instructions against ~13k). *_at: the generation an absence is known for (0: unknown).
 */
static errno_t sysdb_read_by_key(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                 enum sysdb_kind kind, const struct sysdb_rc_key *key,
                                 const char *const *attrs, struct ldb_message **_msg,
                                 uint64_t *_at)
{
    struct ldb_dn *dn;
    errno_t ret;

    *_at = 0;
    if (key->name == NULL) {
        return sysdb_search_by_id(mem_ctx, sysdb, kind, key->id, attrs, _msg);
    }
    ret = sysdb_entry_dn(mem_ctx, sysdb, kind, key->name, &dn);
    if (ret != EOK) {
        return ret;
    }
    if (sysdb_rcache_probe_dn(sysdb, dn, _at) == SYSDB_MDB_ABSENT) {
        return ENOENT;
    }
    *_at = 0;
    return sysdb_read_entry(mem_ctx, sysdb, dn, attrs, _msg);
}

errno_t sysdb_flat_load(struct sysdb_ctx *sysdb, const struct sysdb_flat_view *view,
                        const struct sysdb_rc_key *key, struct sysdb_flat *flat)
{
    struct ldb_message *msg;
    uint64_t at;
    void *blob;
    size_t len;
    errno_t ret;

    assert(flat->tmp == NULL);
    flat->tmp = talloc_new(NULL);
    if (flat->tmp == NULL) {
        return ENOMEM;
    }
    ret = sysdb_read_by_key(flat->tmp, sysdb, view->kind, key, view->attrs, &msg, &at);
    /* A miss read from the pages is cached only for the generation it was read at. */
    if (ret == ENOENT && (at == 0 || at == flat->gen)) {
        sysdb_rcache_put(sysdb, key, flat->gen, NULL, 0);
    }
    if (ret != EOK) {
        return ret;
    }
    ret = view->flatten(flat->tmp, sysdb, msg, &blob, &len);
    if (ret == E2BIG) {
        flat->msg = msg;
    }
    if (ret != EOK) {
        return ret;
    }
    sysdb_rcache_put(sysdb, key, flat->gen, blob, len);
    flat->blob = blob;
    flat->len = len;
    return EOK;
}

errno_t sysdb_entry_enumerate(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                              enum sysdb_kind kind, const char *const *attrs,
                              sysdb_parse_fn parse, void **_array, size_t *_count)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message **msgs;
    void **array;
    size_t count;
    size_t i;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_search_all(tmp_ctx, sysdb, kind, attrs, &msgs, &count);
    if (ret != EOK) {
        goto done;
    }
    /* Every result is a pointer to a struct, the size of a void pointer; parse writes it
     * with its own type. */
    array = talloc_zero_size(tmp_ctx, (count + 1) * sizeof(void *));
    if (array == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < count; i++) {
        ret = parse(array, sysdb, msgs[i], (char *)array + i * sizeof(void *));
        if (ret != EOK) {
            goto done;
        }
    }
    *_array = talloc_steal(mem_ctx, array);
    *_count = count;

done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_names_updated_before(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, bool groups,
                                   time_t before, char ***_names, size_t *_count)
{
    static const char *const attrs[] = { SYSDB_A_NAME, SYSDB_A_LAST_UPDATE, NULL };
    TALLOC_CTX *tmp_ctx;
    struct ldb_message **msgs;
    const char *name;
    char **names;
    size_t count;
    size_t n = 0;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(_names != NULL && _count != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    /* Two attributes per entry (and the DN): no member list or other value is copied or
     * parsed. */
    ret = sysdb_search_all(tmp_ctx, sysdb, groups ? SYSDB_KIND_GROUP : SYSDB_KIND_USER,
                           attrs, &msgs, &count);
    if (ret != EOK) {
        goto done;
    }
    names = talloc_zero_array(tmp_ctx, char *, count + 1);
    if (names == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < count; i++) {
        if ((time_t)ldb_msg_find_attr_as_int64(msgs[i], SYSDB_A_LAST_UPDATE, 0) >= before) {
            continue;
        }
        name = sysdb_msg_name(sysdb, msgs[i]);      /* the attribute, or the DN's */
        if (name == NULL) {
            continue;
        }
        names[n] = talloc_strdup(names, name);
        if (names[n++] == NULL) {
            ret = ENOMEM;
            goto done;
        }
    }
    *_names = talloc_steal(mem_ctx, names);
    *_count = n;
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}
