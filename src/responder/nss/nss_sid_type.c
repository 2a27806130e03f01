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

static bool nss_sid_domain_mpg(struct resp_ctx *rctx, const struct resp_domain *dom)
{
    char section[256];
    char *mpg = NULL;
    bool both;

    if (rctx == NULL || dom == NULL || dom->name == NULL) {
        return false;
    }
    snprintf(section, sizeof(section), "domain/%s", dom->name);
    both = confdb_get_string(rctx->cdb, NULL, section, "auto_private_groups", &mpg) == EOK
           && mpg != NULL && strcasecmp(mpg, "true") == 0;
    talloc_free(mpg);
    return both;
}

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

uint32_t nss_sid_type_of(struct resp_ctx *rctx, struct resp_domain *dom,
                         const struct sysdb_group *group)
{
    if (!nss_sid_domain_mpg(rctx, dom)) {
        return group == NULL ? NSS_SID_TYPE_UID : NSS_SID_TYPE_GID;
    }
    if (group == NULL || nss_sid_group_private(rctx, dom, group)) {
        return NSS_SID_TYPE_BOTH;
    }
    return NSS_SID_TYPE_GID;
}
