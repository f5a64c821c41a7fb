/*
 * ast.c - parsing with tree-sitter-python and flattening the tree into an
 * array of Nodes linked by index, so that later passes navigate in O(1)
 * and never recurse over tree-sitter's structures.
 *
 * Large files are parsed in parallel: a linear pre-lexer finds top-level
 * statement boundaries (outside brackets, strings and continuations, not
 * before else/elif/except/finally or after a decorator), each chunk is
 * parsed and flattened on its own thread, and the chunks are stitched under
 * one module node. If any chunk has a syntax error the whole file is parsed
 * again in one piece, so diagnostics never depend on the split.
 */
#define _GNU_SOURCE   /* memmem */
#include "python.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tree_sitter/api.h>
#include <unistd.h>

const TSLanguage *tree_sitter_python(void);

/* Bracket nesting deeper than this is refused before parsing: CPython
 * itself refuses more than 200, and libtree-sitter 0.20.7 crashes freeing
 * the tree of 70k unclosed brackets (40k are fine). Up to this depth the
 * file is parsed, and the scanner reports what it cannot follow (TNG002). */
#define MAX_BRACKET_DEPTH 20000
/* The same crash follows 65,533 unfinished prefix operators (- - - ...,
 * not not ..., lambda: lambda: ..., a if b else a if b else ...): a logical
 * line with more of them than this is refused too. */
#define MAX_PREFIX_CHAIN 20000
/* Time the parser may spend, in CPU time of the thread that parses (a
 * busy machine does not shorten it; the wall-clock limit tree-sitter is
 * given, PARSE_WALL_FACTOR times more, is only a backstop). Real code
 * parses at ~4 MB/s (0.25 us/byte) and long literals at ~1.5 MB/s, well
 * inside this even under sanitizers; binary garbage, whose error recovery
 * costs ~6 s/MB, is refused before parsing (NUL bytes, invalid UTF-8), so
 * only pathological text reaches the limit. */
#define PARSE_BUDGET_US(bytes) (5000000ull + (uint64_t)(bytes) * 2u)
#define PARSE_WALL_FACTOR 8
/* How often the watchdog reads the parsing threads' CPU clocks. */
#define PARSE_WATCH_NS 10000000L

/* ast_set_parse_limits's: the budget of a chunk (0: PARSE_BUDGET_US) and
 * the most chunk threads (-1: no bound). */
static uint64_t ast__budget_us;
static int ast__max_threads = -1;

/* Files below this size are parsed on the calling thread. */
#define PARALLEL_MIN_BYTES (256u * 1024)
#define MAX_CHUNKS 8

/* ---- the parser's memory ---- */

/* What tree-sitter holds is counted by the size of each block as the C
 * library sees it (malloc_usable_size), taken and given back alike. */
static atomic_size_t ast__held;       /* bytes tree-sitter holds now */
static atomic_size_t ast__cancel;     /* nonzero: every parse stops (read by tree-sitter) */
static size_t ast__limit;             /* bytes; 0: no bound */
static const char *ast__limit_option = "";
static const char *volatile ast__parsing;   /* the file being parsed, for the message below */
static pthread_once_t ast__alloc_once = PTHREAD_ONCE_INIT;

void ast_set_memory_limit(size_t bytes, const char *option)
{
    ast__limit = bytes;
    ast__limit_option = option ? option : "";
}

void ast_set_parse_limits(uint64_t budget_us, int max_threads)
{
    ast__budget_us = budget_us;
    ast__max_threads = max_threads;
}

/* Out of memory inside tree-sitter, which cannot take a NULL: one message
 * (written without allocating) and exit status 2, from whichever thread. */
static _Noreturn void ast__out_of_memory(size_t n)
{
    char msg[512];
    size_t k = 0;
    const char *head = "tngc: ";
    while (*head)
        msg[k++] = *head++;
    for (const char *p = ast__parsing ? ast__parsing : "?"; *p && k < 300; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c == 0x7f) {
            msg[k++] = '\\', msg[k++] = 'x';
            msg[k++] = "0123456789abcdef"[c >> 4], msg[k++] = "0123456789abcdef"[c & 15];
        } else {
            msg[k++] = (char)c;
        }
    }
    int w = snprintf(msg + k, sizeof msg - k, ": out of memory while parsing (the parser held %zu MB and asked "
                     "for %zu bytes more)\n", atomic_load(&ast__held) >> 20, n);
    if (w > 0)
        k += (size_t)w < sizeof msg - k ? (size_t)w : sizeof msg - k - 1;
    ssize_t rc = write(2, msg, k);
    (void)rc;
    _exit(2);
}

/* Counts add bytes taken and sub given back; past the bound every parse
 * is cancelled (tree-sitter reads ast__cancel every few operations). */
static void ast__count(size_t add, size_t sub)
{
    atomic_fetch_add(&ast__held, add);
    size_t now = atomic_fetch_sub(&ast__held, sub) - sub;
    if (ast__limit && now > ast__limit)
        atomic_store(&ast__cancel, 1);
}

static void *ast__ts_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        ast__out_of_memory(n);
    ast__count(malloc_usable_size(p), 0);
    return p;
}

static void *ast__ts_calloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        ast__out_of_memory(size && count > SIZE_MAX / size ? SIZE_MAX : count * size);
    ast__count(malloc_usable_size(p), 0);
    return p;
}

static void *ast__ts_realloc(void *p, size_t n)
{
    size_t old = p ? malloc_usable_size(p) : 0;
    void *q = realloc(p, n ? n : 1);
    if (!q)
        ast__out_of_memory(n);
    ast__count(malloc_usable_size(q), old);
    return q;
}

