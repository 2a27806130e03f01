/*
 * Unit tests of src/db/sysdb_creds (cached credentials) on temporary cache files, once per
 * ldb back-end: store and check, wrong password counted, expiry from the last online
 * authentication, the failed-attempt delay and its end, reset by an online login, short and
 * uncacheable passwords, no hash, unknown user, a weak stored hash refused, the hash salted
 * and slow (its prefix and cost), the hash kept across user updates and gone with the user.
 * Every test checks for talloc leaks (sysdb_fixture.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "tests/unit/db/sysdb_fixture.h"
#include "util/util.h"
#include "db/sysdb_private.h"
#include "db/sysdb_creds.h"

#define PW "Secret123!"
#define PW_LEN (sizeof(PW) - 1)
#define DAY 86400

static const struct sysdb_creds_policy pol_default = {
    .expiration_days = 0, .failed_attempts = 0, .failed_delay_min = 5, .min_len = 0,
};

static errno_t check(struct test_ctx *tc, const char *pw, const struct sysdb_creds_policy *pol,
                     time_t now, time_t *expires, time_t *until)
{
    return sysdb_creds_check(tc->sysdb, "joe", (const uint8_t *)pw, strlen(pw), pol, now,
                             expires, until);
}

static void save(struct test_ctx *tc, const char *pw, const struct sysdb_creds_policy *pol,
                 time_t now)
{
    assert_int_equal(sysdb_creds_save(tc->sysdb, "joe", (const uint8_t *)pw, strlen(pw), pol,
                                      now), EOK);
}

/* The raw stored hash of joe (NULL when none), on mem. */
static char *raw_hash(struct test_ctx *tc)
{
    const char *attrs[] = { "pwHash", NULL };
    struct ldb_message *msg;
    struct ldb_dn *dn;
    const char *h;
    char *copy;

    assert_int_equal(sysdb_name_dn(tc->mem, tc->sysdb, SYSDB_KIND_USER, "joe", &dn), EOK);
    assert_int_equal(sysdb_read_entry(tc->mem, tc->sysdb, dn, attrs, &msg), EOK);
    h = sysdb_msg_str(msg, "pwHash");
    copy = h == NULL ? NULL : talloc_strdup(tc->mem, h);
    talloc_free(msg);
    talloc_free(dn);
    return copy;
}

/* Overwrites joe's stored hash with h (a tampered or foreign cache). */
static void set_raw_hash(struct test_ctx *tc, const char *h)
{
    struct ldb_message *msg;

    msg = ldb_msg_new(tc->mem);
    assert_non_null(msg);
    assert_int_equal(sysdb_name_dn(msg, tc->sysdb, SYSDB_KIND_USER, "joe", &msg->dn), EOK);
    assert_int_equal(sysdb_msg_set_str(msg, "pwHash", h), EOK);
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    assert_int_equal(sysdb_transaction_end(tc->sysdb,
                                           sysdb_write_entry(tc->sysdb, msg, SYSDB_EXISTS_YES)),
                     EOK);
    talloc_free(msg);
}

static void test_save_check(void **state)
{
    struct test_ctx *tc = *state;
    time_t expires = 42;
    char *h1;
    char *h2;

    store_user(tc->sysdb, "joe", 1001);
    assert_int_equal(check(tc, PW, &pol_default, NOW, &expires, NULL), ERR_NO_CACHED_CREDS);
    save(tc, PW, &pol_default, NOW);
    assert_int_equal(check(tc, PW, &pol_default, NOW + 10, &expires, NULL), EOK);
    assert_int_equal(expires, 0);
    /* Any accepted name form. */
    assert_int_equal(sysdb_creds_check(tc->sysdb, "joe@" DOM, (const uint8_t *)PW, PW_LEN,
                                       &pol_default, NOW, NULL, NULL), EOK);

    /* Salted and slow: yescrypt with the chosen cost, never the same hash twice. */
    h1 = raw_hash(tc);
    assert_non_null(h1);
    assert_true(strncmp(h1, "$y$", 3) == 0);
    assert_null(strstr(h1, PW));
    save(tc, PW, &pol_default, NOW);
    h2 = raw_hash(tc);
    assert_true(strncmp(h2, "$y$", 3) == 0);
    assert_string_not_equal(h1, h2);
    assert_int_equal(check(tc, PW, &pol_default, NOW, NULL, NULL), EOK);
    talloc_free(h1);
    talloc_free(h2);
}

