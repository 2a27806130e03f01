/*
 * sdap_sudo: sudoRole entries from LDAP (see sdap_sudo.h): the sudo options, this host's
 * names and addresses for the host filter, the filters of the three refreshes, the paged
 * search and the entry parser.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "confdb/confdb.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ldap/sdap_sudo.h"

#define SDAP_SUDO_OC "sudoRole"
#define SDAP_SUDO_CN "cn"
#define SDAP_SUDO_USN "entryUSN"
#define SDAP_SUDO_MODTS "modifyTimestamp"

/* ---- options and host information ---------------------------------------------------- */

static errno_t sdap_sudo_add_str(TALLOC_CTX *mem_ctx, char ***list, size_t *n, char *s)
{
    char **l;

    if (s == NULL) {
        return ENOMEM;
    }
    l = talloc_realloc(mem_ctx, *list, char *, *n + 2);
    if (l == NULL) {
        return ENOMEM;
    }
    l[(*n)++] = talloc_steal(l, s);
    l[*n] = NULL;
    *list = l;
    return EOK;
}

/* The host name and, when the resolver knows it, its canonical (fully qualified) name. */
static errno_t sdap_sudo_own_hostnames(TALLOC_CTX *mem_ctx, char ***_names)
{
    struct addrinfo hints = { .ai_flags = AI_CANONNAME, .ai_family = AF_UNSPEC };
    struct addrinfo *ai = NULL;
    char host[HOST_NAME_MAX + 1];
    char **names = NULL;
    size_t n = 0;
    errno_t ret;

    if (gethostname(host, sizeof(host)) != 0) {
        ret = errno;
        DEBUG(SSSDBG_OP_FAILURE, "gethostname() failed: %s\n", strerror(ret));
        return ret;
    }
    host[HOST_NAME_MAX] = '\0';
    ret = sdap_sudo_add_str(mem_ctx, &names, &n, talloc_strdup(mem_ctx, host));
    if (ret == EOK && getaddrinfo(host, NULL, &hints, &ai) == 0 && ai != NULL
            && ai->ai_canonname != NULL && strcasecmp(ai->ai_canonname, host) != 0) {
        ret = sdap_sudo_add_str(mem_ctx, &names, &n, talloc_strdup(mem_ctx, ai->ai_canonname));
    }
    if (ai != NULL) {
        freeaddrinfo(ai);
    }
    if (ret == EOK) {
        *_names = names;
    }
    return ret;
}

/* An address and its network ("10.1.2.3" and "10.1.2.0/24") of every non-loopback
 * interface address. */
