/*
 * interp.h - the lowering stage's public header: the module interpreter
 * and the lowering of compiled methods.
 *
 * interp_run runs a script's module-level code abstractly (host mode):
 * ints, floats, strings, tuples, lists, dicts, tensor specs, module
 * instances, config objects. When host code calls a compiled entry
 * (torch.compile'd model or method, cache_compile'd method), the entry's
 * method body is run in trace mode: the same interpreter, but tensor
 * operations append ops to the entry's Graph, and anything that cannot be
 * lowered is a graph-break diagnostic (TNG2xx). Python values are known or
 * "unknown"; only an unknown value that the plan needs is an error.
 *
 * In host mode tensors are values of a scratch "host graph" whose dims are
 * all constants: the same shape inference serves both modes.
 *
 * The stage's files (README.md): obj.h (the object model), torchlib.h,
 * pyops.h, builtins.h, entry.h, eval.h, and interp.c, which runs a script.
 */
#ifndef TNGC_INTERP_H
#define TNGC_INTERP_H

#include "../lint/scan.h"
#include "../../ir/graph.h"

/* ===================================================================== */
/* Running a script                                                      */
/* ===================================================================== */

typedef struct InterpResult {
    Graph **entries;       /* the compiled entries called by the script, in call order */
    size_t nentries;
    Arena *arena;          /* the strings the entries point to */
    ScanFile **modules;    /* the files the script imports, in import order: their
                            * diagnostics point into them (depfiles, cache keys) */
    size_t nmodules;
} InterpResult;

/*
 * Runs sf's module-level code and lowers every compiled entry it calls.
 * entry, when not NULL, keeps only the entry of that name ("Model.forward").
 * Diagnostics go to sf->diags. Returns 0, or -1 when an error makes the
 * entries unusable (their diagnostics say why).
 */
int interp_run(ScanFile *sf, const char *entry, InterpResult *out);
void interp_result_free(InterpResult *self);

/* The budget of one run. A script that needs more is stopped with one
 * TNG212 at the statement being interpreted (exit 1), so that no script can
 * exhaust the memory or the time of the machine that plans it. */
#define INTERP_DEFAULT_MAX_MB 512        /* tngc plan/gen/build --max-memory MB */
#define INTERP_DEFAULT_MAX_SECONDS 10    /* --max-time SECONDS */
typedef struct InterpLimits {
    size_t max_mb;         /* MiB of interpreter memory: objects, containers,
                            * strings, call frames, graph growth; 0: default */
    double max_seconds;    /* wall-clock seconds of interpretation; 0: default */
    const char *const *path;  /* -I DIR...: where imports are looked for after the
                               * script's folder (then TNGC_PATH's folders) */
    size_t npath;
    int world_size;        /* --world-size: ranks of the process group (0 or 1: none) */
    int rank;              /* the rank this run evaluates the script as */
} InterpLimits;

/* interp_run under limits (NULL: the defaults). */
int interp_run_limited(ScanFile *sf, const char *entry, const InterpLimits *limits, InterpResult *out);

#endif
