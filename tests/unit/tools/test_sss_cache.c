/*
 * Unit tests of sss_cache (src/tools/sss_cache_*.c): the command line; expiry over real
 * temporary caches of three domains (one case-insensitive, one never created); memory cache
 * files built here by hand from sss_mc.h and reset when no bus answers (also short, foreign,
 * linked and locked files, which must be left alone); and the signals on an in-process
 * master bus with a stand-in sssd_nss. Every test checks it leaves no talloc blocks behind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/common/tc_common.h"
#include "tests/unit/common/tc_bus.h"
#include "util/util.h"
#include "db/sysdb.h"
#include "db/sysdb_netgroups.h"
#include "confdb/confdb.h"
#include "sbus/sbus_server.h"
#include "sss_iface/sss_iface.h"
#include "sss_client/sss_mc.h"
#include "tools/sss_cache.h"

#define ONE "one.test"
#define TWO "two.test"     /* case_sensitive = false */
#define NONE "none.test"   /* configured, never looked up: no cache file */
#define TMO 5400
#define OLD_BARRIER 0xf0000005

static const char test_conf[] =
    "[sssd]\n"
    "domains = " ONE ", " TWO ", " NONE "\n"
    "[domain/" ONE "]\n"
    "id_provider = ldap\n"
    "ldap_uri = ldap://127.0.0.1\n"
    "[domain/" TWO "]\n"
    "id_provider = ldap\n"
    "ldap_uri = ldap://127.0.0.1\n"
    "case_sensitive = false\n"
    "[domain/" NONE "]\n"
    "id_provider = ldap\n"
    "ldap_uri = ldap://127.0.0.1\n";

struct test_ctx {
    struct tc_leaks leaks;
    char *dir;              /* on mem */
    char db_dir[96];
    char mc_dir[96];
    char bus_addr[128];
    TALLOC_CTX *mem;
    struct confdb *cdb;
    struct sss_cache_paths paths;
    time_t now;
    int mc_fd[3];           /* passwd, group, initgroups: opened before the run */
};

static const char *const mc_names[] = { "passwd", "group", "initgroups" };

/* ---- helpers ---- */

static void populate(struct test_ctx *t, const char *domain, enum sysdb_case mode)
{
    struct sysdb_ctx *sysdb;
    const char *devs_members[] = { "joe", NULL };
    const char *joe_groups[] = { "devs", NULL };
    struct sysdb_user joe = { .name = "joe", .uid = 1001, .gid = 2001 };
    struct sysdb_user ann = { .name = "ann", .uid = 1002, .gid = 2002 };
    struct sysdb_group devs = { .name = "devs", .gid = 2001, .members = devs_members };
    struct sysdb_group ops = { .name = "ops", .gid = 2002 };

    assert_int_equal(sysdb_open(t->mem, t->db_dir, domain, mode, &sysdb), EOK);
    assert_int_equal(sysdb_store_user(sysdb, &joe, t->now, TMO), EOK);
    assert_int_equal(sysdb_store_user(sysdb, &ann, t->now, TMO), EOK);
    assert_int_equal(sysdb_store_group(sysdb, &devs, true, t->now, TMO), EOK);
    assert_int_equal(sysdb_store_group(sysdb, &ops, true, t->now, TMO), EOK);
    assert_int_equal(sysdb_store_initgroups(sysdb, "joe", joe_groups, t->now, TMO), EOK);
    talloc_free(sysdb);
}

/* A memory cache file as sssd_nss leaves it: valid header, alive, some data after it. */
static void make_mc_file(const char *path)
{
    struct sss_mc_header h = { 0 };
    uint8_t data[4096 - sizeof(h)];
    FILE *f;

    h.b1 = OLD_BARRIER;
    h.major_vno = SSS_MC_MAJOR_VNO;
    h.minor_vno = SSS_MC_MINOR_VNO;
    h.status = SSS_MC_HEADER_ALIVE;
    h.seed = 12345;
    h.data_table = MC_HEADER_SIZE;
    h.b2 = OLD_BARRIER;
    memset(data, 0xff, sizeof(data));
    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(&h, sizeof(h), 1, f), 1);
    assert_int_equal(fwrite(data, sizeof(data), 1, f), 1);
    assert_int_equal(fclose(f), 0);
}

