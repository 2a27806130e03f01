/*
 * sssctl analyze [--logdir DIR] request list | request show ID: follows requests through the
 * files logger output of every process (sssd.log, sssd_nss.log, sssd_be_<domain>.log ...).
 * Every log line of a request carries its request id (src/util/debug.c):
 *
 *   (2026-11-24 23:49:35.025913): [sssd_be_ldap.test] [4122] [RID#17708150161410] [func] (0x2000): text
 *
 * and the id travels with the request over the bus (getAccountInfo's req_id), so the lines
 * of one client request in sssd_nss, of the master bus routing its calls (process "sssd",
 * at 0x0400) and of the back-end's work for it share it. "list"
 * gives one row per request id (start, duration, processes, what it was); "show" merges the
 * request's lines of every file in time order and cuts them into stages, a stage being a
 * run of lines of one process: its duration runs to the next stage's first line (time spent
 * there, waiting included), the last one's to its last line. Any debug level works that
 * logs the lines of interest (0x0400 gives the request and back-end summaries).
 * Lines that are not in this format (another program's, a torn last line) are skipped.
 */
#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <time.h>

#include "tools/sssctl.h"
#include "util/sss_hash.h"

/* One parsed log line; strings point into the line buffer. */
struct sssctl_logline {
    uint64_t usec;          /* Unix time in microseconds (as the timestamp reads) */
    uint64_t rid;
    const char *process;
    const char *function;
    const char *level;
    const char *message;
    size_t order;           /* file, then line: ties keep the files' order */
};

/* Copies src up to (not including) the first stop character; NULL when missing. */
static char *sssctl_take(char **s, char stop)
{
    char *start = *s;
    char *end = strchr(start, stop);

    if (end == NULL) {
        return NULL;
    }
    *end = '\0';
    *s = end + 1;
    return start;
}

