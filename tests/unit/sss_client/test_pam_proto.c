/* pam_sss's wire format alone: the packer byte for byte against packets SSSD 2.8's own
 * pam_sss.so sent (captured from Debian's libpam-sss 2.8.2 with a recording responder; the
 * hex below is what it wrote) and against hand-built ones for the items those captures do
 * not have; the reply parser on good and on malformed replies (too short, items past the
 * end, strings without their NUL, huge and negative counts, bad statuses, trailing bytes):
 * a malformed reply is refused as a whole; the USER_INFO texts, word for word SSSD 2.8's. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "sss_client/sss_cli.h"
#include "sss_client/pam/pam_sss_private.h"

/* ---- helpers ---- */

static size_t unhex(const char *hex, uint8_t *out, size_t size)
{
    size_t n = 0;

    while (hex[0] != '\0' && hex[1] != '\0') {
        unsigned int b;

        assert_true(n < size);
        assert_int_equal(sscanf(hex, "%2x", &b), 1);
        out[n++] = (uint8_t)b;
        hex += 2;
    }
    return n;
}

static void assert_packs_to(const struct pam_sss_req *req, const char *hex)
{
    uint8_t want[1024];
    size_t want_len = unhex(hex, want, sizeof(want));
    uint8_t *body = NULL;
    size_t len = 0;

    assert_int_equal(pam_sss_pack(req, &body, &len), 0);
    assert_int_equal(len, want_len);
    assert_memory_equal(body, want, len);
    free(body);
}

#define PW(s) ((struct pam_sss_tok){ SSS_AUTHTOK_TYPE_PASSWORD, (s), sizeof(s) - 1 })

/* Hand-built bodies. */
struct hb {
    uint8_t b[1024];
    size_t n;
};

static void hb_u32(struct hb *h, uint32_t v)
{
    memcpy(h->b + h->n, &v, 4);
    h->n += 4;
}

static void hb_bytes(struct hb *h, const void *p, size_t n)
{
    memcpy(h->b + h->n, p, n);
    h->n += n;
}

static void hb_str(struct hb *h, uint32_t type, const char *s)
{
    hb_u32(h, type);
    hb_u32(h, (uint32_t)strlen(s) + 1);
    hb_bytes(h, s, strlen(s) + 1);
}

/* ---- packing: SSSD 2.8's own bytes ---- */

/* pamtester cap alice authenticate, password "secret123", pid 0x1b3a, as root. */
static void test_pack_authenticate(void **state)
{
    struct pam_sss_req req = {
        .user = "alice", .service = "cap", .cli_pid = 0x1b3a, .authtok = PW("secret123"),
    };

    assert_packs_to(&req,
        "4950414d0100000006000000616c6963650002000000040000006361700009000000040000003a1b"
        "0000060000000d000000010000007365637265743132330c00000004000000000000004d415049");
}

/* acct_mgmt, open_session, close_session and setcred send the same body: no token. */
static void test_pack_no_token(void **state)
{
    struct pam_sss_req req = { .user = "alice", .service = "cap", .cli_pid = 0x1b3a };

    assert_packs_to(&req,
        "4950414d0100000006000000616c6963650002000000040000006361700009000000040000003a1b"
        "00000c00000004000000000000004d415049");
}

/* chauthtok by alice: PRELIM with the old password, then the change with both. */
static void test_pack_chauthtok(void **state)
{
    struct pam_sss_req req = {
        .user = "alice", .service = "cap", .cli_pid = 0x1b3d, .authtok = PW("old"),
    };

    assert_packs_to(&req,
        "4950414d0100000006000000616c6963650002000000040000006361700009000000040000003d1b"
        "00000600000007000000010000006f6c640c00000004000000000000004d415049");
    req.newauthtok = PW("new1");
    assert_packs_to(&req,
        "4950414d0100000006000000616c6963650002000000040000006361700009000000040000003d1b"
        "00000600000007000000010000006f6c640700000008000000010000006e6577310c000000040000"
        "00000000004d415049");
}

