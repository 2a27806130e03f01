/*
 * sssctl stats [--json | --prometheus] [--monitor --nss --pam --sudo --domain=NAME ...]:
 * every running process's metrics (sssd.service.GetMetrics, src/util/sss_metrics.h), by
 * default from every process of the suite. Each process answers in the Prometheus text
 * exposition format with a process label on every sample; the tool merges the answers by
 * metric family (one HELP and TYPE each, as the format requires) and prints them:
 *   --prometheus  the merged exposition, for node_exporter's textfile collector;
 *   --json        {"processes": [...], "metrics": [{"name", "type", "help",
 *                  "samples": [{"name", "labels": {...}, "value"}]}]};
 *   default       a table for people: counters with their value, histograms as a count
 *                 and a mean latency, and a summary line.
 */
#include <getopt.h>
#include <math.h>

#include "tools/sssctl.h"
#include "sss_iface/sss_iface.h"

struct sssctl_family {
    char *name;
    char *help;
    char *type;
    char **samples;         /* exposition lines */
    size_t n;
};

struct sssctl_families {
    struct sssctl_family *f;
    size_t n;
};

static struct sssctl_family *sssctl_family_get(TALLOC_CTX *mem_ctx, struct sssctl_families *all,
                                               const char *name)
{
    struct sssctl_family *f;
    size_t i;

    for (i = 0; i < all->n; i++) {
        if (strcmp(all->f[i].name, name) == 0) {
            return &all->f[i];
        }
    }
    f = talloc_realloc(mem_ctx, all->f, struct sssctl_family, all->n + 1);
    if (f == NULL) {
        return NULL;
    }
    all->f = f;
    f = &all->f[all->n++];
    memset(f, 0, sizeof(*f));
    f->name = talloc_strdup(all->f, name);
    return f->name != NULL ? f : NULL;
}

/* Adds one process's exposition text to the families. */
static errno_t sssctl_merge(TALLOC_CTX *mem_ctx, struct sssctl_families *all, char *text)
{
    struct sssctl_family *cur = NULL;
    char *save = NULL;
    char *line, *name, *rest;
    char **samples;

    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "# HELP ", 7) == 0 || strncmp(line, "# TYPE ", 7) == 0) {
            name = line + 7;
            rest = strchr(name, ' ');
            if (rest == NULL) {
                continue;
            }
            *rest++ = '\0';
            cur = sssctl_family_get(mem_ctx, all, name);
            if (cur == NULL) {
                return ENOMEM;
            }
            if (line[2] == 'H' && cur->help == NULL) {
                cur->help = talloc_strdup(all->f, rest);
            } else if (line[2] == 'T' && cur->type == NULL) {
                cur->type = talloc_strdup(all->f, rest);
            }
            continue;
        }
        if (line[0] == '#' || line[0] == '\0' || cur == NULL) {
            continue;
        }
        samples = talloc_realloc(all->f, cur->samples, char *, cur->n + 1);
        if (samples == NULL) {
            return ENOMEM;
        }
        cur->samples = samples;
        cur->samples[cur->n] = talloc_strdup(samples, line);
        if (cur->samples[cur->n++] == NULL) {
            return ENOMEM;
        }
    }
    return EOK;
}

/* Splits a sample line "name{labels} value" in place. */
static bool sssctl_split_sample(char *line, char **_name, char **_labels, char **_value)
{
    char *open = strchr(line, '{');
    char *close = strrchr(line, '}');

    if (open == NULL || close == NULL || close < open || close[1] != ' ') {
        return false;
    }
    *open = '\0';
    *close = '\0';
    *_name = line;
    *_labels = open + 1;
    *_value = close + 2;
    return true;
}

