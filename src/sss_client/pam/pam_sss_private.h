/*
 * Internals of pam_sss.so shared by its files, its unit tests and its fuzz harness: the
 * request packer and the reply parser (pure functions over byte buffers, PROTOCOL.md "PAM
 * bodies"), the user-visible texts of SSS_PAM_USER_INFO items, and the PAM-side helpers
 * (conversation, syslog, the per-call state). Nothing here is exported from the module
 * (pam_sss.exports keeps only pam_sm_*).
 *
 * Ownership: a struct pam_sss_req only points at strings it does not own; a parsed reply
 * points into the caller's buffer and lives as long as that buffer.
 */
#ifndef PAM_SSS_PRIVATE_H
#define PAM_SSS_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest password taken from a conversation or the PAM stack (SSSD's MAX_AUTHTOK_SIZE). */
#define PAM_SSS_MAX_AUTHTOK     (1024 * 1024)
/* Longest string item (user, service, tty, ruser, rhost, domains) sent to the server. */
#define PAM_SSS_MAX_STRING      (64 * 1024)
/* Highest PAM return code a reply may carry (Linux-PAM's codes end at PAM_INCOMPLETE, 31). */
#define PAM_SSS_MAX_PAM_STATUS  31

/* ---- request (pam_pack.c) ---------------------------------------------------------- */

/* One authentication token item: sent when data is not NULL (len may be 0: an empty
 * password is sent as such, as SSSD's client does). */
struct pam_sss_tok {
    uint32_t type;          /* enum sss_authtok_type */
    const char *data;
    size_t len;             /* bytes of data, without a NUL */
};

/* What one request carries. NULL or empty strings are left out. */
struct pam_sss_req {
    const char *user;
    const char *service;
    const char *tty;
    const char *ruser;
    const char *rhost;
    const char *domains;    /* the domains= option, "a,b" */
    uint32_t cli_pid;
    uint32_t child_pid;     /* 0: left out */
    struct pam_sss_tok authtok;
    struct pam_sss_tok newauthtok;
    uint32_t flags;         /* SSS_PAM_CLI_FLAGS_* */
};

/*
 * Packs a request body in SSSD 2.8's item order: USER, SERVICE, TTY, RUSER, RHOST,
 * REQUESTED_DOMAINS, CLI_PID, [CHILD_PID], [AUTHTOK], [NEWAUTHTOK], FLAGS, between the start
 * and end markers. On success *_body is malloc'ed: the caller wipes it (it may hold
 * passwords) and frees it.
 * Errors: EINVAL (a string or token longer than the limits above), ENOMEM.
 */
int pam_sss_pack(const struct pam_sss_req *req, uint8_t **_body, size_t *_len);

/* ---- reply (pam_reply.c) ----------------------------------------------------------- */

/* A reply whose every item has been checked; items stay in the caller's buffer. */
struct pam_sss_reply {
    int32_t status;             /* the PAM status the server decided */
    uint32_t count;             /* number of items */
    const uint8_t *items;       /* first item */
    size_t items_len;
};

struct pam_sss_item {
    uint32_t type;              /* enum response_type; unknown types are skipped */
    uint32_t len;
    const uint8_t *data;        /* len bytes; string items end with their only NUL */
};

/*
 * Checks a whole reply body before anything in it is acted upon: `int32 status, int32 n`,
 * then exactly n items `{int32 type, int32 len, data}` filling the body to its end. The
 * status must be a PAM code (0..PAM_SSS_MAX_PAM_STATUS); string items (SYSTEM_INFO,
 * DOMAIN_NAME, the ENV items, TEXT_MSG) must be one NUL-terminated string; ENV items must
 * read NAME=value; USER_INFO items of a known subtype must have that subtype's size.
 * Returns 0, or EBADMSG for anything else (the reply is then not used at all).
 */
int pam_sss_reply_parse(const uint8_t *body, size_t len, struct pam_sss_reply *_reply);