static void test_wrong(void **state)
{
    struct test_ctx *tc = *state;
    time_t expires = 42;

    store_user(tc->sysdb, "joe", 1001);
    save(tc, PW, &pol_default, NOW);
    assert_int_equal(check(tc, "Secret123", &pol_default, NOW, &expires, NULL),
                     ERR_AUTH_FAILED);
    assert_int_equal(expires, 42);  /* untouched on failure */
    assert_int_equal(check(tc, PW "x", &pol_default, NOW, NULL, NULL), ERR_AUTH_FAILED);
    assert_int_equal(check(tc, "secret123!", &pol_default, NOW, NULL, NULL), ERR_AUTH_FAILED);
    assert_int_equal(check(tc, "", &pol_default, NOW, NULL, NULL), ERR_AUTH_FAILED);
    /* A NUL inside: never the password truncated at it. */
    assert_int_equal(sysdb_creds_check(tc->sysdb, "joe", (const uint8_t *)PW "\0zz",
                                       PW_LEN + 3, &pol_default, NOW, NULL, NULL),
                     ERR_AUTH_FAILED);
    /* No limit configured: still accepted after many failures. */
    assert_int_equal(check(tc, PW, &pol_default, NOW, NULL, NULL), EOK);
}

static void test_expired(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_creds_policy pol = pol_default;
    time_t expires = 0;

    pol.expiration_days = 3;
    store_user(tc->sysdb, "joe", 1001);
    save(tc, PW, &pol, NOW);
    assert_int_equal(check(tc, PW, &pol, NOW + 3 * DAY, &expires, NULL), EOK);
    assert_int_equal(expires, NOW + 3 * DAY);
    assert_int_equal(check(tc, PW, &pol, NOW + 3 * DAY + 1, NULL, NULL),
                     ERR_CACHED_CREDS_EXPIRED);
    /* A wrong password is refused as expired too, and not counted. */
    assert_int_equal(check(tc, "bad", &pol, NOW + 4 * DAY, NULL, NULL),
                     ERR_CACHED_CREDS_EXPIRED);
    /* A later online login renews it. */
    save(tc, PW, &pol, NOW + 4 * DAY);
    assert_int_equal(check(tc, PW, &pol, NOW + 5 * DAY, &expires, NULL), EOK);
    assert_int_equal(expires, NOW + 7 * DAY);
    /* Huge settings do not overflow into "valid". */
    pol.expiration_days = UINT32_MAX;
    assert_int_equal(check(tc, PW, &pol, NOW + 5 * DAY, &expires, NULL), EOK);
    assert_true(expires > NOW);
}

static void test_delay(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_creds_policy pol = pol_default;
    time_t until = 0;
    time_t expires = 1;

    pol.failed_attempts = 3;
    pol.failed_delay_min = 5;
    store_user(tc->sysdb, "joe", 1001);
    save(tc, PW, &pol, NOW);
    assert_int_equal(check(tc, "bad1", &pol, NOW + 10, NULL, &until), ERR_AUTH_FAILED);
    assert_int_equal(check(tc, "bad2", &pol, NOW + 20, NULL, &until), ERR_AUTH_FAILED);
    assert_int_equal(check(tc, "bad3", &pol, NOW + 30, NULL, &until), ERR_AUTH_FAILED);
    assert_int_equal(until, 0);
    /* Third failure at NOW+30: wait 5 minutes from it, even with the right password. */
    assert_int_equal(check(tc, PW, &pol, NOW + 31, NULL, &until), ERR_AUTH_DELAYED);
    assert_int_equal(until, NOW + 30 + 300);
    /* Attempts during the wait are not counted and do not extend it. */
    assert_int_equal(check(tc, "bad4", &pol, NOW + 200, NULL, &until), ERR_AUTH_DELAYED);
    assert_int_equal(until, NOW + 30 + 300);
    assert_int_equal(check(tc, PW, &pol, NOW + 330, NULL, &until), ERR_AUTH_DELAYED);
    /* Once over, the count starts again: one more failure is not a new delay. */
    assert_int_equal(check(tc, "bad5", &pol, NOW + 331, NULL, &until), ERR_AUTH_FAILED);
    assert_int_equal(check(tc, PW, &pol, NOW + 332, &expires, &until), EOK);
    assert_int_equal(expires, 0);
    /* The success reset the count: two failures, then the right password. */
    assert_int_equal(check(tc, "bad6", &pol, NOW + 400, NULL, NULL), ERR_AUTH_FAILED);
    assert_int_equal(check(tc, "bad7", &pol, NOW + 401, NULL, NULL), ERR_AUTH_FAILED);
    assert_int_equal(check(tc, PW, &pol, NOW + 402, NULL, NULL), EOK);
    assert_int_equal(check(tc, "bad8", &pol, NOW + 403, NULL, NULL), ERR_AUTH_FAILED);
    assert_int_equal(check(tc, PW, &pol, NOW + 404, NULL, NULL), EOK);
}

