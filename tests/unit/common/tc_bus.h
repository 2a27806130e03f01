/*
 * The in-process bus fixture: a master bus server on a socket in a test's directory, and
 * connections to it under well-known names, all driven by the test's own tevent loop.
 */
#ifndef TC_BUS_H
#define TC_BUS_H

#include "sbus/sbus.h"
#include "sbus/sbus_server.h"

/* A master server listening on <dir>/bus, allowing this process's uid; on mem_ctx. */
struct sbus_server *tc_bus_server(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                  const char *dir);

/* A connection to server that owns `name` once this returns; on mem_ctx. */
struct sbus_connection *tc_bus_connect(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct sbus_server *server, const char *name);

#endif /* TC_BUS_H */
