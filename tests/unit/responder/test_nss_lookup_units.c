/*
 * The lookup path's pieces that need no bus: name parsing (fully qualified names,
 * default_domain_suffix, use_fully_qualified_names), output names (full_name_format),
 * home directory templates, shell rules, group members (formatted, filtered), the negative
 * cache (timeout, reset), the enumeration cursor (count boundaries) and the netgroup
 * snapshots and their memory (nss_netgr.c). A temporary cache
 * directory backs the tests that need entries. Leak checks in teardown.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "responder/common/resp_names.h"
#include "responder/nss/nss_private.h"
#include "db/sysdb_rcache.h"
#include "db/sysdb_subdomains.h"
#include "tests/unit/common/tc_common.h"

#define CONF_HEAD \
    "[sssd]\n" \
    "domains = plain, fq, Other.Test\n"
#define CONF_DOMS \
    "[domain/plain]\n" \
    "id_provider = ldap\n" \
    "ldap_uri = ldap://localhost\n" \
    "enumerate = true\n" \
    "[domain/fq]\n" \
    "id_provider = ldap\n" \
    "ldap_uri = ldap://localhost\n" \
    "use_fully_qualified_names = true\n" \
    "full_name_format = %2$s+%1$s\n" \
    "[domain/Other.Test]\n" \
    "id_provider = ldap\n" \
    "ldap_uri = ldap://localhost\n" \
    "case_sensitive = false\n" \
    "enumerate = true\n"

struct test_ctx {
    char *dir;
    struct tevent_context *ev;
    struct confdb *cdb;
    struct resp_ctx *rctx;
    struct nss_ctx *nctx;
};

static struct tc_leaks leaks;

static time_t fake_now = 1000;
static time_t fake_clock(void) { return fake_now; }

static void make_ctx(struct test_ctx *t, const char *conf)
{
    char *err = NULL;

    assert_int_equal(confdb_parse_buffer(t, "t.conf", conf, strlen(conf), &t->cdb, &err),
                     EOK);
    assert_int_equal(resp_ctx_create(t, t->ev, t->cdb, NULL, t->dir, &t->rctx), EOK);
    t->nctx = talloc_zero(t, struct nss_ctx);
    assert_non_null(t->nctx);
    t->nctx->rctx = t->rctx;
    t->nctx->pwfield = talloc_strdup(t->nctx, "*");
    assert_int_equal(nss_format_load(t->nctx, t->cdb, t->rctx, "/nonexistent/shells",
                                     &t->nctx->fmt), EOK);
}

static int setup(void **state)
{
    struct test_ctx *t;

    tc_leak_start(&leaks);
    t = talloc_zero(NULL, struct test_ctx);
    assert_non_null(t);
    t->dir = tc_tmpdir(t, "test_nss_units");
    t->ev = tevent_context_init(t);
    make_ctx(t, CONF_HEAD CONF_DOMS);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct test_ctx *t = *state;
    char *dir = talloc_steal(NULL, t->dir);

    /* The caches are closed before their directory goes. */
    talloc_free(t);
    tc_tmpdir_remove(dir);
    talloc_free(dir);
    tc_leak_check(&leaks);
    return 0;
}

/* ---- names ---- */

static void test_parse_names(void **state)
{
    struct test_ctx *t = *state;
    struct resp_domain *dom;
    char *name;

    assert_int_equal(resp_parse_name(t, t->rctx, "alice", &dom, &name), EOK);
    assert_null(dom);
    assert_string_equal(name, "alice");
    assert_int_equal(resp_parse_name(t, t->rctx, "alice@fq", &dom, &name), EOK);
    assert_string_equal(dom->name, "fq");
    assert_string_equal(name, "alice");
    /* domain part without regard to case, split at the last '@' */
    assert_int_equal(resp_parse_name(t, t->rctx, "a@b@other.test", &dom, &name), EOK);
    assert_string_equal(dom->name, "Other.Test");
    assert_string_equal(name, "a@b");
    assert_int_equal(resp_parse_name(t, t->rctx, "alice@nowhere", &dom, &name), ENOENT);
    assert_int_equal(resp_parse_name(t, t->rctx, "alice@", &dom, &name), EINVAL);
    assert_int_equal(resp_parse_name(t, t->rctx, "@fq", &dom, &name), EINVAL);
    assert_int_equal(resp_parse_name(t, t->rctx, "", &dom, &name), EINVAL);
}

/* A trusted domain's names (b.test, flat name B, recorded in plain's cache): by DNS or flat
 * name after '@', or down-level "B\dave"; each gives plain and "dave@b.test". */
