/*
 * Optimistic pre-authentication for krb5_child's password logins. Without it a KDC that
 * requires pre-authentication (AD always, MIT with +requires_preauth) costs two AS
 * exchanges per login: the first, without padata, only fetches KDC_ERR_PREAUTH_REQUIRED
 * and the PA-ETYPE-INFO2 (enctype, salt, iterations); the second carries the encrypted
 * timestamp. sssd_be keeps, per principal, the salt hint of the last successful login
 * (what the KDC answered then: krb5_child_s2k_hook.c notes the inputs of the key that
 * decrypted the AS-REP) and passes it back; the first AS-REQ then carries
 * PA-ENC-TIMESTAMP under that salt (libkrb5's optimistic pre-authentication:
 * krb5_get_init_creds_opt_set_preauth_list + _set_salt, the hinted enctype first).
 *
 * A wrong hint (the principal renamed, its keys re-salted) must only cost a retry: the
 * KDC answers PREAUTH_FAILED, and the exchange starts over without the hint, as before.
 * That retry must not turn a wrong password into two failed attempts at the KDC (its
 * lockout counter): when the KDC's own PA-ETYPE-INFO2 names the very salt already tried,
 * the key would be the one just refused, so the hook refuses to derive it and the login
 * fails as a wrong password, the second encrypted timestamp never sent. A wrong password
 * thus still costs two AS exchanges and one failed pre-authentication.
 *
 * Only hints of the AES enctypes with the default iteration count are used: libkrb5 has
 * no option to pass s2kparams ahead of the KDC's answer. The kadmin/changepw ticket of a
 * password change goes through here too, never optimistic.
 */
#include "providers/krb5/krb5_child_asreq.h"

#define K5A_ETYPES_MAX 32

/* The hinted enctype first, then the permitted ones in their order: the KDC answers with
 * the first enctype it has a key for, the one the timestamp was made with. */
static krb5_error_code k5a_etypes(krb5_context kctx, krb5_enctype first,
                                  krb5_enctype *out, int *_n)
{
    krb5_enctype *permitted = NULL;
    krb5_error_code kerr;
    int n = 0;
    int i;

    kerr = krb5_get_permitted_enctypes(kctx, &permitted);
    if (kerr != 0) {
        return kerr;
    }
    out[n++] = first;
    for (i = 0; permitted[i] != 0 && n < K5A_ETYPES_MAX; i++) {
        if (permitted[i] != first) {
            out[n++] = permitted[i];
        }
    }
    krb5_free_enctypes(kctx, permitted);
    *_n = n;
    return 0;
}

static bool k5a_hint_usable(const struct krb5_child_salt_hint *h)
{
    return h != NULL && k5s2k_key_len(h->etype) > 0 && h->iter == k5s2k_default_iter(h->etype)
           && h->salt != NULL && h->salt[0] != '\0'
           && strlen(h->salt) <= K5S2K_SEEN_SALT_MAX;
}

/* The errors of a KDC that did not take the optimistic timestamp. */
static bool k5a_retry_after(krb5_error_code kerr)
{
    switch (kerr) {
    case KRB5KDC_ERR_PREAUTH_FAILED:
    case KRB5_PREAUTH_FAILED:
    case KRB5KDC_ERR_ETYPE_NOSUPP:
    case KRB5KRB_AP_ERR_BAD_INTEGRITY:
    case KRB5KRB_ERR_GENERIC:
        return true;
    default:
        return false;
    }
}

/* The options of one AS exchange; a->service NULL: a TGT, else a ticket for that service
 * (kadmin/changepw). */
static krb5_error_code k5a_make_opts(const struct k5c_asreq *a, krb5_get_init_creds_opt **_opts)
{
    const struct krb5_child_req *req = a->req;
    krb5_get_init_creds_opt *opts = NULL;
    krb5_error_code kerr;

    kerr = krb5_get_init_creds_opt_alloc(a->kctx, &opts);
    if (kerr != 0) {
        return kerr;
    }
    if (a->service == NULL) {
        if (req->lifetime > 0) {
            krb5_get_init_creds_opt_set_tkt_life(opts, req->lifetime);
        }
        if (req->renewable_lifetime > 0) {
            krb5_get_init_creds_opt_set_renew_life(opts, req->renewable_lifetime);
        }
        krb5_get_init_creds_opt_set_forwardable(opts, 1);
    } else {
        /* A ticket for kpasswd: short-lived, never forwarded nor renewed. */
        krb5_get_init_creds_opt_set_tkt_life(opts, 5 * 60);
        krb5_get_init_creds_opt_set_forwardable(opts, 0);
        krb5_get_init_creds_opt_set_proxiable(opts, 0);
        krb5_get_init_creds_opt_set_renew_life(opts, 0);
    }
    krb5_get_init_creds_opt_set_canonicalize(opts,
                                             (req->flags & KRB5_CHILD_F_CANONICALIZE) != 0);
    /* An expired password is reported (PASSWORD_EXPIRED), never changed in a dialogue. */
    krb5_get_init_creds_opt_set_change_password_prompt(opts, 0);
    *_opts = opts;
    return 0;
}

