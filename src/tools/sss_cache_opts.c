/*
 * sss_cache's command line, with SSSD's switches: -E, -u/-U, -g/-G, -n/-N, -s/-S, -a/-A,
 * -h/-H (SSH hosts, as in SSSD: help is -? / --help / --usage), -r/-R, -d, the hidden
 * --debug, and our -c/--config for a configuration file other than the installed one.
 * Errors are said on stderr in one line plus a hint, like popt's messages in SSSD.
 */
#include "util/util.h"

#include <getopt.h>
#include <stdlib.h>

#include "tools/sss_cache.h"

#define OPT_DEBUG 1000
#define OPT_USAGE 1001
#define OPT_HELP  1002

static const struct option sss_cache_long_opts[] = {
    { "everything",   no_argument,       NULL, 'E' },
    { "user",         required_argument, NULL, 'u' },
    { "users",        no_argument,       NULL, 'U' },
    { "group",        required_argument, NULL, 'g' },
    { "groups",       no_argument,       NULL, 'G' },
    { "netgroup",     required_argument, NULL, 'n' },
    { "netgroups",    no_argument,       NULL, 'N' },
    { "service",      required_argument, NULL, 's' },
    { "services",     no_argument,       NULL, 'S' },
    { "autofs-map",   required_argument, NULL, 'a' },
    { "autofs-maps",  no_argument,       NULL, 'A' },
    { "ssh-host",     required_argument, NULL, 'h' },
    { "ssh-hosts",    no_argument,       NULL, 'H' },
    { "sudo-rule",    required_argument, NULL, 'r' },
    { "sudo-rules",   no_argument,       NULL, 'R' },
    { "domain",       required_argument, NULL, 'd' },
    { "config",       required_argument, NULL, 'c' },
    { "debug",        required_argument, NULL, OPT_DEBUG },
    { "help",         no_argument,       NULL, OPT_HELP },
    { "usage",        no_argument,       NULL, OPT_USAGE },
    { NULL, 0, NULL, 0 }
};

/* ':' first: a missing argument is reported as ':' rather than '?'. */
static const char sss_cache_short_opts[] = ":Eu:Ug:Gn:Ns:Sa:Ah:Hr:Rd:c:";

/* Short letter of each kind this suite does not cache: name, then all. */
static const struct {
    int one;
    int all;
    enum sss_cache_other kind;
} sss_cache_other_opts[] = {
    { 'n', 'N', SSS_CACHE_NETGROUP },
    { 's', 'S', SSS_CACHE_SERVICE },
    { 'a', 'A', SSS_CACHE_AUTOFS_MAP },
    { 'h', 'H', SSS_CACHE_SSH_HOST },
    { 'r', 'R', SSS_CACHE_SUDO_RULE },
};

const char *sss_cache_other_plural(enum sss_cache_other kind)
{
    switch (kind) {
    case SSS_CACHE_NETGROUP:   return "netgroups";
    case SSS_CACHE_SERVICE:    return "services";
    case SSS_CACHE_AUTOFS_MAP: return "autofs maps";
    case SSS_CACHE_SSH_HOST:   return "SSH hosts";
    case SSS_CACHE_SUDO_RULE:  return "sudo rules";
    default:                   return "objects";
    }
}

void sss_cache_usage(FILE *out)
{
    fprintf(out,
        "Usage: sss_cache [OPTION...]\n"
        "Marks cached entries expired, so the next lookup asks the server again.\n"
        "\n"
        "  -E, --everything          Invalidate all cached entries\n"
        "  -u, --user=NAME           Invalidate particular user\n"
        "  -U, --users               Invalidate all users\n"
        "  -g, --group=NAME          Invalidate particular group\n"
        "  -G, --groups              Invalidate all groups\n"
        "  -n, --netgroup=NAME       Invalidate particular netgroup (*)\n"
        "  -N, --netgroups           Invalidate all netgroups (*)\n"
        "  -s, --service=NAME        Invalidate particular service (*)\n"
        "  -S, --services            Invalidate all services (*)\n"
        "  -a, --autofs-map=NAME     Invalidate particular autofs map (*)\n"
        "  -A, --autofs-maps         Invalidate all autofs maps (*)\n"
        "  -h, --ssh-host=NAME       Invalidate particular SSH host (*)\n"
        "  -H, --ssh-hosts           Invalidate all SSH hosts (*)\n"
        "  -r, --sudo-rule=NAME      Invalidate particular sudo rule (*)\n"
        "  -R, --sudo-rules          Invalidate all cached sudo rules (*)\n"
        "  -d, --domain=NAME         Only invalidate entries from a particular domain\n"
        "  -c, --config=FILE         Configuration file (default " SSSD_CONF_FILE ")\n"
        "  -?, --help                Show this help message\n"
        "      --usage               Same as --help\n"
        "\n"
        "NAME may be fully qualified (name@domain): then only that domain is searched.\n"
        "(*) not cached by this suite: nothing to invalidate, a NAME never matches.\n");
}

static errno_t sss_cache_bad_args(const char *fmt, const char *what)
{
    fprintf(stderr, "sss_cache: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\nTry 'sss_cache --help' for more information.\n");
    return EINVAL;
}

