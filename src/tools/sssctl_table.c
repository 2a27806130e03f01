/*
 * sssctl's text tables for people: rows of cells printed with every column padded to its
 * widest cell, counted in characters (UTF-8 continuation bytes take no column), the last
 * column unpadded. An optional header line and a rule under it.
 */
#include <assert.h>

#include "tools/sssctl.h"

struct sssctl_table {
    size_t ncols;
    const char **headers;       /* NULL: none */
    char ***rows;
    size_t nrows;
};

struct sssctl_table *sssctl_table_new(TALLOC_CTX *mem_ctx, size_t ncols,
                                      const char *const *headers)
{
    struct sssctl_table *t;
    size_t i;

    assert(ncols > 0);
    t = talloc_zero(mem_ctx, struct sssctl_table);
    if (t == NULL) {
        return NULL;
    }
    t->ncols = ncols;
    if (headers != NULL) {
        t->headers = talloc_array(t, const char *, ncols);
        if (t->headers == NULL) {
            talloc_free(t);
            return NULL;
        }
        for (i = 0; i < ncols; i++) {
            t->headers[i] = headers[i];
        }
    }
    return t;
}

errno_t sssctl_table_add(struct sssctl_table *t, const char *const *cells)
{
    char ***rows;
    char **row;
    size_t i;

    rows = talloc_realloc(t, t->rows, char **, t->nrows + 1);
    if (rows == NULL) {
        return ENOMEM;
    }
    t->rows = rows;
    row = talloc_array(t->rows, char *, t->ncols);
    if (row == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < t->ncols; i++) {
        row[i] = talloc_strdup(row, cells[i] != NULL ? cells[i] : "-");
        if (row[i] == NULL) {
            talloc_free(row);
            return ENOMEM;
        }
    }
    t->rows[t->nrows++] = row;
    return EOK;
}

/* Columns a string takes on a terminal (one per character; good enough for names). */
static size_t table_width(const char *s)
{
    size_t w = 0;

    for (; *s != '\0'; s++) {
        if (((unsigned char)*s & 0xc0) != 0x80) {
            w++;
        }
    }
    return w;
}

static void table_line(FILE *out, const char *indent, const char *const *cells,
                       const size_t *widths, size_t ncols)
{
    size_t i;

    fputs(indent, out);
    for (i = 0; i < ncols; i++) {
        fputs(cells[i], out);
        if (i + 1 < ncols) {
            fprintf(out, "%*s", (int)(widths[i] - table_width(cells[i]) + 2), "");
        }
    }
    fputc('\n', out);
}

void sssctl_table_print(struct sssctl_table *t, FILE *out, const char *indent)
{
    size_t widths[16] = { 0 };
    size_t ncols = t->ncols < 16 ? t->ncols : 16;
    size_t i, r, total = 0;

    for (i = 0; i < ncols; i++) {
        if (t->headers != NULL) {
            widths[i] = table_width(t->headers[i]);
        }
        for (r = 0; r < t->nrows; r++) {
            size_t w = table_width(t->rows[r][i]);

            widths[i] = w > widths[i] ? w : widths[i];
        }
        total += widths[i] + (i + 1 < ncols ? 2 : 0);
    }
    if (t->headers != NULL) {
        table_line(out, indent, t->headers, widths, ncols);
        fputs(indent, out);
        for (i = 0; i < total; i++) {
            fputc('-', out);
        }
        fputc('\n', out);
    }
    for (r = 0; r < t->nrows; r++) {
        table_line(out, indent, (const char *const *)t->rows[r], widths, ncols);
    }
}