static void make_mc_files(struct test_ctx *t)
{
    char path[160];
    int i;

    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/%s", t->mc_dir, mc_names[i]);
        make_mc_file(path);
        t->mc_fd[i] = open(path, O_RDONLY);
        assert_true(t->mc_fd[i] >= 0);
    }
}

static void read_header(int fd, struct sss_mc_header *h)
{
    assert_int_equal(pread(fd, h, sizeof(*h), 0), sizeof(*h));
}

/* What a client holding file i sees now: recycled (and gone) or untouched. */
static void assert_mc(struct test_ctx *t, int i, bool recycled)
{
    struct sss_mc_header h;
    struct stat st;
    char path[160];

    read_header(t->mc_fd[i], &h);
    assert_true(MC_VALID_BARRIER(h.b1));
    assert_int_equal(h.b1, h.b2);
    assert_int_equal(fstat(t->mc_fd[i], &st), 0);
    snprintf(path, sizeof(path), "%s/%s", t->mc_dir, mc_names[i]);
    if (recycled) {
        assert_int_equal(h.status, SSS_MC_HEADER_RECYCLED);
        assert_int_equal(h.b1, MC_NEXT_BARRIER(OLD_BARRIER));
        assert_int_equal(st.st_nlink, 0);
        assert_int_equal(access(path, F_OK), -1);
    } else {
        assert_int_equal(h.status, SSS_MC_HEADER_ALIVE);
        assert_int_equal(h.b1, OLD_BARRIER);
        assert_int_equal(st.st_nlink, 1);
    }
}

static time_t user_expire(struct test_ctx *t, const char *domain, enum sysdb_case mode,
                          const char *name, time_t *_initgr_expire)
{
    struct sysdb_ctx *sysdb;
    struct sysdb_user *user;
    uint32_t *gids;
    size_t count;
    time_t expire;

    assert_int_equal(sysdb_open(t->mem, t->db_dir, domain, mode, &sysdb), EOK);
    assert_int_equal(sysdb_get_user_by_name(sysdb, sysdb, name, &user), EOK);
    expire = user->expire;
    if (_initgr_expire != NULL) {
        *_initgr_expire = 0;
        if (sysdb_get_initgroups(sysdb, sysdb, name, &gids, &count, _initgr_expire) != EOK) {
            *_initgr_expire = -1;
        }
    }
    talloc_free(sysdb);
    return expire;
}

static time_t group_expire(struct test_ctx *t, const char *domain, enum sysdb_case mode,
                           const char *name)
{
    struct sysdb_ctx *sysdb;
    struct sysdb_group *grp;
    time_t expire;

    assert_int_equal(sysdb_open(t->mem, t->db_dir, domain, mode, &sysdb), EOK);
    assert_int_equal(sysdb_get_group_by_name(sysdb, sysdb, name, &grp), EOK);
    expire = grp->expire;
    talloc_free(sysdb);
    return expire;
}

#define FRESH(t) ((t)->now + TMO)
#define EXPIRED 1

static bool expired_user(struct test_ctx *t, const char *dom, const char *name)
{
    enum sysdb_case mode = strcmp(dom, TWO) == 0 ? SYSDB_CASE_INSENSITIVE
                                                 : SYSDB_CASE_SENSITIVE;
    time_t e = user_expire(t, dom, mode, name, NULL);

    assert_true(e == EXPIRED || e == FRESH(t));
    return e == EXPIRED;
}

static bool expired_group(struct test_ctx *t, const char *dom, const char *name)
{
    enum sysdb_case mode = strcmp(dom, TWO) == 0 ? SYSDB_CASE_INSENSITIVE
                                                 : SYSDB_CASE_SENSITIVE;
    time_t e = group_expire(t, dom, mode, name);

    assert_true(e == EXPIRED || e == FRESH(t));
    return e == EXPIRED;
}

static errno_t run(struct test_ctx *t, struct sss_cache_sel *sel)
{
    return sss_cache_run(t->cdb, sel, &t->paths);
}

/* ---- fixtures ---- */

