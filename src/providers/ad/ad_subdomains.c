/*
 * The refresh of an AD domain's trusted domains (ad_subdomains.h): one subtree search of
 * the domain's naming context for (&(objectClass=trustedDomain)(trustType=2)) on the id
 * provider's connection (the objects live under CN=System; objectClass is indexed, and the
 * base the connection discovered from the rootDSE is used as is), then the whole list
 * written to the cache. A failed search (offline, ...) keeps the recorded list and is
 * retried sooner than the interval. Then the routing of requests to a trusted domain's
 * own id context, made the way the global catalog's is (sdap_connect_gc.c).
 */
#include <ctype.h>
#include <inttypes.h>
#include <ldap.h>
#include <stdlib.h>

#include "util/util.h"
#include "confdb/confdb.h"
#include "db/sysdb_subdomains.h"
#include "db/sysdb_idmap.h"
#include "lib/idmap/idmap.h"
#include "sss_iface/sss_dp.h"
#include "sss_iface/sss_iface.h"
#include "providers/ldap/sdap.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ad/ad_subdomains.h"

#define AD_SUBDOM_FILTER "(&(objectClass=trustedDomain)(trustType=2))"
/* A failed refresh is tried again after this many seconds (or the interval if shorter). */
#define AD_SUBDOM_RETRY 30u

/* trustDirection bits and trustType values (MS-ADTS 6.1.6.7). */
#define AD_TRUST_OUTBOUND 0x2
#define AD_TRUST_UPLEVEL 2

/* A trusted domain's id context, made on its first lookup and kept for the process's
 * life (a request in flight may hold it when the trust goes away). */
struct ad_subdom_conn {
    char *name;
    struct sdap_id_ctx *ctx;
};

struct ad_subdom_task {
    struct be_ctx *be;
    uint32_t interval;              /* subdomain_refresh_interval, s */
    struct tevent_timer *timer;
    struct sdap_search_args args;   /* of the search in flight */
    struct sdap_search_args base_args;  /* of the read of the joined domain's SID */
    const char *sid_attrs[2];
    bool running;
    struct sysdb_subdom *subs;      /* the trusted domains lookups are routed to */
    size_t num_subs;
    struct ad_subdom_conn *conns;
    size_t num_conns;
    char **configured;              /* the [sssd] domains: never routed to as trusted */
    bool said_no_idmap;             /* the ldap_id_mapping = false notice was logged */
    bool slices_pending;            /* trusted slices wait for the joined domain's SID */
};

static void ad_subdom_schedule(struct ad_subdom_task *task, uint32_t secs);

static uint32_t ad_subdom_retry(const struct ad_subdom_task *task)
{
    return task->interval < AD_SUBDOM_RETRY ? task->interval : AD_SUBDOM_RETRY;
}

static bool ad_subdom_u32(const struct sdap_entry *entry, const char *attr, uint32_t *_v)
{
    const char *s = sdap_entry_value(entry, attr);
    char *end = NULL;
    long long v;

    if (s == NULL) {
        return false;
    }
    errno = 0;
    v = strtoll(s, &end, 10);
    /* Integer syntax: AD writes flags as signed 32-bit values. */
    if (errno != 0 || *s == '\0' || *end != '\0' || v < INT32_MIN || v > UINT32_MAX) {
        return false;
    }
    *_v = (uint32_t)v;
    return true;
}

errno_t ad_subdom_from_entry(TALLOC_CTX *mem_ctx, const struct sdap_entry *entry,
                             struct sysdb_subdom *_sub)
{
    const char *partner;
    const char *flat;
    const char *sid;
    struct sysdb_subdom sub;
    char *name;

