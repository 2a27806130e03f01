/*
 * One intrusive doubly linked list for the whole project (in the spirit of c-list): a
 * `struct sss_list` is embedded in each element and in the owner as the head; elements are
 * reached back with sss_list_entry(). Heads are circular and must be set up with
 * sss_list_init() (or SSS_LIST_INIT); an element's link needs no set-up: a zeroed link
 * (talloc_zero) is "not in a list", and sss_list_unlink() puts it back to that state, so
 * unlinking twice, or unlinking an element that never was linked, is harmless. That makes a
 * talloc destructor that unlinks always safe.
 */
#ifndef SSS_LIST_H
#define SSS_LIST_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>

struct sss_list {
    struct sss_list *next;
    struct sss_list *prev;
};

#define SSS_LIST_INIT(head) { &(head), &(head) }

/* The element that embeds the link `ptr` as `member`. */
#define sss_list_entry(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

static inline void sss_list_init(struct sss_list *head)
{
    head->next = head;
    head->prev = head;
}

/* True when the element is in some list (a head: when it is not empty). */
static inline bool sss_list_is_linked(const struct sss_list *link)
{
    return link->next != NULL && link->next != link;
}

static inline bool sss_list_is_empty(const struct sss_list *head)
{
    assert(head->next != NULL);     /* an uninitialised head */
    return head->next == head;
}

static inline void sss_list_link_between(struct sss_list *prev, struct sss_list *next,
                                         struct sss_list *link)
{
    assert(!sss_list_is_linked(link));
    link->prev = prev;
    link->next = next;
    prev->next = link;
    next->prev = link;
}

/* Inserts link after the last element (a queue's push). */
static inline void sss_list_link_tail(struct sss_list *head, struct sss_list *link)
{
    assert(head->next != NULL);
    sss_list_link_between(head->prev, head, link);
}

/* Inserts link before the first element. */
static inline void sss_list_link_front(struct sss_list *head, struct sss_list *link)
{
    assert(head->next != NULL);
    sss_list_link_between(head, head->next, link);
}

/* Takes link out of its list, if it is in one; the link is left "not in a list". */
static inline void sss_list_unlink(struct sss_list *link)
{
    if (sss_list_is_linked(link)) {
        link->prev->next = link->next;
        link->next->prev = link->prev;
    }
    link->next = NULL;
    link->prev = NULL;
}

/* The first / last element's link, or NULL when the list is empty. */
static inline struct sss_list *sss_list_first(const struct sss_list *head)
{
    return sss_list_is_empty(head) ? NULL : head->next;
}

static inline struct sss_list *sss_list_last(const struct sss_list *head)
{
    return sss_list_is_empty(head) ? NULL : head->prev;
}

/* Moves every element of from to the end of to, in order; from is left empty. */
static inline void sss_list_splice_tail(struct sss_list *to, struct sss_list *from)
{
    if (sss_list_is_empty(from)) {
        return;
    }
    from->next->prev = to->prev;
    to->prev->next = from->next;
    from->prev->next = to;
    to->prev = from->prev;
    sss_list_init(from);
}

#define sss_list_first_entry(head, type, member) \
    (sss_list_is_empty(head) ? NULL : sss_list_entry((head)->next, type, member))

#define sss_list_last_entry(head, type, member) \
    (sss_list_is_empty(head) ? NULL : sss_list_entry((head)->prev, type, member))

/* Iterates the elements; the loop body must not unlink `pos` (use the _safe form). */
#define sss_list_for_each_entry(pos, head, member) \
    for (pos = sss_list_entry((head)->next, __typeof__(*pos), member); \
         &pos->member != (head); \
         pos = sss_list_entry(pos->member.next, __typeof__(*pos), member))

/* Iterates the elements; the body may unlink or free `pos` (not the next one). */
#define sss_list_for_each_entry_safe(pos, tmp, head, member) \
    for (pos = sss_list_entry((head)->next, __typeof__(*pos), member), \
         tmp = sss_list_entry(pos->member.next, __typeof__(*pos), member); \
         &pos->member != (head); \
         pos = tmp, tmp = sss_list_entry(tmp->member.next, __typeof__(*pos), member))

/* Number of elements: O(n), for tests, logs and assertions. */
static inline size_t sss_list_length(const struct sss_list *head)
{
    const struct sss_list *l;
    size_t n = 0;

    for (l = head->next; l != head; l = l->next) {
        n++;
    }
    return n;
}

#endif /* SSS_LIST_H */
