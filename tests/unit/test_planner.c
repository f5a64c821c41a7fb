/*
 * test_planner.c - unit tests of the planner passes (planner/plan.h):
 * gears, shape checks per gear, super-kernel segments, streams and events,
 * memory, row independence and static kernels.
 *
 * Graphs are built by hand: inputs, weights, dims, streams and scopes with
 * graph.c's builders, ops appended directly with the output shapes written
 * out (no shape inference), so every test states exactly what it plans.
 *
 * Standalone build:
 *   cc -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L \
 *      -fsanitize=address,undefined tests/unit/test_planner.c planner/plan.c \
 *      planner/gears.c planner/segments.c planner/streams.c planner/memory.c \
 *      planner/rowindep.c planner/kernels.c ir/graph.c frontend/diag/diag.c \
 *      frontend/python/source.c frontend/python/ast.c support/support.c ... -lcmocka -lm
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../codegen/codegen.h"
#include "../../planner/strided.h"

/* ------------------------------------------------------------------------ */
/* building graphs                                                           */
/* ------------------------------------------------------------------------ */

/* A graph under construction; stream and sk apply to the ops added next. */
typedef struct B {
    Graph g;
    int stream;
    int sk;
    uint32_t line;         /* line of the next op (col 5) */
} B;

static void b_init(B *b)
{
    memset(b, 0, sizeof *b);
    graph_init(&b->g, "Model.forward", "model.py");
    b->sk = -1;
    b->line = 10;
}

static DimId dc(B *b, int64_t c) { return graph_dim_const(&b->g, c); }

/* A float32 input; dims < 0 are new symbols (example size -dims[i]). */
static int32_t b_input(B *b, const char *name, int ndim, const int64_t *dims)
{
    DimId d[GRAPH_MAX_DIMS];
    int64_t ex[GRAPH_MAX_DIMS];
    int idx = (int)b->g.inputs.n;
    for (int i = 0; i < ndim; i++) {
        ex[i] = dims[i] < 0 ? -dims[i] : dims[i];
        d[i] = dims[i] < 0 ? graph_dim_sym(&b->g, idx, i, ex[i]) : dc(b, dims[i]);
    }
    return graph_add_input(&b->g, name, DT_F32, FMT_ND, ndim, d, ex, 0, 1, 1);
}

static int32_t b_weight(B *b, const char *name, int ndim, const int64_t *dims)
{
    return graph_add_weight(&b->g, name, DT_F32, ndim, dims, 0);
}

/* Appends op kind on inputs in[0..nin) with one float32 output of the
 * given dims; returns the output value. */
static int32_t b_op(B *b, OpKind kind, const int32_t *in, uint32_t nin, int ndim,
                    const DimId *dims)
{
    Graph *g = &b->g;
    Op op = {0};
    op.kind = kind;
    op.line = b->line++;
    op.col = 5;
    op.in = arena_alloc(&g->arena, (nin + 1) * sizeof *op.in);
    memcpy(op.in, in, nin * sizeof *in);
    op.nin = nin;
    op.out = (int32_t)g->vals.n;
    op.nout = 1;
    op.stream = b->stream;
    op.sk = b->sk;
    Val v = {0};
    v.op = (int32_t)g->ops.n;
    v.ndim = (uint8_t)ndim;
    v.format = FMT_ND;
    v.dtype = DT_F32;
    memcpy(v.dims, dims, (size_t)ndim * sizeof *dims);
    VEC_PUSH(g->vals, v);
    VEC_PUSH(g->ops, op);
    return op.out;
}

/* An op whose output has the shape of x (elementwise, views, permute of a square). */
static int32_t b_like(B *b, OpKind kind, int32_t x)
{
    const Val *v = &b->g.vals.v[x];
    DimId dims[GRAPH_MAX_DIMS];
    memcpy(dims, v->dims, sizeof dims);
    return b_op(b, kind, &x, 1, v->ndim, dims);
}

static int32_t b_like2(B *b, OpKind kind, int32_t x, int32_t y)
{
    const Val *v = &b->g.vals.v[x];
    DimId dims[GRAPH_MAX_DIMS];
    memcpy(dims, v->dims, sizeof dims);
    int32_t in[2] = {x, y};
    return b_op(b, kind, in, 2, v->ndim, dims);
}

/* mm(a[m,k], w[k,n]) or linear(a[m,k], w[n,k]) -> [m,n] */
static int32_t b_matmul(B *b, OpKind kind, int32_t a, int32_t w)
{
    const Val *av = &b->g.vals.v[a], *wv = &b->g.vals.v[w];
    DimId dims[2] = {av->dims[0], kind == OP_LINEAR ? wv->dims[0] : wv->dims[1]};
    int32_t in[3] = {a, w, -1};
    return b_op(b, kind, in, kind == OP_LINEAR ? 3 : 2, 2, dims);
}

static int32_t op_of(const B *b, int32_t v) { return b->g.vals.v[v].op; }
static Op *op_at(B *b, int32_t v) { return &b->g.ops.v[op_of(b, v)]; }

static void b_output(B *b, int32_t v)
{
    GraphOutput o = {arena_printf(&b->g.arena, "out%zu", b->g.outputs.n), v};
    VEC_PUSH(b->g.outputs, o);
}

static void b_gears(B *b, int input, int dim, const int64_t *values, size_t n, uint32_t line)
{
    GearSpec s = {.input = input, .dim = dim, .nvalues = n, .line = line, .col = 1, .sym = -1};
    s.values = arena_alloc(&b->g.arena, n * sizeof *s.values);
    memcpy(s.values, values, n * sizeof *values);
    const Val *v = &b->g.vals.v[b->g.inputs.v[input].value];
    const DimExpr *e = &b->g.dims.v[v->dims[dim]];
    if (e->kind == DIM_SYM)
        s.sym = (int)e->c;
    VEC_PUSH(b->g.gears, s);
}

/* A planned graph and its diagnostics. */
typedef struct T {
    B b;
    Plan p;
    DiagList diags;
    int rc;
} T;

/* 1 when unit a happens-before unit b: a path of stream order and events. */
static int happens_before(const Plan *p, int32_t a, int32_t b)
{
    if (a == b)
        return 1;
    const PlanUnit *u = &p->units.v[b];
    const PlanStream *s = &p->streams.v[u->stream];
    for (size_t k = 1; k < s->nunits; k++)
        if (s->units[k] == b && happens_before(p, a, s->units[k - 1]))
            return 1;
    for (size_t i = 0; i < u->nwait; i++)
        if (happens_before(p, a, p->events.v[u->wait[i]].after))
            return 1;
    return 0;
}

/* The schedule is complete and honours every data and control dependency
 * (independently of how streams.c dropped redundant waits). */
static void assert_schedule_sound(const T *t)
{
    const Graph *g = &t->b.g;
    size_t scheduled = 0;
    for (size_t s = 0; s < t->p.streams.n; s++)
        scheduled += t->p.streams.v[s].nunits;
    assert_int_equal(scheduled, t->p.units.n);
    for (size_t o = 0; o < g->ops.n; o++) {
        int32_t u = t->p.unit_of_op[o];
        const Op *op = &g->ops.v[o];
        for (uint32_t k = 0; k < op->nin; k++) {
            int32_t pu = op->in[k] < 0 ? -1 : t->p.unit_of_op[g->vals.v[op->in[k]].op];
            if (pu >= 0)
                assert_true(happens_before(&t->p, pu, u));
        }
        for (uint32_t k = 0; k < op->nctrl; k++)
            assert_true(happens_before(&t->p, t->p.unit_of_op[op->ctrl[k]], u));
    }
}

static void t_plan(T *t)
{
    PlanOptions opt = {codegen_op_type, codegen_dtype_name, 0, 0};   /* the keys tngc prints: manifest names */
    t->rc = plan_build_with(&t->p, &t->b.g, &opt, &t->diags);
    if (t->rc == 0)
        assert_schedule_sound(t);
}

