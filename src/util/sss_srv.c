/*
 * DNS SRV discovery (sss_srv.h). glibc's stub resolver has no asynchronous interface, so
 * one lookup runs res_nquery() as an offloop job (sss_offloop.h: a worker thread) on a
 * resolver state of its own (res_ninit: resolv.conf as it is now, nothing shared with
 * other threads); the loop gives up at its timeout and the thread then drops the job. The
 * thread touches no talloc memory and does not log: the answer is parsed on the loop.
 */
#include <arpa/nameser.h>
#include <assert.h>
#include <netdb.h>
#include <netinet/in.h>
#include <resolv.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sss_offloop.h"
#include "util/sss_srv.h"

#define SRV_TYPE 33
#define IN_CLASS 1
#define ANSWER_MAX 65535

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* A target usable in an LDAP URI and a krb5.conf line: letters, digits, '.', '-', '_'. */
static bool host_ok(const char *host)
{
    size_t i;

    if (host[0] == '\0') {
        return false;
    }
    for (i = 0; host[i] != '\0'; i++) {
        char c = host[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
              || c == '.' || c == '-' || c == '_')) {
            return false;
        }
    }
    return true;
}

errno_t sss_srv_parse(TALLOC_CTX *mem_ctx, const uint8_t *msg, size_t len,
                      struct sss_srv_rec **_recs, size_t *_num, uint32_t *_ttl)
{
    TALLOC_CTX *tmp_ctx;
    struct sss_srv_rec *recs;
    const uint8_t *eom = msg + len;
    const uint8_t *p;
    char name[NS_MAXDNAME];
    unsigned int qd, an, i;
    uint32_t ttl = UINT32_MAX;
    size_t num = 0;
    int rcode;
    int n;
    errno_t ret;