static void test_parse_trusted_names(void **state)
{
    struct test_ctx *t = *state;
    const char *forms[] = { "dave@b.test", "dave@B", "dave@B.TEST", "B\\dave", "b\\dave",
                            "b.test\\dave", NULL };
    struct sysdb_subdom sub = { .name = "b.test", .flat = "B", .sid = "S-1-5-21-1-2-3",
                                .direction = 3, .type = 2, .attributes = 8 };
    struct sysdb_ctx *sysdb;
    struct resp_domain *dom;
    char *name;
    size_t i;

    assert_int_equal(resp_domain_sysdb(t->rctx, &t->rctx->domains[0], &sysdb), EOK);
    assert_int_equal(sysdb_subdom_replace(sysdb, &sub, 1), EOK);
    for (i = 0; forms[i] != NULL; i++) {
        dom = NULL;
        assert_int_equal(resp_parse_name(t, t->rctx, forms[i], &dom, &name), EOK);
        assert_ptr_equal(dom, &t->rctx->domains[0]);
        assert_string_equal(name, "dave@b.test");
    }
    /* not a trusted domain: a short name as it is written */
    assert_int_equal(resp_parse_name(t, t->rctx, "C\\dave", &dom, &name), EOK);
    assert_null(dom);
    assert_string_equal(name, "C\\dave");
    assert_int_equal(resp_parse_name(t, t->rctx, "B\\", &dom, &name), EOK);
    assert_string_equal(name, "B\\");
    assert_int_equal(resp_parse_name(t, t->rctx, "\\dave", &dom, &name), EOK);
    assert_string_equal(name, "\\dave");
    assert_int_equal(resp_parse_name(t, t->rctx, "dave@C", &dom, &name), ENOENT);
}

/* A trusted domain that is a configured domain too (plain records other.test, flat name O):
 * its names go to other.test's own back-end in every form, as "dave@other.test" does; a
 * configured domain before '\\' names that domain. */
static void test_parse_configured_trusted(void **state)
{
    struct test_ctx *t = *state;
    const char *forms[] = { "other.test\\dave", "O\\dave", "dave@O", "dave@other.test",
                            NULL };
    struct sysdb_subdom sub = { .name = "other.test", .flat = "O", .sid = "S-1-5-21-1-2-4",
                                .direction = 3, .type = 2, .attributes = 8 };
    struct sysdb_ctx *sysdb;
    struct resp_domain *dom;
    char *name;
    size_t i;

    assert_int_equal(resp_domain_sysdb(t->rctx, &t->rctx->domains[0], &sysdb), EOK);
    assert_int_equal(sysdb_subdom_replace(sysdb, &sub, 1), EOK);
    for (i = 0; forms[i] != NULL; i++) {
        dom = NULL;
        assert_int_equal(resp_parse_name(t, t->rctx, forms[i], &dom, &name), EOK);
        assert_ptr_equal(dom, &t->rctx->domains[2]);
        assert_string_equal(name, "dave");
    }
    assert_int_equal(resp_parse_name(t, t->rctx, "fq\\dave", &dom, &name), EOK);
    assert_ptr_equal(dom, &t->rctx->domains[1]);
    assert_string_equal(name, "dave");
}

/* A trusted domain's user or group member is printed "dave@b.test" as stored, never with
 * the trusting domain's full_name_format (fq) or default_domain_suffix (plain) around it. */
static void test_output_trusted_names(void **state)
{
    struct test_ctx *t = *state;
    struct sysdb_subdom sub = { .name = "b.test", .flat = "B", .sid = "S-1-5-21-1-2-3",
                                .direction = 3, .type = 2, .attributes = 8 };
    const char *members[] = { "dave@b.test", "alice", NULL };
    struct sysdb_group sg = { .name = "staff@b.test", .gid = 502, .members = members };
    struct sysdb_ctx *sysdb;
    struct sysdb_group *g;
    struct nss_gr_entry gr;
    char *s;

    assert_int_equal(resp_domain_sysdb(t->rctx, &t->rctx->domains[1], &sysdb), EOK);
    assert_int_equal(sysdb_subdom_replace(sysdb, &sub, 1), EOK);
    s = resp_output_name(t, t->rctx, &t->rctx->domains[1], "dave@b.test");
    assert_string_equal(s, "dave@b.test");
    s = resp_output_name(t, t->rctx, &t->rctx->domains[1], "x@c.test");
    assert_string_equal(s, "fq+x@c.test");
    assert_int_equal(sysdb_store_group(sysdb, &sg, true, time(NULL), 100), EOK);
    assert_int_equal(sysdb_get_group_by_name(t, sysdb, "staff@b.test", &g), EOK);
    assert_int_equal(nss_format_gr(t, t->nctx->fmt, t->rctx, &t->rctx->domains[1], g, &gr),
                     EOK);
    assert_string_equal(gr.name, "staff@b.test");
    assert_string_equal(gr.members[0], "dave@b.test");
    assert_string_equal(gr.members[1], "fq+alice");

    talloc_free(t->nctx);
    talloc_free(t->rctx);
    talloc_free(t->cdb);
    make_ctx(t, CONF_HEAD "default_domain_suffix = plain\n" CONF_DOMS);
    assert_int_equal(resp_domain_sysdb(t->rctx, &t->rctx->domains[0], &sysdb), EOK);
    assert_int_equal(sysdb_subdom_replace(sysdb, &sub, 1), EOK);
    s = resp_output_name(t, t->rctx, &t->rctx->domains[0], "dave@b.test");
    assert_string_equal(s, "dave@b.test");
    s = resp_output_name(t, t->rctx, &t->rctx->domains[0], "alice");
    assert_string_equal(s, "alice@plain");
}

static void test_default_domain_suffix(void **state)
{
    struct test_ctx *t = *state;
    struct resp_domain *dom;
    char *name;

    talloc_free(t->nctx);
    talloc_free(t->rctx);
    talloc_free(t->cdb);
    make_ctx(t, CONF_HEAD "default_domain_suffix = plain\n" CONF_DOMS);
    assert_int_equal(resp_parse_name(t, t->rctx, "alice", &dom, &name), EOK);
    assert_string_equal(dom->name, "plain");
    assert_true(t->rctx->output_fqnames);
    name = resp_output_name(t, t->rctx, dom, "alice");
    assert_string_equal(name, "alice@plain");
}

