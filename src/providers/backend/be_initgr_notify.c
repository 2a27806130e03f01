/*
 * Telling sssd_nss that a user's groups changed. libnss_sss answers initgroups and group
 * lookups from the memory cache before it asks sssd_nss, so after an initgroups lookup
 * that found the user in other groups than the cache held, the user's initgroups record
 * and the records of the groups joined or left would be served stale until they expire.
 * SSSD's back-end calls the NSS responder's UpdateInitgroups method after every initgroups
 * of a cached user and lets the responder compare; here the back-end compares (it has both
 * lists at hand while it stores) and signals only a change, with the gids that changed.
 * The cached entries of those groups are expired too: their member lists, stored when they
 * were looked up, do not have the change (SSSD edits the member links instead; expiring
 * costs one write per changed group and the next lookup of the group reads it whole).
 */
#include <stdlib.h>

#include "providers/backend/be_ctx.h"
#include "providers/backend/be_initgr_notify.h"
#include "db/sysdb.h"
#include "sss_iface/sss_iface.h"

static int be_gid_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a;
    uint32_t y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

static uint32_t *be_sorted_copy(TALLOC_CTX *mem_ctx, const uint32_t *gids, size_t n)
{
    uint32_t *copy = talloc_array(mem_ctx, uint32_t, n > 0 ? n : 1);

    if (copy == NULL) {
        return NULL;
    }
    if (n > 0) {
        memcpy(copy, gids, n * sizeof(*gids));
        qsort(copy, n, sizeof(*copy), be_gid_cmp);
    }
    return copy;
}

static void be_gid_push(uint32_t *out, size_t *n, uint32_t gid)
{
    if (*n == 0 || out[*n - 1] != gid) {
        out[(*n)++] = gid;
    }
}

errno_t be_initgr_diff(TALLOC_CTX *mem_ctx, const uint32_t *old_gids, size_t num_old,
                       const uint32_t *new_gids, size_t num_new,
                       uint32_t **_changed, size_t *_num_changed)
{
    TALLOC_CTX *tmp_ctx;
    uint32_t *a, *b, *out;
    size_t i = 0, j = 0, n = 0;
    errno_t ret;

    SSS_CHECK_ARG(_changed != NULL && _num_changed != NULL
                  && (num_old == 0 || old_gids != NULL)
                  && (num_new == 0 || new_gids != NULL), EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    a = be_sorted_copy(tmp_ctx, old_gids, num_old);
    b = be_sorted_copy(tmp_ctx, new_gids, num_new);
    out = talloc_array(tmp_ctx, uint32_t, num_old + num_new + 1);
    if (a == NULL || b == NULL || out == NULL) {
        ret = ENOMEM;
        goto done;
    }
    /* Merge the two sorted lists; a gid in only one of them changed. Repeats inside one
     * list (a provider may list a group twice) count once. */
    while (i < num_old || j < num_new) {
        if (j == num_new || (i < num_old && a[i] < b[j])) {
            be_gid_push(out, &n, a[i++]);
        } else if (i == num_old || b[j] < a[i]) {
            be_gid_push(out, &n, b[j++]);
        } else {
            uint32_t same = a[i];

            while (i < num_old && a[i] == same) {
                i++;
            }
            while (j < num_new && b[j] == same) {
                j++;
            }
        }
    }
    *_changed = talloc_steal(mem_ctx, out);
    *_num_changed = n;
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t be_initgr_expire_groups(struct be_ctx *be, const uint32_t *gids, size_t n)
{
    struct sysdb_group *grp;
    errno_t ret = EOK;
    size_t i;

    for (i = 0; i < n && ret == EOK; i++) {
        ret = sysdb_get_group_by_gid(NULL, be->sysdb, gids[i], &grp);
        if (ret == ENOENT) {
            ret = EOK;      /* left a group the cache no longer holds */
            continue;
        }
        if (ret == EOK) {
            ret = sysdb_expire_group(be->sysdb, grp->name);
            talloc_free(grp);
        }
    }
    return ret;
}

void be_initgr_notify(struct be_ctx *be, const char *user, const uint32_t *gids, size_t n)
{
    char *fq = NULL;
    char *short_name = NULL;
    errno_t ret;

    if (be->conn == NULL || n > UINT32_MAX) {
        return;
    }
    /* The responder keys the record by the stored name, folded as the cache folds it. */
    ret = sysdb_fqname(NULL, be->sysdb, user, &fq);
    if (ret == EOK) {
        ret = sysdb_short_name(fq, be->sysdb, fq, &short_name);
    }
    if (ret == EOK) {
        ret = sbus_emit_sssd_nss_MemoryCache_UpdateInitgroups(be->conn, SSS_BUS_PATH,
                                                              short_name, be->domain,
                                                              gids, (uint32_t)n);
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot emit UpdateInitgroups(%s): %s\n", user,
              sss_strerror(ret));
    } else {
        DEBUG(SSSDBG_TRACE_FUNC, "UpdateInitgroups(%s@%s): %zu groups joined or left\n",
              short_name, be->domain, n);
    }
    talloc_free(fq);
}