    SSS_CHECK_ARG(msg != NULL && _recs != NULL && _num != NULL && _ttl != NULL, EINVAL);
    if (len < 12 || len > ANSWER_MAX) {
        return EBADMSG;
    }
    rcode = msg[3] & 0x0f;
    if (rcode == 3) {           /* NXDOMAIN */
        return ENOENT;
    }
    if (rcode != 0) {
        return EIO;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    qd = get16(msg + 4);
    an = get16(msg + 6);
    recs = talloc_zero_array(tmp_ctx, struct sss_srv_rec,
                             an < SSS_SRV_MAX_RECORDS ? (an > 0 ? an : 1) : SSS_SRV_MAX_RECORDS);
    if (recs == NULL) {
        ret = ENOMEM;
        goto done;
    }
    p = msg + 12;
    for (i = 0; i < qd; i++) {
        n = dn_skipname(p, eom);
        if (n < 0 || eom - (p + n) < 4) {
            ret = EBADMSG;
            goto done;
        }
        p += n + 4;
    }
    for (i = 0; i < an && num < SSS_SRV_MAX_RECORDS; i++) {
        uint16_t type, class, rdlen;
        uint32_t rttl;

        n = dn_skipname(p, eom);
        if (n < 0 || eom - (p + n) < 10) {
            ret = EBADMSG;
            goto done;
        }
        p += n;
        type = get16(p);
        class = get16(p + 2);
        rttl = get32(p + 4);
        rdlen = get16(p + 8);
        p += 10;
        if (eom - p < rdlen) {
            ret = EBADMSG;
            goto done;
        }
        if (type == SRV_TYPE && class == IN_CLASS) {
            if (rdlen < 7) {
                ret = EBADMSG;
                goto done;
            }
            n = dn_expand(msg, eom, p + 6, name, sizeof(name));
            if (n < 0 || n > rdlen - 6) {
                ret = EBADMSG;
                goto done;
            }
            /* "." (expanded to "") says the service is not offered here. */
            if (host_ok(name)) {
                recs[num].priority = get16(p);
                recs[num].weight = get16(p + 2);
                recs[num].port = get16(p + 4);
                recs[num].host = talloc_strdup(recs, name);
                if (recs[num].host == NULL) {
                    ret = ENOMEM;
                    goto done;
                }
                ttl = rttl < ttl ? rttl : ttl;
                num++;
            }
        }
        p += rdlen;     /* CNAMEs and other types are skipped */
    }
    if (num == 0) {
        ret = ENOENT;
        goto done;
    }
    *_recs = talloc_steal(mem_ctx, recs);
    *_num = num;
    *_ttl = ttl;
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

static int srv_prio_cmp(const void *a, const void *b)
{
    const struct sss_srv_rec *x = a;
    const struct sss_srv_rec *y = b;

    return (int)x->priority - (int)y->priority;
}

void sss_srv_order(struct sss_srv_rec *recs, size_t num, uint32_t (*rnd)(void *pvt),
                   void *pvt)
{
    size_t start, end, i, j;

    assert(num == 0 || recs != NULL);
    qsort(recs, num, sizeof(*recs), srv_prio_cmp);
    for (start = 0; start < num; start = end) {
        for (end = start; end < num && recs[end].priority == recs[start].priority; end++) {
        }
        /* RFC 2782: weight 0 entries first among the rest, then pick by a running sum
         * compared to a random number in [0, sum]; the pick goes next in order. */
        for (i = start; i + 1 < end; i++) {
            uint64_t sum = 0;
            uint64_t pick;
            struct sss_srv_rec tmp;

            for (j = i; j < end; j++) {
                if (recs[j].weight == 0) {
                    tmp = recs[j];
                    memmove(&recs[i + 1], &recs[i], (j - i) * sizeof(*recs));
                    recs[i] = tmp;
                }
            }
            for (j = i; j < end; j++) {
                sum += recs[j].weight;
            }
            pick = sum > 0 ? rnd(pvt) % (sum + 1) : 0;
            sum = 0;
            for (j = i; j < end; j++) {
                sum += recs[j].weight;
                if (sum >= pick) {
                    break;
                }
            }
            assert(j < end);
            tmp = recs[j];
            memmove(&recs[i + 1], &recs[i], (j - i) * sizeof(*recs));
            recs[i] = tmp;
        }
    }
}

/* ---- the lookup, in a helper thread ------------------------------------------------------ */

/* Shared between the loop and the thread: plain malloc, guarded by lock. Whoever comes
 * last frees it: the loop when it read the answer, the thread when the loop gave up. */
struct srv_job {
    char name[NS_MAXDNAME];
    int timeout;
    uint8_t *answer;            /* malloc'd; NULL when the query failed */
    int len;
    int herr;                   /* the resolver's h_errno when answer is NULL */
};

static void srv_job_drop(void *pvt)
{
    struct srv_job *job = pvt;

    free(job->answer);
    free(job);
}

/* On an offloop worker thread. */
static void srv_job_run(void *pvt)
{
    struct srv_job *job = pvt;
    struct __res_state rs;
    uint8_t *buf = malloc(ANSWER_MAX);
    int len = -1;
    int herr = NO_RECOVERY;

    memset(&rs, 0, sizeof(rs));
    if (buf != NULL && res_ninit(&rs) == 0) {
        /* One try per server of resolv.conf, a second longer than the loop's timer, so
         * the loop always decides (and logs) when no answer came. */
        rs.retrans = (job->timeout > 0 ? job->timeout : 1) + 1;
        rs.retry = 1;
        len = res_nquery(&rs, job->name, IN_CLASS, SRV_TYPE, buf, ANSWER_MAX);
        herr = rs.res_h_errno;
        res_nclose(&rs);
    }
    if (len > 0) {
        job->answer = buf;
        job->len = len > ANSWER_MAX ? ANSWER_MAX : len;
        buf = NULL;
    }
    job->herr = herr;
    free(buf);
}

static const struct sss_offloop_ops srv_job_ops = {
    .run = srv_job_run,
    .drop = srv_job_drop,
};

struct sss_srv_lookup_state {
    struct srv_job *job;        /* the subrequest's: it drops the job */
    struct tevent_req *subreq;
    struct tevent_timer *timer;
    struct sss_srv_rec *recs;
    size_t num;
    uint32_t ttl;
    uint64_t req_id;
};

static uint32_t srv_random(void *pvt)
{
    (void)pvt;
    return (uint32_t)random();
}

static void srv_lookup_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sss_srv_lookup_state *state = tevent_req_data(req, struct sss_srv_lookup_state);
    struct srv_job *job = state->job;
    errno_t ret;
    SSS_REQ_ID_SCOPE(state->req_id);

    talloc_zfree(state->timer);
    ret = sss_offloop_recv(subreq);
    if (ret != EOK) {
        goto done;
    }
    if (job->answer != NULL) {
        ret = sss_srv_parse(state, job->answer, (size_t)job->len, &state->recs, &state->num,
                            &state->ttl);
        if (ret == EBADMSG) {
            DEBUG(SSSDBG_OP_FAILURE, "SRV %s: malformed DNS answer (%d bytes)\n",
                  job->name, job->len);
        }
    } else {
        ret = job->herr == HOST_NOT_FOUND || job->herr == NO_DATA ? ENOENT
              : job->herr == TRY_AGAIN ? ETIMEDOUT : EIO;
        if (ret == ETIMEDOUT) {
            /* With several servers the resolver can give up before the loop's timer. */
            DEBUG(SSSDBG_OP_FAILURE, "SRV %s: no DNS answer in time\n", job->name);
        }
    }
done:
    state->job = NULL;
    state->subreq = NULL;
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    sss_srv_order(state->recs, state->num, srv_random, NULL);
    tevent_req_done(req);
}

static void srv_lookup_timeout(struct tevent_context *ev, struct tevent_timer *te,
                               struct timeval now, void *pvt)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct sss_srv_lookup_state *state = tevent_req_data(req, struct sss_srv_lookup_state);
    SSS_REQ_ID_SCOPE(state->req_id);

