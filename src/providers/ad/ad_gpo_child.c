/*
 * gpo_child: reads one GPO file from a domain controller's SYSVOL over SMB and writes its
 * bytes to stdout, for sssd_be (ad_gpo_access.c), which never runs libsmbclient's blocking
 * calls on its event loop. Usage: gpo_child smb://SERVER/SysVol/DOMAIN/Policies/{GUID}/...
 * It authenticates with Kerberos only, with the ticket in the machine's ccache that the
 * back-end's GSSAPI bind keeps (KRB5CCNAME, inherited), as SSSD's gpo_child does: never a
 * password, never anonymous, never NTLM.
 * Exit status: 0 with the file on stdout; 2 the file does not exist (a GPO without
 * security settings); 3 larger than AD_GPO_INF_MAX; 1 anything else (logged on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libsmbclient.h>

#include "providers/ad/ad_gpo.h"

/* Kerberos takes the principal from the ccache: nothing to supply. */
static void gpo_child_auth(SMBCCTX *ctx, const char *srv, const char *shr, char *wg,
                           int wglen, char *un, int unlen, char *pw, int pwlen)
{
    (void)ctx; (void)srv; (void)shr; (void)wg; (void)wglen; (void)un; (void)unlen;
    (void)pw; (void)pwlen;
}

static int write_all(int fd, const char *buf, size_t len)
{
    ssize_t n;

    while (len > 0) {
        n = write(fd, buf, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

int main(int argc, char *argv[])
{
    static char buf[AD_GPO_INF_MAX + 1];
    SMBCCTX *ctx;
    SMBCFILE *file;
    smbc_open_fn open_fn;
    smbc_read_fn read_fn;
    size_t total = 0;
    ssize_t n;
    int rc = 1;

    if (argc != 2 || strncmp(argv[1], "smb://", 6) != 0) {
        fprintf(stderr, "usage: gpo_child smb://server/share/path\n");
        return 1;
    }
    ctx = smbc_new_context();
    if (ctx == NULL) {
        fprintf(stderr, "gpo_child: smbc_new_context failed\n");
        return 1;
    }
    smbc_setFunctionAuthDataWithContext(ctx, gpo_child_auth);
    smbc_setOptionUseKerberos(ctx, 1);
    smbc_setOptionFallbackAfterKerberos(ctx, 0);
    smbc_setOptionNoAutoAnonymousLogin(ctx, 1);
    smbc_setOptionUseCCache(ctx, 1);
    if (smbc_init_context(ctx) == NULL) {
        fprintf(stderr, "gpo_child: smbc_init_context: %s\n", strerror(errno));
        smbc_free_context(ctx, 1);
        return 1;
    }
    open_fn = smbc_getFunctionOpen(ctx);
    read_fn = smbc_getFunctionRead(ctx);
    file = open_fn(ctx, argv[1], O_RDONLY, 0);
    if (file == NULL) {
        rc = errno == ENOENT ? 2 : 1;
        fprintf(stderr, "gpo_child: %s: %s\n", argv[1], strerror(errno));
        goto done;
    }
    while (total < sizeof(buf)) {
        n = read_fn(ctx, file, buf + total, sizeof(buf) - total);
        if (n < 0) {
            fprintf(stderr, "gpo_child: reading %s: %s\n", argv[1], strerror(errno));
            goto done;
        }
        if (n == 0) {
            break;
        }
        total += (size_t)n;
    }
    if (total > AD_GPO_INF_MAX) {
        fprintf(stderr, "gpo_child: %s is larger than %d bytes\n", argv[1], AD_GPO_INF_MAX);
        rc = 3;
        goto done;
    }
    rc = write_all(STDOUT_FILENO, buf, total) == 0 ? 0 : 1;
done:
    smbc_free_context(ctx, 1);
    return rc;
}
