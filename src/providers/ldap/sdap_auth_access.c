/*
 * The LDAP side of access_provider = ldap and of ldap_pwd_policy (sdap_auth.h): reads what
 * the rules of sdap_access_rules.c need from the server and runs them.
 *
 * One request reads the user's own entry (a base search on its DN, on the domain's shared
 * lookup connection: the lookup identity reads operational attributes such as
 * pwdAccountLockedTime, which the user's own bind may not) with every attribute a rule may
 * look at, then, as the rules ask:
 *   filter    a base search of the user's DN with ldap_access_filter: no entry = denied;
 *   ppolicy / lockout  the policy entry (ldap_pwdlockout_dn): pwdLockout TRUE makes the
 *             user's pwdAccountLockedTime count, pwdLockoutDuration bounds it;
 * and evaluates the rules in ldap_access_order, the first denial winning. For an
 * authentication (after a successful bind) only ldap_pwd_policy is evaluated.
 *
 * access_provider = ad is the same machinery with SSSD's AD rules instead of
 * ldap_access_order: "expire" with the AD policy (userAccountControl's disabled bit,
 * accountExpires), then, when ad_access_filter is set, "filter" with its item for this
 * domain (none: everyone denied, as in SSSD).
 * The user's entry is read with those two attributes only, and an account check that
 * follows one of the same user by less than pam_id_timeout takes the entry that one read
 * (sdap_auth_memo.h; the rules still run, at the time of the check): the account checks
 * of logins close together ask the DC once, as SSSD's read the entry its responder
 * refreshed for the login. ad_access_filter is searched on every check.
 * Then, for a user these rules allow, GPO-based access control (ad_gpo_access_control,
 * src/providers/ad/ad_gpo_access.h): disabled skips it, enforcing (SSSD's default)
 * denies what the GPOs deny, permissive logs it and allows (also when the GPOs cannot be
 * evaluated).
 *
 * Anything that cannot be read (server gone, timeout, a malformed value) is an error for
 * the caller, which never turns it into a success.
 */
#include <security/pam_appl.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/util.h"
#include "util/sss_hex.h"
#include "confdb/confdb.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ldap/sdap_auth.h"
#include "providers/ldap/sdap_auth_memo.h"
#include "providers/ad/ad_gpo_access.h"

struct sdap_auth_policy {
    enum sdap_access_rule *rules;   /* ldap_access_order (access_provider = ldap only) */
    size_t num_rules;
    char *filter;                   /* ldap_access_filter, in parentheses; NULL: unset */
    enum sdap_expire_policy expire;
    enum sdap_pwd_policy pwd_policy;
    char *lockout_dn;               /* ldap_pwdlockout_dn */
    int64_t krb_warning;            /* seconds; < 0: the rules' default */
    char host[256];                 /* for the "host" rule */
    bool ad;                        /* access_provider = ad */
    struct ad_gpo_ctx *gpo;         /* access_provider = ad's GPO evaluation */
    const char *const *attrs;       /* what the user's entry is read with */
    struct sdap_auth_memo *memo;    /* access_provider = ad: entries read lately */
};

/* Every attribute a rule may read from the user's entry. */
static const char *const sdap_auth_policy_attrs[] = {
    "shadowLastChange", "shadowMin", "shadowMax", "shadowWarning", "shadowInactive",
    "shadowExpire", "krbLastPwdChange", "krbPasswordExpiration", "pwdAccountLockedTime",
    "accountExpires", "userAccountControl", "nsAccountLock", "loginDisabled",
    "loginExpirationTime", "loginAllowedTimeMap", "authorizedService", "host", NULL
};

/* access_provider = ad reads only what its rules look at: a DC checks read access to
 * every attribute a search names, so the 15 others of sdap_auth_policy_attrs cost it CPU
 * on every login for nothing. ldap_pwd_policy adds its own. */
