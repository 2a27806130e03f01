/*
 * libFuzzer harness for what a hostile or broken LDAP server can send: the input is the
 * server's side of a connection. A real libldap handle reads it from a socket pair after
 * it sent one search (message id 1), exactly as sssd_be's connections do, and every
 * message it hands back goes through our code: search entries through
 * sdap_entry_from_msg() and then the user and group parsers of three schemas (rfc2307
 * memberUid, rfc2307bis member DNs with the DN helpers, AD without ID mapping: objectSid
 * kept as the entry's SID), the rootDSE base choice; the
 * final result through ldap_parse_result() and sdap_page_cookie() (the paged-results
 * control, whose missing value made libldap abort the process). Ranged attributes
 * ("member;range=0-1499", AD): each entry's ranges parsed, and each entry merged into the
 * one before it as the follow-up answer would be (sdap_entry_range.c). Each entry parsed
 * again with memberUid only counted past a limit (sdap_entry_count.c), against the first.
 * Every value of memberOf and member as an extended DN (sdap_xdn_sid: the SIDs AD names
 * with the extended DN control, which tokenGroups' initgroups reads from memberOf).
 * Built apart from the Makefile, with the ldap, confdb and util sources compiled in.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <openldap.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/util.h"
#include "confdb/confdb.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ldap/sdap_entry_range.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static struct sdap_options *opts_2307;
static struct sdap_options *opts_bis;
static struct sdap_options *opts_ad;
static TALLOC_CTX *setup_ctx;   /* the configurations read once; kept for the whole run */

static struct sdap_options *load_opts(const char *schema)
{
    char conf[512];
    struct confdb *cdb;
    struct sdap_options *opts;
    char *error = NULL;

    snprintf(conf, sizeof(conf), "[sssd]\ndomains = f\n[domain/f]\nid_provider = ldap\n"
             "ldap_uri = ldap://127.0.0.1\nldap_search_base = dc=f\nldap_schema = %s\n",
             schema);
    if (setup_ctx == NULL) {
        setup_ctx = talloc_new(NULL);
    }
    if (confdb_parse_buffer(setup_ctx, "fuzz", conf, strlen(conf), &cdb, &error) != EOK
            || sdap_options_read(setup_ctx, cdb, "f", &opts) != EOK) {
        abort();
    }
    return opts;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    opts_2307 = load_opts("rfc2307");
    opts_bis = load_opts("rfc2307bis");
    opts_ad = load_opts("ad");
    return 0;
}

/* value as an extended DN: a SID it yields is well-formed. */
static void xdn_sid(TALLOC_CTX *tmp, const char *value)
{
    char *sid = sdap_xdn_sid(tmp, value);

    if (sid != NULL && strncmp(sid, "S-1-", 4) != 0) {
        abort();
    }
}

static void parse_as(const struct sdap_options *opts, const struct sdap_entry *entry)
{
    TALLOC_CTX *tmp = talloc_new(NULL);
    struct sdap_user *user;
    struct sdap_group *group;
    const struct sdap_attr *members;
    size_t i;

    if (sdap_parse_user(tmp, opts, entry, &user) == EOK
            && (user->name == NULL || !sdap_valid_name(user->name) || user->uid == 0
                || (user->sid != NULL && strncmp(user->sid, "S-1-", 4) != 0))) {
        abort();    /* an accepted user is a usable one */
    }
    if (sdap_parse_group(tmp, opts, entry, &group) == EOK) {
        if (group->name == NULL || group->gid == 0
                || (group->sid != NULL && strncmp(group->sid, "S-1-", 4) != 0)) {
            abort();
        }
        (void)sdap_group_set_members_rfc2307(group, opts, entry);
        for (i = 0; i < group->num_member_users; i++) {
            if (!sdap_valid_name(group->member_users[i])) {
                abort();
            }
        }
    }
    members = sdap_entry_attr(entry, "member");
    for (i = 0; members != NULL && i < members->num_values; i++) {
        (void)sdap_dn_canon(tmp, members->values[i]);
        (void)sdap_dn_rdn_value(tmp, members->values[i], "uid");
        xdn_sid(tmp, members->values[i]);
    }
    members = sdap_entry_attr(entry, "memberOf");
    for (i = 0; members != NULL && i < members->num_values; i++) {
        xdn_sid(tmp, members->values[i]);
    }
    (void)sdap_dn_canon(tmp, entry->dn);
    (void)sdap_entry_has_oc(entry, "posixGroup");
    talloc_free(tmp);
}

