/*
 * The client wire protocol shared by the client libraries (nss_sss, pam_sss, libsss_sudo)
 * and the responders (PROTOCOL.md "Client packet"). Plain C, no talloc: the client libraries
 * include only this header. Values are SSSD's, so either side works with SSSD's other side.
 */
#ifndef SSS_CLI_H
#define SSS_CLI_H

#include <stdint.h>

/* Sockets, relative to the pipes directory. */
#define SSS_NSS_SOCKET_NAME          "nss"
#define SSS_PAM_SOCKET_NAME          "pam"
#define SSS_PAM_PRIV_SOCKET_NAME     "private/pam"
#define SSS_SUDO_SOCKET_NAME         "sudo"

/* Header: four uint32 in host byte order, then the body. */
#define SSS_NSS_HEADER_SIZE          (4 * sizeof(uint32_t))
/* A server refuses requests larger than this (header included). */
#define SSS_CLI_MAX_REQUEST_SIZE     1024
/* Client poll/connect timeout, milliseconds. */
#define SSS_CLI_SOCKET_TIMEOUT_MS    300000

/* Protocol versions answered to SSS_GET_VERSION. */
#define SSS_NSS_PROTOCOL_VERSION     1
#define SSS_PAM_PROTOCOL_VERSION     3
#define SSS_SUDO_PROTOCOL_VERSION    1

/* How many entries a client asks for per GET*ENT. */
#define SSS_NSS_GETENT_COUNT         256

enum sss_cli_command {
    SSS_GET_VERSION         = 0x0001,

    SSS_NSS_GETPWNAM        = 0x0011,
    SSS_NSS_GETPWUID        = 0x0012,
    SSS_NSS_SETPWENT        = 0x0013,
    SSS_NSS_GETPWENT        = 0x0014,
    SSS_NSS_ENDPWENT        = 0x0015,
    SSS_NSS_GETPWNAM_EX     = 0x0019,
    SSS_NSS_GETPWUID_EX     = 0x001A,

    SSS_NSS_GETGRNAM        = 0x0021,
    SSS_NSS_GETGRGID        = 0x0022,
    SSS_NSS_SETGRENT        = 0x0023,
    SSS_NSS_GETGRENT        = 0x0024,
    SSS_NSS_ENDGRENT        = 0x0025,
    SSS_NSS_INITGR          = 0x0026,
    SSS_NSS_GETGRNAM_EX     = 0x0029,
    SSS_NSS_GETGRGID_EX     = 0x002A,
    SSS_NSS_INITGR_EX       = 0x002E,

    SSS_NSS_SETNETGRENT     = 0x0061,
    SSS_NSS_GETNETGRENT     = 0x0062,
    SSS_NSS_ENDNETGRENT     = 0x0063,

    /* libsss_nss_idmap (sss_nss_idmap.h). Replies: uint32 num, 0, then one result: uint32
     * id type (enum sss_id_type) and the SID string, name, uint32 id or key, value pairs. */
    SSS_NSS_GETSIDBYNAME    = 0x0111,   /* name -> SID */
    SSS_NSS_GETSIDBYID      = 0x0112,   /* uint32 id -> SID (a user first, then a group) */
    SSS_NSS_GETNAMEBYSID    = 0x0113,   /* SID -> name */
    SSS_NSS_GETIDBYSID      = 0x0114,   /* SID -> uint32 id */
    SSS_NSS_GETORIGBYNAME   = 0x0115,   /* libsss_nss_idmap: key, value pairs */
    SSS_NSS_GETSIDBYUID     = 0x0118,
    SSS_NSS_GETSIDBYGID     = 0x0119,
    SSS_NSS_GETORIGBYUSERNAME = 0x011A,
    SSS_NSS_GETORIGBYGROUPNAME = 0x011B,
    SSS_NSS_GETSIDBYUSERNAME = 0x011C,
    SSS_NSS_GETSIDBYGROUPNAME = 0x011D,

    SSS_SUDO_GET_SUDORULES  = 0x00C1,
    SSS_SUDO_GET_DEFAULTS   = 0x00C2,

    SSS_PAM_AUTHENTICATE    = 0x00F1,
    SSS_PAM_SETCRED         = 0x00F2,
    SSS_PAM_ACCT_MGMT       = 0x00F3,
    SSS_PAM_OPEN_SESSION    = 0x00F4,
    SSS_PAM_CLOSE_SESSION   = 0x00F5,
    SSS_PAM_CHAUTHTOK       = 0x00F6,
    SSS_PAM_CHAUTHTOK_PRELIM = 0x00F7,
    SSS_CMD_RENEW           = 0x00F8,
    SSS_PAM_PREAUTH         = 0x00F9,
};

/* Header fields, as indexes into the four uint32. */
enum sss_cli_header {
    SSS_HDR_LEN = 0,        /* total length including the header */
    SSS_HDR_CMD = 1,        /* command; a reply carries the request's */
    SSS_HDR_STATUS = 2,     /* 0 ok, else an errno; EAGAIN means try again */
    SSS_HDR_RESERVED = 3,   /* 0 */
};

/* Flags of the _EX requests (uint32 after the name or id). */
#define SSS_NSS_EX_FLAG_NO_FLAGS            0
#define SSS_NSS_EX_FLAG_NO_CACHE            (1 << 0)
#define SSS_NSS_EX_FLAG_INVALIDATE_CACHE    (1 << 1)