static void t_free(T *t)
{
    plan_free(&t->p);
    diag_free(&t->diags);
    graph_free(&t->b.g);
}

static int32_t unit_of(const T *t, int32_t v) { return t->p.unit_of_op[t->b.g.vals.v[v].op]; }

/* ------------------------------------------------------------------------ */
/* gears                                                                     */
/* ------------------------------------------------------------------------ */

/* x[s0,4], y[s1,4]; returns with the two inputs added. */
static void two_dynamic_inputs(T *t)
{
    b_init(&t->b);
    b_input(&t->b, "x", 2, (int64_t[]){-2, 4});
    b_input(&t->b, "y", 2, (int64_t[]){-2, 4});
}

static void assert_gear(const T *t, size_t i, int64_t s0, int64_t s1)
{
    assert_true(i < t->p.gears.n);
    assert_int_equal(t->p.gears.v[i].symval[0], s0);
    assert_int_equal(t->p.gears.v[i].symval[1], s1);
}

static void test_gears_zip_dedup(void **state)
{
    (void)state;
    T t = {0};
    two_dynamic_inputs(&t);
    b_gears(&t.b, 0, 0, (int64_t[]){2, 4, 2, 8}, 4, 3);
    b_gears(&t.b, 1, 0, (int64_t[]){3, 5, 3, 5}, 4, 4);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.diags.n, 0);
    assert_int_equal(t.p.gears.n, 3);  /* (2,3) twice: kept once, first place */
    assert_gear(&t, 0, 2, 3);
    assert_gear(&t, 1, 4, 5);
    assert_gear(&t, 2, 8, 5);
    t_free(&t);
}

static void test_gears_product_order(void **state)
{
    (void)state;
    T t = {0};
    two_dynamic_inputs(&t);
    b_input(&t.b, "z", 1, (int64_t[]){-7});  /* s2: never geared */
    t.b.g.cfg.policy = GEAR_PRODUCT;
    /* given y first: the order still follows (input, dim), x slowest */
    b_gears(&t.b, 1, 0, (int64_t[]){3, 5, 3}, 3, 3);
    b_gears(&t.b, 0, 0, (int64_t[]){2, 4}, 2, 4);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.gears.n, 4);
    assert_gear(&t, 0, 2, 3);
    assert_gear(&t, 1, 2, 5);
    assert_gear(&t, 2, 4, 3);
    assert_gear(&t, 3, 4, 5);
    for (size_t i = 0; i < 4; i++)
        assert_true(t.p.gears.v[i].symval[2] == INT64_MIN);
    t_free(&t);
}

static void test_gears_too_many(void **state)
{
    (void)state;
    T t = {0};
    two_dynamic_inputs(&t);
    t.b.g.cfg.policy = GEAR_PRODUCT;
    int64_t v[11];
    for (int i = 0; i < 11; i++)
        v[i] = i + 1;
    b_gears(&t.b, 0, 0, v, 11, 3);
    b_gears(&t.b, 1, 0, v, 10, 4);  /* 110 gears */
    t_plan(&t);
    assert_int_equal(t.rc, -1);
    assert_int_equal(t.diags.n, 1);
    assert_int_equal(t.diags.v[0].rule, RULE_TNG129);
    assert_int_equal(t.diags.v[0].line, 3);
    t_free(&t);
}

static void test_gears_zip_lengths(void **state)
{
    (void)state;
    T t = {0};
    two_dynamic_inputs(&t);
    b_gears(&t.b, 0, 0, (int64_t[]){2, 4, 8}, 3, 3);
    b_gears(&t.b, 1, 0, (int64_t[]){2, 4}, 2, 4);
    t_plan(&t);
    assert_int_equal(t.rc, -1);
    assert_int_equal(t.diags.n, 1);
    assert_int_equal(t.diags.v[0].rule, RULE_TNG128);
    assert_int_equal(t.diags.v[0].line, 4);
    assert_non_null(strstr(t.diags.v[0].msg, "2 values for dim 0 of y, 3 for dim 0 of x"));
    t_free(&t);
}

/* A list the interpreter let through is reported once per rule and line. */
static void test_gears_invalid_value(void **state)
{
    (void)state;
    T t = {0};
    two_dynamic_inputs(&t);
    b_gears(&t.b, 0, 0, (int64_t[]){2, 0}, 2, 3);
    b_gears(&t.b, 1, 0, (int64_t[]){4}, 1, 4);
    diag_at(&t.diags, 4, 9, RULE_TNG126, "reported by the interpreter");
    t_plan(&t);
    assert_int_equal(t.rc, -1);
    assert_int_equal(t.diags.n, 2);
    assert_int_equal(t.diags.v[1].rule, RULE_TNG125);
    assert_int_equal(t.diags.v[1].line, 3);
    assert_string_equal(t.diags.v[1].msg, "dim 0 of x: gear value must not be 0");
    t_free(&t);
}

static void test_gears_none(void **state)
{
    (void)state;
    T t = {0};
    two_dynamic_inputs(&t);
    b_like(&t.b, OP_RELU, 0);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.gears.n, 1);  /* partly dynamic: nothing bound */
    assert_true(t.p.gears.v[0].symval[0] == INT64_MIN);
    assert_true(t.p.gears.v[0].symval[1] == INT64_MIN);
    assert_int_equal(t.p.mem.v[0].dynamic, 1);
    assert_int_equal(t.p.mem.v[0].arena_bytes, -1);
    assert_int_equal(t.p.kernels.n, 0);  /* nothing static to compile */
    t_free(&t);

    b_init(&t.b);
    int32_t x = b_input(&t.b, "x", 1, (int64_t[]){16});
    b_output(&t.b, b_like(&t.b, OP_EXP, x));
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.gears.n, 1);  /* fully static */
    assert_int_equal(t.p.mem.v[0].dynamic, 0);
    assert_int_equal(t.p.mem.v[0].arena_bytes, 64);
    assert_int_equal(t.p.kernels.n, 1);
    assert_string_equal(t.p.kernels.v[0].key, "Exp_float_ND_16_0");
    t_free(&t);
}

static void test_gears_check_fails_in_one_gear(void **state)
{
    (void)state;
    T t = {0};
    two_dynamic_inputs(&t);
    t.b.line = 7;
    int32_t sum = b_like2(&t.b, OP_ADD, 0, 1);
    DimCheck c = {DIMCHECK_BCAST, t.b.g.vals.v[0].dims[0], t.b.g.vals.v[1].dims[0],
                  op_of(&t.b, sum), "dim 0 of the operands of add"};
    VEC_PUSH(t.b.g.checks, c);
    b_gears(&t.b, 0, 0, (int64_t[]){2, 4}, 2, 3);
    b_gears(&t.b, 1, 0, (int64_t[]){2, 2}, 2, 4);   /* (2,2), (4,2) */
    t_plan(&t);
    assert_int_equal(t.rc, -1);
    assert_int_equal(t.diags.n, 1);
    assert_int_equal(t.diags.v[0].rule, RULE_TNG209);
    assert_int_equal(t.diags.v[0].line, 7);
    assert_int_equal(t.diags.v[0].col, 5);
    assert_string_equal(t.diags.v[0].msg,
                        "in gear 1 (s0=4, s1=2): dim 0 of the operands of add: 4 vs 2");
    t_free(&t);

    /* one of them 1: broadcasting, fine */
    two_dynamic_inputs(&t);
    sum = b_like2(&t.b, OP_ADD, 0, 1);
    c.a = t.b.g.vals.v[0].dims[0], c.b = t.b.g.vals.v[1].dims[0], c.op = op_of(&t.b, sum);
    VEC_PUSH(t.b.g.checks, c);
    b_gears(&t.b, 0, 0, (int64_t[]){2, 4}, 2, 3);
    b_gears(&t.b, 1, 0, (int64_t[]){2, 1}, 2, 4);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.diags.n, 0);
    t_free(&t);
}

