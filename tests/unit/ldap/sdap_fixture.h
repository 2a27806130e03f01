/*
 * What test_sdap and test_sdap_tls share: the per-test context (a talloc tree checked
 * for leaks against the NULL context's baseline, an event loop), the slapd addresses their
 * wrapper scripts export, id contexts built from [domain/test] option lines, and a user
 * lookup run to its end (prefix fx_, the fixture). Include after cmocka.h.
 */
#ifndef SDAP_FIXTURE_H
#define SDAP_FIXTURE_H

#include "util/util.h"
#include "confdb/confdb.h"
#include "providers/ldap/sdap_private.h"
#include "tests/unit/common/tc_common.h"

struct test_ctx {
    struct tc_leaks leaks;
    TALLOC_CTX *mem;
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;     /* the last one fx_ctx() made */
};

/* cmocka setup and teardown: a fresh test_ctx; everything freed and nothing leaked. */
int fx_setup(void **state);
int fx_teardown(void **state);
#define FX_TEST(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

/* The environment variable name, set by the wrapper script; fails the test if unset. */
const char *fx_env(const char *name);

/* The confdb of "[sssd] domains = test" and a [domain/test] section (id_provider = ldap)
 * holding lines. */
struct confdb *fx_confdb(struct test_ctx *t, const char *lines);

/* The id context of domain "test" from the option lines of fmt (printf-like), on t->mem;
 * also set as t->id_ctx. */
struct sdap_id_ctx *fx_ctx(struct test_ctx *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* sdap_get_user through id_ctx, run to its end; _user may be NULL. */
errno_t fx_get_user(struct test_ctx *t, struct sdap_id_ctx *id_ctx, enum sdap_by by,
                              const char *name, uint32_t id, struct sdap_user **_user);

/* Turns the provider's logging on when SDAP_TEST_DEBUG names a level. */
void fx_debug_from_env(void);

#endif /* SDAP_FIXTURE_H */
