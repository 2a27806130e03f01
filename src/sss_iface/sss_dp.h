/*
 * The contract of sssd.dataprovider.getAccountInfo between the responders (callers) and
 * sssd_be (server): what entry_type, filter and extra mean, and what dp_error says.
 * The numbers are SSSD's, so logs and traces read the same.
 *
 *   entry_type  SSS_DP_USER, SSS_DP_GROUP, SSS_DP_INITGROUPS or SSS_DP_NETGROUP (by name
 *               only) (| SSS_DP_FAST: answer from a quick path if one exists; never changes
 *               the result)
 *   filter      "name=<name>" (the name as the domain stores it, not fully qualified),
 *               "idnumber=<decimal id>", "mail=<address>" (users), "secid=<SID>" (users
 *               and groups: the entry whose ldap_user_objectsid / ldap_group_objectsid
 *               is that SID, "S-1-..."; SSSD's filter), or "*" (enumeration)
 *   domain      the domain name (as in [sssd] domains)
 *   extra       "" for now
 *   reply       dp_error SSS_DP_ERR_*, error an errno_t (EOK, or why it failed), message
 *               human-readable; on DP_ERR_OK the cache holds the answer: a missing entry
 *               means the directory has no such object (the back-end removed it).
 *               gen, entry: on DP_ERR_OK for a user or group by name or id, or an
 *               initgroups, what a read of that key gives right after the back-end's
 *               commit, in the read cache's flat form (sysdb_reply.h), tagged with the
 *               database generation of that read (no bytes: no such entry). gen 0: none
 *               carried (other requests, errors, no read cache); the caller reads the
 *               cache. A caller uses it only while its database is still at gen.
 */
#ifndef SSS_DP_H
#define SSS_DP_H

/*
 * sssd.dataprovider.pamHandler, the PAM request of sssd_pam to the user's back-end:
 *   cmd         SSS_PAM_AUTHENTICATE ... SSS_PAM_PREAUTH (sss_cli.h), as the client sent it
 *   user        the user's short name as the domain stores it; domain: its domain
 *   service, tty, ruser, rhost, cli_pid, cli_flags   what the client sent ("" / 0 if not)
 *   priv        the request came on the private (root-only) socket from uid 0
 *   authtok_type, authtok        SSS_AUTHTOK_TYPE_* and its bytes (no NUL added); empty
 *   newauthtok_type, newauthtok  type SSS_AUTHTOK_TYPE_EMPTY with no bytes when absent
 *   req_id      the request id (last, so the bus probes find it)
 * reply: pam_status (a PAM_* value) and items: the reply items for the client packed as in
 * the client reply body after its two counters, that is n x {uint32 type, uint32 len, data}
 * in host order (SSS_PAM_USER_INFO, SSS_PAM_TEXT_MSG, SSS_PAM_ENV_ITEM ...); the responder
 * adds its own (DOMAIN_NAME) and counts them. The back-end answers every request with a PAM
 * status (a bus error only for a malformed call); no answer means PAM_AUTHINFO_UNAVAIL.
 */
#define SSS_DP_PAM_MAX_ITEMS_LEN  4096  /* the most item bytes a back-end may send back */
/* A reply item for sssd_pam alone (SSS_SERVER_INFO range, never sent to the client), no
 * data: the account is locked (SSSD's account_locked; pam_account_locked_message). */
#define SSS_DP_PAM_ACCOUNT_LOCKED 0x01000100

#define SSS_DP_USER             0x0001
#define SSS_DP_GROUP            0x0002
#define SSS_DP_INITGROUPS       0x0003
#define SSS_DP_NETGROUP         0x0401
#define SSS_DP_TYPE_MASK        0x0FFF
#define SSS_DP_FAST             0x1000

#define SSS_DP_FILTER_NAME      "name="
#define SSS_DP_FILTER_ID        "idnumber="
#define SSS_DP_FILTER_MAIL      "mail="         /* users only: by ldap_user_email */
#define SSS_DP_FILTER_SID       "secid="        /* users, groups: by objectSid */
#define SSS_DP_FILTER_ENUM      "*"

#define SSS_DP_ERR_OK           0   /* the cache is up to date for this request */
#define SSS_DP_ERR_OFFLINE      1   /* no server reachable: answer from the cache */
#define SSS_DP_ERR_TIMEOUT      2   /* the directory did not answer in time */
#define SSS_DP_ERR_FATAL        3   /* anything else; error says what */

/* sudoHandler types (SSSD's values) */
#define SSS_DP_SUDO_FULL        1   /* every rule of the host */
#define SSS_DP_SUDO_RULES       2   /* the named rules */

/* dp_flags */
#define SSS_DP_FLAG_NONE        0

#endif /* SSS_DP_H */
