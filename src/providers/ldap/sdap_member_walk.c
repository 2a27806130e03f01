/*
 * The member-graph walker (see sdap_member_walk.h): the breadth-first walk every member
 * list of the DN-member schemas comes from, so a lookup, an initgroups replay and an
 * enumeration give a group the same members. The walker owns its two level buffers and
 * the visit stamps; it grows the buffers as a walk needs them, so its callers need not know
 * the graph's size. The stamps come from one process-wide counter, so a node never looks
 * taken to a walk because another walker (or a test) stamped it before.
 */
#include <assert.h>

#include "util/util.h"
#include "providers/ldap/sdap_member_walk.h"

/* The last stamp handed out (64 bits: never wraps). */
static uint64_t mw_stamps;

struct sdap_mw {
    int nesting_level;
    struct sdap_mw_node **frontier;
    struct sdap_mw_node **next;
    size_t cap;                         /* of both buffers */
};

struct sdap_mw *sdap_mw_new(TALLOC_CTX *mem_ctx, int nesting_level)
{
    struct sdap_mw *w = talloc_zero(mem_ctx, struct sdap_mw);

    if (w == NULL) {
        return NULL;
    }
    w->nesting_level = nesting_level < 0 ? 0 : nesting_level;
    return w;
}

/* Room for n nodes in each buffer (the frontier's first n are kept). */
static errno_t mw_reserve(struct sdap_mw *w, size_t n)
{
    struct sdap_mw_node **f;
    struct sdap_mw_node **x;
    size_t cap;

    if (n <= w->cap) {
        return EOK;
    }
    cap = w->cap > 0 ? w->cap : 16;
    while (cap < n) {
        cap *= 2;
    }
    f = talloc_realloc(w, w->frontier, struct sdap_mw_node *, cap);
    if (f == NULL) {
        return ENOMEM;
    }
    w->frontier = f;
    x = talloc_realloc(w, w->next, struct sdap_mw_node *, cap);
    if (x == NULL) {
        return ENOMEM;
    }
    w->next = x;
    w->cap = cap;
    return EOK;
}

errno_t sdap_mw_walk(struct sdap_mw *w, struct sdap_mw_node *top, sdap_mw_visit_fn fn,
                     void *pvt, size_t *budget)
{
    struct sdap_mw_node **swap;
    size_t num_frontier = 1;
    size_t num_next;
    size_t f;
    size_t k;
    uint64_t stamp;
    int dist = 1;
    errno_t ret;

    SSS_CHECK_ARG(w != NULL && top != NULL && fn != NULL, EINVAL);
    ret = mw_reserve(w, 1);
    if (ret != EOK) {
        return ret;
    }
    /* A stamp per walk: nodes taken by an earlier walk count as new again. */
    stamp = __atomic_add_fetch(&mw_stamps, 1, __ATOMIC_RELAXED);
    top->visit = stamp;
    w->frontier[0] = top;
    while (num_frontier > 0) {
        num_next = 0;
        for (f = 0; f < num_frontier; f++) {
            struct sdap_mw_node *g = w->frontier[f];

            if (!g->expanded) {
                return ENOENT;      /* beyond what the graph holds */
            }
            assert(g->members != NULL || g->num_members == 0);
            if (budget != NULL) {
                *budget = *budget > g->num_members ? *budget - g->num_members : 0;
            }
            for (k = 0; k < g->num_members; k++) {
                struct sdap_mw_node *m = g->members[k];

                if (m == NULL || m->visit == stamp) {
                    continue;       /* dangling, or taken already (loops, duplicates) */
                }
                m->visit = stamp;
                if (m->kind == SDAP_MW_NONE) {
                    continue;
                }
                ret = fn(m, dist, pvt);
                if (ret != EOK) {
                    return ret;
                }
                if (m->kind == SDAP_MW_GROUP && dist <= w->nesting_level) {
                    ret = mw_reserve(w, num_next + 1);
                    if (ret != EOK) {
                        return ret;
                    }
                    w->next[num_next++] = m;
                }
            }
        }
        swap = w->frontier;
        w->frontier = w->next;
        w->next = swap;
        num_frontier = num_next;
        dist++;
    }
    return EOK;
}

struct mw_lists {
    struct sdap_strset *users;
    struct sdap_strset *groups;
};

static errno_t mw_collect(struct sdap_mw_node *node, int dist, void *pvt)
{
    struct mw_lists *lists = pvt;

    /* false from the set is "had it" (two DNs, one name) or a logged ENOMEM: as the
     * level-by-level lookups always took it. */
    if (node->kind == SDAP_MW_USER) {
        sdap_strset_add(lists->users, node->name);
    } else if (dist == 1) {
        sdap_strset_add(lists->groups, node->name);
    }
    return EOK;
}

errno_t sdap_mw_group_members(struct sdap_mw *w, struct sdap_mw_node *top,
                              struct sdap_group *group, size_t *budget)
{
    struct mw_lists lists;
    errno_t ret;

    SSS_CHECK_ARG(w != NULL && top != NULL && group != NULL, EINVAL);
    lists.users = sdap_strset_new(NULL);
    lists.groups = sdap_strset_new(lists.users);
    if (lists.users == NULL || lists.groups == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sdap_mw_walk(w, top, mw_collect, &lists, budget);
    if (ret != EOK) {
        goto done;
    }
    ret = sdap_group_set_members(group, lists.users, lists.groups);
done:
    talloc_free(lists.users);
    return ret;
}
