/*
 * Fairness between local users on a responder's socket (resp_socket_private.h): every
 * connection is counted under the uid SO_PEERCRED gave when it connected, and kept in that
 * uid's list in order of last activity (a finished request moves it to the end). When the
 * client table is full, or the process has no descriptor left, the uid holding the most
 * connections gives up its least recently active idle ones, so one user opening thousands
 * of connections can only push out its own. Root's connections, and connections with a
 * request in flight, are never shed.
 */
#include <assert.h>
#include <inttypes.h>

#include "responder/common/resp_socket_private.h"

static bool resp_uid_equal(const void *item, const void *key, void *ctx)
{
    return ((const struct resp_uid *)item)->uid == *(const uid_t *)key;
}

static uint64_t resp_uid_hash(uid_t uid)
{
    return sss_hash_u32((uint32_t)uid);
}

errno_t resp_shed_track(struct resp_client *cli)
{
    struct resp_server *srv = cli->srv;
    struct resp_uid *u;
    uid_t uid = cli->creds.uid;
    errno_t ret;

    if (srv->uids == NULL) {
        srv->uids = sss_hash_table_new(srv, 0, resp_uid_equal, NULL);
        if (srv->uids == NULL) {
            return ENOMEM;
        }
    }
    u = sss_hash_table_get(srv->uids, resp_uid_hash(uid), &uid);
    if (u == NULL) {
        u = talloc_zero(srv, struct resp_uid);
        if (u == NULL) {
            return ENOMEM;
        }
        u->uid = uid;
        sss_list_init(&u->clients);
        ret = sss_hash_table_insert(srv->uids, resp_uid_hash(uid), &u->uid, u, NULL);
        if (ret != EOK) {
            talloc_free(u);
            return ret;
        }
    }
    sss_list_link_tail(&u->clients, &cli->uid_link);
    u->count++;
    cli->owner = u;
    return EOK;
}

void resp_shed_untrack(struct resp_client *cli)
{
    struct resp_uid *u = cli->owner;

    if (u == NULL) {
        return;
    }
    sss_list_unlink(&cli->uid_link);
    cli->owner = NULL;
    assert(u->count > 0);
    if (--u->count == 0) {
        sss_hash_table_remove_item(cli->srv->uids, resp_uid_hash(u->uid), u);
        talloc_free(u);
    }
}

void resp_shed_touch(struct resp_client *cli)
{
    struct resp_uid *u = cli->owner;

    if (u != NULL && u->clients.prev != &cli->uid_link) {
        sss_list_unlink(&cli->uid_link);
        sss_list_link_tail(&u->clients, &cli->uid_link);
    }
}

static bool resp_client_sheddable(struct resp_client *cli)
{
    /* No request in flight (its reply not yet written counts as in flight). */
    return cli->req == NULL;
}

/* The non-root uid with the most connections, not one of the skip ones; *_second: the
 * count of the runner-up (non-root). */
static struct resp_uid *resp_shed_top(struct resp_server *srv, struct resp_uid *const *skip,
                                      size_t nskip, size_t *_second)
{
    struct resp_uid *best = NULL;
    struct resp_uid *u;
    size_t second = 0;
    size_t pos = 0;
    void *item;
    size_t i;

    while (sss_hash_table_next(srv->uids, &pos, &item)) {
        u = item;
        if (u->uid == 0) {
            continue;
        }
        for (i = 0; i < nskip && skip[i] != u; i++) {
            /* search */
        }
        if (i < nskip) {
            continue;
        }
        if (best == NULL || u->count > best->count) {
            if (best != NULL) {
                second = best->count;
            }
            best = u;
        } else if (u->count > second) {
            second = u->count;
        }
    }
    *_second = second;
    return best;
}

/* Closes up to n idle connections of u, least recently active first. */
static size_t resp_shed_uid(struct resp_server *srv, struct resp_uid *u, size_t n)
{
    struct resp_client *cli;
    struct sss_list *link;
    struct sss_list *next;
    size_t done = 0;

    for (link = sss_list_first(&u->clients); link != NULL && done < n; link = next) {
        /* u goes away with its last connection: stop before touching it again. */
        next = (link->next == &u->clients || u->count == 1) ? NULL : link->next;
        cli = sss_list_entry(link, struct resp_client, uid_link);
        if (!resp_client_sheddable(cli)) {
            continue;
        }
        DEBUG(SSSDBG_TRACE_INTERNAL, "Shedding idle client fd %d (pid %d uid %d)\n", cli->fd,
              (int)cli->creds.pid, (int)cli->creds.uid);
        talloc_free(cli);
        done++;
    }
    return done;
}

size_t resp_shed_idle(struct resp_server *srv, size_t want)
{
    struct resp_uid *tried[4];
    struct resp_uid *u;
    size_t ntried = 0;
    size_t second;
    size_t target;
    size_t held;
    size_t done = 0;
    uid_t uid;

    if (srv->uids == NULL || want == 0) {
        return 0;
    }
    /* A uid whose connections are all busy is passed over for the next one (a few at most:
     * a busy connection is one the responder is working for right now). */
    while (done == 0 && ntried < SSS_ARRAY_SIZE(tried)) {
        u = resp_shed_top(srv, tried, ntried, &second);
        if (u == NULL) {
            break;
        }
        tried[ntried++] = u;
        /* Down towards the runner-up, in batches: the next newcomers then find room
         * without another search. */
        target = u->count > second ? u->count - second : 1;
        if (target < want) {
            target = want;
        }
        if (target > RESP_SHED_BATCH) {
            target = RESP_SHED_BATCH;
        }
        uid = u->uid;
        held = u->count;
        done = resp_shed_uid(srv, u, target);
        if (done > 0) {
            srv->stats.shed += done;
            RESP_RL_DEBUG(&srv->rl, SSSDBG_OP_FAILURE, "%zu clients on %s (the most "
                          "allowed): closed %zu idle connections of uid %d, which held "
                          "%zu\n", srv->num_clients + done, srv->path, done, (int)uid, held);
        }
    }
    return done;
}
