/*
 * The messages between sssd_be and krb5_child (krb5_child_msg.c). sssd_be writes one
 * request on the child's stdin and closes it; the child answers with one response on its
 * stdout and exits. Both sides parse what the other wrote, so both decoders treat their
 * input as hostile: every length is checked against what is left, strings must not hold
 * NUL, and the whole message is bounded by KRB5_CHILD_MSG_MAX.
 *
 * Wire format (host byte order: both ends are the same machine):
 *   request   u32 magic, u32 cmd, u32 flags, u32 uid, u32 gid, i32 lifetime,
 *             i32 renewable_lifetime, i32 hint enctype, u32 hint iterations, then
 *             strings (u32 len + bytes, no NUL): principal, ccname, keytab, password,
 *             new_password, realm, hint salt, service
 *   response  u32 magic, u32 status, i64 endtime, i64 renew_till, i32 hint enctype,
 *             u32 hint iterations, then strings: ccname (the final name, XXXXXX filled
 *             in), hint salt (the one learned), message (the KDC's or kpasswd's text,
 *             shown to the user)
 * A salt hint is what the KDC answered for the principal's long-term key (its
 * PA-ETYPE-INFO2: an AES enctype, the salt, the iteration count) at the last login that
 * succeeded; enctype 0: none. The salt is not secret (the KDC gives it to anyone asking).
 */
#ifndef SSS_KRB5_CHILD_MSG_H
#define SSS_KRB5_CHILD_MSG_H

#include <stdint.h>
#include <stddef.h>
#include <talloc.h>

#include "util/util.h"

#define KRB5_CHILD_MSG_MAX 65536
#define KRB5_CHILD_REQ_MAGIC 0x6b356331u    /* "k5c1" */
#define KRB5_CHILD_RSP_MAGIC 0x6b357231u    /* "k5r1" */

enum krb5_child_cmd {
    KRB5_CHILD_AUTH = 1,        /* AS-REQ with the password, ccache written as the user */
    KRB5_CHILD_CHPASS_PRELIM,   /* the old password checked (a kadmin/changepw ticket) */
    KRB5_CHILD_CHPASS,          /* kpasswd with the new password, then a fresh TGT */
    KRB5_CHILD_RENEW,           /* renew the TGT in ccname, as the user */
    KRB5_CHILD_KEYTAB_TGT,      /* a TGT for principal from keytab into ccname (as root) */
    KRB5_CHILD_CMD_MAX = KRB5_CHILD_KEYTAB_TGT,
};

#define KRB5_CHILD_F_VALIDATE      0x01    /* verify the TGT against the keytab's host key */
#define KRB5_CHILD_F_CANONICALIZE  0x02
#define KRB5_CHILD_F_ENTERPRISE    0x04    /* parse the principal as an enterprise name */
#define KRB5_CHILD_F_ALL           0x07

/* The enctypes a salt hint may name (krb5_child derives their keys itself): RFC 3962's
 * aes128/256-cts-hmac-sha1-96 (17, 18) and RFC 8009's (19, 20). */
#define KRB5_CHILD_HINT_ETYPE_MIN  17
#define KRB5_CHILD_HINT_ETYPE_MAX  20
#define KRB5_CHILD_HINT_SALT_MAX   512

struct krb5_child_salt_hint {
    int32_t etype;                  /* 0: no hint */
    uint32_t iter;                  /* the PBKDF2 rounds the KDC named */
    const char *salt;               /* NULL is encoded as "" */
};

enum krb5_child_status {
    KRB5_CHILD_OK = 0,
    KRB5_CHILD_WRONG_PASSWORD,      /* preauth failed, integrity failure */
    KRB5_CHILD_UNKNOWN_PRINCIPAL,
    KRB5_CHILD_KDC_UNREACHABLE,     /* no KDC (or kpasswd server) answered */
    KRB5_CHILD_PASSWORD_EXPIRED,    /* the KDC wants a new password first */
    KRB5_CHILD_CHPASS_REJECTED,     /* kpasswd refused the new password: see message */
    KRB5_CHILD_VALIDATE_FAILED,     /* the TGT could not be verified with the host key */
    KRB5_CHILD_CCACHE_FAILED,       /* the ccache could not be written safely */
    KRB5_CHILD_ACCOUNT_LOCKED,      /* client revoked / disabled */
    KRB5_CHILD_ERROR,               /* anything else */
    KRB5_CHILD_STATUS_MAX = KRB5_CHILD_ERROR,
};

struct krb5_child_req {
    uint32_t cmd;
    uint32_t flags;
    uint32_t uid;
    uint32_t gid;
    int32_t lifetime;               /* seconds, 0: the KDC's default */
    int32_t renewable_lifetime;     /* seconds, 0: not renewable */
    const char *principal;          /* never NULL after decoding ("" when absent) */
    const char *ccname;
    const char *keytab;
    const char *password;           /* wiped when the decoded request is freed */
    const char *new_password;
    const char *realm;
    const char *service;            /* KEYTAB_TGT: a service ticket to get as well ("") */
    struct krb5_child_salt_hint hint;   /* AUTH: the first AS-REQ pre-authenticates */
};

struct krb5_child_rsp {
    uint32_t status;
    int64_t endtime;
    int64_t renew_till;
    const char *ccname;
    const char *message;
    struct krb5_child_salt_hint hint;   /* AUTH, OK: what this login's key was made from */
};

/* Encodes into a buffer on mem_ctx (wiped when freed: it carries passwords).
 * Errors: EINVAL (NULL string, cmd/flags out of range), E2BIG, ENOMEM. */
errno_t krb5_child_req_encode(TALLOC_CTX *mem_ctx, const struct krb5_child_req *req,
                              uint8_t **_buf, size_t *_len);
/* Decodes buf; the strings live on *_req (passwords wiped when it is freed).
 * Errors: EBADMSG (malformed, trailing bytes), E2BIG, ENOMEM. */
errno_t krb5_child_req_decode(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
                              struct krb5_child_req **_req);

errno_t krb5_child_rsp_encode(TALLOC_CTX *mem_ctx, const struct krb5_child_rsp *rsp,
                              uint8_t **_buf, size_t *_len);
errno_t krb5_child_rsp_decode(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
                              struct krb5_child_rsp **_rsp);

#endif /* SSS_KRB5_CHILD_MSG_H */
