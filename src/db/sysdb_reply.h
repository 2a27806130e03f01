/*
 * sysdb reply entries: a lookup result carried from the back-end, which just wrote it, to
 * a responder, which would otherwise read it back from ldb (issue 18: the cold lookup's
 * round trip). The carried form is the read cache's own (sysdb_rcache.h): the flat blob
 * a read of the same key at the same database generation produces, tagged with that
 * generation (the LMDB transaction id of the last commit).
 *
 *   back-end:  sysdb_reply_get() after its commit: reads the key as any reader would and
 *              hands back (gen, blob); blob NULL / len 0 means "no such entry at gen".
 *              Or, answering before its store (a user found: sysdb_reply_user_first),
 *              inside the store's write transaction: the blob the store will leave and
 *              the generation its commit will make, gen, while the database is at gen - 1
 *              (the lock keeps anyone else from committing in between).
 *   responder: sysdb_reply_put() before its own read: if its database is still at gen,
 *              nothing has been committed since the back-end's read, so the blob is what
 *              its own read would produce; it is checked (bounds, layout, that it is the
 *              entry asked for) and stored in the responder's read cache, where the normal
 *              read then finds it. At gen - 1 (that commit has not landed yet) the blob is
 *              stored the same way, at gen - 1: the read finds it before ldb holds it.
 *              Otherwise (a newer commit, no read cache, a bad blob)
 *              nothing is stored and the read goes to ldb as before: a reply older than the
 *              cache never wins, and there is one read path.
 */
#ifndef SSS_SYSDB_REPLY_H
#define SSS_SYSDB_REPLY_H

#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "db/sysdb_rcache.h"
#include "util/sss_errors.h"

struct sysdb_ctx;

/* Which read a reply entry stands for: kind SYSDB_RC_USER_NAME, _USER_UID, _GROUP_NAME,
 * _GROUP_GID or _INITGR, and the name (for the by-name kinds, as the lookup passes it) or
 * the id. */
struct sysdb_reply_key {
    enum sysdb_rc_kind kind;
    const char *name;
    uint32_t id;
};

/*
 * Back-end side: reads key (through the read cache, as the responder's lookup would) and
 * returns the generation of the read and a copy of its flat form on mem_ctx (*_blob NULL
 * and *_len 0: no such entry). ENOTSUP when there is nothing to carry (no read cache here,
 * the entry too big for it, a commit during the read), EINVAL for a bad key, sysdb errors.
 */
errno_t sysdb_reply_get(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                        const struct sysdb_reply_key *key, uint64_t *_gen, void **_blob,
                        size_t *_len);

/*
 * Back-end side, for a reply sent before its store ("reply first", be_reply_first.c):
 * called inside an open write transaction, whose lock keeps every other writer from
 * committing until ours, with the user store w (sysdb_user_write_new) that will run in
 * it. Returns the generation our commit will make (the last one + 1) and the carried
 * form (valid while w lives) of what a read of key gives at it, checked as
 * sysdb_reply_put() checks it. A responder takes it at that generation (our commit
 * landed) or the one before (not yet: then it answers from the carried entry, which ldb
 * does not hold yet). Should the store fail, a responder may serve the carried entry (the
 * directory's answer) until the database moves on by one or two commits. Nothing is
 * written. ENOTSUP: nothing to carry (no transaction open, no read cache, bigger than the
 * read cache keeps, or the entry is not the one key names: a read of key would not find
 * it); ENOMEM.
 */
struct sysdb_user_write;
errno_t sysdb_reply_user_first(struct sysdb_ctx *sysdb, const struct sysdb_reply_key *key,
                               struct sysdb_user_write *w, uint64_t *_gen,
                               const void **_blob, size_t *_len);

/*
 * Responder side: stores the carried entry (blob/len, len 0: "no such entry") for key at
 * gen in the read cache (at gen - 1 when the database is still there: a back-end that
 * answered before its commit, sysdb_reply_user_first). EOK: stored, the next read of key
 * finds it; ESTALE: the database is at another generation (or gen is 0, or this process
 * has no read cache): nothing stored;
 * EINVAL: the blob is malformed or is not the entry key names (logged): nothing stored;
 * E2BIG: larger than the read cache keeps (SYSDB_RCACHE_MAX_ENTRY): nothing stored.
 */
errno_t sysdb_reply_put(struct sysdb_ctx *sysdb, const struct sysdb_reply_key *key,
                        uint64_t gen, const void *blob, size_t len);

#endif /* SSS_SYSDB_REPLY_H */
