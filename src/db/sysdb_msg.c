/*
 * sysdb messages: building the ldb message of a write (one value per attribute, replaced;
 * strings, numbers, timestamps, optional string attributes checked first) and reading the
 * values of an entry read back (strings, bounded numbers, ids, timestamps).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/sysdb_private.h"

static errno_t sysdb_msg_replace(struct ldb_message *msg, const char *attr,
                                 struct ldb_message_element **_el)
{
    int lret;

    lret = ldb_msg_add_empty(msg, attr, LDB_FLAG_MOD_REPLACE, _el);
    return lret == LDB_SUCCESS ? EOK : ENOMEM;
}

struct ldb_message *sysdb_msg_new(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                  const char *dn)
{
    struct ldb_message *msg;

    msg = ldb_msg_new(mem_ctx);
    if (msg == NULL) {
        return NULL;
    }
    msg->dn = ldb_dn_new(msg, sysdb->ldb, dn);
    if (msg->dn == NULL) {
        talloc_free(msg);
        return NULL;
    }
    return msg;
}

errno_t sysdb_msg_set_val(struct ldb_message *msg, const char *attr, const void *data,
                          size_t len)
{
    struct ldb_message_element *el;
    errno_t ret;

    ret = sysdb_msg_replace(msg, attr, &el);
    if (ret != EOK || data == NULL) {
        return ret;
    }
    el->values = talloc_array(msg->elements, struct ldb_val, 1);
    if (el->values == NULL) {
        return ENOMEM;
    }
    /* The value is not copied: data must live as long as msg. */
    el->values[0].data = (uint8_t *)discard_const(data);
    el->values[0].length = len;
    el->num_values = 1;
    return EOK;
}

errno_t sysdb_msg_set_str(struct ldb_message *msg, const char *attr, const char *str)
{
    return sysdb_msg_set_val(msg, attr, str, str == NULL ? 0 : strlen(str));
}

errno_t sysdb_msg_set_num(struct ldb_message *msg, const char *attr, uint64_t num)
{
    char *str;

    str = talloc_asprintf(msg, "%" PRIu64, num);
    if (str == NULL) {
        return ENOMEM;
    }
    return sysdb_msg_set_str(msg, attr, str);
}

const char *sysdb_msg_str(const struct ldb_message *msg, const char *attr)
{
    const struct ldb_message_element *el;

    el = ldb_msg_find_element(msg, attr);
    if (el == NULL || el->num_values != 1 || el->values[0].data == NULL
            || el->values[0].data[el->values[0].length] != '\0'
            || strlen((const char *)el->values[0].data) != el->values[0].length) {
        return NULL;
    }
    return (const char *)el->values[0].data;
}

errno_t sysdb_msg_num(const struct ldb_message *msg, const char *attr, uint64_t max,
                      uint64_t *_num)
{
    const char *str;
    char *end;
    unsigned long long num;

    str = sysdb_msg_str(msg, attr);
    if (str == NULL || str[0] < '0' || str[0] > '9') {
        return EIO;
    }
    errno = 0;
    num = strtoull(str, &end, 10);
    if (errno != 0 || *end != '\0' || num > max) {
        return EIO;
    }
    *_num = num;
    return EOK;
}

errno_t sysdb_msg_u32(const struct ldb_message *msg, const char *attr, uint32_t *_num)
{
    uint64_t num;
    errno_t ret;

    ret = sysdb_msg_num(msg, attr, UINT32_MAX, &num);
    if (ret != EOK) {
        return ret;
    }
    *_num = (uint32_t)num;
    return EOK;
}

errno_t sysdb_msg_times(const struct ldb_message *msg, const char *update_attr,
                        const char *expire_attr, time_t *_update, time_t *_expire)
{
    uint64_t update;
    uint64_t expire;
    errno_t ret;

    ret = sysdb_msg_num(msg, update_attr, INT64_MAX, &update);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_msg_num(msg, expire_attr, INT64_MAX, &expire);
    if (ret != EOK) {
        return ret;
    }
    *_update = (time_t)update;
    *_expire = (time_t)expire;
    return EOK;
}

errno_t sysdb_msg_set_times(struct ldb_message *msg, const char *update_attr,
                            const char *expire_attr, time_t now, uint64_t expire)
{
    errno_t ret;

    ret = sysdb_msg_set_num(msg, update_attr, (uint64_t)now);
    if (ret != EOK) {
        return ret;
    }
    return sysdb_msg_set_num(msg, expire_attr, expire);
}

errno_t sysdb_check_attrs(const struct sysdb_str_attr *attrs, size_t count)
{
    size_t len;
    size_t i;

    for (i = 0; i < count; i++) {
        if (attrs[i].value == NULL) {
            continue;
        }
        len = strlen(attrs[i].value);
        if (len > SYSDB_ATTR_MAX) {
            DEBUG(SSSDBG_OP_FAILURE, "Refusing %s of %zu bytes (limit %d)\n",
                  attrs[i].what, len, SYSDB_ATTR_MAX);
            return EINVAL;
        }
        if (!sysdb_utf8_valid(attrs[i].value, len)) {
            DEBUG(SSSDBG_OP_FAILURE, "Refusing %s: not UTF-8\n", attrs[i].what);
            return EINVAL;
        }
    }
    return EOK;
}

errno_t sysdb_msg_set_strs(struct ldb_message *msg, const struct sysdb_str_attr *attrs,
                           size_t count)
{
    errno_t ret;
    size_t i;

    for (i = 0; i < count; i++) {
        ret = sysdb_msg_set_str(msg, attrs[i].attr, attrs[i].value);
        if (ret != EOK) {
            return ret;
        }
    }
    return EOK;
}

errno_t sysdb_packed_check(const char *const *list, const char *what, size_t *_total)
{
    size_t total = 0;
    size_t n;
    size_t len;

    for (n = 0; list != NULL && list[n] != NULL; n++) {
        len = strlen(list[n]);
        if (len == 0 || len > SYSDB_ATTR_MAX || !sysdb_utf8_valid(list[n], len)) {
            DEBUG(SSSDBG_OP_FAILURE, "%s: value %zu is empty, too long or not UTF-8\n", what,
                  n);
            return EINVAL;
        }
        total += len + 1;
    }
    if (n > SYSDB_LIST_MAX) {
        DEBUG(SSSDBG_OP_FAILURE, "%s: %zu values, at most %d are kept\n", what, n,
              SYSDB_LIST_MAX);
        return EINVAL;
    }
    *_total = total;
    return EOK;
}

errno_t sysdb_msg_set_packed(struct ldb_message *msg, const char *attr,
                             const char *const *list, const char *what)
{
    size_t total;
    size_t n;
    size_t len;
    char *data;
    char *p;
    errno_t ret;

    ret = sysdb_packed_check(list, what, &total);
    if (ret != EOK) {
        return ret;
    }
    if (total == 0) {
        return sysdb_msg_set_val(msg, attr, NULL, 0);
    }
    data = talloc_size(msg, total);
    if (data == NULL) {
        return ENOMEM;
    }
    for (p = data, n = 0; list[n] != NULL; n++) {
        len = strlen(list[n]) + 1;
        memcpy(p, list[n], len);
        p += len;
    }
    return sysdb_msg_set_val(msg, attr, data, total);
}
