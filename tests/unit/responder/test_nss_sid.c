/* Unit tests of the by-SID wire code of sssd_nss (src/responder/nss/nss_protocol_sid.c):
 * the SID syntax check, the request body parser, the reply layouts SSSD's
 * libsss_nss_idmap reads (uint32 count, 0, type, then the string with its NUL or the id). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "responder/nss/nss_sid.h"
#include "sss_client/sss_cli.h"
#include "tests/unit/common/tc_common.h"

static struct tc_leaks leaks;

static int setup(void **state)
{
    tc_leak_start(&leaks);
    return 0;
}

static int teardown(void **state)
{
    tc_leak_check(&leaks);
    return 0;
}

static bool valid(const char *s)
{
    return nss_sid_str_valid(s, strlen(s));
}

static void test_sid_syntax(void **state)
{
    assert_true(valid("S-1-5-21-1193303005-3770482081-3744074285-1103"));
    assert_true(valid("S-1-5-32-544"));
    assert_true(valid("S-1-1-0"));
    assert_true(valid("S-1-5"));                /* no sub-authority at all */
    assert_true(valid("S-1-0x00000000000F-21"));
    assert_true(valid("S-1-281474976710655-1"));    /* 2^48 - 1 */
    assert_true(valid("S-1-5-4294967295"));
    assert_true(valid("S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15"));

    assert_false(valid(""));
    assert_false(valid("S-1-"));
    assert_false(valid("S-2-5-21"));            /* revision 1 only */
    assert_false(valid("s-1-5-21"));
    assert_false(valid("S-1-5-"));
    assert_false(valid("S-1-5--1"));
    assert_false(valid("S-1-5-21-x"));
    assert_false(valid("S-1-5-+21"));
    assert_false(valid("S-1-5-21 "));
    assert_false(valid("S-1-281474976710656-1"));   /* 2^48 */
    assert_false(valid("S-1-0x1000000000000-1"));   /* 13 hex digits */
    assert_false(valid("S-1-0x-1"));
    assert_false(valid("S-1-5-4294967296"));    /* 2^32 */
    assert_false(valid("S-1-5-99999999999999999999999"));
    assert_false(valid("S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16"));
    assert_false(nss_sid_str_valid("S-1-5\0-21", 9));
    assert_false(nss_sid_str_valid(NULL, 0));
}

static void test_sid_request(void **state)
{
    static const char sid[] = "S-1-5-21-1-2-3-500";
    const char *out = NULL;
    char big[NSS_SID_STR_MAX + 8];

    assert_int_equal(nss_sid_request_parse((const uint8_t *)sid, sizeof(sid), &out), EOK);
    assert_ptr_equal(out, sid);
    /* No NUL, bytes after the NUL, empty: no client sends these. */
    assert_int_equal(nss_sid_request_parse((const uint8_t *)sid, sizeof(sid) - 1, &out),
                     EBADMSG);
    assert_int_equal(nss_sid_request_parse((const uint8_t *)"S-1-5\0x", 8, &out), EBADMSG);
    assert_int_equal(nss_sid_request_parse((const uint8_t *)"", 0, &out), EBADMSG);
    /* Well-formed requests for something that is not a SID: answered EINVAL. */
    assert_int_equal(nss_sid_request_parse((const uint8_t *)"alice", 6, &out), EINVAL);
    assert_int_equal(nss_sid_request_parse((const uint8_t *)"", 1, &out), EINVAL);
    memset(big, '1', sizeof(big));
    memcpy(big, "S-1-5-", 6);
    big[sizeof(big) - 1] = '\0';
    assert_int_equal(nss_sid_request_parse((const uint8_t *)big, sizeof(big), &out), EINVAL);
}

/* The reply's body (after the 16-byte header). */
static const uint8_t *body_of(struct resp_reply *r, size_t *len)
{
    const uint8_t *p = resp_reply_packet(r, len);

    assert_true(*len >= 16);
    *len -= 16;
    return p + 16;
}

static uint32_t u32_at(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static void test_sid_replies(void **state)
{
    TALLOC_CTX *mem_ctx = talloc_new(NULL);
    struct resp_reply *r;
    const uint8_t *b;
    size_t len;

    r = nss_sid_reply_str(mem_ctx, SSS_NSS_GETSIDBYNAME, NSS_SID_TYPE_UID, "S-1-5-21-1-2-3-9");
    assert_non_null(r);
    b = body_of(r, &len);
    assert_int_equal(len, 12 + sizeof("S-1-5-21-1-2-3-9"));
    assert_int_equal(u32_at(b), 1);
    assert_int_equal(u32_at(b + 4), 0);
    assert_int_equal(u32_at(b + 8), 1);
    assert_string_equal((const char *)b + 12, "S-1-5-21-1-2-3-9");

    r = nss_sid_reply_id(mem_ctx, SSS_NSS_GETIDBYSID, NSS_SID_TYPE_GID, 1207601105);
    assert_non_null(r);
    b = body_of(r, &len);
    assert_int_equal(len, 16);
    assert_int_equal(u32_at(b + 8), 2);
    assert_int_equal(u32_at(b + 12), 1207601105);

    r = nss_sid_reply_none(mem_ctx, SSS_NSS_GETNAMEBYSID);
    assert_non_null(r);
    b = body_of(r, &len);
    assert_int_equal(len, 8);
    assert_int_equal(u32_at(b), 0);
    talloc_free(mem_ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sid_syntax, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sid_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sid_replies, setup, teardown),
    };

    int ret;

    debug_level = 0;
    ret = cmocka_run_group_tests(tests, NULL, NULL);
    talloc_disable_null_tracking();     /* as test_nss_protocol.c: no empty null context */
    return ret;
}
