/*
 * The table of well-known SIDs (idmap_wellknown.h). Keyed by the canonical SID string: the
 * requests are rare (libsss_nss_idmap by-SID calls), so a linear scan of ~80 rows is enough.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/idmap/idmap_wellknown.h"

#define WK_NULL "NULL AUTHORITY"
#define WK_WORLD "WORLD AUTHORITY"
#define WK_LOCAL "LOCAL AUTHORITY"
#define WK_CREATOR "CREATOR AUTHORITY"
#define WK_NT "NT AUTHORITY"
#define WK_BUILTIN "BUILTIN"
#define WK_LABEL "MANDATORY LABEL AUTHORITY"
#define WK_AUTH "AUTHENTICATION AUTHORITY"

struct wk_sid {
    const char *sid;
    const char *dom;
    const char *name;
};

static const struct wk_sid wk_table[] = {
    { "S-1-0-0", WK_NULL, "NULL SID" },
    { "S-1-1-0", WK_WORLD, "Everyone" },
    { "S-1-2-0", WK_LOCAL, "LOCAL" },
    { "S-1-2-1", WK_LOCAL, "CONSOLE LOGON" },
    { "S-1-3-0", WK_CREATOR, "CREATOR OWNER" },
    { "S-1-3-1", WK_CREATOR, "CREATOR GROUP" },
    { "S-1-3-2", WK_CREATOR, "CREATOR OWNER SERVER" },
    { "S-1-3-3", WK_CREATOR, "CREATOR GROUP SERVER" },
    { "S-1-3-4", WK_CREATOR, "OWNER RIGHTS" },
    { "S-1-5-1", WK_NT, "DIALUP" },
    { "S-1-5-2", WK_NT, "NETWORK" },
    { "S-1-5-3", WK_NT, "BATCH" },
    { "S-1-5-4", WK_NT, "INTERACTIVE" },
    { "S-1-5-6", WK_NT, "SERVICE" },
    { "S-1-5-7", WK_NT, "ANONYMOUS LOGON" },
    { "S-1-5-8", WK_NT, "PROXY" },
    { "S-1-5-9", WK_NT, "ENTERPRISE DOMAIN CONTROLLERS" },
    { "S-1-5-10", WK_NT, "SELF" },
    { "S-1-5-11", WK_NT, "Authenticated Users" },
    { "S-1-5-12", WK_NT, "RESTRICTED CODE" },
    { "S-1-5-13", WK_NT, "TERMINAL SERVER USER" },
    { "S-1-5-14", WK_NT, "REMOTE INTERACTIVE LOGON" },
    { "S-1-5-15", WK_NT, "This Organization" },
    { "S-1-5-17", WK_NT, "IUSR" },
    { "S-1-5-18", WK_NT, "LOCAL SYSTEM" },
    { "S-1-5-19", WK_NT, "LOCAL SERVICE" },
    { "S-1-5-20", WK_NT, "NETWORK SERVICE" },
    { "S-1-5-33", WK_NT, "WRITE_RESTRICTED_CODE" },
    { "S-1-5-80", WK_NT, "NT_SERVICE" },
    { "S-1-5-113", WK_NT, "LOCAL_ACCOUNT" },
    { "S-1-5-114", WK_NT, "LOCAL MEMBER OF ADMINISTRATORS GROUP" },
    { "S-1-5-1000", WK_NT, "OTHER_ORGANIZATIONS" },
    { "S-1-5-64-10", WK_NT, "NTLM AUTHENTICATION" },
    { "S-1-5-64-14", WK_NT, "SCHANNEL AUTHENTICATION" },
    { "S-1-5-64-21", WK_NT, "DIGEST AUTHENTICATION" },
    { "S-1-5-65-1", WK_NT, "THIS ORGANIZATION CERTIFICATE" },
    { "S-1-5-32-544", WK_BUILTIN, "Administrators" },
    { "S-1-5-32-545", WK_BUILTIN, "Users" },
    { "S-1-5-32-546", WK_BUILTIN, "Guests" },
    { "S-1-5-32-547", WK_BUILTIN, "Power Users" },
    { "S-1-5-32-548", WK_BUILTIN, "Account Operators" },
    { "S-1-5-32-549", WK_BUILTIN, "Server Operators" },
    { "S-1-5-32-550", WK_BUILTIN, "Print Operators" },
    { "S-1-5-32-551", WK_BUILTIN, "Backup Operators" },
    { "S-1-5-32-552", WK_BUILTIN, "Replicator" },
    { "S-1-5-32-554", WK_BUILTIN, "Pre-Windows 2000 Compatible Access" },
    { "S-1-5-32-555", WK_BUILTIN, "Remote Desktop Users" },
    { "S-1-5-32-556", WK_BUILTIN, "Network Configuration Operators" },
    { "S-1-5-32-557", WK_BUILTIN, "Incoming Forest Trust Builders" },
    { "S-1-5-32-558", WK_BUILTIN, "Performance Monitor Users" },
    { "S-1-5-32-559", WK_BUILTIN, "Performance Log Users" },
    { "S-1-5-32-560", WK_BUILTIN, "Windows Authorization Access Group" },
    { "S-1-5-32-561", WK_BUILTIN, "Terminal Server License Servers" },
    { "S-1-5-32-562", WK_BUILTIN, "Distributed COM Users" },
    { "S-1-5-32-568", WK_BUILTIN, "IIS Users" },
    { "S-1-5-32-569", WK_BUILTIN, "Cryptographic Operators" },
    { "S-1-5-32-573", WK_BUILTIN, "Event Log Readers" },
    { "S-1-5-32-574", WK_BUILTIN, "Certificate Service DCOM Access" },
    { "S-1-5-32-575", WK_BUILTIN, "RDS Remote Access Servers" },
    { "S-1-5-32-576", WK_BUILTIN, "RDS Endpoint Servers" },
    { "S-1-5-32-577", WK_BUILTIN, "RDS Management Servers" },
    { "S-1-5-32-578", WK_BUILTIN, "Hyper-V Admins" },
    { "S-1-5-32-579", WK_BUILTIN, "Access Control Assistance OPS" },
    { "S-1-5-32-580", WK_BUILTIN, "Remote Management Users" },
    { "S-1-16-0", WK_LABEL, "UNTRUSTED" },
    { "S-1-16-4096", WK_LABEL, "LOW" },
    { "S-1-16-8192", WK_LABEL, "MEDIUM" },
    { "S-1-16-8448", WK_LABEL, "MEDIUM_PLUS" },
    { "S-1-16-12288", WK_LABEL, "HIGH" },
    { "S-1-16-16384", WK_LABEL, "SYSTEM" },
    { "S-1-16-20480", WK_LABEL, "PROTECTED_PROCESS" },
    { "S-1-16-28672", WK_LABEL, "SECURE_PROCESS" },
    { "S-1-18-1", WK_AUTH, "AUTHENTICATION ASSERTION" },
    { "S-1-18-2", WK_AUTH, "SERVICE ASSERTION" },
    { "S-1-18-3", WK_AUTH, "FRESH_PUBLIC_KEY_IDENTITY" },
    { "S-1-18-4", WK_AUTH, "KEY_TRUST_IDENTITY" },
    { "S-1-18-5", WK_AUTH, "KEY_PROPERTY_MFA" },
    { "S-1-18-6", WK_AUTH, "KEY_PROPERTY_ATTESTATION" },
};

#define WK_DOMAIN_PREFIX "S-1-5-21-"
#define WK_LOGON_PREFIX "S-1-5-5-"

/* s holds n decimal sub-authorities of 32 bits joined by '-', nothing after. */
static bool wk_subauths(const char *s, int n)
{
    unsigned long long v;
    char *end;
    int i;

    for (i = 0; i < n; i++) {
        if (i > 0 && *s++ != '-') {
            return false;
        }
        if (!isdigit((unsigned char)*s)) {
            return false;
        }
        v = strtoull(s, &end, 10);
        if (v > 0xffffffffULL || end - s > 10) {
            return false;
        }
        s = end;
    }
    return *s == '\0';
}

