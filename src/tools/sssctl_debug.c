/*
 * sssctl debug-level [LEVEL] [--monitor --nss --pam --sudo --domain=NAME ...]: reads, and
 * with LEVEL sets, the debug level of running processes through sssd.service.SetDebugLevel
 * and GetDebugLevel, at once and without a restart. No target option: every process of the
 * suite (the monitor, each responder, each configured domain's back-end). LEVEL is what
 * debug_level accepts in sssd.conf: 0-9, or a bit mask (0x0070). Each process answers with
 * its mask after the change, so what is printed is what the process now uses. Not written
 * to sssd.conf: a restarted process goes back to its configured level, as with SSSD.
 */
#include <getopt.h>

#include "tools/sssctl.h"
#include "sss_iface/sss_iface.h"

/* LEVEL as sssd.conf's debug_level: decimal 0-9 or larger, or 0x hexadecimal. */
static errno_t sssctl_parse_level(const char *text, uint32_t *_level)
{
    unsigned long v;
    char *end;

    if (text[0] == '\0' || text[0] == '-') {
        return EINVAL;
    }
    errno = 0;
    v = strtoul(text, &end, 0);
    if (errno != 0 || *end != '\0' || v > 0xfffffUL) {
        return EINVAL;
    }
    *_level = (uint32_t)v;
    return EOK;
}

/* Sets (when set is true) then reads one process's level. */
static errno_t sssctl_debug_one(struct sssctl_bus *bus, const char *dest, bool set,
                                uint32_t level, uint32_t *_now)
{
    struct tevent_req *req;
    errno_t ret;

    if (set) {
        req = sbus_call_sssd_service_SetDebugLevel_send(bus, bus->conn, dest, SSS_BUS_PATH,
                                                        level);
        ret = sssctl_bus_wait(bus, req);
        if (ret == EOK) {
            ret = sbus_call_sssd_service_SetDebugLevel_recv(bus, req);
        }
        talloc_free(req);
        if (ret != EOK) {
            return ret;
        }
    }
    req = sbus_call_sssd_service_GetDebugLevel_send(bus, bus->conn, dest, SSS_BUS_PATH);
    ret = sssctl_bus_wait(bus, req);
    if (ret == EOK) {
        ret = sbus_call_sssd_service_GetDebugLevel_recv(bus, req, _now);
    }
    talloc_free(req);
    return ret;
}

int sssctl_debug_level(struct sssctl_ctx *ctx, int argc, char **argv)
{
    static const struct option longopts[] = {
        SSSCTL_TARGET_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    static const char *const headers[] = { "PROCESS", "BUS NAME", "DEBUG MASK" };
    struct sssctl_target *list = NULL;
    struct sssctl_table *t;
    struct sssctl_bus *bus;
    const char **names = NULL;
    size_t n = 0, i, failed = 0;
    uint32_t level = 0;
    bool set = false;
    errno_t ret = EOK;
    int c;

    optind = 1;
    opterr = 0;
    while (ret == EOK && (c = getopt_long(argc, argv, "d:", longopts, NULL)) != -1) {
        ret = sssctl_target_option(ctx, c, optarg, &list, &n);
        if (ret == ENOENT) {
            return sssctl_error("debug-level: unknown option '%s'", argv[optind - 1]);
        }
    }
    if (ret != EOK) {
        return sssctl_error("out of memory");
    }
    if (optind < argc) {
        if (optind + 1 != argc || sssctl_parse_level(argv[optind], &level) != EOK) {
            return sssctl_error("debug-level: '%s' is not a debug level (0-9 or a mask such "
                                "as 0x0070)", argv[optind]);
        }
        set = true;
    }
    if (sssctl_targets_open(ctx, &list, &n, &bus, &names) != SSSCTL_EXIT_OK) {
        return SSSCTL_EXIT_FAILURE;
    }

    t = sssctl_table_new(ctx->mem, 3, headers);
    if (t == NULL) {
        return sssctl_error("out of memory");
    }
    if (ctx->json) {
        sssctl_json_obj_start(ctx->js, NULL);
        if (set) {
            sssctl_json_int(ctx->js, "requested_level", level);
        } else {
            sssctl_json_str(ctx->js, "requested_level", NULL);
        }
        sssctl_json_arr_start(ctx->js, "processes");
    }
    for (i = 0; i < n; i++) {
        bool running = sssctl_names_has(names, list[i].bus_name);
        uint32_t now = 0;
        const char *row[3];

        ret = running ? sssctl_debug_one(bus, list[i].bus_name, set, level, &now) : ENOENT;
        if (ret != EOK) {
            failed++;
        }
        row[0] = list[i].process;
        row[1] = list[i].bus_name;
        row[2] = ret == EOK ? talloc_asprintf(ctx->mem, "0x%04x", now)
                            : running ? sss_strerror(ret) : "not running";
        if (ctx->json) {
            sssctl_json_obj_start(ctx->js, NULL);
            sssctl_json_str(ctx->js, "process", list[i].process);
            sssctl_json_str(ctx->js, "bus_name", list[i].bus_name);
            sssctl_json_bool(ctx->js, "running", running);
            if (ret == EOK) {
                sssctl_json_int(ctx->js, "debug_mask", now);
                sssctl_json_str(ctx->js, "error", NULL);
            } else {
                sssctl_json_str(ctx->js, "debug_mask", NULL);
                sssctl_json_str(ctx->js, "error", row[2]);
            }
            sssctl_json_obj_end(ctx->js);
        } else if (sssctl_table_add(t, row) != EOK) {
            return sssctl_error("out of memory");
        }
    }
    if (ctx->json) {
        sssctl_json_arr_end(ctx->js);
        sssctl_json_obj_end(ctx->js);
    } else {
        sssctl_table_print(t, stdout, "");
        printf("%zu process%s %s, %zu failed\n", n - failed, n - failed == 1 ? "" : "es",
               set ? "set" : "read", failed);
    }
    return failed == 0 ? SSSCTL_EXIT_OK : SSSCTL_EXIT_FAILURE;
}
