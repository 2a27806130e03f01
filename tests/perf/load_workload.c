/*
 * The workloads of sss_load (see load_workload.h):
 *  - nss: calls a dlopen'ed NSS module's entry points directly (_nss_<name>_getpwnam_r ...),
 *    so no other NSS source and no nscd can answer; buffers grow on ERANGE as glibc's do.
 *  - pam: pam_start/pam_authenticate/pam_acct_mgmt/pam_end through a dlopen'ed libpam
 *    (a login as login(1) does it), with a conversation that answers every prompt with the
 *    password.
 *  - cmd and sudo: one fork/exec per operation (posix_spawn), output to /dev/null; success
 *    is exit status 0.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <nss.h>
#include <pwd.h>
#include <security/pam_appl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "load_workload.h"

extern char **environ;

/* --- nss ------------------------------------------------------------------------------ */

typedef enum nss_status (*pwnam_fn)(const char *, struct passwd *, char *, size_t, int *);
typedef enum nss_status (*pwuid_fn)(uid_t, struct passwd *, char *, size_t, int *);
typedef enum nss_status (*grnam_fn)(const char *, struct group *, char *, size_t, int *);
typedef enum nss_status (*grgid_fn)(gid_t, struct group *, char *, size_t, int *);
typedef enum nss_status (*initgr_fn)(const char *, gid_t, long *, long *, gid_t **, long,
                                     int *);

enum nss_op { OP_PWNAM, OP_PWUID, OP_GRNAM, OP_GRGID, OP_INITGR };

static const char *const nss_ops[] = {"getpwnam", "getpwuid", "getgrnam", "getgrgid",
                                      "initgroups"};
static const char *const nss_syms[] = {"getpwnam_r", "getpwuid_r", "getgrnam_r",
                                       "getgrgid_r", "initgroups_dyn"};
#define NSS_MAX_BUF (256u * 1024 * 1024)

static struct {
    enum nss_op op;
    void *fn;
    char *buf;
    size_t buflen;
    gid_t *groups;
    long groups_size;
} nss;

static int nss_worker_init(char *err, size_t len)
{
    nss.buflen = 1024 * 1024;
    nss.buf = malloc(nss.buflen);
    nss.groups_size = 64;
    nss.groups = malloc(sizeof(gid_t) * (size_t)nss.groups_size);
    if (nss.buf == NULL || nss.groups == NULL) {
        snprintf(err, len, "out of memory");
        return 1;
    }
    return 0;
}

static int parse_id(const char *key, unsigned long *id, char *err, size_t len)
{
    char *end;

    errno = 0;
    *id = strtoul(key, &end, 10);
    if (errno != 0 || end == key || *end != '\0' || *id > 0xFFFFFFFEul) {
        snprintf(err, len, "not an id");
        return 1;
    }
    return 0;
}

static enum nss_status nss_call(const char *key, unsigned long id, int *e)
{
    struct passwd pw;
    struct group gr;
    long start = 0;

    switch (nss.op) {
    case OP_PWNAM:
        return ((pwnam_fn)nss.fn)(key, &pw, nss.buf, nss.buflen, e);
    case OP_PWUID:
        return ((pwuid_fn)nss.fn)((uid_t)id, &pw, nss.buf, nss.buflen, e);
    case OP_GRNAM:
        return ((grnam_fn)nss.fn)(key, &gr, nss.buf, nss.buflen, e);
    case OP_GRGID:
        return ((grgid_fn)nss.fn)((gid_t)id, &gr, nss.buf, nss.buflen, e);
    default:
        /* as getgrouplist(): no primary group to skip, no limit; the array grows */
        return ((initgr_fn)nss.fn)(key, (gid_t)-1, &start, &nss.groups_size, &nss.groups,
                                   -1, e);
    }
}

static int nss_op(const char *key, char *err, size_t len)
{
    enum nss_status st;
    unsigned long id = 0;
    int e;

    if ((nss.op == OP_PWUID || nss.op == OP_GRGID) && parse_id(key, &id, err, len) != 0) {
        return 1;
    }
    for (;;) {
        e = 0;
        st = nss_call(key, id, &e);
        if (st != NSS_STATUS_TRYAGAIN || e != ERANGE || nss.buflen >= NSS_MAX_BUF) {
            break;
        }
        /* the answer does not fit: a bigger buffer, as glibc does (this time counts) */
        free(nss.buf);
        nss.buflen *= 2;
        nss.buf = malloc(nss.buflen);
        if (nss.buf == NULL) {
            snprintf(err, len, "out of memory");
            _exit(2);
        }
    }
    if (st == NSS_STATUS_SUCCESS) {
        return 0;
    }
    snprintf(err, len, "%s status %d, errno %d (%s)", nss_ops[nss.op], (int)st, e,
             strerror(e));
    return 1;
}

