/*
 * python.h - the Python side of the frontend: source files, the syntax
 * tree (tree-sitter-python), literal values of expressions, import aliases
 * and module-level constants.
 *
 * Every node carries a location: 1-based line, 1-based byte column.
 */
#ifndef TNGC_PYTHON_H
#define TNGC_PYTHON_H

#include "../../support/support.h"
#include "../../support/sink.h"

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

/* Reads path into self; on failure returns -1 after one error about path
 * in sink. */
int source_load(Source *self, const char *path, Sink *sink);
/* Makes self a copy of text[0..len) named path, as if read from that file
 * (the fuzz target and tests parse in memory); -1 after one error about
 * path in sink when len is over SOURCE_MAX_BYTES. */
int source_from_text(Source *self, const char *path, const char *text, size_t len, Sink *sink);
/* Frees what source_load allocated. */
void source_free(Source *self);
/* 1-based line of a byte offset. */
uint32_t source_line(const Source *self, uint32_t offset);
/* 1-based byte column of a byte offset. */
uint32_t source_col(const Source *self, uint32_t offset);
/* The text of a 1-based line without its line break. */
const char *source_line_text(const Source *self, uint32_t line, size_t *len);
/* Whether the identifier s[0..n) (UTF-8) is its own NFKC normal form by
 * what tngc knows: 0 when every character is ASCII or in a range of
 * letters whose NFKC form is themselves in any sequence (Latin-1, basic
 * Greek and Cyrillic, kana, CJK ideographs, Hangul syllables); else the
 * first other code point (0x110000 for bytes that are not UTF-8). CPython
 * reads identifiers in NFKC (PEP 3131), so only names made of those
 * characters compare byte for byte as Python compares them. */
uint32_t source_ident_unstable(const char *s, size_t n);

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
    int over_budget;   /* refused because parsing needs more memory than allowed */
    char why[240];     /* the text refused points to when it is not a constant */
} Ast;

/* Parses src (in parallel chunks for large files); returns 0, or -1 if the
 * parser could not be created. Input too deep or too damaged to parse gives
 * a tree of one ERROR node and self->refused says why. */
int ast_parse(Ast *self, const Source *src);
/* Parses src in at most k chunks on k threads (ast_parse picks k). */
int ast_parse_chunks(Ast *self, const Source *src, int k);
/* For tests: the CPU time each chunk's parse may use, in microseconds (0,
 * the default: 5 s + 2 us per byte of the file), and the most threads
 * ast_parse_chunks starts besides the calling thread (-1, the default: one
 * per chunk but the first); a chunk past them is parsed on the calling
 * thread, as when a thread cannot be created, within its own budget. */
void ast_set_parse_limits(uint64_t budget_us, int max_threads);
/* Bounds the memory the parser may hold (bytes; 0, the default: no bound),
 * with the option that sets it named in the refusal (e.g. "--max-memory").
 * A file larger than AST_MIN_BYTES_PER_BYTE times its bytes allow is
 * refused before it is parsed, and a parse that reaches the bound stops:
 * a tree of one ERROR node with over_budget set. Tree-sitter allocates
 * through tngc's counting allocator (installed by the first parse), whose
 * failure to get memory ends tngc with one message instead of tree-sitter's
 * exit() inside a parse thread. */
void ast_set_memory_limit(size_t bytes, const char *option);
/* The fewest bytes tree-sitter holds at once per byte of source: measured
 * 40 on plain code (a 2 MB model file), 77 on short assignments, 185 on a
 * long list literal; the whole run's peak RSS is 100 to 350 per byte. */
#define AST_MIN_BYTES_PER_BYTE 32u
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