/* root resetting bob's password: PRELIM without a token, the change with an empty old one. */
static void test_pack_root_reset(void **state)
{
    struct pam_sss_req req = { .user = "bob", .service = "cap", .cli_pid = 0x2152 };

    assert_packs_to(&req,
        "4950414d0100000004000000626f620002000000040000006361700009000000040000005221"
        "00000c00000004000000000000004d415049");
    req.authtok = PW("");
    req.newauthtok = PW("n1");
    assert_packs_to(&req,
        "4950414d0100000004000000626f620002000000040000006361700009000000040000005221"
        "00000600000004000000010000000700000006000000010000006e310c0000000400000000000000"
        "4d415049");
}

/* domains=a,b: after RHOST, before CLI_PID. */
static void test_pack_domains(void **state)
{
    struct pam_sss_req req = {
        .user = "bob", .service = "cap", .domains = "a,b", .cli_pid = 0x30c2,
        .authtok = PW("x"),
    };

    assert_packs_to(&req,
        "4950414d0100000004000000626f62000200000004000000636170000b00000004000000612c6200"
        "0900000004000000c2300000060000000500000001000000780c00000004000000000000004d415049");
}

/* An empty password is sent (type PASSWORD, no bytes); the flags of forward_pass (2),
 * use_first_pass (1) and use_authtok (4) as SSSD 2.8 sent them. */
static void test_pack_empty_password_and_flags(void **state)
{
    struct pam_sss_req req = {
        .user = "bob", .service = "cap", .cli_pid = 0x60ac, .authtok = PW(""),
        .flags = SSS_PAM_CLI_FLAGS_USE_FIRST_PASS,
    };

    assert_packs_to(&req,
        "4950414d0100000004000000626f62000200000004000000636170000900000004000000ac600000"
        "0600000004000000010000000c00000004000000010000004d415049");
    req.cli_pid = 0x6242;
    req.authtok = PW("sekrit");
    req.flags = SSS_PAM_CLI_FLAGS_FORWARD_PASS;
    assert_packs_to(&req,
        "4950414d0100000004000000626f620002000000040000006361700009000000040000004262"
        "0000060000000a0000000100000073656b7269740c00000004000000020000004d415049");
}

/* ---- packing: every item, hand-built ---- */

static void test_pack_all_items(void **state)
{
    struct pam_sss_req req = {
        .user = "u", .service = "login", .tty = "/dev/tty1", .ruser = "ru", .rhost = "h.example",
        .domains = "d1", .cli_pid = 42, .child_pid = 43,
        .authtok = PW("pw"), .newauthtok = PW("new"), .flags = 0x1f,
    };
    struct hb h = { .n = 0 };
    uint8_t *body = NULL;
    size_t len = 0;

    hb_u32(&h, SSS_START_OF_PAM_REQUEST);
    hb_str(&h, SSS_PAM_ITEM_USER, "u");
    hb_str(&h, SSS_PAM_ITEM_SERVICE, "login");
    hb_str(&h, SSS_PAM_ITEM_TTY, "/dev/tty1");
    hb_str(&h, SSS_PAM_ITEM_RUSER, "ru");
    hb_str(&h, SSS_PAM_ITEM_RHOST, "h.example");
    hb_str(&h, SSS_PAM_ITEM_REQUESTED_DOMAINS, "d1");
    hb_u32(&h, SSS_PAM_ITEM_CLI_PID); hb_u32(&h, 4); hb_u32(&h, 42);
    hb_u32(&h, SSS_PAM_ITEM_CHILD_PID); hb_u32(&h, 4); hb_u32(&h, 43);
    hb_u32(&h, SSS_PAM_ITEM_AUTHTOK); hb_u32(&h, 6); hb_u32(&h, 1); hb_bytes(&h, "pw", 2);
    hb_u32(&h, SSS_PAM_ITEM_NEWAUTHTOK); hb_u32(&h, 7); hb_u32(&h, 1); hb_bytes(&h, "new", 3);
    hb_u32(&h, SSS_PAM_ITEM_FLAGS); hb_u32(&h, 4); hb_u32(&h, 0x1f);
    hb_u32(&h, SSS_END_OF_PAM_REQUEST);

    assert_int_equal(pam_sss_pack(&req, &body, &len), 0);
    assert_int_equal(len, h.n);
    assert_memory_equal(body, h.b, len);
    free(body);

    /* Empty strings are left out, as NULL ones. */
    req = (struct pam_sss_req){ .user = "u", .service = "", .tty = "", .cli_pid = 1 };
    h.n = 0;
    hb_u32(&h, SSS_START_OF_PAM_REQUEST);
    hb_str(&h, SSS_PAM_ITEM_USER, "u");
    hb_u32(&h, SSS_PAM_ITEM_CLI_PID); hb_u32(&h, 4); hb_u32(&h, 1);
    hb_u32(&h, SSS_PAM_ITEM_FLAGS); hb_u32(&h, 4); hb_u32(&h, 0);
    hb_u32(&h, SSS_END_OF_PAM_REQUEST);
    assert_int_equal(pam_sss_pack(&req, &body, &len), 0);
    assert_int_equal(len, h.n);
    assert_memory_equal(body, h.b, len);
    free(body);
}

