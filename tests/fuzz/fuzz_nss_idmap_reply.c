/*
 * libFuzzer harness for the replies our libsss_nss_idmap reads
 * (src/sss_client/idmap/sss_nss_idmap.c): the socket round trip is replaced by one that
 * hands back the input as the reply body, and every kind of call parses it: a string
 * (SID, name), an id, key/value pairs, a certificate's name list, passwd and group
 * records, an initgroups list. ASan and LeakSanitizer check bounds and frees; the
 * results' invariants are checked here. Built by tests/fuzz/run.sh.
 */
#include <errno.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/sss_cli_client.h"
#define IPA_389DS_PLUGIN_HELPER_CALLS 1
#include "sss_client/idmap/sss_nss_idmap.h"

static const uint8_t *fuzz_data;
static size_t fuzz_size;

/* The library's only way to the daemon (common.c), replaced. */
int sss_cli_request_timeout(struct sss_cli_conn *conn, uint32_t cmd, const void *body,
                            size_t body_len, unsigned int total_ms, uint8_t **reply,
                            size_t *reply_len)
{
    (void)conn; (void)cmd; (void)body; (void)body_len; (void)total_ms;
    *reply = NULL;
    *reply_len = fuzz_size;
    if (fuzz_size > 0) {
        *reply = malloc(fuzz_size);
        if (*reply == NULL) {
            return ENOMEM;
        }
        memcpy(*reply, fuzz_data, fuzz_size);
    }
    return 0;
}

void sss_cli_close(struct sss_cli_conn *conn) { (void)conn; }
void sss_cli_unload(void) { }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum sss_id_type type;
    enum sss_id_type *types = NULL;
    struct sss_nss_kv *kv = NULL;
    char **names = NULL;
    char *s = NULL;
    uint32_t id;
    struct passwd pw, *pwr;
    struct group gr, *grr;
    char buf[512];
    gid_t groups[8];
    int ngroups = 8;
    size_t i;

    fuzz_data = data;
    fuzz_size = size;
    if (sss_nss_getsidbyname("alice", &s, &type) == 0) {
        if (s == NULL || strlen(s) == 0) {
            __builtin_trap();
        }
        free(s);
    }
    (void)sss_nss_getidbysid("S-1-5-21-1-2-3-4", &id, &type);
    if (sss_nss_getorigbyname("alice", &kv, &type) == 0) {
        for (i = 0; kv[i].key != NULL; i++) {
            if (kv[i].value == NULL) {
                __builtin_trap();
            }
        }
        sss_nss_free_kv(kv);
    }
    if (sss_nss_getlistbycert("MIIB", &names, &types) == 0) {
        for (i = 0; names[i] != NULL; i++) {
            free(names[i]);
        }
        free(names);
        free(types);
    }
    (void)sss_nss_getpwnam_timeout("alice", &pw, buf, sizeof(buf), &pwr, 0, 0);
    (void)sss_nss_getgrgid_timeout(10, &gr, buf, sizeof(buf), &grr, 0, 0);
    if (sss_nss_getgrouplist_timeout("alice", 10, groups, &ngroups, 0, 0) == 0
            && (ngroups < 1 || ngroups > 8 || groups[0] != 10)) {
        __builtin_trap();
    }
    return 0;
}
