/*
 * test_frontend.c - unit tests of the frontend: source positions, the
 * chunked parse, the alias table, argument values and the scope tree.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../frontend/lint/scan.h"

/* Writes text to a fresh temporary file; returns its path (malloc'd). */
static char *write_temp(const char *text, size_t len)
{
    char *path = strdup("/tmp/tngc-unit-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

typedef struct Parsed {
    char *path;
    Source src;
    Ast ast;
    Arena arena;
} Parsed;

static void parse(Parsed *p, const char *text)
{
    Sink err = {0};   /* nothing is reported: it succeeds */
    memset(p, 0, sizeof *p);
    p->path = write_temp(text, strlen(text));
    assert_int_equal(source_load(&p->src, p->path, &err), 0);
    assert_int_equal(ast_parse(&p->ast, &p->src), 0);
}

static void parsed_free(Parsed *p)
{
    ast_free(&p->ast);
    source_free(&p->src);
    arena_free(&p->arena);
    unlink(p->path);
    free(p->path);
}

/* The first node of kind k whose text is text, or -1. */
static int32_t find(const Ast *ast, NodeKind k, const char *text)
{
    for (uint32_t i = 0; i < ast->n; i++)
        if (ast->nodes[i].kind == k && ast_text_is(ast, (int32_t)i, text))
            return (int32_t)i;
    return -1;
}

/* ---- source ---- */

static void test_source_positions(void **state)
{
    (void)state;
    Parsed p;
    parse(&p, "a = 1\r\n# \xe5\xa4\x9a\xe6\xb5\x81\nb = 'x'\n");
    assert_int_equal(p.src.nlines, 4);
    size_t len;
    const char *l1 = source_line_text(&p.src, 1, &len);
    assert_int_equal(len, 5);   /* the \r is not part of the line */
    assert_memory_equal(l1, "a = 1", 5);
    int32_t b = find(&p.ast, NK_identifier, "b");
    assert_true(b >= 0);
    assert_int_equal(p.ast.nodes[b].line, 3);
    assert_int_equal(ast_col(&p.ast, b), 1);
    int32_t s = find(&p.ast, NK_string, "'x'");
    assert_int_equal(ast_col(&p.ast, s), 5);
    assert_int_equal(source_line(&p.src, 0), 1);
    assert_int_equal(source_col(&p.src, p.src.line_start[2] + 2), 3);
    parsed_free(&p);
}

static void test_source_missing_file(void **state)
{
    (void)state;
    Source s;
    Sink sink;
    sink_init(&sink, NULL);
    assert_int_equal(source_load(&s, "/nonexistent/x.py", &sink), -1);
    assert_int_equal(sink.errors, 1);
    assert_string_equal(sink.msgs.v[0].file, "/nonexistent/x.py");
    assert_int_equal(source_load(&s, "/tmp", &sink), -1);
    assert_int_equal(sink.errors, 2);
    assert_string_equal(sink.msgs.v[1].msg, "is a directory");
    sink_free(&sink);
}

/* ---- chunked parse ---- */

static void test_chunked_parse_equals_single(void **state)
{
    (void)state;
    StrBuf sb = {0};
    for (int i = 0; i < 3000; i++)
        sb_printf(&sb,
                  "@decorator\nclass M%d(torch.nn.Module):\n    def forward(self, x):\n"
                  "        with tng.scope.npu_stream_switch('%d'):\n            return x + %d\n"
                  "if x:\n    pass\nelse:\n    y = '''a\nb'''\n# comment %d\n",
                  i, i, i, i);
    char *path = write_temp(sb.s, sb.len);
    Source src;
    Sink err = {0};   /* nothing is reported: it succeeds */
    assert_int_equal(source_load(&src, path, &err), 0);
    Ast one, four;
    assert_int_equal(ast_parse_chunks(&one, &src, 1), 0);
    assert_int_equal(ast_parse_chunks(&four, &src, 4), 0);
    assert_false(one.has_error);
    assert_int_equal(one.n, four.n);
    for (uint32_t i = 0; i < one.n; i++) {
        const Node *a = &one.nodes[i], *b = &four.nodes[i];
        assert_int_equal(a->kind, b->kind);
        assert_int_equal(a->start, b->start);
        assert_int_equal(a->end, b->end);
        assert_int_equal(a->line, b->line);
        assert_int_equal(a->parent, b->parent);
        assert_int_equal(a->next, b->next);
        if (i > 0 && a->parent != 0)   /* top-level nodes have no field either way */
            assert_int_equal(a->field, b->field);
    }
    ast_free(&one);
    ast_free(&four);
    source_free(&src);
    unlink(path);
    free(path);
    sb_free(&sb);
}

/* The CPU time the calling thread has used, in microseconds. */
static uint64_t thread_cpu_us(void)
{
    struct timespec ts;
    assert_int_equal(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts), 0);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* A chunk whose thread is not started (ast_set_parse_limits' bound of 0
 * threads, as when pthread_create fails) is parsed on the calling thread
 * within a budget of its own, not what is left of the first chunk's: two
 * chunks that parse in t each pass with a budget of 1.3 t each (timed on
 * one clock from the first chunk's start they would be stopped: the
 * tree-sitter parse, which a cancel stops, is more than 0.4 t of a
 * chunk's time), and a budget of t / 3 still stops them. */
static int parse_limits_reset(void **state)
{
    (void)state;
    ast_set_parse_limits(0, -1);
    return 0;
}

static void test_chunk_budget_on_calling_thread(void **state)
{
    (void)state;
    StrBuf one = {0}, two = {0};
    for (int i = 0; one.len < 400000; i++)
        sb_printf(&one, "def f%d(x, y=%d):\n    return [x * %d, y + x, {'k': (x, y)}]\n\n", i, i, i);
    sb_printf(&two, "%s%s", one.s, one.s);
    Source half, both;
    Sink err = {0};   /* nothing is reported: it succeeds */
    assert_int_equal(source_from_text(&half, "half.py", one.s, one.len, &err), 0);
    assert_int_equal(source_from_text(&both, "both.py", two.s, two.len, &err), 0);
    Ast a;
    uint64_t t = 0;
    for (int warm = 0; warm < 2; warm++) {   /* the second parse's time: the first warms up */
        uint64_t t0 = thread_cpu_us();
        assert_int_equal(ast_parse_chunks(&a, &half, 1), 0);
        t = thread_cpu_us() - t0;
        assert_null(a.refused);
        ast_free(&a);
    }

    ast_set_parse_limits(t * 8 / 5 + 10000, 0);   /* 1.6x: ASan timings vary by 30% */
    assert_int_equal(ast_parse_chunks(&a, &both, 2), 0);
    assert_null(a.refused);
    assert_false(a.has_error);
    assert_true(a.n > 1000);
    ast_free(&a);

    ast_set_parse_limits(t / 3 + 1, 0);
    assert_int_equal(ast_parse_chunks(&a, &both, 2), 0);
    assert_non_null(a.refused);
    ast_free(&a);
    source_free(&half);
    source_free(&both);
    sb_free(&one);
    sb_free(&two);
}

/* Every field of every node, the module node too (its symbol, and its
 * start past a byte-order mark), is the same whether the file is parsed in
 * one piece or in chunks (found by tests/fuzz). */
static void test_chunked_parse_module_node(void **state)
{
    (void)state;
    StrBuf sb = {0};
    sb_puts(&sb, "\xef\xbb\xbf");
    for (int i = 0; i < 200; i++)
        sb_printf(&sb, "def f%d(x):\r\n    return x * %d\r\n\r\n", i, i);
    Source src;
    Sink err = {0};   /* nothing is reported: it succeeds */
    assert_int_equal(source_from_text(&src, "bom.py", sb.s, sb.len, &err), 0);
    Ast one, four;
    assert_int_equal(ast_parse_chunks(&one, &src, 1), 0);
    assert_int_equal(ast_parse_chunks(&four, &src, 4), 0);
    assert_int_equal(one.n, four.n);
    assert_int_equal(one.nodes[0].start, 3);
    for (uint32_t i = 0; i < one.n; i++) {
        const Node *a = &one.nodes[i], *b = &four.nodes[i];
        assert_int_equal(a->kind, b->kind);
        assert_int_equal(a->symbol, b->symbol);
        assert_int_equal(a->field, b->field);
        assert_int_equal(a->flags, b->flags);
        assert_int_equal(a->start, b->start);
        assert_int_equal(a->end, b->end);
        assert_int_equal(a->line, b->line);
        assert_int_equal(a->parent, b->parent);
        assert_int_equal(a->first, b->first);
        assert_int_equal(a->next, b->next);
    }
    ast_free(&one);
    ast_free(&four);
    source_free(&src);
    sb_free(&sb);
}

/* Fails unless a and b are the same tree, node by node. */
static void assert_same_trees(const Ast *a, const Ast *b)
{
    assert_int_equal(a->n, b->n);
    for (uint32_t i = 0; i < a->n; i++) {
        const Node *x = &a->nodes[i], *y = &b->nodes[i];
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->symbol, y->symbol);
        assert_int_equal(x->start, y->start);
        assert_int_equal(x->end, y->end);
        assert_int_equal(x->parent, y->parent);
        assert_int_equal(x->first, y->first);
        assert_int_equal(x->next, y->next);
    }
}

/* A statement that is a tuple ending in a comma ends at the line's end, as
 * in Python, also when the next line assigns (tree-sitter-python reads
 * `x,` + `y = 1` as `x, y = 1` unless ast.c corrects it); whole and in
 * chunks alike. */
static void test_trailing_comma_ends_line(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int statements;   /* in the module, or in the first block */
        const char *first;   /* the text of the first statement */
    } cases[] = {
        {"a,\nb = 1\n", 2, "a,"},
        {"a,\n# comment\n\nb = 1\n", 2, "a,"},
        {"a.b, c[0],  # comment\nd = 1\n", 2, "a.b, c[0],"},
        {"*a,\nb += 1\n", 2, "*a,"},
        {"a,\nb, c = 1, 2\n", 2, "a,"},
        {"if x:\n    a,\n    b = 1\n", 2, "a,"},
        {"a,\nb\n", 2, "a,"},
        {"x = [a for a,\n     b in c]\n", 1, "x = [a for a,\n     b in c]"},
        {"a, \\\n  b = 1\n", 1, "a, \\\n  b = 1"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Source src;
        Sink err = {0};   /* nothing is reported: it succeeds */
        StrBuf sb = {0};
        /* enough top-level statements around it that the chunked parse cuts */
        sb_puts(&sb, "import torch\nimport os\n");
        size_t at = sb.len;
        sb_puts(&sb, cases[c].text);
        sb_puts(&sb, "z = 2\nw = 3\n");
        assert_int_equal(source_from_text(&src, "comma.py", sb.s, sb.len, &err), 0);
        Ast one;
        assert_int_equal(ast_parse_chunks(&one, &src, 1), 0);
        assert_false(one.has_error);
        assert_null(one.refused);
        /* the first statement of the case, and the node it is a child of */
        int32_t first = -1, parent = 0;
        for (uint32_t i = 1; i < one.n && first < 0; i++)
            if (one.nodes[i].start == at && one.nodes[i].parent == 0)
                first = (int32_t)i;
        if (first >= 0 && one.nodes[first].kind == NK_if_statement) {
            parent = ast_field(&one, first, F_consequence);
            first = one.nodes[parent].first;
        }
        assert_true(first >= 0);
        assert_int_equal(one.nodes[first].parent, parent);
        size_t len;
        const char *t = ast_text(&one, first, &len);
        assert_int_equal(len, strlen(cases[c].first));
        assert_memory_equal(t, cases[c].first, len);
        int n = 0;
        for (int32_t s = first; s >= 0 && n < 100; s = one.nodes[s].next)
            n += one.nodes[s].kind != NK_comment && (one.nodes[s].flags & NODE_NAMED) &&
                 (parent != 0 || one.nodes[s].start < at + strlen(cases[c].text));
        assert_int_equal(n, cases[c].statements);
        for (int k = 2; k <= 4; k++) {
            Ast many;
            assert_int_equal(ast_parse_chunks(&many, &src, k), 0);
            assert_same_trees(&one, &many);
            ast_free(&many);
        }
        ast_free(&one);
        source_free(&src);
        sb_free(&sb);
    }
}

/* A comma the correction cannot make a statement's end (not Python
 * either: `lambda a,` then `b: 0`) refuses the file at the comma. */
static void test_trailing_comma_refused(void **state)
{
    (void)state;
    static const char text[] = "import torch\nf = lambda a,\n b: 0\n";
    Source src;
    Sink err = {0};   /* nothing is reported: it succeeds */
    assert_int_equal(source_from_text(&src, "lambda.py", text, strlen(text), &err), 0);
    Ast ast;
    assert_int_equal(ast_parse_chunks(&ast, &src, 1), 0);
    assert_non_null(ast.refused);
    assert_non_null(strstr(ast.refused, "ends in a comma"));
    assert_int_equal(ast.nodes[1].start, (uint32_t)(strchr(text, ',') - text));
    ast_free(&ast);
    source_free(&src);
}

/* ---- aliases ---- */

static const char alias_src[] =
    "import torchair as tng\n"
    "import torch._dynamo\n"
    "from torchair.scope import npu_stream_switch as sw\n"
    "from . import local\n"
    "try:\n"
    "    from torchair.ops import npu_wait_tensor\n"
    "except ImportError:\n"
    "    def npu_wait_tensor(a, b):\n"
    "        return a\n"
    "def f():\n"
    "    from torchair.inference import set_dim_gears\n"
    "from torchair.scope import super_kernel\n"
    "def super_kernel(name):\n"
    "    return None\n"
    "tng.scope.super_kernel('a')\n"
    "sw('1')\n"
    "torch._dynamo.mark_static(x)\n"
    "other.scope.super_kernel('b')\n";

static void test_alias_table(void **state)
{
    (void)state;
    Parsed p;
    parse(&p, alias_src);
    AliasTable *t = alias_build(&p.ast, &p.arena);
    assert_string_equal(alias_lookup(t, "tng"), "torchair");
    assert_string_equal(alias_lookup(t, "torch"), "torch");
    assert_string_equal(alias_lookup(t, "sw"), "torchair.scope.npu_stream_switch");
    assert_string_equal(alias_lookup(t, "set_dim_gears"), "torchair.inference.set_dim_gears");
    /* the except-clause fallback def does not shadow the import */
    assert_string_equal(alias_lookup(t, "npu_wait_tensor"), "torchair.ops.npu_wait_tensor");
    /* a module-level def of the same name does */
    assert_null(alias_lookup(t, "super_kernel"));
    assert_null(alias_lookup(t, "local"));   /* relative imports are the project's own */
    int32_t calls[4];
    int nc = 0;
    for (uint32_t i = 0; i < p.ast.n && nc < 4; i++)
        if (p.ast.nodes[i].kind == NK_call && p.ast.nodes[i].parent >= 0 &&
            p.ast.nodes[p.ast.nodes[i].parent].kind == NK_expression_statement)
            calls[nc++] = ast_field(&p.ast, (int32_t)i, F_function);
    assert_int_equal(nc, 4);
    assert_string_equal(alias_resolve(t, &p.ast, calls[0], &p.arena), "torchair.scope.super_kernel");
    assert_string_equal(alias_resolve(t, &p.ast, calls[1], &p.arena), "torchair.scope.npu_stream_switch");
    assert_string_equal(alias_resolve(t, &p.ast, calls[2], &p.arena), "torch._dynamo.mark_static");
    assert_null(alias_resolve(t, &p.ast, calls[3], &p.arena));
    alias_free(t);
    parsed_free(&p);
}

/* The one table of TorchAir's names: each reader sees its own rows. */
static void test_torchair_names(void **state)
{
    (void)state;
    char buf[256];
    size_t n;
    /* imports: torch_npu ships TorchAir and installs torch.npu */
    assert_string_equal(alias_normalise("torch_npu.dynamo.torchair.scope.super_kernel", buf, sizeof buf),
                        "torchair.scope.super_kernel");
    assert_string_equal(alias_normalise("torch_npu.npu.npugraph_ex.inference.cache_compile", buf, sizeof buf),
                        "torch.npu.npugraph_ex.inference.cache_compile");
    assert_string_equal(alias_normalise("torchair.ops.npu_wait_tensor", buf, sizeof buf),
                        "torchair.ops.npu_wait_tensor");
    /* the lowering folds the npugraph_ex flavour and the moved names into TorchAir's own */
    assert_string_equal(alias_rewrite("torch.npu.npugraph_ex.inference.cache_compile", ALIAS_LOWER, &n),
                        "torchair.");
    assert_int_equal(n, strlen("torch.npu.npugraph_ex."));
    assert_string_equal(alias_rewrite("torchair.scope.NpuStreamSwitch", ALIAS_LOWER, &n),
                        "torchair.scope.npu_stream_switch");
    assert_int_equal(n, strlen("torchair.scope.NpuStreamSwitch"));
    assert_null(alias_rewrite("torchair.scope.NpuStreamSwitchX", ALIAS_LOWER, &n));
    assert_null(alias_rewrite("torch.npu.npugraph_ex.scope.super_kernel", ALIAS_SCAN, &n));
    /* entry points */
    assert_int_equal(alias_torchair_api("torchair.inference.cache_compile", ALIAS_SCAN), TA_CACHE_COMPILE);
    assert_int_equal(alias_torchair_api("torchair.inference.cache_compile", ALIAS_LOWER), TA_CACHE_COMPILE);
    assert_int_equal(alias_torchair_api("npugraph_ex.CompilerConfig", ALIAS_SCAN), TA_COMPILER_CONFIG);
    assert_int_equal(alias_torchair_api("npugraph_ex.CompilerConfig", ALIAS_LOWER), -1);
    assert_int_equal(alias_torchair_api("torchair.npu_fx_compiler.get_npu_backend", ALIAS_LOWER),
                     TA_GET_NPU_BACKEND);
    assert_int_equal(alias_torchair_api("torchair.npu_fx_compiler.get_npu_backend", ALIAS_SCAN), -1);
    assert_int_equal(alias_torchair_api("torch.compile", ALIAS_LOWER), TA_TORCH_COMPILE);
    assert_int_equal(alias_torchair_api("torch.compiler", ALIAS_LOWER), -1);
}

/* ---- values ---- */

static Value *value_at(Parsed *p, ConstTable *consts, const char *name)
{
    for (uint32_t i = 0; i < p->ast.n; i++)
        if (p->ast.nodes[i].kind == NK_keyword_argument) {
            int32_t k = ast_field(&p->ast, (int32_t)i, F_name);
            if (ast_text_is(&p->ast, k, name))
                return value_of(&p->ast, consts, ast_field(&p->ast, (int32_t)i, F_value), &p->arena);
        }
    fail_msg("no argument %s", name);
    return NULL;
}

static void test_values(void **state)
{
    (void)state;
    Parsed p;
    parse(&p,
          "TAG = 'one'\nTWICE = 1\nTWICE = 2\nGEARS = {0: [2, 4]}\n"
          "f(a=0x1F, b=-1_000, c=2.5e3, d='a\\tb\\x41\\u00e9', e=r'\\n', g=f'{x}', h='a' 'b',\n"
          "  i=(1, [2, None], {'k': True}), j=TAG, k=TWICE, l=GEARS, m=x + 1, n=b'x', o=99999999999999999999)\n");
    ConstTable *c = const_build(&p.ast, &p.arena);
    Value *v = value_at(&p, c, "a");
    assert_int_equal(v->kind, V_INT);
    assert_int_equal(v->i, 31);
    v = value_at(&p, c, "b");
    assert_int_equal(v->kind, V_INT);
    assert_int_equal(v->i, -1000);
    v = value_at(&p, c, "c");
    assert_int_equal(v->kind, V_FLOAT);
    assert_true(v->f == 2500.0);
    v = value_at(&p, c, "d");
    assert_int_equal(v->kind, V_STR);
    assert_int_equal(v->len, 6);
    assert_memory_equal(v->s, "a\tbA\xc3\xa9", 6);
    v = value_at(&p, c, "e");
    assert_int_equal(v->kind, V_STR);
    assert_string_equal(v->s, "\\n");
    assert_int_equal(value_at(&p, c, "g")->kind, V_EXPR);
    v = value_at(&p, c, "h");
    assert_int_equal(v->kind, V_STR);
    assert_string_equal(v->s, "ab");
    v = value_at(&p, c, "i");
    assert_int_equal(v->kind, V_TUPLE);
    assert_int_equal(v->nitems, 3);
    assert_int_equal(v->items[1]->kind, V_LIST);
    assert_int_equal(v->items[1]->items[1]->kind, V_NONE);
    assert_int_equal(v->items[2]->kind, V_DICT);
    assert_int_equal(v->items[2]->items[1]->kind, V_BOOL);
    v = value_at(&p, c, "j");   /* a module constant, located at its use */
    assert_int_equal(v->kind, V_STR);
    assert_string_equal(v->s, "one");
    assert_true(ast_text_is(&p.ast, v->node, "TAG"));
    assert_int_equal(value_at(&p, c, "k")->kind, V_EXPR);   /* assigned twice */
    Value *gears = value_at(&p, c, "l");
    assert_int_equal(gears->kind, V_DICT);
    v = value_at(&p, c, "m");
    assert_int_equal(v->kind, V_EXPR);
    assert_string_equal(v->s, "x + 1");
    assert_int_equal(value_at(&p, c, "n")->kind, V_EXPR);   /* bytes */
    assert_int_equal(value_at(&p, c, "o")->kind, V_EXPR);   /* beyond int64 */
    /* equality and JSON */
    assert_true(value_equal(gears, value_at(&p, c, "l")));
    assert_false(value_equal(gears, value_at(&p, c, "i")));
    StrBuf sb = {0};
    value_json(value_at(&p, c, "i"), &sb);
    assert_string_equal(sb.s, "[1,[2,null],{\"k\":true}]");
    sb_free(&sb);
    const_free(c);
    parsed_free(&p);
}

/* ---- scopes ---- */

static const Annotation *ann_on_line(const ScanFile *sf, AnnKind k, uint32_t line)
{
    for (size_t i = 0; i < sf->anns.n; i++)
        if (sf->anns.v[i].kind == k && sf->ast.nodes[sf->anns.v[i].node].line == line)
            return &sf->anns.v[i];
    fail_msg("no %s on line %u", ann_kind_name[k], line);
    return NULL;
}

static void test_scope_tree(void **state)
{
    (void)state;
    const char *text =
        "import torchair as tng\n"                                                   /* 1 */
        "from contextlib import nullcontext\n"                                       /* 2 */
        "class M:\n"                                                                 /* 3 */
        "    def forward(self, x, flag):\n"                                          /* 4 */
        "        with tng.scope.super_kernel('sk'):\n"                               /* 5 */
        "            with tng.scope.npu_stream_switch('1'), tng.scope.limit_core_num(1, 2):\n" /* 6 */
        "                tng.scope.npu_wait_tensor(x, x)\n"                          /* 7 */
        "                def inner():\n"                                             /* 8 */
        "                    tng.scope.npu_wait_tensor(x, x)\n"                      /* 9 */
        "        ctx = tng.scope.npu_stream_switch('2') if flag else nullcontext()\n" /* 10 */
        "        with ctx:\n"                                                        /* 11 */
        "            tng.scope.npu_wait_tensor(x, x)\n"                              /* 12 */
        "def npu_stream_switch(tag):\n"                                              /* 13 */
        "    return None\n"                                                          /* 14 */
        "with npu_stream_switch('3'):\n"                                             /* 15 */
        "    tng.scope.npu_wait_tensor(x, x)\n";                                     /* 16 */
    char *path = write_temp(text, strlen(text));
    ScanFile sf;
    Sink err = {0};   /* nothing is reported: it succeeds */
    assert_int_equal(scanfile_load(&sf, path, &err), 0);
    const Annotation *a = ann_on_line(&sf, ANN_npu_wait_tensor, 7);
    assert_int_equal(a->nscopes, 3);
    assert_int_equal(sf.anns.v[a->scopes[0]].kind, ANN_super_kernel);
    assert_int_equal(sf.anns.v[a->scopes[1]].kind, ANN_npu_stream_switch);
    assert_int_equal(sf.anns.v[a->scopes[2]].kind, ANN_limit_core_num);
    assert_string_equal(sf.funcs.v[a->func].qualname, "M.forward");
    a = ann_on_line(&sf, ANN_npu_wait_tensor, 9);   /* a def does not inherit scopes */
    assert_int_equal(a->nscopes, 0);
    assert_string_equal(sf.funcs.v[a->func].qualname, "M.forward.inner");
    a = ann_on_line(&sf, ANN_npu_wait_tensor, 12);   /* held in a variable, conditional */
    assert_int_equal(a->nscopes, 1);
    assert_int_equal(sf.anns.v[a->scopes[0]].kind, ANN_npu_stream_switch);
    assert_int_equal(a->scope_cond[0], 1);
    a = ann_on_line(&sf, ANN_npu_stream_switch, 15);   /* the project's own wrapper */
    assert_false(a->resolved);
    a = ann_on_line(&sf, ANN_npu_wait_tensor, 16);
    assert_int_equal(a->nscopes, 0);
    assert_int_equal(a->func, -1);
    scanfile_free(&sf);
    unlink(path);
    free(path);
}

/* The rule of TNG153 and TNG161 (support.c path_escapes): a ".." component or a NUL. */
static void test_path_escapes(void **state)
{
    (void)state;
    static const char *const bad[] = {"..", "../x", "a/..", "a/../b", "/data/../etc", "a//../b"};
    static const char *const good[] = {"", ".", "a", "..a", "a..", "a/..b/c", "...", "a/.../b", "/abs/x", ".tngc_cache"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_true(path_escapes(bad[i], strlen(bad[i])));
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        assert_false(path_escapes(good[i], strlen(good[i])));
    assert_true(path_escapes("a\0b", 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_positions),
        cmocka_unit_test(test_source_missing_file),
        cmocka_unit_test(test_chunked_parse_equals_single),
        cmocka_unit_test(test_chunked_parse_module_node),
        cmocka_unit_test_teardown(test_chunk_budget_on_calling_thread, parse_limits_reset),
        cmocka_unit_test(test_trailing_comma_ends_line),
        cmocka_unit_test(test_trailing_comma_refused),
        cmocka_unit_test(test_alias_table),
        cmocka_unit_test(test_torchair_names),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_scope_tree),
        cmocka_unit_test(test_path_escapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
