/* Unit tests of the client socket server (src/responder/common/resp_socket.c): a server on
 * a temporary path inside a tevent loop driven by the test, clients in the same process. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "responder/common/resp_socket.h"
#include "responder/common/resp_ratelimit.h"
#include "tests/unit/common/tc_common.h"

#define CMD_ECHO        0x0011      /* answers the body length, synchronously */
#define CMD_DEFER       0x0012      /* keeps the request for the test to answer */
#define CMD_FAIL        0x0013      /* the handler fails */
#define CMD_BIG         0x0014      /* answers 1 MiB */
#define BIG_LEN         (1024 * 1024)
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

struct tctx {
    struct tevent_context *ev;
    struct resp_server *srv;
    char *dir;
    char path[128];
    struct resp_request *deferred;
    uint64_t last_id;
    unsigned int handled;
};

static struct tctx *T;
static struct tc_leaks leaks;

static errno_t handle_echo(struct resp_request *req)
{
    struct resp_reply *reply;
    size_t len;

    assert_int_equal(sss_debug_req_id, resp_request_id(req));
    assert_true(resp_request_id(req) > T->last_id);
    T->last_id = resp_request_id(req);
    T->handled++;
    resp_request_body(req, &len);
    reply = resp_reply_new(req, resp_request_cmd(req));
    assert_int_equal(resp_reply_put_u32(reply, (uint32_t)len), EOK);
    return resp_request_done(req, reply);
}

static errno_t handle_defer(struct resp_request *req)
{
    T->handled++;
    T->deferred = req;
    return EOK;
}

static errno_t handle_fail(struct resp_request *req)
{
    return EIO;
}

static errno_t handle_big(struct resp_request *req)
{
    struct resp_reply *reply = resp_reply_new(req, resp_request_cmd(req));
    uint8_t *chunk = talloc_size(req, BIG_LEN);
    size_t i;

    for (i = 0; i < BIG_LEN; i++) {
        chunk[i] = (uint8_t)(i * 7);
    }
    assert_int_equal(resp_reply_put(reply, chunk, BIG_LEN), EOK);
    talloc_free(chunk);
    return resp_request_done(req, reply);
}

static const struct resp_cmd test_cmds[] = {
    { SSS_GET_VERSION, resp_cmd_get_version },
    { CMD_ECHO, handle_echo },
    { CMD_DEFER, handle_defer },
    { CMD_FAIL, handle_fail },
    { CMD_BIG, handle_big },
    RESP_CMD_END
};

static const uint32_t nss_versions[] = { 1, 0 };
static const uint32_t pam_versions[] = { 3, 2, 1, 0 };

static void start_ext(const uint32_t *versions, unsigned int idle, size_t max_clients,
                      unsigned int request_timeout)
{
    struct resp_server_conf conf = {
        .path = T->path, .mode = 0666, .cmds = test_cmds, .versions = versions,
        .idle_timeout = idle, .max_clients = max_clients, .pvt = T,
        .request_timeout = request_timeout,
    };

    assert_int_equal(resp_server_start(T, T->ev, &conf, &T->srv), EOK);
}

static void start(const uint32_t *versions, unsigned int idle, size_t max_clients)
{
    start_ext(versions, idle, max_clients, 0);
}

static int setup(void **state)
{
    tc_leak_start(&leaks);
    T = talloc_zero(NULL, struct tctx);
    T->ev = tevent_context_init(T);
    T->dir = tc_tmpdir(T, "test_resp_socket");
    snprintf(T->path, sizeof(T->path), "%s/pipes/nss", T->dir);
    return 0;
}

static int teardown(void **state)
{
    char *dir = talloc_steal(NULL, T->dir);

    /* The server removes its socket before the directory goes. */
    talloc_free(T);
    T = NULL;
    tc_tmpdir_remove(dir);
    talloc_free(dir);
    tc_leak_check(&leaks);
    return 0;
}

/* ---- client side ---- */

