/*
 * The in-process bus fixture: a master bus server on a socket in a test's directory, and
 * connections to it under well-known names, all driven by the test's own tevent loop.
 */
#ifndef TC_BUS_H
#define TC_BUS_H

#include "sbus/sbus.h"
#include "sbus/sbus_server.h"

/* A master server listening on <dir>/bus, allowing this process's uid; on mem_ctx
 * (tc_bus_server.c, like the fixture below: a test of the server links them alone). */
struct sbus_server *tc_bus_server(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                  const char *dir);

/* The set-up of a test of the server itself: a loop, a fresh temporary directory and a
 * server on its socket. mem holds only the server, so that the end can check the server
 * left nothing behind. */
struct tc_bus_fixture {
    TALLOC_CTX *mem;
    struct tevent_context *ev;
    char *dir;
    char *socket_path;          /* <dir>/bus */
    struct sbus_server *server;
};

/* Fills f, its strings and loop on mem_ctx: a directory named after test, a server
 * allowing allowed_uid (tc_bus_fixture_restart). Fails the test on error. */
void tc_bus_fixture_start(TALLOC_CTX *mem_ctx, struct tc_bus_fixture *f, const char *test,
                          uid_t allowed_uid);
/* Replaces f's server with one allowing allowed_uid; the error of sbus_server_create. */
errno_t tc_bus_fixture_restart(struct tc_bus_fixture *f, uid_t allowed_uid);
/* Frees the server and checks that it left nothing in f->mem and removed its socket;
 * removes the directory. */
void tc_bus_fixture_stop(struct tc_bus_fixture *f);

/* A connection to server that owns `name` once this returns; on mem_ctx. */
struct sbus_connection *tc_bus_connect(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct sbus_server *server, const char *name);

#endif /* TC_BUS_H */
