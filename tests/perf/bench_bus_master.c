/*
 * Our master bus alone, for bench_bus.sh: the sbus server of src/sbus on a tevent loop, set
 * up as the monitor sets it up (sbus_server_create() on a unix socket, peers of our own uid
 * allowed), without the rest of the monitor. Prints "ready" once it listens; SIGTERM or
 * SIGINT ends it.
 *
 * Usage: bench_bus_master SOCKET_PATH [DEBUG_LEVEL]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/util.h"
#include "sbus/sbus_server.h"

static void master_stop(struct tevent_context *ev, struct tevent_signal *se, int signum,
                        int count, void *siginfo, void *data)
{
    bool *done = data;

    *done = true;
}

int main(int argc, char **argv)
{
    TALLOC_CTX *mem;
    struct tevent_context *ev;
    struct sbus_server *server;
    bool done = false;
    int level = argc > 2 ? atoi(argv[2]) : 0;
    errno_t ret;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_bus_master SOCKET_PATH [DEBUG_LEVEL]\n");
        return 2;
    }
    ret = debug_init("bench_bus_master", debug_convert_level(level), SSS_LOGGER_STDERR, NULL);
    if (ret != EOK) {
        fprintf(stderr, "bench_bus_master: cannot set up logging\n");
        return 1;
    }
    mem = talloc_new(NULL);
    ev = mem != NULL ? tevent_context_init(mem) : NULL;
    if (ev == NULL
        || tevent_add_signal(ev, mem, SIGTERM, 0, master_stop, &done) == NULL
        || tevent_add_signal(ev, mem, SIGINT, 0, master_stop, &done) == NULL) {
        fprintf(stderr, "bench_bus_master: out of memory\n");
        return 1;
    }
    ret = sbus_server_create(mem, ev, argv[1], geteuid(), &server);
    if (ret != EOK) {
        fprintf(stderr, "bench_bus_master: cannot start the bus: %s\n", sss_strerror(ret));
        return 1;
    }
    printf("ready %s\n", sbus_server_get_address(server));
    fflush(stdout);

    while (!done) {
        if (tevent_loop_once(ev) != 0) {
            break;
        }
    }
    talloc_free(mem);   /* frees the server: closes every peer, removes the socket */
    return 0;
}
