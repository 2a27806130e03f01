/* Unit tests of the NSS codec (src/responder/nss/nss_protocol.c) and the client packet
 * framing and reply builder (src/responder/common/resp_packet.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "responder/nss/nss_protocol.h"
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

static errno_t parse(uint32_t cmd, const void *body, size_t len, struct nss_request *req)
{
    return nss_request_parse(cmd, (const uint8_t *)body, len, req);
}

/* ---- requests ---- */

static void test_parse_by_name(void **state)
{
    static const uint32_t cmds[] = { SSS_NSS_GETPWNAM, SSS_NSS_GETGRNAM, SSS_NSS_INITGR };
    struct nss_request req;
    size_t i;

    for (i = 0; i < SSS_ARRAY_SIZE(cmds); i++) {
        assert_int_equal(parse(cmds[i], "alice", 6, &req), EOK);
        assert_int_equal(req.kind, NSS_REQ_NAME);
        assert_int_equal(req.cmd, cmds[i]);
        assert_string_equal(req.name, "alice");
        assert_int_equal(req.name_len, 5);
        assert_int_equal(req.flags, 0);
    }
    /* UTF-8 is fine. */
    assert_int_equal(parse(SSS_NSS_GETPWNAM, "j\xc3\xa9r\xc3\xb4me", 9, &req), EOK);
    assert_int_equal(req.name_len, 8);
}

static void test_parse_by_name_ex(void **state)
{
    static const uint32_t cmds[] = { SSS_NSS_GETPWNAM_EX, SSS_NSS_GETGRNAM_EX,
                                     SSS_NSS_INITGR_EX };
    uint8_t body[32];
    uint32_t flags = SSS_NSS_EX_FLAG_INVALIDATE_CACHE;
    struct nss_request req;
    size_t i;

    memcpy(body, "bob", 4);
    memcpy(body + 4, &flags, 4);
    for (i = 0; i < SSS_ARRAY_SIZE(cmds); i++) {
        assert_int_equal(parse(cmds[i], body, 8, &req), EOK);
        assert_string_equal(req.name, "bob");
        assert_int_equal(req.flags, SSS_NSS_EX_FLAG_INVALIDATE_CACHE);
        /* without its flags, or with a byte too many */
        assert_int_equal(parse(cmds[i], body, 4, &req), EBADMSG);
        assert_int_equal(parse(cmds[i], body, 9, &req), EBADMSG);
    }
}

static void test_parse_by_id(void **state)
{
    uint32_t body[3] = { 1000, SSS_NSS_EX_FLAG_NO_CACHE, 0 };
    struct nss_request req;

    assert_int_equal(parse(SSS_NSS_GETPWUID, body, 4, &req), EOK);
    assert_int_equal(req.kind, NSS_REQ_ID);
    assert_int_equal(req.id, 1000);
    assert_int_equal(parse(SSS_NSS_GETGRGID, body, 4, &req), EOK);
    assert_int_equal(req.id, 1000);
    assert_int_equal(parse(SSS_NSS_GETPWUID_EX, body, 8, &req), EOK);
    assert_int_equal(req.flags, SSS_NSS_EX_FLAG_NO_CACHE);
    assert_int_equal(parse(SSS_NSS_GETGRGID_EX, body, 8, &req), EOK);
    assert_int_equal(req.id, 1000);

    assert_int_equal(parse(SSS_NSS_GETPWUID, body, 3, &req), EBADMSG);
    assert_int_equal(parse(SSS_NSS_GETPWUID, body, 8, &req), EBADMSG);
    assert_int_equal(parse(SSS_NSS_GETPWUID_EX, body, 4, &req), EBADMSG);
    assert_int_equal(parse(SSS_NSS_GETGRGID_EX, body, 12, &req), EBADMSG);
    assert_int_equal(parse(SSS_NSS_GETGRGID, NULL, 0, &req), EBADMSG);
}

