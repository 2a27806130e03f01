/*
 * sssd_be's memory of each principal's salt hint (krb5_child_msg.h): what the KDC named
 * as the enctype, salt and iteration count of the key that worked at the principal's
 * last successful login. krb5_child gets it with the next login of that principal and
 * pre-authenticates its first AS-REQ with it (krb5_child_asreq.c): one AS exchange
 * instead of two. Memory only: a restart costs each principal one ordinary login.
 * Nothing secret is kept; a hint that went stale (the principal's keys re-salted) costs
 * the child one retry, and the login that follows replaces it.
 */
#include "providers/krb5/krb5_common.h"
#include "util/sss_hash.h"

/* Past this many principals the table starts over: a bound on memory, not a cache that
 * must be hot. */
#define KRB5_SALT_HINTS_MAX 20000

struct krb5_salt_hint_item {
    char *principal;
    struct krb5_child_salt_hint hint;
};

static bool krb5_salt_hint_equal(const void *item, const void *key, void *ctx)
{
    const struct krb5_salt_hint_item *it = item;

    (void)ctx;
    return strcmp(it->principal, key) == 0;
}

void krb5_salt_hint_get(struct krb5_ctx *kctx, const char *principal,
                        struct krb5_child_salt_hint *_hint)
{
    struct krb5_salt_hint_item *it = NULL;

    assert(kctx != NULL && principal != NULL && _hint != NULL);
    memset(_hint, 0, sizeof(*_hint));
    if (kctx->salt_hints != NULL) {
        it = sss_hash_table_get(kctx->salt_hints, sss_hash_str(principal), principal);
    }
    if (it != NULL) {
        *_hint = it->hint;
    }
}

/* The item freed when the table forgets it (remove, clear, the table's end). */
static void krb5_salt_hint_forget(struct krb5_ctx *kctx, const char *principal)
{
    struct krb5_salt_hint_item *it;

    it = sss_hash_table_remove(kctx->salt_hints, sss_hash_str(principal), principal);
    talloc_free(it);
}

static bool krb5_salt_hint_drop(void *item, void *ctx)
{
    (void)ctx;
    talloc_free(item);
    return false;
}

void krb5_salt_hint_set(struct krb5_ctx *kctx, const char *principal,
                        const struct krb5_child_salt_hint *hint)
{
    struct krb5_salt_hint_item *it;
    errno_t ret;

    assert(kctx != NULL && principal != NULL && hint != NULL);
    if (kctx->salt_hints == NULL) {
        if (hint->etype == 0) {
            return;
        }
        kctx->salt_hints = sss_hash_table_new(kctx, 64, krb5_salt_hint_equal, NULL);
        if (kctx->salt_hints == NULL) {
            return;     /* no hint: the next login makes two AS exchanges, as before */
        }
    }
    krb5_salt_hint_forget(kctx, principal);
    if (hint->etype == 0 || hint->salt == NULL) {
        return;
    }
    if (sss_hash_table_count(kctx->salt_hints) >= KRB5_SALT_HINTS_MAX) {
        (void)sss_hash_table_filter(kctx->salt_hints, krb5_salt_hint_drop, NULL);
    }
    it = talloc_zero(kctx->salt_hints, struct krb5_salt_hint_item);
    if (it == NULL) {
        return;
    }
    it->principal = talloc_strdup(it, principal);
    it->hint.etype = hint->etype;
    it->hint.iter = hint->iter;
    it->hint.salt = talloc_strdup(it, hint->salt);
    if (it->principal == NULL || it->hint.salt == NULL) {
        talloc_free(it);
        return;
    }
    ret = sss_hash_table_insert(kctx->salt_hints, sss_hash_str(principal), it->principal, it,
                                NULL);
    if (ret != EOK) {
        talloc_free(it);
        return;
    }
    DEBUG(SSSDBG_TRACE_ALL, "salt hint of [%s]: enctype %d\n", principal, (int)hint->etype);
}