static krb5_error_code k5a_attempt(const struct k5c_asreq *a, krb5_creds *creds,
                                   const struct krb5_child_salt_hint *hint)
{
    krb5_get_init_creds_opt *opts = NULL;
    krb5_preauthtype pa[1] = { KRB5_PADATA_ENC_TIMESTAMP };
    krb5_enctype etypes[K5A_ETYPES_MAX];
    krb5_data salt;
    int n = 0;
    krb5_error_code kerr;

    kerr = k5a_make_opts(a, &opts);
    if (kerr == 0 && hint != NULL) {
        kerr = k5a_etypes(a->kctx, hint->etype, etypes, &n);
        if (kerr == 0) {
            salt.magic = KV5M_DATA;
            salt.data = discard_const(hint->salt);
            salt.length = (unsigned int)strlen(hint->salt);
            krb5_get_init_creds_opt_set_preauth_list(opts, pa, 1);
            krb5_get_init_creds_opt_set_salt(opts, &salt);
            krb5_get_init_creds_opt_set_etype_list(opts, etypes, n);
        }
    }
    if (kerr == 0) {
        k5s2k_seen_reset();
        kerr = krb5_get_init_creds_password(a->kctx, creds, a->princ, a->password,
                                            a->prompter, a->prompter_data, 0,
                                            discard_const(a->service), opts);
    }
    if (opts != NULL) {
        krb5_get_init_creds_opt_free(a->kctx, opts);
    }
    return kerr;
}

/* The hint for the next login: the inputs of the key that just worked, when they are an
 * AES enctype and a salt that is a string. */
static void k5a_learn(TALLOC_CTX *mem_ctx, struct krb5_child_salt_hint *_learned)
{
    const struct k5s2k_seen *s = &k5s2k_last;
    char *salt;

    if (s->enctype < KRB5_CHILD_HINT_ETYPE_MIN || s->enctype > KRB5_CHILD_HINT_ETYPE_MAX
            || s->iter == 0 || s->salt_len == 0 || s->salt_len > KRB5_CHILD_HINT_SALT_MAX
            || memchr(s->salt, '\0', s->salt_len) != NULL) {
        return;
    }
    salt = talloc_strndup(mem_ctx, (const char *)s->salt, s->salt_len);
    if (salt == NULL) {
        return;     /* no hint: the next login makes two exchanges */
    }
    _learned->etype = s->enctype;
    _learned->iter = s->iter;
    _learned->salt = salt;
}

krb5_error_code k5c_asreq_password(TALLOC_CTX *mem_ctx, const struct k5c_asreq *a,
                                   krb5_creds *creds, struct krb5_child_salt_hint *_learned)
{
    struct k5s2k_seen tried;
    krb5_error_code kerr;
    bool optimistic;

    SSS_CHECK_ARG(mem_ctx != NULL && a != NULL && creds != NULL && _learned != NULL, EINVAL);
    memset(_learned, 0, sizeof(*_learned));
    optimistic = a->service == NULL && k5a_hint_usable(a->hint);
    if (optimistic) {
        kerr = k5a_attempt(a, creds, a->hint);
        if (kerr == 0) {
            DEBUG(SSSDBG_TRACE_FUNC, "one AS exchange: the salt hint was right\n");
            k5a_learn(mem_ctx, _learned);
            return 0;
        }
        if (!k5a_retry_after(kerr)) {
            return kerr;
        }
        DEBUG(SSSDBG_TRACE_FUNC, "the KDC refused the optimistic pre-authentication (%d): "
              "asking it for the salt\n", (int)kerr);
        /* The timestamp made with the hint's key was refused: that key must not be
         * offered again (only PREAUTH_FAILED says the KDC checked it). */
        memset(&tried, 0, sizeof(tried));
        tried.enctype = a->hint->etype;
        tried.iter = a->hint->iter;
        tried.salt_len = strlen(a->hint->salt);
        memcpy(tried.salt, a->hint->salt, tried.salt_len);
        if (kerr == KRB5KDC_ERR_PREAUTH_FAILED) {
            k5s2k_refuse = &tried;
        }
    }
    kerr = k5a_attempt(a, creds, NULL);
    k5s2k_refuse = NULL;
    if (optimistic && k5s2k_refused) {
        DEBUG(SSSDBG_TRACE_FUNC, "the KDC's salt is the hint's: the password is wrong\n");
        return KRB5KDC_ERR_PREAUTH_FAILED;
    }
    if (kerr == 0 && a->service == NULL) {
        k5a_learn(mem_ctx, _learned);
    }
    return kerr;
}