static const char *const sdap_auth_ad_attrs[] = {
    "userAccountControl", "accountExpires", NULL
};
static const char *const sdap_auth_ad_shadow_attrs[] = {
    "userAccountControl", "accountExpires", "shadowLastChange", "shadowMin", "shadowMax",
    "shadowWarning", "shadowInactive", "shadowExpire", NULL
};
static const char *const sdap_auth_ad_krb_attrs[] = {
    "userAccountControl", "accountExpires", "krbLastPwdChange", "krbPasswordExpiration", NULL
};

/* access_provider = ad: SSSD's AD rules (see the top of the file). */
static errno_t sdap_auth_policy_ad(struct sdap_auth_policy *pol, struct confdb *cdb,
                                   const char *section, const char *domain)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    char *ad_domain = NULL;
    char *value = NULL;
    enum ad_gpo_mode mode;
    int window = 0;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    /* The user's entry stays good for as long as sssd_pam trusts the user's identity for
     * a login (pam_id_timeout): logins that close together ask the DC once. */
    ret = confdb_get_int(cdb, "pam", "pam_id_timeout", &window);
    if (ret != EOK) {
        goto done;
    }
    pol->memo = sdap_auth_memo_new(pol, window);
    if (pol->memo == NULL) {
        ret = ENOMEM;
        goto done;
    }
    pol->ad = true;
    pol->expire = SDAP_EXPIRE_AD;
    pol->attrs = pol->pwd_policy == SDAP_PWD_POLICY_SHADOW ? sdap_auth_ad_shadow_attrs
                 : pol->pwd_policy == SDAP_PWD_POLICY_MIT_KERBEROS ? sdap_auth_ad_krb_attrs
                 : sdap_auth_ad_attrs;
    ret = confdb_get_string(cdb, tmp_ctx, section, "ad_domain", &ad_domain);
    if (ret == EOK) {
        ret = confdb_get_string(cdb, tmp_ctx, section, "ad_access_filter", &value);
    }
    if (ret == EOK) {
        ret = ad_gpo_ctx_create(pol, cdb, section, domain, &pol->gpo);
    }
    if (ret != EOK) {
        goto done;
    }
    /* DOM: names the domain as sssd.conf does (SSSD: the section's name). Users come from
     * this domain only (no trusted domains yet): the forest is taken to be ad_domain, the
     * forest root, where SSSD asks the DC. */
    ret = sdap_ad_access_filter_pick(pol, value, domain,
                                     ad_domain != NULL ? ad_domain : domain, &pol->filter);
    if (ret != EOK) {
        goto done;
    }
    pol->rules = talloc_array(pol, enum sdap_access_rule, 2);
    if (pol->rules == NULL) {
        ret = ENOMEM;
        goto done;
    }
    pol->rules[pol->num_rules++] = SDAP_ACCESS_EXPIRE;
    /* Set but without an item for this domain: SSSD denies everyone, so does the filter
     * rule without a filter. */
    if (value != NULL && value[0] != '\0') {
        pol->rules[pol->num_rules++] = SDAP_ACCESS_FILTER;
        if (pol->filter == NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Domain %s: ad_access_filter has no usable item for "
                  "this domain: every user is denied\n", domain);
        }
    }
    mode = ad_gpo_ctx_mode(pol->gpo);
    DEBUG(SSSDBG_CONF_SETTINGS, "Domain %s: access_provider = ad: account expiry%s%s; "
          "ad_gpo_access_control = %s\n", domain,
          pol->filter != NULL ? ", ad_access_filter " : "",
          pol->filter != NULL ? pol->filter : "",
          mode == AD_GPO_MODE_DISABLED ? "disabled"
          : mode == AD_GPO_MODE_PERMISSIVE ? "permissive" : "enforcing");
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sdap_auth_policy_create(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *domain,
                                bool access_ldap, int64_t pwd_warning,
                                struct sdap_auth_policy **_pol)
{
    TALLOC_CTX *tmp_ctx;
    struct sdap_auth_policy *pol;
    char *section;
    char *value = NULL;
    errno_t ret;