static void wake(struct tevent_context *ev, struct tevent_timer *te, struct timeval tv,
                 void *pvt)
{
    *(bool *)pvt = true;
}

/* Runs the loop for ms milliseconds. */
static void pump(int ms)
{
    bool done = false;

    /* tevent frees the timer once it fired */
    assert_non_null(tevent_add_timer(T->ev, T->ev, tevent_timeval_current_ofs(ms / 1000,
                                     (ms % 1000) * 1000), wake, &done));
    while (!done) {
        tevent_loop_once(T->ev);
    }
}

static int cli_connect(void)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    strcpy(addr.sun_path, T->path);
    assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
    return fd;
}

static void cli_send(int fd, uint32_t len, uint32_t cmd, const void *body, size_t blen)
{
    uint32_t hdr[4] = { len, cmd, 0, 0 };

    assert_int_equal(write(fd, hdr, sizeof(hdr)), sizeof(hdr));
    if (blen != 0) {
        assert_int_equal(write(fd, body, blen), (ssize_t)blen);
    }
}

/* Reads one reply while pumping the loop; returns its length, or 0 when the server closed
 * the connection, or -1 when nothing came within about a second. */
static ssize_t cli_recv(int fd, uint8_t *buf, size_t size)
{
    size_t have = 0;
    uint32_t len = 0;
    ssize_t n;
    int rounds;

    for (rounds = 0; rounds < 2000; rounds++) {
        n = recv(fd, buf + have, size - have, MSG_DONTWAIT);
        if (n == 0) {
            return 0;
        }
        if (n > 0) {
            have += (size_t)n;
            if (have >= 4) {
                memcpy(&len, buf, 4);
            }
            if (have >= 16 && have >= len) {
                return (ssize_t)have;
            }
            continue;
        }
        pump(1);
    }
    return -1;
}

static bool cli_closed(int fd)
{
    uint8_t b;
    int i;

    for (i = 0; i < 500; i++) {
        pump(2);
        if (recv(fd, &b, 1, MSG_DONTWAIT) == 0) {
            return true;
        }
    }
    return false;
}

static uint32_t u32_at(const uint8_t *buf, size_t off)
{
    uint32_t v;

    memcpy(&v, buf + off, 4);
    return v;
}

static uint32_t ask_version(int fd, uint32_t mine)
{
    uint8_t buf[64];

    cli_send(fd, 20, SSS_GET_VERSION, &mine, 4);
    assert_int_equal(cli_recv(fd, buf, sizeof(buf)), 20);
    assert_int_equal(u32_at(buf, 4), SSS_GET_VERSION);
    assert_int_equal(u32_at(buf, 8), 0);
    assert_int_equal(u32_at(buf, 12), 0);
    return u32_at(buf, 16);
}

/* ---- tests ---- */

static void test_get_version(void **state)
{
    char dir[128];
    struct stat st;
    int fd;

    start(nss_versions, 0, 0);
    assert_int_equal(stat(T->path, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0666);
    snprintf(dir, sizeof(dir), "%s/pipes", T->dir);
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0755);

    fd = cli_connect();
    assert_int_equal(ask_version(fd, 1), 1);
    assert_int_equal(ask_version(fd, 5), 1);
    close(fd);
    talloc_zfree(T->srv);
    assert_int_equal(access(T->path, F_OK), -1);   /* the server removed its socket */

    start(pam_versions, 0, 0);
    fd = cli_connect();
    assert_int_equal(ask_version(fd, 2), 2);
    assert_int_equal(ask_version(fd, 1), 1);
    assert_int_equal(ask_version(fd, 7), 3);
    pump(5);
    assert_int_equal(resp_server_num_clients(T->srv), 1);
    close(fd);
    pump(5);
    assert_int_equal(resp_server_num_clients(T->srv), 0);
}

