/*
 * innetgr() from several threads at once through glibc (tests/intg/test_netgroups.sh).
 * Usage: netgr_threads THREADS ROUNDS CHECK...  where each CHECK is
 * "netgroup:host:user:domain:expected" (an empty field is NULL, expected 0 or 1). Every
 * thread runs every check ROUNDS times, each thread starting at a different check so that
 * lookups of different netgroups overlap. Prints the number of wrong answers and exits 1
 * when there is any (2 on a usage error).
 */
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct check {
    char *netgroup, *host, *user, *domain;
    int expected;
};

static struct check *checks;
static int nchecks;
static int rounds;
static int wrong;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static char *field(char **s)
{
    char *f = strsep(s, ":");

    return (f == NULL || *f == '\0') ? NULL : f;
}

static void *run(void *arg)
{
    int first = (int)(long)arg;
    int r, i, got;

    for (r = 0; r < rounds; r++) {
        for (i = 0; i < nchecks; i++) {
            struct check *c = &checks[(first + i) % nchecks];

            got = innetgr(c->netgroup, c->host, c->user, c->domain);
            if (got != c->expected) {
                pthread_mutex_lock(&lock);
                if (wrong < 5) {
                    fprintf(stderr, "innetgr(%s, %s, %s, %s) = %d, expected %d\n",
                            c->netgroup, c->host ? c->host : "NULL",
                            c->user ? c->user : "NULL", c->domain ? c->domain : "NULL",
                            got, c->expected);
                }
                wrong++;
                pthread_mutex_unlock(&lock);
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t *tids;
    int nthreads, i;

    if (argc < 4) {
        fprintf(stderr, "usage: %s THREADS ROUNDS netgroup:host:user:domain:expected...\n",
                argv[0]);
        return 2;
    }
    nthreads = atoi(argv[1]);
    rounds = atoi(argv[2]);
    nchecks = argc - 3;
    checks = calloc((size_t)nchecks, sizeof(*checks));
    tids = calloc((size_t)nthreads, sizeof(*tids));
    if (checks == NULL || tids == NULL || nthreads < 1 || rounds < 1) {
        return 2;
    }
    for (i = 0; i < nchecks; i++) {
        char *s = argv[3 + i];
        char *e;

        checks[i].netgroup = field(&s);
        checks[i].host = field(&s);
        checks[i].user = field(&s);
        checks[i].domain = field(&s);
        e = field(&s);
        if (checks[i].netgroup == NULL || e == NULL) {
            return 2;
        }
        checks[i].expected = atoi(e);
    }
    for (i = 0; i < nthreads; i++) {
        if (pthread_create(&tids[i], NULL, run, (void *)(long)i) != 0) {
            return 2;
        }
    }
    for (i = 0; i < nthreads; i++) {
        pthread_join(tids[i], NULL);
    }
    printf("%d wrong of %d\n", wrong, nthreads * rounds * nchecks);
    return wrong == 0 ? 0 : 1;
}
