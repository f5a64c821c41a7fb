/*
 * imports.c - the modules a script imports: the search path, finding a
 * module's file (safely: module names become paths), reading and parsing
 * it once, running its code in its own globals (through the evaluator's
 * hooks), binding what import statements bind, and the external modules.
 * See imports.h.
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include "imports.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The run's modules. */
typedef struct Imports {
    VEC(ImpModule *) mods;     /* [0]: the script */
    StrMap by_name;            /* name -> ImpModule* */
    VEC(const char *) external;  /* modules found nowhere on the path */
    VEC(char *) dirs;          /* the search path */
    size_t bytes;              /* read so far */
    ImportHooks hooks;
} Imports;

/* ---- the search path ---- */

/* Adds the folder dir[0..len) to the search path (none when len is 0). */
static void imports__add_dir(Imports *im, const char *dir, size_t len)
{
    char *d = modname_dir(dir, len);
    if (d)
        VEC_PUSH(im->dirs, d);
}

/* modname_search_path's add: one folder more on the path. */
static void imports__add_path(void *ctx, char *dir)
{
    Imports *im = ctx;
    VEC_PUSH(im->dirs, dir);
}

/* The folder above dir, as a path: dir without its last component when
 * it has one that is a name, else dir/.. ("." gives ".."). */
static void imports__parent(StrBuf *dir)
{
    char *slash = strrchr(dir->s, '/');
    const char *last = slash ? slash + 1 : dir->s;
    if (strcmp(last, ".") == 0 && !slash) {
        dir->s[0] = 0;
        dir->len = 0;
        sb_puts(dir, "..");
    } else if (strcmp(last, ".") == 0 || strcmp(last, "..") == 0 || !*last) {
        sb_puts(dir, "/..");
    } else if (!slash) {
        dir->s[0] = 0;
        dir->len = 0;
        sb_puts(dir, ".");
    } else {
        dir->len = slash == dir->s ? 1 : (size_t)(slash - dir->s);
        dir->s[dir->len] = 0;
    }
}

/* The package the script is in when its folder holds an __init__.py, as
 * `python -m a.b.script` runs it: the folders with an __init__.py from its
 * own outwards ("a.b"); NULL when it is in none. The folder above the
 * top-level package goes on the search path (after the script's folder). */
static const char *imports__script_package(Interp *I, Imports *im, const char *dir)
{
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return NULL;
    StrBuf up = {0};
    sb_puts(&up, dir);
    const char *pkg = NULL;
    for (int level = 0; level < 64; level++) {
        StrBuf init = {0};
        struct stat st;
        sb_printf(&init, "%s/__init__.py", real);
        int is_pkg = stat(init.s, &st) == 0 && S_ISREG(st.st_mode);
        sb_free(&init);
        char *base = strrchr(real, '/');
        if (!is_pkg || !base || !base[1])
            break;
        if (!modname_valid(base + 1)) {   /* not importable: no package */
            pkg = NULL;
            break;
        }
        pkg = pkg ? interp_printf(I, "%s.%s", base + 1, pkg) : interp_strndup(I, base + 1, strlen(base + 1));
        if (base == real)
            base[1] = 0;
        else
            *base = 0;
        imports__parent(&up);
    }
    if (pkg)
        imports__add_dir(im, up.s, up.len);
    sb_free(&up);
    return pkg;
}

void imports_init(Interp *I, const char *script_path, const char *const *dirs, size_t ndirs,
                  const ImportHooks *hooks, void *main_frame)
{
    Imports *im = xcalloc(1, sizeof *im);
    im->hooks = *hooks;
    I->imports = im;
    const char *slash = script_path ? strrchr(script_path, '/') : NULL;
    if (!slash)
        imports__add_dir(im, ".", 1);
    else
        imports__add_dir(im, script_path, slash == script_path ? 1 : (size_t)(slash - script_path));
    const char *package = imports__script_package(I, im, im->dirs.v[0]);
    modname_search_path(dirs, ndirs, imports__add_path, im);
    ImpModule *m = interp_alloc(I, sizeof *m);
    m->name = "__main__";
    m->package = package;
    m->ast = I->ast;
    m->node_strs = I->node_strs;
    m->literals = I->literals;
    m->globals = main_frame;
    VEC_PUSH(im->mods, m);
    I->mod = m;
}

