/* MurmurHash3 x86_32, the hash of the memory cache (plain C: the client libraries use it). */
#ifndef SSS_MURMURHASH3_H
#define SSS_MURMURHASH3_H

#include <stddef.h>
#include <stdint.h>

uint32_t murmurhash3(const char *key, size_t len, uint32_t seed);

#endif /* SSS_MURMURHASH3_H */
