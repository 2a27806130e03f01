/*
 * ldap_id_mapping = true (the AD provider's default): POSIX ids from objectSid through
 * src/lib/idmap, as SSSD computes them, instead of uidNumber/gidNumber. A user's uid comes
 * from its objectSid, its primary gid from its domain's SID + primaryGroupID (the RID of
 * its primary group: AD keeps that membership out of the group's member list); a group's
 * gid from its objectSid. Lookups by id search the objectSid the id maps back to.
 *
 * Domains enter the map as SSSD's LDAP provider does: ldap_idmap_default_domain_sid in
 * slice 0 at start, others when the first SID of theirs is seen (named by their SID).
 * Each slice given is reported to the recorder (the back-end keeps it in the cache) and
 * put back by sdap_idmap_restore at the next start, as SSSD does: after a hash collision
 * moved a domain to the next free slice, which one it got depends on the order domains
 * were first seen, and the ids of its objects must not change with a restart.
 * objectSid values arrive as strings: sdap_entry_msg.c converts SID-syntax attributes.
 */
#include <inttypes.h>
#include <strings.h>

#include "util/util.h"
#include "confdb/confdb.h"
#include "lib/idmap/idmap.h"
#include "providers/ldap/sdap_private.h"

errno_t sdap_idmap_init(struct sdap_options *opts, struct confdb *cdb, const char *section)
{
    struct idmap_opts io = { 0 };
    char *dom_name = NULL;
    char *dom_sid = NULL;
    int64_t slice = 0;
    int helpers = 0;
    errno_t ret;

    SSS_CHECK_ARG(opts != NULL && cdb != NULL && section != NULL, EINVAL);
    if (!opts->id_mapping) {
        return EOK;
    }
    ret = confdb_get_uint32(cdb, section, "ldap_idmap_range_min", &io.lower);
    if (ret == EOK) {
        ret = confdb_get_uint32(cdb, section, "ldap_idmap_range_max", &io.upper);
    }
    if (ret == EOK) {
        ret = confdb_get_uint32(cdb, section, "ldap_idmap_range_size", &io.rangesize);
    }
    if (ret == EOK) {
        ret = confdb_get_bool(cdb, section, "ldap_idmap_autorid_compat", &io.autorid);
    }
    if (ret == EOK) {
        ret = confdb_get_int(cdb, section, "ldap_idmap_helper_table_size", &helpers);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, opts, section, "ldap_idmap_default_domain_sid", &dom_sid);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, opts, section, "ldap_idmap_default_domain", &dom_name);
    }
    if (ret != EOK) {
        return ret;
    }
    if (helpers < 0) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] ldap_idmap_helper_table_size must not be negative\n",
              section);
        return ERR_INVALID_CONFIG;
    }
    io.helpers = (uint32_t)helpers;
    ret = idmap_ctx_create(opts, &io, &opts->idmap);
    if (ret == EINVAL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] ldap_idmap_range_min/max/size do not make a range of "
              "at least one slice\n", section);
        return ERR_INVALID_CONFIG;
    }
    if (ret != EOK || dom_sid == NULL) {
        return ret;
    }
    ret = idmap_add_domain(opts->idmap, dom_name != NULL ? dom_name : opts->domain, dom_sid,
                           &slice);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] ldap_idmap_default_domain_sid '%s' is not a domain SID "
              "(S-1-5-21-a-b-c)\n", section, dom_sid);
        return ERR_INVALID_CONFIG;
    }
    DEBUG(SSSDBG_CONF_SETTINGS, "[%s] ID mapping: %s in slice 0\n", section, dom_sid);
    opts->idmap_own_known = true;
    return EOK;
}

/* Reports a slice just given to the recorder; its failure is only logged (the mapping
 * itself holds for this run). */
static void record_slice(const struct sdap_options *opts, const char *name, const char *sid,
                         int64_t slice)
{
    errno_t ret;

    if (opts->idmap_record == NULL || slice < 0 || slice > UINT32_MAX) {
        return;
    }
    ret = opts->idmap_record(opts->idmap_record_pvt, name, sid, (uint32_t)slice);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "ID mapping: the slice of %s (%s) could not be recorded: "
              "%s; a restart may map its ids elsewhere\n", name, sid, sss_strerror(ret));
    }
}