static void test_output_names(void **state)
{
    struct test_ctx *t = *state;
    char *s;

    s = resp_output_name(t, t->rctx, &t->rctx->domains[0], "alice");
    assert_string_equal(s, "alice");
    assert_true(t->rctx->domains[1].fqnames);
    s = resp_output_name(t, t->rctx, &t->rctx->domains[1], "alice");
    assert_string_equal(s, "fq+alice");
    s = resp_format_fqname(t, "%1$s@%2$s", "bob", "dom");
    assert_string_equal(s, "bob@dom");
    s = resp_format_fqname(t, "%%%3$s:%1$s%", "bob", "dom");
    assert_string_equal(s, "%dom:bob%");
}

static void test_filter_lists(void **state)
{
    struct test_ctx *t = *state;
    char *list[] = { "root", "joe@plain", "Mixed", NULL };

    assert_true(resp_name_in_list(&t->rctx->domains[0], list, "root"));
    assert_true(resp_name_in_list(&t->rctx->domains[0], list, "joe"));
    assert_false(resp_name_in_list(&t->rctx->domains[1], list, "joe"));
    assert_false(resp_name_in_list(&t->rctx->domains[0], list, "mixed"));
    assert_true(resp_name_in_list(&t->rctx->domains[2], list, "mixed"));
    /* [nss] filter_users default is root */
    assert_true(resp_user_is_filtered(t->rctx, &t->rctx->domains[0], "root"));
    assert_false(resp_user_is_filtered(t->rctx, &t->rctx->domains[0], "alice"));
    assert_true(resp_group_is_filtered(t->rctx, &t->rctx->domains[0], "root"));
}

/* The prepared filter (big member lists) answers as resp_user_is_filtered() does. */
static void test_prepared_filter(void **state)
{
    struct test_ctx *t = *state;
    char *list[] = { "root", "joe@plain", "Mixed", "ann@FQ", NULL };
    const char *names[] = { "root", "joe", "mixed", "Mixed", "ann", "roo", "rootx", "" };
    struct resp_name_filter *f;
    char **saved;
    size_t d;
    size_t i;

    for (d = 0; d < 3; d++) {
        saved = t->rctx->domains[d].filter_users;
        t->rctx->domains[d].filter_users = list;
        f = resp_user_filter_prepare(t, t->rctx, &t->rctx->domains[d]);
        assert_non_null(f);
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            assert_int_equal(resp_name_filter_match(f, names[i], strlen(names[i])),
                             resp_user_is_filtered(t->rctx, &t->rctx->domains[d], names[i]));
        }
        /* the length decides, not a NUL: "rootx" cut to 4 bytes is root */
        assert_true(resp_name_filter_match(f, "rootx", 4));
        t->rctx->domains[d].filter_users = saved;
    }
}

/* ---- formatting ---- */

static void test_homedir_templates(void **state)
{
    struct test_ctx *t = *state;
    struct nss_dom_format df = { 0 };
    char *s;

    s = nss_expand_homedir(t, "/home/%d/%l/%u-%U/%f/%H/%o/100%%/%x", "alice", 1001, "dom",
                           "/old", "/srv");
    assert_string_equal(s, "/home/dom/a/alice-1001/alice@dom//srv//old/100%/%x");
    /* stored, else fallback */
    df.fallback_homedir = "/home/%u";
    df.homedir_substring = "/export";
    s = nss_user_homedir(t, &df, "alice", 1, "dom", "%H/alice");
    assert_string_equal(s, "/export/alice");
    s = nss_user_homedir(t, &df, "alice", 1, "dom", NULL);
    assert_string_equal(s, "/home/alice");
    df.override_homedir = "/o/%u";
    s = nss_user_homedir(t, &df, "alice", 1, "dom", "/stored");
    assert_string_equal(s, "/o/alice");
    df.override_homedir = NULL;
    df.fallback_homedir = NULL;
    s = nss_user_homedir(t, &df, "alice", 1, "dom", "");
    assert_string_equal(s, "");
}

static void test_shells(void **state)
{
    struct test_ctx *t = *state;
    struct nss_format_opts *o = t->nctx->fmt;
    struct nss_dom_format df = { 0 };
    char *etc[] = { "/bin/bash", "/bin/sh", NULL };
    char *allowed[] = { "/bin/zsh", NULL };
    char *star[] = { "*", NULL };
    char *vetoed[] = { "/bin/csh", NULL };
    char *none[] = { NULL };

    o->etc_shells = etc;
    o->allowed_shells = none;
    o->vetoed_shells = none;
    /* no lists: as stored */
    assert_string_equal(nss_user_shell(o, &df, "/opt/weird"), "/opt/weird");
    assert_string_equal(nss_user_shell(o, &df, NULL), "");
    df.default_shell = "/bin/def";
    assert_string_equal(nss_user_shell(o, &df, ""), "/bin/def");
    o->allowed_shells = allowed;
    o->vetoed_shells = vetoed;
    assert_string_equal(nss_user_shell(o, &df, "/bin/bash"), "/bin/bash");
    assert_string_equal(nss_user_shell(o, &df, "/bin/csh"), "/bin/sh");
    assert_string_equal(nss_user_shell(o, &df, "/bin/zsh"), "/bin/sh");
    assert_string_equal(nss_user_shell(o, &df, "/opt/weird"), NSS_NOLOGIN_SHELL);
    o->allowed_shells = star;
    assert_string_equal(nss_user_shell(o, &df, "/opt/weird"), "/opt/weird");
    df.override_shell = "/bin/over";
    assert_string_equal(nss_user_shell(o, &df, "/bin/bash"), "/bin/over");
    o->etc_shells = none;
    o->allowed_shells = none;
    o->vetoed_shells = none;
}

