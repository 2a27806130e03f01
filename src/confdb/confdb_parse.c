/*
 * The INI reader: turns the bytes of one sssd.conf file (or snippet) into sections and
 * entries of a struct confdb, line by line. It knows the syntax ([section], option = value,
 * # and ; comments, blank lines, CRLF endings), asks the option table whether each section
 * and option is known, has each value checked as it is read, and merges: a later file
 * overrides an earlier one's value, and as in SSSD (libini_config keeps the last value) an
 * option set twice in one section keeps the later value and a section that appears twice
 * has its options merged, each with a warning naming both lines. It stops at the first
 * error with one "file:line: ..." message.
 */
#include <stdarg.h>

#include "confdb/confdb_private.h"

struct confdb_parser {
    struct confdb *cdb;
    TALLOC_CTX *err_ctx;
    const char *source;           /* printable file name, owned by cdb */
    unsigned file_idx;
    unsigned line;
    bool seen_section;            /* any header so far, even of an ignored section */
    bool skipping;                /* inside an ignored or unknown section */
    size_t cur;                   /* index of the current served section */
};

/* Formats "source:line: text" into *_error and returns ERR_INVALID_CONFIG. */
static errno_t parser_error(struct confdb_parser *p, char **_error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static errno_t parser_error(struct confdb_parser *p, char **_error, const char *fmt, ...)
{
    char *text;
    va_list ap;

    va_start(ap, fmt);
    text = talloc_vasprintf(p->err_ctx, fmt, ap);
    va_end(ap);
    if (text == NULL) {
        return ENOMEM;
    }
    *_error = talloc_asprintf(p->err_ctx, "%s:%u: %s", p->source, p->line, text);
    talloc_free(text);
    if (*_error == NULL) {
        return ENOMEM;
    }
    return ERR_INVALID_CONFIG;
}

static errno_t parser_add_section(struct confdb_parser *p, char *name, unsigned kind,
                                  char **_error)
{
    struct confdb *cdb = p->cdb;
    struct confdb_section *sections;
    struct confdb_section *sec;
    size_t i;

    for (i = 0; i < cdb->num_sections; i++) {
        if (strcmp(cdb->sections[i].name, name) == 0) {
            p->cur = i;
            if (cdb->sections[i].file == p->source) {
                /* Snippets of conf.d add to a section by design; one file saying it twice
                 * is most likely a mistake, but SSSD merges it: so do we, and say so. */
                confdb_add_warning(cdb, "%s:%u: section [%s] appears again (first on line "
                                   "%u): its options are merged", p->source, p->line,
                                   cdb->sections[i].name, cdb->sections[i].line);
            }
            return EOK;
        }
    }
    if (cdb->num_sections >= CONFDB_MAX_SECTIONS) {
        return parser_error(p, _error, "too many sections (at most %d are accepted)",
                            CONFDB_MAX_SECTIONS);
    }
    sections = talloc_realloc(cdb, cdb->sections, struct confdb_section,
                              cdb->num_sections + 1);
    if (sections == NULL) {
        return ENOMEM;
    }
    cdb->sections = sections;
    sec = &sections[cdb->num_sections];
    memset(sec, 0, sizeof(*sec));
    sec->name = talloc_steal(cdb, name);
    sec->kind = kind;
    sec->file = p->source;
    sec->line = p->line;
    p->cur = cdb->num_sections++;
    return EOK;
}

static errno_t parser_section(struct confdb_parser *p, const char *line, size_t len,
                              char **_error)
{
    TALLOC_CTX *tmp_ctx;
    const char *close;
    const char *rest;
    const char *name;
    size_t rest_len, name_len;
    char *name_str;
    char *shown;
    char *suggestion;
    unsigned kind = 0;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }

    close = memchr(line, ']', len);
    if (close == NULL) {
        shown = confdb_quote(tmp_ctx, line, len);
        ret = shown == NULL ? ENOMEM :
              parser_error(p, _error, "section header '%s' is missing its closing ']'", shown);
        goto done;
    }
    rest = confdb_trim(close + 1, len - (size_t)(close - line) - 1, &rest_len);
    if (rest_len > 0) {
        shown = confdb_quote(tmp_ctx, rest, rest_len);
        ret = shown == NULL ? ENOMEM :
              parser_error(p, _error, "unexpected text '%s' after the section header", shown);
        goto done;
    }
    name = confdb_trim(line + 1, (size_t)(close - line) - 1, &name_len);
    if (name_len == 0) {
        ret = parser_error(p, _error, "section header '[]' has an empty name");
        goto done;
    }
    name_str = talloc_strndup(tmp_ctx, name, name_len);
    shown = confdb_quote(tmp_ctx, name, name_len);
    if (name_str == NULL || shown == NULL) {
        ret = ENOMEM;
        goto done;
    }

    p->seen_section = true;
    p->skipping = true;
    switch (confdb_section_classify(name_str, &kind)) {
    case CONFDB_SEC_SERVED:
        ret = parser_add_section(p, name_str, kind, _error);
        if (ret == EOK) {
            p->skipping = false;
        }
        goto done;
    case CONFDB_SEC_IGNORED:
        confdb_add_warning(p->cdb, "%s:%u: section [%s] is not served by this suite; "
                           "its options are ignored", p->source, p->line, shown);
        break;
    case CONFDB_SEC_UNKNOWN:
        suggestion = confdb_warnings_full(p->cdb) ? NULL :
                     confdb_section_suggest(tmp_ctx, name_str);
        if (suggestion != NULL) {
            char *quoted = confdb_quote_str(tmp_ctx, suggestion);

            confdb_add_warning(p->cdb, "%s:%u: unknown section [%s] is ignored "
                               "(did you mean [%s]?)", p->source, p->line, shown,
                               quoted != NULL ? quoted : "?");
        } else {
            confdb_add_warning(p->cdb, "%s:%u: unknown section [%s] is ignored",
                               p->source, p->line, shown);
        }
        break;
    case CONFDB_SEC_BAD_DOMAIN:
        ret = parser_error(p, _error, "invalid domain section [%s]: the domain name must "
                           "not be empty and must not contain '/' or control characters",
                           shown);
        goto done;
    }
    ret = EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}

