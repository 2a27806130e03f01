/*
 * The LDAP provider's shared connection and its failover (sdap_private.h): the servers
 * are ldap_uri in order, then ldap_backup_uri, and DNS SRV placeholders (the list,
 * sdap_fo_servers.c); a server that fails is marked bad for offline_timeout seconds and
 * skipped meanwhile; when every server is bad or fails, the domain is offline
 * (ENETUNREACH; the walk, sdap_fo_walk.c).
 *
 * sdap_get_conn_send() hands out the one shared connection. Requests that arrive while a
 * connection is being set up wait for that same attempt, so a burst of lookups at start-up
 * opens one connection, not one each. Each new connection is told to the connection
 * listener (the AD provider connects its global catalog then).
 *
 * Failing back, as SSSD does: a connection older than ldap_connection_expire_timeout is
 * not handed out any more (the operations under way finish on it) and the next operation
 * walks the list from its start again; and while the domain is served by a backup server
 * (ldap_backup_uri, or a DC outside the site), a primary is tried every
 * failover_primary_timeout seconds (SSSD's option, default 31) in the background: once it
 * answers, new operations go to it. The probe tries the first primary not marked bad, or
 * the first primary when all are: it costs lookups nothing, so a primary that came back
 * is found within that period rather than when its bad mark (offline_timeout) runs out.
 */
#include <assert.h>
#include <time.h>

#include "util/util.h"
#include "providers/ldap/sdap_fo_private.h"

/* ---- the shared connection ------------------------------------------------------------ */

struct sdap_conn_waiter {
    struct sss_list link;       /* in id_ctx->waiters until answered, freed or detached */
    struct tevent_req *req;
    uint64_t req_id;            /* the waiter's: its callback resumes under it */
};

struct sdap_get_conn_state {
    struct sdap_id_ctx *id_ctx;
    struct sdap_conn_waiter *waiter;
};

static int waiter_destructor(struct sdap_conn_waiter *w)
{
    sss_list_unlink(&w->link);
    return 0;
}

static void sdap_conn_lost(struct sdap_conn *conn, void *pvt, errno_t error)
{
    struct sdap_id_ctx *id_ctx = talloc_get_type_abort(pvt, struct sdap_id_ctx);

    if (id_ctx->conn != conn) {
        return;
    }
    /* A hung server is bad. A connection lost or reset is not proof that the server is
     * down (a lossy link, a server restart, an idle timeout): the retry of the failed
     * operation may reconnect to it, unless another server is there to go to; a server
     * that then refuses or times out is marked bad by the failover walk. Without this a
     * domain of one server went offline at the first reset connection. */
    sdap_fo_note(id_ctx->fo, (size_t)id_ctx->conn_server, error, time(NULL));
    if (error == ETIMEDOUT
            || sdap_fo_has_other(id_ctx->fo, (size_t)id_ctx->conn_server, time(NULL))) {
        sdap_fo_mark_bad(id_ctx->fo, (size_t)id_ctx->conn_server, time(NULL));
    } else {
        DEBUG(SSSDBG_BE_FO, "domain %s: connection to %s lost; no other server to go to: "
              "the next operation reconnects to it\n", id_ctx->opts->domain,
              sdap_fo_uri(id_ctx->fo, (size_t)id_ctx->conn_server));
    }
    id_ctx->conn = NULL;
    sdap_conn_unref(conn);
}

static void sdap_get_conn_connected(struct tevent_req *subreq);
static void sdap_primary_schedule(struct sdap_id_ctx *id_ctx);

/* conn is the domain's connection from now on (a previous one, still usable, finishes the
 * operations under way and goes when they are done). */
static void sdap_conn_install(struct sdap_id_ctx *id_ctx, struct sdap_conn *conn, int idx)
{
    if (id_ctx->conn != NULL) {
        sdap_conn_unref(id_ctx->conn);
    }
    id_ctx->conn = conn;
    id_ctx->conn_server = idx;
    id_ctx->conn_since = time(NULL);
    id_ctx->last_uri = sdap_fo_uri(id_ctx->fo, (size_t)idx);
    id_ctx->offline = false;
    id_ctx->stats.connects++;
    sdap_conn_set_lost_fn(conn, sdap_conn_lost, id_ctx);
    DEBUG(SSSDBG_BE_FO, "domain %s: served by %s%s\n", id_ctx->opts->domain,
          id_ctx->last_uri, sdap_fo_is_backup(id_ctx->fo, (size_t)idx) ? " (backup)" : "");
    sdap_primary_schedule(id_ctx);
    if (id_ctx->fo->conn_fn != NULL) {
        id_ctx->fo->conn_fn(id_ctx->fo->conn_pvt);
    }
}

