/*
 * sssctl user-checks NAME [-a ACTION] [-s SERVICE]: what a login would see, through the real
 * system paths, as SSSD's sssctl does: the user through NSS (getpwnam_r, so nsswitch.conf
 * decides which module answers), the user's groups (getgrouplist), then the PAM service's
 * stack through libpam: pam_start, the ACTION, pam_end. ACTION as SSSD's: acct (default,
 * pam_acct_mgmt), auth (pam_authenticate and then pam_acct_mgmt, as a login does), setc
 * (pam_setcred), chau (pam_chauthtok), open / clos (sessions). SERVICE defaults to
 * system-auth, SSSD's default. Prompts are answered from stdin (without echo on a
 * terminal), so a script can feed the password. Exit 0 when every step succeeded.
 */
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <security/pam_appl.h>
#include <termios.h>
#include <unistd.h>

#include "tools/sssctl.h"

struct sssctl_pam_action {
    const char *name;
    const char *what;
};

static const struct sssctl_pam_action sssctl_pam_actions[] = {
    { "acct", "pam_acct_mgmt" },
    { "auth", "pam_authenticate" },
    { "setc", "pam_setcred" },
    { "chau", "pam_chauthtok" },
    { "open", "pam_open_session" },
    { "clos", "pam_close_session" },
};

/* One line from stdin, without echo when stdin is a terminal; malloc'ed (PAM frees it). */
static char *sssctl_read_line(bool echo)
{
    struct termios old, quiet;
    bool tty = !echo && tcgetattr(STDIN_FILENO, &old) == 0;
    char *line = NULL;
    size_t size = 0;
    ssize_t len;

    if (tty) {
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    }
    len = getline(&line, &size, stdin);
    if (tty) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
        fputc('\n', stderr);
    }
    if (len < 0) {
        free(line);
        return NULL;
    }
    if (len > 0 && line[len - 1] == '\n') {
        line[len - 1] = '\0';
    }
    return line;
}

/* The conversation: prompts and messages to stderr (stdout may carry the JSON document). */
static int sssctl_pam_conv(int num, const struct pam_message **msg,
                           struct pam_response **resp, void *data)
{
    struct pam_response *r;
    int i;

    if (num <= 0 || num > PAM_MAX_NUM_MSG) {
        return PAM_CONV_ERR;
    }
    r = calloc((size_t)num, sizeof(*r));
    if (r == NULL) {
        return PAM_BUF_ERR;
    }
    for (i = 0; i < num; i++) {
        switch (msg[i]->msg_style) {
        case PAM_PROMPT_ECHO_OFF:
        case PAM_PROMPT_ECHO_ON:
            fputs(msg[i]->msg, stderr);
            fflush(stderr);
            r[i].resp = sssctl_read_line(msg[i]->msg_style == PAM_PROMPT_ECHO_ON);
            if (r[i].resp == NULL) {
                goto fail;
            }
            break;
        case PAM_ERROR_MSG:
        case PAM_TEXT_INFO:
            fprintf(stderr, "%s\n", msg[i]->msg);
            break;
        default:
            goto fail;
        }
    }
    *resp = r;
    return PAM_SUCCESS;

fail:
    for (i = 0; i < num; i++) {
        free(r[i].resp);
    }
    free(r);
    return PAM_CONV_ERR;
}

/* Runs the action; *_steps gets "pam_authenticate", ... as run, the status of the last. */
static int sssctl_pam_run(pam_handle_t *pamh, const char *action, const char **_failed_step)
{
    int ret;

    *_failed_step = NULL;
    if (strcmp(action, "auth") == 0) {
        ret = pam_authenticate(pamh, 0);
        if (ret != PAM_SUCCESS) {
            *_failed_step = "pam_authenticate";
            return ret;
        }
        action = "acct";
    }
    if (strcmp(action, "acct") == 0) {
        ret = pam_acct_mgmt(pamh, 0);
        *_failed_step = "pam_acct_mgmt";
    } else if (strcmp(action, "setc") == 0) {
        ret = pam_setcred(pamh, PAM_ESTABLISH_CRED);
        *_failed_step = "pam_setcred";
    } else if (strcmp(action, "chau") == 0) {
        ret = pam_chauthtok(pamh, 0);
        *_failed_step = "pam_chauthtok";
    } else if (strcmp(action, "open") == 0) {
        ret = pam_open_session(pamh, 0);
        *_failed_step = "pam_open_session";
    } else {
        ret = pam_close_session(pamh, 0);
        *_failed_step = "pam_close_session";
    }
    if (ret == PAM_SUCCESS) {
        *_failed_step = NULL;
    }
    return ret;
}

