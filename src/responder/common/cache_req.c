/*
 * The cache_req engine (cache_req.h): walks the domains that apply to a request, decides
 * per domain between the cache, the back-end and the expired entry, and keeps the negative
 * cache. Reading the cache is cache_req_cache.c, calling the back-end cache_req_dp.c.
 *
 * Lookup by e-mail address (SSSD's switch to its "user by UPN" search): a user or
 * initgroups lookup by a name holding '@' that no domain answered is tried again as an
 * e-mail address, in every active domain (fully qualified ones too): the cache's users
 * holding it (sysdb_get_users_by_email), else the back-end ("mail=<address>"). One user
 * answers; none, or several sharing the address (SSSD refuses them as ambiguous), is not
 * found in that domain, negatively cached under a key no name can have ("@" + address).
 * A name whose "@suffix" is no configured domain is first tried whole as a short name, as
 * SSSD does. An initgroups found by address goes on as an initgroups of the user's own
 * name in that domain. Unlike SSSD, the address is not tried when a domain could not say
 * whether it has the name (its back-end failed or was offline, nothing cached): the name
 * may well exist there, and answering with another account that happens to hold it as
 * an address would hand out the wrong identity.
 *
 * Lookup by SID (libsss_nss_idmap where ids are not mapped from SIDs): every active
 * domain, the cache's entry holding that objectSIDString, else the back-end
 * ("secid=<SID>"); a miss is negatively cached under "@" + the SID (no name starts with
 * '@', and no e-mail key holds a SID: those hold an '@' after their first character).
 */
#include <assert.h>
#include <stdio.h>
#include <strings.h>
#include <time.h>

#include "responder/common/cache_req_private.h"
#include "responder/common/resp_names.h"
#include "sss_iface/sss_dp.h"
#include "db/sysdb_reply.h"

struct cache_req_state {
    struct tevent_context *ev;
    struct resp_ctx *rctx;
    enum cache_req_type type;
    uint32_t flags;
    uint64_t req_id;
    char *short_name;               /* by name; NULL by id */
    bool qualified;                 /* the name was written "name@domain" */
    uint32_t id;
    struct resp_domain *only;       /* the one domain a qualified name names */
    char *mail;                     /* the name as asked when it may be an e-mail address
                                     * (holds '@', user or initgroups); NULL otherwise */
    bool by_mail;                   /* the walk by e-mail address is running */
    bool name_unsure;               /* a domain could not say whether it has the name */
    char *sid;                      /* by SID: the SID string; NULL otherwise */
    size_t next_dom;
    struct resp_domain *dom;        /* the domain being tried */
    struct cache_req_entry *entry;  /* its cache entry before the back-end call, or NULL */
    struct cache_req_result *result;
};

static errno_t cache_req_next(struct tevent_req *req);
static errno_t cache_req_try_domain(struct tevent_req *req);
static void cache_req_dp_done(struct tevent_req *subreq);

const char *cache_req_source_str(enum cache_req_source source)
{
    switch (source) {
    case CACHE_REQ_SRC_CACHE: return "cache";
    case CACHE_REQ_SRC_DP: return "dp";
    case CACHE_REQ_SRC_STALE: return "expired cache";
    }
    return "?";
}

static bool cache_req_by_name(enum cache_req_type type)
{
    return type == CACHE_REQ_USER_BY_NAME || type == CACHE_REQ_GROUP_BY_NAME
           || type == CACHE_REQ_INITGROUPS || type == CACHE_REQ_NETGROUP;
}

/* The request type as the cache_req probes name it. */
static const char *cache_req_type_str(enum cache_req_type type)
{
    switch (type) {
    case CACHE_REQ_USER_BY_NAME: return "user";
    case CACHE_REQ_USER_BY_ID: return "user_by_id";
    case CACHE_REQ_GROUP_BY_NAME: return "group";
    case CACHE_REQ_GROUP_BY_ID: return "group_by_id";
    case CACHE_REQ_INITGROUPS: return "initgroups";
    case CACHE_REQ_NETGROUP: return "netgroup";
    case CACHE_REQ_USER_BY_SID: return "user_by_sid";
    case CACHE_REQ_GROUP_BY_SID: return "group_by_sid";
    }
    return "?";
}

