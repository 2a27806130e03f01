/*
 * krb5_child: the short-lived process that does sssd_be's blocking Kerberos work (AS-REQ
 * with a password, kpasswd, TGT validation, renewal, a TGT from a keytab). sssd_be starts
 * one per request (often ahead of time: it then sets libkrb5 up and waits), writes one
 * request on its stdin (krb5_child_msg.h), reads one response from its stdout and kills
 * it at krb5_auth_timeout, so the back-end's loop never waits on a KDC.
 *
 * Privileges: the KDC exchange and the validation against the host keytab run as root
 * (the keytab is root's); the ccache is then written after dropping to the user's uid and
 * gid for good, so the file is the user's, mode 0600, in a directory that is the user's,
 * mode 0700. A FILE: cache is written to a fresh name created with O_EXCL and renamed
 * into place: a symlink planted at the final name is replaced, never followed, and one
 * that another user owns in a sticky directory makes the login fail rather than write
 * through it.
 *
 * Usage: krb5_child [-d MASK] [--logger=stderr|files]
 */
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <krb5/krb5.h>

#include "providers/krb5/krb5_child_msg.h"
#include "providers/krb5/krb5_child_asreq.h"
#include "providers/krb5/krb5_child_s2k.h"

struct k5c {
    krb5_context kctx;
    struct krb5_child_req *req;
    struct krb5_child_rsp rsp;
    krb5_principal princ;
    krb5_creds creds;
    bool have_creds;
    krb5_creds *svc;                /* KEYTAB_TGT: the service ticket stored beside the TGT */
    krb5_creds *svc2;               /* ... and under the realm's name, when svc is a referral */
    bool have_svc;
    char banner[1024];              /* what libkrb5 had to tell the user (SSS_PAM_TEXT_MSG) */
    TALLOC_CTX *mem_ctx;            /* the request's */
};

/* libkrb5's prompter. The password is always given, so a prompt asking for input (a
 * pre-authentication mechanism wanting more) is refused; a banner alone, such as the
 * KDC's "your password will expire" warning, is kept for the user, as SSSD's
 * krb5_child sends it as a plain text message. */
static krb5_error_code k5c_prompter(krb5_context kctx, void *data, const char *name,
                                    const char *banner, int num_prompts,
                                    krb5_prompt prompts[])
{
    struct k5c *c = data;
    size_t used;

    (void)kctx;
    (void)name;
    (void)prompts;
    if (num_prompts > 0) {
        return KRB5_LIBOS_CANTREADPWD;
    }
    if (banner != NULL && banner[0] != '\0') {
        used = strlen(c->banner);
        DEBUG(SSSDBG_TRACE_FUNC, "message for the user: %s\n", banner);
        (void)snprintf(c->banner + used, sizeof(c->banner) - used, "%s%s",
                       used > 0 ? "\n" : "", banner);
    }
    return 0;
}

static void k5c_log_krb(struct k5c *c, krb5_error_code kerr, const char *what)
{
    const char *msg = krb5_get_error_message(c->kctx, kerr);

    DEBUG(SSSDBG_OP_FAILURE, "%s: %d: %s\n", what, (int)kerr, msg);
    krb5_free_error_message(c->kctx, msg);
}

static uint32_t k5c_status(krb5_error_code kerr)
{
    switch (kerr) {
    case 0:
        return KRB5_CHILD_OK;
    case KRB5KDC_ERR_PREAUTH_FAILED:
    case KRB5KRB_AP_ERR_BAD_INTEGRITY:
    case KRB5KRB_AP_ERR_MODIFIED:
    case KRB5_PREAUTH_FAILED:
        return KRB5_CHILD_WRONG_PASSWORD;
    case KRB5KDC_ERR_C_PRINCIPAL_UNKNOWN:
        return KRB5_CHILD_UNKNOWN_PRINCIPAL;
    case KRB5_KDC_UNREACH:
    case KRB5_REALM_CANT_RESOLVE:
    case KRB5_REALM_UNKNOWN:
    case KRB5_KDCREP_SKEW:
        return KRB5_CHILD_KDC_UNREACHABLE;
    case KRB5KDC_ERR_KEY_EXP:
        return KRB5_CHILD_PASSWORD_EXPIRED;
    case KRB5KDC_ERR_CLIENT_REVOKED:
        return KRB5_CHILD_ACCOUNT_LOCKED;
    default:
        return KRB5_CHILD_ERROR;
    }
}

