/*
 * Unit tests of GPO security filtering (src/providers/ad/ad_gpo_sd.h): security
 * descriptors built here byte by byte as MS-DTYP lays them out (the default DACL a DC gives
 * a groupPolicyContainer, denies of Apply Group Policy to the host, to a user's group,
 * filtering to one group, inherit-only and foreign-GUID ACEs, read property denied, no,
 * NULL and empty DACLs), one a Samba DC returned, then hostile bytes: every truncation of a valid descriptor,
 * offsets, sizes, counts and SIDs that point outside. Leak checks on every test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tests/unit/common/tc_common.h"
#include "lib/idmap/idmap.h"
#include "providers/ad/ad_gpo_sd.h"

#define DOM "S-1-5-21-1-2-3"
#define USER DOM "-1105"
#define HOST DOM "-1300"
#define GROUP DOM "-1200"
#define OTHER DOM "-1400"
#define DOMAIN_ADMINS DOM "-512"
#define AUTH_USERS "S-1-5-11"

#define RPLCLORC 0x00020094     /* read property, list, list object, read control */
#define FULL 0x000f01ff
#define CR AD_GPO_RIGHT_DS_CONTROL_ACCESS

static const uint8_t agp[16] = AD_GPO_AGP_GUID_BYTES;
static const uint8_t other_guid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

struct ace_spec {
    uint8_t type;
    uint8_t flags;
    uint32_t mask;
    const uint8_t *guid;        /* object ACEs: the object type, or NULL */
    const char *sid;
};

static int setup_leaks(void **state)
{
    struct tc_leaks *l = calloc(1, sizeof(*l));

    tc_leak_start(l);
    *state = l;
    return 0;
}

static int teardown_leaks(void **state)
{
    tc_leak_check(*state);
    free(*state);
    return 0;
}

static void put16(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v & 0xffff);
    put16(p + 2, v >> 16);
}

/* A self-relative descriptor: an owner SID first (as DCs write it), then the DACL. */
static uint8_t *make_sd(const struct ace_spec *aces, size_t n, uint16_t control,
                        size_t *_len)
{
    uint8_t *b = talloc_zero_size(NULL, 4096);
    uint8_t *sid;
    size_t sid_len;
    size_t off;
    size_t acl;
    size_t start;

    assert_non_null(b);
    b[0] = 1;
    put16(b + 2, control | 0x8000);
    assert_int_equal(idmap_str_sid_to_bin(NULL, DOMAIN_ADMINS, &sid, &sid_len), EOK);
    put32(b + 4, 20);
    memcpy(b + 20, sid, sid_len);
    talloc_free(sid);
    acl = 20 + sid_len;
    put32(b + 16, (uint32_t)acl);
    b[acl] = 4;
    put16(b + acl + 4, n);
    off = acl + 8;
    for (size_t i = 0; i < n; i++) {
        start = off;
        b[off] = aces[i].type;
        b[off + 1] = aces[i].flags;
        off += 4;
        put32(b + off, aces[i].mask);
        off += 4;
        if (aces[i].type == AD_GPO_ACE_ALLOWED_OBJECT
                || aces[i].type == AD_GPO_ACE_DENIED_OBJECT) {
            put32(b + off, aces[i].guid != NULL ? 1 : 0);
            off += 4;
            if (aces[i].guid != NULL) {
                memcpy(b + off, aces[i].guid, 16);
                off += 16;
            }
        }
        assert_int_equal(idmap_str_sid_to_bin(NULL, aces[i].sid, &sid, &sid_len), EOK);
        memcpy(b + off, sid, sid_len);
        talloc_free(sid);
        off += sid_len;
        put16(b + start + 2, off - start);
    }
    put16(b + acl + 2, off - acl);
    *_len = off;
    return b;
}