static errno_t sdap_sudo_own_ips(TALLOC_CTX *mem_ctx, char ***_ips)
{
    struct ifaddrs *ifs = NULL;
    struct ifaddrs *i;
    char buf[INET6_ADDRSTRLEN];
    char **ips = talloc_zero_array(mem_ctx, char *, 1);
    uint8_t addr[16];
    const uint8_t *mask;
    size_t alen;
    size_t n = 0;
    size_t b;
    int prefix;
    int family;
    errno_t ret = EOK;

    if (ips == NULL) {
        return ENOMEM;
    }
    if (getifaddrs(&ifs) != 0) {
        DEBUG(SSSDBG_MINOR_FAILURE, "getifaddrs() failed: no addresses in the sudo host "
              "filter\n");
        *_ips = ips;
        return EOK;
    }
    for (i = ifs; i != NULL && ret == EOK; i = i->ifa_next) {
        if (i->ifa_addr == NULL || i->ifa_netmask == NULL) {
            continue;
        }
        family = i->ifa_addr->sa_family;
        if (family == AF_INET) {
            alen = 4;
            memcpy(addr, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, alen);
            mask = (const uint8_t *)&((struct sockaddr_in *)(void *)i->ifa_netmask)->sin_addr;
            if (addr[0] == 127) {
                continue;
            }
        } else if (family == AF_INET6) {
            alen = 16;
            memcpy(addr, &((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr, alen);
            mask = (const uint8_t *)
                   &((struct sockaddr_in6 *)(void *)i->ifa_netmask)->sin6_addr;
            if (IN6_IS_ADDR_LOOPBACK((struct in6_addr *)(void *)addr)
                    || IN6_IS_ADDR_LINKLOCAL((struct in6_addr *)(void *)addr)) {
                continue;
            }
        } else {
            continue;
        }
        inet_ntop(family, addr, buf, sizeof(buf));
        ret = sdap_sudo_add_str(mem_ctx, &ips, &n, talloc_strdup(mem_ctx, buf));
        for (prefix = 0, b = 0; b < alen; b++) {
            addr[b] &= mask[b];
            prefix += __builtin_popcount(mask[b]);
        }
        inet_ntop(family, addr, buf, sizeof(buf));
        if (ret == EOK) {
            ret = sdap_sudo_add_str(mem_ctx, &ips, &n,
                                    talloc_asprintf(mem_ctx, "%s/%d", buf, prefix));
        }
    }
    freeifaddrs(ifs);
    if (ret == EOK) {
        *_ips = ips;
    }
    return ret;
}

/* "(|(!(H=*))(H=ALL)(H=<name or address>)...[netgroups][wildcards])", H the mapped
 * sudoHost */
static char *sdap_sudo_build_host_filter(TALLOC_CTX *mem_ctx, const struct sdap_sudo_opts *o)
{
    const char *h = o->map[SYSDB_SUDO_HOST];
    char *f = talloc_asprintf(mem_ctx, "(|(!(%s=*))(%s=ALL)", h, h);
    char *esc;
    size_t i;

    for (i = 0; f != NULL && o->hostnames[i] != NULL; i++) {
        esc = sdap_filter_escape(f, o->hostnames[i]);
        f = esc == NULL ? NULL : talloc_asprintf_append_buffer(f, "(%s=%s)", h, esc);
    }
    for (i = 0; f != NULL && o->ips[i] != NULL; i++) {
        esc = sdap_filter_escape(f, o->ips[i]);
        f = esc == NULL ? NULL : talloc_asprintf_append_buffer(f, "(%s=%s)", h, esc);
    }
    if (f != NULL && o->include_netgroups) {
        f = talloc_asprintf_append_buffer(f, "(%s=+*)", h);
    }
    if (f != NULL && o->include_regexp) {
        f = talloc_asprintf_append_buffer(f, "(%s=*\\2A*)(%s=*?*)(%s=*\\5C*)(%s=*[*]*)",
                                          h, h, h, h);
    }
    return f == NULL ? NULL : talloc_strdup_append_buffer(f, ")");
}

/* The option naming each sudo attribute in LDAP (sssd-ldap(5)). */
static const char *const sdap_sudo_map_opts[SYSDB_SUDO_ATTR_MAX] = {
    [SYSDB_SUDO_USER] = "ldap_sudorule_user",
    [SYSDB_SUDO_HOST] = "ldap_sudorule_host",
    [SYSDB_SUDO_COMMAND] = "ldap_sudorule_command",
    [SYSDB_SUDO_OPTION] = "ldap_sudorule_option",
    [SYSDB_SUDO_RUNAS] = "ldap_sudorule_runas",
    [SYSDB_SUDO_RUNASUSER] = "ldap_sudorule_runasuser",
    [SYSDB_SUDO_RUNASGROUP] = "ldap_sudorule_runasgroup",
    [SYSDB_SUDO_NOTBEFORE] = "ldap_sudorule_notbefore",
    [SYSDB_SUDO_NOTAFTER] = "ldap_sudorule_notafter",
    [SYSDB_SUDO_ORDER] = "ldap_sudorule_order",
};

/* An attribute description as it may stand in a filter: a letter, then letters, digits and
 * hyphens (RFC 4512 descr), or a numeric OID. Anything else would change the filter. */
static bool sdap_sudo_attr_name_ok(const char *s)
{
    size_t i;
    bool oid = s[0] >= '0' && s[0] <= '9';

    if (s[0] == '\0' || strlen(s) > 128 || (!oid && !isalpha((unsigned char)s[0]))) {
        return false;
    }
    for (i = 1; s[i] != '\0'; i++) {
        if (oid ? !(isdigit((unsigned char)s[i]) || s[i] == '.')
                : !(isalnum((unsigned char)s[i]) || s[i] == '-')) {
            return false;
        }
    }
    return true;
}

/* One map option: its value, or def when unset. */
static errno_t sdap_sudo_map_one(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *section,
                                 const char *option, const char *def, char **_name)
{
    char *v = NULL;
    errno_t ret;

    ret = confdb_get_string(cdb, mem_ctx, section, option, &v);
    if (ret != EOK) {
        return ret;
    }
    if (v == NULL || v[0] == '\0') {
        talloc_free(v);
        v = talloc_strdup(mem_ctx, def);
        if (v == NULL) {
            return ENOMEM;
        }
    }
    if (!sdap_sudo_attr_name_ok(v)) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] %s = '%s' is not an LDAP attribute name\n", section,
              option, v);
        talloc_free(v);
        return ERR_INVALID_CONFIG;
    }
    *_name = v;
    return EOK;
}