    SSS_CHECK_ARG(entry != NULL && _sub != NULL, EINVAL);
    partner = sdap_entry_value(entry, "trustPartner");
    flat = sdap_entry_value(entry, "flatName");
    sid = sdap_entry_value(entry, "securityIdentifier");
    if (partner == NULL || flat == NULL || sid == NULL || strncmp(sid, "S-1-5-21-", 9) != 0
            || partner[0] == '\0' || flat[0] == '\0' || strchr(partner, ' ') != NULL
            || strchr(flat, ' ') != NULL
            || !ad_subdom_u32(entry, "trustDirection", &sub.direction)
            || !ad_subdom_u32(entry, "trustType", &sub.type)
            || !ad_subdom_u32(entry, "trustAttributes", &sub.attributes)) {
        DEBUG(SSSDBG_OP_FAILURE, "trusted domain '%s': an attribute is missing or "
              "malformed: skipped\n", entry->dn);
        return EINVAL;
    }
    if (sub.type != AD_TRUST_UPLEVEL || (sub.direction & AD_TRUST_OUTBOUND) == 0) {
        DEBUG(SSSDBG_TRACE_FUNC, "trusted domain %s: trustType %u, trustDirection %u: "
              "its users are not ours to resolve: skipped\n", partner, sub.type,
              sub.direction);
        return ENOENT;
    }
    name = talloc_strdup(mem_ctx, partner);
    sub.flat = talloc_strdup(mem_ctx, flat);
    sub.sid = talloc_strdup(mem_ctx, sid);
    if (name == NULL || sub.flat == NULL || sub.sid == NULL) {
        return ENOMEM;
    }
    for (char *p = name; *p != '\0'; p++) {
        *p = (char)tolower((unsigned char)*p);
    }
    sub.name = name;
    *_sub = sub;
    return EOK;
}

/* A trusted domain's SID in the ID map now, as SSSD adds each subdomain: its slice is
 * known (and recorded) before any of its objects is seen, so a lookup by id finds it.
 * Only once the joined domain's own SID is there, as SSSD maps the primary domain first:
 * else a trusted domain could take the joined domain's slice (slice 0 with autorid). */
static void ad_subdom_idmap_add(struct ad_subdom_task *task, const struct sysdb_subdom *sub)
{
    struct be_ctx *be = task->be;
    struct idmap_ctx *map = be->id_ctx->opts->idmap;
    int64_t slice = -1;
    uint32_t have;
    errno_t ret;

    if (map == NULL || idmap_domain_slice(map, sub->sid, &have) == EOK) {
        return;
    }
    if (!be->id_ctx->opts->idmap_own_known) {
        DEBUG(SSSDBG_TRACE_FUNC, "ID mapping: trusted domain %s waits for the SID of %s\n",
              sub->name, be->domain);
        task->slices_pending = true;
        return;
    }
    ret = idmap_add_domain(map, sub->name, sub->sid, &slice);
    if (ret == EOK) {
        DEBUG(SSSDBG_CONF_SETTINGS, "ID mapping: trusted domain %s (%s) in slice %lld\n",
              sub->name, sub->sid, (long long)slice);
        ret = sysdb_idmap_store(be->sysdb, sub->name, sub->sid, (uint32_t)slice);
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "ID mapping: trusted domain %s (%s) not added: %s\n",
              sub->name, sub->sid, sss_strerror(ret));
    }
}

/* The memory cache still holds the records of a trusted domain's users and groups after
 * they left the cache, and libnss_sss answers from it without asking sssd_nss until they
 * expire: sssd_nss is told to empty it, with the signals sss_cache sends (a removed trust
 * is rare; the next lookups of the other users refill it). */
static void ad_subdom_drop_memcache(struct be_ctx *be, const char *name)
{
    errno_t ret;

    if (be->conn == NULL) {
        return;
    }
    ret = sbus_emit_sssd_nss_MemoryCache_InvalidateAllUsers(be->conn, SSS_BUS_PATH);
    if (ret == EOK) {
        ret = sbus_emit_sssd_nss_MemoryCache_InvalidateAllGroups(be->conn, SSS_BUS_PATH);
    }
    if (ret == EOK) {
        ret = sbus_emit_sssd_nss_MemoryCache_InvalidateAllInitgroups(be->conn, SSS_BUS_PATH);
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "%s: trusted domain %s is gone, the memory cache could "
              "not be invalidated: %s\n", be->domain, name, sss_strerror(ret));
        return;
    }
    DEBUG(SSSDBG_CONF_SETTINGS, "%s: trusted domain %s is gone: memory cache invalidated\n",
          be->domain, name);
}

