/*
 * libsss_sudo internals: the reply parser (PROTOCOL.md "sudo bodies"), shared by the
 * library, its unit test and the fuzz harness.
 */
#ifndef SSS_SUDO_PRIVATE_H_
#define SSS_SUDO_PRIVATE_H_

#include <stddef.h>
#include "sss_client/sudo/sss_sudo.h"

/*
 * Parses a reply body. 0 with *_error set: when it is SSS_SUDO_ERROR_OK, *_result (and
 * *_domainname when asked for) hold the answer, malloc'ed; otherwise nothing else is set.
 * EBADMSG: malformed (truncated, counts larger than the bytes could hold, unterminated
 * strings, bytes left over); ENOMEM. Nothing is allocated on failure.
 */
int sss_sudo_parse_reply(const uint8_t *buf, size_t len, uint32_t *_error,
                         char **_domainname, struct sss_sudo_result **_result);

#endif /* SSS_SUDO_PRIVATE_H_ */
