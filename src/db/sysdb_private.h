/*
 * sysdb internals shared by the src/db files: the context, the on-disk layout (DNs,
 * attribute names, indexes), and helpers for names, packed name lists and ldb calls.
 * Nothing outside src/db includes this file.
 *
 * Layout (format version SYSDB_VERSION), ~0.93 KB per user on disk at 100,000 users:
 *   cn=sysdb                   version, domain, caseMode
 *   name=<short key>,cn=users  a user
 *   name=<short key>,cn=groups a group
 *   name=<short key>,cn=netgroups a netgroup (sysdb_netgroups.c)
 * <short key> is the internal name's key form (case-folded unless the domain is
 * case-sensitive) without its "@domain": one file holds one domain, so the suffix and the
 * domain in the DN would only repeat the same bytes in every record key, record and index
 * value. A lookup by name is one read by key and needs no index. The name attribute is
 * stored only when the stored form differs from the key form (case_sensitive = preserving);
 * otherwise the name is the RDN value plus "@domain". The DN says the kind: there is no
 * objectClass. Attribute names are short because ldb stores each one in every record.
 * mdb records are keyed by guid (ldb_mdb requires it: its full scans read only the GUID key
 * range), which adds ldb's DN -> GUID index record per entry; that index's key holds the
 * casefolded DN, so the DN is kept short. A name whose escaped DN would exceed LMDB's
 * 511-byte key limit (only names full of ,=;+ etc.) is refused (EINVAL).
 * @INDEXLIST indexes uidx (users) and gidx (groups): the id scrambled by a bijection,
 * so that ids stored in increasing order (a directory read in order) land at random places
 * in the index's key range: LMDB halves a page when it inserts anywhere but at a page's end,
 * which left sequentially filled index pages 40% full, random ones ~67% full. The values are
 * nearly unique, so each index record stays tiny. A user's primary gid is in pgid,
 * deliberately not indexed (10,000 users sharing gid 100 would make one index record that
 * every user save rewrites). It also indexes mailk, a user's e-mail address in the key form
 * of a name (folded unless the domain is case-sensitive, "@domain" appended), for the
 * lookup by e-mail; only users with an address have one. And objectSIDString, the SID of
 * a user or group (ldap_user_objectsid / ldap_group_objectsid) as "S-1-5-...", for lookups
 * by SID where ids are not mapped from SIDs; only entries whose directory gave one have it.
 * Member and group lists are single values holding NUL-terminated names back to back
 * ("packed"): one value for 50,000 names is written and read in O(N) with no per-value work
 * inside ldb.
 * A cache of another format version is emptied and set up again when opened (sysdb.c).
 */
#ifndef SSS_SYSDB_PRIVATE_H
#define SSS_SYSDB_PRIVATE_H

#include <locale.h>
#include <ldb.h>

#include "util/util.h"
#include "db/sysdb.h"
#include "db/sysdb_rcache.h"

#define SYSDB_VERSION "4"


#define SYSDB_BASE_DN "cn=sysdb"
#define SYSDB_A_GUID "guid"   /* mdb record key (ldb @IDXGUID) */
#define SYSDB_A_NAME "name"
#define SYSDB_A_UID "uid"
#define SYSDB_A_GID "gid"
#define SYSDB_A_UID_IDX "uidx"  /* indexed: scrambled uid (sysdb_msg_set_id) */
#define SYSDB_A_GID_IDX "gidx"  /* indexed: scrambled gid */
#define SYSDB_A_PRIMARY_GID "pgid"
#define SYSDB_A_GECOS "gecos"
#define SYSDB_A_HOME "home"
#define SYSDB_A_SHELL "shell"
#define SYSDB_A_ORIG_DN "odn"
#define SYSDB_A_UPN "upn"      /* users: the Kerberos principal */
#define SYSDB_A_EMAIL "mail"               /* as the directory gave it */
#define SYSDB_A_EMAIL_KEY "mailk"          /* indexed: its key form (sysdb_name_key_buf) */
#define SYSDB_A_SID "objectSIDString"     /* indexed: SSSD's name, "S-1-5-..." */
#define SYSDB_A_EXTRA "extra"              /* packed name, value pairs */
#define SYSDB_A_LAST_UPDATE "upd"
#define SYSDB_A_EXPIRE "exp"
#define SYSDB_A_MEMBERS "members"          /* packed user names */
#define SYSDB_A_MEMBER_GROUPS "mgroups" /* packed nested group names */
#define SYSDB_A_INITGR_NAMES "igNames"     /* packed group names */
#define SYSDB_A_INITGR_GIDS "igGids"       /* packed decimal gids, parallel to names */
#define SYSDB_A_INITGR_UPDATE "igUpd"
#define SYSDB_A_INITGR_EXPIRE "igExp"
#define SYSDB_A_VERSION "version"
#define SYSDB_A_DOMAIN "domain"
#define SYSDB_A_CASE "caseMode"