    SSS_CHECK_ARG(cdb != NULL && domain != NULL && _pol != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    pol = talloc_zero(mem_ctx, struct sdap_auth_policy);
    section = talloc_asprintf(tmp_ctx, "domain/%s", domain);
    if (tmp_ctx == NULL || pol == NULL || section == NULL) {
        ret = ENOMEM;
        goto done;
    }
    pol->krb_warning = pwd_warning;
    pol->attrs = sdap_auth_policy_attrs;
    ret = confdb_get_string(cdb, tmp_ctx, section, "ldap_pwd_policy", &value);
    if (ret == EOK) {
        ret = sdap_pwd_policy_parse(value, &pol->pwd_policy);
    }
    if (ret != EOK || !access_ldap) {
        goto done;
    }
    ret = confdb_get_string(cdb, tmp_ctx, section, "access_provider", &value);
    if (ret == EOK && value != NULL && strcmp(value, "ad") == 0) {
        ret = sdap_auth_policy_ad(pol, cdb, section, domain);
        goto done;
    }
    ret = confdb_get_string(cdb, tmp_ctx, section, "ldap_access_order", &value);
    if (ret == EOK) {
        ret = sdap_access_order_parse(pol, value, &pol->rules, &pol->num_rules);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, tmp_ctx, section, "ldap_account_expire_policy", &value);
    }
    if (ret == EOK) {
        ret = sdap_expire_policy_parse(value, &pol->expire);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, pol, section, "ldap_pwdlockout_dn", &pol->lockout_dn);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, tmp_ctx, section, "ldap_access_filter", &value);
    }
    if (ret != EOK) {
        goto done;
    }
    if (value != NULL && value[0] != '\0') {
        pol->filter = talloc_asprintf(pol, value[0] == '(' ? "%s" : "(%s)", value);
        if (pol->filter == NULL) {
            ret = ENOMEM;
            goto done;
        }
    }
    for (size_t i = 0; i < pol->num_rules; i++) {
        if (pol->rules[i] == SDAP_ACCESS_FILTER && pol->filter == NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Domain %s: ldap_access_order has \"filter\" but "
                  "ldap_access_filter is not set: every user is denied\n", domain);
        }
        if ((pol->rules[i] == SDAP_ACCESS_PPOLICY || pol->rules[i] == SDAP_ACCESS_LOCKOUT)
                && pol->lockout_dn == NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Domain %s: ldap_access_order has \"ppolicy\" but "
                  "ldap_pwdlockout_dn is not set: every user is denied\n", domain);
        }
    }
    if (gethostname(pol->host, sizeof(pol->host) - 1) != 0) {
        pol->host[0] = '\0';
    }
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    if (ret != EOK) {
        talloc_free(pol);
        return ret;
    }
    *_pol = pol;
    return EOK;
}

bool sdap_auth_policy_checks_pwd(const struct sdap_auth_policy *pol)
{
    return pol != NULL && pol->pwd_policy != SDAP_PWD_POLICY_NONE;
}

/* ---- the request ------------------------------------------------------------------ */

static void sdap_verdict_ok(struct sdap_access_verdict *v)
{
    *v = (struct sdap_access_verdict){ .pam_status = PAM_SUCCESS, .expire_warn = -1 };
}

static void sdap_verdict_deny(struct sdap_access_verdict *v, int pam_status)
{
    *v = (struct sdap_access_verdict){ .pam_status = pam_status, .expire_warn = -1 };
}

struct sdap_auth_policy_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    const struct sdap_auth_policy *pol;
    bool for_auth;
    char *dn;
    char *service;
    struct sdap_search_args args;
    struct sdap_rule_attr *attrs;       /* the user's entry */
    size_t num_attrs;
    bool filter_matched;
    bool map_probed;                    /* loginAllowedTimeMap's presence asked for */
    bool lockout_on;                    /* the policy entry has pwdLockout TRUE */
    char *lockout_duration;
    struct sdap_access_verdict verdict;
};

