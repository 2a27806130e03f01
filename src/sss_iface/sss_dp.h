/*
 * The contract of sssd.dataprovider.getAccountInfo between the responders (callers) and
 * sssd_be (server): what entry_type, filter and extra mean, and what dp_error says.
 * The numbers are SSSD's, so logs and traces read the same.
 *
 *   entry_type  SSS_DP_USER, SSS_DP_GROUP or SSS_DP_INITGROUPS (| SSS_DP_FAST: answer from
 *               a quick path if one exists; never changes the result)
 *   filter      "name=<name>" (the name as the domain stores it, not fully qualified),
 *               "idnumber=<decimal id>", or "*" (enumeration)
 *   domain      the domain name (as in [sssd] domains)
 *   extra       "" for now
 *   reply       dp_error SSS_DP_ERR_*, error an errno_t (EOK, or why it failed), message
 *               human-readable; on DP_ERR_OK the cache holds the answer: a missing entry
 *               means the directory has no such object (the back-end removed it).
 */
#ifndef SSS_DP_H
#define SSS_DP_H

#define SSS_DP_USER             0x0001
#define SSS_DP_GROUP            0x0002
#define SSS_DP_INITGROUPS       0x0003
#define SSS_DP_TYPE_MASK        0x00FF
#define SSS_DP_FAST             0x1000

#define SSS_DP_FILTER_NAME      "name="
#define SSS_DP_FILTER_ID        "idnumber="
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
