/*
 * The memory cache files (PROTOCOL.md "Memory cache"): written by sssd_nss, read by the
 * client libraries without any IPC. Layout facts only; byte-compatible with SSSD's files.
 */
#ifndef SSS_MC_H
#define SSS_MC_H

#include <stdint.h>

#define SSS_MC_MAJOR_VNO        1
#define SSS_MC_MINOR_VNO        1

#define SSS_MC_HEADER_UNINIT    0   /* being created */
#define SSS_MC_HEADER_ALIVE     1   /* usable */
#define SSS_MC_HEADER_RECYCLED  2   /* replaced: clients must reopen */

#define MC_SLOT_SIZE            40
#define MC_INVALID_VAL32        ((uint32_t)0xFFFFFFFF)
#define MC_INVALID_VAL64        ((uint64_t)0xFFFFFFFFFFFFFFFF)

/* Barrier values: valid ones have the top byte 0xf0; each write moves to the next one. */
#define MC_VALID_BARRIER(v)     (((v) & 0xff000000) == 0xf0000000)
#define MC_NEXT_BARRIER(v)      ((((v) + 1) & 0x00ffffff) | 0xf0000000)

/* Default sizes, MiB; the slot count is size * 1048576 / 40, rounded up to a multiple of 8. */
#define SSS_MC_PASSWD_SIZE_MB       8
#define SSS_MC_GROUP_SIZE_MB        6
#define SSS_MC_INITGROUPS_SIZE_MB   10

#define MC_ALIGN64(size)        (((size) + 7) & ~((uint64_t)7))
/* SSSD computes size_mb * (1048576 / 40) = size_mb * 26214, then rounds up to 8. */
#define MC_SLOT_COUNT(size_mb)  ((uint32_t)MC_ALIGN64((uint64_t)(size_mb) * (1048576 / MC_SLOT_SIZE)))

/* File header: 13 uint32, packed; data starts at MC_HEADER_SIZE. Offsets are from the
 * start of the file. */
struct sss_mc_header {
    uint32_t b1;            /* barrier 1 */
    uint32_t major_vno;
    uint32_t minor_vno;
    uint32_t status;        /* SSS_MC_HEADER_* */
    uint32_t seed;          /* MurmurHash3 seed */
    uint32_t dt_size;       /* data table size, bytes */
    uint32_t ft_size;       /* free table size, bytes */
    uint32_t ht_size;       /* hash table size, bytes */
    uint32_t data_table;    /* offsets */
    uint32_t free_table;
    uint32_t hash_table;
    uint32_t reserved;
    uint32_t b2;            /* barrier 2 */
} __attribute__((packed));

#define MC_HEADER_SIZE          ((uint32_t)MC_ALIGN64(sizeof(struct sss_mc_header)))

/* One record header, in the first of its slots. */
struct sss_mc_rec {
    uint32_t b1;            /* barrier 1 */
    uint32_t len;           /* record length, header included */
    uint64_t expire;        /* absolute time, seconds */
    uint32_t next1;         /* next slot in the chain of hash1, or MC_INVALID_VAL32 */
    uint32_t next2;         /* next slot in the chain of hash2 */
    uint32_t hash1;         /* of key1 (the name) */
    uint32_t hash2;         /* of key2 (the id, or the fully qualified name) */
    uint32_t padding;
    uint32_t b2;            /* barrier 2 */
    char data[];
};

struct sss_mc_pwd_data {
    uint32_t name;          /* offset of the name in the record: always 16 */
    uint32_t uid;
    uint32_t gid;
    uint32_t strs_len;      /* name, passwd, gecos, dir, shell, each NUL-terminated */
    char strs[];
};

struct sss_mc_grp_data {
    uint32_t name;          /* offset of the name: always 16 */
    uint32_t gid;
    uint32_t members;       /* number of member names after name and passwd */
    uint32_t strs_len;
    char strs[];
};

struct sss_mc_initgr_data {
    uint32_t unique_name;   /* offset of the fully qualified name */
    uint32_t name;          /* offset of the name as asked */
    uint32_t strs;          /* offset of the strings */
    uint32_t strs_len;
    uint32_t data_len;      /* bytes of gids */
    uint32_t num_groups;
    uint32_t gids[];        /* then unique name and name */
};

#endif /* SSS_MC_H */
