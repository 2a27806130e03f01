/*
 * Unit tests of src/lib/idmap: SID <-> id mapping as SSSD computes it. The expected ids come
 * from idmap_ref.py, an independent Python model of SSSD's published algorithm that
 * test_idmap.sh runs first: the file it writes is replayed here line by line. Plus the
 * binary SID conversions (a real Samba DC's objectSid) and hostile input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <inttypes.h>

#include "util/util.h"
#include "lib/idmap/idmap.h"
#include "tests/unit/common/tc_common.h"

static const char *cases_file;

static struct tc_leaks leaks;

static int setup(void **state)
{
    (void)state;
    tc_leak_start(&leaks);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tc_leak_check(&leaks);
    return 0;
}

/* Replays the reference model's scenarios; every line must agree. */
static void test_reference_cases(void **state)
{
    TALLOC_CTX *tmp = talloc_new(NULL);
    struct idmap_ctx *ctx = NULL;
    char line[512];
    char w[5][128];
    size_t checked = 0;
    FILE *f;
    int n;

    (void)state;
    if (cases_file == NULL) {
        skip();
    }
    f = fopen(cases_file, "r");
    assert_non_null(f);
    while (fgets(line, sizeof(line), f) != NULL) {
        n = sscanf(line, "%127s %127s %127s %127s %127s %127s", w[0], w[1], w[2], w[3], w[4],
                   w[4]);
        if (n >= 6 && strcmp(w[0], "opts") == 0) {
            struct idmap_opts o;
            unsigned long v[5];

            sscanf(line, "opts %lu %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3], &v[4]);
            o.lower = v[0];
            o.upper = v[1];
            o.rangesize = v[2];
            o.autorid = v[3] != 0;
            o.helpers = v[4];
            talloc_free(ctx);
            assert_int_equal(idmap_ctx_create(tmp, &o, &ctx), EOK);
        } else if (strcmp(w[0], "dom") == 0) {
            char name[128], sid[128], want[32];
            long long req;
            int64_t slice;
            errno_t ret;

            assert_int_equal(sscanf(line, "dom %127s %127s %lld %31s", name, sid, &req, want),
                             4);
            slice = req;
            ret = idmap_add_domain(ctx, name, sid, &slice);
            if (strcmp(want, "ERR") == 0) {
                assert_int_not_equal(ret, EOK);
            } else {
                if (ret != EOK || slice != strtoll(want, NULL, 10)) {
                    fail_msg("%s: got slice %" PRId64 " (%d)", line, slice, ret);
                }
            }
            checked++;
        } else if (strcmp(w[0], "map") == 0) {
            uint32_t id = 0;
            errno_t ret = idmap_sid_to_id(ctx, w[1], &id);

            if (strcmp(w[2], "ERR") == 0) {
                if (ret == EOK) {
                    fail_msg("%s: mapped to %" PRIu32 ", expected an error", line, id);
                }
            } else if (ret != EOK || id != strtoul(w[2], NULL, 10)) {
                fail_msg("%s: got %" PRIu32 " (%d)", line, id, ret);
            }
            checked++;
        } else if (strcmp(w[0], "unmap") == 0) {
            char *sid = NULL;
            errno_t ret = idmap_id_to_sid(tmp, ctx, strtoul(w[1], NULL, 10), &sid);

            if (strcmp(w[2], "ERR") == 0) {
                if (ret == EOK) {
                    fail_msg("%s: gave %s, expected an error", line, sid);
                }
            } else if (ret != EOK || strcmp(sid, w[2]) != 0) {
                fail_msg("%s: got %s (%d)", line, sid != NULL ? sid : "-", ret);
            }
            checked++;
        }
    }
    fclose(f);
    /* The model's scenarios, all of them. */
    assert_true(checked > 200);
    talloc_free(tmp);
}

/* bob's objectSid as a Samba AD DC sent it. */
static const uint8_t bob_sid[] = {
    0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x15, 0x00, 0x00, 0x00, 0xee, 0x2d,
    0xd7, 0x17, 0x0e, 0xd4, 0xed, 0x30, 0x6d, 0xe2, 0xd7, 0x24, 0x50, 0x04, 0x00, 0x00
};
#define BOB_SID "S-1-5-21-399977966-820892686-618127981-1104"

static void test_bin_sid(void **state)
{
    TALLOC_CTX *tmp = talloc_new(NULL);
    uint8_t *bin = NULL;
    char *sid = NULL;
    char *dom = NULL;
    uint32_t rid = 0;
    size_t len = 0;

    (void)state;
    assert_int_equal(idmap_bin_sid_to_str(tmp, bob_sid, sizeof(bob_sid), &sid), EOK);
    assert_string_equal(sid, BOB_SID);
    assert_int_equal(idmap_str_sid_to_bin(tmp, sid, &bin, &len), EOK);
    assert_int_equal(len, sizeof(bob_sid));
    assert_memory_equal(bin, bob_sid, len);
    assert_int_equal(idmap_split_sid(tmp, sid, &dom, &rid), EOK);
    assert_string_equal(dom, "S-1-5-21-399977966-820892686-618127981");
    assert_int_equal(rid, 1104);
    assert_true(idmap_is_domain_sid(dom));
    assert_false(idmap_is_domain_sid(sid));
    /* S-1-5-32-544 (BUILTIN\Administrators), a 48-bit authority */
    assert_int_equal(idmap_str_sid_to_bin(tmp, "S-1-5-32-544", &bin, &len), EOK);
    assert_int_equal(len, 16);
    assert_int_equal(idmap_bin_sid_to_str(tmp, bin, len, &sid), EOK);
    assert_string_equal(sid, "S-1-5-32-544");
    assert_int_equal(idmap_str_sid_to_bin(tmp, "S-1-281474976710655-7", &bin, &len), EOK);
    assert_int_equal(idmap_bin_sid_to_str(tmp, bin, len, &sid), EOK);
    assert_string_equal(sid, "S-1-281474976710655-7");
    talloc_free(tmp);
}

static void test_hostile(void **state)
{
    static const char *const bad_str[] = {
        "", "S-1-5-", "S-2-5-21-1-2-3", "S-1-5-21-1-2-3-", "S-1-5-21-1--3",
        "S-1-5-21-4294967296-1-1", "S-1-5-21-1-2-3x", "S-1-281474976710656-1",
        "S-1-5-21-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16", "s-1-5-21-1-2-3",
    };
    TALLOC_CTX *tmp = talloc_new(NULL);
    struct idmap_opts o = { 200000, 2000200000, 200000, false, 10 };
    struct idmap_ctx *ctx = NULL;
    uint8_t buf[sizeof(bob_sid)];
    uint8_t *bin = NULL;
    char *sid = NULL;
    char *dom = NULL;
    uint32_t id = 0;
    int64_t slice = -1;
    size_t len = 0;
    size_t i;

    (void)state;
    for (i = 0; i < SSS_ARRAY_SIZE(bad_str); i++) {
        assert_int_equal(idmap_str_sid_to_bin(tmp, bad_str[i], &bin, &len), EINVAL);
        assert_false(idmap_is_domain_sid(bad_str[i]));
        assert_int_equal(idmap_split_sid(tmp, bad_str[i], &dom, &id), EINVAL);
    }
    /* A SID, but not of a domain. */
    assert_false(idmap_is_domain_sid("S-1-5"));
    assert_int_equal(idmap_str_sid_to_bin(tmp, "S-1-5", &bin, &len), EOK);
    assert_int_equal(len, 8);
    /* Truncated, a lying count, a bad revision. */
    assert_int_equal(idmap_bin_sid_to_str(tmp, bob_sid, 7, &sid), EINVAL);
    assert_int_equal(idmap_bin_sid_to_str(tmp, bob_sid, sizeof(bob_sid) - 1, &sid), EINVAL);
    memcpy(buf, bob_sid, sizeof(buf));
    buf[1] = 200;
    assert_int_equal(idmap_bin_sid_to_str(tmp, buf, sizeof(buf), &sid), EINVAL);
    buf[1] = 5;
    buf[0] = 2;
    assert_int_equal(idmap_bin_sid_to_str(tmp, buf, sizeof(buf), &sid), EINVAL);
    assert_int_equal(idmap_bin_sid_to_str(tmp, NULL, 0, &sid), EINVAL);

    /* Contexts that cannot hold one slice. */
    o.rangesize = 0;
    assert_int_equal(idmap_ctx_create(tmp, &o, &ctx), EINVAL);
    o.rangesize = 300;
    o.lower = 1000;
    o.upper = 1200;
    assert_int_equal(idmap_ctx_create(tmp, &o, &ctx), EINVAL);
    o = (struct idmap_opts){ 200000, 2000200000, 200000, false, 10 };
    assert_int_equal(idmap_ctx_create(tmp, &o, &ctx), EOK);
    assert_int_equal(idmap_add_domain(ctx, "x", "S-1-5-21-1-2", &slice), EINVAL);
    slice = 10000;
    assert_int_equal(idmap_add_domain(ctx, "x", "S-1-5-21-1-2-3", &slice), EINVAL);
    slice = -2;
    assert_int_equal(idmap_add_domain(ctx, "x", "S-1-5-21-1-2-3", &slice), EINVAL);
    slice = -1;
    assert_int_equal(idmap_add_domain(ctx, "x", "S-1-5-21-1-2-3", &slice), EOK);
    slice = -1;
    assert_int_equal(idmap_add_domain(ctx, "X", "S-1-5-21-1-2-4", &slice), EEXIST);
    assert_int_equal(idmap_sid_to_id(ctx, "S-1-5-32-544", &id), ENOTSUP);
    assert_int_equal(idmap_sid_to_id(ctx, "S-1-5-21-1-2-3", &id), EINVAL);
    assert_int_equal(idmap_sid_to_id(ctx, "S-1-5-21-9-9-9-500", &id), ENOENT);
    assert_int_equal(idmap_sid_to_id(ctx, "S-1-5-21-1-2-3-4294967296", &id), EINVAL);
    assert_int_equal(idmap_sid_to_id(ctx, "S-1-5-21-1-2-3-4294967295", &id), EOK);
    assert_int_equal(idmap_id_to_sid(tmp, ctx, 0, &sid), ENOENT);
    assert_int_equal(idmap_id_to_sid(tmp, ctx, 100, &sid), ENOENT);
    talloc_free(tmp);
}

int main(int argc, char *argv[])
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reference_cases, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bin_sid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
    };

    cases_file = argc > 1 ? argv[1] : getenv("IDMAP_CASES");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
