/*
 * sysdb idmap (sysdb_idmap.h): the domains' slices as one multi-valued attribute of the
 * domain's cache entry (cn=sysdb), a value "SLICE SID NAME" per domain. A handful of
 * domains per cache, written once each: a read-modify-write of the attribute in a
 * transaction is all it needs.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "db/sysdb_private.h"
#include "db/sysdb_idmap.h"

#define SYSDB_A_IDMAP "idmapSlice"

static bool idmap_field_valid(const char *s)
{
    size_t len = s != NULL ? strlen(s) : 0;

    return len > 0 && len <= SYSDB_NAME_MAX && strchr(s, ' ') == NULL
           && sysdb_utf8_valid(s, len);
}

/* "SLICE SID NAME" -> its parts (pointing into a copy on mem_ctx). */
static errno_t idmap_parse(TALLOC_CTX *mem_ctx, const struct ldb_val *val,
                           struct sysdb_idmap *_map)
{
    char *copy;
    char *sid;
    char *name;
    char *end = NULL;
    unsigned long long slice;

    copy = talloc_strndup(mem_ctx, (const char *)val->data, val->length);
    if (copy == NULL) {
        return ENOMEM;
    }
    sid = strchr(copy, ' ');
    name = sid != NULL ? strchr(sid + 1, ' ') : NULL;
    if (name == NULL) {
        return EINVAL;
    }
    *sid++ = '\0';
    *name++ = '\0';
    errno = 0;
    slice = strtoull(copy, &end, 10);
    if (errno != 0 || *copy == '\0' || *end != '\0' || slice > UINT32_MAX
            || !idmap_field_valid(sid) || !idmap_field_valid(name)) {
        return EINVAL;
    }
    _map->name = name;
    _map->sid = sid;
    _map->slice = (uint32_t)slice;
    return EOK;
}

static errno_t idmap_read(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                          struct ldb_message_element **_el)
{
    const char *attrs[] = { SYSDB_A_IDMAP, NULL };
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
    *_el = ldb_msg_find_element(msg, SYSDB_A_IDMAP);
    return EOK;
}

errno_t sysdb_idmap_store(struct sysdb_ctx *sysdb, const char *name, const char *sid,
                          uint32_t slice)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message_element *el = NULL;
    struct ldb_message *msg;
    struct sysdb_idmap old;
    char *value;
    unsigned int i;
    int lret;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && idmap_field_valid(name) && idmap_field_valid(sid), EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    value = talloc_asprintf(tmp_ctx, "%" PRIu32 " %s %s", slice, sid, name);
    msg = sysdb_msg_new(tmp_ctx, sysdb, SYSDB_BASE_DN);
    if (value == NULL || msg == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = idmap_read(tmp_ctx, sysdb, &el);
    if (ret != EOK) {
        goto end;
    }
    lret = ldb_msg_add_empty(msg, SYSDB_A_IDMAP, LDB_FLAG_MOD_REPLACE, NULL);
    /* The other domains' values stay; this SID's old one (if any) is replaced. */
    for (i = 0; lret == LDB_SUCCESS && el != NULL && i < el->num_values; i++) {
        if (idmap_parse(tmp_ctx, &el->values[i], &old) == EOK
                && strcasecmp(old.sid, sid) == 0) {
            continue;
        }
        lret = ldb_msg_add_value(msg, SYSDB_A_IDMAP, &el->values[i], NULL);
    }
    if (lret == LDB_SUCCESS) {
        lret = ldb_msg_add_string(msg, SYSDB_A_IDMAP, value);
    }
    if (lret != LDB_SUCCESS) {
        ret = ENOMEM;
        goto end;
    }
    /* ldb_msg_add_value on an element flagged REPLACE keeps the flag on that element. */
    ret = sysdb_write_entry(sysdb, msg, SYSDB_EXISTS_YES);
end:
    ret = sysdb_transaction_end(sysdb, ret);
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_idmap_list(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                         struct sysdb_idmap **_maps, size_t *_n)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message_element *el = NULL;
    struct sysdb_idmap *maps;
    size_t n = 0;
    unsigned int i;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && _maps != NULL && _n != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = idmap_read(tmp_ctx, sysdb, &el);
    if (ret != EOK) {
        goto done;
    }
    maps = talloc_zero_array(tmp_ctx, struct sysdb_idmap, el != NULL ? el->num_values + 1 : 1);
    if (maps == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; el != NULL && i < el->num_values; i++) {
        ret = idmap_parse(maps, &el->values[i], &maps[n]);
        if (ret == ENOMEM) {
            goto done;
        }
        if (ret != EOK) {
            DEBUG(SSSDBG_CRIT_FAILURE, "%s: a malformed ID-mapping slice record skipped\n",
                  sysdb->path);
            continue;
        }
        n++;
    }
    *_maps = talloc_steal(mem_ctx, maps);
    *_n = n;
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}