/* "libnss_sss.so.2" -> "sss": the name in the module's symbols */
static int nss_module_name(const char *path, char *name, size_t len)
{
    const char *base = strrchr(path, '/'), *dot;

    base = base ? base + 1 : path;
    if (strncmp(base, "libnss_", 7) != 0 || (dot = strchr(base + 7, '.')) == NULL
        || dot == base + 7 || (size_t)(dot - base - 7) >= len) {
        return 1;
    }
    memcpy(name, base + 7, (size_t)(dot - base - 7));
    name[dot - base - 7] = '\0';
    return 0;
}

static int nss_setup(int argc, char **argv, struct load_workload *wl, char *what, size_t len)
{
    char name[64], sym[128];
    void *lib;
    size_t i;

    if (argc != 3) {
        fprintf(stderr, "sss_load: nss wants MODULE.so and an operation\n");
        return 1;
    }
    for (i = 0; i < sizeof(nss_ops) / sizeof(nss_ops[0]); i++) {
        if (strcmp(argv[2], nss_ops[i]) == 0) {
            break;
        }
    }
    if (i == sizeof(nss_ops) / sizeof(nss_ops[0])) {
        fprintf(stderr, "sss_load: unknown nss operation %s\n", argv[2]);
        return 1;
    }
    nss.op = (enum nss_op)i;
    if (nss_module_name(argv[1], name, sizeof(name)) != 0) {
        fprintf(stderr, "sss_load: %s is not named libnss_NAME.so*\n", argv[1]);
        return 1;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "sss_load: cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    snprintf(sym, sizeof(sym), "_nss_%s_%s", name, nss_syms[nss.op]);
    nss.fn = dlsym(lib, sym);
    if (nss.fn == NULL) {
        fprintf(stderr, "sss_load: %s has no %s\n", argv[1], sym);
        return 1;
    }
    wl->worker_init = nss_worker_init;
    wl->op = nss_op;
    snprintf(what, len, "nss %s %s", name, argv[2]);
    return 0;
}

/* --- pam ------------------------------------------------------------------------------ */

static struct {
    const char *service, *password;
    int (*start)(const char *, const char *, const struct pam_conv *, pam_handle_t **);
    int (*authenticate)(pam_handle_t *, int);
    int (*acct_mgmt)(pam_handle_t *, int);
    int (*end)(pam_handle_t *, int);
    const char *(*strerror)(pam_handle_t *, int);
} pam;

/* Every prompt gets the password; messages are acknowledged with no answer. */
static int pam_conversation(int n, const struct pam_message **msg,
                            struct pam_response **resp, void *data)
{
    struct pam_response *r;
    int i;

    (void)data;
    if (n <= 0) {
        return PAM_CONV_ERR;
    }
    r = calloc((size_t)n, sizeof(*r));
    if (r == NULL) {
        return PAM_BUF_ERR;
    }
    for (i = 0; i < n; i++) {
        if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF || msg[i]->msg_style == PAM_PROMPT_ECHO_ON) {
            r[i].resp = strdup(pam.password);
            if (r[i].resp == NULL) {
                for (; i >= 0; i--) {
                    free(r[i].resp);
                }
                free(r);
                return PAM_BUF_ERR;
            }
        }
    }
    *resp = r;      /* libpam frees the answers */
    return PAM_SUCCESS;
}

static int pam_op(const char *key, char *err, size_t len)
{
    const struct pam_conv conv = {pam_conversation, NULL};
    pam_handle_t *h = NULL;
    int rc;

    rc = pam.start(pam.service, key, &conv, &h);
    if (rc != PAM_SUCCESS) {
        snprintf(err, len, "pam_start: %s", pam.strerror(h, rc));
        return 1;
    }
    rc = pam.authenticate(h, PAM_SILENT);
    if (rc != PAM_SUCCESS) {
        snprintf(err, len, "pam_authenticate: %s", pam.strerror(h, rc));
    } else {
        rc = pam.acct_mgmt(h, PAM_SILENT);
        if (rc != PAM_SUCCESS) {
            snprintf(err, len, "pam_acct_mgmt: %s", pam.strerror(h, rc));
        }
    }
    pam.end(h, rc);
    return rc != PAM_SUCCESS;
}

static int pam_setup(int argc, char **argv, struct load_workload *wl, char *what, size_t len)
{
    void *lib;

    if (argc != 3) {
        fprintf(stderr, "sss_load: pam wants SERVICE and PASSWORD\n");
        return 1;
    }
    lib = dlopen("libpam.so.0", RTLD_NOW);
    if (lib == NULL) {
        fprintf(stderr, "sss_load: cannot load libpam.so.0: %s\n", dlerror());
        return 1;
    }
    *(void **)&pam.start = dlsym(lib, "pam_start");
    *(void **)&pam.authenticate = dlsym(lib, "pam_authenticate");
    *(void **)&pam.acct_mgmt = dlsym(lib, "pam_acct_mgmt");
    *(void **)&pam.end = dlsym(lib, "pam_end");
    *(void **)&pam.strerror = dlsym(lib, "pam_strerror");
    if (!pam.start || !pam.authenticate || !pam.acct_mgmt || !pam.end || !pam.strerror) {
        fprintf(stderr, "sss_load: libpam.so.0 lacks pam_start & co\n");
        return 1;
    }
    pam.service = argv[1];
    pam.password = argv[2];
    wl->worker_init = NULL;
    wl->op = pam_op;
    snprintf(what, len, "pam %s authenticate+acct_mgmt", pam.service);
    return 0;
}