static void test_parse_enum(void **state)
{
    uint32_t count = SSS_NSS_GETENT_COUNT;
    struct nss_request req;

    assert_int_equal(parse(SSS_NSS_GETPWENT, &count, 4, &req), EOK);
    assert_int_equal(req.kind, NSS_REQ_COUNT);
    assert_int_equal(req.count, 256);
    assert_int_equal(parse(SSS_NSS_GETGRENT, &count, 4, &req), EOK);
    assert_int_equal(parse(SSS_NSS_GETGRENT, &count, 2, &req), EBADMSG);
    assert_int_equal(parse(SSS_NSS_GETPWENT, NULL, 0, &req), EBADMSG);

    assert_int_equal(parse(SSS_NSS_SETPWENT, NULL, 0, &req), EOK);
    assert_int_equal(req.kind, NSS_REQ_EMPTY);
    assert_int_equal(parse(SSS_NSS_ENDPWENT, NULL, 0, &req), EOK);
    assert_int_equal(parse(SSS_NSS_SETGRENT, NULL, 0, &req), EOK);
    assert_int_equal(parse(SSS_NSS_ENDGRENT, NULL, 0, &req), EOK);
    assert_int_equal(parse(SSS_NSS_SETGRENT, &count, 4, &req), EBADMSG);
}

static void test_parse_malformed_names(void **state)
{
    char big[NSS_NAME_MAX + 2];
    struct nss_request req;

    memset(&req, 0x5a, sizeof(req));
    /* malformed (EBADMSG, the connection is closed): truncated / no NUL */
    assert_int_equal(parse(SSS_NSS_GETPWNAM, "alice", 5, &req), EBADMSG);
    assert_int_equal(parse(SSS_NSS_GETPWNAM, "", 0, &req), EBADMSG);
    /* well-formed, but no entry has that name (EINVAL, answered): empty */
    assert_int_equal(parse(SSS_NSS_GETPWNAM, "", 1, &req), EINVAL);
    /* malformed: embedded NUL */
    assert_int_equal(parse(SSS_NSS_GETPWNAM, "ab\0cd", 6, &req), EBADMSG);
    assert_int_equal(parse(SSS_NSS_INITGR, "ab\0\0", 4, &req), EBADMSG);
    /* answered: not UTF-8: a lone continuation byte, a truncated sequence, an overlong '/',
     * a surrogate, beyond U+10FFFF */
    assert_int_equal(parse(SSS_NSS_GETPWNAM, "a\x80", 3, &req), EINVAL);
    assert_int_equal(parse(SSS_NSS_GETPWNAM, "a\xc3", 3, &req), EINVAL);
    assert_int_equal(parse(SSS_NSS_GETPWNAM, "\xc0\xaf", 3, &req), EINVAL);
    assert_int_equal(parse(SSS_NSS_GETPWNAM, "\xed\xa0\x80", 4, &req), EINVAL);
    assert_int_equal(parse(SSS_NSS_GETPWNAM, "\xf4\x90\x80\x80", 5, &req), EINVAL);
    assert_int_equal(parse(SSS_NSS_GETPWNAM, "\xff", 2, &req), EINVAL);
    /* longest accepted, and one byte more */
    memset(big, 'x', sizeof(big));
    big[NSS_NAME_MAX] = '\0';
    assert_int_equal(parse(SSS_NSS_GETPWNAM, big, NSS_NAME_MAX + 1, &req), EOK);
    assert_int_equal(req.name_len, NSS_NAME_MAX);
    big[NSS_NAME_MAX] = 'x';
    big[NSS_NAME_MAX + 1] = '\0';
    assert_int_equal(parse(SSS_NSS_GETPWNAM, big, NSS_NAME_MAX + 2, &req), EINVAL);

    /* not an NSS passwd/group command */
    assert_int_equal(parse(SSS_GET_VERSION, "a", 2, &req), ENOTSUP);
    assert_int_equal(parse(0x0064, "a", 2, &req), ENOTSUP);
    assert_int_equal(parse(SSS_NSS_GETPWNAM, "a", 2, NULL), EINVAL);
    assert_int_equal(parse(SSS_NSS_GETPWNAM, NULL, 2, &req), EINVAL);

    assert_false(nss_name_is_valid("a\tb", 0));
    assert_true(nss_name_is_valid("a\tb", 3));  /* control characters are UTF-8 */
}

/* ---- replies ---- */

struct cursor {
    const uint8_t *p;
    size_t left;
};

static uint32_t take_u32(struct cursor *c)
{
    uint32_t v;

    assert_true(c->left >= 4);
    memcpy(&v, c->p, 4);
    c->p += 4;
    c->left -= 4;
    return v;
}

