/*
 * Flat lookup results: a struct sysdb_user or sysdb_group with every string and array in
 * the same allocation, pointers stored as offsets from its start (0 for NULL). The read
 * cache keeps these blobs, and every lookup returns one relocated copy: one allocation and
 * one memcpy, whether it came from ldb or from the cache.
 */
#include "config.h"

#include "db/sysdb_private.h"

#define FLAT_ALIGN(n) (((n) + 7) & ~(size_t)7)

struct flat_buf {
    char *base;
    size_t used;
};

/* Copies s into the buffer (when base is set) and returns its offset; 0 for NULL. */
static uintptr_t flat_str(struct flat_buf *fb, const char *s)
{
    size_t n;
    uintptr_t off;

    if (s == NULL) {
        return 0;
    }
    n = strlen(s) + 1;
    off = fb->used;
    if (fb->base != NULL) {
        memcpy(fb->base + off, s, n);
    }
    fb->used += n;
    return off;
}

/* A NULL-terminated string array: the offsets array first (aligned), then the strings. */
static uintptr_t flat_list(struct flat_buf *fb, const char *const *list)
{
    size_t n = 0;
    size_t i;
    uintptr_t off;
    uintptr_t *offs;

    if (list == NULL) {
        return 0;
    }
    while (list[n] != NULL) {
        n++;
    }
    fb->used = FLAT_ALIGN(fb->used);
    off = fb->used;
    fb->used += (n + 1) * sizeof(uintptr_t);
    for (i = 0; i < n; i++) {
        uintptr_t s = flat_str(fb, list[i]);
        if (fb->base != NULL) {
            offs = (uintptr_t *)(void *)(fb->base + off);
            offs[i] = s;
        }
    }
    if (fb->base != NULL) {
        offs = (uintptr_t *)(void *)(fb->base + off);
        offs[n] = 0;
    }
    return off;
}

/* Writers of a result into a flat buffer. Each runs twice over the same code: measure
 * (fb->base NULL), then write. */
typedef void flat_write_fn(struct flat_buf *fb, const void *result);

static void flat_user_write(struct flat_buf *fb, const void *result)
{
    const struct sysdb_user *u = result;
    struct sysdb_user f = *u;

    fb->used = FLAT_ALIGN(sizeof(f));
    f.name = (const char *)flat_str(fb, u->name);
    f.gecos = (const char *)flat_str(fb, u->gecos);
    f.home = (const char *)flat_str(fb, u->home);
    f.shell = (const char *)flat_str(fb, u->shell);
    f.orig_dn = (const char *)flat_str(fb, u->orig_dn);
    f.email = (const char *)flat_str(fb, u->email);
    f.sid = (const char *)flat_str(fb, u->sid);
    f.extra = (const char **)flat_list(fb, u->extra);
    if (fb->base != NULL) {
        memcpy(fb->base, &f, sizeof(f));
    }
}

static void flat_group_write(struct flat_buf *fb, const void *result)
{
    const struct sysdb_group *g = result;
    struct sysdb_group f = *g;

    fb->used = FLAT_ALIGN(sizeof(f));
    f.members = (const char **)flat_list(fb, g->members);
    f.member_groups = (const char **)flat_list(fb, g->member_groups);
    f.name = (const char *)flat_str(fb, g->name);
    f.orig_dn = (const char *)flat_str(fb, g->orig_dn);
    f.sid = (const char *)flat_str(fb, g->sid);
    if (fb->base != NULL) {
        memcpy(fb->base, &f, sizeof(f));
    }
}

static errno_t flat_make(TALLOC_CTX *mem_ctx, flat_write_fn *write, const void *result,
                         void **_blob, size_t *_len)
{
    struct flat_buf fb = { NULL, 0 };

    write(&fb, result);
    /* Zeroed: the padding is sent to other processes and compared. */
    fb.base = talloc_zero_size(mem_ctx, fb.used);
    if (fb.base == NULL) {
        return ENOMEM;
    }
    write(&fb, result);
    *_blob = fb.base;
    *_len = fb.used;
    return EOK;
}

errno_t sysdb_flat_user(TALLOC_CTX *mem_ctx, const struct sysdb_user *user,
                        void **_blob, size_t *_len)
{
    return flat_make(mem_ctx, flat_user_write, user, _blob, _len);
}

errno_t sysdb_flat_group(TALLOC_CTX *mem_ctx, const struct sysdb_group *group,
                         void **_blob, size_t *_len)
{
    return flat_make(mem_ctx, flat_group_write, group, _blob, _len);
}

static const char *flat_ptr(char *base, const char *off)
{
    return off == NULL ? NULL : base + (uintptr_t)off;
}

static const char **flat_ptr_list(char *base, const char **off)
{
    uintptr_t *offs;
    const char **list;
    size_t i;

    if (off == NULL) {
        return NULL;
    }
    offs = (uintptr_t *)(void *)(base + (uintptr_t)off);
    list = (const char **)offs;
    for (i = 0; offs[i] != 0; i++) {
        list[i] = base + offs[i];
    }
    list[i] = NULL;
    return list;
}

/* The one allocation of a result: a copy of the blob named like the struct it holds. */
static inline char *flat_copy(TALLOC_CTX *mem_ctx, const void *blob, size_t len,
                              const char *name)
{
    char *base;

    base = talloc_memdup(mem_ctx, blob, len);
    if (base != NULL) {
        talloc_set_name_const(base, name);
    }
    return base;
}

struct sysdb_user *sysdb_unflat_user(TALLOC_CTX *mem_ctx, const void *blob, size_t len)
{
    struct sysdb_user *u;
    char *base;

    base = flat_copy(mem_ctx, blob, len, "struct sysdb_user");
    if (base == NULL) {
        return NULL;
    }
    u = (struct sysdb_user *)(void *)base;
    u->name = flat_ptr(base, u->name);
    u->gecos = flat_ptr(base, u->gecos);
    u->home = flat_ptr(base, u->home);
    u->shell = flat_ptr(base, u->shell);
    u->orig_dn = flat_ptr(base, u->orig_dn);
    u->email = flat_ptr(base, u->email);
    u->sid = flat_ptr(base, u->sid);
    u->extra = flat_ptr_list(base, u->extra);
    return u;
}

struct sysdb_group *sysdb_unflat_group(TALLOC_CTX *mem_ctx, const void *blob, size_t len)
{
    struct sysdb_group *g;
    char *base;

    base = flat_copy(mem_ctx, blob, len, "struct sysdb_group");
    if (base == NULL) {
        return NULL;
    }
    g = (struct sysdb_group *)(void *)base;
    g->name = flat_ptr(base, g->name);
    g->orig_dn = flat_ptr(base, g->orig_dn);
    g->sid = flat_ptr(base, g->sid);
    g->members = flat_ptr_list(base, g->members);
    g->member_groups = flat_ptr_list(base, g->member_groups);
    return g;
}
