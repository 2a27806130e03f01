/*
 * sysdb reply entries (see sysdb_reply.h): the back-end's read of a key into its carried
 * form, and the responder's check and store of a carried entry into its read cache.
 *
 * A carried blob crosses a process boundary, so before the read cache keeps it (where a
 * later hit relocates it in place: sysdb_unflat_user/_group) it must be a layout that
 * relocation cannot turn into out-of-bounds reads: every string offset inside the blob and
 * NUL-terminated there, every list's offset array inside the blob, aligned and terminated,
 * no string overlapping the header or a list array (both are rewritten in place), no list
 * array overlapping another, no raw pointer (upn), and the lists results promise to be
 * non-NULL present. The entry must also be the one the key names (same name key or id).
 */
#include "config.h"

#include "db/sysdb_private.h"
#include "db/sysdb_reply.h"

/* The read cache's initgroups layout, as sysdb_initgr.c writes it: this header, count
 * uint32 gids, then at the next multiple of 8 the flat user (test_sysdb_reply checks
 * that a carried initgroups entry reads back through sysdb_get_user_initgroups). */
struct reply_initgr_head {
    uint64_t user_len;
    uint64_t count;
    int64_t expire;
    uint64_t have_list;
};
#define REPLY_INITGR_USER_OFS(count) \
    ((sizeof(struct reply_initgr_head) + (count) * sizeof(uint32_t) + 7) & ~(size_t)7)

/* List arrays of one blob: regions that relocation rewrites. */
#define REPLY_MAX_LISTS 2
struct reply_spans {
    size_t start[REPLY_MAX_LISTS];
    size_t end[REPLY_MAX_LISTS];
    size_t n;
};

static errno_t reply_rc_key(struct sysdb_ctx *sysdb, const struct sysdb_reply_key *key,
                            char *keybuf, struct sysdb_rc_key *_rk)
{
    switch (key->kind) {
    case SYSDB_RC_USER_NAME:
    case SYSDB_RC_GROUP_NAME:
    case SYSDB_RC_INITGR:
        if (key->name == NULL) {
            return EINVAL;
        }
        return sysdb_rc_name_key(sysdb, key->kind, key->name, keybuf, _rk);
    case SYSDB_RC_USER_UID:
    case SYSDB_RC_GROUP_GID:
        _rk->kind = key->kind;
        _rk->id = key->id;
        _rk->name = NULL;
        _rk->len = 0;
        return EOK;
    }
    return EINVAL;
}

/* The read a responder's lookup of key makes; it leaves its result in the read cache. */
static errno_t reply_read(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                          const struct sysdb_reply_key *key)
{
    struct sysdb_user *user;
    struct sysdb_group *group;
    uint32_t *gids;
    size_t count;
    bool have_list;

    switch (key->kind) {
    case SYSDB_RC_USER_NAME:
        return sysdb_get_user_by_name(mem_ctx, sysdb, key->name, &user);
    case SYSDB_RC_USER_UID:
        return sysdb_get_user_by_uid(mem_ctx, sysdb, key->id, &user);
    case SYSDB_RC_GROUP_NAME:
        return sysdb_get_group_by_name(mem_ctx, sysdb, key->name, &group);
    case SYSDB_RC_GROUP_GID:
        return sysdb_get_group_by_gid(mem_ctx, sysdb, key->id, &group);
    case SYSDB_RC_INITGR:
        return sysdb_get_user_initgroups(mem_ctx, sysdb, key->name, NULL, &have_list, &gids,
                                         &count, NULL);
    }
    return EINVAL;
}