static void ast__ts_free(void *p)
{
    if (!p)
        return;
    ast__count(0, malloc_usable_size(p));
    free(p);
}

/* Before any tree-sitter object exists (ts_set_allocator's condition). */
static void ast__alloc_init(void)
{
    ts_set_allocator(ast__ts_malloc, ast__ts_calloc, ast__ts_realloc, ast__ts_free);
}

/* ---- symbol and field tables ---- */

/* The punctuation a trailing-comma check follows (Tables.punct_of_symbol). */
enum { PUNCT_NONE, PUNCT_OPEN, PUNCT_CLOSE, PUNCT_COMMA };

typedef struct Tables {
    uint16_t *kind_of_symbol;   /* TSSymbol -> NodeKind */
    uint8_t *punct_of_symbol;   /* TSSymbol -> PUNCT_*, for anonymous tokens */
    uint8_t *field_of_id;       /* TSFieldId -> FieldId */
    uint32_t nsymbols, nfields;
    TSSymbol comma, semicolon;  /* the tokens ',' and ';' */
} Tables;

static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
static Tables tables;           /* immutable after tables__init */

static const char *const kind_names[NK__count] = {
    [NK_other] = "",
#define X(k) [NK_##k] = #k,
    NODE_KINDS(X)
#undef X
};

static const char *const field_names[F__count] = {
    [F_none] = "",
#define X(f) [F_##f] = #f,
    NODE_FIELDS(X)
#undef X
};

static void tables__init(void)
{
    const TSLanguage *lang = tree_sitter_python();
    tables.nsymbols = ts_language_symbol_count(lang);
    tables.kind_of_symbol = xcalloc(tables.nsymbols, sizeof *tables.kind_of_symbol);
    tables.punct_of_symbol = xcalloc(tables.nsymbols, 1);
    tables.comma = ts_language_symbol_for_name(lang, ",", 1, false);
    tables.semicolon = ts_language_symbol_for_name(lang, ";", 1, false);
    for (uint32_t s = 0; s < tables.nsymbols; s++) {
        if (ts_language_symbol_type(lang, (TSSymbol)s) == TSSymbolTypeAnonymous) {
            const char *name = ts_language_symbol_name(lang, (TSSymbol)s);
            tables.punct_of_symbol[s] = !strcmp(name, "(") || !strcmp(name, "[") || !strcmp(name, "{")   ? PUNCT_OPEN
                                        : !strcmp(name, ")") || !strcmp(name, "]") || !strcmp(name, "}") ? PUNCT_CLOSE
                                        : !strcmp(name, ",")                                            ? PUNCT_COMMA
                                                                                                         : PUNCT_NONE;
        }
        if (ts_language_symbol_type(lang, (TSSymbol)s) != TSSymbolTypeRegular)
            continue;
        const char *name = ts_language_symbol_name(lang, (TSSymbol)s);
        for (int k = 1; k < NK__count; k++)
            if (strcmp(name, kind_names[k]) == 0)
                tables.kind_of_symbol[s] = (uint16_t)k;
    }
    tables.nfields = ts_language_field_count(lang) + 1;
    tables.field_of_id = xcalloc(tables.nfields, 1);
    for (uint32_t f = 1; f < tables.nfields; f++) {
        const char *name = ts_language_field_name_for_id(lang, (TSFieldId)f);
        for (int k = 1; name && k < F__count; k++)
            if (strcmp(name, field_names[k]) == 0)
                tables.field_of_id[f] = (uint8_t)k;
    }
}

/* ---- flattening ---- */

/* Children beyond which a node's children get no field ids. */
#define WIDE_CHILDREN 64

/* The node kinds whose children's fields tngc reads (ast_field and
 * Node.field); asking the cursor for the others is wasted time. */
static int ast__kind_has_fields(uint16_t kind)
{
    switch ((NodeKind)kind) {
    case NK_call: case NK_attribute: case NK_assignment: case NK_augmented_assignment:
    case NK_keyword_argument: case NK_with_item: case NK_with_statement: case NK_pair:
    case NK_unary_operator: case NK_import_statement: case NK_import_from_statement:
    case NK_aliased_import: case NK_function_definition: case NK_class_definition:
    case NK_decorated_definition: case NK_if_statement: case NK_lambda: case NK_for_statement:
    case NK_default_parameter: case NK_typed_default_parameter:
    case NK_binary_operator: case NK_boolean_operator: case NK_not_operator:
    case NK_comparison_operator: case NK_subscript: case NK_for_in_clause:
    case NK_list_comprehension: case NK_dictionary_comprehension:
    case NK_generator_expression: case NK_set_comprehension: case NK_while_statement:
    case NK_named_expression: case NK_typed_parameter: case NK_elif_clause: case NK_else_clause:
    case NK_try_statement:
        return 1;
    default:
        return 0;
    }
}

typedef struct NodeArray {
    Node *v;
    uint32_t n, cap;
} NodeArray;

static int32_t nodes__push(NodeArray *a, Node nd)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 1024;
        a->v = xrealloc(a->v, (size_t)a->cap * sizeof *a->v);
    }
    a->v[a->n] = nd;
    return (int32_t)a->n++;
}

/* Appends the nodes of tree to out, offsetting bytes by base and lines by
 * line_base. Iterative: depth is bounded only by memory. */
