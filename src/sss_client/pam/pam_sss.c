/*
 * pam_sss.so: the PAM module that hands authentication, account checks, password changes and
 * sessions to sssd_pam. This file holds the entry points and the flows: the options, the
 * PAM items, the passwords each operation needs (from the conversation or, with
 * use_first_pass/use_authtok, from the PAM stack), retries, and what happens after the
 * server answered (the "password expired" hand-over from auth to account, "password reset
 * by root"). pam_request.c sends the request and acts on the reply. Behaviour, prompts,
 * options and messages are SSSD 2.8's (facts from its pam_sss.c, checked against Debian's
 * libpam-sss 2.8.2 binary), except where a comment says "Unlike SSSD". Passwords live in
 * buffers this call owns and wipes, and in PAM_AUTHTOK / PAM_OLDAUTHTOK only where
 * forward_pass and the password-change protocol put them; they are never logged.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_appl.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "sss_client/sss_cli.h"
#include "sss_client/pam/pam_sss_private.h"

#ifndef SSSD_CONF_DIR
#error "SSSD_CONF_DIR must come from the build (configure's prefix)"
#endif

/* pam_set_data names (SSSD's, so a stack mixing the two modules still agrees). */
#define PWEXP_FLAG          "pam_sss:password_expired_flag"

#define PREAUTH_INDICATOR   SSSD_STATE_DIR "/pubconf/pam_preauth_available"

#ifdef SSS_CLIENT_TEST
/* Test builds: where the customized messages and the preauth indicator are looked for. */
static char test_conf_dir[256];
static char test_preauth[256];

void pam_sss_test_set_paths(const char *conf_dir, const char *preauth_indicator);
void pam_sss_test_set_paths(const char *conf_dir, const char *preauth_indicator)
{
    snprintf(test_conf_dir, sizeof(test_conf_dir), "%s", conf_dir ? conf_dir : "");
    snprintf(test_preauth, sizeof(test_preauth), "%s", preauth_indicator ? preauth_indicator : "");
}

static const char *conf_dir(void)
{
    return test_conf_dir[0] != '\0' ? test_conf_dir : SSSD_CONF_DIR;
}

static const char *preauth_indicator(void)
{
    return test_preauth[0] != '\0' ? test_preauth : PREAUTH_INDICATOR;
}
#else
static const char *conf_dir(void)
{
    return SSSD_CONF_DIR;
}

static const char *preauth_indicator(void)
{
    return PREAUTH_INDICATOR;
}
#endif

/* ---- tokens ------------------------------------------------------------------------------ */

void pam_sss_token_drop(struct pam_sss_token *t)
{
    if (t->data != NULL) {
        explicit_bzero(t->data, t->len);
        free(t->data);
    }
    t->data = NULL;
    t->len = 0;
    t->type = SSS_AUTHTOK_TYPE_EMPTY;
}

/* Takes over a malloc'ed password (NULL: none, as SSSD sends no item then). */
static void tok_take(struct pam_sss_token *t, char *s)
{
    pam_sss_token_drop(t);
    if (s != NULL) {
        t->data = s;
        t->len = strlen(s);
        t->type = SSS_AUTHTOK_TYPE_PASSWORD;
    }
}

/* Copies a password from the PAM stack (NULL is taken as ""). */
static int tok_copy(struct pam_sss_token *t, const char *s)
{
    size_t len;
    char *copy;

    if (s == NULL) {
        s = "";
    }
    len = strnlen(s, PAM_SSS_MAX_AUTHTOK + 1);
    if (len > PAM_SSS_MAX_AUTHTOK) {
        return PAM_BUF_ERR;
    }
    copy = malloc(len + 1);
    if (copy == NULL) {
        return PAM_BUF_ERR;
    }
    memcpy(copy, s, len + 1);
    tok_take(t, copy);
    return PAM_SUCCESS;
}

static void call_free(struct pam_sss_call *c)
{
    pam_sss_token_drop(&c->authtok);
    pam_sss_token_drop(&c->newauthtok);
    free(c->domain);
    c->domain = NULL;
}

/* ---- options and items --------------------------------------------------------------------- */