    state->timer = NULL;
    DEBUG(SSSDBG_OP_FAILURE, "SRV %s: no DNS answer in time\n", state->job->name);
    /* The worker thread drops the job when res_nquery returns. */
    state->job = NULL;
    talloc_zfree(state->subreq);
    tevent_req_error(req, ETIMEDOUT);
}

struct tevent_req *sss_srv_lookup_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       const char *name, int timeout)
{
    struct sss_srv_lookup_state *state;
    struct tevent_req *req;
    struct srv_job *job;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sss_srv_lookup_state);
    if (req == NULL) {
        return NULL;
    }
    state->req_id = sss_debug_req_id;
    if (name == NULL || strlen(name) >= NS_MAXDNAME) {
        ret = EINVAL;
        goto done;
    }
    job = calloc(1, sizeof(*job));
    if (job == NULL) {
        ret = ENOMEM;
        goto done;
    }
    job->timeout = timeout;
    strcpy(job->name, name);
    state->subreq = sss_offloop_send(state, ev, NULL, &srv_job_ops, job);
    if (state->subreq == NULL) {
        free(job);
        ret = ENOMEM;
        goto done;
    }
    state->job = job;
    tevent_req_set_callback(state->subreq, srv_lookup_done, req);
    state->timer = tevent_add_timer(ev, state,
                                    tevent_timeval_current_ofs(timeout > 0 ? timeout : 1, 0),
                                    srv_lookup_timeout, req);
    if (state->timer == NULL) {
        ret = ENOMEM;
        goto done;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "SRV lookup of %s\n", name);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

errno_t sss_srv_lookup_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                            struct sss_srv_rec **_recs, size_t *_num, uint32_t *_ttl)
{
    struct sss_srv_lookup_state *state = tevent_req_data(req, struct sss_srv_lookup_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_recs = talloc_steal(mem_ctx, state->recs);
    *_num = state->num;
    *_ttl = state->ttl;
    return EOK;
}