static void ast__flatten(TSTree *tree, uint32_t base, uint32_t line_base, NodeArray *out)
{
    TSTreeCursor cur = ts_tree_cursor_new(ts_tree_root_node(tree));
    VEC(int32_t) last = {0};   /* last child linked so far, per depth */
    VEC(int32_t) stack = {0};  /* node index per depth */
    VEC(uint8_t) wide = {0};   /* per depth: the parent has too many children to ask for fields */
    for (;;) {
        TSNode tn = ts_tree_cursor_current_node(&cur);
        TSSymbol sym = ts_node_symbol(tn);
        Node nd = {0};
        nd.symbol = sym;
        if (sym == (TSSymbol)-1) {
            nd.kind = NK_ERROR;
            nd.flags |= NODE_ERROR;
        } else if (sym < tables.nsymbols) {
            nd.kind = tables.kind_of_symbol[sym];
        }
        if (ts_node_is_named(tn))
            nd.flags |= NODE_NAMED;
        if (ts_node_is_missing(tn))
            nd.flags |= NODE_MISSING;
        /* ts_tree_cursor_current_field_id costs O(siblings): asking under a
         * node of 1M children is quadratic. Only kinds whose fields tngc
         * reads are asked, and those are narrow, except imports. */
        if (!(wide.n && wide.v[wide.n - 1])) {
            TSFieldId fid = ts_tree_cursor_current_field_id(&cur);
            nd.field = fid < tables.nfields ? tables.field_of_id[fid] : 0;
        }
        nd.start = ts_node_start_byte(tn) + base;
        nd.end = ts_node_end_byte(tn) + base;
        nd.line = ts_node_start_point(tn).row + 1 + line_base;
        nd.first = nd.next = -1;
        nd.parent = stack.n ? stack.v[stack.n - 1] : -1;
        int32_t idx = nodes__push(out, nd);
        if (stack.n) {
            int32_t prev = last.v[stack.n - 1];
            if (prev < 0)
                out->v[stack.v[stack.n - 1]].first = idx;
            else
                out->v[prev].next = idx;
            last.v[stack.n - 1] = idx;
        }
        if (ts_tree_cursor_goto_first_child(&cur)) {
            VEC_PUSH(stack, idx);
            VEC_PUSH(last, -1);
            VEC_PUSH(wide, (uint8_t)(!ast__kind_has_fields(nd.kind) ||
                                     (ts_node_child_count(tn) > WIDE_CHILDREN && nd.kind != NK_import_statement &&
                                      nd.kind != NK_import_from_statement)));
            continue;
        }
        while (!ts_tree_cursor_goto_next_sibling(&cur)) {
            if (!ts_tree_cursor_goto_parent(&cur))
                goto done;
            stack.n--;
            last.n--;
            wide.n--;
        }
    }
done:
    ts_tree_cursor_delete(&cur);
    VEC_FREE(stack);
    VEC_FREE(last);
    VEC_FREE(wide);
}

/* ---- pre-lexer for chunk boundaries ---- */

static int ast__is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || (unsigned char)c >= 0x80;
}

/* True when the line at p begins with keyword kw as a whole word. */
static int ast__line_starts_with(const char *p, const char *end, const char *kw)
{
    size_t n = strlen(kw);
    return (size_t)(end - p) > n && memcmp(p, kw, n) == 0 && !ast__is_ident(p[n]);
}

/* A line start at which a new top-level statement may begin (a decorator
 * line may: the caller keeps it together with what it decorates). */
static int ast__can_split_at(const char *p, const char *end)
{
    char c = *p;
    if (c == ' ' || c == '\t' || c == '#' || c == '\n' || c == '\r' || c == '\f')
        return 0;
    return !ast__line_starts_with(p, end, "else") && !ast__line_starts_with(p, end, "elif") &&
           !ast__line_starts_with(p, end, "except") && !ast__line_starts_with(p, end, "finally");
}

/* The pre-lexer's state while ast__find_cuts walks the text. */
typedef struct CutLexer {
    const char *text, *end;
    uint32_t len, i;           /* i: the byte being looked at */
    int depth;                 /* open brackets */
    char quote;                /* open string quote, or 0 */
    int triple;
    int after_decorator;       /* the last top-level line was a decorator */
    int line_is_decorator;
    int operand;               /* the last token ends an operand (unary ops follow none) */
    /* chains of prefix operators, lambdas and else-branches: they nest until
     * a ',' ';' or closing bracket ends the expression (a lambda's
     * parameter list does not: lambda a, b: lambda a, b: ... still nests) */
    uint32_t prefix, lambdas, elses;
    int lambda_params;         /* between `lambda` and its ':' */
    uint32_t *cuts, *too_deep;
    int k, found;
} CutLexer;

/* Records the first place nested deeper than allowed (1 + its offset). */
static void ast__cut_too_deep(CutLexer *L, uint32_t at)
{
    if (!*L->too_deep)
        *L->too_deep = at + 1;
}

/* Inside a string: the byte at i escapes the next, closes the string, or
 * (a newline in a one-line string) ends it unterminated. */
static void ast__cut_in_string(CutLexer *L)
{
    char c = L->text[L->i];
    if (c == '\\') {
        L->i++;
    } else if (c == L->quote) {
        if (!L->triple)
            L->quote = 0;
        else if (L->i + 2 < L->len && L->text[L->i + 1] == L->quote && L->text[L->i + 2] == L->quote)
            L->quote = 0, L->i += 2;
    } else if (c == '\n' && !L->triple) {
        L->quote = 0;    /* unterminated: a syntax error, caught later */
    }
}

/* A word at i: a keyword that starts a chain, one that expects an
 * operand, a string prefix, or an operand; i moves to its last byte. */
