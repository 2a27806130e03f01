/*
 * The member count past which a group is "big", one value for the back-end and the id
 * provider: the back-end stores a big group by itself, its member lists built in slices
 * across loop turns (be_store.c), and an initgroups stores its big groups without
 * members (be_id_ldap.c); so the initgroups paths never resolve or decode the members of
 * a group with more values than this (sdap_initgroups.c counts them, the graph of
 * sdap_initgroups_graph.c and sdap_member_lists.c do not expand it): its own lookup does.
 */
#ifndef SSS_PROVIDERS_BIG_GROUP_H
#define SSS_PROVIDERS_BIG_GROUP_H

#define SSS_BIG_GROUP 1000

#endif /* SSS_PROVIDERS_BIG_GROUP_H */
