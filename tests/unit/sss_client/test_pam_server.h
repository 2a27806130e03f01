/*
 * A small sssd_pam stand-in for pam_sss's unit tests, running in a thread of the test: it
 * listens on <dir>/pam (0666) and <dir>/private/pam (0600) like the real responder, answers
 * SSS_GET_VERSION with 3, decodes every PAM request with its own reader (not pam_sss's),
 * records it, and answers what the test's handler says. It tests the client, not sssd_pam.
 */
#ifndef TEST_PAM_SERVER_H
#define TEST_PAM_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PTS_STR     256
#define PTS_BODY    8192

/* One request as the server saw it. */
struct pts_req {
    int conn;                   /* connection number, from 1 */
    bool priv;                  /* arrived on private/pam */
    uid_t peer_uid;
    pid_t peer_pid;
    uint32_t cmd;
    uint8_t body[PTS_BODY];
    size_t body_len;
    bool valid;                 /* markers and items well formed */
    char user[PTS_STR], service[PTS_STR], tty[PTS_STR], ruser[PTS_STR], rhost[PTS_STR];
    char domains[PTS_STR];
    bool has_domains;
    uint32_t cli_pid;
    uint32_t flags;
    bool has_authtok, has_newauthtok;
    uint32_t authtok_type, newauthtok_type;
    char authtok[PTS_STR], newauthtok[PTS_STR];     /* NUL added by the reader */
    size_t authtok_len, newauthtok_len;
};

enum pts_action {
    PTS_ANSWER,     /* send body (status 0 header) */
    PTS_ERROR,      /* header status hdr_status, empty body */
    PTS_WRONG_CMD,  /* body under another command */
    PTS_HANGUP,     /* close the connection without answering */
    PTS_SILENT,     /* never answer */
};

struct pts_reply {
    enum pts_action action;
    uint32_t hdr_status;
    uint8_t body[PTS_BODY];
    size_t len;
    uint32_t count;             /* items added with the helpers below */
};

/* Called for every request but GET_VERSION; rep starts as PTS_ANSWER with an empty body. */
typedef void pts_handler_fn(const struct pts_req *req, struct pts_reply *rep);

/* Reply builders: status first, then items (the count is kept in the body). */
void pts_status(struct pts_reply *rep, int32_t pam_status);
void pts_item(struct pts_reply *rep, uint32_t type, const void *data, size_t len);
void pts_string(struct pts_reply *rep, uint32_t type, const char *s);
void pts_raw(struct pts_reply *rep, const void *data, size_t len);

/* Starts the server in a new temporary directory (sockets root:root or the caller's own,
 * modes 0666 and 0600). Returns 0 or an errno. */
int pts_start(void);
void pts_stop(void);
const char *pts_dir(void);
void pts_set_handler(pts_handler_fn *fn);

/* The recorded requests. */
void pts_clear(void);
int pts_count(void);
bool pts_get(int i, struct pts_req *out);
int pts_connections(void);

/* The default handler: a directory of alice/secret and bob/hunter2 (others unknown).
 * AUTHENTICATE checks the password; ACCT_MGMT, sessions and SETCRED succeed for known
 * users; CHAUTHTOK_PRELIM checks the old password, or answers PAM_PERM_DENIED to root's
 * request without one ("reset by root"); CHAUTHTOK checks the old password and stores the
 * new one. Every answer carries DOMAIN_NAME "test". */
void pts_directory(const struct pts_req *req, struct pts_reply *rep);
void pts_directory_reset(void);

#endif /* TEST_PAM_SERVER_H */
