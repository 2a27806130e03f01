/*
 * The member lists of many groups computed together (sdap_member_lists.c): their member
 * DNs read level by level down to ldap_group_nesting_level, each DN once for all the
 * groups (sdap_member_dns.c), and each group's lists then computed from those entries as
 * a group lookup (sdap_resolve_members) computes them. For sdap_tokengroups.c and the
 * member prefetch (sdap_groups_batch.c): resolving groups one by one read a DN shared by
 * N groups N times (a user in 5,000 groups: 5,000 searches for the same DN).
 */
#ifndef SSS_SDAP_MEMBER_LISTS_H
#define SSS_SDAP_MEMBER_LISTS_H

#include "providers/ldap/sdap_private.h"

struct sdap_mlists;

/* Member DNs read at most for one set (a base lookup each on AD, whose member DNs are
 * named by cn): bounds what a login waits for beyond the groups themselves, about a
 * second or two on a DC; beyond it the groups go without members. */
#define SDAP_MLISTS_BUDGET 2000

/* An empty set; who names it in the log ("user 'x'"). */
struct sdap_mlists *sdap_mlists_new(TALLOC_CTX *mem_ctx, struct sdap_id_ctx *id_ctx,
                                    const char *who);

/*
 * A group entry known to the set, with its parsed group (NULL: unusable, then a DN that is
 * no member of any list). EOK: e was moved onto the set; EEXIST: its DN was added
 * already; EINVAL: e->dn is not a DN (neither taken). ENOMEM.
 */
errno_t sdap_mlists_add(struct sdap_mlists *ml, struct sdap_entry *e,
                        struct sdap_group *group);

/*
 * The member lists of groups[0..n) (each added before): those computed are set and
 * members_complete; the others stay without members: a group with more than
 * SSS_BIG_GROUP member values (or a ranged one) or that needs one expanded, and all
 * when the member DNs to read pass SDAP_MLISTS_BUDGET or their resolution fails (logged;
 * the request still succeeds). The groups must live as long as the request.
 * Errors: ENOMEM, EINVAL.
 */
struct tevent_req *sdap_mlists_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                    struct sdap_mlists *ml, struct sdap_group **groups,
                                    size_t n);
/* The number of member DNs read is in *_read (optional). */
errno_t sdap_mlists_recv(struct tevent_req *req, size_t *_read);

#endif /* SSS_SDAP_MEMBER_LISTS_H */