/* The trusted domains that were routed to and are not in subs[0..n) any more: their
 * cached users and groups go (as SSSD removes a subdomain's objects with it), and the
 * memory cache's copies of them. */
static void ad_subdom_purge_gone(struct ad_subdom_task *task, const struct sysdb_subdom *subs,
                                 size_t n)
{
    size_t removed;
    size_t i;
    size_t j;
    errno_t ret;

    for (i = 0; i < task->num_subs; i++) {
        for (j = 0; j < n && strcasecmp(subs[j].name, task->subs[i].name) != 0; j++) {
        }
        if (j < n) {
            continue;
        }
        removed = 0;
        ret = sysdb_subdom_purge(task->be->sysdb, task->subs[i].name, &removed);
        if (ret == EOK) {
            DEBUG(SSSDBG_CONF_SETTINGS, "%s: trusted domain %s is gone: %zu cached user(s) "
                  "and group(s) of it removed\n", task->be->domain, task->subs[i].name,
                  removed);
            if (removed > 0) {
                ad_subdom_drop_memcache(task->be, task->subs[i].name);
            }
        } else {
            DEBUG(SSSDBG_OP_FAILURE, "%s: trusted domain %s is gone, its cached objects "
                  "could not be removed: %s\n", task->be->domain, task->subs[i].name,
                  sss_strerror(ret));
        }
    }
}

/* subs (on any context) become the list lookups are routed to. */
static void ad_subdom_use(struct ad_subdom_task *task, struct sysdb_subdom *subs, size_t n)
{
    size_t i;

    ad_subdom_purge_gone(task, subs, n);
    talloc_free(task->subs);
    task->subs = talloc_steal(task, subs);
    task->num_subs = n;
    if (n > 0 && !task->be->id_ctx->opts->id_mapping && !task->said_no_idmap) {
        task->said_no_idmap = true;
        DEBUG(SSSDBG_CRIT_FAILURE, "%s: ldap_id_mapping = false: the users and groups of its "
              "%zu trusted domain(s) are not looked up (their POSIX ids would share this "
              "domain's cache and evict its own on a clash); sssctl domain-list lists them\n",
              task->be->domain, n);
    }
    for (i = 0; i < n; i++) {
        ad_subdom_idmap_add(task, &subs[i]);
    }
}

/* The trusted slices that waited, once the joined domain's SID is in the map (read by the
 * discovery, or by a lookup by id of the joined domain's after a failed read). */
static void ad_subdom_add_pending(struct ad_subdom_task *task)
{
    size_t i;

    if (!task->slices_pending || !task->be->id_ctx->opts->idmap_own_known) {
        return;
    }
    task->slices_pending = false;
    for (i = 0; i < task->num_subs; i++) {
        ad_subdom_idmap_add(task, &task->subs[i]);
    }
}

static void ad_subdom_base_done(struct tevent_req *subreq)
{
    struct ad_subdom_task *task = tevent_req_callback_data(subreq, struct ad_subdom_task);
    struct sdap_entry **entries = NULL;
    size_t num = 0;
    errno_t ret;

    ret = sdap_id_search_recv(task, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret == EOK) {
        ret = sdap_idmap_add_base_domain(task->be->id_ctx->opts, num == 1 ? entries[0] : NULL);
    }
    talloc_free(entries);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "%s: its SID could not be read (%s): the trusted domains' "
              "slices wait for it (next refresh or lookup by id)\n", task->be->domain,
              sss_strerror(ret));
        return;
    }
    ad_subdom_add_pending(task);
}

/* The joined domain's SID (its search base's objectSid) into the ID map first, then the
 * trusted domains' slices (ad_subdom_idmap_add waits for it). */
