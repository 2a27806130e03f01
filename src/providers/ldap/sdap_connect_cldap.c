/*
 * The AD "LDAP ping" over CLDAP (UDP port 389), as SSSD sends it to learn the client's
 * site: a rootDSE search with the filter (&(DnsDomain=DOMAIN)(NtVer=\06\00\00\00)) for the
 * attribute Netlogon. The DC answers, in one datagram, a search result entry whose Netlogon
 * value is a NETLOGON_SAM_LOGON_RESPONSE_EX (MS-ADTS 6.3.1.9): opcode 23, flags, the
 * domain GUID, then RFC 1035 names (compressed, offsets from the structure's start): the
 * forest, the domain, the DC's host, the NetBIOS domain and computer names, the user name,
 * the DC's site and the client's site. Both layers are parsed here from untrusted bytes
 * (tests/fuzz/fuzz_cldap_reply.c) with explicit bounds: a small BER reader for the LDAP
 * message, dn_expand() for the names.
 */
#include <arpa/nameser.h>
#include <fcntl.h>
#include <netdb.h>
#include <resolv.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/util.h"
#include "providers/ldap/sdap_private.h"

#define NETLOGON_RESPONSE_EX 23
#define CLDAP_MAX 65536

/* ---- the request ------------------------------------------------------------------------ */

/* Appends tag, length, body to *buf (DER lengths). */
static errno_t tlv(TALLOC_CTX *mem_ctx, uint8_t **buf, size_t *len, uint8_t tag,
                   const uint8_t *body, size_t blen)
{
    uint8_t hdr[6];
    size_t h = 0;

    hdr[h++] = tag;
    if (blen < 128) {
        hdr[h++] = (uint8_t)blen;
    } else if (blen < 256) {
        hdr[h++] = 0x81;
        hdr[h++] = (uint8_t)blen;
    } else if (blen < 65536) {
        hdr[h++] = 0x82;
        hdr[h++] = (uint8_t)(blen >> 8);
        hdr[h++] = (uint8_t)blen;
    } else {
        return EINVAL;
    }
    *buf = talloc_realloc(mem_ctx, *buf, uint8_t, *len + h + blen);
    if (*buf == NULL) {
        return ENOMEM;
    }
    memcpy(*buf + *len, hdr, h);
    memcpy(*buf + *len + h, body, blen);
    *len += h + blen;
    return EOK;
}

#define TLV(b, l, tag, body, blen) do { ret = tlv(tmp_ctx, b, l, tag, body, blen); \
                                        if (ret != EOK) { goto done; } } while (0)