/* The connection may take new operations: usable, and not past its expiry. */
static bool sdap_conn_current(struct sdap_id_ctx *id_ctx)
{
    int expire = id_ctx->opts->conn_expire;

    return sdap_conn_usable(id_ctx->conn)
           && (expire <= 0 || time(NULL) - id_ctx->conn_since < expire);
}

/* ---- back to a primary server ---------------------------------------------------------- */

static void sdap_primary_probe_done(struct tevent_req *subreq);

static void sdap_primary_fire(struct tevent_context *ev, struct tevent_timer *te,
                              struct timeval now, void *pvt)
{
    struct sdap_id_ctx *id_ctx = talloc_get_type_abort(pvt, struct sdap_id_ctx);
    int idx;
    SSS_REQ_ID_SCOPE(0);

    id_ctx->primary_timer = NULL;
    if (!sdap_conn_usable(id_ctx->conn) || id_ctx->conn_server < 0
            || !sdap_fo_is_backup(id_ctx->fo, (size_t)id_ctx->conn_server)) {
        return;     /* not on a backup any more */
    }
    if (id_ctx->connecting != NULL) {
        sdap_primary_schedule(id_ctx);     /* a failover walk is under way: it decides */
        return;
    }
    idx = sdap_fo_next_server(id_ctx->fo, 0, time(NULL));
    if (idx < 0 || sdap_fo_is_backup(id_ctx->fo, (size_t)idx)) {
        /* every primary is marked bad: probe the first anyway */
        for (idx = 0; sdap_fo_is_srv(id_ctx->fo, (size_t)idx); idx++) {
        }
        if (sdap_fo_is_backup(id_ctx->fo, (size_t)idx)) {
            sdap_primary_schedule(id_ctx);  /* no primary known yet (DNS) */
            return;
        }
    }
    assert(!sdap_fo_is_backup(id_ctx->fo, (size_t)idx));
    DEBUG(SSSDBG_BE_FO, "domain %s: trying primary server %s again\n", id_ctx->opts->domain,
          sdap_fo_uri(id_ctx->fo, (size_t)idx));
    id_ctx->primary_probe = sdap_connect_send(id_ctx, ev, id_ctx->opts,
                                              sdap_fo_uri(id_ctx->fo, (size_t)idx));
    if (id_ctx->primary_probe == NULL) {
        sdap_primary_schedule(id_ctx);
        return;
    }
    tevent_req_set_callback(id_ctx->primary_probe, sdap_primary_probe_done,
                            (void *)(uintptr_t)idx);
}

static void sdap_primary_probe_done(struct tevent_req *subreq)
{
    int idx = (int)(uintptr_t)tevent_req_callback_data_void(subreq);
    struct sdap_id_ctx *id_ctx = talloc_get_type_abort(talloc_parent(subreq),
                                                       struct sdap_id_ctx);
    struct sdap_conn *conn = NULL;
    errno_t ret;

    ret = sdap_connect_recv(id_ctx, subreq, &conn);
    talloc_free(subreq);
    id_ctx->primary_probe = NULL;
    if (ret != EOK) {
        DEBUG(SSSDBG_BE_FO, "domain %s: primary server %s still fails: %s\n",
              id_ctx->opts->domain, sdap_fo_uri(id_ctx->fo, (size_t)idx), sss_strerror(ret));
        sdap_fo_note(id_ctx->fo, (size_t)idx, ret, time(NULL));
        sdap_fo_mark_bad(id_ctx->fo, (size_t)idx, time(NULL));
        sdap_primary_schedule(id_ctx);
        return;
    }
    sdap_fo_note(id_ctx->fo, (size_t)idx, EOK, time(NULL));
    sdap_fo_mark_good(id_ctx->fo, (size_t)idx);
    sdap_conn_install(id_ctx, conn, idx);
}