/* Marked-expired timestamp (sss_cache). */
#define SYSDB_EXPIRED_TS 1

enum sysdb_kind {
    SYSDB_KIND_USER,
    SYSDB_KIND_GROUP,
    SYSDB_KIND_NETGROUP,
};
#define SYSDB_NUM_KINDS 3

/* What the code the kinds share needs to know of a kind: sysdb_kinds[kind]
 * (sysdb_entry.c). */
struct sysdb_kind_desc {
    const char *name;           /* "user", "group", "netgroup": for logs */
    const char *container;      /* the kind's base DN is cn=<container> */
    const char *id_attr;        /* uid / gid; NULL: the kind has no id (netgroups) */
    const char *id_idx_attr;    /* uidx / gidx: the indexed scrambled id */
};
extern const struct sysdb_kind_desc sysdb_kinds[];

struct sysdb_ctx {
    struct ldb_context *ldb;
    struct tevent_context *ev; /* private to ldb's requests, never the caller's loop */
    char *path;
    char *domain;            /* as configured */
    char *domain_lc;         /* folded */
    size_t domain_len;       /* both have this length (ASCII-only domains) */
    enum sysdb_case case_mode;
    enum sysdb_backend backend;
    locale_t fold_locale;    /* C.UTF-8 for towlower_l; 0 when missing (ASCII folding) */

    struct ldb_dn *base_dn[SYSDB_NUM_KINDS]; /* cn=users, cn=groups ..., by kind */

    uint8_t guid_prefix[8];  /* guid = prefix + counter (mdb needs GUID keys) */
    uint64_t guid_counter;

    unsigned int tx_depth;
    bool tx_doomed;

    struct sysdb_rcache *rcache; /* lookups' read cache (sysdb_rcache.c); NULL: off */
    /* What the open transaction stored, for the read cache at commit (sysdb_pending.c). */
    struct sysdb_pending *pending;
    TALLOC_CTX *pending_ctx;
    size_t pending_count;
    uint64_t pending_base;       /* generation when the write transaction began; 0: none */
    bool pending_users_written;  /* a user entry's own attributes changed in it */
    struct sysdb_bigcache *bigcache; /* big groups' parsed results (sysdb_bigcache.c) */
};

/* --- names (sysdb_names.c) --- */

/* Bytes needed to write any transformation of a name of len bytes (with NUL). */
size_t sysdb_name_room(struct sysdb_ctx *sysdb, size_t len);

/*
 * Validates name and writes its stored form (fold false) or its key form (fold true) to out,
 * which has sysdb_name_room(len) bytes. Returns the length written (NUL not counted), or 0
 * when the name is invalid.
 */
size_t sysdb_name_write(struct sysdb_ctx *sysdb, const char *name, size_t len,
                        bool fold, char *out);

/* talloc'd stored / key forms (sysdb_name_key is in sysdb.h). EINVAL for an invalid name,
 * ENOMEM. */
errno_t sysdb_name_stored(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                          char **_stored);
/* The DN of the entry of kind named name (any accepted form). EINVAL, ENOMEM. */
errno_t sysdb_name_dn(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, enum sysdb_kind kind,
                      const char *name, struct ldb_dn **_dn);

/* Longest key form of a name accepted by any function (with NUL). */
#define SYSDB_KEY_ROOM (2 * (2 * SYSDB_NAME_MAX + 2) + SYSDB_NAME_MAX + 2)

/* Writes the key form of name into buf (SYSDB_KEY_ROOM bytes); returns its length, 0 for
 * an invalid name (logged). */
size_t sysdb_name_key_buf(struct sysdb_ctx *sysdb, const char *name, char *buf);

/* true for valid UTF-8 of len bytes without NUL. */
bool sysdb_utf8_valid(const char *s, size_t len);

/* A list of names (NULL-terminated; NULL: none), as sysdb_name_list_new() + _add(). */
errno_t sysdb_name_list_make(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                             const char *const *names, struct sysdb_name_list **_list);

