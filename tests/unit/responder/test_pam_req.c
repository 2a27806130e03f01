/* Unit tests of sssd_pam's wire codec (src/responder/pam/pam_req.c): requests packed by our
 * pam_sss's own packer (pam_pack.c, byte-identical to SSSD 2.8's client) parsed back,
 * hostile bodies refused, the reply builder and the back-end item walk. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "responder/pam/pam_req.h"
#include "sss_client/pam/pam_sss_private.h"
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

static uint8_t *pack(const struct pam_sss_req *r, size_t *_len)
{
    uint8_t *body = NULL;

    assert_int_equal(pam_sss_pack(r, &body, _len), 0);
    return body;
}

static void test_parse_client_request(void **state)
{
    struct pam_sss_req r = {
        .user = "alice", .service = "login", .tty = "tty1", .ruser = "bob",
        .rhost = "host.example", .domains = "a,b", .cli_pid = 4242, .child_pid = 7,
        .authtok = { SSS_AUTHTOK_TYPE_PASSWORD, "secret", 6 },
        .newauthtok = { SSS_AUTHTOK_TYPE_PASSWORD, "new-secret", 10 },
        .flags = SSS_PAM_CLI_FLAGS_USE_FIRST_PASS,
    };
    struct pam_data *pd = NULL;
    uint8_t *body;
    size_t len;

    body = pack(&r, &len);
    assert_int_equal(pam_req_parse(NULL, SSS_PAM_CHAUTHTOK, body, len, &pd), EOK);
    free(body);
    assert_int_equal(pd->cmd, SSS_PAM_CHAUTHTOK);
    assert_string_equal(pd->user, "alice");
    assert_string_equal(pd->service, "login");
    assert_string_equal(pd->tty, "tty1");
    assert_string_equal(pd->ruser, "bob");
    assert_string_equal(pd->rhost, "host.example");
    assert_string_equal(pd->domains, "a,b");
    assert_int_equal(pd->cli_pid, 4242);
    assert_int_equal(pd->child_pid, 7);
    assert_int_equal(pd->cli_flags, SSS_PAM_CLI_FLAGS_USE_FIRST_PASS);
    assert_int_equal(pd->authtok.type, SSS_AUTHTOK_TYPE_PASSWORD);
    assert_int_equal(pd->authtok.len, 6);
    assert_memory_equal(pd->authtok.data, "secret", 6);
    assert_int_equal(pd->newauthtok.len, 10);
    assert_memory_equal(pd->newauthtok.data, "new-secret", 10);
    pam_tok_clear(&pd->authtok);
    assert_null(pd->authtok.data);
    assert_int_equal(pd->authtok.len, 0);
    talloc_free(pd);
}

/* Absent strings come back empty, absent tokens EMPTY with no bytes. */
static void test_parse_minimal(void **state)
{
    struct pam_sss_req r = { .user = "u", .cli_pid = 1 };
    struct pam_data *pd = NULL;
    uint8_t *body;
    size_t len;

    body = pack(&r, &len);
    assert_int_equal(pam_req_parse(NULL, SSS_PAM_ACCT_MGMT, body, len, &pd), EOK);
    free(body);
    assert_string_equal(pd->service, "");
    assert_string_equal(pd->domains, "");
    assert_int_equal(pd->authtok.type, SSS_AUTHTOK_TYPE_EMPTY);
    assert_null(pd->authtok.data);
    talloc_free(pd);
}

/* Builds START, one item, [extra bytes], END. */
static size_t raw(uint8_t *buf, uint32_t type, uint32_t size, const void *data, size_t dlen,
                  bool end)
{
    uint32_t v;
    size_t pos = 0;

    v = SSS_START_OF_PAM_REQUEST; memcpy(buf + pos, &v, 4); pos += 4;
    v = SSS_PAM_ITEM_USER; memcpy(buf + pos, &v, 4); pos += 4;
    v = 2; memcpy(buf + pos, &v, 4); pos += 4;
    memcpy(buf + pos, "u", 2); pos += 2;
    memcpy(buf + pos, &type, 4); pos += 4;
    memcpy(buf + pos, &size, 4); pos += 4;
    memcpy(buf + pos, data, dlen); pos += dlen;
    if (end) {
        v = SSS_END_OF_PAM_REQUEST; memcpy(buf + pos, &v, 4); pos += 4;
    }
    return pos;
}

