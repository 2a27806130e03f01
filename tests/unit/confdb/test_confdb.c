/*
 * Unit tests of src/confdb: the INI syntax, typed lookups and their defaults, warnings with
 * suggestions, each kind of refused configuration and its message, loading files with
 * conf.d snippets and the ownership/mode check. Every test checks for talloc leaks, both
 * under its own context and on the NULL context the library uses for temporaries.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confdb/confdb_private.h"

/* Lines 1-7; text appended by a test starts on line 8. */
#define BASE \
    "[sssd]\n" \
    "services = nss, pam\n" \
    "domains = ldap.test\n" \
    "\n" \
    "[domain/ldap.test]\n" \
    "id_provider = ldap\n" \
    "ldap_uri = ldap://localhost\n"

#define DOM "domain/ldap.test"

struct test_ctx {
    TALLOC_CTX *mem;
    size_t null_blocks;
    char *dir;
};

static int setup(void **state)
{
    struct test_ctx *t = calloc(1, sizeof(*t));

    assert_non_null(t);
    t->null_blocks = talloc_total_blocks(NULL);
    t->mem = talloc_new(NULL);
    assert_non_null(t->mem);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct test_ctx *t = *state;

    /* Everything a test got back was freed: only the context itself is left. */
    assert_int_equal(talloc_total_blocks(t->mem), 1);
    talloc_free(t->mem);
    assert_int_equal(talloc_total_blocks(NULL), t->null_blocks);
    free(t);
    return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int setup_dir(void **state)
{
    struct test_ctx *t;
    char tmpl[] = "/tmp/test_confdb_XXXXXX";

    setup(state);
    t = *state;
    assert_non_null(mkdtemp(tmpl));
    t->dir = strdup(tmpl);
    assert_non_null(t->dir);
    return 0;
}

static int teardown_dir(void **state)
{
    struct test_ctx *t = *state;

    assert_int_equal(nftw(t->dir, rm_one, 8, FTW_DEPTH | FTW_PHYS), 0);
    free(t->dir);
    return teardown(state);
}

/* Writes dir/name with mode; returns the path (malloc'd). */
static char *write_file(const char *dir, const char *name, const char *text, mode_t mode)
{
    char *path;
    FILE *f;

    assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, mode), 0);
    return path;
}

static struct confdb *parse_ok(struct test_ctx *t, const char *text)
{
    struct confdb *cdb = NULL;
    char *err = NULL;
    errno_t ret;

    ret = confdb_parse_buffer(t->mem, "test.conf", text, strlen(text), &cdb, &err);
    if (ret != EOK) {
        fail_msg("unexpected error %d: %s", ret, err ? err : "(none)");
    }
    assert_null(err);
    assert_non_null(cdb);
    return cdb;
}

/* Parses text expecting ERR_INVALID_CONFIG; checks the message holds every given piece. */
static void parse_fails(struct test_ctx *t, const char *text, ...)
{
    struct confdb *cdb = NULL;
    char *err = NULL;
    const char *piece;
    errno_t ret;
    va_list ap;

    ret = confdb_parse_buffer(t->mem, "test.conf", text, strlen(text), &cdb, &err);
    assert_int_equal(ret, ERR_INVALID_CONFIG);
    assert_null(cdb);
    assert_non_null(err);
    assert_null(strchr(err, '\n'));
    va_start(ap, text);
    while ((piece = va_arg(ap, const char *)) != NULL) {
        if (strstr(err, piece) == NULL) {
            fail_msg("error '%s' does not contain '%s'", err, piece);
        }
    }
    va_end(ap);
    talloc_free(err);
}

static bool has_warning(struct confdb *cdb, const char *a, const char *b)
{
    const char *const *w = confdb_warnings(cdb);
    size_t i;

    for (i = 0; w[i] != NULL; i++) {
        if (strstr(w[i], a) != NULL && (b == NULL || strstr(w[i], b) != NULL)) {
            return true;
        }
    }
    return false;
}

static size_t num_warnings(struct confdb *cdb)
{
    const char *const *w = confdb_warnings(cdb);
    size_t i;

    for (i = 0; w[i] != NULL; i++) {
    }
    return i;
}

static void assert_str(struct confdb *cdb, const char *sec, const char *opt,
                       const char *expected)
{
    char *v = NULL;

    assert_int_equal(confdb_get_string(cdb, NULL, sec, opt, &v), EOK);
    if (expected == NULL) {
        assert_null(v);
    } else {
        assert_non_null(v);
        assert_string_equal(v, expected);
    }
    talloc_free(v);
}

static void assert_int_opt(struct confdb *cdb, const char *sec, const char *opt, int expected)
{
    int v = -12345;

    assert_int_equal(confdb_get_int(cdb, sec, opt, &v), EOK);
    assert_int_equal(v, expected);
}

static void assert_bool_opt(struct confdb *cdb, const char *sec, const char *opt, bool expected)
{
    bool v = !expected;

    assert_int_equal(confdb_get_bool(cdb, sec, opt, &v), EOK);
    assert_int_equal(v, expected);
}

/* Compares a list option with a NULL-terminated list of strings. */
static void assert_list(struct confdb *cdb, const char *sec, const char *opt, ...)
{
    char **list = NULL;
    const char *item;
    size_t i = 0;
    va_list ap;

    assert_int_equal(confdb_get_list(cdb, NULL, sec, opt, &list), EOK);
    assert_non_null(list);
    va_start(ap, opt);
    while ((item = va_arg(ap, const char *)) != NULL) {
        assert_non_null(list[i]);
        assert_string_equal(list[i], item);
        i++;
    }
    va_end(ap);
    assert_null(list[i]);
    talloc_free(list);
}

/* ---- the table itself ---- */

static void test_table_defaults_valid(void **state)
{
    struct test_ctx *t = *state;
    const struct confdb_option *opts;
    size_t count, i, j;

    opts = confdb_option_table(&count);
    assert_true(count > 200);
    for (i = 0; i < count; i++) {
        char *value = NULL;
        char *allowed = NULL;

        if (opts[i].def != NULL) {
            if (confdb_check_value(t->mem, &opts[i], opts[i].def, &value, &allowed) != EOK) {
                fail_msg("default '%s' of %s does not pass its own check: %s",
                         opts[i].def, opts[i].name, allowed);
            }
            assert_string_equal(value, opts[i].def);
            talloc_free(value);
        }
        if (opts[i].type == CONFDB_T_ENUM) {
            assert_non_null(opts[i].allowed);
        }
        if (opts[i].default_from != NULL) {
            assert_non_null(confdb_option_find(opts[i].default_from, opts[i].kinds));
        }
        /* One row per name and kind. */
        for (j = i + 1; j < count; j++) {
            if (strcmp(opts[i].name, opts[j].name) == 0) {
                assert_int_equal(opts[i].kinds & opts[j].kinds, 0);
            }
        }
    }
}

/* ---- lookups and defaults ---- */