/* The size invariant per gear (graph.h): gear values past GRAPH_MAX_BYTES,
 * dims that overflow or go negative, tensors past the limit, checks that
 * overflow; reported once per op, not again on the ops that use it. */
static void test_gear_sizes(void **state)
{
    (void)state;
    T t = {0};
    const int64_t big = (int64_t)1 << 62;
    /* a gear of 2**62: refused where it is given */
    two_dynamic_inputs(&t);
    b_gears(&t.b, 0, 0, (int64_t[]){2, big}, 2, 3);
    t_plan(&t);
    assert_int_equal(t.rc, -1);
    assert_int_equal(t.diags.n, 1);
    assert_int_equal(t.diags.v[0].rule, RULE_TNG209);
    assert_int_equal(t.diags.v[0].line, 3);
    assert_string_equal(t.diags.v[0].msg, "dim 0 of x: gear value 4611686018427387904 is "
                                          "larger than 2^48, the largest size tngc plans");
    t_free(&t);

    /* x[s0, 4] in a gear of 2**46: x itself is 2^50 bytes */
    two_dynamic_inputs(&t);
    int32_t y = b_like(&t.b, OP_RELU, 0);
    b_output(&t.b, y);
    b_gears(&t.b, 0, 0, (int64_t[]){2, (int64_t)1 << 46}, 2, 3);
    t_plan(&t);
    assert_int_equal(t.rc, -1);
    assert_int_equal(t.diags.n, 1);   /* not again on relu */
    assert_int_equal(t.diags.v[0].line, 1);
    assert_string_equal(t.diags.v[0].msg, "in gear 1 (s0=70368744177664): input x f32[s0,4]: it is "
                                          "larger than 2^48 bytes, the most tngc plans for one tensor");
    t_free(&t);

    /* [s0*2^40*2^20]: the dim overflows in gear 1 only; [s0-3] negative in gear 0 */
    two_dynamic_inputs(&t);
    Graph *g = &t.b.g;
    DimId s0 = g->vals.v[0].dims[0];
    DimId wide = graph_dim_mul(g, graph_dim_mul(g, s0, dc(&t.b, (int64_t)1 << 40)), s0);
    int32_t a = b_op(&t.b, OP_FULL, (int32_t[]){-1}, 0, 1, &wide);
    DimId neg = graph_dim_sub(g, s0, dc(&t.b, 3));
    int32_t n = b_op(&t.b, OP_FULL, (int32_t[]){-1}, 0, 1, &neg);
    int32_t sum = b_like(&t.b, OP_RELU, a);
    b_output(&t.b, sum);
    b_output(&t.b, n);
    b_gears(&t.b, 0, 0, (int64_t[]){2, (int64_t)1 << 30}, 2, 3);
    t_plan(&t);
    assert_int_equal(t.rc, -1);
    assert_int_equal(t.diags.n, 2);
    assert_int_equal(t.diags.v[0].line, 10);
    assert_string_equal(t.diags.v[0].msg, "in gear 1 (s0=1073741824): the result of full "
                                          "f32[s0*s0*1099511627776]: dim 0 overflows 64-bit arithmetic");
    assert_int_equal(t.diags.v[1].line, 11);
    assert_string_equal(t.diags.v[1].msg, "in gear 0 (s0=2): the result of full f32[s0-3]: "
                                          "dim 0 is negative (-1)");
    t_free(&t);

    /* a shape check whose side overflows in a gear */
    two_dynamic_inputs(&t);
    g = &t.b.g;
    s0 = g->vals.v[0].dims[0];
    sum = b_like2(&t.b, OP_ADD, 0, 1);
    DimCheck c = {DIMCHECK_EQ, graph_dim_mul(g, graph_dim_mul(g, s0, s0), s0),
                  g->vals.v[1].dims[0], op_of(&t.b, sum), "the element count of reshape"};
    VEC_PUSH(g->checks, c);
    b_gears(&t.b, 0, 0, (int64_t[]){2, (int64_t)1 << 22}, 2, 3);
    b_gears(&t.b, 1, 0, (int64_t[]){8, 8}, 2, 4);
    t_plan(&t);
    assert_int_equal(t.rc, -1);
    assert_int_equal(t.diags.n, 1);
    assert_string_equal(t.diags.v[0].msg, "in gear 1 (s0=4194304, s1=8): the element count of "
                                          "reshape: a size overflows 64-bit arithmetic");
    t_free(&t);
}

/* Arena offsets and sums are checked: three live buffers of 2^47 bytes
 * pass 2^48, reported at the op whose buffer does not fit. */
static void test_memory_arena_limit(void **state)
{
    (void)state;
    T t = {0};
    B *b = &t.b;
    b_init(b);
    int32_t x = b_input(b, "x", 1, (int64_t[]){(int64_t)1 << 45});
    int32_t a = b_like(b, OP_RELU, x), c = b_like(b, OP_EXP, x), d;
    b_output(b, a);
    b_output(b, c);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_true(t.p.mem.v[0].arena_bytes == (int64_t)1 << 48);
    t_free(&t);

    b_init(b);
    x = b_input(b, "x", 1, (int64_t[]){(int64_t)1 << 45});
    a = b_like(b, OP_RELU, x), c = b_like(b, OP_EXP, x), d = b_like(b, OP_NEG, x);
    b_output(b, a);
    b_output(b, c);
    b_output(b, d);
    t_plan(&t);
    assert_int_equal(t.rc, -1);
    assert_int_equal(t.diags.n, 1);
    assert_int_equal(t.diags.v[0].rule, RULE_TNG209);
    assert_int_equal(t.diags.v[0].line, op_at(b, d)->line);
    assert_string_equal(t.diags.v[0].msg, "in gear 0: the memory arena would pass 2^48 bytes, the "
                                          "most tngc plans, with the buffer of the result of neg "
                                          "f32[35184372088832]");
    t_free(&t);
}

/* ------------------------------------------------------------------------ */
/* streams and events                                                        */
/* ------------------------------------------------------------------------ */

static void assert_event(const T *t, size_t e, int from, int to, int32_t after_val,
                         int32_t before_val, int explicit_wait)
{
    assert_true(e < t->p.events.n);
    const PlanEvent *ev = &t->p.events.v[e];
    assert_int_equal(ev->from, from);
    assert_int_equal(ev->to, to);
    assert_int_equal(ev->after, unit_of(t, after_val));
    assert_int_equal(ev->before, unit_of(t, before_val));
    assert_int_equal(ev->explicit_wait, explicit_wait);
}

