/*
 * Ranged attribute retrieval (MS-ADTS 3.1.1.3.1.3.3): an Active Directory DC returns at
 * most MaxValRange values of a multi-valued attribute at once, under the description
 * "member;range=0-1499"; the rest is read with follow-up requests for "member;range=1500-*"
 * until a range ends in "*". These are the pure parts (the option parser, the merge of a
 * follow-up's values); sdap_search.c runs the follow-ups so that no caller ever sees a
 * ranged attribute.
 */
#ifndef SDAP_ENTRY_RANGE_H_
#define SDAP_ENTRY_RANGE_H_

#include "providers/ldap/sdap_private.h"

/* Follow-up requests allowed for one attribute: at the 1,500 values of a Windows DC that
 * is 15 million values; a server that keeps naming new ranges is stopped there. */
#define SDAP_RANGE_MAX_ROUNDS 10000
/* Largest range bound accepted (values of one attribute). */
#define SDAP_RANGE_MAX_BOUND 100000000u

struct sdap_range {
    bool ranged;        /* the description carries a range option */
    uint32_t lo;
    uint32_t hi;        /* meaningless when last */
    bool last;          /* "LO-*": no more values after these */
};

/* Parses an attribute description "type[;option]*". *_type_len: the length of the type
 * (before the first ';'). A range option "range=LO-HI" or "range=LO-*" (the option name
 * case-insensitive) fills *_range; without one, _range->ranged is false. EINVAL: a
 * malformed range option (not digits, LO > HI, a bound above SDAP_RANGE_MAX_BOUND, two
 * range options, an empty type). */
errno_t sdap_range_parse(const char *desc, size_t *_type_len, struct sdap_range *_range);

/* Checks that num_values values fit the range they came under: a range LO-HI that is not
 * the last must hold exactly HI-LO+1 values (fewer means part of them is missing). EPROTO
 * otherwise. */
errno_t sdap_range_check_count(const struct sdap_range *range, size_t num_values);

/* The description to ask for the values of type from lo on: "type;range=lo-*", or with a
 * window > 0 "type;range=lo-(lo+window-1)" (on mem_ctx; NULL on ENOMEM). */
char *sdap_range_request(TALLOC_CTX *mem_ctx, const char *type, size_t type_len,
                         uint32_t lo, uint32_t window);

/* The index of the first attribute of entry from index start on whose description carries
 * a range option, or entry->num_attrs. */
size_t sdap_range_find(const struct sdap_entry *entry, size_t start);

/* Appends the values of a follow-up answer to entry->attrs[idx] (whose range ended at
 * expect_lo - 1). reply is the follow-up's entry: it must hold the same type under a
 * range starting at expect_lo. On success *_range is the reply's range, and when it is
 * the last, the attribute is renamed to its plain type (reply's values are moved into
 * entry; reply may be freed after). EPROTO: the reply does not continue the range
 * (missing attribute, another start, a repeated range, a second plain attribute of the
 * type), logged; ENOMEM. */
errno_t sdap_range_merge(struct sdap_entry *entry, size_t idx, uint32_t expect_lo,
                         struct sdap_entry *reply, struct sdap_range *_range);

/* Renames entry->attrs[idx] (a ranged description whose range is the last) to its plain
 * type. EPROTO when the entry also holds the plain type (two sets of values for one
 * attribute: refused rather than guessed). */
errno_t sdap_range_finish(struct sdap_entry *entry, size_t idx);

/* Test hook, off by default: SSS_TEST_LDAP_RANGE_WINDOW=N (read once, at the first call)
 * makes searches ask for "member" and "memberOf" as "…;range=0-(N-1)", and follow-ups N
 * values at a time, so that a server which ranges only when asked (Samba) exercises the
 * follow-up path. 0 when unset or not a positive number. */
uint32_t sdap_range_test_window(void);

#endif /* SDAP_ENTRY_RANGE_H_ */
