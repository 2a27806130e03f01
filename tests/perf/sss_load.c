/*
 * sss_load: the load framework. Runs one workload in N concurrent worker processes for a
 * count of operations or a duration, after a warm-up, and reports throughput and latency
 * percentiles (over the merged raw samples of every worker) as a table row and as JSON.
 *
 *   sss_load [options] nss MODULE.so OP     OP: getpwnam getpwuid getgrnam getgrgid initgroups
 *   sss_load [options] pam SERVICE PASSWORD pam_start, pam_authenticate, pam_acct_mgmt,
 *                                           pam_end of the key as user (a login)
 *   sss_load [options] sudo                 `sudo -n -l -U KEY` per operation
 *   sss_load [options] cmd ARGV...          any command per operation (fork/exec); "{}" in
 *                                           an argument is replaced by the key
 * Keys (the name, id or user of each operation):
 *   --key K | --keys FILE (one a line) | --pattern FMT --range LO:HI (FMT holds one %d-like
 *   conversion, e.g. user%06d, over LO..HI-1); --order seq|random|shuffle (default seq;
 *   shuffle: a random permutation, so no key repeats until all were used), --seed S.
 *   In count mode the workers split the operations into consecutive slices of the key
 *   sequence: with --order seq or shuffle and a range at least as long as the count, every
 *   key is used once (cold runs: names never seen).
 * Load: -w/--workers N (default 1), -n/--count N (total over all workers) or
 *   -d/--duration SECONDS; --warmup N operations per worker before the measured phase,
 *   on --warmup-key K when given, else on the worker's own first keys.
 * Report: --label L, --run R (recorded in the JSON; LOAD_SYSTEM from the environment too),
 *   --json FILE ("-" for stdout), --no-header, --quiet. Exit status 0 when the run completed
 *   (failed operations are counted, not fatal), 1 on bad usage or a worker that died.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "load_stats.h"
#include "load_workload.h"

#define MAX_WORKERS 1024

enum order { ORDER_SEQ, ORDER_RANDOM, ORDER_SHUFFLE };

struct keys {
    char **list;            /* --keys / --key, or NULL with a pattern */
    const char *pattern;
    long lo;
    size_t n;               /* number of distinct keys */
    enum order order;
    size_t *perm;           /* shuffle: a permutation of 0..n-1 */
};

struct opts {
    long workers, count, warmup;
    double duration;
    const char *warmup_key, *label, *json, *run;
    bool header, quiet;
    unsigned long seed;
    struct keys keys;
};

/* What a worker hands back through its memfd: this header, then its samples. */
struct worker_result {
    uint64_t ops, failures, nsamples;
    struct load_window window;
    char first_error[200];
};

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fputs("sss_load: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* --- keys ----------------------------------------------------------------------------- */

/* A pattern is safe for snprintf with one int: exactly one conversion of d, i, u, x or X
 * with flags and width only; every other % is "%%". */
static bool pattern_ok(const char *p)
{
    int conversions = 0;

    for (; *p; p++) {
        if (*p != '%') {
            continue;
        }
        if (p[1] == '%') {
            p++;
            continue;
        }
        p++;
        p += strspn(p, "-+ #0");
        p += strspn(p, "0123456789");
        if (*p == '\0' || strchr("diuxX", *p) == NULL) {
            return false;
        }
        conversions++;
    }
    return conversions == 1;
}

static void keys_from_file(struct keys *k, const char *path)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t len = 0, room = 0;
    ssize_t got;

    if (f == NULL) {
        die("cannot read %s: %s", path, strerror(errno));
    }
    while ((got = getline(&line, &len, f)) >= 0) {
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r')) {
            line[--got] = '\0';
        }
        if (got == 0) {
            continue;
        }
        if (k->n == room) {
            room = room ? room * 2 : 1024;
            k->list = realloc(k->list, room * sizeof(char *));
            if (k->list == NULL) {
                die("out of memory");
            }
        }
        k->list[k->n] = strdup(line);
        if (k->list[k->n++] == NULL) {
            die("out of memory");
        }
    }
    free(line);
    fclose(f);
    if (k->n == 0) {
        die("%s holds no keys", path);
    }
}