errno_t idmap_wellknown_sid(const char *sid, const char **_dom, const char **_name)
{
    size_t i;

    if (sid == NULL || _dom == NULL || _name == NULL) {
        return EINVAL;
    }
    if (strncmp(sid, WK_DOMAIN_PREFIX, sizeof(WK_DOMAIN_PREFIX) - 1) == 0) {
        return ENOENT;
    }
    for (i = 0; i < sizeof(wk_table) / sizeof(wk_table[0]); i++) {
        if (strcmp(sid, wk_table[i].sid) == 0) {
            *_dom = wk_table[i].dom;
            *_name = wk_table[i].name;
            return EOK;
        }
    }
    /* S-1-5-5-X-Y: a logon session's SID, X and Y change with every session. */
    if (strncmp(sid, WK_LOGON_PREFIX, sizeof(WK_LOGON_PREFIX) - 1) == 0
            && wk_subauths(sid + sizeof(WK_LOGON_PREFIX) - 1, 2)) {
        *_dom = WK_NT;
        *_name = "LOGON ID";
        return EOK;
    }
    return EINVAL;
}

errno_t idmap_wellknown_name(const char *dom, const char *name, const char **_sid)
{
    size_t i;

    if (dom == NULL || name == NULL || _sid == NULL) {
        return EINVAL;
    }
    for (i = 0; i < sizeof(wk_table) / sizeof(wk_table[0]); i++) {
        if (strcmp(name, wk_table[i].name) == 0 && strcmp(dom, wk_table[i].dom) == 0) {
            *_sid = wk_table[i].sid;
            return EOK;
        }
    }
    return ENOENT;
}
