/*
 * initgroups in the memory cache: the record of the name as asked (key1) carries the
 * user's gids; they are appended like a socket reply's. Inconsistent records are misses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/nss/nss_mc.h"
#include "sss_client/nss/nss_private.h"

static const struct sss_mc_initgr_data *initgr_data(const struct sss_mc_rec *rec)
{
    const struct sss_mc_initgr_data *d = (const struct sss_mc_initgr_data *)rec->data;
    size_t dlen = rec->len - sizeof(struct sss_mc_rec);
    size_t hdr = offsetof(struct sss_mc_initgr_data, gids);

    if (dlen < hdr || d->data_len > dlen - hdr
            || d->num_groups > d->data_len / sizeof(uint32_t)
            || nss_mc_check_str((const char *)d, hdr + d->num_groups * sizeof(uint32_t),
                                hdr + d->data_len, d->name) != 0) {
        return NULL;
    }
    return d;
}

static int match_name(const struct sss_mc_rec *rec, const void *key)
{
    const struct sss_mc_initgr_data *d = initgr_data(rec);

    if (d == NULL) {
        return -1;
    }
    return strcmp((const char *)d + d->name, key) == 0;
}

int nss_mc_initgroups_dyn(const char *name, size_t name_len, long int *start,
                          long int *size, gid_t **groups, long int limit)
{
    const struct sss_mc_initgr_data *d;
    struct sss_mc_rec *rec = NULL;
    int ret;

    ret = nss_mc_find(&nss_mc_initgr_file, name, name_len + 1, false, match_name, name, &rec);
    if (ret != 0) {
        return ENOENT;
    }
    d = initgr_data(rec);
    ret = nss_add_gids((const uint8_t *)d->gids, d->num_groups, start, size, groups, limit);
    free(rec);
    return ret;
}
