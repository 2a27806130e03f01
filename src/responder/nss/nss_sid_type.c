/*
 * The sss_id_type the by-SID and original-data replies carry for an object, as SSSD 2.8's
 * nss responder computes it (find_sss_id_type): a group is GID; a user is UID, or BOTH in
 * a domain with auto_private_groups = true, where every user's uid is also the gid of its
 * private group. SSSD's cache holds that private group as the user's own entry, so a
 * group lookup that lands on it (getsidbygid of the uid, getsidbygroupname of the user's
 * name) answers BOTH too; a real group stays GID.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "responder/nss/nss_sid.h"
#include "confdb/confdb.h"
#include "db/sysdb.h"

/* Whether group (found in dom) is a user's private group: the cached user of that uid
 * has the group's name. */
static bool nss_sid_group_private(struct resp_ctx *rctx, struct resp_domain *dom,
                                  const struct sysdb_group *group)
{
    struct sysdb_ctx *sysdb = NULL;
    struct sysdb_user *user = NULL;
    bool same;

    if (group == NULL || group->name == NULL
            || resp_domain_sysdb(rctx, dom, &sysdb) != EOK
            || sysdb_get_user_by_uid(NULL, sysdb, group->gid, &user) != EOK) {
        return false;
    }
    same = user->name != NULL && strcmp(user->name, group->name) == 0;
    talloc_free(user);
    return same;
}

uint32_t nss_sid_type_of(struct nss_ctx *nctx, struct resp_domain *dom,
                         const struct sysdb_group *group)
{
    struct resp_ctx *rctx = nctx->rctx;

    if (!nss_sid_domain_mpg(nctx, dom)) {
        return group == NULL ? NSS_SID_TYPE_UID : NSS_SID_TYPE_GID;
    }
    if (group == NULL || nss_sid_group_private(rctx, dom, group)) {
        return NSS_SID_TYPE_BOTH;
    }
    return NSS_SID_TYPE_GID;
}
