/*
 * The org.freedesktop.DBus interface the master bus answers itself (any object path, like
 * dbus-daemon): Hello, RequestName, ReleaseName, NameHasOwner, ListNames,
 * ListActivatableNames, GetNameOwner, GetConnectionUnixUser, GetConnectionUnixProcessID,
 * AddMatch, RemoveMatch, GetId, plus org.freedesktop.DBus.Introspectable.Introspect and
 * org.freedesktop.DBus.Peer.Ping. One table maps interface.member and input signature to
 * a handler; each handler sends exactly one reply (unless the caller wants none) and then
 * the signals its change implies. Names are never queued: a taken name answers "exists".
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "sbus/sbus_server_private.h"

static const char sbus_server_introspection[] =
    DBUS_INTROSPECT_1_0_XML_DOCTYPE_DECL_NODE
    "<node>\n"
    "  <interface name=\"org.freedesktop.DBus\">\n"
    "    <method name=\"Hello\"><arg direction=\"out\" type=\"s\"/></method>\n"
    "    <method name=\"RequestName\"><arg direction=\"in\" type=\"s\"/>"
    "<arg direction=\"in\" type=\"u\"/><arg direction=\"out\" type=\"u\"/></method>\n"
    "    <method name=\"ReleaseName\"><arg direction=\"in\" type=\"s\"/>"
    "<arg direction=\"out\" type=\"u\"/></method>\n"
    "    <method name=\"NameHasOwner\"><arg direction=\"in\" type=\"s\"/>"
    "<arg direction=\"out\" type=\"b\"/></method>\n"
    "    <method name=\"ListNames\"><arg direction=\"out\" type=\"as\"/></method>\n"
    "    <method name=\"ListActivatableNames\"><arg direction=\"out\" type=\"as\"/></method>\n"
    "    <method name=\"GetNameOwner\"><arg direction=\"in\" type=\"s\"/>"
    "<arg direction=\"out\" type=\"s\"/></method>\n"
    "    <method name=\"GetConnectionUnixUser\"><arg direction=\"in\" type=\"s\"/>"
    "<arg direction=\"out\" type=\"u\"/></method>\n"
    "    <method name=\"GetConnectionUnixProcessID\"><arg direction=\"in\" type=\"s\"/>"
    "<arg direction=\"out\" type=\"u\"/></method>\n"
    "    <method name=\"AddMatch\"><arg direction=\"in\" type=\"s\"/></method>\n"
    "    <method name=\"RemoveMatch\"><arg direction=\"in\" type=\"s\"/></method>\n"
    "    <method name=\"GetId\"><arg direction=\"out\" type=\"s\"/></method>\n"
    "    <signal name=\"NameOwnerChanged\"><arg type=\"s\"/><arg type=\"s\"/>"
    "<arg type=\"s\"/></signal>\n"
    "    <signal name=\"NameLost\"><arg type=\"s\"/></signal>\n"
    "    <signal name=\"NameAcquired\"><arg type=\"s\"/></signal>\n"
    "  </interface>\n"
    "  <interface name=\"org.freedesktop.DBus.Introspectable\">\n"
    "    <method name=\"Introspect\"><arg direction=\"out\" type=\"s\"/></method>\n"
    "  </interface>\n"
    "  <interface name=\"org.freedesktop.DBus.Peer\">\n"
    "    <method name=\"Ping\"/>\n"
    "  </interface>\n"
    "</node>\n";

/* -------- replies -------- */

/* Sends reply (consumed) from the bus unless msg asked for none. */
static void sbus_server_send_reply(struct sbus_peer *peer, DBusMessage *msg,
                                   DBusMessage *reply)
{
    if (reply == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory building a bus reply\n");
        return;
    }
    if (!dbus_message_get_no_reply(msg)) {
        if (dbus_message_set_sender(reply, DBUS_SERVICE_DBUS)) {
            sbus_server_send_dbus(peer, reply);
        } else {
            DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory building a bus reply\n");
        }
    }
    dbus_message_unref(reply);
}