static void test_pack_limits(void **state)
{
    size_t big = PAM_SSS_MAX_AUTHTOK + 1;
    char *s = malloc(big + 1);
    struct pam_sss_req req = { .user = "u" };
    uint8_t *body = NULL;
    size_t len = 0;

    assert_non_null(s);
    memset(s, 'a', big);
    s[big] = '\0';
    req.authtok = (struct pam_sss_tok){ SSS_AUTHTOK_TYPE_PASSWORD, s, big };
    assert_int_equal(pam_sss_pack(&req, &body, &len), EINVAL);
    req.authtok.data = NULL;
    req.user = s;       /* longer than PAM_SSS_MAX_STRING */
    assert_int_equal(pam_sss_pack(&req, &body, &len), EINVAL);
    assert_null(body);
    assert_int_equal(pam_sss_pack(NULL, &body, &len), EINVAL);
    free(s);
}

/* ---- replies ---- */

static void rep_item(struct hb *h, uint32_t type, const void *p, size_t n)
{
    hb_u32(h, type);
    hb_u32(h, (uint32_t)n);
    hb_bytes(h, p, n);
}

static void test_parse_good(void **state)
{
    struct hb h = { .n = 0 };
    struct pam_sss_reply r;
    struct pam_sss_item it;
    uint8_t ui[8] = { 0 };
    size_t cur = 0;

    hb_u32(&h, 7);      /* PAM_AUTH_ERR */
    hb_u32(&h, 4);
    rep_item(&h, SSS_PAM_DOMAIN_NAME, "demo", 5);
    rep_item(&h, 99, "\x01\x02", 2);                /* unknown type: skipped, not refused */
    ui[0] = 6; ui[4] = 3;                           /* GRACE_LOGIN, 3 */
    rep_item(&h, SSS_PAM_USER_INFO, ui, 8);
    rep_item(&h, SSS_OTP, "", 0);

    assert_int_equal(pam_sss_reply_parse(h.b, h.n, &r), 0);
    assert_int_equal(r.status, 7);
    assert_int_equal(r.count, 4);
    assert_true(pam_sss_reply_next(&r, &cur, &it));
    assert_int_equal(it.type, SSS_PAM_DOMAIN_NAME);
    assert_string_equal((const char *)it.data, "demo");
    assert_true(pam_sss_reply_next(&r, &cur, &it));
    assert_int_equal(it.type, 99);
    assert_int_equal(it.len, 2);
    assert_true(pam_sss_reply_next(&r, &cur, &it));
    assert_int_equal(it.type, SSS_PAM_USER_INFO);
    assert_true(pam_sss_reply_next(&r, &cur, &it));
    assert_int_equal(it.type, SSS_OTP);
    assert_int_equal(it.len, 0);
    assert_false(pam_sss_reply_next(&r, &cur, &it));

    /* No items at all. */
    h.n = 0;
    hb_u32(&h, 0);
    hb_u32(&h, 0);
    assert_int_equal(pam_sss_reply_parse(h.b, h.n, &r), 0);
    assert_int_equal(r.count, 0);
    cur = 0;
    assert_false(pam_sss_reply_next(&r, &cur, &it));
}