static void ad_subdom_map_joined(struct ad_subdom_task *task)
{
    struct sdap_options *opts = task->be->id_ctx->opts;
    struct tevent_req *subreq;

    if (task->num_subs == 0 || !sdap_idmap_needs_domain(opts)) {
        return;
    }
    task->sid_attrs[0] = opts->user_map[SDAP_UA_OBJSID];
    task->sid_attrs[1] = NULL;
    task->base_args = (struct sdap_search_args) {
        .base_ref = &opts->search_base,
        .scope = LDAP_SCOPE_BASE,
        .filter = "(objectClass=*)",
        .attrs = task->sid_attrs,
        .timeout = opts->search_timeout,
    };
    subreq = sdap_id_search_send(task, task->be->ev, task->be->id_ctx, &task->base_args);
    if (subreq == NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "%s: out of memory reading its SID\n", task->be->domain);
        return;
    }
    tevent_req_set_callback(subreq, ad_subdom_base_done, task);
}

static void ad_subdom_done(struct tevent_req *subreq)
{
    struct ad_subdom_task *task = tevent_req_callback_data(subreq, struct ad_subdom_task);
    struct sdap_entry **entries = NULL;
    struct sysdb_subdom *subs = NULL;
    size_t num = 0;
    size_t n = 0;
    size_t i;
    errno_t ret;

    task->running = false;
    ret = sdap_id_search_recv(task, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "%s: the trusted domains could not be read (%s): the "
              "recorded ones are kept\n", task->be->domain, sss_strerror(ret));
        ad_subdom_schedule(task, ad_subdom_retry(task));
        return;
    }
    subs = talloc_zero_array(task, struct sysdb_subdom, num + 1);
    if (subs == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < num; i++) {
        ret = ad_subdom_from_entry(subs, entries[i], &subs[n]);
        if (ret == ENOMEM) {
            goto done;
        }
        if (ret == EOK) {
            DEBUG(SSSDBG_TRACE_FUNC, "%s: trusted domain %s (%s, %s), trustDirection %u, "
                  "trustAttributes 0x%x\n", task->be->domain, subs[n].name, subs[n].flat,
                  subs[n].sid, subs[n].direction, subs[n].attributes);
            n++;
        }
    }
    ret = sysdb_subdom_replace(task->be->sysdb, subs, n);
    if (ret == EOK) {
        DEBUG(SSSDBG_CONF_SETTINGS, "%s: %zu trusted domain(s) recorded\n", task->be->domain,
              n);
        ad_subdom_use(task, subs, n);
        subs = NULL;
        ad_subdom_map_joined(task);
    }
done:
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "%s: the trusted domains were not recorded: %s\n",
              task->be->domain, sss_strerror(ret));
    }
    talloc_free(subs);
    talloc_free(entries);
    ad_subdom_schedule(task, ret == EOK ? task->interval : ad_subdom_retry(task));
}

static void ad_subdom_fire(struct tevent_context *ev, struct tevent_timer *te,
                           struct timeval now, void *pvt)
{
    static const char *const attrs[] = { "trustPartner", "flatName", "securityIdentifier",
                                         "trustDirection", "trustType", "trustAttributes",
                                         NULL };
    struct ad_subdom_task *task = talloc_get_type_abort(pvt, struct ad_subdom_task);
    struct tevent_req *subreq;

    task->timer = NULL;
    if (task->running) {
        return;
    }
    task->args = (struct sdap_search_args) {
        .base_ref = &task->be->id_ctx->opts->search_base,
        .scope = LDAP_SCOPE_SUBTREE,
        .filter = AD_SUBDOM_FILTER,
        .attrs = attrs,
        .timeout = task->be->id_ctx->opts->search_timeout,
        .missing_base_ok = true,
    };
    subreq = sdap_id_search_send(task, ev, task->be->id_ctx, &task->args);
    if (subreq == NULL) {
        ad_subdom_schedule(task, ad_subdom_retry(task));
        return;
    }
    task->running = true;
    tevent_req_set_callback(subreq, ad_subdom_done, task);
}

static void ad_subdom_schedule(struct ad_subdom_task *task, uint32_t secs)
{
    talloc_zfree(task->timer);
    task->timer = tevent_add_timer(task->be->ev, task, tevent_timeval_current_ofs(secs, 0),
                                   ad_subdom_fire, task);
    if (task->timer == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "%s: no timer for the next trusted domain refresh\n",
              task->be->domain);
    }
}

