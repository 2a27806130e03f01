/* libnss_sss's socket client against a small responder running in a thread of the test (it
 * tests the client's framing, not sssd_nss): version handshake, lookups and their replies,
 * not found, ERANGE and retry, enumeration with an ERANGE in the middle, initgroups, a
 * dropped connection retried once, malformed replies, timeouts, no daemon, _SSS_LOOPS=NO,
 * fork (also while another thread is mid-lookup), 8 threads x 1000 lookups on a connection
 * each, a slow lookup holding up no other thread, and the socket file's owner, type and
 * mode checked. */
#include <errno.h>
#include <fcntl.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "sss_client/sss_cli.h"
#include "sss_client/sss_cli_client.h"
#include "sss_client/nss/nss_mc.h"
#include "sss_client/nss/nss_private.h"
#include "nss_test_buf.h"

enum nss_status _nss_sss_getpwnam_r(const char *, struct passwd *, char *, size_t, int *);
enum nss_status _nss_sss_getpwuid_r(uid_t, struct passwd *, char *, size_t, int *);
enum nss_status _nss_sss_setpwent(void);
enum nss_status _nss_sss_getpwent_r(struct passwd *, char *, size_t, int *);
enum nss_status _nss_sss_endpwent(void);
enum nss_status _nss_sss_getgrnam_r(const char *, struct group *, char *, size_t, int *);
enum nss_status _nss_sss_getgrgid_r(gid_t, struct group *, char *, size_t, int *);
enum nss_status _nss_sss_setgrent(void);
enum nss_status _nss_sss_getgrent_r(struct group *, char *, size_t, int *);
enum nss_status _nss_sss_endgrent(void);
enum nss_status _nss_sss_initgroups_dyn(const char *, gid_t, long int *, long int *,
                                        gid_t **, long int, int *);

#define ENUM_USERS 300
#define MAX_CONN 16

/* ---- the in-test responder ---- */

struct conn_state {
    int fd;
    uint32_t pw_cursor;
    bool gr_done;
};

static struct {
    char dir[64];
    int lfd;
    int wake[2];
    pthread_t thr;
    int connections;            /* accepted so far */
    int requests;               /* non-version requests */
    uint32_t server_version;
    bool drop_next_request;     /* close the connection on the next request, once */
    pthread_mutex_t lock;
} srv = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int counter(int *c)
{
    int v;

    pthread_mutex_lock(&srv.lock);
    v = *c;
    pthread_mutex_unlock(&srv.lock);
    return v;
}

static void bump(int *c)
{
    pthread_mutex_lock(&srv.lock);
    (*c)++;
    pthread_mutex_unlock(&srv.lock);
}

static void send_reply(int fd, uint32_t cmd, uint32_t status, const struct tbuf *body)
{
    static struct tbuf out;
    uint32_t hdr[4] = { 16 + (uint32_t)(body ? body->len : 0), cmd, status, 0 };

    out.len = 0;
    memcpy(out.data, hdr, 16);
    out.len = 16;
    if (body != NULL) {
        memcpy(out.data + 16, body->data, body->len);
        out.len += body->len;
    }
    (void)send(fd, out.data, out.len, MSG_NOSIGNAL);
}

static bool read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;

    while (got < len) {
        ssize_t n = recv(fd, (char *)buf + got, len - got, 0);

        if (n <= 0) {
            return false;
        }
        got += (size_t)n;
    }
    return true;
}

static void pw_body(struct tbuf *b, uint32_t n, uint32_t uid)
{
    char name[32];

    b->len = 0;
    tb_u32(b, n);
    tb_u32(b, 0);
    if (n == 1) {
        snprintf(name, sizeof(name), uid == 1000 ? "alice" : "user%u", uid);
        tb_pw(b, uid, 100, name, "*", "Test User", "/home/x", "/bin/sh");
    }
}