static const char *take_str(struct cursor *c)
{
    const char *s = (const char *)c->p;
    size_t n = strnlen(s, c->left);

    assert_true(n < c->left);
    c->p += n + 1;
    c->left -= n + 1;
    return s;
}

static struct cursor packet_body(struct resp_reply *out, uint32_t cmd, uint32_t status)
{
    struct cursor c;
    uint32_t hdr[4];
    size_t len;

    c.p = resp_reply_packet(out, &len);
    memcpy(hdr, c.p, sizeof(hdr));
    assert_int_equal(hdr[SSS_HDR_LEN], len);
    assert_int_equal(hdr[SSS_HDR_CMD], cmd);
    assert_int_equal(hdr[SSS_HDR_STATUS], status);
    assert_int_equal(hdr[SSS_HDR_RESERVED], 0);
    c.p += 16;
    c.left = len - 16;
    return c;
}

static void test_reply_not_found(void **state)
{
    struct nss_reply *r = nss_reply_new(NULL, SSS_NSS_GETPWNAM, NULL);
    struct resp_reply *out;
    struct cursor c;

    assert_non_null(r);
    out = nss_reply_finish(NULL, r);
    c = packet_body(out, SSS_NSS_GETPWNAM, 0);
    assert_int_equal(c.left, 8);
    assert_int_equal(take_u32(&c), 0);
    assert_int_equal(take_u32(&c), 0);
    talloc_free(out);
}

static void test_reply_passwd(void **state)
{
    struct nss_pw_entry pw = { "alice", 1000, 1001, "Alice A.", "/home/alice", "/bin/bash" };
    struct nss_pw_entry pw2 = { "bob", 1002, 1002, NULL, NULL, NULL };
    struct nss_reply *r = nss_reply_new(NULL, SSS_NSS_GETPWENT, "x");
    struct resp_reply *out;
    struct cursor c;

    assert_int_equal(nss_reply_passwd_add(r, &pw), EOK);
    assert_int_equal(nss_reply_passwd_add(r, &pw2), EOK);
    pw2.name = NULL;
    assert_int_equal(nss_reply_passwd_add(r, &pw2), EINVAL);
    assert_int_equal(nss_reply_num_results(r), 2);
    out = nss_reply_finish(NULL, r);
    c = packet_body(out, SSS_NSS_GETPWENT, 0);
    assert_int_equal(take_u32(&c), 2);
    assert_int_equal(take_u32(&c), 0);
    assert_int_equal(take_u32(&c), 1000);
    assert_int_equal(take_u32(&c), 1001);
    assert_string_equal(take_str(&c), "alice");
    assert_string_equal(take_str(&c), "x");
    assert_string_equal(take_str(&c), "Alice A.");
    assert_string_equal(take_str(&c), "/home/alice");
    assert_string_equal(take_str(&c), "/bin/bash");
    assert_int_equal(take_u32(&c), 1002);
    assert_int_equal(take_u32(&c), 1002);
    assert_string_equal(take_str(&c), "bob");
    assert_string_equal(take_str(&c), "x");
    assert_string_equal(take_str(&c), "");
    assert_string_equal(take_str(&c), "");
    assert_string_equal(take_str(&c), "");
    assert_int_equal(c.left, 0);
    talloc_free(out);
}