errno_t ad_subdom_start(struct be_ctx *be)
{
    struct ad_subdom_task *task;
    struct sysdb_subdom *subs = NULL;
    size_t n = 0;
    int interval = 0;
    errno_t ret;

    SSS_CHECK_ARG(be != NULL, EINVAL);
    if (!be->id_supported || be->id_ctx == NULL || be->id_provider == NULL
            || strcmp(be->id_provider, "ad") != 0) {
        return EOK;
    }
    ret = confdb_get_int(be->cdb, be->section, "subdomain_refresh_interval", &interval);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] subdomain_refresh_interval: %s\n", be->section,
              sss_strerror(ret));
        return ret;
    }
    task = talloc_zero(be, struct ad_subdom_task);
    if (task == NULL) {
        return ENOMEM;
    }
    task->be = be;
    task->interval = interval > 0 ? (uint32_t)interval : 14400;
    ret = confdb_get_domains(be->cdb, task, &task->configured);
    if (ret != EOK) {
        talloc_free(task);
        return ret;
    }
    be->subdoms = task;
    /* Until the DC answers: the trusted domains the cache recorded last time. */
    ret = sysdb_subdom_list(task, be->sysdb, &subs, &n);
    if (ret == EOK) {
        ad_subdom_use(task, subs, n);
    }
    ad_subdom_schedule(task, 0);
    return task->timer != NULL ? EOK : ENOMEM;
}

/* ---- routing ----------------------------------------------------------------------- */

/* The trusted domain's id context: as the joined domain's, but its DCs found through DNS
 * (ldap://_srv_.NAME), its base from their rootDSE, and the joined domain's SASL state
 * (machine TGT, ccache) and ID map shared (as the global catalog's, sdap_connect_gc.c). */
static struct sdap_id_ctx *ad_subdom_conn(struct ad_subdom_task *task,
                                          const struct sysdb_subdom *sub)
{
    struct be_ctx *be = task->be;
    struct ad_subdom_conn *conns;
    struct sdap_id_ctx *ctx = NULL;
    struct sdap_options *opts;
    size_t i;
    errno_t ret;

    for (i = 0; i < task->num_conns; i++) {
        if (strcmp(task->conns[i].name, sub->name) == 0) {
            return task->conns[i].ctx;
        }
    }
    conns = talloc_realloc(task, task->conns, struct ad_subdom_conn, task->num_conns + 1);
    if (conns == NULL) {
        return NULL;
    }
    task->conns = conns;
    ret = sdap_id_ctx_create(task, be->ev, be->cdb, be->domain, &ctx);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "trusted domain %s: no id context: %s\n", sub->name,
              sss_strerror(ret));
        return NULL;
    }
    opts = ctx->opts;
    opts->uris = talloc_zero_array(opts, char *, 2);
    opts->name_suffix = talloc_asprintf(opts, "@%s", sub->name);
    conns[task->num_conns].name = talloc_strdup(task, sub->name);
    if (opts->uris == NULL || opts->name_suffix == NULL
            || conns[task->num_conns].name == NULL) {
        goto fail;
    }
    opts->uris[0] = talloc_asprintf(opts->uris, "ldap://_srv_.%s", sub->name);
    opts->num_uris = 1;
    opts->num_primary = 1;
    /* Read from the trusted domain's rootDSE once connected (sdap_rootdse.c). */
    opts->search_base = NULL;
    opts->user_base = NULL;
    opts->group_base = NULL;
    talloc_free(ctx->fo);
    ctx->fo = opts->uris[0] != NULL ? sdap_fo_create(ctx, opts) : NULL;
    if (ctx->fo == NULL) {
        goto fail;
    }
    talloc_free(opts->sasl);
    opts->sasl = be->id_ctx->opts->sasl;
    if (be->id_ctx->opts->idmap != NULL) {
        talloc_free(opts->idmap);
        opts->idmap = be->id_ctx->opts->idmap;
        /* Its slice is in the shared map (ad_subdom_idmap_add): no read of its base. */
        opts->idmap_own_known = true;
    }
    conns[task->num_conns].ctx = ctx;
    task->num_conns++;
    DEBUG(SSSDBG_CONF_SETTINGS, "trusted domain %s: its DCs from DNS (%s), names stored as "
          "NAME%s\n", sub->name, opts->uris[0], opts->name_suffix);
    return ctx;
