/*
 * Well-known SIDs ([MS-DTYP] 2.4.2.4): the principals every Windows system knows by the same
 * SID (S-1-1-0 Everyone, S-1-5-11 Authenticated Users, BUILTIN\Administrators
 * S-1-5-32-544, ...), named as SSSD 2.8 names them (its table of well-known SIDs, the one
 * with the mandatory-label and NT AUTHORITY additions), in the domain SSSD gives them
 * ("WORLD AUTHORITY", "NT AUTHORITY", "BUILTIN", ...). No directory is asked about them:
 * SSSD answers them from this table, and only a domain SID (S-1-5-21-...) is ever looked up.
 * Pure data and functions.
 */
#ifndef SSS_IDMAP_WELLKNOWN_H
#define SSS_IDMAP_WELLKNOWN_H

#include "util/sss_errors.h"

/*
 * What sid (canonical: decimal, no leading zeros, as idmap_bin_sid_to_str writes it) is:
 *   EOK     a well-known SID: *_dom and *_name give its domain and name (static strings);
 *   ENOENT  a domain SID ("S-1-5-21-..."): a directory object's, to be looked up;
 *   EINVAL  anything else: a SID of a well-known authority that the table does not hold
 *           (S-1-5-32-999, S-1-5-80-...), or no SID at all. Nothing to look up: SSSD
 *           refuses these without asking a directory.
 */
errno_t idmap_wellknown_sid(const char *sid, const char **_dom, const char **_name);

/* The other way: the SID of name in the well-known domain dom (both compared exactly, as
 * SSSD does). ENOENT: not a well-known name; EINVAL: a NULL argument. S-1-5-5-x-y ("LOGON
 * ID", per logon session) has no SID of its own: not answered. */
errno_t idmap_wellknown_name(const char *dom, const char *name, const char **_sid);

#endif /* SSS_IDMAP_WELLKNOWN_H */
