/*
 * Static probes of the request path. Every probe's first argument is the request id
 * (0 when the event belongs to no request). A request id is unique across the whole star:
 * the high 32 bits are the pid of the process that created it, the low 32 bits a counter,
 * and it travels with the data-provider call, so one lookup can be followed from the client
 * through the responder, the bus, the back-end, LDAP and the cache, and back.
 * Names say their stage. Strings are never NULL ("" when there is nothing to say).
 * Results are errno values (0 = success) unless said otherwise.
 * No probe has more than six arguments: bpftrace (0.17, Debian 12) reads arg0..arg5 only.
 */
provider sssd {
    /* ---- monitor ---- */
    /* a service registered on the bus (name, version) */
    probe monitor_service_registered(uint64_t rid, const char *name, unsigned int version);
    /* a service process started or died (name, pid, wait status or -1) */
    probe monitor_service_started(uint64_t rid, const char *name, int pid);
    probe monitor_service_exited(uint64_t rid, const char *name, int pid, int status);

    /* ---- responders: one client request, received and answered ----
     * cmd: the protocol command number (SSS_NSS_GETPWNAM = 0x0011 ...), cmdname its name
     * ("GETPWNAM"), key: the name or the id as text ("" for enumeration and GET_VERSION).
     * done: the command by name only, result errno (0 found, ENOENT not found, other:
     * error), entries in the reply, domain that answered ("" if none). */
    probe nss_request_start(uint64_t rid, unsigned int cmd, const char *cmdname, const char *key);
    probe nss_request_done(uint64_t rid, const char *cmdname, const char *key,
                           int result, unsigned int entries, const char *domain);

    /* ---- sudo responder (sssd_sudo): one request of sudo, received and answered ----
     * cmdname: "GET_SUDORULES" or "GET_DEFAULTS"; user and uid as sudo sent them.
     * done: result errno (0 answered, ENOENT no such user, other: error), the rules in
     * the answer, the domain that answered ("" if none). A malformed request fires
     * neither (it is answered EINVAL at once). */
    probe sudo_request_start(uint64_t rid, const char *cmdname, const char *user,
                             unsigned int uid);
    probe sudo_request_done(uint64_t rid, const char *cmdname, const char *user, int result,
                            unsigned int rules, const char *domain);
    /* ---- sudo rules refresh (sssd_be): kind "full", "smart" or "rules" ----
     * done: result errno, the rules the directory returned (stored in the cache) and the
     * cached rules removed (full: gone from the directory; rules: asked and gone). */
    probe sudo_refresh_start(uint64_t rid, const char *domain, const char *kind);
    probe sudo_refresh_done(uint64_t rid, const char *domain, const char *kind, int result,
                            unsigned int stored, unsigned int removed);

    /* ---- cache_req: the responder's cache lookup of one domain ----
     * type: "user", "group", "initgroups", "user_by_id", "group_by_id", "enum_users" ...
     * result: "hit", "midpoint" (hit, refreshed in the background), "expired", "miss",
     * "negcache" (negative cache hit), "offline_hit" (expired, served because offline). */
    probe cache_req_start(uint64_t rid, const char *type, const char *key);
    probe cache_lookup(uint64_t rid, const char *domain, const char *type, const char *key,
                       const char *result);
    probe cache_req_done(uint64_t rid, const char *type, const char *key, int result);

    /* ---- data-provider call, responder side (getAccountInfo to sssd_be) ----
     * entry: "user", "group", "initgroups", "enum_users", "enum_groups" ...
     * filter: the filter argument as sent ("name=alice", "idnumber=1000" ...).
     * done: dp_error (DP_ERR_OK 0, DP_ERR_OFFLINE 1, DP_ERR_TIMEOUT 2, DP_ERR_FATAL 3)
     * and errno. */
    probe dp_request_send(uint64_t rid, const char *domain, const char *entry, const char *filter);
    probe dp_request_done(uint64_t rid, const char *domain, const char *entry, const char *filter,
                          int dp_error, int result);

    /* ---- back-end: one getAccountInfo (or internal) request, start to end ----
     * coalesced: 1 when this request joined an identical one already in flight. */
    probe be_request_start(uint64_t rid, const char *domain, const char *entry,
                           const char *filter, int coalesced);
    probe be_request_done(uint64_t rid, const char *domain, const char *entry,
                          const char *filter, int dp_error, int result);
    /* one batch of the member prefetch after an initgroups (a background request of its
     * own): groups asked for, stored with their members, result (0 or errno). */
    probe be_prefetch_batch(uint64_t rid, const char *domain, unsigned int groups,
                            unsigned int stored, int result);
    /* the back-end went offline / online (domain) */
    probe be_offline(uint64_t rid, const char *domain);
    probe be_online(uint64_t rid, const char *domain);

    /* ---- LDAP operations ----
     * msgid: the LDAP message id; scope: 0 base, 1 one level, 2 subtree.
     * done (same msgid; the scope is the one sent): entries received, result = LDAP result
     * code (0 success, -1 local error or timeout, as libldap numbers them). */
    probe ldap_connect_start(uint64_t rid, const char *uri);
    probe ldap_connect_done(uint64_t rid, const char *uri, int result);
    probe ldap_search_send(uint64_t rid, int msgid, const char *base, int scope,
                           const char *filter);
    probe ldap_search_done(uint64_t rid, int msgid, const char *base,
                           const char *filter, unsigned int entries, int result);

    /* ---- cache (sysdb) transactions, outermost level only ----
     * commit/cancel: result of the commit (0 or errno). */
    probe sysdb_txn_begin(uint64_t rid, const char *domain);
    probe sysdb_txn_commit(uint64_t rid, const char *domain, int result);
    probe sysdb_txn_cancel(uint64_t rid, const char *domain);

    /* ---- bus ----
     * master: a message read from a peer (route_recv) and handed to its destination
     * (route_sent) or dropped/answered by the master itself (destination "").
     * type: 1 method call, 2 method return, 3 error, 4 signal (libdbus numbering);
     * serial: for calls and signals the message's own serial, for returns and errors the
     * serial of the call they answer (so a call and its reply share one serial). */
    probe sbus_route_recv(uint64_t rid, const char *sender, const char *destination,
                          const char *member, unsigned int type, unsigned int serial);
    probe sbus_route_sent(uint64_t rid, const char *sender, const char *destination,
                          const char *member, unsigned int type, unsigned int serial);
    /* a connection sent a method call (its own unique name, destination, interface.member,
     * serial) and received its reply or error (error: 0 or errno) */
    probe sbus_call_send(uint64_t rid, const char *sender, const char *destination,
                         const char *member, unsigned int serial);
    probe sbus_call_done(uint64_t rid, const char *destination, const char *member,
                         unsigned int serial, int error);
    /* a service received a method call (caller's unique name, interface.member, serial)
     * and sent its reply (error: 0 or errno). rid is the id the handler adopted, or 0. */
    probe sbus_method_recv(uint64_t rid, const char *sender, const char *member,
                           unsigned int serial);
    probe sbus_method_reply(uint64_t rid, const char *sender, const char *member,
                            unsigned int serial, int error);
    /* a signal was emitted / received (interface.member; sender: emitter's unique name) */
    probe sbus_signal_emit(uint64_t rid, const char *member);
    probe sbus_signal_recv(uint64_t rid, const char *sender, const char *member);
};
