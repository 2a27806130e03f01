/*
 * sysdb pending entries: the writer fills its own read cache at commit with what it stored,
 * so that its first read of a just-stored key (sysdb_reply_get(), the entry the back-end
 * carries in its reply) is a hit instead of an ldb search.
 *
 * A store records the entry it wrote, flattened from its message through the same view a
 * read uses (the message holds every attribute the view reads), with the keys a lookup
 * would use; an initgroups store adds its list to the user's flat entry. Every later
 * write in the same transaction drops what it may change: any write to the entry's DN
 * (except a modify of only the group-list attributes, which a user's view does not read),
 * and any add drops the id keys (a new entry could hold the id). An initgroups store of a
 * user not stored in the transaction takes the user's part from the read cache as of the
 * transaction's start, when no user entry changed since.
 * At the outermost commit the records are cached at the commit's generation, but only when
 * that generation is exactly the one after the generation read while our write
 * transaction held the lock: then the database at that generation is our transaction's
 * result and nobody else's. Anything else (a cancel, another commit in between, no cache)
 * drops them: the reader falls back to ldb.
 */
#include "config.h"

#include <assert.h>

#include "db/sysdb_private.h"

/* Enough for one lookup's stores (user, its private group, its group list); past it
 * nothing more is recorded (the cache is only an accelerator). */
#define SYSDB_PENDING_MAX 16

struct sysdb_pending {
    struct sysdb_pending *next;
    struct ldb_dn *dn;
    void *blob;                     /* the flat entry, as a read would cache it */
    size_t blob_len;
    enum sysdb_rc_kind name_kind;
    char *name;                     /* key form, name_len bytes */
    size_t name_len;
    enum sysdb_rc_kind id_kind;
    uint32_t id;
    bool has_id;
};

void sysdb_pending_begin(struct sysdb_ctx *sysdb)
{
    assert(sysdb->pending_ctx == NULL);
    sysdb->pending = NULL;
    sysdb->pending_count = 0;
    sysdb->pending_users_written = false;
    sysdb->pending_base = sysdb_rcache_gen_committed(sysdb);
}

static void sysdb_pending_publish(struct sysdb_ctx *sysdb, uint64_t gen)
{
    struct sysdb_pending *p;
    struct sysdb_rc_key rk;

    for (p = sysdb->pending; p != NULL; p = p->next) {
        rk = (struct sysdb_rc_key){ .kind = p->name_kind, .name = p->name,
                                    .len = p->name_len };
        sysdb_rcache_put(sysdb, &rk, gen, p->blob, p->blob_len);
        if (p->has_id) {
            rk = (struct sysdb_rc_key){ .kind = p->id_kind, .id = p->id };
            sysdb_rcache_put(sysdb, &rk, gen, p->blob, p->blob_len);
        }
    }
}

void sysdb_pending_end(struct sysdb_ctx *sysdb, bool committed)
{
    uint64_t gen;

    if (sysdb->pending != NULL && committed && sysdb->pending_base != 0) {
        gen = sysdb_rcache_gen(sysdb);
        if (gen == sysdb->pending_base + 1) {
            sysdb_pending_publish(sysdb, gen);
        }
    }
    talloc_free(sysdb->pending_ctx);
    sysdb->pending_ctx = NULL;
    sysdb->pending = NULL;
    sysdb->pending_count = 0;
    sysdb->pending_base = 0;
}

/* A modify of nothing but the user's group-list attributes. */
static bool sysdb_pending_lists_only(const struct ldb_message *mod)
{
    static const char *const lists[] = {
        SYSDB_A_INITGR_NAMES, SYSDB_A_INITGR_GIDS, SYSDB_A_INITGR_UPDATE,
        SYSDB_A_INITGR_EXPIRE, NULL
    };
    unsigned int i;
    size_t j;

    for (i = 0; i < mod->num_elements; i++) {
        for (j = 0; lists[j] != NULL; j++) {
            if (ldb_attr_cmp(mod->elements[i].name, lists[j]) == 0) {
                break;
            }
        }
        if (lists[j] == NULL) {
            return false;
        }
    }
    return true;
}

void sysdb_pending_written(struct sysdb_ctx *sysdb, struct ldb_dn *dn,
                           const struct ldb_message *mod, bool add)
{
    struct sysdb_pending **pp = &sysdb->pending;
    struct sysdb_pending *p;
    bool lists_only = mod != NULL && !add && sysdb_pending_lists_only(mod);

    if (!lists_only && !sysdb->pending_users_written
            && ldb_dn_compare_base(sysdb->base_dn[SYSDB_KIND_USER], dn) == 0) {
        sysdb->pending_users_written = true;
    }
    while ((p = *pp) != NULL) {
        if (ldb_dn_compare(p->dn, dn) == 0
                && !(lists_only && p->name_kind == SYSDB_RC_USER_NAME)) {
            *pp = p->next;
            talloc_free(p);
            continue;
        }
        if (add) {
            p->has_id = false;
        }
        pp = &p->next;
    }
}

/* A shallow copy of msg as a read would return it: the empty elements (attributes the
 * write cleared) left out; the values stay msg's. */
struct ldb_message *sysdb_msg_as_read(TALLOC_CTX *mem_ctx, const struct ldb_message *msg)
{
    struct ldb_message *copy;
    unsigned int i;

    copy = ldb_msg_copy_shallow(mem_ctx, msg);
    if (copy == NULL) {
        return NULL;
    }
    for (i = 0; i < copy->num_elements; ) {
        if (copy->elements[i].num_values == 0) {
            ldb_msg_remove_element(copy, &copy->elements[i]);
            continue;
        }
        i++;
    }
    return copy;
}