static int setup(void **state)
{
    struct test_ctx *t;
    char *error = NULL;

    t = calloc(1, sizeof(*t));
    assert_non_null(t);
    tc_leak_start(&t->leaks);
    t->mem = talloc_new(NULL);
    assert_non_null(t->mem);
    t->dir = tc_tmpdir(t->mem, "test_sss_cache");
    snprintf(t->db_dir, sizeof(t->db_dir), "%s/db", t->dir);
    snprintf(t->mc_dir, sizeof(t->mc_dir), "%s/mc", t->dir);
    snprintf(t->bus_addr, sizeof(t->bus_addr), "unix:path=%s/no-bus-here", t->dir);
    assert_int_equal(mkdir(t->db_dir, 0700), 0);
    assert_int_equal(mkdir(t->mc_dir, 0755), 0);
    assert_int_equal(confdb_parse_buffer(t->mem, "test", test_conf, strlen(test_conf),
                                         &t->cdb, &error), EOK);
    t->paths.db_dir = t->db_dir;
    t->paths.mc_dir = t->mc_dir;
    t->paths.bus_address = t->bus_addr;
    t->paths.bus_timeout_ms = 5000;
    t->now = time(NULL);
    t->mc_fd[0] = t->mc_fd[1] = t->mc_fd[2] = -1;
    *state = t;
    return 0;
}

static int setup_populated(void **state)
{
    struct test_ctx *t;

    setup(state);
    t = *state;
    populate(t, ONE, SYSDB_CASE_SENSITIVE);
    populate(t, TWO, SYSDB_CASE_INSENSITIVE);
    make_mc_files(t);
    return 0;
}

static int teardown(void **state)
{
    struct test_ctx *t = *state;
    int i;

    for (i = 0; i < 3; i++) {
        if (t->mc_fd[i] != -1) {
            close(t->mc_fd[i]);
        }
    }
    tc_tmpdir_remove(t->dir);
    talloc_free(t->mem);
    tc_leak_check(&t->leaks);
    free(t);
    return 0;
}

/* ---- command line ---- */

static errno_t parse(TALLOC_CTX *mem, struct sss_cache_args **args, ...)
{
    char *argv[16] = { discard_const_p(char, "sss_cache") };
    int argc = 1;
    va_list ap;
    char *a;

    va_start(ap, args);
    while ((a = va_arg(ap, char *)) != NULL && argc < 15) {
        argv[argc++] = a;
    }
    va_end(ap);
    return sss_cache_parse_args(mem, argc, argv, args);
}

static void test_args(void **state)
{
    struct test_ctx *t = *state;
    struct sss_cache_args *a;

    assert_int_equal(parse(t->mem, &a, "-E", NULL), EOK);
    assert_true(a->sel.all_users && a->sel.all_groups);
    assert_string_equal(a->config_file, SSSD_CONF_FILE);
    assert_false(a->sel.other_all[SSS_CACHE_NETGROUP]);

    /* -U overrides -u, as in SSSD; long forms; -c and -d. */
    assert_int_equal(parse(t->mem, &a, "--user=joe", "-U", "-g", "devs", "-d", ONE,
                           "--config", "/x.conf", NULL), EOK);
    assert_true(a->sel.all_users);
    assert_null(a->sel.user);
    assert_string_equal(a->sel.group, "devs");
    assert_false(a->sel.all_groups);
    assert_string_equal(a->sel.domain, ONE);
    assert_string_equal(a->config_file, "/x.conf");

    /* SSSD's -h is an SSH host, help is -? / --help / --usage. */
    assert_int_equal(parse(t->mem, &a, "-h", "host1", NULL), EOK);
    assert_false(a->help);
    assert_string_equal(a->sel.other_name[SSS_CACHE_SSH_HOST], "host1");
    assert_int_equal(parse(t->mem, &a, "-?", NULL), EOK);
    assert_true(a->help);
    assert_int_equal(parse(t->mem, &a, "--help", NULL), EOK);
    assert_true(a->help);
    assert_int_equal(parse(t->mem, &a, "--usage", NULL), EOK);
    assert_true(a->help);
    assert_int_equal(parse(t->mem, &a, "-N", "-R", "--debug", "9", NULL), EOK);
    assert_true(a->sel.other_all[SSS_CACHE_NETGROUP]);
    assert_true(a->sel.other_all[SSS_CACHE_SUDO_RULE]);
    assert_int_equal(a->debug_level, 9);

    /* Refused: nothing selected, unknown options, missing argument, stray argument. */
    assert_int_equal(parse(t->mem, &a, NULL), EINVAL);
    assert_int_equal(parse(t->mem, &a, "-d", ONE, NULL), EINVAL);
    assert_int_equal(parse(t->mem, &a, "-x", NULL), EINVAL);
    assert_int_equal(parse(t->mem, &a, "--bogus", NULL), EINVAL);
    assert_int_equal(parse(t->mem, &a, "-u", NULL), EINVAL);
    assert_int_equal(parse(t->mem, &a, "-u", "joe", "ann", NULL), EINVAL);
    assert_int_equal(parse(t->mem, &a, "-U", "--debug", "x", NULL), EINVAL);
}