/* The model of examples/multi_stream/model.py. */
static void test_streams_seed(void **state)
{
    (void)state;
    T t = {0};
    B *b = &t.b;
    b_init(b);
    int64_t sq[2] = {1000, 1000};
    int32_t in1 = b_input(b, "in1", 2, sq), in2 = b_input(b, "in2", 2, sq);
    int32_t in3 = b_input(b, "in3", 2, sq), in4 = b_input(b, "in4", 2, sq);
    int32_t add_result = b_like2(b, OP_ADD, in1, in2);
    b->stream = graph_stream(&b->g, "1", 0, 17, 14);
    int32_t mm_result = b_matmul(b, OP_MM, in3, in4);
    graph_add_ctrl(&b->g, op_of(b, mm_result), op_of(b, add_result), 1);
    b->stream = 0;
    int32_t mm1 = b_matmul(b, OP_MM, in3, in4);
    graph_add_ctrl(&b->g, op_of(b, mm1), op_of(b, add_result), 1);
    b->stream = graph_stream(&b->g, "2", 0, 22, 14);
    int32_t add2 = b_like2(b, OP_ADD, in3, in4);
    graph_add_ctrl(&b->g, op_of(b, add2), op_of(b, add_result), 1);
    graph_add_ctrl(&b->g, op_of(b, add2), op_of(b, mm_result), 1);
    b_output(b, add_result), b_output(b, mm_result), b_output(b, mm1), b_output(b, add2);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.units.n, 4);
    assert_int_equal(t.p.unit_of_op[0], -1);  /* inputs run nothing */
    assert_int_equal(t.p.events.n, 2);
    assert_event(&t, 0, 0, 1, add_result, mm_result, 1);
    assert_event(&t, 1, 1, 2, mm_result, add2, 1);  /* add2 on add_result: implied */
    /* schedules */
    assert_int_equal(t.p.streams.n, 3);
    assert_int_equal(t.p.streams.v[0].nunits, 2);
    assert_int_equal(t.p.streams.v[0].units[0], unit_of(&t, add_result));
    assert_int_equal(t.p.streams.v[0].units[1], unit_of(&t, mm1));
    assert_int_equal(t.p.streams.v[1].nunits, 1);
    assert_int_equal(t.p.streams.v[2].nunits, 1);
    const PlanUnit *u = &t.p.units.v[unit_of(&t, add_result)];
    assert_int_equal(u->nrecord, 1);
    assert_int_equal(u->record[0], 0);
    u = &t.p.units.v[unit_of(&t, add2)];
    assert_int_equal(u->nwait, 1);
    assert_int_equal(u->wait[0], 1);
    t_free(&t);
}

/* A -> B -> C on three streams, C also reading A: the wait on A is implied. */
static void test_streams_chain(void **state)
{
    (void)state;
    T t = {0};
    B *b = &t.b;
    b_init(b);
    int32_t x = b_input(b, "x", 1, (int64_t[]){64});
    int32_t a = b_like(b, OP_EXP, x);
    b->stream = graph_stream(&b->g, "b", 0, 1, 1);
    int32_t bb = b_like(b, OP_RELU, a);
    b->stream = graph_stream(&b->g, "c", 0, 1, 1);
    int32_t c = b_like2(b, OP_ADD, bb, a);
    b_output(b, c);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.events.n, 2);
    assert_event(&t, 0, 0, 1, a, bb, 0);
    assert_event(&t, 1, 1, 2, bb, c, 0);
    t_free(&t);
}

/* A data edge across streams gets an event; stream order makes a second
 * consumer on the same stream need none; going back needs one. */
static void test_streams_data_edge(void **state)
{
    (void)state;
    T t = {0};
    B *b = &t.b;
    b_init(b);
    int32_t x = b_input(b, "x", 1, (int64_t[]){64});
    int32_t a = b_like(b, OP_EXP, x);
    b->stream = graph_stream(&b->g, "side", 0, 1, 1);
    int32_t p = b_like(b, OP_RELU, a);
    int32_t q = b_like(b, OP_NEG, a);     /* after p on the same stream */
    b->stream = 0;
    int32_t r = b_like2(b, OP_MUL, q, x);
    b_output(b, r);
    b_output(b, p);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.events.n, 2);
    assert_event(&t, 0, 0, 1, a, p, 0);
    assert_event(&t, 1, 1, 0, q, r, 0);
    t_free(&t);
}

/* ------------------------------------------------------------------------ */
/* super-kernel segments                                                     */
/* ------------------------------------------------------------------------ */

static void test_segments_split_at_nofuse(void **state)
{
    (void)state;
    T t = {0};
    B *b = &t.b;
    b_init(b);
    int32_t x = b_input(b, "x", 2, (int64_t[]){8, 8});
    b->sk = graph_sk(&b->g, "sp1", "", 1, 1);
    int32_t a = b_like(b, OP_ADD, x);
    int32_t f = b_like(b, OP_FORMAT_CAST, a);
    int32_t m = b_like(b, OP_MUL, f);
    int32_t v = b_like(b, OP_RESHAPE, m);  /* a view: absorbed */
    int32_t r = b_like(b, OP_RELU, v);
    int32_t in[2] = {x, r};
    int32_t st = b_op(b, OP_COPY, in, 2, 2, b->g.vals.v[x].dims);  /* into input x */
    int32_t e = b_like(b, OP_EXP, r);
    b->sk = -1;
    int32_t n = b_like(b, OP_NEG, e);
    b_output(b, n);
    b_output(b, st);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.segs.n, 3);
    const PlanSegment *s = &t.p.segs.v[0];
    assert_int_equal(s->nops, 1);  /* one op: still a segment */
    assert_int_equal(s->ops[0], op_of(b, a));
    assert_string_equal(s->split, "format_cast cannot be fused");
    s = &t.p.segs.v[1];
    assert_int_equal(s->nops, 3);
    assert_int_equal(s->ops[0], op_of(b, m));
    assert_int_equal(s->ops[1], op_of(b, v));
    assert_int_equal(s->ops[2], op_of(b, r));
    assert_string_equal(s->split, "copy writes into input x");
    s = &t.p.segs.v[2];
    assert_int_equal(s->nops, 1);
    assert_int_equal(s->ops[0], op_of(b, e));
    assert_string_equal(s->split, "end of scope");
    /* units: seg0, format_cast, seg1, copy, seg2, neg */
    assert_int_equal(t.p.units.n, 6);
    assert_int_equal(t.p.units.v[0].seg, 0);
    assert_int_equal(t.p.units.v[1].op, op_of(b, f));
    assert_int_equal(t.p.units.v[2].seg, 1);
    assert_int_equal(unit_of(&t, v), 2);
    assert_int_equal(t.p.units.v[3].op, op_of(b, st));
    assert_int_equal(t.p.units.v[4].seg, 2);
    assert_int_equal(t.p.units.v[5].op, op_of(b, n));
    t_free(&t);
}

/* Ops on streams 0, 1, 2, 0 in one scope. */
static void third_stream_graph(T *t, const char *options)
{
    B *b = &t->b;
    b_init(b);
    int32_t x = b_input(b, "x", 1, (int64_t[]){32});
    int s1 = graph_stream(&b->g, "1", 0, 1, 1), s2 = graph_stream(&b->g, "2", 0, 1, 1);
    b->sk = graph_sk(&b->g, "sp", options, 1, 1);
    int32_t a = b_like(b, OP_EXP, x);
    b->stream = s1;
    int32_t c = b_like(b, OP_RELU, x);
    b->stream = s2;
    int32_t d = b_like(b, OP_NEG, x);
    b->stream = 0;
    int32_t e = b_like2(b, OP_ADD, a, c);
    int32_t f = b_like2(b, OP_ADD, e, d);
    b_output(b, f);
    t_plan(t);
    assert_int_equal(t->rc, 0);
}

static void test_segments_third_stream(void **state)
{
    (void)state;
    T t = {0};
    third_stream_graph(&t, "");
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.segs.n, 2);
    assert_int_equal(t.p.segs.v[0].nops, 2);
    assert_int_equal(t.p.segs.v[0].stream, 0);
    assert_string_equal(t.p.segs.v[0].split, "third stream");
    assert_int_equal(t.p.segs.v[1].nops, 3);
    assert_int_equal(t.p.segs.v[1].stream, 2);  /* its first op's */
    assert_string_equal(t.p.segs.v[1].split, "end of scope");
    assert_int_equal(t.p.units.n, 2);
    assert_int_equal(t.p.events.n, 1);  /* seg0 (stream 0) before seg1 (stream 2) */
    assert_int_equal(t.p.events.v[0].after, 0);
    assert_int_equal(t.p.events.v[0].before, 1);
    t_free(&t);

    third_stream_graph(&t, "feed-sync-all=0: stream-fusion=1");
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.segs.n, 1);
    assert_int_equal(t.p.segs.v[0].nops, 5);
    assert_int_equal(t.p.units.n, 1);
    assert_int_equal(t.p.events.n, 0);
    t_free(&t);
}