fail:
    DEBUG(SSSDBG_CRIT_FAILURE, "trusted domain %s: no id context: out of memory\n",
          sub->name);
    talloc_free(ctx);
    return NULL;
}

/* The recorded trusted domain whose SID is dom_sid, or NULL. */
static const struct sysdb_subdom *ad_subdom_by_sid(struct ad_subdom_task *task,
                                                   const char *sid)
{
    char *dom_sid = NULL;
    const struct sysdb_subdom *found = NULL;
    uint32_t rid;
    size_t i;

    if (idmap_split_sid(task, sid, &dom_sid, &rid) != EOK) {
        return NULL;
    }
    for (i = 0; i < task->num_subs; i++) {
        if (strcasecmp(task->subs[i].sid, dom_sid) == 0) {
            found = &task->subs[i];
        }
    }
    talloc_free(dom_sid);
    return found;
}

/* A trusted domain configured as a domain of its own has its own back-end and cache: its
 * objects are not this domain's to answer (the responders send them there). */
static bool ad_subdom_configured(const struct ad_subdom_task *task, const char *name)
{
    size_t i;

    for (i = 0; task->configured != NULL && task->configured[i] != NULL; i++) {
        if (strcasecmp(task->configured[i], name) == 0) {
            return true;
        }
    }
    return false;
}

struct sdap_id_ctx *ad_subdom_route(TALLOC_CTX *mem_ctx, struct be_ctx *be, uint32_t type,
                                    const struct be_filter *filter, struct be_filter *_sub)
{
    struct ad_subdom_task *task = be != NULL ? be->subdoms : NULL;
    const struct sysdb_subdom *sub = NULL;
    struct idmap_ctx *map;
    const char *at;
    char *sid = NULL;
    size_t i;

    if (task == NULL || task->num_subs == 0 || filter == NULL || _sub == NULL) {
        return NULL;
    }
    /* Without ID mapping a trusted object's uid/gid may equal one of this domain's: in the
     * one cache file (unique id indexes) they would evict each other. SSSD keeps each
     * subdomain apart; this cache does not, so trusted domains are not served then. */
    if (!be->id_ctx->opts->id_mapping) {
        return NULL;
    }
    *_sub = *filter;
    switch (filter->kind) {
    case BE_FILTER_NAME:
        at = filter->name != NULL ? strrchr(filter->name, '@') : NULL;
        for (i = 0; at != NULL && at != filter->name && i < task->num_subs; i++) {
            if (strcasecmp(at + 1, task->subs[i].name) == 0) {
                sub = &task->subs[i];
            }
        }
        if (sub != NULL && type != SSS_DP_INITGROUPS) {
            _sub->name = talloc_strndup(mem_ctx, filter->name, (size_t)(at - filter->name));
            if (_sub->name == NULL) {
                return NULL;
            }
        }
        break;
    case BE_FILTER_ID:
        ad_subdom_add_pending(task);
        map = be->id_ctx->opts->idmap;
        if (map != NULL && idmap_id_to_sid(mem_ctx, map, filter->id, &sid) == EOK) {
            sub = ad_subdom_by_sid(task, sid);
            talloc_free(sid);
        }
        break;
    case BE_FILTER_SID:
        sub = filter->name != NULL ? ad_subdom_by_sid(task, filter->name) : NULL;
        break;
    default:
        break;
    }
    if (sub == NULL || ad_subdom_configured(task, sub->name)) {
        return NULL;
    }
    if (filter->kind == BE_FILTER_ID) {
        DEBUG(SSSDBG_TRACE_FUNC, "id %" PRIu32 ": in trusted domain %s's slice, asked to its "
              "DCs\n", filter->id, sub->name);
    } else {
        DEBUG(SSSDBG_TRACE_FUNC, "%s: an object of trusted domain %s, asked to its DCs\n",
              filter->name, sub->name);
    }
    return ad_subdom_conn(task, sub);
}