/* An enterprise name (krb5_use_enterprise_principal) takes the default realm: krb5_realm
 * here, as in SSSD, not whatever the host's krb5.conf says (or does not say). */
static krb5_error_code k5c_parse_principal(struct k5c *c)
{
    krb5_error_code kerr;

    if ((c->req->flags & KRB5_CHILD_F_ENTERPRISE) == 0) {
        return krb5_parse_name(c->kctx, c->req->principal, &c->princ);
    }
    if (c->req->realm[0] != '\0') {
        kerr = krb5_set_default_realm(c->kctx, c->req->realm);
        if (kerr != 0) {
            return kerr;
        }
    }
    return krb5_parse_name_flags(c->kctx, c->req->principal, KRB5_PRINCIPAL_PARSE_ENTERPRISE,
                                 &c->princ);
}

/* The AS exchange (krb5_child_asreq.c); service NULL: a TGT, optimistic with hint, and a
 * key from the KDC's AES salt gives the response's salt hint. */
static krb5_error_code k5c_get_creds(struct k5c *c, const char *password, const char *service,
                                     const struct krb5_child_salt_hint *hint)
{
    struct k5c_asreq a = {
        .kctx = c->kctx, .req = c->req, .princ = c->princ, .password = password,
        .service = service, .prompter = service == NULL ? k5c_prompter : NULL,
        .prompter_data = c, .hint = hint,
    };
    krb5_error_code kerr;

    if (c->have_creds) {
        krb5_free_cred_contents(c->kctx, &c->creds);
        c->have_creds = false;
    }
    kerr = k5c_asreq_password(c->mem_ctx, &a, &c->creds, &c->rsp.hint);
    c->have_creds = kerr == 0;
    return kerr;
}

/* krb5_validate: a service ticket for a host key in the keytab, decrypted with that key.
 * A KDC that does not know the key (a spoofed one) cannot make one. */
static krb5_error_code k5c_validate(struct k5c *c)
{
    krb5_verify_init_creds_opt vopts;
    krb5_keytab kt = NULL;
    krb5_error_code kerr;

    if (c->req->keytab[0] != '\0') {
        kerr = krb5_kt_resolve(c->kctx, c->req->keytab, &kt);
    } else {
        kerr = krb5_kt_default(c->kctx, &kt);
    }
    if (kerr != 0) {
        return kerr;
    }
    krb5_verify_init_creds_opt_init(&vopts);
    krb5_verify_init_creds_opt_set_ap_req_nofail(&vopts, 1);
    kerr = krb5_verify_init_creds(c->kctx, &c->creds, NULL, kt, NULL, &vopts);
    krb5_kt_close(c->kctx, kt);
    return kerr;
}

/* For good: real, effective and saved ids, and no supplementary groups. */
static errno_t k5c_become_user(uint32_t uid, uint32_t gid)
{
    gid_t g = (gid_t)gid;

    if (getuid() == uid && geteuid() == uid && getgid() == gid) {
        return EOK;
    }
    if (setgroups(1, &g) != 0 || setresgid(gid, gid, gid) != 0
            || setresuid(uid, uid, uid) != 0) {
        return errno;
    }
    if (setuid(0) == 0 && uid != 0) {
        return EPERM;   /* the drop did not stick */
    }
    return EOK;
}

/* A directory of the user's: created (0700) when missing, else it must be a real directory
 * (lstat: not a symlink) owned by the user. Missing parents are created the same way. */