static void test_segments_dynamic_shape(void **state)
{
    (void)state;
    T t = {0};
    B *b = &t.b;
    b_init(b);
    int32_t x = b_input(b, "x", 1, (int64_t[]){-4});
    int32_t w = b_weight(b, "w", 1, (int64_t[]){4});
    b->sk = graph_sk(&b->g, "sp", NULL, 1, 1);
    int32_t a = b_like(b, OP_EXP, w);
    int32_t c = b_like(b, OP_RELU, x);   /* s0 unbound: not fusable */
    int32_t d = b_like(b, OP_NEG, w);
    b_output(b, a), b_output(b, c), b_output(b, d);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.segs.n, 2);
    assert_string_equal(t.p.segs.v[0].split, "relu has a dynamic shape");
    assert_int_equal(t.p.segs.v[1].ops[0], op_of(b, d));
    t_free(&t);

    /* with gears every shape is static */
    b_init(b);
    x = b_input(b, "x", 1, (int64_t[]){-4});
    b->sk = graph_sk(&b->g, "sp", NULL, 1, 1);
    b_output(b, b_like(b, OP_RELU, b_like(b, OP_EXP, x)));
    b_gears(b, 0, 0, (int64_t[]){4, 8}, 2, 1);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.segs.n, 1);
    assert_int_equal(t.p.segs.v[0].nops, 2);
    t_free(&t);
}

/* ------------------------------------------------------------------------ */
/* memory                                                                    */
/* ------------------------------------------------------------------------ */

static void test_memory_inplace_chain(void **state)
{
    (void)state;
    T t = {0};
    B *b = &t.b;
    b_init(b);
    int32_t x = b_input(b, "x", 1, (int64_t[]){256});  /* 1 KiB */
    int32_t a = b_like(b, OP_EXP, x);
    int32_t bb = b_like(b, OP_RELU, a);
    int32_t c = b_like(b, OP_NEG, bb);
    int32_t d = b_like(b, OP_SIGMOID, c);
    b_output(b, d);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    const PlanMemory *m = &t.p.mem.v[0];
    assert_int_equal(m->dynamic, 0);
    assert_int_equal(m->naive_bytes, 4096);
    assert_int_equal(m->arena_bytes, 1024);
    assert_int_equal(m->offset[x], -1);    /* the caller's */
    assert_int_equal(m->inplace_of[a], -1);  /* not into the input */
    assert_int_equal(m->inplace_of[bb], a);
    assert_int_equal(m->inplace_of[c], bb);
    assert_int_equal(m->inplace_of[d], c);
    assert_int_equal(m->offset[d], 0);
    assert_int_equal(m->bytes[d], 1024);
    t_free(&t);
}

/* permute chain: no in-place, but a's bytes come back for c, b's for d. */
static void test_memory_reuse(void **state)
{
    (void)state;
    T t = {0};
    B *b = &t.b;
    b_init(b);
    int32_t x = b_input(b, "x", 2, (int64_t[]){16, 16});
    int32_t a = b_like(b, OP_PERMUTE, x);
    int32_t v = b_like(b, OP_RESHAPE, a);  /* a view of a: keeps a alive */
    int32_t bb = b_like(b, OP_PERMUTE, v);
    int32_t c = b_like(b, OP_PERMUTE, bb);
    int32_t d = b_like(b, OP_PERMUTE, c);
    b_output(b, d);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    const PlanMemory *m = &t.p.mem.v[0];
    assert_int_equal(m->naive_bytes, 4096);
    assert_int_equal(m->arena_bytes, 2048);
    assert_int_equal(m->offset[a], 0);
    assert_int_equal(m->offset[v], 0);
    assert_int_equal(m->bytes[v], 0);
    assert_int_equal(m->offset[bb], 1024);
    assert_int_equal(m->offset[c], 0);
    assert_int_equal(m->offset[d], 1024);
    t_free(&t);
}

/* c on another stream, with nothing ordering it: it must not take a's bytes. */
static void concurrent_graph(T *t, int side_stream)
{
    B *b = &t->b;
    b_init(b);
    int32_t x = b_input(b, "x", 2, (int64_t[]){16, 16});
    int32_t a = b_like(b, OP_PERMUTE, x);
    int32_t bb = b_like(b, OP_PERMUTE, a);
    if (side_stream)
        b->stream = graph_stream(&b->g, "side", 0, 1, 1);
    int32_t c = b_like(b, OP_PERMUTE, x);
    b->stream = 0;
    int32_t d = b_like(b, OP_PERMUTE, bb);
    b_output(b, d);
    (void)c;
    t_plan(t);
    assert_int_equal(t->rc, 0);
}

static void test_memory_no_reuse_across_streams(void **state)
{
    (void)state;
    T t = {0};
    concurrent_graph(&t, 0);
    const PlanMemory *m = &t.p.mem.v[0];
    int32_t a = 1, c = 3;  /* values: x, a, bb, c, d */
    assert_int_equal(m->arena_bytes, 2048);
    assert_int_equal(m->offset[c], m->offset[a]);
    t_free(&t);

    concurrent_graph(&t, 1);
    m = &t.p.mem.v[0];
    assert_int_equal(t.p.events.n, 0);
    assert_int_equal(m->naive_bytes, 4096);
    assert_int_equal(m->arena_bytes, 3072);
    assert_int_equal(m->offset[c], 2048);
    assert_true(m->offset[c] != m->offset[a]);
    t_free(&t);
}

/* ------------------------------------------------------------------------ */
/* row independence                                                          */
/* ------------------------------------------------------------------------ */

static void test_rowindep(void **state)
{
    (void)state;
    T t = {0};
    B *b = &t.b;
    b_init(b);
    int32_t x = b_input(b, "x", 2, (int64_t[]){-2, 64});
    int32_t w = b_weight(b, "w", 2, (int64_t[]){32, 64});
    int32_t y = b_matmul(b, OP_LINEAR, x, w);
    int32_t z = b_like(b, OP_GELU, y);
    DimId flat = graph_dim_mul(&b->g, b->g.vals.v[x].dims[0], dc(b, 32));
    int32_t f = b_op(b, OP_RESHAPE, &z, 1, 1, &flat);   /* [s0*32]: s0 stays outermost */
    b_output(b, f);
    b_gears(b, 0, 0, (int64_t[]){2, 4, 8}, 3, 1);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.rowindep.n, 1);
    assert_int_equal(t.p.rowindep.v[0].sym, 0);
    assert_int_equal(t.p.rowindep.v[0].independent, 1);
    assert_int_equal(t.p.rowindep.v[0].op, -1);
    assert_null(t.p.rowindep.v[0].why);
    t_free(&t);

    b_init(b);
    x = b_input(b, "x", 2, (int64_t[]){-2, 64});
    y = b_like(b, OP_RELU, x);
    int32_t s = b_op(b, OP_SUM, &y, 1, 1, &b->g.vals.v[x].dims[1]);
    Op *op = op_at(b, s);
    op->attr[0] = 0, op->attr[1] = 0, op->nattr = 2;  /* sum(dim=0) */
    b_output(b, s);
    b_gears(b, 0, 0, (int64_t[]){2, 4, 8}, 3, 1);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.rowindep.v[0].independent, 0);
    assert_int_equal(t.p.rowindep.v[0].op, op_of(b, s));
    assert_string_equal(t.p.rowindep.v[0].why, "sum reduces over it");
    t_free(&t);

    /* a reshape that moves s0 inside: [s0,64] -> [64,s0] */
    b_init(b);
    x = b_input(b, "x", 2, (int64_t[]){-2, 64});
    DimId swapped[2] = {dc(b, 64), b->g.vals.v[x].dims[0]};
    int32_t r = b_op(b, OP_RESHAPE, &x, 1, 2, swapped);
    b_output(b, b_like(b, OP_EXP, r));
    b_gears(b, 0, 0, (int64_t[]){2, 4}, 2, 1);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.rowindep.v[0].independent, 0);
    assert_int_equal(t.p.rowindep.v[0].op, op_of(b, r));
    t_free(&t);
}

