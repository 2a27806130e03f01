/*
 * What the master bus knows and how it forwards: bus names (unique ":1.N" and well-known)
 * with their owners, every peer's match rules indexed by "interface.member" (plus one slot
 * for rules lacking either), routing by destination, broadcasting of signals to peers
 * whose rules accept them (never back to the sender), and the bus's own signals
 * (NameOwnerChanged, NameAcquired, NameLost).
 */
#include <inttypes.h>
#include <stdio.h>

#include "sbus/sbus_server_private.h"
#include "util/sss_metrics.h"

/* The rules that share one "interface.member" (or, for server->match_any, lack one). */
struct sbus_server_slot {
    char *interface;                    /* both NULL for server->match_any */
    char *member;
    uint64_t hash;                      /* its key's, in server->match_index */
    struct sbus_server *server;
    struct sss_list rules;              /* struct sbus_server_match, newest first */
};

/* What server->match_index is searched by. */
struct sbus_server_slot_key {
    const char *interface;
    const char *member;
};

/* One AddMatch of one peer. */
struct sbus_server_match {
    struct sbus_peer *peer;
    struct sbus_match_rule *rule;
    struct sbus_server_slot *slot;
    struct sss_list slot_link;          /* in slot->rules */
    struct sss_list peer_link;          /* in peer->matches */
};

/* A slot, its rule list ready. */
static struct sbus_server_slot *sbus_server_slot_new(struct sbus_server *server)
{
    struct sbus_server_slot *slot;

    slot = talloc_zero(server, struct sbus_server_slot);
    if (slot == NULL) {
        return NULL;
    }
    slot->server = server;
    sss_list_init(&slot->rules);
    return slot;
}

/* -------- the tables -------- */

/* The hash of "interface.member", without writing the text out (broadcasts look it up). */
static uint64_t sbus_server_slot_hash(const struct sbus_server_slot_key *key)
{
    uint64_t h;

    h = sss_hash_add_str(SSS_HASH_INIT, key->interface);
    h = sss_hash_add(h, ".", 1);
    return sss_hash_add_str(h, key->member);
}

static bool sbus_server_slot_equal(const void *item, const void *key, void *ctx)
{
    const struct sbus_server_slot *slot = item;
    const struct sbus_server_slot_key *k = key;

    return strcmp(slot->member, k->member) == 0 && strcmp(slot->interface, k->interface) == 0;
}

static bool sbus_server_name_equal(const void *item, const void *key, void *ctx)
{
    const struct sbus_server_name *n = item;

    return strcmp(n->name, key) == 0;
}

errno_t sbus_server_tables_init(struct sbus_server *server)
{
    server->names = sss_hash_table_new(server, 0, sbus_server_name_equal, NULL);
    server->match_index = sss_hash_table_new(server, 0, sbus_server_slot_equal, NULL);
    server->match_any = sbus_server_slot_new(server);
    if (server->names == NULL || server->match_index == NULL || server->match_any == NULL) {
        return ENOMEM;
    }
    return EOK;
}

/* -------- names -------- */

static int sbus_server_name_destructor(struct sbus_server_name *n)
{
    struct sbus_peer *owner = n->owner;

    sss_hash_table_remove_item(owner->server->names, n->hash, n);
    if (owner->unique == n) {
        owner->unique = NULL;
        return 0;
    }
    sss_list_unlink(&n->link);
    return 0;
}

static errno_t sbus_server_name_new(struct sbus_peer *peer, const char *name,
                                    struct sbus_server_name **_n)
{
    struct sbus_server_name *n;
    errno_t ret;

    n = talloc_zero(peer, struct sbus_server_name);
    if (n == NULL) {
        return ENOMEM;
    }
    n->owner = peer;
    n->name = talloc_strdup(n, name);
    if (n->name == NULL) {
        ret = ENOMEM;
        goto done;
    }
    n->hash = sss_hash_str(n->name);
    ret = sss_hash_table_insert(peer->server->names, n->hash, n->name, n, NULL);
    if (ret != EOK) {
        goto done;
    }
    /* In the table: from now on the destructor takes it out. */
    talloc_set_destructor(n, sbus_server_name_destructor);
    *_n = n;
    ret = EOK;

done:
    if (ret != EOK) {
        talloc_free(n);
    }
    return ret;
}