static void store(struct test_ctx *t, int d, const char *name, uint32_t id)
{
    struct sysdb_ctx *sysdb;
    struct sysdb_user u = { .name = name, .uid = id, .gid = id, .home = "/h",
                            .shell = "/bin/sh" };

    assert_int_equal(resp_domain_sysdb(t->rctx, &t->rctx->domains[d], &sysdb), EOK);
    assert_int_equal(sysdb_store_user(sysdb, &u, time(NULL), 100), EOK);
}

static void test_format_records(void **state)
{
    struct test_ctx *t = *state;
    struct sysdb_ctx *sysdb;
    struct sysdb_user *u;
    struct sysdb_group *g;
    struct nss_pw_entry pw;
    struct nss_gr_entry gr;
    const char *members[] = { "alice", "root", "bob", NULL };
    struct sysdb_group sg = { .name = "devs", .gid = 500, .members = members };

    store(t, 1, "alice", 10);
    store(t, 1, "bob", 11);
    store(t, 1, "root", 12);
    assert_int_equal(resp_domain_sysdb(t->rctx, &t->rctx->domains[1], &sysdb), EOK);
    assert_int_equal(sysdb_store_group(sysdb, &sg, true, time(NULL), 100), EOK);
    assert_int_equal(sysdb_get_user_by_name(t, sysdb, "alice", &u), EOK);
    assert_int_equal(nss_format_pw(t, t->nctx->fmt, t->rctx, &t->rctx->domains[1], u, &pw),
                     EOK);
    assert_string_equal(pw.name, "fq+alice");
    assert_string_equal(pw.gecos, "");
    assert_string_equal(pw.dir, "/h");
    assert_string_equal(pw.shell, "/bin/sh");
    assert_int_equal(sysdb_get_group_by_name(t, sysdb, "devs", &g), EOK);
    assert_int_equal(nss_format_gr(t, t->nctx->fmt, t->rctx, &t->rctx->domains[1], g, &gr),
                     EOK);
    assert_string_equal(gr.name, "fq+devs");
    /* root is filtered out of member lists (filter_users_in_groups = true) */
    assert_int_equal(gr.num_members, 2);
    assert_string_equal(gr.members[0], "fq+alice");
    assert_string_equal(gr.members[1], "fq+bob");
    t->nctx->fmt->filter_users_in_groups = false;
    assert_int_equal(nss_format_gr(t, t->nctx->fmt, t->rctx, &t->rctx->domains[1], g, &gr),
                     EOK);
    assert_int_equal(gr.num_members, 3);
    t->nctx->fmt->filter_users_in_groups = true;
}

/* A gecos, home or shell holding ':' or a line break is answered with spaces in their
 * place: it never splits a passwd line or starts another one. */
static void test_format_unsafe_fields(void **state)
{
    struct test_ctx *t = *state;
    struct sysdb_ctx *sysdb;
    struct sysdb_user *u;
    struct nss_pw_entry pw;
    struct sysdb_user su = { .name = "mallory", .uid = 40, .gid = 40,
                             .gecos = "Smith, Jane:Engineering\r\n",
                             .home = "/home/m:x", .shell = "/bin/sh\nroot::0:0::/:/bin/sh" };
    const char *plain;

    assert_int_equal(resp_domain_sysdb(t->rctx, &t->rctx->domains[0], &sysdb), EOK);
    assert_int_equal(sysdb_store_user(sysdb, &su, time(NULL), 100), EOK);
    assert_int_equal(sysdb_get_user_by_name(t, sysdb, "mallory", &u), EOK);
    assert_int_equal(nss_format_pw(t, t->nctx->fmt, t->rctx, &t->rctx->domains[0], u, &pw),
                     EOK);
    assert_string_equal(pw.gecos, "Smith, Jane Engineering  ");
    assert_string_equal(pw.dir, "/home/m x");
    assert_string_equal(pw.shell, "/bin/sh root  0 0  / /bin/sh");
    /* clean fields are used as they are, not copied */
    store(t, 0, "plain", 41);
    assert_int_equal(sysdb_get_user_by_name(t, sysdb, "plain", &u), EOK);
    plain = u->shell;
    assert_int_equal(nss_format_pw(t, t->nctx->fmt, t->rctx, &t->rctx->domains[0], u, &pw),
                     EOK);
    assert_ptr_equal(pw.shell, plain);
}

/* A trusted domain's user (stored "dave@b.test", b.test recorded as trusted): the home
 * directory templates see b.test as %d and dave as %u; another name holding '@' keeps the
 * configured domain and its whole name. */
