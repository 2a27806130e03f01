/*
 * The entries holding a batch of gids, read in one search inside a write transaction
 * (sysdb_groups_prefetch): the group stores that follow in that transaction (an
 * initgroups' groups) take each its gid's holders from here instead of searching them one
 * by one (~36k instructions per search; ~15k per gid in a search of 16). The table must say
 * what a search would find at the moment of the store: any write touching a gid (an entry
 * written with it) or an entry the table lists (written or deleted) makes that gid's row
 * stale, and a stale row is searched again. The table goes when the transaction level it
 * was read at closes, so no later transaction sees it.
 */
#include "config.h"

#include <assert.h>
#include <stdlib.h>

#include "db/sysdb_private.h"

/* Room for "(gidx=xxxxxxxx)" */
#define SYSDB_GIDX_TERM 16
/* Gids per search. ldb matches every entry the index finds against the whole filter: past a
 * few dozen terms that costs more than the searches it saves. */
#ifndef SYSDB_GIDX_CHUNK
#define SYSDB_GIDX_CHUNK 16
#endif

struct sysdb_gid_row {
    char idx[9];                    /* the gid's indexed form: what the search matched */
    bool stale;
    struct ldb_message **msgs;      /* its holders as the search returned them */
    size_t count;
};

/* A listed entry, by its DN's case-folded form: which row lists it. */
struct sysdb_gid_listed {
    const char *folded;
    struct sysdb_gid_row *row;
};

struct sysdb_gid_holders {
    unsigned int depth;             /* the transaction level it was read at */
    struct sysdb_gid_row *rows;     /* sorted by idx, one per distinct gid */
    size_t num_rows;
    struct sysdb_gid_listed *listed; /* every row's holders, sorted by folded DN */
    size_t num_listed;
};

static int sysdb_gid_row_cmp(const void *a, const void *b)
{
    return strcmp(((const struct sysdb_gid_row *)a)->idx,
                  ((const struct sysdb_gid_row *)b)->idx);
}

static struct sysdb_gid_row *sysdb_gid_row_find(struct sysdb_gid_holders *h, const char *idx)
{
    struct sysdb_gid_row key;

    memcpy(key.idx, idx, sizeof(key.idx));
    return bsearch(&key, h->rows, h->num_rows, sizeof(*h->rows), sysdb_gid_row_cmp);
}

/* Sorted distinct rows for the gids (0 skipped: never stored). */
static errno_t sysdb_gid_rows(struct sysdb_gid_holders *h, const uint32_t *gids, size_t n)
{
    size_t i;
    size_t k = 0;

    h->rows = talloc_zero_array(h, struct sysdb_gid_row, n);
    if (h->rows == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < n; i++) {
        if (gids[i] != 0) {
            sysdb_id_idx_value(gids[i], h->rows[k++].idx);
        }
    }
    qsort(h->rows, k, sizeof(*h->rows), sysdb_gid_row_cmp);
    h->num_rows = 0;
    for (i = 0; i < k; i++) {
        if (h->num_rows == 0 || strcmp(h->rows[h->num_rows - 1].idx, h->rows[i].idx) != 0) {
            h->rows[h->num_rows++] = h->rows[i];
        }
    }
    return EOK;
}

/* "(|(gidx=a)(gidx=b)...)" for n rows, or the single term. */
static char *sysdb_gid_filter(TALLOC_CTX *mem_ctx, const struct sysdb_gid_row *rows, size_t n)
{
    size_t room = n * SYSDB_GIDX_TERM + 4;
    char *filter;
    size_t off = 0;
    size_t i;

    filter = talloc_size(mem_ctx, room);
    if (filter == NULL) {
        return NULL;
    }
    if (n > 1) {
        off += snprintf(filter + off, room - off, "(|");
    }
    for (i = 0; i < n; i++) {
        off += snprintf(filter + off, room - off, "(%s=%s)", SYSDB_A_GID_IDX, rows[i].idx);
    }
    if (n > 1) {
        snprintf(filter + off, room - off, ")");
    }
    return filter;
}

/* Files each holder under the row of its indexed gid. */
static errno_t sysdb_gid_file(struct sysdb_gid_holders *h, struct ldb_message **msgs,
                              size_t count)
{
    struct sysdb_gid_row *row;
    const char *idx;
    size_t i;

    for (i = 0; i < count; i++) {
        idx = ldb_msg_find_attr_as_string(msgs[i], SYSDB_A_GID_IDX, NULL);
        row = (idx != NULL && strlen(idx) == 8) ? sysdb_gid_row_find(h, idx) : NULL;
        if (row == NULL) {
            return EIO;     /* the search matched it on a value we did not ask for */
        }
        row->msgs = talloc_realloc(h, row->msgs, struct ldb_message *, row->count + 1);
        if (row->msgs == NULL) {
            return ENOMEM;
        }
        row->msgs[row->count++] = talloc_steal(h, msgs[i]);
    }
    return EOK;
}

static int sysdb_gid_listed_cmp(const void *a, const void *b)
{
    return strcmp(((const struct sysdb_gid_listed *)a)->folded,
                  ((const struct sysdb_gid_listed *)b)->folded);
}

/* The index of the listed entries by DN: a write finds the rows naming it in O(log n)
 * (a slice of 200 groups re-stored with members compared 200 DNs per write). */
