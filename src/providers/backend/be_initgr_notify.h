/*
 * The memory-cache notice after an initgroups lookup changed a user's groups
 * (be_initgr_notify.c).
 */
#ifndef BE_INITGR_NOTIFY_H
#define BE_INITGR_NOTIFY_H

#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "util/sss_errors.h"

struct be_ctx;

/* The gids in exactly one of the two lists, ascending and each once (*_changed on
 * mem_ctx; *_num_changed 0 when the lists hold the same groups, in any order). */
errno_t be_initgr_diff(TALLOC_CTX *mem_ctx, const uint32_t *old_gids, size_t num_old,
                       const uint32_t *new_gids, size_t num_new,
                       uint32_t **_changed, size_t *_num_changed);

/* Expires the cached entries of the groups of gids (inside the caller's transaction):
 * their member lists miss the change. Groups not cached are skipped. */
errno_t be_initgr_expire_groups(struct be_ctx *be, const uint32_t *gids, size_t n);

/* Signals UpdateInitgroups(user's stored short name, domain, gids) to the responders;
 * failures are logged (the records still expire by their own timeout). */
void be_initgr_notify(struct be_ctx *be, const char *user, const uint32_t *gids, size_t n);

#endif /* BE_INITGR_NOTIFY_H */
