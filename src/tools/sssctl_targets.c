/*
 * The processes a command talks to over the bus (sssctl debug-level, sssctl stats): the
 * options that choose them (--monitor --nss --pam --sudo --domain=NAME, each adding one
 * process), every process of the suite when none is chosen, and the bus opened with the
 * names on it read, so a command can tell a stopped process from one that did not answer.
 */
#include "tools/sssctl.h"
#include "sss_iface/sss_iface.h"

/* Adds a target unless already there. */
errno_t sssctl_target_add(TALLOC_CTX *mem_ctx, struct sssctl_target **list, size_t *n,
                          const char *process, const char *bus_name)
{
    struct sssctl_target *l;
    size_t i;

    for (i = 0; i < *n; i++) {
        if (strcmp((*list)[i].bus_name, bus_name) == 0) {
            return EOK;
        }
    }
    l = talloc_realloc(mem_ctx, *list, struct sssctl_target, *n + 1);
    if (l == NULL) {
        return ENOMEM;
    }
    l[*n].process = process;
    l[*n].bus_name = bus_name;
    *list = l;
    (*n)++;
    return EOK;
}

errno_t sssctl_add_domain(struct sssctl_ctx *ctx, struct sssctl_target **list,
                          size_t *n, const char *domain)
{
    char *process = talloc_asprintf(ctx->mem, "sssd_be[%s]", domain);
    char *bus_name = sss_domain_bus_name(ctx->mem, domain);

    if (process == NULL || bus_name == NULL) {
        return ENOMEM;
    }
    return sssctl_target_add(ctx->mem, list, n, process, bus_name);
}

errno_t sssctl_all_targets(struct sssctl_ctx *ctx, struct sssctl_target **list,
                           size_t *n)
{
    struct confdb *cdb;
    char **services, **domains;
    size_t i;
    errno_t ret;

    if (sssctl_load_conf(ctx, &cdb) != EOK) {
        return ERR_INVALID_CONFIG;
    }
    ret = sssctl_target_add(ctx->mem, list, n, "sssd", SSS_BUS_MONITOR);
    if (ret == EOK) {
        ret = confdb_get_services(cdb, ctx->mem, &services);
    }
    for (i = 0; ret == EOK && services[i] != NULL; i++) {
        ret = sssctl_target_add(ctx->mem, list, n,
                                talloc_asprintf(ctx->mem, "sssd_%s", services[i]),
                                talloc_asprintf(ctx->mem, "sssd.%s", services[i]));
    }
    if (ret == EOK) {
        ret = confdb_get_domains(cdb, ctx->mem, &domains);
    }
    for (i = 0; ret == EOK && domains[i] != NULL; i++) {
        ret = sssctl_add_domain(ctx, list, n, domains[i]);
    }
    return ret;
}

errno_t sssctl_target_option(struct sssctl_ctx *ctx, int c, const char *arg,
                             struct sssctl_target **list, size_t *n)
{
    switch (c) {
    case 'm': return sssctl_target_add(ctx->mem, list, n, "sssd", SSS_BUS_MONITOR);
    case 'n': return sssctl_target_add(ctx->mem, list, n, "sssd_nss", SSS_BUS_NSS);
    case 'p': return sssctl_target_add(ctx->mem, list, n, "sssd_pam", SSS_BUS_PAM);
    case 's': return sssctl_target_add(ctx->mem, list, n, "sssd_sudo", SSS_BUS_SUDO);
    case 'd': return sssctl_add_domain(ctx, list, n, arg);
    default: return ENOENT;
    }
}

int sssctl_targets_open(struct sssctl_ctx *ctx, struct sssctl_target **list, size_t *n,
                        struct sssctl_bus **_bus, const char ***_names)
{
    if (*n == 0 && sssctl_all_targets(ctx, list, n) != EOK) {
        return SSSCTL_EXIT_FAILURE;
    }
    if (sssctl_bus_open(ctx->mem, ctx->paths.bus_address, _bus) != EOK
            || sssctl_bus_names(ctx->mem, *_bus, _names) != EOK) {
        return SSSCTL_EXIT_FAILURE;
    }
    return SSSCTL_EXIT_OK;
}