static void keys_shuffle(struct keys *k, unsigned long seed)
{
    size_t i, j, t;

    k->perm = malloc(k->n * sizeof(size_t));
    if (k->perm == NULL) {
        die("out of memory for a permutation of %zu keys", k->n);
    }
    srandom((unsigned)seed);
    for (i = 0; i < k->n; i++) {
        k->perm[i] = i;
    }
    for (i = k->n - 1; i > 0; i--) {
        j = (size_t)(((uint64_t)random() << 31 | (uint64_t)random()) % (i + 1));
        t = k->perm[i];
        k->perm[i] = k->perm[j];
        k->perm[j] = t;
    }
}

/* xorshift64*: a worker's own random key choices, reproducible from --seed. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* The key of the idx-th operation of a worker into buf. */
static const char *key_at(const struct keys *k, uint64_t idx, uint64_t *rng, char *buf,
                          size_t len)
{
    size_t i;

    switch (k->order) {
    case ORDER_RANDOM:
        i = (size_t)(rng_next(rng) % k->n);
        break;
    case ORDER_SHUFFLE:
        i = k->perm[idx % k->n];
        break;
    default:
        i = (size_t)(idx % k->n);
        break;
    }
    if (k->list != NULL) {
        return k->list[i];
    }
    snprintf(buf, len, k->pattern, (int)(k->lo + (long)i));
    return buf;
}

/* --- workers -------------------------------------------------------------------------- */

static void write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    ssize_t w;

    while (len > 0) {
        w = write(fd, p, len);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            _exit(3);
        }
        p += w;
        len -= (size_t)w;
    }
}

