/*
 * test_fuse.c - unit tests of pointwise fusion on the CPU target
 * (codegen/fuse.c): graphs built with graph_add_op, planned, emitted with
 * emit_cpu; the trace names of the stream function say which ops each
 * fused group holds ("fused mul %2 + add %3 (line 11)").
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../codegen/codegen.h"
#include "../../codegen/emit.h"

/* A graph, its plan and the generated <name>.c. */
typedef struct F {
    Graph g;
    Plan p;
    DiagList diags;
    GenFiles files;
    uint32_t line;
} F;

static void f_init(F *f)
{
    memset(f, 0, sizeof *f);
    graph_init(&f->g, "Model.forward", "model.py");
    f->line = 10;
}

/* A float32 input of static dims. */
static int32_t f_input(F *f, const char *name, int ndim, const int64_t *dims)
{
    DimId d[GRAPH_MAX_DIMS];
    for (int i = 0; i < ndim; i++)
        d[i] = graph_dim_const(&f->g, dims[i]);
    return graph_add_input(&f->g, name, DT_F32, FMT_ND, ndim, d, dims, 0, 1, 1);
}

/* Adds the op d describes on the next line; returns its output value. */
static int32_t f_add(F *f, OpDesc *d)
{
    d->sk = -1;
    d->line = f->line++;
    d->col = 5;
    int32_t op = graph_add_op(&f->g, d);
    if (op < 0)
        fail_msg("%s", f->g.error.s);
    return f->g.ops.v[op].out;
}

/* Op kind on a (and b when >= 0), alpha 1; returns its output value. */
static int32_t f_op(F *f, OpKind kind, int32_t a, int32_t b)
{
    int32_t in[2] = {a, b};
    OpDesc d = {0};
    d.kind = kind;
    d.in = in;
    d.nin = b >= 0 ? 2 : 1;
    d.fattr[1] = 1.0;
    return f_add(f, &d);
}

/* Unary op kind on a with fattr f0, f1 and attr[0] = a0 (no attribute
 * when a0 < 0); its output. */
static int32_t f_unary(F *f, OpKind kind, int32_t a, double f0, double f1, int64_t a0)
{
    OpDesc d = {0};
    d.kind = kind;
    d.in = &a;
    d.nin = 1;
    d.attr = &a0;
    d.nattr = a0 >= 0;
    d.fattr[0] = f0;
    d.fattr[1] = f1;
    return f_add(f, &d);
}

static void f_output(F *f, int32_t v)
{
    GraphOutput o = {arena_printf(&f->g.arena, "out%zu", f->g.outputs.n), v};
    VEC_PUSH(f->g.outputs, o);
}

/* Plans and emits (no_fuse as given); returns the text of model.c. */
static const char *f_gen(F *f, int no_fuse)
{
    PlanOptions po = {codegen_op_type, codegen_dtype_name, 0, 0};
    assert_int_equal(plan_build_with(&f->p, &f->g, &po, &f->diags), 0);
    GenOptions go = {.name = "model", .script = "model.py", .version = "test",
                     .line_directives = 0, .no_fuse = no_fuse};
    assert_int_equal(emit_cpu(&f->p, &go, &f->files, &f->diags), 0);
    for (size_t i = 0; i < f->files.n; i++)
        if (!strcmp(f->files.v[i].name, "model.c"))
            return f->files.v[i].text.s;
    fail_msg("no model.c");
    return NULL;
}

static void f_free(F *f)
{
    genfiles_free(&f->files);
    plan_free(&f->p);
    diag_free(&f->diags);
    graph_free(&f->g);
}

/* The number of trace slices named "fused ..." in c. */
static int fused_slices(const char *c)
{
    int n = 0;
    for (const char *at = c; (at = strstr(at, "TNGC_UNIT_END(0, \"fused ")); at++)
        n++;
    return n;
}

