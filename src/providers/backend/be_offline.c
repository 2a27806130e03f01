/*
 * The domain's online/offline state.
 *
 *   online ──(a request meets ENETUNREACH, or sssd.service.GoOffline)──> offline
 *   offline: SetOffline(domain) is emitted, a probe is scheduled offline_timeout seconds
 *            later; each failed probe doubles the delay, up to offline_timeout_max (3600).
 *   probe:   forget every server's bad mark (sdap_id_ctx_reset_servers) and look up a user
 *            name no directory holds (BE_PROBE_NAME): one cheap indexed search that needs a
 *            connection and a bind. Found or not found both prove a server answers ->
 *            online: SetOnline(domain), then SetActive(domain). Any other result -> stay
 *            offline, next probe after the doubled delay.
 *   sssd.service.ResetOffline: offline -> probe now (delay back to offline_timeout);
 *            online -> forget bad server marks only.
 *
 * While offline, requests are answered SSS_DP_ERR_OFFLINE at once and never wait on LDAP.
 * Early probe: a request arriving while offline starts a probe right away when no probe ran
 * during the last offline_timeout seconds (and none is running); that request is still
 * answered "offline", later ones see the outcome. So a domain that comes back is noticed by
 * the first lookup after offline_timeout, not only at the end of a long back-off.
 *
 * Signals are emitted only when the back-end has a bus connection (be->conn); unit tests
 * read the state, the counters and the timer instead.
 */
#include <assert.h>

#include "providers/backend/be_ctx.h"
#include "providers/ldap/sdap.h"
#include "sss_iface/sss_iface.h"

#define BE_PROBE_NAME "sssd-be-online-probe-no-such-user"

struct be_offline {
    struct be_ctx *be;
    bool offline;
    int delay;                      /* delay after the next failed probe, s */
    struct tevent_timer *timer;     /* next probe */
    time_t timer_at;
    struct tevent_req *probe;       /* probe in flight */
    uint64_t probe_id;              /* its request id: a probe is an internal request */
    time_t last_probe;
    time_t changed_at;              /* last online/offline change, or the start */
    char *reason;                   /* why, for sssctl domain-status */
};

/* The probes' name of an online probe (be_request_start / done). */
#define BE_PROBE_ENTRY "online_probe"
#define BE_PROBE_FILTER "name=" BE_PROBE_NAME

static void be_probe_start(struct be_offline *st);

errno_t be_offline_init(struct be_ctx *be)
{
    SSS_CHECK_ARG(be != NULL, EINVAL);
    be->offline = talloc_zero(be, struct be_offline);
    if (be->offline == NULL) {
        return ENOMEM;
    }
    be->offline->be = be;
    be->offline->delay = be->offline_timeout;
    be->offline->changed_at = time(NULL);
    be->offline->reason = talloc_strdup(be->offline, "back-end started");
    return EOK;
}

/* Remembers when and why the state last changed; the old reason is kept on ENOMEM. */
static void be_offline_changed(struct be_offline *st, const char *why)
{
    char *reason = talloc_strdup(st, why);

    st->changed_at = time(NULL);
    if (reason != NULL) {
        talloc_free(st->reason);
        st->reason = reason;
    }
}

void be_offline_since(struct be_ctx *be, time_t *_since, const char **_reason)
{
    SSS_CHECK_ARG(be != NULL && be->offline != NULL && _since != NULL && _reason != NULL);
    *_since = be->offline->changed_at;
    *_reason = be->offline->reason != NULL ? be->offline->reason : "";
}

bool be_is_offline(struct be_ctx *be)
{
    return be != NULL && be->offline != NULL && be->offline->offline;
}

int be_offline_next_retry(struct be_ctx *be)
{
    time_t now = time(NULL);

    SSS_CHECK_ARG(be != NULL && be->offline != NULL, -1);
    if (be->offline->timer == NULL) {
        return -1;
    }
    return be->offline->timer_at > now ? (int)(be->offline->timer_at - now) : 0;
}

int be_offline_current_delay(struct be_ctx *be)
{
    SSS_CHECK_ARG(be != NULL && be->offline != NULL, -1);
    return be->offline->delay;
}

static void be_emit(struct be_ctx *be, const char *what,
                    errno_t (*emit)(struct sbus_connection *, const char *, const char *))
{
    errno_t ret;

    if (be->conn == NULL) {
        return;
    }
    ret = emit(be->conn, SSS_BUS_PATH, be->domain);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot emit %s(%s): %s\n", what, be->domain,
              sss_strerror(ret));
    }
}

void be_announce_active(struct be_ctx *be)
{
    be_emit(be, "SetActive", sbus_emit_sssd_Responder_Domain_SetActive);
}

static void be_probe_timer(struct tevent_context *ev, struct tevent_timer *te,
                           struct timeval now, void *pvt)
{
    struct be_offline *st = talloc_get_type(pvt, struct be_offline);

    st->timer = NULL;
    be_probe_start(st);
}

static void be_schedule_probe(struct be_offline *st, int seconds)
{
    talloc_zfree(st->timer);
    {
        /* The timer belongs to no request (the probe it starts takes an id of its own). */
        SSS_REQ_ID_SCOPE(0);

        st->timer = tevent_add_timer(st->be->ev, st, tevent_timeval_current_ofs(seconds, 0),
                                     be_probe_timer, st);
    }
    if (st->timer == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot schedule the online probe of %s\n",
              st->be->domain);
        return;
    }
    st->timer_at = time(NULL) + seconds;
    DEBUG(SSSDBG_TRACE_FUNC, "Domain %s: next online probe in %d s\n", st->be->domain,
          seconds);
}