static errno_t k5c_user_dir(char *path, uid_t uid, bool create_parents)
{
    struct stat st;
    char *slash;
    errno_t ret;

    if (lstat(path, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            DEBUG(SSSDBG_CRIT_FAILURE, "[%s] is not a directory (a symlink?): refused\n", path);
            return EPERM;
        }
        /* Another user's directory could swap the cache under the user's feet; root's
         * (like /tmp or /run/user) is fine. */
        if (st.st_uid != uid && st.st_uid != 0) {
            DEBUG(SSSDBG_CRIT_FAILURE, "[%s] belongs to uid %u, not to uid %u nor root: "
                  "refused\n", path, (unsigned)st.st_uid, (unsigned)uid);
            return EPERM;
        }
        return EOK;
    }
    if (errno != ENOENT) {
        return errno;
    }
    if (create_parents) {
        slash = strrchr(path, '/');
        if (slash != NULL && slash != path) {
            *slash = '\0';
            ret = k5c_user_dir(path, uid, true);
            *slash = '/';
            if (ret != EOK) {
                return ret;
            }
        }
    }
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        return errno;
    }
    if (lstat(path, &st) != 0) {
        return errno;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != uid) {
        return EPERM;
    }
    return EOK;
}

/* A DIR: collection holds every cache of the user: the user's alone, no one else writes. */
static bool k5c_private_dir(const char *path, uid_t uid)
{
    struct stat st;

    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid
           && (st.st_mode & 022) == 0;
}

static krb5_error_code k5c_store(struct k5c *c, const char *ccname)
{
    krb5_ccache cc = NULL;
    krb5_error_code kerr;

    kerr = krb5_cc_resolve(c->kctx, ccname, &cc);
    if (kerr == 0) {
        kerr = krb5_cc_initialize(c->kctx, cc, c->creds.client);
    }
    if (kerr == 0) {
        kerr = krb5_cc_store_cred(c->kctx, cc, &c->creds);
    }
    if (kerr == 0 && c->have_svc) {
        kerr = krb5_cc_store_cred(c->kctx, cc, c->svc);
    }
    if (kerr == 0 && c->svc2 != NULL) {
        kerr = krb5_cc_store_cred(c->kctx, cc, c->svc2);
    }
    if (cc != NULL) {
        krb5_cc_close(c->kctx, cc);
    }
    return kerr;
}

/* FILE:path: a fresh file (O_EXCL, 0600) beside the final name, filled, renamed over it.
 * A name ending in XXXXXX is made unique and is itself the final name. */
static errno_t k5c_write_file_cc(TALLOC_CTX *mem_ctx, struct k5c *c, const char *path,
                                 const char **_ccname)
{
    size_t len = strlen(path);
    bool unique = len >= 6 && strcmp(path + len - 6, "XXXXXX") == 0;
    char *tmp;
    char *dir;
    char *slash;
    const char *final;
    krb5_error_code kerr;
    int fd;
    errno_t ret;

    if (path[0] != '/') {
        return EINVAL;
    }
    dir = talloc_strdup(mem_ctx, path);
    tmp = unique ? talloc_strdup(mem_ctx, path) : talloc_asprintf(mem_ctx, "%s.XXXXXX", path);
    if (dir == NULL || tmp == NULL) {
        return ENOMEM;
    }
    slash = strrchr(dir, '/');
    if (slash != dir) {
        *slash = '\0';
        ret = k5c_user_dir(dir, c->req->uid, true);
        if (ret != EOK) {
            DEBUG(SSSDBG_CRIT_FAILURE, "ccache directory [%s]: %s\n", dir, strerror(ret));
            return ret;
        }
    }
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        ret = errno;
        DEBUG(SSSDBG_CRIT_FAILURE, "cannot create a ccache in [%s]: %s\n", dir, strerror(ret));
        return ret;
    }
    (void)fchmod(fd, 0600);
    close(fd);
    kerr = k5c_store(c, talloc_asprintf(mem_ctx, "FILE:%s", tmp));
    if (kerr != 0) {
        k5c_log_krb(c, kerr, "writing the ccache");
        unlink(tmp);
        return EIO;
    }
    final = unique ? tmp : path;
    if (!unique && rename(tmp, final) != 0) {
        ret = errno;
        DEBUG(SSSDBG_CRIT_FAILURE, "cannot put the ccache at [%s]: %s (left alone)\n", final,
              strerror(ret));
        unlink(tmp);
        return ret;
    }
    *_ccname = talloc_asprintf(mem_ctx, "FILE:%s", final);
    return *_ccname == NULL ? ENOMEM : EOK;
}