static void test_reply_group_and_initgr(void **state)
{
    const char *members[] = { "alice", "bob", "carol" };
    /* the members given packed (as the formatter gives them) and as an array */
    struct nss_gr_entry gr = { "staff", 2000, members, 3, "alice\0bob\0carol", 16 };
    struct nss_gr_entry empty = { "solo", 2001, NULL, 0, NULL, 0 };
    uint32_t gids[] = { 2000, 2001, 2002 };
    struct nss_reply *r;
    struct resp_reply *out;
    struct cursor c;

    r = nss_reply_new(NULL, SSS_NSS_GETGRNAM, NULL);
    assert_int_equal(nss_reply_group_add(r, &gr), EOK);
    assert_int_equal(nss_reply_group_add(r, &empty), EOK);
    out = nss_reply_finish(NULL, r);
    c = packet_body(out, SSS_NSS_GETGRNAM, 0);
    assert_int_equal(take_u32(&c), 2);
    assert_int_equal(take_u32(&c), 0);
    assert_int_equal(take_u32(&c), 2000);
    assert_int_equal(take_u32(&c), 3);
    assert_string_equal(take_str(&c), "staff");
    assert_string_equal(take_str(&c), "*");
    assert_string_equal(take_str(&c), "alice");
    assert_string_equal(take_str(&c), "bob");
    assert_string_equal(take_str(&c), "carol");
    assert_int_equal(take_u32(&c), 2001);
    assert_int_equal(take_u32(&c), 0);
    assert_string_equal(take_str(&c), "solo");
    assert_string_equal(take_str(&c), "*");
    assert_int_equal(c.left, 0);
    talloc_free(out);

    r = nss_reply_new(NULL, SSS_NSS_INITGR, NULL);
    assert_int_equal(nss_reply_initgr_add(r, gids, 3), EOK);
    assert_int_equal(nss_reply_initgr_add(r, NULL, 0), EOK);
    assert_int_equal(nss_reply_initgr_add(r, NULL, 1), EINVAL);
    out = nss_reply_finish(NULL, r);
    c = packet_body(out, SSS_NSS_INITGR, 0);
    assert_int_equal(take_u32(&c), 3);
    assert_int_equal(take_u32(&c), 0);
    assert_int_equal(take_u32(&c), 2000);
    assert_int_equal(take_u32(&c), 2001);
    assert_int_equal(take_u32(&c), 2002);
    assert_int_equal(c.left, 0);
    talloc_free(out);
}

static void test_reply_hostile_values(void **state)
{
    TALLOC_CTX *tmp = talloc_new(NULL);
    char *gecos = talloc_size(tmp, 100 * 1024 + 1);
    struct nss_pw_entry pw = { "ctl\x01\x1b[2J\n", 1, 2, NULL, "/", "/bin/sh" };
    struct nss_reply *r;
    struct resp_reply *out;
    struct cursor c;

    memset(gecos, 'g', 100 * 1024);
    gecos[100 * 1024] = '\0';
    pw.gecos = gecos;
    r = nss_reply_new(tmp, SSS_NSS_GETPWUID, NULL);
    assert_int_equal(nss_reply_passwd_add(r, &pw), EOK);
    out = nss_reply_finish(tmp, r);
    c = packet_body(out, SSS_NSS_GETPWUID, 0);
    assert_true(c.left > 100 * 1024);
    assert_int_equal(take_u32(&c), 1);
    take_u32(&c);
    take_u32(&c);
    take_u32(&c);
    assert_string_equal(take_str(&c), "ctl\x01\x1b[2J\n");
    assert_string_equal(take_str(&c), "*");
    assert_int_equal(strlen(take_str(&c)), 100 * 1024);
    talloc_free(tmp);
}

/* ---- framing ---- */

static void put_hdr(uint8_t *buf, uint32_t len, uint32_t cmd)
{
    uint32_t hdr[4] = { len, cmd, 0, 0 };

    memcpy(buf, hdr, sizeof(hdr));
}

/* Netgroups: SETNETGRENT is by name, GETNETGRENT a count, ENDNETGRENT empty; records are
 * uint32 type + host\0 user\0 domain\0 (NULL sent as "") or + name\0. */