static void test_defaults(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb = parse_ok(t, BASE);

    assert_int_equal(num_warnings(cdb), 0);
    assert_str(cdb, "sssd", "full_name_format", "%1$s@%2$s");
    assert_str(cdb, DOM, "full_name_format", NULL);
    assert_str(cdb, "sssd", "user", "root");
    assert_int_opt(cdb, "sssd", "reconnection_retries", 3);
    assert_int_opt(cdb, "sssd", "debug_level", 0x70);
    assert_int_opt(cdb, "nss", "entry_negative_timeout", 15);
    assert_int_opt(cdb, "nss", "memcache_timeout", 300);
    assert_int_opt(cdb, "nss", "memcache_size_passwd", 8);
    assert_int_opt(cdb, "nss", "memcache_size_group", 6);
    assert_int_opt(cdb, "nss", "memcache_size_initgroups", 10);
    assert_int_opt(cdb, "nss", "enum_cache_timeout", 120);
    assert_int_opt(cdb, "nss", "entry_cache_nowait_percentage", 50);
    assert_int_opt(cdb, "nss", "client_idle_timeout", 60);
    assert_str(cdb, "nss", "pwfield", "*");
    assert_str(cdb, "nss", "shell_fallback", "/bin/sh");
    assert_list(cdb, "nss", "filter_users", "root", NULL);
    assert_list(cdb, "nss", "filter_groups", "root", NULL);
    assert_int_opt(cdb, "pam", "offline_credentials_expiration", 0);
    assert_int_opt(cdb, "pam", "offline_failed_login_attempts", 0);
    assert_int_opt(cdb, "pam", "offline_failed_login_delay", 5);
    assert_int_opt(cdb, "pam", "pam_verbosity", 1);
    assert_int_opt(cdb, "pam", "pam_id_timeout", 5);
    assert_int_opt(cdb, "sudo", "sudo_threshold", 50);
    assert_bool_opt(cdb, "sudo", "sudo_timed", false);
    assert_bool_opt(cdb, DOM, "enumerate", false);
    assert_bool_opt(cdb, DOM, "cache_credentials", false);
    assert_int_opt(cdb, DOM, "entry_cache_timeout", 5400);
    assert_int_opt(cdb, DOM, "min_id", 1);
    assert_int_opt(cdb, DOM, "max_id", 0);
    assert_bool_opt(cdb, DOM, "use_fully_qualified_names", false);
    assert_str(cdb, DOM, "case_sensitive", "true");
    assert_bool_opt(cdb, DOM, "ignore_group_members", false);
    assert_int_opt(cdb, DOM, "offline_timeout", 60);
    assert_int_opt(cdb, DOM, "timeout", 10);
    assert_str(cdb, DOM, "ldap_schema", "rfc2307");
    assert_int_opt(cdb, DOM, "ldap_search_timeout", 6);
    assert_int_opt(cdb, DOM, "ldap_network_timeout", 6);
    assert_int_opt(cdb, DOM, "ldap_opt_timeout", 8);
    assert_bool_opt(cdb, DOM, "ldap_id_use_start_tls", false);
    assert_str(cdb, DOM, "ldap_tls_reqcert", "hard");
    assert_int_opt(cdb, DOM, "ldap_group_nesting_level", 2);
    assert_int_opt(cdb, DOM, "ldap_page_size", 1000);
    assert_bool_opt(cdb, DOM, "ldap_auth_disable_tls_never_use_in_production", false);
    assert_int_opt(cdb, DOM, "ldap_sudo_full_refresh_interval", 21600);
    assert_int_opt(cdb, DOM, "ldap_sudo_smart_refresh_interval", 900);
    assert_bool_opt(cdb, DOM, "ldap_id_mapping", false);
    assert_int_opt(cdb, DOM, "ldap_idmap_range_min", 200000);
    assert_int_opt(cdb, DOM, "ldap_idmap_range_max", 2000200000);
    assert_int_opt(cdb, DOM, "ldap_idmap_range_size", 200000);
    assert_int_opt(cdb, DOM, "ldap_enumeration_refresh_timeout", 300);
    assert_str(cdb, DOM, "ldap_default_authtok_type", "password");
    assert_list(cdb, DOM, "ldap_uri", "ldap://localhost", NULL);
    assert_list(cdb, DOM, "ldap_backup_uri", NULL);
    assert_str(cdb, DOM, "ldap_search_base", NULL);
    /* A domain without a section still answers with defaults. */
    assert_int_opt(cdb, "domain/other", "entry_cache_timeout", 5400);
    talloc_free(cdb);
}

static void test_types(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;
    uint32_t u = 0;

    cdb = parse_ok(t, BASE
                   "max_id =    4000000000   \n"
                   "ldap_search_base =   dc=example, dc=com  \n"
                   "entry_cache_timeout=-0\n"
                   "ldap_sasl_minssf = -1\n"
                   "ldap_default_bind_dn =\n"
                   "[nss]\n"
                   "entry_negative_timeout = +30\n"
                   "override_shell = /bin/bash\n");
    assert_int_equal(confdb_get_uint32(cdb, DOM, "max_id", &u), EOK);
    assert_int_equal(u, 4000000000u);
    {
        int i;
        assert_int_equal(confdb_get_int(cdb, DOM, "max_id", &i), ERANGE);
    }
    assert_str(cdb, DOM, "ldap_search_base", "dc=example, dc=com");
    assert_int_opt(cdb, DOM, "entry_cache_timeout", 0);
    assert_int_opt(cdb, DOM, "ldap_sasl_minssf", -1);
    assert_str(cdb, DOM, "ldap_default_bind_dn", "");
    assert_int_opt(cdb, "nss", "entry_negative_timeout", 30);
    assert_str(cdb, "nss", "override_shell", "/bin/bash");
    /* get_string works on any type and gives the text. */
    assert_str(cdb, "nss", "entry_negative_timeout", "+30");
    talloc_free(cdb);
}

static void test_lists(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;

    cdb = parse_ok(t, BASE
                   "ldap_backup_uri = ldap://a ,, ldap://b,   ,ldap://c,\n"
                   "simple_allow_users = ,\n"
                   "[nss]\n"
                   "filter_users = root,   bin , daemon\n"
                   "filter_groups =\n");
    assert_list(cdb, DOM, "ldap_backup_uri", "ldap://a", "ldap://b", "ldap://c", NULL);
    assert_list(cdb, DOM, "simple_allow_users", NULL);
    assert_list(cdb, "nss", "filter_users", "root", "bin", "daemon", NULL);
    /* Set to empty overrides the default "root". */
    assert_list(cdb, "nss", "filter_groups", NULL);
    /* A string option can be read as a list too. */
    assert_list(cdb, DOM, "ldap_uri", "ldap://localhost", NULL);
    talloc_free(cdb);
}

