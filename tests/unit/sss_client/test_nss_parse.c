/* libnss_sss's reply parsers against byte buffers built here: passwd, group with 0, 1 and
 * many members, initgroups and the gid array contract, not found, every truncation of a
 * valid reply, malformed counts and strings, ERANGE on every short buffer then success. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sss_client/sss_cli.h"
#include "sss_client/nss/nss_private.h"
#include "nss_test_buf.h"

static char big[8192];

static void pw_reply(struct tbuf *b)
{
    b->len = 0;
    tb_u32(b, 1);
    tb_u32(b, 0);
    tb_pw(b, 1000, 100, "alice", "*", "Alice A", "/home/alice", "/bin/bash");
}

static void test_passwd_one(void **state)
{
    struct tbuf b;
    struct passwd pw;

    pw_reply(&b);
    assert_int_equal(nss_parse_one_passwd(b.data, b.len, &pw, big, sizeof(big)), 0);
    assert_string_equal(pw.pw_name, "alice");
    assert_string_equal(pw.pw_passwd, "*");
    assert_int_equal(pw.pw_uid, 1000);
    assert_int_equal(pw.pw_gid, 100);
    assert_string_equal(pw.pw_gecos, "Alice A");
    assert_string_equal(pw.pw_dir, "/home/alice");
    assert_string_equal(pw.pw_shell, "/bin/bash");
    assert_true(pw.pw_name >= big && pw.pw_shell < big + sizeof(big));
}

static void test_passwd_not_found(void **state)
{
    struct tbuf b = { .len = 0 };
    struct passwd pw;

    tb_u32(&b, 0);
    tb_u32(&b, 0);
    assert_int_equal(nss_parse_one_passwd(b.data, b.len, &pw, big, sizeof(big)), ENOENT);
}

static void test_passwd_two_results(void **state)
{
    struct tbuf b = { .len = 0 };
    struct passwd pw;

    tb_u32(&b, 2);
    tb_u32(&b, 0);
    tb_pw(&b, 1, 1, "a", "*", "", "/", "/bin/sh");
    tb_pw(&b, 2, 2, "b", "*", "", "/", "/bin/sh");
    assert_int_equal(nss_parse_one_passwd(b.data, b.len, &pw, big, sizeof(big)), EBADMSG);
}

static void test_passwd_truncated(void **state)
{
    struct tbuf b;
    struct passwd pw;
    size_t cut;

    pw_reply(&b);
    for (cut = 0; cut < b.len; cut++) {
        /* a heap copy of exactly `cut` bytes, so a read past it is caught under valgrind */
        uint8_t *copy = malloc(cut ? cut : 1);

        memcpy(copy, b.data, cut);
        assert_int_equal(nss_parse_one_passwd(copy, cut, &pw, big, sizeof(big)), EBADMSG);
        free(copy);
    }
    assert_int_equal(nss_parse_one_passwd(NULL, 0, &pw, big, sizeof(big)), EBADMSG);
}

static void test_passwd_no_nul(void **state)
{
    struct tbuf b;
    struct passwd pw;

    pw_reply(&b);
    b.data[b.len - 1] = 'x';    /* the shell loses its NUL */
    assert_int_equal(nss_parse_one_passwd(b.data, b.len, &pw, big, sizeof(big)), EBADMSG);
}

static void test_passwd_erange_then_retry(void **state)
{
    struct tbuf b;
    struct passwd pw;
    size_t need = strlen("alice*Alice A/home/alice/bin/bash") + 5;
    size_t len;

    pw_reply(&b);
    for (len = 0; len < need; len++) {
        char *small = malloc(len ? len : 1);

        assert_int_equal(nss_parse_one_passwd(b.data, b.len, &pw, small, len), ERANGE);
        free(small);
    }
    {
        char *exact = malloc(need);

        assert_int_equal(nss_parse_one_passwd(b.data, b.len, &pw, exact, need), 0);
        assert_string_equal(pw.pw_shell, "/bin/bash");
        free(exact);
    }
}

static void gr_reply(struct tbuf *b, uint32_t nmem)
{
    uint32_t i;
    char name[32];

    b->len = 0;
    tb_u32(b, 1);
    tb_u32(b, 0);
    tb_u32(b, 5000);
    tb_u32(b, nmem);
    tb_str(b, "staff");
    tb_str(b, "*");
    for (i = 0; i < nmem; i++) {
        snprintf(name, sizeof(name), "user%u", i);
        tb_str(b, name);
    }
}

static void check_group(struct group *gr, uint32_t nmem)
{
    char name[32];
    uint32_t i;

    assert_string_equal(gr->gr_name, "staff");
    assert_string_equal(gr->gr_passwd, "*");
    assert_int_equal(gr->gr_gid, 5000);
    assert_int_equal((uintptr_t)gr->gr_mem % sizeof(char *), 0);
    for (i = 0; i < nmem; i++) {
        snprintf(name, sizeof(name), "user%u", i);
        assert_non_null(gr->gr_mem[i]);
        assert_string_equal(gr->gr_mem[i], name);
    }
    assert_null(gr->gr_mem[nmem]);
}