/* The item after *cursor (start with 0); false after the last. Only for a parsed reply. */
bool pam_sss_reply_next(const struct pam_sss_reply *reply, size_t *cursor,
                        struct pam_sss_item *_item);

/*
 * The text SSSD 2.8's pam_sss shows for a SSS_PAM_USER_INFO item (data, len: the item's
 * payload, subtype first). On success *_text is malloc'ed.
 * Errors: ENOENT (a subtype pam_sss shows nothing for), EBADMSG (wrong size), ENOMEM.
 */
int pam_sss_user_info_text(const uint8_t *data, size_t len, char **_text);

/* ---- PAM side (pam_conv.c) ----------------------------------------------------------- */

#include <security/pam_modules.h>

/* syslog through pam_syslog (LOG_AUTHPRIV): user names and services, never a password. */
void pam_sss_log(pam_handle_t *pamh, int priority, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Shows msg (PAM_TEXT_INFO or PAM_ERROR_MSG) and logs it, as SSSD's client does. */
int pam_sss_show(pam_handle_t *pamh, int style, const char *msg);

/*
 * Asks with echo off. With reenter, asks again and requires the same answer (else shows
 * "Passwords do not match" and returns PAM_CRED_ERR). *_answer is malloc'ed (the caller
 * wipes and frees it), or NULL when the application gave no answer. The application's
 * response buffers are wiped before they are freed.
 */
int pam_sss_prompt(pam_handle_t *pamh, const char *prompt, const char *reenter,
                   char **_answer);

/* Wipes and frees a secret string (NULL is fine). */
void pam_sss_free_secret(char *s);

/* Root asked to reset a user's password: the administrator's message for the domain
 * (conf_dir/customize/DOMAIN/pam_sss_pw_reset_message.LOCALE or .txt, root's 0644 file of
 * at most 4096 bytes), else "Password reset by root is not supported.". Nothing without a
 * domain (SSSD's behaviour). */
void pam_sss_show_pw_reset_message(pam_handle_t *pamh, const char *conf_dir,
                                   const char *domain);

/* ---- the module's calls (pam_sss.c, pam_request.c) --------------------------------------- */

/* The module's options (pam_sss.c parses them). */
struct pam_sss_opts {
    uint32_t flags;         /* SSS_PAM_CLI_FLAGS_*, also sent to the server */
    int retries;            /* retry=N */
    bool quiet;
    const char *domains;    /* domains=..., NULL when not given */
};

/* A token this call owns (data NULL: none); wiped when dropped. */
struct pam_sss_token {
    uint32_t type;
    char *data;
    size_t len;
};

/* One call of the module: what pam_sss.c gathered, what the request sends. */
struct pam_sss_call {
    pam_handle_t *pamh;
    struct pam_sss_opts opts;
    bool use_first_pass;    /* cleared by a retry */
    const char *service;    /* the items belong to libpam */
    const char *user;
    const char *tty;
    const char *ruser;
    const char *rhost;
    struct pam_sss_token authtok;
    struct pam_sss_token newauthtok;
    char *domain;           /* DOMAIN_NAME of the last reply */
};

/* Drops a token (wiping it). */
void pam_sss_token_drop(struct pam_sss_token *t);

/*
 * One request (cmd) for c and its reply, over the private socket when the caller's uid and
 * gid are 0, else the public one. Acts on the reply's items (messages, DOMAIN_NAME into
 * c->domain, environment, SSS_OTP) and logs the result as SSSD's client does. Returns the
 * server's PAM status, PAM_AUTHINFO_UNAVAIL when sssd cannot be asked, PAM_SYSTEM_ERR for a
 * malformed reply, PAM_BUF_ERR when out of memory.
 */
int pam_sss_send(struct pam_sss_call *c, uint32_t cmd);

#endif /* PAM_SSS_PRIVATE_H */
