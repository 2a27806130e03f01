/*
 * libnss_sss's link to sssd_nss: the connections (one per thread for lookups, one shared
 * for enumeration; see common.c), the fork handler, the _SSS_LOOPS guard, name checks, and
 * the mapping of errors to NSS status and errno that every entry point shares.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/sss_cli.h"
#include "sss_client/sss_cli_client.h"
#include "sss_client/nss/nss_private.h"
#include "sss_client/nss/nss_mc.h"

/* sssd_nss's socket is 0666 root:root (PROTOCOL.md "Paths"). */
static struct sss_cli_conn nss_conn =
    SSS_CLI_CONN_PER_THREAD(SSS_NSS_SOCKET_NAME, SSS_NSS_PROTOCOL_VERSION, false, 0666);
static struct sss_cli_conn nss_enum_conn =
    SSS_CLI_CONN_SHARED(SSS_NSS_SOCKET_NAME, SSS_NSS_PROTOCOL_VERSION, false, 0666);

int nss_sss_loops_disabled(void)
{
    const char *v = getenv("_SSS_LOOPS");

    return v != NULL && strcmp(v, "NO") == 0;
}

int nss_sss_check_name(const char *name, size_t *len)
{
    size_t n;

    if (name == NULL || name[0] == '\0') {
        return ENOENT;
    }
    n = strnlen(name, NSS_SSS_NAME_MAX + 1);
    if (n > NSS_SSS_NAME_MAX) {
        return EINVAL;
    }
    *len = n;
    return 0;
}

static enum nss_status request_status(int ret, int *errnop)
{
    switch (ret) {
    case 0:
        return NSS_STATUS_SUCCESS;
    case EAGAIN:
        *errnop = EAGAIN;
        return NSS_STATUS_TRYAGAIN;
    case ENOENT:
    case ECONNREFUSED:
        *errnop = ENOENT;
        return NSS_STATUS_UNAVAIL;
    default:
        *errnop = ret;
        return NSS_STATUS_UNAVAIL;
    }
}

enum nss_status nss_sss_request(uint32_t cmd, const void *body, size_t body_len,
                                uint8_t **reply, size_t *reply_len, int *errnop)
{
    return request_status(sss_cli_request(&nss_conn, cmd, body, body_len, reply, reply_len),
                          errnop);
}

enum nss_status nss_sss_enum_request(uint32_t cmd, const void *body, size_t body_len,
                                     uint8_t **reply, size_t *reply_len, int *errnop)
{
    return request_status(sss_cli_request(&nss_enum_conn, cmd, body, body_len, reply,
                                          reply_len), errnop);
}

/* What SSSD's module leaves in *errnop, status by status: 0 on success and on not found
 * (glibc and programs read it after NOTFOUND), ERANGE with TRYAGAIN for a small buffer, and
 * the error with TRYAGAIN for a reply it cannot use. */
enum nss_status nss_sss_status(int ret, int *errnop)
{
    switch (ret) {
    case 0:
        *errnop = 0;
        return NSS_STATUS_SUCCESS;
    case ENOENT:
        *errnop = 0;
        return NSS_STATUS_NOTFOUND;
    case ENOMEM:
    case ERANGE:
        *errnop = ret;
        return NSS_STATUS_TRYAGAIN;
    default:
        *errnop = EBADMSG;
        return NSS_STATUS_TRYAGAIN;
    }
}

#ifdef SSS_CLIENT_TEST
void sss_nss_test_close(void)
{
    sss_cli_close(&nss_conn);
    sss_cli_close(&nss_enum_conn);
}
#endif

/* A fork child has only the forking thread: every lock another thread held stays locked
 * in it for ever unless made usable again here. */
static void nss_sss_after_fork(void)
{
    sss_cli_after_fork(&nss_enum_conn);
    nss_enum_after_fork();
    nss_mc_after_fork();
}

__attribute__((constructor)) static void nss_sss_init(void)
{
    pthread_atfork(NULL, NULL, nss_sss_after_fork);
}

/* Close the sockets when the library is unloaded (dlclose), so nothing leaks. */
__attribute__((destructor)) static void nss_sss_fini(void)
{
    sss_cli_close(&nss_conn);
    sss_cli_close(&nss_enum_conn);
    sss_cli_unload();
}
