/*
 * Match rules (sbus_match.h): the parser for the comma-separated key='value' text that
 * AddMatch and RemoveMatch carry, the matcher the master bus runs for every broadcast
 * signal, and the equality RemoveMatch uses. Quoting follows the D-Bus specification:
 * inside single quotes every byte is literal (a backslash too); outside them \' stands for
 * an apostrophe, a comma ends the value, and adjacent quoted and unquoted parts join.
 */
#include <stdlib.h>
#include <string.h>

#include "sbus/sbus_match.h"

/* The value of one key being parsed. */
struct sbus_match_token {
    const char *key;
    size_t key_len;
    char *value;
};

static bool sbus_match_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool sbus_match_key_is(const struct sbus_match_token *tok, const char *name)
{
    return tok->key_len == strlen(name) && strncmp(tok->key, name, tok->key_len) == 0;
}

/* argN with N a decimal in 0..63 without leading zeros; -1 when key is not argN. */
static int sbus_match_arg_index(const struct sbus_match_token *tok)
{
    size_t i;
    int n = 0;

    if (tok->key_len < 4 || tok->key_len > 5 || strncmp(tok->key, "arg", 3) != 0) {
        return -1;
    }
    if (tok->key[3] == '0' && tok->key_len > 4) {
        return -1;
    }
    for (i = 3; i < tok->key_len; i++) {
        if (tok->key[i] < '0' || tok->key[i] > '9') {
            return -1;
        }
        n = n * 10 + (tok->key[i] - '0');
    }
    return n < SBUS_MATCH_RULE_MAX_ARGS ? n : -1;
}

/*
 * Reads one key='value' starting at *_pos. The value is written into buf (which has room
 * for the whole rule). On return *_pos is past the separating comma, if any.
 */
static errno_t sbus_match_next_token(const char *text, size_t *_pos, char *buf,
                                     struct sbus_match_token *tok)
{
    size_t pos = *_pos;
    size_t out = 0;
    bool quoted = false;

    tok->key = text + pos;
    while (text[pos] != '\0' && text[pos] != '=') {
        if (text[pos] == ',' || text[pos] == '\'' || sbus_match_is_space(text[pos])) {
            return EINVAL;
        }
        pos++;
    }
    tok->key_len = (size_t)(text + pos - tok->key);
    if (text[pos] != '=' || tok->key_len == 0) {
        return EINVAL;
    }
    pos++;

    for (; text[pos] != '\0'; pos++) {
        char c = text[pos];

        if (c == '\'') {
            quoted = !quoted;
        } else if (quoted) {
            buf[out++] = c;
        } else if (c == '\\' && text[pos + 1] == '\'') {
            buf[out++] = '\'';
            pos++;
        } else if (c == ',') {
            break;
        } else {
            buf[out++] = c;
        }
    }
    if (quoted) {
        return EINVAL;      /* unterminated quote */
    }
    buf[out] = '\0';
    if (text[pos] == ',') {
        pos++;
    }
    tok->value = buf;
    *_pos = pos;
    return EOK;
}

static errno_t sbus_match_set_type(struct sbus_match_rule *rule, const char *value)
{
    static const struct {
        const char *name;
        int type;
    } types[] = {
        { "signal",        DBUS_MESSAGE_TYPE_SIGNAL },
        { "method_call",   DBUS_MESSAGE_TYPE_METHOD_CALL },
        { "method_return", DBUS_MESSAGE_TYPE_METHOD_RETURN },
        { "error",         DBUS_MESSAGE_TYPE_ERROR },
    };
    size_t i;

    if (rule->type != DBUS_MESSAGE_TYPE_INVALID) {
        return EINVAL;      /* duplicate */
    }
    for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (strcmp(value, types[i].name) == 0) {
            rule->type = types[i].type;
            return EOK;
        }
    }
    return EINVAL;
}

