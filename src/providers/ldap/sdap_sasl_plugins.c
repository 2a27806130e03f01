/*
 * Cyrus SASL's plugins, kept out of a back-end that binds without SASL.
 *
 * libldap initialises Cyrus SASL on its first use, and sasl_client_init() dlopens every
 * plugin of SASL's plugin directory (Debian: 12 of them in /usr/lib/<arch>/sasl2), pulling
 * in libcrypto, libkrb5 and libgssapi_krb5, Berkeley DB: 3 MB resident in sssd_be, SASL
 * bind or not. The only mechanisms the provider binds with are GSSAPI and GSS-SPNEGO (the
 * gssapiv2 plugin) and EXTERNAL (built into libsasl2).
 *
 * So when the domain's options name no ldap_sasl_mech, SASL_PATH (which Cyrus SASL reads
 * for the plugin directory when the process is not set-id) names /dev/null: no directory,
 * no plugin; EXTERNAL would still be there. Decided while the options are read at start,
 * before any connection initialises libldap; never when the administrator set SASL_PATH.
 * Child programs inherit it and do not use SASL.
 */
#include <stdlib.h>
#include <string.h>

#include "providers/ldap/sdap_sasl.h"
#include "util/util.h"

#define SDAP_SASL_NO_PLUGINS "/dev/null"

void sdap_sasl_plugins_need(bool sasl)
{
    static bool wanted;     /* some domain's options of this process bind with SASL */
    static bool set_here;
    const char *cur = getenv("SASL_PATH");

    if (sasl) {
        wanted = true;
        /* Options are all read before the first connection initialises libldap: not too
         * late to give the plugins back. */
        if (set_here && cur != NULL && strcmp(cur, SDAP_SASL_NO_PLUGINS) == 0) {
            unsetenv("SASL_PATH");
        }
        set_here = false;
        return;
    }
    if (wanted || cur != NULL) {
        return;
    }
    if (setenv("SASL_PATH", SDAP_SASL_NO_PLUGINS, 0) == 0) {
        set_here = true;
        DEBUG(SSSDBG_TRACE_FUNC, "No SASL bind: Cyrus SASL loads no plugin\n");
    }
}
