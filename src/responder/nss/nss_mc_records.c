/*
 * The memory cache's record formats (sss_client/sss_mc.h): passwd, group and initgroups
 * records built from the entries sssd_nss answers with, and handed to nss_mc_put() under
 * their keys (name and id; initgroups: the name as asked and the unique name).
 */
#include <stddef.h>
#include <stdio.h>

#include "responder/nss/nss_mc_private.h"

/* Whether a store of a record of type into mc goes on. false with *_ret EOK for a disabled
 * cache (NULL, or left unmapped by a failed reset), with EINVAL for another type's file. */
static bool nss_mc_store_begin(struct nss_mc *mc, enum nss_mc_type type, errno_t *_ret)
{
    *_ret = EOK;
    if (mc == NULL) {
        return false;
    }
    if (mc->type != type) {
        DEBUG(SSSDBG_CRIT_FAILURE, "invalid argument: a record for the %s file\n", mc->path);
        *_ret = EINVAL;
        return false;
    }
    return mc->base != NULL;
}

/* Copies n strings (NULL as "") one after the other, each with its NUL. */
static size_t put_strs(uint8_t *dst, const char *const *strs, size_t n)
{
    size_t pos = 0;
    size_t len;
    size_t i;

    for (i = 0; i < n; i++) {
        const char *s = strs[i] != NULL ? strs[i] : "";

        len = strlen(s) + 1;
        if (dst != NULL) {
            memcpy(dst + pos, s, len);
        }
        pos += len;
    }
    return pos;
}

