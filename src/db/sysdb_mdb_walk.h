/*
 * A read-only lookup of one key in an LMDB main database, straight from its mapped pages:
 * whether a key is there, without an LMDB environment (a second one on the file ldb has
 * open is forbidden: its lock-file close drops ldb's locks). The caller supplies a
 * consistent snapshot's root and re-checks the transaction id after (sysdb_rcache.c);
 * here the bytes are only trusted to be bytes: every offset is checked, so pages changed
 * under the walk give a wrong answer at worst, which the caller then discards.
 *
 * LMDB data format 1 (0.9.x, 64-bit): a page is a 16-byte header (pgno 8, pad 2, flags 2,
 * lower 2, upper 2) then lower-16 bytes of 2-byte node offsets in key order; a node is
 * lo 2, hi 2, flags 2, ksize 2, then the key. A branch node's child is lo | hi << 16 |
 * flags << 32 and its key is the least of that child (ignored for the first node). Keys of
 * a database without special flags compare as memcmp, then the shorter first.
 */
#ifndef SSS_SYSDB_MDB_WALK_H
#define SSS_SYSDB_MDB_WALK_H

#include <stddef.h>
#include <stdint.h>

enum sysdb_mdb_found {
    SYSDB_MDB_UNKNOWN = -1, /* the pages do not make sense: ask ldb */
    SYSDB_MDB_ABSENT = 0,
    SYSDB_MDB_PRESENT = 1,
};

/* Looks key up in the tree whose root page is root, in map (map_len bytes, pages of psize
 * bytes), descending at most max_depth levels. */
enum sysdb_mdb_found sysdb_mdb_walk(const uint8_t *map, size_t map_len, size_t psize,
                                    uint64_t root, unsigned int max_depth,
                                    const void *key, size_t klen);

#endif /* SSS_SYSDB_MDB_WALK_H */
