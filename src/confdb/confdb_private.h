/*
 * confdb internals shared by the files of src/confdb: the in-memory configuration, the
 * option table's row type, and the helpers each file offers the others. Nothing outside
 * src/confdb (and its unit tests) includes this header.
 */
#ifndef SSS_CONFDB_PRIVATE_H
#define SSS_CONFDB_PRIVATE_H

#include "util/util.h"
#include "confdb/confdb.h"

/* Section kinds, as bits so that one table row can serve several kinds. */
#define CONFDB_K_SSSD   (1u << 0)
#define CONFDB_K_NSS    (1u << 1)
#define CONFDB_K_PAM    (1u << 2)
#define CONFDB_K_SUDO   (1u << 3)
#define CONFDB_K_DOMAIN (1u << 4)
#define CONFDB_K_RESP   (CONFDB_K_NSS | CONFDB_K_PAM | CONFDB_K_SUDO)
#define CONFDB_K_ALL    (CONFDB_K_SSSD | CONFDB_K_RESP | CONFDB_K_DOMAIN)

/* Served sections beyond this many are refused (keeps lookups linear and cheap). */
#define CONFDB_MAX_SECTIONS 512
/* Warnings beyond this many are replaced by one "suppressed" line. */
#define CONFDB_MAX_WARNINGS 100

enum confdb_type {
    CONFDB_T_STRING,
    CONFDB_T_INT,
    CONFDB_T_BOOL,
    CONFDB_T_LIST,
    CONFDB_T_ENUM,
};

/* One row of the option table (confdb_options.c). */
struct confdb_option {
    const char *name;
    unsigned kinds;               /* CONFDB_K_* bits the option may appear in */
    enum confdb_type type;
    const char *def;              /* default as text; NULL: none */
    const char *default_from;     /* unset: take this option's value in the same section */
    const char *const *allowed;   /* CONFDB_T_ENUM: NULL-terminated allowed values */
    long long min;                /* CONFDB_T_INT range */
    long long max;
    bool schema_default;          /* default depends on ldap_schema (confdb_schema_default) */
    const char *unused;           /* accepted as SSSD does but not acted on: why (warned) */
};

enum confdb_section_class {
    CONFDB_SEC_SERVED,            /* one of our kinds; *_kind set */
    CONFDB_SEC_IGNORED,           /* a real SSSD section this suite does not serve */
    CONFDB_SEC_UNKNOWN,           /* not an SSSD section */
    CONFDB_SEC_BAD_DOMAIN,        /* domain/ with an empty or unusable name */
};

struct confdb_entry {
    const struct confdb_option *opt;
    char *value;                  /* trimmed; enum values in the table's spelling */
    const char *file;             /* shared by all entries of one file */
    unsigned file_idx;
    unsigned line;
};

struct confdb_section {
    char *name;
    unsigned kind;
    const char *file;             /* where the section was first seen */
    unsigned line;
    struct confdb_entry *entries;
    size_t num_entries;
};

struct confdb {
    const char *main_file;        /* name of the first source, for file-less messages */
    struct confdb_section *sections;
    size_t num_sections;
    char **warnings;              /* NULL-terminated */
    size_t num_warnings;
    unsigned num_files;
};

/* confdb.c */
struct confdb *confdb_new(TALLOC_CTX *mem_ctx);
struct confdb_section *confdb_find_section(struct confdb *cdb, const char *name);
struct confdb_entry *confdb_find_entry(struct confdb_section *sec, const char *option);
void confdb_add_warning(struct confdb *cdb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool confdb_warnings_full(struct confdb *cdb);

/* confdb_text.c */
bool confdb_is_space(char c);
const char *confdb_trim(const char *s, size_t len, size_t *_len);
char *confdb_quote(TALLOC_CTX *mem_ctx, const char *s, size_t len);
char *confdb_quote_str(TALLOC_CTX *mem_ctx, const char *s);
errno_t confdb_parse_int(const char *s, long long *_value);
errno_t confdb_parse_bool(const char *s, bool *_value);
errno_t confdb_split_list(TALLOC_CTX *mem_ctx, const char *s, char ***_list, size_t *_count);
size_t confdb_distance(const char *a, const char *b);

/* confdb_options.c */
const struct confdb_option *confdb_option_find(const char *name, unsigned kind);
const struct confdb_option *confdb_option_find_any(const char *name);
const char *confdb_option_suggest(const char *name, unsigned kind);
char *confdb_section_suggest(TALLOC_CTX *mem_ctx, const char *name);
enum confdb_section_class confdb_section_classify(const char *name, unsigned *_kind);
bool confdb_domain_name_valid(const char *name);
char *confdb_kind_names(TALLOC_CTX *mem_ctx, unsigned kinds);
const char *confdb_schema_default(const char *option, const char *schema);
/* Default of option in a domain whose id_provider is id_provider; NULL: none special. */
const char *confdb_provider_default(const char *option, const char *id_provider);
bool confdb_enum_allows(const struct confdb_option *opt, const char *value);
/* The whole table, for the unit tests that check every default. */
const struct confdb_option *confdb_option_table(size_t *_count);

/* confdb_parse.c */
errno_t confdb_parse_source(struct confdb *cdb, TALLOC_CTX *err_ctx, const char *source,
                            const char *buf, size_t len, char **_error);

/* confdb_validate.c */
errno_t confdb_check_value(TALLOC_CTX *mem_ctx, const struct confdb_option *opt,
                           const char *raw, char **_value, char **_allowed);
errno_t confdb_check_config(struct confdb *cdb, TALLOC_CTX *err_ctx, char **_error);

#endif /* SSS_CONFDB_PRIVATE_H */
