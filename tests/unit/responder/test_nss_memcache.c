/* Unit tests of the memory-cache writer (src/responder/nss/nss_memcache.c). The files are
 * read back by a small reader written here from PROTOCOL.md and sss_mc.h only (the way
 * SSSD's libnss_sss reads them), not from the writer's code. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "responder/nss/nss_memcache.h"
#include "sss_client/murmurhash3.h"
#include "tests/unit/common/tc_common.h"

static struct tc_leaks leaks;
static char *tmpdir;

static int setup(void **state)
{
    tmpdir = tc_tmpdir(NULL, "test_nss_mc");
    tc_leak_start(&leaks);
    return 0;
}

static int teardown(void **state)
{
    tc_leak_check(&leaks);
    tc_tmpdir_remove(tmpdir);
    TALLOC_FREE(tmpdir);
    return 0;
}

/* ---- the independent reader ---- */

struct rd {
    int fd;
    uint8_t *base;
    size_t size;
    struct sss_mc_header h;
    const uint8_t *dt;
    const uint32_t *ht;
    uint32_t buckets;
};

static void rd_open(struct rd *r, const char *name)
{
    char path[128];
    struct stat st;
    uint32_t b1;

    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    r->fd = open(path, O_RDONLY);
    assert_true(r->fd >= 0);
    assert_int_equal(fstat(r->fd, &st), 0);
    r->size = st.st_size;
    r->base = mmap(NULL, r->size, PROT_READ, MAP_SHARED, r->fd, 0);
    assert_true(r->base != MAP_FAILED);
    b1 = ((volatile struct sss_mc_header *)r->base)->b1;
    memcpy(&r->h, r->base, sizeof(r->h));
    assert_true(MC_VALID_BARRIER(b1));
    assert_int_equal(b1, r->h.b2);
    assert_int_equal(r->h.major_vno, 1);
    assert_int_equal(r->h.minor_vno, 1);
    r->dt = r->base + r->h.data_table;
    r->ht = (const uint32_t *)(r->base + r->h.hash_table);
    r->buckets = r->h.ht_size / 4;
}

static void rd_close(struct rd *r)
{
    munmap(r->base, r->size);
    close(r->fd);
}

/* A consistent copy of the record at slot (NULL: invalid), malloc'd. */
static struct sss_mc_rec *rd_record(struct rd *r, uint32_t slot)
{
    const struct sss_mc_rec *rec = (const void *)(r->dt + (size_t)slot * MC_SLOT_SIZE);
    struct sss_mc_rec *copy;
    uint32_t b1 = rec->b1;

    if (!MC_VALID_BARRIER(b1) || rec->b2 != b1 || rec->len < MC_SLOT_SIZE
            || rec->len > r->h.dt_size - (size_t)slot * MC_SLOT_SIZE) {
        return NULL;
    }
    copy = malloc(rec->len);
    memcpy(copy, rec, rec->len);
    if (copy->b1 != b1 || copy->b2 != b1) {
        free(copy);
        return NULL;
    }
    return copy;
}

static uint32_t rd_hash(struct rd *r, const char *key)
{
    return murmurhash3(key, strlen(key) + 1, r->h.seed) % r->buckets;
}

static uint32_t rd_next(const struct sss_mc_rec *rec, uint32_t hash)
{
    return rec->hash1 == hash ? rec->next1 : rec->hash2 == hash ? rec->next2 : MC_INVALID_VAL32;
}

/* Walks key's chain; returns the first valid, unexpired record that want() accepts. */
static struct sss_mc_rec *rd_find(struct rd *r, const char *key,
                                  bool (*want)(struct sss_mc_rec *, const void *),
                                  const void *arg)
{
    uint32_t hash = rd_hash(r, key);
    uint32_t slot = r->ht[hash];
    struct sss_mc_rec *rec;
    int steps = 0;

    while (slot < r->h.dt_size / MC_SLOT_SIZE) {
        assert_true(++steps < 100000);
        rec = rd_record(r, slot);
        assert_non_null(rec);   /* a linked record is always consistent here */
        if (rec->expire >= (uint64_t)time(NULL) && want(rec, arg)) {
            return rec;
        }
        slot = rd_next(rec, hash);
        free(rec);
    }
    assert_int_equal(slot, MC_INVALID_VAL32);
    return NULL;
}