static int read_all(int fd, void *data, size_t len)
{
    char *p = data;
    ssize_t r;

    while (len > 0) {
        r = read(fd, p, len);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return -1;
        }
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

/* One worker: warm-up, wait for the start signal, the measured phase, results to out_fd.
 * first/ops: its slice of the key sequence (count mode) or its starting offset and 0
 * (duration mode). Never returns. */
static void worker(const struct opts *o, const struct load_workload *wl, long w,
                   uint64_t first, uint64_t ops, int ready_fd, int go_fd, int out_fd)
{
    struct load_samples s;
    struct worker_result res;
    uint64_t rng = o->seed * 0x9E3779B97F4A7C15ULL + (uint64_t)w + 1;
    uint64_t i, t0, t1, deadline = 0;
    char keybuf[512], err[sizeof(res.first_error)];
    const char *key;
    char c = 'r';

    memset(&res, 0, sizeof(res));
    load_samples_init(&s);
    /* room for the whole count up front: no realloc inside the measured phase */
    if (ops > 0 && load_samples_reserve(&s, (size_t)ops) != 0) {
        _exit(2);
    }
    if (wl->worker_init != NULL && wl->worker_init(err, sizeof(err)) != 0) {
        fprintf(stderr, "sss_load: worker %ld: %s\n", w, err);
        _exit(2);
    }
    for (i = 0; i < (uint64_t)o->warmup; i++) {
        key = o->warmup_key ? o->warmup_key
                            : key_at(&o->keys, first + i, &rng, keybuf, sizeof(keybuf));
        (void)wl->op(key, err, sizeof(err));
    }
    write_all(ready_fd, &c, 1);
    close(ready_fd);
    while (read(go_fd, &c, 1) < 0 && errno == EINTR) {
        /* the parent closes its end to start everybody at once */
    }
    close(go_fd);

    res.window.start = now_ns();
    if (o->duration > 0) {
        deadline = res.window.start + (uint64_t)(o->duration * 1e9);
    }
    t1 = res.window.start;
    for (i = 0; o->duration > 0 ? t1 < deadline : i < ops; i++) {
        key = key_at(&o->keys, first + i, &rng, keybuf, sizeof(keybuf));
        t0 = now_ns();
        if (wl->op(key, err, sizeof(err)) != 0) {
            if (res.failures++ == 0) {
                /* bounded parts: a long key or message is cut, never the buffer overrun */
                snprintf(res.first_error, sizeof(res.first_error), "%.60s: %.130s", key, err);
            }
        }
        t1 = now_ns();
        if (load_samples_add(&s, t1 - t0) != 0) {
            _exit(2);
        }
    }
    res.window.end = t1;
    res.ops = s.count;
    res.nsamples = s.count;
    write_all(out_fd, &res, sizeof(res));
    write_all(out_fd, s.ns, s.count * sizeof(uint64_t));
    _exit(0);
}

static int result_fd(void)
{
    int fd = memfd_create("sss_load", MFD_CLOEXEC);

    if (fd < 0) {
        FILE *f = tmpfile();     /* kernels without memfd */

        fd = f ? dup(fileno(f)) : -1;
        if (f) {
            fclose(f);
        }
    }
    return fd;
}

/* Runs the workers, merges what they measured. Returns the number of workers lost. */
static long run(const struct opts *o, const struct load_workload *wl,
                struct load_samples *all, struct worker_result *total)
{
    int ready[2], go[2], fds[MAX_WORKERS];
    pid_t pids[MAX_WORKERS];
    long w, lost = 0, ready_n = 0;
    uint64_t first = 0, share;
    char c;

    if (pipe(ready) != 0 || pipe(go) != 0) {
        die("pipe: %s", strerror(errno));
    }
    fflush(NULL);
    for (w = 0; w < o->workers; w++) {
        fds[w] = result_fd();
        if (fds[w] < 0) {
            die("cannot create a result file: %s", strerror(errno));
        }
        /* count mode: consecutive slices, the first (count % workers) one longer */
        share = o->duration > 0 ? 0
                : (uint64_t)(o->count / o->workers + (w < o->count % o->workers));
        if (o->duration > 0) {
            first = (uint64_t)w * (o->keys.n / (uint64_t)o->workers);
        }
        pids[w] = fork();
        if (pids[w] < 0) {
            die("fork: %s", strerror(errno));
        }
        if (pids[w] == 0) {
            close(ready[0]);
            close(go[1]);
            worker(o, wl, w, first, share, ready[1], go[0], fds[w]);
        }
        if (o->duration <= 0) {
            first += share;
        }
    }
    close(ready[1]);
    close(go[0]);
    while (ready_n < o->workers) {
        ssize_t r = read(ready[0], &c, 1);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            break;      /* a worker died during its warm-up */
        }
        ready_n++;
    }
    close(ready[0]);
    close(go[1]);           /* go */

    memset(total, 0, sizeof(*total));
    for (w = 0; w < o->workers; w++) {
        struct worker_result res;
        uint64_t *ns = NULL;
        int status;

        while (waitpid(pids[w], &status, 0) < 0 && errno == EINTR) {
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || lseek(fds[w], 0, SEEK_SET) != 0
            || read_all(fds[w], &res, sizeof(res)) != 0) {
            lost++;
            close(fds[w]);
            continue;
        }
        if (res.nsamples > 0) {
            ns = malloc(res.nsamples * sizeof(uint64_t));
            if (ns == NULL || read_all(fds[w], ns, res.nsamples * sizeof(uint64_t)) != 0
                || load_samples_append(all, ns, res.nsamples) != 0) {
                die("cannot collect worker %ld's %" PRIu64 " samples", w, res.nsamples);
            }
            free(ns);
        }
        close(fds[w]);
        total->ops += res.ops;
        total->failures += res.failures;
        load_window_merge(&total->window, &res.window);
        if (total->first_error[0] == '\0' && res.first_error[0] != '\0') {
            memcpy(total->first_error, res.first_error, sizeof(res.first_error));
        }
    }
    return lost;
}

