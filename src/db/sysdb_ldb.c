/*
 * sysdb ldb plumbing shared by the user and group code: every ldb request goes through
 * here (with the event-context workaround below), nested transactions, plus DNs, reads,
 * index searches, add-or-modify, uid/gid takeover, deletes and expiry. Building and
 * reading messages is in sysdb_msg.c.
 */
#include "config.h"

#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/sysdb_private.h"
#include "util/probes.h"

/* The indexed form of an id: multiplying by an odd constant is a bijection on 32 bits (ids
 * stay unique) that scatters consecutive ids; fixed-width hex. */
void sysdb_id_idx_value(uint32_t id, char out[9])
{
    snprintf(out, 9, "%08" PRIx32, (uint32_t)(id * 0x9E3779B1u));
}

/* LMDB's key limit: tdb caches get the same limit, so no entry fits one back-end only. */
#define SYSDB_MDB_KEY_MAX 511

/*
 * ldb's tdb and mdb back-ends give every request a private event context made with
 * tevent_context_init(), i.e. the process's default tevent back-end: epoll, one epoll fd
 * created and closed per lookup (a third of a lookup's time). Requests only run a zero
 * timer on that context, so during our own ldb calls the default is switched to "poll",
 * which needs no file descriptor, and restored afterwards. Nothing else runs in between
 * (ldb calls are synchronous and the daemons single-threaded); no code of ours sets a
 * process default, so restoring means unsetting it.
 */
void sysdb_ldb_enter(void)
{
    tevent_set_default_backend("poll");
}

void sysdb_ldb_leave(void)
{
    tevent_set_default_backend(NULL);
}

int sysdb_ldb_add(struct sysdb_ctx *sysdb, const struct ldb_message *msg)
{
    int lret;

    sysdb_ldb_enter();
    lret = ldb_add(sysdb->ldb, msg);
    sysdb_ldb_leave();
    if (sysdb->pending_base != 0) {
        sysdb_pending_written(sysdb, msg->dn, msg, true);
    }
    if (sysdb->gid_holders != NULL) {
        sysdb_gid_holders_written(sysdb, msg->dn, msg);
    }
    return lret;
}

static int sysdb_ldb_modify(struct sysdb_ctx *sysdb, const struct ldb_message *msg)
{
    int lret;

    sysdb_ldb_enter();
    lret = ldb_modify(sysdb->ldb, msg);
    sysdb_ldb_leave();
    if (sysdb->pending_base != 0) {
        sysdb_pending_written(sysdb, msg->dn, msg, false);
    }
    if (sysdb->gid_holders != NULL) {
        sysdb_gid_holders_written(sysdb, msg->dn, msg);
    }
    return lret;
}

int sysdb_ldb_delete(struct sysdb_ctx *sysdb, struct ldb_dn *dn)
{
    int lret;

    sysdb_ldb_enter();
    lret = ldb_delete(sysdb->ldb, dn);
    sysdb_ldb_leave();
    if (sysdb->pending_base != 0) {
        sysdb_pending_written(sysdb, dn, NULL, false);
    }
    if (sysdb->gid_holders != NULL) {
        sysdb_gid_holders_written(sysdb, dn, NULL);
    }
    return lret;
}

errno_t sysdb_ldb_error(struct sysdb_ctx *sysdb, int lret, const char *what)
{
    switch (lret) {
    case LDB_SUCCESS:
        return EOK;
    case LDB_ERR_NO_SUCH_OBJECT:
        return ENOENT;
    case LDB_ERR_ENTRY_ALREADY_EXISTS:
        return EEXIST;
    default:
        break;
    }
    DEBUG(SSSDBG_OP_FAILURE, "%s failed on %s: %s (%d): %s\n", what,
          sysdb->path, ldb_strerror(lret), lret, ldb_errstring(sysdb->ldb));
    return EIO;
}

/* ---- nested transactions ---- */

