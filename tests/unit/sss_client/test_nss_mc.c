/* libnss_sss's memory-cache reader against cache files built here by hand per the layout of
 * sss_mc.h: lookups by name and id for passwd, group and initgroups, a collision chain of two
 * records in one bucket, expiry, ERANGE, a recycled and an unlinked file, corrupt slot
 * numbers, lengths, offsets and barriers, a chain that loops, a file truncated mid-table,
 * SSS_NSS_USE_MEMCACHE=NO, and 8 threads x 1000 lookups. No socket exists in these tests,
 * so a miss shows as UNAVAIL/ENOENT and a hit proves the cache answered. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "sss_client/murmurhash3.h"
#include "sss_client/sss_cli_client.h"
#include "sss_client/sss_mc.h"
#include "sss_client/nss/nss_mc.h"
#include "sss_client/nss/nss_private.h"
#include "nss_test_buf.h"

enum nss_status _nss_sss_getpwnam_r(const char *, struct passwd *, char *, size_t, int *);
enum nss_status _nss_sss_getpwuid_r(uid_t, struct passwd *, char *, size_t, int *);
enum nss_status _nss_sss_getgrnam_r(const char *, struct group *, char *, size_t, int *);
enum nss_status _nss_sss_getgrgid_r(gid_t, struct group *, char *, size_t, int *);
enum nss_status _nss_sss_initgroups_dyn(const char *, gid_t, long int *, long int *,
                                        gid_t **, long int, int *);

#define NSLOTS      64
#define NBUCKETS    16
#define SEED        0x5eed1234u
#define BARRIER     0xf0000001u
#define DT_OFF      MC_HEADER_SIZE
#define FT_OFF      (DT_OFF + NSLOTS * MC_SLOT_SIZE)
#define HT_OFF      (FT_OFF + NSLOTS / 8)
#define FILE_SIZE   (HT_OFF + NBUCKETS * 4)

/* ---- a minimal cache writer ---- */

struct mcw {
    uint8_t mem[FILE_SIZE];
    uint32_t next_slot;
};

static char dir[64];
static char buf[4096];

static void mcw_init(struct mcw *w)
{
    struct sss_mc_header h = {
        .b1 = BARRIER, .major_vno = 1, .minor_vno = 1, .status = SSS_MC_HEADER_ALIVE,
        .seed = SEED, .dt_size = NSLOTS * MC_SLOT_SIZE, .ft_size = NSLOTS / 8,
        .ht_size = NBUCKETS * 4, .data_table = DT_OFF, .free_table = FT_OFF,
        .hash_table = HT_OFF, .reserved = 0, .b2 = BARRIER,
    };

    memset(w->mem, 0, sizeof(w->mem));
    memcpy(w->mem, &h, sizeof(h));
    memset(w->mem + DT_OFF, 0xff, NSLOTS * MC_SLOT_SIZE);
    memset(w->mem + HT_OFF, 0xff, NBUCKETS * 4);
    w->next_slot = 0;
}

static struct sss_mc_rec *slot_ptr(struct mcw *w, uint32_t slot)
{
    return (struct sss_mc_rec *)(void *)(w->mem + DT_OFF + slot * MC_SLOT_SIZE);
}

static uint32_t *bucket_ptr(struct mcw *w, uint32_t b)
{
    return (uint32_t *)(void *)(w->mem + HT_OFF + b * 4);
}

static uint32_t bucket_of(const char *key)
{
    return murmurhash3(key, strlen(key) + 1, SEED) % NBUCKETS;
}

static void chain(struct mcw *w, uint32_t slot, uint32_t h)
{
    uint32_t cur = *bucket_ptr(w, h);

    if (cur == MC_INVALID_VAL32) {
        *bucket_ptr(w, h) = slot;
        return;
    }
    for (;;) {
        struct sss_mc_rec *r = slot_ptr(w, cur);
        uint32_t nxt;

        if (cur == slot) {
            return;
        }
        nxt = r->hash1 == h ? r->next1 : r->next2;
        if (nxt == MC_INVALID_VAL32) {
            if (r->hash1 == h) {
                r->next1 = slot;
            } else {
                r->next2 = slot;
            }
            return;
        }
        cur = nxt;
    }
}

