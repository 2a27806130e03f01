/*
 * Static probes of the request path. Every probe's first argument is the request id
 * (0 when the event belongs to no request). Names say their stage.
 */
provider sssd {
    /* monitor: a service registered on the bus (request id, name, version) */
    probe monitor_service_registered(uint64_t rid, const char *name, unsigned int version);
    /* monitor: a service process started or died (name, pid, exit status or -1) */
    probe monitor_service_started(uint64_t rid, const char *name, int pid);
    probe monitor_service_exited(uint64_t rid, const char *name, int pid, int status);

    /* master bus: a message routed (sender, destination, interface.member, serial) */
    probe sbus_route(uint64_t rid, const char *sender, const char *destination,
                     const char *member, unsigned int serial);
    /* a connection sent a method call and received its reply (destination, member, error) */
    probe sbus_call_send(uint64_t rid, const char *destination, const char *member);
    probe sbus_call_done(uint64_t rid, const char *destination, const char *member, int error);
    /* a signal was emitted / received (interface.member) */
    probe sbus_signal_emit(uint64_t rid, const char *member);
    probe sbus_signal_recv(uint64_t rid, const char *member);
};
