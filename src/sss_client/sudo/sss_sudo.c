/*
 * libsss_sudo.so (see sss_sudo.h): the two requests over the sudo socket and the value
 * helpers sudo uses to read a rule. The socket half is the clients' shared one
 * (sss_cli_client.h): per-thread connections to pipes/sudo, version 1, a root-owned 0666
 * socket and a root peer required, as SSSD's library does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sss_client/sss_cli.h"
#include "sss_client/sss_cli_client.h"
#include "sss_client/sudo/sss_sudo_private.h"

/* Longest user name sent: a request must fit the responder's 1024-byte limit. */
#define SSS_SUDO_NAME_MAX 512

static struct sss_cli_conn sss_sudo_conn =
    SSS_CLI_CONN_PER_THREAD(SSS_SUDO_SOCKET_NAME, SSS_SUDO_PROTOCOL_VERSION, true, 0666);

static int sss_sudo_request(uint32_t cmd, uid_t uid, const char *username, uint32_t *_error,
                            char **_domainname, struct sss_sudo_result **_result)
{
    uint8_t body[sizeof(uint32_t) + SSS_SUDO_NAME_MAX + 1];
    uint32_t u32 = (uint32_t)uid;
    uint8_t *reply = NULL;
    size_t reply_len = 0;
    size_t nlen;
    int ret;

    if (username == NULL || _error == NULL || _result == NULL) {
        return EINVAL;
    }
    nlen = strlen(username);
    if (nlen == 0 || nlen > SSS_SUDO_NAME_MAX) {
        return EINVAL;
    }
    memcpy(body, &u32, sizeof(u32));
    memcpy(body + sizeof(u32), username, nlen + 1);
    ret = sss_cli_request(&sss_sudo_conn, cmd, body, sizeof(u32) + nlen + 1, &reply,
                          &reply_len);
    if (ret != 0) {
        return ret;
    }
    ret = sss_sudo_parse_reply(reply, reply_len, _error, _domainname, _result);
    free(reply);
    return ret;
}

int sss_sudo_send_recv(uid_t uid, const char *username, const char *domainname,
                       uint32_t *_error, struct sss_sudo_result **_result)
{
    (void)domainname;
    return sss_sudo_request(SSS_SUDO_GET_SUDORULES, uid, username, _error, NULL, _result);
}

int sss_sudo_send_recv_defaults(uid_t uid, const char *username, uint32_t *_error,
                                char **_domainname, struct sss_sudo_result **_result)
{
    return sss_sudo_request(SSS_SUDO_GET_DEFAULTS, uid, username, _error, _domainname,
                            _result);
}

int sss_sudo_get_values(struct sss_sudo_rule *e, const char *attrname, char ***_values)
{
    struct sss_sudo_attr *a = NULL;
    char **values;
    unsigned int i;

    if (e == NULL || attrname == NULL || _values == NULL) {
        return EINVAL;
    }
    for (i = 0; i < e->num_attrs; i++) {
        if (e->attrs[i].name != NULL && strcasecmp(e->attrs[i].name, attrname) == 0) {
            a = &e->attrs[i];
            break;
        }
    }
    if (a == NULL) {
        return ENOENT;
    }
    values = calloc((size_t)a->num_values + 1, sizeof(char *));
    if (values == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < a->num_values; i++) {
        values[i] = strdup(a->values[i]);
        if (values[i] == NULL) {
            sss_sudo_free_values(values);
            return ENOMEM;
        }
    }
    *_values = values;
    return 0;
}

void sss_sudo_free_values(char **values)
{
    char **v;

    if (values == NULL) {
        return;
    }
    for (v = values; *v != NULL; v++) {
        free(*v);
    }
    free(values);
}
