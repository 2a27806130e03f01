/*
 * The account checks' memo (sdap_auth_memo.h): a hash table of DN -> entry copy and the
 * time it was read. At most SDAP_AUTH_MEMO_MAX entries: when full, the old ones go, then
 * all of them (the next checks search again).
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"
#include "util/sss_hash.h"
#include "providers/ldap/sdap_auth_memo.h"

#define SDAP_AUTH_MEMO_MAX 4096

struct sdap_auth_memo {
    struct sss_hash_table *table;
    time_t window;
};

struct sdap_auth_memo_item {
    char *dn;
    time_t at;
    struct sdap_rule_attr *attrs;
    size_t num;
};

/* DNs compare without regard to case, as the directory does for these. */
static uint64_t sdap_auth_memo_hash(const char *dn)
{
    char buf[512];
    size_t i;

    for (i = 0; dn[i] != '\0' && i < sizeof(buf) - 1; i++) {
        buf[i] = (char)tolower((unsigned char)dn[i]);
    }
    buf[i] = '\0';
    return sss_hash_str(buf);
}

static bool sdap_auth_memo_equal(const void *item, const void *key, void *ctx)
{
    (void)ctx;
    return strcasecmp(((const struct sdap_auth_memo_item *)item)->dn, key) == 0;
}

struct sdap_auth_memo *sdap_auth_memo_new(TALLOC_CTX *mem_ctx, time_t window)
{
    struct sdap_auth_memo *memo = talloc_zero(mem_ctx, struct sdap_auth_memo);

    if (memo == NULL) {
        return NULL;
    }
    memo->window = window > 0 ? window : 0;
    memo->table = sss_hash_table_new(memo, 0, sdap_auth_memo_equal, NULL);
    if (memo->table == NULL) {
        talloc_free(memo);
        return NULL;
    }
    return memo;
}

/* A deep copy of attrs on mem_ctx (values may hold any byte: copied by length). */
static struct sdap_rule_attr *sdap_auth_memo_copy(TALLOC_CTX *mem_ctx,
                                                  const struct sdap_rule_attr *attrs,
                                                  size_t num)
{
    struct sdap_rule_attr *copy = talloc_zero_array(mem_ctx, struct sdap_rule_attr, num + 1);
    size_t n;

    if (copy == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < num; i++) {
        copy[i].name = talloc_strdup(copy, attrs[i].name);
        if (copy[i].name == NULL) {
            goto fail;
        }
        if (attrs[i].values == NULL) {
            continue;
        }
        for (n = 0; attrs[i].values[n] != NULL; n++) {
        }
        copy[i].values = talloc_zero_array(copy, struct berval *, n + 1);
        if (copy[i].values == NULL) {
            goto fail;
        }
        for (size_t k = 0; k < n; k++) {
            const struct berval *v = attrs[i].values[k];
            struct berval *c = talloc(copy[i].values, struct berval);

            if (c == NULL) {
                goto fail;
            }
            c->bv_len = v->bv_len;
            c->bv_val = talloc_size(c, v->bv_len + 1);
            if (c->bv_val == NULL) {
                goto fail;
            }
            memcpy(c->bv_val, v->bv_val, v->bv_len);
            c->bv_val[v->bv_len] = '\0';
            copy[i].values[k] = c;
        }
    }
    return copy;
fail:
    talloc_free(copy);
    return NULL;
}

errno_t sdap_auth_memo_get(struct sdap_auth_memo *memo, TALLOC_CTX *mem_ctx, const char *dn,
                           time_t now, struct sdap_rule_attr **_attrs, size_t *_num)
{
    struct sdap_auth_memo_item *item;
    struct sdap_rule_attr *copy;

    if (memo == NULL || memo->window == 0 || dn == NULL) {
        return ENOENT;
    }
    item = sss_hash_table_get(memo->table, sdap_auth_memo_hash(dn), dn);
    if (item == NULL || now < item->at || now - item->at >= memo->window) {
        return ENOENT;
    }
    copy = sdap_auth_memo_copy(mem_ctx, item->attrs, item->num);
    if (copy == NULL) {
        return ENOMEM;
    }
    *_attrs = copy;
    *_num = item->num;
    return EOK;
}

static bool sdap_auth_memo_keep(void *item, void *ctx)
{
    struct sdap_auth_memo_item *it = item;
    const time_t *cutoff = ctx;

    if (it->at >= *cutoff) {
        return true;
    }
    talloc_free(it);
    return false;
}

void sdap_auth_memo_put(struct sdap_auth_memo *memo, const char *dn, time_t now,
                        const struct sdap_rule_attr *attrs, size_t num)
{
    uint64_t hash;
    struct sdap_auth_memo_item *item;
    time_t cutoff;

    if (memo == NULL || memo->window == 0 || dn == NULL) {
        return;
    }
    hash = sdap_auth_memo_hash(dn);
    talloc_free(sss_hash_table_remove(memo->table, hash, dn));
    if (sss_hash_table_count(memo->table) >= SDAP_AUTH_MEMO_MAX) {
        cutoff = now - memo->window;
        (void)sss_hash_table_filter(memo->table, sdap_auth_memo_keep, &cutoff);
        if (sss_hash_table_count(memo->table) >= SDAP_AUTH_MEMO_MAX) {
            cutoff = now + 1;
            (void)sss_hash_table_filter(memo->table, sdap_auth_memo_keep, &cutoff);
        }
    }
    item = talloc_zero(memo, struct sdap_auth_memo_item);
    if (item == NULL) {
        return;
    }
    item->dn = talloc_strdup(item, dn);
    item->attrs = sdap_auth_memo_copy(item, attrs, num);
    item->num = num;
    item->at = now;
    if (item->dn == NULL || item->attrs == NULL
            || sss_hash_table_insert(memo->table, hash, item->dn, item, NULL) != EOK) {
        talloc_free(item);
    }
}
