/*
 * SID <-> POSIX id mapping compatible with SSSD's (idmap.h says how the slices are chosen).
 * The facts (hash, seed, slice search order, secondary slice names, helper table) come from
 * SSSD's documented behaviour; this is a separate implementation over talloc arrays.
 *
 * A context holds the domains and the registered slices (primary, explicit, and
 * secondary ones once used); every pick of a new slice avoids the registered ones. Each
 * domain also keeps its helper table: secondary slices computed when it was added, not
 * registered until used (SSSD's behaviour, which the ids depend on).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/util.h"
#include "lib/idmap/idmap.h"
#include "sss_client/murmurhash3.h"

#define DOM_SID_PREFIX "S-1-5-21-"
#define BUILTIN_PREFIX "S-1-5-32-"
/* A SID has at most 15 sub-authorities (MS-DTYP 2.4.2). */
#define SID_MAX_SUBAUTH 15

struct idmap_slice {
    size_t dom;                 /* index into ctx->doms */
    uint32_t min;
    uint32_t max;
    uint32_t first_rid;
};

struct idmap_dom {
    char *name;
    char *sid;
    struct idmap_slice *helpers; /* secondary slices, first_rid = (k + 1) * rangesize */
    size_t num_helpers;
    bool auto_add;              /* secondary slices at all: SSSD has none without helpers */
};

struct idmap_ctx {
    struct idmap_opts opts;
    struct idmap_dom *doms;
    size_t num_doms;
    struct idmap_slice *slices; /* registered */
    size_t num_slices;
};

errno_t idmap_ctx_create(TALLOC_CTX *mem_ctx, const struct idmap_opts *opts,
                         struct idmap_ctx **_ctx)
{
    struct idmap_ctx *ctx;

    SSS_CHECK_ARG(opts != NULL && _ctx != NULL, EINVAL);
    if (opts->rangesize == 0 || opts->upper <= opts->lower
            || opts->upper - opts->lower < opts->rangesize) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Invalid id mapping range: min %" PRIu32 ", max %" PRIu32
              ", size %" PRIu32 "\n", opts->lower, opts->upper, opts->rangesize);
        return EINVAL;
    }
    ctx = talloc_zero(mem_ctx, struct idmap_ctx);
    if (ctx == NULL) {
        return ENOMEM;
    }
    ctx->opts = *opts;
    *_ctx = ctx;
    return EOK;
}

/* Parses a decimal sub-authority at *p up to '-' or the end; false unless it fits 32 bits. */
static bool parse_subauth(const char **p, uint32_t *_v)
{
    uint64_t v = 0;
    const char *s = *p;

    if (*s < '0' || *s > '9') {
        return false;
    }
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > UINT32_MAX) {
            return false;
        }
        s++;
    }
    *p = s;
    *_v = (uint32_t)v;
    return true;
}

/* Counts the sub-authorities after DOM_SID_PREFIX; 0 when the string is not well formed. */
static size_t dom_subauth_count(const char *sid, const char **_last)
{
    const char *p;
    size_t n = 0;
    uint32_t v;

    if (sid == NULL || strncmp(sid, DOM_SID_PREFIX, sizeof(DOM_SID_PREFIX) - 1) != 0) {
        return 0;
    }
    p = sid + sizeof(DOM_SID_PREFIX) - 1;
    for (;;) {
        if (_last != NULL) {
            *_last = p;
        }
        if (!parse_subauth(&p, &v)) {
            return 0;
        }
        n++;
        if (*p == '\0') {
            return n;
        }
        if (*p != '-' || n > SID_MAX_SUBAUTH) {
            return 0;
        }
        p++;
    }
}

errno_t idmap_domain_slice(const struct idmap_ctx *ctx, const char *dom_sid,
                           uint32_t *_slice)
{
    size_t i;
    size_t k;

    SSS_CHECK_ARG(ctx != NULL && dom_sid != NULL && _slice != NULL, EINVAL);
    for (i = 0; i < ctx->num_doms; i++) {
        if (strcasecmp(ctx->doms[i].sid, dom_sid) != 0) {
            continue;
        }
        for (k = 0; k < ctx->num_slices; k++) {
            if (ctx->slices[k].dom == i && ctx->slices[k].first_rid == 0) {
                *_slice = (ctx->slices[k].min - ctx->opts.lower) / ctx->opts.rangesize;
                return EOK;
            }
        }
    }
    return ENOENT;
}

bool idmap_has_domains(const struct idmap_ctx *ctx)
{
    return ctx != NULL && ctx->num_doms > 0;
}