/* Whether the value list of a has needle (the values kept: a needle never is dropped). */
static bool holds(const struct sdap_attr *a, const char *needle)
{
    size_t i;

    for (i = 0; i < a->num_values; i++) {
        if (strcmp(a->values[i], needle) == 0) {
            return true;
        }
    }
    return false;
}

/* The same message read by a second handle (libldap writes into a message as it parses
 * it: parsed twice, it gives something else) with memberUid only counted past 2 values
 * (an rfc2307 initgroups, sdap_entry_count.c) must give what the plain parse gave, with
 * each counted list empty, its count at least the values the plain parse kept and its
 * needle found exactly when the plain list holds it. */
static void counted_agrees(LDAP *ld, LDAPMessage *msg, const struct sdap_entry *plain)
{
    static const struct sdap_count_spec spec = { "memberUid", 2, "u1" };
    struct sdap_entry *c;
    const struct sdap_attr *a;
    const struct sdap_attr *p;
    size_t dropped = 0;
    size_t i;

    if (sdap_entry_from_msg_counted(NULL, ld, msg, &spec, &c, &dropped) != EOK) {
        abort();    /* the plain parse took this message */
    }
    if (c->num_attrs != plain->num_attrs || strcmp(c->dn, plain->dn) != 0) {
        abort();
    }
    for (i = 0; i < c->num_attrs; i++) {
        a = &c->attrs[i];
        p = &plain->attrs[i];
        if (strcmp(a->name, p->name) != 0 || p->num_counted != 0) {
            abort();
        }
        if (a->num_counted == 0) {
            if (a->num_values != p->num_values) {
                abort();
            }
            continue;
        }
        if (strcasecmp(a->name, spec.attr) != 0 || a->num_counted <= spec.limit
                || a->num_values != 0 || a->values[0] != NULL
                || a->num_counted < p->num_values || a->needle_found != holds(p, spec.needle)) {
            abort();
        }
    }
    parse_as(opts_2307, c);
    talloc_free(c);
}

/* entry as the follow-up answer for the first ranged attribute of prev: a merge either
 * fails, leaving prev's values as they were, or appends exactly the answer's values. */
static void range_as_followup(struct sdap_entry *prev, struct sdap_entry *entry)
{
    struct sdap_range r;
    struct sdap_range got;
    size_t type_len;
    size_t before;
    size_t idx;
    size_t i;

    for (i = 0; i < entry->num_attrs; i++) {
        if (sdap_range_parse(entry->attrs[i].name, &type_len, &r) == EOK
                && (type_len == 0 || type_len > strlen(entry->attrs[i].name)
                    || sdap_range_check_count(&r, entry->attrs[i].num_values) == EINVAL)) {
            abort();
        }
    }
    if (prev == NULL) {
        return;
    }
    idx = sdap_range_find(prev, 0);
    if (idx == prev->num_attrs
            || sdap_range_parse(prev->attrs[idx].name, &type_len, &r) != EOK || r.last) {
        return;
    }
    before = prev->attrs[idx].num_values;
    if (sdap_range_merge(prev, idx, r.hi + 1, entry, &got) == EOK) {
        if (got.lo != r.hi + 1 || prev->attrs[idx].num_values < before
                || prev->attrs[idx].values[prev->attrs[idx].num_values] != NULL
                || (got.last && strchr(prev->attrs[idx].name, ';') != NULL)) {
            abort();
        }
    } else if (prev->attrs[idx].num_values != before) {
        abort();    /* a refused answer must leave the list as it was */
    }
}