void sdap_idmap_set_recorder(struct sdap_options *opts,
                             errno_t (*record)(void *pvt, const char *name, const char *sid,
                                               uint32_t slice),
                             void *pvt)
{
    if (opts == NULL) {
        return;
    }
    opts->idmap_record = record;
    opts->idmap_record_pvt = pvt;
}

errno_t sdap_idmap_restore(struct sdap_options *opts, const char *name, const char *sid,
                           uint32_t slice)
{
    uint32_t have;
    int64_t want = slice;
    errno_t ret;

    SSS_CHECK_ARG(opts != NULL && name != NULL && sid != NULL, EINVAL);
    if (opts->idmap == NULL) {
        return EOK;
    }
    ret = idmap_domain_slice(opts->idmap, sid, &have);
    if (ret == EOK) {
        if (have == slice) {
            return EOK;
        }
        DEBUG(SSSDBG_CRIT_FAILURE, "ID mapping: %s was recorded in slice %" PRIu32 " but is "
              "in slice %" PRIu32 " now (ldap_idmap_default_domain_sid?): the recorded slice "
              "is not used\n", sid, slice, have);
        return EEXIST;
    }
    ret = idmap_add_domain(opts->idmap, name, sid, &want);
    if (ret == EOK) {
        DEBUG(SSSDBG_CONF_SETTINGS, "ID mapping: domain %s (%s) in slice %" PRIu32
              " (recorded)\n", name, sid, slice);
        /* The recorder names the domain's own SID after the domain (add_base_domain). */
        if (opts->domain != NULL && strcasecmp(name, opts->domain) == 0) {
            opts->idmap_own_known = true;
        }
    } else if (ret != ENOMEM) {
        DEBUG(SSSDBG_CRIT_FAILURE, "ID mapping: the recorded slice %" PRIu32 " of %s (%s) "
              "cannot be used (%s): the domain gets a slice when first seen\n", slice, name,
              sid, ret == EEXIST ? "taken by another domain" : "outside the range");
    }
    return ret;
}

errno_t sdap_id_ctx_idmap_restore(struct sdap_id_ctx *id_ctx, const char *name,
                                  const char *sid, uint32_t slice)
{
    return id_ctx != NULL ? sdap_idmap_restore(id_ctx->opts, name, sid, slice) : EOK;
}

void sdap_id_ctx_idmap_recorder(struct sdap_id_ctx *id_ctx,
                                errno_t (*record)(void *pvt, const char *name,
                                                  const char *sid, uint32_t slice),
                                void *pvt)
{
    if (id_ctx != NULL) {
        sdap_idmap_set_recorder(id_ctx->opts, record, pvt);
    }
}

/* Not "any domain in the map": a trusted domain's slice may be there first (ad_subdomains.c),
 * and the domain's own ids would then map back to no SID. */
bool sdap_idmap_needs_domain(const struct sdap_options *opts)
{
    return opts != NULL && opts->idmap != NULL && !opts->idmap_own_known;
}

errno_t sdap_idmap_add_base_domain(struct sdap_options *opts,
                                   const struct sdap_entry *base)
{
    const char *sid = base != NULL && opts->user_map[SDAP_UA_OBJSID] != NULL
        ? sdap_entry_value(base, opts->user_map[SDAP_UA_OBJSID]) : NULL;
    int64_t slice = -1;
    uint32_t have;
    errno_t ret;

    if (!sdap_idmap_needs_domain(opts)) {
        return EOK;     /* another lookup added it meanwhile */
    }
    if (sid == NULL || !idmap_is_domain_sid(sid)) {
        DEBUG(SSSDBG_OP_FAILURE, "ID mapping: the search base has no domain SID: lookups by "
              "id fail until an entry was found by name\n");
        return ENOENT;
    }
    if (idmap_domain_slice(opts->idmap, sid, &have) == EOK) {
        opts->idmap_own_known = true;   /* first seen in an entry found by name */
        return EOK;
    }
    ret = idmap_add_domain(opts->idmap, opts->domain, sid, &slice);
    if (ret == EOK) {
        DEBUG(SSSDBG_CONF_SETTINGS, "ID mapping: domain %s (%s) in slice %" PRId64 "\n",
              opts->domain, sid, slice);
        record_slice(opts, opts->domain, sid, slice);
        opts->idmap_own_known = true;
    }
    return ret == ENOMEM ? ret : (ret == EOK ? EOK : EINVAL);
}