/* The packed bytes of a list (each name NUL-terminated) and its name count. */
const char *sysdb_name_list_data(struct sysdb_name_list *list, size_t *_len);

/* Splits a packed value into a NULL-terminated array of pointers into it (no copies).
 * EIO when the value is not a sequence of NUL-terminated strings. */
errno_t sysdb_packed_split(TALLOC_CTX *mem_ctx, const struct ldb_val *val,
                           const char ***_names, size_t *_count);
/* The same for the packed list attribute attr of msg (absent: empty). */
errno_t sysdb_msg_names(TALLOC_CTX *mem_ctx, const struct ldb_message *msg, const char *attr,
                        const char ***_names, size_t *_count);

/* --- ldb plumbing (sysdb_ldb.c) --- */

/* ldb_init() for every ldb context of ours: libldb then loads only the mdb and tdb
 * back-ends, not every module of its directory (sysdb_ldb_modules.c). The first call
 * must come before the process starts threads (it may set LDB_MODULES_PATH). */
struct ldb_context *sysdb_ldb_new(TALLOC_CTX *mem_ctx, struct tevent_context *ev);

/* Around any direct ldb request: the per-request event context workaround (sysdb_ldb.c). */
void sysdb_ldb_enter(void);
void sysdb_ldb_leave(void);

/* ldb_add / ldb_delete with the per-request event context workaround (see sysdb_ldb.c). */
int sysdb_ldb_add(struct sysdb_ctx *sysdb, const struct ldb_message *msg);
int sysdb_ldb_delete(struct sysdb_ctx *sysdb, struct ldb_dn *dn);

/* ldb error -> errno_t, logging ldb's message at OP_FAILURE for unexpected errors. */
errno_t sysdb_ldb_error(struct sysdb_ctx *sysdb, int lret, const char *what);

/* DN of an entry from its key form ("name@domain" folded). EINVAL (logged) when the DN
 * would make a record key over LMDB's limit, ENOMEM. */
errno_t sysdb_entry_dn(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, enum sysdb_kind kind,
                       const char *key, struct ldb_dn **_dn);

/* The stored name of an entry read back: its name attribute, or else its RDN value plus
 * "@domain" (allocated on msg). NULL when neither is there (a malformed entry). */
const char *sysdb_msg_name(struct sysdb_ctx *sysdb, struct ldb_message *msg);

/* The name attribute to write for an entry: stored when it differs from key, else NULL
 * (the RDN already holds it). */
const char *sysdb_name_attr(const char *stored, const char *key);

/* Reads one entry by DN; attrs NULL for all. ENOENT when missing. */
errno_t sysdb_read_entry(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, struct ldb_dn *dn,
                         const char *const *attrs, struct ldb_message **_msg);

/* The entry of a kind holding id (its uid or gid). Stores keep ids unique; if something
 * else wrote duplicates, the first is used and that is logged. ENOENT if none. */
errno_t sysdb_search_by_id(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, enum sysdb_kind kind,
                           uint32_t id, const char *const *attrs, struct ldb_message **_msg);

enum sysdb_exists {
    SYSDB_EXISTS_NO,       /* add */
    SYSDB_EXISTS_YES,      /* modify */
    SYSDB_EXISTS_UNKNOWN,  /* add, or modify when the add finds the entry */
};

/*
 * Writes msg (every element flagged LDB_FLAG_MOD_REPLACE; an element without values removes
 * the attribute) as an add (elements without values dropped, a guid added for mdb) or a
 * modify. Must run inside a transaction. ENOENT: modify of a missing entry.
 */
errno_t sysdb_write_entry(struct sysdb_ctx *sysdb, struct ldb_message *msg,
                          enum sysdb_exists exists);

/* Writes msg (inside a transaction: a modify of its entry, or an add when it has none)
 * unless the write would give its id to a second entry, which a unique index refuses
 * (users: SYSDB_A_UID_IDX, sysdb_open). EEXIST (not logged, nothing written) then; other
 * errors as sysdb_write_entry's. */
errno_t sysdb_write_unique(struct sysdb_ctx *sysdb, struct ldb_message *msg);

/* Deletes every entry of kind holding id except keep_dn (uid/gid takeover); *_kept
 * tells whether keep_dn itself holds it (so it exists). _kept_msg (may be NULL): its name
 * and originalDN as stored, on mem_ctx, when kept. */
errno_t sysdb_delete_conflicts(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               enum sysdb_kind kind, uint32_t id,
                               struct ldb_dn *keep_dn, bool *_kept,
                               struct ldb_message **_kept_msg);