/* The entry of name (unique or well-known), or NULL. */
static struct sbus_server_name *sbus_server_name_find(struct sbus_server *server,
                                                      const char *name)
{
    return sss_hash_table_get(server->names, sss_hash_str(name), name);
}

struct sbus_peer *sbus_server_name_owner(struct sbus_server *server, const char *name)
{
    struct sbus_server_name *n = sbus_server_name_find(server, name);

    if (n == NULL || n->owner->disconnected) {
        return NULL;
    }
    return n->owner;
}

errno_t sbus_server_assign_unique(struct sbus_peer *peer)
{
    struct sbus_server *server = peer->server;
    struct sbus_server_name *n;
    char name[64];
    errno_t ret;

    if (peer->unique != NULL) {
        return EEXIST;
    }
    snprintf(name, sizeof(name), ":1.%" PRIu64, server->next_unique);
    ret = sbus_server_name_new(peer, name, &n);
    if (ret != EOK) {
        return ret;
    }
    peer->unique_id = server->next_unique++;
    peer->unique = n;
    return EOK;
}

errno_t sbus_server_acquire_name(struct sbus_peer *peer, const char *name)
{
    struct sbus_server_name *n = sbus_server_name_find(peer->server, name);
    errno_t ret;

    if (n != NULL) {
        return n->owner == peer ? EALREADY : EEXIST;
    }
    ret = sbus_server_name_new(peer, name, &n);
    if (ret != EOK) {
        return ret;
    }
    sss_list_link_front(&peer->names, &n->link);
    return EOK;
}

errno_t sbus_server_release_name(struct sbus_peer *peer, const char *name)
{
    struct sbus_server_name *n = sbus_server_name_find(peer->server, name);

    if (n == NULL) {
        return ENOENT;
    }
    if (n->owner != peer) {
        return EPERM;
    }
    talloc_free(n);
    return EOK;
}

void sbus_server_forget_peer(struct sbus_peer *peer)
{
    struct sbus_server *server = peer->server;
    struct sbus_server_match *m;
    struct sbus_server_name *n;

    while ((m = sss_list_first_entry(&peer->matches, struct sbus_server_match,
                                     peer_link)) != NULL) {
        talloc_free(m);
    }
    assert(peer->num_matches == 0);
    if (peer->unique == NULL) {
        return;     /* never registered: it can own nothing */
    }
    sbus_server_pending_fail_all(peer);
    while ((n = sss_list_first_entry(&peer->names, struct sbus_server_name, link)) != NULL) {
        sbus_server_emit(server, NULL, "NameOwnerChanged", n->name, peer->unique->name, "");
        talloc_free(n);
    }
    n = peer->unique;
    sbus_server_emit(server, NULL, "NameOwnerChanged", n->name, n->name, "");
    talloc_free(n);
}

/* -------- match rules -------- */

static int sbus_server_match_destructor(struct sbus_server_match *m)
{
    struct sbus_server_slot *slot = m->slot;
    struct sbus_peer *peer = m->peer;

    sss_list_unlink(&m->slot_link);
    if (sss_list_is_empty(&slot->rules) && slot != slot->server->match_any) {
        sss_hash_table_remove_item(slot->server->match_index, slot->hash, slot);
        talloc_free(slot);
    }

    sss_list_unlink(&m->peer_link);
    assert(peer->num_matches > 0);
    peer->num_matches--;
    return 0;
}

/* The slot for rule, created on first use. */
static errno_t sbus_server_slot_get(struct sbus_server *server,
                                    const struct sbus_match_rule *rule,
                                    struct sbus_server_slot **_slot)
{
    struct sbus_server_slot_key key = { rule->interface, rule->member };
    struct sbus_server_slot *slot;
    uint64_t hash;
    errno_t ret;

