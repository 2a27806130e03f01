/*
 * sssctl config-check [-c FILE]: runs the daemon's own validation (confdb_load: owner and
 * mode of every file, sections, options with the closest known one suggested for a typo,
 * values, and the configuration as a whole) on sssd.conf and its conf.d snippets, and
 * prints what it found, each as "file:line: text". A problem that stops sssd from starting
 * is an error (exit 1); what SSSD would ignore (an unknown option, a section nothing uses)
 * is a warning (exit 0). The snippets read are listed, as SSSD's sssctl does.
 *
 * confdb stops at the first error, which is right for the daemon; an administrator wants
 * them all. So after an error at FILE:LINE of the main file the tool blanks that line in a
 * copy and validates the copy again (confdb_parse_buffer, the same checks minus the file
 * permissions), until the copy passes or an error names no line of it; every error found
 * on the way is reported, and the warnings of the last pass.
 */
#include <dirent.h>
#include <getopt.h>
#include <libgen.h>

#include "tools/sssctl.h"

/* "*.conf" files of <dir of file>/conf.d, sorted as confdb reads them. */
static errno_t sssctl_snippets(TALLOC_CTX *mem_ctx, const char *file, char ***_list,
                               size_t *_n)
{
    struct dirent **ents = NULL;
    char *copy = talloc_strdup(mem_ctx, file);
    char *dir;
    char **list;
    size_t n = 0;
    int count, i;

    if (copy == NULL) {
        return ENOMEM;
    }
    dir = talloc_asprintf(mem_ctx, "%s/conf.d", dirname(copy));
    if (dir == NULL) {
        return ENOMEM;
    }
    count = scandir(dir, &ents, NULL, alphasort);
    list = talloc_zero_array(mem_ctx, char *, count > 0 ? (size_t)count + 1 : 1);
    for (i = 0; i < count; i++) {
        size_t len = strlen(ents[i]->d_name);

        if (list != NULL && ents[i]->d_name[0] != '.' && len > 5
                && strcmp(ents[i]->d_name + len - 5, ".conf") == 0) {
            list[n++] = talloc_asprintf(list, "%s/%s", dir, ents[i]->d_name);
        }
        free(ents[i]);
    }
    free(ents);
    if (list == NULL) {
        return ENOMEM;
    }
    *_list = list;
    *_n = n;
    return EOK;
}

#define SSSCTL_MAX_ERRORS 64

struct sssctl_findings {
    const char **errors;
    size_t nerr;
    const char *const *warnings;
    size_t nwarn;
};

static errno_t sssctl_add_error(TALLOC_CTX *mem_ctx, struct sssctl_findings *f, const char *e)
{
    const char **l;
    size_t i;

    for (i = 0; i < f->nerr; i++) {
        if (strcmp(f->errors[i], e) == 0) {
            return EOK;
        }
    }
    l = talloc_realloc(mem_ctx, f->errors, const char *, f->nerr + 1);
    if (l == NULL) {
        return ENOMEM;
    }
    l[f->nerr++] = e;
    f->errors = l;
    return EOK;
}

/* The line number an error names in "<path>:LINE: ...", or 0. */
static unsigned long sssctl_error_line(const char *error, const char *path)
{
    size_t len = strlen(path);
    unsigned long line;
    char *end;

    if (strncmp(error, path, len) != 0 || error[len] != ':') {
        return 0;
    }
    line = strtoul(error + len + 1, &end, 10);
    return *end == ':' ? line : 0;
}

/* Blanks line (1-based) of text in place, keeping the other lines' numbers. */
static bool sssctl_blank_line(char *text, size_t len, unsigned long line)
{
    unsigned long n = 1;
    size_t i;

    for (i = 0; i < len && n < line; i++) {
        n += text[i] == '\n' ? 1 : 0;
    }
    if (n != line) {
        return false;
    }
    for (; i < len && text[i] != '\n'; i++) {
        text[i] = ' ';
    }
    return true;
}

/* The errors after the first: validate copies of the main file with each error's line
 * blanked. Warnings of the last pass go to f. */
static errno_t sssctl_more_errors(TALLOC_CTX *mem_ctx, const char *path,
                                  struct sssctl_findings *f)
{
    struct confdb *cdb = NULL;
    char *text = NULL;
    char *error;
    size_t len = 0;
    unsigned long line;
    FILE *in;
    errno_t ret;

