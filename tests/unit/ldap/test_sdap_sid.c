/*
 * SIDs without ID mapping (ldap_id_mapping = false, AD schema): the SID attributes are read
 * although ids are not mapped, a lookup by SID searches the SID's binary form with every
 * byte escaped (RFC 4515: \xx), whatever the bytes are ('(' ')' '*' '\' NUL among them), a
 * string that is no SID is never put in a filter, and parsed entries carry their SID.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>

#include "util/util.h"
#include "confdb/confdb.h"
#include "providers/ldap/sdap_private.h"

static struct sdap_options *new_opts(TALLOC_CTX *mem, const char *schema, bool mapping)
{
    char conf[512];
    struct confdb *cdb;
    struct sdap_options *opts;
    char *error = NULL;

    snprintf(conf, sizeof(conf), "[sssd]\ndomains = t\n[domain/t]\nid_provider = ldap\n"
             "ldap_uri = ldap://127.0.0.1\nldap_search_base = dc=t\nldap_schema = %s\n"
             "ldap_id_mapping = %s\n", schema, mapping ? "true" : "false");
    assert_int_equal(confdb_parse_buffer(mem, "t", conf, strlen(conf), &cdb, &error), EOK);
    assert_int_equal(sdap_options_read(mem, cdb, "t", &opts), EOK);
    return opts;
}

static void test_sid_filter_escaped(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct sdap_options *opts = new_opts(mem, "ad", false);
    char *filter = NULL;
    char *what = NULL;
    char *want;

    (void)state;
    assert_null(opts->idmap);
    assert_non_null(opts->user_map[SDAP_UA_OBJSID]);
    assert_non_null(opts->group_map[SDAP_GA_OBJSID]);
    /* Sub-authorities 40, 41, 42 are the bytes '(' ')' '*'; 0 and 92 ('\') too. */
    assert_int_equal(sdap_lookup_filter(mem, opts, &opts->users, SDAP_BY_SID,
                                        "S-1-5-21-40-41-42-92-0", 0, &filter, &what), EOK);
    want = talloc_asprintf(mem, "(&(objectClass=%s)(|(%s="
                           "\\01\\06\\00\\00\\00\\00\\00\\05"
                           "\\15\\00\\00\\00\\28\\00\\00\\00\\29\\00\\00\\00"
                           "\\2a\\00\\00\\00\\5c\\00\\00\\00\\00\\00\\00\\00)))",
                           opts->users.oc, opts->user_map[SDAP_UA_OBJSID]);
    assert_string_equal(filter, want);
    assert_string_equal(what, "user SID S-1-5-21-40-41-42-92-0");
    assert_int_equal(sdap_lookup_filter(mem, opts, &opts->groups, SDAP_BY_SID,
                                        "S-1-5-21-1-2-3-1104", 0, &filter, &what), EOK);
    want = talloc_asprintf(mem, "(&(objectClass=%s)(|(%s="
                           "\\01\\05\\00\\00\\00\\00\\00\\05\\15\\00\\00\\00"
                           "\\01\\00\\00\\00\\02\\00\\00\\00\\03\\00\\00\\00\\50\\04\\00\\00)))",
                           opts->groups.oc, opts->group_map[SDAP_GA_OBJSID]);
    assert_string_equal(filter, want);
    /* Not a SID: nothing to search. */
    assert_int_equal(sdap_lookup_filter(mem, opts, &opts->users, SDAP_BY_SID, "*", 0,
                                        &filter, &what), ENOENT);
    assert_int_equal(sdap_lookup_filter(mem, opts, &opts->users, SDAP_BY_SID,
                                        "S-1-5-21-1)(uid=*", 0, &filter, &what), ENOENT);
    assert_int_equal(sdap_lookup_filter(mem, opts, &opts->users, SDAP_BY_SID, NULL, 0,
                                        &filter, &what), ENOENT);
    talloc_free(mem);
}

static void test_no_sid_attribute(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct sdap_options *opts = new_opts(mem, "rfc2307", false);
    char *filter = NULL;
    char *what = NULL;

    (void)state;
    assert_null(opts->user_map[SDAP_UA_OBJSID]);
    assert_int_equal(sdap_lookup_filter(mem, opts, &opts->users, SDAP_BY_SID,
                                        "S-1-5-21-1-2-3-1104", 0, &filter, &what), ENOENT);
    talloc_free(mem);
}

/* A user entry of the AD schema with POSIX ids and objectSid value sid (string form, as
 * sdap_entry_msg.c converts it). */
static errno_t parse_user(TALLOC_CTX *mem, struct sdap_options *opts, const char *sid,
                          struct sdap_user **_user)
{
    struct sdap_entry e = { 0 };
    struct sdap_attr a[4] = { { 0 } };
    char *name[] = { discard_const("carol"), NULL };
    char *uid[] = { discard_const("10201"), NULL };
    char *gid[] = { discard_const("10301"), NULL };
    char *sids[] = { discard_const(sid), NULL };

    a[0] = (struct sdap_attr){ discard_const(opts->user_map[SDAP_UA_NAME]), 1, name };
    a[1] = (struct sdap_attr){ discard_const(opts->user_map[SDAP_UA_UID]), 1, uid };
    a[2] = (struct sdap_attr){ discard_const(opts->user_map[SDAP_UA_GID]), 1, gid };
    a[3] = (struct sdap_attr){ discard_const(opts->user_map[SDAP_UA_OBJSID]), 1, sids };
    e.dn = discard_const("cn=carol,dc=t");
    e.attrs = a;
    e.num_attrs = 4;
    return sdap_parse_user(mem, opts, &e, _user);
}

static void test_parsed_sid(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct sdap_options *opts = new_opts(mem, "ad", false);
    struct sdap_user *user = NULL;

    (void)state;
    assert_int_equal(parse_user(mem, opts, "S-1-5-21-1-2-3-1106", &user), EOK);
    assert_int_equal(user->uid, 10201);
    assert_string_equal(user->sid, "S-1-5-21-1-2-3-1106");
    /* A value that is no SID: the user is kept, without one. */
    assert_int_equal(parse_user(mem, opts, "S-1-5-21-x", &user), EOK);
    assert_null(user->sid);
    talloc_free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sid_filter_escaped),
        cmocka_unit_test(test_no_sid_attribute),
        cmocka_unit_test(test_parsed_sid),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
