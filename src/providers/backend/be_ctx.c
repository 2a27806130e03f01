/*
 * struct be_ctx: the domain's options, its cache and its id provider, created once at start.
 * Also what every other back-end file shares without depending on one another: the small
 * helper every sliced job uses to give the event loop a turn, and the dp_error an
 * operation's result stands for.
 *
 * Why the yield is a ready eventfd and not a tevent immediate or timer: tevent runs pending
 * immediates (and due timers) before it polls file descriptors, so a chain of them starves
 * every socket until the chain ends. A timer a little ahead does make the loop poll, but
 * epoll waits in whole milliseconds: each yield idled ~1.1 ms (5.5 ms of a cold 5,000-member
 * group's ~9 ms). An eventfd made readable before the loop polls is served by the same
 * epoll_wait as every socket that is ready, with no wait at all.
 */
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "providers/backend/be_ctx.h"
#include "providers/ldap/sdap.h"
#include "providers/ad/ad_options.h"
#include "confdb/confdb.h"
#include "db/sysdb.h"
#include "db/sysdb_idmap.h"
#include "sss_iface/sss_dp.h"

/* ID mapping: a slice the map just gave, kept in the domain's cache. */
static errno_t be_idmap_record(void *pvt, const char *name, const char *sid, uint32_t slice)
{
    struct be_ctx *be = pvt;

    return sysdb_idmap_store(be->sysdb, name, sid, slice);
}

/* ID mapping: the slices the cache recorded back in the map, before any lookup, so a
 * restart maps the ids it mapped before (sysdb_idmap.h); new ones recorded from now on. */
static errno_t be_idmap_setup(struct be_ctx *be)
{
    struct sysdb_idmap *maps = NULL;
    size_t n = 0;
    size_t i;
    errno_t ret;

    ret = sysdb_idmap_list(be, be->sysdb, &maps, &n);
    for (i = 0; ret == EOK && i < n; i++) {
        ret = sdap_id_ctx_idmap_restore(be->id_ctx, maps[i].name, maps[i].sid,
                                        maps[i].slice);
        if (ret != ENOMEM) {
            ret = EOK;      /* a record the map refuses is logged and left out */
        }
    }
    talloc_free(maps);
    if (ret == EOK) {
        sdap_id_ctx_idmap_recorder(be->id_ctx, be_idmap_record, be);
    }
    return ret;
}

/* mkdir -p for the cache directory; the last component gets mode 0700. */
static errno_t be_mkdir_p(const char *path)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    char *copy;
    char *p;
    errno_t ret = EOK;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    copy = talloc_strdup(tmp_ctx, path);
    if (copy == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (p = copy + 1; *p != '\0'; p++) {
        if (*p != '/') {
            continue;
        }
        *p = '\0';
        if (mkdir(copy, 0755) != 0 && errno != EEXIST) {
            ret = errno;
            goto done;
        }
        *p = '/';
    }
    if (mkdir(copy, 0700) != 0 && errno != EEXIST) {
        ret = errno;
        goto done;
    }
done:
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot create the cache directory %s: %s\n", path,
              sss_strerror(ret));
    }
    talloc_free(tmp_ctx);
    return ret;
}

static errno_t be_get_uint(struct be_ctx *be, const char *option, uint32_t *_value)
{
    int value = 0;
    errno_t ret;

    ret = confdb_get_int(be->cdb, be->section, option, &value);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] %s: %s\n", be->section, option, sss_strerror(ret));
        return ret;
    }
    *_value = value < 0 ? 0 : (uint32_t)value;
    return EOK;
}

