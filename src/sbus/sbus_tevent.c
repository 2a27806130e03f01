/*
 * Drives libdbus from a tevent loop: libdbus watches become tevent fd events, its timeouts
 * tevent timers, and pending incoming data is dispatched from a tevent immediate, one message
 * at a time so a busy connection cannot starve the rest of the loop.
 */
#include "sbus/sbus_private.h"

struct sbus_glue {
    struct tevent_context *ev;
    DBusConnection *conn;           /* NULL for a server */
    DBusServer *server;             /* NULL for a connection */
    struct tevent_immediate *im;
    bool *freed;                    /* set while dispatching, to notice our own destruction */
};

struct sbus_watch {
    struct sbus_glue *glue;
    DBusWatch *watch;
    struct tevent_fd *fde;
};

struct sbus_timeout {
    struct sbus_glue *glue;
    DBusTimeout *timeout;
    struct tevent_timer *te;
};

static void sbus_glue_schedule_dispatch(struct sbus_glue *glue);

static uint16_t sbus_watch_tevent_flags(DBusWatch *watch)
{
    unsigned int dflags;
    uint16_t flags = 0;

    if (!dbus_watch_get_enabled(watch)) {
        return 0;
    }
    dflags = dbus_watch_get_flags(watch);
    if (dflags & DBUS_WATCH_READABLE) {
        flags |= TEVENT_FD_READ;
    }
    if (dflags & DBUS_WATCH_WRITABLE) {
        flags |= TEVENT_FD_WRITE;
    }
    return flags;
}

static void sbus_watch_handler(struct tevent_context *ev, struct tevent_fd *fde,
                               uint16_t flags, void *pvt)
{
    struct sbus_watch *w = talloc_get_type(pvt, struct sbus_watch);
    struct sbus_glue *glue = w->glue;
    DBusConnection *conn = glue->conn;
    unsigned int dflags = 0;

    if (flags & TEVENT_FD_READ) {
        dflags |= DBUS_WATCH_READABLE;
    }
    if (flags & TEVENT_FD_WRITE) {
        dflags |= DBUS_WATCH_WRITABLE;
    }
    /* Handling may close the connection and remove this watch: hold the connection. */
    if (conn != NULL) {
        dbus_connection_ref(conn);
    }
    dbus_watch_handle(w->watch, dflags);
    if (conn != NULL) {
        dbus_connection_unref(conn);
    }
}

static dbus_bool_t sbus_add_watch(DBusWatch *watch, void *data)
{
    struct sbus_glue *glue = talloc_get_type(data, struct sbus_glue);
    struct sbus_watch *w;
    int fd;

    w = talloc_zero(glue, struct sbus_watch);
    if (w == NULL) {
        return FALSE;
    }
    w->glue = glue;
    w->watch = watch;
    fd = dbus_watch_get_unix_fd(watch);
    w->fde = tevent_add_fd(glue->ev, w, fd, sbus_watch_tevent_flags(watch),
                           sbus_watch_handler, w);
    if (w->fde == NULL) {
        talloc_free(w);
        return FALSE;
    }
    dbus_watch_set_data(watch, w, NULL);
    return TRUE;
}

static void sbus_remove_watch(DBusWatch *watch, void *data)
{
    struct sbus_watch *w = dbus_watch_get_data(watch);

    dbus_watch_set_data(watch, NULL, NULL);
    talloc_free(w);
}

static void sbus_toggle_watch(DBusWatch *watch, void *data)
{
    struct sbus_watch *w = dbus_watch_get_data(watch);

    if (w != NULL) {
        tevent_fd_set_flags(w->fde, sbus_watch_tevent_flags(watch));
    }
}

static void sbus_timeout_handler(struct tevent_context *ev, struct tevent_timer *te,
                                 struct timeval now, void *pvt);

