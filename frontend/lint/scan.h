/*
 * scan.h - annotation scanning: the TorchAir annotations of one file and
 * the module facts lint rules read (configs, compiles, example tensors and
 * how they are bound).
 *
 * Memory of one file lives in its ScanFile's arena and arrays, freed by
 * scanfile_free.
 */
#ifndef TNGC_SCAN_H
#define TNGC_SCAN_H

#include "../python/python.h"
#include "../diag/diag.h"

/* ===================================================================== */
/* Annotations                                                           */
/* ===================================================================== */

#define ANN_KINDS(X) \
    X(super_kernel) X(npu_stream_switch) X(npu_wait_tensor) \
    X(limit_core_num) X(set_dim_gears) X(mark_static) X(cache_compile) \
    X(compiler_config) X(config_option) X(get_npu_backend) X(torch_compile) \
    X(op_never_timeout) X(npu_print) X(ops_wait) X(tagged_event) X(tagged_op)

typedef enum AnnKind {
#define X(k) ANN_##k,
    ANN_KINDS(X)
#undef X
    ANN__count
} AnnKind;

extern const char *const ann_kind_name[ANN__count];

typedef struct Arg {
    const char *name;      /* parameter name, or "argN" past the signature */
    Value *value;
} Arg;

/* A value an argument of an annotation takes at one call of the function
 * around it, when the argument is a parameter of that function: the
 * caller's argument, or the parameter's default. */
typedef struct ArgSource {
    const char *arg;       /* the annotation's argument ("options") */
    const char *param;     /* the function's parameter it is */
    Value *value;          /* at the call (or the default) */
    int32_t call;          /* the call of the function */
} ArgSource;

typedef struct Annotation {
    AnnKind kind;
    int resolved;          /* callee resolves to the TorchAir/torch name */
    int32_t node;          /* the call (or assignment, decorator) */
    int func;              /* index into ScanFile.funcs, -1 at module level */
    int cls;               /* in a class body (outside its defs): the class, else -1 */
    const char *callee;    /* canonical name, or the callee's source text */
    Arg *args;             /* positional ones first, then keywords, then "*" and "**" */
    size_t nargs;
    size_t npos;           /* positional arguments: args[0..npos) */
    int *scopes;           /* enclosing scope annotations, outermost first */
    uint8_t *scope_cond;   /* scopes[i] entered through a conditional expression */
    size_t nscopes;
    int is_scope;          /* used as a with-item (directly or via a variable) */
    /* A callee that names a TorchAir function which does not exist: the
     * call is reported unresolved (it raises AttributeError, so it opens
     * no scope and no other rule reads it). */
    ApiStatus api;
    const char *api_path;  /* the canonical name it resolves to */
    int api_guarded;       /* only a fallback: handled by an except, or behind hasattr() */
    ArgSource *sources;    /* super_kernel's scope and options through its function's calls */
    size_t nsources;
} Annotation;

/* The value of the argument called name, or NULL. */
const Value *ann_arg(const Annotation *self, const char *name);

/* ===================================================================== */
/* Module facts                                                          */
/* ===================================================================== */

typedef struct Function {
    const char *qualname;  /* "Class.method", "outer.inner", "f" */
    const char *name;
    int cls;               /* enclosing class index, -1 if none */
    int32_t node;          /* function_definition */
    int ndecorators;
    VEC(int32_t) graph_breaks;     /* calls that break the graph */
    VEC(const char *) self_calls;  /* names m of self.m(...) calls */
} Function;

/* Three-valued flags of compile calls. */
typedef enum Tri { TRI_DEFAULT, TRI_FALSE, TRI_TRUE, TRI_UNKNOWN } Tri;

typedef struct Class {
    const char *name;
    const char *qualname;  /* "Outer.Inner", "test_a.Model" */
    int32_t node;
    Tri module;            /* derives from torch.nn.Module: TRI_TRUE, TRI_FALSE (provably
                            * not: its bases are object or such classes of this file),
                            * TRI_UNKNOWN (a base tngc cannot see) */
} Class;

typedef struct ScanFile ScanFile;

typedef struct ConfigField {
    const char *path;      /* "mode", "ge_config.enable_single_stream" */
    Value *value;
    int32_t node;          /* the assignment (in module's tree when module is set) */
    const ScanFile *module; /* the imported module whose code set it; NULL: this file */
} ConfigField;

typedef struct Config {
    int32_t node;          /* the CompilerConfig() call; -1 when made in an imported module */
    const ScanFile *module; /* the imported module that made it (its fields name theirs); NULL: this file */
    VEC(ConfigField) fields;
    /* The npugraph_ex package's own CompilerConfig (its fields are not
     * TorchAir's: lint checks them against its own table; its mode is
     * always npugraph_ex, whatever it is set to, held
     * as a field "mode" set at node), also made up for the compiles of
     * torch.npu.npugraph_ex.inference.cache_compile, which force that mode. */
    int npugraph_ex;
} Config;

enum { CONFIG_DEFAULT = -1, CONFIG_UNKNOWN = -2 };

