/*
 * The project's one reader of comma-separated option values ("a, b,c"): simple_allow_users,
 * ldap_access_order, pam_sss's domains=, the confdb's string lists. It walks the value in
 * place, one item at a time, trimmed of the blanks the caller names; it allocates nothing,
 * so each caller decides what an item becomes and what an empty one means.
 */
#ifndef SSS_CSV_H
#define SSS_CSV_H

#include <stdbool.h>
#include <stddef.h>

/* The item that starts at *pos, with the characters of blanks trimmed on both sides:
 * *_item and *_len (0: an empty item). *pos moves past the comma after it, or becomes
 * NULL after the last item. false, and nothing else set, once *pos is NULL. "a,,b" gives
 * "a", "" and "b"; "a," gives "a" and ""; "" gives one empty item. */
bool sss_csv_next(const char **pos, const char *blanks, const char **_item, size_t *_len);

#endif /* SSS_CSV_H */