errno_t sysdb_reply_get(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                        const struct sysdb_reply_key *key, uint64_t *_gen, void **_blob,
                        size_t *_len)
{
    char keybuf[SYSDB_KEY_ROOM];
    struct sysdb_rc_key rk;
    TALLOC_CTX *tmp_ctx;
    const void *blob = NULL;
    void *copy = NULL;
    size_t len = 0;
    uint64_t gen;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && key != NULL, EINVAL);
    SSS_CHECK_ARG(_gen != NULL && _blob != NULL && _len != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = reply_rc_key(sysdb, key, keybuf, &rk);
    if (ret != EOK) {
        goto done;
    }
    gen = sysdb_rcache_gen(sysdb);
    if (gen == 0) {
        ret = ENOTSUP;
        goto done;
    }
    /* Usually already cached: the store filled it at its commit (sysdb_pending.c). */
    if (!sysdb_rcache_get(sysdb, &rk, gen, &blob, &len)) {
        ret = reply_read(tmp_ctx, sysdb, key);
        if (ret != EOK && ret != ENOENT) {
            goto done;
        }
        /* The read's result, as the read cache kept it at gen: not kept (too big) or a
         * commit in between means there is nothing that can be vouched for. */
        if (sysdb_rcache_gen(sysdb) != gen
                || !sysdb_rcache_get(sysdb, &rk, gen, &blob, &len)) {
            ret = ENOTSUP;
            goto done;
        }
    }
    if (blob != NULL && len > 0) {
        copy = talloc_memdup(mem_ctx, blob, len);
        if (copy == NULL) {
            ret = ENOMEM;
            goto done;
        }
    } else {
        len = 0;
    }
    *_gen = gen;
    *_blob = copy;
    *_len = len;
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

/* ---- checks of a carried blob ---- */

static bool reply_overlaps(const struct reply_spans *sp, size_t start, size_t end)
{
    size_t i;

    for (i = 0; i < sp->n; i++) {
        if (start < sp->end[i] && sp->start[i] < end) {
            return true;
        }
    }
    return false;
}

/* A string at offset off (0: NULL, allowed when may_be_null): inside the blob past the
 * header, NUL-terminated, clear of every list array. */
static bool reply_str_ok(const char *b, size_t len, size_t hdr, uintptr_t off,
                         bool may_be_null, const struct reply_spans *sp)
{
    const char *nul;

    if (off == 0) {
        return may_be_null;
    }
    if (off < hdr || off >= len) {
        return false;
    }
    nul = memchr(b + off, '\0', len - off);
    if (nul == NULL) {
        return false;
    }
    return !reply_overlaps(sp, off, (size_t)(nul - b) + 1);
}

/* A list's offset array at off: aligned, past the header, terminated inside the blob and
 * clear of the arrays found before; recorded in sp. *_count: its entries. */
static bool reply_list_span(const char *b, size_t len, size_t hdr, uintptr_t off,
                            struct reply_spans *sp, size_t *_count)
{
    uintptr_t v;
    size_t room;
    size_t i;

    if (off == 0 || off < hdr || off >= len || off % sizeof(uintptr_t) != 0
            || sp->n == REPLY_MAX_LISTS) {
        return false;
    }
    /* Counted from the room left, not as off + (i + 1) * 8 <= len: an off near SIZE_MAX
     * wraps that sum and lets the walk (and later the relocation) start before the blob. */
    room = (len - off) / sizeof(uintptr_t);
    for (i = 0; i < room; i++) {
        memcpy(&v, b + off + i * sizeof(uintptr_t), sizeof(v));
        if (v == 0) {
            if (reply_overlaps(sp, off, off + (i + 1) * sizeof(uintptr_t))) {
                return false;
            }
            sp->start[sp->n] = off;
            sp->end[sp->n] = off + (i + 1) * sizeof(uintptr_t);
            sp->n++;
            *_count = i;
            return true;
        }
    }
    return false;
}

static bool reply_list_strs_ok(const char *b, size_t len, size_t hdr, uintptr_t off,
                               size_t count, const struct reply_spans *sp)
{
    uintptr_t v;
    size_t i;

    for (i = 0; i < count; i++) {
        memcpy(&v, b + off + i * sizeof(uintptr_t), sizeof(v));
        if (!reply_str_ok(b, len, hdr, v, false, sp)) {
            return false;
        }
    }
    return true;
}

/* The name key of the entry (its name at off) equals the key asked for. */
static bool reply_name_is(struct sysdb_ctx *sysdb, const char *b, uintptr_t off,
                          const struct sysdb_rc_key *rk)
{
    char keybuf[SYSDB_KEY_ROOM];
    size_t n;

    n = sysdb_name_key_buf(sysdb, b + off, keybuf);
    return n != 0 && n == rk->len && memcmp(keybuf, rk->name, n) == 0;
}

/* A flat struct sysdb_user (sysdb_flat.c's layout). by_uid / rk: the identity to check. */
static bool reply_user_ok(struct sysdb_ctx *sysdb, const char *b, size_t len,
                          const struct sysdb_rc_key *rk)
{
    struct reply_spans sp = { .n = 0 };
    struct sysdb_user h;
    size_t hdr = sizeof(h);
    size_t nextra = 0;

    if (len < hdr) {
        return false;
    }
    memcpy(&h, b, hdr);
    /* upn is never flattened: anything but NULL would be a raw pointer. */
    if (h.upn != NULL || h.name == NULL) {
        return false;
    }
    if (!reply_list_span(b, len, hdr, (uintptr_t)h.extra, &sp, &nextra) || nextra % 2 != 0) {
        return false;
    }
    if (!reply_str_ok(b, len, hdr, (uintptr_t)h.name, false, &sp)
            || !reply_str_ok(b, len, hdr, (uintptr_t)h.gecos, true, &sp)
            || !reply_str_ok(b, len, hdr, (uintptr_t)h.home, true, &sp)
            || !reply_str_ok(b, len, hdr, (uintptr_t)h.shell, true, &sp)
            || !reply_str_ok(b, len, hdr, (uintptr_t)h.orig_dn, true, &sp)
            || !reply_str_ok(b, len, hdr, (uintptr_t)h.email, true, &sp)
            || !reply_str_ok(b, len, hdr, (uintptr_t)h.sid, true, &sp)
            || !reply_list_strs_ok(b, len, hdr, (uintptr_t)h.extra, nextra, &sp)) {
        return false;
    }
    if (rk->kind == SYSDB_RC_USER_UID) {
        return h.uid == rk->id;
    }
    return reply_name_is(sysdb, b, (uintptr_t)h.name, rk);
}

static bool reply_group_ok(struct sysdb_ctx *sysdb, const char *b, size_t len,
                           const struct sysdb_rc_key *rk)
{
    struct reply_spans sp = { .n = 0 };
    struct sysdb_group h;
    size_t hdr = sizeof(h);
    size_t nmembers = 0;
    size_t ngroups = 0;

    if (len < hdr) {
        return false;
    }
    memcpy(&h, b, hdr);
    if (h.name == NULL
            || !reply_list_span(b, len, hdr, (uintptr_t)h.members, &sp, &nmembers)
            || !reply_list_span(b, len, hdr, (uintptr_t)h.member_groups, &sp, &ngroups)) {
        return false;
    }
    if (!reply_str_ok(b, len, hdr, (uintptr_t)h.name, false, &sp)
            || !reply_str_ok(b, len, hdr, (uintptr_t)h.orig_dn, true, &sp)
            || !reply_str_ok(b, len, hdr, (uintptr_t)h.sid, true, &sp)
            || !reply_list_strs_ok(b, len, hdr, (uintptr_t)h.members, nmembers, &sp)
            || !reply_list_strs_ok(b, len, hdr, (uintptr_t)h.member_groups, ngroups, &sp)) {
        return false;
    }
    if (rk->kind == SYSDB_RC_GROUP_GID) {
        return h.gid == rk->id;
    }
    return reply_name_is(sysdb, b, (uintptr_t)h.name, rk);
}

static bool reply_initgr_ok(struct sysdb_ctx *sysdb, const char *b, size_t len,
                            const struct sysdb_rc_key *rk)
{
    struct reply_initgr_head head;
    struct sysdb_rc_key user_rk = *rk;
    size_t ofs;

    if (len < sizeof(head)) {
        return false;
    }
    memcpy(&head, b, sizeof(head));
    if (head.have_list > 1 || head.count > (len - sizeof(head)) / sizeof(uint32_t)) {
        return false;
    }
    ofs = REPLY_INITGR_USER_OFS(head.count);
    if (ofs > len || head.user_len != len - ofs) {
        return false;
    }
    user_rk.kind = SYSDB_RC_USER_NAME;
    return reply_user_ok(sysdb, b + ofs, len - ofs, &user_rk);
}

bool sysdb_reply_blob_ok(struct sysdb_ctx *sysdb, const struct sysdb_rc_key *rk,
                         const void *blob, size_t len)
{
    switch (rk->kind) {
    case SYSDB_RC_USER_NAME:
    case SYSDB_RC_USER_UID:
        return reply_user_ok(sysdb, blob, len, rk);
    case SYSDB_RC_GROUP_NAME:
    case SYSDB_RC_GROUP_GID:
        return reply_group_ok(sysdb, blob, len, rk);
    case SYSDB_RC_INITGR:
        return reply_initgr_ok(sysdb, blob, len, rk);
    }
    return false;
}

errno_t sysdb_reply_rc_key(struct sysdb_ctx *sysdb, const struct sysdb_reply_key *key,
                           char *keybuf, struct sysdb_rc_key *_rk)
{
    return reply_rc_key(sysdb, key, keybuf, _rk);
}

errno_t sysdb_reply_put(struct sysdb_ctx *sysdb, const struct sysdb_reply_key *key,
                        uint64_t gen, const void *blob, size_t len)
{
    char keybuf[SYSDB_KEY_ROOM];
    struct sysdb_rc_key rk;
    uint64_t cur;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && key != NULL, EINVAL);
    SSS_CHECK_ARG(len == 0 || blob != NULL, EINVAL);
    cur = sysdb_rcache_gen(sysdb);
    /* gen - 1: a back-end answering before its commit (sysdb_reply_user_first), which
     * holds the write lock: the next commit is its own and makes it gen. Kept at cur,
     * where the entry is not yet in ldb, so that the lookup about to read it finds it. */
    if (gen == 0 || cur == 0 || (cur != gen && cur + 1 != gen)) {
        return ESTALE;
    }
    /* The read cache would not keep it: not worth checking (the check is linear in len
     * per list entry, and len is the sender's). */
    if (len > SYSDB_RCACHE_MAX_ENTRY) {
        return E2BIG;
    }
    ret = reply_rc_key(sysdb, key, keybuf, &rk);
    if (ret != EOK) {
        return ret;
    }
    if (len > 0 && !sysdb_reply_blob_ok(sysdb, &rk, blob, len)) {
        DEBUG(SSSDBG_OP_FAILURE, "A carried entry (kind %d, %zu bytes) is malformed or "
              "not the one asked for: ignored, the cache is read instead\n",
              (int)key->kind, len);
        return EINVAL;
    }
    sysdb_rcache_put(sysdb, &rk, cur, len > 0 ? blob : NULL, len);
    return EOK;
}
