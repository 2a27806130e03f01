/*
 * Request keys for chaining identical in-flight calls. The destination is part of the key
 * (the thesis, 4.1.2): the same call to two services must reach both.
 */
#include <unistd.h>
#include "util/util.h"
#include "sbus/sbus.h"

char *sbus_key_create(TALLOC_CTX *mem_ctx, const char *destination, const char *interface,
                      const char *member, const char *path, const char *args)
{
    if (destination == NULL || interface == NULL || member == NULL || path == NULL) {
        return NULL;
    }
    return talloc_asprintf(mem_ctx, "%u:method:%s:%s.%s:%s%s%s", (unsigned)geteuid(),
                           destination, interface, member, path,
                           args != NULL ? ":" : "", args != NULL ? args : "");
}