/* --- cmd and sudo --------------------------------------------------------------------- */

#define CMD_MAX_ARGS 256
#define CMD_ARENA 16384

static struct {
    char **argv;            /* the template; "{}" inside an argument is the key */
    int argc;
    posix_spawn_file_actions_t fa;
    char *args[CMD_MAX_ARGS + 1];
    char arena[CMD_ARENA];
} cmd;

static int cmd_worker_init(char *err, size_t len)
{
    if (posix_spawn_file_actions_init(&cmd.fa) != 0
        || posix_spawn_file_actions_addopen(&cmd.fa, 0, "/dev/null", O_RDONLY, 0) != 0
        || posix_spawn_file_actions_addopen(&cmd.fa, 1, "/dev/null", O_WRONLY, 0) != 0
        || posix_spawn_file_actions_adddup2(&cmd.fa, 1, 2) != 0) {
        snprintf(err, len, "posix_spawn_file_actions failed");
        return 1;
    }
    return 0;
}

/* The template with every "{}" replaced by key, in cmd.args (strings in cmd.arena). */
static int cmd_expand(const char *key, char *err, size_t len)
{
    size_t used = 0, klen = strlen(key);
    const char *p, *brace;
    int i;

    for (i = 0; i < cmd.argc; i++) {
        cmd.args[i] = cmd.arena + used;
        for (p = cmd.argv[i]; (brace = strstr(p, "{}")) != NULL; p = brace + 2) {
            if (used + (size_t)(brace - p) + klen >= CMD_ARENA) {
                goto toolong;
            }
            memcpy(cmd.arena + used, p, (size_t)(brace - p));
            used += (size_t)(brace - p);
            memcpy(cmd.arena + used, key, klen);
            used += klen;
        }
        if (used + strlen(p) + 1 > CMD_ARENA) {
            goto toolong;
        }
        memcpy(cmd.arena + used, p, strlen(p) + 1);
        used += strlen(p) + 1;
    }
    cmd.args[cmd.argc] = NULL;
    return 0;
toolong:
    snprintf(err, len, "command line too long");
    return 1;
}

static int cmd_op(const char *key, char *err, size_t len)
{
    pid_t pid;
    int rc, status;

    if (cmd_expand(key, err, len) != 0) {
        return 1;
    }
    rc = posix_spawnp(&pid, cmd.args[0], &cmd.fa, NULL, cmd.args, environ);
    if (rc != 0) {
        snprintf(err, len, "cannot run %s: %s", cmd.args[0], strerror(rc));
        return 1;
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            snprintf(err, len, "waitpid: %s", strerror(errno));
            return 1;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        return 0;
    }
    if (WIFEXITED(status)) {
        snprintf(err, len, "%s exited with %d", cmd.args[0], WEXITSTATUS(status));
    } else {
        snprintf(err, len, "%s killed by signal %d", cmd.args[0],
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
    return 1;
}

static int cmd_setup(int argc, char **argv, struct load_workload *wl, char *what, size_t len)
{
    static char *sudo_argv[] = {"sudo", "-n", "-l", "-U", "{}"};
    size_t used = 0;
    int i;

    if (strcmp(argv[0], "sudo") == 0) {
        if (argc != 1) {
            fprintf(stderr, "sss_load: sudo takes no arguments (the key is the user)\n");
            return 1;
        }
        cmd.argv = sudo_argv;
        cmd.argc = 5;
    } else {
        if (argc < 2 || argc - 1 > CMD_MAX_ARGS) {
            fprintf(stderr, "sss_load: cmd wants a command line (at most %d words)\n",
                    CMD_MAX_ARGS);
            return 1;
        }
        cmd.argv = argv + 1;
        cmd.argc = argc - 1;
    }
    wl->worker_init = cmd_worker_init;
    wl->op = cmd_op;
    for (i = 0; i < cmd.argc && used + 1 < len; i++) {
        used += (size_t)snprintf(what + used, len - used, "%s%s", i ? " " : "cmd ",
                                 cmd.argv[i]);
        if (used >= len) {
            break;
        }
    }
    return 0;
}

int load_workload_setup(int argc, char **argv, struct load_workload *wl, char *what,
                        size_t len)
{
    if (strcmp(argv[0], "nss") == 0) {
        return nss_setup(argc, argv, wl, what, len);
    }
    if (strcmp(argv[0], "pam") == 0) {
        return pam_setup(argc, argv, wl, what, len);
    }
    if (strcmp(argv[0], "cmd") == 0 || strcmp(argv[0], "sudo") == 0) {
        return cmd_setup(argc, argv, wl, what, len);
    }
    fprintf(stderr, "sss_load: unknown workload %s (nss, pam, sudo, cmd)\n", argv[0]);
    return 1;
}
