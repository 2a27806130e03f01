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
 * The map is built once and kept (nctx->sid_maps): building it per request made a
 * getnamebysid cost ~199,000 instructions in sssd_nss, ~39,000 with it kept
 * (tests/perf/bench_sid_callgrind.sh). It is built again when the slices the
 * cache records change (read again when the cache's generation moved, compared with those
 * the map was built from: a slice the back-end records later is seen at the next request),
 * when the caches are reset (SIGHUP), and after a lookup touched a secondary slice (the map
 * registers it, and the back-end may have placed it elsewhere).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "responder/nss/nss_sid.h"
#include "confdb/confdb.h"
#include "db/sysdb_idmap.h"
#include "db/sysdb_rcache.h"

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

/* One domain's map as last built. */
struct nss_sid_dmap {
    bool built;
    errno_t state;              /* EOK, or ENOTSUP: the domain does not map ids */
    struct idmap_opts io;
    char *def_sid;              /* ldap_idmap_default_domain_sid, or NULL */
    char *def_name;
    struct idmap_ctx *map;
    struct sysdb_idmap *recs;   /* the slices the map was built from */
    size_t num_recs;
    uint64_t gen;               /* the cache generation they were read at (0: unknown) */
    unsigned int resets;        /* rctx->negcache_resets then */
    TALLOC_CTX *mem;            /* owns all of the above */
};

/* auto_private_groups of a domain, read once (nss_sid_domain_mpg). */
enum nss_sid_mpg { NSS_SID_MPG_UNREAD = 0, NSS_SID_MPG_OFF, NSS_SID_MPG_ON };

struct nss_sid_maps {
    struct nss_sid_dmap *d;     /* one per rctx domain */
    uint8_t *mpg;               /* enum nss_sid_mpg, one per rctx domain */
    unsigned int mpg_resets;    /* rctx->negcache_resets when they were read */
    size_t num;
};

static bool nss_sid_recs_equal(const struct sysdb_idmap *a, size_t na,
                               const struct sysdb_idmap *b, size_t nb)
{
    size_t i;

    if (na != nb) {
        return false;
    }
    for (i = 0; i < na; i++) {
        if (a[i].slice != b[i].slice || strcmp(a[i].sid, b[i].sid) != 0
                || strcmp(a[i].name, b[i].name) != 0) {
            return false;
        }
    }
    return true;
}

/* The map of d's options and recs, as the back-end builds it: the default domain in slice
 * 0 first, then what the cache recorded (a record the map refuses is left out there too). */
static errno_t nss_sid_map_build(TALLOC_CTX *mem_ctx, struct nss_sid_dmap *d,
                                 const char *dom_name, struct idmap_ctx **_map)
{
    struct idmap_ctx *map = NULL;
    uint32_t have;
    int64_t slice;
    size_t i;
    errno_t ret;

    ret = idmap_ctx_create(mem_ctx, &d->io, &map);
    if (ret != EOK) {
        return ret;
    }
    if (d->def_sid != NULL) {
        slice = 0;
        ret = idmap_add_domain(map, d->def_name != NULL ? d->def_name : dom_name, d->def_sid,
                               &slice);
        if (ret == ENOMEM) {
            goto fail;
        }
    }
    for (i = 0; i < d->num_recs; i++) {
        if (idmap_domain_slice(map, d->recs[i].sid, &have) == EOK) {
            continue;
        }
        slice = d->recs[i].slice;
        ret = idmap_add_domain(map, d->recs[i].name, d->recs[i].sid, &slice);
        if (ret == ENOMEM) {
            goto fail;
        }
    }
    *_map = map;
    return EOK;
fail:
    talloc_free(map);
    return ret;
}

/* d (an element of maps) made anew for dom: options, records, map. On failure d stays
 * unbuilt. */
static errno_t nss_sid_dmap_load(struct nss_sid_maps *maps, struct resp_ctx *rctx,
                                 struct resp_domain *dom, struct sysdb_ctx *sysdb,
                                 struct nss_sid_dmap *d)
{
    TALLOC_CTX *mem;
    char *section;
    errno_t ret;