static errno_t sdap_auth_policy_search(struct tevent_req *req, const char *base,
                                       const char *filter, const char *const *attrs,
                                       tevent_req_fn fn);
static void sdap_auth_policy_entry_done(struct tevent_req *subreq);
static void sdap_auth_policy_filter_done(struct tevent_req *subreq);
static void sdap_auth_policy_map_done(struct tevent_req *subreq);
static errno_t sdap_auth_policy_after_entry(struct tevent_req *req);
static void sdap_auth_policy_lockout_done(struct tevent_req *subreq);
static errno_t sdap_auth_policy_decide(struct tevent_req *req);

static bool sdap_auth_policy_has(const struct sdap_auth_policy *pol,
                                 enum sdap_access_rule rule)
{
    for (size_t i = 0; i < pol->num_rules; i++) {
        if (pol->rules[i] == rule) {
            return true;
        }
    }
    return false;
}

struct tevent_req *sdap_auth_policy_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                         struct sdap_auth_ctx *actx,
                                         const struct sdap_auth_policy *pol,
                                         const char *dn, const char *service, bool for_auth)
{
    struct sdap_auth_policy_state *state;
    struct tevent_req *req;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_auth_policy_state);
    if (req == NULL) {
        return NULL;
    }
    if (ev == NULL || actx == NULL || pol == NULL || dn == NULL || dn[0] == '\0') {
        (void)sss_arg_invalid(__func__, "ev, actx, pol, dn");
        return sdap_req_invalid(req, ev);
    }
    /* The steps end the request from inside search callbacks that still use the state. */
    tevent_req_defer_callback(req, ev);
    state->ev = ev;
    state->id_ctx = sdap_auth_id_ctx(actx);
    state->pol = pol;
    state->for_auth = for_auth;
    state->dn = talloc_strdup(state, dn);
    state->service = talloc_strdup(state, service != NULL ? service : "");
    if (state->dn == NULL || state->service == NULL) {
        ret = ENOMEM;
        goto done;
    }
    sdap_verdict_ok(&state->verdict);
    if ((for_auth && pol->pwd_policy == SDAP_PWD_POLICY_NONE)
            || (!for_auth && pol->num_rules == 0)) {
        ret = EOK;
        goto done;
    }
    if (!for_auth) {
        ret = sdap_auth_memo_get(pol->memo, state, state->dn, time(NULL), &state->attrs,
                                 &state->num_attrs);
        if (ret == EOK) {
            DEBUG(SSSDBG_TRACE_FUNC, "'%s': its entry as read less than pam_id_timeout "
                  "ago\n", state->dn);
            ret = sdap_auth_policy_after_entry(req);
            if (ret != EOK) {
                goto done;
            }
            return req;
        }
        if (ret != ENOENT) {
            goto done;
        }
    }
    ret = sdap_auth_policy_search(req, state->dn, "(objectClass=*)", pol->attrs,
                                  sdap_auth_policy_entry_done);
    if (ret != EOK) {
        goto done;
    }
    return req;
done:
    if (ret == EOK) {
        tevent_req_done(req);
        return tevent_req_post(req, ev);
    }
    return sss_req_post(req, ev, ret);
}

static errno_t sdap_auth_policy_search(struct tevent_req *req, const char *base,
                                       const char *filter, const char *const *attrs,
                                       tevent_req_fn fn)
{
    struct sdap_auth_policy_state *state = tevent_req_data(req, struct sdap_auth_policy_state);

    return sdap_id_search_step(req, state->ev, state->id_ctx, &state->args, base,
                               LDAP_SCOPE_BASE, filter, attrs, 0, fn);
}