/* labels 'a="x",b="y"' as a JSON object (values are plain: no quotes inside). */
static void sssctl_json_labels(struct sssctl_json *js, char *labels)
{
    char *save = NULL;
    char *pair, *eq, *v;

    sssctl_json_obj_start(js, "labels");
    for (pair = strtok_r(labels, ",", &save); pair != NULL; pair = strtok_r(NULL, ",", &save)) {
        eq = strchr(pair, '=');
        if (eq == NULL || eq[1] != '"') {
            continue;
        }
        *eq = '\0';
        v = eq + 2;
        if (v[0] != '\0' && v[strlen(v) - 1] == '"') {
            v[strlen(v) - 1] = '\0';
        }
        sssctl_json_str(js, pair, v);
    }
    sssctl_json_obj_end(js);
}

static void sssctl_stats_json(struct sssctl_ctx *ctx, const struct sssctl_families *all)
{
    char *name, *labels, *value;
    size_t i, k;

    sssctl_json_arr_start(ctx->js, "metrics");
    for (i = 0; i < all->n; i++) {
        const struct sssctl_family *f = &all->f[i];

        sssctl_json_obj_start(ctx->js, NULL);
        sssctl_json_str(ctx->js, "name", f->name);
        sssctl_json_str(ctx->js, "type", f->type);
        sssctl_json_str(ctx->js, "help", f->help);
        sssctl_json_arr_start(ctx->js, "samples");
        for (k = 0; k < f->n; k++) {
            char *line = talloc_strdup(ctx->mem, f->samples[k]);

            if (line == NULL || !sssctl_split_sample(line, &name, &labels, &value)) {
                continue;
            }
            sssctl_json_obj_start(ctx->js, NULL);
            sssctl_json_str(ctx->js, "name", name);
            sssctl_json_labels(ctx->js, labels);
            if (strchr(value, '.') != NULL) {
                /* _sum in seconds: kept as the exposition wrote it, in microseconds */
                sssctl_json_int(ctx->js, "value_usec", (int64_t)llround(strtod(value, NULL)
                                                                        * 1e6));
            } else {
                sssctl_json_int(ctx->js, "value", (int64_t)strtoull(value, NULL, 10));
            }
            sssctl_json_obj_end(ctx->js);
        }
        sssctl_json_arr_end(ctx->js);
        sssctl_json_obj_end(ctx->js);
    }
    sssctl_json_arr_end(ctx->js);
}

/* For people: counters as they are; a histogram's _count and _sum as a count and a mean. */
static int sssctl_stats_text(struct sssctl_ctx *ctx, const struct sssctl_families *all,
                             size_t nproc)
{
    static const char *const headers[] = { "METRIC", "LABELS", "VALUE" };
    struct sssctl_table *t = sssctl_table_new(ctx->mem, 3, headers);
    char *name, *labels, *value;
    size_t i, k, rows = 0;

    if (t == NULL) {
        return sssctl_error("out of memory");
    }
    for (i = 0; i < all->n; i++) {
        const struct sssctl_family *f = &all->f[i];
        bool hist = f->type != NULL && strcmp(f->type, "histogram") == 0;

        for (k = 0; k < f->n; k++) {
            char *line = talloc_strdup(ctx->mem, f->samples[k]);
            const char *row[3];
            size_t len;

            if (line == NULL || !sssctl_split_sample(line, &name, &labels, &value)) {
                continue;
            }
            len = strlen(name);
            if (hist && !(len > 6 && strcmp(name + len - 6, "_count") == 0)) {
                continue;
            }
            row[0] = f->name;
            row[1] = labels;
            row[2] = value;
            if (hist) {
                /* sss_metrics_render() writes _sum just before _count. */
                char *sline = k > 0 ? talloc_strdup(ctx->mem, f->samples[k - 1]) : NULL;
                char *sn, *sl, *sv;
                double count = strtod(value, NULL);

                if (sline != NULL && sssctl_split_sample(sline, &sn, &sl, &sv) && count > 0) {
                    row[2] = talloc_asprintf(ctx->mem, "%s, mean %.3f ms", value,
                                             strtod(sv, NULL) * 1000.0 / count);
                }
            }
            if (sssctl_table_add(t, row) != EOK) {
                return sssctl_error("out of memory");
            }
            rows++;
        }
    }
    sssctl_table_print(t, stdout, "");
    printf("%zu metric%s from %zu process%s\n", rows, rows == 1 ? "" : "s", nproc,
           nproc == 1 ? "" : "es");
    return SSSCTL_EXIT_OK;
}