    if (rule->interface == NULL || rule->member == NULL) {
        *_slot = server->match_any;
        return EOK;
    }
    hash = sbus_server_slot_hash(&key);
    slot = sss_hash_table_get(server->match_index, hash, &key);
    if (slot != NULL) {
        *_slot = slot;
        return EOK;
    }
    slot = sbus_server_slot_new(server);
    if (slot == NULL) {
        return ENOMEM;
    }
    slot->interface = talloc_strdup(slot, rule->interface);
    slot->member = talloc_strdup(slot, rule->member);
    slot->hash = hash;
    if (slot->interface == NULL || slot->member == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sss_hash_table_insert(server->match_index, hash, &key, slot, NULL);
    if (ret != EOK) {
        goto done;
    }
    *_slot = slot;
    ret = EOK;

done:
    if (ret != EOK) {
        talloc_free(slot);
    }
    return ret;
}

errno_t sbus_server_add_match(struct sbus_peer *peer, struct sbus_match_rule *rule)
{
    struct sbus_server_match *m;
    struct sbus_server_slot *slot;
    errno_t ret;

    if (peer->num_matches >= SBUS_SERVER_MAX_MATCHES_PER_PEER) {
        return E2BIG;
    }
    m = talloc_zero(peer, struct sbus_server_match);
    if (m == NULL) {
        return ENOMEM;
    }
    ret = sbus_server_slot_get(peer->server, rule, &slot);
    if (ret != EOK) {
        talloc_free(m);
        return ret;
    }
    m->peer = peer;
    m->rule = talloc_steal(m, rule);
    m->slot = slot;
    sss_list_link_front(&slot->rules, &m->slot_link);
    sss_list_link_front(&peer->matches, &m->peer_link);
    peer->num_matches++;
    talloc_set_destructor(m, sbus_server_match_destructor);
    return EOK;
}

errno_t sbus_server_remove_match(struct sbus_peer *peer, const struct sbus_match_rule *rule)
{
    struct sbus_server_match *m;

    sss_list_for_each_entry(m, &peer->matches, peer_link) {
        if (sbus_match_rule_equal(m->rule, rule)) {
            talloc_free(m);
            return EOK;
        }
    }
    return ENOENT;
}

/* -------- delivery -------- */

/* A rule's sender may be a well-known name: the sending peer must own it now. */
static bool sbus_server_sender_owns(const char *name, void *pvt)
{
    struct sbus_peer *sender = pvt;

    return sender != NULL && sbus_server_name_owner(sender->server, name) == sender;
}

static void sbus_server_deliver_slot(struct sbus_server_slot *slot, struct sbus_peer *sender,
                                     struct sbus_server_msg *m, uint64_t stamp)
{
    struct sbus_server_match *entry;
    struct sbus_peer *peer;
    DBusMessage *msg = NULL;

    sss_list_for_each_entry(entry, &slot->rules, slot_link) {
        peer = entry->peer;
        if (peer == sender || peer->disconnected || peer->delivered == stamp) {
            continue;
        }
        /* Rules look inside the message: libdbus reads it, once, for the first rule. */
        if (msg == NULL) {
            msg = sbus_server_msg_dbus(m);
            if (msg == NULL) {
                DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory matching a signal; dropped\n");
                return;
            }
        }
        if (!sbus_match_rule_matches_full(entry->rule, msg, sbus_server_sender_owns,
                                          sender)) {
            continue;
        }
        peer->delivered = stamp;    /* once per peer, however many rules match */
        sbus_server_forward(peer, m);
    }
}

/* Delivers a signal without destination; sender is NULL for the bus's own signals. */
static void sbus_server_broadcast(struct sbus_server *server, struct sbus_peer *sender,
                                  struct sbus_server_msg *m)
{
    struct sbus_server_slot_key key = { SBUS_MSG_FIELD(m, interface),
                                        SBUS_MSG_FIELD(m, member) };
    struct sbus_server_slot *slot;
    uint64_t stamp = ++server->delivery;