static void test_booleans(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;

    cdb = parse_ok(t, BASE
                   "enumerate = TRUE\n"
                   "cache_credentials = yes\n"
                   "ldap_id_use_start_tls = 1\n"
                   "ldap_referrals = No\n"
                   "ldap_id_mapping = 0\n"
                   "ignore_group_members = FaLsE\n"
                   "krb5_validate = Yes\n");
    assert_bool_opt(cdb, DOM, "enumerate", true);
    assert_bool_opt(cdb, DOM, "cache_credentials", true);
    assert_bool_opt(cdb, DOM, "ldap_id_use_start_tls", true);
    assert_bool_opt(cdb, DOM, "ldap_referrals", false);
    assert_bool_opt(cdb, DOM, "ldap_id_mapping", false);
    assert_bool_opt(cdb, DOM, "ignore_group_members", false);
    assert_bool_opt(cdb, DOM, "krb5_validate", true);
    talloc_free(cdb);

    parse_fails(t, BASE "enumerate = maybe\n", "test.conf:8", "'maybe'", "'enumerate'",
                "[domain/ldap.test]", "true or false", NULL);
    parse_fails(t, BASE "enumerate = 2\n", "test.conf:8", "'2'", NULL);
}

static void test_hex_debug_level(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;

    cdb = parse_ok(t, "[sssd]\ndomains = d\ndebug_level = 0x3ff0\n"
                   "[nss]\ndebug_level = 9\n"
                   "[pam]\ndebug_level = 0X00F0\n"
                   "[domain/d]\nid_provider = files\ndebug_level=0xFFFFF\n");
    assert_int_opt(cdb, "sssd", "debug_level", 0x3ff0);
    assert_int_opt(cdb, "nss", "debug_level", 9);
    assert_int_opt(cdb, "pam", "debug_level", 0xf0);
    assert_int_opt(cdb, "domain/d", "debug_level", 0xFFFFF);
    assert_int_opt(cdb, "sudo", "debug_level", 0x70);
    talloc_free(cdb);

    parse_fails(t, BASE "[nss]\ndebug_level = 0x\n", "test.conf:9", "'0x'", NULL);
    parse_fails(t, BASE "[nss]\ndebug_level = 0x0x10\n", "'0x0x10'", NULL);
    parse_fails(t, BASE "[nss]\ndebug_level = 0x100000\n", "'0x100000'",
                "from 0 to 1048575", NULL);
    parse_fails(t, BASE "[nss]\ndebug_level = 99999999999999999999999\n",
                "'99999999999999999999999'", "'debug_level'", NULL);
    parse_fails(t, BASE "[nss]\ndebug_level = 3 \t# verbose\n", "'3 \\x09# verbose'", NULL);
}

static void test_crlf(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;
    const char *text =
        "[sssd]\r\n"
        "domains = ldap.test\r\n"
        "services = nss\r\n"
        "\r\n"
        "[domain/ldap.test]\r\n"
        "id_provider = ldap\r\n"
        "ldap_uri = ldap://x\r\n"
        "enumerate = true\r\n"
        "[nss]\r\n"
        "memcache_timeout = 600";

    cdb = parse_ok(t, text);
    assert_list(cdb, DOM, "ldap_uri", "ldap://x", NULL);
    assert_bool_opt(cdb, DOM, "enumerate", true);
    assert_int_opt(cdb, "nss", "memcache_timeout", 600);
    assert_str(cdb, DOM, "id_provider", "ldap");
    talloc_free(cdb);

    /* A syntax error in a CRLF file reports the right line and no raw CR. */
    parse_fails(t, "[sssd]\r\ndomains = a\r\nbogus\r\n", "test.conf:3: syntax error",
                "'bogus'", NULL);
}

static void test_comments(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;

    cdb = parse_ok(t, "\xef\xbb\xbf# leading comment\n"
                   "; another\n"
                   "   # indented comment\n"
                   "\t\n"
                   "[sssd]\n"
                   "domains = ldap.test\n"
                   "#domains = broken\n"
                   ";[broken\n"
                   "  [  domain/ldap.test  ]  \n"
                   "id_provider = ldap\n"
                   "ldap_access_filter = (memberOf=cn=x) # kept ; too\n"
                   "   ldap_uri   =   ldap://x   \n");
    assert_str(cdb, DOM, "ldap_access_filter", "(memberOf=cn=x) # kept ; too");
    assert_list(cdb, DOM, "ldap_uri", "ldap://x", NULL);
    assert_int_equal(num_warnings(cdb), 0);
    talloc_free(cdb);

    /* Text after a section header is not a comment. */
    parse_fails(t, BASE "[nss] # responder\n", "test.conf:8:", "'# responder'", NULL);
}

static void test_provider_defaults(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;

    cdb = parse_ok(t, BASE);
    assert_str(cdb, DOM, "id_provider", "ldap");
    assert_str(cdb, DOM, "auth_provider", "ldap");
    assert_str(cdb, DOM, "chpass_provider", "ldap");
    assert_str(cdb, DOM, "sudo_provider", "ldap");
    assert_str(cdb, DOM, "access_provider", "permit");
    assert_str(cdb, DOM, "autofs_provider", "ldap");
    talloc_free(cdb);

    cdb = parse_ok(t, BASE "auth_provider = KRB5\naccess_provider = simple\n");
    assert_str(cdb, DOM, "auth_provider", "krb5");
    assert_str(cdb, DOM, "chpass_provider", "krb5");
    assert_str(cdb, DOM, "access_provider", "simple");
    assert_str(cdb, DOM, "sudo_provider", "ldap");
    assert_true(confdb_is_set(cdb, DOM, "auth_provider"));
    assert_false(confdb_is_set(cdb, DOM, "chpass_provider"));
    talloc_free(cdb);

    cdb = parse_ok(t, "[sssd]\ndomains = p, f\n"
                   "[domain/p]\nid_provider = proxy\n"
                   "[domain/f]\nid_provider = files\n");
    assert_str(cdb, "domain/p", "auth_provider", "proxy");
    assert_str(cdb, "domain/p", "sudo_provider", "none");
    assert_str(cdb, "domain/f", "auth_provider", "none");
    assert_str(cdb, "domain/f", "chpass_provider", "none");
    /* No domain section: nothing to follow. */
    assert_str(cdb, "domain/none", "auth_provider", NULL);
    talloc_free(cdb);
}

static void test_schema_defaults(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;

    cdb = parse_ok(t, "[sssd]\ndomains = a, b, c, d\n"
                   "[domain/a]\nid_provider = ldap\n"
                   "[domain/b]\nid_provider = ldap\nldap_schema = rfc2307bis\n"
                   "[domain/c]\nid_provider = ldap\nldap_schema = AD\n"
                   "ldap_user_name = uid\n"
                   "[domain/d]\nid_provider = ipa\nldap_schema = ipa\n");
    assert_str(cdb, "domain/a", "ldap_user_object_class", "posixAccount");
    assert_str(cdb, "domain/a", "ldap_group_member", "memberuid");
    assert_str(cdb, "domain/a", "ldap_user_member_of", NULL);
    assert_str(cdb, "domain/b", "ldap_group_member", "member");
    assert_str(cdb, "domain/b", "ldap_user_member_of", "memberOf");
    assert_str(cdb, "domain/c", "ldap_schema", "ad");
    assert_str(cdb, "domain/c", "ldap_user_object_class", "user");
    assert_str(cdb, "domain/c", "ldap_user_name", "uid");
    assert_str(cdb, "domain/c", "ldap_user_home_directory", "unixHomeDirectory");
    assert_str(cdb, "domain/c", "ldap_group_object_class", "group");
    assert_str(cdb, "domain/d", "ldap_group_member", "member");
    assert_str(cdb, "domain/d", "ldap_user_name", "uid");
    talloc_free(cdb);
}

