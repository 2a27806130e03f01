/*
 * sdap_ppolicy: the password policy request and response controls of a bind and what they
 * mean for PAM (see sdap_ppolicy.h). The BER decoding is libldap's
 * (ldap_parse_passwordpolicy_control); this file only bounds what it returns.
 */
#include "config.h"

#include <security/pam_appl.h>

#include "util/util.h"
#include "sss_client/sss_cli.h"
#include "providers/ldap/sdap_ppolicy.h"

errno_t sdap_ppolicy_request_control(LDAPControl **_ctrl)
{
    int lret;

    SSS_CHECK_ARG(_ctrl != NULL, EINVAL);
    lret = ldap_control_create(LDAP_CONTROL_PASSWORDPOLICYREQUEST, 0, NULL, 1, _ctrl);
    return lret == LDAP_SUCCESS ? EOK : ENOMEM;
}

errno_t sdap_ppolicy_parse(LDAP *ld, LDAPControl **ctrls, struct sdap_ppolicy *_pp)
{
    LDAPPasswordPolicyError error = PP_noError;
    LDAPControl *ctrl;
    ber_int_t expire = -1;
    ber_int_t grace = -1;
    int lret;

    SSS_CHECK_ARG(ld != NULL && _pp != NULL, EINVAL);
    *_pp = (struct sdap_ppolicy){ .present = false, .expire = -1, .grace = -1,
                                  .error = PP_noError };
    ctrl = ctrls == NULL ? NULL
                         : ldap_control_find(LDAP_CONTROL_PASSWORDPOLICYRESPONSE, ctrls, NULL);
    if (ctrl == NULL) {
        return EOK;
    }
    lret = ldap_parse_passwordpolicy_control(ld, ctrl, &expire, &grace, &error);
    if (lret != LDAP_SUCCESS) {
        DEBUG(SSSDBG_OP_FAILURE, "Malformed password policy response control: %s\n",
              ldap_err2string(lret));
        return EINVAL;
    }
    if ((error < PP_passwordExpired || error > PP_passwordTooLong) && error != PP_noError) {
        DEBUG(SSSDBG_OP_FAILURE, "Unknown password policy error %d\n", (int)error);
        return EINVAL;
    }
    _pp->present = true;
    _pp->expire = expire >= 0 ? expire : -1;
    _pp->grace = grace >= 0 ? grace : -1;
    _pp->error = error;
    DEBUG(SSSDBG_TRACE_FUNC, "Password policy response: expire %d, grace %d, error %s\n",
          (int)_pp->expire, (int)_pp->grace, ldap_passwordpolicy_err2txt(error));
    return EOK;
}

void sdap_user_info_u32(uint32_t type, uint32_t value, uint8_t out[SDAP_USER_INFO_U32_LEN])
{
    memcpy(out, &type, sizeof(type));
    memcpy(out + sizeof(type), &value, sizeof(value));
}

errno_t sdap_ppolicy_bind_verdict(int ldap_result, const struct sdap_ppolicy *pp,
                                  int64_t warning, struct sdap_ppolicy_verdict *_verdict)
{
    struct sdap_ppolicy_verdict v = { .pam_status = PAM_SUCCESS, .info_len = 0 };

    SSS_CHECK_ARG(pp != NULL && _verdict != NULL, EINVAL);
    SSS_CHECK_ARG(ldap_result == LDAP_SUCCESS || ldap_result == LDAP_INVALID_CREDENTIALS,
                  EINVAL);

    if (ldap_result == LDAP_INVALID_CREDENTIALS) {
        v.pam_status = PAM_AUTH_ERR;
    } else if (pp->present && pp->error == PP_changeAfterReset) {
        v.pam_status = PAM_NEW_AUTHTOK_REQD;
    } else if (pp->present && pp->grace >= 0) {
        sdap_user_info_u32(SSS_PAM_USER_INFO_GRACE_LOGIN, (uint32_t)pp->grace, v.info);
        v.info_len = SDAP_USER_INFO_U32_LEN;
    } else if (pp->present && pp->expire > 0 && (warning <= 0 || pp->expire <= warning)) {
        sdap_user_info_u32(SSS_PAM_USER_INFO_EXPIRE_WARN, (uint32_t)pp->expire, v.info);
        v.info_len = SDAP_USER_INFO_U32_LEN;
    }
    *_verdict = v;
    return EOK;
}