    talloc_free(d->mem);
    memset(d, 0, sizeof(*d));
    mem = talloc_new(maps);
    if (mem == NULL) {
        return ENOMEM;
    }
    section = talloc_asprintf(mem, "domain/%s", dom->name);
    if (section == NULL) {
        ret = ENOMEM;
        goto done;
    }
    d->resets = rctx->negcache_resets;
    ret = nss_sid_map_opts(mem, rctx->cdb, section, &d->io, &d->def_sid, &d->def_name);
    if (ret == ENOTSUP) {
        d->state = ENOTSUP;
        d->built = true;
        ret = EOK;
        goto done;
    }
    if (ret != EOK) {
        goto done;
    }
    d->gen = sysdb_rcache_gen(sysdb);
    ret = sysdb_idmap_list(mem, sysdb, &d->recs, &d->num_recs);
    if (ret == EOK) {
        ret = nss_sid_map_build(mem, d, dom->name, &d->map);
    }
    if (ret == EOK) {
        d->state = EOK;
        d->built = true;
    }
done:
    if (ret == EOK) {
        d->mem = mem;
    } else {
        talloc_free(mem);
        memset(d, 0, sizeof(*d));
    }
    return ret;
}

/* d still as the cache says: its records read again when the cache changed, the map built
 * again when they differ. */
static errno_t nss_sid_dmap_refresh(struct resp_domain *dom, struct sysdb_ctx *sysdb,
                                    struct nss_sid_dmap *d)
{
    struct sysdb_idmap *recs = NULL;
    struct idmap_ctx *map = NULL;
    uint64_t gen;
    size_t n = 0;
    errno_t ret;

    gen = sysdb_rcache_gen(sysdb);
    if (d->state != EOK || (gen != 0 && gen == d->gen)) {
        return EOK;
    }
    ret = sysdb_idmap_list(d->mem, sysdb, &recs, &n);
    if (ret != EOK) {
        return ret;
    }
    if (nss_sid_recs_equal(recs, n, d->recs, d->num_recs)) {
        talloc_free(recs);
        d->gen = gen;
        return EOK;
    }
    talloc_free(d->recs);
    d->recs = recs;
    d->num_recs = n;
    ret = nss_sid_map_build(d->mem, d, dom->name, &map);
    if (ret != EOK) {
        d->built = false;
        return ret;
    }
    talloc_free(d->map);
    d->map = map;
    d->gen = gen;
    return EOK;
}

/* nctx->sid_maps, made on first use. */
static errno_t nss_sid_maps_make(struct nss_ctx *nctx)
{
    struct nss_sid_maps *m;
    size_t n = nctx->rctx->num_domains;

    if (nctx->sid_maps != NULL) {
        return EOK;
    }
    m = talloc_zero(nctx, struct nss_sid_maps);
    if (m == NULL) {
        return ENOMEM;
    }
    m->d = talloc_zero_array(m, struct nss_sid_dmap, n);
    m->mpg = talloc_zero_array(m, uint8_t, n);
    if (m->d == NULL || m->mpg == NULL) {
        talloc_free(m);
        return ENOMEM;
    }
    m->num = n;
    nctx->sid_maps = m;
    return EOK;
}

/* The kept map of dom, brought up to date; NULL with ENOTSUP. Valid until the next call. */
static errno_t nss_sid_dmap_get(struct nss_ctx *nctx, struct resp_domain *dom,
                                struct nss_sid_dmap **_d)
{
    struct resp_ctx *rctx = nctx->rctx;
    struct sysdb_ctx *sysdb = NULL;
    struct nss_sid_dmap *d;
    size_t idx = (size_t)(dom - rctx->domains);
    errno_t ret;

    if (idx >= rctx->num_domains) {
        return EINVAL;
    }
    ret = nss_sid_maps_make(nctx);
    if (ret != EOK) {
        return ret;
    }
    d = &nctx->sid_maps->d[idx];
    ret = resp_domain_sysdb(rctx, dom, &sysdb);
    if (ret != EOK) {
        return ret;
    }
    if (!d->built || d->resets != rctx->negcache_resets) {
        ret = nss_sid_dmap_load(nctx->sid_maps, rctx, dom, sysdb, d);
    } else {
        ret = nss_sid_dmap_refresh(dom, sysdb, d);
    }
    if (ret == EOK && d->state != EOK) {
        ret = d->state;
    }
    if (ret != EOK && ret != ENOTSUP && ret != ENOMEM) {
        DEBUG(SSSDBG_OP_FAILURE, "domain %s: cannot set up the ID map for SID lookups: %s\n",
              dom->name, sss_strerror(ret));
    }
    if (ret == EOK) {
        *_d = d;
    }
    return ret;
}

errno_t nss_sid_map_get(struct nss_ctx *nctx, struct resp_domain *dom,
                        struct idmap_ctx **_map, uint32_t *_rangesize)
{
    struct nss_sid_dmap *d = NULL;
    errno_t ret;

