/*
 * sysdb users: store (with uid takeover), lookups by name and uid through the read cache,
 * enumeration, delete and expire. The user's group list (initgroups), stored on the same
 * entry, is in sysdb_initgr.c.
 */
#include "config.h"

#include "db/sysdb_private.h"

static const char *const sysdb_user_attrs[] = { SYSDB_USER_ATTRS, NULL };

errno_t sysdb_msg_to_user(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                          struct ldb_message *msg, struct sysdb_user **_user)
{
    struct sysdb_user *user;
    size_t count;
    errno_t ret;

    user = talloc_zero(mem_ctx, struct sysdb_user);
    if (user == NULL) {
        return ENOMEM;
    }
    talloc_steal(user, msg);

    user->name = sysdb_msg_name(sysdb, msg);
    if (user->name == NULL) {
        ret = EIO;
        goto done;
    }
    ret = sysdb_msg_u32(msg, SYSDB_A_UID, &user->uid);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_u32(msg, SYSDB_A_PRIMARY_GID, &user->gid);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_times(msg, SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE, &user->last_update,
                          &user->expire);
    if (ret != EOK) {
        goto done;
    }
    user->gecos = sysdb_msg_str(msg, SYSDB_A_GECOS);
    user->home = sysdb_msg_str(msg, SYSDB_A_HOME);
    user->shell = sysdb_msg_str(msg, SYSDB_A_SHELL);
    user->orig_dn = sysdb_msg_str(msg, SYSDB_A_ORIG_DN);
    user->email = sysdb_msg_str(msg, SYSDB_A_EMAIL);
    user->sid = sysdb_msg_str(msg, SYSDB_A_SID);
    ret = sysdb_msg_names(user, msg, SYSDB_A_EXTRA, &user->extra, &count);
    if (ret != EOK || count % 2 != 0) {
        ret = EIO;
        goto done;
    }

done:
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Malformed user entry %s\n", ldb_dn_get_linearized(msg->dn));
        talloc_free(user);
        return ret;
    }
    *_user = user;
    return EOK;
}

/* The read cache's form of a user entry read. */
static errno_t sysdb_user_flatten(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                  struct ldb_message *msg, void **_blob, size_t *_len)
{
    struct sysdb_user *user;
    errno_t ret;

    ret = sysdb_msg_to_user(mem_ctx, sysdb, msg, &user);
    if (ret != EOK) {
        return ret;
    }
    return sysdb_flat_user(mem_ctx, user, _blob, _len);
}

static const struct sysdb_flat_view sysdb_user_view = {
    .kind = SYSDB_KIND_USER,
    .attrs = sysdb_user_attrs,
    .flatten = sysdb_user_flatten,
};

/* The part of a user store inside its transaction. The uid's unique index lets the
 * usual stores (a new name with a free uid, the same name with its uid) be one write with
 * no search. Should the write meet another user's uid (a rename, a takeover), the query
 * finds the entry itself when its id is unchanged (then a modify) and any other name
 * holding the id (deleted); then add, or modify if the add finds the name. */
static errno_t sysdb_user_replace(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, uint32_t uid,
                                  struct ldb_message *msg)
{
    bool kept;
    errno_t ret;

    ret = sysdb_write_unique(sysdb, msg);
    if (ret != EEXIST) {
        return ret;
    }
    ret = sysdb_delete_conflicts(mem_ctx, sysdb, SYSDB_KIND_USER, uid, msg->dn, &kept, NULL);
    if (ret != EOK) {
        return ret;
    }
    return sysdb_write_entry(sysdb, msg, kept ? SYSDB_EXISTS_YES : SYSDB_EXISTS_UNKNOWN);
}

