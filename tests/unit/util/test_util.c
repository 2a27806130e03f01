/* Unit tests of src/util: bus name escaping, error texts, debug level translation, request
 * ids and their tracking across the event loop. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/util.h"

static void test_bus_name_escape(void **state)
{
    char *s;

    s = sss_domain_bus_name(NULL, "ldap.test");
    assert_string_equal(s, "sssd.domain_ldap_2etest");
    talloc_free(s);

    s = sss_bus_name_escape(NULL, "a-b_c Z9");
    assert_string_equal(s, "a_2db_5fc_20Z9");
    talloc_free(s);

    s = sss_bus_name_escape(NULL, "\xc3\xa9");
    assert_string_equal(s, "_c3_a9");
    talloc_free(s);

    s = sss_bus_name_escape(NULL, "");
    assert_string_equal(s, "");
    talloc_free(s);

    assert_null(sss_bus_name_escape(NULL, NULL));
}

static void test_strerror(void **state)
{
    assert_string_equal(sss_strerror(EOK), strerror(0));
    assert_string_equal(sss_strerror(ENOENT), strerror(ENOENT));
    assert_string_equal(sss_strerror(ERR_SBUS_UNKNOWN_SERVICE), "No such service on the bus");
    assert_string_equal(sss_strerror(ERR_BASE + 0xFFF0), "Unknown project error");
    assert_true(IS_SSSD_ERROR(ERR_INTERNAL));
    assert_false(IS_SSSD_ERROR(EINVAL));
}

static void test_debug_levels(void **state)
{
    assert_int_equal(debug_convert_level(0), SSSDBG_FATAL_FAILURE);
    assert_int_equal(debug_convert_level(2), SSSDBG_DEFAULT);
    assert_int_equal(debug_convert_level(9), 0x17FF0);
    assert_int_equal(debug_convert_level(0x3ff0), 0x3ff0);
    assert_int_equal(debug_convert_level(-1), SSSDBG_DEFAULT);
}

static void test_logger_parse(void **state)
{
    enum sss_logger l;

    assert_int_equal(debug_parse_logger("stderr", &l), EOK);
    assert_int_equal(l, SSS_LOGGER_STDERR);
    assert_int_equal(debug_parse_logger("files", &l), EOK);
    assert_int_equal(l, SSS_LOGGER_FILES);
    assert_int_equal(debug_parse_logger("journald2", &l), EINVAL);
    assert_int_equal(debug_parse_logger(NULL, &l), EINVAL);
}

static void test_new_req_id(void **state)
{
    uint64_t a = sss_new_req_id();
    uint64_t b = sss_new_req_id();

    /* The pid in the high half (unique across the star), a counter in the low half. */
    assert_int_equal(a >> 32, (uint64_t)getpid());
    assert_int_equal(b >> 32, (uint64_t)getpid());
    assert_int_not_equal(a & 0xffffffffu, 0);
    assert_int_equal(b, a + 1);
}

/* What a handler saw as the current request id. */
struct seen {
    uint64_t timer;
    uint64_t immediate;
    uint64_t fd;
    int fired;
};

static void seen_timer(struct tevent_context *ev, struct tevent_timer *te,
                       struct timeval now, void *pvt)
{
    struct seen *seen = pvt;

    seen->timer = sss_debug_req_id;
    seen->fired++;
}

static void seen_immediate(struct tevent_context *ev, struct tevent_immediate *im, void *pvt)
{
    struct seen *seen = pvt;

    seen->immediate = sss_debug_req_id;
    seen->fired++;
}

static void seen_fd(struct tevent_context *ev, struct tevent_fd *fde, uint16_t flags,
                    void *pvt)
{
    struct seen *seen = pvt;

    seen->fd = sss_debug_req_id;
    seen->fired++;
    TEVENT_FD_NOT_READABLE(fde);
}

static void test_req_id_track(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct tevent_context *ev = tevent_context_init(mem);
    struct seen seen = { 0 };
    struct tevent_immediate *im;
    int fds[2];

    assert_non_null(ev);
    sss_req_id_track(ev);
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], "x", 1), 1);

    /* Each event is scheduled under its own id, then the loop runs under another one. */
    sss_debug_req_id = 0x111;
    assert_non_null(tevent_add_timer(ev, mem, tevent_timeval_current_ofs(0, 1000), seen_timer,
                                     &seen));
    sss_debug_req_id = 0x222;
    im = tevent_create_immediate(mem);
    assert_non_null(im);
    tevent_schedule_immediate(im, ev, seen_immediate, &seen);
    sss_debug_req_id = 0x333;
    assert_non_null(tevent_add_fd(ev, mem, fds[0], TEVENT_FD_READ, seen_fd, &seen));
    sss_debug_req_id = 0x999;

    while (seen.fired < 3) {
        assert_int_equal(tevent_loop_once(ev), 0);
    }
    assert_int_equal(seen.timer, 0x111);
    assert_int_equal(seen.immediate, 0x222);
    assert_int_equal(seen.fd, 0);       /* fds serve no request until read */

    sss_debug_req_id = 0;
    close(fds[0]);
    close(fds[1]);
    talloc_free(mem);
}

/* The scope restores the outer id on every way out: fall-through, return, nested scopes. */
static uint64_t scoped_return(uint64_t id, bool early)
{
    SSS_REQ_ID_SCOPE(id);

    if (early) {
        return sss_debug_req_id;
    }
    {
        SSS_REQ_ID_SCOPE(id + 1);
        assert_int_equal(sss_debug_req_id, id + 1);
    }
    return sss_debug_req_id;
}

static void test_req_id_scope(void **state)
{
    sss_debug_req_id = 0x42;
    assert_int_equal(scoped_return(0x100, true), 0x100);
    assert_int_equal(sss_debug_req_id, 0x42);
    assert_int_equal(scoped_return(0x200, false), 0x200);
    assert_int_equal(sss_debug_req_id, 0x42);
    for (int i = 0; i < 3; i++) {
        SSS_REQ_ID_SCOPE(0x300 + i);
        assert_int_equal(sss_debug_req_id, 0x300 + i);
        if (i == 1) {
            continue;
        }
    }
    assert_int_equal(sss_debug_req_id, 0x42);
    sss_debug_req_id = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bus_name_escape),
        cmocka_unit_test(test_strerror),
        cmocka_unit_test(test_debug_levels),
        cmocka_unit_test(test_logger_parse),
        cmocka_unit_test(test_new_req_id),
        cmocka_unit_test(test_req_id_track),
        cmocka_unit_test(test_req_id_scope),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
