/*
 * imports.h - the modules a script imports (imports.c): `import m`,
 * `import pkg.m as x`, `from m import C`, `from .layers import A`,
 * `from . import utils`, packages with __init__.py, found as Python's
 * import system finds them along a search path: the script's folder, then
 * each -I DIR, then each folder of TNGC_PATH.
 *
 * A script whose folder holds an __init__.py is run as a module of that
 * package, as `python -m pkg.script` runs it (its relative imports work;
 * the folder above the top-level package is searched after the script's).
 * Each module is read, parsed and run once per run (its module-level code,
 * in its own globals); an import cycle sees the partially run module, as
 * Python's does. The evaluator runs a module's code with the run switched
 * to the module (imports_enter/imports_leave): its syntax tree, its
 * per-node strings and literals, its globals, and the file its diagnostics
 * name. Functions and classes remember their module (InterpFunc.mod), so
 * calling them switches too.
 *
 * torch, torchair, torch_npu and Python's standard modules tngc models
 * (functools, math, typing, ...) stay library names. A module found
 * nowhere on the path (transformers, vllm, ...) is external: importing it
 * is fine, its names are library names that tngc does not know, and
 * calling one in a compiled graph is one TNG202 naming the module and the
 * name (imports_call_external).
 *
 * Module names become paths: only identifiers are looked up, a file must
 * be a regular file whose real path lies under the search-path folder it
 * was found in, and a run reads at most IMPORTS_MAX_MODULES files and
 * IMPORTS_MAX_BYTES bytes (TNG212 past either).
 */
#ifndef TNGC_LOWER_IMPORTS_H
#define TNGC_LOWER_IMPORTS_H

#include "obj.h"

#define IMPORTS_MAX_MODULES 256
#define IMPORTS_MAX_BYTES (32u << 20)

/* One module of the run. */
typedef struct ImpModule {
    const char *name;      /* "pkg.layers"; "__main__" for the script */
    const char *package;   /* its __package__ (relative imports start there); NULL: none */
    char *dir;             /* a package: the folder of its submodules (owned) */
    ScanFile *sf;          /* its file; NULL for the script and a namespace package */
    const Ast *ast;
    const char **node_strs;
    Obj **literals;
    void *globals;         /* its module frame (eval.c's Frame) */
    int done;              /* its code has run to the end */
} ImpModule;

/* What the evaluator does for the import machinery (eval.c installs them). */
typedef struct ImportHooks {
    /* A new module frame that lives to the end of the run. */
    void *(*frame)(Interp *I);
    /* Runs the module code of I->ast (node 0) in frame. */
    void (*run)(Interp *I, void *frame);
    /* name in frame (a module's globals), or NULL. */
    Obj *(*get)(Interp *I, void *frame, const char *name);
    /* Binds name (a string of the run) to v in frame. */
    void (*set)(Interp *I, void *frame, const char *name, Obj *v);
    /* Calls fn(I, ctx, name, v) for each binding of frame. */
    void (*each)(Interp *I, void *frame, void (*fn)(Interp *I, void *ctx, const char *name, Obj *v), void *ctx);
} ImportHooks;

/* The run's context saved by imports_enter. */
typedef struct ImpSaved {
    ImpModule *mod;
    const Ast *ast;
    const char **node_strs;
    Obj **literals;
    const Source *src;
    void *globals;
    int32_t at;
    int tracing;
    Graph *g;
} ImpSaved;

/* Sets up the run's modules: the script (its globals frame main_frame)
 * and the search path: the folder of script_path, dirs[0..ndirs), then
 * TNGC_PATH's folders. */
void imports_init(Interp *I, const char *script_path, const char *const *dirs, size_t ndirs,
                  const ImportHooks *hooks, void *main_frame);
/* Hands the modules' files to the caller (the strings and the trees the
 * diagnostics and graphs point into): *files[0..*n), each freed with
 * scanfile_free and free; frees the rest. */
void imports_finish(Interp *I, ScanFile ***files, size_t *n);

/* Switches the run to module m's code (NULL: the script); 1 when it
 * switched (then imports_leave(I, s) switches back), 0 when m runs already. */
int imports_enter(Interp *I, ImpModule *m, ImpSaved *s);
void imports_leave(Interp *I, const ImpSaved *s);

/* 1 while the run is in the code of a module the script imports. */
int imports_running_module(const Interp *I);

/* An import or from-import statement n, run in frame f of the current
 * module: modules found and run, names bound. */
void imports_exec(Interp *I, void *f, int32_t n);

/* mod.name when o is a module of the script's (o->s names it); NULL when
 * o is no such module. */
Obj *imports_getattr(Interp *I, const Obj *o, const char *name, int32_t node);
/* What the expression at node (an identifier or attribute read while
 * tracing) gives when its value o is a name of an external module used as
 * a value (not called, no attribute read of it): an unknown that says where
 * it is from (one TNG202 where the graph needs it); else o. */
Obj *imports_trace_value(Interp *I, Obj *o, int32_t node);
/* mod.name = val when o is a module of the script's: 1, else 0. */
int imports_setattr(Interp *I, const Obj *o, const char *name, Obj *val);
/* A call of a name of an external module: in a trace one TNG202 naming
 * the module and the name, else an unknown that says where it is from
 * (TNG202 if it reaches a graph); NULL when name is not external. */
Obj *imports_call_external(Interp *I, const char *name, CallArgs *a);

#endif