static errno_t k5c_write_cc(TALLOC_CTX *mem_ctx, struct k5c *c)
{
    const char *name = c->req->ccname;
    char *dir;
    krb5_error_code kerr;
    errno_t ret;

    if (strncmp(name, "FILE:", 5) == 0 || name[0] == '/') {
        return k5c_write_file_cc(mem_ctx, c, name[0] == '/' ? name : name + 5,
                                 &c->rsp.ccname);
    }
    if (strncmp(name, "DIR:", 4) == 0) {
        dir = talloc_strdup(mem_ctx, name + 4);
        if (dir == NULL) {
            return ENOMEM;
        }
        if (dir[0] != '/') {
            return EINVAL;
        }
        ret = k5c_user_dir(dir, c->req->uid, true);
        if (ret == EOK && !k5c_private_dir(dir, c->req->uid)) {
            ret = EPERM;
        }
        if (ret != EOK) {
            DEBUG(SSSDBG_CRIT_FAILURE, "ccache directory [%s]: %s\n", dir, strerror(ret));
            return ret;
        }
    }
    /* DIR: (checked above), KEYRING:, KCM:: libkrb5 writes them as this (the user's)
     * process. */
    kerr = k5c_store(c, name);
    if (kerr != 0) {
        k5c_log_krb(c, kerr, "writing the ccache");
        return EIO;
    }
    c->rsp.ccname = name;
    return EOK;
}

static void k5c_set_times(struct k5c *c)
{
    c->rsp.endtime = c->creds.times.endtime;
    c->rsp.renew_till = c->creds.times.renew_till;
}

/* After a TGT: validation (root), then the ccache (as the user). */
static uint32_t k5c_finish_tgt(TALLOC_CTX *mem_ctx, struct k5c *c)
{
    krb5_error_code kerr;
    errno_t ret;

    if (c->req->flags & KRB5_CHILD_F_VALIDATE) {
        kerr = k5c_validate(c);
        if (kerr != 0) {
            k5c_log_krb(c, kerr, "TGT validation with the host keytab");
            return KRB5_CHILD_VALIDATE_FAILED;
        }
        DEBUG(SSSDBG_TRACE_FUNC, "TGT of [%s] validated\n", c->req->principal);
    }
    k5c_set_times(c);
    if (c->req->ccname[0] == '\0') {
        return KRB5_CHILD_OK;
    }
    ret = k5c_become_user(c->req->uid, c->req->gid);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "cannot become uid %u: %s\n", c->req->uid, strerror(ret));
        return KRB5_CHILD_ERROR;
    }
    ret = k5c_write_cc(mem_ctx, c);
    return ret == EOK ? KRB5_CHILD_OK : KRB5_CHILD_CCACHE_FAILED;
}

static uint32_t k5c_auth(TALLOC_CTX *mem_ctx, struct k5c *c)
{
    krb5_error_code kerr;

    kerr = k5c_get_creds(c, c->req->password, NULL, &c->req->hint);
    if (kerr != 0) {
        k5c_log_krb(c, kerr, "AS-REQ");
        return k5c_status(kerr);
    }
    return k5c_finish_tgt(mem_ctx, c);
}