int sssctl_stats(struct sssctl_ctx *ctx, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "prometheus", no_argument,       NULL, 'P' },
        SSSCTL_TARGET_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    struct sssctl_families all = { 0 };
    struct sssctl_target *list = NULL;
    struct sssctl_bus *bus;
    const char **names = NULL;
    bool prometheus = false;
    size_t n = 0, i, k, answered = 0;
    errno_t ret = EOK;
    int c;

    optind = 1;
    opterr = 0;
    while (ret == EOK && (c = getopt_long(argc, argv, "d:", longopts, NULL)) != -1) {
        switch (c) {
        case 'P': prometheus = true; break;
        default:
            ret = sssctl_target_option(ctx, c, optarg, &list, &n);
            if (ret == ENOENT) {
                return sssctl_error("stats: unknown option '%s'", argv[optind - 1]);
            }
        }
    }
    if (ret != EOK) {
        return sssctl_error("out of memory");
    }
    if (optind != argc || (prometheus && ctx->json)) {
        return sssctl_error("usage: sssctl stats [--json | --prometheus] [--monitor --nss "
                            "--pam --sudo --domain=NAME ...]");
    }
    if (sssctl_targets_open(ctx, &list, &n, &bus, &names) != SSSCTL_EXIT_OK) {
        return SSSCTL_EXIT_FAILURE;
    }
    if (ctx->json) {
        sssctl_json_obj_start(ctx->js, NULL);
        sssctl_json_arr_start(ctx->js, "processes");
    }
    for (i = 0; i < n; i++) {
        bool running = sssctl_names_has(names, list[i].bus_name);
        const char *text = NULL;
        struct tevent_req *req;

        ret = ENOENT;
        if (running) {
            req = sbus_call_sssd_service_GetMetrics_send(bus, bus->conn, list[i].bus_name,
                                                         SSS_BUS_PATH);
            ret = sssctl_bus_wait(bus, req);
            if (ret == EOK) {
                ret = sbus_call_sssd_service_GetMetrics_recv(ctx->mem, req, &text);
            }
            talloc_free(req);
        }
        if (ret == EOK) {
            ret = sssctl_merge(ctx->mem, &all, talloc_strdup(ctx->mem, text));
            answered += ret == EOK ? 1 : 0;
        }
        if (ret != EOK && running) {
            sssctl_error("no metrics from %s: %s", list[i].process, sss_strerror(ret));
        }
        if (ctx->json) {
            sssctl_json_obj_start(ctx->js, NULL);
            sssctl_json_str(ctx->js, "process", list[i].process);
            sssctl_json_str(ctx->js, "bus_name", list[i].bus_name);
            sssctl_json_bool(ctx->js, "running", running);
            sssctl_json_bool(ctx->js, "answered", ret == EOK);
            sssctl_json_obj_end(ctx->js);
        }
    }
    if (ctx->json) {
        sssctl_json_arr_end(ctx->js);
        sssctl_stats_json(ctx, &all);
        sssctl_json_obj_end(ctx->js);
    } else if (prometheus) {
        for (i = 0; i < all.n; i++) {
            printf("# HELP %s %s\n# TYPE %s %s\n", all.f[i].name,
                   all.f[i].help != NULL ? all.f[i].help : "", all.f[i].name,
                   all.f[i].type != NULL ? all.f[i].type : "untyped");
            for (k = 0; k < all.f[i].n; k++) {
                printf("%s\n", all.f[i].samples[k]);
            }
        }
    } else {
        sssctl_stats_text(ctx, &all, answered);
    }
    return answered > 0 ? SSSCTL_EXIT_OK : sssctl_error("no process answered");
}