/* ------------------------------------------------------------------------ */
/* static kernels                                                            */
/* ------------------------------------------------------------------------ */

static void test_kernels_dedup(void **state)
{
    (void)state;
    T t = {0};
    B *b = &t.b;
    b_init(b);
    int32_t x = b_input(b, "x", 2, (int64_t[]){-2, 8});
    int32_t w = b_weight(b, "w", 2, (int64_t[]){8, 8});
    int32_t y = b_matmul(b, OP_MM, x, w);     /* shape depends on the gear */
    int32_t e1 = b_like(b, OP_EXP, w);        /* does not */
    int32_t e2 = b_like(b, OP_EXP, w);        /* same signature again */
    int32_t v = b_like(b, OP_RESHAPE, e2);    /* a view: recorded, not selected */
    int32_t s = b_like2(b, OP_ADD, w, v);
    int32_t s2 = b_like(b, OP_ADD, w);        /* tensor + scalar: same stem, other attrs */
    op_at(b, s2)->attr[0] = 1, op_at(b, s2)->nattr = 1, op_at(b, s2)->fattr[0] = 2.0;
    b_output(b, y), b_output(b, e1), b_output(b, s), b_output(b, s2);
    b_gears(b, 0, 0, (int64_t[]){2, 4}, 2, 1);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.kernels.n, 6);
    const StaticKernel *k = t.p.kernels.v;
    assert_string_equal(k[0].key, "MatMulV2_float_ND_2_8_0");
    assert_int_equal(k[0].gear, 0);
    assert_int_equal(k[0].count, 1);
    assert_string_equal(k[1].key, "Exp_float_ND_8_8_0");
    assert_int_equal(k[1].op, op_of(b, e1));
    assert_int_equal(k[1].count, 4);  /* two ops x two gears */
    assert_string_equal(k[2].key, "Reshape_float_ND_8_8_0");
    assert_int_equal(k[2].selected, 0);
    assert_int_equal(k[2].count, 2);
    assert_string_equal(k[3].key, "Add_float_ND_8_8_0");
    assert_int_equal(k[3].selected, 1);
    assert_string_equal(k[4].key, "Add_float_ND_8_8_1");
    assert_string_equal(k[5].key, "MatMulV2_float_ND_4_8_0");
    assert_int_equal(k[5].gear, 1);
    assert_int_equal(k[5].kind, OP_MM);
    t_free(&t);
}

/* Without a target's names (plan_build, no PlanOptions) the planner names
 * no ACL operator or dtype: keys use the dump names and torch's dtype
 * names, and mm and linear, one MatMulV2 stem with codegen's names, get
 * stems of their own. */
static void test_kernels_target_free(void **state)
{
    (void)state;
    T t = {0};
    B *b = &t.b;
    b_init(b);
    int32_t x = b_input(b, "x", 2, (int64_t[]){2, 8});
    int32_t w = b_weight(b, "w", 2, (int64_t[]){8, 8});
    int32_t y = b_matmul(b, OP_MM, x, w);
    b_output(b, y), b_output(b, b_like(b, OP_EXP, y));
    t.rc = plan_build(&t.p, &t.b.g, &t.diags);
    assert_int_equal(t.rc, 0);
    assert_int_equal(t.p.kernels.n, 2);
    assert_string_equal(t.p.kernels.v[0].key, "mm_float32_ND_2_8_0");
    assert_string_equal(t.p.kernels.v[1].key, "exp_float32_ND_2_8_0");
    plan_free(&t.p);
    PlanOptions opt = {codegen_op_type, codegen_dtype_name, 0, 0};
    assert_int_equal(plan_build_with(&t.p, &t.b.g, &opt, &t.diags), 0);
    assert_string_equal(t.p.kernels.v[0].key, "MatMulV2_float_ND_2_8_0");
    t_free(&t);
}

/* ------------------------------------------------------------------------ */
/* matmuls reading views in place (planner/strided.c)                        */
/* ------------------------------------------------------------------------ */

/* One slice h[..., start:end:step] along dim 2 of h [B, T, N]. */
static int32_t b_slice(B *b, int32_t h, int64_t start, int64_t end, int64_t step, int64_t n)
{
    const Val *hv = &b->g.vals.v[h];
    DimId dims[3] = {hv->dims[0], hv->dims[1], dc(b, n)};
    int32_t v = b_op(b, OP_SLICE, &h, 1, 3, dims);
    Op *op = op_at(b, v);
    op->attr[0] = 2, op->attr[1] = start, op->attr[2] = end, op->attr[3] = step;
    op->nattr = 4;
    return v;
}

/* x [B, T, H * D] viewed as heads [B, H, T, D] (reshape, transpose). */
static int32_t b_heads(B *b, int32_t x, int64_t h, int64_t d)
{
    const Val *xv = &b->g.vals.v[x];
    DimId rd[4] = {xv->dims[0], xv->dims[1], dc(b, h), dc(b, d)};
    DimId pd[4] = {rd[0], rd[2], rd[1], rd[3]};
    int32_t r = b_op(b, OP_RESHAPE, &x, 1, 4, rd);
    Op *op = op_at(b, r);
    for (int i = 0; i < 4; i++)
        op->attr[i] = rd[i];
    op->nattr = 4;
    int32_t t = b_op(b, OP_PERMUTE, &r, 1, 4, pd);
    op = op_at(b, t);
    op->attr[0] = 0, op->attr[1] = 2, op->attr[2] = 1, op->attr[3] = 3;
    op->nattr = 4;
    return t;
}

/* The last two dims of x swapped. */
static int32_t b_transpose(B *b, int32_t x)
{
    const Val *xv = &b->g.vals.v[x];
    int n = xv->ndim;
    DimId d[GRAPH_MAX_DIMS];
    memcpy(d, xv->dims, sizeof d);
    d[n - 2] = xv->dims[n - 1], d[n - 1] = xv->dims[n - 2];
    int32_t t = b_op(b, OP_PERMUTE, &x, 1, n, d);
    Op *op = op_at(b, t);
    for (int i = 0; i < n; i++)
        op->attr[i] = i;
    op->attr[n - 2] = n - 1, op->attr[n - 1] = n - 2;
    op->nattr = (uint32_t)n;
    return t;
}

/* q, k, v sliced from one projection h [B, 5, 3 * 24] (B a symbol, as
 * under gears), viewed as 3 heads of 8: q @ k^T reads h in place at
 * offsets 0 and 24 through the heads' strides, and no slice, reshape or
 * permute of q and k is copied; v's slice is also read by an add, so it
 * stays, while att @ v still reads h; a reshape that merges dims stops
 * the walk. */