    in = fopen(path, "r");
    if (in == NULL) {
        return EOK;     /* unreadable: the first error said so */
    }
    text = talloc_zero_size(mem_ctx, CONFDB_MAX_FILE_SIZE + 1);
    if (text != NULL) {
        len = fread(text, 1, CONFDB_MAX_FILE_SIZE, in);
    }
    fclose(in);
    if (text == NULL) {
        return ENOMEM;
    }
    while (f->nerr < SSSCTL_MAX_ERRORS) {
        error = NULL;
        ret = confdb_parse_buffer(mem_ctx, path, text, len, &cdb, &error);
        if (ret == EOK) {
            f->warnings = confdb_warnings(cdb);
            return EOK;
        }
        if (ret != ERR_INVALID_CONFIG || error == NULL) {
            return ret;
        }
        ret = sssctl_add_error(mem_ctx, f, error);
        if (ret != EOK) {
            return ret;
        }
        line = sssctl_error_line(error, path);
        if (line == 0 || !sssctl_blank_line(text, len, line)) {
            return EOK;     /* a problem of the whole configuration: nothing to skip */
        }
    }
    return EOK;
}

int sssctl_config_check(struct sssctl_ctx *ctx, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "config", required_argument, NULL, 'c' },
        { NULL, 0, NULL, 0 },
    };
    struct sssctl_findings found = { 0 };
    struct confdb *cdb = NULL;
    char **snippets = NULL;
    char *error = NULL;
    size_t nsnip = 0, i;
    errno_t ret;
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': ctx->paths.config_file = optarg; break;
        default:
            return sssctl_error("config-check: unknown option or missing value '%s'",
                                argv[optind - 1]);
        }
    }
    if (optind != argc) {
        return sssctl_error("usage: sssctl config-check [-c FILE]");
    }
    ret = confdb_load(ctx->mem, ctx->paths.config_file, &cdb, &error);
    if (ret == ERR_MISSING_CONF) {
        error = talloc_asprintf(ctx->mem, "%s: the file does not exist",
                                ctx->paths.config_file);
    } else if (ret != EOK && error == NULL) {
        error = talloc_asprintf(ctx->mem, "%s: %s", ctx->paths.config_file,
                                sss_strerror(ret));
    }
    if (ret == EOK) {
        found.warnings = confdb_warnings(cdb);
    } else if (error == NULL || sssctl_add_error(ctx->mem, &found, error) != EOK
               || sssctl_more_errors(ctx->mem, ctx->paths.config_file, &found) != EOK) {
        return sssctl_error("out of memory");
    }
    while (found.warnings != NULL && found.warnings[found.nwarn] != NULL) {
        found.nwarn++;
    }
    if (sssctl_snippets(ctx->mem, ctx->paths.config_file, &snippets, &nsnip) != EOK) {
        return sssctl_error("out of memory");
    }

    if (ctx->json) {
        sssctl_json_obj_start(ctx->js, NULL);
        sssctl_json_str(ctx->js, "config_file", ctx->paths.config_file);
        sssctl_json_bool(ctx->js, "valid", ret == EOK);
        sssctl_json_arr_start(ctx->js, "errors");
        for (i = 0; i < found.nerr; i++) {
            sssctl_json_str(ctx->js, NULL, found.errors[i]);
        }
        sssctl_json_arr_end(ctx->js);
        sssctl_json_arr_start(ctx->js, "warnings");
        for (i = 0; i < found.nwarn; i++) {
            sssctl_json_str(ctx->js, NULL, found.warnings[i]);
        }
        sssctl_json_arr_end(ctx->js);
        sssctl_json_arr_start(ctx->js, "snippets");
        for (i = 0; i < nsnip; i++) {
            sssctl_json_str(ctx->js, NULL, snippets[i]);
        }
        sssctl_json_arr_end(ctx->js);
        sssctl_json_obj_end(ctx->js);
    } else {
        printf("Issues identified by validators: %zu (%zu error%s, %zu warning%s)\n",
               found.nerr + found.nwarn, found.nerr, found.nerr == 1 ? "" : "s",
               found.nwarn, found.nwarn == 1 ? "" : "s");
        for (i = 0; i < found.nerr; i++) {
            printf("[error] %s\n", found.errors[i]);
        }
        for (i = 0; i < found.nwarn; i++) {
            printf("[warning] %s\n", found.warnings[i]);
        }
        printf("\nUsed configuration snippet files: %zu\n", nsnip);
        for (i = 0; i < nsnip; i++) {
            printf("%s\n", snippets[i]);
        }
        printf("\n%s: %s\n", ctx->paths.config_file,
               ret == EOK ? (found.nwarn == 0 ? "valid" : "valid, with warnings")
                          : "invalid: sssd would refuse to start");
    }
    return ret == EOK ? SSSCTL_EXIT_OK : SSSCTL_EXIT_FAILURE;
}