errno_t sdap_cldap_request(TALLOC_CTX *mem_ctx, const char *domain, uint8_t msgid,
                           uint8_t **_msg, size_t *_len)
{
    static const uint8_t ntver[] = { 0x06, 0x00, 0x00, 0x00 };   /* V5EX | V5 */
    static const uint8_t zero = 0;
    TALLOC_CTX *tmp_ctx;
    uint8_t *eq1 = NULL, *eq2 = NULL, *flt = NULL, *and = NULL, *attr = NULL, *attrs = NULL;
    uint8_t *body = NULL, *op = NULL, *inner = NULL, *msg = NULL;
    size_t l_eq1 = 0, l_eq2 = 0, l_flt = 0, l_and = 0, l_attr = 0, l_attrs = 0;
    size_t l_body = 0, l_op = 0, l_inner = 0, l_msg = 0;
    errno_t ret;

    SSS_CHECK_ARG(domain != NULL && _msg != NULL && _len != NULL, EINVAL);
    if (strlen(domain) > 255) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    TLV(&eq1, &l_eq1, 0x04, (const uint8_t *)"DnsDomain", 9);
    TLV(&eq1, &l_eq1, 0x04, (const uint8_t *)domain, strlen(domain));
    TLV(&eq2, &l_eq2, 0x04, (const uint8_t *)"NtVer", 5);
    TLV(&eq2, &l_eq2, 0x04, ntver, sizeof(ntver));
    TLV(&and, &l_and, 0xa3, eq1, l_eq1);                /* equalityMatch */
    TLV(&and, &l_and, 0xa3, eq2, l_eq2);
    TLV(&flt, &l_flt, 0xa0, and, l_and);                /* and */
    TLV(&attr, &l_attr, 0x04, (const uint8_t *)"Netlogon", 8);
    TLV(&attrs, &l_attrs, 0x30, attr, l_attr);
    TLV(&body, &l_body, 0x04, (const uint8_t *)"", 0);  /* the rootDSE */
    TLV(&body, &l_body, 0x0a, &zero, 1);                /* scope base */
    TLV(&body, &l_body, 0x0a, &zero, 1);                /* never deref */
    TLV(&body, &l_body, 0x02, &zero, 1);                /* no size limit */
    TLV(&body, &l_body, 0x02, &zero, 1);                /* no time limit */
    TLV(&body, &l_body, 0x01, &zero, 1);                /* typesOnly false */
    body = talloc_realloc(tmp_ctx, body, uint8_t, l_body + l_flt + l_attrs);
    if (body == NULL) {
        ret = ENOMEM;
        goto done;
    }
    memcpy(body + l_body, flt, l_flt);
    memcpy(body + l_body + l_flt, attrs, l_attrs);
    l_body += l_flt + l_attrs;
    TLV(&op, &l_op, 0x63, body, l_body);                /* SearchRequest */
    TLV(&inner, &l_inner, 0x02, &msgid, 1);
    inner = talloc_realloc(tmp_ctx, inner, uint8_t, l_inner + l_op);
    if (inner == NULL) {
        ret = ENOMEM;
        goto done;
    }
    memcpy(inner + l_inner, op, l_op);
    l_inner += l_op;
    TLV(&msg, &l_msg, 0x30, inner, l_inner);
    *_msg = talloc_steal(mem_ctx, msg);
    *_len = l_msg;
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

/* ---- the reply -------------------------------------------------------------------------- */

struct ber_cur {
    const uint8_t *p;
    const uint8_t *end;
};

/* Reads one TLV of tag at c; its body becomes *body. Definite lengths of up to 4 bytes. */
static bool ber_take(struct ber_cur *c, uint8_t tag, struct ber_cur *body)
{
    size_t len = 0;
    size_t n, i;

    if (c->end - c->p < 2 || c->p[0] != tag) {
        return false;
    }
    c->p++;
    if (*c->p < 0x80) {
        len = *c->p++;
    } else {
        n = *c->p++ & 0x7f;
        if (n == 0 || n > 4 || (size_t)(c->end - c->p) < n) {
            return false;
        }
        for (i = 0; i < n; i++) {
            len = (len << 8) | *c->p++;
        }
    }
    if ((size_t)(c->end - c->p) < len) {
        return false;
    }
    body->p = c->p;
    body->end = c->p + len;
    c->p += len;
    return true;
}

/* The names of a NETLOGON_SAM_LOGON_RESPONSE_EX: the client's site, the forest. */
errno_t sdap_netlogon_parse(TALLOC_CTX *mem_ctx, const uint8_t *blob, size_t len,
                            char **_client_site, char **_forest)
{
    char names[8][NS_MAXDNAME];
    const uint8_t *end = blob + len;
    const uint8_t *p;
    int i, n;

    SSS_CHECK_ARG(blob != NULL && _client_site != NULL && _forest != NULL, EINVAL);
    if (len < 24 || blob[0] != NETLOGON_RESPONSE_EX || blob[1] != 0) {
        return EBADMSG;
    }
    p = blob + 24;      /* opcode, sbz, flags, domain GUID */
    /* forest, domain, host, NetBIOS domain, NetBIOS computer, user, DC site, client site */
    for (i = 0; i < 8; i++) {
        if (p >= end) {
            return EBADMSG;
        }
        n = dn_expand(blob, end, p, names[i], sizeof(names[i]));
        if (n < 0) {
            return EBADMSG;
        }
        p += n;
    }
    *_client_site = talloc_strdup(mem_ctx, names[7]);
    *_forest = talloc_strdup(mem_ctx, names[0]);
    if (*_client_site == NULL || *_forest == NULL) {
        talloc_free(*_client_site);
        talloc_free(*_forest);
        return ENOMEM;
    }
    return EOK;
}

errno_t sdap_cldap_parse(TALLOC_CTX *mem_ctx, const uint8_t *dgram, size_t len,
                         uint8_t msgid, char **_client_site, char **_forest)
{
    struct ber_cur c = { dgram, dgram + len };
    struct ber_cur msg, id, entry, dn, attrs, attr, type, vals, val;

    SSS_CHECK_ARG(dgram != NULL && _client_site != NULL && _forest != NULL, EINVAL);
    if (!ber_take(&c, 0x30, &msg) || !ber_take(&msg, 0x02, &id)
            || id.end - id.p != 1 || id.p[0] != msgid) {
        return EBADMSG;
    }
    if (!ber_take(&msg, 0x64, &entry)) {
        return ENOENT;      /* no entry: e.g. the DC is not of that domain */
    }
    if (!ber_take(&entry, 0x04, &dn) || !ber_take(&entry, 0x30, &attrs)) {
        return EBADMSG;
    }
    while (attrs.p < attrs.end) {
        if (!ber_take(&attrs, 0x30, &attr) || !ber_take(&attr, 0x04, &type)
                || !ber_take(&attr, 0x31, &vals)) {
            return EBADMSG;
        }
        if (type.end - type.p == 8 && strncasecmp((const char *)type.p, "netlogon", 8) == 0) {
            if (!ber_take(&vals, 0x04, &val)) {
                return EBADMSG;
            }
            return sdap_netlogon_parse(mem_ctx, val.p, (size_t)(val.end - val.p),
                                       _client_site, _forest);
        }
    }
    return ENOENT;
}

/* ---- the ping --------------------------------------------------------------------------- */

struct sdap_cldap_state {
    int fd;
    uint8_t msgid;
    struct tevent_fd *fde;
    struct tevent_timer *timer;
    char *site;
    char *forest;
};

static int sdap_cldap_state_destructor(struct sdap_cldap_state *state)
{
    talloc_zfree(state->fde);
    if (state->fd >= 0) {
        close(state->fd);
    }
    return 0;
}

static void sdap_cldap_readable(struct tevent_context *ev, struct tevent_fd *fde,
                                uint16_t flags, void *pvt);
static void sdap_cldap_timeout(struct tevent_context *ev, struct tevent_timer *te,
                               struct timeval now, void *pvt);

struct tevent_req *sdap_cldap_ping_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        const char *host, const char *domain, int timeout)
{
    struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_flags = AI_ADDRCONFIG };
    struct addrinfo *ai = NULL;
    struct sdap_cldap_state *state;
    struct tevent_req *req;
    uint8_t *msg = NULL;
    size_t len = 0;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_cldap_state);
    if (req == NULL) {
        return NULL;
    }
    state->fd = -1;
    state->msgid = (uint8_t)(1 + random() % 127);
    talloc_set_destructor(state, sdap_cldap_state_destructor);
    ret = sdap_cldap_request(state, domain, state->msgid, &msg, &len);
    if (ret != EOK) {
        goto done;
    }
    /* As for the LDAP connection (sdap_connect.c): the DC's name is one DNS names. */
    if (getaddrinfo(host, "389", &hints, &ai) != 0 || ai == NULL) {
        ret = EHOSTUNREACH;
        goto done;
    }
    state->fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (state->fd < 0 || connect(state->fd, ai->ai_addr, ai->ai_addrlen) != 0
            || send(state->fd, msg, len, 0) != (ssize_t)len) {
        ret = errno != 0 ? errno : EIO;
        goto done;
    }
    state->fde = tevent_add_fd(ev, state, state->fd, TEVENT_FD_READ, sdap_cldap_readable,
                               req);
    state->timer = tevent_add_timer(ev, state,
                                    tevent_timeval_current_ofs(timeout > 0 ? timeout : 1, 0),
                                    sdap_cldap_timeout, req);
    if (state->fde == NULL || state->timer == NULL) {
        ret = ENOMEM;
        goto done;
    }
    freeaddrinfo(ai);
    return req;
