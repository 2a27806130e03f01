/*
 * The server side of the bus fixture (tc_bus.h): a master server on a socket in a test's
 * directory, and the set-up and end of a test of the server itself. Apart from tc_bus.c so
 * that a test that builds the server from its sources links this without the client.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/util.h"
#include "tests/unit/common/tc_common.h"
#include "tests/unit/common/tc_bus.h"

struct sbus_server *tc_bus_server(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                  const char *dir)
{
    struct sbus_server *server = NULL;
    char *path = talloc_asprintf(mem_ctx, "%s/bus", dir);

    assert_non_null(path);
    assert_int_equal(sbus_server_create(mem_ctx, ev, path, geteuid(), &server), EOK);
    talloc_free(path);
    return server;
}

void tc_bus_fixture_start(TALLOC_CTX *mem_ctx, struct tc_bus_fixture *f, const char *test,
                          uid_t allowed_uid)
{
    *f = (struct tc_bus_fixture){ 0 };
    f->mem = talloc_new(NULL);
    f->ev = tevent_context_init(mem_ctx);
    assert_non_null(f->mem);
    assert_non_null(f->ev);
    f->dir = tc_tmpdir(mem_ctx, test);
    f->socket_path = talloc_asprintf(mem_ctx, "%s/bus", f->dir);
    assert_non_null(f->socket_path);
    assert_int_equal(tc_bus_fixture_restart(f, allowed_uid), EOK);
}

errno_t tc_bus_fixture_restart(struct tc_bus_fixture *f, uid_t allowed_uid)
{
    talloc_zfree(f->server);
    return sbus_server_create(f->mem, f->ev, f->socket_path, allowed_uid, &f->server);
}

void tc_bus_fixture_stop(struct tc_bus_fixture *f)
{
    struct stat st;

    talloc_zfree(f->server);
    assert_int_equal(talloc_total_blocks(f->mem), 1);
    assert_int_equal(stat(f->socket_path, &st), -1);
    assert_int_equal(errno, ENOENT);
    tc_tmpdir_remove(f->dir);
    talloc_zfree(f->mem);
}