static void ast__cut_word(CutLexer *L)
{
    const char *text = L->text;
    uint32_t i = L->i, j = i;
    while (j < L->len && ast__is_ident(text[j]))
        j++;
    if (j < L->len && (text[j] == '\'' || text[j] == '"') && j - i <= 3) {
        L->i = j - 1;     /* a string prefix (r, b, f, rb, ...): the quote opens it next */
        return;
    }
    size_t w = j - i;
#define WORD(s) (w == sizeof s - 1 && !memcmp(text + i, s, w))
    if (WORD("not") || WORD("await")) {
        L->prefix++;
        L->operand = 0;
    } else if (WORD("lambda")) {
        L->lambdas++;
        L->lambda_params = 1;
        L->operand = 0;
    } else if (WORD("else")) {
        L->elses++;
        L->operand = 0;
    } else if (WORD("if") || WORD("and") || WORD("or") || WORD("in") || WORD("is")) {
        L->operand = 0;
    } else {
        L->operand = 1;
        L->prefix = 0;
    }
#undef WORD
    if (L->prefix > MAX_PREFIX_CHAIN || L->lambdas > MAX_PREFIX_CHAIN || L->elses > MAX_PREFIX_CHAIN)
        ast__cut_too_deep(L, i);
    L->i = j - 1;
}

/* A newline outside brackets ends a logical line: a cut goes here when the
 * next chunk is due and the next line may start a top-level statement. */
static void ast__cut_line_end(CutLexer *L)
{
    const char *text = L->text;
    uint32_t i = L->i;
    if (L->depth || i + 1 >= L->len)
        return;
    L->prefix = L->lambdas = L->elses = 0;   /* a logical line ends */
    L->lambda_params = 0;
    if (text[i + 1] != ' ' && text[i + 1] != '\t' && text[i + 1] != '\n' &&
        text[i + 1] != '\r' && text[i + 1] != '#') {
        L->after_decorator = L->line_is_decorator;
        L->line_is_decorator = text[i + 1] == '@';
    }
    if (L->found < L->k && i + 1 >= (uint64_t)L->len * (uint64_t)L->found / (uint64_t)L->k &&
        !L->after_decorator && ast__can_split_at(text + i + 1, L->end))
        L->cuts[L->found++] = i + 1;
}

/* Any other byte at i: an operator, a bracket, a comment, a quote that
 * opens a string, a line continuation or a line end. */
static void ast__cut_punct(CutLexer *L, char c)
{
    const char *text = L->text;
    if (c == '-' || c == '+' || c == '~') {
        if (!L->operand && ++L->prefix > MAX_PREFIX_CHAIN)
            ast__cut_too_deep(L, L->i);
        L->operand = 0;
        return;
    }
    if (c != ' ' && c != '\t' && c != '\r' && c != '\\' && c != '#')
        L->operand = c == ')' || c == ']' || c == '}';
    if (c == ':')
        L->lambda_params = 0;
    if ((c == ',' && !L->lambda_params) || c == ';' || c == ')' || c == ']' || c == '}')
        L->prefix = L->lambdas = L->elses = 0;
    switch (c) {
    case '#':
        while (L->i + 1 < L->len && text[L->i + 1] != '\n')
            L->i++;
        break;
    case '\'': case '"':
        L->operand = 1;
        L->prefix = 0;
        L->quote = c;
        L->triple = L->i + 2 < L->len && text[L->i + 1] == c && text[L->i + 2] == c;
        if (L->triple)
            L->i += 2;
        break;
    case '(': case '[': case '{':
        if (++L->depth > MAX_BRACKET_DEPTH)
            ast__cut_too_deep(L, L->i);
        break;
    case ')': case ']': case '}': if (L->depth > 0) L->depth--; break;
    case '\\':
        if (L->i + 1 < L->len && text[L->i + 1] == '\n')
            L->i++;
        else if (L->i + 2 < L->len && text[L->i + 1] == '\r' && text[L->i + 2] == '\n')
            L->i += 2;
        break;
    case '\n':
        ast__cut_line_end(L);
        break;
    default:
        break;
    }
}

/* Fills cuts[1..k-1] with split offsets near len*i/k; returns the number of
 * chunks actually found (cuts[0] = 0, cuts[nchunks] = len). Sets *too_deep
 * to 1 + the offset of the first bracket nested deeper than allowed. */
static int ast__find_cuts(const char *text, uint32_t len, int k, uint32_t *cuts, uint32_t *too_deep)
{
    CutLexer L = {.text = text, .end = text + len, .len = len, .cuts = cuts, .too_deep = too_deep,
                  .k = k, .found = 1, .line_is_decorator = text[0] == '@'};
    cuts[0] = 0;
    for (L.i = 0; L.i < len; L.i++) {
        char c = text[L.i];
        if (L.quote)
            ast__cut_in_string(&L);
        else if (ast__is_ident(c))
            ast__cut_word(&L);
        else
            ast__cut_punct(&L, c);
    }
    cuts[L.found] = len;
    return L.found;
}

/* ---- parsing ---- */

typedef struct Chunk {
    const Source *src;
    uint64_t budget_us;   /* parser time limit */
    uint32_t start, end;
    NodeArray nodes;
    int has_error;
    int failed;
    uint32_t misread;     /* 1 + the offset of a trailing comma the parser could not be kept from misreading */
    atomic_int over_time; /* set by the watchdog: the CPU budget is spent */
} Chunk;