/* The id of a SID, adding its domain to the map when it is new. EINVAL: not mappable. */
static errno_t sid_to_id(const struct sdap_options *opts, const char *sid, uint32_t *_id)
{
    char *dom_sid = NULL;
    uint32_t rid;
    int64_t slice = -1;
    errno_t ret;

    ret = idmap_sid_to_id(opts->idmap, sid, _id);
    if (ret == ENOENT) {
        ret = idmap_split_sid(NULL, sid, &dom_sid, &rid);
        if (ret == EOK) {
            ret = idmap_add_domain(opts->idmap, dom_sid, dom_sid, &slice);
        }
        if (ret == EOK) {
            DEBUG(SSSDBG_CONF_SETTINGS, "ID mapping: domain %s in slice %" PRId64 "\n",
                  dom_sid, slice);
            record_slice(opts, dom_sid, dom_sid, slice);
            ret = idmap_sid_to_id(opts->idmap, sid, _id);
        }
        talloc_free(dom_sid);
    }
    if (ret == ENOMEM) {
        return ret;
    }
    if (ret != EOK) {
        return EINVAL;
    }
    if (*_id < opts->min_id || (opts->max_id != 0 && *_id > opts->max_id)) {
        return ERANGE;
    }
    return EOK;
}

static const char *entry_sid(const struct sdap_entry *entry, const char *attr,
                             const char *what)
{
    const struct sdap_attr *a = sdap_entry_attr(entry, attr);

    if (a == NULL || a->num_values != 1) {
        DEBUG(SSSDBG_OP_FAILURE, "%s '%s' has %s %s: skipped\n", what, entry->dn,
              a == NULL || a->num_values == 0 ? "no" : "several values of", attr);
        return NULL;
    }
    return a->values[0];
}

static errno_t log_refused(errno_t ret, const char *what, const char *dn, const char *sid)
{
    if (ret == ENOMEM) {
        return ret;
    }
    DEBUG(SSSDBG_OP_FAILURE, "%s '%s': SID %s %s: skipped\n", what, dn, sid,
          ret == ERANGE ? "maps outside [min_id, max_id]" : "cannot be mapped to an id");
    return EINVAL;
}

errno_t sdap_idmap_user_ids(const struct sdap_options *opts, const struct sdap_entry *entry,
                            uint32_t *_uid, uint32_t *_gid)
{
    const char *sid;
    const char *pg;
    char *dom_sid = NULL;
    char *pg_sid;
    uint32_t rid;
    uint32_t pg_rid;
    errno_t ret;

    sid = entry_sid(entry, opts->user_map[SDAP_UA_OBJSID], "user");
    if (sid == NULL) {
        return EINVAL;
    }
    ret = sid_to_id(opts, sid, _uid);
    if (ret != EOK) {
        return log_refused(ret, "user", entry->dn, sid);
    }
    pg = opts->user_map[SDAP_UA_PRIMARY_GID] != NULL
        ? sdap_entry_value(entry, opts->user_map[SDAP_UA_PRIMARY_GID]) : NULL;
    if (pg == NULL || sdap_parse_id(pg, 1, 0, &pg_rid) != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "user '%s' has no usable %s: skipped\n", entry->dn,
              opts->user_map[SDAP_UA_PRIMARY_GID] != NULL
              ? opts->user_map[SDAP_UA_PRIMARY_GID] : "primary group attribute");
        return EINVAL;
    }
    ret = idmap_split_sid(NULL, sid, &dom_sid, &rid);
    if (ret != EOK) {
        return ret == ENOMEM ? ret : EINVAL;
    }
    pg_sid = talloc_asprintf(dom_sid, "%s-%" PRIu32, dom_sid, pg_rid);
    ret = pg_sid == NULL ? ENOMEM : sid_to_id(opts, pg_sid, _gid);
    if (ret != EOK) {
        ret = log_refused(ret, "user", entry->dn, pg_sid != NULL ? pg_sid : "-");
    }
    talloc_free(dom_sid);
    return ret;
}

