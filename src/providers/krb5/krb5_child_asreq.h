/*
 * krb5_child's AS exchange with a password, optimistic when sssd_be knows the principal's
 * salt (krb5_child_asreq.c). Only krb5_child includes this.
 */
#ifndef SSS_KRB5_CHILD_ASREQ_H
#define SSS_KRB5_CHILD_ASREQ_H

#include <krb5/krb5.h>

#include "providers/krb5/krb5_child_msg.h"
#include "providers/krb5/krb5_child_s2k.h"

struct k5c_asreq {
    krb5_context kctx;
    const struct krb5_child_req *req;   /* lifetimes, flags */
    krb5_principal princ;
    const char *password;
    const char *service;        /* NULL: a TGT; else that service's ticket, no hint used */
    krb5_prompter_fct prompter;
    void *prompter_data;
    const struct krb5_child_salt_hint *hint;    /* NULL or etype 0: none */
};

/* Initial credentials for a->princ into *creds (krb5_get_init_creds_password's result).
 * For a TGT with a usable hint the first AS-REQ carries PA-ENC-TIMESTAMP made with the
 * hinted salt; when the KDC refuses it, the exchange starts over as without a hint, and
 * a password that the KDC's own salt makes into the key already refused is reported as
 * wrong (KRB5KDC_ERR_PREAUTH_FAILED) without being sent again. On success *_learned is
 * the hint for the next login (the salt on mem_ctx), or etype 0 when there is none to
 * keep (not an AES key, a salt that is not a string). */
krb5_error_code k5c_asreq_password(TALLOC_CTX *mem_ctx, const struct k5c_asreq *a,
                                   krb5_creds *creds, struct krb5_child_salt_hint *_learned);

#endif /* SSS_KRB5_CHILD_ASREQ_H */