/* An option the table does not know in this section: warn, naming the closest name. */
static void parser_unknown_option(struct confdb_parser *p, TALLOC_CTX *mem_ctx,
                                  const struct confdb_section *sec, const char *name)
{
    const struct confdb_option *other;
    const char *suggestion;
    char *shown = confdb_quote_str(mem_ctx, name);
    char *sec_shown = confdb_quote_str(mem_ctx, sec->name);
    char *where;

    if (shown == NULL || sec_shown == NULL) {
        return;
    }
    if (confdb_warnings_full(p->cdb)) {
        /* Adds the "more warnings" line once; no suggestion work past the limit. */
        confdb_add_warning(p->cdb, "%s", shown);
        return;
    }
    other = confdb_option_find_any(name);
    if (other != NULL) {
        where = confdb_kind_names(mem_ctx, other->kinds);
        confdb_add_warning(p->cdb, "%s:%u: option '%s' is not valid in section [%s] and "
                           "is ignored (it belongs in %s)", p->source, p->line, shown,
                           sec_shown, where != NULL ? where : "another section");
        return;
    }
    suggestion = confdb_option_suggest(name, sec->kind);
    if (suggestion != NULL) {
        confdb_add_warning(p->cdb, "%s:%u: unknown option '%s' in section [%s] is ignored "
                           "(did you mean '%s'?)", p->source, p->line, shown, sec_shown,
                           suggestion);
    } else {
        confdb_add_warning(p->cdb, "%s:%u: unknown option '%s' in section [%s] is ignored",
                           p->source, p->line, shown, sec_shown);
    }
}

static errno_t parser_store(struct confdb_parser *p, struct confdb_section *sec,
                            const struct confdb_option *opt, char *value, char **_error)
{
    struct confdb_entry *entry;
    struct confdb_entry *entries;

    entry = confdb_find_entry(sec, opt->name);
    if (entry != NULL) {
        if (entry->file_idx == p->file_idx) {
            char *sec_shown = confdb_quote_str(p->err_ctx, sec->name);

            if (sec_shown == NULL) {
                return ENOMEM;
            }
            confdb_add_warning(p->cdb, "%s:%u: option '%s' in section [%s] is already set "
                               "on line %u of this file: the value of line %u is used",
                               p->source, p->line, opt->name, sec_shown, entry->line,
                               p->line);
            talloc_free(sec_shown);
        }
        /* The later value wins, whether from a later line or a later file. */
        talloc_free(entry->value);
        entry->value = talloc_steal(p->cdb, value);
        entry->file = p->source;
        entry->file_idx = p->file_idx;
        entry->line = p->line;
        return EOK;
    }

    entries = talloc_realloc(p->cdb, sec->entries, struct confdb_entry, sec->num_entries + 1);
    if (entries == NULL) {
        return ENOMEM;
    }
    sec->entries = entries;
    entry = &entries[sec->num_entries++];
    entry->opt = opt;
    entry->value = talloc_steal(p->cdb, value);
    entry->file = p->source;
    entry->file_idx = p->file_idx;
    entry->line = p->line;
    return EOK;
}