errno_t sysdb_transaction_start(struct sysdb_ctx *sysdb)
{
    int lret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    assert(sysdb->tx_depth < UINT_MAX);
    if (sysdb->tx_depth == 0) {
        assert(!sysdb->tx_doomed);
        lret = ldb_transaction_start(sysdb->ldb);
        if (lret != LDB_SUCCESS) {
            return sysdb_ldb_error(sysdb, lret, "Transaction start");
        }
        sysdb->tx_doomed = false;
        sysdb_pending_begin(sysdb);
        /* After the start: begin marks the moment the write lock is held. */
        PROBE(SYSDB_TXN_BEGIN, sss_debug_req_id, sysdb->domain);
    }
    sysdb->tx_depth++;
    return EOK;
}

/* Closes one level of the open transaction. Inner levels only count down (a cancel dooms
 * the whole); the outermost commits, or cancels when asked or doomed (then a commit
 * returns EIO). EINVAL (logged) when none is open. */
static errno_t sysdb_transaction_close(struct sysdb_ctx *sysdb, bool commit)
{
    int lret;
    errno_t ret;

    if (sysdb->tx_depth == 0) {
        DEBUG(SSSDBG_CRIT_FAILURE, "%s without a transaction\n", commit ? "Commit" : "Cancel");
        return EINVAL;
    }
    sysdb->tx_depth--;
    sysdb->tx_doomed |= !commit;
    sysdb_gid_holders_closed(sysdb);
    if (sysdb->tx_depth > 0) {
        return EOK;
    }
    if (!sysdb->tx_doomed) {
        lret = ldb_transaction_commit(sysdb->ldb);
        ret = sysdb_ldb_error(sysdb, lret, "Transaction commit");
        sysdb_pending_end(sysdb, ret == EOK);
        PROBE(SYSDB_TXN_COMMIT, sss_debug_req_id, sysdb->domain, ret);
        return ret;
    }
    sysdb->tx_doomed = false;
    sysdb_pending_end(sysdb, false);
    if (commit) {
        DEBUG(SSSDBG_OP_FAILURE, "An inner transaction was cancelled: cancelling all\n");
        ldb_transaction_cancel(sysdb->ldb);
        PROBE(SYSDB_TXN_COMMIT, sss_debug_req_id, sysdb->domain, EIO);
        return EIO;
    }
    lret = ldb_transaction_cancel(sysdb->ldb);
    PROBE(SYSDB_TXN_CANCEL, sss_debug_req_id, sysdb->domain);
    return sysdb_ldb_error(sysdb, lret, "Transaction cancel");
}

errno_t sysdb_transaction_commit(struct sysdb_ctx *sysdb)
{
    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    return sysdb_transaction_close(sysdb, true);
}

errno_t sysdb_transaction_cancel(struct sysdb_ctx *sysdb)
{
    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    return sysdb_transaction_close(sysdb, false);
}

errno_t sysdb_transaction_end(struct sysdb_ctx *sysdb, errno_t ret)
{
    errno_t cret;

    if (ret == EOK) {
        return sysdb_transaction_commit(sysdb);
    }
    cret = sysdb_transaction_cancel(sysdb);
    if (cret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cancel after %s failed: %s\n", sss_strerror(ret),
              sss_strerror(cret));
    }
    return ret;
}

/* ---- entries ---- */

errno_t sysdb_entry_dn(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, enum sysdb_kind kind,
                       const char *key, struct ldb_dn **_dn)
{
    struct ldb_dn *dn;
    struct ldb_val val;
    const char *folded;
    size_t len = strlen(key);

    /* Every key ends in "@domain" (sysdb_name_write); the file is the domain's. */
    if (len <= sysdb->domain_len + 1 || key[len - sysdb->domain_len - 1] != '@') {
        DEBUG(SSSDBG_CRIT_FAILURE, "Not a key of domain %s: %s\n", sysdb->domain, key);
        return EINVAL;
    }
    dn = ldb_dn_copy(mem_ctx, sysdb->base_dn[kind]);
    if (dn == NULL) {
        return ENOMEM;
    }
    val.data = (uint8_t *)discard_const(key);
    val.length = len - sysdb->domain_len - 1;
    if (!ldb_dn_add_child_val(dn, SYSDB_A_NAME, val)) {
        talloc_free(dn);
        return ENOMEM;
    }
    folded = ldb_dn_get_casefold(dn);
    if (folded == NULL) {
        talloc_free(dn);
        return ENOMEM;
    }
    if (sizeof("DN=") + strlen(folded) > SYSDB_MDB_KEY_MAX) {
        /* Escaping triples some characters: only such names get here. */
        DEBUG(SSSDBG_OP_FAILURE, "Name %s is too long for a cache key once escaped\n", key);
        talloc_free(dn);
        return EINVAL;
    }
    *_dn = dn;
    return EOK;
}