/* A user's optional string attributes, as they are checked and stored. */
#define SYSDB_USER_NSTRS 7
static void sysdb_user_strs(const struct sysdb_user *user, struct sysdb_str_attr *strs)
{
    strs[0] = (struct sysdb_str_attr){ SYSDB_A_GECOS, "gecos", user->gecos };
    strs[1] = (struct sysdb_str_attr){ SYSDB_A_HOME, "home directory", user->home };
    strs[2] = (struct sysdb_str_attr){ SYSDB_A_SHELL, "shell", user->shell };
    strs[3] = (struct sysdb_str_attr){ SYSDB_A_ORIG_DN, "original DN", user->orig_dn };
    strs[4] = (struct sysdb_str_attr){ SYSDB_A_UPN, "user principal", user->upn };
    strs[5] = (struct sysdb_str_attr){ SYSDB_A_EMAIL, "e-mail address", user->email };
    strs[6] = (struct sysdb_str_attr){ SYSDB_A_SID, "SID", user->sid };
}

/* The indexed key form of the user's address (none when it has none). An address that
 * cannot be a name's key (too long, not UTF-8) is stored but cannot be looked up: logged. */
static errno_t sysdb_user_set_email_key(struct ldb_message *msg, struct sysdb_ctx *sysdb,
                                        const struct sysdb_user *user)
{
    char keybuf[SYSDB_KEY_ROOM];
    char *key;

    if (user->email == NULL || user->email[0] == '\0') {
        return sysdb_msg_set_str(msg, SYSDB_A_EMAIL_KEY, NULL);
    }
    if (strlen(user->email) > SYSDB_NAME_MAX
            || sysdb_name_key_buf(sysdb, user->email, keybuf) == 0) {
        DEBUG(SSSDBG_MINOR_FAILURE, "%s: e-mail address not usable for lookups\n",
              user->name);
        return sysdb_msg_set_str(msg, SYSDB_A_EMAIL_KEY, NULL);
    }
    /* The message keeps a reference to the value, not a copy. */
    key = talloc_strdup(msg, keybuf);
    if (key == NULL) {
        return ENOMEM;
    }
    return sysdb_msg_set_str(msg, SYSDB_A_EMAIL_KEY, key);
}

/* The extra attributes, pairs packed in one value. EINVAL (logged) for an odd count. */
static errno_t sysdb_user_set_extra(struct ldb_message *msg, const struct sysdb_user *user)
{
    size_t n = 0;

    while (user->extra != NULL && user->extra[n] != NULL) {
        n++;
    }
    if (n % 2 != 0) {
        DEBUG(SSSDBG_OP_FAILURE, "%s: extra attributes are not name, value pairs\n",
              user->name);
        return EINVAL;
    }
    return sysdb_msg_set_packed(msg, SYSDB_A_EXTRA, user->extra, "extra attributes");
}

/* The message a store of user writes, on mem_ctx. The user was checked by
 * sysdb_user_check() when its write was prepared (sysdb_user_write_new, the only way in). */
static errno_t sysdb_user_msg(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                              const struct sysdb_user *user, time_t now,
                              uint32_t cache_timeout, struct ldb_message **_msg)
{
    struct sysdb_str_attr strs[SYSDB_USER_NSTRS];
    struct ldb_message *msg;
    const char *stored;
    errno_t ret;

    sysdb_user_strs(user, strs);
    ret = sysdb_entry_msg(mem_ctx, sysdb, SYSDB_KIND_USER, user->name, user->uid,
                          &msg, &stored);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_msg_set_num(msg, SYSDB_A_PRIMARY_GID, user->gid);
    if (ret == EOK) {
        ret = sysdb_msg_set_strs(msg, strs, SYSDB_USER_NSTRS);
    }
    if (ret == EOK) {
        ret = sysdb_user_set_email_key(msg, sysdb, user);
    }
    if (ret == EOK) {
        ret = sysdb_user_set_extra(msg, user);
    }
    if (ret == EOK) {
        ret = sysdb_msg_set_times(msg, SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE, now,
                                  (uint64_t)now + cache_timeout);
    }
    if (ret != EOK) {
        talloc_free(msg);
        return ret;
    }
    *_msg = msg;
    return EOK;
}

/* A user store prepared: the user it writes and, once asked for, the flat form a read
 * will find. The entry itself (its DN, ldb message) is built when the store runs: with
 * reply first that is after the answer left (issue 18: a third of sssd_be's work before
 * the reply was this message). */