/* --- report --------------------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;

        if (ch == '"' || ch == '\\') {
            fprintf(f, "\\%c", ch);
        } else if (ch < 0x20) {
            fprintf(f, "\\u%04x", ch);
        } else {
            fputc(ch, f);
        }
    }
    fputc('"', f);
}

static void report(const struct opts *o, const char *what, const struct load_summary *sum,
                   const struct worker_result *tot, long lost)
{
    double wall = (double)(tot->window.end - tot->window.start) / 1e9;
    double tput = load_throughput(tot->ops, &tot->window);
    const char *sys = getenv("LOAD_SYSTEM");
    FILE *f;

    if (!o->quiet) {
        if (o->header) {
            printf("%-28s %4s %9s %6s %7s %10s %9s %9s %9s %9s %9s %9s\n", "label (us)",
                   "wrk", "ops", "fail", "wall_s", "ops/s", "p50", "p90", "p99", "p99.9",
                   "max", "mean");
        }
        printf("%-28s %4ld %9" PRIu64 " %6" PRIu64 " %7.2f %10.0f %9.1f %9.1f %9.1f %9.1f "
               "%9.1f %9.1f\n", o->label ? o->label : what, o->workers, tot->ops,
               tot->failures, wall, tput, sum->p50 / 1e3, sum->p90 / 1e3, sum->p99 / 1e3,
               sum->p999 / 1e3, sum->max / 1e3, sum->mean / 1e3);
        if (tot->failures > 0) {
            printf("    first failure: %s\n", tot->first_error);
        }
        if (lost > 0) {
            printf("    %ld worker(s) died; their operations are not counted\n", lost);
        }
    }
    if (o->json == NULL) {
        return;
    }
    f = strcmp(o->json, "-") == 0 ? stdout : fopen(o->json, "w");
    if (f == NULL) {
        die("cannot write %s: %s", o->json, strerror(errno));
    }
    fputs("{\"label\": ", f);
    json_str(f, o->label ? o->label : what);
    fputs(", \"workload\": ", f);
    json_str(f, what);
    fputs(", \"system\": ", f);
    json_str(f, sys ? sys : "");
    fputs(", \"run\": ", f);
    json_str(f, o->run ? o->run : "");
    fprintf(f, ", \"workers\": %ld, \"workers_lost\": %ld, \"ops\": %" PRIu64
            ", \"failures\": %" PRIu64 ", \"wall_s\": %.6f, \"throughput\": %.1f, "
            "\"latency_us\": {\"min\": %.3f, \"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, "
            "\"p999\": %.3f, \"max\": %.3f, \"mean\": %.3f}, \"first_error\": ",
            o->workers, lost, tot->ops, tot->failures, wall, tput, sum->min / 1e3,
            sum->p50 / 1e3, sum->p90 / 1e3, sum->p99 / 1e3, sum->p999 / 1e3, sum->max / 1e3,
            sum->mean / 1e3);
    json_str(f, tot->first_error);
    fputs("}\n", f);
    if (f != stdout) {
        fclose(f);
    }
}

/* --- main ----------------------------------------------------------------------------- */

static void usage(void)
{
    fputs("usage: sss_load [-w N] [-n COUNT | -d SECONDS] [--warmup N [--warmup-key K]]\n"
          "         [--key K | --keys FILE | --pattern FMT --range LO:HI]\n"
          "         [--order seq|random|shuffle] [--seed S] [--label L] [--run R]\n"
          "         [--json FILE] [--no-header] [--quiet] WORKLOAD ...\n"
          "  WORKLOAD: nss MODULE.so getpwnam|getpwuid|getgrnam|getgrgid|initgroups\n"
          "            pam SERVICE PASSWORD | sudo | cmd ARGV...  ({} = the key)\n", stderr);
    exit(1);
}