/* Stores a record; returns its slot. */
static uint32_t mcw_add(struct mcw *w, const char *key1, const char *key2,
                        const void *data, size_t dlen, uint64_t expire)
{
    uint32_t slot = w->next_slot;
    size_t len = sizeof(struct sss_mc_rec) + dlen;
    struct sss_mc_rec *r = slot_ptr(w, slot);

    w->next_slot += (uint32_t)((len + MC_SLOT_SIZE - 1) / MC_SLOT_SIZE);
    assert_true(w->next_slot <= NSLOTS);
    r->b1 = BARRIER;
    r->b2 = BARRIER;
    r->len = (uint32_t)len;
    r->expire = expire;
    r->next1 = MC_INVALID_VAL32;
    r->next2 = MC_INVALID_VAL32;
    r->hash1 = bucket_of(key1);
    r->hash2 = bucket_of(key2);
    r->padding = 0;
    memcpy(r->data, data, dlen);
    chain(w, slot, r->hash1);
    chain(w, slot, r->hash2);
    return slot;
}

static uint64_t later(void)
{
    return (uint64_t)time(NULL) + 300;
}

static uint32_t add_pw(struct mcw *w, const char *name, uint32_t uid, uint64_t expire)
{
    struct tbuf d = { .len = 0 };
    struct tbuf s = { .len = 0 };
    char key2[16];

    tb_str(&s, name);
    tb_str(&s, "x");
    tb_str(&s, "gecos");
    tb_str(&s, "/home/dir");
    tb_str(&s, "/bin/sh");
    tb_u32(&d, 16);
    tb_u32(&d, uid);
    tb_u32(&d, 100);
    tb_u32(&d, (uint32_t)s.len);
    memcpy(d.data + d.len, s.data, s.len);
    d.len += s.len;
    snprintf(key2, sizeof(key2), "%u", uid);
    return mcw_add(w, name, key2, d.data, d.len, expire);
}

static uint32_t add_gr(struct mcw *w, const char *name, uint32_t gid)
{
    struct tbuf d = { .len = 0 };
    struct tbuf s = { .len = 0 };
    char key2[16];

    tb_str(&s, name);
    tb_str(&s, "*");
    tb_str(&s, "alice");
    tb_str(&s, "bob");
    tb_u32(&d, 16);
    tb_u32(&d, gid);
    tb_u32(&d, 2);
    tb_u32(&d, (uint32_t)s.len);
    memcpy(d.data + d.len, s.data, s.len);
    d.len += s.len;
    snprintf(key2, sizeof(key2), "%u", gid);
    return mcw_add(w, name, key2, d.data, d.len, later());
}

static uint32_t add_initgr(struct mcw *w, const char *name, const char *fqname)
{
    struct tbuf d = { .len = 0 };
    uint32_t gids[] = { 100, 10, 20 };
    uint32_t ngids = 3;
    uint32_t strs = 24 + ngids * 4;

    tb_u32(&d, strs);                                           /* unique name */
    tb_u32(&d, strs + (uint32_t)strlen(fqname) + 1);            /* name */
    tb_u32(&d, strs);
    tb_u32(&d, (uint32_t)(strlen(fqname) + strlen(name) + 2));  /* strs_len */
    tb_u32(&d, ngids * 4 + (uint32_t)(strlen(fqname) + strlen(name) + 2));
    tb_u32(&d, ngids);
    memcpy(d.data + d.len, gids, sizeof(gids));
    d.len += sizeof(gids);
    tb_str(&d, fqname);
    tb_str(&d, name);
    return mcw_add(w, name, fqname, d.data, d.len, later());
}

static void write_file(const char *name, const void *mem, size_t len)
{
    char path[128];
    char tmp[140];
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(tmp, sizeof(tmp), "%s.new", path);
    fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY, 0664);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, mem, len), (ssize_t)len);
    close(fd);
    assert_int_equal(rename(tmp, path), 0);     /* a new inode, like SSSD's reset */
}

