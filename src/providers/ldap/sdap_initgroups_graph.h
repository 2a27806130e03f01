/*
 * The member graph of an rfc2307bis initgroups that also answers `id`'s getgrgid
 * (sdap_initgroups_primary_send): the groups found on the way up, their member DNs
 * resolved on the way, so that each group comes back with the member list its own lookup
 * would give (sdap_initgroups_graph.c).
 */
#ifndef SSS_SDAP_INITGROUPS_GRAPH_H
#define SSS_SDAP_INITGROUPS_GRAPH_H

#include "providers/ldap/sdap_private.h"

struct sdap_ig_graph;

/* A graph holding the user (its canonical DN and name) as a known member. NULL: ENOMEM. */
struct sdap_ig_graph *sdap_ig_graph_new(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                                        const char *user_dn, const char *user_name);
/* A group the upward walk took: its member DNs are read (expanded) and those not known
 * yet become pending. group stays the caller's; it must live as long as the graph. */
errno_t sdap_ig_graph_add_group(struct sdap_ig_graph *g, const struct sdap_entry *e,
                                struct sdap_group *group);
/* Whether e's member values name one of dns (canonical DNs in the set). */
bool sdap_ig_graph_member_of(struct sdap_ig_graph *g, const struct sdap_entry *e,
                             struct sdap_strset *canons);
/* dn's canonical form (sdap_dn_canon), parsed once per distinct string: a DN is named by
 * many groups. Lives as long as the graph; NULL: not a DN (or ENOMEM). */
const char *sdap_ig_graph_canon(struct sdap_ig_graph *g, const char *dn);
/* A filter component resolving up to SDAP_DN_BATCH pending DNs by their RDN value, to OR
 * into the next search of the walk (on mem_ctx), or NULL when none can ride along (NULL
 * with ENOMEM in *_ret). Those DNs are then in flight until sdap_ig_graph_fold_done. */
char *sdap_ig_graph_fold(TALLOC_CTX *mem_ctx, struct sdap_ig_graph *g, errno_t *_ret);
/* An entry of a search that carried a fold (or of the completion): taken when it is one
 * of the DNs asked. */
errno_t sdap_ig_graph_take(struct sdap_ig_graph *g, const struct sdap_entry *e);
/* The search that carried the fold succeeded: the DNs it asked and did not get do not
 * exist (each entry holds its RDN value). */
void sdap_ig_graph_fold_done(struct sdap_ig_graph *g);

/* Resolves what is still pending, level by level (sdap_member_dns.c). */
struct tevent_req *sdap_ig_graph_complete_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                               struct sdap_id_ctx *id_ctx,
                                               struct sdap_ig_graph *g);
errno_t sdap_ig_graph_complete_recv(struct tevent_req *req);

/* Sets the member lists (and members_complete) of every group added whose own lookup the
 * graph can replay; the others are left as they are. */
errno_t sdap_ig_graph_finish(struct sdap_ig_graph *g);

#endif /* SSS_SDAP_INITGROUPS_GRAPH_H */