static errno_t sysdb_gid_list_dns(struct sysdb_gid_holders *h)
{
    size_t n = 0;
    size_t i;
    size_t j;

    for (i = 0; i < h->num_rows; i++) {
        n += h->rows[i].count;
    }
    h->listed = talloc_array(h, struct sysdb_gid_listed, n);
    if (h->listed == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < h->num_rows; i++) {
        for (j = 0; j < h->rows[i].count; j++) {
            h->listed[h->num_listed].folded = ldb_dn_get_casefold(h->rows[i].msgs[j]->dn);
            if (h->listed[h->num_listed].folded == NULL) {
                return ENOMEM;
            }
            h->listed[h->num_listed++].row = &h->rows[i];
        }
    }
    qsort(h->listed, h->num_listed, sizeof(*h->listed), sysdb_gid_listed_cmp);
    return EOK;
}

errno_t sysdb_groups_prefetch(struct sysdb_ctx *sysdb, const uint32_t *gids, size_t n)
{
    /* What sysdb_delete_holders() and the unchanged-group check read, and the filing key. */
    const char *const attrs[] = { SYSDB_A_NAME, SYSDB_A_ORIG_DN, SYSDB_A_SID,
                                  SYSDB_A_GID_IDX, NULL };
    struct sysdb_gid_holders *h;
    struct ldb_message **msgs;
    size_t count;
    size_t chunk;
    size_t i;
    char *filter;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(gids != NULL || n == 0, EINVAL);
    SSS_CHECK_ARG(sysdb->tx_depth > 0, EINVAL);
    TALLOC_FREE(sysdb->gid_holders);
    h = talloc_zero(sysdb, struct sysdb_gid_holders);
    if (h == NULL) {
        return ENOMEM;
    }
    h->depth = sysdb->tx_depth;
    ret = sysdb_gid_rows(h, gids, n);
    if (ret != EOK || h->num_rows == 0) {
        goto done;
    }
    for (i = 0; i < h->num_rows && ret == EOK; i += SYSDB_GIDX_CHUNK) {
        chunk = h->num_rows - i < SYSDB_GIDX_CHUNK ? h->num_rows - i : SYSDB_GIDX_CHUNK;
        filter = sysdb_gid_filter(h, h->rows + i, chunk);
        if (filter == NULL) {
            ret = ENOMEM;
            break;
        }
        ret = sysdb_search_filter(h, sysdb, filter, attrs, &msgs, &count);
        talloc_free(filter);
        if (ret == EOK) {
            ret = sysdb_gid_file(h, msgs, count);
            talloc_free(msgs);
        }
    }
    if (ret == EOK) {
        ret = sysdb_gid_list_dns(h);
    }

done:
    if (ret != EOK) {
        talloc_free(h);
        return ret;
    }
    sysdb->gid_holders = h;
    return EOK;
}

errno_t sysdb_gid_holders_get(struct sysdb_ctx *sysdb, uint32_t gid,
                              struct ldb_message ***_msgs, size_t *_count)
{
    struct sysdb_gid_row *row;
    char idx[9];

    if (sysdb->gid_holders == NULL) {
        return ENOENT;
    }
    assert(sysdb->tx_depth >= sysdb->gid_holders->depth);
    sysdb_id_idx_value(gid, idx);
    row = sysdb_gid_row_find(sysdb->gid_holders, idx);
    if (row == NULL || row->stale) {
        return ENOENT;
    }
    *_msgs = row->msgs;
    *_count = row->count;
    return EOK;
}

void sysdb_gid_holders_written(struct sysdb_ctx *sysdb, struct ldb_dn *dn,
                               const struct ldb_message *msg)
{
    struct sysdb_gid_holders *h = sysdb->gid_holders;
    struct sysdb_gid_listed key;
    struct sysdb_gid_listed *hit;
    struct sysdb_gid_row *row;
    const char *idx;
    size_t i;

    if (msg != NULL) {
        /* An entry now holding this gid: it may be one the search did not find. */
        idx = ldb_msg_find_attr_as_string(msg, SYSDB_A_GID_IDX, NULL);
        row = idx != NULL ? sysdb_gid_row_find(h, idx) : NULL;
        if (row != NULL) {
            row->stale = true;
        }
    }
    /* An entry the table lists: renamed, given another gid, or gone. */
    key.folded = ldb_dn_get_casefold(dn);
    if (key.folded == NULL) {
        /* No memory to tell: nothing the table says can be trusted any more. */
        for (i = 0; i < h->num_rows; i++) {
            h->rows[i].stale = true;
        }
        return;
    }
    hit = bsearch(&key, h->listed, h->num_listed, sizeof(*h->listed), sysdb_gid_listed_cmp);
    if (hit == NULL) {
        return;
    }
    /* The entries equal to it around the one found (an entry with two gids is in two
     * rows). */
    while (hit > h->listed && strcmp(hit[-1].folded, key.folded) == 0) {
        hit--;
    }
    for (; hit < h->listed + h->num_listed && strcmp(hit->folded, key.folded) == 0; hit++) {
        hit->row->stale = true;
    }
}

void sysdb_gid_holders_closed(struct sysdb_ctx *sysdb)
{
    if (sysdb->gid_holders != NULL && sysdb->tx_depth < sysdb->gid_holders->depth) {
        TALLOC_FREE(sysdb->gid_holders);
    }
}