const char *sysdb_msg_name(struct sysdb_ctx *sysdb, struct ldb_message *msg)
{
    const struct ldb_val *rdn;
    const char *name;
    char *joined;

    name = sysdb_msg_str(msg, SYSDB_A_NAME);
    if (name != NULL) {
        return name;
    }
    rdn = ldb_dn_get_rdn_val(msg->dn);
    if (rdn == NULL || rdn->length == 0 || rdn->length > SYSDB_KEY_ROOM
            || memchr(rdn->data, '\0', rdn->length) != NULL) {
        return NULL;
    }
    /* The key's domain form: the stored one whenever no name attribute was written. */
    joined = talloc_asprintf(msg, "%.*s@%s", (int)rdn->length, (const char *)rdn->data,
                             sysdb->case_mode == SYSDB_CASE_SENSITIVE ? sysdb->domain
                                                                      : sysdb->domain_lc);
    return joined;
}

const char *sysdb_name_attr(const char *stored, const char *key)
{
    return strcmp(stored, key) == 0 ? NULL : stored;
}

errno_t sysdb_read_entry(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, struct ldb_dn *dn,
                         const char *const *attrs, struct ldb_message **_msg)
{
    struct ldb_result *res = NULL;
    int lret;
    errno_t ret;

    sysdb_ldb_enter();
    lret = ldb_search(sysdb->ldb, mem_ctx, &res, dn, LDB_SCOPE_BASE,
                      discard_const_p(const char *, attrs), NULL);
    sysdb_ldb_leave();
    if (lret != LDB_SUCCESS) {
        ret = sysdb_ldb_error(sysdb, lret, "Base search");
        goto done;
    }
    if (res->count == 0) {
        ret = ENOENT;
        goto done;
    }
    if (res->count != 1) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Base search returned %u entries\n", res->count);
        ret = EIO;
        goto done;
    }
    *_msg = talloc_steal(mem_ctx, res->msgs[0]);
    ret = EOK;

done:
    talloc_free(res);
    return ret;
}

/* One ldb search (filter NULL: every entry in scope); a base that does not exist (a
 * container nothing was stored in yet) holds nothing. */
static errno_t sysdb_search_base(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                 struct ldb_dn *base, enum ldb_scope scope,
                                 const char *filter, const char *const *attrs,
                                 struct ldb_message ***_msgs, size_t *_count)
{
    struct ldb_result *res = NULL;
    int lret;

    sysdb_ldb_enter();
    lret = ldb_search(sysdb->ldb, mem_ctx, &res, base, scope,
                      discard_const_p(const char *, attrs), filter != NULL ? "%s" : NULL,
                      filter);
    sysdb_ldb_leave();
    if (lret == LDB_ERR_NO_SUCH_OBJECT && base != NULL) {
        *_msgs = NULL;
        *_count = 0;
        return EOK;
    }
    if (lret != LDB_SUCCESS) {
        return sysdb_ldb_error(sysdb, lret, "Search");
    }
    *_count = res->count;
    *_msgs = talloc_steal(mem_ctx, res->msgs);
    talloc_free(res);
    return EOK;
}

errno_t sysdb_search_filter(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                            const char *filter, const char *const *attrs,
                            struct ldb_message ***_msgs, size_t *_count)
{
    /* No base: one cache holds one domain, and the root search skips ldb's check that the
     * base entry exists. An indexed filter term picks the candidates; without one ldb scans
     * every record. */
    return sysdb_search_base(mem_ctx, sysdb, NULL, LDB_SCOPE_SUBTREE, filter, attrs, _msgs,
                             _count);
}