/* Handles one request; false closes the connection. */
static bool handle(struct conn_state *c)
{
    static struct tbuf b;
    static uint8_t req[2048];
    uint32_t hdr[4];
    uint32_t blen;
    const char *name = (const char *)req;
    uint32_t id = 0;

    if (!read_full(c->fd, hdr, 16) || hdr[0] < 16 || hdr[0] - 16 > sizeof(req) - 1) {
        return false;
    }
    blen = hdr[0] - 16;
    if (!read_full(c->fd, req, blen)) {
        return false;
    }
    req[blen] = '\0';
    if (blen >= 4) {
        memcpy(&id, req, 4);
    }
    b.len = 0;

    if (hdr[1] == SSS_GET_VERSION) {
        tb_u32(&b, srv.server_version);
        send_reply(c->fd, hdr[1], 0, &b);
        return true;
    }
    bump(&srv.requests);
    if (srv.drop_next_request) {
        srv.drop_next_request = false;
        return false;
    }

    switch (hdr[1]) {
    case SSS_NSS_GETPWNAM:
        if (strcmp(name, "alice") == 0) {
            pw_body(&b, 1, 1000);
        } else if (strcmp(name, "eagain") == 0) {
            send_reply(c->fd, hdr[1], EAGAIN, NULL);
            return true;
        } else if (strcmp(name, "truncated") == 0) {
            pw_body(&b, 1, 1000);
            b.len -= 3;
        } else if (strcmp(name, "toomany") == 0) {
            pw_body(&b, 1, 1000);
            memcpy(b.data, &(uint32_t){ 2 }, 4);
        } else if (strcmp(name, "hugelen") == 0) {
            uint32_t bad[4] = { 0xfffffff0u, hdr[1], 0, 0 };

            (void)send(c->fd, bad, sizeof(bad), MSG_NOSIGNAL);
            return true;
        } else if (strcmp(name, "shortlen") == 0) {
            uint32_t bad[4] = { 8, hdr[1], 0, 0 };

            (void)send(c->fd, bad, sizeof(bad), MSG_NOSIGNAL);
            return true;
        } else if (strcmp(name, "wrongcmd") == 0) {
            pw_body(&b, 1, 1000);
            send_reply(c->fd, SSS_NSS_GETPWUID, 0, &b);
            return true;
        } else if (strcmp(name, "hangup") == 0) {
            return false;
        } else if (strcmp(name, "slow") == 0) {
            return true;    /* never answers */
        } else {
            pw_body(&b, 0, 0);
        }
        break;
    case SSS_NSS_GETPWUID:
        pw_body(&b, id == 1000 || id == 2000 ? 1 : 0, id);
        break;
    case SSS_NSS_SETPWENT:
        c->pw_cursor = 0;
        break;
    case SSS_NSS_GETPWENT: {
        uint32_t n = ENUM_USERS - c->pw_cursor;
        uint32_t i;

        if (n > id) {
            n = id;
        }
        tb_u32(&b, n);
        tb_u32(&b, 0);
        for (i = 0; i < n; i++) {
            char uname[32];

            snprintf(uname, sizeof(uname), "user%u", c->pw_cursor);
            tb_pw(&b, 10000 + c->pw_cursor, 100, uname, "*", "", "/home/u", "/bin/sh");
            c->pw_cursor++;
        }
        break;
    }
    case SSS_NSS_ENDPWENT:
    case SSS_NSS_ENDGRENT:
        break;
    case SSS_NSS_SETGRENT:
        c->gr_done = false;
        break;
    case SSS_NSS_GETGRNAM:
    case SSS_NSS_GETGRGID:
    case SSS_NSS_GETGRENT:
        if ((hdr[1] == SSS_NSS_GETGRNAM && strcmp(name, "staff") != 0)
                || (hdr[1] == SSS_NSS_GETGRGID && id != 5000)
                || (hdr[1] == SSS_NSS_GETGRENT && c->gr_done)) {
            tb_u32(&b, 0);
            tb_u32(&b, 0);
            break;
        }
        c->gr_done = true;
        tb_u32(&b, 1);
        tb_u32(&b, 0);
        tb_u32(&b, 5000);
        tb_u32(&b, 3);
        tb_str(&b, "staff");
        tb_str(&b, "*");
        tb_str(&b, "alice");
        tb_str(&b, "bob");
        tb_str(&b, "carol");
        break;
    case SSS_NSS_INITGR:
        if (strcmp(name, "alice") != 0) {
            tb_u32(&b, 0);
            tb_u32(&b, 0);
            break;
        }
        tb_u32(&b, 3);
        tb_u32(&b, 0);
        tb_u32(&b, 100);
        tb_u32(&b, 10);
        tb_u32(&b, 20);
        break;
    default:
        send_reply(c->fd, hdr[1], EINVAL, NULL);
        return true;
    }
    send_reply(c->fd, hdr[1], 0, &b);
    return true;
}