/* ---- trailing commas at the end of a line ----
 *
 * tree-sitter-python 0.23 reads a statement that ends in a comma outside
 * brackets (a one-element tuple as a statement: `x,` or `a.b, c[0],`)
 * together with the next line when that line is an assignment: `x,` then
 * `y = 1` becomes `x, y = 1`, with no error. Python ends the statement at
 * the line's end. Such commas are found in the flattened tree (a comma
 * outside brackets, followed by a logical end of line, inside a node that
 * goes on past it), the chunk is parsed again with each of them read as
 * ';' (same length, so every offset and line stays), and each ';' is then
 * put back as the ',' that ends its statement: exactly the tree of the
 * correct reading, `expression_statement(x, ',')`. */

#define MISREAD_PASSES 4     /* a pass fixes every comma it finds; nested misreadings need more */
#define MISREAD_MAX 4096     /* commas fixed per chunk; beyond, the file is refused */

typedef VEC(uint32_t) OffsetVec;

/* The offset of the end of line that ends the logical line after text[pos]
 * (spaces, a comment and backslash continuations may come first), or
 * UINT32_MAX when something else comes first. */
static uint32_t ast__line_end_after(const char *text, uint32_t pos, uint32_t end)
{
    uint32_t i = pos;
    for (;;) {
        while (i < end && (text[i] == ' ' || text[i] == '\t' || text[i] == '\f'))
            i++;
        if (i >= end)
            return UINT32_MAX;
        if (text[i] == '#') {
            while (i < end && text[i] != '\n' && text[i] != '\r')
                i++;
            return i < end ? i : UINT32_MAX;
        }
        if (text[i] == '\\' && i + 1 < end && text[i + 1] == '\n') {
            i += 2;
            continue;
        }
        if (text[i] == '\\' && i + 2 < end && text[i + 1] == '\r' && text[i + 2] == '\n') {
            i += 3;
            continue;
        }
        return text[i] == '\n' || text[i] == '\r' ? i : UINT32_MAX;
    }
}

/* Adds to out the offsets of the commas in nodes that the parser read
 * past the end of their logical line; returns how many it added. */
static size_t ast__find_misread_commas(const NodeArray *nodes, const char *text, uint32_t end,
                                       OffsetVec *out)
{
    size_t before = out->n;
    long depth = 0;   /* brackets open at the node, in source order (nodes are in preorder) */
    for (uint32_t i = 0; i < nodes->n; i++) {
        const Node *nd = &nodes->v[i];
        if (nd->kind != NK_other || nd->symbol >= tables.nsymbols)
            continue;
        switch (tables.punct_of_symbol[nd->symbol]) {
        case PUNCT_OPEN:
            depth++;
            break;
        case PUNCT_CLOSE:
            depth -= depth > 0;
            break;
        case PUNCT_COMMA:
            if (depth == 0 && nd->parent >= 0) {
                uint32_t nl = ast__line_end_after(text, nd->end, end);
                if (nl != UINT32_MAX && nodes->v[nd->parent].end > nl)
                    VEC_PUSH(*out, nd->start);
            }
            break;
        }
    }
    return out->n - before;
}

/* The child of parent whose subtree holds node i (i a descendant). */
static int32_t ast__child_holding(const NodeArray *nodes, int32_t parent, int32_t i)
{
    while (i >= 0 && nodes->v[i].parent != parent)
        i = nodes->v[i].parent;
    return i;
}

/* Turns the ';' token at offset off back into the ',' ending the
 * expression statement before it; 0, or -1 when the tree is not that. */