static void test_netgr(void **state)
{
    struct nss_request req;
    struct nss_reply *r;
    struct resp_reply *out;
    struct cursor c;
    uint32_t n = 7;

    assert_int_equal(parse(SSS_NSS_SETNETGRENT, "ng1", 4, &req), EOK);
    assert_int_equal(req.kind, NSS_REQ_NAME);
    assert_string_equal(req.name, "ng1");
    assert_int_equal(parse(SSS_NSS_SETNETGRENT, "", 1, &req), EINVAL);
    assert_int_equal(parse(SSS_NSS_SETNETGRENT, "ng1", 3, &req), EBADMSG);
    assert_int_equal(parse(SSS_NSS_GETNETGRENT, &n, 4, &req), EOK);
    assert_int_equal(req.count, 7);
    assert_int_equal(parse(SSS_NSS_GETNETGRENT, &n, 3, &req), EBADMSG);
    assert_int_equal(parse(SSS_NSS_ENDNETGRENT, NULL, 0, &req), EOK);
    assert_int_equal(parse(SSS_NSS_ENDNETGRENT, "a", 1, &req), EBADMSG);

    r = nss_reply_new(NULL, SSS_NSS_SETNETGRENT, NULL);
    assert_non_null(r);
    assert_int_equal(nss_reply_netgr_found(r), EOK);
    assert_int_equal(nss_reply_netgr_triple_add(r, "host1", NULL, "dom"), EOK);
    assert_int_equal(nss_reply_netgr_triple_add(r, NULL, "-", NULL), EOK);
    assert_int_equal(nss_reply_netgr_member_add(r, "ng2"), EOK);
    assert_int_equal(nss_reply_netgr_member_add(r, ""), EINVAL);
    assert_int_equal(nss_reply_netgr_member_add(r, NULL), EINVAL);
    assert_int_equal(nss_reply_num_results(r), 4);
    out = nss_reply_finish(NULL, r);
    c = packet_body(out, SSS_NSS_SETNETGRENT, 0);
    assert_int_equal(take_u32(&c), 4);     /* the netgroup itself + 3 records, as SSSD */
    assert_int_equal(take_u32(&c), 0);
    assert_int_equal(take_u32(&c), SSS_NETGR_REP_TRIPLE);
    assert_string_equal(take_str(&c), "host1");
    assert_string_equal(take_str(&c), "");
    assert_string_equal(take_str(&c), "dom");
    assert_int_equal(take_u32(&c), SSS_NETGR_REP_TRIPLE);
    assert_string_equal(take_str(&c), "");
    assert_string_equal(take_str(&c), "-");
    assert_string_equal(take_str(&c), "");
    assert_int_equal(take_u32(&c), SSS_NETGR_REP_GROUP);
    assert_string_equal(take_str(&c), "ng2");
    assert_int_equal(c.left, 0);
    talloc_free(out);
}

/* GETORIGBYNAME / GETORIGBYUSERNAME: a name; one result, the id type, then key, value
 * strings (libsss_nss_idmap's sss_nss_getorigbyname reads them so). */
static void test_orig(void **state)
{
    const char *pairs[] = { "mail", "a@x", "phone", "1", "phone", "2", NULL };
    const char *odd[] = { "mail", NULL };
    struct nss_request req;
    struct nss_reply *r;
    struct resp_reply *out;
    struct cursor c;

    assert_int_equal(parse(SSS_NSS_GETORIGBYNAME, "alice", 6, &req), EOK);
    assert_int_equal(req.kind, NSS_REQ_NAME);
    assert_string_equal(req.name, "alice");
    assert_int_equal(parse(SSS_NSS_GETORIGBYUSERNAME, "alice", 6, &req), EOK);
    assert_int_equal(parse(SSS_NSS_GETORIGBYNAME, "alice", 5, &req), EBADMSG);

    r = nss_reply_new(NULL, SSS_NSS_GETORIGBYNAME, NULL);
    assert_non_null(r);
    assert_int_equal(nss_reply_orig_add(r, 1, odd), EINVAL);
    assert_int_equal(nss_reply_orig_add(r, 1, pairs), EOK);
    assert_int_equal(nss_reply_num_results(r), 1);
    out = nss_reply_finish(NULL, r);
    c = packet_body(out, SSS_NSS_GETORIGBYNAME, 0);
    assert_int_equal(take_u32(&c), 1);
    assert_int_equal(take_u32(&c), 0);
    assert_int_equal(take_u32(&c), 1);     /* SSS_ID_TYPE_UID */
    assert_string_equal(take_str(&c), "mail");
    assert_string_equal(take_str(&c), "a@x");
    assert_string_equal(take_str(&c), "phone");
    assert_string_equal(take_str(&c), "1");
    assert_string_equal(take_str(&c), "phone");
    assert_string_equal(take_str(&c), "2");
    assert_int_equal(c.left, 0);
    talloc_free(out);
}