static void test_partial_reads(void **state)
{
    uint32_t hdr[4] = { 16 + 6, CMD_ECHO, 0, 0 };
    uint8_t pkt[22];
    uint8_t buf[64];
    size_t i;
    int fd;

    start(nss_versions, 0, 0);
    fd = cli_connect();
    /* header, then body, in separate writes */
    assert_int_equal(write(fd, hdr, 16), 16);
    pump(10);
    assert_int_equal(T->handled, 0);
    assert_int_equal(write(fd, "alice", 6), 6);
    assert_int_equal(cli_recv(fd, buf, sizeof(buf)), 20);
    assert_int_equal(u32_at(buf, 16), 6);

    /* byte by byte */
    memcpy(pkt, hdr, 16);
    memcpy(pkt + 16, "alice", 6);
    for (i = 0; i < sizeof(pkt); i++) {
        assert_int_equal(write(fd, pkt + i, 1), 1);
        pump(1);
    }
    assert_int_equal(cli_recv(fd, buf, sizeof(buf)), 20);
    assert_int_equal(u32_at(buf, 16), 6);
    assert_int_equal(T->handled, 2);

    /* two requests in one write: both answered, in order */
    {
        uint8_t two[38];

        memcpy(two, pkt, 22);
        memcpy(two + 22, (uint32_t[]){ 16, CMD_ECHO, 0, 0 }, 16);
        assert_int_equal(write(fd, two, sizeof(two)), sizeof(two));
        assert_int_equal(cli_recv(fd, buf, 20), 20);
        assert_int_equal(u32_at(buf, 16), 6);
        assert_int_equal(cli_recv(fd, buf, 20), 20);
        assert_int_equal(u32_at(buf, 16), 0);
    }
    close(fd);
}

static void test_bad_lengths(void **state)
{
    uint8_t body[SSS_CLI_MAX_REQUEST_SIZE];
    uint8_t buf[64];
    int fd;

    start(nss_versions, 0, 0);
    memset(body, 'a', sizeof(body));

    /* the largest request is served */
    fd = cli_connect();
    cli_send(fd, SSS_CLI_MAX_REQUEST_SIZE, CMD_ECHO, body, SSS_CLI_MAX_REQUEST_SIZE - 16);
    assert_int_equal(cli_recv(fd, buf, sizeof(buf)), 20);
    assert_int_equal(u32_at(buf, 16), SSS_CLI_MAX_REQUEST_SIZE - 16);
    /* one byte more closes the connection, before any body is read */
    cli_send(fd, SSS_CLI_MAX_REQUEST_SIZE + 1, CMD_ECHO, NULL, 0);
    assert_true(cli_closed(fd));
    close(fd);

    /* a declared length shorter than the header */
    fd = cli_connect();
    cli_send(fd, 8, CMD_ECHO, NULL, 0);
    assert_true(cli_closed(fd));
    close(fd);
    fd = cli_connect();
    cli_send(fd, 0, SSS_GET_VERSION, NULL, 0);
    assert_true(cli_closed(fd));
    close(fd);
    assert_int_equal(T->handled, 1);
    assert_int_equal(resp_server_num_clients(T->srv), 0);
}

static void test_unknown_and_failing(void **state)
{
    int fd;

    start(nss_versions, 0, 0);
    fd = cli_connect();
    assert_int_equal(ask_version(fd, 1), 1);
    cli_send(fd, 16, 0x7777, NULL, 0);
    assert_true(cli_closed(fd));
    close(fd);

    fd = cli_connect();
    cli_send(fd, 16, CMD_FAIL, NULL, 0);
    assert_true(cli_closed(fd));
    close(fd);
}

static void test_idle_timeout(void **state)
{
    int idle, busy;

    start(nss_versions, 1, 0);
    idle = cli_connect();
    busy = cli_connect();
    pump(600);
    assert_int_equal(ask_version(busy, 1), 1);      /* traffic restarts its clock */
    pump(600);
    assert_int_equal(resp_server_num_clients(T->srv), 1);
    assert_true(cli_closed(idle));
    assert_int_equal(ask_version(busy, 1), 1);
    pump(1300);
    assert_true(cli_closed(busy));
    assert_int_equal(resp_server_num_clients(T->srv), 0);
    close(idle);
    close(busy);
}