/* A chain of 6 elementwise ops with a broadcast operand is one group. */
static void test_chain_one_group(void **state)
{
    (void)state;
    F f;
    f_init(&f);
    int64_t xd[2] = {4, 8}, wd[1] = {8};
    int32_t x = f_input(&f, "x", 2, xd), w = f_input(&f, "w", 1, wd);
    int32_t a = f_op(&f, OP_MUL, x, w);          /* %2 */
    int32_t b = f_op(&f, OP_ADD, a, x);          /* %3 */
    int32_t c = f_op(&f, OP_SILU, b, -1);
    int32_t d = f_op(&f, OP_EXP, c, -1);
    int32_t e = f_op(&f, OP_SUB, d, b);
    int32_t g = f_op(&f, OP_NEG, e, -1);
    f_output(&f, g);
    const char *src = f_gen(&f, 0);
    assert_int_equal(fused_slices(src), 1);
    assert_non_null(strstr(src, "\"fused mul %2 + add %3 + silu %4 + exp %5 + sub %6 + neg %7 (line 15)\""));
    assert_non_null(strstr(src, "#pragma STDC FP_CONTRACT OFF"));
    assert_null(strstr(src, "tngrt_kernel_binary("));
    assert_null(strstr(src, "tngrt_kernel_unary("));
    f_free(&f);

    /* --no-fuse: one kernel call per op */
    f_init(&f);
    x = f_input(&f, "x", 2, xd);
    w = f_input(&f, "w", 1, wd);
    a = f_op(&f, OP_MUL, x, w);
    b = f_op(&f, OP_ADD, a, x);
    f_output(&f, f_op(&f, OP_SILU, b, -1));
    src = f_gen(&f, 1);
    assert_int_equal(fused_slices(src), 0);
    assert_non_null(strstr(src, "tngrt_kernel_unary("));
    f_free(&f);
}

/* A value read outside the group (a graph output, or an op that cannot
 * fuse) ends the group at its producer; the rest is a group of its own. */
static void test_used_outside_breaks(void **state)
{
    (void)state;
    F f;
    f_init(&f);
    int64_t xd[2] = {4, 8};
    int32_t x = f_input(&f, "x", 2, xd);
    int32_t a = f_op(&f, OP_MUL, x, x);          /* %1 */
    int32_t b = f_op(&f, OP_ADD, a, x);          /* %2: also an output */
    int32_t c = f_op(&f, OP_SILU, b, -1);        /* %3 */
    int32_t d = f_op(&f, OP_EXP, c, -1);         /* %4 */
    f_output(&f, d);
    f_output(&f, b);
    const char *src = f_gen(&f, 0);
    assert_int_equal(fused_slices(src), 2);
    assert_non_null(strstr(src, "\"fused mul %1 + add %2 (line 11)\""));
    assert_non_null(strstr(src, "\"fused silu %3 + exp %4 (line 13)\""));
    f_free(&f);

    /* a smaller intermediate ([1, 8]: a column sum; row groups take only
     * sums along the last dim) is no member: the chain after the reduction
     * is its own group */
    f_init(&f);
    x = f_input(&f, "x", 2, xd);
    a = f_op(&f, OP_EXP, x, -1);                 /* %1 */
    b = f_op(&f, OP_NEG, a, -1);                 /* %2: read by the sum too */
    OpDesc sd = {.kind = OP_SUM, .in = &b, .nin = 1, .attr = (int64_t[]){1, 0}, .nattr = 2,
                 .sk = -1, .line = 30, .col = 5};   /* keepdim, dim 0 */
    int32_t sop = graph_add_op(&f.g, &sd);
    assert_true(sop >= 0);
    int32_t s = f.g.ops.v[sop].out;
    c = f_op(&f, OP_MUL, b, s);                  /* [4, 8] * [1, 8] */
    d = f_op(&f, OP_SIGMOID, c, -1);
    f_output(&f, d);
    src = f_gen(&f, 0);
    assert_int_equal(fused_slices(src), 2);
    assert_non_null(strstr(src, "\"fused exp %1 + neg %2 (line 11)\""));
    assert_non_null(strstr(src, "tngrt_kernel_reduce("));
    f_free(&f);
}

/* Members need not be adjacent: a reduction that runs between silu and
 * the mul reading both (along dim 0: no row group's) is computed first,
 * the group where the mul was. */