/* On a backup: the next try of the primaries; otherwise none. */
static void sdap_primary_schedule(struct sdap_id_ctx *id_ctx)
{
    bool on_backup = id_ctx->opts->num_primary > 0 && id_ctx->conn_server >= 0
                     && sdap_fo_is_backup(id_ctx->fo, (size_t)id_ctx->conn_server);

    if (!on_backup) {
        talloc_zfree(id_ctx->primary_timer);
        talloc_zfree(id_ctx->primary_probe);
        return;
    }
    if (id_ctx->primary_timer != NULL || id_ctx->primary_probe != NULL) {
        return;
    }
    id_ctx->primary_timer = tevent_add_timer(id_ctx->ev, id_ctx,
                                             tevent_timeval_current_ofs(
                                                 id_ctx->opts->primary_timeout, 0),
                                             sdap_primary_fire, id_ctx);
}

struct tevent_req *sdap_get_conn_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                      struct sdap_id_ctx *id_ctx)
{
    struct sdap_get_conn_state *state;
    struct sdap_conn_waiter *w;
    struct tevent_req *req;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_get_conn_state);
    if (req == NULL) {
        return NULL;
    }
    tevent_req_defer_callback(req, ev);
    state->id_ctx = id_ctx;
    if (sdap_conn_current(id_ctx)) {
        ret = EOK;
        goto done;
    }
    w = talloc_zero(state, struct sdap_conn_waiter);
    if (w == NULL) {
        ret = ENOMEM;
        goto done;
    }
    w->req = req;
    w->req_id = sss_debug_req_id;
    sss_list_link_front(&id_ctx->waiters, &w->link);
    talloc_set_destructor(w, waiter_destructor);
    state->waiter = w;

    if (id_ctx->connecting == NULL) {
        id_ctx->connecting = sdap_fo_walk_send(id_ctx, ev, id_ctx);
        if (id_ctx->connecting == NULL) {
            ret = ENOMEM;
            goto done;
        }
        tevent_req_set_callback(id_ctx->connecting, sdap_get_conn_connected, id_ctx);
    }
    return req;
done:
    return sss_req_post(req, ev, ret);
}

/* The failover walk ended: every waiter gets its answer. */
static void sdap_get_conn_connected(struct tevent_req *subreq)
{
    struct sdap_id_ctx *id_ctx = tevent_req_callback_data(subreq, struct sdap_id_ctx);
    struct sdap_conn_waiter *w;
    struct sdap_conn *conn = NULL;
    int idx = -1;
    errno_t ret;

    assert(id_ctx->connecting == subreq);
    ret = sdap_fo_walk_recv(id_ctx, subreq, &conn, &idx);
    talloc_free(subreq);
    id_ctx->connecting = NULL;
    if (ret == EOK) {
        sdap_conn_install(id_ctx, conn, idx);
    } else {
        id_ctx->offline = ret == ENETUNREACH;
    }
    while ((w = sss_list_first_entry(&id_ctx->waiters, struct sdap_conn_waiter, link))
           != NULL) {
        struct tevent_req *req = w->req;
        /* The deferred callback is scheduled (and resumes) under the waiter's id. */
        SSS_REQ_ID_SCOPE(w->req_id);

        sss_list_unlink(&w->link);
        if (ret == EOK) {
            tevent_req_done(req);
        } else {
            tevent_req_error(req, ret);
        }
    }
}

void sdap_get_conn_detach(struct sdap_id_ctx *id_ctx)
{
    while (sss_list_is_linked(&id_ctx->waiters)) {
        sss_list_unlink(id_ctx->waiters.next);
    }
}

errno_t sdap_get_conn_recv(struct tevent_req *req, struct sdap_conn **_conn)
{
    struct sdap_get_conn_state *state = tevent_req_data(req, struct sdap_get_conn_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    /* The connection may have broken between the answer and now. */
    if (!sdap_conn_usable(state->id_ctx->conn)) {
        return ENOTCONN;
    }
    *_conn = state->id_ctx->conn;
    return EOK;
}
