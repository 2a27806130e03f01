/*
 * krb5_child's own krb5_c_string_to_key_with_params (and krb5_c_string_to_key), which
 * libkrb5 calls in libk5crypto to turn the password into the long-term key once the KDC
 * has told it the enctype, salt and s2kparams (PA-ETYPE-INFO2 of the AS exchange).
 * Defined in the executable, they come first in the dynamic linker's search order, so
 * libkrb5's calls (through its PLT) land here; the AES enctypes are derived with OpenSSL
 * (krb5_child_s2k.c, half the CPU of the builtin crypto) and everything else goes on to
 * libk5crypto's functions (RTLD_NEXT).
 *
 * Why here and not before the AS exchange: libkrb5 still gets the password, asks the KDC
 * as before and uses the KDC's salt and parameters of this very exchange, so a key made
 * with a wrong salt is never sent, there is no extra round trip, and everything around
 * it (the expiry warning, kpasswd, error codes) is libkrb5's own. Only the arithmetic
 * moves. Anything unusual (an AFS salt, parameters that are not a 4-byte count, counts
 * libk5crypto refuses: below the default, from 2^24 on) goes to libk5crypto, so its
 * errors stay what they were.
 *
 * The hook also notes the inputs of the last AES derivation (k5s2k_last: enctype, salt,
 * count; never the password nor the key): krb5_child_asreq.c hands them to sssd_be as the
 * principal's salt hint after a login they worked for, and refuses a derivation the
 * caller names (k5s2k_refuse) for its retry after a failed optimistic attempt.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <krb5/krb5.h>

#include "providers/krb5/krb5_child_s2k.h"

/* libk5crypto refuses counts from 2^24 on (a KDC cannot make the client spin), and
 * counts below the enctype's default (a KDC cannot weaken the key). */
#define K5S2K_ITER_LIMIT 0x1000000u

struct k5s2k_seen k5s2k_last;
const struct k5s2k_seen *k5s2k_refuse;
bool k5s2k_refused;

void k5s2k_seen_reset(void)
{
    memset(&k5s2k_last, 0, sizeof(k5s2k_last));
    k5s2k_refused = false;
}

static bool k5s2k_seen_is(const struct k5s2k_seen *s, krb5_enctype enctype,
                          const krb5_data *salt, uint32_t iter)
{
    return s->enctype == enctype && s->iter == iter && s->salt_len == salt->length
           && (salt->length == 0 || memcmp(s->salt, salt->data, salt->length) == 0);
}

static void k5s2k_note(krb5_enctype enctype, const krb5_data *salt, uint32_t iter)
{
    memset(&k5s2k_last, 0, sizeof(k5s2k_last));
    if (salt->length > sizeof(k5s2k_last.salt)) {
        return;     /* not recorded: no hint for such a principal */
    }
    k5s2k_last.enctype = enctype;
    k5s2k_last.iter = iter;
    k5s2k_last.salt_len = salt->length;
    if (salt->length > 0) {
        memcpy(k5s2k_last.salt, salt->data, salt->length);
    }
}

typedef krb5_error_code (KRB5_CALLCONV *k5s2k_fn)(krb5_context, krb5_enctype,
                                                  const krb5_data *, const krb5_data *,
                                                  const krb5_data *, krb5_keyblock *);

static krb5_error_code k5s2k_next(krb5_context kctx, krb5_enctype enctype,
                                  const krb5_data *string, const krb5_data *salt,
                                  const krb5_data *params, krb5_keyblock *key)
{
    static k5s2k_fn next;

    if (next == NULL) {
        next = (k5s2k_fn)dlsym(RTLD_NEXT, "krb5_c_string_to_key_with_params");
        if (next == NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "no libk5crypto string-to-key: %s\n", dlerror());
            return KRB5_CRYPTO_INTERNAL;
        }
    }
    DEBUG(SSSDBG_TRACE_FUNC, "string-to-key of enctype %d by libk5crypto\n", (int)enctype);
    return next(kctx, enctype, string, salt, params, key);
}

/* The iteration count of params, as libk5crypto reads it; false: leave it to libk5crypto. */
static bool k5s2k_iter(krb5_enctype enctype, const krb5_data *params, uint32_t *_iter)
{
    const uint8_t *p;
    uint32_t iter;

    if (params == NULL || params->length == 0) {
        *_iter = k5s2k_default_iter(enctype);
        return true;
    }
    if (params->length != 4 || params->data == NULL) {
        return false;
    }
    p = (const uint8_t *)params->data;
    iter = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
    if (iter < k5s2k_default_iter(enctype) || iter >= K5S2K_ITER_LIMIT) {
        return false;
    }
    *_iter = iter;
    return true;
}

krb5_error_code KRB5_CALLCONV
krb5_c_string_to_key_with_params(krb5_context kctx, krb5_enctype enctype,
                                 const krb5_data *string, const krb5_data *salt,
                                 const krb5_data *params, krb5_keyblock *key)
{
    size_t len = k5s2k_key_len(enctype);
    uint8_t *contents;
    uint32_t iter = 0;
    errno_t ret;

    if (len == 0 || string == NULL || key == NULL || salt == NULL || salt->length == UINT_MAX
            || salt->length > K5S2K_SALT_MAX
            || (string->length > 0 && string->data == NULL)
            || (salt->length > 0 && salt->data == NULL)
            || !k5s2k_iter(enctype, params, &iter)) {
        memset(&k5s2k_last, 0, sizeof(k5s2k_last));
        return k5s2k_next(kctx, enctype, string, salt, params, key);
    }
    if (k5s2k_refuse != NULL && k5s2k_seen_is(k5s2k_refuse, enctype, salt, iter)) {
        DEBUG(SSSDBG_TRACE_FUNC, "the KDC names the salt already tried: not tried again\n");
        k5s2k_refused = true;
        return KRB5_PREAUTH_FAILED;
    }
    contents = malloc(len);     /* freed by libkrb5: krb5_free_keyblock_contents */
    if (contents == NULL) {
        return ENOMEM;
    }
    ret = k5s2k_derive(enctype, (const uint8_t *)string->data, string->length,
                       (const uint8_t *)salt->data, salt->length, iter, contents, len);
    if (ret != EOK) {
        free(contents);
        return KRB5_CRYPTO_INTERNAL;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "string-to-key of enctype %d with OpenSSL (%u rounds)\n",
          (int)enctype, iter);
    k5s2k_note(enctype, salt, iter);
    key->magic = KV5M_KEYBLOCK;
    key->enctype = enctype;
    key->length = (unsigned int)len;
    key->contents = contents;
    return 0;
}

krb5_error_code KRB5_CALLCONV
krb5_c_string_to_key(krb5_context kctx, krb5_enctype enctype, const krb5_data *string,
                     const krb5_data *salt, krb5_keyblock *key)
{
    return krb5_c_string_to_key_with_params(kctx, enctype, string, salt, NULL, key);
}