static void test_async_one_at_a_time(void **state)
{
    uint8_t buf[64];
    int fd;

    start(nss_versions, 1, 0);
    fd = cli_connect();
    cli_send(fd, 16, CMD_DEFER, NULL, 0);
    cli_send(fd, 16, CMD_ECHO, NULL, 0);
    pump(1500);     /* past the idle timeout: a client waiting for an answer is not idle */
    assert_non_null(T->deferred);
    assert_int_equal(T->handled, 1);                /* the second one waits */
    assert_int_equal(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), -1);
    assert_int_equal(resp_client_creds(resp_request_client(T->deferred))->uid, getuid());
    assert_int_equal(resp_client_creds(resp_request_client(T->deferred))->pid, getpid());
    assert_ptr_equal(resp_request_pvt(T->deferred), T);

    assert_int_equal(resp_request_done_status(T->deferred, ENOENT), EOK);
    assert_int_equal(resp_request_done_status(T->deferred, ENOENT), EINVAL);
    T->deferred = NULL;
    assert_int_equal(cli_recv(fd, buf, 16), 16);
    assert_int_equal(u32_at(buf, 4), CMD_DEFER);
    assert_int_equal(u32_at(buf, 8), ENOENT);
    assert_int_equal(cli_recv(fd, buf, 20), 20);
    assert_int_equal(u32_at(buf, 4), CMD_ECHO);
    assert_int_equal(T->handled, 2);

    /* abort closes the connection; a client gone mid-request frees its request */
    cli_send(fd, 16, CMD_DEFER, NULL, 0);
    pump(10);
    resp_request_abort(T->deferred);
    T->deferred = NULL;
    assert_true(cli_closed(fd));
    close(fd);
    fd = cli_connect();
    cli_send(fd, 16, CMD_DEFER, NULL, 0);
    pump(10);
    assert_non_null(T->deferred);
    talloc_zfree(T->srv);       /* everything goes, the pending request with it */
    T->deferred = NULL;
    close(fd);
}

static void test_big_reply(void **state)
{
    uint8_t *buf = malloc(BIG_LEN + 16);
    size_t have = 0;
    ssize_t n;
    size_t i;
    int fd;

    start(nss_versions, 0, 0);
    fd = cli_connect();
    cli_send(fd, 16, CMD_BIG, NULL, 0);
    /* read in small pieces so the server meets a full socket buffer again and again */
    while (have < BIG_LEN + 16) {
        n = recv(fd, buf + have, MIN(4096, BIG_LEN + 16 - have), MSG_DONTWAIT);
        if (n > 0) {
            have += (size_t)n;
        } else {
            assert_int_not_equal(n, 0);
            pump(1);
        }
    }
    assert_int_equal(u32_at(buf, 0), BIG_LEN + 16);
    for (i = 0; i < BIG_LEN; i++) {
        if (buf[16 + i] != (uint8_t)(i * 7)) {
            fail_msg("byte %zu differs", i);
        }
    }
    free(buf);
    assert_int_equal(ask_version(fd, 1), 1);
    close(fd);
}

static void test_many_clients(void **state)
{
    int fds[60];
    int extra;
    size_t i;

    start(nss_versions, 0, 50);
    for (i = 0; i < 50; i++) {
        fds[i] = cli_connect();
    }
    for (i = 0; i < 50; i++) {
        assert_int_equal(ask_version(fds[i], 1), 1);
    }
    assert_int_equal(resp_server_num_clients(T->srv), 50);
    extra = cli_connect();                          /* beyond the limit: closed */
    assert_true(cli_closed(extra));
    close(extra);
    for (i = 0; i < 50; i++) {
        close(fds[i]);
    }
    pump(20);
    assert_int_equal(resp_server_num_clients(T->srv), 0);
}

