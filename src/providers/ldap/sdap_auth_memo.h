/*
 * access_provider = ad: the user's entry an account check read, remembered for a short
 * window (pam_id_timeout, the freshness sssd_pam asks of the user's identity for a login),
 * so that the account checks of logins that follow each other closely (scripts, sudo in a
 * loop, several sessions at once) ask the DC once: the rules are evaluated again each time,
 * at that time, on the remembered userAccountControl and accountExpires.
 */
#ifndef SDAP_AUTH_MEMO_H
#define SDAP_AUTH_MEMO_H

#include <time.h>
#include <talloc.h>

#include "providers/ldap/sdap_access_rules.h"

struct sdap_auth_memo;

/* A memo keeping entries window seconds (0: none is kept); NULL on ENOMEM. */
struct sdap_auth_memo *sdap_auth_memo_new(TALLOC_CTX *mem_ctx, time_t window);

/* The entry of dn read less than the window before now, copied onto mem_ctx. ENOENT: none
 * (or too old, or from the future: the clock went back), ENOMEM. */
errno_t sdap_auth_memo_get(struct sdap_auth_memo *memo, TALLOC_CTX *mem_ctx, const char *dn,
                           time_t now, struct sdap_rule_attr **_attrs, size_t *_num);

/* Remembers dn's entry (copied) as read at now. Failures only cost a search later. */
void sdap_auth_memo_put(struct sdap_auth_memo *memo, const char *dn, time_t now,
                        const struct sdap_rule_attr *attrs, size_t num);

#endif /* SDAP_AUTH_MEMO_H */
