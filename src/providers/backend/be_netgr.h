/*
 * The back-end's netgroup request (getAccountInfo entry type SSS_DP_NETGROUP, filter
 * "name=<netgroup>"): ask the LDAP id provider for the netgroup, then make the domain's
 * cache say what the directory said: found, stored with entry_cache_netgroup_timeout;
 * not found, removed from the cache. EOK in both cases; other errors are sdap's and
 * sysdb's (be_account.c maps them to a dp_error).
 */
#ifndef SSS_BE_NETGR_H
#define SSS_BE_NETGR_H

#include "providers/backend/be_ctx.h"

struct tevent_req *be_netgr_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                 struct be_ctx *be, const char *name);
errno_t be_netgr_recv(struct tevent_req *req);

#endif /* SSS_BE_NETGR_H */