/* ld2: a second handle fed the same bytes, read in step, for counted_agrees(). */
static void read_messages(LDAP *ld, int msgid, LDAP *ld2, int msgid2)
{
    struct timeval tv = { 0, 0 };     /* all bytes are queued before reading: never wait */
    struct sdap_entry *prev = NULL;     /* the entry before, for the range merge */
    LDAPMessage *msg;
    LDAPMessage *msg2;
    int rc;
    int n;

    for (n = 0; n < 1000; n++) {
        rc = ldap_result(ld, msgid, LDAP_MSG_ONE, &tv, &msg);
        if (rc <= 0) {
            break;      /* end of input, or bytes libldap refused */
        }
        msg2 = NULL;
        if (ld2 != NULL && ldap_result(ld2, msgid2, LDAP_MSG_ONE, &tv, &msg2) != rc) {
            abort();    /* the same bytes, the same messages */
        }
        if (rc == LDAP_RES_SEARCH_ENTRY) {
            struct sdap_entry *entry;
            const char *base;
            size_t dropped = 0;

            if (sdap_entry_from_msg(NULL, ld, msg, &entry, &dropped) == EOK) {
                if (msg2 != NULL) {
                    counted_agrees(ld2, msg2, entry);
                }
                parse_as(opts_2307, entry);
                parse_as(opts_bis, entry);
                parse_as(opts_ad, entry);
                (void)sdap_rootdse_pick_base(entry, &base);
                range_as_followup(prev, entry);
                talloc_free(prev);
                prev = entry;
            }
        } else if (rc == LDAP_RES_SEARCH_RESULT) {
            LDAPControl **ctrls = NULL;
            struct berval cookie = { 0, NULL };
            char *matched = NULL;
            char *text = NULL;
            int result;

            if (ldap_parse_result(ld, msg, &result, &matched, &text, NULL, &ctrls, 0)
                    == LDAP_SUCCESS) {
                if (sdap_page_cookie(ld, ctrls, &cookie) == EOK) {
                    ber_memfree(cookie.bv_val);
                }
                (void)sdap_ldap_err(result);
            }
            ldap_memfree(matched);
            ldap_memfree(text);
            ldap_controls_free(ctrls);
            ldap_msgfree(msg);
            ldap_msgfree(msg2);
            break;
        }
        ldap_msgfree(msg);
        ldap_msgfree(msg2);
    }
    talloc_free(prev);
}

/* A handle that sent one search and has data queued as the server's answer (*_peer: the
 * server's end, shut for writing). NULL when the input cannot be queued. */
static LDAP *fed_handle(const uint8_t *data, size_t size, int *_msgid, int *_peer)
{
    static const char *attrs[] = { "*", NULL };
    int version = LDAP_VERSION3;
    LDAP *ld = NULL;
    int sv[2];

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        return NULL;
    }
    if (ldap_init_fd(sv[0], LDAP_PROTO_TCP, NULL, &ld) != LDAP_SUCCESS) {
        close(sv[0]);
        close(sv[1]);
        return NULL;
    }
    ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &version);
    if (sdap_limit_incoming(ld) != EOK) {
        abort();
    }
    if (ldap_search_ext(ld, "dc=f", LDAP_SCOPE_SUBTREE, "(objectClass=*)", (char **)attrs, 0,
                        NULL, NULL, NULL, 0, _msgid) != LDAP_SUCCESS
            || write(sv[1], data, size) != (ssize_t)size) {
        ldap_unbind_ext(ld, NULL, NULL);    /* closes sv[0] */
        close(sv[1]);
        return NULL;
    }
    shutdown(sv[1], SHUT_WR);
    *_peer = sv[1];
    return ld;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    LDAP *ld;
    LDAP *ld2;
    int msgid = 0;
    int msgid2 = 0;
    int peer = -1;
    int peer2 = -1;

    if (size > 60000) {
        return 0;       /* more than a socket buffer would block the write */
    }
    ld = fed_handle(data, size, &msgid, &peer);
    if (ld == NULL) {
        return 0;
    }
    ld2 = fed_handle(data, size, &msgid2, &peer2);
    read_messages(ld, msgid, ld2, msgid2);
    if (ld2 != NULL) {
        ldap_unbind_ext(ld2, NULL, NULL);    /* closes its end */
        close(peer2);
    }
    ldap_unbind_ext(ld, NULL, NULL);
    close(peer);
    return 0;
}
