/* The shared fixture of the LDAP provider's tests (sdap_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "tests/unit/ldap/sdap_fixture.h"

int fx_setup(void **state)
{
    struct tc_leaks leaks;
    struct test_ctx *t;

    /* tevent registers its backends on the NULL context at its first context, once for
     * the process: that is not a leak of the test. */
    talloc_free(tevent_context_init(NULL));
    tc_leak_start(&leaks);
    t = talloc_zero(NULL, struct test_ctx);
    assert_non_null(t);
    t->leaks = leaks;
    t->mem = talloc_new(t);
    assert_non_null(t->mem);
    t->ev = tevent_context_init(t->mem);
    assert_non_null(t->ev);
    *state = t;
    return 0;
}

int fx_teardown(void **state)
{
    struct test_ctx *t = *state;
    struct tc_leaks leaks = t->leaks;

    talloc_free(t);
    tc_leak_check(&leaks);
    /* tc_leak_start() turned on talloc's null tracking; its NULL context would otherwise
     * stay allocated at exit, which LeakSanitizer reports (talloc only keeps a pointer to
     * its end). The next setup turns it on again. */
    talloc_disable_null_tracking();
    return 0;
}

const char *fx_env(const char *name)
{
    const char *v = getenv(name);

    if (v == NULL) {
        fail_msg("%s is not set: run the test through its .sh wrapper", name);
    }
    return v;
}

struct confdb *fx_confdb(struct test_ctx *t, const char *lines)
{
    struct confdb *cdb = NULL;
    char *err = NULL;
    char *text;
    errno_t ret;

    text = talloc_asprintf(t->mem, "[sssd]\ndomains = test\n[domain/test]\nid_provider = ldap\n"
                           "%s", lines);
    assert_non_null(text);
    ret = confdb_parse_buffer(t->mem, "test.conf", text, strlen(text), &cdb, &err);
    if (ret != EOK) {
        fail_msg("config refused: %s", err != NULL ? err : sss_strerror(ret));
    }
    return cdb;
}

struct sdap_id_ctx *fx_ctx(struct test_ctx *t, const char *fmt, ...)
{
    struct sdap_id_ctx *id_ctx = NULL;
    char *lines;
    va_list ap;

    va_start(ap, fmt);
    lines = talloc_vasprintf(t->mem, fmt, ap);
    va_end(ap);
    assert_non_null(lines);
    assert_int_equal(sdap_id_ctx_create(t->mem, t->ev, fx_confdb(t, lines), "test",
                                        &id_ctx), EOK);
    t->id_ctx = id_ctx;
    return id_ctx;
}

errno_t fx_get_user(struct test_ctx *t, struct sdap_id_ctx *id_ctx, enum sdap_by by,
                              const char *name, uint32_t id, struct sdap_user **_user)
{
    struct tevent_req *req = sdap_get_user_send(t->mem, t->ev, id_ctx, by, name, id);
    struct sdap_user *dummy = NULL;
    errno_t ret;

    tc_wait_req(t->ev, req);
    ret = sdap_get_user_recv(t->mem, req, _user != NULL ? _user : &dummy);
    talloc_free(req);
    return ret;
}

void fx_debug_from_env(void)
{
    const char *level = getenv("SDAP_TEST_DEBUG");

    if (level != NULL) {
        debug_level = debug_convert_level(atoi(level));
    }
}