static void test_delay_zero_and_online_reset(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_creds_policy pol = pol_default;
    time_t until = 42;

    pol.failed_attempts = 2;
    pol.failed_delay_min = 0;
    store_user(tc->sysdb, "joe", 1001);
    save(tc, PW, &pol, NOW);
    assert_int_equal(check(tc, "bad1", &pol, NOW, NULL, NULL), ERR_AUTH_FAILED);
    assert_int_equal(check(tc, "bad2", &pol, NOW, NULL, NULL), ERR_AUTH_FAILED);
    /* No delay configured: refused until an online login. */
    assert_int_equal(check(tc, PW, &pol, NOW + 365 * DAY, NULL, &until), ERR_AUTH_DELAYED);
    assert_int_equal(until, 0);
    save(tc, PW, &pol, NOW + 365 * DAY);
    assert_int_equal(check(tc, PW, &pol, NOW + 365 * DAY, NULL, NULL), EOK);

    /* The same with a delay: an online login ends it at once. */
    pol.failed_delay_min = 60;
    assert_int_equal(check(tc, "bad1", &pol, NOW + 1000, NULL, NULL), ERR_AUTH_FAILED);
    assert_int_equal(check(tc, "bad2", &pol, NOW + 1000, NULL, NULL), ERR_AUTH_FAILED);
    assert_int_equal(check(tc, PW, &pol, NOW + 1001, NULL, NULL), ERR_AUTH_DELAYED);
    save(tc, PW, &pol, NOW + 1002);
    assert_int_equal(check(tc, PW, &pol, NOW + 1003, NULL, NULL), EOK);
}

static void test_short_and_uncacheable(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_creds_policy pol = pol_default;
    char long_pw[SYSDB_CREDS_PASSWORD_MAX + 2];
    char *h;

    pol.min_len = 8;
    store_user(tc->sysdb, "joe", 1001);
    save(tc, PW, &pol, NOW);
    assert_int_equal(check(tc, PW, &pol, NOW, NULL, NULL), EOK);
    /* A short password is not cached and the older hash goes. */
    save(tc, "short", &pol, NOW + 1);
    assert_null(h = raw_hash(tc));
    assert_int_equal(check(tc, "short", &pol, NOW + 2, NULL, NULL), ERR_NO_CACHED_CREDS);
    assert_int_equal(check(tc, PW, &pol, NOW + 2, NULL, NULL), ERR_NO_CACHED_CREDS);

    /* Exactly min_len is cached. */
    save(tc, "12345678", &pol, NOW + 3);
    assert_int_equal(check(tc, "12345678", &pol, NOW + 4, NULL, NULL), EOK);

    /* Too long for libcrypt: not cached (and can never match). */
    memset(long_pw, 'a', sizeof(long_pw) - 1);
    long_pw[sizeof(long_pw) - 1] = '\0';
    save(tc, long_pw, &pol, NOW + 5);
    assert_null(h = raw_hash(tc));
    assert_int_equal(check(tc, long_pw, &pol, NOW + 6, NULL, NULL), ERR_NO_CACHED_CREDS);
    /* The longest accepted is cached. */
    long_pw[SYSDB_CREDS_PASSWORD_MAX] = '\0';
    save(tc, long_pw, &pol, NOW + 7);
    assert_int_equal(check(tc, long_pw, &pol, NOW + 8, NULL, NULL), EOK);

    /* A NUL inside: not cached. */
    assert_int_equal(sysdb_creds_save(tc->sysdb, "joe", (const uint8_t *)"abcdefgh\0ij", 11,
                                      &pol, NOW + 9), EOK);
    assert_null(h = raw_hash(tc));
}