static uint32_t k5c_chpass(TALLOC_CTX *mem_ctx, struct k5c *c, bool prelim)
{
    krb5_data code_str = { 0 };
    krb5_data result = { 0 };
    char *msg = NULL;
    int code = 0;
    krb5_error_code kerr;

    kerr = k5c_get_creds(c, c->req->password, "kadmin/changepw", NULL);
    if (kerr != 0) {
        k5c_log_krb(c, kerr, "AS-REQ for kadmin/changepw");
        return k5c_status(kerr);
    }
    if (prelim) {
        return KRB5_CHILD_OK;
    }
    kerr = krb5_change_password(c->kctx, &c->creds, c->req->new_password, &code, &code_str,
                                &result);
    if (kerr != 0) {
        k5c_log_krb(c, kerr, "kpasswd");
        return k5c_status(kerr);
    }
    if (code != 0) {
        /* The server's policy text (MIT's plain text, AD's policy blob made readable). */
        if (krb5_chpw_message(c->kctx, &result, &msg) == 0 && msg != NULL) {
            c->rsp.message = talloc_strdup(mem_ctx, msg);
            krb5_free_string(c->kctx, msg);
        }
        DEBUG(SSSDBG_OP_FAILURE, "kpasswd refused the new password: %d %.*s: %s\n", code,
              (int)code_str.length, code_str.data,
              c->rsp.message != NULL ? c->rsp.message : "");
        if (c->rsp.message == NULL || c->rsp.message[0] == '\0') {
            c->rsp.message = talloc_asprintf(mem_ctx, "%.*s", (int)code_str.length,
                                             code_str.data);
        }
        krb5_free_data_contents(c->kctx, &code_str);
        krb5_free_data_contents(c->kctx, &result);
        return KRB5_CHILD_CHPASS_REJECTED;
    }
    krb5_free_data_contents(c->kctx, &code_str);
    krb5_free_data_contents(c->kctx, &result);
    DEBUG(SSSDBG_TRACE_FUNC, "password of [%s] changed\n", c->req->principal);
    /* A fresh TGT with the new password, as SSSD does (the KDC may need a moment). */
    kerr = k5c_get_creds(c, c->req->new_password, NULL, NULL);
    if (kerr != 0) {
        k5c_log_krb(c, kerr, "AS-REQ with the new password");
        return KRB5_CHILD_OK;
    }
    return k5c_finish_tgt(mem_ctx, c);
}

static uint32_t k5c_renew(TALLOC_CTX *mem_ctx, struct k5c *c)
{
    krb5_ccache cc = NULL;
    krb5_error_code kerr;
    errno_t ret;

    /* Renewal touches only the user's own cache: as the user from the start. */
    ret = k5c_become_user(c->req->uid, c->req->gid);
    if (ret != EOK) {
        return KRB5_CHILD_ERROR;
    }
    kerr = krb5_cc_resolve(c->kctx, c->req->ccname, &cc);
    if (kerr == 0) {
        krb5_free_principal(c->kctx, c->princ);
        c->princ = NULL;
        kerr = krb5_cc_get_principal(c->kctx, cc, &c->princ);
    }
    if (kerr == 0) {
        kerr = krb5_get_renewed_creds(c->kctx, &c->creds, c->princ, cc, NULL);
        c->have_creds = kerr == 0;
    }
    if (kerr == 0) {
        kerr = krb5_cc_initialize(c->kctx, cc, c->princ);
    }
    if (kerr == 0) {
        kerr = krb5_cc_store_cred(c->kctx, cc, &c->creds);
    }
    if (cc != NULL) {
        krb5_cc_close(c->kctx, cc);
    }
    if (kerr != 0) {
        k5c_log_krb(c, kerr, "renewal");
        return k5c_status(kerr);
    }
    k5c_set_times(c);
    c->rsp.ccname = c->req->ccname;
    return KRB5_CHILD_OK;
}

/* A service ticket with the TGT just obtained (through a memory cache): the back-end's
 * GSSAPI bind then finds it in the ccache and never asks a KDC from its event loop. */