static void test_frame(void **state)
{
    struct resp_frame *f = resp_frame_new(NULL, SSS_CLI_MAX_REQUEST_SIZE);
    uint8_t pkt[2048];
    const uint8_t *body;
    size_t used;
    size_t len;
    size_t i;

    put_hdr(pkt, 22, SSS_NSS_GETPWNAM);
    memcpy(pkt + 16, "alice", 6);
    /* byte by byte */
    for (i = 0; i < 21; i++) {
        assert_int_equal(resp_frame_feed(f, pkt + i, 1, &used), EAGAIN);
        assert_int_equal(used, 1);
    }
    assert_int_equal(resp_frame_feed(f, pkt + 21, 1, &used), EOK);
    assert_int_equal(resp_frame_cmd(f), SSS_NSS_GETPWNAM);
    body = resp_frame_body(f, &len);
    assert_int_equal(len, 6);
    assert_memory_equal(body, "alice", 6);

    /* two requests back to back: the frame takes only the first */
    resp_frame_reset(f);
    put_hdr(pkt + 22, 16, SSS_NSS_SETPWENT);
    assert_int_equal(resp_frame_feed(f, pkt, 38, &used), EOK);
    assert_int_equal(used, 22);
    resp_frame_reset(f);
    assert_int_equal(resp_frame_feed(f, pkt + 22, 16, &used), EOK);
    resp_frame_body(f, &len);
    assert_int_equal(len, 0);

    /* the largest request, one byte too large, shorter than a header */
    resp_frame_reset(f);
    put_hdr(pkt, SSS_CLI_MAX_REQUEST_SIZE, SSS_NSS_GETPWNAM);
    assert_int_equal(resp_frame_feed(f, pkt, SSS_CLI_MAX_REQUEST_SIZE, &used), EOK);
    resp_frame_reset(f);
    put_hdr(pkt, SSS_CLI_MAX_REQUEST_SIZE + 1, SSS_NSS_GETPWNAM);
    assert_int_equal(resp_frame_feed(f, pkt, 4, &used), EMSGSIZE);
    assert_int_equal(resp_frame_feed(f, pkt, 4, &used), EMSGSIZE);
    resp_frame_reset(f);
    put_hdr(pkt, 15, SSS_NSS_GETPWNAM);
    assert_int_equal(resp_frame_feed(f, pkt, 16, &used), EBADMSG);
    resp_frame_reset(f);
    put_hdr(pkt, 0xFFFFFFFF, SSS_NSS_GETPWNAM);
    assert_int_equal(resp_frame_feed(f, pkt, 16, &used), EMSGSIZE);
    assert_int_equal(resp_frame_advance(f, 1), EMSGSIZE);
    resp_frame_reset(f);
    assert_int_equal(resp_frame_advance(f, 17), EINVAL);
    talloc_free(f);
    assert_null(resp_frame_new(NULL, 8));
}

static void test_reply_builder(void **state)
{
    struct resp_reply *r = resp_reply_new(NULL, SSS_GET_VERSION);
    const uint8_t *pkt;
    uint32_t v;
    size_t len;

    assert_int_equal(resp_reply_put_u32(r, 7), EOK);
    assert_int_equal(resp_reply_set_u32(r, 0, 9), EOK);
    assert_int_equal(resp_reply_set_u32(r, 1, 9), EINVAL);
    assert_int_equal(resp_reply_put_str(r, NULL), EINVAL);
    resp_reply_set_status(r, EAGAIN);
    pkt = resp_reply_packet(r, &len);
    assert_int_equal(len, 20);
    memcpy(&v, pkt + 8, 4);
    assert_int_equal(v, EAGAIN);
    memcpy(&v, pkt + 16, 4);
    assert_int_equal(v, 9);
    assert_int_equal(resp_reply_truncate(r, 5), EINVAL);
    assert_int_equal(resp_reply_truncate(r, 0), EOK);
    assert_int_equal(resp_reply_body_len(r), 0);
    talloc_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_parse_by_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_by_name_ex, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_by_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_enum, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_malformed_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reply_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reply_passwd, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reply_group_and_initgr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reply_hostile_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_netgr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_orig, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frame, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reply_builder, setup, teardown),
    };
    int ret;

    debug_level = 0;
    ret = cmocka_run_group_tests(tests, NULL, NULL);
    /* tc_leak_start() turned null tracking on; an empty null context left behind is what
     * LeakSanitizer reports as a leak. */
    talloc_disable_null_tracking();
    return ret;
}