static bool cache_req_by_sid(enum cache_req_type type)
{
    return type == CACHE_REQ_USER_BY_SID || type == CACHE_REQ_GROUP_BY_SID;
}

/* The key of the probes: the short name, or the id in decimal (in buf). Only called while
 * a tracer is attached. */
static const char *cache_req_probe_key(struct cache_req_state *state, char *buf, size_t size)
{
    if (state->short_name != NULL) {
        return state->short_name;
    }
    if (state->sid != NULL) {
        return state->sid;
    }
    if (cache_req_by_name(state->type)) {
        return "";
    }
    snprintf(buf, size, "%u", state->id);
    return buf;
}

/* sssd:cache_lookup for the domain being tried; result as sssd_probes.d spells it. */
static void cache_req_probe_lookup(struct cache_req_state *state, struct resp_domain *dom,
                                   const char *result)
{
    if (PROBE_ENABLED(CACHE_LOOKUP)) {
        char buf[16];

        PROBE(CACHE_LOOKUP, state->req_id, dom->name, cache_req_type_str(state->type),
              cache_req_probe_key(state, buf, sizeof(buf)), result);
    }
}

/* Ends the request (EOK: state->result answers; ENOENT or an error otherwise), with
 * sssd:cache_req_done. */
static void cache_req_finish(struct tevent_req *req, errno_t ret)
{
    struct cache_req_state *state = tevent_req_data(req, struct cache_req_state);

    if (PROBE_ENABLED(CACHE_REQ_DONE)) {
        char buf[16];

        PROBE(CACHE_REQ_DONE, state->req_id, cache_req_type_str(state->type),
              cache_req_probe_key(state, buf, sizeof(buf)), ret);
    }
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    tevent_req_done(req);
}

static bool cache_req_is_user(enum cache_req_type type)
{
    return type != CACHE_REQ_GROUP_BY_NAME && type != CACHE_REQ_GROUP_BY_ID
           && type != CACHE_REQ_GROUP_BY_SID;
}

static enum resp_ncache_type cache_req_nc_type(enum cache_req_type type)
{
    if (type == CACHE_REQ_NETGROUP) {
        return RESP_NCACHE_NETGROUP;
    }
    return cache_req_is_user(type) ? RESP_NCACHE_USER : RESP_NCACHE_GROUP;
}

/* The built-in root guard compares names as the domain does: "ROOT" is root where names
 * are case-insensitive, as in SSSD, whose negative cache holds root for good (hence the
 * probe's "negcache" when it skips a domain for it). */
static bool cache_req_is_root(struct resp_domain *dom, const char *short_name)
{
    return strcmp(short_name, "root") == 0
           || (dom->case_mode != SYSDB_CASE_SENSITIVE && strcasecmp(short_name, "root") == 0);
}

static bool cache_req_filtered(struct cache_req_state *state, struct resp_domain *dom,
                               const char *short_name)
{
    if (state->type == CACHE_REQ_NETGROUP) {
        return false;       /* filter_users/filter_groups name accounts only */
    }
    if (cache_req_is_user(state->type)) {
        return resp_user_is_filtered(state->rctx, dom, short_name);
    }
    return resp_group_is_filtered(state->rctx, dom, short_name);
}

/* Whether the request names a local account (local_negative_timeout): such a name or id
 * is looked up in no directory. Checked live against the files (resp_local.h) rather than
 * kept in the per-domain negative cache, so "name@domain" still reaches its domain, and a
 * name removed from the files is a directory name again within a second. A name only as a
 * short name: "daemon@dom" asks the directory for it explicitly. */
static bool cache_req_local(struct cache_req_state *state)
{
    struct resp_ctx *rctx = state->rctx;
    bool user = cache_req_is_user(state->type);

    if (rctx->local == NULL || rctx->local_neg_timeout == 0
            || state->type == CACHE_REQ_NETGROUP || state->sid != NULL) {
        return false;
    }
    if (state->short_name != NULL) {
        return !state->qualified && (user ? resp_local_has_user(rctx->local, state->short_name)
                                          : resp_local_has_group(rctx->local,
                                                                 state->short_name));
    }
    return user ? resp_local_has_uid(rctx->local, state->id)
                : resp_local_has_gid(rctx->local, state->id);
}