static void test_not_adjacent(void **state)
{
    (void)state;
    F f;
    f_init(&f);
    int64_t xd[2] = {4, 8};
    int32_t x = f_input(&f, "x", 2, xd);
    int32_t a = f_op(&f, OP_SILU, x, -1);        /* %1 */
    OpDesc sd = {.kind = OP_SUM, .in = &x, .nin = 1, .attr = (int64_t[]){1, 0}, .nattr = 2,
                 .sk = -1, .line = 11, .col = 5};
    int32_t sop = graph_add_op(&f.g, &sd);   /* %2 */
    assert_true(sop >= 0);
    f.line++;
    int32_t b = f_op(&f, OP_MUL, a, f.g.ops.v[sop].out);   /* %3 */
    f_output(&f, f_op(&f, OP_ADD, b, x));                   /* %4 */
    const char *src = f_gen(&f, 0);
    assert_int_equal(fused_slices(src), 1);
    assert_non_null(strstr(src, "\"fused silu %1 + mul %3 + add %4 (line 13)\""));
    const char *red = strstr(src, "tngrt_kernel_reduce(");
    assert_non_null(red);
    /* the group is a function of its own (compiled per instruction set),
     * called after the reduction */
    assert_non_null(strstr(src, "TNGC_ISA_CLONES\nstatic void g0_s0_f"));
    const char *call = strstr(src, "(c, A, S);\n");
    assert_non_null(call);
    assert_true(red < call);
    f_free(&f);
}

/* A hand-written RMSNorm, x * rsqrt(mean(x ** 2) + eps) * w, is one row
 * kernel; read again after the rsqrt's multiply, it ends there. */
static void test_rms_norm(void **state)
{
    (void)state;
    for (int reread = 0; reread < 2; reread++) {
        F f;
        f_init(&f);
        int64_t xd[2] = {4, 16}, wd[1] = {16};
        int32_t x = f_input(&f, "x", 2, xd), w = f_input(&f, "w", 1, wd);
        OpDesc pd = {.kind = OP_POW, .in = &x, .nin = 1, .fattr = {2.0, 0.0}, .sk = -1,
                     .line = f.line++, .col = 5};
        int32_t p = f.g.ops.v[graph_add_op(&f.g, &pd)].out;   /* %2 */
        OpDesc md = {.kind = OP_MEAN, .in = &p, .nin = 1, .attr = (int64_t[]){1, 1}, .nattr = 2,
                     .sk = -1, .line = f.line++, .col = 5};
        int32_t m = f.g.ops.v[graph_add_op(&f.g, &md)].out;   /* %3 */
        OpDesc ad = {.kind = OP_ADD, .in = &m, .nin = 1, .attr = (int64_t[]){1}, .nattr = 1,
                     .fattr = {1e-6, 1.0}, .sk = -1, .line = f.line++, .col = 5};
        int32_t a = f.g.ops.v[graph_add_op(&f.g, &ad)].out;   /* %4 */
        int32_t r = f_op(&f, OP_RSQRT, a, -1);      /* %5 */
        int32_t y = f_op(&f, OP_MUL, x, r);         /* %6 */
        f_output(&f, f_op(&f, OP_MUL, y, w));       /* %7 */
        if (reread)
            f_output(&f, y);
        const char *src = f_gen(&f, 0);
        assert_non_null(strstr(src, "rms_norm row kernel"));
        assert_non_null(strstr(src, reread ? "\"fused pow %2 + mean %3 + add %4 + rsqrt %5 + mul %6 (line 14)\""
                                           : "\"fused pow %2 + mean %3 + add %4 + rsqrt %5 + mul %6 + mul %7 (line 15)\""));
        assert_null(strstr(src, "tngrt_kernel_reduce("));
        f_free(&f);
    }
}

/* A sum along the last dim (keepdim) is a row group's member (fuse.c row
 * groups): exp, neg, their row sum, the product and the sigmoid become one
 * loop over the rows, the reduction kernel called by none. */
static void test_row_group(void **state)
{
    (void)state;
    F f;
    f_init(&f);
    int64_t xd[2] = {4, 8};
    int32_t x = f_input(&f, "x", 2, xd);
    int32_t a = f_op(&f, OP_EXP, x, -1);         /* %1 */
    int32_t b = f_op(&f, OP_NEG, a, -1);         /* %2 */
    OpDesc sd = {.kind = OP_SUM, .in = &b, .nin = 1, .attr = (int64_t[]){1, 1}, .nattr = 2,
                 .sk = -1, .line = 12, .col = 5};   /* keepdim, dim 1 */
    int32_t sop = graph_add_op(&f.g, &sd);   /* %3 */
    assert_true(sop >= 0);
    f.line++;
    int32_t c = f_op(&f, OP_MUL, b, f.g.ops.v[sop].out);      /* %4: [4, 8] * [4, 1] */
    f_output(&f, f_op(&f, OP_SIGMOID, c, -1));                  /* %5 */
    const char *src = f_gen(&f, 0);
    assert_int_equal(fused_slices(src), 1);
    assert_non_null(strstr(src, "\"fused exp %1 + neg %2 + sum %3 + mul %4 + sigmoid %5 (line 14)\""));
    assert_null(strstr(src, "tngrt_kernel_reduce("));
    f_free(&f);
}