static int ast__restore_comma(NodeArray *nodes, uint32_t off)
{
    /* starts never decrease in preorder: the first node starting at off */
    uint32_t lo = 1, hi = nodes->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (nodes->v[mid].start < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    int32_t j = -1;
    for (uint32_t i = lo; i < nodes->n && nodes->v[i].start == off; i++)
        if (nodes->v[i].symbol == tables.semicolon && nodes->v[i].end == off + 1 && nodes->v[i].first < 0) {
            j = (int32_t)i;
            break;
        }
    if (j < 1)
        return -1;
    Node *semi = &nodes->v[j];
    int32_t stmt = ast__child_holding(nodes, semi->parent, j - 1);
    if (stmt < 0 || stmt == j || nodes->v[stmt].kind != NK_expression_statement || nodes->v[stmt].end != off ||
        nodes->v[stmt].next != j)
        return -1;
    int32_t last = ast__child_holding(nodes, stmt, j - 1);
    if (last < 0 || nodes->v[last].next >= 0)
        return -1;
    nodes->v[last].next = j;
    nodes->v[stmt].next = semi->next;
    nodes->v[stmt].end = off + 1;
    semi->parent = stmt;
    semi->next = -1;
    semi->symbol = tables.comma;
    semi->kind = tables.kind_of_symbol[tables.comma];
    semi->field = 0;
    return 0;
}

/* Parses text[0..len) of the chunk into ch->nodes: 0, or -1 (the parser
 * stopped or could not be made; ch->failed is set). */
static int ast__parse_text(Chunk *ch, TSParser *parser, const char *text)
{
    TSTree *tree = ts_parser_parse_string(parser, NULL, text, ch->end - ch->start);
    if (!tree) {
        ch->failed = 1;
        return -1;
    }
    free(ch->nodes.v);
    ch->nodes = (NodeArray){0};
    ch->has_error = ts_node_has_error(ts_tree_root_node(tree));
    ast__flatten(tree, ch->start, source_line(ch->src, ch->start) - 1, &ch->nodes);
    ts_tree_delete(tree);
    return 0;
}

/* Parses the chunk again with every misread trailing comma read as ';',
 * then restores the commas (see above). */
static void ast__fix_misread_commas(Chunk *ch, TSParser *parser)
{
    const char *text = ch->src->text;
    OffsetVec fixed = {0};
    char *copy = NULL;
    for (int pass = 0; pass < MISREAD_PASSES; pass++) {
        size_t found = ast__find_misread_commas(&ch->nodes, text, ch->end, &fixed);
        if (!found)
            break;
        if (fixed.n > MISREAD_MAX || pass == MISREAD_PASSES - 1) {
            ch->misread = fixed.v[fixed.n - found] + 1;
            goto out;
        }
        if (!copy) {
            copy = xmalloc(ch->end - ch->start + 1);
            memcpy(copy, text + ch->start, ch->end - ch->start);
        }
        for (size_t k = fixed.n - found; k < fixed.n; k++)
            copy[fixed.v[k] - ch->start] = ';';
        if (ast__parse_text(ch, parser, copy) != 0)
            goto out;
        /* the tree's own text is src's, so the next pass reads real commas */
    }
    for (size_t k = 0; k < fixed.n; k++)
        if (ast__restore_comma(&ch->nodes, fixed.v[k]) != 0) {
            ch->misread = fixed.v[k] + 1;
            break;
        }
out:
    free(copy);
    VEC_FREE(fixed);
}

static void *ast__parse_chunk(void *arg)
{
    Chunk *ch = arg;
    TSParser *parser = ts_parser_new();
    if (!parser || !ts_parser_set_language(parser, tree_sitter_python())) {
        ch->failed = 1;
        if (parser)
            ts_parser_delete(parser);
        return NULL;
    }
    ts_parser_set_timeout_micros(parser, ch->budget_us * PARSE_WALL_FACTOR);
    ts_parser_set_cancellation_flag(parser, (const size_t *)&ast__cancel);
    if (ast__parse_text(ch, parser, ch->src->text + ch->start) == 0)
        ast__fix_misread_commas(ch, parser);
    ts_parser_delete(parser);
    return NULL;
}

/* Stitches the chunks' module children under one module node. */
static void ast__merge(Ast *self, Chunk *chunks, int n)
{
    uint32_t total = 1;
    for (int c = 0; c < n; c++)
        total += chunks[c].nodes.n - 1;
    Node *out = xmalloc((size_t)total * sizeof *out);
    /* the module node as a whole parse makes it: the first chunk's root
     * (its symbol, and its start past a byte-order mark) to the last's end */
    out[0] = chunks[0].nodes.v[0];
    out[0].end = chunks[n - 1].nodes.v[0].end;
    out[0].parent = out[0].first = out[0].next = -1;
    uint32_t base = 1;
    int32_t prev_top = -1;
    for (int c = 0; c < n; c++) {
        Node *in = chunks[c].nodes.v;
        uint32_t cn = chunks[c].nodes.n;
#define MAP(i) ((i) < 0 ? -1 : (i) == 0 ? 0 : (int32_t)(base + (uint32_t)(i) - 1))
        for (uint32_t j = 1; j < cn; j++) {
            Node nd = in[j];
            nd.parent = MAP(nd.parent);
            nd.first = MAP(nd.first);
            nd.next = MAP(nd.next);
            out[base + j - 1] = nd;
        }
        for (int32_t t = in[0].first; t >= 0; t = in[t].next) {
            if (prev_top < 0)
                out[0].first = MAP(t);
            else
                out[prev_top].next = MAP(t);
            prev_top = MAP(t);
        }
#undef MAP
        base += cn - 1;
    }
    self->nodes = out;
    self->n = total;
}

/* 1 + the offset of the first byte that is not UTF-8, or 0. A PEP 263
 * coding line naming another encoding (latin-1, say) disables the check. */
static uint32_t ast__invalid_utf8(const Source *src)
{
    for (uint32_t line = 1; line <= 2 && line <= src->nlines; line++) {
        size_t len;
        const char *t = source_line_text(src, line, &len);
        size_t lead = 0;   /* PEP 263: a comment line, '#' first */
        while (lead < len && (t[lead] == ' ' || t[lead] == '\t' || t[lead] == '\f'))
            lead++;
        if (lead == len || t[lead] != '#')
            continue;
        const char *cookie = t + lead;
        for (const char *p = cookie; p + 7 <= t + len; p++)
            if (!memcmp(p, "coding", 6) && (p[6] == ':' || p[6] == '=')) {
                const char *e = p + 7;
                while (e < t + len && (*e == ' ' || *e == '\t'))
                    e++;
                if (strncmp(e, "utf-8", 5) && strncmp(e, "utf8", 4) && strncmp(e, "UTF-8", 5))
                    return 0;
            }
    }
    const unsigned char *p = (const unsigned char *)src->text;
    for (uint32_t i = 0; i < src->len;) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t n = utf8_valid_len(p + i, src->len - i);
        if (!n)
            return i + 1;
        i += (uint32_t)n;
    }
    return 0;
}

/* A tree of one module and one ERROR node at offset: the file is reported
 * as one syntax error (TNG001) with reason why, and nothing else is analysed. */
static int ast__refuse(Ast *self, uint32_t offset, const char *why)
{
    const Source *src = self->src;
    self->nodes = xmalloc(2 * sizeof *self->nodes);
    self->nodes[0] = (Node){.kind = NK_module, .flags = NODE_NAMED, .start = 0, .end = src->len,
                            .line = 1, .parent = -1, .first = 1, .next = -1};
    self->nodes[1] = (Node){.kind = NK_ERROR, .symbol = (uint16_t)-1, .flags = NODE_NAMED | NODE_ERROR,
                            .start = offset, .end = offset < src->len ? offset + 1 : offset,
                            .line = source_line(src, offset), .parent = 0, .first = -1, .next = -1};
    self->n = 2;
    self->has_error = 1;
    self->refused = why;
    return 0;
}

