/* Unit tests of DNS SRV discovery's pure parts (src/util/sss_srv.h): the parser of DNS
 * answers (built here byte by byte, with name compression, other record types, a target
 * ".", hostile targets and truncations) and the RFC 2782 order (priorities, the weighted
 * choice within one, counted over many draws with a seeded generator). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/sss_srv.h"

struct msg {
    uint8_t b[4096];
    size_t n;
};

static void put8(struct msg *m, uint8_t v) { m->b[m->n++] = v; }
static void put16(struct msg *m, uint16_t v) { put8(m, v >> 8); put8(m, v & 0xff); }
static void put32(struct msg *m, uint32_t v) { put16(m, v >> 16); put16(m, v & 0xffff); }

/* A name as labels ("a.b" -> 1a1b0); "" is the root. */
static void put_name(struct msg *m, const char *name)
{
    const char *p = name;

    while (*p != '\0') {
        const char *dot = strchr(p, '.');
        size_t len = dot != NULL ? (size_t)(dot - p) : strlen(p);

        put8(m, (uint8_t)len);
        memcpy(&m->b[m->n], p, len);
        m->n += len;
        p += len + (dot != NULL ? 1 : 0);
    }
    put8(m, 0);
}

/* Header and the question _ldap._tcp.ad.test (at offset 12: a compression target). */
static void start(struct msg *m, uint8_t rcode, uint16_t ancount)
{
    m->n = 0;
    put16(m, 0x1234);
    put16(m, 0x8180 | rcode);
    put16(m, 1);
    put16(m, ancount);
    put16(m, 0);
    put16(m, 0);
    put_name(m, "_ldap._tcp.ad.test");
    put16(m, 33);
    put16(m, 1);
}

/* One SRV answer; the owner is a pointer to the question's name. target NULL: a pointer
 * to "ad.test" inside the question (offset 12 + 6 + 5). */
static void put_srv(struct msg *m, uint32_t ttl, uint16_t prio, uint16_t weight,
                    uint16_t port, const char *target)
{
    size_t rdlen_at;

    put16(m, 0xc00c);
    put16(m, 33);
    put16(m, 1);
    put32(m, ttl);
    rdlen_at = m->n;
    put16(m, 0);
    put16(m, prio);
    put16(m, weight);
    put16(m, port);
    if (target != NULL) {
        put_name(m, target);
    } else {
        put16(m, 0xc000 | (12 + 6 + 5));
    }
    m->b[rdlen_at] = (uint8_t)((m->n - rdlen_at - 2) >> 8);
    m->b[rdlen_at + 1] = (uint8_t)((m->n - rdlen_at - 2) & 0xff);
}

static void test_parse_answer(void **state)
{
    struct msg m;
    struct sss_srv_rec *recs = NULL;
    size_t num = 0;
    uint32_t ttl = 0;

    (void)state;
    start(&m, 0, 4);
    put_srv(&m, 900, 0, 100, 389, "dc1.ad.test");
    /* A CNAME among the answers is skipped. */
    put16(&m, 0xc00c); put16(&m, 5); put16(&m, 1); put32(&m, 5); put16(&m, 2);
    put16(&m, 0xc00c);
    put_srv(&m, 300, 10, 5, 3268, NULL);
    put_srv(&m, 60, 0, 0, 389, "");             /* ".": not offered there */
    assert_int_equal(sss_srv_parse(NULL, m.b, m.n, &recs, &num, &ttl), EOK);
    assert_int_equal(num, 2);
    assert_string_equal(recs[0].host, "dc1.ad.test");
    assert_int_equal(recs[0].port, 389);
    assert_int_equal(recs[0].weight, 100);
    assert_string_equal(recs[1].host, "ad.test");       /* through the pointer */
    assert_int_equal(recs[1].priority, 10);
    assert_int_equal(recs[1].port, 3268);
    assert_int_equal(ttl, 300);     /* the smallest of the records used */
    talloc_free(recs);
}