static void test_strided_slices(void **state)
{
    (void)state;
    T t = {0};
    b_init(&t.b);
    int64_t hd[3] = {-2, 5, 72};
    int32_t h = b_input(&t.b, "h", 3, hd);
    int32_t q = b_slice(&t.b, h, 0, 24, 1, 24), k = b_slice(&t.b, h, 24, 48, 1, 24);
    int32_t v = b_slice(&t.b, h, 48, GRAPH_END, 1, 24);
    int32_t qh = b_heads(&t.b, q, 3, 8), kt = b_transpose(&t.b, b_heads(&t.b, k, 3, 8));
    const Val *qv = &t.b.g.vals.v[qh];
    DimId sd[4] = {qv->dims[0], qv->dims[1], qv->dims[2], qv->dims[2]};
    int32_t in[2] = {qh, kt};
    int32_t s = b_op(&t.b, OP_MATMUL, in, 2, 4, sd);
    in[0] = s, in[1] = b_heads(&t.b, v, 3, 8);
    int32_t o = b_op(&t.b, OP_MATMUL, in, 2, 4, qv->dims);
    int32_t vplus = b_like2(&t.b, OP_ADD, v, v);
    b_output(&t.b, o);
    b_output(&t.b, vplus);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    t.p.strided_views = 1;   /* the CPU target's (plan_build_for with consts at create) */
    assert_true(plan_mm_strided(&t.p, op_of(&t.b, s)));
    assert_true(plan_mm_strided(&t.p, op_of(&t.b, o)));
    PlanView pv;
    assert_int_equal(plan_mm_view(&t.p, qh, &pv), 1);
    assert_int_equal(pv.base, h);
    /* [B, 3, 5, 8] over h [B, 5, 72]: B, heads 8 * 1, rows 1 * 72, cols 1 */
    assert_int_equal(pv.map[0], 0);
    assert_int_equal(pv.map[1], 2);
    assert_int_equal(pv.coef[1], 8);
    assert_int_equal(pv.map[2], 1);
    assert_int_equal(pv.coef[2], 1);
    assert_int_equal(pv.map[3], 2);
    assert_int_equal(pv.coef[3], 1);
    assert_int_equal(pv.off[2], 0);
    assert_int_equal(plan_mm_view(&t.p, kt, &pv), 1);
    assert_int_equal(pv.base, h);
    assert_int_equal(pv.off[2], 24);
    assert_int_equal(pv.map[2], 2);   /* k^T: its rows are h's columns */
    assert_int_equal(pv.map[3], 1);
    unsigned char *el = plan_views_elided(&t.p);
    assert_true(el[op_of(&t.b, q)]);
    assert_true(el[op_of(&t.b, k)]);
    assert_true(el[op_of(&t.b, qh)]);
    assert_true(el[op_of(&t.b, kt)]);
    assert_false(el[op_of(&t.b, v)]);   /* the add reads it */
    free(el);
    /* a reshape merging dims is no split: the walk stops there */
    const Val *rv = &t.b.g.vals.v[q];
    DimId md[2] = {rv->dims[0], dc(&t.b, 5 * 24)};
    int32_t m = b_op(&t.b, OP_RESHAPE, &q, 1, 2, md);
    assert_false(plan_mm_view_op(&t.p, op_of(&t.b, m)));
    t_free(&t);
}

