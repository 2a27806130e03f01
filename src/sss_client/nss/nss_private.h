/*
 * Internals of libnss_sss shared by its files: the request wrapper around the socket client,
 * the reply parsers (pure functions over byte buffers, also used by the memory-cache reader
 * and the fuzz harness), and the per-process enumeration state. Nothing here is exported
 * (nss_sss.exports keeps only _nss_sss_*).
 */
#ifndef NSS_PRIVATE_H
#define NSS_PRIVATE_H

#include <grp.h>
#include <nss.h>
#include <pthread.h>
#include <pwd.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Longest name sent: the request (header, name, NUL, an _EX flag) stays under the server's
 * 1024-byte limit. */
#define NSS_SSS_NAME_MAX        1000

/* Smallest record of each kind: two uint32 and the NUL of every string. */
#define NSS_PW_REC_MIN          (8 + 5)
#define NSS_GR_REC_MIN          (8 + 2)

/* --- nss_request.c --- */

/* True when _SSS_LOOPS=NO: every entry point answers NOTFOUND without any lookup. */
int nss_sss_loops_disabled(void);

/* Checks a name to send: 0 and its length, ENOENT when NULL or empty, EINVAL when too long. */
int nss_sss_check_name(const char *name, size_t *len);

/* Sends a request to sssd_nss. SUCCESS with a malloc'ed reply body (free it), or the status
 * to return with *errnop set: UNAVAIL/ENOENT when no daemon runs, TRYAGAIN/EAGAIN when the
 * daemon says so, UNAVAIL with the errno otherwise. */
enum nss_status nss_sss_request(uint32_t cmd, const void *body, size_t body_len,
                                uint8_t **reply, size_t *reply_len, int *errnop);

/* Maps a parser or memory-cache result to an NSS status: 0 SUCCESS, ENOENT NOTFOUND,
 * ERANGE TRYAGAIN, ENOMEM TRYAGAIN, anything else UNAVAIL/EBADMSG. Sets *errnop unless 0. */
enum nss_status nss_sss_status(int ret, int *errnop);
/* nss_sss_request on the process's shared enumeration connection (the server keeps the
 * cursor per connection, and set/get/end*ent may come from different threads). */
enum nss_status nss_sss_enum_request(uint32_t cmd, const void *body, size_t body_len,
                                     uint8_t **reply, size_t *reply_len, int *errnop);

#ifdef SSS_CLIENT_TEST
/* Test builds only: close the module's connection. */
void sss_nss_test_close(void);
#endif

/* --- nss_parse.c: 0, ERANGE (buffer too small), EBADMSG (malformed) --- */

/* The reply's num_results; EBADMSG when the body is shorter than its 8-byte head. */
int nss_reply_count(const uint8_t *body, size_t len, uint32_t *count);

/* Fills pw from uid, gid and the five strings name, passwd, gecos, dir, shell found at the
 * start of strs (at most strs_len bytes); *used gets their size. */
int nss_fill_passwd(uint32_t uid, uint32_t gid, const char *strs, size_t strs_len,
                    size_t *used, struct passwd *pw, char *buf, size_t buflen);

/* Fills gr from gid and the strings name, passwd and nmem members; *used gets their size.
 * A buffer too small for nmem + 1 pointers and nmem + 2 bytes is ERANGE (*used 0) before
 * the strings are checked. */
int nss_fill_group(uint32_t gid, uint32_t nmem, const char *strs, size_t strs_len,
                   size_t *used, struct group *gr, char *buf, size_t buflen);

/* One record of a reply at p (len bytes left); *consumed gets its size. */
int nss_parse_passwd(const uint8_t *p, size_t len, size_t *consumed,
                     struct passwd *pw, char *buf, size_t buflen);
int nss_parse_group(const uint8_t *p, size_t len, size_t *consumed,
                    struct group *gr, char *buf, size_t buflen);

/* A whole by-name or by-id reply: exactly 0 (ENOENT) or 1 record. */
int nss_parse_one_passwd(const uint8_t *body, size_t len,
                         struct passwd *pw, char *buf, size_t buflen);
int nss_parse_one_group(const uint8_t *body, size_t len,
                        struct group *gr, char *buf, size_t buflen);

/* An initgroups reply: *gids points at count raw uint32 gids inside body. ENOENT: none. */
int nss_parse_initgr(const uint8_t *body, size_t len, const uint8_t **gids, uint32_t *count);

/* Appends count raw uint32 gids to *groups exactly as SSSD's module does (every gid, the
 * primary one included: glibc removes duplicates): when the room left is too small, *size
 * grows by count, capped at limit when limit > 0, and only what fits is added. 0 or ENOMEM
 * (nothing added). */
int nss_add_gids(const uint8_t *gids, uint32_t count, long int *start, long int *size,
                 gid_t **groups, long int limit);

/* One netgroup record (SETNETGRENT reply): a triple (member NULL; an empty field is
 * given as NULL, which glibc reads as "any") or the name of a member netgroup. */
struct nss_netgr_ent {
    int is_triple;
    const char *host;
    const char *user;
    const char *domain;
    const char *member;
};

/* One netgroup record at p (len bytes left): its strings are copied into buf and ent
 * points at them; *consumed gets the record's size. ERANGE leaves ent as it was. */
int nss_parse_netgr(const uint8_t *p, size_t len, size_t *consumed,
                    struct nss_netgr_ent *ent, char *buf, size_t buflen);

/* --- nss_enum.c: set/get/end*ent with a per-process buffer of records --- */

typedef int (*nss_enum_parse_fn)(const uint8_t *p, size_t len, size_t *consumed,
                                 void *result, char *buf, size_t buflen);

struct nss_enum {
    pthread_mutex_t lock;
    uint8_t *buf;           /* last GET*ENT reply body */
    size_t len;
    size_t pos;             /* next record */
    uint32_t left;          /* records not handed out yet */
};

#define NSS_ENUM_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0 }

/* The set/get/end*ent entry points' whole work: the _SSS_LOOPS guard, the shared
 * enumeration connection, and errno kept on success. */
enum nss_status nss_enum_set(struct nss_enum *e, uint32_t cmd);
enum nss_status nss_enum_get(struct nss_enum *e, uint32_t cmd, size_t rec_min,
                             nss_enum_parse_fn parse, void *result,
                             char *buf, size_t buflen, int *errnop);
enum nss_status nss_enum_end(struct nss_enum *e, uint32_t cmd);
/* The process's two enumerations, and their fork-child reset (nss_request.c). */
extern struct nss_enum nss_pw_enum;
extern struct nss_enum nss_gr_enum;
void nss_enum_after_fork(void);

#endif /* NSS_PRIVATE_H */