static void test_group_members(void **state)
{
    static const uint32_t counts[] = { 0, 1, 2, 500 };
    struct group gr;
    struct tbuf b;
    size_t i;

    for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        gr_reply(&b, counts[i]);
        assert_int_equal(nss_parse_one_group(b.data, b.len, &gr, big, sizeof(big)), 0);
        check_group(&gr, counts[i]);
        /* a misaligned buffer still gives an aligned member array */
        assert_int_equal(nss_parse_one_group(b.data, b.len, &gr, big + 1, sizeof(big) - 1), 0);
        check_group(&gr, counts[i]);
    }
}

static void test_group_erange_then_retry(void **state)
{
    struct group gr;
    struct tbuf b;
    size_t len;
    size_t need = 0;

    gr_reply(&b, 3);
    for (len = 0; len < 200; len++) {
        char *small = malloc(len ? len : 1);
        int ret = nss_parse_one_group(b.data, b.len, &gr, small, len);

        if (ret == 0) {
            check_group(&gr, 3);
            need = len;
            free(small);
            break;
        }
        assert_int_equal(ret, ERANGE);
        free(small);
    }
    /* pointers (4) + "staff\0*\0user0\0user1\0user2\0", maybe some alignment */
    assert_true(need >= 4 * sizeof(char *) + 26);
    assert_true(need <= 4 * sizeof(char *) + 26 + sizeof(char *));
}

static void test_group_malformed(void **state)
{
    struct group gr;
    struct tbuf b;
    size_t cut;

    gr_reply(&b, 3);
    for (cut = 0; cut < b.len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);

        memcpy(copy, b.data, cut);
        assert_int_equal(nss_parse_one_group(copy, cut, &gr, big, sizeof(big)), EBADMSG);
        free(copy);
    }
    /* a member count that cannot fit */
    gr_reply(&b, 3);
    memcpy(b.data + 12, &(uint32_t){ 0xffffffff }, 4);
    assert_int_equal(nss_parse_one_group(b.data, b.len, &gr, big, sizeof(big)), EBADMSG);
    memcpy(b.data + 12, &(uint32_t){ 4 }, 4);
    assert_int_equal(nss_parse_one_group(b.data, b.len, &gr, big, sizeof(big)), EBADMSG);
    /* not found */
    b.len = 0;
    tb_u32(&b, 0);
    tb_u32(&b, 0);
    assert_int_equal(nss_parse_one_group(b.data, b.len, &gr, big, sizeof(big)), ENOENT);
}

static void test_enum_records(void **state)
{
    struct tbuf b = { .len = 0 };
    struct passwd pw;
    size_t consumed = 0;
    size_t pos;

    tb_pw(&b, 1, 1, "a", "*", "", "/a", "/bin/sh");
    tb_pw(&b, 2, 2, "bb", "x", "g", "/b", "/bin/zsh");
    assert_int_equal(nss_parse_passwd(b.data, b.len, &consumed, &pw, big, sizeof(big)), 0);
    assert_string_equal(pw.pw_name, "a");
    pos = consumed;
    assert_int_equal(nss_parse_passwd(b.data + pos, b.len - pos, &consumed, &pw, big, 3),
                     ERANGE);
    assert_int_equal(nss_parse_passwd(b.data + pos, b.len - pos, &consumed, &pw, big,
                                      sizeof(big)), 0);
    assert_string_equal(pw.pw_name, "bb");
    assert_int_equal(pos + consumed, b.len);
}

static void test_initgr_parse(void **state)
{
    struct tbuf b = { .len = 0 };
    const uint8_t *gids;
    uint32_t count;

    tb_u32(&b, 3);
    tb_u32(&b, 0);
    tb_u32(&b, 10);
    tb_u32(&b, 20);
    tb_u32(&b, 30);
    assert_int_equal(nss_parse_initgr(b.data, b.len, &gids, &count), 0);
    assert_int_equal(count, 3);
    assert_int_equal(nss_parse_initgr(b.data, b.len - 1, &gids, &count), EBADMSG);
    assert_int_equal(nss_parse_initgr(b.data, 7, &gids, &count), EBADMSG);
    memcpy(b.data, &(uint32_t){ 0x40000001 }, 4);
    assert_int_equal(nss_parse_initgr(b.data, b.len, &gids, &count), EBADMSG);
    memcpy(b.data, &(uint32_t){ 0 }, 4);
    assert_int_equal(nss_parse_initgr(b.data, 8, &gids, &count), ENOENT);
}

/* SSSD's contract: every gid appended (the primary one too: glibc removes duplicates);
 * with too little room *size grows by exactly count, capped at limit; with enough room
 * nothing is reallocated. */
