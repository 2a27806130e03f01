/*
 * A domain's SID <-> POSIX id mapping as seen from sssd_nss (by-SID lookups, nss_sid.h).
 * The back-end maps ids from SIDs (ldap_id_mapping = true, src/lib/idmap) and records in
 * the domain's cache the slice each domain SID was given (sysdb_idmap.h); the map is
 * rebuilt here from the same options and those records, so it gives the ids the back-end
 * gave. Only the primary slices are recorded: ids of RIDs beyond ldap_idmap_range_size
 * live in secondary slices whose place depends on the order the back-end met them, and
 * are not answered here (not found).
 * An object whose cache entry holds its SID (objectSIDString: ldap_id_mapping = false with
 * the SID attributes mapped, AD's objectSid) is answered with that one (nss_sid_of_entry).
 * The map is rebuilt per request: these commands are rare and not on the warm path, and a
 * slice the back-end records later is seen at once.
 */
#include <string.h>
#include <strings.h>

#include "responder/nss/nss_sid.h"
#include "confdb/confdb.h"
#include "db/sysdb_idmap.h"

/* The idmap options of [domain/NAME]; ENOTSUP when it does not map ids. */
static errno_t nss_sid_map_opts(TALLOC_CTX *mem_ctx, struct confdb *cdb,
                                const char *section, struct idmap_opts *io,
                                char **_def_sid, char **_def_name)
{
    bool mapping = false;
    int helpers = 0;
    errno_t ret;

    ret = confdb_get_bool(cdb, section, "ldap_id_mapping", &mapping);
    if (ret != EOK) {
        return ret;
    }
    if (!mapping) {
        return ENOTSUP;
    }
    ret = confdb_get_uint32(cdb, section, "ldap_idmap_range_min", &io->lower);
    if (ret == EOK) {
        ret = confdb_get_uint32(cdb, section, "ldap_idmap_range_max", &io->upper);
    }
    if (ret == EOK) {
        ret = confdb_get_uint32(cdb, section, "ldap_idmap_range_size", &io->rangesize);
    }
    if (ret == EOK) {
        ret = confdb_get_bool(cdb, section, "ldap_idmap_autorid_compat", &io->autorid);
    }
    if (ret == EOK) {
        ret = confdb_get_int(cdb, section, "ldap_idmap_helper_table_size", &helpers);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, mem_ctx, section, "ldap_idmap_default_domain_sid",
                                _def_sid);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, mem_ctx, section, "ldap_idmap_default_domain",
                                _def_name);
    }
    io->helpers = helpers > 0 ? (uint32_t)helpers : 0;
    return ret;
}

errno_t nss_sid_map_get(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx, struct resp_domain *dom,
                        struct idmap_ctx **_map, uint32_t *_rangesize)
{
    TALLOC_CTX *tmp_ctx;
    struct idmap_opts io = { 0 };
    struct idmap_ctx *map = NULL;
    struct sysdb_ctx *sysdb = NULL;
    struct sysdb_idmap *recs = NULL;
    char *section;
    char *def_sid = NULL;
    char *def_name = NULL;
    int64_t slice;
    uint32_t have;
    size_t n = 0;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(rctx != NULL && dom != NULL && _map != NULL && _rangesize != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    section = talloc_asprintf(tmp_ctx, "domain/%s", dom->name);
    if (section == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = nss_sid_map_opts(tmp_ctx, rctx->cdb, section, &io, &def_sid, &def_name);
    if (ret != EOK) {
        goto done;
    }
    ret = idmap_ctx_create(tmp_ctx, &io, &map);
    if (ret != EOK) {
        goto done;
    }
    /* As the back-end: the default domain in slice 0 first, then what the cache recorded
     * (a record the map refuses is left out there too). */
    if (def_sid != NULL) {
        slice = 0;
        ret = idmap_add_domain(map, def_name != NULL ? def_name : dom->name, def_sid, &slice);
        if (ret == ENOMEM) {
            goto done;
        }
    }
    ret = resp_domain_sysdb(rctx, dom, &sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_idmap_list(tmp_ctx, sysdb, &recs, &n);
    if (ret != EOK) {
        goto done;
    }
    for (i = 0; i < n; i++) {
        if (idmap_domain_slice(map, recs[i].sid, &have) == EOK) {
            continue;
        }
        slice = recs[i].slice;
        ret = idmap_add_domain(map, recs[i].name, recs[i].sid, &slice);
        if (ret == ENOMEM) {
            goto done;
        }
    }
    *_map = talloc_steal(mem_ctx, map);
    *_rangesize = io.rangesize;
    ret = EOK;
done:
    if (ret != EOK && ret != ENOTSUP && ret != ENOMEM) {
        DEBUG(SSSDBG_OP_FAILURE, "domain %s: cannot set up the ID map for SID lookups: %s\n",
              dom->name, sss_strerror(ret));
    }
    talloc_free(tmp_ctx);
    return ret;
}

errno_t nss_sid_of_id(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx, struct resp_domain *dom,
                      uint32_t id, char **_sid)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    struct idmap_ctx *map = NULL;
    uint32_t rangesize = 0;
    char *dom_sid = NULL;
    char *sid = NULL;
    uint32_t rid = 0;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = nss_sid_map_get(tmp_ctx, rctx, dom, &map, &rangesize);
    if (ret != EOK) {
        goto done;
    }
    ret = idmap_id_to_sid(tmp_ctx, map, id, &sid);
    if (ret != EOK) {
        goto done;
    }
    ret = idmap_split_sid(tmp_ctx, sid, &dom_sid, &rid);
    if (ret == EINVAL || (ret == EOK && rid >= rangesize)) {
        ret = ENOENT;
    }
    if (ret != EOK) {
        goto done;
    }
    *_sid = talloc_steal(mem_ctx, sid);
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t nss_sid_of_entry(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx, struct resp_domain *dom,
                         const char *stored, uint32_t id, char **_sid)
{
    if (stored != NULL && stored[0] != '\0') {
        *_sid = talloc_strdup(mem_ctx, stored);
        return *_sid != NULL ? EOK : ENOMEM;
    }
    return nss_sid_of_id(mem_ctx, rctx, dom, id, _sid);
}

errno_t nss_sid_to_id(struct resp_ctx *rctx, const char *sid, struct resp_domain **_dom,
                      uint32_t *_id)
{
    TALLOC_CTX *tmp_ctx;
    struct idmap_ctx *map;
    uint32_t rangesize;
    char *dom_sid = NULL;
    uint32_t rid = 0;
    uint32_t slice;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(rctx != NULL && sid != NULL && _dom != NULL && _id != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = idmap_split_sid(tmp_ctx, sid, &dom_sid, &rid);
    if (ret != EOK) {
        ret = ret == ENOMEM ? ENOMEM : ENOENT;  /* not a domain object's SID */
        goto done;
    }
    ret = ENOENT;
    for (i = 0; i < rctx->num_domains; i++) {
        map = NULL;
        ret = nss_sid_map_get(tmp_ctx, rctx, &rctx->domains[i], &map, &rangesize);
        if (ret == ENOMEM) {
            goto done;
        }
        if (ret != EOK || idmap_domain_slice(map, dom_sid, &slice) != EOK
                || rid >= rangesize) {
            ret = ENOENT;
            continue;
        }
        ret = idmap_sid_to_id(map, sid, _id);
        if (ret == EOK) {
            *_dom = &rctx->domains[i];
            goto done;
        }
        if (ret == ENOMEM) {
            goto done;
        }
        ret = ENOENT;
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}
