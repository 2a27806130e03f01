/*
 * libsss_nss_idmap.so.0 (sss_nss_idmap.h): the by-SID commands of sssd_nss (0x0111..,
 * sss_cli.h), SSSD 2.8's getorig* and the _timeout lookups IPA's directory plugin uses,
 * over the client socket code the other client libraries share (common.c): one
 * connection per thread to sssd_nss's socket, reopened after a fork.
 * Replies hold one result: uint32 count, uint32 0, uint32 id type, then the SID or name
 * with its NUL, a uint32 id, or key, value strings; getlistbycert has count results, each
 * a type and a name. Every reply is checked against its length before it is read; an
 * error status from sssd_nss is "not found" (ENOENT), as SSSD's library reports it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/sss_cli.h"
#include "sss_client/sss_cli_client.h"
#include "sss_client/nss/nss_private.h"
#define IPA_389DS_PLUGIN_HELPER_CALLS 1
#include "sss_client/idmap/sss_nss_idmap.h"

#define IDMAP_NAME_MAX 1024                     /* a fully qualified name or a SID */
#define IDMAP_CERT_MAX (10 * 1024 * 1024)       /* a base64 certificate */
#define IDMAP_HEAD (3 * sizeof(uint32_t))       /* count, 0, type */

static struct sss_cli_conn idmap_conn =
    SSS_CLI_CONN_PER_THREAD(SSS_NSS_SOCKET_NAME, SSS_NSS_PROTOCOL_VERSION, false, 0666);

/* The bound of the running call in milliseconds, set by the _timeout variants around the
 * call they share with the plain one (0: the socket timeout of each step only). As in
 * SSSD, the whole call -- connect, handshake, request -- ends with ETIME past it: IPA's
 * directory plugin must not block a server thread on a stuck sssd_nss. */
static __thread unsigned int idmap_timeout_ms;

static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

/* One round trip; the errors SSSD's library reports. */
static int idmap_request(uint32_t cmd, const void *body, size_t len, uint8_t **reply,
                         size_t *reply_len)
{
    int ret = sss_cli_request_timeout(&idmap_conn, cmd, body, len, idmap_timeout_ms, reply,
                                      reply_len);

    switch (ret) {
    case 0:
    case ENOMEM:
    case EAGAIN:
        return ret;
    case ETIMEDOUT:
        return ETIME;
    default:
        return ENOENT;  /* no sssd_nss, or an error status: as nss_status_to_errno */
    }
}

/* A string key with its NUL, at most max bytes before it. */
static int idmap_key_len(const char *key, size_t max, size_t *_len)
{
    size_t n;

    if (key == NULL || key[0] == '\0') {
        return EINVAL;
    }
    n = strnlen(key, max + 1);
    if (n > max) {
        return EINVAL;
    }
    *_len = n + 1;
    return 0;
}

/* The reply's single result: its type and where its data starts. */
static int idmap_one(const uint8_t *r, size_t len, enum sss_id_type *type,
                     const uint8_t **data, size_t *data_len)
{
    uint32_t n;

    if (r == NULL || len < 2 * sizeof(uint32_t)) {
        return EBADMSG;
    }
    n = get_u32(r);
    if (n == 0) {
        return ENOENT;
    }
    if (n > 1 || len < IDMAP_HEAD) {
        return EBADMSG;
    }
    *type = (enum sss_id_type)get_u32(r + 2 * sizeof(uint32_t));
    *data = r + IDMAP_HEAD;
    *data_len = len - IDMAP_HEAD;
    return 0;
}

/* A request whose answer is one string (SID or name). */
static int idmap_get_str(uint32_t cmd, const void *body, size_t body_len, char **_out,
                         enum sss_id_type *_type)
{
    uint8_t *r = NULL;
    size_t len = 0;
    const uint8_t *data;
    size_t data_len;
    enum sss_id_type type;
    char *s;
    int ret;

    ret = idmap_request(cmd, body, body_len, &r, &len);
    if (ret == 0) {
        ret = idmap_one(r, len, &type, &data, &data_len);
    }
    if (ret == 0 && (data_len < 2 || data[data_len - 1] != '\0'
                     || memchr(data, '\0', data_len) != data + data_len - 1)) {
        ret = EBADMSG;
    }
    if (ret == 0) {
        s = strdup((const char *)data);
        if (s == NULL) {
            ret = ENOMEM;
        } else {
            *_out = s;
            *_type = type;
        }
    }
    free(r);
    return ret;
}