static void test_stale_and_bad_paths(void **state)
{
    struct resp_server_conf conf = {
        .path = T->path, .mode = 0666, .cmds = test_cmds, .versions = nss_versions,
    };
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    struct resp_server *srv = NULL;
    int fd;

    /* a stale socket (its server died) is replaced */
    start(nss_versions, 0, 0);
    talloc_zfree(T->srv);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    strcpy(addr.sun_path, T->path);
    assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
    close(fd);
    start(nss_versions, 0, 0);
    fd = cli_connect();
    assert_int_equal(ask_version(fd, 1), 1);
    close(fd);
    talloc_zfree(T->srv);

    /* anything else is left alone */
    fd = open(T->path, O_CREAT | O_WRONLY, 0600);
    close(fd);
    assert_int_equal(resp_server_start(T, T->ev, &conf, &srv), EEXIST);
    assert_int_equal(access(T->path, F_OK), 0);

    conf.versions = (const uint32_t[]){ 0 };
    assert_int_equal(resp_server_start(T, T->ev, &conf, &srv), EINVAL);
    conf.versions = nss_versions;
    conf.path = "/tmp/a-very-long-path-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/nss";
    assert_int_equal(resp_server_start(T, T->ev, &conf, &srv), ENAMETOOLONG);
    assert_null(srv);
}


/* A trickle of bytes does not keep a connection: the request must be whole within
 * request_timeout of its first byte, whatever the idle timeout. */
static void test_request_deadline(void **state)
{
    struct resp_server_stats st;
    uint32_t hdr[4] = { 16 + 6, CMD_ECHO, 0, 0 };
    const uint8_t *p = (const uint8_t *)hdr;
    uint8_t b;
    int fd;
    int i;

    start_ext(nss_versions, 30, 0, 1);
    fd = cli_connect();
    /* one byte every 200 ms: each would have moved an idle timer */
    for (i = 0; i < 12; i++) {
        if (write(fd, p + i, 1) != 1) {
            break;              /* already closed */
        }
        pump(200);
        if (recv(fd, &b, 1, MSG_DONTWAIT) == 0) {
            break;
        }
    }
    assert_true(i < 12);        /* closed before the trickle ended (2.4 s) */
    assert_true(cli_closed(fd));
    close(fd);
    resp_server_get_stats(T->srv, &st);
    assert_int_equal(st.deadlines, 1);
    assert_int_equal(T->handled, 0);

    /* a request sent whole is served, and the idle timeout still counts from it */
    fd = cli_connect();
    assert_int_equal(ask_version(fd, 1), 1);
    pump(1300);
    assert_int_equal(ask_version(fd, 1), 1);
    close(fd);
}

/* A client reading its reply a little at a time has idle_timeout from the reply's start,
 * not from each byte it takes. */
static void test_reply_trickle(void **state)
{
    uint8_t buf[512];
    ssize_t n;
    size_t have = 0;
    int fd;
    int i;

    start(nss_versions, 1, 0);
    fd = cli_connect();
    cli_send(fd, 16, CMD_BIG, NULL, 0);
    pump(20);
    assert_int_equal(resp_server_num_clients(T->srv), 1);
    /* 512 bytes every 100 ms; the socket buffers hold far more than that, so the server
     * keeps finding room, and the connection is watched from the server's side */
    for (i = 0; i < 30 && resp_server_num_clients(T->srv) > 0; i++) {
        pump(100);
        n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n > 0) {
            have += (size_t)n;
        }
    }
    /* about 1 s, certainly before 3 s and before the megabyte was read */
    assert_int_equal(resp_server_num_clients(T->srv), 0);
    assert_true(have < BIG_LEN);
    close(fd);
}

/* Out of descriptors: the backlog is drained (each newcomer taken with the reserve
 * descriptor, then refused: root's connections are never shed), the accept handler does
 * not spin, and clients are served again once descriptors are back. */
