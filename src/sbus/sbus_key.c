/*
 * Request keys for chaining identical in-flight calls. The destination is part of the key
 * (the thesis, 4.1.2): the same call to two services must reach both.
 */
#include <unistd.h>

#include "sbus/sbus_private.h"

char *sbus_key_create(TALLOC_CTX *mem_ctx, const char *destination, const char *interface,
                      const char *member, const char *path, const char *args)
{
    SSS_CHECK_ARG(destination != NULL, NULL);
    SSS_CHECK_ARG(interface != NULL, NULL);
    SSS_CHECK_ARG(member != NULL, NULL);
    SSS_CHECK_ARG(path != NULL, NULL);

    return talloc_asprintf(mem_ctx, "%u:method:%s:%s.%s:%s%s%s", (unsigned)geteuid(),
                           destination, interface, member, path,
                           args != NULL ? ":" : "", args != NULL ? args : "");
}