static krb5_error_code k5c_service_ticket(struct k5c *c)
{
    krb5_ccache mcc = NULL;
    krb5_creds in;
    krb5_creds *out = NULL;
    krb5_error_code kerr;

    memset(&in, 0, sizeof(in));
    kerr = krb5_cc_new_unique(c->kctx, "MEMORY", NULL, &mcc);
    if (kerr == 0) {
        kerr = krb5_cc_initialize(c->kctx, mcc, c->creds.client);
    }
    if (kerr == 0) {
        kerr = krb5_cc_store_cred(c->kctx, mcc, &c->creds);
    }
    if (kerr == 0) {
        /* "ldap/host": the name GSSAPI will look for (a host-based service, the referral
         * realm); the ticket is stored under that name and under the realm's. */
        kerr = strchr(c->req->service, '@') != NULL
               ? krb5_parse_name(c->kctx, c->req->service, &in.server)
               : krb5_parse_name_flags(c->kctx, c->req->service,
                                       KRB5_PRINCIPAL_PARSE_NO_REALM, &in.server);
    }
    if (kerr == 0 && strchr(c->req->service, '@') == NULL) {
        in.server->type = KRB5_NT_SRV_HST;
    }
    if (kerr == 0) {
        in.client = c->creds.client;
        kerr = krb5_get_credentials(c->kctx, 0, mcc, &in, &out);
        in.client = NULL;
    }
    if (kerr == 0) {
        c->svc = out;
        c->have_svc = true;
        out = NULL;
        if (krb5_is_referral_realm(&c->svc->server->realm)
                && krb5_copy_creds(c->kctx, c->svc, &c->svc2) == 0) {
            (void)krb5_set_principal_realm(c->kctx, c->svc2->server, c->req->realm);
        }
    }
    krb5_free_creds(c->kctx, out);
    krb5_free_principal(c->kctx, in.server);
    if (mcc != NULL) {
        krb5_cc_destroy(c->kctx, mcc);
    }
    return kerr;
}

/* The back-end's own TGT (ldap_krb5_keytab), and the LDAP service ticket: into its
 * private ccache, written as a new file renamed into place (a bind reading the old one
 * meanwhile sees one or the other, whole). Stays root: the ccache is the back-end's. */
static uint32_t k5c_keytab_tgt(TALLOC_CTX *mem_ctx, struct k5c *c)
{
    krb5_get_init_creds_opt *opts = NULL;
    krb5_keytab kt = NULL;
    krb5_error_code kerr;
    errno_t ret;

    kerr = c->req->keytab[0] != '\0' ? krb5_kt_resolve(c->kctx, c->req->keytab, &kt)
                                     : krb5_kt_default(c->kctx, &kt);
    if (kerr == 0) {
        kerr = krb5_get_init_creds_opt_alloc(c->kctx, &opts);
    }
    if (kerr == 0) {
        if (c->req->lifetime > 0) {
            krb5_get_init_creds_opt_set_tkt_life(opts, c->req->lifetime);
        }
        krb5_get_init_creds_opt_set_canonicalize(opts,
                                            (c->req->flags & KRB5_CHILD_F_CANONICALIZE) != 0);
        kerr = krb5_get_init_creds_keytab(c->kctx, &c->creds, c->princ, kt, 0, NULL, opts);
        c->have_creds = kerr == 0;
    }
    if (opts != NULL) {
        krb5_get_init_creds_opt_free(c->kctx, opts);
    }
    if (kt != NULL) {
        krb5_kt_close(c->kctx, kt);
    }
    if (kerr != 0) {
        k5c_log_krb(c, kerr, "TGT from the keytab");
        return k5c_status(kerr);
    }
    if (c->req->service[0] != '\0') {
        kerr = k5c_service_ticket(c);
        if (kerr != 0) {
            k5c_log_krb(c, kerr, "service ticket");
            return k5c_status(kerr);
        }
    }
    k5c_set_times(c);
    if (c->req->ccname[0] == '\0') {
        return KRB5_CHILD_OK;
    }
    ret = k5c_write_cc(mem_ctx, c);
    DEBUG(SSSDBG_TRACE_FUNC, "TGT of [%s]%s%s in %s: %s\n", c->req->principal,
          c->have_svc ? " and " : "", c->have_svc ? c->req->service : "", c->req->ccname,
          ret == EOK ? "written" : strerror(ret));
    return ret == EOK ? KRB5_CHILD_OK : KRB5_CHILD_CCACHE_FAILED;
}