void sbus_server_reply_error(struct sbus_peer *peer, DBusMessage *msg,
                             const char *name, const char *text)
{
    DEBUG(SSSDBG_TRACE_ALL, "Bus error reply %s: %s\n", name, text);
    if (dbus_message_get_no_reply(msg)) {
        return;
    }
    sbus_server_send_reply(peer, msg, dbus_message_new_error(msg, name, text));
}

/* A method return carrying the arguments given like dbus_message_append_args(). */
static void sbus_server_reply_args(struct sbus_peer *peer, DBusMessage *msg,
                                   int first_type, ...)
{
    DBusMessage *reply;
    va_list ap;
    dbus_bool_t ok;

    reply = dbus_message_new_method_return(msg);
    if (reply != NULL && first_type != DBUS_TYPE_INVALID) {
        va_start(ap, first_type);
        ok = dbus_message_append_args_valist(reply, first_type, ap);
        va_end(ap);
        if (!ok) {
            dbus_message_unref(reply);
            reply = NULL;
        }
    }
    sbus_server_send_reply(peer, msg, reply);
}

static void sbus_server_reply_oom(struct sbus_peer *peer, DBusMessage *msg)
{
    sbus_server_reply_error(peer, msg, DBUS_ERROR_NO_MEMORY, "Out of memory");
}

/* -------- arguments -------- */

/* The single string argument of msg, after checking it is a valid bus name. */
static const char *sbus_server_name_arg(struct sbus_peer *peer, DBusMessage *msg)
{
    const char *name = NULL;
    char text[DBUS_MAXIMUM_NAME_LENGTH + 64];

    if (!dbus_message_get_args(msg, NULL, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID)) {
        sbus_server_reply_error(peer, msg, DBUS_ERROR_INVALID_ARGS, "Expected a bus name");
        return NULL;
    }
    if (!dbus_validate_bus_name(name, NULL)) {
        snprintf(text, sizeof(text), "'%.255s' is not a valid bus name", name);
        sbus_server_reply_error(peer, msg, DBUS_ERROR_INVALID_ARGS, text);
        return NULL;
    }
    return name;
}

/* Unique names and the bus's own name space cannot be requested or released. */
static bool sbus_server_name_reserved(const char *name)
{
    return name[0] == ':' || strncmp(name, DBUS_SERVICE_DBUS, strlen(DBUS_SERVICE_DBUS)) == 0;
}

/* -------- org.freedesktop.DBus -------- */

