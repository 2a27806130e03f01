/* The in-test sssd_pam stand-in of test_pam_server.h: one thread polling both listening
 * sockets and every connection; requests are decoded by a reader written from PROTOCOL.md
 * "PAM bodies", independently of pam_sss's packer. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <security/pam_appl.h>

#include "sss_client/sss_cli.h"
#include "test_pam_server.h"

#define MAX_CONN    256
#define MAX_LOG     4096

static struct {
    char dir[64];
    int lfd[2];                 /* pam, private/pam */
    int wake[2];
    pthread_t thr;
    bool running;
    pid_t owner;                /* pts_stop() in a forked child leaves the server alone */
    pthread_mutex_t lock;
    pts_handler_fn *handler;
    struct pts_req *log;
    int nlog;
    int nconn;
} srv = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct conn {
    int fd;
    int id;
    bool priv;
    uid_t uid;
    pid_t pid;
};

/* ---- reply builders ---- */

static void put(struct pts_reply *rep, const void *p, size_t n)
{
    if (n > 0 && rep->len + n <= sizeof(rep->body)) {
        memcpy(rep->body + rep->len, p, n);
        rep->len += n;
    }
}

void pts_status(struct pts_reply *rep, int32_t pam_status)
{
    int32_t zero = 0;

    rep->len = 0;
    rep->count = 0;
    put(rep, &pam_status, 4);
    put(rep, &zero, 4);
}

void pts_item(struct pts_reply *rep, uint32_t type, const void *data, size_t len)
{
    uint32_t l = (uint32_t)len;

    put(rep, &type, 4);
    put(rep, &l, 4);
    put(rep, data, len);
    rep->count++;
    memcpy(rep->body + 4, &rep->count, 4);
}

void pts_string(struct pts_reply *rep, uint32_t type, const char *s)
{
    pts_item(rep, type, s, strlen(s) + 1);
}

void pts_raw(struct pts_reply *rep, const void *data, size_t len)
{
    rep->len = 0;
    put(rep, data, len);
}

/* ---- the request reader ---- */

static void copy_str(char *dst, const uint8_t *p, uint32_t len)
{
    size_t n = len < PTS_STR - 1 ? len : PTS_STR - 1;

    memcpy(dst, p, n);
    dst[n] = '\0';
}

static bool copy_tok(char *dst, size_t *dlen, uint32_t *type, const uint8_t *p, uint32_t len)
{
    if (len < 4) {
        return false;
    }
    memcpy(type, p, 4);
    *dlen = len - 4;
    copy_str(dst, p + 4, len - 4);
    return true;
}

static void decode(struct pts_req *r)
{
    const uint8_t *b = r->body;
    size_t off = 4;
    uint32_t v;

    r->valid = false;
    if (r->body_len < 8) {
        return;
    }
    memcpy(&v, b, 4);
    if (v != SSS_START_OF_PAM_REQUEST) {
        return;
    }
    for (;;) {
        uint32_t type;
        uint32_t len;

        if (r->body_len - off < 4) {
            return;
        }
        memcpy(&type, b + off, 4);
        if (type == SSS_END_OF_PAM_REQUEST) {
            r->valid = off + 4 == r->body_len;
            return;
        }
        if (r->body_len - off < 8) {
            return;
        }
        memcpy(&len, b + off + 4, 4);
        off += 8;
        if (len > r->body_len - off) {
            return;
        }
        switch (type) {
        case SSS_PAM_ITEM_USER: copy_str(r->user, b + off, len); break;
        case SSS_PAM_ITEM_SERVICE: copy_str(r->service, b + off, len); break;
        case SSS_PAM_ITEM_TTY: copy_str(r->tty, b + off, len); break;
        case SSS_PAM_ITEM_RUSER: copy_str(r->ruser, b + off, len); break;
        case SSS_PAM_ITEM_RHOST: copy_str(r->rhost, b + off, len); break;
        case SSS_PAM_ITEM_REQUESTED_DOMAINS:
            copy_str(r->domains, b + off, len);
            r->has_domains = true;
            break;
        case SSS_PAM_ITEM_CLI_PID:
            if (len == 4) {
                memcpy(&r->cli_pid, b + off, 4);
            }
            break;
        case SSS_PAM_ITEM_FLAGS:
            if (len == 4) {
                memcpy(&r->flags, b + off, 4);
            }
            break;
        case SSS_PAM_ITEM_AUTHTOK:
            r->has_authtok = copy_tok(r->authtok, &r->authtok_len, &r->authtok_type,
                                      b + off, len);
            break;
        case SSS_PAM_ITEM_NEWAUTHTOK:
            r->has_newauthtok = copy_tok(r->newauthtok, &r->newauthtok_len,
                                         &r->newauthtok_type, b + off, len);
            break;
        default:
            break;
        }
        off += len;
    }
}