/* Each case: a reply that must be refused as a whole. */
static void test_parse_malformed(void **state)
{
    struct pam_sss_reply r;
    struct hb h;
    uint8_t ui[16];
    int i;

    for (i = 0; ; i++) {
        h.n = 0;
        memset(ui, 0, sizeof(ui));
        switch (i) {
        case 0: hb_u32(&h, 0); break;                               /* 4 bytes */
        case 1: break;                                              /* nothing */
        case 2: hb_u32(&h, 0); hb_u32(&h, 1); break;                /* count 1, no item */
        case 3: hb_u32(&h, 0); hb_u32(&h, 0x7fffffff); break;       /* huge count */
        case 4: hb_u32(&h, 0); hb_u32(&h, 0xffffffff); break;       /* negative count */
        case 5: hb_u32(&h, 0xffffffff); hb_u32(&h, 0); break;       /* status -1 */
        case 6: hb_u32(&h, 32); hb_u32(&h, 0); break;               /* not a PAM code */
        case 7: hb_u32(&h, 0); hb_u32(&h, 1);                       /* item past the end */
            hb_u32(&h, SSS_PAM_DOMAIN_NAME); hb_u32(&h, 0xff); hb_bytes(&h, "demo", 5); break;
        case 8: hb_u32(&h, 0); hb_u32(&h, 1);                       /* len 0xffffffff */
            hb_u32(&h, SSS_PAM_DOMAIN_NAME); hb_u32(&h, 0xffffffff); break;
        case 9: hb_u32(&h, 0); hb_u32(&h, 1);                       /* header cut short */
            hb_u32(&h, SSS_PAM_DOMAIN_NAME); break;
        case 10: hb_u32(&h, 0); hb_u32(&h, 1);                      /* no NUL */
            rep_item(&h, SSS_PAM_DOMAIN_NAME, "demo", 4); break;
        case 11: hb_u32(&h, 0); hb_u32(&h, 1);                      /* interior NUL */
            rep_item(&h, SSS_PAM_TEXT_MSG, "a\0b", 4); break;
        case 12: hb_u32(&h, 0); hb_u32(&h, 1);                      /* empty string item */
            rep_item(&h, SSS_PAM_SYSTEM_INFO, "", 0); break;
        case 13: hb_u32(&h, 0); hb_u32(&h, 1);                      /* env without '=' */
            rep_item(&h, SSS_PAM_ENV_ITEM, "PATH", 5); break;
        case 14: hb_u32(&h, 0); hb_u32(&h, 1);                      /* env without a name */
            rep_item(&h, SSS_ALL_ENV_ITEM, "=x", 3); break;
        case 15: hb_u32(&h, 0); hb_u32(&h, 1);                      /* user info < 4 bytes */
            rep_item(&h, SSS_PAM_USER_INFO, ui, 3); break;
        case 16: hb_u32(&h, 0); hb_u32(&h, 1);                      /* OFFLINE_AUTH, short */
            ui[0] = SSS_PAM_USER_INFO_OFFLINE_AUTH;
            rep_item(&h, SSS_PAM_USER_INFO, ui, 8); break;
        case 17: hb_u32(&h, 0); hb_u32(&h, 1);                      /* GRACE_LOGIN, long */
            ui[0] = SSS_PAM_USER_INFO_GRACE_LOGIN;
            rep_item(&h, SSS_PAM_USER_INFO, ui, 12); break;
        case 18: hb_u32(&h, 0); hb_u32(&h, 1);                      /* message length lies */
            ui[0] = SSS_PAM_USER_INFO_CHPASS_ERROR; ui[4] = 9;
            rep_item(&h, SSS_PAM_USER_INFO, ui, 12); break;
        case 19: hb_u32(&h, 0); hb_u32(&h, 1);                      /* no message length */
            ui[0] = SSS_PAM_USER_INFO_ACCOUNT_EXPIRED;
            rep_item(&h, SSS_PAM_USER_INFO, ui, 4); break;
        case 20: hb_u32(&h, 0); hb_u32(&h, 0); hb_u32(&h, 0); break; /* trailing bytes */
        case 21: hb_u32(&h, 0); hb_u32(&h, 2);                      /* second item missing */
            rep_item(&h, SSS_PAM_DOMAIN_NAME, "d", 2); break;
        case 22: hb_u32(&h, 0); hb_u32(&h, 1);                      /* OFFLINE_CHPASS + junk */
            ui[0] = SSS_PAM_USER_INFO_OFFLINE_CHPASS;
            rep_item(&h, SSS_PAM_USER_INFO, ui, 5); break;
        default:
            return;
        }
        if (pam_sss_reply_parse(h.b, h.n, &r) != EBADMSG) {
            fail_msg("malformed reply %d was accepted", i);
        }
    }
}

