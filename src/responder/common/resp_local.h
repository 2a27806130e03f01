/*
 * The local account files, as glibc's "files" NSS source reads them: the names and ids of
 * /etc/passwd and /etc/group, so that cache_req never asks a directory about an account
 * the machine has itself (local_negative_timeout, issue 17 item 6): a script looping over
 * "getent passwd root" or a service account must not become LDAP searches.
 *
 * Lines are parsed as glibc's files source does: a name before the first ':', the id in
 * the third field; empty lines, lines starting with '#', and the NIS compat entries of
 * compat mode ('+' or '-' first) are skipped, so are lines without a valid id (the name
 * still counts). Names compare exactly, as the files source does.
 *
 * Freshness: each file is checked (stat: device, inode, size, modification time) at most
 * once every RESP_LOCAL_CHECK_MS, from the lookup that finds the interval over, and read
 * again when it changed; a file that cannot be read counts as empty (logged once per
 * change). Nothing is read before the first lookup.
 *
 * Ownership: a struct resp_local is a talloc object; its tables are its children.
 */
#ifndef RESP_LOCAL_H
#define RESP_LOCAL_H

#include "util/util.h"

#define RESP_LOCAL_CHECK_MS 1000

struct resp_local;

/* NULL paths take /etc/passwd and /etc/group. NULL on ENOMEM. */
struct resp_local *resp_local_new(TALLOC_CTX *mem_ctx, const char *passwd_path,
                                  const char *group_path);

bool resp_local_has_user(struct resp_local *l, const char *name);
bool resp_local_has_uid(struct resp_local *l, uint32_t uid);
bool resp_local_has_group(struct resp_local *l, const char *name);
bool resp_local_has_gid(struct resp_local *l, uint32_t gid);

#endif /* RESP_LOCAL_H */
