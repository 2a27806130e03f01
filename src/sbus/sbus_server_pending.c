/*
 * Calls a peer still owes an answer to. When that peer disconnects, every caller waiting on
 * it is answered at once with NoReply, instead of waiting out its call timeout: a responder
 * whose back-end crashed in the middle of a lookup learns it in microseconds, not 30 s.
 * Entries are found by (caller unique name, serial), the pair a reply names.
 */
#include "sbus/sbus_server_private.h"

/* A peer that never answers cannot make us track calls without end. */
#define SBUS_SERVER_MAX_PENDING_PER_PEER 65536

struct sbus_server_pending {
    struct sss_list link;       /* in callee->pending */
    struct sbus_peer *callee;
    char *caller;               /* unique name */
    dbus_uint32_t serial;
    uint64_t hash;              /* of (caller, serial), in callee->pending_index */
    uint64_t req_id;            /* the call's, for the probes of its answer (0 untraced) */
};

/* What callee->pending_index is searched by. */
struct sbus_server_pending_key {
    const char *caller;
    dbus_uint32_t serial;
};

static uint64_t sbus_server_pending_hash(const struct sbus_server_pending_key *key)
{
    return sss_hash_add_u32(sss_hash_str(key->caller), key->serial);
}

static bool sbus_server_pending_equal(const void *item, const void *key, void *ctx)
{
    const struct sbus_server_pending *p = item;
    const struct sbus_server_pending_key *k = key;

    return p->serial == k->serial && strcmp(p->caller, k->caller) == 0;
}

static int sbus_server_pending_destructor(struct sbus_server_pending *p)
{
    struct sbus_peer *callee = p->callee;

    sss_hash_table_remove_item(callee->pending_index, p->hash, p);
    sss_list_unlink(&p->link);
    assert(callee->num_pending > 0);
    callee->num_pending--;
    return 0;
}

void sbus_server_pending_add(struct sbus_peer *callee, const char *caller,
                             dbus_uint32_t serial, uint64_t req_id)
{
    struct sbus_server_pending_key key = { caller, serial };
    struct sbus_server_pending *p;

    if (callee->num_pending >= SBUS_SERVER_MAX_PENDING_PER_PEER) {
        return;     /* the caller still has its own timeout */
    }
    if (callee->pending_index == NULL) {
        callee->pending_index = sss_hash_table_new(callee, 0, sbus_server_pending_equal, NULL);
        if (callee->pending_index == NULL) {
            return;
        }
    }
    p = talloc_zero(callee, struct sbus_server_pending);
    if (p == NULL) {
        return;
    }
    p->callee = callee;
    p->serial = serial;
    p->req_id = req_id;
    p->hash = sbus_server_pending_hash(&key);
    p->caller = talloc_strdup(p, caller);
    if (p->caller == NULL
        || sss_hash_table_insert(callee->pending_index, p->hash, &key, p, NULL) != EOK) {
        talloc_free(p);     /* a duplicate serial is the caller's bug: track the first */
        return;
    }
    sss_list_link_front(&callee->pending, &p->link);
    callee->num_pending++;
    talloc_set_destructor(p, sbus_server_pending_destructor);
}

/* The entry for caller's call serial that callee owes, or NULL. */
static struct sbus_server_pending *sbus_server_pending_find(struct sbus_peer *callee,
                                                            const char *caller,
                                                            dbus_uint32_t serial)
{
    struct sbus_server_pending_key key = { caller, serial };

    if (callee->pending_index == NULL || caller == NULL) {
        return NULL;
    }
    return sss_hash_table_get(callee->pending_index, sbus_server_pending_hash(&key), &key);
}

uint64_t sbus_server_pending_req_id(struct sbus_peer *callee, const char *caller,
                                    dbus_uint32_t reply_serial)
{
    struct sbus_server_pending *p = sbus_server_pending_find(callee, caller, reply_serial);

    return p != NULL ? p->req_id : 0;
}

void sbus_server_pending_answered(struct sbus_peer *callee, const char *caller,
                                  dbus_uint32_t reply_serial)
{
    talloc_free(sbus_server_pending_find(callee, caller, reply_serial));
}

void sbus_server_pending_fail_all(struct sbus_peer *callee)
{
    struct sbus_server_pending *p;
    struct sbus_peer *caller;
    DBusMessage *err;
    const char *text = "The service disconnected before answering";
    const char *from = callee->unique != NULL ? callee->unique->name : DBUS_SERVICE_DBUS;

    while ((p = sss_list_first_entry(&callee->pending, struct sbus_server_pending,
                                     link)) != NULL) {
        caller = sbus_server_name_owner(callee->server, p->caller);
        if (caller != NULL && !caller->disconnected) {
            err = dbus_message_new(DBUS_MESSAGE_TYPE_ERROR);
            if (err != NULL
                && dbus_message_set_error_name(err, DBUS_ERROR_NO_REPLY)
                && dbus_message_set_reply_serial(err, p->serial)
                && dbus_message_set_destination(err, p->caller)
                && dbus_message_set_sender(err, from)
                && dbus_message_append_args(err, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID)) {
                dbus_message_set_no_reply(err, TRUE);
                DEBUG(SSSDBG_TRACE_FUNC, "%s left owing %s an answer (serial %u)\n", from,
                      p->caller, p->serial);
                sbus_server_send(caller, err);
            }
            if (err != NULL) {
                dbus_message_unref(err);
            }
        }
        talloc_free(p);
    }
}
