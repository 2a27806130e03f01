/*
 * The nss_request_start / nss_request_done probes: one pair per client command, under the
 * client request's id. The key (name, or the id printed in decimal) is only formatted while
 * a tracer is attached.
 */
#include <stdio.h>

#include "responder/nss/nss_private.h"
#include "sss_client/sss_cli.h"

const char *nss_cmd_name(uint32_t cmd)
{
    switch (cmd) {
    case SSS_GET_VERSION: return "GET_VERSION";
    case SSS_NSS_GETPWNAM: return "GETPWNAM";
    case SSS_NSS_GETPWUID: return "GETPWUID";
    case SSS_NSS_SETPWENT: return "SETPWENT";
    case SSS_NSS_GETPWENT: return "GETPWENT";
    case SSS_NSS_ENDPWENT: return "ENDPWENT";
    case SSS_NSS_GETPWNAM_EX: return "GETPWNAM_EX";
    case SSS_NSS_GETPWUID_EX: return "GETPWUID_EX";
    case SSS_NSS_GETGRNAM: return "GETGRNAM";
    case SSS_NSS_GETGRGID: return "GETGRGID";
    case SSS_NSS_SETGRENT: return "SETGRENT";
    case SSS_NSS_GETGRENT: return "GETGRENT";
    case SSS_NSS_ENDGRENT: return "ENDGRENT";
    case SSS_NSS_GETGRNAM_EX: return "GETGRNAM_EX";
    case SSS_NSS_GETGRGID_EX: return "GETGRGID_EX";
    case SSS_NSS_INITGR: return "INITGR";
    case SSS_NSS_INITGR_EX: return "INITGR_EX";
    case SSS_NSS_SETNETGRENT: return "SETNETGRENT";
    case SSS_NSS_GETNETGRENT: return "GETNETGRENT";
    case SSS_NSS_ENDNETGRENT: return "ENDNETGRENT";
    case SSS_NSS_GETORIGBYNAME: return "GETORIGBYNAME";
    case SSS_NSS_GETORIGBYUSERNAME: return "GETORIGBYUSERNAME";
    }
    return "?";
}

/* The key as text: the name, the id in decimal, or "". */
static const char *nss_probe_key(const struct nss_request *nreq, char *buf, size_t size)
{
    if (nreq == NULL) {
        return "";
    }
    switch (nreq->kind) {
    case NSS_REQ_NAME:
        return nreq->name != NULL ? nreq->name : "";
    case NSS_REQ_ID:
        snprintf(buf, size, "%u", nreq->id);
        return buf;
    default:
        return "";
    }
}

void nss_probe_start(struct resp_request *rreq, const struct nss_request *nreq)
{
    if (PROBE_ENABLED(NSS_REQUEST_START)) {
        uint32_t cmd = resp_request_cmd(rreq);
        char buf[16];

        PROBE(NSS_REQUEST_START, resp_request_id(rreq), cmd, nss_cmd_name(cmd),
              nss_probe_key(nreq, buf, sizeof(buf)));
    }
}

void nss_probe_done(struct resp_request *rreq, const struct nss_request *nreq, int result,
                    unsigned int entries, const char *domain)
{
    if (PROBE_ENABLED(NSS_REQUEST_DONE)) {
        uint32_t cmd = resp_request_cmd(rreq);
        char buf[16];

        PROBE(NSS_REQUEST_DONE, resp_request_id(rreq), nss_cmd_name(cmd),
              nss_probe_key(nreq, buf, sizeof(buf)), result, entries,
              domain != NULL ? domain : "");
    }
}