static void sbus_server_hello(struct sbus_peer *peer, DBusMessage *msg)
{
    const char *name;
    errno_t ret;

    ret = sbus_server_assign_unique(peer);
    if (ret == EEXIST) {
        sbus_server_reply_error(peer, msg, DBUS_ERROR_FAILED,
                                "Already handled an Hello message");
        return;
    }
    if (ret != EOK) {
        sbus_server_reply_oom(peer, msg);
        return;
    }
    name = peer->unique->name;
    /* The reply goes to the name just given. */
    if (!dbus_message_set_sender(msg, name)) {
        sbus_server_reply_oom(peer, msg);
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Bus peer registered as %s\n", name);

    sbus_server_reply_args(peer, msg, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
    sbus_server_emit(peer->server, NULL, "NameOwnerChanged", name, "", name);
    sbus_server_emit(peer->server, peer, "NameAcquired", name, NULL, NULL);
}

static void sbus_server_request_name(struct sbus_peer *peer, DBusMessage *msg)
{
    const char *name = NULL;
    const char *unique = peer->unique->name;
    dbus_uint32_t flags = 0;
    dbus_uint32_t result;
    char text[DBUS_MAXIMUM_NAME_LENGTH + 64];
    errno_t ret;

    if (!dbus_message_get_args(msg, NULL, DBUS_TYPE_STRING, &name, DBUS_TYPE_UINT32, &flags,
                               DBUS_TYPE_INVALID)) {
        sbus_server_reply_error(peer, msg, DBUS_ERROR_INVALID_ARGS, "Expected (su)");
        return;
    }
    if (!dbus_validate_bus_name(name, NULL) || sbus_server_name_reserved(name)) {
        snprintf(text, sizeof(text), "The name '%.255s' cannot be requested", name);
        sbus_server_reply_error(peer, msg, DBUS_ERROR_INVALID_ARGS, text);
        return;
    }

    /* flags are ignored: there is no queue and no replacement on this bus. */
    ret = sbus_server_acquire_name(peer, name);
    switch (ret) {
    case EOK:
        DEBUG(SSSDBG_TRACE_FUNC, "%s now owns %s\n", unique, name);
        result = DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER;
        sbus_server_reply_args(peer, msg, DBUS_TYPE_UINT32, &result, DBUS_TYPE_INVALID);
        sbus_server_emit(peer->server, NULL, "NameOwnerChanged", name, "", unique);
        sbus_server_emit(peer->server, peer, "NameAcquired", name, NULL, NULL);
        break;
    case EALREADY:
        result = DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER;
        sbus_server_reply_args(peer, msg, DBUS_TYPE_UINT32, &result, DBUS_TYPE_INVALID);
        break;
    case EEXIST:
        DEBUG(SSSDBG_MINOR_FAILURE, "%s requested %s, which is taken\n", unique, name);
        result = DBUS_REQUEST_NAME_REPLY_EXISTS;
        sbus_server_reply_args(peer, msg, DBUS_TYPE_UINT32, &result, DBUS_TYPE_INVALID);
        break;
    default:
        sbus_server_reply_oom(peer, msg);
        break;
    }
}

static void sbus_server_release_name_call(struct sbus_peer *peer, DBusMessage *msg)
{
    const char *unique = peer->unique->name;
    const char *name;
    dbus_uint32_t result;
    char text[DBUS_MAXIMUM_NAME_LENGTH + 64];
    errno_t ret;

    name = sbus_server_name_arg(peer, msg);
    if (name == NULL) {
        return;
    }
    if (sbus_server_name_reserved(name)) {
        snprintf(text, sizeof(text), "The name '%.255s' cannot be released", name);
        sbus_server_reply_error(peer, msg, DBUS_ERROR_INVALID_ARGS, text);
        return;
    }

    ret = sbus_server_release_name(peer, name);
    switch (ret) {
    case EOK:
        DEBUG(SSSDBG_TRACE_FUNC, "%s released %s\n", unique, name);
        result = DBUS_RELEASE_NAME_REPLY_RELEASED;
        sbus_server_reply_args(peer, msg, DBUS_TYPE_UINT32, &result, DBUS_TYPE_INVALID);
        sbus_server_emit(peer->server, NULL, "NameOwnerChanged", name, unique, "");
        sbus_server_emit(peer->server, peer, "NameLost", name, NULL, NULL);
        break;
    case ENOENT:
        result = DBUS_RELEASE_NAME_REPLY_NON_EXISTENT;
        sbus_server_reply_args(peer, msg, DBUS_TYPE_UINT32, &result, DBUS_TYPE_INVALID);
        break;
    default:
        result = DBUS_RELEASE_NAME_REPLY_NOT_OWNER;
        sbus_server_reply_args(peer, msg, DBUS_TYPE_UINT32, &result, DBUS_TYPE_INVALID);
        break;
    }
}

static void sbus_server_name_has_owner(struct sbus_peer *peer, DBusMessage *msg)
{
    const char *name;
    dbus_bool_t has;

    name = sbus_server_name_arg(peer, msg);
    if (name == NULL) {
        return;
    }
    has = strcmp(name, DBUS_SERVICE_DBUS) == 0
          || sbus_server_name_owner(peer->server, name) != NULL;
    sbus_server_reply_args(peer, msg, DBUS_TYPE_BOOLEAN, &has, DBUS_TYPE_INVALID);
}

static bool sbus_server_append_name(DBusMessageIter *array, const char *name)
{
    return dbus_message_iter_append_basic(array, DBUS_TYPE_STRING, &name);
}

/* peer's unique name, then its well-known names. */
static bool sbus_server_append_peer_names(DBusMessageIter *array, struct sbus_peer *peer)
{
    struct sbus_server_name *n;

    if (!sbus_server_append_name(array, peer->unique->name)) {
        return false;
    }
    sss_list_for_each_entry(n, &peer->names, link) {
        if (!sbus_server_append_name(array, n->name)) {
            return false;
        }
    }
    return true;
}

/* org.freedesktop.DBus first, then each registered peer's unique and well-known names,
 * oldest peer first (server->peers is kept in order of arrival). */
static void sbus_server_list_names(struct sbus_peer *peer, DBusMessage *msg)
{
    struct sbus_peer *p;
    DBusMessageIter iter;
    DBusMessageIter array;
    DBusMessage *reply;
    bool ok;

    reply = dbus_message_new_method_return(msg);
    if (reply == NULL) {
        sbus_server_reply_oom(peer, msg);
        return;
    }
    dbus_message_iter_init_append(reply, &iter);
    if (!dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, DBUS_TYPE_STRING_AS_STRING,
                                          &array)) {
        dbus_message_unref(reply);
        sbus_server_reply_oom(peer, msg);
        return;
    }

    ok = sbus_server_append_name(&array, DBUS_SERVICE_DBUS);
    sss_list_for_each_entry(p, &peer->server->peers, link) {
        if (ok && !p->disconnected && p->unique != NULL) {
            ok = sbus_server_append_peer_names(&array, p);
        }
    }
    if (!ok) {
        dbus_message_iter_abandon_container(&iter, &array);
        dbus_message_unref(reply);
        sbus_server_reply_oom(peer, msg);
        return;
    }
    if (!dbus_message_iter_close_container(&iter, &array)) {
        dbus_message_unref(reply);
        sbus_server_reply_oom(peer, msg);
        return;
    }
    sbus_server_send_reply(peer, msg, reply);
}

/* Nothing is activatable here; only the bus itself is listed, as dbus-daemon does. */
static void sbus_server_list_activatable(struct sbus_peer *peer, DBusMessage *msg)
{
    const char *names[] = { DBUS_SERVICE_DBUS };
    const char **list = names;

    sbus_server_reply_args(peer, msg, DBUS_TYPE_ARRAY, DBUS_TYPE_STRING, &list, 1,
                           DBUS_TYPE_INVALID);
}

/* The owner of the name argument, or NULL after replying NameHasNoOwner (or an argument
 * error). *_self is set when the name is the bus's own. */
static struct sbus_peer *sbus_server_owner_arg(struct sbus_peer *peer, DBusMessage *msg,
                                               bool *_self)
{
    struct sbus_peer *owner;
    const char *name;
    char text[DBUS_MAXIMUM_NAME_LENGTH + 64];

    *_self = false;
    name = sbus_server_name_arg(peer, msg);
    if (name == NULL) {
        return NULL;
    }
    if (strcmp(name, DBUS_SERVICE_DBUS) == 0) {
        *_self = true;
        return NULL;
    }
    owner = sbus_server_name_owner(peer->server, name);
    if (owner == NULL) {
        snprintf(text, sizeof(text), "Could not get owner of name '%s': no such name", name);
        sbus_server_reply_error(peer, msg, DBUS_ERROR_NAME_HAS_NO_OWNER, text);
    }
    return owner;
}

static void sbus_server_get_name_owner(struct sbus_peer *peer, DBusMessage *msg)
{
    struct sbus_peer *owner;
    const char *unique = DBUS_SERVICE_DBUS;
    bool self;

    owner = sbus_server_owner_arg(peer, msg, &self);
    if (owner == NULL && !self) {
        return;
    }
    if (owner != NULL) {
        unique = owner->unique->name;
    }
    sbus_server_reply_args(peer, msg, DBUS_TYPE_STRING, &unique, DBUS_TYPE_INVALID);
}

/* GetConnectionUnixUser (pid false) and GetConnectionUnixProcessID (pid true): the uid or
 * pid of the name's owner, or of the bus itself. */
static void sbus_server_get_owner_id(struct sbus_peer *peer, DBusMessage *msg, bool pid)
{
    struct sbus_peer *owner;
    unsigned long id = 0;
    dbus_uint32_t result;
    dbus_bool_t known = TRUE;
    bool self;

    owner = sbus_server_owner_arg(peer, msg, &self);
    if (owner == NULL && !self) {
        return;
    }
    if (self) {
        id = pid ? (unsigned long)getpid() : (unsigned long)getuid();
    } else if (pid) {
        id = (unsigned long)owner->pid;
        known = owner->pid > 0;
    } else {
        id = (unsigned long)owner->uid;
    }
    if (!known) {
        sbus_server_reply_error(peer, msg,
                                pid ? DBUS_ERROR_UNIX_PROCESS_ID_UNKNOWN : DBUS_ERROR_FAILED,
                                pid ? "Could not determine the connection's process id"
                                    : "Could not determine the connection's uid");
        return;
    }
    result = (dbus_uint32_t)id;
    sbus_server_reply_args(peer, msg, DBUS_TYPE_UINT32, &result, DBUS_TYPE_INVALID);
}

static void sbus_server_get_unix_user(struct sbus_peer *peer, DBusMessage *msg)
{
    sbus_server_get_owner_id(peer, msg, false);
}

static void sbus_server_get_unix_pid(struct sbus_peer *peer, DBusMessage *msg)
{
    sbus_server_get_owner_id(peer, msg, true);
}

/* Parses the rule argument; NULL after replying an error. */
static struct sbus_match_rule *sbus_server_rule_arg(TALLOC_CTX *mem_ctx,
                                                    struct sbus_peer *peer, DBusMessage *msg)
{
    struct sbus_match_rule *rule;
    const char *text = NULL;
    errno_t ret;

    if (!dbus_message_get_args(msg, NULL, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID)) {
        sbus_server_reply_error(peer, msg, DBUS_ERROR_INVALID_ARGS, "Expected a match rule");
        return NULL;
    }
    ret = sbus_match_rule_parse(mem_ctx, text, &rule);
    if (ret == ENOMEM) {
        sbus_server_reply_oom(peer, msg);
        return NULL;
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_MINOR_FAILURE, "%s sent an invalid match rule \"%.1100s\"\n",
              peer->unique->name, text);
        sbus_server_reply_error(peer, msg, DBUS_ERROR_MATCH_RULE_INVALID,
                                "Invalid match rule");
        return NULL;
    }
    return rule;
}