static void parse_retry(pam_handle_t *pamh, const char *v, int *retries)
{
    char *end;
    long n;

    *retries = 0;
    if (*v == '\0') {
        pam_sss_log(pamh, LOG_ERR, "Missing argument to option retry.");
        return;
    }
    errno = 0;
    n = strtol(v, &end, 10);
    if (errno != 0) {
        return;
    }
    if (*end != '\0') {
        pam_sss_log(pamh, LOG_ERR, "Argument to option retry contains extra characters.");
        return;
    }
    if (n < 0) {
        pam_sss_log(pamh, LOG_ERR, "Argument to option retry must not be negative.");
        return;
    }
    *retries = n > INT_MAX ? INT_MAX : (int)n;
}

/* SSSD 2.8's options; those for smart cards and 2FA are accepted and have no effect. */
static void parse_options(pam_handle_t *pamh, int argc, const char **argv, struct pam_sss_opts *o)
{
    static const char *const unsupported[] = {
        "use_2fa", "allow_missing_name", "try_cert_auth", "require_cert_auth", NULL
    };
    int i;
    int u;

    memset(o, 0, sizeof(*o));
    for (i = 0; i < argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "forward_pass") == 0) {
            o->flags |= SSS_PAM_CLI_FLAGS_FORWARD_PASS;
        } else if (strcmp(a, "use_first_pass") == 0) {
            o->flags |= SSS_PAM_CLI_FLAGS_USE_FIRST_PASS;
        } else if (strcmp(a, "use_authtok") == 0) {
            o->flags |= SSS_PAM_CLI_FLAGS_USE_AUTHTOK;
        } else if (strncmp(a, "domains=", 8) == 0) {
            o->domains = a + 8;
            if (*o->domains == '\0') {
                pam_sss_log(pamh, LOG_ERR, "Missing argument to option domains.");
            }
        } else if (strncmp(a, "retry=", 6) == 0) {
            parse_retry(pamh, a + 6, &o->retries);
        } else if (strcmp(a, "quiet") == 0) {
            o->quiet = true;
        } else if (strcmp(a, "ignore_unknown_user") == 0) {
            o->flags |= SSS_PAM_CLI_FLAGS_IGNORE_UNKNOWN_USER;
        } else if (strcmp(a, "ignore_authinfo_unavail") == 0) {
            o->flags |= SSS_PAM_CLI_FLAGS_IGNORE_AUTHINFO_UNAVAIL;
        } else if (strcmp(a, "prompt_always") == 0) {
            o->flags |= SSS_PAM_CLI_FLAGS_PROMPT_ALWAYS;
        } else {
            for (u = 0; unsupported[u] != NULL && strcmp(a, unsupported[u]) != 0; u++) {
            }
            if (unsupported[u] != NULL) {
                pam_sss_log(pamh, LOG_WARNING, "option %s is not supported, ignored", a);
            } else {
                pam_sss_log(pamh, LOG_WARNING, "unknown option: %s", a);
            }
        }
    }
}

static const char *item_or_empty(pam_handle_t *pamh, int type, int *ret)
{
    const void *v = NULL;

    if (*ret == PAM_SUCCESS) {
        *ret = pam_get_item(pamh, type, &v);
    }
    return v != NULL ? v : "";
}

/* The PAM items a request carries. root is never one of sssd's users (SSSD's rule). */
static int get_items(struct pam_sss_call *c)
{
    const void *user = NULL;
    int ret;

    ret = pam_get_item(c->pamh, PAM_USER, &user);
    if (ret != PAM_SUCCESS) {
        return ret;
    }
    if (user == NULL) {
        return PAM_BAD_ITEM;
    }
    c->user = user;
    if (strcmp(c->user, "root") == 0) {
        return PAM_USER_UNKNOWN;
    }
    c->service = item_or_empty(c->pamh, PAM_SERVICE, &ret);
    c->tty = item_or_empty(c->pamh, PAM_TTY, &ret);
    c->ruser = item_or_empty(c->pamh, PAM_RUSER, &ret);
    c->rhost = item_or_empty(c->pamh, PAM_RHOST, &ret);
    return ret;
}

static const char *stack_item(pam_handle_t *pamh, int type)
{
    const void *v = NULL;

    if (pam_get_item(pamh, type, &v) != PAM_SUCCESS) {
        return NULL;
    }
    return v;
}

static bool has_pwexp_flag(pam_handle_t *pamh)
{
    const void *v = NULL;

    return pam_get_data(pamh, PWEXP_FLAG, &v) == PAM_SUCCESS;
}

static void free_data(pam_handle_t *pamh, void *data, int error_status)
{
    free(data);
}

/* ---- passwords ----------------------------------------------------------------------------- */

