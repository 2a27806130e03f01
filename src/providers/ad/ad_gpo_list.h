/*
 * The GPO list of GPO-based access control (ad_gpo_list.c), as the directory has it now:
 * the GPOs linked to the host's OUs, the domain and the site that hold computer security
 * settings, in precedence order, each with its DACL. Used by the access request
 * (ad_gpo_access.c), which keeps the list in memory and reads the GPOs' files.
 */
#ifndef AD_GPO_LIST_H
#define AD_GPO_LIST_H

#include <stdbool.h>
#include <stdint.h>
#include <tevent.h>

#include "providers/ldap/sdap_private.h"
#include "providers/ad/ad_gpo.h"
#include "providers/ad/ad_gpo_sd.h"

/* One GPO of the list. */
struct ad_gpo_gpo {
    char *dn;
    char *guid;
    char *name;
    char *path;                 /* gPCFileSysPath */
    uint32_t version;
    struct ad_gpo_sd *sd;
    bool have_data;             /* data: its GptTmpl.inf, once read */
    uint8_t *data;
    size_t len;
};

/* Reads the list for the computer account (SHORTHOST$) of dns_domain; site: ad_site, NULL
 * to ask the DC (an LDAP ping). A linked GPO that cannot be read fails the request with
 * EACCES unless ignore_unreadable. The recv gives the list (an array the caller owns), the
 * host's objectSid and the host name of the DC the searches went to. */
struct tevent_req *ad_gpo_list_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                    struct sdap_id_ctx *id_ctx, const char *account,
                                    const char *dns_domain, const char *site,
                                    bool ignore_unreadable);
errno_t ad_gpo_list_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                         struct ad_gpo_gpo **_gpos, size_t *_num_gpos, char **_host_sid,
                         char **_server);

#endif /* AD_GPO_LIST_H */
