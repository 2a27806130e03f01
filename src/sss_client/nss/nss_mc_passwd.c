/*
 * passwd lookups in the memory cache: by name (key1) and by uid (key2, the decimal uid).
 * Records are checked field by field before use; anything inconsistent is a miss.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/nss/nss_mc.h"
#include "sss_client/nss/nss_private.h"

/* The record's data and the length of its strings, or NULL when it does not hold up. */
static const struct sss_mc_pwd_data *pwd_data(const struct sss_mc_rec *rec)
{
    const struct sss_mc_pwd_data *d = (const struct sss_mc_pwd_data *)rec->data;
    size_t dlen = rec->len - sizeof(struct sss_mc_rec);
    size_t hdr = offsetof(struct sss_mc_pwd_data, strs);

    if (dlen < hdr || d->strs_len > dlen - hdr
            || nss_mc_check_str((const char *)d, hdr, hdr + d->strs_len, d->name) != 0) {
        return NULL;
    }
    return d;
}

static int match_name(const struct sss_mc_rec *rec, const void *key)
{
    const struct sss_mc_pwd_data *d = pwd_data(rec);

    if (d == NULL) {
        return -1;
    }
    return strcmp((const char *)d + d->name, key) == 0;
}

static int match_uid(const struct sss_mc_rec *rec, const void *key)
{
    const struct sss_mc_pwd_data *d = pwd_data(rec);

    if (d == NULL) {
        return -1;
    }
    return d->uid == *(const uint32_t *)key;
}

static int fill(struct sss_mc_rec *rec, struct passwd *pw, char *buf, size_t buflen)
{
    const struct sss_mc_pwd_data *d = pwd_data(rec);
    size_t used;
    int ret;

    ret = nss_fill_passwd(d->uid, d->gid, d->strs, d->strs_len, &used, pw, buf, buflen);
    free(rec);
    if (ret != 0 && ret != ERANGE) {
        return ENOENT;
    }
    return ret;
}

int nss_mc_getpwnam(const char *name, size_t name_len,
                    struct passwd *pw, char *buf, size_t buflen)
{
    struct sss_mc_rec *rec = NULL;
    int ret;

    ret = nss_mc_find(&nss_mc_passwd_file, name, name_len + 1, false, match_name, name, &rec);
    if (ret != 0) {
        return ENOENT;
    }
    return fill(rec, pw, buf, buflen);
}

int nss_mc_getpwuid(uid_t uid, struct passwd *pw, char *buf, size_t buflen)
{
    struct sss_mc_rec *rec = NULL;
    char key[32];
    uint32_t id = (uint32_t)uid;
    int len;
    int ret;

    len = snprintf(key, sizeof(key), "%ld", (long)uid);
    if (len < 0 || (size_t)len >= sizeof(key)) {
        return ENOENT;
    }
    ret = nss_mc_find(&nss_mc_passwd_file, key, (size_t)len + 1, true, match_uid, &id, &rec);
    if (ret != 0) {
        return ENOENT;
    }
    return fill(rec, pw, buf, buflen);
}