struct sysdb_user_write {
    struct sysdb_user user;         /* the caller's; strings and list referenced */
    time_t now;
    uint32_t cache_timeout;
    struct ldb_message *msg;        /* built by the store, or at once for a long name */
    char *stored;                   /* the name's stored and key forms */
    char *key;
    void *blob;
    size_t len;
};

/* A key this short always fits the limit that sysdb_entry_dn() checks exactly on the
 * casefolded, escaped DN ("DN=NAME=...,CN=USERS"): case folding may turn 2 UTF-8 bytes
 * into 3 and escaping writes a byte as 3, 4.5 times the key at most (100 bytes: 467 of
 * 511). Longer names build their entry at once, so that check still refuses them before
 * anything is answered. */
#define SYSDB_USER_KEY_SURE 100

/* The refusals of a user store (EINVAL, logged), checked before anything is built. */
static errno_t sysdb_user_check(struct sysdb_ctx *sysdb, const struct sysdb_user *user,
                                time_t now)
{
    struct sysdb_str_attr strs[SYSDB_USER_NSTRS];
    size_t n = 0;
    size_t total;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(user != NULL, EINVAL);
    SSS_CHECK_ARG(user->name != NULL, EINVAL);
    SSS_CHECK_ARG(now >= 0, EINVAL);
    if (user->uid == 0 || user->gid == 0) {
        DEBUG(SSSDBG_OP_FAILURE, "Refusing to cache %s with uid/gid 0\n", user->name);
        return EINVAL;
    }
    sysdb_user_strs(user, strs);
    ret = sysdb_check_attrs(strs, SYSDB_USER_NSTRS);
    if (ret != EOK) {
        return ret;
    }
    while (user->extra != NULL && user->extra[n] != NULL) {
        n++;
    }
    if (n % 2 != 0) {
        DEBUG(SSSDBG_OP_FAILURE, "%s: extra attributes are not name, value pairs\n",
              user->name);
        return EINVAL;
    }
    return sysdb_packed_check(user->extra, "extra attributes", &total);
}

errno_t sysdb_user_write_new(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                             const struct sysdb_user *user, time_t now,
                             uint32_t cache_timeout, struct sysdb_user_write **_w)
{
    struct sysdb_user_write *w;
    errno_t ret;

    SSS_CHECK_ARG(_w != NULL, EINVAL);
    ret = sysdb_user_check(sysdb, user, now);
    if (ret != EOK) {
        return ret;
    }
    w = talloc_zero(mem_ctx, struct sysdb_user_write);
    if (w == NULL) {
        return ENOMEM;
    }
    w->user = *user;
    w->now = now;
    w->cache_timeout = cache_timeout;
    ret = sysdb_name_stored(w, sysdb, user->name, &w->stored);
    if (ret == EOK) {
        ret = sysdb_name_key(w, sysdb, user->name, &w->key);
    }
    if (ret == EOK && strlen(w->key) > SYSDB_USER_KEY_SURE) {
        ret = sysdb_user_msg(w, sysdb, user, now, cache_timeout, &w->msg);
    }
    if (ret != EOK) {
        talloc_free(w);
        return ret;
    }
    *_w = w;
    return EOK;
}

/* The name a read of the entry gives (sysdb_msg_name): the stored form, written as the
 * name attribute unless it is the key, then made of the DN's RDN (the key less its
 * "@domain") and the domain. */
static const char *sysdb_user_write_read_name(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                              const struct sysdb_user_write *w)
{
    size_t rdn_len;

    if (sysdb_name_attr(w->stored, w->key) != NULL) {
        return w->stored;
    }
    rdn_len = strlen(w->key) - sysdb->domain_len - 1;
    if (rdn_len == 0 || rdn_len > SYSDB_KEY_ROOM) {
        return NULL;
    }
    return talloc_asprintf(mem_ctx, "%.*s@%s", (int)rdn_len, w->key,
                           sysdb->case_mode == SYSDB_CASE_SENSITIVE ? sysdb->domain
                                                                    : sysdb->domain_lc);
}