/* id_provider = ad changes some defaults (and, through ldap_schema, the attribute maps);
 * written values win; a provider's computed default only fills what is not written. */
static void test_ad_provider_defaults(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;

    cdb = parse_ok(t, "[sssd]\ndomains = a, l, w\n"
                   "[domain/a]\nid_provider = ad\n"
                   "[domain/l]\nid_provider = ldap\n"
                   "[domain/w]\nid_provider = ad\nldap_id_mapping = false\n"
                   "ldap_schema = rfc2307bis\nldap_uri = ldap://w.example\n");
    assert_str(cdb, "domain/a", "ldap_schema", "ad");
    assert_bool_opt(cdb, "domain/a", "ldap_id_mapping", true);
    assert_str(cdb, "domain/a", "ldap_sasl_mech", "GSSAPI");
    assert_str(cdb, "domain/a", "ldap_user_name", "sAMAccountName");
    assert_str(cdb, "domain/a", "ldap_user_objectsid", "objectSID");
    assert_str(cdb, "domain/a", "ldap_user_primary_group", "primaryGroupID");
    assert_bool_opt(cdb, "domain/a", "krb5_validate", true);
    assert_bool_opt(cdb, "domain/l", "krb5_validate", false);
    /* The provider's default is a domain-level value (it wins over [nss] values). */
    assert_true(confdb_is_set(cdb, "domain/a", "ldap_schema"));
    assert_false(confdb_is_set(cdb, "domain/a", "ldap_user_name"));
    assert_str(cdb, "domain/l", "ldap_schema", "rfc2307");
    assert_bool_opt(cdb, "domain/l", "ldap_id_mapping", false);
    assert_str(cdb, "domain/l", "ldap_sasl_mech", NULL);
    assert_str(cdb, "domain/l", "ldap_user_primary_group", NULL);
    assert_bool_opt(cdb, "domain/w", "ldap_id_mapping", false);
    assert_str(cdb, "domain/w", "ldap_schema", "rfc2307bis");
    assert_str(cdb, "domain/w", "ldap_user_name", "uid");

    assert_int_equal(confdb_set_default(cdb, "domain/a", "ldap_uri", "ldap://dc1"), EOK);
    assert_str(cdb, "domain/a", "ldap_uri", "ldap://dc1");
    assert_true(confdb_is_set(cdb, "domain/a", "ldap_uri"));
    assert_int_equal(confdb_set_default(cdb, "domain/w", "ldap_uri", "ldap://dc1"), EOK);
    assert_str(cdb, "domain/w", "ldap_uri", "ldap://w.example");
    assert_int_equal(confdb_set_default(cdb, "domain/a", "no_such_option", "x"), EINVAL);
    assert_int_equal(confdb_set_default(cdb, "domain/zz", "ldap_uri", "x"), ENOENT);
    assert_int_equal(confdb_set_default(cdb, "domain/a", "ldap_uri", NULL), EINVAL);
    talloc_free(cdb);
}

/* sssd-ad(5): fallback_homedir and case_sensitive change with id_provider = ad in the
 * configuration itself, so every process reading the domain section sees them. */
static void test_ad_homedir_and_case(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;

    cdb = parse_ok(t, "[sssd]\ndomains = a, l, w\n"
                   "[nss]\nfallback_homedir = /nss/%u\n"
                   "[domain/a]\nid_provider = ad\n"
                   "[domain/l]\nid_provider = ldap\n"
                   "[domain/w]\nid_provider = ad\ncase_sensitive = Preserving\n"
                   "fallback_homedir = /srv/%u\n");
    assert_str(cdb, "domain/a", "fallback_homedir", "/home/%d/%u");
    assert_str(cdb, "domain/a", "case_sensitive", "false");
    assert_true(confdb_is_set(cdb, "domain/a", "fallback_homedir"));
    assert_true(confdb_is_set(cdb, "domain/a", "case_sensitive"));
    assert_str(cdb, "domain/l", "fallback_homedir", NULL);
    assert_str(cdb, "domain/l", "case_sensitive", "true");
    assert_false(confdb_is_set(cdb, "domain/l", "fallback_homedir"));
    assert_false(confdb_is_set(cdb, "domain/l", "case_sensitive"));
    assert_str(cdb, "domain/w", "fallback_homedir", "/srv/%u");
    assert_str(cdb, "domain/w", "case_sensitive", "preserving");
    assert_str(cdb, "nss", "fallback_homedir", "/nss/%u");
    assert_false(confdb_is_set(cdb, "nss", "case_sensitive"));
    assert_false(confdb_is_set(cdb, "domain/none", "fallback_homedir"));
    talloc_free(cdb);
}

/* sssd-ad(5) options SSSD accepts and this suite does not act on: typed as in SSSD, and
 * one warning each that names the option, its line and why. */
static void test_ad_unused_options(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;

    cdb = parse_ok(t, "[sssd]\ndomains = a\n"
                   "[domain/a]\nid_provider = ad\nad_enable_gc = False\n"
                   "ad_gpo_map_service = +vsftpd, -sshd\nad_gpo_cache_timeout = 30\n"
                   "ad_use_ldaps = true\n");
    assert_bool_opt(cdb, "domain/a", "ad_enable_gc", false);
    assert_int_opt(cdb, "domain/a", "ad_gpo_cache_timeout", 30);
    assert_bool_opt(cdb, "domain/a", "ad_enable_dns_sites", true);
    /* The global catalog is connected (sdap_connect_gc.c): no warning either. */
    assert_false(has_warning(cdb, "test.conf:5: option 'ad_enable_gc'", NULL));
    /* The GPO options are acted on (src/providers/ad/ad_gpo_access.c): no warning. */
    assert_false(has_warning(cdb, "test.conf:6: option 'ad_gpo_map_service'", NULL));
    assert_false(has_warning(cdb, "test.conf:7: option 'ad_gpo_cache_timeout'", NULL));
    assert_true(has_warning(cdb, "test.conf:8: option 'ad_use_ldaps'", "GSSAPI"));
    assert_int_equal(num_warnings(cdb), 1);
    talloc_free(cdb);

    parse_fails(t, "[sssd]\ndomains = a\n[domain/a]\nid_provider = ad\n"
                "ad_enable_gc = maybe\n", "test.conf:5", "'ad_enable_gc'", "boolean", NULL);
    parse_fails(t, "[sssd]\ndomains = a\n[domain/a]\nid_provider = ad\n"
                "ad_gpo_cache_timeout = -1\n", "test.conf:5", "'ad_gpo_cache_timeout'",
                NULL);
}