static void test_format_trusted_homedir(void **state)
{
    struct test_ctx *t = *state;
    struct nss_dom_format *df = &t->nctx->fmt->dom[0];
    struct sysdb_ctx *sysdb;
    struct sysdb_user *u;
    struct nss_pw_entry pw;
    struct sysdb_subdom sub = { .name = "b.test", .flat = "B", .sid = "S-1-5-21-1-2-3",
                                .direction = 3, .type = 2, .attributes = 8 };
    struct sysdb_user dave = { .name = "dave@b.test", .uid = 50, .gid = 50 };
    struct sysdb_user mail = { .name = "x@c.test", .uid = 51, .gid = 51 };

    df->fallback_homedir = "/home/%d/%u";
    assert_int_equal(resp_domain_sysdb(t->rctx, &t->rctx->domains[0], &sysdb), EOK);
    assert_int_equal(sysdb_subdom_replace(sysdb, &sub, 1), EOK);
    assert_int_equal(sysdb_store_user(sysdb, &dave, time(NULL), 100), EOK);
    assert_int_equal(sysdb_store_user(sysdb, &mail, time(NULL), 100), EOK);
    assert_int_equal(sysdb_get_user_by_name(t, sysdb, "dave@b.test", &u), EOK);
    assert_int_equal(nss_format_pw(t, t->nctx->fmt, t->rctx, &t->rctx->domains[0], u, &pw),
                     EOK);
    assert_string_equal(pw.name, "dave@b.test");
    assert_string_equal(pw.dir, "/home/b.test/dave");
    df->fallback_homedir = "/h/%f";
    assert_int_equal(nss_format_pw(t, t->nctx->fmt, t->rctx, &t->rctx->domains[0], u, &pw),
                     EOK);
    assert_string_equal(pw.dir, "/h/dave@b.test");
    /* override_homedir of the trusting domain applies too */
    df->override_homedir = "/o/%d/%u";
    assert_int_equal(nss_format_pw(t, t->nctx->fmt, t->rctx, &t->rctx->domains[0], u, &pw),
                     EOK);
    assert_string_equal(pw.dir, "/o/b.test/dave");
    df->override_homedir = NULL;
    df->fallback_homedir = "/home/%d/%u";
    assert_int_equal(sysdb_get_user_by_name(t, sysdb, "x@c.test", &u), EOK);
    assert_int_equal(nss_format_pw(t, t->nctx->fmt, t->rctx, &t->rctx->domains[0], u, &pw),
                     EOK);
    assert_string_equal(pw.dir, "/home/plain/x@c.test");
    df->fallback_homedir = NULL;
}

/* Short output names: the domain suffix is cut from each member, filtered ones dropped. */
static void test_format_group_short(void **state)
{
    struct test_ctx *t = *state;
    struct sysdb_ctx *sysdb;
    struct sysdb_group *g;
    struct nss_gr_entry gr;
    const char *members[] = { "alice", "root", "bob", NULL };
    struct sysdb_group sg = { .name = "ops", .gid = 501, .members = members };

    assert_false(t->rctx->domains[0].fqnames);
    assert_int_equal(resp_domain_sysdb(t->rctx, &t->rctx->domains[0], &sysdb), EOK);
    assert_int_equal(sysdb_store_group(sysdb, &sg, true, time(NULL), 100), EOK);
    assert_int_equal(sysdb_get_group_by_name(t, sysdb, "ops", &g), EOK);
    assert_int_equal(nss_format_gr(t, t->nctx->fmt, t->rctx, &t->rctx->domains[0], g, &gr),
                     EOK);
    assert_string_equal(gr.name, "ops");
    assert_int_equal(gr.num_members, 2);
    assert_string_equal(gr.members[0], "alice");
    assert_string_equal(gr.members[1], "bob");
    assert_null(gr.members[2]);
    /* the packed form is what the wire and the memory cache hold: "alice\0bob\0" */
    assert_int_equal(gr.packed_len, 10);
    assert_memory_equal(gr.packed, "alice\0bob\0", 10);
}

/* ---- negative cache ---- */

static void test_negcache(void **state)
{
    struct test_ctx *t = *state;
    struct resp_ncache *nc;

    assert_int_equal(resp_ncache_create(t, 15, &nc), EOK);
    resp_ncache_set_clock(nc, fake_clock);
    fake_now = 1000;
    assert_false(resp_ncache_check_name(nc, RESP_NCACHE_USER, "d", "x"));
    assert_int_equal(resp_ncache_add_name(nc, RESP_NCACHE_USER, "d", "x"), EOK);
    assert_int_equal(resp_ncache_add_id(nc, RESP_NCACHE_GROUP, "d", 77), EOK);
    assert_true(resp_ncache_check_name(nc, RESP_NCACHE_USER, "d", "x"));
    assert_false(resp_ncache_check_name(nc, RESP_NCACHE_GROUP, "d", "x"));
    assert_false(resp_ncache_check_name(nc, RESP_NCACHE_USER, "e", "x"));
    assert_true(resp_ncache_check_id(nc, RESP_NCACHE_GROUP, "d", 77));
    assert_false(resp_ncache_check_id(nc, RESP_NCACHE_USER, "d", 77));
    fake_now = 1014;
    assert_true(resp_ncache_check_name(nc, RESP_NCACHE_USER, "d", "x"));
    fake_now = 1015;
    assert_false(resp_ncache_check_name(nc, RESP_NCACHE_USER, "d", "x"));
    assert_int_equal(resp_ncache_count(nc, RESP_NCACHE_USER), 0);
    /* reset by type */
    assert_int_equal(resp_ncache_add_name(nc, RESP_NCACHE_USER, "d", "y"), EOK);
    assert_int_equal(resp_ncache_add_name(nc, RESP_NCACHE_GROUP, "d", "g"), EOK);
    resp_ncache_reset(nc, RESP_NCACHE_USER);
    assert_false(resp_ncache_check_name(nc, RESP_NCACHE_USER, "d", "y"));
    assert_true(resp_ncache_check_name(nc, RESP_NCACHE_GROUP, "d", "g"));
    resp_ncache_reset(nc, RESP_NCACHE_GROUP);
    assert_int_equal(resp_ncache_count(nc, RESP_NCACHE_GROUP), 0);
    talloc_free(nc);
    /* timeout 0 disables it */
    assert_int_equal(resp_ncache_create(t, 0, &nc), EOK);
    assert_int_equal(resp_ncache_add_name(nc, RESP_NCACHE_USER, "d", "x"), EOK);
    assert_false(resp_ncache_check_name(nc, RESP_NCACHE_USER, "d", "x"));
    talloc_free(nc);
}