int ast_parse(Ast *self, const Source *src)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int k = ncpu > MAX_CHUNKS ? MAX_CHUNKS : ncpu < 1 ? 1 : (int)ncpu;
    return ast_parse_chunks(self, src, src->len < PARALLEL_MIN_BYTES ? 1 : k);
}

/* Refuses src for the memory bound: over_budget, and a reason naming the
 * bound and the option that sets it. */
static int ast__refuse_memory(Ast *self)
{
    snprintf(self->why, sizeof self->why,
             "parsing this file of %u MB needs more than the %zu MB of memory allowed%s%s%s",
             (unsigned)((self->src->len + (1u << 20) - 1) >> 20), ast__limit >> 20,
             *ast__limit_option ? " (raise the limit with " : "", ast__limit_option,
             *ast__limit_option ? " MB)" : "");
    ast__refuse(self, 0, self->why);
    self->over_budget = 1;
    return 0;
}

/* The CPU time clock has used, in microseconds (0 when it cannot be read). */
static uint64_t ast__cpu_us(clockid_t clock)
{
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Watches the threads parsing chunks: when one has used its chunk's budget
 * of CPU time, the chunk is marked over time and every parse cancelled.
 * Each chunk is timed on the clock of the thread that parses it, from
 * when it began there: a chunk whose thread could not be started is
 * parsed on the calling thread after chunk 0, within its own budget. */
typedef struct Watch {
    Chunk *chunks;
    int n;
    clockid_t clock[MAX_CHUNKS];   /* the clock of chunk c's thread (set before have[c]) */
    uint64_t base[MAX_CHUNKS];     /* its reading when chunk c began */
    atomic_int have[MAX_CHUNKS];   /* 1 while chunk c is timed */
    atomic_int done;
} Watch;

static void *ast__watch(void *arg)
{
    Watch *w = arg;
    while (!atomic_load(&w->done)) {
        struct timespec pause = {0, PARSE_WATCH_NS};
        nanosleep(&pause, NULL);
        for (int c = 0; c < w->n; c++)
            if (atomic_load(&w->have[c]) && ast__cpu_us(w->clock[c]) - w->base[c] > w->chunks[c].budget_us) {
                atomic_store(&w->chunks[c].over_time, 1);
                atomic_store(&ast__cancel, 1);
            }
    }
    return NULL;
}

/* Parses chunk c on the calling thread (whose clock is self, when
 * have_self), timed from now; returns the CPU time it took (0 unknown). */
static uint64_t ast__parse_here(Watch *w, int c, clockid_t self, int have_self)
{
    uint64_t t0 = have_self ? ast__cpu_us(self) : 0;
    if (have_self) {
        w->clock[c] = self;
        w->base[c] = t0;
        atomic_store(&w->have[c], 1);
    }
    ast__parse_chunk(&w->chunks[c]);
    atomic_store(&w->have[c], 0);
    return have_self ? ast__cpu_us(self) - t0 : 0;
}

/* Parses chunks[0..n) (chunk 0 on this thread, the others on threads of
 * their own, or here after chunk 0 where one cannot be started), each
 * within its budget of CPU time. Returns the CPU time this thread spent
 * on chunks other than chunk 0. */
static uint64_t ast__parse_all(Chunk *chunks, int n)
{
    pthread_t threads[MAX_CHUNKS], watcher;
    int started[MAX_CHUNKS] = {0};
    Watch w = {.chunks = chunks, .n = n};
    atomic_init(&w.done, 0);
    for (int c = 0; c < n; c++) {
        atomic_init(&chunks[c].over_time, 0);
        atomic_init(&w.have[c], 0);
    }
    for (int c = 1; c < n; c++) {
        started[c] = (ast__max_threads < 0 || c <= ast__max_threads) &&
                     pthread_create(&threads[c], NULL, ast__parse_chunk, &chunks[c]) == 0;
        /* a new thread's CPU clock starts at 0 */
        if (started[c] && pthread_getcpuclockid(threads[c], &w.clock[c]) == 0)
            atomic_store(&w.have[c], 1);
    }
    clockid_t self;
    int have_self = pthread_getcpuclockid(pthread_self(), &self) == 0;
    int watching = pthread_create(&watcher, NULL, ast__watch, &w) == 0;
    uint64_t others = 0;
    ast__parse_here(&w, 0, self, have_self);
    for (int c = 1; c < n; c++) {
        if (started[c])
            pthread_join(threads[c], NULL);
        else
            others += ast__parse_here(&w, c, self, have_self);
    }
    atomic_store(&w.done, 1);
    if (watching)
        pthread_join(watcher, NULL);
    return others;
}

int ast_parse_chunks(Ast *self, const Source *src, int k)
{
    pthread_once(&tables_once, tables__init);
    pthread_once(&ast__alloc_once, ast__alloc_init);
    memset(self, 0, sizeof *self);
    self->src = src;
    if (ast__limit && (uint64_t)src->len * AST_MIN_BYTES_PER_BYTE > ast__limit)
        return ast__refuse_memory(self);
    atomic_store(&ast__cancel, 0);
    ast__parsing = src->path;
    k = k < 1 ? 1 : k > MAX_CHUNKS ? MAX_CHUNKS : k;
    uint32_t cuts[MAX_CHUNKS + 1], too_deep = 0;
    int n = ast__find_cuts(src->text, src->len, k, cuts, &too_deep);
    if (too_deep)
        return ast__refuse(self, too_deep - 1, "nesting more than 20000 deep (brackets, unary operators, "
                                               "lambdas or conditional expressions; CPython allows ~200)");
    const char *nul = memchr(src->text, 0, src->len);
    if (nul)
        return ast__refuse(self, (uint32_t)(nul - src->text), "NUL byte in source (CPython refuses null bytes)");
    uint32_t bad = ast__invalid_utf8(src);
    if (bad)
        return ast__refuse(self, bad - 1, "invalid UTF-8, and the file declares no other encoding");
    if (n == 1)
        cuts[0] = 0, cuts[1] = src->len;
    Chunk chunks[MAX_CHUNKS];
    uint64_t budget = ast__budget_us ? ast__budget_us : PARSE_BUDGET_US(src->len);
    clockid_t self_clock;
    int have_clock = pthread_getcpuclockid(pthread_self(), &self_clock) == 0;
    uint64_t t0 = have_clock ? ast__cpu_us(self_clock) : 0;
    /* a UTF-8 byte-order mark, which Python skips */
    uint32_t bom = src->len >= 3 && !memcmp(src->text, "\xef\xbb\xbf", 3) ? 3 : 0;
    for (int c = 0; c < n; c++)
        chunks[c] = (Chunk){.src = src, .budget_us = budget, .start = cuts[c], .end = cuts[c + 1]};
    if (chunks[0].end >= bom)
        chunks[0].start = bom;
    uint64_t others = ast__parse_all(chunks, n);
    int failed = 0, has_error = 0, over_time = 0;
    uint32_t misread = 0;
    for (int c = 0; c < n; c++) {
        failed |= chunks[c].failed;
        has_error |= chunks[c].has_error;
        over_time |= atomic_load(&chunks[c].over_time);
        misread = misread ? misread : chunks[c].misread;
    }
    if (n > 1 && has_error && !failed) {
        /* Reparse whole: errors are reported exactly as a single parse would. */
        for (int c = 0; c < n; c++)
            free(chunks[c].nodes.v);
        /* what is left of one budget (this thread's CPU time so far, but
         * for the chunks it parsed in place of their threads): damaged
         * input is not given two */
        uint64_t spent = have_clock ? ast__cpu_us(self_clock) - t0 - others : 0;
        chunks[0] = (Chunk){.src = src, .budget_us = spent + 1000000 < budget ? budget - spent : 1000000,
                            .start = bom, .end = src->len};
        n = 1;
        ast__parse_all(chunks, 1);
        failed = chunks[0].failed;
        has_error = chunks[0].has_error;
        over_time = atomic_load(&chunks[0].over_time);
        misread = chunks[0].misread;
    }
    if (failed) {
        for (int c = 0; c < n; c++)
            free(chunks[c].nodes.v);
        if (atomic_load(&ast__cancel) && !over_time)
            return ast__refuse_memory(self);
        return ast__refuse(self, 0, "the parser gave up on this file (too damaged to analyse: is it Python?)");
    }
    if (misread) {
        for (int c = 0; c < n; c++)
            free(chunks[c].nodes.v);
        return ast__refuse(self, misread - 1,
                           "this line ends in a comma outside brackets: Python ends the statement here, but "
                           "tngc's Python grammar would read on into the next line (write a one-element tuple "
                           "in parentheses)");
    }
    self->has_error = has_error;
    if (n == 1) {
        self->nodes = chunks[0].nodes.v;
        self->n = chunks[0].nodes.n;
    } else {
        ast__merge(self, chunks, n);
        for (int c = 0; c < n; c++)
            free(chunks[c].nodes.v);
    }
    return 0;
}

void ast_free(Ast *self)
{
    free(self->nodes);
    memset(self, 0, sizeof *self);
}

/* ---- navigation ---- */

int32_t ast_field(const Ast *self, int32_t n, FieldId f)
{
    if (n < 0)
        return -1;
    for (int32_t c = self->nodes[n].first; c >= 0; c = self->nodes[c].next)
        if (self->nodes[c].field == f)
            return c;
    return -1;
}

int32_t ast_named_child(const Ast *self, int32_t n, int i)
{
    if (n < 0)
        return -1;
    for (int32_t c = self->nodes[n].first; c >= 0; c = self->nodes[c].next)
        if ((self->nodes[c].flags & NODE_NAMED) && self->nodes[c].kind != NK_comment && i-- == 0)
            return c;
    return -1;
}

const char *ast_text(const Ast *self, int32_t n, size_t *len)
{
    *len = self->nodes[n].end - self->nodes[n].start;
    return self->src->text + self->nodes[n].start;
}

int ast_text_is(const Ast *self, int32_t n, const char *s)
{
    size_t len;
    const char *t = ast_text(self, n, &len);
    return strlen(s) == len && memcmp(t, s, len) == 0;
}

uint32_t ast_col(const Ast *self, int32_t n)
{
    const Node *nd = &self->nodes[n];
    return nd->start - self->src->line_start[nd->line - 1] + 1;
}

int ast_is_main_guard(const Ast *self, int32_t n)
{
    int32_t cond = ast_named_child(self, n, 0);   /* the condition comes first */
    if (cond < 0)
        return 0;
    size_t len;
    const char *t = ast_text(self, cond, &len);
    return memmem(t, len, "__name__", 8) && memmem(t, len, "==", 2) && memmem(t, len, "__main__", 8);
}

const char *ast_symbol_name(const Ast *self, int32_t n)
{
    TSSymbol s = self->nodes[n].symbol;
    if (s == (TSSymbol)-1)
        return "ERROR";
    return ts_language_symbol_name(tree_sitter_python(), s);
}
