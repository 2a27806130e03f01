/*
 * group lookups in the memory cache: by name (key1) and by gid (key2, the decimal gid).
 * Records are checked field by field before use; anything inconsistent is a miss.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/nss/nss_mc.h"
#include "sss_client/nss/nss_private.h"

static const struct sss_mc_grp_data *grp_data(const struct sss_mc_rec *rec)
{
    const struct sss_mc_grp_data *d = (const struct sss_mc_grp_data *)rec->data;
    size_t dlen = rec->len - sizeof(struct sss_mc_rec);
    size_t hdr = offsetof(struct sss_mc_grp_data, strs);

    if (dlen < hdr || d->strs_len > dlen - hdr
            || nss_mc_check_str((const char *)d, hdr, hdr + d->strs_len, d->name) != 0) {
        return NULL;
    }
    return d;
}

static int match_name(const struct sss_mc_rec *rec, const void *key)
{
    const struct sss_mc_grp_data *d = grp_data(rec);

    if (d == NULL) {
        return -1;
    }
    return strcmp((const char *)d + d->name, key) == 0;
}

static int match_gid(const struct sss_mc_rec *rec, const void *key)
{
    const struct sss_mc_grp_data *d = grp_data(rec);

    if (d == NULL) {
        return -1;
    }
    return d->gid == *(const uint32_t *)key;
}

static int fill(struct sss_mc_rec *rec, struct group *gr, char *buf, size_t buflen)
{
    const struct sss_mc_grp_data *d = grp_data(rec);
    size_t used;
    int ret;

    ret = nss_fill_group(d->gid, d->members, d->strs, d->strs_len, &used, gr, buf, buflen);
    free(rec);
    if (ret != 0 && ret != ERANGE) {
        return ENOENT;
    }
    return ret;
}

int nss_mc_getgrnam(const char *name, size_t name_len,
                    struct group *gr, char *buf, size_t buflen)
{
    struct sss_mc_rec *rec = NULL;
    int ret;

    ret = nss_mc_find(&nss_mc_group_file, name, name_len + 1, false, match_name, name, &rec);
    if (ret != 0) {
        return ENOENT;
    }
    return fill(rec, gr, buf, buflen);
}

int nss_mc_getgrgid(gid_t gid, struct group *gr, char *buf, size_t buflen)
{
    struct sss_mc_rec *rec = NULL;
    char key[32];
    uint32_t id = (uint32_t)gid;
    int len;
    int ret;

    len = snprintf(key, sizeof(key), "%ld", (long)gid);
    if (len < 0 || (size_t)len >= sizeof(key)) {
        return ENOENT;
    }
    ret = nss_mc_find(&nss_mc_group_file, key, (size_t)len + 1, true, match_gid, &id, &rec);
    if (ret != 0) {
        return ENOENT;
    }
    return fill(rec, gr, buf, buflen);
}