static void test_out_of_fds(void **state)
{
    struct resp_server_stats st;
    struct rlimit saved;
    struct rlimit low;
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    int fds[40];
    int probe;
    int fd;
    size_t i;

    start(nss_versions, 0, 1000);
    strcpy(addr.sun_path, T->path);
    for (i = 0; i < SSS_ARRAY_SIZE(fds); i++) {
        fds[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(fds[i] >= 0);
    }
    /* Room for 5 more descriptors: the server's accept4() runs out after a few clients.
     * connect() itself needs none. */
    probe = dup(0);
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
    low = saved;
    low.rlim_cur = (rlim_t)probe + 5;
    close(probe);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    for (i = 0; i < SSS_ARRAY_SIZE(fds); i++) {
        assert_int_equal(connect(fds[i], (struct sockaddr *)&addr, sizeof(addr)), 0);
    }
    pump(500);
    resp_server_get_stats(T->srv, &st);
    assert_true(st.out_of_fds > 0);
    assert_int_equal(st.accepted + st.refused, SSS_ARRAY_SIZE(fds));
    assert_true(st.refused > 0);
    /* A spinning handler calls accept4() hundreds of thousands of times in 500 ms. */
    assert_true(st.accept_calls < 200);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
    for (i = 0; i < SSS_ARRAY_SIZE(fds); i++) {
        close(fds[i]);
    }
    pump(250);      /* a pause (if one is running) ends */
    fd = cli_connect();
    assert_int_equal(ask_version(fd, 1), 1);
    close(fd);
}

/* ---- clients of another uid, in a child process (root only) ---- */

struct kid {
    pid_t pid;
    int ctl;        /* parent's end: commands out, answers in */
};

/* A child that becomes uid, opens n connections (the first one, when busy, sends a
 * request the test keeps open), says 'r', then answers 'c' with the number of its
 * connections the server closed, and exits on 'q'. */
static void kid_start(struct kid *k, uid_t uid, int n, bool busy)
{
    int sv[2];
    int fds[64];
    char c;
    int closed;
    int i;

    assert_true(n <= 64);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    k->pid = fork();
    assert_true(k->pid >= 0);
    if (k->pid == 0) {
        close(sv[0]);
        if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0
                || setresuid(uid, uid, uid) != 0) {
            _exit(2);
        }
        for (i = 0; i < n; i++) {
            struct sockaddr_un addr = { .sun_family = AF_UNIX };

            fds[i] = socket(AF_UNIX, SOCK_STREAM, 0);
            strcpy(addr.sun_path, T->path);
            if (connect(fds[i], (struct sockaddr *)&addr, sizeof(addr)) != 0) {
                _exit(3);
            }
        }
        if (busy) {
            uint32_t hdr[4] = { 16, CMD_DEFER, 0, 0 };

            if (write(fds[0], hdr, sizeof(hdr)) != sizeof(hdr)) {
                _exit(4);
            }
        }
        c = 'r';
        if (write(sv[1], &c, 1) != 1) {
            _exit(5);
        }
        while (read(sv[1], &c, 1) == 1 && c != 'q') {
            uint8_t b[64];

            for (closed = 0, i = 0; i < n; i++) {
                if (recv(fds[i], b, sizeof(b), MSG_DONTWAIT) == 0) {
                    closed++;
                }
            }
            c = (char)closed;
            if (write(sv[1], &c, 1) != 1) {
                _exit(6);
            }
        }
        _exit(0);
    }
    close(sv[1]);
    k->ctl = sv[0];
    /* the child's connections arrive while the loop runs */
    for (i = 0; i < 500; i++) {
        pump(2);
        if (recv(k->ctl, &c, 1, MSG_DONTWAIT) == 1) {
            assert_int_equal(c, 'r');
            pump(20);
            return;
        }
    }
    fail_msg("the child did not connect");
}

static int kid_closed(struct kid *k)
{
    char c = 'c';

    assert_int_equal(write(k->ctl, &c, 1), 1);
    assert_int_equal(read(k->ctl, &c, 1), 1);
    return c;
}