typedef struct Compile {
    int ann;               /* the torch_compile / cache_compile annotation */
    int is_cache;          /* cache_compile */
    int torchair;          /* backend is TorchAir's (get_npu_backend, cache_compile) */
    int config;            /* Config index, CONFIG_DEFAULT or CONFIG_UNKNOWN */
    Tri dynamic, fullgraph;
    int func;              /* compiled function, -1 if unknown */
    int32_t target;        /* node of the compiled object expression, -1 */
    int target_is_function; /* the target names a def of this file */
    /* cache_compile: what the target provably is when it is not a bound
     * method of a torch.nn.Module ("a lambda", "the plain function f", ...),
     * else NULL */
    const char *not_module_method;
    int decorator;         /* cache_compile: a bare @cache_compile on a def */
    /* cache_compile given both config= and backend=: the config the
     * backend was made from (config holds config='s), else CONFIG_UNKNOWN;
     * backend_call: the get_npu_backend call of this file that made the
     * backend (of torch.compile too), -1 when not seen */
    int backend_config;
    int32_t backend_call;
} Compile;

typedef struct Tensor {
    int32_t node;          /* where it was made */
    int rank;              /* -1 unknown */
    const Value *size;     /* a torch factory's size: a V_TUPLE / V_LIST of rank dims
                            * (V_INT where known), or NULL */
} Tensor;

/* An annotation that applies to a tensor (set_dim_gears, mark_static). */
typedef struct TensorAnn {
    int ann;
    int tensor;
} TensorAnn;

/* A call of a compiled object: its tensor arguments are example inputs.
 * compile >= 0, or compile == -1 with cls/method naming a method call
 * (self.m(...), obj.m(...)) matched against compiles by lint. */
typedef struct Binding {
    int compile;
    int cls;
    const char *method;
    int32_t node;
    int *tensors;
    size_t ntensors;
} Binding;

/* A `# tngc: ignore[...]` comment. */
typedef struct Suppression {
    uint32_t line;
    RuleId rule;
} Suppression;

/* A module-level name of a file bound to a config or a backend: what a
 * file that imports it sees (kind VAL_CONFIG or VAL_BACKEND of scan.c,
 * config a Config index, CONFIG_DEFAULT or CONFIG_UNKNOWN). */
typedef struct ScanExport {
    const char *name;
    int backend;           /* 1: a backend (get_npu_backend), 0: a CompilerConfig */
    int config;
} ScanExport;

/* Everything tngc knows of one file after scanning. */
struct ScanFile {
    Source src;
    Ast ast;
    Arena arena;
    DiagList diags;
    VEC(Annotation) anns;
    VEC(Function) funcs;
    VEC(Class) classes;
    VEC(Config) configs;
    VEC(Compile) compiles;
    VEC(Tensor) tensors;
    VEC(TensorAnn) gears;
    VEC(TensorAnn) marks;
    VEC(Binding) bindings;
    VEC(Suppression) suppressions;
    VEC(ScanExport) exports;
};

/* ===================================================================== */
/* Modules (scan_modules.c)                                              */
/* ===================================================================== */

/* The modules of one run that scanned files import: found along a search
 * path (the importing file's folder, then -I DIRs, then TNGC_PATH's), each
 * read, parsed and scanned once per run, so that a config or backend made
 * in one file is seen where another file uses it (docs/rules.md). */
typedef struct ScanModules ScanModules;

/* How a run's modules are read and freed: scanfile_load_with and
 * scanfile_free, passed in by the caller, so that scan_modules.c calls
 * nothing of scan.c (scan.c calls scanmods_get). */
typedef int (*ScanModLoad)(ScanFile *self, const char *path, ScanModules *mods, Sink *sink);
typedef void (*ScanModFree)(ScanFile *self);
/* A run's modules with the -I folders dirs[0..ndirs) (copied) and
 * TNGC_PATH's, each read with load and freed with free_file. */
ScanModules *scanmods_new(const char *const *dirs, size_t ndirs, ScanModLoad load, ScanModFree free_file);
void scanmods_free(ScanModules *self);
/* The scanned module name (dotted identifiers; level > 0: a relative
 * import, level dots, found from the folder of importer) imported by the
 * file importer; NULL when it is not found on the path (an external or
 * library module), is being scanned (an import cycle) or cannot be read. */
const ScanFile *scanmods_get(ScanModules *self, const char *importer, const char *name, int level);

/* Loads, parses and scans path. Returns 0, or -1 after one error in sink
 * (I/O errors only; syntax errors are diagnostics of self). */
int scanfile_load(ScanFile *self, const char *path, Sink *sink);
/* The same for the text[0..len) named path, read from memory (no file is
 * opened). */
int scanfile_load_text(ScanFile *self, const char *path, const char *text, size_t len, Sink *sink);
/* scanfile_load whose imports of modules found along mods' path (NULL:
 * none) are followed (scanmods_get). */
int scanfile_load_with(ScanFile *self, const char *path, ScanModules *mods, Sink *sink);
void scanfile_free(ScanFile *self);
/* Writes the annotations of self as a JSON object {"path":...}. */
void scan_json(const ScanFile *self, StrBuf *out);
/* Writes one text line per annotation. */
void scan_text(const ScanFile *self, StrBuf *out);

#endif