static void test_enum_and_derived_ints(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;

    cdb = parse_ok(t, BASE "ldap_tls_reqcert = DEMAND\nentry_cache_timeout = 100\n"
                   "entry_cache_sudo_timeout = 7\nlookup_family_order = ipv6_first\n");
    assert_str(cdb, DOM, "ldap_tls_reqcert", "demand");
    assert_int_opt(cdb, DOM, "entry_cache_user_timeout", 100);
    assert_int_opt(cdb, DOM, "entry_cache_group_timeout", 100);
    assert_int_opt(cdb, DOM, "entry_cache_sudo_timeout", 7);
    assert_str(cdb, DOM, "lookup_family_order", "ipv6_first");
    talloc_free(cdb);

    parse_fails(t, BASE "ldap_tls_reqcert = sometimes\n", "test.conf:8", "'sometimes'",
                "'ldap_tls_reqcert'", "one of: never, allow, try, demand, hard", NULL);
    parse_fails(t, BASE "ldap_schema = rfc2308\n", "'rfc2308'",
                "one of: rfc2307, rfc2307bis, ad, ipa", NULL);
}

static void test_domains_and_services(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;
    char **list = NULL;

    cdb = parse_ok(t, "[sssd]\nservices = sudo, nss, ifp, nss, kcm, pam\n"
                   "domains = zeta, alpha\n"
                   "[domain/alpha]\nid_provider = ldap\n"
                   "[domain/zeta]\nid_provider = ad\n");
    assert_int_equal(confdb_get_domains(cdb, t->mem, &list), EOK);
    assert_string_equal(list[0], "zeta");
    assert_string_equal(list[1], "alpha");
    assert_null(list[2]);
    talloc_free(list);
    assert_int_equal(confdb_get_services(cdb, t->mem, &list), EOK);
    assert_string_equal(list[0], "sudo");
    assert_string_equal(list[1], "nss");
    assert_string_equal(list[2], "pam");
    assert_null(list[3]);
    talloc_free(list);
    assert_true(has_warning(cdb, "test.conf:2: service 'ifp'", "not provided by this suite"));
    assert_true(has_warning(cdb, "service 'kcm'", NULL));
    talloc_free(cdb);

    /* Without services: nss and pam. */
    cdb = parse_ok(t, "[sssd]\ndomains = a\n[domain/a]\nid_provider = files\n");
    assert_int_equal(confdb_get_services(cdb, t->mem, &list), EOK);
    assert_string_equal(list[0], "nss");
    assert_string_equal(list[1], "pam");
    assert_null(list[2]);
    talloc_free(list);
    talloc_free(cdb);

    list = (char **)0x1;
    cdb = parse_ok(t, "[sssd]\nservices =\ndomains = a\n[domain/a]\nid_provider = files\n");
    assert_int_equal(confdb_get_services(cdb, t->mem, &list), EOK);
    assert_null(list[0]);
    talloc_free(list);
    talloc_free(cdb);

    {
        char *s = confdb_domain_section(t->mem, "ldap.test");
        assert_string_equal(s, "domain/ldap.test");
        talloc_free(s);
        assert_null(confdb_domain_section(t->mem, NULL));
    }
}

/* The table read row by row: what confdb_option_find answered before its index. */
static const struct confdb_option *scan_table(const char *name, unsigned kind)
{
    const struct confdb_option *table;
    size_t count, i;

    table = confdb_option_table(&count);
    for (i = 0; i < count; i++) {
        if ((table[i].kinds & kind) != 0 && strcmp(table[i].name, name) == 0) {
            return &table[i];
        }
    }
    return NULL;
}

/* Every name of the table (and names around them) in every kind of section: the index
 * finds the row a scan of the table finds, the first of its name that fits the kind. */
static void test_option_index_equals_table(void **state)
{
    static const char *const others[] = {
        "", "a", "zzzz", "filter_user", "filter_users_", "FILTER_USERS", "ldap_", NULL
    };
    static const unsigned kinds[] = {
        CONFDB_K_SSSD, CONFDB_K_NSS, CONFDB_K_PAM, CONFDB_K_SUDO, CONFDB_K_DOMAIN,
        CONFDB_K_RESP, CONFDB_K_ALL, CONFDB_K_NSS | CONFDB_K_DOMAIN, 0
    };
    const struct confdb_option *table;
    size_t count, i, k;
    size_t shared = 0;

    (void)state;
    table = confdb_option_table(&count);
    for (i = 0; i < count; i++) {
        for (k = 0; k < SSS_ARRAY_SIZE(kinds); k++) {
            assert_ptr_equal(confdb_option_find(table[i].name, kinds[k]),
                             scan_table(table[i].name, kinds[k]));
        }
        if (scan_table(table[i].name, CONFDB_K_ALL) != &table[i]) {
            shared++;       /* a later row of a name already seen */
        }
    }
    /* The rows that share a name (filter_users in [nss] and a domain...) were tried. */
    assert_true(shared > 0);
    for (i = 0; others[i] != NULL; i++) {
        assert_null(confdb_option_find(others[i], CONFDB_K_ALL));
    }
    assert_null(confdb_option_find(NULL, CONFDB_K_ALL));
    assert_ptr_equal(confdb_option_find("filter_users", CONFDB_K_DOMAIN)->def, NULL);
    assert_string_equal(confdb_option_find("filter_users", CONFDB_K_NSS)->def, "root");
}

static void test_lookup_errors(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb = parse_ok(t, BASE);
    char *s = (char *)0x1;
    char **l = NULL;
    int i = 42;
    bool b = true;

    /* Not in the table for that section: programming errors. */
    assert_int_equal(confdb_get_string(cdb, t->mem, "nss", "ldap_uri", &s), EINVAL);
    assert_int_equal(confdb_get_string(cdb, t->mem, DOM, "no_such_option", &s), EINVAL);
    assert_int_equal(confdb_get_string(cdb, t->mem, "ifp", "debug_level", &s), EINVAL);
    assert_int_equal(confdb_get_string(cdb, t->mem, "domain/", "id_provider", &s), EINVAL);
    assert_ptr_equal(s, (char *)0x1);
    /* Wrong getter for the type. */
    assert_int_equal(confdb_get_int(cdb, DOM, "ldap_uri", &i), EINVAL);
    assert_int_equal(confdb_get_bool(cdb, DOM, "ldap_page_size", &b), EINVAL);
    assert_int_equal(confdb_get_list(cdb, t->mem, DOM, "enumerate", &l), EINVAL);
    assert_int_equal(i, 42);
    /* Unset without default. */
    assert_int_equal(confdb_get_int(cdb, DOM, "override_gid", &i), ENOENT);
    assert_int_equal(confdb_get_int(cdb, "sssd", "sbus_timeout", &i), ENOENT);
    assert_int_equal(i, 42);
    /* NULL arguments. */
    assert_int_equal(confdb_get_int(NULL, DOM, "min_id", &i), EINVAL);
    assert_int_equal(confdb_get_int(cdb, NULL, "min_id", &i), EINVAL);
    assert_int_equal(confdb_get_int(cdb, DOM, NULL, &i), EINVAL);
    assert_false(confdb_is_set(cdb, NULL, "x"));
    assert_false(confdb_is_set(cdb, "nss", "filter_users"));
    assert_true(confdb_is_set(cdb, DOM, "ldap_uri"));
    assert_non_null(confdb_warnings(NULL));
    assert_null(confdb_warnings(NULL)[0]);
    talloc_free(cdb);
}