/* ---- the default handler: a tiny directory ---- */

static struct { const char *name; char pw[PTS_STR]; } users[] = {
    { "alice", "secret" },
    { "bob", "hunter2" },
};

void pts_directory_reset(void)
{
    pthread_mutex_lock(&srv.lock);
    strcpy(users[0].pw, "secret");
    strcpy(users[1].pw, "hunter2");
    pthread_mutex_unlock(&srv.lock);
}

static int find_user(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
        if (strcmp(users[i].name, name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

static bool pw_ok(int u, const struct pts_req *r)
{
    return r->has_authtok && r->authtok_type == SSS_AUTHTOK_TYPE_PASSWORD
        && r->authtok_len > 0 && r->authtok_len == strlen(users[u].pw)
        && memcmp(r->authtok, users[u].pw, r->authtok_len) == 0;
}

void pts_directory(const struct pts_req *req, struct pts_reply *rep)
{
    int u = find_user(req->user);
    int status = PAM_SUCCESS;

    if (!req->valid) {
        rep->action = PTS_ERROR;
        rep->hdr_status = EINVAL;
        return;
    }
    if (u < 0) {
        pts_status(rep, PAM_USER_UNKNOWN);
        return;
    }
    switch (req->cmd) {
    case SSS_PAM_AUTHENTICATE:
        status = pw_ok(u, req) ? PAM_SUCCESS : PAM_AUTH_ERR;
        break;
    case SSS_PAM_CHAUTHTOK_PRELIM:
        if (!req->has_authtok && req->peer_uid == 0) {
            status = PAM_PERM_DENIED;       /* SSSD refuses root's reset */
        } else {
            status = pw_ok(u, req) ? PAM_SUCCESS : PAM_AUTH_ERR;
        }
        break;
    case SSS_PAM_CHAUTHTOK:
        if (!pw_ok(u, req) || !req->has_newauthtok || req->newauthtok_len == 0) {
            status = PAM_AUTHTOK_ERR;
        } else {
            copy_str(users[u].pw, (const uint8_t *)req->newauthtok,
                     (uint32_t)req->newauthtok_len);
        }
        break;
    default:
        break;
    }
    pts_status(rep, status);
    pts_string(rep, SSS_PAM_DOMAIN_NAME, "test");
}

/* ---- the server thread ---- */

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

static void send_reply(int fd, uint32_t cmd, uint32_t status, const uint8_t *body, size_t len)
{
    uint8_t out[16 + PTS_BODY];
    uint32_t hdr[4] = { 16 + (uint32_t)len, cmd, status, 0 };

    memcpy(out, hdr, 16);
    if (len > 0) {
        memcpy(out + 16, body, len);
    }
    (void)send(fd, out, 16 + len, MSG_NOSIGNAL);
}

/* One request on a connection; false closes it. */
static bool handle(struct conn *c)
{
    static struct pts_req req;
    static struct pts_reply rep;
    uint32_t hdr[4];
    uint32_t version = 3;
    pts_handler_fn *fn;

    if (!read_full(c->fd, hdr, 16) || hdr[0] < 16 || hdr[0] - 16 > PTS_BODY) {
        return false;
    }
    memset(&req, 0, sizeof(req));
    req.body_len = hdr[0] - 16;
    if (!read_full(c->fd, req.body, req.body_len)) {
        return false;
    }
    if (hdr[1] == SSS_GET_VERSION) {
        send_reply(c->fd, hdr[1], 0, (uint8_t *)&version, 4);
        return true;
    }
    req.conn = c->id;
    req.priv = c->priv;
    req.peer_uid = c->uid;
    req.peer_pid = c->pid;
    req.cmd = hdr[1];
    decode(&req);

    memset(&rep, 0, sizeof(rep));
    rep.action = PTS_ANSWER;
    pthread_mutex_lock(&srv.lock);
    if (srv.nlog < MAX_LOG) {
        srv.log[srv.nlog++] = req;
    }
    fn = srv.handler;
    pthread_mutex_unlock(&srv.lock);
    fn(&req, &rep);

    switch (rep.action) {
    case PTS_ANSWER:
        send_reply(c->fd, hdr[1], 0, rep.body, rep.len);
        return true;
    case PTS_ERROR:
        send_reply(c->fd, hdr[1], rep.hdr_status, NULL, 0);
        return true;
    case PTS_WRONG_CMD:
        send_reply(c->fd, hdr[1] ^ 0x100, 0, rep.body, rep.len);
        return true;
    case PTS_HANGUP:
        return false;
    case PTS_SILENT:
        return true;
    }
    return false;
}

static void *server_main(void *arg)
{
    static struct conn conns[MAX_CONN];
    struct pollfd pfd[MAX_CONN + 3];
    int nconns = 0;
    int i;

    for (;;) {
        int n = 0;

        pfd[n++] = (struct pollfd){ .fd = srv.wake[0], .events = POLLIN };
        pfd[n++] = (struct pollfd){ .fd = srv.lfd[0], .events = POLLIN };
        pfd[n++] = (struct pollfd){ .fd = srv.lfd[1], .events = POLLIN };
        for (i = 0; i < nconns; i++) {
            pfd[n++] = (struct pollfd){ .fd = conns[i].fd, .events = POLLIN };
        }
        if (poll(pfd, (nfds_t)n, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        if (pfd[0].revents) {
            break;
        }
        for (i = 1; i <= 2; i++) {
            if ((pfd[i].revents & POLLIN) && nconns < MAX_CONN) {
                struct ucred cred;
                socklen_t len = sizeof(cred);
                int fd = accept(srv.lfd[i - 1], NULL, NULL);

                if (fd < 0) {
                    continue;
                }
                memset(&cred, 0, sizeof(cred));
                (void)getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len);
                pthread_mutex_lock(&srv.lock);
                conns[nconns] = (struct conn){ fd, ++srv.nconn, i == 2, cred.uid, cred.pid };
                pthread_mutex_unlock(&srv.lock);
                nconns++;
            }
        }
        /* Connections, newest last; closed ones are removed after the loop. */
        for (i = 3; i < n; i++) {
            struct conn *c = &conns[i - 3];

            if ((pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) && !handle(c)) {
                close(c->fd);
                c->fd = -1;
            }
        }
        for (i = 0; i < nconns; ) {
            if (conns[i].fd == -1) {
                conns[i] = conns[--nconns];
            } else {
                i++;
            }
        }
    }
    for (i = 0; i < nconns; i++) {
        close(conns[i].fd);
    }
    return NULL;
}

static int listen_at(const char *path, mode_t mode)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0) {
        return -1;
    }
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
    if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || chmod(path, mode) != 0
            || listen(fd, 64) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int pts_start(void)
{
    char path[128];

    snprintf(srv.dir, sizeof(srv.dir), "/tmp/pam_sss_test.XXXXXX");
    if (mkdtemp(srv.dir) == NULL) {
        return errno;
    }
    chmod(srv.dir, 0755);
    snprintf(path, sizeof(path), "%s/private", srv.dir);
    if (mkdir(path, 0700) != 0) {
        return errno;
    }
    snprintf(path, sizeof(path), "%s/pam", srv.dir);
    srv.lfd[0] = listen_at(path, 0666);
    snprintf(path, sizeof(path), "%s/private/pam", srv.dir);
    srv.lfd[1] = listen_at(path, 0600);
    srv.log = calloc(MAX_LOG, sizeof(*srv.log));
    if (srv.lfd[0] < 0 || srv.lfd[1] < 0 || srv.log == NULL || pipe(srv.wake) != 0) {
        return EIO;
    }
    srv.handler = pts_directory;
    if (pthread_create(&srv.thr, NULL, server_main, NULL) != 0) {
        return EAGAIN;
    }
    srv.running = true;
    srv.owner = getpid();
    return 0;
}

void pts_stop(void)
{
    char path[128];

    if (srv.owner != getpid()) {
        return;
    }
    if (srv.running) {
        (void)write(srv.wake[1], "x", 1);
        pthread_join(srv.thr, NULL);
        srv.running = false;
    }
    close(srv.lfd[0]);
    close(srv.lfd[1]);
    close(srv.wake[0]);
    close(srv.wake[1]);
    snprintf(path, sizeof(path), "%s/private/pam", srv.dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/private", srv.dir);
    rmdir(path);
    snprintf(path, sizeof(path), "%s/pam", srv.dir);
    unlink(path);
    rmdir(srv.dir);
    free(srv.log);
    srv.log = NULL;
}

const char *pts_dir(void)
{
    return srv.dir;
}

void pts_set_handler(pts_handler_fn *fn)
{
    pthread_mutex_lock(&srv.lock);
    srv.handler = fn != NULL ? fn : pts_directory;
    pthread_mutex_unlock(&srv.lock);
}

void pts_clear(void)
{
    pthread_mutex_lock(&srv.lock);
    srv.nlog = 0;
    pthread_mutex_unlock(&srv.lock);
}

int pts_count(void)
{
    int n;

    pthread_mutex_lock(&srv.lock);
    n = srv.nlog;
    pthread_mutex_unlock(&srv.lock);
    return n;
}

bool pts_get(int i, struct pts_req *out)
{
    bool ok;

    pthread_mutex_lock(&srv.lock);
    ok = i >= 0 && i < srv.nlog;
    if (ok) {
        *out = srv.log[i];
    }
    pthread_mutex_unlock(&srv.lock);
    return ok;
}

int pts_connections(void)
{
    int n;

    pthread_mutex_lock(&srv.lock);
    n = srv.nconn;
    pthread_mutex_unlock(&srv.lock);
    return n;
}
