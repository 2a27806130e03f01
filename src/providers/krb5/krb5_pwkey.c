/*
 * A password kept for later (krb5_store_password_if_offline) as a kernel key, as SSSD
 * keeps it: a "user" key in sssd_be's process keyring, which only this process
 * possesses (a forked krb5_child starts without it), readable and writable by its
 * possessor only, with a timeout after which the kernel destroys it. The bytes live in
 * kernel memory, not in sssd_be's heap (nor in a core dump, nor swapped out with it);
 * they come back into a wiped buffer only for the moment a child request is encoded,
 * and the key is invalidated once used. The kernel wipes a user key's payload when it
 * destroys it. Plain syscalls: no libkeyutils needed.
 */
#include <sys/syscall.h>
#include <linux/keyctl.h>
#include <unistd.h>

#include "providers/krb5/krb5_common.h"

/* Permissions: everything for the possessor, nothing for the owner uid, group or others
 * (KEY_POS_* of <keyutils.h>: view, read, write, search, link, setattr). */
#define KRB5_PWKEY_PERM 0x3f000000u

static long krb5_pwkey_keyctl(int cmd, unsigned long a2, unsigned long a3, unsigned long a4)
{
    return syscall(SYS_keyctl, cmd, a2, a3, a4, 0UL);
}

errno_t krb5_pwkey_store(const char *desc, const uint8_t *pw, size_t len,
                         unsigned int timeout, int32_t *_serial)
{
    long serial;
    errno_t ret;

    SSS_CHECK_ARG(desc != NULL && pw != NULL && len > 0 && _serial != NULL, EINVAL);
    serial = syscall(SYS_add_key, "user", desc, pw, len, KEY_SPEC_PROCESS_KEYRING);
    if (serial < 0) {
        return errno;
    }
    if (krb5_pwkey_keyctl(KEYCTL_SETPERM, (unsigned long)serial, KRB5_PWKEY_PERM, 0) != 0
            || (timeout > 0 && krb5_pwkey_keyctl(KEYCTL_SET_TIMEOUT, (unsigned long)serial,
                                                 timeout, 0) != 0)) {
        ret = errno;
        krb5_pwkey_drop((int32_t)serial);
        return ret;
    }
    *_serial = (int32_t)serial;
    return EOK;
}

static int krb5_pwkey_wipe(uint8_t *p)
{
    explicit_bzero(p, talloc_get_size(p));
    return 0;
}

errno_t krb5_pwkey_read(TALLOC_CTX *mem_ctx, int32_t serial, uint8_t **_pw)
{
    uint8_t *buf;
    long len;
    long got;

    SSS_CHECK_ARG(serial > 0 && _pw != NULL, EINVAL);
    len = krb5_pwkey_keyctl(KEYCTL_READ, (unsigned long)serial, 0, 0);
    if (len < 0) {
        return errno;   /* EKEYEXPIRED after the timeout, ENOKEY or EACCES once dropped */
    }
    buf = talloc_zero_size(mem_ctx, (size_t)len + 1);
    if (buf == NULL) {
        return ENOMEM;
    }
    talloc_set_destructor(buf, krb5_pwkey_wipe);
    got = krb5_pwkey_keyctl(KEYCTL_READ, (unsigned long)serial, (unsigned long)buf,
                            (unsigned long)len);
    if (got != len) {
        /* Changed or gone in between: nobody else writes it, so treat it as gone. */
        talloc_free(buf);
        return got < 0 ? errno : EIO;
    }
    buf[len] = '\0';
    *_pw = buf;
    return EOK;
}

void krb5_pwkey_drop(int32_t serial)
{
    if (serial <= 0) {
        return;
    }
    if (krb5_pwkey_keyctl(KEYCTL_INVALIDATE, (unsigned long)serial, 0, 0) != 0) {
        /* Kernels before 3.5: revoke (no more reads) and unlink (then destroyed). */
        (void)krb5_pwkey_keyctl(KEYCTL_REVOKE, (unsigned long)serial, 0, 0);
        (void)krb5_pwkey_keyctl(KEYCTL_UNLINK, (unsigned long)serial,
                                (unsigned long)KEY_SPEC_PROCESS_KEYRING, 0);
    }
}