static void test_parse_errors(void **state)
{
    struct msg m;
    struct sss_srv_rec *recs = NULL;
    size_t num = 0;
    uint32_t ttl = 0;
    size_t full, cut;

    (void)state;
    start(&m, 3, 0);
    assert_int_equal(sss_srv_parse(NULL, m.b, m.n, &recs, &num, &ttl), ENOENT);
    start(&m, 2, 0);
    assert_int_equal(sss_srv_parse(NULL, m.b, m.n, &recs, &num, &ttl), EIO);
    start(&m, 0, 0);
    assert_int_equal(sss_srv_parse(NULL, m.b, m.n, &recs, &num, &ttl), ENOENT);
    assert_int_equal(sss_srv_parse(NULL, m.b, 11, &recs, &num, &ttl), EBADMSG);

    /* Every truncation of a good answer is refused or parsed, never read past. */
    start(&m, 0, 1);
    put_srv(&m, 900, 0, 100, 389, "dc1.ad.test");
    full = m.n;
    for (cut = 12; cut < full; cut++) {
        uint8_t *copy = malloc(cut);
        errno_t ret;

        memcpy(copy, m.b, cut);
        ret = sss_srv_parse(NULL, copy, cut, &recs, &num, &ttl);
        assert_int_equal(ret, EBADMSG);
        free(copy);
    }

    /* A target that is not a host name (would end up in a URI) is skipped. */
    start(&m, 0, 1);
    put_srv(&m, 900, 0, 100, 389, "evil/x.ad.test");
    assert_int_equal(sss_srv_parse(NULL, m.b, m.n, &recs, &num, &ttl), ENOENT);

    /* rdlength shorter than its target: refused. */
    start(&m, 0, 1);
    put_srv(&m, 900, 0, 100, 389, "dc1.ad.test");
    m.b[12 + 24 + 10 + 1] = 8;     /* the low byte of rdlength (19) */
    assert_int_equal(sss_srv_parse(NULL, m.b, m.n, &recs, &num, &ttl), EBADMSG);

    /* A target that points at itself (a compression loop): refused. */
    start(&m, 0, 1);
    put16(&m, 0xc00c); put16(&m, 33); put16(&m, 1); put32(&m, 5); put16(&m, 8);
    put16(&m, 0); put16(&m, 0); put16(&m, 389);
    put16(&m, 0xc000 | (uint16_t)m.n);
    assert_int_equal(sss_srv_parse(NULL, m.b, m.n, &recs, &num, &ttl), EBADMSG);
}

/* A seeded xorshift: the order tests are repeatable. */
static uint32_t xs_rnd(void *pvt)
{
    uint32_t *s = pvt;

    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void test_order(void **state)
{
    struct sss_srv_rec recs[4];
    char hosts[4][2] = { "a", "b", "c", "d" };
    unsigned int first_b = 0, first_c = 0, first_d = 0;
    uint32_t seed = 12345;
    int round;

    (void)state;
    for (round = 0; round < 10000; round++) {
        recs[0] = (struct sss_srv_rec){ hosts[0], 20, 50, 389 };
        recs[1] = (struct sss_srv_rec){ hosts[1], 10, 300, 389 };
        recs[2] = (struct sss_srv_rec){ hosts[2], 10, 100, 389 };
        recs[3] = (struct sss_srv_rec){ hosts[3], 10, 0, 389 };
        sss_srv_order(recs, 4, xs_rnd, &seed);
        /* The higher priority value always comes last. */
        assert_string_equal(recs[3].host, "a");
        first_b += recs[0].host[0] == 'b';
        first_c += recs[0].host[0] == 'c';
        first_d += recs[0].host[0] == 'd';
    }
    /* Weights 300:100:0 -> b first about 3/4 of the time, c 1/4, d (weight 0) rarely. */
    assert_true(first_b > 7000 && first_b < 8000);
    assert_true(first_c > 2000 && first_c < 3000);
    assert_true(first_d < 100);
    assert_int_equal(first_b + first_c + first_d, 10000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_answer),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_order),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