static errno_t sdap_sudo_map_read(struct sdap_sudo_opts *o, struct confdb *cdb,
                                  const char *section)
{
    size_t a;
    errno_t ret;

    ret = sdap_sudo_map_one(o, cdb, section, "ldap_sudorule_object_class", SDAP_SUDO_OC,
                            &o->map_oc);
    if (ret == EOK) {
        ret = sdap_sudo_map_one(o, cdb, section, "ldap_sudorule_name", SDAP_SUDO_CN,
                                &o->map_name);
    }
    for (a = 0; ret == EOK && a < SYSDB_SUDO_ATTR_MAX; a++) {
        ret = sdap_sudo_map_one(o, cdb, section, sdap_sudo_map_opts[a],
                                sysdb_sudo_attr_names[a], &o->map[a]);
    }
    return ret;
}

errno_t sdap_sudo_opts_read(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *domain,
                            struct sdap_sudo_opts **_opts)
{
    TALLOC_CTX *tmp_ctx;
    struct sdap_sudo_opts *o;
    char *section;
    errno_t ret;

    SSS_CHECK_ARG(cdb != NULL && domain != NULL && _opts != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    o = talloc_zero(tmp_ctx, struct sdap_sudo_opts);
    section = confdb_domain_section(tmp_ctx, domain);
    if (o == NULL || section == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = confdb_get_string(cdb, o, section, "ldap_sudo_search_base", &o->search_base);
    if (ret == EOK) {
        ret = confdb_get_int(cdb, section, "ldap_sudo_full_refresh_interval",
                             &o->full_interval);
    }
    if (ret == EOK) {
        ret = confdb_get_int(cdb, section, "ldap_sudo_smart_refresh_interval",
                             &o->smart_interval);
    }
    if (ret == EOK) {
        ret = confdb_get_int(cdb, section, "ldap_sudo_random_offset", &o->random_offset);
    }
    if (ret == EOK) {
        ret = confdb_get_bool(cdb, section, "ldap_sudo_use_host_filter", &o->use_host_filter);
    }
    if (ret == EOK) {
        ret = confdb_get_bool(cdb, section, "ldap_sudo_include_netgroups",
                              &o->include_netgroups);
    }
    if (ret == EOK) {
        ret = confdb_get_bool(cdb, section, "ldap_sudo_include_regexp", &o->include_regexp);
    }
    if (ret == EOK) {
        ret = confdb_get_list(cdb, o, section, "ldap_sudo_hostnames", &o->hostnames);
    }
    if (ret == EOK) {
        ret = confdb_get_list(cdb, o, section, "ldap_sudo_ip", &o->ips);
    }
    if (ret == EOK) {
        ret = sdap_sudo_map_read(o, cdb, section);
    }
    if (ret != EOK) {
        goto done;
    }
    if (o->full_interval < 0 || o->smart_interval < 0 || o->random_offset < 0) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] sudo refresh intervals and ldap_sudo_random_offset "
              "cannot be negative\n", section);
        ret = ERR_INVALID_CONFIG;
        goto done;
    }
    if (o->search_base != NULL && o->search_base[0] == '\0') {
        talloc_zfree(o->search_base);
    }
    if (o->use_host_filter && o->hostnames[0] == NULL) {
        ret = sdap_sudo_own_hostnames(o, &o->hostnames);
    }
    if (ret == EOK && o->use_host_filter && o->ips[0] == NULL) {
        ret = sdap_sudo_own_ips(o, &o->ips);
    }
    if (ret != EOK) {
        goto done;
    }
    o->host_filter = o->use_host_filter ? sdap_sudo_build_host_filter(o, o)
                                        : talloc_strdup(o, "");
    if (o->host_filter == NULL) {
        ret = ENOMEM;
        goto done;
    }
    DEBUG(SSSDBG_CONF_SETTINGS, "sudo of %s: full refresh every %d s, smart every %d s, "
          "host filter %s\n", domain, o->full_interval, o->smart_interval,
          o->use_host_filter ? o->host_filter : "off");
    *_opts = talloc_steal(mem_ctx, o);
done:
    talloc_free(tmp_ctx);
    return ret;
}

/* ---- filters ------------------------------------------------------------------------- */

