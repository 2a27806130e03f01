/* pam_sss's password change and connections through the real libpam (fixtures:
 * test_pam_harness.h): the change as the user (public socket, old password checked first,
 * mismatched new passwords, retry=), use_authtok, root's reset ("Password reset by root is
 * not supported." or the administrator's message file); socket files with a wrong mode or
 * owner, a server that is not root, the public socket for other users, a process that
 * dropped root, one connection per PAM handle closed at pam_end, fork and threads. */
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

/* ---- password change ---- */

static int change_as_user(void *arg)
{
    struct conv_data *cd = arg;

    return one("plain", "alice", cd, pam_chauthtok, 0);
}

static void test_chauthtok_as_user(void **state)
{
    struct conv_data cd;

    service_all("plain", "");
    conv_init(&cd, 3, "secret", "n3w-Pass", "n3w-Pass");
    assert_int_equal(as_user(change_as_user, &cd), PAM_SUCCESS);
    assert_int_equal(pts_count(), 2);
    assert_int_equal(req_at(0).cmd, SSS_PAM_CHAUTHTOK_PRELIM);
    assert_false(req_at(0).priv);               /* not root: the public socket */
    assert_int_equal(req_at(0).peer_uid, TEST_UID);
    assert_string_equal(req_at(0).authtok, "secret");
    assert_false(req_at(0).has_newauthtok);
    assert_int_equal(req_at(1).cmd, SSS_PAM_CHAUTHTOK);
    assert_string_equal(req_at(1).authtok, "secret");
    assert_string_equal(req_at(1).newauthtok, "n3w-Pass");
    /* The new password works, the old one does not. */
    conv_init(&cd, 1, "n3w-Pass");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_SUCCESS);
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_AUTH_ERR);

    /* Mismatch: no change requested. (The child's conversation is its own copy.) */
    pts_clear();
    conv_init(&cd, 3, "n3w-Pass", "one", "two");
    assert_int_equal(as_user(change_as_user, &cd), PAM_CRED_ERR);
    assert_int_equal(pts_count(), 1);
    assert_int_equal(req_at(0).cmd, SSS_PAM_CHAUTHTOK_PRELIM);

    /* Wrong current password, with retry=1: asked again, then accepted (SSSD 2.8 fails
     * this retry with PAM_SYSTEM_ERR). */
    pts_clear();
    service_all("plain", "retry=1");
    conv_init(&cd, 4, "wrong", "n3w-Pass", "x2", "x2");
    assert_int_equal(as_user(change_as_user, &cd), PAM_SUCCESS);
    assert_int_equal(pts_count(), 3);
    assert_int_equal(req_at(0).cmd, SSS_PAM_CHAUTHTOK_PRELIM);
    assert_int_equal(req_at(1).cmd, SSS_PAM_CHAUTHTOK_PRELIM);
    assert_int_equal(req_at(2).cmd, SSS_PAM_CHAUTHTOK);
    assert_string_equal(req_at(2).newauthtok, "x2");
}

/* The first module's change answers PAM_USER_UNKNOWN (so the stack keeps the new password),
 * later requests go to the directory. */
static int chauthtok_seen;

static void first_change_unknown(const struct pts_req *req, struct pts_reply *rep)
{
    if (req->cmd == SSS_PAM_CHAUTHTOK && chauthtok_seen++ == 0) {
        pts_status(rep, PAM_USER_UNKNOWN);
        return;
    }
    pts_directory(req, rep);
}

static int change_with_stack(void *arg)
{
    struct conv_data *cd = arg;

    return one("pwstack", "alice", cd, pam_chauthtok, 0);
}

static void test_chauthtok_use_authtok(void **state)
{
    struct conv_data cd;

    /* use_authtok takes the new password that forward_pass left on the stack. */
    chauthtok_seen = 0;
    pts_set_handler(first_change_unknown);
    service("pwstack", "password optional forward_pass", "password required use_authtok",
            (const char *)NULL);
    conv_init(&cd, 4, "secret", "secret", "brand-new", "brand-new");
    assert_int_equal(as_user(change_with_stack, &cd), PAM_SUCCESS);
    assert_int_equal(pts_count(), 4);
    assert_int_equal(req_at(3).cmd, SSS_PAM_CHAUTHTOK);
    assert_int_equal(req_at(3).flags, SSS_PAM_CLI_FLAGS_USE_AUTHTOK);
    assert_string_equal(req_at(3).authtok, "secret");
    assert_string_equal(req_at(3).newauthtok, "brand-new");

    /* Nothing on the stack: refused before the server is asked (SSSD would send an
     * empty new password). */
    pts_clear();
    service("pwstack", "password required use_authtok", (const char *)NULL);
    conv_init(&cd, 1, "brand-new");
    assert_int_equal(as_user(change_with_stack, &cd), PAM_AUTHTOK_ERR);
    assert_int_equal(pts_count(), 1);
    assert_int_equal(req_at(0).cmd, SSS_PAM_CHAUTHTOK_PRELIM);
}