static errno_t parser_option(struct confdb_parser *p, const char *line, size_t len,
                             char **_error)
{
    TALLOC_CTX *tmp_ctx;
    struct confdb_section *sec;
    const struct confdb_option *opt;
    const char *eq;
    const char *name;
    const char *value;
    size_t name_len, value_len;
    char *name_str, *value_str;
    char *checked = NULL;
    char *allowed = NULL;
    char *shown;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }

    eq = memchr(line, '=', len);
    if (eq == NULL) {
        shown = confdb_quote(tmp_ctx, line, len);
        ret = shown == NULL ? ENOMEM :
              parser_error(p, _error, "syntax error: '%s' is neither a [section], an "
                           "'option = value' line, a comment nor a blank line", shown);
        goto done;
    }
    name = confdb_trim(line, (size_t)(eq - line), &name_len);
    value = confdb_trim(eq + 1, len - (size_t)(eq - line) - 1, &value_len);
    if (name_len == 0) {
        shown = confdb_quote(tmp_ctx, line, len);
        ret = shown == NULL ? ENOMEM :
              parser_error(p, _error, "syntax error: option without a name in '%s'", shown);
        goto done;
    }
    name_str = talloc_strndup(tmp_ctx, name, name_len);
    value_str = talloc_strndup(tmp_ctx, value, value_len);
    if (name_str == NULL || value_str == NULL) {
        ret = ENOMEM;
        goto done;
    }
    if (!p->seen_section) {
        shown = confdb_quote_str(tmp_ctx, name_str);
        ret = shown == NULL ? ENOMEM :
              parser_error(p, _error, "option '%s' appears before any [section] header",
                           shown);
        goto done;
    }
    if (p->skipping) {
        ret = EOK;
        goto done;
    }

    sec = &p->cdb->sections[p->cur];
    opt = confdb_option_find(name_str, sec->kind);
    if (opt == NULL) {
        parser_unknown_option(p, tmp_ctx, sec, name_str);
        ret = EOK;
        goto done;
    }

    ret = confdb_check_value(tmp_ctx, opt, value_str, &checked, &allowed);
    if (ret == EINVAL) {
        char *sec_shown = confdb_quote_str(tmp_ctx, sec->name);

        shown = confdb_quote_str(tmp_ctx, value_str);
        ret = (shown == NULL || sec_shown == NULL) ? ENOMEM :
              parser_error(p, _error, "invalid value '%s' for option '%s' in section [%s]: "
                           "expected %s", shown, opt->name, sec_shown, allowed);
        goto done;
    } else if (ret != EOK) {
        goto done;
    }

    ret = parser_store(p, sec, opt, checked, _error);

done:
    talloc_free(tmp_ctx);
    return ret;
}

/* One line without its end of line; skips blanks and comments. */
static errno_t parser_line(struct confdb_parser *p, const char *line, size_t len,
                           char **_error)
{
    const char *text;
    size_t text_len;

    if (memchr(line, '\0', len) != NULL) {
        return parser_error(p, _error, "the line contains a NUL byte");
    }
    text = confdb_trim(line, len, &text_len);
    if (text_len == 0 || text[0] == '#' || text[0] == ';') {
        return EOK;
    }
    if (text[0] == '[') {
        return parser_section(p, text, text_len, _error);
    }
    return parser_option(p, text, text_len, _error);
}

/*
 * Parses one source into cdb. source names the file in messages; each call counts as a
 * new file for the duplicate and override rules. Errors: ERR_INVALID_CONFIG with *_error
 * on err_ctx, ENOMEM.
 */
errno_t confdb_parse_source(struct confdb *cdb, TALLOC_CTX *err_ctx, const char *source,
                            const char *buf, size_t len, char **_error)
{
    struct confdb_parser p = {
        .cdb = cdb,
        .err_ctx = err_ctx,
    };
    size_t pos = 0;
    errno_t ret;

    p.source = confdb_quote_str(cdb, source);
    if (p.source == NULL) {
        return ENOMEM;
    }
    if (cdb->main_file == NULL) {
        cdb->main_file = p.source;
    }
    p.file_idx = cdb->num_files++;

    if (len > CONFDB_MAX_FILE_SIZE) {
        *_error = talloc_asprintf(err_ctx, "%s: the file is larger than %d bytes",
                                  p.source, CONFDB_MAX_FILE_SIZE);
        return *_error == NULL ? ENOMEM : ERR_INVALID_CONFIG;
    }
    /* A UTF-8 byte order mark, as some editors write, is not part of the first line. */
    if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
        pos = 3;
    }

    while (pos < len) {
        const char *start = buf + pos;
        const char *nl = memchr(start, '\n', len - pos);
        size_t line_len = nl != NULL ? (size_t)(nl - start) : len - pos;

        pos += line_len + 1;
        p.line++;
        if (line_len > 0 && start[line_len - 1] == '\r') {
            line_len--;
        }
        ret = parser_line(&p, start, line_len, _error);
        if (ret != EOK) {
            return ret;
        }
    }
    return EOK;
}
