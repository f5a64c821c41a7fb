/*
 * frontend.h - tngc's frontend IR: source files, the syntax tree, argument
 * values, diagnostics, annotations and the module facts that lint rules
 * read (configs, compiles, example tensors and how they are bound).
 *
 * Every node and diagnostic carries a location: 1-based line, 1-based byte
 * column. Memory of one file lives in its ScanFile's arena and arrays,
 * freed by scanfile_free.
 */
#ifndef TNGC_FRONTEND_H
#define TNGC_FRONTEND_H

#include "../support/support.h"

/* ===================================================================== */
/* Source files                                                          */
/* ===================================================================== */

/* Files larger than this are refused (tree-sitter offsets are 32-bit). */
#define SOURCE_MAX_BYTES (512u * 1024 * 1024)

typedef struct Source {
    char *path;            /* as the user named it */
    char *text;            /* contents, NUL-terminated */
    uint32_t len;          /* bytes, without the NUL */
    uint32_t *line_start;  /* byte offset of each line; line_start[0] == 0 */
    uint32_t nlines;
} Source;

/* Reads path into self; on failure returns -1 with a one-line reason in err. */
int source_load(Source *self, const char *path, char *err, size_t errlen);
/* Makes self a copy of text[0..len) named path, as if read from that file
 * (the fuzz target and tests parse in memory); -1 with a reason in err when
 * len is over SOURCE_MAX_BYTES. */
int source_from_text(Source *self, const char *path, const char *text, size_t len, char *err, size_t errlen);
/* Frees what source_load allocated. */
void source_free(Source *self);
/* 1-based line of a byte offset. */
uint32_t source_line(const Source *self, uint32_t offset);
/* 1-based byte column of a byte offset. */
uint32_t source_col(const Source *self, uint32_t offset);
/* The text of a 1-based line without its line break. */
const char *source_line_text(const Source *self, uint32_t line, size_t *len);

/* ===================================================================== */
/* Syntax tree                                                           */
/* ===================================================================== */

/* The tree-sitter-python node types tngc looks at; all others are NK_other. */
#define NODE_KINDS(X) \
    X(module) X(block) X(expression_statement) X(assignment) \
    X(augmented_assignment) X(call) X(attribute) X(identifier) \
    X(argument_list) X(keyword_argument) X(string) X(string_start) \
    X(string_content) X(string_end) X(escape_sequence) X(interpolation) \
    X(concatenated_string) X(integer) X(float) X(true) X(false) X(none) \
    X(tuple) X(list) X(dictionary) X(pair) X(set) \
    X(parenthesized_expression) X(conditional_expression) X(unary_operator) \
    X(with_statement) X(with_clause) X(with_item) X(as_pattern) \
    X(function_definition) X(class_definition) X(decorated_definition) \
    X(decorator) X(import_statement) X(import_from_statement) \
    X(aliased_import) X(dotted_name) X(relative_import) X(wildcard_import) \
    X(if_statement) X(elif_clause) X(else_clause) X(for_statement) \
    X(while_statement) X(try_statement) X(except_clause) X(finally_clause) \
    X(comment) X(lambda) X(return_statement) X(pattern_list) \
    X(expression_list) X(list_splat) X(dictionary_splat) X(parameters) \
    X(default_parameter) X(typed_default_parameter) X(global_statement) X(ERROR) \
    X(binary_operator) X(comparison_operator) X(boolean_operator) X(not_operator) \
    X(subscript) X(slice) X(list_comprehension) X(dictionary_comprehension) \
    X(generator_expression) X(set_comprehension) X(for_in_clause) X(if_clause) \
    X(pass_statement) X(break_statement) X(continue_statement) X(raise_statement) \
    X(assert_statement) X(delete_statement) X(typed_parameter) X(list_splat_pattern) \
    X(dictionary_splat_pattern) X(ellipsis) X(tuple_pattern) X(list_pattern) \
    X(named_expression) X(nonlocal_statement) X(yield) X(await) X(keyword_separator) \
    X(positional_separator) X(match_statement)

typedef enum NodeKind {
    NK_other,
#define X(k) NK_##k,
    NODE_KINDS(X)
#undef X
    NK__count
} NodeKind;

/* The grammar's field names tngc uses. */
#define NODE_FIELDS(X) \
    X(name) X(value) X(left) X(right) X(function) X(arguments) X(object) \
    X(attribute) X(body) X(alias) X(module_name) X(condition) \
    X(consequence) X(alternative) X(key) X(operator) X(argument) \
    X(parameters) X(definition) X(type) X(superclasses) X(subscript) X(operators)

typedef enum FieldId {
    F_none,
#define X(f) F_##f,
    NODE_FIELDS(X)
#undef X
    F__count
} FieldId;