/* Every prefix of a good reply is refused; no read goes past the buffer (ASan). */
static void test_parse_truncations(void **state)
{
    struct pam_sss_reply r;
    struct hb h = { .n = 0 };
    uint8_t *copy;
    size_t n;

    hb_u32(&h, 0);
    hb_u32(&h, 3);
    rep_item(&h, SSS_PAM_DOMAIN_NAME, "demo", 5);
    rep_item(&h, SSS_PAM_TEXT_MSG, "hello", 6);
    rep_item(&h, SSS_PAM_ENV_ITEM, "A=b", 4);
    for (n = 0; n < h.n; n++) {
        copy = malloc(n ? n : 1);
        assert_non_null(copy);
        memcpy(copy, h.b, n);
        assert_int_equal(pam_sss_reply_parse(copy, n, &r), EBADMSG);
        free(copy);
    }
    assert_int_equal(pam_sss_reply_parse(h.b, h.n, &r), 0);
}

/* ---- texts ---- */

static void assert_text(const void *payload, size_t len, const char *want)
{
    char *text = NULL;

    assert_int_equal(pam_sss_user_info_text(payload, len, &text), 0);
    assert_string_equal(text, want);
    free(text);
}

static size_t ui_u32(uint8_t *b, uint32_t type, uint32_t v)
{
    memcpy(b, &type, 4);
    memcpy(b + 4, &v, 4);
    return 8;
}

static size_t ui_i64(uint8_t *b, uint32_t type, int64_t v)
{
    memcpy(b, &type, 4);
    memcpy(b + 4, &v, 8);
    return 12;
}

static size_t ui_msg(uint8_t *b, uint32_t type, const char *msg)
{
    uint32_t n = (uint32_t)strlen(msg);

    memcpy(b, &type, 4);
    memcpy(b + 4, &n, 4);
    memcpy(b + 8, msg, n);
    return 8 + n;
}

