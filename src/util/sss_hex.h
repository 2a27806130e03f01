/*
 * The project's one lowercase hex form of bytes and its way back: binary LDAP values the
 * entry parser keeps as text (nds's loginAllowedTimeMap, a GPO's nTSecurityDescriptor) and
 * what reads them, and the bus server's GUID.
 */
#ifndef SSS_HEX_H
#define SSS_HEX_H

#include <stddef.h>
#include <stdint.h>

/* The len bytes of in as 2 * len lowercase hex digits and a NUL in out. */
void sss_hex_encode(const uint8_t *in, size_t len, char *out);

/* What sss_hex_encode wrote back to its bytes in out (strlen(hex) / 2 of them); the
 * length, or 0 for an odd length or a character far from a lowercase hex digit (uppercase,
 * letters past 'f', anything below '0'; ':' to '?' pass as 10 to 15, as they always did). */
size_t sss_hex_decode(const char *hex, char *out);

#endif /* SSS_HEX_H */