/* ---- warnings ---- */

static void test_warn_unknown_option(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;
    char **l = NULL;

    cdb = parse_ok(t, BASE "ldap_ur = ldap://typo\nfrobnicate_everything = 1\n"
                   "[nss]\ntimout = 3\nldap_uri = ldap://wrong.place\n");
    assert_true(has_warning(cdb, "test.conf:8: unknown option 'ldap_ur' in section "
                            "[domain/ldap.test]", "did you mean 'ldap_uri'?"));
    assert_true(has_warning(cdb, "test.conf:9: unknown option 'frobnicate_everything'",
                            NULL));
    assert_false(has_warning(cdb, "frobnicate_everything", "did you mean"));
    assert_true(has_warning(cdb, "test.conf:11: unknown option 'timout' in section [nss]",
                            "did you mean 'timeout'?"));
    assert_true(has_warning(cdb, "test.conf:12: option 'ldap_uri' is not valid in section "
                            "[nss]", "belongs in [domain/NAME]"));
    assert_int_equal(num_warnings(cdb), 4);
    /* The misspelt value went nowhere. */
    assert_int_equal(confdb_get_list(cdb, t->mem, DOM, "ldap_uri", &l), EOK);
    assert_string_equal(l[0], "ldap://localhost");
    talloc_free(l);
    talloc_free(cdb);
}

static void test_warn_sections(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;

    cdb = parse_ok(t, BASE "[nsss]\nfoo = bar\n[ifp]\nallowed_uids = 0\n[NSS]\n"
                   "[domian/ldap.test]\n[domain/unlisted]\nid_provider = ldap\n"
                   "[totally_unrelated]\n[domain/ldap.test/child.test]\nanything = goes\n"
                   "[application/app]\n");
    assert_true(has_warning(cdb, "test.conf:8: unknown section [nsss] is ignored",
                            "did you mean [nss]?"));
    assert_true(has_warning(cdb, "test.conf:10: section [ifp] is not served", NULL));
    assert_true(has_warning(cdb, "test.conf:12: unknown section [NSS]", "[nss]"));
    assert_true(has_warning(cdb, "test.conf:13: unknown section [domian/ldap.test]",
                            "did you mean [domain/ldap.test]?"));
    assert_true(has_warning(cdb, "test.conf:14: section [domain/unlisted] is ignored",
                            "not listed in [sssd] domains"));
    assert_true(has_warning(cdb, "test.conf:16: unknown section [totally_unrelated] is "
                            "ignored", NULL));
    assert_false(has_warning(cdb, "totally_unrelated", "did you mean"));
    assert_true(has_warning(cdb, "test.conf:17: section [domain/ldap.test/child.test]",
                            NULL));
    assert_true(has_warning(cdb, "test.conf:19: section [application/app]", NULL));
    /* Options under ignored sections are not looked at. */
    assert_false(has_warning(cdb, "foo", NULL));
    talloc_free(cdb);
}

static void test_warning_limit(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;
    char *text = talloc_strdup(t->mem, BASE);
    size_t i;

    for (i = 0; i < 500; i++) {
        text = talloc_asprintf_append(text, "unknown_%zu = x\n", i);
    }
    cdb = parse_ok(t, text);
    assert_int_equal(num_warnings(cdb), CONFDB_MAX_WARNINGS + 1);
    assert_true(has_warning(cdb, "the rest are not shown", NULL));
    talloc_free(text);
    talloc_free(cdb);
}

/* ---- refused configurations ---- */

static void test_err_syntax(void **state)
{
    struct test_ctx *t = *state;

    parse_fails(t, BASE "this is not an option\n", "test.conf:8: syntax error",
                "'this is not an option'", NULL);
    parse_fails(t, BASE "[nss\n", "test.conf:8:", "'[nss'", "missing its closing ']'",
                NULL);
    parse_fails(t, BASE "[nss] extra\n", "test.conf:8:", "'extra'", NULL);
    parse_fails(t, BASE "[ ]\n", "test.conf:8:", "empty name", NULL);
    parse_fails(t, BASE "  = value\n", "test.conf:8: syntax error", "without a name", NULL);
}

static void test_err_option_before_section(void **state)
{
    struct test_ctx *t = *state;

    parse_fails(t, "# comment\ndomains = a\n[sssd]\n", "test.conf:2:", "'domains'",
                "before any [section]", NULL);
}

static void test_err_bad_int(void **state)
{
    struct test_ctx *t = *state;

    parse_fails(t, BASE "[nss]\ntimeout = abc\n", "test.conf:9:", "'abc'", "'timeout'",
                "[nss]", "an integer from 0 to 2147483647", NULL);
    parse_fails(t, BASE "[pam]\npam_verbosity = 4\n", "test.conf:9:", "'4'",
                "'pam_verbosity'", "[pam]", "from 0 to 3", NULL);
    parse_fails(t, BASE "[nss]\nentry_cache_nowait_percentage = -1\n", "'-1'",
                "from 0 to 99", NULL);
    parse_fails(t, BASE "min_id = 12 34\n", "test.conf:8:", "'12 34'", "'min_id'", NULL);
    parse_fails(t, BASE "ldap_network_timeout = 0\n", "test.conf:8:", "'ldap_network_timeout'",
                "from 1 to", NULL);
}

static void test_err_bad_provider(void **state)
{
    struct test_ctx *t = *state;

    parse_fails(t, "[sssd]\ndomains = d\n[domain/d]\nid_provider = krb5\n",
                "test.conf:4:", "'krb5'", "'id_provider'", "[domain/d]",
                "one of: ldap, ad, ipa, proxy, files", NULL);
    parse_fails(t, "[sssd]\ndomains = d\n[domain/d]\nid_provider = ldap\n"
                "access_provider = allow\n", "test.conf:5:", "'allow'",
                "one of: permit, deny, simple, ldap, ad, ipa, krb5, proxy", NULL);
    parse_fails(t, "[sssd]\ndomains = d\n[domain/d]\nid_provider = ldap\n"
                "sudo_provider = krb5\n", "'krb5'", "one of: ldap, ad, ipa, none", NULL);
}

/* As in SSSD: the last value of an option set twice wins, a repeated section is merged,
 * and both say so with the lines involved. */
