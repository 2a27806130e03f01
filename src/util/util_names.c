/* Bus name escaping (PROTOCOL.md "The bus") and small time helpers. */
#include <stdio.h>
#include <time.h>
#include "util/util.h"

char *sss_bus_name_escape(TALLOC_CTX *mem_ctx, const char *name)
{
    static const char hex[] = "0123456789abcdef";
    size_t len, i, o;
    char *out;

    if (name == NULL) {
        return NULL;
    }
    len = strlen(name);
    out = talloc_array(mem_ctx, char, len * 3 + 1);
    if (out == NULL) {
        return NULL;
    }
    for (i = 0, o = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            out[o++] = (char)c;
        } else {
            out[o++] = '_';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 0xf];
        }
    }
    out[o] = '\0';
    return out;
}

char *sss_domain_bus_name(TALLOC_CTX *mem_ctx, const char *domain)
{
    char *escaped;
    char *name;

    escaped = sss_bus_name_escape(NULL, domain);
    if (escaped == NULL) {
        return NULL;
    }
    name = talloc_asprintf(mem_ctx, "sssd.domain_%s", escaped);
    talloc_free(escaped);
    return name;
}

uint64_t sss_monotonic_usec(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000ULL;
}