errno_t sdap_sudo_filter(TALLOC_CTX *mem_ctx, const struct sdap_sudo_opts *opts,
                         enum sdap_sudo_refresh kind, const char *usn, const char *modts,
                         const char *const *names, size_t num_names, char **_filter)
{
    TALLOC_CTX *tmp_ctx;
    char *what = NULL;
    char *esc;
    char *filter;
    size_t i;
    errno_t ret = EOK;

    SSS_CHECK_ARG(opts != NULL && _filter != NULL, EINVAL);
    SSS_CHECK_ARG(kind != SDAP_SUDO_RULES || (names != NULL && num_names > 0), EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    switch (kind) {
    case SDAP_SUDO_FULL:
        what = talloc_strdup(tmp_ctx, "");
        break;
    case SDAP_SUDO_SMART:
        /* The directory's own change counter when it has one; modifyTimestamp otherwise
         * (one-second resolution: >= fetches the last second again, never misses it). */
        if (usn != NULL) {
            esc = sdap_filter_escape(tmp_ctx, usn);
            what = esc == NULL ? NULL : talloc_asprintf(tmp_ctx, "(%s>=%s)", SDAP_SUDO_USN, esc);
        } else if (modts != NULL) {
            esc = sdap_filter_escape(tmp_ctx, modts);
            what = esc == NULL ? NULL : talloc_asprintf(tmp_ctx, "(%s>=%s)", SDAP_SUDO_MODTS,
                                                        esc);
        } else {
            what = talloc_strdup(tmp_ctx, "");
        }
        break;
    case SDAP_SUDO_RULES:
        what = talloc_strdup(tmp_ctx, "(|");
        for (i = 0; what != NULL && i < num_names; i++) {
            esc = sdap_filter_escape(tmp_ctx, names[i]);
            what = esc == NULL ? NULL
                   : talloc_asprintf_append_buffer(what, "(%s=%s)", opts->map_name, esc);
        }
        what = what == NULL ? NULL : talloc_strdup_append_buffer(what, ")");
        break;
    default:
        ret = EINVAL;
        goto done;
    }
    if (what == NULL) {
        ret = ENOMEM;
        goto done;
    }
    filter = talloc_asprintf(mem_ctx, "(&(objectClass=%s)%s%s)", opts->map_oc, what,
                             opts->host_filter);
    if (filter == NULL) {
        ret = ENOMEM;
        goto done;
    }
    *_filter = filter;
done:
    talloc_free(tmp_ctx);
    return ret;
}

/* ---- entries ------------------------------------------------------------------------- */

static const struct sdap_attr *sdap_sudo_attr(const struct sdap_entry *e, const char *name)
{
    size_t i;

    for (i = 0; i < e->num_attrs; i++) {
        if (strcasecmp(e->attrs[i].name, name) == 0) {
            return &e->attrs[i];
        }
    }
    return NULL;
}

errno_t sdap_sudo_parse_entry(TALLOC_CTX *mem_ctx, const struct sdap_sudo_opts *opts,
                              const struct sdap_entry *entry, struct sysdb_sudo_rule **_rule)
{
    struct sysdb_sudo_rule *rule;
    const struct sdap_attr *at;
    size_t a;
    size_t i;

    SSS_CHECK_ARG(entry != NULL && _rule != NULL, EINVAL);
    at = sdap_sudo_attr(entry, opts != NULL ? opts->map_name : SDAP_SUDO_CN);
    if (at == NULL || at->num_values == 0 || at->values[0][0] == '\0'
            || !sdap_utf8_valid(at->values[0], strlen(at->values[0]))
            || strlen(at->values[0]) > SYSDB_NAME_MAX) {
        DEBUG(SSSDBG_OP_FAILURE, "sudoRole %s has no usable cn: skipped\n", entry->dn);
        return EINVAL;
    }
    rule = talloc_zero(mem_ctx, struct sysdb_sudo_rule);
    if (rule == NULL) {
        return ENOMEM;
    }
    rule->name = at->values[0];
    rule->orig_dn = entry->dn;
    for (a = 0; a < SYSDB_SUDO_ATTR_MAX; a++) {
        at = sdap_sudo_attr(entry, opts != NULL ? opts->map[a] : sysdb_sudo_attr_names[a]);
        if (at == NULL || at->num_values == 0) {
            continue;
        }
        if (at->num_values > SYSDB_SUDO_MAX_VALUES) {
            DEBUG(SSSDBG_OP_FAILURE, "sudoRole %s: %zu values of %s: skipped\n", entry->dn,
                  at->num_values, at->name);
            goto bad;
        }
        for (i = 0; i < at->num_values; i++) {
            if (!sdap_utf8_valid(at->values[i], strlen(at->values[i]))) {
                DEBUG(SSSDBG_OP_FAILURE, "sudoRole %s: %s holds a value that is not UTF-8: "
                      "skipped\n", entry->dn, at->name);
                goto bad;
            }
        }
        rule->values[a] = (const char **)at->values;
        rule->num_values[a] = at->num_values;
    }
    /* The strings stay the entry's: the rule lives with it. */
    *_rule = rule;
    return EOK;
bad:
    talloc_free(rule);
    return EINVAL;
}

/* The larger of two change markers: numbers (USN) by value, timestamps as strings of
 * generalized time (same form, so the longer or lexically larger is later). */
static bool sdap_sudo_newer(const char *a, const char *b, bool numeric)
{
    if (b == NULL) {
        return true;
    }
    if (numeric) {
        return strtoull(a, NULL, 10) > strtoull(b, NULL, 10);
    }
    return strlen(a) != strlen(b) ? strlen(a) > strlen(b) : strcmp(a, b) > 0;
}

struct sdap_sudo_search_state {
    const struct sdap_sudo_opts *opts;
    struct sdap_search_args args;
    const char *attrs[SYSDB_SUDO_ATTR_MAX + 5];
    struct sdap_sudo_result *res;
};

static void sdap_sudo_search_done(struct tevent_req *subreq);

struct tevent_req *sdap_sudo_search_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                         struct sdap_id_ctx *id_ctx,
                                         const struct sdap_sudo_opts *opts,
                                         const char *filter)
{
    struct sdap_sudo_search_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    size_t a;
    size_t n = 0;

    req = tevent_req_create(mem_ctx, &state, struct sdap_sudo_search_state);
    if (!SDAP_OP_VALID(req, ev, id_ctx)) {
        return req;
    }
    SSS_CHECK_ARG(opts != NULL && filter != NULL, sdap_req_invalid(req, ev));
    state->opts = opts;
    state->attrs[n++] = "objectClass";
    state->attrs[n++] = opts->map_name;
    state->attrs[n++] = SDAP_SUDO_USN;
    state->attrs[n++] = SDAP_SUDO_MODTS;
    for (a = 0; a < SYSDB_SUDO_ATTR_MAX; a++) {
        state->attrs[n++] = opts->map[a];
    }
    state->attrs[n] = NULL;
    state->args.scope = LDAP_SCOPE_SUBTREE;
    state->args.filter = talloc_strdup(state, filter);
    state->args.attrs = state->attrs;
    state->args.timeout = id_ctx->opts->enum_search_timeout;
    state->args.page_size = id_ctx->opts->page_size;
    state->args.missing_base_ok = true;     /* no sudo container: no rules */
    state->args.refs_partial = true;        /* the whole subtree or nothing */
    if (opts->search_base != NULL) {
        state->args.base = opts->search_base;
    } else {
        state->args.base_ref = &id_ctx->opts->search_base;
    }
    if (state->args.filter == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    subreq = sdap_id_search_send(state, ev, id_ctx, &state->args);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, sdap_sudo_search_done, req);
    return req;
}