errno_t sysdb_user_write_form(struct sysdb_ctx *sysdb, struct sysdb_user_write *w,
                              const void **_blob, size_t *_len)
{
    static const char *no_extra[] = { NULL };
    TALLOC_CTX *tmp_ctx;
    struct sysdb_user r = { 0 };
    uint64_t expire;
    errno_t ret;

    if (w->blob == NULL) {
        /* What sysdb_msg_to_user() makes of the entry the store writes: its name as read,
         * the times as stored, the same strings (a cleared one NULL), the extra
         * attributes never NULL, no principal (reads leave it out). */
        expire = (uint64_t)w->now + w->cache_timeout;
        if (expire > INT64_MAX) {
            return EIO;
        }
        tmp_ctx = talloc_new(NULL);
        if (tmp_ctx == NULL) {
            return ENOMEM;
        }
        r.name = sysdb_user_write_read_name(tmp_ctx, sysdb, w);
        r.uid = w->user.uid;
        r.gid = w->user.gid;
        r.gecos = w->user.gecos;
        r.home = w->user.home;
        r.shell = w->user.shell;
        r.orig_dn = w->user.orig_dn;
        r.email = w->user.email;
        r.sid = w->user.sid;
        r.extra = w->user.extra != NULL ? w->user.extra : no_extra;
        r.last_update = w->now;
        r.expire = (time_t)expire;
        ret = r.name == NULL ? EIO : sysdb_flat_user(w, &r, &w->blob, &w->len);
        talloc_free(tmp_ctx);
        if (ret != EOK) {
            w->blob = NULL;
            return ret;
        }
    }
    *_blob = w->blob;
    *_len = w->len;
    return EOK;
}