static errno_t sbus_timeout_arm(struct sbus_timeout *t)
{
    int ms = dbus_timeout_get_interval(t->timeout);
    struct timeval tv = tevent_timeval_current_ofs(ms / 1000, (ms % 1000) * 1000);

    talloc_zfree(t->te);
    t->te = tevent_add_timer(t->glue->ev, t, tv, sbus_timeout_handler, t);
    return t->te == NULL ? ENOMEM : EOK;
}

static void sbus_timeout_handler(struct tevent_context *ev, struct tevent_timer *te,
                                 struct timeval now, void *pvt)
{
    struct sbus_timeout *t = talloc_get_type(pvt, struct sbus_timeout);
    DBusTimeout *timeout = t->timeout;

    t->te = NULL;   /* tevent frees a fired timer */
    /* libdbus timeouts repeat until removed; re-arm first, since handling may remove it. */
    if (sbus_timeout_arm(t) != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory re-arming a bus timeout\n");
    }
    dbus_timeout_handle(timeout);
}

static dbus_bool_t sbus_add_timeout(DBusTimeout *timeout, void *data)
{
    struct sbus_glue *glue = talloc_get_type(data, struct sbus_glue);
    struct sbus_timeout *t;

    t = talloc_zero(glue, struct sbus_timeout);
    if (t == NULL) {
        return FALSE;
    }
    t->glue = glue;
    t->timeout = timeout;
    if (dbus_timeout_get_enabled(timeout) && sbus_timeout_arm(t) != EOK) {
        talloc_free(t);
        return FALSE;
    }
    dbus_timeout_set_data(timeout, t, NULL);
    return TRUE;
}

static void sbus_remove_timeout(DBusTimeout *timeout, void *data)
{
    struct sbus_timeout *t = dbus_timeout_get_data(timeout);

    dbus_timeout_set_data(timeout, NULL, NULL);
    talloc_free(t);
}

static void sbus_toggle_timeout(DBusTimeout *timeout, void *data)
{
    struct sbus_timeout *t = dbus_timeout_get_data(timeout);

    if (t == NULL) {
        return;
    }
    if (dbus_timeout_get_enabled(timeout)) {
        if (sbus_timeout_arm(t) != EOK) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory arming a bus timeout\n");
        }
    } else {
        talloc_zfree(t->te);
    }
}

static void sbus_dispatch_handler(struct tevent_context *ev, struct tevent_immediate *im,
                                  void *pvt)
{
    struct sbus_glue *glue = talloc_get_type(pvt, struct sbus_glue);
    DBusConnection *conn = glue->conn;
    DBusDispatchStatus status;
    bool freed = false;

    /* Incoming messages belong to no request until their handler says which; the id the
     * loop ran this dispatch under comes back afterwards. */
    SSS_REQ_ID_SCOPE(0);

    dbus_connection_ref(conn);
    glue->freed = &freed;
    status = dbus_connection_dispatch(conn);
    if (!freed) {
        glue->freed = NULL;
        if (status == DBUS_DISPATCH_DATA_REMAINS) {
            sbus_glue_schedule_dispatch(glue);
        }
    }
    dbus_connection_unref(conn);
}

static void sbus_glue_schedule_dispatch(struct sbus_glue *glue)
{
    tevent_schedule_immediate(glue->im, glue->ev, sbus_dispatch_handler, glue);
}

static void sbus_dispatch_status(DBusConnection *conn, DBusDispatchStatus status, void *data)
{
    struct sbus_glue *glue = talloc_get_type(data, struct sbus_glue);

    if (status == DBUS_DISPATCH_DATA_REMAINS) {
        sbus_glue_schedule_dispatch(glue);
    }
}

/* libdbus calls this with the connection lock held (e.g. while queueing a message it just
 * read), so it must not call back into the connection: it only schedules a dispatch, which
 * finds out for itself whether anything is waiting. */
static void sbus_wakeup_main(void *data)
{
    struct sbus_glue *glue = talloc_get_type(data, struct sbus_glue);

    sbus_glue_schedule_dispatch(glue);
}