static bool want_name(struct sss_mc_rec *rec, const void *arg)
{
    uint32_t off;

    memcpy(&off, rec->data, 4);
    return off < rec->len - sizeof(*rec) && strcmp(rec->data + off, arg) == 0;
}

static bool want_initgr_name(struct sss_mc_rec *rec, const void *arg)
{
    const struct sss_mc_initgr_data *d = (const void *)rec->data;

    return d->name < d->data_len + 24 && strcmp(rec->data + d->name, arg) == 0;
}

static bool want_id(struct sss_mc_rec *rec, const void *arg)
{
    uint32_t id;

    memcpy(&id, rec->data + 4, 4);
    return id == *(const uint32_t *)arg;
}

static struct sss_mc_rec *rd_by_id(struct rd *r, uint32_t id)
{
    char key[16];

    snprintf(key, sizeof(key), "%u", id);
    return rd_find(r, key, want_id, &id);
}

/* ---- helpers ---- */

static struct nss_mc *open_mc(TALLOC_CTX *mem_ctx, enum nss_mc_type type, uint32_t slots)
{
    struct nss_mc_conf conf = { tmpdir, type, slots, 300, NULL };
    struct nss_mc *mc = NULL;

    assert_int_equal(nss_mc_open(mem_ctx, &conf, &mc), EOK);
    assert_non_null(mc);
    return mc;
}

static void store_user(struct nss_mc *mc, const char *name, uint32_t uid)
{
    struct nss_pw_entry pw = { name, uid, uid + 1, "gecos", "/home/u", "/bin/sh" };

    assert_int_equal(nss_mc_store_passwd(mc, &pw), EOK);
}

/* ---- tests ---- */

