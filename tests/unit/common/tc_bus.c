/* The in-process bus fixture of tc_bus.h: connections (the server is tc_bus_server.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/util.h"
#include "tests/unit/common/tc_common.h"
#include "tests/unit/common/tc_bus.h"

struct sbus_connection *tc_bus_connect(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct sbus_server *server, const char *name)
{
    struct sbus_connection *conn = NULL;
    struct tevent_req *req;

    req = sbus_connect_send(mem_ctx, ev, sbus_server_get_address(server), name);
    tc_wait_req(ev, req);
    assert_int_equal(sbus_connect_recv(mem_ctx, req, &conn), EOK);
    talloc_free(req);
    return conn;
}
