/* The memory-cache writer (src/responder/nss) against libnss_sss's own reader
 * (src/sss_client/nss, compiled with SSS_CLIENT_TEST for a settable directory), in
 * parallel: reader threads look users up by name and by uid while the writer keeps
 * recycling the slots of a cache far too small for them, so every store evicts a record and
 * writes another user's record of the same length into the very same slots. A reader must
 * never return a record whose fields belong to two users (issue 11, item 3): with a barrier
 * value reused for recycled slots, a copy that straddles an eviction and a rewrite passes
 * the barrier check. Runs for a bounded time; the figures are printed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "responder/nss/nss_memcache.h"
#include "sss_client/nss/nss_mc.h"
#include "tests/unit/common/tc_common.h"

#define USERS 64            /* cycled through... */
#define FITS 6              /* ...a cache that holds this many of their records */
#define GECOS_LEN 1500      /* long records: a copy takes a while, tears are likely */
#define RUN_SECONDS 4
#define READERS 4

static struct tc_leaks leaks;
static char *tmpdir;

struct race {
    volatile bool stop;
    uint64_t hits[READERS];
    uint64_t torn[READERS];
    char first_torn[256];
    pthread_mutex_t lock;
};

static void user_fields(unsigned int i, char *name, char *gecos, char *home, char *shell)
{
    snprintf(name, 16, "user%02u", i);
    memset(gecos, 'a' + (char)(i % 26), GECOS_LEN);
    snprintf(gecos + GECOS_LEN, 16, "-%02u", i);
    snprintf(home, 32, "/home/user%02u", i);
    snprintf(shell, 32, "/bin/sh%02u", i);
}

/* Whether pw is exactly user i's record. */
static bool user_matches(const struct passwd *pw, unsigned int i)
{
    char name[16], gecos[GECOS_LEN + 16], home[32], shell[32];

    user_fields(i, name, gecos, home, shell);
    return strcmp(pw->pw_name, name) == 0 && pw->pw_uid == 5000 + i
           && pw->pw_gid == 6000 + i && strcmp(pw->pw_gecos, gecos) == 0
           && strcmp(pw->pw_dir, home) == 0 && strcmp(pw->pw_shell, shell) == 0;
}

struct reader_arg {
    struct race *race;
    unsigned int n;
};

static void *reader(void *p)
{
    struct reader_arg *arg = p;
    struct race *race = arg->race;
    unsigned int seed = arg->n * 7919 + 1;
    char buf[8192];
    char name[16];
    struct passwd pw;
    unsigned int i;
    int ret;

    while (!race->stop) {
        i = (unsigned int)rand_r(&seed) % USERS;
        if (rand_r(&seed) & 1) {
            snprintf(name, sizeof(name), "user%02u", i);
            ret = nss_mc_getpwnam(name, strlen(name), &pw, buf, sizeof(buf));
        } else {
            ret = nss_mc_getpwuid(5000 + i, &pw, buf, sizeof(buf));
        }
        if (ret != 0) {
            continue;
        }
        race->hits[arg->n]++;
        if (!user_matches(&pw, i)) {
            race->torn[arg->n]++;
            pthread_mutex_lock(&race->lock);
            if (race->first_torn[0] == '\0') {
                snprintf(race->first_torn, sizeof(race->first_torn),
                         "asked user%02u: got %s uid %u gid %u gecos ...%s home %s shell %s",
                         i, pw.pw_name, (unsigned int)pw.pw_uid, (unsigned int)pw.pw_gid,
                         pw.pw_gecos + (strlen(pw.pw_gecos) > 4 ? strlen(pw.pw_gecos) - 4 : 0),
                         pw.pw_dir, pw.pw_shell);
            }
            pthread_mutex_unlock(&race->lock);
        }
    }
    return NULL;
}

static int setup(void **state)
{
    tmpdir = tc_tmpdir(NULL, "test_nss_mc_race");
    tc_leak_start(&leaks);
    nss_mc_set_dir(tmpdir);
    return 0;
}

static int teardown(void **state)
{
    nss_mc_close_all();
    tc_leak_check(&leaks);
    tc_tmpdir_remove(tmpdir);
    TALLOC_FREE(tmpdir);
    return 0;
}

static void test_writer_and_readers(void **state)
{
    struct nss_mc_conf conf = { .dir = tmpdir, .type = NSS_MC_PASSWD, .ttl = 300 };
    struct reader_arg args[READERS];
    pthread_t threads[READERS];
    char name[16], gecos[GECOS_LEN + 16], home[32], shell[32];
    struct nss_pw_entry pw;
    struct nss_mc *mc;
    struct race race;
    uint64_t hits = 0;
    uint64_t torn = 0;
    uint64_t stores = 0;
    size_t rec_slots;
    time_t end;
    unsigned int i;

    memset(&race, 0, sizeof(race));
    pthread_mutex_init(&race.lock, NULL);
    /* slots for FITS records: header 40 + data ~1.6 KB each, 40-byte slots */
    rec_slots = (40 + 16 + GECOS_LEN + 64 + MC_SLOT_SIZE - 1) / MC_SLOT_SIZE;
    conf.slots = (uint32_t)((rec_slots * FITS + 7) / 8 * 8);
    assert_int_equal(nss_mc_open(NULL, &conf, &mc), EOK);

    for (i = 0; i < READERS; i++) {
        args[i].race = &race;
        args[i].n = i;
        assert_int_equal(pthread_create(&threads[i], NULL, reader, &args[i]), 0);
    }
    end = time(NULL) + RUN_SECONDS;
    for (i = 0; time(NULL) < end; i = (i + 1) % USERS) {
        user_fields(i, name, gecos, home, shell);
        pw.name = name;
        pw.uid = 5000 + i;
        pw.gid = 6000 + i;
        pw.gecos = gecos;
        pw.dir = home;
        pw.shell = shell;
        assert_int_equal(nss_mc_store_passwd(mc, &pw), EOK);
        stores++;
    }
    race.stop = true;
    for (i = 0; i < READERS; i++) {
        assert_int_equal(pthread_join(threads[i], NULL), 0);
        hits += race.hits[i];
        torn += race.torn[i];
    }
    printf("     %llu stores, %llu reads found a record, %llu were torn%s%s\n",
           (unsigned long long)stores, (unsigned long long)hits, (unsigned long long)torn,
           torn != 0 ? "; first: " : "", race.first_torn);
    talloc_free(mc);
    pthread_mutex_destroy(&race.lock);
    assert_true(hits > 1000);       /* the readers did race the writer */
    assert_int_equal(torn, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_writer_and_readers, setup, teardown),
    };
    int ret;

    debug_level = 0;
    ret = cmocka_run_group_tests(tests, NULL, NULL);
    talloc_disable_null_tracking();
    return ret;
}