static void sbus_server_add_match_call(struct sbus_peer *peer, DBusMessage *msg)
{
    struct sbus_match_rule *rule;
    errno_t ret;

    rule = sbus_server_rule_arg(peer, peer, msg);
    if (rule == NULL) {
        return;
    }
    ret = sbus_server_add_match(peer, rule);
    if (ret == E2BIG) {
        talloc_free(rule);
        sbus_server_reply_error(peer, msg, DBUS_ERROR_LIMITS_EXCEEDED,
                                "Connection has too many match rules");
        return;
    }
    if (ret != EOK) {
        talloc_free(rule);
        sbus_server_reply_oom(peer, msg);
        return;
    }
    sbus_server_reply_args(peer, msg, DBUS_TYPE_INVALID);
}

static void sbus_server_remove_match_call(struct sbus_peer *peer, DBusMessage *msg)
{
    struct sbus_match_rule *rule;
    errno_t ret;

    rule = sbus_server_rule_arg(peer, peer, msg);
    if (rule == NULL) {
        return;
    }
    ret = sbus_server_remove_match(peer, rule);
    talloc_free(rule);
    if (ret != EOK) {
        sbus_server_reply_error(peer, msg, DBUS_ERROR_MATCH_RULE_NOT_FOUND,
                                "The given match rule wasn't found and can't be removed");
        return;
    }
    sbus_server_reply_args(peer, msg, DBUS_TYPE_INVALID);
}