/* The texts SSSD 2.8's pam_sss.so showed for the same payloads (TZ=UTC, C locale). */
static void test_user_info_texts(void **state)
{
    uint8_t b[64];
    char *text = NULL;

    assert_text(b, ui_i64(b, SSS_PAM_USER_INFO_OFFLINE_AUTH, 1700000000),
                "Authenticated with cached credentials, your cached password will expire at: "
                "Tue Nov 14 22:13:20 2023.");
    assert_text(b, ui_i64(b, SSS_PAM_USER_INFO_OFFLINE_AUTH, 0),
                "Authenticated with cached credentials.");
    assert_text(b, ui_i64(b, SSS_PAM_USER_INFO_OFFLINE_AUTH_DELAYED, 1700000000),
                "Authentication is denied until: Tue Nov 14 22:13:20 2023.");
    assert_text(b, ui_u32(b, SSS_PAM_USER_INFO_OFFLINE_CHPASS, 0) - 4,
                "System is offline, password change not possible");
    assert_text(b, ui_u32(b, SSS_PAM_USER_INFO_OTP_CHPASS, 0) - 4,
                "After changing the OTP password, you need to log out and back in order to "
                "acquire a ticket");
    assert_text(b, ui_msg(b, SSS_PAM_USER_INFO_CHPASS_ERROR, "bad pw"),
                "Password change failed. Server message: bad pw");
    assert_text(b, ui_msg(b, SSS_PAM_USER_INFO_CHPASS_ERROR, ""), "Password change failed. ");
    assert_text(b, ui_u32(b, SSS_PAM_USER_INFO_GRACE_LOGIN, 3),
                "Your password has expired. You have 3 grace login(s) remaining.");
    assert_text(b, ui_u32(b, SSS_PAM_USER_INFO_EXPIRE_WARN, 200000),
                "Your password will expire in 2 day(s).");
    assert_text(b, ui_u32(b, SSS_PAM_USER_INFO_EXPIRE_WARN, 7200),
                "Your password will expire in 2 hour(s).");
    assert_text(b, ui_u32(b, SSS_PAM_USER_INFO_EXPIRE_WARN, 90),
                "Your password will expire in 1 minute(s).");
    assert_text(b, ui_u32(b, SSS_PAM_USER_INFO_EXPIRE_WARN, 30),
                "Your password will expire in 30 second(s).");
    assert_text(b, ui_msg(b, SSS_PAM_USER_INFO_ACCOUNT_EXPIRED, "gone"),
                "Permission denied. Server message: gone");
    assert_text(b, ui_msg(b, SSS_PAM_USER_INFO_ACCOUNT_EXPIRED, ""), "Permission denied. ");
    assert_text(b, ui_u32(b, SSS_PAM_USER_INFO_PIN_LOCKED, 0) - 4, "PIN locked");

    /* Subtypes SSSD 2.8 shows nothing for (10: NO_KRB_TGT came later). */
    assert_int_equal(pam_sss_user_info_text(b, ui_u32(b, 10, 0) - 4, &text), ENOENT);
    assert_int_equal(pam_sss_user_info_text(b, ui_u32(b, 0, 0) - 4, &text), ENOENT);
    /* A delay that is not a time. */
    assert_int_equal(pam_sss_user_info_text(b, ui_i64(b, SSS_PAM_USER_INFO_OFFLINE_AUTH_DELAYED,
                                                      0), &text), EBADMSG);
    assert_int_equal(pam_sss_user_info_text(b, 7, &text), EBADMSG);
    assert_null(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_authenticate),
        cmocka_unit_test(test_pack_no_token),
        cmocka_unit_test(test_pack_chauthtok),
        cmocka_unit_test(test_pack_root_reset),
        cmocka_unit_test(test_pack_domains),
        cmocka_unit_test(test_pack_empty_password_and_flags),
        cmocka_unit_test(test_pack_all_items),
        cmocka_unit_test(test_pack_limits),
        cmocka_unit_test(test_parse_good),
        cmocka_unit_test(test_parse_malformed),
        cmocka_unit_test(test_parse_truncations),
        cmocka_unit_test(test_user_info_texts),
    };

    setenv("TZ", "UTC", 1);
    tzset();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