enum {
    NODE_NAMED = 1,    /* a named node (not punctuation or a keyword) */
    NODE_ERROR = 2,    /* an ERROR node */
    NODE_MISSING = 4,  /* a token tree-sitter inserted to recover */
};

/* One syntax node; children form a linked list by index (-1 ends it). */
typedef struct Node {
    uint16_t kind;     /* NodeKind */
    uint16_t symbol;   /* tree-sitter symbol, for operator tokens */
    uint8_t field;     /* FieldId of this node in its parent */
    uint8_t flags;     /* NODE_* */
    uint32_t start;    /* byte offset */
    uint32_t end;      /* byte offset, exclusive */
    uint32_t line;     /* 1-based line of start */
    int32_t parent;
    int32_t first;     /* first child */
    int32_t next;      /* next sibling */
} Node;

typedef struct Ast {
    const Source *src;
    Node *nodes;       /* nodes[0] is the module */
    uint32_t n;
    int has_error;     /* any ERROR or MISSING node */
    const char *refused;  /* why the file was not parsed (one ERROR node), or NULL */
} Ast;

/* Parses src (in parallel chunks for large files); returns 0, or -1 if the
 * parser could not be created. Input too deep or too damaged to parse gives
 * a tree of one ERROR node and self->refused says why. */
int ast_parse(Ast *self, const Source *src);
/* Parses src in at most k chunks on k threads (ast_parse picks k). */
int ast_parse_chunks(Ast *self, const Source *src, int k);
void ast_free(Ast *self);
/* The first child of n with field f, or -1. */
int32_t ast_field(const Ast *self, int32_t n, FieldId f);
/* The i-th named child of n (0-based), or -1. */
int32_t ast_named_child(const Ast *self, int32_t n, int i);
/* The source bytes of n. */
const char *ast_text(const Ast *self, int32_t n, size_t *len);
/* 1-based byte column of n's start. */
uint32_t ast_col(const Ast *self, int32_t n);
/* True when n's text equals s. */
int ast_text_is(const Ast *self, int32_t n, const char *s);
/* True when the if_statement n is `if __name__ == "__main__":`, which a
 * script runs unconditionally. */
int ast_is_main_guard(const Ast *self, int32_t n);
/* Grammar name of n's symbol (for operator tokens such as "-"). */
const char *ast_symbol_name(const Ast *self, int32_t n);

/* ===================================================================== */
/* Values of arguments                                                   */
/* ===================================================================== */

typedef enum ValueKind {
    V_EXPR,    /* not a literal: reported as its source text */
    V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_TUPLE, V_LIST, V_DICT,
} ValueKind;

typedef struct Value Value;
struct Value {
    ValueKind kind;
    int32_t node;          /* where it was written */
    int64_t i;             /* V_BOOL, V_INT */
    double f;              /* V_FLOAT */
    const char *s;         /* V_STR (decoded), V_EXPR (source text) */
    size_t len;
    Value **items;         /* V_TUPLE, V_LIST; V_DICT: key, value, key, ... */
    size_t nitems;
    size_t size;           /* values in this tree, shared ones counted each time */
};

/* Structural equality of two literal values (V_EXPR is never equal). */
int value_equal(const Value *a, const Value *b);
/* Appends v as JSON. */
void value_json(const Value *v, StrBuf *out);

/* ===================================================================== */
/* Diagnostics                                                           */
/* ===================================================================== */

typedef enum Severity { SEV_NOTE, SEV_WARNING, SEV_ERROR } Severity;

typedef enum RuleId {
#define RULE(id, sev, name, summary) RULE_##id,
#include "rules.def"
#undef RULE
    RULE__count
} RuleId;

typedef struct RuleInfo {
    const char *id;        /* "TNG123" */
    Severity severity;
    const char *name;
    const char *summary;
} RuleInfo;

extern const RuleInfo rule_info[RULE__count];

typedef struct Diag {
    uint32_t line, col, end_line, end_col;  /* 1-based; end exclusive */
    RuleId rule;
    Severity severity;
    char *msg;             /* owned */
} Diag;

typedef VEC(Diag) DiagList;

/* Reports rule at node n of ast (severity from the rule table). */
void diag_node(DiagList *self, const Ast *ast, int32_t n, RuleId rule, const char *fmt, ...);
/* Reports rule at a 1-based line and column (a one-column span). */
void diag_at(DiagList *self, uint32_t line, uint32_t col, RuleId rule, const char *fmt, ...);
void diag_free(DiagList *self);

/* ===================================================================== */
/* Annotations                                                           */
/* ===================================================================== */