static void test_chauthtok_by_root(void **state)
{
    char dir[160];
    char file[224];
    struct conv_data cd;
    FILE *f;

    service_all("plain", "");
    conv_init(&cd, 0);
    assert_int_equal(one("plain", "bob", &cd, pam_chauthtok, 0), PAM_PERM_DENIED);
    assert_int_equal(pts_count(), 1);
    assert_false(last_req().has_authtok);
    assert_string_equal(cd.shown, "I:Password reset by root is not supported.\n");

    /* The administrator's message for the domain replaces it. */
    snprintf(dir, sizeof(dir), "%s/customize/test", t.confdir);
    snprintf(file, sizeof(file), "%s/customize", t.confdir);
    assert_int_equal(mkdir(file, 0755) == 0 || errno == EEXIST, 1);
    assert_int_equal(mkdir(dir, 0755) == 0 || errno == EEXIST, 1);
    snprintf(file, sizeof(file), "%s/pam_sss_pw_reset_message.txt", dir);
    f = fopen(file, "w");
    assert_non_null(f);
    fputs("Use https://reset.example/ instead.", f);
    fclose(f);
    chmod(file, 0644);
    conv_init(&cd, 0);
    assert_int_equal(one("plain", "bob", &cd, pam_chauthtok, 0), PAM_PERM_DENIED);
    assert_string_equal(cd.shown, "I:Use https://reset.example/ instead.\n");
    /* ... but only when it is root's 0644 file. */
    chmod(file, 0666);
    conv_init(&cd, 0);
    assert_int_equal(one("plain", "bob", &cd, pam_chauthtok, 0), PAM_PERM_DENIED);
    assert_string_equal(cd.shown, "I:Password reset by root is not supported.\n");
    unlink(file);
    rmdir(dir);
}

/* ---- sockets and privileges ---- */

static void test_bad_socket_files(void **state)
{
    char path[160];
    struct conv_data cd;

    service_all("plain", "");
    snprintf(path, sizeof(path), "%s/private/pam", pts_dir());
    assert_int_equal(chmod(path, 0666), 0);
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_AUTHINFO_UNAVAIL);
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(chown(path, TEST_UID, 0), 0);
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_AUTHINFO_UNAVAIL);
    assert_int_equal(chown(path, 0, TEST_GID), 0);
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_AUTHINFO_UNAVAIL);
    assert_int_equal(chown(path, 0, 0), 0);
    assert_int_equal(pts_count(), 0);
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_SUCCESS);
}

/* A server whose socket file looks right but that does not run as root gets nothing. */
static void test_server_not_root(void **state)
{
    char dir[] = "/tmp/pam_sss_fake.XXXXXX";
    char path[128];
    struct conv_data cd;
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    int sync[2];
    int status;
    pid_t pid;
    char c;

    assert_non_null(mkdtemp(dir));
    chmod(dir, 0755);
    snprintf(path, sizeof(path), "%s/private", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/private/pam", dir);
    assert_int_equal(pipe(sync), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        int cfd;
        char buf[64];
        struct timeval tv = { .tv_sec = 5 };

        if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0
                || chmod(addr.sun_path, 0600) != 0
                || setresgid(TEST_GID, TEST_GID, TEST_GID) != 0
                || setresuid(TEST_UID, TEST_UID, TEST_UID) != 0 || listen(fd, 4) != 0) {
            _exit(2);
        }
        (void)write(sync[1], "r", 1);
        cfd = accept(fd, NULL, NULL);
        if (cfd < 0) {
            _exit(3);
        }
        setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        /* The client must hang up without sending a byte. */
        _exit(recv(cfd, buf, sizeof(buf), 0) > 0 ? 1 : 0);
    }
    assert_int_equal(read(sync[0], &c, 1), 1);
    t.set_socket_dir(dir);
    service_all("plain", "");
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_AUTHINFO_UNAVAIL);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    unlink(addr.sun_path);
    rmdir(path);
    rmdir(dir);
    close(sync[0]);
    close(sync[1]);
}

static int auth_as_user(void *arg)
{
    struct conv_data cd;

    conv_init(&cd, 1, "hunter2");
    return one("plain", "bob", &cd, pam_authenticate, 0);
}

static void test_public_socket_for_users(void **state)
{
    service_all("plain", "");
    assert_int_equal(as_user(auth_as_user, NULL), PAM_SUCCESS);
    assert_int_equal(pts_count(), 1);
    assert_false(last_req().priv);
    assert_int_equal(last_req().peer_uid, TEST_UID);
}