static void parse(int argc, char *argv[], struct opts *o)
{
    static const struct option longopts[] = {
        {"workers", 1, NULL, 'w'}, {"count", 1, NULL, 'n'}, {"duration", 1, NULL, 'd'},
        {"warmup", 1, NULL, 'W'}, {"warmup-key", 1, NULL, 'K'}, {"key", 1, NULL, 'k'},
        {"keys", 1, NULL, 'f'}, {"pattern", 1, NULL, 'p'}, {"range", 1, NULL, 'r'},
        {"order", 1, NULL, 'o'}, {"seed", 1, NULL, 's'}, {"label", 1, NULL, 'l'},
        {"run", 1, NULL, 'R'}, {"json", 1, NULL, 'j'}, {"no-header", 0, NULL, 'H'},
        {"quiet", 0, NULL, 'q'}, {"help", 0, NULL, 'h'}, {NULL, 0, NULL, 0}};
    long hi = -1;
    int c;

    memset(o, 0, sizeof(*o));
    o->workers = 1;
    o->header = true;
    o->seed = 2307;
    /* "+": options end at the workload, so a command's own options stay its own */
    while ((c = getopt_long(argc, argv, "+w:n:d:k:l:j:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'w': o->workers = atol(optarg); break;
        case 'n': o->count = atol(optarg); break;
        case 'd': o->duration = atof(optarg); break;
        case 'W': o->warmup = atol(optarg); break;
        case 'K': o->warmup_key = optarg; break;
        case 'k':
            o->keys.list = calloc(1, sizeof(char *));
            if (o->keys.list == NULL) {
                die("out of memory");
            }
            o->keys.list[0] = optarg;
            o->keys.n = 1;
            break;
        case 'f': keys_from_file(&o->keys, optarg); break;
        case 'p': o->keys.pattern = optarg; break;
        case 'r':
            if (sscanf(optarg, "%ld:%ld", &o->keys.lo, &hi) != 2 || hi <= o->keys.lo
                || o->keys.lo < 0 || hi > INT_MAX) {
                die("--range wants LO:HI with 0 <= LO < HI <= %d", INT_MAX);
            }
            break;
        case 'o':
            o->keys.order = strcmp(optarg, "random") == 0 ? ORDER_RANDOM
                            : strcmp(optarg, "shuffle") == 0 ? ORDER_SHUFFLE
                            : strcmp(optarg, "seq") == 0 ? ORDER_SEQ : (usage(), ORDER_SEQ);
            break;
        case 's': o->seed = strtoul(optarg, NULL, 0); break;
        case 'l': o->label = optarg; break;
        case 'R': o->run = optarg; break;
        case 'j': o->json = optarg; break;
        case 'H': o->header = false; break;
        case 'q': o->quiet = true; break;
        default: usage();
        }
    }
    if (o->workers < 1 || o->workers > MAX_WORKERS) {
        die("--workers must be 1..%d", MAX_WORKERS);
    }
    if (o->count < 0 || o->duration < 0 || o->warmup < 0 || (o->count > 0 && o->duration > 0)) {
        die("give one of --count N or --duration SECONDS (and a warm-up >= 0)");
    }
    if (o->count == 0 && o->duration == 0) {
        o->count = 1000;
    }
    if (o->keys.pattern != NULL) {
        if (o->keys.list != NULL || hi < 0 || !pattern_ok(o->keys.pattern)) {
            die("--pattern wants --range LO:HI and one %%d-like conversion, and no --keys");
        }
        o->keys.n = (size_t)(hi - o->keys.lo);
    }
    if (o->keys.n == 0) {
        die("no keys: give --key, --keys or --pattern with --range");
    }
    if (o->keys.order == ORDER_SHUFFLE) {
        keys_shuffle(&o->keys, o->seed);
    }
}

int main(int argc, char *argv[])
{
    struct opts o;
    struct load_workload wl;
    struct load_samples all;
    struct load_summary sum;
    struct worker_result tot;
    char what[256];
    long lost;

    parse(argc, argv, &o);
    if (optind >= argc) {
        usage();
    }
    if (load_workload_setup(argc - optind, argv + optind, &wl, what, sizeof(what)) != 0) {
        exit(1);
    }
    signal(SIGPIPE, SIG_IGN);
    load_samples_init(&all);
    lost = run(&o, &wl, &all, &tot);
    load_summarize(&all, &sum);
    report(&o, what, &sum, &tot, lost);
    load_samples_free(&all);
    return lost == o.workers ? 1 : 0;
}