/* An intermediate read twice by one member (a * a) counts both reads:
 * exp, the square and neg are one group. */
static void test_read_twice_inside(void **state)
{
    (void)state;
    F f;
    f_init(&f);
    int64_t xd[2] = {4, 8};
    int32_t x = f_input(&f, "x", 2, xd);
    int32_t a = f_op(&f, OP_EXP, x, -1);         /* %1 */
    int32_t b = f_op(&f, OP_MUL, a, a);          /* %2 */
    f_output(&f, f_op(&f, OP_NEG, b, -1));       /* %3 */
    const char *src = f_gen(&f, 0);
    assert_int_equal(fused_slices(src), 1);
    assert_non_null(strstr(src, "\"fused exp %1 + mul %2 + neg %3 (line 12)\""));
    f_free(&f);
}

/* A float32 matmul whose output only relu reads takes it as its epilogue
 * (one tngrt_kernel_matmul_strided_epi call); a matmul whose output is
 * also a graph output keeps its own kernel, and so does a chain of
 * matmuls, each read by the next. */
static void test_matmul_epilogue_readers(void **state)
{
    (void)state;
    for (int reread = 0; reread < 2; reread++) {
        F f;
        f_init(&f);
        int64_t xd[2] = {4, 8}, wd[2] = {8, 8};
        int32_t x = f_input(&f, "x", 2, xd), w = f_input(&f, "w", 2, wd);
        int32_t m = f_op(&f, OP_MM, x, w);       /* %2 */
        f_output(&f, f_op(&f, OP_RELU, m, -1));  /* %3 */
        if (reread)
            f_output(&f, m);
        const char *src = f_gen(&f, 0);
        if (reread) {
            assert_null(strstr(src, "tngrt_kernel_matmul_strided_epi("));
            assert_int_equal(fused_slices(src), 0);
        } else {
            assert_non_null(strstr(src, "tngrt_kernel_matmul_strided_epi("));
            assert_non_null(strstr(src, "\"fused mm %2 + relu %3 (line 11)\""));
        }
        f_free(&f);
    }
    F f;
    f_init(&f);
    int64_t xd[2] = {8, 8};
    int32_t x = f_input(&f, "x", 2, xd), w = f_input(&f, "w", 2, xd);
    for (int i = 0; i < 100; i++)
        x = f_op(&f, OP_MM, x, w);
    f_output(&f, x);
    const char *src = f_gen(&f, 0);
    assert_int_equal(fused_slices(src), 0);
    assert_null(strstr(src, "tngrt_kernel_matmul_strided_epi("));
    f_free(&f);
}

/* 1 when the space-separated token list args holds tok. */
static int has_token(const char *args, const char *tok)
{
    size_t n = strlen(tok);
    for (const char *at = args; (at = strstr(at, tok)) != NULL; at += n)
        if ((at == args || at[-1] == ' ') && (at[n] == ' ' || at[n] == '\0'))
            return 1;
    return 0;
}

/* Every fused elementwise row computes the op its separate kernel call
 * computes, and a unary row takes the parameters that call passes: its
 * fusion column (FUSE_UNARY, FUSE_UNARY_ARGS) names fattr[0] and
 * fattr[1] exactly when the CPU column's arguments do, and the
 * approximate="tanh" variant exactly when the call picks it by attr[0]. */
