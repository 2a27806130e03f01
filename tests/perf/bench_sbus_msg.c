/*
 * Building the bus messages of one cold lookup, run by hand: ./bench_sbus_msg [N]
 * The responder's sssd.dataprovider.getAccountInfo call and the back-end's (qus) reply, each
 * made N times (default 50,000; best of 7 rounds) two ways: appended argument by argument
 * through libdbus (what sbus did before sbus_wire_build.c), and through the generated code
 * (sbus_wire_build.c writes basic-typed messages whole). Prints ns per message; never fails on
 * timing. For a figure that does not swing with the machine's load, run it under
 * `valgrind --tool=callgrind --toggle-collect='bench_build_*'` with a small N: each way has
 * its own bench_build_<way>() function (never inlined), so callgrind_annotate gives
 * instructions per way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util/util.h"
#include "sbus/sbus_gen.h"
#include "sss_iface/sss_iface_gen.h"

#define DEST "sssd.domain_LDAP"

static double bench_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void bench_check(DBusMessage *msg)
{
    if (msg == NULL) {
        fprintf(stderr, "bench_sbus_msg: building a message failed\n");
        exit(1);
    }
    dbus_message_unref(msg);
}

__attribute__((noinline)) static void bench_build_call_libdbus(int n)
{
    dbus_uint32_t flags = 0;
    dbus_uint32_t type = 1;
    dbus_uint32_t cli_id = 0;
    const char *filter = "name=user000123";
    const char *domain = "LDAP";
    const char *extra = "";
    DBusMessage *msg;
    dbus_uint64_t req_id;
    int i;

    for (i = 0; i < n; i++) {
        req_id = 12345 + i;
        msg = dbus_message_new_method_call(DEST, "/sssd", "sssd.dataprovider",
                                           "getAccountInfo");
        if (msg != NULL && !dbus_message_append_args(msg, DBUS_TYPE_UINT32, &flags,
                                                     DBUS_TYPE_UINT32, &type,
                                                     DBUS_TYPE_STRING, &filter,
                                                     DBUS_TYPE_STRING, &domain,
                                                     DBUS_TYPE_STRING, &extra,
                                                     DBUS_TYPE_UINT32, &cli_id,
                                                     DBUS_TYPE_UINT64, &req_id,
                                                     DBUS_TYPE_INVALID)) {
            dbus_message_unref(msg);
            msg = NULL;
        }
        bench_check(msg);
    }
}

__attribute__((noinline)) static void bench_build_call_sbus(int n)
{
    int i;

    for (i = 0; i < n; i++) {
        bench_check(sbus_msg_sssd_dataprovider_getAccountInfo(DEST, "/sssd", 0, 1,
                                                              "name=user000123", "LDAP",
                                                              "", 0, 12345 + i));
    }
}

__attribute__((noinline)) static void bench_build_reply_libdbus(DBusMessage *call, int n)
{
    dbus_uint16_t dp_error = 0;
    dbus_uint32_t error = 0;
    const char *text = "Success";
    DBusMessage *reply;
    int i;

    for (i = 0; i < n; i++) {
        reply = dbus_message_new_method_return(call);
        if (reply != NULL && !dbus_message_append_args(reply, DBUS_TYPE_UINT16, &dp_error,
                                                       DBUS_TYPE_UINT32, &error,
                                                       DBUS_TYPE_STRING, &text,
                                                       DBUS_TYPE_INVALID)) {
            dbus_message_unref(reply);
            reply = NULL;
        }
        bench_check(reply);
    }
}

__attribute__((noinline)) static void bench_build_reply_sbus(DBusMessage *call, int n)
{
    DBusMessage *reply;
    int i;

    for (i = 0; i < n; i++) {
        reply = NULL;
        if (sbus_gen_new_reply(&reply, call, "qus", 0, 0, "Success") != EOK) {
            reply = NULL;
        }
        bench_check(reply);
    }
}

int main(int argc, char **argv)
{
    const char *names[4] = { "call, libdbus appends", "call, sbus (whole)",
                             "reply, libdbus appends", "reply, sbus (whole)" };
    double best[4] = { 1e30, 1e30, 1e30, 1e30 };
    DBusMessage *call;
    double t[5];
    int n = argc > 1 ? atoi(argv[1]) : 50000;
    int round;
    int k;

    if (n <= 0) {
        fprintf(stderr, "usage: bench_sbus_msg [N]\n");
        return 2;
    }
    /* The call a reply answers, as it arrives through the bus: numbered, with a sender. */
    call = dbus_message_new_method_call(DEST, "/sssd", "sssd.dataprovider", "getAccountInfo");
    if (call == NULL || !dbus_message_set_sender(call, ":1.4")) {
        return 1;
    }
    dbus_message_set_serial(call, 77);
    for (round = 0; round < 7; round++) {
        t[0] = bench_now_ns();
        bench_build_call_libdbus(n);
        t[1] = bench_now_ns();
        bench_build_call_sbus(n);
        t[2] = bench_now_ns();
        bench_build_reply_libdbus(call, n);
        t[3] = bench_now_ns();
        bench_build_reply_sbus(call, n);
        t[4] = bench_now_ns();
        for (k = 0; k < 4; k++) {
            if ((t[k + 1] - t[k]) / n < best[k]) {
                best[k] = (t[k + 1] - t[k]) / n;
            }
        }
    }
    dbus_message_unref(call);
    printf("%-26s %10s\n", "message (best of 7)", "ns each");
    for (k = 0; k < 4; k++) {
        printf("%-26s %10.0f\n", names[k], best[k]);
    }
    return 0;
}
