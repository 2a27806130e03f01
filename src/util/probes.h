/*
 * Static probes. PROBE(NAME, args...), NAME in capitals as dtrace -h spells it
 * (PROBE(SBUS_CALL_SEND, ...)), fires the USDT probe sssd:name declared in
 * systemtap/sssd_probes.d when built with --enable-systemtap, and compiles to nothing
 * otherwise. Arguments are only evaluated while a tracer is attached (the _ENABLED()
 * semaphore), so an idle probe costs one predictable branch.
 *
 * PROBE_ENABLED(NAME) is that test on its own: arguments that need work (text built from
 * numbers, a name looked up) are built inside `if (PROBE_ENABLED(NAME)) { ... }`. It is the
 * constant 0 without --enable-systemtap, so the compiler drops the whole block.
 */
#ifndef SSS_PROBES_H
#define SSS_PROBES_H

#include <stdint.h>
#include "util/debug.h"

/*
 * The current request id (sss_debug_req_id) as a probe argument. Given the global itself,
 * the compiler may describe the argument as a memory operand ("8@sss_debug_req_id(%rip)"),
 * which bpftrace 0.17 refuses ("deref ident is not handled yet") for the whole script; the
 * empty asm makes it a register.
 */
static inline uint64_t sss_probe_req_id(void)
{
    uint64_t id = sss_debug_req_id;

    __asm__ ("" : "+r" (id));
    return id;
}

#ifdef HAVE_SYSTEMTAP
/* Every probe argument in a register ("nr" instead of sdt.h's "nor"): bpftrace 0.17 misreads
 * arguments that <sys/sdt.h> describes as memory operands (stack slots, globals). With at
 * most six arguments per probe the registers always suffice. */
#ifndef STAP_SDT_ARG_CONSTRAINT
#define STAP_SDT_ARG_CONSTRAINT nr
#endif
#include "systemtap/sssd_probes.h"
#define PROBE_ENABLED(name) (SSSD_ ## name ## _ENABLED())
#define PROBE(name, ...) do { \
    if (SSSD_ ## name ## _ENABLED()) { \
        SSSD_ ## name(__VA_ARGS__); \
    } \
} while (0)
#else
/* Without probes the arguments are still referenced (so variables built only for a probe
 * are not "unused"), in dead code the compiler drops. */
static inline void sss_probe_args_unused(int unused, ...)
{
    (void)unused;
}
#define PROBE_ENABLED(name) 0
#define PROBE(name, ...) do { \
    if (0) { \
        sss_probe_args_unused(0, __VA_ARGS__); \
    } \
} while (0)
#endif

#endif /* SSS_PROBES_H */
