/*
 * libsss_nss_idmap: SID <-> name and id lookups, and an object's original directory data,
 * from sssd_nss, with the API and ABI of SSSD 2.8's library of the same name (this header
 * declares what SSSD's public sss_nss_idmap.h declares; binaries built against either run
 * with either). Every function returns 0 or an errno value: ENOENT when the object is not
 * found or sssd_nss gives an error, EINVAL for a bad argument, EBADMSG for a reply it
 * cannot read, ENOMEM, ERANGE (a caller's buffer too small), ETIME (no answer in time).
 * Strings and lists handed out are malloc'ed: free() them, and sss_nss_free_kv() a key,
 * value list.
 */
#ifndef SSS_NSS_IDMAP_H_
#define SSS_NSS_IDMAP_H_

#include <stdint.h>
#include <sys/types.h>
#include <pwd.h>
#include <grp.h>

enum sss_id_type {
    SSS_ID_TYPE_NOT_SPECIFIED = 0,
    SSS_ID_TYPE_UID,
    SSS_ID_TYPE_GID,
    SSS_ID_TYPE_BOTH        /* a user that is also its own group */
};

struct sss_nss_kv {
    char *key;
    char *value;
};

int sss_nss_getsidbyname(const char *fq_name, char **sid, enum sss_id_type *type);
int sss_nss_getsidbyid(uint32_t id, char **sid, enum sss_id_type *type);
int sss_nss_getsidbyuid(uint32_t uid, char **sid, enum sss_id_type *type);
int sss_nss_getsidbygid(uint32_t id, char **sid, enum sss_id_type *type);
int sss_nss_getnamebysid(const char *sid, char **fq_name, enum sss_id_type *type);
int sss_nss_getidbysid(const char *sid, uint32_t *id, enum sss_id_type *id_type);
int sss_nss_getorigbyname(const char *fq_name, struct sss_nss_kv **kv_list,
                          enum sss_id_type *type);
int sss_nss_getorigbyusername(const char *fq_name, struct sss_nss_kv **kv_list,
                              enum sss_id_type *type);
int sss_nss_getorigbygroupname(const char *fq_name, struct sss_nss_kv **kv_list,
                               enum sss_id_type *type);
int sss_nss_getnamebycert(const char *cert, char **fq_name, enum sss_id_type *type);
int sss_nss_getlistbycert(const char *cert, char ***fq_name, enum sss_id_type **type);
void sss_nss_free_kv(struct sss_nss_kv *kv_list);

#define SSS_NSS_EX_FLAG_NO_FLAGS 0
#define SSS_NSS_EX_FLAG_NO_CACHE (1 << 0)
#define SSS_NSS_EX_FLAG_INVALIDATE_CACHE (1 << 1)

#ifdef IPA_389DS_PLUGIN_HELPER_CALLS
/* timeout (milliseconds) is accepted for the ABI; a request ends within the socket
 * timeout the library applies to every request (common.c). */
int sss_nss_getpwnam_timeout(const char *name, struct passwd *pwd, char *buffer,
                             size_t buflen, struct passwd **result, uint32_t flags,
                             unsigned int timeout);
int sss_nss_getpwuid_timeout(uid_t uid, struct passwd *pwd, char *buffer, size_t buflen,
                             struct passwd **result, uint32_t flags, unsigned int timeout);
int sss_nss_getgrnam_timeout(const char *name, struct group *grp, char *buffer,
                             size_t buflen, struct group **result, uint32_t flags,
                             unsigned int timeout);
int sss_nss_getgrgid_timeout(gid_t gid, struct group *grp, char *buffer, size_t buflen,
                             struct group **result, uint32_t flags, unsigned int timeout);
int sss_nss_getgrouplist_timeout(const char *name, gid_t group, gid_t *groups,
                                 int *ngroups, uint32_t flags, unsigned int timeout);
int sss_nss_getsidbyname_timeout(const char *fq_name, unsigned int timeout, char **sid,
                                 enum sss_id_type *type);
int sss_nss_getsidbyid_timeout(uint32_t id, unsigned int timeout, char **sid,
                               enum sss_id_type *type);
int sss_nss_getsidbyuid_timeout(uint32_t uid, unsigned int timeout, char **sid,
                                enum sss_id_type *type);
int sss_nss_getsidbygid_timeout(uint32_t gid, unsigned int timeout, char **sid,
                                enum sss_id_type *type);
int sss_nss_getnamebysid_timeout(const char *sid, unsigned int timeout, char **fq_name,
                                 enum sss_id_type *type);
int sss_nss_getidbysid_timeout(const char *sid, unsigned int timeout, uint32_t *id,
                               enum sss_id_type *id_type);
int sss_nss_getorigbyname_timeout(const char *fq_name, unsigned int timeout,
                                  struct sss_nss_kv **kv_list, enum sss_id_type *type);
int sss_nss_getorigbyusername_timeout(const char *fq_name, unsigned int timeout,
                                      struct sss_nss_kv **kv_list, enum sss_id_type *type);
int sss_nss_getorigbygroupname_timeout(const char *fq_name, unsigned int timeout,
                                       struct sss_nss_kv **kv_list, enum sss_id_type *type);
int sss_nss_getnamebycert_timeout(const char *cert, unsigned int timeout, char **fq_name,
                                  enum sss_id_type *type);
int sss_nss_getlistbycert_timeout(const char *cert, unsigned int timeout, char ***fq_name,
                                  enum sss_id_type **type);
#endif /* IPA_389DS_PLUGIN_HELPER_CALLS */

#endif /* SSS_NSS_IDMAP_H_ */