static void test_unknown_and_invalid(void **state)
{
    struct test_ctx *tc = *state;
    const uint8_t *pw = (const uint8_t *)PW;

    assert_int_equal(sysdb_creds_save(tc->sysdb, "nobody", pw, PW_LEN, &pol_default, NOW),
                     ENOENT);
    assert_int_equal(sysdb_creds_check(tc->sysdb, "nobody", pw, PW_LEN, &pol_default, NOW,
                                       NULL, NULL), ENOENT);
    store_user(tc->sysdb, "joe", 1001);
    assert_int_equal(sysdb_creds_save(NULL, "joe", pw, PW_LEN, &pol_default, NOW), EINVAL);
    assert_int_equal(sysdb_creds_save(tc->sysdb, NULL, pw, PW_LEN, &pol_default, NOW), EINVAL);
    assert_int_equal(sysdb_creds_save(tc->sysdb, "joe", NULL, PW_LEN, &pol_default, NOW),
                     EINVAL);
    assert_int_equal(sysdb_creds_save(tc->sysdb, "joe", pw, 0, &pol_default, NOW), EINVAL);
    assert_int_equal(sysdb_creds_save(tc->sysdb, "joe", pw, PW_LEN, NULL, NOW), EINVAL);
    assert_int_equal(sysdb_creds_save(tc->sysdb, "joe", pw, PW_LEN, &pol_default, -1), EINVAL);
    assert_int_equal(sysdb_creds_save(tc->sysdb, "", pw, PW_LEN, &pol_default, NOW), EINVAL);
    assert_int_equal(sysdb_creds_check(tc->sysdb, "joe", NULL, 3, &pol_default, NOW,
                                       NULL, NULL), EINVAL);
    assert_int_equal(sysdb_creds_check(tc->sysdb, "joe", pw, PW_LEN, NULL, NOW,
                                       NULL, NULL), EINVAL);
    /* Nothing was cached by the refused calls. */
    assert_int_equal(check(tc, PW, &pol_default, NOW, NULL, NULL), ERR_NO_CACHED_CREDS);
}

static void test_weak_or_broken_hash(void **state)
{
    struct test_ctx *tc = *state;
    static const char *const refused[] = {
        "abJnggxhB/yWI",                            /* DES, unsalted in effect */
        "$1$saltsalt$qjXMvbEw8oaL.CzflDugX/",       /* MD5 */
        "garbage",
        "$y$",
        NULL
    };
    size_t i;

    store_user(tc->sysdb, "joe", 1001);
    save(tc, PW, &pol_default, NOW);
    for (i = 0; refused[i] != NULL; i++) {
        set_raw_hash(tc, refused[i]);
        assert_int_not_equal(check(tc, PW, &pol_default, NOW, NULL, NULL), EOK);
        assert_int_not_equal(check(tc, "x", &pol_default, NOW, NULL, NULL), EOK);
    }
    /* A stored SHA-512 crypt hash is still verified (a slow, salted method). */
    set_raw_hash(tc, "$6$saltsaltsaltsalt$Q66YKq.ML7swHPnrdImvkdxUcXQQNIJ.tMGEEp9no0Ae"
                     "nhyhJnJaF/BVbyCHmCFyQ7Mpe6cyIbOUXdR6pX0OF1");
    assert_int_equal(check(tc, "x", &pol_default, NOW, NULL, NULL), ERR_AUTH_FAILED);
    assert_int_equal(check(tc, PW, &pol_default, NOW, NULL, NULL), EOK);
}