static void test_duplicate_last_wins(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;

    cdb = parse_ok(t, BASE "[nss]\ntimeout = 1\nmemcache_timeout = 7\n\n[pam]\n[nss]\n"
                   "timeout = 2\n");
    assert_int_opt(cdb, "nss", "timeout", 2);
    assert_int_opt(cdb, "nss", "memcache_timeout", 7);     /* merged from the first [nss] */
    assert_true(has_warning(cdb, "test.conf:14: option 'timeout' in section [nss] is "
                            "already set on line 9", "line 14 is used"));
    assert_true(has_warning(cdb, "test.conf:13: section [nss] appears again (first on line "
                            "8)", "merged"));
    talloc_free(cdb);

    cdb = parse_ok(t, BASE "id_provider = ldap\n");
    assert_true(has_warning(cdb, "test.conf:8: option 'id_provider'", "line 6"));
    talloc_free(cdb);
}

static void test_err_missing_sssd(void **state)
{
    struct test_ctx *t = *state;

    parse_fails(t, "[domain/a]\nid_provider = ldap\n", "test.conf:", "[sssd] section is "
                "missing", NULL);
    parse_fails(t, "", "test.conf:", "[sssd] section is missing", NULL);
    parse_fails(t, "[sssd]\n", "test.conf:1:", "no 'domains' option", NULL);
    parse_fails(t, "[sssd]\ndomains = , ,\n", "test.conf:2:", "'domains'", "empty", NULL);
}

static void test_err_domain_without_section(void **state)
{
    struct test_ctx *t = *state;

    parse_fails(t, "[sssd]\ndomains = ldap.test, missing.test\n"
                "[domain/ldap.test]\nid_provider = ldap\n", "test.conf:2:",
                "domain 'missing.test'", "no [domain/missing.test] section", NULL);
    parse_fails(t, "[sssd]\ndomains = a, b, a\n[domain/a]\nid_provider = ldap\n"
                "[domain/b]\nid_provider = ldap\n", "test.conf:2:", "'a'", "twice", NULL);
}

static void test_err_no_id_provider(void **state)
{
    struct test_ctx *t = *state;

    parse_fails(t, "[sssd]\ndomains = d\n\n[domain/d]\nauth_provider = krb5\n",
                "test.conf:4:", "[domain/d]", "'id_provider'",
                "one of: ldap, ad, ipa, proxy, files", NULL);
}

static void test_err_unknown_service(void **state)
{
    struct test_ctx *t = *state;

    parse_fails(t, "[sssd]\nservices = nss, pam, httpd\ndomains = d\n"
                "[domain/d]\nid_provider = ldap\n", "test.conf:2:", "'httpd'",
                "nss, pam, sudo", NULL);
}

static void test_err_bad_domain_names(void **state)
{
    struct test_ctx *t = *state;

    parse_fails(t, BASE "[domain/]\n", "test.conf:8:", "[domain/]", NULL);
    parse_fails(t, BASE "[domain/a\tb]\n", "test.conf:8:", "[domain/a\\x09b]", NULL);
    parse_fails(t, "[sssd]\ndomains = a/b\n", "test.conf:2:", "'a/b'", NULL);
}

static void test_err_id_range(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb;

    parse_fails(t, BASE "min_id = 5000\nmax_id = 1000\n", "test.conf:8:", "min_id (5000)",
                "max_id (1000)", NULL);
    cdb = parse_ok(t, BASE "min_id = 5000\n");
    talloc_free(cdb);
}

static void test_err_bytes(void **state)
{
    struct test_ctx *t = *state;
    static const char nul[] = "[sssd]\ndomains = a\0b\n";
    struct confdb *cdb = NULL;
    char *err = NULL;
    char *big;

    assert_int_equal(confdb_parse_buffer(t->mem, "test.conf", nul, sizeof(nul) - 1, &cdb,
                                         &err), ERR_INVALID_CONFIG);
    assert_non_null(strstr(err, "test.conf:2:"));
    assert_non_null(strstr(err, "NUL"));
    talloc_free(err);
    err = NULL;

    /* Invalid UTF-8 and control bytes come out escaped, never raw. */
    parse_fails(t, BASE "\xff\xfe\x01garbage\n", "test.conf:8:", "\\x01garbage", NULL);

    /* One very long line. */
    big = talloc_size(t->mem, 600 * 1024);
    memset(big, 'a', 600 * 1024 - 1);
    big[600 * 1024 - 1] = '\0';
    parse_fails(t, big, "test.conf:1: syntax error", "...", NULL);
    talloc_free(big);

    /* More than 1 MiB. */
    big = talloc_zero_size(t->mem, CONFDB_MAX_FILE_SIZE + 2);
    memset(big, '\n', CONFDB_MAX_FILE_SIZE + 1);
    assert_int_equal(confdb_parse_buffer(t->mem, "test.conf", big, CONFDB_MAX_FILE_SIZE + 1,
                                         &cdb, &err), ERR_INVALID_CONFIG);
    assert_non_null(strstr(err, "larger than"));
    talloc_free(err);
    talloc_free(big);

    /* Bad arguments. */
    assert_int_equal(confdb_parse_buffer(t->mem, NULL, "", 0, &cdb, &err), EINVAL);
    assert_int_equal(confdb_parse_buffer(t->mem, "x", NULL, 3, &cdb, &err), EINVAL);
    assert_null(cdb);
}

/* ---- files ---- */

static const char *const main_conf =
    "[sssd]\n"
    "domains = ldap.test\n"
    "[nss]\n"
    "memcache_timeout = 100\n"
    "entry_negative_timeout = 20\n"
    "[domain/ldap.test]\n"
    "id_provider = ldap\n"
    "ldap_uri = ldap://main\n";

static void test_load_file(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb = NULL;
    char *err = NULL;
    char *path;

    path = write_file(t->dir, "sssd.conf", main_conf, 0600);
    assert_int_equal(confdb_load(t->mem, path, &cdb, &err), EOK);
    assert_null(err);
    assert_int_opt(cdb, "nss", "memcache_timeout", 100);
    assert_int_equal(num_warnings(cdb), 0);
    talloc_free(cdb);

    assert_int_equal(chmod(path, 0400), 0);
    assert_int_equal(confdb_load(t->mem, path, &cdb, &err), EOK);
    talloc_free(cdb);
    free(path);
}