done:
    if (ai != NULL) {
        freeaddrinfo(ai);
    }
    return sss_req_post(req, ev, ret);
}

static void sdap_cldap_readable(struct tevent_context *ev, struct tevent_fd *fde,
                                uint16_t flags, void *pvt)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct sdap_cldap_state *state = tevent_req_data(req, struct sdap_cldap_state);
    uint8_t *buf;
    ssize_t n;
    errno_t ret;

    buf = talloc_size(state, CLDAP_MAX);
    if (buf == NULL) {
        tevent_req_error(req, ENOMEM);
        return;
    }
    n = recv(state->fd, buf, CLDAP_MAX, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        talloc_free(buf);
        return;
    }
    if (n < 0) {
        ret = errno;    /* e.g. ECONNREFUSED: nothing listens there */
        talloc_free(buf);
        tevent_req_error(req, ret);
        return;
    }
    ret = sdap_cldap_parse(state, buf, (size_t)n, state->msgid, &state->site, &state->forest);
    talloc_free(buf);
    if (ret == EBADMSG) {
        return;         /* not our answer (another msgid) or garbage: wait on */
    }
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    tevent_req_done(req);
}

static void sdap_cldap_timeout(struct tevent_context *ev, struct tevent_timer *te,
                               struct timeval now, void *pvt)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct sdap_cldap_state *state = tevent_req_data(req, struct sdap_cldap_state);

    state->timer = NULL;
    tevent_req_error(req, ETIMEDOUT);
}

errno_t sdap_cldap_ping_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, char **_site,
                             char **_forest)
{
    struct sdap_cldap_state *state = tevent_req_data(req, struct sdap_cldap_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_site = talloc_steal(mem_ctx, state->site);
    *_forest = talloc_steal(mem_ctx, state->forest);
    return EOK;
}
