/* Unit tests of the intrusive list (src/util/sss_list.h): order, unlink from every position,
 * unlink of a link that is in no list, safe iteration while freeing, splice. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "util/util.h"

struct item {
    int value;
    struct sss_list link;
};

/* The values in list order, as a string of digits, for compact assertions. */
static const char *values(const struct sss_list *head, char *buf)
{
    struct item *it;
    size_t n = 0;

    sss_list_for_each_entry(it, head, link) {
        buf[n++] = (char)('0' + it->value);
    }
    buf[n] = '\0';
    return buf;
}

static void test_list_order_and_unlink(void **state)
{
    struct sss_list head = SSS_LIST_INIT(head);
    struct item items[5] = { { 0 } };
    char buf[16];
    int i;

    assert_true(sss_list_is_empty(&head));
    assert_null(sss_list_first(&head));
    assert_null(sss_list_first_entry(&head, struct item, link));
    for (i = 0; i < 5; i++) {
        items[i].value = i;
        assert_false(sss_list_is_linked(&items[i].link));  /* zeroed: in no list */
    }
    sss_list_link_tail(&head, &items[1].link);
    sss_list_link_tail(&head, &items[2].link);
    sss_list_link_front(&head, &items[0].link);
    sss_list_link_tail(&head, &items[3].link);
    assert_string_equal(values(&head, buf), "0123");
    assert_int_equal(sss_list_length(&head), 4);
    assert_ptr_equal(sss_list_first_entry(&head, struct item, link), &items[0]);
    assert_ptr_equal(sss_list_last_entry(&head, struct item, link), &items[3]);

    sss_list_unlink(&items[2].link);        /* middle */
    assert_string_equal(values(&head, buf), "013");
    sss_list_unlink(&items[0].link);        /* first */
    assert_string_equal(values(&head, buf), "13");
    sss_list_unlink(&items[3].link);        /* last */
    assert_string_equal(values(&head, buf), "1");
    assert_false(sss_list_is_linked(&items[3].link));

    /* Twice, and never linked: harmless. */
    sss_list_unlink(&items[3].link);
    sss_list_unlink(&items[4].link);
    assert_string_equal(values(&head, buf), "1");

    sss_list_unlink(&items[1].link);
    assert_true(sss_list_is_empty(&head));
    /* An unlinked element can be linked again. */
    sss_list_link_tail(&head, &items[1].link);
    assert_string_equal(values(&head, buf), "1");
}

static int item_destructor(struct item *it)
{
    sss_list_unlink(&it->link);
    return 0;
}

static void test_list_safe_free(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct sss_list head;
    struct item *it;
    struct item *tmp;
    char buf[16];
    int i;

    sss_list_init(&head);
    for (i = 0; i < 6; i++) {
        it = talloc_zero(mem, struct item);
        assert_non_null(it);
        it->value = i;
        talloc_set_destructor(it, item_destructor);
        sss_list_link_tail(&head, &it->link);
    }
    /* Free the even ones while walking: the destructor unlinks. */
    sss_list_for_each_entry_safe(it, tmp, &head, link) {
        if (it->value % 2 == 0) {
            talloc_free(it);
        }
    }
    assert_string_equal(values(&head, buf), "135");
    /* Freeing the owner frees the rest; each unlinks itself. */
    talloc_free(mem);
    assert_true(sss_list_is_empty(&head));
}

static void test_list_splice(void **state)
{
    struct sss_list a = SSS_LIST_INIT(a);
    struct sss_list b = SSS_LIST_INIT(b);
    struct item items[4] = { { 0 } };
    char buf[16];
    int i;

    for (i = 0; i < 4; i++) {
        items[i].value = i;
        sss_list_link_tail(i < 2 ? &a : &b, &items[i].link);
    }
    sss_list_splice_tail(&a, &b);
    assert_string_equal(values(&a, buf), "0123");
    assert_true(sss_list_is_empty(&b));
    sss_list_splice_tail(&a, &b);          /* empty: nothing */
    assert_string_equal(values(&a, buf), "0123");
    sss_list_splice_tail(&b, &a);
    assert_string_equal(values(&b, buf), "0123");
    assert_true(sss_list_is_empty(&a));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_order_and_unlink),
        cmocka_unit_test(test_list_safe_free),
        cmocka_unit_test(test_list_splice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