static int idmap_str_by_name(uint32_t cmd, const char *name, char **_out,
                             enum sss_id_type *_type)
{
    size_t len;
    int ret;

    if (_out == NULL || _type == NULL) {
        return EINVAL;
    }
    ret = idmap_key_len(name, IDMAP_NAME_MAX, &len);
    return ret != 0 ? ret : idmap_get_str(cmd, name, len, _out, _type);
}

static int idmap_str_by_id(uint32_t cmd, uint32_t id, char **_out, enum sss_id_type *_type)
{
    if (_out == NULL || _type == NULL) {
        return EINVAL;
    }
    return idmap_get_str(cmd, &id, sizeof(id), _out, _type);
}

void sss_nss_free_kv(struct sss_nss_kv *kv_list)
{
    size_t i;

    if (kv_list == NULL) {
        return;
    }
    for (i = 0; kv_list[i].key != NULL; i++) {
        free(kv_list[i].key);
        free(kv_list[i].value);
    }
    free(kv_list);
}

/* key, value strings: an even number, each with its NUL. */
static int idmap_kv_parse(const uint8_t *data, size_t len, struct sss_nss_kv **_list)
{
    struct sss_nss_kv *list;
    size_t count = 0;
    size_t i, pos, n;
    char **slot;

    if (len > 0 && data[len - 1] != '\0') {
        return EBADMSG;
    }
    for (i = 0; i < len; i++) {
        count += data[i] == '\0';
    }
    if (count % 2 != 0) {
        return EINVAL;
    }
    list = calloc(count / 2 + 1, sizeof(*list));
    if (list == NULL) {
        return ENOMEM;
    }
    for (i = 0, pos = 0; i < count; i++) {
        n = strlen((const char *)data + pos);
        slot = i % 2 == 0 ? &list[i / 2].key : &list[i / 2].value;
        *slot = strdup((const char *)data + pos);
        if (*slot == NULL) {
            sss_nss_free_kv(list);      /* frees the pairs up to the first NULL key */
            return ENOMEM;
        }
        pos += n + 1;
    }
    *_list = list;
    return 0;
}

static int idmap_orig(uint32_t cmd, const char *name, struct sss_nss_kv **_list,
                      enum sss_id_type *_type)
{
    uint8_t *r = NULL;
    size_t len = 0;
    size_t key_len;
    const uint8_t *data;
    size_t data_len;
    enum sss_id_type type;
    int ret;

    if (_list == NULL || _type == NULL) {
        return EINVAL;
    }
    ret = idmap_key_len(name, IDMAP_NAME_MAX, &key_len);
    if (ret == 0) {
        ret = idmap_request(cmd, name, key_len, &r, &len);
    }
    if (ret == 0) {
        ret = idmap_one(r, len, &type, &data, &data_len);
    }
    if (ret == 0) {
        ret = idmap_kv_parse(data, data_len, _list);
    }
    if (ret == 0) {
        *_type = type;
    }
    free(r);
    return ret;
}

int sss_nss_getsidbyname(const char *fq_name, char **sid, enum sss_id_type *type)
{
    return idmap_str_by_name(SSS_NSS_GETSIDBYNAME, fq_name, sid, type);
}

int sss_nss_getsidbyid(uint32_t id, char **sid, enum sss_id_type *type)
{
    return idmap_str_by_id(SSS_NSS_GETSIDBYID, id, sid, type);
}

int sss_nss_getsidbyuid(uint32_t uid, char **sid, enum sss_id_type *type)
{
    return idmap_str_by_id(SSS_NSS_GETSIDBYUID, uid, sid, type);
}

int sss_nss_getsidbygid(uint32_t id, char **sid, enum sss_id_type *type)
{
    return idmap_str_by_id(SSS_NSS_GETSIDBYGID, id, sid, type);
}

int sss_nss_getnamebysid(const char *sid, char **fq_name, enum sss_id_type *type)
{
    return idmap_str_by_name(SSS_NSS_GETNAMEBYSID, sid, fq_name, type);
}