/* Netgroup reply records (SETNETGRENT / GETNETGRENT): uint32 type, then host\0 user\0
 * domain\0 (a triple; "" for an empty field) or name\0 (a member netgroup). */
enum sss_netgr_rep_type {
    SSS_NETGR_REP_TRIPLE = 1,
    SSS_NETGR_REP_GROUP = 2,
};

/* PAM request framing and item types. */
#define SSS_START_OF_PAM_REQUEST    0x4d415049
#define SSS_END_OF_PAM_REQUEST      0x4950414d

enum pam_item_type {
    SSS_PAM_ITEM_EMPTY = 0x0000,
    SSS_PAM_ITEM_USER = 0x0001,
    SSS_PAM_ITEM_SERVICE = 0x0002,
    SSS_PAM_ITEM_TTY = 0x0003,
    SSS_PAM_ITEM_RUSER = 0x0004,
    SSS_PAM_ITEM_RHOST = 0x0005,
    SSS_PAM_ITEM_AUTHTOK = 0x0006,
    SSS_PAM_ITEM_NEWAUTHTOK = 0x0007,
    SSS_PAM_ITEM_CLI_LOCALE = 0x0008,
    SSS_PAM_ITEM_CLI_PID = 0x0009,
    SSS_PAM_ITEM_CHILD_PID = 0x000A,
    SSS_PAM_ITEM_REQUESTED_DOMAINS = 0x000B,
    SSS_PAM_ITEM_FLAGS = 0x000C,
};

enum sss_authtok_type {
    SSS_AUTHTOK_TYPE_EMPTY = 0x0000,
    SSS_AUTHTOK_TYPE_PASSWORD = 0x0001,
    SSS_AUTHTOK_TYPE_CCFILE = 0x0002,
    SSS_AUTHTOK_TYPE_2FA = 0x0003,
    SSS_AUTHTOK_TYPE_SC_PIN = 0x0004,
    SSS_AUTHTOK_TYPE_SC_KEYPAD = 0x0005,
    SSS_AUTHTOK_TYPE_2FA_SINGLE = 0x0006,
    SSS_AUTHTOK_TYPE_OAUTH2 = 0x0007,
};

/* pam_sss client flags. */
#define SSS_PAM_CLI_FLAGS_USE_FIRST_PASS          (1 << 0)
#define SSS_PAM_CLI_FLAGS_FORWARD_PASS            (1 << 1)
#define SSS_PAM_CLI_FLAGS_USE_AUTHTOK             (1 << 2)
#define SSS_PAM_CLI_FLAGS_IGNORE_UNKNOWN_USER     (1 << 3)
#define SSS_PAM_CLI_FLAGS_IGNORE_AUTHINFO_UNAVAIL (1 << 4)
#define SSS_PAM_CLI_FLAGS_PROMPT_ALWAYS           (1 << 7)

/* PAM reply item types. */
enum response_type {
    SSS_PAM_SYSTEM_INFO = 0x01,
    SSS_PAM_DOMAIN_NAME = 0x02,
    SSS_PAM_ENV_ITEM = 0x03,
    SSS_ENV_ITEM = 0x04,
    SSS_ALL_ENV_ITEM = 0x05,
    SSS_PAM_USER_INFO = 0x06,
    SSS_PAM_TEXT_MSG = 0x07,
    SSS_PAM_OTP_INFO = 0x08,            /* smart card, OTP and prompting items: pam_sss */
    SSS_PAM_CERT_INFO = 0x09,           /* skips them (no smart card or 2FA prompting) */
    SSS_OTP = 0x0A,                     /* the token was a one-time password: do not keep it */
    SSS_PASSWORD_PROMPTING = 0x0B,
    SSS_CERT_AUTH_PROMPTING = 0x0C,
    SSS_PAM_CERT_INFO_WITH_HINT = 0x0D,
    SSS_PAM_PROMPT_CONFIG = 0x0E,
};

/* The first uint32 of a SSS_PAM_USER_INFO item, and what follows it (SSSD 2.8's values). */
enum user_info_type {
    SSS_PAM_USER_INFO_OFFLINE_AUTH = 0x01,          /* int64 cached password expiry, 0 never */
    SSS_PAM_USER_INFO_OFFLINE_AUTH_DELAYED = 0x02,  /* int64 time authentication is allowed */
    SSS_PAM_USER_INFO_OFFLINE_CHPASS = 0x03,        /* nothing */
    SSS_PAM_USER_INFO_OTP_CHPASS = 0x04,            /* nothing */
    SSS_PAM_USER_INFO_CHPASS_ERROR = 0x05,          /* uint32 length, message (no NUL) */
    SSS_PAM_USER_INFO_GRACE_LOGIN = 0x06,           /* uint32 grace logins left */
    SSS_PAM_USER_INFO_EXPIRE_WARN = 0x07,           /* uint32 seconds until expiry */
    SSS_PAM_USER_INFO_ACCOUNT_EXPIRED = 0x08,       /* uint32 length, message (no NUL) */
    SSS_PAM_USER_INFO_PIN_LOCKED = 0x09,            /* nothing */
};

#endif /* SSS_CLI_H */
