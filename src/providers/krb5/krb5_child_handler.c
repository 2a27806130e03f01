/*
 * Running krb5_child from sssd_be's event loop (krb5_child_client.h). The child comes from
 * krb5_child_pool.c (started by a worker thread, often ahead of time), gets the request on
 * a non-blocking pipe and answers on another, watched by a tevent fd; a timer kills it
 * with SIGKILL after krb5_auth_timeout, counted from the request (waiting for a child
 * included). Nothing here waits: not fork, which copies sssd_be's page tables on the loop,
 * not posix_spawn's vfork on the loop, which holds it until the child has exec'd (up to
 * 30 ms measured under 20 parallel logins on 2 cores), and not waitpid: a child that has
 * answered (or been killed) is reaped by a short timer polling with WNOHANG.
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "providers/krb5/krb5_child_client.h"
#include "util/sss_offloop.h"

struct krb5_child_state {
    struct tevent_context *ev;
    struct krb5_child_cfg *cfg;     /* outlives the request: owns the zombies */
    pid_t pid;
    int in_fd;                  /* we write the request */
    int out_fd;                 /* we read the response */
    uint8_t *wbuf;
    size_t wlen;
    size_t woff;
    uint8_t *rbuf;
    size_t rlen;
    struct tevent_fd *wfde;
    struct tevent_fd *rfde;
    struct krb5_child_rsp *rsp;
    struct krb5_child_wait *wait;   /* waiting for a child from the pool */
    bool in_send;                   /* krb5_child_send is still running */
    errno_t take_ret;               /* what went wrong while in_send */
};

static void krb5_child_reap(struct krb5_child_state *state, bool kill_it)
{
    /* On cfg: the reaping outlives the request. */
    sss_child_reap(state->cfg, state->ev, state->pid, kill_it);
    state->pid = -1;
}

static int krb5_child_state_destructor(struct krb5_child_state *state)
{
    /* Cancelled or timed out: the child must not outlive its request. */
    krb5_child_reap(state, true);
    if (state->in_fd >= 0) {
        close(state->in_fd);
    }
    if (state->out_fd >= 0) {
        close(state->out_fd);
    }
    return 0;
}

static void krb5_child_writable(struct tevent_context *ev, struct tevent_fd *fde,
                                uint16_t flags, void *pvt);
static void krb5_child_readable(struct tevent_context *ev, struct tevent_fd *fde,
                                uint16_t flags, void *pvt);
static void krb5_child_timeout(struct tevent_context *ev, struct tevent_timer *te,
                               struct timeval now, void *pvt);

/* The child (or the error) from the pool: the request goes to it at once. */
static void krb5_child_taken(void *pvt, errno_t ret, pid_t pid, int in_fd, int out_fd)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct krb5_child_state *state = tevent_req_data(req, struct krb5_child_state);

    state->wait = NULL;
    if (ret == EOK) {
        state->pid = pid;
        state->in_fd = in_fd;
        state->out_fd = out_fd;
        state->wfde = tevent_add_fd(state->ev, state, state->in_fd, TEVENT_FD_WRITE,
                                    krb5_child_writable, req);
        state->rfde = tevent_add_fd(state->ev, state, state->out_fd, TEVENT_FD_READ,
                                    krb5_child_readable, req);
        if (state->wfde == NULL || state->rfde == NULL) {
            ret = ENOMEM;
        }
    }
    if (ret == EOK) {
        return;
    }
    if (state->in_send) {
        state->take_ret = ret;
        return;
    }
    tevent_req_error(req, ret);
}

