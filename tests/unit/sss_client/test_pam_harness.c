/* The fixtures pam_sss's flow tests share (test_pam_harness.h): the module loaded with
 * dlopen() so its test setters can be reached, service files naming it by absolute path,
 * a scripted conversation, pam_start_confdir() handles, children running as another user,
 * canned replies of the in-test responder, and the per-test checks. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <security/pam_appl.h>
#include <security/pam_modules.h>

#include "sss_client/sss_cli.h"
#include "test_pam_harness.h"

struct pam_test t;

/* ---- conversation ---- */

static int conv_fn(int n, const struct pam_message **msg, struct pam_response **resp,
                   void *appdata)
{
    struct conv_data *cd = appdata;
    struct pam_response *r = calloc((size_t)n, sizeof(*r));
    int i;

    if (r == NULL) {
        return PAM_BUF_ERR;
    }
    for (i = 0; i < n; i++) {
        const char *kind = msg[i]->msg_style == PAM_PROMPT_ECHO_OFF ? "P"
                         : msg[i]->msg_style == PAM_TEXT_INFO ? "I" : "E";
        size_t used = strlen(cd->shown);

        snprintf(cd->shown + used, sizeof(cd->shown) - used, "%s:%s\n", kind, msg[i]->msg);
        if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF) {
            if (cd->next >= cd->nanswers) {
                free(r);
                return PAM_CONV_ERR;
            }
            r[i].resp = strdup(cd->answers[cd->next++]);
        }
    }
    *resp = r;
    return PAM_SUCCESS;
}

void conv_init(struct conv_data *cd, int nanswers, ...)
{
    va_list ap;
    int i;

    memset(cd, 0, sizeof(*cd));
    cd->conv.conv = conv_fn;
    cd->conv.appdata_ptr = cd;
    va_start(ap, nanswers);
    for (i = 0; i < nanswers; i++) {
        cd->answers[i] = va_arg(ap, const char *);
    }
    va_end(ap);
    cd->nanswers = nanswers;
}

/* ---- services, handles, requests ---- */

/* A service file: each line is "TYPE CONTROL ARGS", the module's path put in between. */
void service(const char *name, ...)
{
    char path[256];
    const char *line;
    va_list ap;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", t.confdir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    va_start(ap, name);
    while ((line = va_arg(ap, const char *)) != NULL) {
        char type[32], control[64];
        int used = 0;

        assert_int_equal(sscanf(line, "%31s %63s %n", type, control, &used), 2);
        fprintf(f, "%s %s %s %s\n", type, control, PAM_SSS_TEST_MODULE, line + used);
    }
    va_end(ap);
    fclose(f);
}

/* The same module for all four types, with the same options. */
void service_all(const char *name, const char *opts)
{
    char a[128], b[128], c[128], d[128];

    snprintf(a, sizeof(a), "auth required %s", opts);
    snprintf(b, sizeof(b), "account required %s", opts);
    snprintf(c, sizeof(c), "password required %s", opts);
    snprintf(d, sizeof(d), "session required %s", opts);
    service(name, a, b, c, d, (const char *)NULL);
}

pam_handle_t *start(const char *svc, const char *user, struct conv_data *cd)
{
    pam_handle_t *pamh = NULL;

    assert_int_equal(pam_start_confdir(svc, user, &cd->conv, t.confdir, &pamh), PAM_SUCCESS);
    return pamh;
}

/* pam_start, one operation, pam_end: the operation's result (-1 when pam_start failed).
 * No cmocka assertion: forked children call it too, and a failed assertion in a child
 * would go on running the rest of the suite there. */
int one(const char *svc, const char *user, struct conv_data *cd,
               int (*op)(pam_handle_t *, int), int flags)
{
    pam_handle_t *pamh = NULL;
    int ret;

    if (pam_start_confdir(svc, user, &cd->conv, t.confdir, &pamh) != PAM_SUCCESS) {
        return -1;
    }
    ret = op(pamh, flags);
    pam_end(pamh, ret);
    return ret;
}

/* The module's own return code, called directly (libpam turns PAM_IGNORE of a lone module
 * into PAM_PERM_DENIED). Called from outside libpam the module cannot register its pam_end
 * clean-up, so the call runs in a child whose connections end with it. */