/* Parses line in place. false when it is not one of our log lines. */
static bool sssctl_parse_line(char *line, struct sssctl_logline *out)
{
    struct tm tm = { 0 };
    unsigned long usec;
    char *s = line;
    char *end;
    int n = 0;

    if (sscanf(s, "(%d-%d-%d %d:%d:%d.%lu): [%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
               &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &usec, &n) != 7 || n == 0
            || usec > 999999) {
        return false;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    out->usec = (uint64_t)timegm(&tm) * 1000000 + usec;
    s += n;
    out->process = sssctl_take(&s, ']');
    if (out->process == NULL || strncmp(s, " [", 2) != 0) {
        return false;
    }
    s += 2;
    if (sssctl_take(&s, ']') == NULL || strncmp(s, " [RID#", 6) != 0) {
        return false;
    }
    s += 6;
    out->rid = strtoull(s, &end, 10);
    if (end == s || *end != ']' || strncmp(end, "] [", 3) != 0) {
        return false;
    }
    s = end + 3;
    out->function = sssctl_take(&s, ']');
    if (out->function == NULL || strncmp(s, " (", 2) != 0) {
        return false;
    }
    s += 2;
    out->level = sssctl_take(&s, ')');
    if (out->level == NULL || strncmp(s, ": ", 2) != 0) {
        return false;
    }
    out->message = s + 2;
    end = strchr(out->message, '\n');
    if (end != NULL) {
        *end = '\0';
    }
    return true;
}

/* The *.log files of dir, sorted by name. */
static errno_t sssctl_log_files(TALLOC_CTX *mem_ctx, const char *dir, char ***_files,
                                size_t *_n)
{
    struct dirent **ents = NULL;
    char **files;
    size_t n = 0;
    int count, i;

    count = scandir(dir, &ents, NULL, alphasort);
    if (count < 0) {
        return errno;
    }
    files = talloc_zero_array(mem_ctx, char *, (size_t)count + 1);
    for (i = 0; i < count; i++) {
        size_t len = strlen(ents[i]->d_name);

        if (files != NULL && len > 4 && strcmp(ents[i]->d_name + len - 4, ".log") == 0) {
            files[n++] = talloc_asprintf(files, "%s/%s", dir, ents[i]->d_name);
        }
        free(ents[i]);
    }
    free(ents);
    if (files == NULL) {
        return ENOMEM;
    }
    *_files = files;
    *_n = n;
    return EOK;
}

/* Calls fn for each parsed line with a request id (rid 0 lines are skipped) of every file. */
typedef errno_t (*sssctl_line_fn)(struct sssctl_logline *l, void *pvt);

static errno_t sssctl_each_line(TALLOC_CTX *mem_ctx, const char *dir, sssctl_line_fn fn,
                                void *pvt)
{
    struct sssctl_logline l;
    char **files = NULL;
    char *line = NULL;
    size_t size = 0, n = 0, i, order = 0;
    errno_t ret;
    FILE *f;

    ret = sssctl_log_files(mem_ctx, dir, &files, &n);
    if (ret != EOK) {
        return ret;
    }
    for (i = 0; i < n; i++) {
        f = fopen(files[i], "r");
        if (f == NULL) {
            continue;
        }
        while (getline(&line, &size, f) >= 0) {
            order++;
            if (!sssctl_parse_line(line, &l) || l.rid == 0) {
                continue;
            }
            l.order = order;
            ret = fn(&l, pvt);
            if (ret != EOK) {
                fclose(f);
                free(line);
                return ret;
            }
        }
        fclose(f);
    }
    free(line);
    return EOK;
}

/* ---- request list ---------------------------------------------------------------------- */

#define SSSCTL_MAX_PROCS 16

struct sssctl_req_sum {
    uint64_t rid;
    uint64_t first, last;
    size_t lines;
    /* The processes in order of their first line in time (files are read one by one). */
    char *proc[SSSCTL_MAX_PROCS];
    uint64_t proc_first[SSSCTL_MAX_PROCS];
    size_t nproc;
    char *summary;
    int summary_rank;       /* a better summary replaces a worse one */
};

struct sssctl_list_state {
    TALLOC_CTX *mem;
    struct sss_hash_table *table;
    struct sssctl_req_sum **all;
    size_t n;
};

static bool sssctl_sum_equal(const void *item, const void *key, void *ctx)
{
    return ((const struct sssctl_req_sum *)item)->rid == *(const uint64_t *)key;
}

/* How well a line sums the request up: the responder's per-command line best, then the
 * back-end's per-request line, then the first line. */
static int sssctl_summary_rank(const struct sssctl_logline *l)
{
    size_t len = strlen(l->function);

    if (len > 8 && strcmp(l->function + len - 8, "_cmd_log") == 0) {
        return 3;
    }
    if (strcmp(l->function, "be_account_info_log") == 0) {
        return 2;
    }
    return 1;
}

/* Notes that the process logged for the request at usec, keeping the earliest time. */
static errno_t sssctl_sum_process(struct sssctl_req_sum *sum, const char *process,
                                  uint64_t usec)
{
    size_t i;

    for (i = 0; i < sum->nproc; i++) {
        if (strcmp(sum->proc[i], process) == 0) {
            sum->proc_first[i] = usec < sum->proc_first[i] ? usec : sum->proc_first[i];
            return EOK;
        }
    }
    if (sum->nproc == SSSCTL_MAX_PROCS) {
        return EOK;     /* more processes than the suite has: not ours to list */
    }
    sum->proc[sum->nproc] = talloc_strdup(sum, process);
    if (sum->proc[sum->nproc] == NULL) {
        return ENOMEM;
    }
    sum->proc_first[sum->nproc++] = usec;
    return EOK;
}

/* "sssd_nss, sssd_be_ldap.test": by first line in time. */
static char *sssctl_sum_processes(TALLOC_CTX *mem_ctx, struct sssctl_req_sum *sum)
{
    bool done[SSSCTL_MAX_PROCS] = { false };
    char *text = talloc_strdup(mem_ctx, "");
    size_t i, k, best;

    for (k = 0; text != NULL && k < sum->nproc; k++) {
        best = SSSCTL_MAX_PROCS;
        for (i = 0; i < sum->nproc; i++) {
            if (!done[i] && (best == SSSCTL_MAX_PROCS
                             || sum->proc_first[i] < sum->proc_first[best])) {
                best = i;
            }
        }
        done[best] = true;
        text = talloc_asprintf_append(text, "%s%s", k == 0 ? "" : ", ", sum->proc[best]);
    }
    return text;
}

static errno_t sssctl_list_line(struct sssctl_logline *l, void *pvt)
{
    struct sssctl_list_state *st = pvt;
    struct sssctl_req_sum *sum;
    struct sssctl_req_sum **all;
    uint64_t hash = sss_hash_bytes(&l->rid, sizeof(l->rid));
    int rank;

    sum = sss_hash_table_get(st->table, hash, &l->rid);
    if (sum == NULL) {
        sum = talloc_zero(st->mem, struct sssctl_req_sum);
        all = talloc_realloc(st->mem, st->all, struct sssctl_req_sum *, st->n + 1);
        if (sum == NULL || all == NULL) {
            return ENOMEM;
        }
        st->all = all;
        sum->rid = l->rid;
        sum->first = sum->last = l->usec;
        if (sss_hash_table_insert(st->table, hash, &sum->rid, sum, NULL) != EOK) {
            return ENOMEM;
        }
        st->all[st->n++] = sum;
    }
    sum->lines++;
    sum->first = l->usec < sum->first ? l->usec : sum->first;
    sum->last = l->usec > sum->last ? l->usec : sum->last;
    if (sssctl_sum_process(sum, l->process, l->usec) != EOK) {
        return ENOMEM;
    }
    rank = sssctl_summary_rank(l);
    if (rank > sum->summary_rank) {
        talloc_free(sum->summary);
        sum->summary = talloc_strdup(sum, l->message);
        sum->summary_rank = rank;
    }
    return sum->summary != NULL ? EOK : ENOMEM;
}

static int sssctl_sum_cmp(const void *a, const void *b)
{
    const struct sssctl_req_sum *x = *(struct sssctl_req_sum *const *)a;
    const struct sssctl_req_sum *y = *(struct sssctl_req_sum *const *)b;

    return x->first < y->first ? -1 : x->first > y->first ? 1
           : x->rid < y->rid ? -1 : x->rid > y->rid ? 1 : 0;
}

/* "12:34:56.789012" of a microsecond timestamp. */
static char *sssctl_usec_text(TALLOC_CTX *mem_ctx, uint64_t usec)
{
    time_t t = (time_t)(usec / 1000000);
    struct tm tm;
    char buf[32];

    if (gmtime_r(&t, &tm) == NULL || strftime(buf, sizeof(buf), "%F %T", &tm) == 0) {
        return talloc_asprintf(mem_ctx, "%" PRIu64, usec);
    }
    return talloc_asprintf(mem_ctx, "%s.%06" PRIu64, buf, usec % 1000000);
}

static int sssctl_request_list(struct sssctl_ctx *ctx, const char *dir)
{
    static const char *const headers[] = {
        "REQUEST ID", "START", "DURATION", "LINES", "PROCESSES", "SUMMARY"
    };
    struct sssctl_list_state st = { .mem = ctx->mem };
    struct sssctl_table *t;
    size_t i;
    errno_t ret;

    st.table = sss_hash_table_new(ctx->mem, 0, sssctl_sum_equal, NULL);
    t = sssctl_table_new(ctx->mem, 6, headers);
    if (st.table == NULL || t == NULL) {
        return sssctl_error("out of memory");
    }
    ret = sssctl_each_line(ctx->mem, dir, sssctl_list_line, &st);
    if (ret != EOK) {
        return sssctl_error("cannot read the logs in %s: %s", dir, sss_strerror(ret));
    }
    if (st.n > 0) {
        qsort(st.all, st.n, sizeof(st.all[0]), sssctl_sum_cmp);
    }
    if (ctx->json) {
        sssctl_json_obj_start(ctx->js, NULL);
        sssctl_json_str(ctx->js, "log_dir", dir);
        sssctl_json_arr_start(ctx->js, "requests");
    }
    for (i = 0; i < st.n; i++) {
        struct sssctl_req_sum *s = st.all[i];
        double ms = (double)(s->last - s->first) / 1000.0;
        char *procs = sssctl_sum_processes(ctx->mem, s);

        if (procs == NULL) {
            return sssctl_error("out of memory");
        }

        if (ctx->json) {
            sssctl_json_obj_start(ctx->js, NULL);
            sssctl_json_str(ctx->js, "id", talloc_asprintf(ctx->mem, "%" PRIu64, s->rid));
            sssctl_json_int(ctx->js, "start_usec", (int64_t)s->first);
            sssctl_json_int(ctx->js, "duration_usec", (int64_t)(s->last - s->first));
            sssctl_json_int(ctx->js, "lines", (int64_t)s->lines);
            sssctl_json_str(ctx->js, "processes", procs);
            sssctl_json_str(ctx->js, "summary", s->summary);
            sssctl_json_obj_end(ctx->js);
        } else {
            const char *row[6];

            row[0] = talloc_asprintf(ctx->mem, "%" PRIu64, s->rid);
            row[1] = sssctl_usec_text(ctx->mem, s->first);
            row[2] = talloc_asprintf(ctx->mem, "%.3f ms", ms);
            row[3] = talloc_asprintf(ctx->mem, "%zu", s->lines);
            row[4] = procs;
            row[5] = s->summary;
            if (sssctl_table_add(t, row) != EOK) {
                return sssctl_error("out of memory");
            }
        }
    }
    if (ctx->json) {
        sssctl_json_arr_end(ctx->js);
        sssctl_json_obj_end(ctx->js);
    } else {
        sssctl_table_print(t, stdout, "");
        printf("%zu request%s in %s\n", st.n, st.n == 1 ? "" : "s", dir);
    }
    return SSSCTL_EXIT_OK;
}

/* ---- request show ---------------------------------------------------------------------- */

struct sssctl_show_state {
    TALLOC_CTX *mem;
    uint64_t rid;
    struct sssctl_logline *lines;
    size_t n;
};

static errno_t sssctl_show_line(struct sssctl_logline *l, void *pvt)
{
    struct sssctl_show_state *st = pvt;
    struct sssctl_logline *lines;
    struct sssctl_logline *c;

    if (l->rid != st->rid) {
        return EOK;
    }
    lines = talloc_realloc(st->mem, st->lines, struct sssctl_logline, st->n + 1);
    if (lines == NULL) {
        return ENOMEM;
    }
    st->lines = lines;
    c = &lines[st->n];
    *c = *l;
    /* The line buffer is reused: keep copies. */
    c->process = talloc_strdup(lines, l->process);
    c->function = talloc_strdup(lines, l->function);
    c->level = talloc_strdup(lines, l->level);
    c->message = talloc_strdup(lines, l->message);
    if (c->process == NULL || c->function == NULL || c->level == NULL || c->message == NULL) {
        return ENOMEM;
    }
    st->n++;
    return EOK;
}

static int sssctl_line_cmp(const void *a, const void *b)
{
    const struct sssctl_logline *x = a;
    const struct sssctl_logline *y = b;

    return x->usec < y->usec ? -1 : x->usec > y->usec ? 1
           : x->order < y->order ? -1 : x->order > y->order ? 1 : 0;
}

static int sssctl_request_show(struct sssctl_ctx *ctx, const char *dir, const char *id)
{
    static const char *const sheaders[] = { "STAGE", "PROCESS", "START", "DURATION", "LINES" };
    struct sssctl_show_state st = { .mem = ctx->mem };
    struct sssctl_table *t;
    size_t i, j, stage = 0;
    uint64_t t0;
    char *end;
    errno_t ret;

    errno = 0;
    st.rid = strtoull(id, &end, 10);
    if (errno != 0 || *id == '\0' || *end != '\0' || st.rid == 0) {
        return sssctl_error("'%s' is not a request id (sssctl analyze request list)", id);
    }
    ret = sssctl_each_line(ctx->mem, dir, sssctl_show_line, &st);
    if (ret != EOK) {
        return sssctl_error("cannot read the logs in %s: %s", dir, sss_strerror(ret));
    }
    if (st.n == 0) {
        return sssctl_error("no log line of request %s in %s", id, dir);
    }
    /* Stable across files: equal timestamps keep the files' order. */
    qsort(st.lines, st.n, sizeof(st.lines[0]), sssctl_line_cmp);
    t0 = st.lines[0].usec;
    t = sssctl_table_new(ctx->mem, 5, sheaders);
    if (t == NULL) {
        return sssctl_error("out of memory");
    }
    if (ctx->json) {
        sssctl_json_obj_start(ctx->js, NULL);
        sssctl_json_str(ctx->js, "id", id);
        sssctl_json_int(ctx->js, "start_usec", (int64_t)t0);
        sssctl_json_int(ctx->js, "duration_usec", (int64_t)(st.lines[st.n - 1].usec - t0));
        sssctl_json_arr_start(ctx->js, "stages");
    }
    for (i = 0; i < st.n; i = j) {
        uint64_t stop;
        const char *row[5];

        for (j = i + 1; j < st.n && strcmp(st.lines[j].process, st.lines[i].process) == 0; j++) {
        }
        stop = j < st.n ? st.lines[j].usec : st.lines[j - 1].usec;
        stage++;
        if (ctx->json) {
            sssctl_json_obj_start(ctx->js, NULL);
            sssctl_json_str(ctx->js, "process", st.lines[i].process);
            sssctl_json_int(ctx->js, "offset_usec", (int64_t)(st.lines[i].usec - t0));
            sssctl_json_int(ctx->js, "duration_usec", (int64_t)(stop - st.lines[i].usec));
            sssctl_json_int(ctx->js, "lines", (int64_t)(j - i));
            sssctl_json_obj_end(ctx->js);
            continue;
        }
        row[0] = talloc_asprintf(ctx->mem, "%zu", stage);
        row[1] = st.lines[i].process;
        row[2] = talloc_asprintf(ctx->mem, "+%.3f ms", (double)(st.lines[i].usec - t0) / 1000.0);
        row[3] = talloc_asprintf(ctx->mem, "%.3f ms", (double)(stop - st.lines[i].usec) / 1000.0);
        row[4] = talloc_asprintf(ctx->mem, "%zu", j - i);
        if (sssctl_table_add(t, row) != EOK) {
            return sssctl_error("out of memory");
        }
    }
    if (ctx->json) {
        sssctl_json_arr_end(ctx->js);
        sssctl_json_arr_start(ctx->js, "lines");
        for (i = 0; i < st.n; i++) {
            sssctl_json_obj_start(ctx->js, NULL);
            sssctl_json_int(ctx->js, "offset_usec", (int64_t)(st.lines[i].usec - t0));
            sssctl_json_str(ctx->js, "process", st.lines[i].process);
            sssctl_json_str(ctx->js, "function", st.lines[i].function);
            sssctl_json_str(ctx->js, "level", st.lines[i].level);
            sssctl_json_str(ctx->js, "message", st.lines[i].message);
            sssctl_json_obj_end(ctx->js);
        }
        sssctl_json_arr_end(ctx->js);
        sssctl_json_obj_end(ctx->js);
        return SSSCTL_EXIT_OK;
    }
    printf("Request %s, started %s UTC, %.3f ms, %zu stage%s\n\n", id,
           sssctl_usec_text(ctx->mem, t0), (double)(st.lines[st.n - 1].usec - t0) / 1000.0,
           stage, stage == 1 ? "" : "s");
    sssctl_table_print(t, stdout, "");
    printf("\n");
    for (i = 0; i < st.n; i++) {
        printf("%+11.3f ms  %-20s [%s] %s\n", (double)(st.lines[i].usec - t0) / 1000.0,
               st.lines[i].process, st.lines[i].function, st.lines[i].message);
    }
    return SSSCTL_EXIT_OK;
}

int sssctl_analyze(struct sssctl_ctx *ctx, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "logdir", required_argument, NULL, 'l' },
        { NULL, 0, NULL, 0 },
    };
    const char *dir = ctx->paths.log_dir;
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
        switch (c) {
        case 'l': dir = optarg; break;
        default:
            return sssctl_error("analyze: unknown option or missing value '%s'",
                                argv[optind - 1]);
        }
    }
    argc -= optind;
    argv += optind;
    if (argc == 2 && strcmp(argv[0], "request") == 0 && strcmp(argv[1], "list") == 0) {
        return sssctl_request_list(ctx, dir);
    }
    if (argc == 3 && strcmp(argv[0], "request") == 0 && strcmp(argv[1], "show") == 0) {
        return sssctl_request_show(ctx, dir, argv[2]);
    }
    return sssctl_error("usage: sssctl analyze [--logdir DIR] request list | "
                        "request show ID");
}