static void *server_main(void *arg)
{
    struct conn_state conns[MAX_CONN];
    int n = 0;
    int i;

    for (;;) {
        struct pollfd pfd[MAX_CONN + 2];

        pfd[0].fd = srv.wake[0];
        pfd[0].events = POLLIN;
        pfd[1].fd = srv.lfd;
        pfd[1].events = POLLIN;
        for (i = 0; i < n; i++) {
            pfd[2 + i].fd = conns[i].fd;
            pfd[2 + i].events = POLLIN;
        }
        if (poll(pfd, 2 + n, -1) < 0) {
            continue;
        }
        if (pfd[0].revents) {
            break;
        }
        for (i = n - 1; i >= 0; i--) {
            if (pfd[2 + i].revents && !handle(&conns[i])) {
                close(conns[i].fd);
                conns[i] = conns[--n];
            }
        }
        if ((pfd[1].revents & POLLIN) && n < MAX_CONN) {
            int fd = accept(srv.lfd, NULL, NULL);

            if (fd >= 0) {
                memset(&conns[n], 0, sizeof(conns[n]));
                conns[n++].fd = fd;
                bump(&srv.connections);
            }
        }
    }
    for (i = 0; i < n; i++) {
        close(conns[i].fd);
    }
    return NULL;
}

static int setup(void **state)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };

    snprintf(srv.dir, sizeof(srv.dir), "/tmp/nss_sock_XXXXXX");
    assert_non_null(mkdtemp(srv.dir));
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/nss", srv.dir);
    srv.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(srv.lfd >= 0);
    assert_int_equal(bind(srv.lfd, (struct sockaddr *)&addr, sizeof(addr)), 0);
    assert_int_equal(chmod(addr.sun_path, 0666), 0);   /* what sssd_nss gives it */
    assert_int_equal(listen(srv.lfd, 64), 0);
    assert_int_equal(pipe(srv.wake), 0);
    srv.connections = 0;
    srv.requests = 0;
    srv.server_version = SSS_NSS_PROTOCOL_VERSION;
    srv.drop_next_request = false;
    assert_int_equal(pthread_create(&srv.thr, NULL, server_main, NULL), 0);

    sss_cli_set_socket_dir(srv.dir);
    sss_cli_set_timeout_ms(-1);
    nss_mc_set_dir(srv.dir);        /* no cache files there: every lookup asks the socket */
    unsetenv("_SSS_LOOPS");
    return 0;
}