/* The entry as the rules take it: each value as a berval (values are NUL-free strings,
 * but for the nds time map, decoded from the parser's hex). */
static errno_t sdap_auth_policy_attrs_of(TALLOC_CTX *mem_ctx, const struct sdap_entry *e,
                                         struct sdap_rule_attr **_attrs, size_t *_num)
{
    struct sdap_rule_attr *attrs;

    attrs = talloc_zero_array(mem_ctx, struct sdap_rule_attr, e->num_attrs + 1);
    if (attrs == NULL) {
        return ENOMEM;
    }
    for (size_t i = 0; i < e->num_attrs; i++) {
        const struct sdap_attr *a = &e->attrs[i];
        struct berval **vals = talloc_zero_array(attrs, struct berval *, a->num_values + 1);

        if (vals == NULL) {
            return ENOMEM;
        }
        for (size_t k = 0; k < a->num_values; k++) {
            vals[k] = talloc(vals, struct berval);
            if (vals[k] == NULL) {
                return ENOMEM;
            }
            vals[k]->bv_val = a->values[k];
            vals[k]->bv_len = strlen(a->values[k]);
            if (strcasecmp(a->name, SDAP_NDS_TIME_MAP) == 0) {
                /* The parser kept the binary map as hex; an odd form reads as malformed
                 * (empty), which the nds rule denies. */
                vals[k]->bv_val = talloc_size(vals, strlen(a->values[k]) / 2 + 1);
                if (vals[k]->bv_val == NULL) {
                    return ENOMEM;
                }
                vals[k]->bv_len = sss_hex_decode(a->values[k], vals[k]->bv_val);
            }
        }
        attrs[i].name = a->name;
        attrs[i].values = vals;
    }
    *_attrs = attrs;
    *_num = e->num_attrs;
    return EOK;
}

static void sdap_auth_policy_entry_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_auth_policy_state *state = tevent_req_data(req, struct sdap_auth_policy_state);
    struct sdap_entry **entries = NULL;
    size_t num = 0;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    if (num != 1) {
        DEBUG(SSSDBG_OP_FAILURE, "'%s' is not in the directory: denied\n", state->dn);
        sdap_verdict_deny(&state->verdict, PAM_PERM_DENIED);
        tevent_req_done(req);
        ret = EOK;
        goto done;
    }
    talloc_steal(state, entries[0]);
    ret = sdap_auth_policy_attrs_of(state, entries[0], &state->attrs, &state->num_attrs);
    if (ret != EOK) {
        goto done;
    }
    if (!state->for_auth) {
        sdap_auth_memo_put(state->pol->memo, state->dn, time(NULL), state->attrs,
                           state->num_attrs);
    }
    ret = sdap_auth_policy_after_entry(req);
done:
    talloc_free(entries);
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

/* Whether the parsed entry has an attribute (with a value). */
static bool sdap_auth_policy_attr_seen(struct sdap_auth_policy_state *state, const char *name)
{
    for (size_t i = 0; i < state->num_attrs; i++) {
        if (strcasecmp(state->attrs[i].name, name) == 0 && state->attrs[i].values != NULL
                && state->attrs[i].values[0] != NULL) {
            return true;
        }
    }
    return false;
}

/* The steps after the user's entry: the nds time map's presence, ldap_access_filter, the
 * lockout policy entry, then the decision. */
