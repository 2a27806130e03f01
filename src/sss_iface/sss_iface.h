/*
 * The bus interfaces of the daemon: the typed code generated from the XML files in src/sss_iface
 * (sss_iface_gen.h, see its opening comment) plus the constants every process agrees on.
 * The XML files are the single source of truth for names and signatures; this header only
 * adds what XML cannot say. Owned by the sss_iface module.
 */
#ifndef SSS_IFACE_H
#define SSS_IFACE_H

#include "sbus/sbus.h"
#include "sss_iface/sss_iface_gen.h"

/* Every service serves its interfaces at this object path. */
#define SSS_BUS_PATH "/sssd"

/* Well-known bus names (PROTOCOL.md "The bus"). A data provider's name is
 * sss_domain_bus_name(domain): "sssd.domain_<escaped domain name>". */
#define SSS_BUS_MONITOR "sssd.monitor"
#define SSS_BUS_NSS     "sssd.nss"
#define SSS_BUS_PAM     "sssd.pam"
#define SSS_BUS_SUDO    "sssd.sudo"

/* sssd.monitor.RegisterService: the version a service sends and the one the monitor answers
 * with, and the kinds of service. */
#define SSS_MONITOR_VERSION             1
#define SSS_SERVICE_VERSION             1
#define SSS_SERVICE_TYPE_RESPONDER      1
#define SSS_SERVICE_TYPE_DATA_PROVIDER  2

/* Ends a table of struct sbus_method (SBUS_METHOD_SYNC_... / SBUS_METHOD_ASYNC_...). */
#ifndef SBUS_METHODS_END
#define SBUS_METHODS_END { .member = NULL }
#endif

/* Ends a table of struct sbus_listener (SBUS_LISTENER_...). */
#ifndef SBUS_LISTENERS_END
#define SBUS_LISTENERS_END { .interface = NULL }
#endif

#endif /* SSS_IFACE_H */