errno_t sysdb_user_write_store(struct sysdb_ctx *sysdb, struct sysdb_user_write *w)
{
    TALLOC_CTX *tmp_ctx;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && w != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    if (w->msg == NULL) {
        ret = sysdb_user_msg(w, sysdb, &w->user, w->now, w->cache_timeout, &w->msg);
        if (ret != EOK) {
            goto done;
        }
    }
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_user_replace(tmp_ctx, sysdb, w->user.uid, w->msg);
    if (ret == EOK && w->blob != NULL) {
        sysdb_pending_entry_flat(sysdb, SYSDB_RC_USER_NAME, w->user.name, SYSDB_RC_USER_UID,
                                 w->user.uid, w->msg->dn, w->blob, w->len);
    } else if (ret == EOK) {
        sysdb_pending_entry(sysdb, &sysdb_user_view, SYSDB_RC_USER_NAME, w->user.name,
                            SYSDB_RC_USER_UID, w->user.uid, w->msg);
    }
    ret = sysdb_transaction_end(sysdb, ret);
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_store_user(struct sysdb_ctx *sysdb, const struct sysdb_user *user,
                         time_t now, uint32_t cache_timeout)
{
    struct sysdb_user_write *w;
    errno_t ret;

    ret = sysdb_user_write_new(NULL, sysdb, user, now, cache_timeout, &w);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_user_write_store(sysdb, w);
    talloc_free(w);
    return ret;
}

/* A user by key: from the read cache, or read, flattened and cached (misses too). */
static errno_t sysdb_user_fetch(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                const struct sysdb_rc_key *key, struct sysdb_user **_user)
{
    struct sysdb_flat flat;
    struct sysdb_user *user;
    errno_t ret;

    ret = sysdb_flat_cached(sysdb, key, &flat);
    if (ret == EAGAIN) {
        ret = sysdb_flat_load(sysdb, &sysdb_user_view, key, &flat);
    }
    if (ret == EOK) {
        user = sysdb_unflat_user(mem_ctx, flat.blob, flat.len);
        ret = user != NULL ? EOK : ENOMEM;
    }
    sysdb_flat_done(&flat);
    if (ret == EOK) {
        *_user = user;
    }
    return ret;
}

errno_t sysdb_get_user_by_name(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               const char *name, struct sysdb_user **_user)
{
    char keybuf[SYSDB_KEY_ROOM];
    struct sysdb_rc_key key;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(name != NULL, EINVAL);
    SSS_CHECK_ARG(_user != NULL, EINVAL);
    ret = sysdb_rc_name_key(sysdb, SYSDB_RC_USER_NAME, name, keybuf, &key);
    if (ret != EOK) {
        return ret;
    }
    return sysdb_user_fetch(mem_ctx, sysdb, &key, _user);
}

errno_t sysdb_get_user_by_uid(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                              uint32_t uid, struct sysdb_user **_user)
{
    struct sysdb_rc_key key = { .kind = SYSDB_RC_USER_UID, .id = uid };

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(_user != NULL, EINVAL);
    return sysdb_user_fetch(mem_ctx, sysdb, &key, _user);
}

errno_t sysdb_get_user_upn(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                           char **_upn)
{
    static const char *const attrs[] = { SYSDB_A_UPN, NULL };
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    struct ldb_dn *dn;
    const char *upn;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(name != NULL, EINVAL);
    SSS_CHECK_ARG(_upn != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_name_dn(tmp_ctx, sysdb, SYSDB_KIND_USER, name, &dn);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_read_entry(tmp_ctx, sysdb, dn, attrs, &msg);
    if (ret != EOK) {
        goto done;
    }
    upn = sysdb_msg_str(msg, SYSDB_A_UPN);
    if (upn == NULL || upn[0] == '\0') {
        ret = ENOENT;
        goto done;
    }
    *_upn = talloc_strdup(mem_ctx, upn);
    ret = *_upn != NULL ? EOK : ENOMEM;
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_get_users_by_email(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                 const char *email, struct sysdb_user ***_users,
                                 size_t *_count)
{
    char keybuf[SYSDB_KEY_ROOM];
    TALLOC_CTX *tmp_ctx;
    struct ldb_message **msgs = NULL;
    struct sysdb_user **users;
    char *filter;
    size_t count = 0;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && email != NULL, EINVAL);
    SSS_CHECK_ARG(_users != NULL && _count != NULL, EINVAL);
    if (strlen(email) > SYSDB_NAME_MAX || sysdb_name_key_buf(sysdb, email, keybuf) == 0) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    filter = talloc_asprintf(tmp_ctx, "(%s=%s)", SYSDB_A_EMAIL_KEY,
                             ldb_binary_encode_string(tmp_ctx, keybuf));
    if (filter == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sysdb_search_filter(tmp_ctx, sysdb, filter, sysdb_user_attrs, &msgs, &count);
    if (ret != EOK) {
        goto done;
    }
    if (count == 0) {
        ret = ENOENT;
        goto done;
    }
    users = talloc_zero_array(tmp_ctx, struct sysdb_user *, count + 1);
    if (users == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < count; i++) {
        ret = sysdb_msg_to_user(users, sysdb, msgs[i], &users[i]);
        if (ret != EOK) {
            goto done;
        }
    }
    *_users = talloc_steal(mem_ctx, users);
    *_count = count;
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

static errno_t sysdb_user_parse(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                struct ldb_message *msg, void *slot)
{
    return sysdb_msg_to_user(mem_ctx, sysdb, msg, slot);
}

errno_t sysdb_enumerate_users(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                              struct sysdb_user ***_users, size_t *_count)
{
    void *users;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(_users != NULL && _count != NULL, EINVAL);
    ret = sysdb_entry_enumerate(mem_ctx, sysdb, SYSDB_KIND_USER, sysdb_user_attrs,
                                sysdb_user_parse, &users, _count);
    if (ret == EOK) {
        *_users = users;
    }
    return ret;
}

errno_t sysdb_delete_user(struct sysdb_ctx *sysdb, const char *name)
{
    return sysdb_delete_by_name(sysdb, SYSDB_KIND_USER, name);
}

errno_t sysdb_expire_user(struct sysdb_ctx *sysdb, const char *name)
{
    return sysdb_expire_by_name(sysdb, SYSDB_KIND_USER, name);
}

errno_t sysdb_expire_all_users(struct sysdb_ctx *sysdb)
{
    return sysdb_expire_all(sysdb, SYSDB_KIND_USER);
}