/* The entries of kind holding id (one index lookup on its scrambled form; uidx is only on
 * users and gidx only on groups); count may be 0. */
static errno_t sysdb_search_id(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               enum sysdb_kind kind, uint32_t id, const char *const *attrs,
                               struct ldb_message ***_msgs, size_t *_count)
{
    char value[9];
    char filter[32];

    sysdb_id_idx_value(id, value);
    snprintf(filter, sizeof(filter), "(%s=%s)", sysdb_kinds[kind].id_idx_attr, value);
    return sysdb_search_filter(mem_ctx, sysdb, filter, attrs, _msgs, _count);
}

errno_t sysdb_search_by_id(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, enum sysdb_kind kind,
                           uint32_t id, const char *const *attrs, struct ldb_message **_msg)
{
    struct ldb_message **msgs;
    size_t count;
    errno_t ret;

    /* The array holds the messages: the one kept is stolen out of it before it goes. */
    ret = sysdb_search_id(NULL, sysdb, kind, id, attrs, &msgs, &count);
    if (ret != EOK) {
        return ret;
    }
    if (count > 1) {
        DEBUG(SSSDBG_MINOR_FAILURE, "%zu %s entries hold %s %" PRIu32 "; using the first\n",
              count, sysdb_kinds[kind].name, sysdb_kinds[kind].id_attr, id);
    }
    if (count == 0) {
        ret = ENOENT;
    } else {
        *_msg = talloc_steal(mem_ctx, msgs[0]);
    }
    talloc_free(msgs);
    return ret;
}

errno_t sysdb_search_all(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, enum sysdb_kind kind,
                         const char *const *attrs, struct ldb_message ***_msgs,
                         size_t *_count)
{
    /* Every user has a uid and every group a gid, and only they do (a full scan: ldb does
     * not index presence). A kind without ids: a one-level scan of its container. */
    char filter[16];

    if (sysdb_kinds[kind].id_attr == NULL) {
        return sysdb_search_base(mem_ctx, sysdb, sysdb->base_dn[kind], LDB_SCOPE_ONELEVEL,
                                 NULL, attrs, _msgs, _count);
    }
    snprintf(filter, sizeof(filter), "(%s=*)", sysdb_kinds[kind].id_attr);
    return sysdb_search_filter(mem_ctx, sysdb, filter, attrs, _msgs, _count);
}

/* Adds a copy of msg: plain elements, the empty ones (attributes to clear) dropped, and a
 * guid for mdb. msg itself stays usable for a modify. */
static int sysdb_add_entry(struct sysdb_ctx *sysdb, const struct ldb_message *msg)
{
    struct ldb_message *add;
    uint8_t guid[16];
    unsigned int i;
    int lret;

    add = ldb_msg_new(NULL);
    if (add == NULL) {
        return LDB_ERR_OPERATIONS_ERROR;
    }
    add->dn = msg->dn;
    add->elements = talloc_array(add, struct ldb_message_element, msg->num_elements + 1);
    if (add->elements == NULL) {
        talloc_free(add);
        return LDB_ERR_OPERATIONS_ERROR;
    }
    for (i = 0; i < msg->num_elements; i++) {
        if (msg->elements[i].num_values == 0) {
            continue;
        }
        add->elements[add->num_elements] = msg->elements[i];
        add->elements[add->num_elements].flags = 0;
        add->num_elements++;
    }
    if (sysdb->backend == SYSDB_BACKEND_MDB) {
        /* Big-endian counter: a process's new records sort in creation order, so LMDB
         * appends them at the end of a page and splits pages unevenly (full pages behind
         * the insertion point) instead of halving pages across the key space. */
        memcpy(guid, sysdb->guid_prefix, 8);
        sysdb->guid_counter++;
        for (i = 0; i < 8; i++) {
            guid[8 + i] = (uint8_t)(sysdb->guid_counter >> (56 - 8 * i));
        }
        lret = ldb_msg_add_value(add, SYSDB_A_GUID,
                                 &(struct ldb_val){ .data = guid, .length = 16 }, NULL);
        if (lret != LDB_SUCCESS) {
            talloc_free(add);
            return lret;
        }
    }
    lret = sysdb_ldb_add(sysdb, add);
    talloc_free(add);
    return lret;
}