/* Keys that print alike are different entries; entries nobody asks about again are swept
 * as the cache grows, so a stream of distinct misses does not pile up. */
static void test_negcache_keys_and_sweep(void **state)
{
    struct test_ctx *t = *state;
    struct resp_ncache *nc;
    char name[32];
    size_t peak = 0;
    size_t blocks;
    int round;
    int i;

    assert_int_equal(resp_ncache_create(t, 10, &nc), EOK);
    resp_ncache_set_clock(nc, fake_clock);
    fake_now = 1000;
    assert_int_equal(resp_ncache_add_name(nc, RESP_NCACHE_USER, "ab", "c"), EOK);
    assert_false(resp_ncache_check_name(nc, RESP_NCACHE_USER, "a", "bc"));
    assert_false(resp_ncache_check_id(nc, RESP_NCACHE_USER, "ab", 0));
    assert_int_equal(resp_ncache_add_name(nc, RESP_NCACHE_USER, "d", "12"), EOK);
    assert_false(resp_ncache_check_id(nc, RESP_NCACHE_USER, "d", 12));
    /* an add renews an entry */
    fake_now = 1009;
    assert_int_equal(resp_ncache_add_name(nc, RESP_NCACHE_USER, "ab", "c"), EOK);
    fake_now = 1015;
    assert_true(resp_ncache_check_name(nc, RESP_NCACHE_USER, "ab", "c"));
    assert_false(resp_ncache_check_name(nc, RESP_NCACHE_USER, "d", "12"));
    resp_ncache_reset(nc, RESP_NCACHE_USER);

    /* 50 rounds of 100 distinct misses, each round a timeout after the one before */
    for (round = 0; round < 50; round++) {
        for (i = 0; i < 100; i++) {
            snprintf(name, sizeof(name), "gone%d.%d", round, i);
            assert_int_equal(resp_ncache_add_name(nc, RESP_NCACHE_USER, "d", name), EOK);
        }
        assert_int_equal(resp_ncache_count(nc, RESP_NCACHE_USER), 100);
        blocks = talloc_total_blocks(nc);
        peak = blocks > peak ? blocks : peak;
        fake_now += 10;
    }
    /* the table and its arrays, and at most a few hundred entries */
    assert_true(peak < 300);
    talloc_free(nc);
}

/* ---- enumeration cursor ---- */

static uint32_t reply_count(struct test_ctx *t, struct nss_reply *r)
{
    uint32_t n = nss_reply_num_results(r);

    talloc_free(nss_reply_finish(t, r));
    return n;
}

/* A cursor on the current snapshot (built in loop steps). */
static struct nss_enum_cursor *cursor(struct test_ctx *t, bool pw)
{
    struct nss_enum_cursor *cur = NULL;
    struct tevent_req *req;

    req = nss_enum_cursor_send(t, t->ev, t->nctx, pw);
    assert_non_null(req);
    tc_wait_req(t->ev, req);
    assert_int_equal(nss_enum_cursor_recv(t, req, &cur), EOK);
    talloc_free(req);
    return cur;
}

static uint32_t fill(struct test_ctx *t, struct nss_enum_cursor *cur, bool pw, uint32_t n)
{
    struct nss_reply *r = nss_reply_new(t, pw ? SSS_NSS_GETPWENT : SSS_NSS_GETGRENT, "*");

    assert_int_equal(nss_enum_fill(t->nctx, cur, n, r), EOK);
    return reply_count(t, r);
}

