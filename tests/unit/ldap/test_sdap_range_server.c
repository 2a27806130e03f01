/*
 * Ranged attribute retrieval through a real search on a real connection (sdap_search.c),
 * against range_server.py (test_sdap_range_server.sh starts one per mode): a server that
 * ranges member unasked, as a Windows DC does with MaxValRange 1,500, gives the whole list
 * (3,500 values, in order, under the plain name); a server that repeats a range, one whose
 * ranges never end, one whose range holds fewer values than it names, and one whose entry
 * is gone at the follow-up all fail the search (EPROTO), in bounded time, never a short
 * list.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <time.h>

#include "tests/unit/ldap/sdap_fixture.h"

#define NVALUES 3500

static errno_t search_big(struct test_ctx *t, const char *env, struct sdap_entry ***_entries,
                          size_t *_num)
{
    static const char *attrs[] = { "member", NULL };
    struct sdap_search_args args = {
        .base = "cn=big,dc=t",
        .scope = LDAP_SCOPE_BASE,
        .filter = "(objectClass=*)",
        .attrs = attrs,
        .timeout = 30,
    };
    struct sdap_id_ctx *id_ctx;
    struct tevent_req *req;
    time_t start;
    errno_t ret;

    id_ctx = fx_ctx(t, "ldap_uri = %s\nldap_search_base = dc=t\nldap_schema = rfc2307bis\n",
                    fx_env(env));
    req = sdap_id_search_send(t->mem, t->ev, id_ctx, &args);
    assert_non_null(req);
    /* The endless server takes SDAP_RANGE_MAX_ROUNDS round trips, more loop turns than
     * tc_wait_req allows: a bound in time instead, generous. */
    start = time(NULL);
    while (tevent_req_is_in_progress(req)) {
        assert_true(time(NULL) - start < 300);
        assert_int_equal(tevent_loop_once(t->ev), 0);
    }
    ret = sdap_id_search_recv(t->mem, req, _entries, _num);
    talloc_free(req);
    return ret;
}

static void test_windows(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_entry **entries = NULL;
    const struct sdap_attr *a;
    char want[32];
    size_t num = 0;
    size_t i;

    assert_int_equal(search_big(t, "SDAP_RANGE_WINDOWS_URI", &entries, &num), EOK);
    assert_int_equal(num, 1);
    a = sdap_entry_attr(entries[0], "member");
    assert_non_null(a);
    assert_string_equal(a->name, "member");
    assert_int_equal(a->num_values, NVALUES);
    for (i = 0; i < NVALUES; i++) {
        snprintf(want, sizeof(want), "uid=u%zu,dc=t", i);
        assert_string_equal(a->values[i], want);
    }
    assert_null(a->values[NVALUES]);
    assert_string_equal(sdap_entry_value(entries[0], "cn"), "big");
    talloc_free(entries);
}

static void test_refused(void **state)
{
    static const char *const envs[] = {
        "SDAP_RANGE_REPEAT_URI",    /* the same range for every follow-up */
        "SDAP_RANGE_SHORT_URI",     /* 1,499 values under range=0-1499 */
        "SDAP_RANGE_GONE_URI",      /* no entry at the follow-up */
        "SDAP_RANGE_ENDLESS_URI",   /* one value a range, no last one: the round bound */
    };
    struct test_ctx *t = *state;
    struct sdap_entry **entries = NULL;
    size_t num = 0;
    size_t i;

    for (i = 0; i < sizeof(envs) / sizeof(envs[0]); i++) {
        errno_t ret = search_big(t, envs[i], &entries, &num);

        if (ret != EPROTO) {
            fail_msg("%s: %d (%s), expected EPROTO", envs[i], ret, sss_strerror(ret));
        }
        talloc_free(t->id_ctx);
        t->id_ctx = NULL;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_windows),
        FX_TEST(test_refused),
    };

    fx_debug_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
