/*
 * The carried form of a user the back-end answers with before storing it (see
 * sysdb_reply_user_first in sysdb_reply.h): made from the user the store will write as
 * the read of its entry gives it back (sysdb_user_write_form), so it is byte for byte what
 * the read after the commit gives (test_sysdb_reply_store checks that), and tagged with
 * the generation the commit makes (the next one: we hold the write lock). The entry
 * itself is built by the store, after the answer.
 */
#include "config.h"

#include "db/sysdb_private.h"
#include "db/sysdb_reply.h"

errno_t sysdb_reply_user_first(struct sysdb_ctx *sysdb, const struct sysdb_reply_key *key,
                               struct sysdb_user_write *w, uint64_t *_gen,
                               const void **_blob, size_t *_len)
{
    char keybuf[SYSDB_KEY_ROOM];
    struct sysdb_rc_key rk;
    const void *blob = NULL;
    size_t len = 0;
    uint64_t gen;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && key != NULL && w != NULL, EINVAL);
    SSS_CHECK_ARG(_gen != NULL && _blob != NULL && _len != NULL, EINVAL);
    if (key->kind != SYSDB_RC_USER_NAME && key->kind != SYSDB_RC_USER_UID) {
        return ENOTSUP;
    }
    /* Only under our write lock is the generation of the last commit the one the
     * database keeps until our commit. */
    if (sysdb->tx_depth == 0) {
        return ENOTSUP;
    }
    gen = sysdb_rcache_gen_committed(sysdb);
    if (gen == 0) {
        return ENOTSUP;
    }
    ret = sysdb_reply_rc_key(sysdb, key, keybuf, &rk);
    if (ret != EOK) {
        return ret == EINVAL ? ENOTSUP : ret;
    }
    ret = sysdb_user_write_form(sysdb, w, &blob, &len);
    if (ret != EOK) {
        return ret;
    }
    /* A responder refusing it would read ldb before our commit: carry only what it takes.
     * A name that is not the stored entry's (another spelling in a case-sensitive cache)
     * is not found by the read either: that reply is the store-first one. */
    if (len > SYSDB_RCACHE_MAX_ENTRY || !sysdb_reply_blob_ok(sysdb, &rk, blob, len)) {
        return ENOTSUP;
    }
    /* The generation our commit makes: what the entry is once it is in ldb. */
    *_gen = gen + 1;
    *_blob = blob;
    *_len = len;
    return EOK;
}