/* Whether the function a callee names exists in the package it names. */
typedef enum ApiStatus {
    API_OK,            /* exists (or not a TorchAir name) */
    API_REMOVED,       /* torchair.ops.npu_stream_switch & co., moved to torchair.scope in March 2025 */
    API_NOT_EXPORTED,  /* torch.npu.npugraph_ex / npugraph_ex lack it (super_kernel, ...) */
} ApiStatus;

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
/* Who reads a row of the TorchAir tables (alias.c). */
enum {
    ALIAS_SCAN = 1,    /* lint's scanner and every reader of imports */
    ALIAS_LOWER = 2,   /* the lowering's evaluator */
};
/* TorchAir's entry points (and torch's, whose arguments TorchAir's rules read). */
typedef enum TorchairApi {
    TA_SUPER_KERNEL,       /* torchair.scope.super_kernel */
    TA_NPU_STREAM_SWITCH,  /* torchair.scope.npu_stream_switch */
    TA_NPU_WAIT_TENSOR,    /* torchair.scope.npu_wait_tensor */
    TA_LIMIT_CORE_NUM,     /* torchair.scope.limit_core_num */
    TA_OP_NEVER_TIMEOUT,   /* torchair.scope.op_never_timeout */
    TA_SET_DIM_GEARS,      /* torchair.inference.set_dim_gears */
    TA_MARK_STATIC,        /* torch._dynamo.mark_static */
    TA_CACHE_COMPILE,      /* torchair.inference.cache_compile */
    TA_COMPILER_CONFIG,    /* torchair.CompilerConfig */
    TA_GET_NPU_BACKEND,    /* torchair.get_npu_backend */
    TA_TORCH_COMPILE,      /* torch.compile */
    TA_NPU_PRINT,          /* torchair.ops.npu_print (lint only) */
    TA_OPS_WAIT,           /* torchair.ops.wait (lint only) */
    TA_CREATE_TAGGED_EVENT, /* torchair.ops.npu_create_tagged_event (lint only) */
    TA_TAGGED_OP,          /* torchair.ops.npu_tagged_event_record / _wait, npu_record_tagged_stream (lint only) */
    TA__COUNT
} TorchairApi;
/* The rewrite of the table of TorchAir's import paths that applies to
 * path for use (ALIAS_SCAN or ALIAS_LOWER): the replacement, with *len the
 * length of the prefix of path it replaces (all of path for a whole name);
 * NULL when none applies. */
const char *alias_rewrite(const char *path, unsigned use, size_t *len);
/* Rewrites the names under which TorchAir and npugraph_ex are also
 * shipped (torch_npu.dynamo.torchair., torch_npu.npu.) to torchair.,
 * npugraph_ex., torch.npu. (the ALIAS_SCAN rewrites); returns path or buf. */
const char *alias_normalise(const char *path, char *buf, size_t cap);
/* The TorchairApi a canonical callee path names for use, or -1. */
int alias_torchair_api(const char *path, unsigned use);
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
/* Decodes the escapes of a non-raw string literal's body s[0..n) into out
 * (UTF-8). Returns 0 for an escape that needs the Unicode database
 * (\N{...}) or is malformed. */
int value_unescape(const char *s, size_t n, StrBuf *out);

/* ===================================================================== */
/* Module names (modname.c)                                              */
/* ===================================================================== */

/* 1 when name is dotted ASCII identifiers, each a folder or file name that
 * cannot leave its folder (no separator, no "..", no NUL; at most 1000
 * bytes, 200 a component): the only names plan's imports and lint's
 * module scan look up on disk. */
int modname_valid(const char *name);
/* 1 when name's first component is a library module (torch, torch_npu,
 * torchair, the standard library, numpy...): never looked up on the
 * search path, by plan or by lint. */
int modname_is_library(const char *name);
/* A malloc'd copy of the folder dir[0..len) without trailing slashes ("/"
 * stays "/"), or NULL when len is 0. */
char *modname_dir(const char *dir, size_t len);
/* The search path after the script's folder, for plan and lint alike: each
 * of dirs (-I, in order), then each entry of TNGC_PATH (colon-separated;
 * empty entries are skipped, as "." would be a surprise), each through
 * modname_dir and handed to add(ctx, dir), which owns it. */
void modname_search_path(const char *const *dirs, size_t ndirs, void (*add)(void *ctx, char *dir),
                         void *ctx);

#endif