static errno_t be_read_options(struct be_ctx *be, enum sysdb_case *_case_mode)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    char *case_str = NULL;
    char *mpg_str = NULL;
    uint32_t value;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = confdb_get_string(be->cdb, be, be->section, "id_provider", &be->id_provider);
    if (ret != EOK) {
        goto done;
    }
    if (be->id_provider == NULL) {
        DEBUG(SSSDBG_FATAL_FAILURE, "[%s] has no id_provider\n", be->section);
        ret = ERR_INVALID_CONFIG;
        goto done;
    }

    ret = confdb_get_string(be->cdb, tmp_ctx, be->section, "case_sensitive", &case_str);
    if (ret != EOK) {
        goto done;
    }
    if (case_str == NULL || strcmp(case_str, "true") == 0) {
        *_case_mode = SYSDB_CASE_SENSITIVE;
    } else if (strcmp(case_str, "false") == 0) {
        *_case_mode = SYSDB_CASE_INSENSITIVE;
    } else if (strcmp(case_str, "preserving") == 0) {
        *_case_mode = SYSDB_CASE_PRESERVING;
    } else {
        DEBUG(SSSDBG_FATAL_FAILURE, "[%s] case_sensitive = %s is not understood\n",
              be->section, case_str);
        ret = ERR_INVALID_CONFIG;
        goto done;
    }

    ret = be_get_uint(be, "entry_cache_user_timeout", &be->user_timeout);
    if (ret != EOK) {
        goto done;
    }
    ret = be_get_uint(be, "entry_cache_group_timeout", &be->group_timeout);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_bool(be->cdb, be->section, "enumerate", &be->enumerate);
    if (ret != EOK) {
        goto done;
    }
    ret = be_get_uint(be, "ldap_enumeration_refresh_timeout", &value);
    if (ret != EOK) {
        goto done;
    }
    be->enum_refresh = value > 0 ? (int)value : 300;
    ret = confdb_get_string(be->cdb, tmp_ctx, be->section, "auto_private_groups", &mpg_str);
    if (ret != EOK) {
        goto done;
    }
    if (mpg_str == NULL || strcasecmp(mpg_str, "false") == 0) {
        be->mpg = BE_MPG_FALSE;
    } else if (strcasecmp(mpg_str, "true") == 0) {
        be->mpg = BE_MPG_TRUE;
    } else if (strcasecmp(mpg_str, "hybrid") == 0) {
        be->mpg = BE_MPG_HYBRID;
    } else {
        DEBUG(SSSDBG_FATAL_FAILURE, "[%s] auto_private_groups = %s is not understood\n",
              be->section, mpg_str);
        ret = ERR_INVALID_CONFIG;
        goto done;
    }
    ret = be_get_uint(be, "offline_timeout", &value);
    if (ret != EOK) {
        goto done;
    }
    be->offline_timeout = value > 0 ? (int)value : 1;
    ret = be_get_uint(be, "offline_timeout_max", &value);
    if (ret != EOK) {
        goto done;
    }
    be->offline_timeout_max = (int)value < be->offline_timeout ? be->offline_timeout : (int)value;
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t be_ctx_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev, struct confdb *cdb,
                      const char *domain, const char *db_dir, struct be_ctx **_be)
{
    struct be_ctx *be;
    enum sysdb_case case_mode = SYSDB_CASE_SENSITIVE;
    errno_t ret;

    SSS_CHECK_ARG(ev != NULL, EINVAL);
    SSS_CHECK_ARG(cdb != NULL, EINVAL);
    SSS_CHECK_ARG(domain != NULL, EINVAL);
    SSS_CHECK_ARG(db_dir != NULL, EINVAL);
    SSS_CHECK_ARG(_be != NULL, EINVAL);
    be = talloc_zero(mem_ctx, struct be_ctx);
    if (be == NULL) {
        return ENOMEM;
    }
    be->ev = ev;
    be->cdb = cdb;
    sss_list_init(&be->ops);
    be->domain = talloc_strdup(be, domain);
    be->section = confdb_domain_section(be, domain);
    if (be->domain == NULL || be->section == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = be_read_options(be, &case_mode);
    if (ret != EOK) {
        goto done;
    }
    ret = be_mkdir_p(db_dir);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_open(be, db_dir, domain, case_mode, &be->sysdb);
    if (ret != EOK) {
        DEBUG(SSSDBG_FATAL_FAILURE, "Cannot open the cache of %s in %s: %s\n", domain, db_dir,
              sss_strerror(ret));
        goto done;
    }
    if (strcmp(be->id_provider, "ldap") == 0 || strcmp(be->id_provider, "ad") == 0) {
        /* id_provider = ad: the LDAP provider with AD's computed defaults. */
        ret = strcmp(be->id_provider, "ad") == 0 ? ad_options_apply(cdb, domain) : EOK;
        if (ret == EOK) {
            ret = sdap_id_ctx_create(be, ev, cdb, domain, &be->id_ctx);
        }
        if (ret == EOK && strcmp(be->id_provider, "ad") == 0) {
            ret = ad_servers_init(cdb, domain, be->id_ctx);
        }
        if (ret == ERR_INVALID_CONFIG) {
            DEBUG(SSSDBG_FATAL_FAILURE, "The %s id provider of %s refused its configuration "
                  "(reason above): every lookup in this domain fails\n", be->id_provider,
                  domain);
            be->id_error = ERR_INVALID_CONFIG;
            be->id_error_msg = talloc_asprintf(be, "the %s id provider of domain %s refused "
                                               "its configuration (see the sssd_be_%s log)",
                                               be->id_provider, domain, domain);
        } else if (ret != EOK) {
            DEBUG(SSSDBG_FATAL_FAILURE, "Cannot set up the LDAP id provider of %s: %s\n",
                  domain, sss_strerror(ret));
            goto done;
        } else {
            be->id_supported = true;
            ret = be_idmap_setup(be);
            if (ret != EOK) {
                goto done;
            }
        }
    } else {
        DEBUG(SSSDBG_CRIT_FAILURE, "id_provider %s is not supported by this build: every "
              "lookup in domain %s fails (only id_provider = ldap and ad are implemented)\n",
              be->id_provider, domain);
        be->id_error = ENOTSUP;
        be->id_error_msg = talloc_asprintf(be, "id_provider %s is not supported by this build",
                                           be->id_provider);
    }
    if (!be->id_supported && be->id_error_msg == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = be_offline_init(be);
    if (ret != EOK) {
        goto done;
    }
    DEBUG(SSSDBG_CONF_SETTINGS, "Domain %s: id_provider %s, cache %s, user/group timeout "
          "%u/%u s, enumerate %s (every %d s), offline_timeout %d..%d s\n", domain,
          be->id_provider, sysdb_path(be->sysdb), be->user_timeout, be->group_timeout,
          be->enumerate ? "true" : "false", be->enum_refresh, be->offline_timeout,
          be->offline_timeout_max);
    *_be = be;
    ret = EOK;
done:
    if (ret != EOK) {
        talloc_free(be);
    }
    return ret;
}

/* ---- yield ------------------------------------------------------------------------- */

/* One per event loop (a child of it): an eventfd written once and never read, so always
 * readable, watched only while yields wait. A yield queues itself; each time the loop
 * polls and finds the eventfd ready, the yields queued before that poll complete, in
 * order; those they queue wait for the next poll. No descriptor is made or closed per
 * yield (it used to take eventfd, write, two epoll_ctl and close each). */
struct be_yielder {
    struct tevent_context *ev;
    struct tevent_fd *fde;          /* READ while yields wait, else no flags */
    struct sss_list waiting;        /* struct be_yield_state, in order */
    uint64_t polls;                 /* times the loop found it ready */
};

struct be_yield_state {
    struct sss_list link;           /* in the yielder's waiting list */
    struct tevent_req *req;
    uint64_t poll;                  /* completes at the poll after this one */
};

/* The yielder of the loop last asked for; another loop gets its own (unit tests). */
static struct be_yielder *be_yielder_last;

static int be_yielder_destructor(struct be_yielder *y)
{
    struct be_yield_state *state;

    /* The loop goes first (a teardown): the waiting yields stay pending, unlinked. */
    while ((state = sss_list_first_entry(&y->waiting, struct be_yield_state, link))
           != NULL) {
        sss_list_unlink(&state->link);
    }
    if (be_yielder_last == y) {
        be_yielder_last = NULL;
    }
    return 0;
}

static void be_yielder_fire(struct tevent_context *ev, struct tevent_fd *fde, uint16_t flags,
                            void *pvt)
{
    struct be_yielder *y = talloc_get_type(pvt, struct be_yielder);
    struct be_yield_state *state;
    uint64_t poll = y->polls++;

    while ((state = sss_list_first_entry(&y->waiting, struct be_yield_state, link)) != NULL
           && state->poll <= poll) {
        sss_list_unlink(&state->link);
        tevent_req_done(state->req);       /* may queue new yields, or free others */
    }
    if (sss_list_is_empty(&y->waiting)) {
        tevent_fd_set_flags(y->fde, 0);
    }
}

static struct be_yielder *be_yielder_get(struct tevent_context *ev, errno_t *_err)
{
    struct be_yielder *y = be_yielder_last;
    uint64_t one = 1;
    int fd;

    if (y != NULL && y->ev == ev) {
        return y;
    }
    y = talloc_zero(ev, struct be_yielder);
    if (y == NULL) {
        *_err = ENOMEM;
        return NULL;
    }
    y->ev = ev;
    sss_list_init(&y->waiting);
    fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd == -1) {
        *_err = errno;
        talloc_free(y);
        return NULL;
    }
    if (write(fd, &one, sizeof(one)) != sizeof(one)) {
        *_err = EIO;
        close(fd);
        talloc_free(y);
        return NULL;
    }
    y->fde = tevent_add_fd(ev, y, fd, 0, be_yielder_fire, y);
    if (y->fde == NULL) {
        *_err = ENOMEM;
        close(fd);
        talloc_free(y);
        return NULL;
    }
    tevent_fd_set_auto_close(y->fde);
    talloc_set_destructor(y, be_yielder_destructor);
    be_yielder_last = y;
    return y;
}

static void be_yield_timer(struct tevent_context *ev, struct tevent_timer *te,
                           struct timeval now, void *pvt)
{
    tevent_req_done(talloc_get_type(pvt, struct tevent_req));
}

static int be_yield_state_destructor(struct be_yield_state *state)
{
    sss_list_unlink(&state->link);      /* a yield freed before its turn came */
    return 0;
}

/* No eventfd to be had (out of descriptors): a timer a little ahead still makes the loop
 * poll the sockets first, at the cost of epoll's millisecond. Not a failure of the job. */
static struct tevent_req *be_yield_by_timer(struct tevent_req *req, struct tevent_context *ev,
                                            int err)
{
    DEBUG(SSSDBG_MINOR_FAILURE, "No eventfd for a yield (%s): a timer instead\n",
          sss_strerror(err));
    if (tevent_add_timer(ev, req, tevent_timeval_current_ofs(0, 100), be_yield_timer,
                         req) == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    return req;
}

struct tevent_req *be_yield_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev)
{
    struct be_yield_state *state;
    struct be_yielder *y;
    struct tevent_req *req;
    errno_t err = EOK;

    req = tevent_req_create(mem_ctx, &state, struct be_yield_state);
    if (req == NULL) {
        return NULL;
    }
    y = be_yielder_get(ev, &err);
    if (y == NULL) {
        return be_yield_by_timer(req, ev, err);
    }
    state->req = req;
    state->poll = y->polls;
    if (sss_list_is_empty(&y->waiting)) {
        tevent_fd_set_flags(y->fde, TEVENT_FD_READ);
    }
    sss_list_link_tail(&y->waiting, &state->link);
    talloc_set_destructor(state, be_yield_state_destructor);
    return req;
}

errno_t be_yield_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}

void be_req_finish(struct tevent_req *req, errno_t ret)
{
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    tevent_req_done(req);
}

void be_step_done(struct be_ctx *be, uint64_t start_usec)
{
    uint64_t d = sss_monotonic_usec() - start_usec;

    if (d > be->stats.max_step_usec) {
        be->stats.max_step_usec = d;
    }
}

/* ---- results ----------------------------------------------------------------------- */

uint16_t be_dp_error_of(errno_t ret)
{
    switch (ret) {
    case EOK: return SSS_DP_ERR_OK;
    case ENETUNREACH: return SSS_DP_ERR_OFFLINE;
    case ETIMEDOUT: return SSS_DP_ERR_TIMEOUT;
    default: return SSS_DP_ERR_FATAL;
    }
}