static void test_load_snippets(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb = NULL;
    char *err = NULL;
    char *path, *confd, *p;

    path = write_file(t->dir, "sssd.conf", main_conf, 0600);
    assert_true(asprintf(&confd, "%s/conf.d", t->dir) > 0);
    assert_int_equal(mkdir(confd, 0700), 0);
    free(write_file(confd, "20-second.conf",
                    "[nss]\nmemcache_timeout = 300\n"
                    "[domain/ldap.test]\nldap_uri = ldap://second\n", 0600));
    free(write_file(confd, "10-first.conf",
                    "[nss]\nmemcache_timeout = 200\nentry_negative_timeout = 30\n"
                    "[domain/ldap.test]\nldap_uri = ldap://first\nenumerate = true\n", 0600));
    /* Not snippets: hidden, wrong suffix; wrong mode would be refused if read. */
    free(write_file(confd, ".hidden.conf", "[nss]\nmemcache_timeout = 1\n", 0644));
    free(write_file(confd, "notes.txt", "garbage", 0644));
    free(write_file(confd, "30.conf.bak", "garbage", 0644));
    assert_true(asprintf(&p, "%s/40-dir.conf", confd) > 0);
    assert_int_equal(mkdir(p, 0700), 0);
    free(p);

    assert_int_equal(confdb_load(t->mem, path, &cdb, &err), EOK);
    assert_int_opt(cdb, "nss", "memcache_timeout", 300);
    assert_int_opt(cdb, "nss", "entry_negative_timeout", 30);
    assert_list(cdb, DOM, "ldap_uri", "ldap://second", NULL);
    assert_bool_opt(cdb, DOM, "enumerate", true);
    assert_true(has_warning(cdb, "40-dir.conf", "not a regular file"));
    talloc_free(cdb);

    /* A snippet may complete the configuration (domains only in a snippet). */
    free(write_file(t->dir, "sssd.conf", "[sssd]\n", 0600));
    free(write_file(confd, "50-domains.conf", "[sssd]\ndomains = ldap.test\n"
                    "[domain/ldap.test]\nid_provider = files\n", 0600));
    assert_int_equal(confdb_load(t->mem, path, &cdb, &err), EOK);
    talloc_free(cdb);

    /* An error inside a snippet names the snippet and its line. */
    free(write_file(confd, "60-bad.conf", "[nss]\n\nmemcache_timeout = soon\n", 0600));
    assert_int_equal(confdb_load(t->mem, path, &cdb, &err), ERR_INVALID_CONFIG);
    assert_non_null(strstr(err, "conf.d/60-bad.conf:3:"));
    assert_non_null(strstr(err, "'soon'"));
    talloc_free(err);

    /* A snippet with a bad mode refuses the whole load. */
    free(write_file(confd, "60-bad.conf", "[nss]\n", 0640));
    assert_int_equal(confdb_load(t->mem, path, &cdb, &err), ERR_CONFIG_PERMS);
    assert_non_null(strstr(err, "60-bad.conf"));
    assert_non_null(strstr(err, "0640"));
    talloc_free(err);

    free(confd);
    free(path);
}

static void test_load_perms(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb = NULL;
    char *err = NULL;
    char *path;
    char uid[32];

    path = write_file(t->dir, "sssd.conf", main_conf, 0644);
    assert_int_equal(confdb_load(t->mem, path, &cdb, &err), ERR_CONFIG_PERMS);
    assert_null(cdb);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "mode 0644"));
    snprintf(uid, sizeof(uid), "owner uid %u", (unsigned)geteuid());
    assert_non_null(strstr(err, uid));
    assert_non_null(strstr(err, "0600 or 0400"));
    assert_non_null(strstr(err, "root"));
    talloc_free(err);

    assert_int_equal(chmod(path, 0700), 0);
    assert_int_equal(confdb_load(t->mem, path, &cdb, &err), ERR_CONFIG_PERMS);
    talloc_free(err);
    assert_int_equal(chmod(path, 04600), 0);
    assert_int_equal(confdb_load(t->mem, path, &cdb, &err), ERR_CONFIG_PERMS);
    assert_non_null(strstr(err, "4600"));
    talloc_free(err);
    free(path);
}

static void test_load_missing_and_odd(void **state)
{
    struct test_ctx *t = *state;
    struct confdb *cdb = NULL;
    char *err = NULL;
    char *path;

    assert_true(asprintf(&path, "%s/absent.conf", t->dir) > 0);
    assert_int_equal(confdb_load(t->mem, path, &cdb, &err), ERR_MISSING_CONF);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "does not exist"));
    assert_non_null(strstr(err, "No such file"));
    talloc_free(err);
    free(path);

    /* A directory is not a configuration file. */
    assert_int_equal(confdb_load(t->mem, t->dir, &cdb, &err), ERR_INVALID_CONFIG);
    assert_non_null(strstr(err, "not a regular file"));
    talloc_free(err);

    /* Too large. */
    {
        char *text = talloc_zero_size(t->mem, CONFDB_MAX_FILE_SIZE + 16);

        memset(text, '#', CONFDB_MAX_FILE_SIZE + 10);
        path = write_file(t->dir, "big.conf", text, 0600);
        talloc_free(text);
        assert_int_equal(confdb_load(t->mem, path, &cdb, &err), ERR_INVALID_CONFIG);
        assert_non_null(strstr(err, "larger than"));
        talloc_free(err);
        free(path);
    }

    assert_int_equal(confdb_load(t->mem, NULL, &cdb, &err), EINVAL);
    assert_int_equal(confdb_load(t->mem, "", &cdb, &err), EINVAL);
    assert_null(cdb);

    /* _error may be NULL. */
    assert_int_equal(confdb_load(t->mem, "/nonexistent/sssd.conf", &cdb, NULL),
                     ERR_MISSING_CONF);
}

int main(void)
{
    int ret;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_table_defaults_valid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lists, setup, teardown),
        cmocka_unit_test_setup_teardown(test_booleans, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hex_debug_level, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crlf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_comments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_provider_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schema_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_enum_and_derived_ints, setup, teardown),
        cmocka_unit_test_setup_teardown(test_domains_and_services, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lookup_errors, setup, teardown),
        cmocka_unit_test(test_option_index_equals_table),
        cmocka_unit_test_setup_teardown(test_warn_unknown_option, setup, teardown),
        cmocka_unit_test_setup_teardown(test_warn_sections, setup, teardown),
        cmocka_unit_test_setup_teardown(test_warning_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_err_syntax, setup, teardown),
        cmocka_unit_test_setup_teardown(test_err_option_before_section, setup, teardown),
        cmocka_unit_test_setup_teardown(test_err_bad_int, setup, teardown),
        cmocka_unit_test_setup_teardown(test_err_bad_provider, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duplicate_last_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_err_missing_sssd, setup, teardown),
        cmocka_unit_test_setup_teardown(test_err_domain_without_section, setup, teardown),
        cmocka_unit_test_setup_teardown(test_err_no_id_provider, setup, teardown),
        cmocka_unit_test_setup_teardown(test_err_unknown_service, setup, teardown),
        cmocka_unit_test_setup_teardown(test_err_bad_domain_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_err_id_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_err_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_file, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_load_snippets, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_ad_provider_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ad_homedir_and_case, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ad_unused_options, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_perms, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_load_missing_and_odd, setup_dir, teardown_dir),
    };

    /* The programming-error paths log at CRIT level; keep the test output readable. */
    debug_level = 0;
    talloc_enable_null_tracking();
    ret = cmocka_run_group_tests(tests, NULL, NULL);
    talloc_disable_null_tracking();
    return ret;
}