static struct sysdb_pending *sysdb_pending_new(struct sysdb_ctx *sysdb,
                                               enum sysdb_rc_kind name_kind, const char *name,
                                               struct ldb_dn *dn)
{
    char keybuf[SYSDB_KEY_ROOM];
    struct sysdb_pending *p;
    struct sysdb_rc_key rk;
    errno_t ret;

    if (sysdb->pending_base == 0 || sysdb->pending_count == SYSDB_PENDING_MAX) {
        return NULL;
    }
    ret = sysdb_rc_name_key(sysdb, name_kind, name, keybuf, &rk);
    if (ret != EOK) {
        return NULL;
    }
    if (sysdb->pending_ctx == NULL) {
        sysdb->pending_ctx = talloc_new(sysdb);
        if (sysdb->pending_ctx == NULL) {
            return NULL;
        }
    }
    p = talloc_zero(sysdb->pending_ctx, struct sysdb_pending);
    if (p == NULL) {
        return NULL;
    }
    p->name = talloc_memdup(p, rk.name, rk.len);
    p->dn = ldb_dn_copy(p, dn);
    if (p->name == NULL || p->dn == NULL) {
        talloc_free(p);
        return NULL;
    }
    p->name_kind = name_kind;
    p->name_len = rk.len;
    return p;
}

static void sysdb_pending_link(struct sysdb_ctx *sysdb, struct sysdb_pending *p)
{
    p->next = sysdb->pending;
    sysdb->pending = p;
    sysdb->pending_count++;
}

void sysdb_pending_entry(struct sysdb_ctx *sysdb, const struct sysdb_flat_view *view,
                         enum sysdb_rc_kind name_kind, const char *name,
                         enum sysdb_rc_kind id_kind, uint32_t id, const struct ldb_message *msg)
{
    struct sysdb_pending *p;
    struct ldb_message *copy;
    TALLOC_CTX *tmp_ctx;
    errno_t ret;

    assert(sysdb->tx_depth > 0);
    p = sysdb_pending_new(sysdb, name_kind, name, msg->dn);
    tmp_ctx = talloc_new(NULL);
    if (p == NULL || tmp_ctx == NULL) {
        goto fail;
    }
    /* The flatten takes the copy over; the values it copies stay the store's. */
    copy = sysdb_msg_as_read(tmp_ctx, msg);
    if (copy == NULL) {
        goto fail;
    }
    ret = view->flatten(tmp_ctx, sysdb, copy, &p->blob, &p->blob_len);
    if (ret != EOK) {
        goto fail;      /* too big for the cache (E2BIG): a read keeps it elsewhere */
    }
    talloc_steal(p, p->blob);
    talloc_free(tmp_ctx);
    p->id_kind = id_kind;
    p->id = id;
    p->has_id = true;
    sysdb_pending_link(sysdb, p);
    return;

fail:
    talloc_free(tmp_ctx);
    talloc_free(p);
}

void sysdb_pending_entry_flat(struct sysdb_ctx *sysdb, enum sysdb_rc_kind name_kind,
                              const char *name, enum sysdb_rc_kind id_kind, uint32_t id,
                              struct ldb_dn *dn, const void *blob, size_t len)
{
    struct sysdb_pending *p;

    assert(sysdb->tx_depth > 0);
    p = sysdb_pending_new(sysdb, name_kind, name, dn);
    if (p == NULL) {
        return;
    }
    p->blob = talloc_memdup(p, blob, len);
    if (p->blob == NULL) {
        talloc_free(p);
        return;
    }
    p->blob_len = len;
    p->id_kind = id_kind;
    p->id = id;
    p->has_id = true;
    sysdb_pending_link(sysdb, p);
}

/* The initgroups entry of user: the list attributes written (lists) and the user's flat
 * entry, from its record in this transaction or else from the read cache as of the
 * transaction's start, if no user entry changed since (else nothing is recorded). */
void sysdb_pending_initgr(struct sysdb_ctx *sysdb, const char *user,
                          const struct ldb_message *lists)
{
    char keybuf[SYSDB_KEY_ROOM];
    struct sysdb_pending *u;
    struct sysdb_pending *p;
    struct ldb_message *copy;
    struct sysdb_rc_key rk;
    const void *ublob = NULL;
    size_t ulen = 0;
    errno_t ret;

    assert(sysdb->tx_depth > 0);
    for (u = sysdb->pending; u != NULL; u = u->next) {
        if (u->name_kind == SYSDB_RC_USER_NAME && ldb_dn_compare(u->dn, lists->dn) == 0) {
            ublob = u->blob;
            ulen = u->blob_len;
            break;
        }
    }
    if (u == NULL && !sysdb->pending_users_written
            && sysdb_rc_name_key(sysdb, SYSDB_RC_USER_NAME, user, keybuf, &rk) == EOK
            && !sysdb_rcache_get(sysdb, &rk, sysdb->pending_base, &ublob, &ulen)) {
        ublob = NULL;
    }
    if (ublob == NULL) {
        return;
    }
    p = sysdb_pending_new(sysdb, SYSDB_RC_INITGR, user, lists->dn);
    if (p == NULL) {
        return;
    }
    copy = sysdb_msg_as_read(p, lists);
    if (copy == NULL) {
        talloc_free(p);
        return;
    }
    ret = sysdb_initgr_blob(p, copy, ublob, ulen, &p->blob, &p->blob_len);
    if (ret != EOK) {
        talloc_free(p);
        return;
    }
    sysdb_pending_link(sysdb, p);
}