static void test_name_in_domain(void **state)
{
    (void)state;
    assert_string_equal(sss_cache_name_in_domain("joe", ONE), "joe");
    assert_string_equal(sss_cache_name_in_domain("joe@ONE.test", ONE), "joe@ONE.test");
    assert_null(sss_cache_name_in_domain("joe@" TWO, ONE));
    assert_null(sss_cache_name_in_domain("joe@elsewhere", ONE));
    assert_null(sss_cache_name_in_domain(NULL, ONE));
}

/* ---- expiry, no bus: files reset by the tool ---- */

static void test_one_user_every_domain(void **state)
{
    struct test_ctx *t = *state;
    struct sss_cache_sel sel = { .user = "joe" };
    time_t initgr;

    assert_int_equal(run(t, &sel), EOK);
    assert_true(expired_user(t, ONE, "joe"));
    assert_true(expired_user(t, TWO, "joe"));
    assert_int_equal(user_expire(t, ONE, SYSDB_CASE_SENSITIVE, "joe", &initgr), EXPIRED);
    assert_int_equal(initgr, EXPIRED);      /* the group list too */
    assert_false(expired_user(t, ONE, "ann"));
    assert_false(expired_group(t, ONE, "devs"));
    /* The whole memory cache goes, as with SSSD: a group's record lists joe too. */
    assert_mc(t, 0, true);
    assert_mc(t, 1, true);
    assert_mc(t, 2, true);
    /* The never-used domain got no cache file. */
    assert_int_equal(access(t->db_dir, F_OK), 0);
    {
        char path[160];
        snprintf(path, sizeof(path), "%s/cache_" NONE ".ldb", t->db_dir);
        assert_int_equal(access(path, F_OK), -1);
    }
}

static void test_qualified_name(void **state)
{
    struct test_ctx *t = *state;
    struct sss_cache_sel sel = { .user = "joe@TWO.test" };

    assert_int_equal(run(t, &sel), EOK);
    assert_false(expired_user(t, ONE, "joe"));
    assert_true(expired_user(t, TWO, "joe"));
}

static void test_case_modes(void **state)
{
    struct test_ctx *t = *state;
    struct sss_cache_sel sel = { .user = "JOE" };

    /* Only the case-insensitive domain knows JOE. */
    assert_int_equal(run(t, &sel), EOK);
    assert_false(expired_user(t, ONE, "joe"));
    assert_true(expired_user(t, TWO, "joe"));
}

static void test_no_match(void **state)
{
    struct test_ctx *t = *state;
    struct sss_cache_sel sel = { .user = "nosuch" };

    assert_int_equal(run(t, &sel), ENOENT);
    sel.user = "joe@elsewhere";
    assert_int_equal(run(t, &sel), ENOENT);
    sel.user = NULL;
    sel.group = "nosuch";
    assert_int_equal(run(t, &sel), ENOENT);
    /* A netgroup that is not cached, and named kinds this suite does not cache. */
    sel.group = NULL;
    sel.other_name[SSS_CACHE_NETGROUP] = "ng";
    assert_int_equal(run(t, &sel), ENOENT);
    sel.other_name[SSS_CACHE_NETGROUP] = NULL;
    sel.other_name[SSS_CACHE_SERVICE] = "ssh";
    assert_int_equal(run(t, &sel), ENOENT);
    sel.other_name[SSS_CACHE_SERVICE] = NULL;
    /* Nothing matched: nothing expired, nobody told, no file touched. */
    assert_false(expired_user(t, ONE, "joe"));
    assert_mc(t, 0, false);
    assert_mc(t, 1, false);
    assert_mc(t, 2, false);

    /* One name matching is enough. */
    sel.user = "ann";
    assert_int_equal(run(t, &sel), EOK);
    assert_true(expired_user(t, ONE, "ann"));
}

static void store_netgroup(struct test_ctx *t, const char *domain, enum sysdb_case mode,
                           const char *name)
{
    struct sysdb_ctx *sysdb;
    const char *triples[] = { "(h,u,d)", NULL };
    struct sysdb_netgroup ng = { .name = name, .triples = triples };

    assert_int_equal(sysdb_open(t->mem, t->db_dir, domain, mode, &sysdb), EOK);
    assert_int_equal(sysdb_store_netgroup(sysdb, &ng, t->now, TMO), EOK);
    talloc_free(sysdb);
}

