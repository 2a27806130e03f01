/* libsss_nss_idmap's _timeout calls against a responder thread of the test that answers
 * the version handshake and then never the request (a stuck sssd_nss): each call ends with
 * ETIME after about its timeout, not after the socket timeout of every step (set to 5 s
 * here; 300 s in a real build), and the plain call still waits for the socket timeout.
 * IPA's directory plugin relies on that bound not to block its server threads. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "sss_client/sss_cli.h"
#include "sss_client/sss_cli_client.h"
#define IPA_389DS_PLUGIN_HELPER_CALLS 1
#include "sss_client/idmap/sss_nss_idmap.h"

#define SOCKET_TIMEOUT_MS 5000

static struct {
    char dir[64];
    int lfd;
    int wake[2];
    pthread_t thr;
} srv;

/* A new connection: the version handshake the client starts with. */
static void handshake(int fd)
{
    uint32_t req[5];
    uint32_t reply[5];

    if (recv(fd, req, sizeof(req), MSG_WAITALL) != (ssize_t)sizeof(req)
            || req[1] != SSS_GET_VERSION) {
        return;
    }
    reply[0] = sizeof(reply);
    reply[1] = SSS_GET_VERSION;
    reply[2] = 0;
    reply[3] = 0;
    reply[4] = SSS_NSS_PROTOCOL_VERSION;
    (void)send(fd, reply, sizeof(reply), MSG_NOSIGNAL);
}

static void *server_main(void *arg)
{
    struct pollfd pfd[8];
    char scratch[512];
    nfds_t n = 2;
    nfds_t i;

    (void)arg;
    pfd[0] = (struct pollfd){ .fd = srv.wake[0], .events = POLLIN };
    pfd[1] = (struct pollfd){ .fd = srv.lfd, .events = POLLIN };
    for (;;) {
        if (poll(pfd, n, -1) < 0 || (pfd[0].revents & POLLIN) != 0) {
            break;
        }
        if ((pfd[1].revents & POLLIN) != 0 && n < 8) {
            pfd[n] = (struct pollfd){ .fd = accept(srv.lfd, NULL, NULL), .events = POLLIN };
            if (pfd[n].fd >= 0) {
                handshake(pfd[n].fd);
                n++;
            }
        }
        /* Requests are read and never answered; a closed connection is dropped. */
        for (i = 2; i < n; i++) {
            if ((pfd[i].revents & (POLLIN | POLLHUP)) != 0
                    && recv(pfd[i].fd, scratch, sizeof(scratch), MSG_DONTWAIT) == 0) {
                close(pfd[i].fd);
                pfd[i--] = pfd[--n];
            }
        }
    }
    for (i = 2; i < n; i++) {
        close(pfd[i].fd);
    }
    return NULL;
}

static int setup(void **state)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };

    (void)state;
    snprintf(srv.dir, sizeof(srv.dir), "/tmp/nss_idmap_XXXXXX");
    assert_non_null(mkdtemp(srv.dir));
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/nss", srv.dir);
    srv.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(srv.lfd >= 0);
    assert_int_equal(bind(srv.lfd, (struct sockaddr *)&addr, sizeof(addr)), 0);
    assert_int_equal(chmod(addr.sun_path, 0666), 0);   /* what sssd_nss gives it */
    assert_int_equal(listen(srv.lfd, 8), 0);
    assert_int_equal(pipe(srv.wake), 0);
    assert_int_equal(pthread_create(&srv.thr, NULL, server_main, NULL), 0);
    sss_cli_set_socket_dir(srv.dir);
    sss_cli_set_timeout_ms(SOCKET_TIMEOUT_MS);
    return 0;
}

static int teardown(void **state)
{
    char path[128];

    (void)state;
    assert_int_equal(write(srv.wake[1], "x", 1), 1);
    pthread_join(srv.thr, NULL);
    close(srv.wake[0]);
    close(srv.wake[1]);
    close(srv.lfd);
    snprintf(path, sizeof(path), "%s/nss", srv.dir);
    unlink(path);
    rmdir(srv.dir);
    return 0;
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_timeout_bounds_the_call(void **state)
{
    char *sid = NULL;
    enum sss_id_type type;
    uint32_t id;
    int64_t t0;
    int64_t took;

    (void)state;
    t0 = now_ms();
    assert_int_equal(sss_nss_getsidbyname_timeout("alice", 300, &sid, &type), ETIME);
    took = now_ms() - t0;
    assert_true(took >= 250 && took < 2000);
    /* The connection was dropped (a reply half-read is never taken for the next one):
     * the next call connects again, within its own bound. */
    t0 = now_ms();
    assert_int_equal(sss_nss_getidbysid_timeout("S-1-5-21-1-2-3-1000", 200, &id, &type),
                     ETIME);
    took = now_ms() - t0;
    assert_true(took >= 150 && took < 2000);
}

/* The plain call is not bounded by the last _timeout call's value. */
static void test_plain_call_unbounded(void **state)
{
    char *sid = NULL;
    enum sss_id_type type;
    int64_t t0;

    (void)state;
    assert_int_equal(sss_nss_getsidbyuid_timeout(1000, 100, &sid, &type), ETIME);
    t0 = now_ms();
    assert_int_equal(sss_nss_getsidbyuid(1000, &sid, &type), ETIME);
    assert_true(now_ms() - t0 >= SOCKET_TIMEOUT_MS - 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_timeout_bounds_the_call, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plain_call_unbounded, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