/* Parses the descriptor of the ACEs and decides for USER in GROUP on HOST. */
static bool applies(const struct ace_spec *aces, size_t n, const char *user)
{
    const char *groups[] = { GROUP, NULL };
    struct ad_gpo_sd *sd;
    uint8_t *b;
    size_t len;
    bool ok;

    b = make_sd(aces, n, 0x0004, &len);
    assert_int_equal(ad_gpo_sd_parse(NULL, b, len, &sd), EOK);
    assert_int_equal(sd->num_aces, n);
    ok = ad_gpo_sd_applies(sd, user, HOST,
                           strcmp(user, USER) == 0 ? groups : NULL,
                           strcmp(user, USER) == 0 ? 1 : 0);
    talloc_free(sd);
    talloc_free(b);
    return ok;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* groupPolicyContainer's defaultSecurityDescriptor: admins full control, Authenticated
 * Users read and Apply Group Policy. */
#define DEFAULT_ACES \
    { AD_GPO_ACE_ALLOWED, 0x02, FULL, NULL, DOMAIN_ADMINS }, \
    { AD_GPO_ACE_ALLOWED, 0x02, RPLCLORC, NULL, AUTH_USERS }, \
    { AD_GPO_ACE_ALLOWED_OBJECT, 0x02, CR, agp, AUTH_USERS }

static void test_default_dacl(void **state)
{
    const struct ace_spec d[] = { DEFAULT_ACES };
    struct ad_gpo_sd *sd;
    uint8_t *b;
    size_t len;

    (void)state;
    assert_true(applies(d, N(d), USER));
    assert_true(applies(d, N(d), OTHER));
    /* The parsed ACEs themselves. */
    b = make_sd(d, N(d), 0x0004, &len);
    assert_int_equal(ad_gpo_sd_parse(NULL, b, len, &sd), EOK);
    assert_true(sd->has_dacl);
    assert_string_equal(sd->aces[1].trustee, AUTH_USERS);
    assert_int_equal(sd->aces[1].mask, RPLCLORC);
    assert_int_equal(sd->aces[2].type, AD_GPO_ACE_ALLOWED_OBJECT);
    assert_true(sd->aces[2].has_object_type);
    assert_memory_equal(sd->aces[2].object_type, agp, 16);
    assert_false(sd->aces[0].has_object_type);
    talloc_free(sd);
    talloc_free(b);
}

static void test_deny_host_and_group(void **state)
{
    const struct ace_spec host[] = {
        { AD_GPO_ACE_DENIED_OBJECT, 0, CR, agp, HOST }, DEFAULT_ACES
    };
    const struct ace_spec group[] = {
        { AD_GPO_ACE_DENIED_OBJECT, 0, CR, agp, GROUP }, DEFAULT_ACES
    };
    const struct ace_spec stranger[] = {
        { AD_GPO_ACE_DENIED_OBJECT, 0, CR, agp, OTHER }, DEFAULT_ACES
    };
    /* Deny before allow is what decides: an allow met first wins. */
    const struct ace_spec late[] = {
        DEFAULT_ACES, { AD_GPO_ACE_DENIED_OBJECT, 0, CR, agp, GROUP }
    };

    (void)state;
    assert_false(applies(host, N(host), USER));
    assert_false(applies(host, N(host), OTHER));    /* the host's SID is every logon's */
    assert_false(applies(group, N(group), USER));
    assert_true(applies(group, N(group), OTHER));   /* not in GROUP */
    assert_true(applies(stranger, N(stranger), USER));
    assert_true(applies(late, N(late), USER));
}

static void test_filter_to_group(void **state)
{
    /* Security filtering to GROUP: everyone reads, only GROUP applies it. */
    const struct ace_spec f[] = {
        { AD_GPO_ACE_ALLOWED, 0x02, RPLCLORC, NULL, AUTH_USERS },
        { AD_GPO_ACE_ALLOWED_OBJECT, 0x02, CR, agp, GROUP },
    };
    /* An object ACE without object type carries every extended right. */
    const struct ace_spec all[] = {
        { AD_GPO_ACE_ALLOWED, 0, RPLCLORC, NULL, AUTH_USERS },
        { AD_GPO_ACE_ALLOWED_OBJECT, 0, CR, NULL, USER },
    };
    /* Another extended right's GUID, or an object ACE without the control access bit,
     * says nothing of Apply Group Policy. */
    const struct ace_spec foreign[] = {
        { AD_GPO_ACE_ALLOWED, 0, RPLCLORC, NULL, AUTH_USERS },
        { AD_GPO_ACE_DENIED_OBJECT, 0, CR, other_guid, USER },
        { AD_GPO_ACE_DENIED_OBJECT, 0, 0x10, agp, USER },
        { AD_GPO_ACE_ALLOWED_OBJECT, 0, CR, agp, USER },
    };
    /* A plain allow with the control access bit is not looked at for the right, as SSSD
     * does. */
    const struct ace_spec plain[] = {
        { AD_GPO_ACE_ALLOWED, 0, RPLCLORC | CR, NULL, AUTH_USERS },
    };

    (void)state;
    assert_true(applies(f, N(f), USER));
    assert_false(applies(f, N(f), OTHER));
    assert_true(applies(all, N(all), USER));
    assert_false(applies(all, N(all), OTHER));
    assert_true(applies(foreign, N(foreign), USER));
    assert_false(applies(plain, N(plain), USER));
}

static void test_inherit_only_and_read(void **state)
{
    /* An inherit-only deny is for child objects: skipped. */
    const struct ace_spec io[] = {
        { AD_GPO_ACE_DENIED_OBJECT, AD_GPO_ACE_INHERIT_ONLY | 0x02, CR, agp, USER },
        DEFAULT_ACES
    };
    /* Read property denied to the user before Authenticated Users' allow: the allow of
     * Apply Group Policy is passed over, nothing decides. */
    const struct ace_spec noread[] = {
        { AD_GPO_ACE_DENIED, 0, 0x10, NULL, USER }, DEFAULT_ACES
    };
    /* Read property granted only by an inherit-only ACE: not granted. */
    const struct ace_spec ioread[] = {
        { AD_GPO_ACE_ALLOWED, AD_GPO_ACE_INHERIT_ONLY, RPLCLORC, NULL, AUTH_USERS },
        { AD_GPO_ACE_ALLOWED_OBJECT, 0, CR, agp, AUTH_USERS },
    };
    /* A deny of Apply Group Policy met before read was granted is passed over too. */
    const struct ace_spec late_read[] = {
        { AD_GPO_ACE_DENIED, 0, 0x10, NULL, USER },
        { AD_GPO_ACE_DENIED_OBJECT, 0, CR, agp, USER },
        DEFAULT_ACES
    };

    (void)state;
    assert_true(applies(io, N(io), USER));
    assert_false(applies(noread, N(noread), USER));
    assert_true(applies(noread, N(noread), OTHER));
    assert_false(applies(ioread, N(ioread), USER));
    assert_false(applies(late_read, N(late_read), USER));
}

static void test_no_null_empty_dacl(void **state)
{
    const struct ace_spec d[] = { DEFAULT_ACES };
    struct ad_gpo_sd *sd;
    uint8_t *b;
    size_t len;

    (void)state;
    /* DACL present bit clear: nothing restricts. */
    b = make_sd(d, N(d), 0, &len);
    assert_int_equal(ad_gpo_sd_parse(NULL, b, len, &sd), EOK);
    assert_false(sd->has_dacl);
    assert_true(ad_gpo_sd_applies(sd, USER, NULL, NULL, 0));
    talloc_free(sd);
    /* A NULL DACL (present, offset 0). */
    put32(b + 16, 0);
    put16(b + 2, 0x8004);
    assert_int_equal(ad_gpo_sd_parse(NULL, b, len, &sd), EOK);
    assert_true(ad_gpo_sd_applies(sd, USER, HOST, NULL, 0));
    talloc_free(sd);
    talloc_free(b);
    /* An empty DACL grants nothing. */
    b = make_sd(NULL, 0, 0x0004, &len);
    assert_int_equal(ad_gpo_sd_parse(NULL, b, len, &sd), EOK);
    assert_true(sd->has_dacl);
    assert_int_equal(sd->num_aces, 0);
    assert_false(ad_gpo_sd_applies(sd, USER, HOST, NULL, 0));
    talloc_free(sd);
    talloc_free(b);
}

/* What Samba 4.17 returned for a groupPolicyContainer with the SD flags control asking
 * for the DACL (no owner, no group) after `samba-tool dsacl set --sddl=(OD;;CR;edacfd8f-
 * ffb3-11d1-b41d-00a0c968f939;;USER)`: that deny, then the default ACEs, among them
 * (A;CIIO;...;;;CO) and Authenticated Users' (A;CI;RPLCLORC;;;AU) and (OA;CI;CR;AGP;;AU). */
static const uint8_t samba_sd[] = {
    0x01, 0x00, 0x04, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x04, 0x00, 0x24, 0x01,
    0x09, 0x00, 0x00, 0x00, 0x06, 0x00, 0x38, 0x00, 0x00, 0x01, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x8f, 0xfd, 0xac, 0xed, 0xb3, 0xff, 0xd1, 0x11,
    0xb4, 0x1d, 0x00, 0xa0, 0xc9, 0x68, 0xf9, 0x39, 0x01, 0x05, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x05, 0x15, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x51, 0x04, 0x00, 0x00,
    0x00, 0x02, 0x24, 0x00, 0xff, 0x00, 0x0f, 0x00, 0x01, 0x05, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x05, 0x15, 0x00, 0x00, 0x00, 0x52, 0xd0, 0x70, 0xe9,
    0xb5, 0x0f, 0xe6, 0x43, 0x0b, 0x3c, 0xd6, 0x96, 0x00, 0x02, 0x00, 0x00,
    0x00, 0x02, 0x24, 0x00, 0xff, 0x00, 0x0f, 0x00, 0x01, 0x05, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x05, 0x15, 0x00, 0x00, 0x00, 0x52, 0xd0, 0x70, 0xe9,
    0xb5, 0x0f, 0xe6, 0x43, 0x0b, 0x3c, 0xd6, 0x96, 0x07, 0x02, 0x00, 0x00,
    0x00, 0x0a, 0x14, 0x00, 0xff, 0x00, 0x0f, 0x00, 0x01, 0x01, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x24, 0x00,
    0xff, 0x00, 0x0f, 0x00, 0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
    0x15, 0x00, 0x00, 0x00, 0x52, 0xd0, 0x70, 0xe9, 0xb5, 0x0f, 0xe6, 0x43,
    0x0b, 0x3c, 0xd6, 0x96, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x14, 0x00,
    0xff, 0x00, 0x0f, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
    0x12, 0x00, 0x00, 0x00, 0x00, 0x02, 0x14, 0x00, 0x94, 0x00, 0x02, 0x00,
    0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x0b, 0x00, 0x00, 0x00,
    0x05, 0x02, 0x28, 0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x8f, 0xfd, 0xac, 0xed, 0xb3, 0xff, 0xd1, 0x11, 0xb4, 0x1d, 0x00, 0xa0,
    0xc9, 0x68, 0xf9, 0x39, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
    0x0b, 0x00, 0x00, 0x00, 0x00, 0x02, 0x14, 0x00, 0x94, 0x00, 0x02, 0x00,
    0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x09, 0x00, 0x00, 0x00,
};

static void test_samba_sd(void **state)
{
    struct ad_gpo_sd *sd;
    const char *groups[] = { "S-1-5-21-1-2-3-513" };

    (void)state;
    assert_int_equal(ad_gpo_sd_parse(NULL, samba_sd, sizeof(samba_sd), &sd), EOK);
    assert_true(sd->has_dacl);
    assert_int_equal(sd->num_aces, 9);
    assert_int_equal(sd->aces[0].type, AD_GPO_ACE_DENIED_OBJECT);
    assert_string_equal(sd->aces[0].trustee, USER);
    assert_memory_equal(sd->aces[0].object_type, agp, 16);
    assert_true(sd->aces[3].flags & AD_GPO_ACE_INHERIT_ONLY);
    assert_string_equal(sd->aces[3].trustee, "S-1-3-0");
    assert_int_equal(sd->aces[6].type, AD_GPO_ACE_ALLOWED);
    assert_string_equal(sd->aces[6].trustee, AUTH_USERS);
    assert_false(ad_gpo_sd_applies(sd, USER, HOST, groups, 1));
    assert_true(ad_gpo_sd_applies(sd, OTHER, HOST, groups, 1));
    assert_true(ad_gpo_sd_applies(sd, OTHER, NULL, NULL, 0));
    talloc_free(sd);
}

static void expect_einval(uint8_t *b, size_t len)
{
    struct ad_gpo_sd *sd = NULL;

    assert_int_equal(ad_gpo_sd_parse(NULL, b, len, &sd), EINVAL);
    assert_null(sd);
}

static void test_hostile(void **state)
{
    const struct ace_spec d[] = {
        { AD_GPO_ACE_DENIED_OBJECT, 0, CR, agp, HOST }, DEFAULT_ACES,
        { 0x02, 0, 0, NULL, USER },     /* a system audit ACE: kept, never matches */
    };
    struct ad_gpo_sd *sd;
    uint8_t *b;
    uint8_t *copy;
    size_t len;
    size_t acl;

    (void)state;
    b = make_sd(d, N(d), 0x0004, &len);
    assert_int_equal(ad_gpo_sd_parse(NULL, b, len, &sd), EOK);
    assert_null(sd->aces[4].trustee);
    assert_false(ad_gpo_sd_applies(sd, USER, HOST, NULL, 0));
    talloc_free(sd);
    /* Every truncation, as an exact-size copy (ASan sees a read past it). */
    for (size_t n = 0; n < len; n++) {
        copy = talloc_memdup(NULL, b, n > 0 ? n : 1);
        assert_non_null(copy);
        expect_einval(copy, n);
        talloc_free(copy);
    }
    acl = 20 + 8 + 4 * 5;       /* after the owner SID (5 sub-authorities) */
    b[0] = 2;                   /* SD revision */
    expect_einval(b, len);
    b[0] = 1;
    put32(b + 16, (uint32_t)len);       /* DACL offset at the end */
    expect_einval(b, len);
    put32(b + 16, 0xfffffff0);
    expect_einval(b, len);
    put32(b + 16, 4);                   /* inside the header */
    expect_einval(b, len);
    put32(b + 16, (uint32_t)acl);
    b[acl] = 3;                         /* ACL revision */
    expect_einval(b, len);
    b[acl] = 2;
    put16(b + acl + 2, len - acl + 1);  /* ACL size past the end */
    expect_einval(b, len);
    put16(b + acl + 2, len - acl);
    put16(b + acl + 4, 60000);          /* more ACEs than fit */
    expect_einval(b, len);
    put16(b + acl + 4, N(d));
    put16(b + acl + 8 + 2, 2);          /* an ACE shorter than its header */
    expect_einval(b, len);
    put16(b + acl + 8 + 2, 0xfff0);     /* an ACE past the ACL */
    expect_einval(b, len);
    put16(b + acl + 8 + 2, 4 + 4 + 4 + 16 + 8 + 4 * 5);
    b[acl + 8 + 4 + 4 + 4 + 16 + 1] = 16;       /* the trustee's sub-authority count */
    expect_einval(b, len);
    b[acl + 8 + 4 + 4 + 4 + 16 + 1] = 5;
    assert_int_equal(ad_gpo_sd_parse(NULL, b, len, &sd), EOK);   /* restored */
    talloc_free(sd);
    put32(b + acl + 8 + 8, 3);          /* both GUIDs flagged: the SID no longer fits */
    expect_einval(b, len);
    talloc_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_default_dacl, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_deny_host_and_group, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_filter_to_group, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_inherit_only_and_read, setup_leaks,
                                        teardown_leaks),
        cmocka_unit_test_setup_teardown(test_no_null_empty_dacl, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_hostile, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_samba_sd, setup_leaks, teardown_leaks),
    };
    int failed;

    failed = cmocka_run_group_tests_name("ad_gpo_sd", tests, NULL, NULL);
    talloc_disable_null_tracking();     /* frees the tracking context (LeakSanitizer) */
    return failed;
}