/* Stores a copy of value in *field after checking it with validate (NULL: anything). */
static errno_t sbus_match_set_string(struct sbus_match_rule *rule, const char **field,
                                     const char *value,
                                     dbus_bool_t (*validate)(const char *, DBusError *))
{
    if (*field != NULL) {
        return EINVAL;      /* duplicate */
    }
    if (validate != NULL && !validate(value, NULL)) {
        return EINVAL;
    }
    *field = talloc_strdup(rule, value);
    return *field == NULL ? ENOMEM : EOK;
}

static errno_t sbus_match_set_arg(struct sbus_match_rule *rule, int n, const char *value)
{
    const char **args;
    unsigned int i;

    if ((unsigned int)n >= rule->num_args) {
        args = talloc_realloc(rule, rule->args, const char *, n + 1);
        if (args == NULL) {
            return ENOMEM;
        }
        for (i = rule->num_args; i <= (unsigned int)n; i++) {
            args[i] = NULL;
        }
        rule->args = args;
        rule->num_args = n + 1;
    }
    return sbus_match_set_string(rule, &rule->args[n], value, NULL);
}

static errno_t sbus_match_apply(struct sbus_match_rule *rule,
                                const struct sbus_match_token *tok)
{
    int n;

    if (sbus_match_key_is(tok, "type")) {
        return sbus_match_set_type(rule, tok->value);
    }
    if (sbus_match_key_is(tok, "sender")) {
        return sbus_match_set_string(rule, &rule->sender, tok->value,
                                     dbus_validate_bus_name);
    }
    if (sbus_match_key_is(tok, "interface")) {
        return sbus_match_set_string(rule, &rule->interface, tok->value,
                                     dbus_validate_interface);
    }
    if (sbus_match_key_is(tok, "member")) {
        return sbus_match_set_string(rule, &rule->member, tok->value,
                                     dbus_validate_member);
    }
    if (sbus_match_key_is(tok, "path")) {
        return sbus_match_set_string(rule, &rule->path, tok->value, dbus_validate_path);
    }
    if (sbus_match_key_is(tok, "path_namespace")) {
        return sbus_match_set_string(rule, &rule->path_namespace, tok->value,
                                     dbus_validate_path);
    }
    if (sbus_match_key_is(tok, "destination")) {
        return sbus_match_set_string(rule, &rule->destination, tok->value,
                                     dbus_validate_bus_name);
    }
    n = sbus_match_arg_index(tok);
    if (n >= 0) {
        return sbus_match_set_arg(rule, n, tok->value);
    }
    return EINVAL;          /* unknown key */
}

errno_t sbus_match_rule_parse(TALLOC_CTX *mem_ctx, const char *text,
                              struct sbus_match_rule **_rule)
{
    TALLOC_CTX *tmp_ctx = NULL;
    struct sbus_match_rule *rule;
    struct sbus_match_token tok;
    size_t len;
    size_t pos = 0;
    char *buf;
    errno_t ret;

    if (text == NULL || _rule == NULL) {
        return EINVAL;
    }
    len = strlen(text);
    if (len > SBUS_MATCH_RULE_MAX_LEN) {
        return EINVAL;
    }

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    rule = talloc_zero(tmp_ctx, struct sbus_match_rule);
    buf = talloc_size(tmp_ctx, len + 1);
    if (rule == NULL || buf == NULL) {
        ret = ENOMEM;
        goto done;
    }
    rule->type = DBUS_MESSAGE_TYPE_INVALID;

    for (;;) {
        while (sbus_match_is_space(text[pos])) {
            pos++;
        }
        if (text[pos] == '\0') {
            break;
        }
        ret = sbus_match_next_token(text, &pos, buf, &tok);
        if (ret != EOK) {
            goto done;
        }
        ret = sbus_match_apply(rule, &tok);
        if (ret != EOK) {
            goto done;
        }
    }

    /* The specification forbids combining the two path conditions. */
    if (rule->path != NULL && rule->path_namespace != NULL) {
        ret = EINVAL;
        goto done;
    }

    *_rule = talloc_steal(mem_ctx, rule);
    ret = EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}