static void test_create(void **state)
{
    struct nss_mc *mc = open_mc(NULL, NSS_MC_PASSWD, 1024);
    struct stat st;
    struct rd r;
    uint32_t slots;
    size_t i;

    assert_int_equal(stat(nss_mc_path(mc), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    assert_int_equal(st.st_size, 56 + 1024 * 40 + 128 + 1024 * 4);
    rd_open(&r, "passwd");
    assert_int_equal(r.h.status, SSS_MC_HEADER_ALIVE);
    assert_int_equal(r.h.dt_size, 1024 * 40);
    assert_int_equal(r.h.ft_size, 128);
    assert_int_equal(r.h.ht_size, 1024 * 4);
    assert_int_equal(r.h.data_table, 56);
    assert_int_equal(r.h.free_table, 56 + 1024 * 40);
    assert_int_equal(r.h.hash_table, 56 + 1024 * 40 + 128);
    assert_int_equal(r.h.reserved, 0);
    /* The data table is left as allocated (zeros, no resident pages): no reader reaches a
     * slot but through the hash table, which is all empty. */
    for (i = 0; i < r.h.dt_size; i++) {
        assert_int_equal(r.dt[i], 0);
    }
    for (i = 0; i < r.h.ft_size; i++) {
        assert_int_equal(r.base[r.h.free_table + i], 0);
    }
    for (i = 0; i < r.buckets; i++) {
        assert_int_equal(r.ht[i], MC_INVALID_VAL32);
    }

    /* Our write lock on byte 0 is seen through another open file description (an OFD
     * query conflicts with a process-associated lock, without forking). */
    {
        struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0,
                            .l_len = 1 };
        int fd = open(nss_mc_path(mc), O_RDWR);

        assert_true(fd >= 0);
        assert_int_equal(fcntl(fd, F_OFD_GETLK, &fl), 0);
        assert_int_equal(fl.l_type, F_WRLCK);
        assert_int_equal(fl.l_pid, getpid());
        close(fd);
    }
    rd_close(&r);
    talloc_free(mc);

    /* SSSD's sizes: 8 MiB is 8 x 26214 slots, already a multiple of 8 */
    assert_int_equal(nss_mc_slots_for_mb(8, &slots), EOK);
    assert_int_equal(slots, 209712);
    assert_int_equal(nss_mc_slots_for_mb(1, &slots), EOK);
    assert_int_equal(slots, 26216);
    assert_int_equal(nss_mc_slots_for_mb(0, &slots), EOK);
    assert_int_equal(slots, 0);
    assert_int_equal(nss_mc_slots_for_mb(100000, &slots), ERANGE);
}

static void test_disabled(void **state)
{
    struct nss_mc_conf conf = { tmpdir, NSS_MC_GROUP, 0, 300, NULL };
    struct nss_mc *mc = open_mc(NULL, NSS_MC_GROUP, 64);
    struct nss_mc *off = (void *)1;
    char path[128];

    talloc_free(mc);
    snprintf(path, sizeof(path), "%s/group", tmpdir);
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(nss_mc_open(NULL, &conf, &off), EOK);
    assert_null(off);
    assert_int_equal(access(path, F_OK), -1);    /* the old file is gone */
    store_user(off, "x", 1);                     /* a disabled cache takes no-ops */
    assert_int_equal(nss_mc_invalidate_all(off), EOK);
    conf.slots = 12;
    assert_int_equal(nss_mc_open(NULL, &conf, &off), EINVAL);
}

static void test_passwd_record(void **state)
{
    struct nss_mc *mc = open_mc(NULL, NSS_MC_PASSWD, 1024);
    struct nss_pw_entry pw = { "alice", 1000, 1001, "Alice", "/home/alice", "/bin/bash" };
    const char strs[] = "alice\0*\0Alice\0/home/alice\0/bin/bash";
    struct sss_mc_pwd_data *d;
    struct sss_mc_rec *rec;
    struct rd r;
    time_t now = time(NULL);

    assert_int_equal(nss_mc_store_passwd(mc, &pw), EOK);
    rd_open(&r, "passwd");
    rec = rd_find(&r, "alice", want_name, "alice");
    assert_non_null(rec);
    d = (struct sss_mc_pwd_data *)rec->data;
    assert_int_equal(d->name, 16);
    assert_int_equal(d->uid, 1000);
    assert_int_equal(d->gid, 1001);
    assert_int_equal(d->strs_len, sizeof(strs));
    assert_memory_equal(d->strs, strs, sizeof(strs));
    assert_int_equal(rec->len, 40 + 16 + sizeof(strs));
    assert_int_equal(rec->padding, MC_INVALID_VAL32);
    assert_true(rec->expire >= (uint64_t)now + 300 && rec->expire <= (uint64_t)now + 301);
    assert_int_equal(rec->hash1, rd_hash(&r, "alice"));
    assert_int_equal(rec->hash2, rd_hash(&r, "1000"));
    free(rec);
    rec = rd_by_id(&r, 1000);
    assert_non_null(rec);
    free(rec);
    assert_null(rd_find(&r, "bob", want_name, "bob"));
    assert_null(rd_by_id(&r, 1001));
    /* 92 bytes take three slots, marked most significant bit first */
    assert_int_equal(r.base[r.h.free_table], 0xe0);

    /* the same name again with another uid replaces the record */
    pw.uid = 1005;
    assert_int_equal(nss_mc_store_passwd(mc, &pw), EOK);
    assert_null(rd_by_id(&r, 1000));
    rec = rd_find(&r, "alice", want_name, "alice");
    assert_int_equal(((struct sss_mc_pwd_data *)rec->data)->uid, 1005);
    free(rec);
    /* another name with that uid replaces it too */
    store_user(mc, "alice2", 1005);
    assert_null(rd_find(&r, "alice", want_name, "alice"));
    rec = rd_by_id(&r, 1005);
    assert_non_null(rec);
    assert_string_equal(rec->data + 16, "alice2");
    free(rec);

    /* wrong file type */
    assert_int_equal(nss_mc_store_initgr(mc, "a", "a@d", NULL, 0), EINVAL);
    rd_close(&r);
    talloc_free(mc);
}

static void test_group_and_initgr_records(void **state)
{
    TALLOC_CTX *tmp = talloc_new(NULL);
    struct nss_mc *gmc = open_mc(tmp, NSS_MC_GROUP, 1024);
    struct nss_mc *imc = open_mc(tmp, NSS_MC_INITGROUPS, 1024);
    const char *members[] = { "alice", "bob" };
    struct nss_gr_entry gr = { "staff", 2000, members, 2 };
    const char strs[] = "staff\0*\0alice\0bob";
    uint32_t gids[] = { 2000, 2001, 2002 };
    struct sss_mc_initgr_data *id;
    struct sss_mc_grp_data *gd;
    struct sss_mc_rec *rec;
    struct rd r;

    assert_int_equal(nss_mc_store_group(gmc, &gr), EOK);
    rd_open(&r, "group");
    rec = rd_find(&r, "staff", want_name, "staff");
    assert_non_null(rec);
    gd = (struct sss_mc_grp_data *)rec->data;
    assert_int_equal(gd->name, 16);
    assert_int_equal(gd->gid, 2000);
    assert_int_equal(gd->members, 2);
    assert_int_equal(gd->strs_len, sizeof(strs));
    assert_memory_equal(gd->strs, strs, sizeof(strs));
    free(rec);
    rec = rd_by_id(&r, 2000);
    assert_non_null(rec);
    free(rec);
    assert_int_equal(nss_mc_invalidate_id(gmc, 2000), EOK);
    assert_null(rd_find(&r, "staff", want_name, "staff"));
    assert_int_equal(nss_mc_invalidate_id(gmc, 2000), ENOENT);
    /* members given packed, as the formatter gives them: the same record */
    gr.packed = "alice\0bob";
    gr.packed_len = 10;
    assert_int_equal(nss_mc_store_group(gmc, &gr), EOK);
    rec = rd_find(&r, "staff", want_name, "staff");
    assert_non_null(rec);
    gd = (struct sss_mc_grp_data *)rec->data;
    assert_int_equal(gd->strs_len, sizeof(strs));
    assert_memory_equal(gd->strs, strs, sizeof(strs));
    free(rec);
    rd_close(&r);

    assert_int_equal(nss_mc_store_initgr(imc, "alice", "alice@ldap.test", gids, 3), EOK);
    rd_open(&r, "initgroups");
    rec = rd_find(&r, "alice", want_initgr_name, "alice");
    assert_non_null(rec);
    id = (struct sss_mc_initgr_data *)rec->data;
    assert_int_equal(id->num_groups, 3);
    assert_memory_equal(id->gids, gids, sizeof(gids));
    assert_int_equal(id->unique_name, 24 + 12);
    assert_int_equal(id->strs, 24 + 12);
    assert_string_equal(rec->data + id->unique_name, "alice@ldap.test");
    assert_int_equal(id->name, 24 + 12 + 16);
    assert_string_equal(rec->data + id->name, "alice");
    assert_int_equal(id->strs_len, 16 + 6);
    assert_int_equal(id->data_len, 12 + 16 + 6);
    assert_int_equal(rec->len, 40 + 24 + 12 + 16 + 6);
    assert_int_equal(rec->hash2, rd_hash(&r, "alice@ldap.test"));
    free(rec);
    /* the same user by its qualified name replaces the record (one record per user) */
    assert_int_equal(nss_mc_store_initgr(imc, "alice@ldap.test", "alice@ldap.test", gids, 1),
                     EOK);
    assert_null(rd_find(&r, "alice", want_initgr_name, "alice"));
    rec = rd_find(&r, "alice@ldap.test", want_initgr_name, "alice@ldap.test");
    assert_non_null(rec);
    assert_int_equal(rec->hash1, rec->hash2);     /* one chain, linked once */
    free(rec);
    assert_int_equal(nss_mc_invalidate_name(imc, "alice@ldap.test"), EOK);
    assert_null(rd_find(&r, "alice@ldap.test", want_initgr_name, "alice@ldap.test"));
    assert_int_equal(r.ht[rd_hash(&r, "alice@ldap.test")], MC_INVALID_VAL32);
    assert_int_equal(nss_mc_invalidate_id(imc, 1), EINVAL);
    rd_close(&r);
    talloc_free(tmp);
}

/* Every chain terminates, every linked record is valid, and the free table counts exactly
 * the slots of the linked records. Returns the number of distinct records. */
static unsigned int check_consistent(struct rd *r, unsigned int *_longest)
{
    uint32_t nslots = r->h.dt_size / MC_SLOT_SIZE;
    uint8_t *seen = calloc(nslots, 1);
    unsigned int records = 0;
    unsigned int used_slots = 0;
    unsigned int longest = 0;
    unsigned int len;
    struct sss_mc_rec *rec;
    uint32_t b, slot, i;

    for (b = 0; b < r->buckets; b++) {
        len = 0;
        slot = r->ht[b];
        while (slot != MC_INVALID_VAL32) {
            assert_true(slot < nslots);
            assert_true(++len < 10000);
            rec = rd_record(r, slot);
            assert_non_null(rec);
            assert_true(rec->hash1 == b || rec->hash2 == b);
            if (!seen[slot]) {
                seen[slot] = 1;
                records++;
                used_slots += (rec->len + 39) / 40;
            }
            slot = rd_next(rec, b);
            free(rec);
        }
        if (len > longest) {
            longest = len;
        }
    }
    for (i = 0; i < nslots; i++) {
        if (r->base[r->h.free_table + i / 8] & (0x80 >> (i % 8))) {
            used_slots--;
        }
    }
    assert_int_equal(used_slots, 0);
    free(seen);
    if (_longest != NULL) {
        *_longest = longest;
    }
    return records;
}

/* Storing the bytes that are already there only moves the expiry: same slot, no slot
 * freed or taken, a new barrier value; any change of the bytes writes a new record. */
static void test_same_record_refreshed(void **state)
{
    TALLOC_CTX *tmp = talloc_new(NULL);
    struct nss_mc *pmc = open_mc(tmp, NSS_MC_PASSWD, 1024);
    struct nss_mc *gmc = open_mc(tmp, NSS_MC_GROUP, 1024);
    struct nss_pw_entry pw = { "alice", 1000, 1001, "Alice", "/home/alice", "/bin/bash" };
    const char *members[] = { "bob", "carol" };
    const char packed[] = "bob\0carol";
    struct nss_gr_entry gr = { "staff", 2000, members, 2, packed, sizeof(packed) };
    const struct sss_mc_rec *live;
    struct sss_mc_rec *rec;
    uint32_t b1;
    struct rd r;
    time_t now = time(NULL);

    assert_int_equal(nss_mc_store_passwd_ttl(pmc, &pw, 10), EOK);
    rd_open(&r, "passwd");
    live = (const void *)r.dt;            /* the first record takes slot 0 */
    assert_true(live->expire <= (uint64_t)now + 11);
    b1 = live->b1;
    assert_int_equal(nss_mc_store_passwd_ttl(pmc, &pw, 300), EOK);
    assert_true(live->expire >= (uint64_t)now + 300);
    /* the next barrier value, not the one a wiped and rewritten slot starts again from */
    assert_int_equal(live->b1, MC_NEXT_BARRIER(b1));
    assert_int_not_equal(live->b1, MC_NEXT_BARRIER(MC_INVALID_VAL32));
    assert_int_equal(live->b1, live->b2);
    assert_int_equal(r.base[r.h.free_table], 0xe0);   /* still the same three slots */
    rec = rd_find(&r, "alice", want_name, "alice");
    assert_non_null(rec);
    free(rec);
    /* another shell: the old record is dropped and a new one written (in the slots the
     * old one freed) */
    pw.shell = "/bin/zsh";
    b1 = live->b1;
    assert_int_equal(nss_mc_store_passwd(pmc, &pw), EOK);
    assert_int_equal(r.base[r.h.free_table], 0xe0);
    assert_int_not_equal(live->b1, b1);
    rec = rd_find(&r, "alice", want_name, "alice");
    assert_non_null(rec);
    assert_memory_equal(rec->data + 16, "alice\0*\0Alice\0/home/alice\0/bin/zsh", 35);
    free(rec);
    rd_close(&r);

    /* a group whose members come packed: the same, compared without a copy */
    assert_int_equal(nss_mc_store_group_ttl(gmc, &gr, 10), EOK);
    rd_open(&r, "group");
    live = (const void *)r.dt;
    b1 = live->b1;
    assert_int_equal(nss_mc_store_group_ttl(gmc, &gr, 300), EOK);
    assert_true(live->expire >= (uint64_t)now + 300);
    assert_int_equal(live->b1, MC_NEXT_BARRIER(b1));
    assert_int_not_equal(live->b1, MC_NEXT_BARRIER(MC_INVALID_VAL32));
    rec = rd_by_id(&r, 2000);
    assert_non_null(rec);
    assert_memory_equal(rec->data + 16, "staff\0*\0bob\0carol", 18);
    free(rec);
    /* one member renamed, same length: the bytes differ, so a new record */
    gr.packed = "bob\0carl";
    gr.packed_len = 9;
    members[1] = "carl";
    assert_int_equal(nss_mc_store_group(gmc, &gr), EOK);
    rec = rd_find(&r, "staff", want_name, "staff");
    assert_non_null(rec);
    assert_memory_equal(rec->data + 16, "staff\0*\0bob\0carl", 17);
    free(rec);
    rec = rd_by_id(&r, 2000);
    assert_non_null(rec);
    assert_memory_equal(rec->data + 16, "staff\0*\0bob\0carl", 17);
    free(rec);
    rd_close(&r);
    talloc_free(tmp);
}

static void test_chains(void **state)
{
    struct nss_mc *mc = open_mc(NULL, NSS_MC_PASSWD, 512);
    struct sss_mc_rec *rec;
    unsigned int longest;
    char name[32];
    struct rd r;
    int i;

    /* 150 users in 512 buckets: 300 keys, so chains of two and more are certain */
    for (i = 0; i < 150; i++) {
        snprintf(name, sizeof(name), "user%d", i);
        store_user(mc, name, 5000 + i);
    }
    rd_open(&r, "passwd");
    assert_int_equal(check_consistent(&r, &longest), 150);
    assert_true(longest >= 2);
    for (i = 0; i < 150; i++) {
        snprintf(name, sizeof(name), "user%d", i);
        rec = rd_find(&r, name, want_name, name);
        assert_non_null(rec);
        assert_int_equal(((struct sss_mc_pwd_data *)rec->data)->uid, 5000 + i);
        free(rec);
        rec = rd_by_id(&r, 5000 + i);
        assert_non_null(rec);
        assert_string_equal(rec->data + 16, name);
        free(rec);
    }
    /* invalidate every other one, from the middle of chains too */
    for (i = 0; i < 150; i += 2) {
        snprintf(name, sizeof(name), "user%d", i);
        assert_int_equal(nss_mc_invalidate_name(mc, name), EOK);
    }
    assert_int_equal(nss_mc_invalidate_name(mc, "user0"), ENOENT);
    assert_int_equal(nss_mc_invalidate_id(mc, 5001), EOK);
    assert_int_equal(check_consistent(&r, NULL), 74);
    for (i = 2; i < 150; i++) {
        snprintf(name, sizeof(name), "user%d", i);
        rec = rd_find(&r, name, want_name, name);
        assert_true((rec != NULL) == (i % 2 == 1));
        free(rec);
    }
    assert_int_equal(nss_mc_invalidate_all(mc), EOK);
    assert_int_equal(check_consistent(&r, NULL), 0);
    assert_int_equal(r.h.status, SSS_MC_HEADER_ALIVE);
    /* every slot that held a record is wiped (0xff); the others were never written (0) */
    for (i = 0; i < (int)(r.h.dt_size / 40); i++) {
        size_t k;
        uint8_t first = r.dt[(size_t)i * 40];

        assert_true(first == 0xff || first == 0);
        for (k = 1; k < 40; k++) {
            assert_int_equal(r.dt[(size_t)i * 40 + k], first);
        }
    }
    store_user(mc, "again", 1);
    assert_int_equal(check_consistent(&r, NULL), 1);
    rd_close(&r);
    talloc_free(mc);
}

static void test_eviction(void **state)
{
    struct nss_mc *mc = open_mc(NULL, NSS_MC_PASSWD, 64);
    const char *big_members[40];
    struct sss_mc_rec *rec;
    unsigned int n;
    char name[96];
    struct rd r;
    int i;

    /* 64 slots hold 32 two-slot users; 200 stores wrap around several times */
    for (i = 0; i < 200; i++) {
        snprintf(name, sizeof(name), "u%d", i);
        store_user(mc, name, i);
    }
    rd_open(&r, "passwd");
    n = check_consistent(&r, NULL);
    assert_true(n > 16 && n <= 32);
    /* the newest records survive */
    for (i = 190; i < 200; i++) {
        snprintf(name, sizeof(name), "u%d", i);
        rec = rd_find(&r, name, want_name, name);
        assert_non_null(rec);
        free(rec);
    }
    assert_null(rd_find(&r, "u0", want_name, "u0"));
    /* records of different sizes keep it consistent */
    for (i = 0; i < 100; i++) {
        struct nss_pw_entry pw = { name, 10000 + i, 1, NULL, NULL, NULL };

        snprintf(name, sizeof(name), "v%d%.*s", i, i % 60, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        assert_int_equal(nss_mc_store_passwd(mc, &pw), EOK);
        check_consistent(&r, NULL);
    }
    /* a record larger than the whole table is refused */
    for (i = 0; i < 40; i++) {
        big_members[i] = "a-rather-long-member-name-for-the-test-xxxxxxxxxx";
    }
    rd_close(&r);
    talloc_free(mc);

    mc = open_mc(NULL, NSS_MC_GROUP, 16);
    {
        struct nss_gr_entry gr = { "big", 1, big_members, 40 };

        assert_int_equal(nss_mc_store_group(mc, &gr), E2BIG);
    }
    talloc_free(mc);
}

static void test_reset(void **state)
{
    struct nss_mc *mc = open_mc(NULL, NSS_MC_PASSWD, 64);
    struct sss_mc_header h;
    struct stat st_old, st_new;
    struct rd old, r;

    store_user(mc, "alice", 1000);
    rd_open(&old, "passwd");
    assert_int_equal(fstat(old.fd, &st_old), 0);
    assert_int_equal(nss_mc_reset(mc), EOK);

    /* the old file: recycled (under valid barriers) and unlinked */
    memcpy(&h, old.base, sizeof(h));
    assert_int_equal(h.status, SSS_MC_HEADER_RECYCLED);
    assert_true(MC_VALID_BARRIER(h.b1) && h.b1 == h.b2);
    assert_int_equal(fstat(old.fd, &st_old), 0);
    assert_int_equal(st_old.st_nlink, 0);

    /* the new one: alive, empty, another inode, same mode */
    rd_open(&r, "passwd");
    assert_int_equal(fstat(r.fd, &st_new), 0);
    assert_true(st_new.st_ino != st_old.st_ino);
    assert_int_equal(st_new.st_mode & 07777, 0644);
    assert_int_equal(r.h.status, SSS_MC_HEADER_ALIVE);
    assert_null(rd_find(&r, "alice", want_name, "alice"));
    store_user(mc, "bob", 1001);
    assert_int_equal(check_consistent(&r, NULL), 1);
    rd_close(&r);
    rd_close(&old);

    /* opening again recycles the file a previous process left */
    rd_open(&old, "passwd");
    talloc_free(mc);
    mc = open_mc(NULL, NSS_MC_PASSWD, 64);
    assert_int_equal(((struct sss_mc_header *)old.base)->status, SSS_MC_HEADER_RECYCLED);
    rd_close(&old);
    talloc_free(mc);
}

/* The file scribbled over by someone else (a disk error, a stray root process): hash table
 * entries, chain links, lengths and the free table full of random words. The writer must
 * neither crash nor write outside its records; finding the damage, it recreates the file,
 * which then works. Before the fix, the first store after the scribble segfaulted. */
static void test_scribbled_file(void **state)
{
    struct nss_mc *mc = open_mc(NULL, NSS_MC_PASSWD, 256);
    struct sss_mc_rec *rec;
    struct stat st;
    uint32_t *words;
    char name[32];
    char path[128];
    uint32_t seed = 12345;
    size_t nwords;
    size_t i;
    int fd;
    int round;
    struct rd r;

    for (round = 0; round < 20; round++) {
        for (i = 0; i < 100; i++) {
            snprintf(name, sizeof(name), "u%zu", i);
            store_user(mc, name, 1000 + i);
        }
        /* Scribble random words over everything after the header, through another mapping,
         * as another process would. */
        snprintf(path, sizeof(path), "%s/passwd", tmpdir);
        fd = open(path, O_RDWR);
        assert_true(fd >= 0);
        assert_int_equal(fstat(fd, &st), 0);
        words = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        assert_true(words != MAP_FAILED);
        nwords = st.st_size / sizeof(uint32_t);
        for (i = 0; i < 2000; i++) {
            seed = seed * 1103515245u + 12345u;
            words[MC_HEADER_SIZE / sizeof(uint32_t)
                  + seed % (nwords - MC_HEADER_SIZE / sizeof(uint32_t))] = seed * 2654435761u;
        }
        munmap(words, st.st_size);
        close(fd);
        /* Stores and drops after the damage: no crash, no write out of bounds (ASan). */
        for (i = 0; i < 100; i++) {
            struct nss_pw_entry pw = { name, 5000 + i, 1, "g", "/h", "/s" };
            errno_t ret;

            snprintf(name, sizeof(name), "v%zu", i);
            ret = nss_mc_store_passwd(mc, &pw);
            assert_true(ret == EOK || ret == EIO);      /* EIO: damage found, recreated */
            snprintf(name, sizeof(name), "u%zu", i);
            (void)nss_mc_invalidate_name(mc, name);
        }
    }
    /* Still a working cache: a new record is found by a reader. */
    store_user(mc, "after", 9999);
    rd_open(&r, "passwd");
    rec = rd_find(&r, "after", want_name, "after");
    assert_non_null(rec);
    free(rec);
    rd_close(&r);
    talloc_free(mc);
}

/* A record linked under one key only (nss_mc_store_*_keys()): found by that key, not by
 * the other, and it drops no record holding the other key (two domains with a group of the
 * same name: the second one's, found by gid, must not replace the first one's by name). */
static void test_partial_keys(void **state)
{
    struct nss_mc *gmc = open_mc(NULL, NSS_MC_GROUP, 1024);
    struct nss_mc *pmc = open_mc(NULL, NSS_MC_PASSWD, 1024);
    struct nss_gr_entry d1 = { "admins", 5000, NULL, 0 };
    struct nss_gr_entry d2 = { "admins", 5100, NULL, 0 };
    struct nss_pw_entry pw = { "zed", 7000, 7000, "", "/", "/bin/sh" };
    struct sss_mc_rec *rec;
    uint32_t slot;
    uint32_t id;
    struct rd r;
    struct rd p;

    assert_int_equal(nss_mc_store_group(gmc, &d1), EOK);
    assert_int_equal(nss_mc_store_group_keys(gmc, &d2, 300, NSS_MC_KEY_ID), EOK);
    rd_open(&r, "group");
    rec = rd_find(&r, "admins", want_name, "admins");
    assert_non_null(rec);
    assert_int_equal(((struct sss_mc_grp_data *)rec->data)->gid, 5000);
    free(rec);
    rec = rd_by_id(&r, 5100);
    assert_non_null(rec);
    assert_string_equal(rec->data + 16, "admins");
    assert_int_equal(rec->hash1, MC_INVALID_VAL32);
    assert_int_equal(rec->hash2, rd_hash(&r, "5100"));
    free(rec);
    rec = rd_by_id(&r, 5000);
    assert_non_null(rec);
    free(rec);

    /* stored again unchanged: the same record, its expiry renewed in place */
    slot = r.ht[rd_hash(&r, "5100")];
    assert_int_equal(nss_mc_store_group_keys(gmc, &d2, 300, NSS_MC_KEY_ID), EOK);
    assert_int_equal(r.ht[rd_hash(&r, "5100")], slot);
    /* by name the other record is dropped, and only it */
    assert_int_equal(nss_mc_invalidate_name(gmc, "admins"), EOK);
    assert_null(rd_find(&r, "admins", want_name, "admins"));
    assert_null(rd_by_id(&r, 5000));
    rec = rd_by_id(&r, 5100);
    assert_non_null(rec);
    free(rec);
    assert_int_equal(nss_mc_invalidate_id(gmc, 5100), EOK);
    assert_null(rd_by_id(&r, 5100));
    assert_int_equal(nss_mc_store_group_keys(gmc, &d2, 300, 0), EINVAL);
    rd_close(&r);

    /* name only */
    assert_int_equal(nss_mc_store_passwd_keys(pmc, &pw, 300, NSS_MC_KEY_NAME), EOK);
    rd_open(&p, "passwd");
    rec = rd_find(&p, "zed", want_name, "zed");
    assert_non_null(rec);
    assert_int_equal(rec->hash2, MC_INVALID_VAL32);
    free(rec);
    id = 7000;
    assert_null(rd_by_id(&p, id));
    assert_int_equal(nss_mc_invalidate_id(pmc, id), ENOENT);
    /* then both keys: the name-only record is replaced */
    assert_int_equal(nss_mc_store_passwd(pmc, &pw), EOK);
    rec = rd_by_id(&p, id);
    assert_non_null(rec);
    free(rec);
    assert_int_equal(nss_mc_invalidate_name(pmc, "zed"), EOK);
    assert_null(rd_find(&p, "zed", want_name, "zed"));
    assert_null(rd_by_id(&p, id));
    rd_close(&p);
    talloc_free(gmc);
    talloc_free(pmc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disabled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_passwd_record, setup, teardown),
        cmocka_unit_test_setup_teardown(test_group_and_initgr_records, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_record_refreshed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chains, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eviction, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partial_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scribbled_file, setup, teardown),
    };
    int ret;

    debug_level = 0;
    ret = cmocka_run_group_tests(tests, NULL, NULL);
    /* tc_leak_start() turned null tracking on; an empty null context left behind is what
     * LeakSanitizer reports as a leak. */
    talloc_disable_null_tracking();
    return ret;
}