errno_t sdap_idmap_group_id(const struct sdap_options *opts, const struct sdap_entry *entry,
                            uint32_t *_gid)
{
    const char *sid;
    errno_t ret;

    sid = entry_sid(entry, opts->group_map[SDAP_GA_OBJSID], "group");
    if (sid == NULL) {
        return EINVAL;
    }
    ret = sid_to_id(opts, sid, _gid);
    return ret == EOK ? EOK : log_refused(ret, "group", entry->dn, sid);
}

errno_t sdap_sid_filter(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                        const struct sdap_kind *kind, const char *const *sids, size_t n,
                        char **_filter)
{
    TALLOC_CTX *tmp_ctx;
    const char *attr;
    char *terms;
    const char *ex;
    uint8_t *bin;
    size_t len;
    size_t found = 0;
    size_t i;
    size_t k;
    errno_t ret = ENOMEM;

    SSS_CHECK_ARG(opts != NULL && kind != NULL && sids != NULL && _filter != NULL, EINVAL);
    attr = kind == &opts->groups ? opts->group_map[SDAP_GA_OBJSID]
                                 : opts->user_map[SDAP_UA_OBJSID];
    if (attr == NULL) {
        return ENOENT;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    terms = talloc_strdup(tmp_ctx, "");
    for (i = 0; terms != NULL && i < n; i++) {
        if (idmap_str_sid_to_bin(tmp_ctx, sids[i], &bin, &len) != EOK) {
            continue;
        }
        /* Binary values go into filters byte by byte (RFC 4515). */
        terms = talloc_asprintf_append_buffer(terms, "(%s=", attr);
        for (k = 0; terms != NULL && k < len; k++) {
            terms = talloc_asprintf_append_buffer(terms, "\\%02x", bin[k]);
        }
        terms = terms != NULL ? talloc_strdup_append_buffer(terms, ")") : NULL;
        found++;
    }
    if (terms == NULL) {
        goto done;
    }
    if (found == 0) {
        ret = ENOENT;
        goto done;
    }
    ex = kind->filter == NULL || kind->filter[0] == '\0' ? ""
        : kind->filter[0] == '(' ? kind->filter
        : talloc_asprintf(tmp_ctx, "(%s)", kind->filter);
    if (ex != NULL) {
        *_filter = talloc_asprintf(mem_ctx, "(&(objectClass=%s)(|%s)%s)", kind->oc, terms, ex);
        ret = *_filter != NULL ? EOK : ENOMEM;
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sdap_idmap_filter(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                          const struct sdap_kind *kind, const uint32_t *ids, size_t n,
                          char **_filter)
{
    TALLOC_CTX *tmp_ctx;
    const char **sids;
    size_t found = 0;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(opts != NULL && opts->idmap != NULL && kind != NULL && _filter != NULL,
                  EINVAL);
    tmp_ctx = talloc_new(NULL);
    sids = talloc_zero_array(tmp_ctx, const char *, n + 1);
    if (tmp_ctx == NULL || sids == NULL) {
        talloc_free(tmp_ctx);
        return ENOMEM;
    }
    for (i = 0; i < n; i++) {
        char *sid;

        /* ids in no slice of a known domain are left out */
        if (idmap_id_to_sid(sids, opts->idmap, ids[i], &sid) == EOK) {
            sids[found++] = sid;
        }
    }
    ret = found == 0 ? ENOENT : sdap_sid_filter(mem_ctx, opts, kind, sids, found, _filter);
    talloc_free(tmp_ctx);
    return ret;
}
