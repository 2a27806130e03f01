/*
 * Unit tests of the responder's check of a carried entry (sysdb_reply_put, sysdb_reply.c)
 * on entries no back-end of ours writes: a list offset near SIZE_MAX (its bounds sum used
 * to wrap, so the walk started 8 bytes before the blob and, when that word was 0, the
 * entry was taken and relocation wrote there), and an entry larger than the read cache
 * keeps (it used to be checked whole, then reported stored while the cache dropped it).
 * A well-formed entry is taken and read back, so that the refusals are not the only way
 * the check answers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/unit/common/tc_common.h"
#include "util/util.h"
#include "db/sysdb_private.h"
#include "db/sysdb_reply.h"

#define DOM "check.dom"

struct rc_test {
    TALLOC_CTX *mem;
    char *dir;
    struct sysdb_ctx *sysdb;
};

static int setup(void **state)
{
    struct rc_test *t = talloc_zero(NULL, struct rc_test);

    assert_non_null(t);
    t->mem = t;
    t->dir = tc_tmpdir(t, "test_sysdb_reply_check");
    assert_int_equal(sysdb_open_ext(t, t->dir, DOM, SYSDB_CASE_INSENSITIVE,
                                    SYSDB_BACKEND_MDB, &t->sysdb), EOK);
    assert_int_not_equal(sysdb_rcache_gen(t->sysdb), 0);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct rc_test *t = *state;

    talloc_free(t->sysdb);
    tc_tmpdir_remove(t->dir);
    talloc_free(t);
    return 0;
}

/* alice's flat entry; gecos_len > 0: a gecos of that many 'x'. */
static void *flat_alice(TALLOC_CTX *mem, size_t gecos_len, size_t *_len)
{
    const char *extra[] = { NULL };
    struct sysdb_user u = {
        .name = "alice@" DOM, .uid = 10001, .gid = 10001, .home = "/home/alice",
        .shell = "/bin/sh", .extra = extra,
    };
    char *gecos = NULL;
    void *blob;

    if (gecos_len > 0) {
        gecos = talloc_zero_size(mem, gecos_len + 1);
        assert_non_null(gecos);
        memset(gecos, 'x', gecos_len);
        u.gecos = gecos;
    }
    assert_int_equal(sysdb_flat_user(mem, &u, &blob, _len), EOK);
    return blob;
}

static void test_well_formed_taken(void **state)
{
    struct rc_test *t = *state;
    struct sysdb_reply_key key = { .kind = SYSDB_RC_USER_NAME, .name = "alice" };
    struct sysdb_user *u;
    size_t len;
    void *blob = flat_alice(t, 0, &len);

    assert_int_equal(sysdb_reply_put(t->sysdb, &key, sysdb_rcache_gen(t->sysdb), blob, len),
                     EOK);
    /* The database is empty: only the taken entry can answer. */
    assert_int_equal(sysdb_get_user_by_name(t, t->sysdb, "alice", &u), EOK);
    assert_string_equal(u->name, "alice@" DOM);
    assert_string_equal(u->home, "/home/alice");
    assert_null(u->extra[0]);
}

/* The blob with its extra list's offset replaced, copied behind a zero word (what the
 * wrapped walk read first: a 0 there ended the list at once). */
static void check_list_offset(struct rc_test *t, uintptr_t off)
{
    struct sysdb_reply_key key = { .kind = SYSDB_RC_USER_NAME, .name = "alice" };
    struct sysdb_user h;
    uint64_t *room;
    size_t len;
    void *blob = flat_alice(t, 0, &len);

    memcpy(&h, blob, sizeof(h));
    h.extra = (const char **)off;
    memcpy(blob, &h, sizeof(h));
    room = talloc_zero_array(t, uint64_t, 1 + (len + 7) / 8);
    assert_non_null(room);
    memcpy(room + 1, blob, len);
    assert_int_equal(sysdb_reply_put(t->sysdb, &key, sysdb_rcache_gen(t->sysdb), room + 1,
                                     len), EINVAL);
}

static void test_list_offset_wraps(void **state)
{
    check_list_offset(*state, (uintptr_t)0 - 8);
    check_list_offset(*state, (uintptr_t)0 - 16);
}

static void test_list_offset_at_end(void **state)
{
    struct rc_test *t = *state;
    size_t len;

    (void)flat_alice(t, 0, &len);
    check_list_offset(t, (len + 7) & ~(size_t)7);
}

static void test_too_big_not_taken(void **state)
{
    struct rc_test *t = *state;
    struct sysdb_reply_key key = { .kind = SYSDB_RC_USER_NAME, .name = "alice" };
    size_t len;
    void *blob = flat_alice(t, SYSDB_RCACHE_MAX_ENTRY, &len);

    assert_true(len > SYSDB_RCACHE_MAX_ENTRY);
    /* EOK would promise that the read finds it: the read cache does not keep it. */
    assert_int_equal(sysdb_reply_put(t->sysdb, &key, sysdb_rcache_gen(t->sysdb), blob, len),
                     E2BIG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_well_formed_taken, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_offset_wraps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_offset_at_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_big_not_taken, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