static void kid_stop(struct kid *k)
{
    char c = 'q';
    int status;

    assert_int_equal(write(k->ctl, &c, 1), 1);
    close(k->ctl);
    assert_int_equal(waitpid(k->pid, &status, 0), k->pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A full table makes room from the uid holding the most: its least recently active idle
 * connections go; root's, a busy one and another uid's stay. */
static void test_fair_shedding(void **state)
{
    struct resp_server_stats st;
    struct kid hog;
    struct kid other;
    int roots[3];
    int fd;
    size_t i;

    if (geteuid() != 0) {
        skip();
    }
    chmod(T->dir, 0755);
    start(nss_versions, 0, 12);
    for (i = 0; i < SSS_ARRAY_SIZE(roots); i++) {
        roots[i] = cli_connect();
        assert_int_equal(ask_version(roots[i], 1), 1);
    }
    kid_start(&other, 65533, 1, false);
    kid_start(&hog, 65534, 8, true);        /* 3 + 1 + 8 = 12: full */
    assert_int_equal(resp_server_num_clients(T->srv), 12);
    assert_non_null(T->deferred);

    /* root gets in, and so does the other uid, at the hog's expense */
    fd = cli_connect();
    assert_int_equal(ask_version(fd, 1), 1);
    resp_server_get_stats(T->srv, &st);
    assert_true(st.shed >= 1);
    assert_int_equal(st.refused, 0);
    for (i = 0; i < SSS_ARRAY_SIZE(roots); i++) {
        assert_int_equal(ask_version(roots[i], 1), 1);
    }
    assert_int_equal(kid_closed(&other), 0);
    /* the hog lost idle connections only: its busy one is still served */
    assert_true(kid_closed(&hog) >= 1);
    assert_int_equal(resp_request_done_status(T->deferred, 0), EOK);
    T->deferred = NULL;
    pump(20);
    assert_true(kid_closed(&hog) < 8);
    assert_true(resp_server_num_clients(T->srv) <= 12);

    kid_stop(&hog);
    kid_stop(&other);
    for (i = 0; i < SSS_ARRAY_SIZE(roots); i++) {
        close(roots[i]);
    }
    close(fd);
}

/* Lines about what clients get wrong are rate-limited: a burst of bad requests logs at
 * most RESP_RATELIMIT_BURST lines a window, the rest are counted. */
static void test_bad_requests_rate_limited(void **state)
{
    struct resp_server_stats st;
    int saved_level = debug_level;
    uint64_t t0;
    uint64_t windows;
    int fd;
    int i;

    start(nss_versions, 0, 0);
    debug_level = SSSDBG_OP_FAILURE;
    t0 = sss_monotonic_usec();
    for (i = 0; i < 60; i++) {
        fd = cli_connect();
        cli_send(fd, 16, 0x7777, NULL, 0);
        assert_true(cli_closed(fd));
        close(fd);
    }
    /* The windows the burst could touch: the bound follows the time the loop really took
     * (a starved machine spreads the 60 requests over more windows), not a guess. */
    windows = (sss_monotonic_usec() - t0) / (RESP_RATELIMIT_WINDOW_MS * 1000) + 2;
    debug_level = saved_level;
    resp_server_get_stats(T->srv, &st);
    assert_true(st.log_passed + st.log_suppressed >= 60);
    assert_true(st.log_passed <= windows * RESP_RATELIMIT_BURST);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_get_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partial_reads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_lengths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_and_failing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_idle_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_async_one_at_a_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_big_reply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_clients, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_and_bad_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_request_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reply_trickle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_of_fds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fair_shedding, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_requests_rate_limited, setup, teardown),
    };
    int ret;

    debug_level = 0;
    /* tevent allocates its backend list once; do it before the leak baselines */
    talloc_free(tevent_context_init(NULL));
    ret = cmocka_run_group_tests(tests, NULL, NULL);
    /* tc_leak_start() turned null tracking on; an empty null context left behind is what
     * LeakSanitizer reports as a leak. */
    talloc_disable_null_tracking();
    return ret;
}