#define ANN_KINDS(X) \
    X(super_kernel) X(npu_stream_switch) X(npu_wait_tensor) \
    X(limit_core_num) X(set_dim_gears) X(mark_static) X(cache_compile) \
    X(compiler_config) X(config_option) X(get_npu_backend) X(torch_compile) \
    X(op_never_timeout)

typedef enum AnnKind {
#define X(k) ANN_##k,
    ANN_KINDS(X)
#undef X
    ANN__count
} AnnKind;

extern const char *const ann_kind_name[ANN__count];

/* Whether the function a callee names exists in the package it names. */
typedef enum ApiStatus {
    API_OK,            /* exists (or not a TorchAir name) */
    API_REMOVED,       /* torchair.ops.npu_stream_switch & co., moved to torchair.scope in March 2025 */
    API_NOT_EXPORTED,  /* torch.npu.npugraph_ex / npugraph_ex lack it (super_kernel, ...) */
} ApiStatus;

typedef struct Arg {
    const char *name;      /* parameter name, or "argN" past the signature */
    Value *value;
} Arg;

typedef struct Annotation {
    AnnKind kind;
    int resolved;          /* callee resolves to the TorchAir/torch name */
    int32_t node;          /* the call (or assignment, decorator) */
    int func;              /* index into ScanFile.funcs, -1 at module level */
    int cls;               /* in a class body (outside its defs): the class, else -1 */
    const char *callee;    /* canonical name, or the callee's source text */
    Arg *args;
    size_t nargs;
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

typedef struct ConfigField {
    const char *path;      /* "mode", "ge_config.enable_single_stream" */
    Value *value;
    int32_t node;          /* the assignment */
} ConfigField;

typedef struct Config {
    int32_t node;          /* the CompilerConfig() call */
    VEC(ConfigField) fields;
    /* The npugraph_ex package's own CompilerConfig (its fields are not
     * TorchAir's and are not recorded; its mode is always npugraph_ex, held
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
} Compile;

typedef struct Tensor {
    int32_t node;          /* where it was made */
    int rank;              /* -1 unknown */
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

/* Everything tngc knows of one file after scanning. */
typedef struct ScanFile {
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
} ScanFile;

/* Loads, parses and scans path. Returns 0, or -1 with a reason in err
 * (I/O errors only; syntax errors are diagnostics). */
int scanfile_load(ScanFile *self, const char *path, char *err, size_t errlen);
/* The same for the text[0..len) named path, read from memory (no file is
 * opened). */
int scanfile_load_text(ScanFile *self, const char *path, const char *text, size_t len, char *err,
                       size_t errlen);
void scanfile_free(ScanFile *self);
/* Writes the annotations of self as a JSON object {"path":...}. */
void scan_json(const ScanFile *self, StrBuf *out);
/* Writes one text line per annotation. */
void scan_text(const ScanFile *self, StrBuf *out);

/* ---- aliases (alias.c) ---- */

typedef struct AliasTable AliasTable;
/* Builds the file-wide table of import aliases of ast. */
AliasTable *alias_build(const Ast *ast, Arena *arena);
void alias_free(AliasTable *self);
/* Canonical dotted name of the expression at n (identifier or attribute
 * chain rooted at an imported name), or NULL. */
const char *alias_resolve(const AliasTable *self, const Ast *ast, int32_t n, Arena *arena);
/* The local name bound to a canonical module path, for tests. */
const char *alias_lookup(const AliasTable *self, const char *local);
/* True when the except_clause catches one of names (NUL-separated, ending
 * in an empty name), Exception, BaseException, or everything (bare). */
int alias_handler_catches(const Ast *ast, int32_t clause, const char *names);
/* The body (block) of a try_statement, or -1. */
int32_t alias_try_body(const Ast *ast, int32_t try_statement);
/* True when the import that binds local sits in a try whose handlers
 * catch ImportError (a fallback follows when the import fails). */
int alias_guarded(const AliasTable *self, const char *local);
/* Rewrites the names under which TorchAir and npugraph_ex are also
 * shipped (torch_npu.dynamo.torchair., torch_npu.npu.) to torchair.,
 * npugraph_ex., torch.npu.; returns path or buf. */
const char *alias_normalise(const char *path, char *buf, size_t cap);
/* Whether the canonical (normalised) path names a function its package
 * has; for API_REMOVED *replacement is the new name. */
ApiStatus alias_api_status(const char *path, const char **replacement);

/* ---- values (value.c) ---- */

typedef struct ConstTable ConstTable;
/* Module-level names assigned exactly once, to a literal. */
ConstTable *const_build(const Ast *ast, Arena *arena);
void const_free(ConstTable *self);
/* The literal value of expression n (constants substituted), else V_EXPR. */
Value *value_of(const Ast *ast, const ConstTable *consts, int32_t n, Arena *arena);

#endif