static bool expired_netgroup(struct test_ctx *t, const char *dom, const char *name)
{
    enum sysdb_case mode = strcmp(dom, TWO) == 0 ? SYSDB_CASE_INSENSITIVE
                                                 : SYSDB_CASE_SENSITIVE;
    struct sysdb_netgroup *ng;
    struct sysdb_ctx *sysdb;
    time_t e;

    assert_int_equal(sysdb_open(t->mem, t->db_dir, dom, mode, &sysdb), EOK);
    assert_int_equal(sysdb_get_netgroup(sysdb, sysdb, name, &ng), EOK);
    e = ng->expire;
    talloc_free(sysdb);
    assert_true(e < t->now || e == FRESH(t));
    return e < t->now;
}

/* -n NAME (in every domain, or the one it names), -N, and -E: netgroups expire like users
 * and groups; the negative cache of groups (which holds the netgroups) is reset. */
static void test_netgroups(void **state)
{
    struct test_ctx *t = *state;
    struct sss_cache_sel sel = { 0 };
    struct sss_cache_args *args = NULL;

    store_netgroup(t, ONE, SYSDB_CASE_SENSITIVE, "ng1");
    store_netgroup(t, ONE, SYSDB_CASE_SENSITIVE, "ng2");
    store_netgroup(t, TWO, SYSDB_CASE_INSENSITIVE, "ng1");

    sel.other_name[SSS_CACHE_NETGROUP] = "ng1@" ONE;
    assert_int_equal(run(t, &sel), EOK);
    assert_true(expired_netgroup(t, ONE, "ng1"));
    assert_false(expired_netgroup(t, ONE, "ng2"));
    assert_false(expired_netgroup(t, TWO, "ng1"));
    assert_false(expired_user(t, ONE, "joe"));
    assert_false(expired_group(t, ONE, "devs"));

    sel.other_name[SSS_CACHE_NETGROUP] = "NG1";     /* two.test folds case */
    assert_int_equal(run(t, &sel), EOK);
    assert_true(expired_netgroup(t, TWO, "ng1"));
    assert_false(expired_netgroup(t, ONE, "ng2"));

    memset(&sel, 0, sizeof(sel));
    sel.other_all[SSS_CACHE_NETGROUP] = true;
    assert_int_equal(run(t, &sel), EOK);
    assert_true(expired_netgroup(t, ONE, "ng2"));
    assert_false(expired_user(t, ONE, "joe"));

    store_netgroup(t, ONE, SYSDB_CASE_SENSITIVE, "ng2");
    memset(&sel, 0, sizeof(sel));
    assert_int_equal(parse(t->mem, &args, "-E", NULL), EOK);
    assert_true(args->sel.all_netgroups);
    assert_int_equal(run(t, &args->sel), EOK);
    assert_true(expired_netgroup(t, ONE, "ng2"));
    assert_true(expired_user(t, ONE, "joe"));
}

static void test_all_groups(void **state)
{
    struct test_ctx *t = *state;
    struct sss_cache_sel sel = { .all_groups = true };

    assert_int_equal(run(t, &sel), EOK);
    assert_true(expired_group(t, ONE, "devs"));
    assert_true(expired_group(t, ONE, "ops"));
    assert_true(expired_group(t, TWO, "ops"));
    assert_false(expired_user(t, ONE, "joe"));
    assert_mc(t, 0, true);
    assert_mc(t, 1, true);
    assert_mc(t, 2, true);
}

static void test_one_group(void **state)
{
    struct test_ctx *t = *state;
    struct sss_cache_sel sel = { .group = "devs@" ONE };

    assert_int_equal(run(t, &sel), EOK);
    assert_true(expired_group(t, ONE, "devs"));
    assert_false(expired_group(t, ONE, "ops"));
    assert_false(expired_group(t, TWO, "devs"));
    assert_mc(t, 0, true);
    assert_mc(t, 1, true);
    assert_mc(t, 2, true);
}