static void test_parse_hostile(void **state)
{
    uint8_t buf[256];
    struct pam_data *pd = NULL;
    uint32_t start = SSS_START_OF_PAM_REQUEST;
    size_t len;

    /* Well-formed reference: an unknown item type is skipped. */
    len = raw(buf, 0x7777, 3, "abc", 3, true);
    assert_int_equal(pam_req_parse(NULL, SSS_PAM_AUTHENTICATE, buf, len, &pd), EOK);
    talloc_free(pd);
    /* A string without its NUL, with a NUL inside, an empty one. */
    len = raw(buf, SSS_PAM_ITEM_SERVICE, 3, "abc", 3, true);
    assert_int_equal(pam_req_parse(NULL, 1, buf, len, &pd), EINVAL);
    len = raw(buf, SSS_PAM_ITEM_SERVICE, 4, "a\0b", 4, true);
    assert_int_equal(pam_req_parse(NULL, 1, buf, len, &pd), EINVAL);
    len = raw(buf, SSS_PAM_ITEM_SERVICE, 0, "", 0, true);
    assert_int_equal(pam_req_parse(NULL, 1, buf, len, &pd), EINVAL);
    /* A uint of the wrong size, an authtok shorter than its type. */
    len = raw(buf, SSS_PAM_ITEM_CLI_PID, 2, "ab", 2, true);
    assert_int_equal(pam_req_parse(NULL, 1, buf, len, &pd), EINVAL);
    len = raw(buf, SSS_PAM_ITEM_AUTHTOK, 2, "ab", 2, true);
    assert_int_equal(pam_req_parse(NULL, 1, buf, len, &pd), EINVAL);
    /* A size past the end, a missing end marker, bytes after it. */
    len = raw(buf, SSS_PAM_ITEM_TTY, 0xFFFFFFF0u, "x", 1, true);
    assert_int_equal(pam_req_parse(NULL, 1, buf, len, &pd), EINVAL);
    len = raw(buf, SSS_PAM_ITEM_TTY, 2, "x", 2, false);
    assert_int_equal(pam_req_parse(NULL, 1, buf, len, &pd), EINVAL);
    len = raw(buf, SSS_PAM_ITEM_TTY, 2, "x", 2, true);
    buf[len++] = 0;
    assert_int_equal(pam_req_parse(NULL, 1, buf, len, &pd), EINVAL);
    /* No start marker, nothing at all, no user. */
    buf[0] ^= 1;
    assert_int_equal(pam_req_parse(NULL, 1, buf, len - 1, &pd), EINVAL);
    assert_int_equal(pam_req_parse(NULL, 1, NULL, 0, &pd), EINVAL);
    memcpy(buf, &start, 4);
    start = SSS_END_OF_PAM_REQUEST;
    memcpy(buf + 4, &start, 4);
    assert_int_equal(pam_req_parse(NULL, 1, buf, 8, &pd), EINVAL);
}

static errno_t collect(void *pvt, uint32_t type, const uint8_t *data, uint32_t len)
{
    uint32_t *seen = pvt;

    seen[0]++;
    seen[1] += type;
    seen[2] += len;
    return EOK;
}

static void test_reply_and_items(void **state)
{
    struct pam_reply_build b;
    const uint8_t *pkt;
    uint8_t items[64];
    uint32_t seen[3] = { 0 };
    uint32_t v;
    size_t len;

    assert_int_equal(pam_reply_start(&b, NULL, SSS_PAM_AUTHENTICATE, 7), EOK);
    assert_int_equal(pam_reply_add(&b, SSS_PAM_DOMAIN_NAME, "dom", 4), EOK);
    assert_int_equal(pam_reply_add(&b, SSS_PAM_USER_INFO, "\x05\0\0\0", 4), EOK);
    pkt = resp_reply_packet(b.reply, &len);
    assert_int_equal(len, 16 + 8 + (8 + 4) + (8 + 4));
    memcpy(&v, pkt + 16, 4);
    assert_int_equal(v, 7);
    memcpy(&v, pkt + 20, 4);
    assert_int_equal(v, 2);
    /* The item walk on the reply's items: both seen; a truncated blob: none. */
    memcpy(items, pkt + 24, len - 24);
    assert_int_equal(pam_items_walk(items, len - 24, collect, seen), EOK);
    assert_int_equal(seen[0], 2);
    assert_int_equal(seen[1], SSS_PAM_DOMAIN_NAME + SSS_PAM_USER_INFO);
    assert_int_equal(seen[2], 8);
    seen[0] = 0;
    assert_int_equal(pam_items_walk(items, len - 25, collect, seen), EINVAL);
    assert_int_equal(seen[0], 0);
    assert_int_equal(pam_items_walk(NULL, 0, collect, seen), EOK);
    talloc_free(b.reply);
    assert_string_equal(pam_cmd_name(SSS_PAM_CHAUTHTOK_PRELIM), "CHAUTHTOK_PRELIM");
    assert_string_equal(pam_cmd_name(0x1234), "UNKNOWN");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_parse_client_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_minimal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_hostile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reply_and_items, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
