/* One key's presence in an LMDB tree from its mapped pages (see sysdb_mdb_walk.h). */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "db/sysdb_mdb_walk.h"

#define PAGE_HDR 16
#define NODE_HDR 8
#define P_BRANCH 0x01
#define P_LEAF 0x02
#define P_LEAF2 0x20
#define P_SUBP 0x40

static uint16_t rd16(const uint8_t *p)
{
    uint16_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

struct walk_page {
    const uint8_t *p;
    size_t psize;
    unsigned int nkeys;
    uint16_t flags;
};

/* Node i of the page, its key and its size; false when they do not fit the page. */
static bool walk_node(const struct walk_page *pg, unsigned int i, const uint8_t **_node,
                      const uint8_t **_key, size_t *_klen)
{
    size_t off = rd16(pg->p + PAGE_HDR + 2 * i);
    size_t klen;

    if (off < PAGE_HDR || off + NODE_HDR > pg->psize) {
        return false;
    }
    klen = rd16(pg->p + off + 6);
    if (off + NODE_HDR + klen > pg->psize) {
        return false;
    }
    *_node = pg->p + off;
    *_key = pg->p + off + NODE_HDR;
    *_klen = klen;
    return true;
}

static int walk_cmp(const uint8_t *a, size_t alen, const void *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);

    if (c != 0) {
        return c;
    }
    return alen < blen ? -1 : alen > blen;
}

/* The page numbered pgno, checked: inside the map, its own number, a branch or leaf of the
 * kind a main database has. */
static bool walk_page_at(const uint8_t *map, size_t map_len, size_t psize, uint64_t pgno,
                         struct walk_page *pg)
{
    size_t lower;
    size_t upper;

    if (pgno >= map_len / psize) {
        return false;
    }
    pg->p = map + pgno * psize;
    pg->psize = psize;
    if (rd64(pg->p) != pgno) {
        return false;
    }
    pg->flags = rd16(pg->p + 10);
    lower = rd16(pg->p + 12);
    upper = rd16(pg->p + 14);
    if ((pg->flags & (P_LEAF2 | P_SUBP)) != 0
            || ((pg->flags & P_BRANCH) != 0) == ((pg->flags & P_LEAF) != 0)
            || lower < PAGE_HDR || lower > upper || upper > psize || (lower & 1) != 0) {
        return false;
    }
    pg->nkeys = (unsigned int)(lower - PAGE_HDR) / 2;
    return pg->nkeys > 0;
}

enum sysdb_mdb_found sysdb_mdb_walk(const uint8_t *map, size_t map_len, size_t psize,
                                    uint64_t root, unsigned int max_depth,
                                    const void *key, size_t klen)
{
    struct walk_page pg;
    const uint8_t *node;
    const uint8_t *nkey;
    size_t nklen;
    unsigned int lo, hi, mid, pick;
    unsigned int depth;
    int c;

    if (map == NULL || psize < 512 || psize > 65536) {
        return SYSDB_MDB_UNKNOWN;
    }
    for (depth = 0; depth < max_depth; depth++) {
        if (!walk_page_at(map, map_len, psize, root, &pg)) {
            return SYSDB_MDB_UNKNOWN;
        }
        if (pg.flags & P_LEAF) {
            lo = 0;
            hi = pg.nkeys;
            while (lo < hi) {
                mid = lo + (hi - lo) / 2;
                if (!walk_node(&pg, mid, &node, &nkey, &nklen)) {
                    return SYSDB_MDB_UNKNOWN;
                }
                c = walk_cmp(nkey, nklen, key, klen);
                if (c == 0) {
                    return SYSDB_MDB_PRESENT;
                }
                if (c < 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return SYSDB_MDB_ABSENT;
        }
        /* Branch: the last node whose key is <= key (node 0 stands for everything less). */
        pick = 0;
        lo = 1;
        hi = pg.nkeys;
        while (lo < hi) {
            mid = lo + (hi - lo) / 2;
            if (!walk_node(&pg, mid, &node, &nkey, &nklen)) {
                return SYSDB_MDB_UNKNOWN;
            }
            if (walk_cmp(nkey, nklen, key, klen) <= 0) {
                pick = mid;
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (!walk_node(&pg, pick, &node, &nkey, &nklen)) {
            return SYSDB_MDB_UNKNOWN;
        }
        root = (uint64_t)rd16(node) | (uint64_t)rd16(node + 2) << 16
               | (uint64_t)rd16(node + 4) << 32;
    }
    return SYSDB_MDB_UNKNOWN;
}