static int sbus_glue_destructor(struct sbus_glue *glue)
{
    if (glue->freed != NULL) {
        *glue->freed = true;
    }
    /* Unsetting the functions makes libdbus remove (and us free) every watch and timeout. */
    if (glue->conn != NULL) {
        dbus_connection_set_dispatch_status_function(glue->conn, NULL, NULL, NULL);
        dbus_connection_set_wakeup_main_function(glue->conn, NULL, NULL, NULL);
        dbus_connection_set_watch_functions(glue->conn, NULL, NULL, NULL, NULL, NULL);
        dbus_connection_set_timeout_functions(glue->conn, NULL, NULL, NULL, NULL, NULL);
        dbus_connection_unref(glue->conn);
    }
    if (glue->server != NULL) {
        dbus_server_set_watch_functions(glue->server, NULL, NULL, NULL, NULL, NULL);
        dbus_server_set_timeout_functions(glue->server, NULL, NULL, NULL, NULL, NULL);
        dbus_server_unref(glue->server);
    }
    return 0;
}

static struct sbus_glue *sbus_glue_new(TALLOC_CTX *owner, struct tevent_context *ev)
{
    struct sbus_glue *glue;

    glue = talloc_zero(owner, struct sbus_glue);
    if (glue == NULL) {
        return NULL;
    }
    glue->ev = ev;
    glue->im = tevent_create_immediate(glue);
    if (glue->im == NULL) {
        talloc_free(glue);
        return NULL;
    }
    talloc_set_destructor(glue, sbus_glue_destructor);
    return glue;
}

errno_t sbus_tevent_connection_setup(TALLOC_CTX *owner, struct tevent_context *ev,
                                     DBusConnection *conn)
{
    struct sbus_glue *glue;

    SSS_CHECK_ARG(owner != NULL, EINVAL);
    SSS_CHECK_ARG(ev != NULL, EINVAL);
    SSS_CHECK_ARG(conn != NULL, EINVAL);

    glue = sbus_glue_new(owner, ev);
    if (glue == NULL) {
        return ENOMEM;
    }
    glue->conn = dbus_connection_ref(conn);

    if (!dbus_connection_set_watch_functions(conn, sbus_add_watch, sbus_remove_watch,
                                             sbus_toggle_watch, glue, NULL)
        || !dbus_connection_set_timeout_functions(conn, sbus_add_timeout,
                                                  sbus_remove_timeout,
                                                  sbus_toggle_timeout, glue, NULL)) {
        talloc_free(glue);
        return ENOMEM;
    }
    dbus_connection_set_dispatch_status_function(conn, sbus_dispatch_status, glue, NULL);
    dbus_connection_set_wakeup_main_function(conn, sbus_wakeup_main, glue, NULL);

    /* Messages may already be queued (e.g. read during authentication). */
    if (dbus_connection_get_dispatch_status(conn) == DBUS_DISPATCH_DATA_REMAINS) {
        sbus_glue_schedule_dispatch(glue);
    }
    return EOK;
}

errno_t sbus_tevent_server_setup(TALLOC_CTX *owner, struct tevent_context *ev,
                                 DBusServer *server)
{
    struct sbus_glue *glue;

    SSS_CHECK_ARG(owner != NULL, EINVAL);
    SSS_CHECK_ARG(ev != NULL, EINVAL);
    SSS_CHECK_ARG(server != NULL, EINVAL);

    glue = sbus_glue_new(owner, ev);
    if (glue == NULL) {
        return ENOMEM;
    }
    glue->server = dbus_server_ref(server);

    if (!dbus_server_set_watch_functions(server, sbus_add_watch, sbus_remove_watch,
                                         sbus_toggle_watch, glue, NULL)
        || !dbus_server_set_timeout_functions(server, sbus_add_timeout, sbus_remove_timeout,
                                              sbus_toggle_timeout, glue, NULL)) {
        talloc_free(glue);
        return ENOMEM;
    }
    return EOK;
}
