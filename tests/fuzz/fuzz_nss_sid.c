/*
 * libFuzzer harness for the SID strings clients send sssd_nss (GETNAMEBYSID, GETIDBYSID;
 * nss_protocol_sid.c): the body parser and the SID syntax check, then what the responder
 * does next with an accepted SID (src/lib/idmap: split into domain SID and RID, map to an
 * id in a small map holding one domain; the table of well-known SIDs). Checked: an
 * accepted body is NUL-terminated and its SID passes the syntax check again; a string the
 * syntax check accepts is short, and starts "S-1-"; a well-known SID's name gives it back
 * (but a logon session's), and only "S-1-5-21-..." is left to the lookups. Built by
 * tests/fuzz/run.sh.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "responder/nss/nss_sid.h"
#include "lib/idmap/idmap_wellknown.h"

/* Written canonically: decimal, no leading zeros (what idmap_id_to_sid writes). */
static bool canonical(const char *sid)
{
    const char *p;

    for (p = sid; (p = strchr(p, '-')) != NULL; p++) {
        if (p[1] == '0' && p[2] >= '0' && p[2] <= '9') {
            return false;
        }
    }
    return strchr(sid, 'x') == NULL && strchr(sid, 'X') == NULL;
}

/* The table's answer for sid is consistent with itself. */
static void check_wellknown(const char *sid)
{
    const char *dom = NULL;
    const char *name = NULL;
    const char *back = NULL;
    errno_t ret = idmap_wellknown_sid(sid, &dom, &name);

    if (ret == EOK) {
        if (dom == NULL || name == NULL) {
            __builtin_trap();
        }
        if (strcmp(name, "LOGON ID") != 0
                && (idmap_wellknown_name(dom, name, &back) != EOK || strcmp(back, sid) != 0)) {
            __builtin_trap();
        }
    } else if (ret == ENOENT) {
        if (strncmp(sid, "S-1-5-21-", 9) != 0) {
            __builtin_trap();
        }
    } else if (ret != EINVAL || strncmp(sid, "S-1-5-21-", 9) == 0) {
        __builtin_trap();
    }
}

static struct idmap_ctx *fuzz_map(void)
{
    static struct idmap_ctx *map;
    struct idmap_opts io = { 200000, 2000200000, 200000, false, 10 };
    int64_t slice = -1;

    if (map == NULL && idmap_ctx_create(NULL, &io, &map) == EOK) {
        (void)idmap_add_domain(map, "fuzz.test", "S-1-5-21-1-2-3", &slice);
    }
    return map;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    TALLOC_CTX *tmp_ctx;
    struct idmap_ctx *map = fuzz_map();
    const char *sid = NULL;
    char *dom_sid = NULL;
    uint32_t rid = 0;
    uint32_t id = 0;
    char *back = NULL;

    if (nss_sid_request_parse(data, size, &sid) != EOK) {
        return 0;
    }
    if (sid != (const char *)data || strlen(sid) + 1 != size
            || !nss_sid_str_valid(sid, size - 1) || size - 1 > NSS_SID_STR_MAX
            || strncmp(sid, "S-1-", 4) != 0) {
        __builtin_trap();
    }
    check_wellknown(sid);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL || map == NULL) {
        talloc_free(tmp_ctx);
        return 0;
    }
    if (idmap_split_sid(tmp_ctx, sid, &dom_sid, &rid) == EOK
            && idmap_sid_to_id(map, sid, &id) == EOK) {
        /* A SID the map holds maps back to itself when written without leading zeros. */
        if (idmap_id_to_sid(tmp_ctx, map, id, &back) == EOK && canonical(sid)
                && strcmp(back, sid) != 0) {
            __builtin_trap();
        }
    }
    talloc_free(tmp_ctx);
    return 0;
}