/* Deletes / expires one entry by name. ENOENT when missing. */
errno_t sysdb_delete_by_name(struct sysdb_ctx *sysdb, enum sysdb_kind kind, const char *name);
errno_t sysdb_expire_by_name(struct sysdb_ctx *sysdb, enum sysdb_kind kind, const char *name);
errno_t sysdb_expire_all(struct sysdb_ctx *sysdb, enum sysdb_kind kind);

/* The entries matching an ldb filter (an indexed term picks the candidates, else a full
 * scan), with attrs (NULL: all); count may be 0. */
errno_t sysdb_search_filter(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                            const char *filter, const char *const *attrs,
                            struct ldb_message ***_msgs, size_t *_count);

/* All entries of a kind (a full scan; for a kind without ids, a one-level scan of its
 * container), with attrs (NULL: all). */
errno_t sysdb_search_all(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, enum sysdb_kind kind,
                         const char *const *attrs, struct ldb_message ***_msgs,
                         size_t *_count);

/* --- messages (sysdb_msg.c; sysdb_msg_set_id in sysdb_ldb.c) --- */

/* A new message for the entry whose DN is dn (a string), or NULL (no memory). */
struct ldb_message *sysdb_msg_new(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                  const char *dn);

/* Message building: replace attr by one value (string / number); NULL str clears it. */
errno_t sysdb_msg_set_str(struct ldb_message *msg, const char *attr, const char *str);
errno_t sysdb_msg_set_num(struct ldb_message *msg, const char *attr, uint64_t num);
errno_t sysdb_msg_set_val(struct ldb_message *msg, const char *attr, const void *data,
                          size_t len);

/* sysdb_msg_set_packed's checks of list alone (EINVAL, logged, as it gives); _total: the
 * packed length (0 for NULL or an empty list). */
errno_t sysdb_packed_check(const char *const *list, const char *what, size_t *_total);

/* Replaces attr by the packed form of list (its strings NUL-terminated back to back, on
 * msg); NULL or an empty list removes attr. EINVAL (logged, what naming the list) for an
 * empty, non-UTF-8 or oversize string, or more than SYSDB_LIST_MAX of them. */
errno_t sysdb_msg_set_packed(struct ldb_message *msg, const char *attr,
                             const char *const *list, const char *what);

/* Sets the id of an entry of kind: uid or gid, and its indexed scrambled form. */
errno_t sysdb_msg_set_id(struct ldb_message *msg, enum sysdb_kind kind, uint32_t id);

/* Message reading: a NUL-terminated string value or NULL; numbers (EIO when malformed). */
const char *sysdb_msg_str(const struct ldb_message *msg, const char *attr);
errno_t sysdb_msg_num(const struct ldb_message *msg, const char *attr, uint64_t max,
                      uint64_t *_num);

/* A number attribute that must fit 32 bits (ids); EIO when malformed. */
errno_t sysdb_msg_u32(const struct ldb_message *msg, const char *attr, uint32_t *_num);
/* An entry's update time and expiry, as stored by sysdb_msg_set_times(); EIO when
 * malformed. */
errno_t sysdb_msg_times(const struct ldb_message *msg, const char *update_attr,
                        const char *expire_attr, time_t *_update, time_t *_expire);

/* Sets an entry's update time (now) and its expiry. */
errno_t sysdb_msg_set_times(struct ldb_message *msg, const char *update_attr,
                            const char *expire_attr, time_t now, uint64_t expire);

/* An optional string attribute of an entry to store. */
struct sysdb_str_attr {
    const char *attr;
    const char *what;       /* its name in logs */
    const char *value;      /* NULL: none (a stored one is removed) */
};
/* EINVAL (logged) when a value is over SYSDB_ATTR_MAX or not UTF-8. */
errno_t sysdb_check_attrs(const struct sysdb_str_attr *attrs, size_t count);
errno_t sysdb_msg_set_strs(struct ldb_message *msg, const struct sysdb_str_attr *attrs,
                           size_t count);

/* --- users and groups alike (sysdb_entry.c) --- */

/* The message a store of an entry of kind starts from: its DN, its name attribute (only
 * when the stored form differs from the key form) and its id (none for a kind without
 * one). *_stored: the name's stored
 * form, on mem_ctx. EINVAL for an invalid name. */
