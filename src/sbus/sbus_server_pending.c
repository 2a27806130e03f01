/*
 * Calls a peer still owes an answer to. When that peer disconnects, every caller waiting on
 * it is answered at once with NoReply, instead of waiting out its call timeout: a responder
 * whose back-end crashed in the middle of a lookup learns it in microseconds, not 30 s.
 * Entries are found by (caller's unique name number, serial): a reply names its caller by
 * a bus name, which routing has already resolved to the caller's peer, so the key is two
 * integers and nothing is formatted, copied or hashed as text per call. Answered entries
 * are kept on the callee for its next calls (every call to a service makes one): the
 * steady state allocates nothing.
 */
#include <inttypes.h>
#include <stdio.h>

#include "sbus/sbus_server_private.h"

/* A peer that never answers cannot make us track calls without end. */
#define SBUS_SERVER_MAX_PENDING_PER_PEER 65536
/* Answered entries a callee keeps for reuse: about the calls it has in flight at once. */
#define SBUS_SERVER_PENDING_FREE_MAX 64

struct sbus_server_pending {
    struct sss_list link;       /* in callee->pending, or callee->pending_free */
    struct sbus_peer *callee;
    uint64_t caller_id;         /* N of the caller's ":1.N" */
    dbus_uint32_t serial;
    uint64_t hash;              /* of (caller_id, serial), in callee->pending_index */
    uint64_t req_id;            /* the call's, for the probes of its answer (0 untraced) */
};

/* What callee->pending_index is searched by. */
struct sbus_server_pending_key {
    uint64_t caller_id;
    dbus_uint32_t serial;
};

static uint64_t sbus_server_pending_hash(const struct sbus_server_pending_key *key)
{
    uint64_t h = sss_hash_u32(key->serial);

    h = sss_hash_add_u32(h, (uint32_t)(key->caller_id >> 32));
    return sss_hash_add_u32(h, (uint32_t)key->caller_id);
}

static bool sbus_server_pending_equal(const void *item, const void *key, void *ctx)
{
    const struct sbus_server_pending *p = item;
    const struct sbus_server_pending_key *k = key;

    return p->serial == k->serial && p->caller_id == k->caller_id;
}

/* Takes p out of the index and the owed list; keeps it for reuse or frees it. */
static void sbus_server_pending_release(struct sbus_server_pending *p)
{
    struct sbus_peer *callee = p->callee;

    sss_hash_table_remove_item(callee->pending_index, p->hash, p);
    sss_list_unlink(&p->link);
    assert(callee->num_pending > 0);
    callee->num_pending--;
    if (callee->num_pending_free < SBUS_SERVER_PENDING_FREE_MAX) {
        sss_list_link_front(&callee->pending_free, &p->link);
        callee->num_pending_free++;
        return;
    }
    talloc_free(p);
}

/* A kept entry, or a new one (a child of callee, freed with it). */
static struct sbus_server_pending *sbus_server_pending_get(struct sbus_peer *callee)
{
    struct sbus_server_pending *p;

    p = sss_list_first_entry(&callee->pending_free, struct sbus_server_pending, link);
    if (p != NULL) {
        sss_list_unlink(&p->link);
        callee->num_pending_free--;
        return p;
    }
    p = talloc_zero(callee, struct sbus_server_pending);
    if (p != NULL) {
        p->callee = callee;
    }
    return p;
}

void sbus_server_pending_add(struct sbus_peer *callee, uint64_t caller_id,
                             dbus_uint32_t serial, uint64_t req_id)
{
    struct sbus_server_pending_key key = { caller_id, serial };
    struct sbus_server_pending *p;
    uint64_t hash;
    errno_t ret;

    if (callee->num_pending >= SBUS_SERVER_MAX_PENDING_PER_PEER) {
        return;     /* the caller still has its own timeout */
    }
    if (callee->pending_index == NULL) {
        callee->pending_index = sss_hash_table_new(callee, 0, sbus_server_pending_equal, NULL);
        if (callee->pending_index == NULL) {
            return;
        }
    }
    p = sbus_server_pending_get(callee);
    if (p == NULL) {
        return;
    }
    hash = sbus_server_pending_hash(&key);
    ret = sss_hash_table_insert(callee->pending_index, hash, &key, p, NULL);
    if (ret != EOK) {
        /* A duplicate serial is the caller's bug: track the first. */
        sss_list_link_front(&callee->pending_free, &p->link);
        callee->num_pending_free++;
        return;
    }
    p->caller_id = caller_id;
    p->serial = serial;
    p->req_id = req_id;
    p->hash = hash;
    sss_list_link_front(&callee->pending, &p->link);
    callee->num_pending++;
}

/* The entry for caller_id's call serial that callee owes, or NULL. */
static struct sbus_server_pending *sbus_server_pending_find(struct sbus_peer *callee,
                                                            uint64_t caller_id,
                                                            dbus_uint32_t serial)
{
    struct sbus_server_pending_key key = { caller_id, serial };

    if (callee->pending_index == NULL || caller_id == 0) {
        return NULL;
    }
    return sss_hash_table_get(callee->pending_index, sbus_server_pending_hash(&key), &key);
}

uint64_t sbus_server_pending_req_id(struct sbus_peer *callee, uint64_t caller_id,
                                    dbus_uint32_t reply_serial)
{
    struct sbus_server_pending *p = sbus_server_pending_find(callee, caller_id, reply_serial);

    return p != NULL ? p->req_id : 0;
}

void sbus_server_pending_answered(struct sbus_peer *callee, uint64_t caller_id,
                                  dbus_uint32_t reply_serial)
{
    struct sbus_server_pending *p = sbus_server_pending_find(callee, caller_id, reply_serial);

    if (p != NULL) {
        sbus_server_pending_release(p);
    }
}

/* The NoReply error for caller's call serial, from callee (or the bus). */
static void sbus_server_pending_no_reply(struct sbus_peer *callee, struct sbus_peer *caller,
                                         dbus_uint32_t serial)
{
    const char *text = "The service disconnected before answering";
    const char *from = callee->unique != NULL ? callee->unique->name : DBUS_SERVICE_DBUS;
    const char *to = caller->unique->name;
    DBusMessage *err;

    err = dbus_message_new(DBUS_MESSAGE_TYPE_ERROR);
    if (err != NULL
        && dbus_message_set_error_name(err, DBUS_ERROR_NO_REPLY)
        && dbus_message_set_reply_serial(err, serial)
        && dbus_message_set_destination(err, to)
        && dbus_message_set_sender(err, from)
        && dbus_message_append_args(err, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID)) {
        dbus_message_set_no_reply(err, TRUE);
        DEBUG(SSSDBG_TRACE_FUNC, "%s left owing %s an answer (serial %u)\n", from, to,
              serial);
        sbus_server_send_dbus(caller, err);
    }
    if (err != NULL) {
        dbus_message_unref(err);
    }
}

void sbus_server_pending_fail_all(struct sbus_peer *callee)
{
    struct sbus_server_pending *p;
    struct sbus_peer *caller;
    char name[64];

    while ((p = sss_list_first_entry(&callee->pending, struct sbus_server_pending,
                                     link)) != NULL) {
        /* Unique names are never reused: the name finds this very caller or nobody. */
        snprintf(name, sizeof(name), ":1.%" PRIu64, p->caller_id);
        caller = sbus_server_name_owner(callee->server, name);
        if (caller != NULL && !caller->disconnected) {
            sbus_server_pending_no_reply(callee, caller, p->serial);
        }
        sbus_server_pending_release(p);
    }
}
