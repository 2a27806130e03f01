/* libFuzzer harness: arbitrary bytes as the mapped pages of an LMDB file (sysdb's cache)
 * for sysdb_mdb_walk() (src/db/sysdb_mdb_walk.c), which reads them without LMDB and
 * must stay inside them whatever they hold (a writer may change pages under the walk).
 * Input: page size exponent (9..16), root page, depth, key length, the key, then the
 * pages, copied to a buffer of their exact size so that ASan sees any read past them.
 * Seeds: make_mdb_walk_seeds.py (a two-level tree, keys present and absent). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db/sysdb_mdb_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum sysdb_mdb_found found;
    size_t psize;
    size_t klen;
    uint8_t *map;

    if (size < 4) {
        return 0;
    }
    psize = (size_t)1 << (9 + data[0] % 8);
    klen = data[3];
    if (size < 4 + klen) {
        return 0;
    }
    size -= 4 + klen;
    map = malloc(size > 0 ? size : 1);
    if (map == NULL) {
        return 0;
    }
    memcpy(map, data + 4 + klen, size);
    found = sysdb_mdb_walk(map, size, psize, data[1], data[2] % 40, data + 4, klen);
    if (found != SYSDB_MDB_UNKNOWN && found != SYSDB_MDB_ABSENT
            && found != SYSDB_MDB_PRESENT) {
        abort();
    }
    free(map);
    return 0;
}