static void test_enum_cursor(void **state)
{
    struct test_ctx *t = *state;
    struct nss_enum_cursor *c1, *c2;
    char name[16];
    int i;

    /* plain (enumerate) 5 users + root (filtered); fq (no enumerate) 3; Other.Test 2 */
    for (i = 0; i < 5; i++) {
        snprintf(name, sizeof(name), "u%d", i);
        store(t, 0, name, 100 + (uint32_t)i);
    }
    store(t, 0, "root", 99);
    for (i = 0; i < 3; i++) {
        snprintf(name, sizeof(name), "f%d", i);
        store(t, 1, name, 200 + (uint32_t)i);
    }
    store(t, 2, "o1", 301);
    store(t, 2, "o2", 302);

    c1 = cursor(t, true);
    assert_int_equal(nss_enum_cursor_left(c1), 7);
    assert_int_equal(fill(t, c1, true, 3), 3);
    assert_int_equal(fill(t, c1, true, 4), 4);
    /* the end: empty replies */
    assert_int_equal(fill(t, c1, true, 256), 0);
    /* another client, nothing changed: the same snapshot, from its start */
    c2 = cursor(t, true);
    assert_true(nss_enum_cursor_same(c1, c2));
    assert_int_equal(fill(t, c2, true, 0), 0);
    assert_int_equal(fill(t, c2, true, 7), 7);
    talloc_free(c2);
    /* groups: none cached */
    c2 = cursor(t, false);
    assert_int_equal(nss_enum_cursor_left(c2), 0);
    talloc_free(c2);
    talloc_free(c1);
}

/* GET*ENT replies are capped (count and bytes); a changed cache gives a new snapshot; at
 * most NSS_ENUM_MAX_SNAPS live, the oldest retired (its holder sees the end). */
static void test_enum_bounds(void **state)
{
    struct test_ctx *t = *state;
    struct nss_enum_cursor *held[NSS_ENUM_MAX_SNAPS + 1];
    struct nss_enum_cursor *c;
    struct sysdb_ctx *sysdb;
    const char **members;
    char name[32];
    int i, g;

    for (i = 0; i < 600; i++) {
        snprintf(name, sizeof(name), "user%03d", i);
        store(t, 0, name, 1000 + (uint32_t)i);
    }
    c = cursor(t, true);
    assert_int_equal(nss_enum_cursor_left(c), 600);
    assert_int_equal(fill(t, c, true, 100000), NSS_ENUM_MAX_PER_REPLY);
    assert_int_equal(fill(t, c, true, UINT32_MAX), NSS_ENUM_MAX_PER_REPLY);
    assert_int_equal(fill(t, c, true, 100000), 600 - 2 * NSS_ENUM_MAX_PER_REPLY);
    talloc_free(c);

    /* big groups: a reply stops past the byte bound, with at least one group */
    members = talloc_zero_array(t, const char *, 30001);
    for (i = 0; i < 30000; i++) {
        members[i] = talloc_asprintf(members, "m%05d", i);
    }
    assert_int_equal(resp_domain_sysdb(t->rctx, &t->rctx->domains[2], &sysdb), EOK);
    for (g = 0; g < 8; g++) {
        struct sysdb_group sg = { .gid = 7000 + (uint32_t)g, .members = members };

        snprintf(name, sizeof(name), "big%d", g);
        sg.name = name;
        assert_int_equal(sysdb_store_group(sysdb, &sg, true, time(NULL), 100), EOK);
    }
    talloc_free(members);
    c = cursor(t, false);
    assert_int_equal(nss_enum_cursor_left(c), 8);
    i = (int)fill(t, c, false, 256);
    assert_true(i >= 1 && i < 8);       /* ~210 KB each, 1 MiB a reply */
    talloc_free(c);

    /* each change of the cache gives a new snapshot (no minimum age in this test) */
    for (i = 0; i <= NSS_ENUM_MAX_SNAPS; i++) {
        snprintf(name, sizeof(name), "later%d", i);
        store(t, 0, name, 2000 + (uint32_t)i);
        held[i] = cursor(t, true);
        assert_int_equal(nss_enum_cursor_left(held[i]), 601 + (size_t)i);
        if (i > 0) {
            assert_false(nss_enum_cursor_same(held[i - 1], held[i]));
        }
    }
    /* the oldest was retired: its holder is at the end; the others walk on */
    assert_int_equal(nss_enum_cursor_left(held[0]), 0);
    assert_int_equal(fill(t, held[0], true, 10), 0);
    assert_int_equal(fill(t, held[1], true, 10), 10);
    for (i = 0; i <= NSS_ENUM_MAX_SNAPS; i++) {
        talloc_free(held[i]);
    }
}

/* ldb loads its modules once per process, on the NULL context: do it before baselines. */
static void warm_up_ldb(void)
{
    char *dir = tc_tmpdir(NULL, "test_warmup");
    struct sysdb_ctx *sysdb;

    assert_int_equal(sysdb_open(NULL, dir, "warmup", SYSDB_CASE_SENSITIVE, &sysdb), EOK);
    talloc_free(sysdb);
    tc_tmpdir_remove(dir);
    talloc_free(dir);
}

/* ---- netgroups (nss_netgr.c) ---- */

/* A cache_req result for the netgroup as the cache of domain 0 holds it now. */
static struct cache_req_result *netgr_result(struct test_ctx *t, const char *name)
{
    struct cache_req_result *res = talloc_zero(t, struct cache_req_result);
    struct resp_domain *dom = &t->rctx->domains[0];
    struct sysdb_ctx *sysdb;

    assert_non_null(res);
    assert_int_equal(resp_domain_sysdb(t->rctx, dom, &sysdb), EOK);
    res->domain = dom;
    res->source = CACHE_REQ_SRC_CACHE;
    res->gen = sysdb_rcache_gen(sysdb);
    assert_int_equal(sysdb_get_netgroup(res, sysdb, name, &res->netgroup), EOK);
    res->expire = res->netgroup->expire;
    return res;
}