errno_t sysdb_entry_msg(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, enum sysdb_kind kind,
                        const char *name, uint32_t id, struct ldb_message **_msg,
                        const char **_stored);

/* Reads an entry (msg, which it takes) as a new result on mem_ctx and stores the result's
 * pointer at slot: a struct sysdb_user ** or struct sysdb_group **, as void *. */
typedef errno_t (*sysdb_parse_fn)(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                  struct ldb_message *msg, void *slot);

/* Every entry of kind (a full scan reading attrs; NULL: all), parsed: *_array is a
 * NULL-terminated array of result pointers on mem_ctx, as parse stored them. */
errno_t sysdb_entry_enumerate(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                              enum sysdb_kind kind, const char *const *attrs,
                              sysdb_parse_fn parse, void **_array, size_t *_count);

/* The read-cache key of a lookup of kind by name, its key form written into keybuf
 * (SYSDB_KEY_ROOM bytes). EINVAL (logged) for an invalid name. */
static inline errno_t sysdb_rc_name_key(struct sysdb_ctx *sysdb, enum sysdb_rc_kind kind,
                                        const char *name, char *keybuf,
                                        struct sysdb_rc_key *_key)
{
    _key->kind = kind;
    _key->id = 0;
    _key->name = keybuf;
    _key->len = sysdb_name_key_buf(sysdb, name, keybuf);
    return _key->len == 0 ? EINVAL : EOK;
}

/*
 * How a lookup's result is read and kept flat in the read cache: the kind of entry, the
 * attributes the result needs (NULL: all) and flatten, which makes the blob from the entry
 * read (both on mem_ctx; msg may be stolen), or says E2BIG: too big to keep flat (then the
 * caller gets the message). Only misses go through flatten: a hit is unflattened by the
 * lookup's own typed function.
 */
struct sysdb_flat_view {
    enum sysdb_kind kind;
    const char *const *attrs;
    errno_t (*flatten)(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, struct ldb_message *msg,
                       void **_blob, size_t *_len);
};

/* A flat lookup result in hand: the read cache's copy (valid until the next sysdb call) or
 * a blob just loaded, owned by tmp; sysdb_flat_done() releases it. */
struct sysdb_flat {
    uint64_t gen;               /* database generation the lookup is tagged with */
    const void *blob;
    size_t len;
    TALLOC_CTX *tmp;            /* what a load allocated; NULL after a hit */
    struct ldb_message *msg;    /* after a load's E2BIG: the entry read (on tmp) */
};

/* The read cache's entry for key. EOK: flat holds it; ENOENT: cached as missing; EAGAIN:
 * not cached, flat->gen set for sysdb_flat_load(). The hot path: no allocation. */
static inline errno_t sysdb_flat_cached(struct sysdb_ctx *sysdb, const struct sysdb_rc_key *key,
                                        struct sysdb_flat *flat)
{
    flat->tmp = NULL;
    flat->msg = NULL;
    flat->gen = sysdb_rcache_gen(sysdb);
    if (!sysdb_rcache_get(sysdb, key, flat->gen, &flat->blob, &flat->len)) {
        return EAGAIN;
    }
    return flat->blob != NULL ? EOK : ENOENT;
}

/* After EAGAIN from sysdb_flat_cached(): reads the entry key names (by key-form name, or by
 * id), flattens it through view and caches it (a miss too). ENOENT: no such entry; E2BIG:
 * too big to keep flat, flat->msg is the entry read. */
errno_t sysdb_flat_load(struct sysdb_ctx *sysdb, const struct sysdb_flat_view *view,
                        const struct sysdb_rc_key *key, struct sysdb_flat *flat);

static inline void sysdb_flat_done(struct sysdb_flat *flat)
{
    if (flat->tmp != NULL) {    /* a hit allocated nothing: no call */
        talloc_free(flat->tmp);
        flat->tmp = NULL;
    }
}

/* --- the writer's read cache fill at commit (sysdb_pending.c) --- */

/* At the outermost transaction's start (write lock held) and close. */
void sysdb_pending_begin(struct sysdb_ctx *sysdb);
void sysdb_pending_end(struct sysdb_ctx *sysdb, bool committed);

/* Every write inside a transaction, after it: drops the records it may change. mod: the
 * add's or modify's message (NULL for a delete). */
void sysdb_pending_written(struct sysdb_ctx *sysdb, struct ldb_dn *dn,
                           const struct ldb_message *mod, bool add);

/* After a store wrote msg (the whole view: every attribute view->flatten reads): record
 * the entry under its name key and its id key. Failures only mean nothing is recorded. */
