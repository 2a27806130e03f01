/*
 * MurmurHash3, 32-bit x86 variant (Austin Appleby's public-domain algorithm), written from
 * its description. Blocks are read little-endian, so the hash is the same on any host as on
 * the x86 machines SSSD's memory cache files come from.
 */
#include <string.h>
#include "sss_client/murmurhash3.h"

static inline uint32_t rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}

static inline uint32_t read_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16)
           | ((uint32_t)p[3] << 24);
}

uint32_t murmurhash3(const char *key, size_t len, uint32_t seed)
{
    const unsigned char *data = (const unsigned char *)key;
    const uint32_t c1 = 0xcc9e2d51;
    const uint32_t c2 = 0x1b873593;
    size_t nblocks = len / 4;
    uint32_t h = seed;
    uint32_t k;
    size_t i;

    for (i = 0; i < nblocks; i++) {
        k = read_le32(data + i * 4);
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
        h = rotl32(h, 13);
        h = h * 5 + 0xe6546b64;
    }

    k = 0;
    data += nblocks * 4;
    switch (len & 3) {
    case 3:
        k ^= (uint32_t)data[2] << 16;
        /* fall through */
    case 2:
        k ^= (uint32_t)data[1] << 8;
        /* fall through */
    case 1:
        k ^= data[0];
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
    }

    /* Final mix, so every input bit affects every output bit. */
    h ^= (uint32_t)len;
    h ^= h >> 16;
    h *= 0x85ebca6b;
    h ^= h >> 13;
    h *= 0xc2b2ae35;
    h ^= h >> 16;
    return h;
}