static void test_kept_and_removed_with_user(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user u = { .name = "joe", .uid = 1001, .gid = 1001, .gecos = "new" };
    struct sysdb_user *r;

    store_user(tc->sysdb, "joe", 1001);
    save(tc, PW, &pol_default, NOW);
    /* A refresh of the user (and sss_cache) keeps the hash; the user's lookups are
     * unchanged by it. */
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW + 5, TMO), EOK);
    assert_int_equal(sysdb_expire_user(tc->sysdb, "joe"), EOK);
    assert_int_equal(check(tc, PW, &pol_default, NOW + 6, NULL, NULL), EOK);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), EOK);
    assert_string_equal(r->gecos, "new");
    talloc_free(r);
    /* Deleted user: the hash is gone, a new user of that name has none. */
    assert_int_equal(sysdb_delete_user(tc->sysdb, "joe"), EOK);
    assert_int_equal(check(tc, PW, &pol_default, NOW + 7, NULL, NULL), ENOENT);
    store_user(tc->sysdb, "joe", 1001);
    assert_int_equal(check(tc, PW, &pol_default, NOW + 8, NULL, NULL), ERR_NO_CACHED_CREDS);
    /* Another user taking the uid removes the old user with its hash. */
    save(tc, PW, &pol_default, NOW + 9);
    store_user(tc->sysdb, "other", 1001);
    assert_int_equal(check(tc, PW, &pol_default, NOW + 10, NULL, NULL), ENOENT);
}

static void test_malformed_counters(void **state)
{
    struct test_ctx *tc = *state;
    struct ldb_message *msg;

    store_user(tc->sysdb, "joe", 1001);
    save(tc, PW, &pol_default, NOW);
    msg = ldb_msg_new(tc->mem);
    assert_non_null(msg);
    assert_int_equal(sysdb_name_dn(msg, tc->sysdb, SYSDB_KIND_USER, "joe", &msg->dn), EOK);
    assert_int_equal(sysdb_msg_set_str(msg, "pwFailed", "-3"), EOK);
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    assert_int_equal(sysdb_transaction_end(tc->sysdb,
                                           sysdb_write_entry(tc->sysdb, msg, SYSDB_EXISTS_YES)),
                     EOK);
    talloc_free(msg);
    /* A damaged entry is an error, never a success. */
    assert_int_equal(check(tc, PW, &pol_default, NOW, NULL, NULL), EIO);
    /* An online login repairs it. */
    save(tc, PW, &pol_default, NOW + 1);
    assert_int_equal(check(tc, PW, &pol_default, NOW + 2, NULL, NULL), EOK);
}

/* The two halves the back-end uses (hash off the loop, store on it) give what
 * sysdb_creds_save gives; a store refuses a weak hash; "" removes the older hash. */
static void test_hash_then_store(void **state)
{
    struct test_ctx *tc = *state;
    char hash[SYSDB_CREDS_HASH_SIZE];
    char other[SYSDB_CREDS_HASH_SIZE];
    char *h;

    store_user(tc->sysdb, "joe", 1001);
    assert_int_equal(sysdb_creds_hash((const uint8_t *)PW, PW_LEN, 0, hash), EOK);
    assert_int_equal(strncmp(hash, "$y$", 3), 0);
    /* Salted: the same password never hashes the same twice. */
    assert_int_equal(sysdb_creds_hash((const uint8_t *)PW, PW_LEN, 0, other), EOK);
    assert_string_not_equal(hash, other);
    assert_int_equal(sysdb_creds_store(tc->sysdb, "joe", hash, NOW), EOK);
    assert_int_equal(check(tc, PW, &pol_default, NOW + 1, NULL, NULL), EOK);
    assert_int_equal(check(tc, "Secret123?", &pol_default, NOW + 1, NULL, NULL),
                     ERR_AUTH_FAILED);
    /* An online store resets the failed count, like sysdb_creds_save. */
    assert_int_equal(sysdb_creds_store(tc->sysdb, "joe", other, NOW + 2), EOK);
    assert_int_equal(check(tc, PW, &pol_default, NOW + 3, NULL, NULL), EOK);

    /* Uncacheable (shorter than min_len, NUL inside, too long): "", and storing it removes
     * the older hash. */
    assert_int_equal(sysdb_creds_hash((const uint8_t *)PW, PW_LEN, PW_LEN + 1, hash), EOK);
    assert_string_equal(hash, "");
    assert_int_equal(sysdb_creds_hash((const uint8_t *)"ab\0cd", 5, 0, hash), EOK);
    assert_string_equal(hash, "");
    assert_int_equal(sysdb_creds_store(tc->sysdb, "joe", hash, NOW + 4), EOK);
    assert_null(h = raw_hash(tc));
    assert_int_equal(check(tc, PW, &pol_default, NOW + 5, NULL, NULL), ERR_NO_CACHED_CREDS);

    /* Weak or malformed hashes are never stored; bad arguments. */
    assert_int_equal(sysdb_creds_store(tc->sysdb, "joe", "$1$saltsalt$qjXMvbEw8oaL.CzflDugX/",
                                       NOW), EINVAL);
    assert_int_equal(sysdb_creds_store(tc->sysdb, "joe", "garbage", NOW), EINVAL);
    assert_int_equal(sysdb_creds_store(tc->sysdb, "joe", NULL, NOW), EINVAL);
    assert_int_equal(sysdb_creds_store(tc->sysdb, "nobody", other, NOW), ENOENT);
    assert_int_equal(sysdb_creds_hash(NULL, 3, 0, hash), EINVAL);
    assert_int_equal(sysdb_creds_hash((const uint8_t *)PW, 0, 0, hash), EINVAL);
    assert_null(h = raw_hash(tc));
}