static errno_t sdap_auth_policy_after_entry(struct tevent_req *req)
{
    struct sdap_auth_policy_state *state = tevent_req_data(req, struct sdap_auth_policy_state);
    static const char *const no_attrs[] = { "1.1", NULL };
    static const char *const lock_attrs[] = { "pwdLockout", "pwdLockoutDuration", NULL };

    /* The entry parser keeps loginAllowedTimeMap as hex (sdap_entry_msg.c), but drops a
     * value it cannot keep (too long): ask whether the user has a map that did not reach
     * us, so that an unreadable map denies instead of allowing at any hour. */
    if (!state->for_auth && !state->map_probed && state->pol->expire == SDAP_EXPIRE_NDS
            && sdap_auth_policy_has(state->pol, SDAP_ACCESS_EXPIRE)
            && !sdap_auth_policy_attr_seen(state, "loginAllowedTimeMap")) {
        state->map_probed = true;
        return sdap_auth_policy_search(req, state->dn, "(loginAllowedTimeMap=*)", no_attrs,
                                       sdap_auth_policy_map_done);
    }
    if (!state->for_auth && state->pol->filter != NULL
            && sdap_auth_policy_has(state->pol, SDAP_ACCESS_FILTER)) {
        return sdap_auth_policy_search(req, state->dn, state->pol->filter, no_attrs,
                                       sdap_auth_policy_filter_done);
    }
    if (!state->for_auth && state->pol->lockout_dn != NULL
            && (sdap_auth_policy_has(state->pol, SDAP_ACCESS_PPOLICY)
                || sdap_auth_policy_has(state->pol, SDAP_ACCESS_LOCKOUT))) {
        return sdap_auth_policy_search(req, state->pol->lockout_dn, "(objectClass=*)",
                                       lock_attrs, sdap_auth_policy_lockout_done);
    }
    return sdap_auth_policy_decide(req);
}

/* The user has a loginAllowedTimeMap the parser dropped: an empty value stands for it,
 * which the nds rule reads as malformed, hence a denial. */
static void sdap_auth_policy_map_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_auth_policy_state *state = tevent_req_data(req, struct sdap_auth_policy_state);
    struct sdap_entry **entries = NULL;
    struct sdap_rule_attr *attrs;
    struct berval **vals;
    size_t num = 0;
    size_t i;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    talloc_free(entries);
    if (ret != EOK) {
        goto done;
    }
    if (num == 1) {
        DEBUG(SSSDBG_OP_FAILURE, "'%s' has a loginAllowedTimeMap that cannot be read (a "
              "binary value holding NUL): the nds time rule denies\n", state->dn);
        /* The parser may have kept the attribute without values: that one is replaced. */
        for (i = 0; i < state->num_attrs; i++) {
            if (strcasecmp(state->attrs[i].name, "loginAllowedTimeMap") == 0) {
                break;
            }
        }
        attrs = state->attrs;
        if (i == state->num_attrs) {
            attrs = talloc_realloc(state, state->attrs, struct sdap_rule_attr,
                                   state->num_attrs + 2);
            if (attrs == NULL) {
                ret = ENOMEM;
                goto done;
            }
            state->attrs = attrs;
            attrs[i + 1] = (struct sdap_rule_attr){ 0 };
            attrs[i].name = "loginAllowedTimeMap";
            attrs[i].values = NULL;
            state->num_attrs++;
        }
        vals = talloc_zero_array(attrs, struct berval *, 2);
        if (vals != NULL) {
            vals[0] = talloc_zero(vals, struct berval);
        }
        if (vals == NULL || vals[0] == NULL) {
            ret = ENOMEM;
            goto done;
        }
        vals[0]->bv_val = (char *)"";
        attrs[i].values = vals;
    }
    ret = sdap_auth_policy_after_entry(req);
done:
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

static void sdap_auth_policy_filter_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_auth_policy_state *state = tevent_req_data(req, struct sdap_auth_policy_state);
    static const char *const lock_attrs[] = { "pwdLockout", "pwdLockoutDuration", NULL };
    struct sdap_entry **entries = NULL;
    size_t num = 0;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    talloc_free(entries);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    state->filter_matched = num == 1;
    DEBUG(SSSDBG_TRACE_FUNC, "ldap_access_filter %s '%s'\n",
          state->filter_matched ? "matches" : "does not match", state->dn);
    if (state->pol->lockout_dn != NULL
            && (sdap_auth_policy_has(state->pol, SDAP_ACCESS_PPOLICY)
                || sdap_auth_policy_has(state->pol, SDAP_ACCESS_LOCKOUT))) {
        ret = sdap_auth_policy_search(req, state->pol->lockout_dn, "(objectClass=*)",
                                      lock_attrs, sdap_auth_policy_lockout_done);
    } else {
        ret = sdap_auth_policy_decide(req);
    }
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