/* What the first AS-REQ of a context would load, done while a spare waits: the
 * pre-authentication plugins (spake.so, and libcrypto with it: ~3 ms of dlopen and
 * relocations, measured with strace -T), the time zone and OpenSSL's own set-up for the
 * string-to-key (krb5_child_s2k.c: ~1.4 ms). The first step of a throw-away
 * initial-creds context for a made-up principal loads them into kctx: it only encodes an
 * AS-REQ, which is dropped; nothing is sent (strace: no socket). */
static void k5c_warm_up(krb5_context kctx)
{
    krb5_init_creds_context icc = NULL;
    krb5_principal p = NULL;
    krb5_data in = { 0 };
    krb5_data out = { 0 };
    krb5_data realm = { 0 };
    unsigned int flags = 0;

    tzset();
    k5s2k_warm_up();
    if (krb5_build_principal(kctx, &p, 7, "WARM.UP", "spare", NULL) == 0
            && krb5_init_creds_init(kctx, p, NULL, NULL, 0, NULL, &icc) == 0) {
        (void)krb5_init_creds_step(kctx, icc, &in, &out, &realm, &flags);
        krb5_free_data_contents(kctx, &out);
        krb5_free_data_contents(kctx, &realm);
        krb5_init_creds_free(kctx, icc);
    }
    krb5_free_principal(kctx, p);
}

static errno_t k5c_read_all(TALLOC_CTX *mem_ctx, int fd, uint8_t **_buf, size_t *_len)
{
    uint8_t *buf = talloc_size(mem_ctx, KRB5_CHILD_MSG_MAX + 1);
    size_t len = 0;
    ssize_t n;

    if (buf == NULL) {
        return ENOMEM;
    }
    while (len <= KRB5_CHILD_MSG_MAX) {
        n = read(fd, buf + len, KRB5_CHILD_MSG_MAX + 1 - len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return errno;
        }
        if (n == 0) {
            *_buf = buf;
            *_len = len;
            return EOK;
        }
        len += (size_t)n;
    }
    return E2BIG;
}

static errno_t k5c_write_all(int fd, const uint8_t *buf, size_t len)
{
    ssize_t n;

    while (len > 0) {
        n = write(fd, buf, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return n < 0 ? errno : EIO;
        }
        buf += n;
        len -= (size_t)n;
    }
    return EOK;
}

