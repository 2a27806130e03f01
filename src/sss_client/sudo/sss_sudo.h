/*
 * libsss_sudo.so: the library Debian's sudo (built --with-sssd) loads to ask sssd_sudo for
 * the rules of a user. The five functions and three structs below are SSSD's public
 * interface (sss_sudo.h of SSSD 2.8, version node EXPORTED): sudo resolves them by name
 * and reads the structs directly, so their layout is fixed.
 *
 * Every function is thread-safe (one connection per thread, sss_cli_client.h) and returns
 * 0 or a positive errno: ENOENT/ECONNREFUSED no responder, ETIMEDOUT, EPERM (the responder
 * is not root), EBADMSG (a malformed reply), EINVAL (bad arguments), ENOMEM. A reply whose
 * error code is not SSS_SUDO_ERROR_OK is a success of the call: *_error holds the code
 * (ENOENT: sssd does not know the user) and no result is returned.
 */
#ifndef SSS_SUDO_H_
#define SSS_SUDO_H_

#include <stdint.h>
#include <sys/types.h>

#define SSS_SUDO_ERROR_OK 0

struct sss_sudo_attr {
    char *name;
    char **values;
    unsigned int num_values;
};

struct sss_sudo_rule {
    unsigned int num_attrs;
    struct sss_sudo_attr *attrs;
};

struct sss_sudo_result {
    unsigned int num_rules;
    struct sss_sudo_rule *rules;
};

/* The rules of username (whose uid is uid). domainname is ignored (as in SSSD). */
int sss_sudo_send_recv(uid_t uid, const char *username, const char *domainname,
                       uint32_t *_error, struct sss_sudo_result **_result);

/* The defaults entries; *_domainname (optional) is the reply's domain ("" today). */
int sss_sudo_send_recv_defaults(uid_t uid, const char *username, uint32_t *_error,
                                char **_domainname, struct sss_sudo_result **_result);

void sss_sudo_free_result(struct sss_sudo_result *result);

/* A NULL-terminated copy of the values of attribute attrname (compared without regard to
 * case) of rule e. ENOENT: the rule has no such attribute. */
int sss_sudo_get_values(struct sss_sudo_rule *e, const char *attrname, char ***_values);

void sss_sudo_free_values(char **values);

#endif /* SSS_SUDO_H_ */