/* x with dims given as constants. */
static int32_t b_shaped(B *b, OpKind kind, int32_t x, int nd, const int64_t *dims)
{
    DimId d[GRAPH_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        d[i] = dc(b, dims[i]);
    return b_op(b, kind, &x, 1, nd, d);
}

/* A decode step's q @ k^T over a KV cache [3, 10, 2, 8] (slots, T, KVH,
 * D) read through cache[idx] (one int64 element), its transpose and
 * repeat_kv (expand [1, 2, 4, 10, 8], reshape [1, 8, 10, 8]): the matmul
 * reads the cache itself, at idx's row, heads repeated 4 times (dim 1),
 * and none of the views is copied; an index by two elements, and a merge
 * of a dim that is not broadcast, are no steps of the walk. */
static void test_strided_kv_cache(void **state)
{
    (void)state;
    T t = {0};
    b_init(&t.b);
    int64_t cd[4] = {3, 10, 2, 8}, id[1] = {1}, i2d[1] = {2}, qd[4] = {1, 8, 1, 8};
    int32_t cache = b_input(&t.b, "cache", 4, cd), q = b_input(&t.b, "q", 4, qd);
    int32_t ix = b_input(&t.b, "idx", 1, id), ix2 = b_input(&t.b, "idx2", 1, i2d);
    t.b.g.vals.v[ix].dtype = DT_I64;
    t.b.g.vals.v[ix2].dtype = DT_I64;
    int32_t in[2] = {cache, ix};
    int64_t pd[4] = {1, 2, 10, 8}, ud[5] = {1, 2, 1, 10, 8};
    int64_t ed[5] = {1, 2, 4, 10, 8}, rd[4] = {1, 8, 10, 8};
    DimId gdd[4] = {dc(&t.b, 1), dc(&t.b, 10), dc(&t.b, 2), dc(&t.b, 8)};
    int32_t gat = b_op(&t.b, OP_INDEX, in, 2, 4, gdd);
    op_at(&t.b, gat)->attr[0] = 0;
    op_at(&t.b, gat)->nattr = 1;
    int32_t per = b_shaped(&t.b, OP_PERMUTE, gat, 4, pd);
    Op *op = op_at(&t.b, per);
    op->attr[0] = 0, op->attr[1] = 2, op->attr[2] = 1, op->attr[3] = 3;
    op->nattr = 4;
    int32_t un = b_shaped(&t.b, OP_RESHAPE, per, 5, ud);
    int32_t ex = b_shaped(&t.b, OP_EXPAND, un, 5, ed);
    int32_t rk = b_shaped(&t.b, OP_RESHAPE, ex, 4, rd);
    int32_t kt = b_transpose(&t.b, rk);
    DimId sd[4] = {dc(&t.b, 1), dc(&t.b, 8), dc(&t.b, 1), dc(&t.b, 10)};
    in[0] = q, in[1] = kt;
    int32_t s = b_op(&t.b, OP_MATMUL, in, 2, 4, sd);
    b_output(&t.b, s);
    in[0] = cache, in[1] = ix2;
    DimId g2[4] = {dc(&t.b, 2), dc(&t.b, 10), dc(&t.b, 2), dc(&t.b, 8)};
    int32_t gat2 = b_op(&t.b, OP_INDEX, in, 2, 4, g2);
    op_at(&t.b, gat2)->attr[0] = 0;
    op_at(&t.b, gat2)->nattr = 1;
    int64_t md[3] = {20, 2, 8};
    int32_t merged = b_shaped(&t.b, OP_RESHAPE, gat2, 3, md);   /* [2, 10] merged: no broadcast */
    b_output(&t.b, merged);
    t_plan(&t);
    assert_int_equal(t.rc, 0);
    t.p.strided_views = 1;   /* the CPU target's (plan_build_for with consts at create) */
    assert_true(plan_mm_strided(&t.p, op_of(&t.b, s)));
    int dim = -1;
    int64_t rep = 0;
    assert_true(plan_mm_rep(&t.p, op_of(&t.b, s), &dim, &rep));
    assert_int_equal(dim, 1);
    assert_int_equal(rep, 4);
    PlanView pv;
    assert_int_equal(plan_mm_view(&t.p, kt, &pv), 1);
    assert_int_equal(pv.base, cache);
    assert_int_equal(pv.ix, ix);
    assert_int_equal(pv.ixdim, 0);
    assert_int_equal(pv.map[1], 2);   /* heads: the cache's KVH dim, each read 4 times */
    assert_int_equal(pv.rep[1], 4);
    assert_int_equal(pv.map[2], 3);   /* k^T's rows: D */
    assert_int_equal(pv.map[3], 1);   /* its columns: T */
    assert_int_equal(pv.rep[2], 1);
    unsigned char *el = plan_views_elided(&t.p);
    const int32_t views[] = {gat, per, un, ex, rk, kt};   /* no copy of any */
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
        assert_true(el[op_of(&t.b, views[i])]);
    assert_false(el[op_of(&t.b, gat2)]);
    free(el);
    assert_false(plan_mm_view_op(&t.p, op_of(&t.b, gat2)));   /* two rows: a gather */
    assert_false(plan_mm_view_op(&t.p, op_of(&t.b, merged)));
    t_free(&t);
}

/* ------------------------------------------------------------------------ */
/* memory against a reference: random graphs on three streams               */
/* ------------------------------------------------------------------------ */

/* The reference: happens-before as a bit per pair of units (the transitive
 * closure of stream order and events), each buffer's users, and first fit
 * over the earlier buffers whose users do not all happen-before its birth.
 * The planner's arena (per-stream latest uses, clocks, a list of buffers
 * that may still be in use) must give the same offsets. */
typedef struct Ref {
    size_t n;              /* units */
    unsigned char *hb;     /* n x n: hb[b * n + a] when a happens-before b */
} Ref;

static void ref_closure(const Plan *p, Ref *r)
{
    r->n = p->units.n;
    r->hb = calloc(r->n * r->n + 1, 1);
    int32_t *last = malloc((p->streams.n + 1) * sizeof *last);
    for (size_t s = 0; s < p->streams.n; s++)
        last[s] = -1;
    for (size_t u = 0; u < r->n; u++) {
        const PlanUnit *unit = &p->units.v[u];
        size_t preds[65], np = 0;
        if (last[unit->stream] >= 0)
            preds[np++] = (size_t)last[unit->stream];
        last[unit->stream] = (int32_t)u;
        for (size_t i = 0; i < unit->nwait && np < 65; i++)
            preds[np++] = (size_t)p->events.v[unit->wait[i]].after;
        for (size_t i = 0; i < np; i++) {
            r->hb[u * r->n + preds[i]] = 1;
            for (size_t a = 0; a < r->n; a++)
                r->hb[u * r->n + a] |= r->hb[preds[i] * r->n + a];
        }
    }
    free(last);
}

/* A graph of nops random ops on x [4, 4] and y [16, 16]: elementwise ops,
 * views and copies, spread over three streams, a few npu_wait_tensor-like
 * control edges, a few outputs. */
static void random_graph(B *b, unsigned seed, int nops)
{
    b_init(b);
    int streams[3] = {0, graph_stream(&b->g, "s1", 0, 1, 1), graph_stream(&b->g, "s2", 0, 2, 1)};
    int32_t x = b_input(b, "x", 2, (int64_t[]){4, 4}), y = b_input(b, "y", 2, (int64_t[]){16, 16});
    int32_t vals[1024];
    int nv = 0;
    vals[nv++] = x, vals[nv++] = y;
    for (int i = 0; i < nops && nv < 1024; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        int32_t a = vals[nv - 1 - (int)(r % (unsigned)(nv < 8 ? nv : 8))];
        b->stream = streams[(r >> 4) % 3];
        static const OpKind kinds[] = {OP_EXP, OP_RELU, OP_ADD, OP_RESHAPE, OP_CLONE, OP_PERMUTE};
        OpKind k = kinds[(r >> 7) % 6];
        int32_t v;
        if (k == OP_ADD) {
            int32_t c = a;
            for (int j = nv - 1; j >= 0; j--)   /* the latest other value of a's shape */
                if (vals[j] != a && b->g.vals.v[vals[j]].dims[0] == b->g.vals.v[a].dims[0]) {
                    c = vals[j];
                    break;
                }
            v = b_like2(b, OP_ADD, a, c);
        } else {
            v = b_like(b, k, a);
        }
        vals[nv++] = v;
        if ((r >> 11) % 7 == 0 && b->g.ops.n > 3)   /* a wait on an earlier op (no input) */
            graph_add_ctrl(&b->g, op_of(b, v), 2 + (int32_t)((r >> 14) % (b->g.ops.n - 3)), 1);
        if ((r >> 17) % 29 == 0)
            b_output(b, v);
    }
    b_output(b, vals[nv - 1]);
    b->stream = 0;
}

/* The reference's offset of every buffer of gear 0, checked against the plan. */
static void assert_memory_reference(const T *t)
{
    const Graph *g = &t->b.g;
    const Plan *p = &t->p;
    const PlanMemory *m = &p->mem.v[0];
    size_t nv = g->vals.n;
    Ref r;
    ref_closure(p, &r);
    int32_t *head = malloc(nv * sizeof *head), *root = malloc(nv * sizeof *root);
    char *to_end = calloc(nv, 1);
    for (size_t v = 0; v < nv; v++) {
        root[v] = graph_storage_root(g, (int32_t)v);
        int32_t h = (int32_t)v;
        while (m->inplace_of[h] >= 0)
            h = m->inplace_of[h];
        head[v] = h;
    }
    for (size_t i = 0; i < g->outputs.n; i++)
        to_end[head[root[g->outputs.v[i].value]]] = 1;
    int64_t *off = malloc(nv * sizeof *off), *end = malloc(nv * sizeof *end);
    for (size_t b = 0; b < nv; b++) {
        unsigned flags = op_info[g->ops.v[g->vals.v[b].op].kind].flags;
        if ((flags & (OPF_SOURCE | OPF_ALIAS | OPF_INPLACE)) || head[b] != (int32_t)b)
            continue;
        int32_t born = p->unit_of_op[g->vals.v[b].op];
        int64_t size = (m->bytes[b] + 63) / 64 * 64, at = 0;
        for (int moved = 1; moved;) {
            moved = 0;
            for (size_t a = 0; a < b; a++) {   /* earlier buffers in use at b's birth */
                if (head[a] != (int32_t)a || m->bytes[a] <= 0 || off[a] >= at + size || end[a] <= at)
                    continue;
                if (op_info[g->ops.v[g->vals.v[a].op].kind].flags & (OPF_SOURCE | OPF_ALIAS | OPF_INPLACE))
                    continue;
                int busy = to_end[a];
                for (size_t o = 0; o < g->ops.n && !busy; o++) {
                    const Op *op = &g->ops.v[o];
                    int uses = head[root[op->out]] == (int32_t)a && root[op->out] == op->out;
                    for (uint32_t k = 0; k < op->nin && !uses; k++)
                        uses = op->in[k] >= 0 && head[root[op->in[k]]] == (int32_t)a;
                    int32_t u = p->unit_of_op[o];
                    busy = uses && u >= 0 && (u == born || !r.hb[(size_t)born * r.n + (size_t)u]);
                }
                if (busy) {
                    at = end[a];
                    moved = 1;
                }
            }
        }
        off[b] = at;
        end[b] = at + size;
        assert_int_equal(m->offset[b], at);
    }
    free(off);
    free(end);
    free(head);
    free(root);
    free(to_end);
    free(r.hb);
}

static void test_memory_reference(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 200; seed++) {
        T t = {0};
        random_graph(&t.b, seed, 40);
        t_plan(&t);
        assert_int_equal(t.rc, 0);
        assert_memory_reference(&t);
        t_free(&t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gears_zip_dedup),
        cmocka_unit_test(test_gears_product_order),
        cmocka_unit_test(test_gears_too_many),
        cmocka_unit_test(test_gears_zip_lengths),
        cmocka_unit_test(test_gears_invalid_value),
        cmocka_unit_test(test_gears_none),
        cmocka_unit_test(test_gears_check_fails_in_one_gear),
        cmocka_unit_test(test_gear_sizes),
        cmocka_unit_test(test_streams_seed),
        cmocka_unit_test(test_streams_chain),
        cmocka_unit_test(test_streams_data_edge),
        cmocka_unit_test(test_segments_split_at_nofuse),
        cmocka_unit_test(test_segments_third_stream),
        cmocka_unit_test(test_segments_dynamic_shape),
        cmocka_unit_test(test_memory_inplace_chain),
        cmocka_unit_test(test_memory_reuse),
        cmocka_unit_test(test_memory_no_reuse_across_streams),
        cmocka_unit_test(test_memory_arena_limit),
        cmocka_unit_test(test_rowindep),
        cmocka_unit_test(test_kernels_dedup),
        cmocka_unit_test(test_kernels_target_free),
        cmocka_unit_test(test_strided_slices),
        cmocka_unit_test(test_strided_kv_cache),
        cmocka_unit_test(test_memory_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