static void sbus_server_get_id(struct sbus_peer *peer, DBusMessage *msg)
{
    const char *id = peer->server->id;

    sbus_server_reply_args(peer, msg, DBUS_TYPE_STRING, &id, DBUS_TYPE_INVALID);
}

static void sbus_server_introspect(struct sbus_peer *peer, DBusMessage *msg)
{
    const char *xml = sbus_server_introspection;

    sbus_server_reply_args(peer, msg, DBUS_TYPE_STRING, &xml, DBUS_TYPE_INVALID);
}

static void sbus_server_ping(struct sbus_peer *peer, DBusMessage *msg)
{
    sbus_server_reply_args(peer, msg, DBUS_TYPE_INVALID);
}

/* -------- dispatch -------- */

typedef void (*sbus_server_method_fn)(struct sbus_peer *peer, DBusMessage *msg);

static const struct sbus_server_method {
    const char *interface;
    const char *member;
    const char *signature;      /* of the input arguments */
    sbus_server_method_fn fn;
} sbus_server_methods[] = {
    { DBUS_INTERFACE_DBUS, "Hello",                      "",   sbus_server_hello },
    { DBUS_INTERFACE_DBUS, "RequestName",                "su", sbus_server_request_name },
    { DBUS_INTERFACE_DBUS, "ReleaseName",                "s",  sbus_server_release_name_call },
    { DBUS_INTERFACE_DBUS, "NameHasOwner",               "s",  sbus_server_name_has_owner },
    { DBUS_INTERFACE_DBUS, "ListNames",                  "",   sbus_server_list_names },
    { DBUS_INTERFACE_DBUS, "ListActivatableNames",       "",   sbus_server_list_activatable },
    { DBUS_INTERFACE_DBUS, "GetNameOwner",               "s",  sbus_server_get_name_owner },
    { DBUS_INTERFACE_DBUS, "GetConnectionUnixUser",      "s",  sbus_server_get_unix_user },
    { DBUS_INTERFACE_DBUS, "GetConnectionUnixProcessID", "s",  sbus_server_get_unix_pid },
    { DBUS_INTERFACE_DBUS, "AddMatch",                   "s",  sbus_server_add_match_call },
    { DBUS_INTERFACE_DBUS, "RemoveMatch",                "s",  sbus_server_remove_match_call },
    { DBUS_INTERFACE_DBUS, "GetId",                      "",   sbus_server_get_id },
    { DBUS_INTERFACE_INTROSPECTABLE, "Introspect",       "",   sbus_server_introspect },
    { DBUS_INTERFACE_PEER, "Ping",                       "",   sbus_server_ping },
};