struct tevent_req *cache_req_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                  struct resp_ctx *rctx, enum cache_req_type type,
                                  const char *name, uint32_t id, uint32_t flags,
                                  uint64_t req_id)
{
    struct cache_req_state *state;
    struct tevent_req *req;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct cache_req_state);
    if (req == NULL) {
        return NULL;
    }
    state->ev = ev;
    state->rctx = rctx;
    state->type = type;
    state->flags = flags;
    state->req_id = req_id;
    state->id = id;
    if (rctx == NULL || type > CACHE_REQ_GROUP_BY_SID
            || ((cache_req_by_name(type) || cache_req_by_sid(type)) && name == NULL)) {
        DEBUG(SSSDBG_CRIT_FAILURE, "invalid argument: rctx %s, type %d, name %s\n",
              rctx == NULL ? "NULL" : "set", (int)type, name == NULL ? "NULL" : "set");
        ret = EINVAL;
        goto done;
    }
    if (cache_req_by_sid(type)) {
        state->sid = talloc_strdup(state, name);
        if (PROBE_ENABLED(CACHE_REQ_START)) {
            PROBE(CACHE_REQ_START, req_id, cache_req_type_str(type), name);
        }
        if (state->sid == NULL) {
            ret = ENOMEM;
            goto done;
        }
    } else if (cache_req_by_name(type)) {
        ret = resp_parse_name(state, rctx, name, &state->only, &state->short_name);
        state->qualified = strchr(name, '@') != NULL;
        if (state->qualified && (type == CACHE_REQ_USER_BY_NAME
                                 || type == CACHE_REQ_INITGROUPS)
                && (ret == EOK || ret == ENOENT)) {
            state->mail = talloc_strdup(state, name);
            if (state->mail == NULL) {
                ret = ENOMEM;
            } else if (ret == ENOENT) {
                /* "@suffix" names no domain: the whole name may still be a user's. */
                state->short_name = talloc_strdup(state, name);
                state->only = NULL;
                state->qualified = false;
                ret = state->short_name != NULL ? EOK : ENOMEM;
            }
        }
        if (PROBE_ENABLED(CACHE_REQ_START)) {
            PROBE(CACHE_REQ_START, req_id, cache_req_type_str(type),
                  state->short_name != NULL ? state->short_name : name);
        }
        if (ret == ENOENT || ret == EINVAL) {
            DEBUG(SSSDBG_TRACE_INTERNAL, "[%s] names no configured domain\n", name);
            ret = ENOENT;
            goto done;
        }
        if (ret != EOK) {
            goto done;
        }
        if (type != CACHE_REQ_NETGROUP && strcmp(state->short_name, "root") == 0) {
            ret = ENOENT;
            goto done;
        }
        if (cache_req_local(state)) {
            DEBUG(SSSDBG_TRACE_FUNC, "%s is a local account: not looked up\n",
                  state->short_name);
            ret = ENOENT;
            goto done;
        }
    } else {
        if (PROBE_ENABLED(CACHE_REQ_START)) {
            char buf[16];

            PROBE(CACHE_REQ_START, req_id, cache_req_type_str(type),
                  cache_req_probe_key(state, buf, sizeof(buf)));
        }
        if (id == 0) {
            ret = ENOENT;
            goto done;
        }
        if (cache_req_local(state)) {
            DEBUG(SSSDBG_TRACE_FUNC, "%u is a local account's id: not looked up\n", id);
            ret = ENOENT;
            goto done;
        }
    }
    ret = cache_req_next(req);
    if (ret == EAGAIN) {
        return req;
    }
done:
    cache_req_finish(req, ret);
    return tevent_req_post(req, ev);
}

/* The negative-cache key of the e-mail address in dom: "@" + the address as the domain
 * compares names. No name starts with '@' (resp_parse_name), so no name shares it. */
static char *cache_req_mail_nc_key(struct cache_req_state *state, struct resp_domain *dom)
{
    char *folded = resp_ncache_name(state, dom, state->mail);
    char *key;

    if (folded == NULL) {
        return NULL;
    }
    key = talloc_asprintf(state, "@%s", folded);
    talloc_free(folded);
    return key;
}

