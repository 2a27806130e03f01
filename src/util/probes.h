/*
 * Static probes. PROBE(NAME, args...), NAME in capitals as dtrace -h spells it (PROBE(SBUS_ROUTE,
 * ...)), fires the USDT probe sssd:name declared in
 * systemtap/sssd_probes.d when built with --enable-systemtap, and compiles to nothing
 * otherwise. Arguments are only evaluated while a tracer is attached (the _ENABLED()
 * semaphore), so an idle probe costs one predictable branch.
 */
#ifndef SSS_PROBES_H
#define SSS_PROBES_H

#ifdef HAVE_SYSTEMTAP
#include "systemtap/sssd_probes.h"
#define PROBE(name, ...) do { \
    if (SSSD_ ## name ## _ENABLED()) { \
        SSSD_ ## name(__VA_ARGS__); \
    } \
} while (0)
#else
#define PROBE(name, ...) do { } while (0)
#endif

#endif /* SSS_PROBES_H */