int direct(sm_fn *fn, const char *user, struct conv_data *cd, int argc,
                  const char **argv)
{
    int status = 0;
    pid_t pid;

    service("direct", "auth required", (const char *)NULL);     /* pam_start wants one */
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        pam_handle_t *pamh = NULL;
        int ret;

        if (pam_start_confdir("direct", user, &cd->conv, t.confdir, &pamh) != PAM_SUCCESS) {
            _exit(255);
        }
        ret = fn(pamh, 0, argc, argv);
        pam_end(pamh, ret);
        _exit(ret);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

struct pts_req req_at(int i)
{
    struct pts_req r;

    assert_true(pts_get(i, &r));
    return r;
}

struct pts_req last_req(void)
{
    assert_true(pts_count() > 0);
    return req_at(pts_count() - 1);
}

/* Sockets of this process connected to one of the server's sockets (-1: cannot tell).
 * No cmocka assertion: children call it. */
int open_pam_fds(const char *which)
{
    char want[160];
    struct dirent *de;
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    if (d == NULL) {
        return -1;
    }
    snprintf(want, sizeof(want), "%s/%s", pts_dir(), which);
    while ((de = readdir(d)) != NULL) {
        struct sockaddr_un peer;
        socklen_t len = sizeof(peer);
        int fd = atoi(de->d_name);

        if (de->d_name[0] == '.' || fd == dirfd(d)) {
            continue;
        }
        memset(&peer, 0, sizeof(peer));
        if (getpeername(fd, (struct sockaddr *)&peer, &len) == 0
                && peer.sun_family == AF_UNIX && strcmp(peer.sun_path, want) == 0) {
            n++;
        }
    }
    closedir(d);
    return n;
}

/* Runs fn in a child with uid/gid TEST_UID; its exit status (fn's return, 0..255). */
int as_user(int (*fn)(void *), void *arg)
{
    int status = 0;
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        if (setresgid(TEST_GID, TEST_GID, TEST_GID) != 0
                || setresuid(TEST_UID, TEST_UID, TEST_UID) != 0) {
            _exit(254);
        }
        _exit(fn(arg) & 0xff);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* ---- canned replies ---- */

struct pts_reply canned;
static uint32_t canned_cmd;

static void canned_handler(const struct pts_req *req, struct pts_reply *rep)
{
    if (req->cmd == canned_cmd) {
        *rep = canned;
    } else {
        pts_directory(req, rep);
    }
}

void use_canned(uint32_t cmd)
{
    canned_cmd = cmd;
    pts_set_handler(canned_handler);
}

/* ---- fixtures ---- */

int setup(void **state)
{
    pts_clear();
    pts_set_handler(NULL);
    pts_directory_reset();
    memset(&canned, 0, sizeof(canned));
    unlink(t.indicator);
    unsetenv("_SSS_LOOPS");
    t.set_socket_dir(pts_dir());
    t.set_timeout_ms(30000);
    return 0;
}

int teardown(void **state)
{
    /* No test leaves a connection open once its handles are gone. */
    assert_int_equal(open_pam_fds("pam") + open_pam_fds("private/pam"), 0);
    return 0;
}

int group_setup(void **state)
{
    void (*set_paths)(const char *, const char *);
    int ret;

    ret = pts_start();
    if (ret != 0) {
        fprintf(stderr, "cannot start the test server: %d\n", ret);
        return -1;
    }
    snprintf(t.confdir, sizeof(t.confdir), "/tmp/pam_sss_conf.XXXXXX");
    if (mkdtemp(t.confdir) == NULL) {
        return -1;
    }
    chmod(t.confdir, 0755);     /* children running as TEST_UID read the service files */
    snprintf(t.indicator, sizeof(t.indicator), "%s/preauth_available", t.confdir);
    t.dl = dlopen(PAM_SSS_TEST_MODULE, RTLD_NOW);
    if (t.dl == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return -1;
    }
    t.set_socket_dir = (void (*)(const char *))dlsym(t.dl, "sss_cli_set_socket_dir");
    t.set_timeout_ms = (void (*)(int))dlsym(t.dl, "sss_cli_set_timeout_ms");
    set_paths = (void (*)(const char *, const char *))dlsym(t.dl, "pam_sss_test_set_paths");
    t.authenticate = (sm_fn *)dlsym(t.dl, "pam_sm_authenticate");
    t.acct_mgmt = (sm_fn *)dlsym(t.dl, "pam_sm_acct_mgmt");
    if (!t.set_socket_dir || !t.set_timeout_ms || !set_paths || !t.authenticate
            || !t.acct_mgmt) {
        return -1;
    }
    set_paths(t.confdir, t.indicator);
    return 0;
}

int group_teardown(void **state)
{
    char cmd[128];

    pts_stop();
    if (t.dl != NULL) {
        dlclose(t.dl);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t.confdir);
    return system(cmd) == 0 ? 0 : -1;
}