void sysdb_pending_entry(struct sysdb_ctx *sysdb, const struct sysdb_flat_view *view,
                         enum sysdb_rc_kind name_kind, const char *name,
                         enum sysdb_rc_kind id_kind, uint32_t id,
                         const struct ldb_message *msg);

/* sysdb_pending_entry with the flat entry already made (sysdb_user_write_form, what a read
 * of msg gives): dn is msg's. */
void sysdb_pending_entry_flat(struct sysdb_ctx *sysdb, enum sysdb_rc_kind name_kind,
                              const char *name, enum sysdb_rc_kind id_kind, uint32_t id,
                              struct ldb_dn *dn, const void *blob, size_t len);

/* A shallow copy of a written msg as a read would return it (cleared attributes left
 * out; the values stay msg's): what a view flattens. */
struct ldb_message *sysdb_msg_as_read(TALLOC_CTX *mem_ctx, const struct ldb_message *msg);

/* After an initgroups store wrote the list attributes (lists) of user: record the
 * initgroups entry when the user's own entry is known (stored in this transaction, or in
 * the read cache and unchanged since its start). */
void sysdb_pending_initgr(struct sysdb_ctx *sysdb, const char *user,
                          const struct ldb_message *lists);

/* The read cache's initgroups entry from the list attributes in lists (no empty elements)
 * and the user's flat entry (sysdb_initgr.c). */
errno_t sysdb_initgr_blob(TALLOC_CTX *mem_ctx, struct ldb_message *lists,
                          const void *ublob, size_t ulen, void **_blob, size_t *_len);

/* --- users (sysdb_users.c) --- */

/* Every attribute a struct sysdb_user needs (not the possibly large group list). */
#define SYSDB_USER_ATTRS SYSDB_A_NAME, SYSDB_A_UID, SYSDB_A_PRIMARY_GID, SYSDB_A_GECOS, \
    SYSDB_A_HOME, SYSDB_A_SHELL, SYSDB_A_ORIG_DN, SYSDB_A_EMAIL, SYSDB_A_SID, \
    SYSDB_A_EXTRA, SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE

/* A user entry read as a struct sysdb_user on mem_ctx, which takes msg. EIO (logged) for a
 * malformed entry. */
errno_t sysdb_msg_to_user(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                          struct ldb_message *msg, struct sysdb_user **_user);

/* The flat form (the read cache's) of the user entry w writes, as a read of it gives it
 * after the commit: made from w's user alone (the entry is not built yet), once, and kept
 * on w (the store records it for the read cache too). Whatever sysdb_msg_to_user() reads
 * of a user entry must be made here the same way. Nothing is written. ENOMEM; EIO for a
 * user whose entry could not be read back (an expiry past INT64_MAX). */
errno_t sysdb_user_write_form(struct sysdb_ctx *sysdb, struct sysdb_user_write *w,
                              const void **_blob, size_t *_len);

/* --- reply entries (sysdb_reply.c) --- */

struct sysdb_reply_key;

/* Whether blob is a well-formed carried entry of the entry key names: the check
 * sysdb_reply_put() makes before the read cache keeps it. */
bool sysdb_reply_blob_ok(struct sysdb_ctx *sysdb, const struct sysdb_rc_key *key,
                         const void *blob, size_t len);
errno_t sysdb_reply_rc_key(struct sysdb_ctx *sysdb, const struct sysdb_reply_key *key,
                           char *keybuf, struct sysdb_rc_key *_rk);

/* --- flat results (sysdb_flat.c) --- */

/* A result as one blob (strings and arrays inside, pointers as offsets) and back: the
 * copy is one allocation named like the struct, holding all its strings and arrays. */
errno_t sysdb_flat_user(TALLOC_CTX *mem_ctx, const struct sysdb_user *user,
                        void **_blob, size_t *_len);
errno_t sysdb_flat_group(TALLOC_CTX *mem_ctx, const struct sysdb_group *group,
                         void **_blob, size_t *_len);
struct sysdb_user *sysdb_unflat_user(TALLOC_CTX *mem_ctx, const void *blob, size_t len);
struct sysdb_group *sysdb_unflat_group(TALLOC_CTX *mem_ctx, const void *blob, size_t len);

/* A domain name that can be part of a file name and of the internal name form (sysdb.c). */
bool sysdb_domain_valid(const char *domain);

#endif /* SSS_SYSDB_PRIVATE_H */