void imports_finish(Interp *I, ScanFile ***files, size_t *n)
{
    Imports *im = I->imports;
    *files = NULL;
    *n = 0;
    if (!im)
        return;
    for (size_t i = 0; i < im->mods.n; i++) {
        ImpModule *m = im->mods.v[i];
        if (m->sf) {
            *files = xrealloc(*files, (*n + 1) * sizeof **files);
            (*files)[(*n)++] = m->sf;
        }
        free(m->node_strs != I->node_strs ? (void *)m->node_strs : NULL);
        free(m->literals != I->literals ? (void *)m->literals : NULL);
        free(m->dir);
    }
    for (size_t i = 0; i < im->dirs.n; i++)
        free(im->dirs.v[i]);
    VEC_FREE(im->dirs);
    VEC_FREE(im->mods);
    VEC_FREE(im->external);
    strmap_free(&im->by_name);
    free(im);
    I->imports = NULL;
}

/* ---- switching the run between modules ---- */

int imports_enter(Interp *I, ImpModule *m, ImpSaved *s)
{
    if (!m && I->imports)
        m = I->imports->mods.v[0];
    if (!m || m == I->mod)
        return 0;
    s->mod = I->mod;
    s->ast = I->ast;
    s->node_strs = I->node_strs;
    s->literals = I->literals;
    s->src = I->src;
    s->globals = I->globals;
    s->at = I->at;
    I->mod = m;
    I->ast = m->ast;
    I->node_strs = m->node_strs;
    I->literals = m->literals;
    I->src = m->sf ? &m->sf->src : NULL;
    I->globals = m->globals;
    return 1;
}

void imports_leave(Interp *I, const ImpSaved *s)
{
    I->mod = s->mod;
    I->ast = s->ast;
    I->node_strs = s->node_strs;
    I->literals = s->literals;
    I->src = s->src;
    I->globals = s->globals;
    I->at = s->at;
}

int imports_running_module(const Interp *I)
{
    return I->mod && I->mod->sf;
}

/* ---- finding a module's file ---- */

/* 1 when path's real path lies under dir's (both resolved now). */
static int imports__under(const char *path, const char *dir, char *real)
{
    char rdir[PATH_MAX];
    if (!realpath(dir, rdir) || !realpath(path, real))
        return 0;
    size_t n = strlen(rdir);
    if (n == 1 && rdir[0] == '/')
        return real[0] == '/';
    return strncmp(real, rdir, n) == 0 && real[n] == '/';
}

/* Empties b (keeping its memory). */
static void imports__sb_clear(StrBuf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = 0;
}

/* How comp is found in dir. */
typedef enum Found { FOUND_NONE, FOUND_MODULE, FOUND_PACKAGE, FOUND_NAMESPACE } Found;

/* Looks comp up in dir: dir/comp/__init__.py (a package), dir/comp.py (a
 * module), or dir/comp a folder (a namespace package, if nothing else is
 * found). *file: the file's path as shown, *real its real path. */
static Found imports__find_in(const char *dir, const char *comp, StrBuf *file, char *real)
{
    struct stat st;
    const char *sep = "/", *shown = dir;
    if (strcmp(dir, ".") == 0)   /* the script's folder when it was named without one */
        shown = sep = "";
    imports__sb_clear(file);
    sb_printf(file, "%s%s%s/__init__.py", shown, sep, comp);
    if (imports__under(file->s, dir, real) && stat(real, &st) == 0 && S_ISREG(st.st_mode))
        return FOUND_PACKAGE;
    imports__sb_clear(file);
    sb_printf(file, "%s%s%s.py", shown, sep, comp);
    if (imports__under(file->s, dir, real) && stat(real, &st) == 0 && S_ISREG(st.st_mode))
        return FOUND_MODULE;
    imports__sb_clear(file);
    sb_printf(file, "%s%s%s", shown, sep, comp);
    if (imports__under(file->s, dir, real) && stat(real, &st) == 0 && S_ISDIR(st.st_mode))
        return FOUND_NAMESPACE;
    return FOUND_NONE;
}

