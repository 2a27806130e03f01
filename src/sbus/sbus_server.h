/*
 * The master bus: the one D-Bus server of the suite, owned by the monitor. It plays the bus
 * daemon for its peers (PROTOCOL.md "The bus"): answers org.freedesktop.DBus at
 * /org/freedesktop/DBus, hands out unique names, keeps well-known names, rewrites each
 * message's sender, routes method calls and replies by destination (unknown name:
 * org.freedesktop.DBus.Error.ServiceUnknown), and delivers signals to every connection whose
 * match rules accept them, never back to the sender. It emits NameOwnerChanged, NameAcquired
 * and NameLost. Peers authenticate with EXTERNAL; only uid 0 and the allowed uid get in.
 */
#ifndef SBUS_SERVER_H
#define SBUS_SERVER_H

#include <sys/types.h>
#include <talloc.h>
#include <tevent.h>

#include "util/sss_errors.h"

struct sbus_server;

/*
 * Listens on the unix socket socket_path (a stale socket there is replaced; the socket is
 * made mode 0600). Only peers of uid 0 or allowed_uid are accepted. Freeing the server
 * closes every connection and unlinks the socket.
 * Errors: EINVAL, ENOMEM, EIO (cannot bind or listen there), or an errno from the file
 * system.
 */
errno_t sbus_server_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                           const char *socket_path, uid_t allowed_uid,
                           struct sbus_server **_server);

/* "unix:path=<socket_path>" of this server. */
const char *sbus_server_get_address(struct sbus_server *server);

/* The process id of the peer that owns name (unique or well-known) now.
 * Errors: ENOENT (nobody owns it), EIO (the peer's pid is unknown). */
errno_t sbus_server_name_pid(struct sbus_server *server, const char *name, pid_t *_pid);

/* How many peers are connected now. */
unsigned int sbus_server_connection_count(struct sbus_server *server);

#endif /* SBUS_SERVER_H */
