/*
 * pam_sss's side of the PAM conversation and of syslog. Messages and prompts are SSSD 2.8's:
 * one message per conversation call, every text shown also logged ("User info message:
 * ..."), a password asked twice must match ("Passwords do not match", PAM_CRED_ERR). Every
 * answer the application hands over is wiped before its buffer is freed; the one copy kept
 * belongs to the caller, who wipes it too (pam_sss_free_secret). Nothing here logs an
 * answer. Also the "password reset by root" message, with the administrator's replacement
 * file when a valid one exists (SSSD's rules for it).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_appl.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "sss_client/pam/pam_sss_private.h"

void pam_sss_log(pam_handle_t *pamh, int priority, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    pam_vsyslog(pamh, LOG_AUTHPRIV | priority, fmt, ap);
    va_end(ap);
}

void pam_sss_free_secret(char *s)
{
    if (s != NULL) {
        explicit_bzero(s, strlen(s));
        free(s);
    }
}

/* Frees what the application returned for n messages, wiping every answer. */
static void free_responses(struct pam_response *resp, int n)
{
    int i;

    if (resp == NULL) {
        return;
    }
    for (i = 0; i < n; i++) {
        pam_sss_free_secret(resp[i].resp);
    }
    free(resp);
}

/* One message through the application's conversation function. */
static int converse(pam_handle_t *pamh, int style, const char *msg, struct pam_response **_resp)
{
    const struct pam_conv *conv = NULL;
    struct pam_message m = { .msg_style = style, .msg = msg };
    const struct pam_message *mp = &m;
    struct pam_response *resp = NULL;
    int ret;

    ret = pam_get_item(pamh, PAM_CONV, (const void **)&conv);
    if (ret != PAM_SUCCESS) {
        return ret;
    }
    if (conv == NULL || conv->conv == NULL) {
        pam_sss_log(pamh, LOG_ERR, "No conversation function");
        return PAM_SYSTEM_ERR;
    }
    ret = conv->conv(1, &mp, &resp, conv->appdata_ptr);
    if (ret != PAM_SUCCESS) {
        free_responses(resp, 1);
        return ret;
    }
    *_resp = resp;
    return PAM_SUCCESS;
}

int pam_sss_show(pam_handle_t *pamh, int style, const char *msg)
{
    struct pam_response *resp = NULL;
    int ret;

    if (msg == NULL || (style != PAM_TEXT_INFO && style != PAM_ERROR_MSG)) {
        return PAM_SYSTEM_ERR;
    }
    pam_sss_log(pamh, LOG_INFO, "User %s message: %s",
                style == PAM_TEXT_INFO ? "info" : "error", msg);
    ret = converse(pamh, style, msg, &resp);
    free_responses(resp, 1);
    return ret;
}

/* Asks once with echo off; *_answer is NULL when the application answered nothing. */
static int ask(pam_handle_t *pamh, const char *prompt, char **_answer)
{
    struct pam_response *resp = NULL;
    char *answer = NULL;
    size_t len;
    int ret;

    ret = converse(pamh, PAM_PROMPT_ECHO_OFF, prompt, &resp);
    if (ret != PAM_SUCCESS) {
        return ret;
    }
    if (resp == NULL) {
        return PAM_SYSTEM_ERR;
    }
    if (resp[0].resp != NULL) {
        len = strnlen(resp[0].resp, PAM_SSS_MAX_AUTHTOK + 1);
        if (len > PAM_SSS_MAX_AUTHTOK) {
            pam_sss_log(pamh, LOG_ERR, "Refused an answer longer than %d bytes",
                        PAM_SSS_MAX_AUTHTOK);
            free_responses(resp, 1);
            return PAM_BUF_ERR;
        }
        answer = malloc(len + 1);
        if (answer == NULL) {
            free_responses(resp, 1);
            return PAM_BUF_ERR;
        }
        memcpy(answer, resp[0].resp, len + 1);
    }
    free_responses(resp, 1);
    *_answer = answer;
    return PAM_SUCCESS;
}

