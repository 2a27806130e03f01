/*
 * The entry parser's cost (sdap_entry_from_msg, src/providers/ldap/sdap_entry_msg.c): one
 * search entry as slapd sends an rfc2307 user (12 attributes), read once by a real libldap
 * handle from a socket pair, then parsed N times (argument 1, default 200000). Prints the
 * CPU time per entry; for instructions, run it under valgrind --tool=callgrind with a
 * smaller N (the figure in the commits is Ir / N). Never fails on timing.
 */
#include <openldap.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "providers/ldap/sdap_private.h"

int main(int argc, char **argv)
{
    char *oc[] = { "top", "person", "posixAccount", "shadowAccount", NULL };
    long n = argc > 1 ? atol(argv[1]) : 200000;
    struct timeval tv = { 5, 0 };
    struct sdap_entry *entry = NULL;
    struct timespec t0, t1;
    LDAPMessage *msg = NULL;
    struct berval *bv = NULL;
    BerElement *ber;
    size_t dropped = 0;
    LDAP *ld = NULL;
    int msgid;
    int sv[2];
    double ns;

    if (n <= 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0
            || ldap_init_fd(sv[0], LDAP_PROTO_TCP, NULL, &ld) != LDAP_SUCCESS
            || ldap_search_ext(ld, "dc=example,dc=com", LDAP_SCOPE_SUBTREE, NULL, NULL, 0,
                               NULL, NULL, NULL, 0, &msgid) != LDAP_SUCCESS) {
        fprintf(stderr, "usage: bench_sdap_entry [N > 0]; or no socket pair / libldap\n");
        return 1;
    }
    ber = ber_alloc_t(LBER_USE_DER);
    if (ber == NULL
            || ber_printf(ber, "{it{s{{s[v]}{s[s]}{s[s]}{s[s]}{s[s]}{s[s]}{s[s]}{s[s]}{s[s]}"
                          "{s[s]}{s[s]}{s[s]}}}}", msgid, (ber_tag_t)LDAP_RES_SEARCH_ENTRY,
                          "uid=user0042,ou=People,dc=example,dc=com", "objectClass", oc,
                          "uid", "user0042", "uidNumber", "10042", "gidNumber", "10042",
                          "homeDirectory", "/home/user0042", "loginShell", "/bin/bash",
                          "gecos", "User Forty Two", "cn", "User Forty Two", "sn", "Two",
                          "shadowLastChange", "19000", "modifyTimestamp", "20260101000000Z",
                          "entryUSN", "12345") < 0
            || ber_flatten(ber, &bv) != 0
            || write(sv[1], bv->bv_val, bv->bv_len) != (ssize_t)bv->bv_len
            || ldap_result(ld, msgid, LDAP_MSG_ONE, &tv, &msg) != LDAP_RES_SEARCH_ENTRY) {
        fprintf(stderr, "could not build the entry\n");
        return 1;
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    for (long i = 0; i < n; i++) {
        if (sdap_entry_from_msg(NULL, ld, msg, &entry, &dropped) != EOK
                || entry->num_attrs != 12) {
            fprintf(stderr, "parse failed\n");
            return 1;
        }
        talloc_free(entry);
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)n;
    printf("sdap_entry_from_msg: %ld entries of 12 attributes, %.0f ns CPU each\n", n, ns);
    ber_bvfree(bv);
    ber_free(ber, 1);
    ldap_msgfree(msg);
    ldap_unbind_ext(ld, NULL, NULL);
    close(sv[1]);
    return 0;
}