/* The negative-cache key of the SID: "@" + the SID (see the head of this file). */
static char *cache_req_sid_nc_key(struct cache_req_state *state)
{
    return talloc_asprintf(state, "@%s", state->sid);
}

/* Whether dom is worth looking at for this request. */
static bool cache_req_domain_applies(struct cache_req_state *state, struct resp_domain *dom)
{
    struct resp_ncache *nc = state->rctx->ncache;
    enum resp_ncache_type nct = cache_req_nc_type(state->type);
    char *key;
    bool hit;

    if (!dom->active) {
        return false;
    }
    if (state->by_mail) {
        /* Every domain, qualified names or not, as SSSD's search by UPN; filter_users
         * applies to the user found (cache_req_answer). */
        key = cache_req_mail_nc_key(state, dom);
        hit = key != NULL && resp_ncache_check_name(nc, nct, dom->name, key);
        talloc_free(key);
        if (hit) {
            cache_req_probe_lookup(state, dom, "negcache");
        }
        return !hit;
    }
    if (state->sid != NULL) {
        key = cache_req_sid_nc_key(state);
        hit = key != NULL && resp_ncache_check_name(nc, nct, dom->name, key);
        talloc_free(key);
        if (hit) {
            cache_req_probe_lookup(state, dom, "negcache");
        }
        return !hit;
    }
    if (state->short_name == NULL) {
        if (state->id < dom->min_id || (dom->max_id != 0 && state->id > dom->max_id)) {
            return false;
        }
        hit = resp_ncache_check_id(nc, nct, dom->name, state->id);
        if (hit) {
            cache_req_probe_lookup(state, dom, "negcache");
        }
        return !hit;
    }
    if (state->only != NULL ? dom != state->only : dom->fqnames) {
        return false;
    }
    if (state->type != CACHE_REQ_NETGROUP && cache_req_is_root(dom, state->short_name)) {
        cache_req_probe_lookup(state, dom, "negcache");
        return false;
    }
    if (cache_req_filtered(state, dom, state->short_name)) {
        return false;
    }
    key = resp_ncache_name(state, dom, state->short_name);
    hit = key != NULL && resp_ncache_check_name(nc, nct, dom->name, key);
    talloc_free(key);
    if (hit) {
        DEBUG(SSSDBG_TRACE_INTERNAL, "%s is in the negative cache of domain %s\n",
              state->short_name, dom->name);
        cache_req_probe_lookup(state, dom, "negcache");
    }
    return !hit;
}

static void cache_req_negative(struct cache_req_state *state)
{
    enum resp_ncache_type nct = cache_req_nc_type(state->type);
    char *key;
    errno_t ret;

    if (state->short_name == NULL && state->sid == NULL) {
        ret = resp_ncache_add_id(state->rctx->ncache, nct, state->dom->name, state->id);
    } else {
        key = state->sid != NULL ? cache_req_sid_nc_key(state)
              : state->by_mail ? cache_req_mail_nc_key(state, state->dom)
              : resp_ncache_name(state, state->dom, state->short_name);
        ret = key == NULL ? ENOMEM
                          : resp_ncache_add_name(state->rctx->ncache, nct, state->dom->name,
                                                 key);
        talloc_free(key);
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_MINOR_FAILURE, "Cannot add to the negative cache: %s\n",
              sss_strerror(ret));
    }
}

/* Makes entry the answer. ENOENT when the entry turns out to be filtered (by id). */
static errno_t cache_req_answer(struct cache_req_state *state, struct cache_req_entry *entry,
                                enum cache_req_source source)
{
    struct cache_req_result *res;
    errno_t ret;

    res = talloc_zero(state, struct cache_req_result);
    if (res == NULL) {
        return ENOMEM;
    }
    ret = cache_req_entry_short_name(res, state->rctx, state->dom, entry, &res->short_name);
    if (ret != EOK) {
        talloc_free(res);
        return ret;
    }
    /* Found by id or by e-mail address: its name may be one a lookup by name would not
     * have taken. */
    if ((state->short_name == NULL || state->by_mail)
            && (cache_req_is_root(state->dom, res->short_name)
                || cache_req_filtered(state, state->dom, res->short_name))) {
        talloc_free(res);
        return ENOENT;
    }
    res->domain = state->dom;
    res->source = source;
    res->user = talloc_steal(res, entry->user);
    res->group = talloc_steal(res, entry->group);
    res->netgroup = talloc_steal(res, entry->netgroup);
    res->gids = talloc_steal(res, entry->gids);
    res->num_gids = entry->num_gids;
    res->expire = entry->expire;
    res->gen = entry->gen;
    state->result = res;
    return EOK;
}

