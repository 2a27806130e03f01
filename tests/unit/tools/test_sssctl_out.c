/*
 * sssctl's output layer: the JSON writer (escaping of quotes, backslashes and every control
 * character, invalid UTF-8 replaced by U+FFFD while valid multi-byte text passes, nesting
 * and separators, null for missing values, unbalanced documents refused) and the aligned
 * text tables. Every document is also checked by a real JSON parser when python3 is there.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "tools/sssctl.h"
#include "tests/unit/common/tc_common.h"

static struct tc_leaks leaks;

static int setup(void **state)
{
    tc_leak_start(&leaks);
    return 0;
}

static int teardown(void **state)
{
    tc_leak_check(&leaks);
    return 0;
}

/* Parses text with python3's json module when available; fails the test on a parse error. */
static void assert_parses(const char *text)
{
    char path[] = "/tmp/sssctl-json-XXXXXX";
    char cmd[256];
    FILE *f;
    int fd;

    if (system("command -v python3 >/dev/null 2>&1") != 0) {
        return;
    }
    fd = mkstemp(path);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "python3 -m json.tool %s >/dev/null", path);
    assert_int_equal(system(cmd), 0);
    unlink(path);
}

static void test_json_escape(void **state)
{
    struct sssctl_json *js = sssctl_json_new(NULL);
    const char *text;

    sssctl_json_obj_start(js, NULL);
    sssctl_json_str(js, "q", "a\"b\\c/d");
    sssctl_json_str(js, "ctl", "t\tn\nr\rb\bf\f\x01\x1f");
    sssctl_json_str(js, "utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    sssctl_json_str(js, "bad", "x\xff" "y\xc0\xaf" "z\xed\xa0\x80" "w\xe2\x82");
    sssctl_json_str(js, "null", NULL);
    sssctl_json_obj_end(js);
    text = sssctl_json_text(js);
    assert_non_null(text);
    assert_non_null(strstr(text, "\"q\": \"a\\\"b\\\\c/d\""));
    assert_non_null(strstr(text, "\"ctl\": \"t\\tn\\nr\\rb\\bf\\f\\u0001\\u001f\""));
    assert_non_null(strstr(text, "\"utf8\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""));
    /* Each byte that starts no well-formed sequence is one U+FFFD. */
    assert_non_null(strstr(text, "\"bad\": \"x\\ufffdy\\ufffd\\ufffdz\\ufffd\\ufffd\\ufffdw"
                                 "\\ufffd\\ufffd\""));
    assert_non_null(strstr(text, "\"null\": null"));
    assert_parses(text);
    talloc_free(js);
}

static void test_json_nesting(void **state)
{
    struct sssctl_json *js = sssctl_json_new(NULL);
    const char *text;

    sssctl_json_obj_start(js, NULL);
    sssctl_json_arr_start(js, "list");
    sssctl_json_int(js, NULL, -5);
    sssctl_json_bool(js, NULL, true);
    sssctl_json_obj_start(js, NULL);
    sssctl_json_time(js, "never", 0);
    sssctl_json_time(js, "t", 1700000000);
    sssctl_json_obj_end(js);
    sssctl_json_arr_start(js, NULL);
    sssctl_json_arr_end(js);
    sssctl_json_arr_end(js);
    sssctl_json_obj_start(js, "empty");
    sssctl_json_obj_end(js);
    sssctl_json_obj_end(js);
    text = sssctl_json_text(js);
    assert_non_null(text);
    assert_string_equal(text, "{\n  \"list\": [\n    -5,\n    true,\n    {\n"
                              "      \"never\": null,\n      \"t\": 1700000000\n    },\n"
                              "    []\n  ],\n  \"empty\": {}\n}");
    assert_parses(text);
    talloc_free(js);
}

static void test_json_unbalanced(void **state)
{
    struct sssctl_json *js = sssctl_json_new(NULL);

    assert_null(sssctl_json_text(js));      /* nothing written yet */
    sssctl_json_obj_start(js, NULL);
    assert_null(sssctl_json_text(js));
    assert_int_equal(sssctl_json_finish(js, stdout), EINVAL);
    talloc_free(js);
}

static void test_table(void **state)
{
    static const char *const headers[] = { "NAME", "STATE" };
    static const char *const r1[] = { "caf\xc3\xa9", "online" };
    static const char *const r2[] = { "longer-name", NULL };
    struct sssctl_table *t = sssctl_table_new(NULL, 2, headers);
    char *buf = NULL;
    size_t len = 0;
    FILE *f;

    assert_int_equal(sssctl_table_add(t, r1), EOK);
    assert_int_equal(sssctl_table_add(t, r2), EOK);
    f = open_memstream(&buf, &len);
    assert_non_null(f);
    sssctl_table_print(t, f, "  ");
    fclose(f);
    /* "café" takes 4 columns although it is 5 bytes. */
    assert_string_equal(buf, "  NAME         STATE\n"
                             "  -------------------\n"
                             "  caf\xc3\xa9         online\n"
                             "  longer-name  -\n");
    free(buf);
    talloc_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_json_escape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_nesting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_unbalanced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
