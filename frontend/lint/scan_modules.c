/*
 * scan_modules.c - the modules that scanned files import (scan.h,
 * ScanModules): found along the search path plan uses (the importing
 * file's folder, -I DIRs, TNGC_PATH), each read, parsed and scanned once
 * per run (by the loader scanmods_new is given: scanfile_load_with, which
 * calls scanmods_get for the file's own imports) and kept to the end of
 * the run, as the configs and backends a file imports point into them.
 *
 * Module names become paths safely: only identifiers are looked up, and a
 * file counts only when it is a regular file whose real path lies under
 * the folder it was found in. A run scans at most SCANMODS_MAX modules.
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include "scan.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SCANMODS_MAX 256

/* One module: its file (scanned once; state 1 while it is scanned). */
typedef struct ScanMod {
    ScanFile sf;
    int state;             /* 0 unreadable, 1 being scanned, 2 scanned */
} ScanMod;

struct ScanModules {
    VEC(char *) dirs;      /* -I, then TNGC_PATH */
    VEC(char *) keys;      /* real paths, the keys of by_real */
    VEC(ScanMod *) mods;
    StrMap by_real;        /* real path -> ScanMod* */
    ScanModLoad load;      /* scanfile_load_with */
    ScanModFree free_file; /* scanfile_free */
};

/* modname_search_path's add: one folder more on the path. */
static void scanmods__add_dir(void *ctx, char *dir)
{
    ScanModules *self = ctx;
    VEC_PUSH(self->dirs, dir);
}

ScanModules *scanmods_new(const char *const *dirs, size_t ndirs, ScanModLoad load, ScanModFree free_file)
{
    ScanModules *self = xcalloc(1, sizeof *self);
    self->load = load;
    self->free_file = free_file;
    modname_search_path(dirs, ndirs, scanmods__add_dir, self);
    return self;
}

void scanmods_free(ScanModules *self)
{
    if (!self)
        return;
    for (size_t i = 0; i < self->mods.n; i++) {
        if (self->mods.v[i]->state)
            self->free_file(&self->mods.v[i]->sf);
        free(self->mods.v[i]);
    }
    for (size_t i = 0; i < self->dirs.n; i++)
        free(self->dirs.v[i]);
    for (size_t i = 0; i < self->keys.n; i++)
        free(self->keys.v[i]);
    VEC_FREE(self->mods);
    VEC_FREE(self->dirs);
    VEC_FREE(self->keys);
    strmap_free(&self->by_real);
    free(self);
}

/* 1 when path is a regular file whose real path (into real) lies under dir. */
static int scanmods__file_under(const char *path, const char *dir, char *real)
{
    char rdir[PATH_MAX];
    struct stat st;
    if (!realpath(dir, rdir) || !realpath(path, real) || stat(real, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    size_t n = strlen(rdir);
    if (n == 1 && rdir[0] == '/')
        return real[0] == '/';
    return !strncmp(real, rdir, n) && real[n] == '/';
}

/* The module file of name (dots already folders: "a/b") in dir:
 * dir/a/b/__init__.py or dir/a/b.py; its shown path into file. */
static int scanmods__find_in(const char *dir, const char *rel, StrBuf *file, char *real)
{
    int dot = !strcmp(dir, ".");
    static const char *const forms[] = {"%s%s%s/__init__.py", "%s%s%s.py"};
    for (size_t i = 0; i < 2; i++) {
        file->len = 0;
        if (file->s)
            file->s[0] = 0;
        sb_printf(file, forms[i], dot ? "" : dir, dot ? "" : "/", rel);
        if (scanmods__file_under(file->s, dir, real))
            return 1;
    }
    return 0;
}

/* Scans the file found (once per run). */
static const ScanFile *scanmods__scan(ScanModules *self, const char *shown, const char *real)
{
    ScanMod *m = strmap_get(&self->by_real, real);
    if (m)
        return m->state == 2 ? &m->sf : NULL;
    if (self->mods.n >= SCANMODS_MAX)
        return NULL;
    m = xcalloc(1, sizeof *m);
    char *key = xstrdup(real);
    VEC_PUSH(self->keys, key);
    VEC_PUSH(self->mods, m);
    strmap_put(&self->by_real, key, m);
    m->state = 1;
    Sink quiet;   /* unreadable: as if it were not there, and not said */
    sink_init(&quiet, NULL);
    int rc = self->load(&m->sf, shown, self, &quiet);
    sink_free(&quiet);
    if (rc != 0) {
        m->state = 0;
        return NULL;
    }
    m->state = 2;
    return &m->sf;
}

const ScanFile *scanmods_get(ScanModules *self, const char *importer, const char *name, int level)
{
    if (!self || !modname_valid(name) || (level == 0 && modname_is_library(name)) || level > 64)
        return NULL;
    char *rel = xstrdup(name);
    for (char *p = rel; *p; p++)
        if (*p == '.')
            *p = '/';
    char *own = path_dir(importer);
    StrBuf file = {0};
    char real[PATH_MAX];
    const ScanFile *out = NULL;
    if (level > 0) {   /* relative: from the importer's folder, one up per extra dot */
        StrBuf dir = {0};
        sb_puts(&dir, own);
        for (int k = 1; k < level; k++)
            sb_puts(&dir, "/..");
        if (scanmods__find_in(dir.s, rel, &file, real))
            out = scanmods__scan(self, file.s, real);
        sb_free(&dir);
    } else if (scanmods__find_in(own, rel, &file, real)) {
        out = scanmods__scan(self, file.s, real);
    } else {
        for (size_t i = 0; i < self->dirs.n; i++)
            if (scanmods__find_in(self->dirs.v[i], rel, &file, real)) {
                out = scanmods__scan(self, file.s, real);
                break;
            }
    }
    sb_free(&file);
    free(own);
    free(rel);
    return out;
}