static int get_authtok_for_authentication(struct pam_sss_call *c)
{
    const char *stack = stack_item(c->pamh, PAM_AUTHTOK);
    char *answer = NULL;
    int ret;

    /* Like SSSD: a password already on the stack is used unless prompt_always. */
    if (c->use_first_pass || (stack != NULL && stack[0] != '\0'
                              && !(c->opts.flags & SSS_PAM_CLI_FLAGS_PROMPT_ALWAYS))) {
        return tok_copy(&c->authtok, stack);
    }
    ret = pam_sss_prompt(c->pamh, "Password: ", NULL, &answer);
    if (ret != PAM_SUCCESS) {
        return ret;
    }
    tok_take(&c->authtok, answer);
    if ((c->opts.flags & SSS_PAM_CLI_FLAGS_FORWARD_PASS) && c->authtok.data != NULL) {
        /* Failing here only means the next module asks again. */
        (void)pam_set_item(c->pamh, PAM_AUTHTOK, c->authtok.data);
    }
    return PAM_SUCCESS;
}

static int get_authtok_for_password_change(struct pam_sss_call *c, int pam_flags)
{
    const char *stack;
    char *answer = NULL;
    int ret;

    if (pam_flags & PAM_PRELIM_CHECK) {
        /* The old password is asked here (so pam_pwquality & co see it); root resetting
         * another user's password is not asked, unless the password expired at login. */
        if ((getuid() != 0 || has_pwexp_flag(c->pamh)) && !c->use_first_pass) {
            ret = pam_sss_prompt(c->pamh, "Current Password: ", NULL, &answer);
            if (ret != PAM_SUCCESS) {
                return ret;
            }
            tok_take(&c->authtok, answer);
            ret = pam_set_item(c->pamh, PAM_OLDAUTHTOK, c->authtok.data);
            if (ret != PAM_SUCCESS) {
                return ret;
            }
        }
        return PAM_SUCCESS;
    }

    ret = tok_copy(&c->authtok, stack_item(c->pamh, PAM_OLDAUTHTOK));
    if (ret != PAM_SUCCESS) {
        return ret;
    }
    if (c->opts.flags & SSS_PAM_CLI_FLAGS_USE_AUTHTOK) {
        stack = stack_item(c->pamh, PAM_AUTHTOK);
        if (stack == NULL || stack[0] == '\0') {
            /* Unlike SSSD, which sends an empty new password: never ask for that. */
            pam_sss_log(c->pamh, LOG_ERR, "option use_authtok set, but no new password found");
            return PAM_AUTHTOK_ERR;
        }
        return tok_copy(&c->newauthtok, stack);
    }
    ret = pam_sss_prompt(c->pamh, "New Password: ", "Reenter new Password: ", &answer);
    if (ret != PAM_SUCCESS) {
        return ret;
    }
    tok_take(&c->newauthtok, answer);
    if ((c->opts.flags & SSS_PAM_CLI_FLAGS_FORWARD_PASS) && c->newauthtok.data != NULL) {
        (void)pam_set_item(c->pamh, PAM_AUTHTOK, c->newauthtok.data);
    }
    return PAM_SUCCESS;
}

/* ---- the operations -------------------------------------------------------------------------- */

static int ignore_mapped(const struct pam_sss_opts *o, int status)
{
    if ((o->flags & SSS_PAM_CLI_FLAGS_IGNORE_UNKNOWN_USER) && status == PAM_USER_UNKNOWN) {
        return PAM_IGNORE;
    }
    if ((o->flags & SSS_PAM_CLI_FLAGS_IGNORE_AUTHINFO_UNAVAIL)
            && status == PAM_AUTHINFO_UNAVAIL) {
        return PAM_IGNORE;
    }
    return status;
}

/* SSSD's preauth round (smart card and OTP discovery) runs when sssd says it is useful; for a
 * password its answer only brings messages. */
static void maybe_preauth(struct pam_sss_call *c)
{
    if (!c->use_first_pass && access(preauth_indicator(), F_OK) == 0) {
        (void)pam_sss_send(c, SSS_PAM_PREAUTH);
    }
}

