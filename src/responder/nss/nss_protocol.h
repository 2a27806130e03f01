/*
 * The NSS packet codec (PROTOCOL.md "NSS bodies"): parses request bodies without copying
 * and builds replies in a growable buffer, so the lookup code only fills in entries.
 *
 * Requests: by name (the name with its NUL; SETNETGRENT too: UTF-8, non-empty, no embedded NUL, at most
 * NSS_NAME_MAX bytes, the bound SSSD's libnss_sss itself applies), by id (one uint32), the
 * _EX variants (the same followed by uint32 flags), GET*ENT (uint32 count), SET/END*ENT
 * (empty). Anything else about a body is malformed (EBADMSG: the connection is closed).
 *
 * Replies: uint32 num_results, uint32 reserved 0, then the records. An empty reply (0, 0)
 * with status 0 is "not found". Replies have no size limit (only requests do).
 *
 * Ownership: a parsed struct nss_request points into the body it was parsed from; a
 * struct nss_reply is a talloc object on the caller's mem_ctx.
 */
#ifndef NSS_PROTOCOL_H
#define NSS_PROTOCOL_H

#include "util/util.h"
#include "responder/common/resp_packet.h"

/* Longest name accepted in a request, NUL excluded (libnss_sss refuses LOGIN_NAME_MAX). */
#define NSS_NAME_MAX 255

enum nss_req_kind {
    NSS_REQ_NAME,       /* getpwnam, getgrnam, initgroups (+ _EX), setnetgrent */
    NSS_REQ_ID,         /* getpwuid, getgrgid (+ _EX) */
    NSS_REQ_COUNT,      /* getpwent, getgrent, getnetgrent */
    NSS_REQ_EMPTY,      /* setpwent, endpwent, setgrent, endgrent, endnetgrent */
};

struct nss_request {
    uint32_t cmd;
    enum nss_req_kind kind;
    const char *name;       /* NSS_REQ_NAME: NUL-terminated, inside the body */
    size_t name_len;        /* strlen(name) */
    uint32_t id;            /* NSS_REQ_ID */
    uint32_t flags;         /* _EX: SSS_NSS_EX_FLAG_*; else 0 */
    uint32_t count;         /* NSS_REQ_COUNT */
};

/*
 * Parses the body of an NSS request of command cmd.
 * Returns EOK;
 *         EBADMSG  a malformed body, which no correct client sends (wrong size, a name
 *                  without its NUL, bytes after it): the caller closes the connection;
 *         EINVAL   a well-formed request for a name no entry can have (empty, longer than
 *                  NSS_NAME_MAX, not UTF-8): the caller answers it;
 *         ENOTSUP  cmd is not an NSS passwd/group command.
 * The reason is logged at trace level only: a client can send these as fast as it likes,
 * and the caller logs one rate-limited line. *_req is set only on EOK.
 */
errno_t nss_request_parse(uint32_t cmd, const uint8_t *body, size_t len,
                          struct nss_request *_req);

/* Checks a name as requests carry it: UTF-8, non-empty, at most NSS_NAME_MAX bytes.
 * len excludes the NUL; an embedded NUL fails. */
bool nss_name_is_valid(const char *name, size_t len);

/* ---- replies ---- */

struct nss_pw_entry {
    const char *name;
    uint32_t uid;
    uint32_t gid;
    const char *gecos;      /* NULL is sent as "" */
    const char *dir;        /* NULL is sent as "" */
    const char *shell;      /* NULL is sent as "" */
};

/* The strings of a passwd record, as the reply and the memory cache both lay them out:
 * name, passwd field, gecos, home directory, shell. */
#define NSS_PW_NUM_STRS 5
static inline void nss_pw_strs(const struct nss_pw_entry *pw, const char *pwfield,
                               const char *strs[NSS_PW_NUM_STRS])
{
    strs[0] = pw->name;
    strs[1] = pwfield;
    strs[2] = pw->gecos;
    strs[3] = pw->dir;
    strs[4] = pw->shell;
}

struct nss_gr_entry {
    const char *name;
    uint32_t gid;
    const char *const *members;     /* num_members names */
    size_t num_members;
    /* Optional: the same members as consecutive NUL-terminated strings, packed_len bytes,
     * the form the reply and the memory cache hold (one copy instead of one per member).
     * NULL: built from members. */
    const char *packed;
    size_t packed_len;
};

struct nss_reply;

/* A reply to cmd with no results yet. pwfield is the passwd field sent in every passwd and
 * group record (the [nss] pwfield option, "*" by default); it is copied. NULL on ENOMEM. */
struct nss_reply *nss_reply_new(TALLOC_CTX *mem_ctx, uint32_t cmd, const char *pwfield);

/* Appends one record and counts it. EINVAL on a NULL name, E2BIG past 4 GiB, ENOMEM.
 * A failed add leaves the reply as it was. */
errno_t nss_reply_passwd_add(struct nss_reply *r, const struct nss_pw_entry *pw);
errno_t nss_reply_group_add(struct nss_reply *r, const struct nss_gr_entry *gr);
/* initgroups: the gids of the user's groups, each counted as one result. */
errno_t nss_reply_initgr_add(struct nss_reply *r, const uint32_t *gids, size_t num);

/* Netgroups: a triple (NULL fields are sent as "", which the client reads as "any"), or
 * the name of a member netgroup (non-empty) for the client to expand. */
errno_t nss_reply_netgr_triple_add(struct nss_reply *r, const char *host, const char *user,
                                   const char *domain);
errno_t nss_reply_netgr_member_add(struct nss_reply *r, const char *name);
/* SETNETGRENT counts the netgroup itself as one more result (SSSD 2.5 and later: "found"),
 * so an empty netgroup is found, with no records. EINVAL past UINT32_MAX. */
errno_t nss_reply_netgr_found(struct nss_reply *r);

/* GETORIGBYNAME / GETORIGBYUSERNAME (libsss_nss_idmap's sss_nss_getorigbyname): one result,
 * the object's type (SSS_ID_TYPE_*) then its key, value strings (pairs: NULL-terminated,
 * an even count; EINVAL otherwise). */
errno_t nss_reply_orig_add(struct nss_reply *r, uint32_t id_type, const char *const *pairs);

uint32_t nss_reply_num_results(struct nss_reply *r);

/* Bytes of the body so far, the two counters included. */
size_t nss_reply_body_len(struct nss_reply *r);

/* The finished reply (num_results written), stolen by the caller onto mem_ctx for
 * resp_request_done(); r itself is freed. NULL on a NULL r. */
struct resp_reply *nss_reply_finish(TALLOC_CTX *mem_ctx, struct nss_reply *r);

#endif /* NSS_PROTOCOL_H */