static bool same_answer(const char *a, const char *b)
{
    if (a == NULL || b == NULL) {
        return a == b;
    }
    return strcmp(a, b) == 0;
}

int pam_sss_prompt(pam_handle_t *pamh, const char *prompt, const char *reenter,
                   char **_answer)
{
    char *first = NULL;
    char *second = NULL;
    int ret;

    ret = ask(pamh, prompt, &first);
    if (ret != PAM_SUCCESS) {
        return ret;
    }
    if (reenter != NULL) {
        ret = ask(pamh, reenter, &second);
        if (ret != PAM_SUCCESS) {
            pam_sss_free_secret(first);
            return ret;
        }
        if (!same_answer(first, second)) {
            pam_sss_free_secret(first);
            pam_sss_free_secret(second);
            pam_sss_log(pamh, LOG_NOTICE, "Passwords do not match.");
            ret = pam_sss_show(pamh, PAM_ERROR_MSG, "Passwords do not match");
            return ret == PAM_SUCCESS ? PAM_CRED_ERR : PAM_SYSTEM_ERR;
        }
        pam_sss_free_secret(second);
    }
    *_answer = first;
    return PAM_SUCCESS;
}

#define PW_RESET_MSG_MAX    4096

/* Shows the administrator's message for the domain, when there is a valid one. */
static int show_reset_file(pam_handle_t *pamh, const char *conf_dir, const char *domain,
                           const char *suffix)
{
    char path[PATH_MAX];
    char buf[PW_RESET_MSG_MAX + 1];
    struct stat st;
    ssize_t n;
    size_t got = 0;
    int fd;
    int ret;

    if (strchr(suffix, '/') != NULL || strchr(domain, '/') != NULL) {
        return EINVAL;
    }
    ret = snprintf(path, sizeof(path), "%s/customize/%s/pam_sss_pw_reset_message.%s",
                   conf_dir, domain, suffix);
    if (ret < 0 || (size_t)ret >= sizeof(path)) {
        return EINVAL;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd == -1) {
        return errno;
    }
    if (fstat(fd, &st) != 0) {
        ret = errno;
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        pam_sss_log(pamh, LOG_ERR, "Password reset message file is not a regular file.");
        ret = EINVAL;
        goto done;
    }
    if (st.st_uid != 0 || st.st_gid != 0 || (st.st_mode & ~S_IFMT) != 0644) {
        pam_sss_log(pamh, LOG_ERR, "Permission error, file [%s] must be owned by root "
                    "with permissions 0644.", path);
        ret = EPERM;
        goto done;
    }
    if (st.st_size > PW_RESET_MSG_MAX) {
        pam_sss_log(pamh, LOG_ERR, "Password reset message file is too large.");
        ret = EFBIG;
        goto done;
    }
    while (got < (size_t)st.st_size) {
        n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            ret = EIO;
            goto done;
        }
        got += (size_t)n;
    }
    buf[got] = '\0';
    ret = pam_sss_show(pamh, PAM_TEXT_INFO, buf) == PAM_SUCCESS ? 0 : EIO;

done:
    close(fd);
    return ret;
}

void pam_sss_show_pw_reset_message(pam_handle_t *pamh, const char *conf_dir,
                                   const char *domain)
{
    const char *locale;

    if (domain == NULL || domain[0] == '\0') {
        return;     /* SSSD says nothing when it does not know the domain */
    }
    locale = setlocale(LC_MESSAGES, NULL);
    if (locale != NULL && show_reset_file(pamh, conf_dir, domain, locale) == 0) {
        return;
    }
    if (show_reset_file(pamh, conf_dir, domain, "txt") == 0) {
        return;
    }
    pam_sss_show(pamh, PAM_TEXT_INFO, "Password reset by root is not supported.");
}