int sss_nss_getidbysid(const char *sid, uint32_t *id, enum sss_id_type *id_type)
{
    uint8_t *r = NULL;
    size_t len = 0;
    size_t key_len;
    const uint8_t *data;
    size_t data_len;
    enum sss_id_type type;
    int ret;

    if (id == NULL || id_type == NULL) {
        return EINVAL;
    }
    ret = idmap_key_len(sid, IDMAP_NAME_MAX, &key_len);
    if (ret == 0) {
        ret = idmap_request(SSS_NSS_GETIDBYSID, sid, key_len, &r, &len);
    }
    if (ret == 0) {
        ret = idmap_one(r, len, &type, &data, &data_len);
    }
    if (ret == 0 && data_len != sizeof(uint32_t)) {
        ret = EBADMSG;
    }
    if (ret == 0) {
        *id = get_u32(data);
        *id_type = type;
    }
    free(r);
    return ret;
}

int sss_nss_getorigbyname(const char *fq_name, struct sss_nss_kv **kv_list,
                          enum sss_id_type *type)
{
    return idmap_orig(SSS_NSS_GETORIGBYNAME, fq_name, kv_list, type);
}

int sss_nss_getorigbyusername(const char *fq_name, struct sss_nss_kv **kv_list,
                              enum sss_id_type *type)
{
    return idmap_orig(SSS_NSS_GETORIGBYUSERNAME, fq_name, kv_list, type);
}

int sss_nss_getorigbygroupname(const char *fq_name, struct sss_nss_kv **kv_list,
                               enum sss_id_type *type)
{
    return idmap_orig(SSS_NSS_GETORIGBYGROUPNAME, fq_name, kv_list, type);
}

/* Certificates: sssd_nss here has no certificate lookups; the request is sent all the
 * same (0x0116, 0x0117), so a server that has them answers. */
#define IDMAP_GETNAMEBYCERT 0x0116
#define IDMAP_GETLISTBYCERT 0x0117

int sss_nss_getnamebycert(const char *cert, char **fq_name, enum sss_id_type *type)
{
    size_t len;
    int ret;

    if (fq_name == NULL || type == NULL) {
        return EINVAL;
    }
    ret = idmap_key_len(cert, IDMAP_CERT_MAX, &len);
    return ret != 0 ? ret : idmap_get_str(IDMAP_GETNAMEBYCERT, cert, len, fq_name, type);
}

int sss_nss_getlistbycert(const char *cert, char ***fq_name, enum sss_id_type **type)
{
    uint8_t *r = NULL;
    size_t len = 0;
    size_t key_len;
    size_t pos = 2 * sizeof(uint32_t);
    char **names = NULL;
    enum sss_id_type *types = NULL;
    uint32_t n = 0;
    uint32_t i;
    size_t sl;
    int ret;

    if (fq_name == NULL || type == NULL) {
        return EINVAL;
    }
    ret = idmap_key_len(cert, IDMAP_CERT_MAX, &key_len);
    if (ret == 0) {
        ret = idmap_request(IDMAP_GETLISTBYCERT, cert, key_len, &r, &len);
    }
    if (ret == 0 && (r == NULL || len < pos)) {
        ret = EBADMSG;
    }
    if (ret == 0) {
        n = get_u32(r);
        ret = n == 0 ? ENOENT : (n > len / (sizeof(uint32_t) + 2) ? EBADMSG : 0);
    }
    if (ret == 0) {
        names = calloc(n + 1, sizeof(*names));
        types = calloc(n + 1, sizeof(*types));
        ret = names == NULL || types == NULL ? ENOMEM : 0;
    }
    for (i = 0; ret == 0 && i < n; i++) {
        if (len - pos < sizeof(uint32_t) + 2) {
            ret = EBADMSG;
            break;
        }
        types[i] = (enum sss_id_type)get_u32(r + pos);
        pos += sizeof(uint32_t);
        sl = strnlen((const char *)r + pos, len - pos);
        if (sl == 0 || sl == len - pos) {
            ret = EBADMSG;
            break;
        }
        names[i] = strdup((const char *)r + pos);
        ret = names[i] == NULL ? ENOMEM : 0;
        pos += sl + 1;
    }
    if (ret == 0) {
        *fq_name = names;
        *type = types;
    } else {
        for (i = 0; names != NULL && names[i] != NULL; i++) {
            free(names[i]);
        }
        free(names);
        free(types);
    }
    free(r);
    return ret;
}