bool idmap_is_domain_sid(const char *sid)
{
    return dom_subauth_count(sid, NULL) == 3;
}

errno_t idmap_split_sid(TALLOC_CTX *mem_ctx, const char *sid, char **_dom_sid,
                        uint32_t *_rid)
{
    const char *last = NULL;
    char *dom;
    uint32_t rid;

    SSS_CHECK_ARG(_dom_sid != NULL && _rid != NULL, EINVAL);
    if (dom_subauth_count(sid, &last) != 4) {
        return EINVAL;
    }
    if (!parse_subauth(&last, &rid)) {
        return EINVAL;
    }
    dom = talloc_strndup(mem_ctx, sid, (size_t)(strrchr(sid, '-') - sid));
    if (dom == NULL) {
        return ENOMEM;
    }
    *_dom_sid = dom;
    *_rid = rid;
    return EOK;
}

static bool overlaps(const struct idmap_slice *s, uint32_t min, uint32_t max)
{
    return min <= s->max && s->min <= max;
}

static bool slice_taken(const struct idmap_ctx *ctx, uint32_t min, uint32_t max)
{
    size_t i;

    for (i = 0; i < ctx->num_slices; i++) {
        if (overlaps(&ctx->slices[i], min, max)) {
            return true;
        }
    }
    return false;
}

/* The slice SSSD picks for a name (a domain SID or a secondary slice's name): from the
 * hash (or 0 in autorid mode), then the next one not taken, round the end. */
static errno_t pick_slice(const struct idmap_ctx *ctx, const char *name, uint32_t *_min)
{
    uint32_t nslices = (ctx->opts.upper - ctx->opts.lower) / ctx->opts.rangesize;
    uint32_t first;
    uint32_t slice;
    uint32_t min;

    if (ctx->opts.autorid) {
        first = 0;
    } else {
        first = murmurhash3(name, strlen(name), IDMAP_HASH_SEED) % nslices;
    }
    slice = first;
    do {
        min = ctx->opts.lower + slice * ctx->opts.rangesize;
        if (!slice_taken(ctx, min, min + ctx->opts.rangesize - 1)) {
            *_min = min;
            return EOK;
        }
        slice = slice + 1 >= nslices ? 0 : slice + 1;
    } while (slice != first);
    return ERANGE;
}

static errno_t register_slice(struct idmap_ctx *ctx, const struct idmap_slice *s)
{
    struct idmap_slice *slices;

    slices = talloc_realloc(ctx, ctx->slices, struct idmap_slice, ctx->num_slices + 1);
    if (slices == NULL) {
        return ENOMEM;
    }
    slices[ctx->num_slices++] = *s;
    ctx->slices = slices;
    return EOK;
}

/* A secondary slice of domain d for RIDs from first_rid: picked now, not registered. */
static errno_t secondary_slice(TALLOC_CTX *tmp_ctx, const struct idmap_ctx *ctx, size_t d,
                               uint32_t first_rid, struct idmap_slice *_s)
{
    char *name;
    errno_t ret;

    name = talloc_asprintf(tmp_ctx, "%s-%" PRIu32, ctx->doms[d].sid, first_rid);
    if (name == NULL) {
        return ENOMEM;
    }
    ret = pick_slice(ctx, name, &_s->min);
    talloc_free(name);
    if (ret != EOK) {
        return ret;
    }
    _s->max = _s->min + ctx->opts.rangesize - 1;
    _s->dom = d;
    _s->first_rid = first_rid;
    return EOK;
}