    SSS_CHECK_ARG(nctx != NULL && dom != NULL && _map != NULL && _rangesize != NULL, EINVAL);
    ret = nss_sid_dmap_get(nctx, dom, &d);
    if (ret == EOK) {
        *_map = d->map;
        *_rangesize = d->io.rangesize;
    }
    return ret;
}

errno_t nss_sid_of_id(TALLOC_CTX *mem_ctx, struct nss_ctx *nctx, struct resp_domain *dom,
                      uint32_t id, char **_sid)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    struct nss_sid_dmap *d = NULL;
    char *dom_sid = NULL;
    char *sid = NULL;
    uint32_t rid = 0;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = nss_sid_dmap_get(nctx, dom, &d);
    if (ret != EOK) {
        goto done;
    }
    ret = idmap_id_to_sid(tmp_ctx, d->map, id, &sid);
    if (ret != EOK) {
        goto done;
    }
    ret = idmap_split_sid(tmp_ctx, sid, &dom_sid, &rid);
    if (ret == EOK && rid >= d->io.rangesize) {
        /* A secondary slice: the map registered it, where the back-end may have put
         * another; the next request builds the map afresh. */
        d->built = false;
        ret = ENOENT;
    }
    if (ret == EINVAL) {
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

errno_t nss_sid_of_entry(TALLOC_CTX *mem_ctx, struct nss_ctx *nctx, struct resp_domain *dom,
                         const char *stored, uint32_t id, char **_sid)
{
    if (stored != NULL && stored[0] != '\0') {
        *_sid = talloc_strdup(mem_ctx, stored);
        return *_sid != NULL ? EOK : ENOMEM;
    }
    return nss_sid_of_id(mem_ctx, nctx, dom, id, _sid);
}

errno_t nss_sid_to_id(struct nss_ctx *nctx, const char *sid, struct resp_domain **_dom,
                      uint32_t *_id, bool *_ask)
{
    struct resp_ctx *rctx;
    TALLOC_CTX *tmp_ctx;
    struct idmap_ctx *map;
    uint32_t rangesize;
    char *dom_sid = NULL;
    uint32_t rid = 0;
    uint32_t slice;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(nctx != NULL && sid != NULL && _dom != NULL && _id != NULL && _ask != NULL,
                  EINVAL);
    rctx = nctx->rctx;
    *_ask = false;
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
        ret = nss_sid_map_get(nctx, &rctx->domains[i], &map, &rangesize);
        if (ret == ENOMEM) {
            goto done;
        }
        if (ret != EOK || !idmap_has_domains(map)) {
            /* No map (its SIDs are only known from its directory), one that could not be
             * read, or one the back-end has put no domain in yet: it may hold the SID. */
            *_ask = true;
            ret = ENOENT;
            continue;
        }
        if (idmap_domain_slice(map, dom_sid, &slice) != EOK) {
            ret = ENOENT;
            continue;
        }
        if (rid >= rangesize) {
            *_ask = true;           /* a secondary slice: not answered from the map */
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

bool nss_sid_domain_mpg(struct nss_ctx *nctx, struct resp_domain *dom)
{
    struct resp_ctx *rctx = nctx != NULL ? nctx->rctx : NULL;
    struct nss_sid_maps *m;
    char section[256];
    char *mpg = NULL;
    size_t idx;
    bool on;

    if (rctx == NULL || dom == NULL || dom->name == NULL) {
        return false;
    }
    idx = (size_t)(dom - rctx->domains);
    if (idx >= rctx->num_domains || nss_sid_maps_make(nctx) != EOK) {
        return false;
    }
    m = nctx->sid_maps;
    if (m->mpg_resets != rctx->negcache_resets) {
        memset(m->mpg, NSS_SID_MPG_UNREAD, m->num);
        m->mpg_resets = rctx->negcache_resets;
    }
    if (m->mpg[idx] != NSS_SID_MPG_UNREAD) {
        return m->mpg[idx] == NSS_SID_MPG_ON;
    }
    snprintf(section, sizeof(section), "domain/%s", dom->name);
    on = confdb_get_string(rctx->cdb, NULL, section, "auto_private_groups", &mpg) == EOK
         && mpg != NULL && strcasecmp(mpg, "true") == 0;
    talloc_free(mpg);
    m->mpg[idx] = on ? NSS_SID_MPG_ON : NSS_SID_MPG_OFF;
    return on;
}