errno_t sysdb_write_unique(struct sysdb_ctx *sysdb, struct ldb_message *msg)
{
    int lret;

    assert(sysdb->tx_depth > 0);
    /* A modify first: on a missing entry it fails at the DN lookup, before any write,
     * where a failed add would have written the record and its indexes and undone them. */
    lret = sysdb_ldb_modify(sysdb, msg);
    if (lret == LDB_ERR_NO_SUCH_OBJECT) {
        lret = sysdb_add_entry(sysdb, msg);
    }
    if (lret == LDB_ERR_ENTRY_ALREADY_EXISTS || lret == LDB_ERR_CONSTRAINT_VIOLATION) {
        return EEXIST;      /* ldb undid the operation (a sub-transaction) */
    }
    return sysdb_ldb_error(sysdb, lret, "Write");
}

errno_t sysdb_write_entry(struct sysdb_ctx *sysdb, struct ldb_message *msg,
                          enum sysdb_exists exists)
{
    int lret;

    assert(sysdb->tx_depth > 0);

    if (exists != SYSDB_EXISTS_YES) {
        lret = sysdb_add_entry(sysdb, msg);
        if (lret != LDB_ERR_ENTRY_ALREADY_EXISTS || exists == SYSDB_EXISTS_NO) {
            return sysdb_ldb_error(sysdb, lret, "Add");
        }
        /* ldb undoes the failed add (each operation is a sub-transaction). */
    }
    lret = sysdb_ldb_modify(sysdb, msg);
    return sysdb_ldb_error(sysdb, lret, "Modify");
}

errno_t sysdb_delete_holders(struct sysdb_ctx *sysdb, enum sysdb_kind kind, uint32_t id,
                             struct ldb_message **msgs, size_t count,
                             struct ldb_dn *keep_dn, bool *_kept,
                             struct ldb_message **_kept_msg)
{
    struct ldb_message *kept_msg = NULL;
    size_t i;
    int lret;

    assert(sysdb->tx_depth > 0);    /* the deletes and the write that follows are one */
    for (i = 0; i < count; i++) {
        if (ldb_dn_compare(msgs[i]->dn, keep_dn) == 0) {
            kept_msg = msgs[i];
            continue;
        }
        DEBUG(SSSDBG_TRACE_FUNC, "%s %s=%" PRIu32 " now belongs to another name: deleting %s\n",
              sysdb_kinds[kind].name, sysdb_kinds[kind].id_attr, id,
              ldb_dn_get_linearized(msgs[i]->dn));
        lret = sysdb_ldb_delete(sysdb, msgs[i]->dn);
        if (lret != LDB_SUCCESS) {
            return sysdb_ldb_error(sysdb, lret, "Delete");
        }
    }
    *_kept = kept_msg != NULL;
    if (_kept_msg != NULL) {
        *_kept_msg = kept_msg;
    }
    return EOK;
}