errno_t idmap_add_domain(struct idmap_ctx *ctx, const char *name, const char *dom_sid,
                         int64_t *_slice)
{
    TALLOC_CTX *tmp_ctx;
    struct idmap_dom *doms;
    struct idmap_dom *dom;
    struct idmap_slice s = { 0 };
    uint32_t nslices;
    uint64_t first_rid;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(ctx != NULL && name != NULL && _slice != NULL, EINVAL);
    if (!idmap_is_domain_sid(dom_sid)) {
        return EINVAL;
    }
    for (i = 0; i < ctx->num_doms; i++) {
        if (strcasecmp(ctx->doms[i].name, name) == 0
                || strcasecmp(ctx->doms[i].sid, dom_sid) == 0) {
            return EEXIST;
        }
    }
    nslices = (ctx->opts.upper - ctx->opts.lower) / ctx->opts.rangesize;
    if (*_slice == -1) {
        ret = pick_slice(ctx, dom_sid, &s.min);
        if (ret != EOK) {
            return ret;
        }
    } else if (*_slice < 0 || *_slice >= nslices) {
        return EINVAL;
    } else {
        s.min = ctx->opts.lower + (uint32_t)*_slice * ctx->opts.rangesize;
        if (slice_taken(ctx, s.min, s.min + ctx->opts.rangesize - 1)) {
            return EEXIST;
        }
    }
    s.max = s.min + ctx->opts.rangesize - 1;
    s.dom = ctx->num_doms;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    doms = talloc_realloc(ctx, ctx->doms, struct idmap_dom, ctx->num_doms + 1);
    if (doms == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ctx->doms = doms;
    dom = &doms[ctx->num_doms];
    memset(dom, 0, sizeof(*dom));
    dom->name = talloc_strdup(doms, name);
    dom->sid = talloc_strdup(doms, dom_sid);
    if (dom->name == NULL || dom->sid == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = register_slice(ctx, &s);
    if (ret != EOK) {
        goto done;
    }
    ctx->num_doms++;

    /* The helper table, picked now that the primary slice is taken. Running out of
     * slices for it is not an error (SSSD goes on without helpers). */
    dom->helpers = talloc_zero_array(doms, struct idmap_slice, ctx->opts.helpers + 1);
    if (dom->helpers == NULL) {
        ret = ENOMEM;
        goto done;
    }
    dom->auto_add = ctx->opts.helpers > 0;
    first_rid = ctx->opts.rangesize;
    for (i = 0; i < ctx->opts.helpers && first_rid <= UINT32_MAX; i++) {
        ret = secondary_slice(tmp_ctx, ctx, s.dom, (uint32_t)first_rid,
                              &dom->helpers[dom->num_helpers]);
        if (ret == ERANGE) {
            dom->num_helpers = 0;
            dom->auto_add = false;
            ret = EOK;
            break;
        }
        if (ret != EOK) {
            goto done;
        }
        dom->num_helpers++;
        first_rid += ctx->opts.rangesize;
    }
    *_slice = (s.min - ctx->opts.lower) / ctx->opts.rangesize;
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

/* id of rid in s, when s holds it. */
static bool slice_id(const struct idmap_slice *s, uint32_t rid, uint32_t *_id)
{
    if (rid < s->first_rid || rid - s->first_rid > s->max - s->min) {
        return false;
    }
    *_id = s->min + (rid - s->first_rid);
    return true;
}

errno_t idmap_sid_to_id(struct idmap_ctx *ctx, const char *sid, uint32_t *_id)
{
    TALLOC_CTX *tmp_ctx;
    struct idmap_slice s;
    const struct idmap_dom *dom;
    char *dom_sid;
    uint32_t rid;
    uint32_t first_rid;
    size_t d;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(ctx != NULL && sid != NULL && _id != NULL, EINVAL);
    if (strncmp(sid, BUILTIN_PREFIX, sizeof(BUILTIN_PREFIX) - 1) == 0) {
        return ENOTSUP;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = idmap_split_sid(tmp_ctx, sid, &dom_sid, &rid);
    if (ret != EOK) {
        goto done;
    }
    for (d = 0; d < ctx->num_doms; d++) {
        if (strcmp(ctx->doms[d].sid, dom_sid) == 0) {
            break;
        }
    }
    if (d == ctx->num_doms) {
        ret = ENOENT;
        goto done;
    }
    for (i = 0; i < ctx->num_slices; i++) {
        if (ctx->slices[i].dom == d && slice_id(&ctx->slices[i], rid, _id)) {
            ret = EOK;
            goto done;
        }
    }
    /* A secondary slice: the helper table's, else one picked now; registered either
     * way, as SSSD does, so that later picks avoid it. */
    dom = &ctx->doms[d];
    if (!dom->auto_add) {
        ret = ERANGE;
        goto done;
    }
    first_rid = (rid / ctx->opts.rangesize) * ctx->opts.rangesize;
    for (i = 0; i < dom->num_helpers; i++) {
        if (dom->helpers[i].first_rid == first_rid) {
            break;
        }
    }
    if (i < dom->num_helpers) {
        s = dom->helpers[i];
    } else {
        ret = secondary_slice(tmp_ctx, ctx, d, first_rid, &s);
        if (ret != EOK) {
            goto done;
        }
    }
    if (slice_taken(ctx, s.min, s.max)) {
        /* A helper whose slice was taken since it was picked (SSSD refuses it too). */
        ret = ERANGE;
        goto done;
    }
    ret = register_slice(ctx, &s);
    if (ret == EOK && !slice_id(&s, rid, _id)) {
        ret = ERANGE;
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t idmap_id_to_sid(TALLOC_CTX *mem_ctx, struct idmap_ctx *ctx, uint32_t id,
                        char **_sid)
{
    const struct idmap_slice *s = NULL;
    char *sid;
    size_t d;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(ctx != NULL && _sid != NULL, EINVAL);
    for (i = 0; i < ctx->num_slices; i++) {
        if (id >= ctx->slices[i].min && id <= ctx->slices[i].max) {
            s = &ctx->slices[i];
            break;
        }
    }
    /* Not yet used secondary slices: the one that holds id becomes registered. */
    for (d = 0; s == NULL && d < ctx->num_doms; d++) {
        for (i = 0; i < ctx->doms[d].num_helpers; i++) {
            const struct idmap_slice *h = &ctx->doms[d].helpers[i];

            if (id >= h->min && id <= h->max && !slice_taken(ctx, h->min, h->max)) {
                ret = register_slice(ctx, h);
                if (ret != EOK) {
                    return ret;
                }
                s = &ctx->slices[ctx->num_slices - 1];
                break;
            }
        }
    }
    if (s == NULL || id == 0) {
        return ENOENT;
    }
    sid = talloc_asprintf(mem_ctx, "%s-%" PRIu32, ctx->doms[s->dom].sid,
                          s->first_rid + (id - s->min));
    if (sid == NULL) {
        return ENOMEM;
    }
    *_sid = sid;
    return EOK;
}

/* Binary SID (MS-DTYP 2.4.22): revision, sub-authority count, 48-bit big-endian
 * authority, then the sub-authorities as 32-bit little-endian values. */
errno_t idmap_bin_sid_to_str(TALLOC_CTX *mem_ctx, const uint8_t *bin, size_t len,
                             char **_sid)
{
    uint64_t auth = 0;
    char *sid;
    size_t n;
    size_t i;

    SSS_CHECK_ARG(_sid != NULL, EINVAL);
    if (bin == NULL || len < 8) {
        return EINVAL;
    }
    n = bin[1];
    if (bin[0] != 1 || n > SID_MAX_SUBAUTH || len != 8 + 4 * n) {
        return EINVAL;
    }
    for (i = 2; i < 8; i++) {
        auth = (auth << 8) | bin[i];
    }
    sid = talloc_asprintf(mem_ctx, "S-%u-%" PRIu64, bin[0], auth);
    for (i = 0; sid != NULL && i < n; i++) {
        const uint8_t *p = bin + 8 + 4 * i;

        sid = talloc_asprintf_append(sid, "-%" PRIu32, (uint32_t)p[0] | (uint32_t)p[1] << 8
                                     | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
    }
    if (sid == NULL) {
        return ENOMEM;
    }
    *_sid = sid;
    return EOK;
}

errno_t idmap_str_sid_to_bin(TALLOC_CTX *mem_ctx, const char *sid, uint8_t **_bin,
                             size_t *_len)
{
    uint8_t buf[8 + 4 * SID_MAX_SUBAUTH];
    const char *p;
    uint64_t auth = 0;
    uint32_t v;
    size_t n = 0;
    uint8_t *bin;
    int i;

    SSS_CHECK_ARG(_bin != NULL && _len != NULL, EINVAL);
    if (sid == NULL || strncmp(sid, "S-1-", 4) != 0) {
        return EINVAL;
    }
    p = sid + 4;
    while (*p >= '0' && *p <= '9') {
        auth = auth * 10 + (uint64_t)(*p++ - '0');
        if (auth > 0xffffffffffffULL) {
            return EINVAL;
        }
    }
    if (p == sid + 4) {
        return EINVAL;
    }
    while (*p == '-') {
        p++;
        if (n == SID_MAX_SUBAUTH || !parse_subauth(&p, &v)) {
            return EINVAL;
        }
        buf[8 + 4 * n] = v & 0xff;
        buf[9 + 4 * n] = (v >> 8) & 0xff;
        buf[10 + 4 * n] = (v >> 16) & 0xff;
        buf[11 + 4 * n] = (v >> 24) & 0xff;
        n++;
    }
    if (*p != '\0') {
        return EINVAL;
    }
    buf[0] = 1;
    buf[1] = (uint8_t)n;
    for (i = 7; i >= 2; i--) {
        buf[i] = auth & 0xff;
        auth >>= 8;
    }
    bin = talloc_memdup(mem_ctx, buf, 8 + 4 * n);
    if (bin == NULL) {
        return ENOMEM;
    }
    *_bin = bin;
    *_len = 8 + 4 * n;
    return EOK;
}
