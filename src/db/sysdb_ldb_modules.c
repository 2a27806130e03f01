/*
 * libldb's modules, cut down to the two back-ends the cache opens (mdb and tdb).
 *
 * A process's first ldb_init() dlopens every module named by LDB_MODULES_PATH (default:
 * libldb's module directory) and then, through ldb_set_modules_dir(), every module of that
 * directory whatever LDB_MODULES_PATH said. Where Samba's DSDB modules are installed
 * (samba-dsdb-modules: AD DCs, Samba file servers) the directory holds 58 modules pulling
 * in about 220 shared objects (ICU, GnuTLS, Heimdal, NDR): 16 MB resident in each process
 * that opens a cache, and 40-100 ms of start-up, for modules no cache file of ours names
 * (a cache has no @MODULES record; only mdb:// and tdb:// URLs are opened).
 *
 * So, unless the administrator set LDB_MODULES_PATH (then libldb's behaviour is kept
 * whole), the first sysdb_ldb_new() (every ldb_init() of ours goes through it) points
 * LDB_MODULES_PATH at the mdb.so and tdb.so of libldb's directory (those present), and
 * this file's ldb_set_modules_dir() skips that directory. The variable stays set: every ldb_init()
 * reads it, and without it a later one would load the whole directory after all. Child
 * programs inherit it harmlessly: libldb there still adds its whole directory.
 * ldb_set_modules_dir() here is defined in the executable, so it comes first in the
 * dynamic linker's search order and libldb's own call (through its PLT) lands here; any
 * other directory goes on to libldb's function (RTLD_NEXT). A libldb that no longer
 * calls it that way, or another directory layout, just loads everything as before.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ldb.h>

#include "db/sysdb_private.h"

static bool limited;

static void sysdb_ldb_modules_limit(void)
{
    static bool done;
    static const char *const backends[] = { "mdb.so", "tdb.so" };
    char path[2 * (sizeof(SSS_LDB_MODULESDIR) + 8)] = "";
    char one[sizeof(SSS_LDB_MODULESDIR) + 8];
    size_t i;

    /* Once, at the first cache open, before the process starts threads (setenv). */
    if (done) {
        return;
    }
    done = true;
    if (SSS_LDB_MODULESDIR[0] != '/' || getenv("LDB_MODULES_PATH") != NULL) {
        return;
    }
    for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
        snprintf(one, sizeof(one), "%s/%s", SSS_LDB_MODULESDIR, backends[i]);
        /* ldb_init() fails on a path of LDB_MODULES_PATH that does not exist. */
        if (access(one, F_OK) != 0) {
            continue;
        }
        if (path[0] != '\0') {
            strcat(path, ":");
        }
        strcat(path, one);
    }
    if (path[0] == '\0' || setenv("LDB_MODULES_PATH", path, 0) != 0) {
        return;
    }
    limited = true;
}

struct ldb_context *sysdb_ldb_new(TALLOC_CTX *mem_ctx, struct tevent_context *ev)
{
    sysdb_ldb_modules_limit();
    return ldb_init(mem_ctx, ev);
}

typedef void (*set_modules_dir_fn)(struct ldb_context *, const char *);

void ldb_set_modules_dir(struct ldb_context *ldb, const char *path)
{
    static set_modules_dir_fn next;

    if (limited && path != NULL && strcmp(path, SSS_LDB_MODULESDIR) == 0) {
        return;     /* the back-ends came from LDB_MODULES_PATH */
    }
    if (next == NULL) {
        next = (set_modules_dir_fn)dlsym(RTLD_NEXT, "ldb_set_modules_dir");
        if (next == NULL) {
            return;
        }
    }
    next(ldb, path);
}