static bool sbus_match_str_eq(const char *a, const char *b)
{
    if (a == NULL || b == NULL) {
        return a == b;
    }
    return strcmp(a, b) == 0;
}

static bool sbus_match_path_in_namespace(const char *path, const char *ns)
{
    size_t ns_len = strlen(ns);

    if (strcmp(ns, "/") == 0) {
        return true;
    }
    if (strncmp(path, ns, ns_len) != 0) {
        return false;
    }
    return path[ns_len] == '\0' || path[ns_len] == '/';
}

static bool sbus_match_args(const struct sbus_match_rule *rule, DBusMessage *msg)
{
    DBusMessageIter iter;
    unsigned int i = 0;
    const char *value;

    if (rule->num_args == 0) {
        return true;
    }
    if (!dbus_message_iter_init(msg, &iter)) {
        return false;       /* the rule wants arguments, the message has none */
    }
    for (i = 0; i < rule->num_args; i++) {
        if (rule->args[i] != NULL) {
            if (dbus_message_iter_get_arg_type(&iter) != DBUS_TYPE_STRING) {
                return false;
            }
            dbus_message_iter_get_basic(&iter, &value);
            if (strcmp(value, rule->args[i]) != 0) {
                return false;
            }
        }
        if (i + 1 < rule->num_args && !dbus_message_iter_next(&iter)) {
            return false;
        }
    }
    return true;
}

bool sbus_match_rule_matches_full(const struct sbus_match_rule *rule, DBusMessage *msg,
                                  sbus_match_sender_fn owns_name, void *pvt)
{
    const char *value;

    if (rule == NULL || msg == NULL) {
        return false;
    }
    if (rule->type != DBUS_MESSAGE_TYPE_INVALID && rule->type != dbus_message_get_type(msg)) {
        return false;
    }
    if (rule->interface != NULL
            && !sbus_match_str_eq(rule->interface, dbus_message_get_interface(msg))) {
        return false;
    }
    if (rule->member != NULL
            && !sbus_match_str_eq(rule->member, dbus_message_get_member(msg))) {
        return false;
    }
    if (rule->path != NULL && !sbus_match_str_eq(rule->path, dbus_message_get_path(msg))) {
        return false;
    }
    if (rule->path_namespace != NULL) {
        value = dbus_message_get_path(msg);
        if (value == NULL || !sbus_match_path_in_namespace(value, rule->path_namespace)) {
            return false;
        }
    }
    if (rule->destination != NULL
            && !sbus_match_str_eq(rule->destination, dbus_message_get_destination(msg))) {
        return false;
    }
    if (rule->sender != NULL) {
        value = dbus_message_get_sender(msg);
        if (!sbus_match_str_eq(rule->sender, value)
                && (owns_name == NULL || !owns_name(rule->sender, pvt))) {
            return false;
        }
    }
    return sbus_match_args(rule, msg);
}

bool sbus_match_rule_matches(const struct sbus_match_rule *rule, DBusMessage *msg)
{
    return sbus_match_rule_matches_full(rule, msg, NULL, NULL);
}

bool sbus_match_rule_equal(const struct sbus_match_rule *a, const struct sbus_match_rule *b)
{
    unsigned int i;
    unsigned int n;

    if (a == NULL || b == NULL) {
        return a == b;
    }
    if (a->type != b->type
            || !sbus_match_str_eq(a->sender, b->sender)
            || !sbus_match_str_eq(a->interface, b->interface)
            || !sbus_match_str_eq(a->member, b->member)
            || !sbus_match_str_eq(a->path, b->path)
            || !sbus_match_str_eq(a->path_namespace, b->path_namespace)
            || !sbus_match_str_eq(a->destination, b->destination)) {
        return false;
    }
    n = a->num_args > b->num_args ? a->num_args : b->num_args;
    for (i = 0; i < n; i++) {
        const char *x = i < a->num_args ? a->args[i] : NULL;
        const char *y = i < b->num_args ? b->args[i] : NULL;

        if (!sbus_match_str_eq(x, y)) {
            return false;
        }
    }
    return true;
}