static char *cache_req_filter(struct cache_req_state *state)
{
    if (state->by_mail) {
        return talloc_asprintf(state, SSS_DP_FILTER_MAIL "%s", state->mail);
    }
    if (state->sid != NULL) {
        return talloc_asprintf(state, SSS_DP_FILTER_SID "%s", state->sid);
    }
    return cache_req_dp_filter(state, state->short_name, state->id);
}

/* What the current step looks up: by e-mail address, a user (an initgroups goes on by the
 * user's name once it is found, cache_req_found). */
static enum cache_req_type cache_req_step_type(struct cache_req_state *state)
{
    return state->by_mail ? CACHE_REQ_USER_BY_NAME : state->type;
}

/* The domain's cache for the current step. */
static errno_t cache_req_read(struct cache_req_state *state, struct cache_req_entry **_entry)
{
    if (state->by_mail) {
        return cache_req_cache_read_mail(state, state->rctx, state->dom, state->mail, _entry);
    }
    return cache_req_cache_read(state, state->rctx, state->dom, state->type,
                                state->sid != NULL ? state->sid : state->short_name,
                                state->id, _entry);
}

/* entry answers the current step: it is the answer, or, for an initgroups whose user was
 * found by e-mail address, the user whose groups are then looked up by name in this
 * domain only. EOK, ENOENT or EAGAIN as cache_req_try_domain(). */
static errno_t cache_req_found(struct tevent_req *req, struct cache_req_entry *entry,
                               enum cache_req_source source)
{
    struct cache_req_state *state = tevent_req_data(req, struct cache_req_state);
    char *short_name = NULL;
    errno_t ret;

    if (!state->by_mail || state->type != CACHE_REQ_INITGROUPS) {
        return cache_req_answer(state, entry, source);
    }
    ret = cache_req_entry_short_name(state, state->rctx, state->dom, entry, &short_name);
    if (ret != EOK) {
        return ret;
    }
    if (cache_req_filtered(state, state->dom, short_name)) {
        return ENOENT;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "%s is the e-mail address of %s in domain %s\n", state->mail,
          short_name, state->dom->name);
    talloc_free(state->short_name);
    state->short_name = short_name;
    state->only = state->dom;
    state->by_mail = false;
    talloc_zfree(state->mail);
    state->next_dom = state->rctx->num_domains;     /* this user's groups, nobody else's */
    return cache_req_try_domain(req);
}

/* Past entry_cache_nowait_percentage of its lifetime the entry is refreshed in the
 * background, as a request of its own (the client's request is answered now). True when a
 * refresh was started. */
static bool cache_req_maybe_refresh(struct cache_req_state *state, time_t now)
{
    struct cache_req_entry *e = state->entry;
    time_t lifetime;
    uint64_t refresh_id;
    char *filter;

    if (state->rctx->nowait_percentage == 0 || e->last_update == 0
            || e->expire <= e->last_update) {
        return false;
    }
    lifetime = e->expire - e->last_update;
    if ((now - e->last_update) * 100 < lifetime * (time_t)state->rctx->nowait_percentage) {
        return false;
    }
    filter = cache_req_filter(state);
    if (filter == NULL) {
        return false;
    }
    refresh_id = sss_new_req_id();
    DEBUG(SSSDBG_TRACE_FUNC, "Background refresh of %s in domain %s: request %llu\n",
          filter, state->dom->name, (unsigned long long)refresh_id);
    cache_req_dp_refresh(state->rctx, state->dom, cache_req_dp_type(cache_req_step_type(state)),
                         filter,
                         refresh_id);
    talloc_free(filter);
    return true;
}

