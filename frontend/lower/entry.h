/*
 * entry.h - TorchAir and torch entry points of the lowering (entry.c):
 * torch.compile and cache_compile (compiled entries), CompilerConfig and
 * get_npu_backend (config objects), the scopes (npu_stream_switch,
 * super_kernel, limit_core_num), npu_wait_tensor, set_dim_gears and
 * mark_static; and the compiled entries' traces: binding the example
 * inputs, tracing the method, the outputs, later calls against the plan.
 */
#ifndef TNGC_LOWER_ENTRY_H
#define TNGC_LOWER_ENTRY_H

#include "torchlib.h"

/* A torch.compile / cache_compile result. */
struct CompiledObj {
    Obj *target;           /* module instance, bound method or function; NULL for
                            * a decorator factory torch.compile(backend=...) */
    ConfigObj *cfg;
    int dynamic, fullgraph;  /* -1 not given */
    int is_cache;
    const char *cache_dir;
    int32_t node;
    struct ImpModule *mod; /* the module node is in (imports.h), NULL: the script */
    Graph *graph;          /* the trace of the first call, or NULL */
    Obj *ret;              /* the traced return value (entry objects) */
    int traced;            /* traced (or tracing failed) */
    int skipped;           /* not an entry of its own (the unbound compiled method of a class) */
    size_t nleaves;        /* tensor leaves of the first call's arguments */
    const char *name;      /* entry name, once called */
    CallArgs first;        /* the arguments of the first call */
};

/* Calls the TorchAir or torch entry point named name (canonical: see
 * alias_torchair_api; torch.no_grad and the like are null scopes); NULL
 * when name is none tngc models. */
Obj *entry_call(Interp *I, const char *name, CallArgs *a);
/* torch.compile(model, backend=..., dynamic=..., fullgraph=...) (also as
 * a decorator): a new compiled entry. */
Obj *entry_torch_compile(Interp *I, CallArgs *a);
/* A new compiled entry (a copy of from's options when not NULL) made at
 * node, with its target; every one is listed in I->compiled. */
Obj *entry_compiled_new(Interp *I, const CompiledObj *from, Obj *target, int32_t node);
/* Calls compiled object o: a decorator factory's result applied to a def
 * (a new entry), else the entry (traced on its first call; later calls
 * are checked against the plan). */
Obj *entry_call_compiled(Interp *I, Obj *o, CallArgs *a);
/* While tracing: owner.attr, a tensor the trace's host code just made (a
 * tensor attribute created on the first call), is named as
 * weight_names_collect names attributes from the traced module. */
void entry_attr_created(Interp *I, Obj *owner, const char *attr);
/* A method decorated with @torch.compile (fa), read through instance inst
 * as name: one compiled entry per instance, bound to it. */
Obj *entry_bind_compiled(Interp *I, Obj *inst, const char *name, Obj *fa);
/* 1 when o is a compiled def of a class (not yet bound to an instance). */
int entry_is_unbound_compiled(const Obj *o);
/* cfg.<prefix>.name of a config object c. */
Obj *entry_config_get(Interp *I, Obj *c, const char *name);
/* cfg.<prefix>.name = val (`x.value = v` is recorded as `x = v`). */
void entry_config_set(Interp *I, Obj *c, const char *name, Obj *val, int32_t node);
/* Entering `with s:` at node while tracing: a stream or super-kernel scope
 * becomes the current one (the evaluator restores the old at the end). */
void entry_scope_enter(Interp *I, Obj *s, int32_t node);
/* After the script ran: TNG208 when no entry was called, or when entry
 * (--entry, may be NULL) names none of those called. */
void entry_finish(Interp *I, const char *entry);
/* Frees what the entries and configs hold outside the arena. */
void entry_free(Interp *I);

#endif