/* A copy of argv for getopt (which permutes it), with SSSD's "-?" spelled "--help". */
static char **sss_cache_argv_copy(TALLOC_CTX *mem_ctx, int argc, char *const argv[])
{
    char **copy;
    int i;

    copy = talloc_zero_array(mem_ctx, char *, argc + 1);
    if (copy == NULL) {
        return NULL;
    }
    for (i = 0; i < argc; i++) {
        copy[i] = discard_const_p(char, strcmp(argv[i], "-?") == 0 ? "--help" : argv[i]);
    }
    return copy;
}

static bool sss_cache_set_other(struct sss_cache_sel *sel, int opt, const char *arg)
{
    size_t i;

    for (i = 0; i < SSS_ARRAY_SIZE(sss_cache_other_opts); i++) {
        if (opt == sss_cache_other_opts[i].one) {
            sel->other_name[sss_cache_other_opts[i].kind] = arg;
            return true;
        }
        if (opt == sss_cache_other_opts[i].all) {
            sel->other_all[sss_cache_other_opts[i].kind] = true;
            return true;
        }
    }
    return false;
}

static bool sss_cache_sel_is_empty(const struct sss_cache_sel *sel)
{
    int k;

    if (sel->all_users || sel->all_groups || sel->user != NULL || sel->group != NULL
            || sel->all_netgroups) {
        return false;
    }
    for (k = 0; k < SSS_CACHE_OTHER_COUNT; k++) {
        if (sel->other_all[k] || sel->other_name[k] != NULL) {
            return false;
        }
    }
    return true;
}

errno_t sss_cache_parse_args(TALLOC_CTX *mem_ctx, int argc, char *const argv[],
                             struct sss_cache_args **_args)
{
    TALLOC_CTX *tmp_ctx;
    struct sss_cache_args *args;
    char **av;
    char *end;
    long level;
    int opt;
    errno_t ret;

    SSS_CHECK_ARG(argc >= 1, EINVAL);
    SSS_CHECK_ARG(argv != NULL, EINVAL);
    SSS_CHECK_ARG(_args != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    args = talloc_zero(tmp_ctx, struct sss_cache_args);
    av = sss_cache_argv_copy(tmp_ctx, argc, argv);
    if (args == NULL || av == NULL) {
        ret = ENOMEM;
        goto done;
    }
    args->config_file = SSSD_CONF_FILE;

    optind = 0;     /* full reset: the parser may run more than once (tests) */
    opterr = 0;
    while ((opt = getopt_long(argc, av, sss_cache_short_opts, sss_cache_long_opts,
                              NULL)) != -1) {
        switch (opt) {
        case 'E':
            args->sel.all_users = true;
            args->sel.all_groups = true;
            args->sel.all_netgroups = true;
            break;
        case 'u':
            args->sel.user = optarg;
            break;
        case 'U':
            args->sel.all_users = true;
            break;
        case 'g':
            args->sel.group = optarg;
            break;
        case 'G':
            args->sel.all_groups = true;
            break;
        case 'd':
            args->sel.domain = optarg;
            break;
        case 'c':
            args->config_file = optarg;
            break;
        case OPT_DEBUG:
            errno = 0;
            level = strtol(optarg, &end, 0);
            if (errno != 0 || *end != '\0' || end == optarg || level < 0 || level > INT32_MAX) {
                ret = sss_cache_bad_args("bad debug level '%s'", optarg);
                goto done;
            }
            args->debug_level = (int)level;
            break;
        case OPT_HELP:
        case OPT_USAGE:
            args->help = true;
            break;
        case ':':
            ret = sss_cache_bad_args("option '%s' requires an argument", av[optind - 1]);
            goto done;
        case '?':
            if (optopt != 0) {
                char bad[3] = { '-', (char)optopt, '\0' };
                ret = sss_cache_bad_args("unknown option '%s'", bad);
            } else {
                ret = sss_cache_bad_args("unknown option '%s'", av[optind - 1]);
            }
            goto done;
        default:
            if (!sss_cache_set_other(&args->sel, opt, optarg)) {
                ret = sss_cache_bad_args("unknown option '%s'", av[optind - 1]);
                goto done;
            }
            break;
        }
    }

    if (args->help) {
        ret = EOK;
        goto done;
    }
    if (optind < argc) {
        ret = sss_cache_bad_args("unexpected argument '%s': options that invalidate a single "
                                 "object only accept a single provided argument", av[optind]);
        goto done;
    }
    if (sss_cache_sel_is_empty(&args->sel)) {
        ret = sss_cache_bad_args("%s", "Please select at least one object to invalidate");
        goto done;
    }
    /* As in SSSD, invalidating all of a kind overrides the name of that kind. */
    if (args->sel.all_users) {
        args->sel.user = NULL;
    }
    if (args->sel.all_groups) {
        args->sel.group = NULL;
    }
    ret = EOK;

done:
    if (ret == EOK) {
        /* optarg strings point into the caller's argv, which outlives the run. */
        *_args = talloc_steal(mem_ctx, args);
    }
    talloc_free(tmp_ctx);
    return ret;
}