struct tevent_req *krb5_child_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                   struct krb5_child_cfg *cfg,
                                   const struct krb5_child_req *creq)
{
    struct krb5_child_state *state;
    struct tevent_req *req;
    struct tevent_timer *te;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct krb5_child_state);
    if (req == NULL) {
        return NULL;
    }
    state->ev = ev;
    state->cfg = cfg;
    state->pid = -1;
    state->in_fd = state->out_fd = -1;
    talloc_set_destructor(state, krb5_child_state_destructor);
    if (ev == NULL || cfg == NULL || creq == NULL) {
        (void)sss_arg_invalid(__func__, "ev, cfg, creq");
        return ev != NULL ? sss_req_post(req, ev, EINVAL) : (talloc_free(req), NULL);
    }
    ret = krb5_child_req_encode(state, creq, &state->wbuf, &state->wlen);
    if (ret != EOK) {
        return sss_req_post(req, ev, ret);
    }
    state->rbuf = talloc_size(state, KRB5_CHILD_MSG_MAX + 1);
    te = tevent_add_timer(ev, state, tevent_timeval_current_ofs(cfg->timeout, 0),
                          krb5_child_timeout, req);
    if (state->rbuf == NULL || te == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    state->in_send = true;
    ret = krb5_child_pool_take(state, ev, cfg, krb5_child_taken, req, &state->wait);
    state->in_send = false;
    if (ret == EOK) {
        ret = state->take_ret;
    }
    if (ret != EOK) {
        return sss_req_post(req, ev, ret);
    }
    return req;
}

static void krb5_child_writable(struct tevent_context *ev, struct tevent_fd *fde,
                                uint16_t flags, void *pvt)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct krb5_child_state *state = tevent_req_data(req, struct krb5_child_state);
    ssize_t n;

    n = write(state->in_fd, state->wbuf + state->woff, state->wlen - state->woff);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        return;
    }
    if (n < 0) {
        DEBUG(SSSDBG_OP_FAILURE, "writing to krb5_child: %s\n", strerror(errno));
        tevent_req_error(req, EIO);
        return;
    }
    state->woff += (size_t)n;
    if (state->woff == state->wlen) {
        /* EOF tells the child the request is whole; the password goes at once. */
        talloc_zfree(state->wfde);
        close(state->in_fd);
        state->in_fd = -1;
        talloc_zfree(state->wbuf);
    }
}

static void krb5_child_readable(struct tevent_context *ev, struct tevent_fd *fde,
                                uint16_t flags, void *pvt)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct krb5_child_state *state = tevent_req_data(req, struct krb5_child_state);
    ssize_t n;
    errno_t ret;

    n = read(state->out_fd, state->rbuf + state->rlen, KRB5_CHILD_MSG_MAX + 1 - state->rlen);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        return;
    }
    if (n > 0) {
        state->rlen += (size_t)n;
        if (state->rlen > KRB5_CHILD_MSG_MAX) {
            DEBUG(SSSDBG_CRIT_FAILURE, "krb5_child's answer is too long\n");
            tevent_req_error(req, EIO);
        }
        return;
    }
    /* EOF (or an error): the answer is all there is. */
    talloc_zfree(state->rfde);
    krb5_child_reap(state, true);
    ret = krb5_child_rsp_decode(state, state->rbuf, state->rlen, &state->rsp);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "krb5_child gave no valid answer (%zu bytes): %s\n",
              state->rlen, sss_strerror(ret));
        tevent_req_error(req, EIO);
        return;
    }
    tevent_req_done(req);
}

static void krb5_child_timeout(struct tevent_context *ev, struct tevent_timer *te,
                               struct timeval now, void *pvt)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct krb5_child_state *state = tevent_req_data(req, struct krb5_child_state);

    DEBUG(SSSDBG_OP_FAILURE, "krb5_child %d did not answer in time: killed\n", (int)state->pid);
    talloc_zfree(state->wait);
    krb5_child_reap(state, true);
    tevent_req_error(req, ETIMEDOUT);
}

errno_t krb5_child_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                        struct krb5_child_rsp **_rsp)
{
    struct krb5_child_state *state = tevent_req_data(req, struct krb5_child_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_rsp = talloc_steal(mem_ctx, state->rsp);
    return EOK;
}