static void test_everything_one_domain(void **state)
{
    struct test_ctx *t = *state;
    struct sss_cache_sel sel = { .all_users = true, .all_groups = true, .domain = TWO };

    assert_int_equal(run(t, &sel), EOK);
    assert_true(expired_user(t, TWO, "joe"));
    assert_true(expired_user(t, TWO, "ann"));
    assert_true(expired_group(t, TWO, "devs"));
    assert_false(expired_user(t, ONE, "joe"));
    assert_false(expired_group(t, ONE, "devs"));
    assert_mc(t, 0, true);
    assert_mc(t, 1, true);
    assert_mc(t, 2, true);

    sel.domain = "unknown.test";
    assert_int_equal(run(t, &sel), ENOENT);
}

static void test_empty_caches(void **state)
{
    struct test_ctx *t = *state;
    struct sss_cache_sel sel = { .all_users = true };

    /* No cache file at all (sssd never ran): "all users" still succeeds, like SSSD, and
     * creates nothing. */
    assert_int_equal(run(t, &sel), EOK);
    assert_int_equal(rmdir(t->db_dir), 0);
    assert_int_equal(mkdir(t->db_dir, 0700), 0);
    sel.all_users = false;
    sel.user = "joe";
    assert_int_equal(run(t, &sel), ENOENT);
    /* Only kinds we do not cache, as a whole: a note, success, nothing to tell. */
    sel.user = NULL;
    sel.other_all[SSS_CACHE_SERVICE] = true;
    assert_int_equal(run(t, &sel), EOK);
}

static void test_case_mode_changed(void **state)
{
    struct test_ctx *t = *state;
    struct sss_cache_sel sel = { .all_users = true };
    struct sysdb_ctx *sysdb;

    /* A cache made case-sensitive for a domain now configured insensitive: that domain
     * fails, the other is still done. */
    assert_int_equal(sysdb_open(t->mem, t->db_dir, TWO, SYSDB_CASE_SENSITIVE, &sysdb), EOK);
    talloc_free(sysdb);
    populate(t, ONE, SYSDB_CASE_SENSITIVE);
    assert_int_equal(run(t, &sel), EIO);
    assert_true(expired_user(t, ONE, "joe"));
}

/* ---- memory cache files ---- */

static void test_mc_reset_file(void **state)
{
    struct test_ctx *t = *state;
    struct sss_mc_header h;
    char path[160];
    char link[160];
    int fd;

    snprintf(path, sizeof(path), "%s/passwd", t->mc_dir);
    assert_int_equal(sss_cache_mc_reset_file(path), ENOENT);

    /* Short file: left alone. */
    fd = open(path, O_CREAT | O_WRONLY, 0664);
    assert_int_equal(write(fd, "short", 5), 5);
    close(fd);
    assert_int_equal(sss_cache_mc_reset_file(path), EINVAL);
    assert_int_equal(access(path, F_OK), 0);

    /* Another major version: left alone. */
    make_mc_file(path);
    fd = open(path, O_RDWR);
    h.major_vno = 7;
    assert_int_equal(pwrite(fd, &h.major_vno, 4, offsetof(struct sss_mc_header, major_vno)), 4);
    close(fd);
    assert_int_equal(sss_cache_mc_reset_file(path), EINVAL);
    assert_int_equal(access(path, F_OK), 0);

    /* A symbolic link: never followed. */
    snprintf(link, sizeof(link), "%s/group", t->mc_dir);
    assert_int_equal(symlink(path, link), 0);
    assert_int_equal(sss_cache_mc_reset_file(link), EINVAL);
    assert_int_equal(unlink(link), 0);

    /* A valid one: recycled under the barriers, then removed. */
    make_mc_file(path);
    fd = open(path, O_RDONLY);
    assert_int_equal(sss_cache_mc_reset_file(path), EOK);
    read_header(fd, &h);
    close(fd);
    assert_int_equal(h.status, SSS_MC_HEADER_RECYCLED);
    assert_int_equal(h.b1, MC_NEXT_BARRIER(OLD_BARRIER));
    assert_int_equal(h.b2, h.b1);
    assert_int_equal(h.seed, 12345);
    assert_int_equal(access(path, F_OK), -1);

    /* sss_cache_mc_reset: each file on its own; a bad one does not stop the others. */
    make_mc_file(path);
    fd = open(link, O_CREAT | O_WRONLY, 0664);
    close(fd);
    assert_int_equal(sss_cache_mc_reset(t->mc_dir, SSS_CACHE_MC_PASSWD | SSS_CACHE_MC_GROUP
                                                   | SSS_CACHE_MC_INITGROUPS), EOK);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(access(link, F_OK), 0);
}