static void test_fusion_column_is_the_kernel_call(void **state)
{
    (void)state;
    StrBuf bad = {0};
    sb_puts(&bad, "");
    int unary = 0;
    for (int k = 0; k < OP__count; k++) {
        const FuseRow *r = emit_fuse_row((OpKind)k);
        const char *args = emit_cpu_args((OpKind)k), *name = op_info[k].name;
        char tok[64];
        if (r->how == FUSE_HOW_NO || r->how == FUSE_HOW_POW)
            continue;
        assert_non_null(args);
        if (r->how != FUSE_HOW_UNARY) {
            snprintf(tok, sizeof tok, "=%s", r->op);
            if (!has_token(args, tok) || r->args != FUSE_ARGS_NONE)
                sb_printf(&bad, " %s:op", name);
            continue;
        }
        unary++;
        int gelu = has_token(args, "gelu"), f0 = has_token(args, "F0"), f1 = has_token(args, "F1");
        FuseArgs want = gelu ? FUSE_ARGS_APPROX
                        : f1 ? FUSE_ARGS_F0_F1
                        : f0 ? FUSE_ARGS_F0
                             : FUSE_ARGS_NONE;
        if (r->args != want || (f1 && !f0))
            sb_printf(&bad, " %s:args", name);
        snprintf(tok, sizeof tok, "=%s", r->op);
        if (!gelu && !has_token(args, tok))
            sb_printf(&bad, " %s:op", name);
        snprintf(tok, sizeof tok, "%s_TANH", r->op);
        if ((r->tanh != NULL) != gelu || (gelu && strcmp(r->tanh, tok)))
            sb_printf(&bad, " %s:tanh", name);
        if (r->epi && strcmp(r->epi, r->op))
            sb_printf(&bad, " %s:epi", name);
    }
    assert_string_equal(bad.s, "");
    assert_true(unary > 20);
    sb_free(&bad);
}

/* A fused unary step passes the attributes its row names, and 0 for the
 * others: clamp both bounds, leaky_relu its slope and not fattr[1], neg
 * neither; gelu with approximate="tanh" is GELU_TANH, both in a loop and
 * in a matmul's epilogue. */
static void test_unary_step_parameters(void **state)
{
    (void)state;
    F f;
    f_init(&f);
    int64_t xd[2] = {4, 8};
    int32_t x = f_input(&f, "x", 2, xd);
    int32_t a = f_unary(&f, OP_CLAMP, x, -2.5, 3.0, 0);
    int32_t b = f_unary(&f, OP_LEAKY_RELU, a, 0.125, 7.0, -1);
    int32_t c = f_unary(&f, OP_NEG, b, 9.0, 9.0, -1);
    f_output(&f, f_unary(&f, OP_GELU, c, 0.0, 0.0, 1));
    const char *src = f_gen(&f, 0);
    assert_int_equal(fused_slices(src), 1);
    assert_non_null(strstr(src, "tngrt_impl__unf(TNGRT_UN_CLAMP, a0, (float)-2.5, (float)3.0)"));
    assert_non_null(strstr(src, "tngrt_impl__unf(TNGRT_UN_LEAKY_RELU, t0, (float)0.125, (float)0.0)"));
    assert_non_null(strstr(src, "tngrt_impl__unf(TNGRT_UN_NEG, t1, (float)0.0, (float)0.0)"));
    assert_non_null(strstr(src, "tngrt_impl__unf(TNGRT_UN_GELU_TANH, t2, (float)0.0, (float)0.0)"));
    f_free(&f);

    f_init(&f);
    int64_t wd[2] = {8, 8};
    x = f_input(&f, "x", 2, xd);
    int32_t w = f_input(&f, "w", 2, wd);
    int32_t m = f_op(&f, OP_MM, x, w);
    f_output(&f, f_unary(&f, OP_GELU, m, 5.0, 5.0, 1));
    src = f_gen(&f, 0);
    assert_non_null(strstr(src, "{TNGRT_EPI_UNARY, TNGRT_UN_GELU_TANH, (float)0.0, 0.0f, NULL, 0, 0, 0, "));
    f_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_one_group),
        cmocka_unit_test(test_used_outside_breaks),
        cmocka_unit_test(test_not_adjacent),
        cmocka_unit_test(test_rms_norm),
        cmocka_unit_test(test_row_group),
        cmocka_unit_test(test_read_twice_inside),
        cmocka_unit_test(test_matmul_epilogue_readers),
        cmocka_unit_test(test_fusion_column_is_the_kernel_call),
        cmocka_unit_test(test_unary_step_parameters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