void sbus_server_bus_message(struct sbus_peer *peer, struct sbus_server_msg *m)
{
    const struct sbus_server_method *method = NULL;
    const char *interface = SBUS_MSG_FIELD(m, interface);
    const char *member = SBUS_MSG_FIELD(m, member);
    bool known_interface = (interface == NULL);
    char text[3 * DBUS_MAXIMUM_NAME_LENGTH];
    DBusMessage *msg;
    size_t i;

    if (m->h.type != DBUS_MESSAGE_TYPE_METHOD_CALL) {
        DEBUG(SSSDBG_TRACE_ALL, "%s sent the bus a %s; dropped\n", peer->unique->name,
              dbus_message_type_to_string(m->h.type));
        return;
    }
    DEBUG(SSSDBG_TRACE_ALL, "Bus method %s.%s from %s\n", interface != NULL ? interface : "",
          member, peer->unique->name);

    /* Without an interface the member alone decides, as dbus-daemon allows. */
    for (i = 0; i < SSS_ARRAY_SIZE(sbus_server_methods); i++) {
        if (interface != NULL && strcmp(interface, sbus_server_methods[i].interface) != 0) {
            continue;
        }
        known_interface = true;
        if (strcmp(member, sbus_server_methods[i].member) == 0) {
            method = &sbus_server_methods[i];
            break;
        }
    }

    if (method == NULL) {
        if (!known_interface) {
            snprintf(text, sizeof(text), "Interface '%s' is not known on the bus", interface);
            sbus_server_reply_error_msg(peer, m, DBUS_ERROR_UNKNOWN_INTERFACE, text);
        } else {
            snprintf(text, sizeof(text), "%s%s%s is not a method of the bus",
                     interface != NULL ? interface : "", interface != NULL ? "." : "",
                     member);
            sbus_server_reply_error_msg(peer, m, DBUS_ERROR_UNKNOWN_METHOD, text);
        }
        return;
    }
    if (!sbus_wire_equal(m->data, m->h.signature, method->signature)
            && !(method->signature[0] == '\0' && m->h.signature.len == 0)) {
        snprintf(text, sizeof(text), "%s takes (%s), not (%s)", member, method->signature,
                 m->h.signature.off != 0 ? SBUS_MSG_FIELD(m, signature) : "");
        sbus_server_reply_error_msg(peer, m, DBUS_ERROR_INVALID_ARGS, text);
        return;
    }
    msg = sbus_server_msg_dbus(m);
    if (msg == NULL) {
        sbus_server_reply_error_msg(peer, m, DBUS_ERROR_NO_MEMORY, "Out of memory");
        return;
    }
    method->fn(peer, msg);
}