static void test_mc_locked_by_nss(void **state)
{
    struct test_ctx *t = *state;
    struct sss_mc_header h;
    struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
    char path[160];
    int ready[2];
    int stop[2];
    pid_t pid;
    char c;
    int fd;

    /* A child plays sssd_nss: it holds the byte-0 lock of its file. */
    snprintf(path, sizeof(path), "%s/group", t->mc_dir);
    make_mc_file(path);
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(stop), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        fd = open(path, O_RDWR);
        if (fd < 0 || fcntl(fd, F_SETLK, &lock) != 0) {
            _exit(1);
        }
        if (write(ready[1], "r", 1) != 1 || read(stop[0], &c, 1) != 1) {
            _exit(1);
        }
        _exit(0);
    }
    assert_int_equal(read(ready[0], &c, 1), 1);
    assert_int_equal(sss_cache_mc_reset_file(path), EBUSY);
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    read_header(fd, &h);
    close(fd);
    assert_int_equal(h.status, SSS_MC_HEADER_ALIVE);
    assert_int_equal(write(stop[1], "s", 1), 1);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    close(ready[0]); close(ready[1]); close(stop[0]); close(stop[1]);
    /* Once its owner is gone, the file is reset. */
    assert_int_equal(sss_cache_mc_reset_file(path), EOK);
}

/* ---- the bus ---- */

struct fake_nss {
    int users, groups, initgroups, neg_users, neg_groups;
    uint32_t gid;
    int by_gid;
};

static void on_users(struct sbus_request *r, void *d) { (void)r; ((struct fake_nss *)d)->users++; }
static void on_groups(struct sbus_request *r, void *d) { (void)r; ((struct fake_nss *)d)->groups++; }
static void on_initgr(struct sbus_request *r, void *d) { (void)r; ((struct fake_nss *)d)->initgroups++; }
static void on_neg_users(struct sbus_request *r, void *d) { (void)r; ((struct fake_nss *)d)->neg_users++; }
static void on_neg_groups(struct sbus_request *r, void *d) { (void)r; ((struct fake_nss *)d)->neg_groups++; }
static void on_gid(struct sbus_request *r, void *d, uint32_t gid)
{
    (void)r;
    ((struct fake_nss *)d)->by_gid++;
    ((struct fake_nss *)d)->gid = gid;
}

struct bus_test {
    struct tevent_context *ev;
    struct sbus_server *server;
    struct sbus_connection *nss;
};

/* Runs the notice through the bus; returns nss_told. */
static bool notify(struct bus_test *b, TALLOC_CTX *mem, const struct sss_cache_notice *n)
{
    struct tevent_req *req;
    bool told = false;

    req = sss_cache_notify_send(mem, b->ev, sbus_server_get_address(b->server), n);
    tc_wait_req(b->ev, req);
    assert_int_equal(sss_cache_notify_recv(req, &told), EOK);
    talloc_free(req);
    return told;
}