/* ---- the _timeout variants (IPA's directory plugin) ---- */

int sss_nss_getsidbyname_timeout(const char *fq_name, unsigned int timeout, char **sid,
                                 enum sss_id_type *type)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = sss_nss_getsidbyname(fq_name, sid, type);
    idmap_timeout_ms = 0;
    return ret;
}

int sss_nss_getsidbyid_timeout(uint32_t id, unsigned int timeout, char **sid,
                               enum sss_id_type *type)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = sss_nss_getsidbyid(id, sid, type);
    idmap_timeout_ms = 0;
    return ret;
}

int sss_nss_getsidbyuid_timeout(uint32_t uid, unsigned int timeout, char **sid,
                                enum sss_id_type *type)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = sss_nss_getsidbyuid(uid, sid, type);
    idmap_timeout_ms = 0;
    return ret;
}

int sss_nss_getsidbygid_timeout(uint32_t gid, unsigned int timeout, char **sid,
                                enum sss_id_type *type)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = sss_nss_getsidbygid(gid, sid, type);
    idmap_timeout_ms = 0;
    return ret;
}

int sss_nss_getnamebysid_timeout(const char *sid, unsigned int timeout, char **fq_name,
                                 enum sss_id_type *type)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = sss_nss_getnamebysid(sid, fq_name, type);
    idmap_timeout_ms = 0;
    return ret;
}

int sss_nss_getidbysid_timeout(const char *sid, unsigned int timeout, uint32_t *id,
                               enum sss_id_type *id_type)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = sss_nss_getidbysid(sid, id, id_type);
    idmap_timeout_ms = 0;
    return ret;
}

int sss_nss_getorigbyname_timeout(const char *fq_name, unsigned int timeout,
                                  struct sss_nss_kv **kv_list, enum sss_id_type *type)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = sss_nss_getorigbyname(fq_name, kv_list, type);
    idmap_timeout_ms = 0;
    return ret;
}

int sss_nss_getorigbyusername_timeout(const char *fq_name, unsigned int timeout,
                                      struct sss_nss_kv **kv_list, enum sss_id_type *type)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = sss_nss_getorigbyusername(fq_name, kv_list, type);
    idmap_timeout_ms = 0;
    return ret;
}

int sss_nss_getorigbygroupname_timeout(const char *fq_name, unsigned int timeout,
                                       struct sss_nss_kv **kv_list, enum sss_id_type *type)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = sss_nss_getorigbygroupname(fq_name, kv_list, type);
    idmap_timeout_ms = 0;
    return ret;
}

int sss_nss_getnamebycert_timeout(const char *cert, unsigned int timeout, char **fq_name,
                                  enum sss_id_type *type)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = sss_nss_getnamebycert(cert, fq_name, type);
    idmap_timeout_ms = 0;
    return ret;
}

int sss_nss_getlistbycert_timeout(const char *cert, unsigned int timeout, char ***fq_name,
                                  enum sss_id_type **type)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = sss_nss_getlistbycert(cert, fq_name, type);
    idmap_timeout_ms = 0;
    return ret;
}

/* passwd and group lookups with the _EX flags: the bodies of GETPWNAM_EX & co. */
static int idmap_ex_request(uint32_t cmd, const char *name, uint32_t id, uint32_t flags,
                            uint8_t **r, size_t *len)
{
    uint8_t body[IDMAP_NAME_MAX + 1 + sizeof(uint32_t)];
    size_t n;
    int ret;

    if (name != NULL) {
        ret = idmap_key_len(name, IDMAP_NAME_MAX, &n);
        if (ret != 0) {
            return ret;
        }
        memcpy(body, name, n);
    } else {
        memcpy(body, &id, sizeof(id));
        n = sizeof(id);
    }
    memcpy(body + n, &flags, sizeof(flags));
    return idmap_request(cmd, body, n + sizeof(flags), r, len);
}

static int idmap_pw(uint32_t cmd, const char *name, uint32_t id, struct passwd *pwd,
                    char *buffer, size_t buflen, struct passwd **result, uint32_t flags)
{
    uint8_t *r = NULL;
    size_t len = 0;
    int ret;

    if (pwd == NULL || buffer == NULL || result == NULL) {
        return EINVAL;
    }
    *result = NULL;
    ret = idmap_ex_request(cmd, name, id, flags, &r, &len);
    if (ret == 0) {
        ret = nss_parse_one_passwd(r, len, pwd, buffer, buflen);
    }
    if (ret == 0) {
        *result = pwd;
    }
    free(r);
    return ret;
}