/* Reads the regular file real (shown as shown) within the run's budget
 * into sf: 0, or -1 with a diagnostic at node. */
static int imports__read(Interp *I, const char *real, const char *shown, ScanFile *sf, int32_t node)
{
    Imports *im = I->imports;
    int fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        interp_diag(I, node, RULE_TNG201, "cannot read module file %s: %s", shown,
                    fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if ((uint64_t)st.st_size > IMPORTS_MAX_BYTES - im->bytes) {
        close(fd);
        interp_limit(I, node, interp_printf(I, "the imported modules are more than %u MiB of source (at %s)",
                                            IMPORTS_MAX_BYTES >> 20, shown));
        return -1;
    }
    size_t len = 0, cap = (size_t)st.st_size + 1;
    char *text = xmalloc(cap);
    for (;;) {
        ssize_t got = read(fd, text + len, cap - len);
        if (got <= 0)
            break;
        len += (size_t)got;
        if (len == cap) {   /* it grew since fstat: stop at the limit */
            if (len >= IMPORTS_MAX_BYTES - im->bytes)
                break;
            cap *= 2;
            text = xrealloc(text, cap);
        }
    }
    close(fd);
    if (len > IMPORTS_MAX_BYTES - im->bytes) {
        free(text);
        interp_limit(I, node, "the imported modules are too large");
        return -1;
    }
    im->bytes += len;
    interp_charge(I, len);
    Sink why;   /* the loader's error becomes part of a TNG201 at the import */
    sink_init(&why, NULL);
    int rc = scanfile_load_text(sf, shown, text, len, &why);
    free(text);
    if (rc != 0) {
        StrBuf err = {0};
        sink_quote(&why, &err);
        interp_diag(I, node, RULE_TNG201, "cannot load module file %s: %s", shown, err.s);
        sb_free(&err);
    }
    sink_free(&why);
    if (rc != 0)
        return -1;
    return 0;
}

/* A new module name (dotted), registered before its code runs (so that a
 * cycle finds it). */
static ImpModule *imports__add(Interp *I, const char *name, const char *package)
{
    Imports *im = I->imports;
    ImpModule *m = interp_alloc(I, sizeof *m);
    m->name = interp_strndup(I, name, strlen(name));
    m->package = package ? interp_strndup(I, package, strlen(package)) : NULL;
    VEC_PUSH(im->mods, m);
    strmap_put(&im->by_name, m->name, m);
    return m;
}

/* Copies the syntax errors of m's file to the run's diagnostics (at m's
 * file); 1 when there were any. */
static int imports__syntax_errors(Interp *I, ImpModule *m)
{
    int any = 0;
    for (size_t i = 0; i < m->sf->diags.n; i++) {
        Diag d = m->sf->diags.v[i];
        if (d.severity != SEV_ERROR)
            continue;
        d.msg = xstrdup(d.msg);
        d.src = &m->sf->src;
        VEC_PUSH(I->sf->diags, d);
        any = 1;
    }
    return any;
}

/* Runs m's module code (its own globals, host mode). */
static void imports__run(Interp *I, ImpModule *m, int32_t node)
{
    Imports *im = I->imports;
    if (I->depth >= INTERP_MAX_DEPTH) {
        interp_limit(I, node, "imports nested more than 64 deep");
        return;
    }
    size_t nn = m->ast->n ? m->ast->n : 1;
    m->node_strs = xcalloc(nn, sizeof *m->node_strs);
    m->literals = xcalloc(nn, sizeof *m->literals);
    interp_charge(I, nn * (sizeof *m->node_strs + sizeof *m->literals));
    m->globals = im->hooks.frame(I);
    ImpSaved s;
    int switched = imports_enter(I, m, &s);
    int tracing = I->tracing;
    Graph *g = I->g;
    I->tracing = 0;
    I->g = &I->host;
    I->depth++;
    im->hooks.set(I, m->globals, "__name__", obj_str(I, m->name));
    if (!imports__syntax_errors(I, m))
        im->hooks.run(I, m->globals);
    I->depth--;
    I->tracing = tracing;
    I->g = g;
    if (switched)
        imports_leave(I, &s);
    m->done = 1;
}

/* The module called name (dotted, absolute): found and run on first use
 * (its packages first, as Python does), or NULL when it is a library name
 * or external. */
static ImpModule *imports__module(Interp *I, const char *name, int32_t node)
{
    Imports *im = I->imports;
    if (!im || modname_is_library(name))
        return NULL;
    ImpModule *m = strmap_get(&im->by_name, name);
    if (m)
        return m;
    for (size_t i = 0; i < im->external.n; i++) {
        size_t n = strlen(im->external.v[i]);
        if (strncmp(name, im->external.v[i], n) == 0 && (name[n] == 0 || name[n] == '.'))
            return NULL;
    }
    if (!modname_valid(name))
        return NULL;
    /* the parent package first */
    const char *dot = strrchr(name, '.');
    ImpModule *parent = NULL;
    const char *comp = name;
    if (dot) {
        char *pname = interp_strndup(I, name, (size_t)(dot - name));
        parent = imports__module(I, pname, node);
        if (!parent || !parent->dir || I->aborted)
            goto external;
        if ((m = strmap_get(&im->by_name, name)))
            return m;   /* the package's own code imported it */
        comp = dot + 1;
    }
    StrBuf file = {0};
    char real[PATH_MAX];
    Found how = FOUND_NONE;
    char *ns = NULL;
    size_t ndirs = parent ? 1 : im->dirs.n;
    for (size_t i = 0; i < ndirs && (how == FOUND_NONE || how == FOUND_NAMESPACE); i++) {
        const char *dir = parent ? parent->dir : im->dirs.v[i];
        Found f = imports__find_in(dir, comp, &file, real);
        if (f == FOUND_NAMESPACE) {
            if (!ns)
                ns = xstrdup(file.s);
            continue;
        }
        how = f;
    }
    if (how == FOUND_NONE && ns)
        how = FOUND_NAMESPACE;
    if (how == FOUND_NONE) {
        sb_free(&file);
        goto external;
    }
    if (im->mods.n > IMPORTS_MAX_MODULES) {
        sb_free(&file);
        free(ns);
        interp_limit(I, node, "the script imports more than 256 modules");
        return NULL;
    }
    m = imports__add(I, name, how == FOUND_MODULE ? (parent ? parent->name : "") : name);
    if (how == FOUND_NAMESPACE) {
        m->dir = ns;
        m->done = 1;
        sb_free(&file);
        return m;
    }
    free(ns);
    if (how == FOUND_PACKAGE) {
        m->dir = xstrdup(file.s);
        m->dir[strlen(m->dir) - strlen("/__init__.py")] = 0;
    }
    ScanFile *sf = xcalloc(1, sizeof *sf);
    if (imports__read(I, real, file.s, sf, node) != 0) {
        free(sf);
        m->done = 1;
        sb_free(&file);
        return m;
    }
    sb_free(&file);
    m->sf = sf;
    m->ast = &sf->ast;
    imports__run(I, m, node);
    return m;

external:
    VEC_PUSH(im->external, interp_strndup(I, name, strlen(name)));
    return NULL;
}

/* The object of module name: a script module's object or a library name
 * (for both, the library name object named name). */
static Obj *imports__object(Interp *I, const char *name)
{
    return obj_builtin(I, name);
}

/* ---- import statements ---- */

/* The absolute name of a from-import's module node m in the current
 * module; NULL (after an error) when it goes beyond the top-level package. */
static const char *imports__from_name(Interp *I, int32_t m, int32_t stmt)
{
    if (N(I, m)->kind != NK_relative_import)
        return interp_node_str(I, m);
    const char *text = interp_node_str(I, m);   /* "..a.b": the dots, then the name */
    size_t level = strspn(text, ".");
    const char *rel = NULL;
    FOR_CHILDREN(I, m, c)
        if (N(I, c)->kind == NK_dotted_name)
            rel = interp_node_str(I, c);
    const char *pkg = I->mod ? I->mod->package : NULL;
    if (!pkg || !*pkg) {
        interp_diag(I, stmt, RULE_TNG201, "attempted relative import with no known parent package "
                    "(%s is not in a package: import it as part of one, or use an absolute import)",
                    I->mod && I->mod->sf ? I->mod->name : "the script");
        return NULL;
    }
    const char *end = pkg + strlen(pkg);
    for (size_t k = 1; k < level; k++) {
        while (end > pkg && end[-1] != '.')
            end--;
        if (end == pkg) {
            interp_diag(I, stmt, RULE_TNG201, "attempted relative import beyond top-level package "
                        "('%.*s' of package '%s' goes up %zu levels)", (int)level, "..........", pkg, level - 1);
            return NULL;
        }
        end--;
    }
    const char *base = interp_strndup(I, pkg, (size_t)(end - pkg));
    return rel ? interp_printf(I, "%s.%s", base, rel) : base;
}

/* Context of a star import. */
typedef struct StarCtx {
    void *frame;
} StarCtx;

/* Binds one public name of a module in the importing frame. */
static void imports__star_one(Interp *I, void *ctx, const char *name, Obj *v)
{
    StarCtx *c = ctx;
    if (name[0] != '_')
        I->imports->hooks.set(I, c->frame, name, v);
}

/* `from m import *` of a script module: its __all__, else its public names. */
static void imports__star(Interp *I, void *f, ImpModule *m)
{
    Imports *im = I->imports;
    if (!m->globals)
        return;
    Obj *all = im->hooks.get(I, m->globals, "__all__");
    if (all && is_seq(all)) {
        for (size_t i = 0; i < all->n; i++)
            if (all->items[i]->kind == O_STR) {
                Obj *v = im->hooks.get(I, m->globals, all->items[i]->s);
                im->hooks.set(I, f, all->items[i]->s, v ? v : unk(I));
            }
        return;
    }
    StarCtx c = {f};
    im->hooks.each(I, m->globals, imports__star_one, &c);
}

/* from m import name: a global of a script module, else its submodule. */
static Obj *imports__from(Interp *I, ImpModule *m, const char *mname, const char *name, int32_t node)
{
    Imports *im = I->imports;
    Obj *v = m && m->globals ? im->hooks.get(I, m->globals, name) : NULL;
    if (v)
        return v;
    const char *full = interp_printf(I, "%s.%s", mname, name);
    if (!m)
        return obj_builtin(I, full);
    if (imports__module(I, full, node))
        return imports__object(I, full);
    return obj_unknown(I, interp_printf(I, "cannot import name '%s' from '%s'%s", name, mname,
                                        m->done ? "" : " (a partially initialized module: a circular import)"));
}

void imports_exec(Interp *I, void *f, int32_t n)
{
    Imports *im = I->imports;
    int from = N(I, n)->kind == NK_import_from_statement;
    const char *module = NULL;
    ImpModule *m = NULL;
    if (from) {
        int32_t mn = ast_field(I->ast, n, F_module_name);
        if (mn < 0 || !(module = imports__from_name(I, mn, n)))
            return;
        m = imports__module(I, module, n);
    }
    for (int32_t c = N(I, n)->first; c >= 0 && !I->aborted; c = N(I, c)->next) {
        if (from && N(I, c)->kind == NK_wildcard_import) {
            if (m)
                imports__star(I, f, m);
            continue;
        }
        if (N(I, c)->field != F_name)
            continue;
        int32_t name = c, alias = -1;
        if (N(I, c)->kind == NK_aliased_import) {
            name = ast_field(I->ast, c, F_name);
            alias = ast_field(I->ast, c, F_alias);
        }
        if (name < 0)
            continue;
        const char *path = interp_node_str(I, name);
        if (from) {
            Obj *v = imports__from(I, m, module, path, n);
            im->hooks.set(I, f, alias >= 0 ? interp_node_str(I, alias) : path, v);
            continue;
        }
        imports__module(I, path, n);   /* its packages too */
        if (alias >= 0) {
            im->hooks.set(I, f, interp_node_str(I, alias), imports__object(I, path));
        } else {
            /* import a.b.c binds a */
            const char *dot = strchr(path, '.');
            const char *root = dot ? interp_strndup(I, path, (size_t)(dot - path)) : path;
            im->hooks.set(I, f, root, imports__object(I, root));
        }
    }
}

/* ---- names of modules ---- */

Obj *imports_getattr(Interp *I, const Obj *o, const char *name, int32_t node)
{
    Imports *im = I->imports;
    if (!im || o->kind != O_BUILTIN || !o->s)
        return NULL;
    ImpModule *m = strmap_get(&im->by_name, o->s);
    if (!m)
        return NULL;
    Obj *v = m->globals ? im->hooks.get(I, m->globals, name) : NULL;
    if (v)
        return interp_trace_in(I, v, node);
    const char *full = interp_printf(I, "%s.%s", m->name, name);
    if (strmap_get(&im->by_name, full))
        return imports__object(I, full);
    if (I->tracing)
        return interp_break(I, node, RULE_TNG205, "module '%s' has no attribute '%s' that tngc can see", m->name, name);
    return obj_unknown(I, interp_printf(I, "module '%s' has no attribute '%s'", m->name, name));
}

/* The longest external module name is in, or NULL. */
static const char *imports__external_of(const Imports *im, const char *name)
{
    const char *e = NULL;
    for (size_t i = 0; i < im->external.n; i++) {
        size_t n = strlen(im->external.v[i]);
        if (strncmp(name, im->external.v[i], n) == 0 && (name[n] == 0 || name[n] == '.') &&
            (!e || strlen(e) < n))
            e = im->external.v[i];
    }
    return e;
}

Obj *imports_trace_value(Interp *I, Obj *o, int32_t node)
{
    Imports *im = I->imports;
    if (!im || !I->tracing || o->kind != O_BUILTIN || !o->s || node < 0)
        return o;
    int32_t p = N(I, node)->parent;
    if (p >= 0 && ((N(I, p)->kind == NK_attribute && ast_field(I->ast, p, F_object) == node) ||
                   (N(I, p)->kind == NK_call && ast_field(I->ast, p, F_function) == node)))
        return o;   /* x.attr or x(...): the attribute or the call says */
    const char *e = imports__external_of(im, o->s);
    if (!e)
        return o;
    return obj_unknown(I, interp_printf(I, OBJ_EXTERNAL_REASON "'%s' (not found on the search path): '%s'", e, o->s));
}

int imports_setattr(Interp *I, const Obj *o, const char *name, Obj *val)
{
    Imports *im = I->imports;
    if (!im || o->kind != O_BUILTIN || !o->s)
        return 0;
    ImpModule *m = strmap_get(&im->by_name, o->s);
    if (!m || !m->globals)
        return 0;
    im->hooks.set(I, m->globals, name, val);
    return 1;
}

Obj *imports_call_external(Interp *I, const char *name, CallArgs *a)
{
    Imports *im = I->imports;
    if (!im)
        return NULL;
    const char *e = imports__external_of(im, name);
    if (e) {
        if (I->tracing) {
            interp_diag(I, a->node, RULE_TNG202, "call of '%s' from the external module '%s' (not found on the "
                        "search path: the script's folder, -I, TNGC_PATH), which tngc cannot lower", name, e);
            return obj_unknown_reported(I);
        }
        return obj_unknown(I, interp_printf(I, OBJ_EXTERNAL_REASON "'%s' (not found on the search path), "
                                            "made by '%s'", e, name));
    }
    return NULL;
}