    if (key.interface != NULL && key.member != NULL) {
        slot = sss_hash_table_get(server->match_index, sbus_server_slot_hash(&key), &key);
        if (slot != NULL) {
            sbus_server_deliver_slot(slot, sender, m, stamp);
        }
    }
    sbus_server_deliver_slot(server->match_any, sender, m, stamp);
}

void sbus_server_emit(struct sbus_server *server, struct sbus_peer *destination,
                      const char *member, const char *first, const char *second,
                      const char *third)
{
    struct sbus_server_msg m;
    DBusMessage *msg;
    dbus_bool_t ok;

    assert(destination == NULL || destination->unique != NULL);
    msg = dbus_message_new_signal(DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS, member);
    if (msg == NULL) {
        goto oom;
    }
    ok = dbus_message_set_sender(msg, DBUS_SERVICE_DBUS);
    if (ok && destination != NULL) {
        ok = dbus_message_set_destination(msg, destination->unique->name);
    }
    if (ok) {
        ok = dbus_message_append_args(msg, DBUS_TYPE_STRING, &first, DBUS_TYPE_INVALID);
    }
    if (ok && second != NULL) {
        ok = dbus_message_append_args(msg, DBUS_TYPE_STRING, &second, DBUS_TYPE_INVALID);
    }
    if (ok && third != NULL) {
        ok = dbus_message_append_args(msg, DBUS_TYPE_STRING, &third, DBUS_TYPE_INVALID);
    }
    if (!ok || sbus_server_msg_from_dbus(server, msg, &m) != EOK) {
        goto oom;
    }

    DEBUG(SSSDBG_TRACE_ALL, "Bus signal %s(%s%s%s%s%s) to %s\n", member, first,
          second != NULL ? ", " : "", second != NULL ? second : "",
          third != NULL ? ", " : "", third != NULL ? third : "",
          destination != NULL ? destination->unique->name : "(broadcast)");
    if (destination != NULL) {
        if (!destination->disconnected) {
            sbus_server_forward(destination, &m);
        }
    } else {
        sbus_server_broadcast(server, NULL, &m);
    }
    sbus_server_msg_done(&m);
    dbus_message_unref(msg);
    return;

oom:
    DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory emitting %s\n", member);
    if (msg != NULL) {
        dbus_message_unref(msg);
    }
}

/* -------- routing -------- */

const char *sbus_server_peer_wellknown(struct sbus_peer *peer)
{
    struct sbus_server_name *n;
    const char *name = NULL;

    sss_list_for_each_entry(n, &peer->names, link) {
        name = n->name;             /* newest first: the last one seen is the oldest */
    }
    return name;
}

/* The label a callee's calls are counted under: its oldest well-known name; calls to a
 * peer without one share "(unnamed)" (unique names would make a series per restart). */
static const char *sbus_server_call_destination(struct sbus_peer *target)
{
    const char *name = sbus_server_peer_wellknown(target);

    return name != NULL ? name : "(unnamed)";
}

/* Counts a method call routed to target in sssd_bus_calls_total. The metric of each of
 * the callee's first interfaces is kept on the peer: a routed call costs a few short
 * string compares and an increment; only a call to a ninth interface looks it up. */
static void sbus_server_count_call(struct sbus_peer *target, const char *interface)
{
    struct sbus_server_call_counter *c;
    struct sss_metric *metric;
    char dest[DBUS_MAXIMUM_NAME_LENGTH * 2 + 1];
    char iface[DBUS_MAXIMUM_NAME_LENGTH * 2 + 1];
    char labels[sizeof(dest) + sizeof(iface) + 32];
    size_t i;

    for (i = 0; i < SBUS_SERVER_CALL_COUNTERS; i++) {
        c = &target->calls[i];
        if (c->interface == NULL) {
            break;
        }
        if (strcmp(c->interface, interface) == 0) {
            sss_metric_inc(c->metric);
            return;
        }
    }
    sss_metric_label_value(dest, sizeof(dest), sbus_server_call_destination(target));
    sss_metric_label_value(iface, sizeof(iface), interface);
    snprintf(labels, sizeof(labels), "destination=\"%s\",interface=\"%s\"", dest, iface);
    metric = sss_metric_get("sssd_bus_calls_total", "Method calls routed by the master bus, "
                            "by destination and interface", SSS_METRIC_COUNTER, labels);
    sss_metric_inc(metric);
    if (i < SBUS_SERVER_CALL_COUNTERS && metric != NULL) {
        target->calls[i].interface = talloc_strdup(target, interface);
        target->calls[i].metric = target->calls[i].interface != NULL ? metric : NULL;
    }
}

void sbus_server_route(struct sbus_peer *sender, struct sbus_server_msg *m)
{
    struct sbus_server *server = sender->server;
    const char *destination = SBUS_MSG_FIELD(m, destination);
    int type = m->h.type;
    struct sbus_peer *target;
    char text[DBUS_MAXIMUM_NAME_LENGTH + 64];

    assert(sender->unique != NULL && !sender->disconnected);
    DEBUG(SSSDBG_TRACE_ALL, "Routing %s %s%s%s from %s to %s, serial %u\n",
          dbus_message_type_to_string(type),
          m->h.interface.off != 0 ? SBUS_MSG_FIELD(m, interface) : "",
          m->h.interface.off != 0 ? "." : "",
          m->h.member.off != 0 ? SBUS_MSG_FIELD(m, member) : "",
          sender->unique->name, destination != NULL ? destination : "(broadcast)",
          m->h.serial);

    if (destination != NULL) {
        target = sbus_server_name_owner(server, destination);
        if (target != NULL) {
            if (type == DBUS_MESSAGE_TYPE_METHOD_CALL) {
                sbus_server_count_call(target, m->h.interface.off != 0
                                               ? SBUS_MSG_FIELD(m, interface) : "");
                if (!(m->h.flags & DBUS_HEADER_FLAG_NO_REPLY_EXPECTED)) {
                    if (target->out_bytes >= SBUS_SERVER_MAX_QUEUED) {
                        snprintf(text, sizeof(text), "%s is not reading its messages",
                                 destination);
                        sbus_server_reply_error_msg(sender, m, DBUS_ERROR_LIMITS_EXCEEDED,
                                                    text);
                        return;
                    }
                    sbus_server_pending_add(target, sender->unique_id, m->h.serial,
                                            server->trace != NULL ? server->trace->req_id
                                                                  : 0);
                }
            } else if (type == DBUS_MESSAGE_TYPE_METHOD_RETURN
                       || type == DBUS_MESSAGE_TYPE_ERROR) {
                /* the caller by its peer: a reply may name it by a well-known name */
                sbus_server_pending_answered(sender, target->unique_id, m->h.reply_serial);
            }
            sbus_server_forward(target, m);
            return;
        }
        if (type == DBUS_MESSAGE_TYPE_METHOD_CALL) {
            snprintf(text, sizeof(text), "The name %s is not owned by any connection",
                     destination);
            sbus_server_reply_error_msg(sender, m, DBUS_ERROR_SERVICE_UNKNOWN, text);
        } else {
            DEBUG(SSSDBG_TRACE_ALL, "Nobody owns %s; message dropped\n", destination);
        }
        return;
    }

    switch (type) {
    case DBUS_MESSAGE_TYPE_SIGNAL:
        sbus_server_broadcast(server, sender, m);
        break;
    case DBUS_MESSAGE_TYPE_METHOD_CALL:
        sbus_server_reply_error_msg(sender, m, DBUS_ERROR_SERVICE_UNKNOWN,
                                    "Method calls on this bus need a destination");
        break;
    default:
        DEBUG(SSSDBG_MINOR_FAILURE, "A reply without destination from %s dropped\n",
              sender->unique->name);
        break;
    }
}

errno_t sbus_server_name_pid(struct sbus_server *server, const char *name, pid_t *_pid)
{
    struct sbus_peer *peer;

    SSS_CHECK_ARG(server != NULL, EINVAL);
    SSS_CHECK_ARG(name != NULL, EINVAL);
    SSS_CHECK_ARG(_pid != NULL, EINVAL);

    peer = sbus_server_name_owner(server, name);
    if (peer == NULL || peer->disconnected) {
        return ENOENT;
    }
    if (peer->pid <= 0) {
        return EIO;
    }
    *_pid = peer->pid;
    return EOK;
}