static int idmap_gr(uint32_t cmd, const char *name, uint32_t id, struct group *grp,
                    char *buffer, size_t buflen, struct group **result, uint32_t flags)
{
    uint8_t *r = NULL;
    size_t len = 0;
    int ret;

    if (grp == NULL || buffer == NULL || result == NULL) {
        return EINVAL;
    }
    *result = NULL;
    ret = idmap_ex_request(cmd, name, id, flags, &r, &len);
    if (ret == 0) {
        ret = nss_parse_one_group(r, len, grp, buffer, buflen);
    }
    if (ret == 0) {
        *result = grp;
    }
    free(r);
    return ret;
}

int sss_nss_getpwnam_timeout(const char *name, struct passwd *pwd, char *buffer,
                             size_t buflen, struct passwd **result, uint32_t flags,
                             unsigned int timeout)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = idmap_pw(SSS_NSS_GETPWNAM_EX, name == NULL ? "" : name, 0, pwd, buffer, buflen,
                   result, flags);
    idmap_timeout_ms = 0;
    return ret;
}

int sss_nss_getpwuid_timeout(uid_t uid, struct passwd *pwd, char *buffer, size_t buflen,
                             struct passwd **result, uint32_t flags, unsigned int timeout)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = idmap_pw(SSS_NSS_GETPWUID_EX, NULL, (uint32_t)uid, pwd, buffer, buflen, result,
                   flags);
    idmap_timeout_ms = 0;
    return ret;
}

int sss_nss_getgrnam_timeout(const char *name, struct group *grp, char *buffer,
                             size_t buflen, struct group **result, uint32_t flags,
                             unsigned int timeout)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = idmap_gr(SSS_NSS_GETGRNAM_EX, name == NULL ? "" : name, 0, grp, buffer, buflen,
                   result, flags);
    idmap_timeout_ms = 0;
    return ret;
}

int sss_nss_getgrgid_timeout(gid_t gid, struct group *grp, char *buffer, size_t buflen,
                             struct group **result, uint32_t flags, unsigned int timeout)
{
    int ret;

    idmap_timeout_ms = timeout;
    ret = idmap_gr(SSS_NSS_GETGRGID_EX, NULL, (uint32_t)gid, grp, buffer, buflen, result,
                   flags);
    idmap_timeout_ms = 0;
    return ret;
}

/* getgrouplist(3) semantics: group first, then the user's groups; ERANGE with *ngroups
 * set to the number needed when groups is too small. */
int sss_nss_getgrouplist_timeout(const char *name, gid_t group, gid_t *groups,
                                 int *ngroups, uint32_t flags, unsigned int timeout)
{
    uint8_t *r = NULL;
    size_t len = 0;
    const uint8_t *gids = NULL;
    uint32_t count = 0;
    uint32_t i;
    int n = 1;
    int ret;

    if (groups == NULL || ngroups == NULL || *ngroups <= 0) {
        return EINVAL;
    }
    idmap_timeout_ms = timeout;
    ret = idmap_ex_request(SSS_NSS_INITGR_EX, name == NULL ? "" : name, 0, flags, &r, &len);
    idmap_timeout_ms = 0;
    if (ret == 0) {
        ret = nss_parse_initgr(r, len, &gids, &count);
    }
    if (ret == 0 || ret == ENOENT) {
        groups[0] = group;
        for (i = 0; ret == 0 && i < count; i++) {
            gid_t g = (gid_t)get_u32(gids + i * sizeof(uint32_t));
            if (g == group) {
                continue;
            }
            if (n < *ngroups) {
                groups[n] = g;
            }
            n++;
        }
        ret = n > *ngroups ? ERANGE : (ret == ENOENT ? ENOENT : 0);
        *ngroups = n;
    }
    free(r);
    return ret;
}

/* Library unload: close the socket, stop the per-thread clean-up. */
__attribute__((destructor)) static void idmap_fini(void)
{
    sss_cli_close(&idmap_conn);
    sss_cli_unload();
}