int main(int argc, char *argv[])
{
    static const struct option longopts[] = {
        { "debug-level", required_argument, NULL, 'd' },
        { "logger", required_argument, NULL, 'l' },
        { NULL, 0, NULL, 0 },
    };
    enum sss_logger logger = SSS_LOGGER_STDERR;
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    struct k5c c = { 0 };
    uint8_t *buf = NULL;
    size_t len = 0;
    int level = SSSDBG_DEFAULT;
    krb5_error_code kerr;
    errno_t ret;
    int opt;

    while ((opt = getopt_long(argc, argv, "d:", longopts, NULL)) != -1) {
        if (opt == 'd') {
            level = (int)strtol(optarg, NULL, 0);
        } else if (opt == 'l') {
            (void)debug_parse_logger(optarg, &logger);
        } else {
            return 2;
        }
    }
    (void)debug_init("krb5_child", level, logger, NULL);
    c.rsp.ccname = "";
    c.rsp.message = "";
    c.rsp.status = KRB5_CHILD_ERROR;
    c.mem_ctx = tmp_ctx;
    /* Before the request: a spare (krb5_child_pool.c) gets this done while it waits, and
     * holds no secret meanwhile. */
    kerr = krb5_init_context(&c.kctx);
    if (kerr == 0) {
        k5c_warm_up(c.kctx);
    }
    ret = tmp_ctx == NULL ? ENOMEM : k5c_read_all(tmp_ctx, STDIN_FILENO, &buf, &len);
    if (ret == EOK && len == 0) {
        /* A spare sssd_be let go (or sssd_be is gone): nothing to do. */
        if (c.kctx != NULL) {
            krb5_free_context(c.kctx);
        }
        talloc_free(tmp_ctx);
        return 0;
    }
    if (ret == EOK) {
        ret = krb5_child_req_decode(tmp_ctx, buf, len, &c.req);
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "bad request from sssd_be: %s\n", sss_strerror(ret));
        if (c.kctx != NULL) {
            krb5_free_context(c.kctx);
        }
        talloc_free(tmp_ctx);
        return 3;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "command %u for [%s], uid %u\n", c.req->cmd, c.req->principal,
          c.req->uid);
    if (kerr == 0 && c.req->principal[0] != '\0') {
        kerr = k5c_parse_principal(&c);
    }
    if (kerr != 0) {
        DEBUG(SSSDBG_CRIT_FAILURE, "libkrb5 set-up: %d\n", (int)kerr);
    } else {
        switch (c.req->cmd) {
        case KRB5_CHILD_AUTH:
            c.rsp.status = k5c_auth(tmp_ctx, &c);
            break;
        case KRB5_CHILD_CHPASS_PRELIM:
        case KRB5_CHILD_CHPASS:
            c.rsp.status = k5c_chpass(tmp_ctx, &c, c.req->cmd == KRB5_CHILD_CHPASS_PRELIM);
            break;
        case KRB5_CHILD_RENEW:
            c.rsp.status = k5c_renew(tmp_ctx, &c);
            break;
        case KRB5_CHILD_KEYTAB_TGT:
            c.rsp.status = k5c_keytab_tgt(tmp_ctx, &c);
            break;
        default:
            break;
        }
    }
    if (c.rsp.ccname == NULL) {
        c.rsp.ccname = "";
    }
    if (c.rsp.message == NULL) {
        c.rsp.message = "";
    }
    if (c.req->cmd == KRB5_CHILD_AUTH && c.rsp.status == KRB5_CHILD_OK) {
        c.rsp.message = c.banner;
    } else {
        /* A hint only from a login that worked (its key decrypted the KDC's answer). */
        memset(&c.rsp.hint, 0, sizeof(c.rsp.hint));
    }
    DEBUG(SSSDBG_TRACE_FUNC, "command %u for [%s]: status %u\n", c.req->cmd, c.req->principal,
          c.rsp.status);
    ret = krb5_child_rsp_encode(tmp_ctx, &c.rsp, &buf, &len);
    if (ret == EOK) {
        ret = k5c_write_all(STDOUT_FILENO, buf, len);
    }
    /* The secrets go first (the credentials, the request's wiped copies); then EOF tells
     * sssd_be the answer is whole, and the rest of the teardown (libkrb5's context, the
     * process's exit: ~0.7 ms under strace) is off the login's path. */
    if (c.kctx != NULL) {
        if (c.have_creds) {
            krb5_free_cred_contents(c.kctx, &c.creds);
        }
        if (c.have_svc) {
            krb5_free_creds(c.kctx, c.svc);
        }
        if (c.svc2 != NULL) {
            krb5_free_creds(c.kctx, c.svc2);
        }
    }
    talloc_free(tmp_ctx);
    close(STDOUT_FILENO);
    if (c.kctx != NULL) {
        krb5_free_principal(c.kctx, c.princ);
        krb5_free_context(c.kctx);
    }
    return ret == EOK ? 0 : 4;
}