int sssctl_user_checks(struct sssctl_ctx *ctx, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "action",  required_argument, NULL, 'a' },
        { "service", required_argument, NULL, 's' },
        { NULL, 0, NULL, 0 },
    };
    struct pam_conv conv = { sssctl_pam_conv, NULL };
    const char *action = "acct";
    const char *service = "system-auth";
    const char *failed_step = NULL;
    struct passwd pw, *pwp = NULL;
    pam_handle_t *pamh = NULL;
    gid_t *gids;
    int ngids = 256;
    char buf[16384];
    const char *name;
    bool known = false;
    int nss_ret, pam_ret, gl;
    size_t i;
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "a:s:", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': action = optarg; break;
        case 's': service = optarg; break;
        default:
            return sssctl_error("user-checks: unknown option or missing value '%s'",
                                argv[optind - 1]);
        }
    }
    if (optind + 1 != argc) {
        return sssctl_error("usage: sssctl user-checks NAME [-a ACTION] [-s SERVICE]");
    }
    name = argv[optind];
    for (i = 0; i < SSS_ARRAY_SIZE(sssctl_pam_actions); i++) {
        known = known || strcmp(action, sssctl_pam_actions[i].name) == 0;
    }
    if (!known) {
        return sssctl_error("user-checks: unknown action '%s' (acct, auth, setc, chau, open, "
                            "clos)", action);
    }

    /* 1. NSS, 2. initgroups */
    nss_ret = getpwnam_r(name, &pw, buf, sizeof(buf), &pwp);
    gids = talloc_array(ctx->mem, gid_t, ngids);
    if (gids == NULL) {
        return sssctl_error("out of memory");
    }
    gl = -1;
    if (pwp != NULL) {
        gl = getgrouplist(name, pw.pw_gid, gids, &ngids);
        if (gl < 0 && ngids > 256) {
            gids = talloc_realloc(ctx->mem, gids, gid_t, ngids);
            gl = gids != NULL ? getgrouplist(name, pw.pw_gid, gids, &ngids) : -1;
        }
    }
    /* 3. PAM, even for a user NSS does not know: the stack decides what that means. */
    pam_ret = pam_start(service, name, &conv, &pamh);
    if (pam_ret == PAM_SUCCESS) {
        pam_ret = sssctl_pam_run(pamh, action, &failed_step);
    } else {
        failed_step = "pam_start";
    }

    if (ctx->json) {
        sssctl_json_obj_start(ctx->js, NULL);
        sssctl_json_str(ctx->js, "user", name);
        sssctl_json_obj_start(ctx->js, "nss");
        sssctl_json_bool(ctx->js, "found", pwp != NULL);
        if (pwp != NULL) {
            sssctl_json_str(ctx->js, "name", pw.pw_name);
            sssctl_json_int(ctx->js, "uid", pw.pw_uid);
            sssctl_json_int(ctx->js, "gid", pw.pw_gid);
            sssctl_json_str(ctx->js, "gecos", pw.pw_gecos);
            sssctl_json_str(ctx->js, "home", pw.pw_dir);
            sssctl_json_str(ctx->js, "shell", pw.pw_shell);
        } else {
            sssctl_json_str(ctx->js, "error", nss_ret != 0 ? strerror(nss_ret) : "not found");
        }
        sssctl_json_obj_end(ctx->js);
        sssctl_json_arr_start(ctx->js, "groups");
        for (c = 0; c < gl; c++) {
            struct group *gr = getgrgid(gids[c]);

            sssctl_json_obj_start(ctx->js, NULL);
            sssctl_json_int(ctx->js, "gid", gids[c]);
            sssctl_json_str(ctx->js, "name", gr != NULL ? gr->gr_name : NULL);
            sssctl_json_obj_end(ctx->js);
        }
        sssctl_json_arr_end(ctx->js);
        sssctl_json_obj_start(ctx->js, "pam");
        sssctl_json_str(ctx->js, "service", service);
        sssctl_json_str(ctx->js, "action", action);
        sssctl_json_int(ctx->js, "status", pam_ret);
        sssctl_json_str(ctx->js, "message", pam_strerror(pamh, pam_ret));
        sssctl_json_str(ctx->js, "failed_step", failed_step);
        sssctl_json_obj_end(ctx->js);
        sssctl_json_obj_end(ctx->js);
    } else {
        printf("user: %s\naction: %s\nservice: %s\n\n", name, action, service);
        if (pwp != NULL) {
            printf("SSSD nss user lookup result:\n - user name: %s\n - user id: %u\n"
                   " - group id: %u\n - gecos: %s\n - home directory: %s\n - shell: %s\n\n",
                   pw.pw_name, pw.pw_uid, pw.pw_gid, pw.pw_gecos, pw.pw_dir, pw.pw_shell);
        } else {
            printf("User name lookup with [%s] failed: %s\n\n", name,
                   nss_ret != 0 ? strerror(nss_ret) : "not found");
        }
        printf("Groups (initgroups): %d\n", gl > 0 ? gl : 0);
        for (c = 0; c < gl; c++) {
            struct group *gr = getgrgid(gids[c]);

            printf(" - %u %s\n", gids[c], gr != NULL ? gr->gr_name : "(no name)");
        }
        printf("\n%s with [%s]: %s\n", failed_step != NULL ? failed_step : action, name,
               pam_strerror(pamh, pam_ret));
        printf("Summary: NSS %s, PAM %s %s\n", pwp != NULL ? "ok" : "failed", action,
               pam_ret == PAM_SUCCESS ? "succeeded" : "failed");
    }
    if (pamh != NULL) {
        pam_end(pamh, pam_ret);
    }
    return pwp != NULL && pam_ret == PAM_SUCCESS ? SSSCTL_EXIT_OK : SSSCTL_EXIT_FAILURE;
}
