/*
 * Fixtures shared by pam_sss's flow tests (test_pam_flows.c, test_pam_passwd_conn.c): they
 * drive pam_sss_test.so (the module built with SSS_CLIENT_TEST) through the real libpam with
 * service files of their own, against the responder of test_pam_server.h. Helpers that a
 * forked child may call use no cmocka assertion (a failed one in a child would go on
 * running the rest of the suite there); they say so.
 */
#ifndef TEST_PAM_HARNESS_H
#define TEST_PAM_HARNESS_H

#include <stdint.h>
#include <security/pam_appl.h>
#include <security/pam_modules.h>

#include "test_pam_server.h"

#define TEST_UID 1000
#define TEST_GID 1000

typedef int sm_fn(pam_handle_t *, int, int, const char **);

/* The loaded module and the test's directories. */
struct pam_test {
    void *dl;
    char confdir[64];
    char indicator[96];
    void (*set_socket_dir)(const char *);
    void (*set_timeout_ms)(int);
    sm_fn *authenticate, *acct_mgmt;
};
extern struct pam_test t;

/* A scripted conversation: answers for echo-off prompts, and everything shown. */
struct conv_data {
    struct pam_conv conv;
    const char *answers[8];
    int nanswers;
    int next;
    char shown[8192];   /* "P:prompt\n", "I:text\n", "E:text\n" in order */
};

void conv_init(struct conv_data *cd, int nanswers, ...);

/* Service files in t.confdir: each line "TYPE CONTROL ARGS" (NULL-terminated list); the
 * module's path goes between CONTROL and ARGS. service_all: the module for all four types. */
void service(const char *name, ...);
void service_all(const char *name, const char *opts);

pam_handle_t *start(const char *svc, const char *user, struct conv_data *cd);
/* pam_start, op, pam_end: op's result, -1 when pam_start failed. Child-safe. */
int one(const char *svc, const char *user, struct conv_data *cd,
        int (*op)(pam_handle_t *, int), int flags);
/* The module's own return code, called without libpam's dispatch (in a child). */
int direct(sm_fn *fn, const char *user, struct conv_data *cd, int argc, const char **argv);

struct pts_req req_at(int i);
struct pts_req last_req(void);
/* Sockets of this process connected to <server dir>/WHICH, -1 if unknown. Child-safe. */
int open_pam_fds(const char *which);
/* fn(arg) in a child running as TEST_UID/TEST_GID: its exit status. */
int as_user(int (*fn)(void *), void *arg);

/* The reply the responder gives to requests of one command (others: pts_directory). */
extern struct pts_reply canned;
void use_canned(uint32_t cmd);

/* cmocka fixtures: per test (server state reset, no connection left open after it) and
 * per group (server, module, directories). */
int setup(void **state);
int teardown(void **state);
int group_setup(void **state);
int group_teardown(void **state);

#endif /* TEST_PAM_HARNESS_H */