static void netgr_store(struct test_ctx *t, const char *name, const char **triples,
                        const char **members)
{
    struct sysdb_netgroup ng = { .name = name, .triples = triples, .members = members };
    struct sysdb_ctx *sysdb;

    assert_int_equal(resp_domain_sysdb(t->rctx, &t->rctx->domains[0], &sysdb), EOK);
    assert_int_equal(sysdb_store_netgroup(sysdb, &ng, time(NULL), 100), EOK);
}

/* Records: triples split (the malformed one left out), then members; fill honours the
 * position and the count; the memory answers until the cache changes or the entry
 * expires, and keeps at most NSS_NETGR_MEM_MAX netgroups. */
static void test_netgr_snapshots(void **state)
{
    struct test_ctx *t = *state;
    const char *triples[] = { "(h1, u1 ,d1)", "(,-,)", "bad", NULL };
    const char *members[] = { "ng2", NULL };
    struct nss_netgr_snap *snap;
    struct nss_reply *reply;
    struct cache_req_result *res;
    uint32_t pos = 0;
    char name[32];
    int i;

    netgr_store(t, "ng1", triples, members);
    res = netgr_result(t, "ng1");
    assert_true(res->gen != 0);     /* mdb: the memory can be used */
    assert_int_equal(nss_netgr_snap_build(t, "ng1", res, &snap), EOK);
    assert_int_equal(snap->num, 3);
    assert_string_equal(snap->recs[0].host, "h1");
    assert_string_equal(snap->recs[0].user, "u1");
    assert_string_equal(snap->recs[0].domain, "d1");
    assert_null(snap->recs[1].host);
    assert_string_equal(snap->recs[1].user, "-");
    assert_null(snap->recs[1].domain);
    assert_null(snap->recs[2].host);
    assert_string_equal(snap->recs[2].member, "ng2");

    reply = nss_reply_new(t, SSS_NSS_GETNETGRENT, NULL);
    assert_int_equal(nss_netgr_fill(snap, &pos, 2, reply), EOK);
    assert_int_equal(pos, 2);
    assert_int_equal(nss_reply_num_results(reply), 2);
    assert_int_equal(nss_netgr_fill(snap, &pos, 100, reply), EOK);
    assert_int_equal(pos, 3);
    assert_int_equal(nss_netgr_fill(snap, &pos, 100, reply), EOK);
    assert_int_equal(nss_reply_num_results(reply), 3);
    talloc_free(reply);

    /* remembered, then found; a write to the cache makes it stale */
    assert_ptr_equal(nss_netgr_mem_keep(t->nctx, snap), snap);
    assert_int_equal(nss_netgr_mem_count(t->nctx), 1);
    assert_ptr_equal(nss_netgr_mem_find(t->nctx, "ng1", time(NULL)), snap);
    assert_null(nss_netgr_mem_find(t->nctx, "ng2", time(NULL)));
    netgr_store(t, "other", triples, NULL);
    assert_null(nss_netgr_mem_find(t->nctx, "ng1", time(NULL)));
    assert_int_equal(nss_netgr_mem_count(t->nctx), 0);

    /* past the entry's expiry */
    talloc_free(res);
    res = netgr_result(t, "ng1");
    assert_int_equal(nss_netgr_snap_build(t, "ng1", res, &snap), EOK);
    nss_netgr_mem_keep(t->nctx, snap);
    assert_non_null(nss_netgr_mem_find(t->nctx, "ng1", time(NULL)));
    assert_null(nss_netgr_mem_find(t->nctx, "ng1", res->expire));

    /* an answer from an expired entry is never remembered */
    res->source = CACHE_REQ_SRC_STALE;
    assert_int_equal(nss_netgr_snap_build(t, "ng1", res, &snap), EOK);
    assert_ptr_equal(nss_netgr_mem_keep(t->nctx, snap), snap);
    assert_int_equal(nss_netgr_mem_count(t->nctx), 0);
    talloc_free(snap);

    /* bounded: the least recently used goes */
    res->source = CACHE_REQ_SRC_CACHE;
    for (i = 0; i <= NSS_NETGR_MEM_MAX; i++) {
        snprintf(name, sizeof(name), "k%d", i);
        assert_int_equal(nss_netgr_snap_build(t, name, res, &snap), EOK);
        nss_netgr_mem_keep(t->nctx, snap);
        if (i == 1) {
            assert_non_null(nss_netgr_mem_find(t->nctx, "k0", time(NULL)));    /* used */
        }
    }
    assert_int_equal(nss_netgr_mem_count(t->nctx), NSS_NETGR_MEM_MAX);
    assert_non_null(nss_netgr_mem_find(t->nctx, "k0", time(NULL)));
    assert_null(nss_netgr_mem_find(t->nctx, "k1", time(NULL)));
    nss_netgr_mem_forget(t->nctx, "k0");
    assert_int_equal(nss_netgr_mem_count(t->nctx), NSS_NETGR_MEM_MAX - 1);
    talloc_free(res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_parse_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_trusted_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_configured_trusted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_trusted_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_default_domain_suffix, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_filter_lists, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prepared_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_homedir_templates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shells, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_records, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_group_short, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_unsafe_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_trusted_homedir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_negcache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_negcache_keys_and_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_enum_cursor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_enum_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_netgr_snapshots, setup, teardown),
    };

    talloc_enable_null_tracking();
    talloc_free(tevent_context_init(NULL));
    warm_up_ldb();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