static int teardown(void **state)
{
    char path[128];

    sss_nss_test_close();
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

/* ---- the tests ---- */

static char buf[4096];

static void test_getpwnam(void **state)
{
    struct passwd pw;
    int err = 0;

    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_string_equal(pw.pw_name, "alice");
    assert_int_equal(pw.pw_uid, 1000);
    assert_int_equal(pw.pw_gid, 100);
    assert_string_equal(pw.pw_shell, "/bin/sh");
    assert_int_equal(_nss_sss_getpwuid_r(2000, &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_string_equal(pw.pw_name, "user2000");
    assert_int_equal(_nss_sss_getpwnam_r("nobody", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_NOTFOUND);
    assert_int_equal(_nss_sss_getpwuid_r(4242, &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_NOTFOUND);
    /* one connection, one handshake, for all of them */
    assert_int_equal(counter(&srv.connections), 1);
    assert_int_equal(counter(&srv.requests), 4);
}

static void test_erange_retry(void **state)
{
    struct passwd pw;
    int err = 0;

    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, 10, &err), NSS_STATUS_TRYAGAIN);
    assert_int_equal(err, ERANGE);
    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_string_equal(pw.pw_name, "alice");
}

static void test_empty_and_long_names(void **state)
{
    static char longname[2000];
    struct passwd pw;
    int err = 0;

    assert_int_equal(_nss_sss_getpwnam_r("", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_NOTFOUND);
    memset(longname, 'a', sizeof(longname) - 1);
    assert_int_equal(_nss_sss_getpwnam_r(longname, &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_NOTFOUND);
    assert_int_equal(counter(&srv.requests), 0);
}

static void test_group(void **state)
{
    struct group gr;
    int err = 0;

    assert_int_equal(_nss_sss_getgrnam_r("staff", &gr, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_int_equal(gr.gr_gid, 5000);
    assert_string_equal(gr.gr_mem[0], "alice");
    assert_string_equal(gr.gr_mem[2], "carol");
    assert_null(gr.gr_mem[3]);
    assert_int_equal(_nss_sss_getgrgid_r(5000, &gr, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_string_equal(gr.gr_name, "staff");
    assert_int_equal(_nss_sss_getgrgid_r(5001, &gr, buf, sizeof(buf), &err),
                     NSS_STATUS_NOTFOUND);
    assert_int_equal(_nss_sss_getgrnam_r("staff", &gr, buf, 20, &err), NSS_STATUS_TRYAGAIN);
    assert_int_equal(err, ERANGE);

    assert_int_equal(_nss_sss_setgrent(), NSS_STATUS_SUCCESS);
    assert_int_equal(_nss_sss_getgrent_r(&gr, buf, sizeof(buf), &err), NSS_STATUS_SUCCESS);
    assert_string_equal(gr.gr_name, "staff");
    assert_int_equal(_nss_sss_getgrent_r(&gr, buf, sizeof(buf), &err), NSS_STATUS_NOTFOUND);
    assert_int_equal(_nss_sss_endgrent(), NSS_STATUS_SUCCESS);
}

/* A group that did not fit: glibc's retry with a bigger buffer is answered from the kept
 * reply (no second request); a lookup of another key is not. */
static void test_group_erange_kept_reply(void **state)
{
    struct group gr;
    int err = 0;

    assert_int_equal(_nss_sss_getgrgid_r(5000, &gr, buf, 20, &err), NSS_STATUS_TRYAGAIN);
    assert_int_equal(err, ERANGE);
    assert_int_equal(counter(&srv.requests), 1);
    assert_int_equal(_nss_sss_getgrgid_r(5000, &gr, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_string_equal(gr.gr_name, "staff");
    assert_string_equal(gr.gr_mem[2], "carol");
    assert_int_equal(counter(&srv.requests), 1);
    /* used once: the next lookup asks again */
    assert_int_equal(_nss_sss_getgrgid_r(5000, &gr, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_int_equal(counter(&srv.requests), 2);

    /* kept for staff by name, then a different name: a real request, the right answer */
    assert_int_equal(_nss_sss_getgrnam_r("staff", &gr, buf, 20, &err), NSS_STATUS_TRYAGAIN);
    assert_int_equal(counter(&srv.requests), 3);
    assert_int_equal(_nss_sss_getgrgid_r(5001, &gr, buf, sizeof(buf), &err),
                     NSS_STATUS_NOTFOUND);
    assert_int_equal(counter(&srv.requests), 4);
    /* and the kept reply was dropped by that lookup */
    assert_int_equal(_nss_sss_getgrnam_r("staff", &gr, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_int_equal(counter(&srv.requests), 5);
}

static void test_enumeration(void **state)
{
    struct passwd pw;
    char name[32];
    int err = 0;
    int i;

    assert_int_equal(_nss_sss_setpwent(), NSS_STATUS_SUCCESS);
    for (i = 0; i < ENUM_USERS; i++) {
        if (i == 100 || i == 256) {
            /* too small: the same entry must come back on the retry */
            assert_int_equal(_nss_sss_getpwent_r(&pw, buf, 4, &err), NSS_STATUS_TRYAGAIN);
            assert_int_equal(err, ERANGE);
        }
        assert_int_equal(_nss_sss_getpwent_r(&pw, buf, sizeof(buf), &err),
                         NSS_STATUS_SUCCESS);
        snprintf(name, sizeof(name), "user%d", i);
        assert_string_equal(pw.pw_name, name);
        assert_int_equal(pw.pw_uid, 10000 + i);
    }
    assert_int_equal(_nss_sss_getpwent_r(&pw, buf, sizeof(buf), &err), NSS_STATUS_NOTFOUND);
    assert_int_equal(_nss_sss_endpwent(), NSS_STATUS_SUCCESS);
    /* SETPWENT, 3 x GETPWENT (256, 44, 0), ENDPWENT */
    assert_int_equal(counter(&srv.requests), 5);
}

static void test_initgroups(void **state)
{
    long int start = 1, size = 1;
    gid_t *groups = malloc(sizeof(gid_t));
    int err = 0;

    groups[0] = 100;
    assert_int_equal(_nss_sss_initgroups_dyn("alice", 100, &start, &size, &groups, 0, &err),
                     NSS_STATUS_SUCCESS);
    /* As SSSD's module: every gid of the reply, the primary one too, and *size grown by
     * exactly what was added. */
    assert_int_equal(start, 4);
    assert_int_equal(size, 4);
    assert_int_equal(err, 0);
    assert_int_equal(groups[0], 100);
    assert_int_equal(groups[1], 100);
    assert_int_equal(groups[2], 10);
    assert_int_equal(groups[3], 20);
    err = -1;
    assert_int_equal(_nss_sss_initgroups_dyn("bob", 100, &start, &size, &groups, 0, &err),
                     NSS_STATUS_NOTFOUND);
    assert_int_equal(start, 4);
    assert_int_equal(err, 0);           /* SSSD leaves 0 on not found */
    free(groups);
}

/* A badly framed reply is UNAVAIL, a well framed one whose body is wrong is TRYAGAIN, both
 * with EBADMSG, as in SSSD's module. */
static void test_malformed_replies(void **state)
{
    static const struct {
        const char *name;
        enum nss_status status;
    } cases[] = {
        { "truncated", NSS_STATUS_TRYAGAIN },
        { "toomany", NSS_STATUS_TRYAGAIN },
        { "hugelen", NSS_STATUS_UNAVAIL },
        { "shortlen", NSS_STATUS_UNAVAIL },
        { "wrongcmd", NSS_STATUS_UNAVAIL },
    };
    struct passwd pw;
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int err = 0;

        assert_int_equal(_nss_sss_getpwnam_r(cases[i].name, &pw, buf, sizeof(buf), &err),
                         cases[i].status);
        assert_int_equal(err, EBADMSG);
        /* and the next lookup still works */
        assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                         NSS_STATUS_SUCCESS);
    }
}

static void test_eagain(void **state)
{
    struct passwd pw;
    int err = 0;

    assert_int_equal(_nss_sss_getpwnam_r("eagain", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_TRYAGAIN);
    assert_int_equal(err, EAGAIN);
    assert_int_equal(counter(&srv.connections), 1);     /* the connection stays */
}

static void test_dropped_connection_retried(void **state)
{
    struct passwd pw;
    int err = 0;

    /* The server closes an established connection when it sees the next request: the
     * client reconnects once and asks again. */
    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    srv.drop_next_request = true;
    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_string_equal(pw.pw_name, "alice");
    assert_int_equal(counter(&srv.connections), 2);
    assert_int_equal(counter(&srv.requests), 3);

    /* A connection the server hung up on while idle is noticed and replaced. */
    assert_int_equal(_nss_sss_getpwnam_r("hangup", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_UNAVAIL);
    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
}

static void test_version_mismatch(void **state)
{
    struct passwd pw;
    int err = 0;

    srv.server_version = 2;
    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_UNAVAIL);
    assert_int_equal(err, EPROTO);
    assert_int_equal(counter(&srv.requests), 0);
    srv.server_version = SSS_NSS_PROTOCOL_VERSION;
}

static void test_timeout(void **state)
{
    struct timespec a, b;
    struct passwd pw;
    int err = 0;
    long ms;

    sss_cli_set_timeout_ms(200);
    clock_gettime(CLOCK_MONOTONIC, &a);
    assert_int_equal(_nss_sss_getpwnam_r("slow", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_UNAVAIL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    assert_int_equal(err, ETIMEDOUT);
    ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
    assert_true(ms >= 150 && ms < 2000);
    /* the stale connection is dropped; a new one answers */
    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_int_equal(counter(&srv.connections), 2);
}

static void test_no_daemon(void **state)
{
    struct timespec a, b;
    struct passwd pw;
    long int start = 0, size = 0;
    gid_t *groups = NULL;
    int err = 0;

    sss_nss_test_close();
    sss_cli_set_socket_dir("/nonexistent/dir");
    clock_gettime(CLOCK_MONOTONIC, &a);
    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_UNAVAIL);
    assert_int_equal(err, ENOENT);
    assert_int_equal(_nss_sss_initgroups_dyn("alice", 1, &start, &size, &groups, 0, &err),
                     NSS_STATUS_UNAVAIL);
    assert_int_equal(err, ENOENT);
    clock_gettime(CLOCK_MONOTONIC, &b);
    assert_true(b.tv_sec - a.tv_sec < 2);
    sss_cli_set_socket_dir(srv.dir);
}

static void test_loops_disabled(void **state)
{
    struct passwd pw;
    struct group gr;
    int err = 0;

    setenv("_SSS_LOOPS", "NO", 1);
    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_NOTFOUND);
    assert_int_equal(_nss_sss_getgrgid_r(5000, &gr, buf, sizeof(buf), &err),
                     NSS_STATUS_NOTFOUND);
    assert_int_equal(_nss_sss_setpwent(), NSS_STATUS_NOTFOUND);
    unsetenv("_SSS_LOOPS");
    assert_int_equal(counter(&srv.connections), 0);
}

static void test_fork(void **state)
{
    struct passwd pw;
    int err = 0;
    int status;
    pid_t pid;

    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int ok = _nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err)
                 == NSS_STATUS_SUCCESS;
        _exit(ok ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(counter(&srv.connections), 2);     /* the child had its own */
    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
}

static void *thread_lookups(void *arg)
{
    char tbuf[1024];
    struct passwd pw;
    struct group gr;
    long bad = 0;
    int err;
    int i;

    for (i = 0; i < 1000; i++) {
        if (i % 2 == 0) {
            if (_nss_sss_getpwnam_r("alice", &pw, tbuf, sizeof(tbuf), &err)
                    != NSS_STATUS_SUCCESS || strcmp(pw.pw_name, "alice") != 0) {
                bad++;
            }
        } else if (_nss_sss_getgrgid_r(5000, &gr, tbuf, sizeof(tbuf), &err)
                       != NSS_STATUS_SUCCESS || strcmp(gr.gr_mem[1], "bob") != 0) {
            bad++;
        }
    }
    return (void *)bad;
}

static void test_threads(void **state)
{
    pthread_t t[8];
    void *bad;
    int i;

    for (i = 0; i < 8; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, thread_lookups, NULL), 0);
    }
    for (i = 0; i < 8; i++) {
        pthread_join(t[i], &bad);
        assert_int_equal((long)bad, 0);
    }
    assert_int_equal(counter(&srv.requests), 8000);
    assert_int_equal(counter(&srv.connections), 8);    /* one per thread */
}

struct slow_lookup {
    pthread_t thr;
    bool returned;
    enum nss_status status;
};

static void *thread_slow(void *arg)
{
    struct slow_lookup *sl = arg;
    char tbuf[256];
    struct passwd pw;
    int err;

    sl->status = _nss_sss_getpwnam_r("slow", &pw, tbuf, sizeof(tbuf), &err);
    __atomic_store_n(&sl->returned, true, __ATOMIC_SEQ_CST);
    return NULL;
}

/* Starts a lookup the server never answers (it times out after timeout_ms) and returns
 * once the server has it. */
static void start_slow_lookup(struct slow_lookup *sl, int timeout_ms)
{
    int before = counter(&srv.requests);

    sss_cli_set_timeout_ms(timeout_ms);
    sl->returned = false;
    assert_int_equal(pthread_create(&sl->thr, NULL, thread_slow, sl), 0);
    while (counter(&srv.requests) == before) {
        usleep(1000);
    }
}

/* One thread waiting on a slow answer holds up no other thread's lookup. */
static void test_slow_lookup_blocks_nobody(void **state)
{
    struct slow_lookup sl;
    struct passwd pw;
    int err = 0;

    start_slow_lookup(&sl, 4000);
    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_false(__atomic_load_n(&sl.returned, __ATOMIC_SEQ_CST));
    pthread_join(sl.thr, NULL);
    assert_int_equal(sl.status, NSS_STATUS_UNAVAIL);      /* timed out */
}

/* fork() while another thread is mid-lookup: the child has nothing locked and looks up on
 * a connection of its own (a deadlock here is killed by the alarm and fails the test). */
static void test_fork_during_lookup(void **state)
{
    struct slow_lookup sl;
    struct passwd pw;
    struct group gr;
    int err = 0;
    int status;
    pid_t pid;

    /* The enumeration lock held too: a setpwent in the child must not hang either. */
    start_slow_lookup(&sl, 4000);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int ok;

        alarm(3);
        ok = _nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err) == NSS_STATUS_SUCCESS
             && _nss_sss_getgrgid_r(5000, &gr, buf, sizeof(buf), &err) == NSS_STATUS_SUCCESS
             && _nss_sss_setpwent() == NSS_STATUS_SUCCESS
             && _nss_sss_getpwent_r(&pw, buf, sizeof(buf), &err) == NSS_STATUS_SUCCESS
             && _nss_sss_endpwent() == NSS_STATUS_SUCCESS;
        _exit(ok ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    pthread_join(sl.thr, NULL);
}

/* The socket must be a root-owned (in test builds: ours) socket with mode 0666. */
static void test_socket_file_checked(void **state)
{
    char path[128];
    struct passwd pw;
    int err = 0;
    int fd;

    snprintf(path, sizeof(path), "%s/nss", srv.dir);
    assert_int_equal(chmod(path, 0777), 0);
    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_UNAVAIL);
    assert_int_equal(err, EACCES);
    assert_int_equal(chmod(path, 0666), 0);
    if (geteuid() == 0) {
        assert_int_equal(chown(path, 4242, 0), 0);
        assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                         NSS_STATUS_UNAVAIL);
        assert_int_equal(err, EACCES);
        assert_int_equal(chown(path, 0, 0), 0);
    }
    assert_int_equal(counter(&srv.connections), 0);
    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);

    /* Not a socket at all: a regular file of the right name and mode. */
    {
        char other[64] = "/tmp/nss_notsock_XXXXXX";

        assert_non_null(mkdtemp(other));
        snprintf(path, sizeof(path), "%s/nss", other);
        fd = open(path, O_CREAT | O_WRONLY, 0666);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(chmod(path, 0666), 0);
        sss_nss_test_close();
        sss_cli_set_socket_dir(other);
        assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, sizeof(buf), &err),
                         NSS_STATUS_UNAVAIL);
        assert_int_equal(err, EACCES);
        sss_cli_set_socket_dir(srv.dir);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(other), 0);
    }
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_getpwnam),
        T(test_erange_retry),
        T(test_empty_and_long_names),
        T(test_group),
        T(test_group_erange_kept_reply),
        T(test_enumeration),
        T(test_initgroups),
        T(test_malformed_replies),
        T(test_eagain),
        T(test_dropped_connection_retried),
        T(test_version_mismatch),
        T(test_timeout),
        T(test_no_daemon),
        T(test_loops_disabled),
        T(test_fork),
        T(test_threads),
        T(test_slow_lookup_blocks_nobody),
        T(test_fork_during_lookup),
        T(test_socket_file_checked),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