errno_t sysdb_delete_conflicts(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               enum sysdb_kind kind, uint32_t id,
                               struct ldb_dn *keep_dn, bool *_kept,
                               struct ldb_message **_kept_msg)
{
    TALLOC_CTX *tmp_ctx;
    const char *attrs[] = { SYSDB_A_NAME, SYSDB_A_ORIG_DN, SYSDB_A_SID, NULL }; /* + the DN */
    struct ldb_message *kept_msg = NULL;
    struct ldb_message **msgs;
    size_t count;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_search_id(tmp_ctx, sysdb, kind, id, attrs, &msgs, &count);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_delete_holders(sysdb, kind, id, msgs, count, keep_dn, _kept, &kept_msg);
    if (ret == EOK && _kept_msg != NULL) {
        *_kept_msg = kept_msg != NULL ? talloc_steal(mem_ctx, kept_msg) : NULL;
    }

done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_delete_by_name(struct sysdb_ctx *sysdb, enum sysdb_kind kind, const char *name)
{
    struct ldb_dn *dn;
    int lret;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(name != NULL, EINVAL);
    ret = sysdb_name_dn(NULL, sysdb, kind, name, &dn);
    if (ret != EOK) {
        return ret;
    }
    lret = sysdb_ldb_delete(sysdb, dn);
    talloc_free(dn);
    return sysdb_ldb_error(sysdb, lret, "Delete");
}

/* Sets the expiry attributes of one entry to SYSDB_EXPIRED_TS (initgroups list only when
 * the entry has one). */
static errno_t sysdb_expire_msg(struct sysdb_ctx *sysdb, struct ldb_message *entry)
{
    struct ldb_message *msg;
    int lret;
    errno_t ret;

    assert(sysdb->tx_depth > 0);
    msg = ldb_msg_new(NULL);
    if (msg == NULL) {
        return ENOMEM;
    }
    msg->dn = entry->dn;
    ret = sysdb_msg_set_num(msg, SYSDB_A_EXPIRE, SYSDB_EXPIRED_TS);
    if (ret != EOK) {
        goto done;
    }
    if (ldb_msg_find_element(entry, SYSDB_A_INITGR_EXPIRE) != NULL) {
        ret = sysdb_msg_set_num(msg, SYSDB_A_INITGR_EXPIRE, SYSDB_EXPIRED_TS);
        if (ret != EOK) {
            goto done;
        }
    }
    lret = sysdb_ldb_modify(sysdb, msg);
    ret = sysdb_ldb_error(sysdb, lret, "Modify");

done:
    talloc_free(msg);
    return ret;
}

/* What sysdb_expire_msg() needs of an entry (and the DN, always there). */
static const char *const sysdb_expire_attrs[] = { SYSDB_A_INITGR_EXPIRE, NULL };

/* Inside the transaction of sysdb_expire_by_name(): reads the entry, then expires it. */
static errno_t sysdb_expire_dn(struct sysdb_ctx *sysdb, struct ldb_dn *dn)
{
    struct ldb_message *entry;
    errno_t ret;

    ret = sysdb_read_entry(NULL, sysdb, dn, sysdb_expire_attrs, &entry);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_expire_msg(sysdb, entry);
    talloc_free(entry);
    return ret;
}

/* Inside the transaction of sysdb_expire_all(): every entry of kind. */
static errno_t sysdb_expire_kind(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                 enum sysdb_kind kind)
{
    struct ldb_message **msgs;
    size_t count;
    size_t i;
    errno_t ret;

    ret = sysdb_search_all(mem_ctx, sysdb, kind, sysdb_expire_attrs, &msgs, &count);
    if (ret != EOK) {
        return ret;
    }
    for (i = 0; i < count; i++) {
        ret = sysdb_expire_msg(sysdb, msgs[i]);
        if (ret != EOK) {
            return ret;
        }
    }
    return EOK;
}

errno_t sysdb_expire_by_name(struct sysdb_ctx *sysdb, enum sysdb_kind kind, const char *name)
{
    struct ldb_dn *dn;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(name != NULL, EINVAL);
    ret = sysdb_name_dn(NULL, sysdb, kind, name, &dn);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_expire_dn(sysdb, dn);
    ret = sysdb_transaction_end(sysdb, ret);

done:
    talloc_free(dn);
    return ret;
}

errno_t sysdb_expire_all(struct sysdb_ctx *sysdb, enum sysdb_kind kind)
{
    TALLOC_CTX *tmp_ctx;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_expire_kind(tmp_ctx, sysdb, kind);
    ret = sysdb_transaction_end(sysdb, ret);

done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_msg_set_id(struct ldb_message *msg, enum sysdb_kind kind, uint32_t id)
{
    char *idx;
    errno_t ret;

    ret = sysdb_msg_set_num(msg, sysdb_kinds[kind].id_attr, id);
    if (ret != EOK) {
        return ret;
    }
    idx = talloc_size(msg, 9);
    if (idx == NULL) {
        return ENOMEM;
    }
    sysdb_id_idx_value(id, idx);
    return sysdb_msg_set_str(msg, sysdb_kinds[kind].id_idx_attr, idx);
}