void sbus_server_bus_peer_call(struct sbus_peer *peer, struct sbus_server_msg *m)
{
    const char *member = SBUS_MSG_FIELD(m, member);
    DBusMessage *msg = sbus_server_msg_dbus(m);
    char text[DBUS_MAXIMUM_NAME_LENGTH + 64];
    char *id;

    if (msg == NULL) {
        sbus_server_reply_error_msg(peer, m, DBUS_ERROR_NO_MEMORY, "Out of memory");
        return;
    }
    if (strcmp(member, "Ping") == 0) {
        sbus_server_reply_args(peer, msg, DBUS_TYPE_INVALID);
    } else if (strcmp(member, "GetMachineId") == 0) {
        id = dbus_try_get_local_machine_id(NULL);
        if (id == NULL) {
            sbus_server_reply_error_msg(peer, m, DBUS_ERROR_FAILED,
                                        "Cannot read the machine id");
            return;
        }
        sbus_server_reply_args(peer, msg, DBUS_TYPE_STRING, &id, DBUS_TYPE_INVALID);
        dbus_free(id);
    } else {
        snprintf(text, sizeof(text), "Unknown method '%s' on interface '%s'", member,
                 DBUS_INTERFACE_PEER);
        sbus_server_reply_error_msg(peer, m, DBUS_ERROR_UNKNOWN_METHOD, text);
    }
}

bool sbus_server_bus_unregistered(struct sbus_peer *peer, struct sbus_server_msg *m)
{
    const char *name;
    DBusMessage *msg;
    errno_t ret;

    if (m->h.type == DBUS_MESSAGE_TYPE_METHOD_CALL
            && sbus_wire_equal(m->data, m->h.destination, DBUS_SERVICE_DBUS)
            && sbus_wire_equal(m->data, m->h.interface, DBUS_INTERFACE_DBUS)
            && sbus_wire_equal(m->data, m->h.member, "Hello")) {
        msg = sbus_server_msg_dbus(m);
        if (msg == NULL) {
            sbus_server_reply_error_msg(peer, m, DBUS_ERROR_NO_MEMORY, "Out of memory");
            return true;
        }
        sbus_server_hello(peer, msg);
        return true;
    }
    /* Stock tools in peer mode (dbus-send --address= or --peer=) never say Hello. Only root
     * or our own uid get this far, so such a peer is registered on its first message and
     * that message is handled as usual; dbus-daemon would close it instead. */
    ret = sbus_server_assign_unique(peer);
    if (ret != EOK) {
        sbus_server_reply_error_msg(peer, m, DBUS_ERROR_NO_MEMORY, "Out of memory");
        return true;
    }
    name = peer->unique->name;
    DEBUG(SSSDBG_TRACE_FUNC, "Bus peer sent %s.%s without Hello; registered it as %s\n",
          m->h.interface.off != 0 ? SBUS_MSG_FIELD(m, interface) : "",
          m->h.member.off != 0 ? SBUS_MSG_FIELD(m, member) : "", name);
    sbus_server_emit(peer->server, NULL, "NameOwnerChanged", name, "", name);
    return false;
}