/* EOK: answered; ENOENT: not in this domain; EAGAIN: waiting for the back-end. */
static errno_t cache_req_try_domain(struct tevent_req *req)
{
    struct cache_req_state *state = tevent_req_data(req, struct cache_req_state);
    struct tevent_req *subreq;
    time_t now = time(NULL);
    bool valid;
    char *filter;
    errno_t ret;

    talloc_zfree(state->entry);
    ret = cache_req_read(state, &state->entry);
    if (ret != EOK && ret != ENOENT) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot read the cache of domain %s: %s\n",
              state->dom->name, sss_strerror(ret));
        return ENOENT;
    }
    if (state->entry != NULL) {
        valid = state->entry->expire > now
                && (cache_req_step_type(state) != CACHE_REQ_INITGROUPS
                    || state->entry->have_gids);
        if (valid && !(state->flags & CACHE_REQ_BYPASS_CACHE)) {
            if (state->by_mail) {
                cache_req_probe_lookup(state, state->dom, "hit");
                return cache_req_found(req, state->entry, CACHE_REQ_SRC_CACHE);
            }
            ret = cache_req_answer(state, state->entry, CACHE_REQ_SRC_CACHE);
            if (ret == EOK) {
                cache_req_probe_lookup(state, state->dom,
                                       cache_req_maybe_refresh(state, now) ? "midpoint"
                                                                           : "hit");
            }
            return ret;
        }
        if (!state->dom->online) {
            DEBUG(SSSDBG_TRACE_INTERNAL, "Domain %s is offline: answering from the cache\n",
                  state->dom->name);
            cache_req_probe_lookup(state, state->dom, valid ? "hit" : "offline_hit");
            return cache_req_found(req, state->entry,
                                   valid ? CACHE_REQ_SRC_CACHE : CACHE_REQ_SRC_STALE);
        }
        /* Expired, or valid but the caller bypasses the cache: the back-end is asked. */
        cache_req_probe_lookup(state, state->dom, "expired");
    } else {
        cache_req_probe_lookup(state, state->dom, "miss");
    }
    filter = cache_req_filter(state);
    if (filter == NULL) {
        return ENOMEM;
    }
    subreq = cache_req_dp_send(state, state->rctx, state->dom,
                               cache_req_dp_type(cache_req_step_type(state)), filter,
                               state->req_id);
    talloc_free(filter);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, cache_req_dp_done, req);
    return EAGAIN;
}

static errno_t cache_req_next(struct tevent_req *req)
{
    struct cache_req_state *state = tevent_req_data(req, struct cache_req_state);
    struct resp_domain *dom;
    errno_t ret;

    for (;;) {
        while (state->next_dom < state->rctx->num_domains) {
            dom = &state->rctx->domains[state->next_dom++];
            if (!cache_req_domain_applies(state, dom)) {
                continue;
            }
            state->dom = dom;
            ret = cache_req_try_domain(req);
            if (ret != ENOENT) {
                return ret;
            }
        }
        if (state->mail == NULL || state->by_mail) {
            return ENOENT;
        }
        if (state->name_unsure) {
            DEBUG(SSSDBG_TRACE_FUNC, "%s not tried as an e-mail address: a domain could "
                  "not answer for the name\n", state->mail);
            return ENOENT;
        }
        /* No domain has that name: it may be an e-mail address. */
        DEBUG(SSSDBG_TRACE_FUNC, "No user named %s: looking it up as an e-mail address\n",
              state->mail);
        state->by_mail = true;
        state->next_dom = 0;
    }
}

/* The entry the back-end's reply carried goes into this process's read cache, where the
 * read that follows finds it instead of going to ldb (sysdb_reply.h: only while the
 * database is still at the reply's generation, and only a well-formed entry of the key
 * asked). Whatever happens the read runs: this only saves it work. */