static void sdap_auth_policy_lockout_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_auth_policy_state *state = tevent_req_data(req, struct sdap_auth_policy_state);
    struct sdap_entry **entries = NULL;
    const char *v;
    size_t num = 0;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    if (num != 1) {
        DEBUG(SSSDBG_OP_FAILURE, "ldap_pwdlockout_dn '%s' does not exist: denied\n",
              state->pol->lockout_dn);
        sdap_verdict_deny(&state->verdict, PAM_PERM_DENIED);
        tevent_req_done(req);
        goto done;
    }
    v = sdap_entry_value(entries[0], "pwdLockout");
    state->lockout_on = v != NULL && strcasecmp(v, "TRUE") == 0;
    v = sdap_entry_value(entries[0], "pwdLockoutDuration");
    if (v != NULL) {
        state->lockout_duration = talloc_strdup(state, v);
        if (state->lockout_duration == NULL) {
            ret = ENOMEM;
            goto done;
        }
    }
    ret = sdap_auth_policy_decide(req);
done:
    talloc_free(entries);
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

/* After the AD rules allowed a user: the GPOs' verdict. */
static void sdap_auth_policy_gpo_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_auth_policy_state *state = tevent_req_data(req, struct sdap_auth_policy_state);
    bool allowed = false;
    errno_t ret;

    ret = ad_gpo_access_recv(subreq, &allowed);
    talloc_free(subreq);
    if (ret != EOK && ad_gpo_ctx_mode(state->pol->gpo) == AD_GPO_MODE_PERMISSIVE) {
        /* Permissive never denies: what could not be checked is logged. */
        DEBUG(SSSDBG_CRIT_FAILURE, "GPO-based access control could not be evaluated for "
              "'%s' (%s): allowed (permissive)\n", state->dn, sss_strerror(ret));
        allowed = true;
        ret = EOK;
    }
    if (ret != EOK) {
        /* Enforcing: nothing is granted on an unchecked policy; the caller decides as
         * without a server. */
        DEBUG(SSSDBG_OP_FAILURE, "GPO-based access control could not be evaluated for "
              "'%s': %s\n", state->dn, sss_strerror(ret));
        tevent_req_error(req, ret);
        return;
    }
    if (!allowed) {
        sdap_verdict_deny(&state->verdict, PAM_PERM_DENIED);
    }
    tevent_req_done(req);
}