static void sdap_sudo_search_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_sudo_search_state *state = tevent_req_data(req, struct sdap_sudo_search_state);
    struct sdap_sudo_result *res;
    struct sdap_entry **entries;
    const struct sdap_attr *at;
    size_t num;
    size_t i;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    res = talloc_zero(state, struct sdap_sudo_result);
    if (res != NULL) {
        talloc_steal(res, entries);
        res->rules = talloc_zero_array(res, struct sysdb_sudo_rule *, num + 1);
    }
    if (res == NULL || res->rules == NULL) {
        tevent_req_error(req, ENOMEM);
        return;
    }
    for (i = 0; i < num; i++) {
        ret = sdap_sudo_parse_entry(res->rules, state->opts, entries[i],
                                    &res->rules[res->num_rules]);
        if (ret == EINVAL) {
            res->skipped++;
            continue;
        }
        if (ret != EOK) {
            tevent_req_error(req, ret);
            return;
        }
        res->num_rules++;
        at = sdap_sudo_attr(entries[i], SDAP_SUDO_USN);
        if (at != NULL && at->num_values > 0
                && sdap_sudo_newer(at->values[0], res->max_usn, true)) {
            res->max_usn = at->values[0];
        }
        at = sdap_sudo_attr(entries[i], SDAP_SUDO_MODTS);
        if (at != NULL && at->num_values > 0
                && sdap_sudo_newer(at->values[0], res->max_modts, false)) {
            res->max_modts = at->values[0];
        }
    }
    state->res = res;
    tevent_req_done(req);
}

errno_t sdap_sudo_search_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                              struct sdap_sudo_result **_result)
{
    struct sdap_sudo_search_state *state = tevent_req_data(req, struct sdap_sudo_search_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_result = talloc_steal(mem_ctx, state->res);
    return EOK;
}
