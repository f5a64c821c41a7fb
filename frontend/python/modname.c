/*
 * modname.c - what plan's imports (frontend/lower/imports.c) and lint's
 * module scan (frontend/lint/scan_modules.c) agree on about a module's
 * name: whether it may be looked up on disk at all, and whether it is a
 * library module that is never looked up; and the search path both walk.
 */
#include "python.h"

#include <stdlib.h>
#include <string.h>

/* Library modules: the packages a model script imports that tngc models
 * itself (torch, torch_npu, torchair, npugraph_ex) or that have no graph
 * in them (the standard library, numpy). A local file of one of these
 * names is not read, as Python would find the installed one first. */
static const char *const modname__library[] = {
    "torch", "torch_npu", "torchair", "npugraph_ex", "functools", "math", "typing",
    "typing_extensions", "collections", "dataclasses", "itertools", "operator", "os", "sys",
    "abc", "enum", "copy", "logging", "warnings", "contextlib", "numpy", "__future__", "time",
    "random", "inspect", "types", "re", "json", "argparse", "pathlib", "builtins", "importlib",
    "unittest", "numbers", "weakref", "string", "textwrap", "pickle", "io", "struct",
};

int modname_is_library(const char *name)
{
    size_t len = strcspn(name, ".");
    for (size_t i = 0; i < sizeof modname__library / sizeof *modname__library; i++)
        if (strlen(modname__library[i]) == len && strncmp(modname__library[i], name, len) == 0)
            return 1;
    return 0;
}

int modname_valid(const char *name)
{
    size_t comp = 0;
    for (const char *p = name;; p++) {
        if (*p == '.' || !*p) {
            if (comp == 0 || comp > 200)
                return 0;
            if (!*p)
                return p - name < 1000;
            comp = 0;
            continue;
        }
        unsigned char c = (unsigned char)*p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (comp && c >= '0' && c <= '9')))
            return 0;
        comp++;
    }
}

char *modname_dir(const char *dir, size_t len)
{
    if (len == 0)
        return NULL;
    char *d = xmalloc(len + 1);
    memcpy(d, dir, len);
    d[len] = 0;
    while (len > 1 && d[len - 1] == '/')
        d[--len] = 0;
    return d;
}

void modname_search_path(const char *const *dirs, size_t ndirs, void (*add)(void *ctx, char *dir),
                         void *ctx)
{
    for (size_t i = 0; i < ndirs; i++) {
        char *d = modname_dir(dirs[i], strlen(dirs[i]));
        if (d)
            add(ctx, d);
    }
    const char *env = getenv("TNGC_PATH");
    for (const char *p = env; p && *p;) {
        size_t len = strcspn(p, ":");
        char *d = modname_dir(p, len);
        if (d)
            add(ctx, d);
        p += len + (p[len] == ':');
    }
}