/* The last online access verdict: none, stored, replaced, independent of the hash, gone
 * with the user. */
static void test_access_verdict(void **state)
{
    struct test_ctx *tc = *state;
    bool known = true;
    uint32_t status = 99;

    assert_int_equal(sysdb_creds_get_access(tc->sysdb, "joe", &known, &status), ENOENT);
    assert_int_equal(sysdb_creds_set_access(tc->sysdb, "joe", 6), ENOENT);
    store_user(tc->sysdb, "joe", 1001);
    assert_int_equal(sysdb_creds_get_access(tc->sysdb, "joe", &known, &status), EOK);
    assert_false(known);
    assert_int_equal(sysdb_creds_set_access(tc->sysdb, "joe", 6), EOK);
    assert_int_equal(sysdb_creds_get_access(tc->sysdb, "joe", &known, &status), EOK);
    assert_true(known);
    assert_int_equal(status, 6);
    save(tc, PW, &pol_default, NOW);
    assert_int_equal(sysdb_creds_set_access(tc->sysdb, "joe", 0), EOK);
    assert_int_equal(sysdb_creds_get_access(tc->sysdb, "joe", &known, &status), EOK);
    assert_int_equal(status, 0);
    assert_int_equal(check(tc, PW, &pol_default, NOW + 1, NULL, NULL), EOK);
    assert_int_equal(sysdb_creds_set_access(NULL, "joe", 0), EINVAL);
    assert_int_equal(sysdb_creds_get_access(tc->sysdb, "joe", NULL, &status), EINVAL);
    assert_int_equal(sysdb_delete_user(tc->sysdb, "joe"), EOK);
    store_user(tc->sysdb, "joe", 1001);
    assert_int_equal(sysdb_creds_get_access(tc->sysdb, "joe", &known, &status), EOK);
    assert_false(known);
}

static const struct CMUnitTest tests[] = {
    T(test_access_verdict),
    T(test_hash_then_store),
    T(test_save_check),
    T(test_wrong),
    T(test_expired),
    T(test_delay),
    T(test_delay_zero_and_online_reset),
    T(test_short_and_uncacheable),
    T(test_unknown_and_invalid),
    T(test_weak_or_broken_hash),
    T(test_kept_and_removed_with_user),
    T(test_malformed_counters),
};

int main(void)
{
    int failed;

    sysdb_fixture_warm_up();
    backend = SYSDB_BACKEND_TDB;
    failed = cmocka_run_group_tests_name("sysdb_creds_tdb", tests, NULL, NULL);
    backend = SYSDB_BACKEND_MDB;
    failed += cmocka_run_group_tests_name("sysdb_creds_mdb", tests, NULL, NULL);
    return failed;
}
