/* The comma-separated value reader of sss_csv.h. */
#include <assert.h>
#include <string.h>

#include "util/sss_csv.h"

bool sss_csv_next(const char **pos, const char *blanks, const char **_item, size_t *_len)
{
    const char *p;
    const char *comma;
    size_t len;

    assert(pos != NULL && blanks != NULL && _item != NULL && _len != NULL);
    p = *pos;
    if (p == NULL) {
        return false;
    }
    comma = strchr(p, ',');
    len = comma != NULL ? (size_t)(comma - p) : strlen(p);
    while (len > 0 && strchr(blanks, p[0]) != NULL) {
        p++;
        len--;
    }
    while (len > 0 && strchr(blanks, p[len - 1]) != NULL) {
        len--;
    }
    *_item = p;
    *_len = len;
    *pos = comma != NULL ? comma + 1 : NULL;
    return true;
}