/* The rules in order; the first denial wins, a warning is kept. Ends the request. */
static errno_t sdap_auth_policy_decide(struct tevent_req *req)
{
    struct sdap_auth_policy_state *state = tevent_req_data(req, struct sdap_auth_policy_state);
    const struct sdap_auth_policy *pol = state->pol;
    struct sdap_access_verdict v;
    struct sdap_pwexpire pw;
    int64_t warn = -1;
    time_t now = time(NULL);
    errno_t ret = EOK;

    if (state->for_auth) {
        ret = sdap_pwexpire_check(pol->pwd_policy, state->attrs, state->num_attrs, now,
                                  pol->krb_warning, &pw);
        if (ret == EOK) {
            sdap_pwexpire_verdict(&pw, SDAP_PWEXPIRE_FOR_AUTH, &state->verdict);
        }
        goto done;
    }
    for (size_t i = 0; i < pol->num_rules; i++) {
        sdap_verdict_ok(&v);
        switch (pol->rules[i]) {
        case SDAP_ACCESS_FILTER:
            if (!state->filter_matched) {
                sdap_verdict_deny(&v, PAM_PERM_DENIED);
            }
            break;
        case SDAP_ACCESS_LOCKOUT:
        case SDAP_ACCESS_PPOLICY:
            if (pol->lockout_dn == NULL) {
                sdap_verdict_deny(&v, PAM_PERM_DENIED);
            } else if (state->lockout_on) {
                ret = sdap_access_lockout(pol->rules[i] == SDAP_ACCESS_PPOLICY, state->attrs,
                                          state->num_attrs, state->lockout_duration, now, &v);
            }
            break;
        case SDAP_ACCESS_EXPIRE:
            ret = sdap_access_expire(pol->expire, state->attrs, state->num_attrs, now, &v);
            break;
        case SDAP_ACCESS_PWD_EXPIRE_REJECT:
        case SDAP_ACCESS_PWD_EXPIRE_WARN:
        case SDAP_ACCESS_PWD_EXPIRE_RENEW:
            ret = sdap_pwexpire_check(pol->pwd_policy, state->attrs, state->num_attrs, now,
                                      pol->krb_warning, &pw);
            if (ret == EOK) {
                sdap_pwexpire_verdict(&pw, pol->rules[i] == SDAP_ACCESS_PWD_EXPIRE_REJECT
                                      ? SDAP_PWEXPIRE_FOR_REJECT
                                      : pol->rules[i] == SDAP_ACCESS_PWD_EXPIRE_WARN
                                      ? SDAP_PWEXPIRE_FOR_WARN : SDAP_PWEXPIRE_FOR_RENEW, &v);
            }
            break;
        case SDAP_ACCESS_SERVICE:
            ret = sdap_access_match_list("authorizedService", state->attrs, state->num_attrs,
                                         state->service, &v);
            break;
        case SDAP_ACCESS_HOST:
            ret = sdap_access_match_list("host", state->attrs, state->num_attrs, pol->host, &v);
            break;
        }
        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "access rule %d for '%s': %s: denied\n",
                  (int)pol->rules[i], state->dn, sss_strerror(ret));
            sdap_verdict_deny(&state->verdict, PAM_PERM_DENIED);
            ret = EOK;
            goto done;
        }
        if (v.expire_warn >= 0) {
            warn = v.expire_warn;
        }
        if (v.pam_status != PAM_SUCCESS) {
            DEBUG(SSSDBG_TRACE_FUNC, "access rule %d denies '%s' (%d): %s\n",
                  (int)pol->rules[i], state->dn, v.pam_status,
                  v.system_info != NULL ? v.system_info : "-");
            state->verdict = v;
            goto done;
        }
    }
    state->verdict.expire_warn = warn;
    if (pol->ad && ad_gpo_ctx_mode(pol->gpo) != AD_GPO_MODE_DISABLED) {
        struct tevent_req *subreq;

        subreq = ad_gpo_access_send(state, state->ev, pol->gpo, state->id_ctx, state->dn,
                                    state->service);
        if (subreq == NULL) {
            return ENOMEM;
        }
        tevent_req_set_callback(subreq, sdap_auth_policy_gpo_done, req);
        return EOK;
    }
done:
    if (ret == EINVAL) {
        /* A malformed policy value: nothing trustworthy, never a success. */
        DEBUG(SSSDBG_OP_FAILURE, "password policy of '%s' unreadable: denied\n", state->dn);
        sdap_verdict_deny(&state->verdict, state->for_auth ? PAM_AUTHINFO_UNAVAIL
                                                           : PAM_PERM_DENIED);
        ret = EOK;
    }
    if (ret == EOK) {
        tevent_req_done(req);
    }
    return ret;
}

errno_t sdap_auth_policy_recv(struct tevent_req *req, struct sdap_access_verdict *_verdict)
{
    struct sdap_auth_policy_state *state = tevent_req_data(req, struct sdap_auth_policy_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_verdict = state->verdict;
    return EOK;
}
