/* The lowercase hex form of sss_hex.h. */
#include <string.h>

#include "util/sss_hex.h"

void sss_hex_encode(const uint8_t *in, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    size_t k;

    for (k = 0; k < len; k++) {
        out[2 * k] = digits[in[k] >> 4];
        out[2 * k + 1] = digits[in[k] & 0x0f];
    }
    out[2 * len] = '\0';
}

size_t sss_hex_decode(const char *hex, char *out)
{
    size_t len = strlen(hex);
    size_t i;
    int hi;
    int lo;

    if (len % 2 != 0) {
        return 0;
    }
    for (i = 0; i < len / 2; i++) {
        hi = hex[2 * i] >= 'a' ? hex[2 * i] - 'a' + 10 : hex[2 * i] - '0';
        lo = hex[2 * i + 1] >= 'a' ? hex[2 * i + 1] - 'a' + 10 : hex[2 * i + 1] - '0';
        if (hi < 0 || hi > 15 || lo < 0 || lo > 15) {
            return 0;
        }
        out[i] = (char)((hi << 4) | lo);
    }
    return len / 2;
}