static void cache_req_take_entry(struct cache_req_state *state,
                                 const struct cache_req_dp_entry *entry)
{
    struct sysdb_reply_key key = { .name = state->short_name, .id = state->id };
    struct sysdb_ctx *sysdb;
    errno_t ret;

    if (entry->gen == 0 || state->by_mail) {
        return;
    }
    switch (state->type) {
    case CACHE_REQ_USER_BY_NAME: key.kind = SYSDB_RC_USER_NAME; break;
    case CACHE_REQ_USER_BY_ID: key.kind = SYSDB_RC_USER_UID; break;
    case CACHE_REQ_GROUP_BY_NAME: key.kind = SYSDB_RC_GROUP_NAME; break;
    case CACHE_REQ_GROUP_BY_ID: key.kind = SYSDB_RC_GROUP_GID; break;
    case CACHE_REQ_INITGROUPS: key.kind = SYSDB_RC_INITGR; break;
    default: return;
    }
    if (key.kind != SYSDB_RC_USER_UID && key.kind != SYSDB_RC_GROUP_GID
            && key.name == NULL) {
        return;
    }
    ret = resp_domain_sysdb(state->rctx, state->dom, &sysdb);
    if (ret == EOK) {
        ret = sysdb_reply_put(sysdb, &key, entry->gen, entry->blob, entry->len);
    }
    DEBUG(SSSDBG_TRACE_INTERNAL, "Entry carried by the reply (gen %llu, %zu bytes): %s\n",
          (unsigned long long)entry->gen, entry->len,
          ret == EOK ? "taken" : ret == ESTALE ? "older than the cache, not taken"
                                               : sss_strerror(ret));
}

/* After the back-end answered (or could not): the re-read cache, the expired entry, or
 * the next domain. */
static errno_t cache_req_after_dp(struct tevent_req *req, errno_t call_ret, uint16_t dp_error,
                                  uint32_t error, const struct cache_req_dp_entry *entry)
{
    struct cache_req_state *state = tevent_req_data(req, struct cache_req_state);
    struct cache_req_entry *fresh = NULL;
    errno_t ret;

    /* A back-end call is only made for the domain being tried (cache_req_try_domain()). */
    assert(state->dom != NULL);
    if (call_ret == EOK && dp_error == SSS_DP_ERR_OK) {
        cache_req_take_entry(state, entry);
        ret = cache_req_read(state, &fresh);
        if (ret == ENOENT) {
            DEBUG(SSSDBG_TRACE_INTERNAL, "Not in domain %s\n", state->dom->name);
            cache_req_negative(state);
            return ENOENT;
        }
        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "Cannot read the cache of domain %s: %s\n",
                  state->dom->name, sss_strerror(ret));
            return ENOENT;
        }
        return cache_req_found(req, fresh, CACHE_REQ_SRC_DP);
    }
    if (!state->by_mail) {
        state->name_unsure = true;
    }
    if (call_ret != EOK) {
        DEBUG(SSSDBG_MINOR_FAILURE, "Back-end of domain %s not reached: %s\n",
              state->dom->name, sss_strerror(call_ret));
    } else {
        DEBUG(SSSDBG_MINOR_FAILURE, "Back-end of domain %s answered dp_error %u (%s)\n",
              state->dom->name, dp_error, sss_strerror((errno_t)error));
    }
    if (state->entry == NULL) {
        return ENOENT;
    }
    return cache_req_found(req, state->entry,
                           state->entry->expire > time(NULL) ? CACHE_REQ_SRC_CACHE
                                                             : CACHE_REQ_SRC_STALE);
}

static void cache_req_dp_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct cache_req_state *state = tevent_req_data(req, struct cache_req_state);
    struct cache_req_dp_entry entry = { 0 };
    uint16_t dp_error = 0;
    uint32_t error = 0;
    errno_t ret;

    /* The back-end's answer resumes this request: what it does next is logged (and the
     * events it schedules are tagged) under its id. */
    SSS_REQ_ID_SCOPE(state->req_id);
    ret = cache_req_dp_recv(state, subreq, &dp_error, &error, &entry);
    talloc_free(subreq);
    ret = cache_req_after_dp(req, ret, dp_error, error, &entry);
    talloc_free(entry.blob);
    if (ret == ENOENT) {
        ret = cache_req_next(req);
    }
    if (ret == EAGAIN) {
        return;
    }
    cache_req_finish(req, ret);
}

errno_t cache_req_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                       struct cache_req_result **_res)
{
    struct cache_req_state *state = tevent_req_data(req, struct cache_req_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    if (state->result == NULL) {
        return ENOENT;
    }
    *_res = talloc_steal(mem_ctx, state->result);
    return EOK;
}
