/*
 * Formatted big groups kept between lookups (nss_grcache.h).
 */
#include <string.h>

#include "db/sysdb.h"
#include "responder/nss/nss_grcache.h"

struct nss_grcache_slot {
    TALLOC_CTX *mem;            /* everything of the slot; NULL: empty */
    struct resp_domain *dom;
    uint32_t gid;
    char *group_name;           /* the cache's name of the group */
    uint64_t gen;
    uint64_t used;              /* LRU clock */
    struct nss_gr_entry gr;     /* strings and arrays on mem */
};

struct nss_grcache {
    struct nss_grcache_slot slot[NSS_GRCACHE_SLOTS];
    uint64_t clock;
};

struct nss_grcache *nss_grcache_new(TALLOC_CTX *mem_ctx)
{
    return talloc_zero(mem_ctx, struct nss_grcache);
}

const struct nss_gr_entry *nss_grcache_get(struct nss_grcache *c, struct resp_domain *dom,
                                           const struct sysdb_group *group, uint64_t gen)
{
    struct nss_grcache_slot *s;
    size_t i;

    if (c == NULL || gen == 0 || group == NULL || group->name == NULL) {
        return NULL;
    }
    for (i = 0; i < NSS_GRCACHE_SLOTS; i++) {
        s = &c->slot[i];
        if (s->mem != NULL && s->gen == gen && s->dom == dom && s->gid == group->gid
                && strcmp(s->group_name, group->name) == 0) {
            s->used = ++c->clock;
            return &s->gr;
        }
    }
    return NULL;
}

/* The members of gr as one block of NUL-terminated strings (gr->packed, or built). */
static char *nss_grcache_pack(TALLOC_CTX *mem_ctx, const struct nss_gr_entry *gr,
                              size_t *_len)
{
    size_t len = 0;
    size_t n;
    char *buf;
    size_t i;

    if (gr->packed != NULL) {
        *_len = gr->packed_len;
        return talloc_memdup(mem_ctx, gr->packed, gr->packed_len > 0 ? gr->packed_len : 1);
    }
    for (i = 0; i < gr->num_members; i++) {
        len += strlen(gr->members[i]) + 1;
        if (len > NSS_GRCACHE_MAX_BYTES) {
            return NULL;
        }
    }
    buf = talloc_size(mem_ctx, len > 0 ? len : 1);
    for (i = 0, len = 0; buf != NULL && i < gr->num_members; i++) {
        n = strlen(gr->members[i]) + 1;
        memcpy(buf + len, gr->members[i], n);
        len += n;
    }
    *_len = len;
    return buf;
}

void nss_grcache_put(struct nss_grcache *c, struct resp_domain *dom,
                     const struct sysdb_group *group, uint64_t gen,
                     const struct nss_gr_entry *gr)
{
    struct nss_grcache_slot *s;
    struct nss_grcache_slot new = { 0 };
    const char **members;
    size_t off = 0;
    size_t len = 0;
    char *packed;
    size_t i;

    if (c == NULL || gen == 0 || group == NULL || group->name == NULL || gr == NULL
            || gr->num_members < NSS_GRCACHE_MIN_MEMBERS
            || (gr->packed != NULL && gr->packed_len > NSS_GRCACHE_MAX_BYTES)) {
        return;
    }
    new.mem = talloc_new(c);
    if (new.mem == NULL) {
        return;
    }
    packed = nss_grcache_pack(new.mem, gr, &len);
    members = talloc_array(new.mem, const char *, gr->num_members + 1);
    new.group_name = talloc_strdup(new.mem, group->name);
    new.gr.name = talloc_strdup(new.mem, gr->name);
    if (packed == NULL || members == NULL || new.group_name == NULL || new.gr.name == NULL) {
        talloc_free(new.mem);
        return;
    }
    for (i = 0; i < gr->num_members; i++) {
        members[i] = packed + off;
        off += strlen(packed + off) + 1;
    }
    members[gr->num_members] = NULL;
    new.dom = dom;
    new.gid = group->gid;
    new.gen = gen;
    new.used = ++c->clock;
    new.gr.gid = gr->gid;
    new.gr.members = members;
    new.gr.num_members = gr->num_members;
    new.gr.packed = packed;
    new.gr.packed_len = len;

    /* The same group read at another generation, else an empty slot, else the oldest. */
    s = &c->slot[0];
    for (i = 0; i < NSS_GRCACHE_SLOTS; i++) {
        if (c->slot[i].mem != NULL && c->slot[i].dom == dom && c->slot[i].gid == group->gid) {
            s = &c->slot[i];
            break;
        }
        if (c->slot[i].mem == NULL || (s->mem != NULL && c->slot[i].used < s->used)) {
            s = &c->slot[i];
        }
    }
    talloc_free(s->mem);
    *s = new;
}