void be_go_offline(struct be_ctx *be, const char *why)
{
    struct be_offline *st;

    SSS_CHECK_ARG(be != NULL && be->offline != NULL);
    st = be->offline;
    if (st->offline) {
        if (st->timer == NULL && st->probe == NULL) {
            be_schedule_probe(st, st->delay);
        }
        return;
    }
    st->offline = true;
    st->delay = be->offline_timeout;
    st->last_probe = time(NULL);    /* the failed request was as good as a probe */
    be_offline_changed(st, why);
    be->stats.went_offline++;
    DEBUG(SSSDBG_OP_FAILURE, "Domain %s is now offline (%s); retrying in %d s\n", be->domain,
          why, st->delay);
    PROBE(BE_OFFLINE, sss_probe_req_id(), be->domain);
    be_emit(be, "SetOffline", sbus_emit_sssd_Responder_Domain_SetOffline);
    be_schedule_probe(st, st->delay);
}

static void be_go_online(struct be_offline *st)
{
    struct be_ctx *be = st->be;

    talloc_zfree(st->timer);
    if (!st->offline) {
        return;
    }
    st->offline = false;
    st->delay = be->offline_timeout;
    be_offline_changed(st, "a server answered the online probe");
    be->stats.went_online++;
    DEBUG(SSSDBG_IMPORTANT_INFO, "Domain %s is back online (server %s)\n", be->domain,
          sdap_id_ctx_server(be->id_ctx) != NULL ? sdap_id_ctx_server(be->id_ctx) : "?");
    PROBE(BE_ONLINE, sss_probe_req_id(), be->domain);
    be_emit(be, "SetOnline", sbus_emit_sssd_Responder_Domain_SetOnline);
    be_announce_active(be);
}

static void be_probe_done(struct tevent_req *subreq);

static void be_probe_start(struct be_offline *st)
{
    struct be_ctx *be = st->be;

    if (st->probe != NULL || be->id_ctx == NULL) {
        return;
    }
    talloc_zfree(st->timer);
    be->stats.probes++;
    st->last_probe = time(NULL);
    /* Its LDAP work runs under an id of its own, not under the request that asked for it. */
    st->probe_id = sss_new_req_id();
    SSS_REQ_ID_SCOPE(st->probe_id);
    PROBE(BE_REQUEST_START, st->probe_id, be->domain, BE_PROBE_ENTRY, BE_PROBE_FILTER, 0);
    sdap_id_ctx_reset_servers(be->id_ctx);
    st->probe = sdap_get_user_send(st, be->ev, be->id_ctx, SDAP_BY_NAME, BE_PROBE_NAME, 0);
    if (st->probe == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot start the online probe of %s\n", be->domain);
        PROBE(BE_REQUEST_DONE, st->probe_id, be->domain, BE_PROBE_ENTRY, BE_PROBE_FILTER,
              (int)be_dp_error_of(ENOMEM), ENOMEM);
        be_schedule_probe(st, st->delay);
        return;
    }
    tevent_req_set_callback(st->probe, be_probe_done, st);
    DEBUG(SSSDBG_TRACE_FUNC, "Domain %s: probing the servers\n", be->domain);
}

static void be_probe_done(struct tevent_req *subreq)
{
    struct be_offline *st = tevent_req_callback_data(subreq, struct be_offline);
    struct sdap_user *user = NULL;
    errno_t ret;
    SSS_REQ_ID_SCOPE(st->probe_id);

    assert(st->probe == subreq);
    ret = sdap_get_user_recv(st, subreq, &user);
    talloc_free(subreq);
    talloc_free(user);
    st->probe = NULL;
    /* Found or not, a server answered: the probe succeeded. */
    PROBE(BE_REQUEST_DONE, st->probe_id, st->be->domain, BE_PROBE_ENTRY, BE_PROBE_FILTER,
          (int)be_dp_error_of(ret == ENOENT || ret == EINVAL ? EOK : ret), ret);
    if (ret == EOK || ret == ENOENT || ret == EINVAL) {
        be_go_online(st);
        return;
    }
    if (!st->offline) {
        return;     /* went online by other means meanwhile */
    }
    st->delay = st->delay * 2 > st->be->offline_timeout_max
                ? st->be->offline_timeout_max : st->delay * 2;
    DEBUG(SSSDBG_TRACE_FUNC, "Domain %s: probe failed (%s), still offline\n", st->be->domain,
          sss_strerror(ret));
    be_schedule_probe(st, st->delay);
}

void be_offline_request_seen(struct be_ctx *be)
{
    struct be_offline *st;

    SSS_CHECK_ARG(be != NULL && be->offline != NULL);
    st = be->offline;
    if (!st->offline || st->probe != NULL) {
        return;
    }
    if (time(NULL) - st->last_probe >= be->offline_timeout) {
        DEBUG(SSSDBG_TRACE_FUNC, "Domain %s: offline for a while, probing early\n",
              be->domain);
        be_probe_start(st);
    }
}

void be_reset_offline(struct be_ctx *be)
{
    struct be_offline *st;

    SSS_CHECK_ARG(be != NULL && be->offline != NULL);
    st = be->offline;
    if (be->id_ctx != NULL) {
        sdap_id_ctx_reset_servers(be->id_ctx);
    }
    if (!st->offline) {
        return;
    }
    st->delay = be->offline_timeout;
    be_probe_start(st);
}