/* A process that authenticated as root and then dropped root keeps no connection to the
 * privileged socket once it asks again. */
static int drop_root(void *arg)
{
    pam_handle_t *pamh = arg;

    if (open_pam_fds("private/pam") != 1) {
        return 10;
    }
    if (pam_acct_mgmt(pamh, 0) != PAM_SUCCESS) {
        return 11;
    }
    if (open_pam_fds("private/pam") != 0 || open_pam_fds("pam") != 1) {
        return 12;
    }
    return 0;
}

static void test_privilege_drop(void **state)
{
    struct conv_data cd;
    pam_handle_t *pamh;
    pid_t pid;
    int status;

    service_all("plain", "");
    conv_init(&cd, 1, "secret");
    pamh = start("plain", "alice", &cd);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* In the child: authenticate as root (private socket), then drop root. */
        if (pam_authenticate(pamh, 0) != PAM_SUCCESS) {
            _exit(9);
        }
        if (setresgid(TEST_GID, TEST_GID, TEST_GID) != 0
                || setresuid(TEST_UID, TEST_UID, TEST_UID) != 0) {
            _exit(8);
        }
        _exit(drop_root(pamh));
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    pam_end(pamh, PAM_SUCCESS);
}

/* ---- connections, fork, threads ---- */

static void test_connection_lifetime(void **state)
{
    struct conv_data cd;
    pam_handle_t *pamh;
    int before = pts_connections();

    service_all("plain", "");
    conv_init(&cd, 1, "secret");
    pamh = start("plain", "alice", &cd);
    assert_int_equal(pam_authenticate(pamh, 0), PAM_SUCCESS);
    assert_int_equal(pam_acct_mgmt(pamh, 0), PAM_SUCCESS);
    assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
    /* One connection for the whole handle ... */
    assert_int_equal(pts_connections(), before + 1);
    assert_int_equal(open_pam_fds("private/pam"), 1);
    pam_end(pamh, PAM_SUCCESS);
    /* ... closed by pam_end. */
    assert_int_equal(open_pam_fds("private/pam"), 0);
}

static void test_fork(void **state)
{
    struct conv_data cd;
    pam_handle_t *pamh;
    pid_t pid;
    int status;

    service_all("plain", "");
    conv_init(&cd, 1, "secret");
    pamh = start("plain", "alice", &cd);
    assert_int_equal(pam_authenticate(pamh, 0), PAM_SUCCESS);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        _exit(pam_acct_mgmt(pamh, 0));
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), PAM_SUCCESS);
    assert_int_equal(pam_acct_mgmt(pamh, 0), PAM_SUCCESS);
    pam_end(pamh, PAM_SUCCESS);

    /* The child used a connection of its own; the parent kept its one. */
    assert_int_equal(pts_count(), 3);
    assert_int_equal(req_at(1).peer_pid, pid);
    assert_int_not_equal(req_at(1).conn, req_at(0).conn);
    assert_int_equal(req_at(2).conn, req_at(0).conn);
    assert_int_equal(req_at(2).peer_pid, getpid());
}

#define THREADS 8
#define ROUNDS 25

static void *thread_main(void *arg)
{
    long id = (long)arg;
    long bad = 0;
    int i;

    for (i = 0; i < ROUNDS; i++) {
        struct conv_data cd;
        bool right = (i + id) % 3 != 0;
        const char *user = id % 2 ? "alice" : "bob";
        const char *pw = right ? (id % 2 ? "secret" : "hunter2") : "nope";
        int ret;

        conv_init(&cd, 1, pw);
        ret = one("plain", user, &cd, pam_authenticate, 0);
        if (ret != (right ? PAM_SUCCESS : PAM_AUTH_ERR)) {
            bad++;
        }
    }
    return (void *)bad;
}

static void test_threads(void **state)
{
    pthread_t thr[THREADS];
    void *bad;
    long i;

    service_all("plain", "");
    for (i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_create(&thr[i], NULL, thread_main, (void *)i), 0);
    }
    for (i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(thr[i], &bad), 0);
        assert_int_equal((long)bad, 0);
    }
    assert_int_equal(pts_count(), THREADS * ROUNDS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_chauthtok_as_user, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chauthtok_use_authtok, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chauthtok_by_root, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_socket_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_not_root, setup, teardown),
        cmocka_unit_test_setup_teardown(test_public_socket_for_users, setup, teardown),
        cmocka_unit_test_setup_teardown(test_privilege_drop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connection_lifetime, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fork, setup, teardown),
        cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
    };

    if (geteuid() != 0) {
        /* Root and non-root callers use different sockets; the flows need both. */
        fprintf(stderr, "needs root, skipped\n");
        return 77;
    }
    setenv("TZ", "UTC", 1);
    alarm(600);     /* a hang is a failure, not a stuck build */
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
