/*
 * libFuzzer harness for the match rule parser (src/sbus/sbus_match.c): arbitrary bytes are
 * parsed as an AddMatch rule; a rule that parses is compared with itself and matched
 * against a fixed signal, then freed. Build (outside automake):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I src -I <builddir> \
 *       tests/fuzz/fuzz_sbus_match.c src/sbus/sbus_match.c \
 *       $(pkg-config --cflags --libs talloc dbus-1) -o fuzz_sbus_match
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbus/sbus_match.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static DBusMessage *fuzz_message(void)
{
    static DBusMessage *msg;
    const char *arg0 = "sssd.nss";
    const char *arg1 = "";

    if (msg == NULL) {
        msg = dbus_message_new_signal("/org/freedesktop/DBus", "org.freedesktop.DBus",
                                      "NameOwnerChanged");
        if (msg == NULL) {
            abort();
        }
        dbus_message_set_sender(msg, "org.freedesktop.DBus");
        dbus_message_append_args(msg, DBUS_TYPE_STRING, &arg0, DBUS_TYPE_STRING, &arg1,
                                 DBUS_TYPE_STRING, &arg1, DBUS_TYPE_INVALID);
    }
    return msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sbus_match_rule *rule = NULL;
    TALLOC_CTX *ctx;
    char *text;

    ctx = talloc_new(NULL);
    if (ctx == NULL) {
        return 0;
    }
    /* D-Bus strings carry no NUL: the parser sees the bytes up to the first one. */
    text = talloc_strndup(ctx, (const char *)data, size);
    if (text != NULL && sbus_match_rule_parse(ctx, text, &rule) == 0) {
        if (!sbus_match_rule_equal(rule, rule)) {
            abort();
        }
        (void)sbus_match_rule_matches(rule, fuzz_message());
    }
    talloc_free(ctx);
    return 0;
}