errno_t nss_mc_store_passwd_keys(struct nss_mc *mc, const struct nss_pw_entry *pw,
                                 uint32_t max_ttl, unsigned int keys)
{
    TALLOC_CTX *tmp_ctx;
    struct sss_mc_pwd_data *d;
    struct nss_mc_part part;
    const char *strs[NSS_PW_NUM_STRS];
    char idkey[16];
    size_t strs_len;
    errno_t ret;

    if (!nss_mc_store_begin(mc, NSS_MC_PASSWD, &ret)) {
        return ret;
    }
    SSS_CHECK_ARG(pw != NULL && pw->name != NULL, EINVAL);
    SSS_CHECK_ARG(keys != 0 && (keys & ~NSS_MC_KEYS_ALL) == 0, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    nss_pw_strs(pw, mc->pwfield, strs);
    strs_len = put_strs(NULL, strs, NSS_PW_NUM_STRS);
    if (strs_len > UINT32_MAX - sizeof(*d) - sizeof(struct sss_mc_rec)) {
        ret = E2BIG;
        goto done;
    }
    d = talloc_size(tmp_ctx, sizeof(*d) + strs_len);
    if (d == NULL) {
        ret = ENOMEM;
        goto done;
    }
    d->name = offsetof(struct sss_mc_pwd_data, strs);
    d->uid = pw->uid;
    d->gid = pw->gid;
    d->strs_len = (uint32_t)strs_len;
    put_strs((uint8_t *)d->strs, strs, NSS_PW_NUM_STRS);
    snprintf(idkey, sizeof(idkey), "%ld", (long)pw->uid);

    part.p = d;
    part.len = sizeof(*d) + strs_len;
    ret = nss_mc_put(mc, max_ttl, keys, pw->name, 2, idkey, pw->uid, &part, 1);
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t nss_mc_store_group_keys(struct nss_mc *mc, const struct nss_gr_entry *gr,
                                uint32_t max_ttl, unsigned int keys)
{
    TALLOC_CTX *tmp_ctx;
    struct sss_mc_grp_data *d;
    struct nss_mc_part parts[2];
    const char *strs[2];
    char idkey[16];
    size_t head_len;
    size_t tail_len = 0;
    size_t i;
    errno_t ret;

    if (!nss_mc_store_begin(mc, NSS_MC_GROUP, &ret)) {
        return ret;
    }
    SSS_CHECK_ARG(gr != NULL && gr->name != NULL, EINVAL);
    SSS_CHECK_ARG(gr->num_members == 0 || gr->members != NULL, EINVAL);
    SSS_CHECK_ARG(keys != 0 && (keys & ~NSS_MC_KEYS_ALL) == 0, EINVAL);
    if (gr->num_members > UINT32_MAX) {
        return EINVAL;
    }
    /* The header, name and passwd field are built here; the member names follow them,
     * either as the formatter's packed block (used in place) or copied one by one. */
    strs[0] = gr->name;
    strs[1] = mc->pwfield;
    head_len = put_strs(NULL, strs, 2);
    if (gr->packed != NULL) {
        tail_len = gr->packed_len;
    }
    for (i = 0; gr->packed == NULL && i < gr->num_members; i++) {
        tail_len += strlen(gr->members[i] != NULL ? gr->members[i] : "") + 1;
        if (tail_len > UINT32_MAX - head_len - sizeof(*d) - sizeof(struct sss_mc_rec)) {
            break;
        }
    }
    if (tail_len > UINT32_MAX - head_len - sizeof(*d) - sizeof(struct sss_mc_rec)) {
        return E2BIG;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    d = talloc_size(tmp_ctx, sizeof(*d) + head_len + (gr->packed != NULL ? 0 : tail_len));
    if (d == NULL) {
        ret = ENOMEM;
        goto done;
    }
    d->name = offsetof(struct sss_mc_grp_data, strs);
    d->gid = gr->gid;
    d->members = (uint32_t)gr->num_members;
    d->strs_len = (uint32_t)(head_len + tail_len);
    put_strs((uint8_t *)d->strs, strs, 2);
    parts[0].p = d;
    parts[0].len = sizeof(*d) + head_len;
    parts[1].p = gr->packed;
    parts[1].len = gr->packed != NULL ? tail_len : 0;
    if (gr->packed == NULL) {
        put_strs((uint8_t *)d->strs + head_len, gr->members, gr->num_members);
        parts[0].len += tail_len;
    }
    snprintf(idkey, sizeof(idkey), "%ld", (long)gr->gid);
    ret = nss_mc_put(mc, max_ttl, keys, gr->name, 2, idkey, gr->gid, parts, 2);
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t nss_mc_store_initgr_ttl(struct nss_mc *mc, const char *name, const char *unique_name,
                                const uint32_t *gids, size_t num_gids, uint32_t max_ttl)
{
    TALLOC_CTX *tmp_ctx;
    struct sss_mc_initgr_data *d;
    struct nss_mc_part part;
    size_t gids_len;
    size_t name_len;
    size_t uniq_len;
    size_t data_len;
    uint8_t *p;
    errno_t ret;

    if (!nss_mc_store_begin(mc, NSS_MC_INITGROUPS, &ret)) {
        return ret;
    }
    SSS_CHECK_ARG(name != NULL && unique_name != NULL, EINVAL);
    SSS_CHECK_ARG(num_gids == 0 || gids != NULL, EINVAL);
    if (num_gids > UINT32_MAX / sizeof(uint32_t)) {
        return EINVAL;
    }
    gids_len = num_gids * sizeof(uint32_t);
    name_len = strlen(name) + 1;
    uniq_len = strlen(unique_name) + 1;
    if (name_len + uniq_len > UINT32_MAX - gids_len - sizeof(*d)
                                - sizeof(struct sss_mc_rec)) {
        return E2BIG;
    }
    data_len = gids_len + uniq_len + name_len;
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    d = talloc_size(tmp_ctx, sizeof(*d) + data_len);
    if (d == NULL) {
        ret = ENOMEM;
        goto done;
    }
    /* gids, then the unique name, then the name as asked; offsets from the struct start */
    d->strs = (uint32_t)(offsetof(struct sss_mc_initgr_data, gids) + gids_len);
    d->unique_name = d->strs;
    d->name = (uint32_t)(d->strs + uniq_len);
    d->strs_len = (uint32_t)(uniq_len + name_len);
    d->data_len = (uint32_t)data_len;
    d->num_groups = (uint32_t)num_gids;
    p = (uint8_t *)d->gids;
    if (gids_len != 0) {
        memcpy(p, gids, gids_len);
    }
    memcpy(p + gids_len, unique_name, uniq_len);
    memcpy(p + gids_len + uniq_len, name, name_len);

    part.p = d;
    part.len = sizeof(*d) + data_len;
    ret = nss_mc_put(mc, max_ttl, NSS_MC_KEYS_ALL, name, 2, unique_name, 0, &part, 1);
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t nss_mc_store_passwd_ttl(struct nss_mc *mc, const struct nss_pw_entry *pw,
                                uint32_t max_ttl)
{
    return nss_mc_store_passwd_keys(mc, pw, max_ttl, NSS_MC_KEYS_ALL);
}

errno_t nss_mc_store_group_ttl(struct nss_mc *mc, const struct nss_gr_entry *gr,
                               uint32_t max_ttl)
{
    return nss_mc_store_group_keys(mc, gr, max_ttl, NSS_MC_KEYS_ALL);
}

errno_t nss_mc_store_passwd(struct nss_mc *mc, const struct nss_pw_entry *pw)
{
    return nss_mc_store_passwd_ttl(mc, pw, UINT32_MAX);
}

errno_t nss_mc_store_group(struct nss_mc *mc, const struct nss_gr_entry *gr)
{
    return nss_mc_store_group_ttl(mc, gr, UINT32_MAX);
}

errno_t nss_mc_store_initgr(struct nss_mc *mc, const char *name, const char *unique_name,
                            const uint32_t *gids, size_t num_gids)
{
    return nss_mc_store_initgr_ttl(mc, name, unique_name, gids, num_gids, UINT32_MAX);
}
