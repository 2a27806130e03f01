/*
 * One breadth-first walker over a member graph that is already in memory (sdap_member_walk.c).
 * A group lookup's member lists (sdap_groups.c), the replays of the nested groups a lookup
 * or an initgroups read (sdap_groups.c, sdap_initgroups_graph.c) and the member lists of
 * enumerated groups (sdap_enum_members.c) all walk their graph the same way: from one
 * group, a node is taken once (by its first, shortest path), users give names, groups met
 * at distance 1 are the direct member groups, and a group is expanded while its distance is
 * within ldap_group_nesting_level. The callers keep their own nodes and embed a struct
 * sdap_mw_node in them; the walker only follows the member pointers.
 */
#ifndef SSS_SDAP_MEMBER_WALK_H
#define SSS_SDAP_MEMBER_WALK_H

#include "providers/ldap/sdap_private.h"

enum sdap_mw_kind {
    SDAP_MW_NONE,       /* read but neither a usable user nor a usable group */
    SDAP_MW_USER,
    SDAP_MW_GROUP,
};

struct sdap_mw_node {
    enum sdap_mw_kind kind;
    bool expanded;                      /* groups: members[] holds the member values */
    const char *name;                   /* user or group name */
    struct sdap_mw_node **members;      /* one per member value; NULL: dangling, not a DN */
    size_t num_members;
    uint64_t visit;                     /* the walk that took it last (the walker's) */
};

struct sdap_mw;

/* A walker for graphs whose groups are expanded within nesting_level (>= 0). */
struct sdap_mw *sdap_mw_new(TALLOC_CTX *mem_ctx, int nesting_level);

/* Called for every node a walk takes (never the top itself), with its distance from the
 * top (1: a direct member). A non-EOK return ends the walk with that error. */
typedef errno_t (*sdap_mw_visit_fn)(struct sdap_mw_node *node, int dist, void *pvt);

/*
 * Walks from top (a group). ENOENT when a group that must be expanded was not (the graph
 * does not hold what the walk needs); the callback's error; ENOMEM. *budget (optional)
 * counts down by one per member value looked at, not below 0: callers that slice their
 * work use it, the walk itself never stops on it.
 */
errno_t sdap_mw_walk(struct sdap_mw *w, struct sdap_mw_node *top, sdap_mw_visit_fn fn,
                     void *pvt, size_t *budget);

/* The walk a lookup of top does: sets group's member_users (every user reached) and
 * member_groups (the groups at distance 1). Errors as sdap_mw_walk. */
errno_t sdap_mw_group_members(struct sdap_mw *w, struct sdap_mw_node *top,
                              struct sdap_group *group, size_t *budget);

#endif /* SSS_SDAP_MEMBER_WALK_H */
