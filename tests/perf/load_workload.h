/*
 * The workloads of sss_load: what one operation is. Each worker process calls
 * worker_init once (after fork) and then op once per operation; state is per process.
 */
#ifndef LOAD_WORKLOAD_H
#define LOAD_WORKLOAD_H

#include <stddef.h>

struct load_workload {
    /* Per-worker set-up, may be NULL. 0, or non-zero with a message in err. */
    int (*worker_init)(char *err, size_t len);
    /* One operation on key. 0 on success, non-zero with a message in err. */
    int (*op)(const char *key, char *err, size_t len);
};

/* Parses "nss MODULE OP", "pam SERVICE PASSWORD", "sudo" or "cmd ARGV..." (argv keeps
 * pointing into the caller's argv), loads what it needs, fills *wl and a description in
 * what. 0, or 1 after a message on stderr. */
int load_workload_setup(int argc, char **argv, struct load_workload *wl, char *what,
                        size_t len);

#endif /* LOAD_WORKLOAD_H */
