/*
 * Calls a peer still owes an answer to. When that peer disconnects, every caller waiting on
 * it is answered at once with NoReply, instead of waiting out its call timeout: a responder
 * whose back-end crashed in the middle of a lookup learns it in microseconds, not 30 s.
 * Entries are keyed "<caller unique name>:<serial>", the pair a reply names.
 */
#include <inttypes.h>
#include <stdio.h>

#include "sbus/sbus_server_private.h"

/* A peer that never answers cannot make us track calls without end. */
#define SBUS_SERVER_MAX_PENDING_PER_PEER 65536

struct sbus_server_pending {
    struct sss_list link;       /* in callee->pending */
    struct sbus_peer *callee;
    char *key;
    char *caller;               /* unique name */
    dbus_uint32_t serial;
    uint64_t req_id;            /* the call's, for the probes of its answer (0 untraced) */
};

static int sbus_server_pending_destructor(struct sbus_server_pending *p)
{
    struct sbus_peer *callee = p->callee;

    sbus_hash_remove(callee->pending_index, p->key);
    sss_list_unlink(&p->link);
    assert(callee->num_pending > 0);
    callee->num_pending--;
    return 0;
}

void sbus_server_pending_add(struct sbus_peer *callee, const char *caller,
                             dbus_uint32_t serial, uint64_t req_id)
{
    struct sbus_server_pending *p;

    if (callee->num_pending >= SBUS_SERVER_MAX_PENDING_PER_PEER) {
        return;     /* the caller still has its own timeout */
    }
    if (callee->pending_index == NULL) {
        callee->pending_index = sbus_hash_create(callee);
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
    p->caller = talloc_strdup(p, caller);
    p->key = talloc_asprintf(p, "%s:%" PRIu32, caller, serial);
    if (p->caller == NULL || p->key == NULL
        || sbus_hash_insert(callee->pending_index, p->key, p) != EOK) {
        talloc_free(p);     /* a duplicate serial is the caller's bug: track the first */
        return;
    }
    sss_list_link_front(&callee->pending, &p->link);
    callee->num_pending++;
    talloc_set_destructor(p, sbus_server_pending_destructor);
}

uint64_t sbus_server_pending_req_id(struct sbus_peer *callee, const char *caller,
                                    dbus_uint32_t reply_serial)
{
    char key[DBUS_MAXIMUM_NAME_LENGTH + 16];
    struct sbus_server_pending *p;

    if (callee->pending_index == NULL || caller == NULL) {
        return 0;
    }
    snprintf(key, sizeof(key), "%s:%" PRIu32, caller, reply_serial);
    p = sbus_hash_lookup(callee->pending_index, key);
    return p != NULL ? p->req_id : 0;
}

void sbus_server_pending_answered(struct sbus_peer *callee, const char *caller,
                                  dbus_uint32_t reply_serial)
{
    char key[DBUS_MAXIMUM_NAME_LENGTH + 16];

    if (callee->pending_index == NULL || caller == NULL) {
        return;
    }
    snprintf(key, sizeof(key), "%s:%" PRIu32, caller, reply_serial);
    talloc_free(sbus_hash_lookup(callee->pending_index, key));
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