static void patch_file(const char *name, size_t off, const void *data, size_t len)
{
    char path[128];
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, data, len, (off_t)off), (ssize_t)len);
    close(fd);
}

/* Two names other than `name` whose key1 lands in name's bucket. */
static void colliders(const char *name, char out[2][16])
{
    int found = 0;
    int i;

    for (i = 0; found < 2; i++) {
        snprintf(out[found], 16, "u%d", i);
        if (bucket_of(out[found]) == bucket_of(name)) {
            found++;
        }
    }
}

static struct mcw w;

static int setup(void **state)
{
    snprintf(dir, sizeof(dir), "/tmp/nss_mc_XXXXXX");
    assert_non_null(mkdtemp(dir));
    nss_mc_set_dir(dir);
    sss_cli_set_socket_dir(dir);    /* no socket there: misses fail fast with ENOENT */
    unsetenv("SSS_NSS_USE_MEMCACHE");
    unsetenv("_SSS_LOOPS");
    mcw_init(&w);
    return 0;
}

static int teardown(void **state)
{
    static const char *files[] = { "passwd", "group", "initgroups" };
    char path[128];
    size_t i;

    nss_mc_close_all();
    sss_nss_test_close();
    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    return 0;
}

static void assert_miss_pw(const char *name)
{
    struct passwd pw;
    int err = 0;

    assert_int_equal(_nss_sss_getpwnam_r(name, &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_UNAVAIL);
    assert_int_equal(err, ENOENT);
}

static void assert_hit_pw(const char *name, uint32_t uid)
{
    struct passwd pw;
    int err = 0;

    assert_int_equal(_nss_sss_getpwnam_r(name, &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_string_equal(pw.pw_name, name);
    assert_int_equal(pw.pw_uid, uid);
}

/* ---- the tests ---- */

static void test_passwd_hits(void **state)
{
    struct passwd pw;
    int err = 0;

    add_pw(&w, "alice", 1000, later());
    add_pw(&w, "bob", 1001, later());
    write_file("passwd", w.mem, sizeof(w.mem));

    assert_hit_pw("alice", 1000);
    assert_hit_pw("bob", 1001);
    assert_int_equal(_nss_sss_getpwuid_r(1000, &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_string_equal(pw.pw_name, "alice");
    assert_string_equal(pw.pw_dir, "/home/dir");
    assert_string_equal(pw.pw_shell, "/bin/sh");
    assert_int_equal(pw.pw_gid, 100);
    assert_miss_pw("carol");
    assert_int_equal(_nss_sss_getpwuid_r(1002, &pw, buf, sizeof(buf), &err),
                     NSS_STATUS_UNAVAIL);

    /* ERANGE from the cache, then the retry */
    assert_int_equal(_nss_sss_getpwnam_r("alice", &pw, buf, 8, &err), NSS_STATUS_TRYAGAIN);
    assert_int_equal(err, ERANGE);
    assert_hit_pw("alice", 1000);
}

static void test_collision_chain(void **state)
{
    char other[2][16];

    colliders("alice", other);
    add_pw(&w, "alice", 1000, later());
    add_pw(&w, other[0], 1001, later());
    write_file("passwd", w.mem, sizeof(w.mem));

    assert_int_equal(bucket_of("alice"), bucket_of(other[0]));
    assert_hit_pw("alice", 1000);
    assert_hit_pw(other[0], 1001);
    assert_miss_pw(other[1]);       /* same bucket, not stored */
}

static void test_expired(void **state)
{
    add_pw(&w, "old", 1000, (uint64_t)time(NULL) - 10);
    add_pw(&w, "new", 1001, later());
    write_file("passwd", w.mem, sizeof(w.mem));

    assert_miss_pw("old");
    assert_hit_pw("new", 1001);
}

static void test_group_and_initgroups(void **state)
{
    struct group gr;
    long int start = 1, size = 1;
    gid_t *groups = malloc(sizeof(gid_t));
    int err = 0;

    add_gr(&w, "staff", 5000);
    write_file("group", w.mem, sizeof(w.mem));
    mcw_init(&w);
    add_initgr(&w, "alice", "alice@example.com");
    write_file("initgroups", w.mem, sizeof(w.mem));

    assert_int_equal(_nss_sss_getgrnam_r("staff", &gr, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_int_equal(gr.gr_gid, 5000);
    assert_string_equal(gr.gr_mem[0], "alice");
    assert_string_equal(gr.gr_mem[1], "bob");
    assert_null(gr.gr_mem[2]);
    assert_int_equal(_nss_sss_getgrgid_r(5000, &gr, buf, sizeof(buf), &err),
                     NSS_STATUS_SUCCESS);
    assert_string_equal(gr.gr_name, "staff");
    assert_int_equal(_nss_sss_getgrgid_r(5001, &gr, buf, sizeof(buf), &err),
                     NSS_STATUS_UNAVAIL);

    groups[0] = 100;
    assert_int_equal(_nss_sss_initgroups_dyn("alice", 100, &start, &size, &groups, 0, &err),
                     NSS_STATUS_SUCCESS);
    assert_int_equal(start, 4);         /* the primary gid too, as SSSD's module */
    assert_int_equal(groups[1], 100);
    assert_int_equal(groups[2], 10);
    assert_int_equal(groups[3], 20);
    /* key1 is the name as asked; the fully qualified name is key2 only */
    assert_int_equal(_nss_sss_initgroups_dyn("alice@example.com", 100, &start, &size,
                                             &groups, 0, &err), NSS_STATUS_UNAVAIL);
    free(groups);
}

static void test_recycled(void **state)
{
    uint32_t status = SSS_MC_HEADER_RECYCLED;

    add_pw(&w, "alice", 1000, later());
    write_file("passwd", w.mem, sizeof(w.mem));
    assert_hit_pw("alice", 1000);

    /* status RECYCLED: the reader lets go; a new file replaces it */
    patch_file("passwd", offsetof(struct sss_mc_header, status), &status, sizeof(status));
    assert_miss_pw("alice");
    mcw_init(&w);
    add_pw(&w, "alice", 2000, later());
    write_file("passwd", w.mem, sizeof(w.mem));
    assert_hit_pw("alice", 2000);

    /* replaced without the status (st_nlink == 0 on the old one): the new one is read
     * once the fstat() check is due (at most NSS_MC_STAT_INTERVAL_MS after the last one) */
    mcw_init(&w);
    add_pw(&w, "alice", 3000, later());
    write_file("passwd", w.mem, sizeof(w.mem));
    usleep((NSS_MC_STAT_INTERVAL_MS + 20) * 1000);
    assert_hit_pw("alice", 3000);
}

static void test_corrupt_slots(void **state)
{
    struct sss_mc_rec *r;
    uint32_t slot;
    char other[2][16];

    /* bucket pointing past the data table */
    *bucket_ptr(&w, bucket_of("alice")) = NSLOTS + 5;
    write_file("passwd", w.mem, sizeof(w.mem));
    assert_miss_pw("alice");
    nss_mc_close_all();

    /* a chain that loops onto itself */
    mcw_init(&w);
    colliders("alice", other);
    slot = add_pw(&w, other[0], 1001, later());
    slot_ptr(&w, slot)->next1 = slot;
    if (slot_ptr(&w, slot)->hash2 == slot_ptr(&w, slot)->hash1) {
        slot_ptr(&w, slot)->next2 = slot;
    }
    write_file("passwd", w.mem, sizeof(w.mem));
    assert_miss_pw("alice");
    assert_hit_pw(other[0], 1001);
    nss_mc_close_all();

    /* a record longer than the table, a name offset out of bounds, a torn barrier */
    mcw_init(&w);
    slot = add_pw(&w, "alice", 1000, later());
    r = slot_ptr(&w, slot);
    r->len = NSLOTS * MC_SLOT_SIZE + 100;
    add_pw(&w, "bob", 1001, later());
    r = slot_ptr(&w, add_pw(&w, "carol", 1002, later()));
    ((struct sss_mc_pwd_data *)(void *)r->data)->name = 4000;
    r = slot_ptr(&w, add_pw(&w, "dave", 1003, later()));
    r->b2 = MC_NEXT_BARRIER(r->b1);
    r = slot_ptr(&w, add_pw(&w, "erin", 1004, later()));
    ((struct sss_mc_pwd_data *)(void *)r->data)->strs_len = 1000;
    write_file("passwd", w.mem, sizeof(w.mem));
    assert_miss_pw("alice");
    assert_hit_pw("bob", 1001);
    assert_miss_pw("carol");
    assert_miss_pw("dave");
    assert_miss_pw("erin");
}

static void test_bad_files(void **state)
{
    struct sss_mc_header *h = (struct sss_mc_header *)(void *)w.mem;

    add_pw(&w, "alice", 1000, later());

    /* truncated in the middle of the hash table */
    write_file("passwd", w.mem, HT_OFF + 8);
    assert_miss_pw("alice");
    nss_mc_close_all();

    /* shorter than a header */
    write_file("passwd", w.mem, 20);
    assert_miss_pw("alice");

    /* wrong version, still being created, torn header, tables out of the file */
    h->major_vno = 2;
    write_file("passwd", w.mem, sizeof(w.mem));
    assert_miss_pw("alice");
    h->major_vno = 1;
    h->status = SSS_MC_HEADER_UNINIT;
    write_file("passwd", w.mem, sizeof(w.mem));
    assert_miss_pw("alice");
    h->status = SSS_MC_HEADER_ALIVE;
    h->b2 = 0xf0000002;
    write_file("passwd", w.mem, sizeof(w.mem));
    assert_miss_pw("alice");
    h->b2 = h->b1;
    h->ht_size = 0xfffffff0;
    write_file("passwd", w.mem, sizeof(w.mem));
    assert_miss_pw("alice");
    h->ht_size = NBUCKETS * 4;
    h->data_table = 0xfffffff8;
    write_file("passwd", w.mem, sizeof(w.mem));
    assert_miss_pw("alice");
    h->data_table = DT_OFF;
    write_file("passwd", w.mem, sizeof(w.mem));
    assert_hit_pw("alice", 1000);
}

static void test_disabled(void **state)
{
    add_pw(&w, "alice", 1000, later());
    write_file("passwd", w.mem, sizeof(w.mem));
    setenv("SSS_NSS_USE_MEMCACHE", "NO", 1);
    assert_miss_pw("alice");
    unsetenv("SSS_NSS_USE_MEMCACHE");
    assert_hit_pw("alice", 1000);
}

static void *thread_lookups(void *arg)
{
    char tbuf[512];
    struct passwd pw;
    struct group gr;
    long bad = 0;
    int err;
    int i;

    for (i = 0; i < 1000; i++) {
        if (i % 2 == 0) {
            if (_nss_sss_getpwnam_r("alice", &pw, tbuf, sizeof(tbuf), &err)
                    != NSS_STATUS_SUCCESS || pw.pw_uid != 1000) {
                bad++;
            }
        } else if (_nss_sss_getgrgid_r(5000, &gr, tbuf, sizeof(tbuf), &err)
                       != NSS_STATUS_SUCCESS || strcmp(gr.gr_name, "staff") != 0) {
            bad++;
        }
    }
    return (void *)bad;
}

static void test_threads(void **state)
{
    pthread_t t[8];
    void *bad;
    int i;

    add_pw(&w, "alice", 1000, later());
    write_file("passwd", w.mem, sizeof(w.mem));
    mcw_init(&w);
    add_gr(&w, "staff", 5000);
    write_file("group", w.mem, sizeof(w.mem));

    for (i = 0; i < 8; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, thread_lookups, NULL), 0);
    }
    for (i = 0; i < 8; i++) {
        pthread_join(t[i], &bad);
        assert_int_equal((long)bad, 0);
    }
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_passwd_hits),
        T(test_collision_chain),
        T(test_expired),
        T(test_group_and_initgroups),
        T(test_recycled),
        T(test_corrupt_slots),
        T(test_bad_files),
        T(test_disabled),
        T(test_threads),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