/* Netgroup records as SETNETGRENT sends them: empty fields become NULL, a member is a
 * name; too small a buffer is ERANGE and changes nothing; anything cut short is EBADMSG. */
static void test_netgr_records(void **state)
{
    struct tbuf b = { .len = 0 };
    struct nss_netgr_ent ent;
    size_t used = 0;
    size_t pos = 0;
    size_t cut;

    (void)state;
    tb_u32(&b, SSS_NETGR_REP_TRIPLE);
    tb_str(&b, "host1");
    tb_str(&b, "");
    tb_str(&b, "-");
    tb_u32(&b, SSS_NETGR_REP_GROUP);
    tb_str(&b, "ng2");

    memset(&ent, 0x5a, sizeof(ent));
    assert_int_equal(nss_parse_netgr(b.data, b.len, &used, &ent, big, 5), ERANGE);
    assert_int_equal(((const uint8_t *)&ent)[0], 0x5a);
    assert_int_equal(nss_parse_netgr(b.data, b.len, &used, &ent, big, 9), 0);
    assert_int_equal(used, 4 + 9);
    assert_true(ent.is_triple);
    assert_string_equal(ent.host, "host1");
    assert_null(ent.user);
    assert_string_equal(ent.domain, "-");
    pos += used;
    assert_int_equal(nss_parse_netgr(b.data + pos, b.len - pos, &used, &ent, big,
                                     sizeof(big)), 0);
    assert_false(ent.is_triple);
    assert_string_equal(ent.member, "ng2");
    assert_int_equal(pos + used, b.len);

    /* every truncation of the first record, and an unknown type */
    for (cut = 0; cut < 4 + 9; cut++) {
        assert_int_equal(nss_parse_netgr(b.data, cut, &used, &ent, big, sizeof(big)),
                         EBADMSG);
    }
    b.len = 0;
    tb_u32(&b, 3);
    tb_str(&b, "x");
    assert_int_equal(nss_parse_netgr(b.data, b.len, &used, &ent, big, sizeof(big)), EBADMSG);
    assert_int_equal(nss_parse_netgr(NULL, 0, &used, &ent, big, sizeof(big)), EBADMSG);
}

static void test_add_gids(void **state)
{
    uint32_t raw[] = { 10, 100, 20, 30, 40 };
    long int start = 1, size = 1;
    gid_t *groups = malloc(sizeof(gid_t));
    size_t i;

    groups[0] = 100;    /* what glibc puts first: the primary group */
    assert_int_equal(nss_add_gids((uint8_t *)raw, 5, &start, &size, &groups, 0), 0);
    assert_int_equal(start, 6);
    assert_int_equal(size, 6);          /* 1 + 5, not doubled */
    assert_int_equal(groups[0], 100);
    for (i = 0; i < 5; i++) {
        assert_int_equal(groups[1 + i], raw[i]);
    }

    /* Enough room: no growth, size untouched. */
    start = 1;
    assert_int_equal(nss_add_gids((uint8_t *)raw, 5, &start, &size, &groups, 0), 0);
    assert_int_equal(start, 6);
    assert_int_equal(size, 6);

    /* A limit: *size becomes the limit, and only what fits below it is added. */
    start = 1;
    size = 1;
    assert_int_equal(nss_add_gids((uint8_t *)raw, 5, &start, &size, &groups, 3), 0);
    assert_int_equal(start, 3);
    assert_int_equal(size, 3);
    assert_int_equal(groups[1], 10);
    assert_int_equal(groups[2], 100);
    free(groups);

    /* An empty array grows from nothing. */
    groups = NULL;
    start = 0;
    size = 0;
    assert_int_equal(nss_add_gids((uint8_t *)raw, 5, &start, &size, &groups, 0), 0);
    assert_int_equal(start, 5);
    assert_int_equal(size, 5);
    free(groups);

    /* Nonsense counters: nothing touched. */
    groups = NULL;
    start = 3;
    size = 2;
    assert_int_equal(nss_add_gids((uint8_t *)raw, 5, &start, &size, &groups, 0), 0);
    assert_int_equal(start, 3);
    assert_null(groups);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_passwd_one),
        cmocka_unit_test(test_passwd_not_found),
        cmocka_unit_test(test_passwd_two_results),
        cmocka_unit_test(test_passwd_truncated),
        cmocka_unit_test(test_passwd_no_nul),
        cmocka_unit_test(test_passwd_erange_then_retry),
        cmocka_unit_test(test_group_members),
        cmocka_unit_test(test_group_erange_then_retry),
        cmocka_unit_test(test_group_malformed),
        cmocka_unit_test(test_enum_records),
        cmocka_unit_test(test_initgr_parse),
        cmocka_unit_test(test_netgr_records),
        cmocka_unit_test(test_add_gids),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