static void test_bus_signals(void **state)
{
    struct test_ctx *t = *state;
    struct bus_test b = { 0 };
    struct fake_nss seen = { 0 };
    struct sbus_listener l[7];
    struct tevent_req *req;
    uint32_t gids[] = { 2001 };
    struct sss_cache_notice n = { .mc_initgroups = true, .gids = gids, .n_gids = 1,
                                  .neg_groups = true };
    struct sss_cache_notice all = { .mc_users = true, .mc_groups = true,
                                    .mc_initgroups = true, .neg_users = true,
                                    .neg_groups = true };
    bool told;

    b.ev = tevent_context_init(t->mem);
    assert_non_null(b.ev);
    b.server = tc_bus_server(t->mem, b.ev, t->dir);

    /* Nobody owns sssd.nss: the signals go out, the caller is told to reset the files. */
    assert_false(notify(&b, t->mem, &all));

    b.nss = tc_bus_connect(t->mem, b.ev, b.server, SSS_BUS_NSS);
    l[0] = (struct sbus_listener)SBUS_LISTENER_sssd_nss_MemoryCache_InvalidateAllUsers(on_users, &seen);
    l[1] = (struct sbus_listener)SBUS_LISTENER_sssd_nss_MemoryCache_InvalidateAllGroups(on_groups, &seen);
    l[2] = (struct sbus_listener)SBUS_LISTENER_sssd_nss_MemoryCache_InvalidateAllInitgroups(on_initgr, &seen);
    l[3] = (struct sbus_listener)SBUS_LISTENER_sssd_nss_MemoryCache_InvalidateGroupById(on_gid, &seen);
    l[4] = (struct sbus_listener)SBUS_LISTENER_sssd_Responder_NegativeCache_ResetUsers(on_neg_users, &seen);
    l[5] = (struct sbus_listener)SBUS_LISTENER_sssd_Responder_NegativeCache_ResetGroups(on_neg_groups, &seen);
    l[6] = (struct sbus_listener)SBUS_LISTENERS_END;
    assert_int_equal(sbus_connection_add_listeners(b.nss, l), EOK);
    /* A round trip from the listener puts its AddMatch rules in place. */
    req = sbus_call_org_freedesktop_DBus_GetId_send(t->mem, b.nss, SBUS_DBUS_NAME,
                                                    SBUS_DBUS_PATH);
    tc_wait_req(b.ev, req);
    talloc_free(req);

    /* One group: by gid, initgroups, negative cache of groups. */
    told = notify(&b, t->mem, &n);
    assert_true(told);
    while (seen.neg_groups < 1) {
        assert_int_equal(tevent_loop_once(b.ev), 0);
    }
    assert_int_equal(seen.by_gid, 1);
    assert_int_equal(seen.gid, 2001);
    assert_int_equal(seen.initgroups, 1);
    assert_int_equal(seen.users + seen.groups + seen.neg_users, 0);

    /* Everything: each signal once; no per-gid signal when all groups go. */
    memset(&seen, 0, sizeof(seen));
    all.gids = gids;
    all.n_gids = 1;
    assert_true(notify(&b, t->mem, &all));
    while (seen.neg_groups < 1) {
        assert_int_equal(tevent_loop_once(b.ev), 0);
    }
    assert_int_equal(seen.users, 1);
    assert_int_equal(seen.groups, 1);
    assert_int_equal(seen.initgroups, 1);
    assert_int_equal(seen.neg_users, 1);
    assert_int_equal(seen.by_gid, 0);

    talloc_free(b.nss);
    talloc_free(b.server);
    talloc_free(b.ev);
}

static void test_bus_unreachable(void **state)
{
    struct test_ctx *t = *state;
    struct sss_cache_notice n = { .mc_users = true };
    bool told = true;

    assert_int_not_equal(sss_cache_notify(t->bus_addr, &n, 2000, &told), EOK);
    assert_int_not_equal(sss_cache_notify("unix:path=/nonexistent/dir/bus", &n, 2000, &told),
                         EOK);
}

/* Opens and closes a cache before any baseline is taken: ldb loads its back-end modules
 * once per process, onto the NULL context. */
static void warm_up(void)
{
    TALLOC_CTX *mem;
    struct sysdb_ctx *sysdb;
    char *dir;

    talloc_enable_null_tracking();
    mem = talloc_new(NULL);
    assert_non_null(mem);
    dir = tc_tmpdir(mem, "test_sss_cache_warm");
    assert_int_equal(sysdb_open(mem, dir, ONE, SYSDB_CASE_SENSITIVE, &sysdb), EOK);
    tc_tmpdir_remove(dir);
    talloc_free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_args, setup, teardown),
        cmocka_unit_test_setup_teardown(test_name_in_domain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_user_every_domain, setup_populated, teardown),
        cmocka_unit_test_setup_teardown(test_qualified_name, setup_populated, teardown),
        cmocka_unit_test_setup_teardown(test_case_modes, setup_populated, teardown),
        cmocka_unit_test_setup_teardown(test_no_match, setup_populated, teardown),
        cmocka_unit_test_setup_teardown(test_netgroups, setup_populated, teardown),
        cmocka_unit_test_setup_teardown(test_all_groups, setup_populated, teardown),
        cmocka_unit_test_setup_teardown(test_one_group, setup_populated, teardown),
        cmocka_unit_test_setup_teardown(test_everything_one_domain, setup_populated, teardown),
        cmocka_unit_test_setup_teardown(test_empty_caches, setup, teardown),
        cmocka_unit_test_setup_teardown(test_case_mode_changed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mc_reset_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mc_locked_by_nss, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bus_signals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bus_unreachable, setup, teardown),
    };

    /* The tool's own messages go to stderr; keep the library logs quiet. */
    debug_init("test_sss_cache", 0, SSS_LOGGER_STDERR, NULL);
    warm_up();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