/* What happens after the server answered, per operation. */
static int after_reply(struct pam_sss_call *c, uint32_t cmd, int status)
{
    int *flag;

    switch (cmd) {
    case SSS_PAM_AUTHENTICATE:
        /* Authenticated, but the password has expired: libpam wants success here and
         * PAM_NEW_AUTHTOK_REQD from the account phase (SSSD's hand-over). */
        if (status == PAM_NEW_AUTHTOK_REQD) {
            flag = malloc(sizeof(*flag));
            if (flag == NULL) {
                return PAM_BUF_ERR;
            }
            *flag = 1;
            status = pam_set_data(c->pamh, PWEXP_FLAG, flag, free_data);
            if (status != PAM_SUCCESS) {
                free(flag);
            }
        }
        break;
    case SSS_PAM_ACCT_MGMT:
        if (status == PAM_SUCCESS && has_pwexp_flag(c->pamh)) {
            pam_sss_show(c->pamh, PAM_TEXT_INFO, "Password expired. Change your password now.");
            status = PAM_NEW_AUTHTOK_REQD;
        }
        break;
    case SSS_PAM_CHAUTHTOK:
        if (status != PAM_SUCCESS && status != PAM_USER_UNKNOWN) {
            (void)pam_set_item(c->pamh, PAM_AUTHTOK, NULL);
            (void)pam_set_item(c->pamh, PAM_OLDAUTHTOK, NULL);
        }
        break;
    case SSS_PAM_CHAUTHTOK_PRELIM:
        if (status == PAM_PERM_DENIED && c->authtok.len == 0 && getuid() == 0
                && !has_pwexp_flag(c->pamh)) {
            pam_sss_show_pw_reset_message(c->pamh, conf_dir(), c->domain);
        }
        break;
    default:
        break;
    }
    return status;
}

static int pam_sss_run(uint32_t task, pam_handle_t *pamh, int pam_flags, int argc,
                       const char **argv)
{
    struct pam_sss_call c;
    uint32_t cmd;
    int status;
    int ret;

    if (pamh == NULL) {
        return PAM_SYSTEM_ERR;
    }
    memset(&c, 0, sizeof(c));
    c.pamh = pamh;
    parse_options(pamh, argc, argv, &c.opts);
    /* A misspelt domains= must not widen who can log in. */
    if (c.opts.domains != NULL && c.opts.domains[0] == '\0') {
        return PAM_SYSTEM_ERR;
    }
    c.use_first_pass = (c.opts.flags & SSS_PAM_CLI_FLAGS_USE_FIRST_PASS) != 0;

    for (;;) {
        ret = get_items(&c);
        if (ret != PAM_SUCCESS) {
            return ignore_mapped(&c.opts, ret);
        }
        cmd = task;
        ret = PAM_SUCCESS;
        if (task == SSS_PAM_AUTHENTICATE) {
            maybe_preauth(&c);
            ret = get_authtok_for_authentication(&c);
        } else if (task == SSS_PAM_CHAUTHTOK) {
            if (pam_flags & PAM_PRELIM_CHECK) {
                maybe_preauth(&c);
                cmd = SSS_PAM_CHAUTHTOK_PRELIM;
            }
            ret = get_authtok_for_password_change(&c, pam_flags);
        }
        if (ret != PAM_SUCCESS) {
            call_free(&c);
            return ret;
        }

        status = ignore_mapped(&c.opts, pam_sss_send(&c, cmd));
        status = after_reply(&c, cmd, status);
        call_free(&c);

        if (status == PAM_SUCCESS || c.opts.retries <= 0
                || (cmd != SSS_PAM_AUTHENTICATE && cmd != SSS_PAM_CHAUTHTOK_PRELIM)) {
            return status;
        }
        /* Ask again (unlike SSSD 2.8, whose retry of the old-password check fails with
         * PAM_SYSTEM_ERR): the tokens that failed leave the stack. */
        c.opts.retries--;
        c.use_first_pass = false;
        (void)pam_set_item(pamh, PAM_AUTHTOK, NULL);
        (void)pam_set_item(pamh, PAM_OLDAUTHTOK, NULL);
    }
}

PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return pam_sss_run(SSS_PAM_AUTHENTICATE, pamh, flags, argc, argv);
}

PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return pam_sss_run(SSS_PAM_SETCRED, pamh, flags, argc, argv);
}

PAM_EXTERN int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return pam_sss_run(SSS_PAM_ACCT_MGMT, pamh, flags, argc, argv);
}

PAM_EXTERN int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return pam_sss_run(SSS_PAM_OPEN_SESSION, pamh, flags, argc, argv);
}

PAM_EXTERN int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return pam_sss_run(SSS_PAM_CLOSE_SESSION, pamh, flags, argc, argv);
}

PAM_EXTERN int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return pam_sss_run(SSS_PAM_CHAUTHTOK, pamh, flags, argc, argv);
}
