/*
 * test_graph.c - unit tests of the op graph: the tables, symbolic dims
 * (hash-consing, folding, evaluation, text), and graph_add_op's shape and
 * dtype inference for every kind of op, including its error messages and
 * the guarantee that a failed op leaves the graph unchanged.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../ir/graph.h"

/* ---- fixture ---- */

/* A graph with three symbols s0, s1, s2 (dims of input 0) and the message
 * of the last op graph_add_op refused. */
typedef struct T {
    Graph g;
    DimId s[3];
    char err[256];
} T;

static T *t_new(void)
{
    T *t = calloc(1, sizeof *t);
    graph_init(&t->g, "Model.forward", "model.py");
    for (int i = 0; i < 3; i++)
        t->s[i] = graph_dim_sym(&t->g, 0, i, 4);
    return t;
}

static void t_free(T *t)
{
    graph_free(&t->g);
    free(t);
}

/* A graph input of dtype dt and shape spec: "2,s0,8" ("" for a 0-d tensor). */
static int32_t tensor(T *t, DType dt, const char *spec)
{
    DimId dims[GRAPH_MAX_DIMS];
    int n = 0;
    for (const char *p = spec; *p;) {
        if (*p == 's')
            dims[n++] = t->s[p[1] - '0'];
        else
            dims[n++] = graph_dim_const(&t->g, strtoll(p, NULL, 10));
        p = strchr(p, ',');
        if (!p)
            break;
        p++;
    }
    return graph_add_input(&t->g, "x", dt, FMT_ND, n, dims, NULL, 0, 1, 1);
}

#define ARR32(...) (const int32_t[]){__VA_ARGS__}, \
    (uint32_t)(sizeof((const int32_t[]){__VA_ARGS__}) / sizeof(int32_t))
#define ARR64(...) (const int64_t[]){__VA_ARGS__}, \
    (uint32_t)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define NONE NULL, 0

/* graph_add_op, with the graph's message copied to t->err ("" when it
 * added the op). */
static int32_t add(T *t, const OpDesc *d)
{
    int32_t id = graph_add_op(&t->g, d);
    assert_true(id >= 0 ? t->g.error.len == 0 : t->g.error.len > 0);
    snprintf(t->err, sizeof t->err, "%s", id < 0 ? t->g.error.s : "");
    return id;
}

/* Adds an op; returns the op id (or -1, message in t->err). */
static int32_t op(T *t, OpKind kind, const int32_t *in, uint32_t nin,
                  const int64_t *attr, uint32_t nattr, DType dt)
{
    OpDesc d = {0};
    d.kind = kind;
    d.in = in;
    d.nin = nin;
    d.attr = attr;
    d.nattr = nattr;
    d.dtype = dt;
    d.sk = -1;
    d.line = 3;
    d.col = 5;
    return add(t, &d);
}

/* The first output of an op that must have been added. */
static int32_t out(T *t, int32_t o)
{
    assert_true(o >= 0);
    return t->g.ops.v[o].out;
}

static void assert_type(T *t, int32_t v, const char *want)
{
    StrBuf sb = {0};
    graph_val_type_str(&t->g, v, &sb);
    assert_string_equal(sb.s, want);
    sb_free(&sb);
}

static void assert_dim(T *t, DimId d, const char *want)
{
    StrBuf sb = {0};
    graph_dim_str(&t->g, d, &sb);
    assert_string_equal(sb.s, want);
    sb_free(&sb);
}

static DimId C(T *t, int64_t c) { return graph_dim_const(&t->g, c); }

/* ---- tables ---- */

static void test_tables(void **state)
{
    (void)state;
    assert_string_equal(dtype_name(DT_BF16), "bfloat16");
    assert_string_equal(dtype_name(DT_UNKNOWN), "?");
    assert_int_equal(dtype_size(DT_I64), 8);
    assert_int_equal(dtype_size(DT_F16), 2);
    assert_int_equal(dtype_size(DT_UNKNOWN), 0);
    assert_string_equal(dtype_short(DT_BOOL), "b8");
    assert_string_equal(dtype_short(DT_BF16), "bf16");
    assert_true(dtype_is_float(DT_BF16));
    assert_false(dtype_is_float(DT_I32));
    assert_int_equal(dtype_from_torch_name("half"), DT_F16);
    assert_int_equal(dtype_from_torch_name("long"), DT_I64);
    assert_int_equal(dtype_from_torch_name("int"), DT_I32);
    assert_int_equal(dtype_from_torch_name("float"), DT_F32);
    assert_int_equal(dtype_from_torch_name("torch.bfloat16"), DT_BF16);
    assert_int_equal(dtype_from_torch_name("float64"), DT_UNKNOWN);
    assert_string_equal(format_name(FMT_ND), "ND");
    assert_string_equal(format_name(FMT_FRACTAL_NZ), "FRACTAL_NZ");
    assert_string_equal(format_name(7), "FORMAT_7");
    assert_string_equal(op_info[OP_MATMUL].name, "matmul");
    assert_int_equal(op_info[OP_LINEAR].optional, 2);
    assert_int_equal(op_info[OP_CAT].max_in, OP_ANY);
    assert_int_equal(op_info[OP_RESHAPE].flags, OPF_ALIAS);
    assert_int_equal(op_info[OP_FORMAT_CAST].flags, OPF_ALIAS | OPF_NOFUSE);
    assert_string_equal(op_info[OP_SLICE_STORE].name, "slice_store");
}

static void test_init(void **state)
{
    (void)state;
    T *t = t_new();
    assert_string_equal(t->g.name, "Model.forward");
    assert_int_equal(t->g.streams.n, 1);
    assert_null(t->g.streams.v[0].tag);
    assert_int_equal(t->g.cfg.dynamic, -1);
    assert_int_equal(t->g.syms.n, 3);
    assert_string_equal(t->g.syms.v[2].name, "s2");
    assert_int_equal(t->g.syms.v[2].dim, 2);
    assert_int_equal(t->g.syms.v[2].example, 4);
    t_free(t);
}

/* ---- symbolic dims ---- */

static void test_dims_hash_consing(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    DimId s0 = t->s[0], s1 = t->s[1];
    assert_int_equal(C(t, 4), C(t, 4));
    assert_int_not_equal(s0, s1);
    assert_int_equal(graph_dim_add(g, s0, s1), graph_dim_add(g, s1, s0));
    assert_int_equal(graph_dim_mul(g, s0, s1), graph_dim_mul(g, s1, s0));
    assert_int_equal(graph_dim_min(g, s0, s1), graph_dim_min(g, s1, s0));
    assert_int_equal(graph_dim_max(g, s0, s1), graph_dim_max(g, s1, s0));
    assert_int_equal(graph_dim_mul(g, C(t, 2), s0), graph_dim_mul(g, s0, C(t, 2)));
    size_t n = g->dims.n;
    graph_dim_add(g, s1, s0);
    graph_dim_mul(g, s0, C(t, 2));
    assert_int_equal(g->dims.n, n);
    int64_t c = 0;
    assert_true(graph_dim_const_value(g, C(t, 9), &c));
    assert_int_equal(c, 9);
    assert_false(graph_dim_const_value(g, s0, &c));
    t_free(t);
}

static void test_dims_folding(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    DimId s0 = t->s[0], s1 = t->s[1];
    assert_int_equal(graph_dim_add(g, s0, C(t, 0)), s0);
    assert_int_equal(graph_dim_add(g, C(t, 0), s0), s0);
    assert_int_equal(graph_dim_sub(g, s0, C(t, 0)), s0);
    assert_int_equal(graph_dim_sub(g, s0, s0), C(t, 0));
    assert_int_equal(graph_dim_mul(g, s0, C(t, 1)), s0);
    assert_int_equal(graph_dim_mul(g, s0, C(t, 0)), C(t, 0));
    assert_int_equal(graph_dim_div(g, s0, C(t, 1)), s0);
    assert_int_equal(graph_dim_min(g, s0, s0), s0);
    assert_int_equal(graph_dim_max(g, s1, s1), s1);
    assert_int_equal(graph_dim_add(g, C(t, 3), C(t, 4)), C(t, 7));
    assert_int_equal(graph_dim_sub(g, C(t, 3), C(t, 5)), C(t, -2));
    assert_int_equal(graph_dim_mul(g, C(t, 3), C(t, 4)), C(t, 12));
    assert_int_equal(graph_dim_div(g, C(t, 7), C(t, 2)), C(t, 3));
    assert_int_equal(graph_dim_div(g, C(t, -7), C(t, 2)), C(t, -4));
    assert_int_equal(graph_dim_min(g, C(t, 3), C(t, 4)), C(t, 3));
    assert_int_equal(graph_dim_max(g, C(t, 3), C(t, 4)), C(t, 4));
    /* reshape round trips: (a*c)//c = a, (s0*8)//4 = s0*2 */
    assert_int_equal(graph_dim_div(g, graph_dim_mul(g, s0, C(t, 4)), C(t, 4)), s0);
    assert_int_equal(graph_dim_div(g, graph_dim_mul(g, s0, C(t, 8)), C(t, 4)),
                     graph_dim_mul(g, s0, C(t, 2)));
    /* (s0*2+3)//2 = s0+1; (s0//2)//3 = s0//6 */
    DimId e = graph_dim_add(g, graph_dim_mul(g, s0, C(t, 2)), C(t, 3));
    assert_int_equal(graph_dim_div(g, e, C(t, 2)), graph_dim_add(g, s0, C(t, 1)));
    assert_int_equal(graph_dim_div(g, graph_dim_div(g, s0, C(t, 2)), C(t, 3)),
                     graph_dim_div(g, s0, C(t, 6)));
    /* the same when the new constant 2*7777 makes the table grow (a
     * regression: a pointer into the table was read after it moved) */
    DimId half = graph_dim_div(g, s1, C(t, 2)), c7777 = C(t, 7777);
    for (int64_t k = 0; g->dims.n < g->dims.cap; k++)
        C(t, 1000000 + k);
    DimId q = graph_dim_div(g, half, c7777);
    assert_int_equal(q, graph_dim_div(g, s1, C(t, 2 * 7777)));
    assert_dim(t, q, "s1//15554");
    /* sums meet whatever the order they were built in */
    assert_int_equal(graph_dim_add(g, graph_dim_add(g, s0, C(t, 1)), C(t, 1)),
                     graph_dim_add(g, s0, C(t, 2)));
    assert_int_equal(graph_dim_sub(g, s0, graph_dim_sub(g, s0, C(t, 1))), C(t, 1));
    assert_int_equal(graph_dim_add(g, graph_dim_add(g, s0, s1), s0),
                     graph_dim_add(g, graph_dim_mul(g, s0, C(t, 2)), s1));
    assert_int_equal(graph_dim_mul(g, graph_dim_mul(g, s0, C(t, 2)), s1),
                     graph_dim_mul(g, graph_dim_mul(g, s0, s1), C(t, 2)));
    /* symbols are sizes >= 1 */
    assert_int_equal(graph_dim_min(g, C(t, 1), s0), C(t, 1));
    DimId m1 = graph_dim_sub(g, s0, C(t, 1));
    assert_int_equal(graph_dim_max(g, m1, C(t, 0)), m1);
    DimId p1 = graph_dim_add(g, s0, C(t, 1));
    assert_int_equal(graph_dim_max(g, s0, p1), p1);
    assert_int_equal(graph_dim_min(g, s0, p1), s0);
    assert_int_equal(graph_dim_div(g, s1, s1), C(t, 1));
    t_free(t);
}

/* a // b is exact when b's factors are among a's (as for the dim a
 * reshape infers for -1 behind a geared dim, s0*512 // (s0*8), is 64). */
static void test_dims_exact_division(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    DimId s0 = t->s[0], s1 = t->s[1], s2 = t->s[2];
    DimId a = graph_dim_mul(g, s0, C(t, 512)), b = graph_dim_mul(g, s0, C(t, 8));
    assert_int_equal(graph_dim_div(g, a, b), C(t, 64));
    /* s0*s1*s2*12 // (s2*s0*4) == 3*s1, whatever the order of the factors */
    DimId p = graph_dim_mul(g, graph_dim_mul(g, graph_dim_mul(g, s0, s1), s2), C(t, 12));
    DimId q = graph_dim_mul(g, graph_dim_mul(g, s2, s0), C(t, 4));
    assert_int_equal(graph_dim_div(g, p, q), graph_dim_mul(g, s1, C(t, 3)));
    assert_int_equal(graph_dim_div(g, graph_dim_mul(g, s0, s1), s1), s0);
    /* not exact, or not provably: left a quotient */
    DimId r = graph_dim_div(g, graph_dim_mul(g, s0, C(t, 6)), graph_dim_mul(g, s0, C(t, 4)));
    int64_t v, symval[3] = {5, 7, 9};
    assert_int_equal(graph_dim_eval(g, r, symval, &v), 0);
    assert_int_equal(v, 1);                       /* 30 // 20 */
    assert_false(graph_dim_const_value(g, r, &v));
    assert_false(graph_dim_const_value(g, graph_dim_div(g, graph_dim_mul(g, s0, C(t, 8)), s1), &v));
    DimId m1 = graph_dim_sub(g, s0, C(t, 1));      /* may be 0: (s0-1)*s1 // (s0-1) stays */
    DimId d = graph_dim_div(g, graph_dim_mul(g, m1, s1), m1);
    assert_int_not_equal(d, s1);
    symval[0] = 1;
    assert_int_equal(graph_dim_eval(g, d, symval, &v), -2);   /* a // 0 */
    t_free(t);
}

static void test_dims_eval(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    DimId s0 = t->s[0], s1 = t->s[1], s2 = t->s[2];
    int64_t symval[3] = {3, INT64_MIN, 5}, v = 0;
    assert_int_equal(graph_dim_eval(g, graph_dim_mul(g, s0, C(t, 2)), symval, &v), 0);
    assert_int_equal(v, 6);
    assert_int_equal(graph_dim_eval(g, graph_dim_add(g, s1, C(t, 1)), symval, &v), -1);
    assert_int_equal(graph_dim_eval(g, graph_dim_div(g, graph_dim_add(g, s0, C(t, 1)), C(t, 2)),
                                    symval, &v), 0);
    assert_int_equal(v, 2);
    assert_int_equal(graph_dim_eval(g, graph_dim_max(g, s0, s2), symval, &v), 0);
    assert_int_equal(v, 5);
    assert_int_equal(graph_dim_eval(g, graph_dim_min(g, s0, s2), symval, &v), 0);
    assert_int_equal(v, 3);
    /* floor division: (3-10)//4 = -2 */
    DimId q = graph_dim_div(g, graph_dim_sub(g, s0, C(t, 10)), C(t, 4));
    assert_int_equal(graph_dim_eval(g, q, symval, &v), 0);
    assert_int_equal(v, -2);
    /* division by zero: no size (-2), like an overflow */
    assert_int_equal(graph_dim_eval(g, graph_dim_div(g, s0, C(t, 0)), symval, &v), -2);
    assert_int_equal(graph_dim_eval(g, graph_dim_div(g, s2, graph_dim_sub(g, s0, C(t, 3))),
                                    symval, &v), -2);
    /* constants need no binding */
    assert_int_equal(graph_dim_eval(g, C(t, 42), NULL, &v), 0);
    assert_int_equal(v, 42);
    assert_int_equal(graph_dim_eval(g, s0, NULL, &v), -1);
    t_free(t);
}

/* graph_ckd_* and graph_size_check: the checked arithmetic every size
 * computation uses, and the size invariant. */
static void test_checked_arith(void **state)
{
    (void)state;
    int64_t r = 0;
    assert_false(graph_ckd_add(&r, INT64_MAX - 1, 1));
    assert_true(r == INT64_MAX);
    assert_true(graph_ckd_add(&r, INT64_MAX, 1));
    assert_true(graph_ckd_add(&r, INT64_MIN, -1));
    assert_false(graph_ckd_sub(&r, -1, INT64_MAX));
    assert_true(r == INT64_MIN);
    assert_true(graph_ckd_sub(&r, 0, INT64_MIN));
    assert_false(graph_ckd_mul(&r, (int64_t)1 << 31, (int64_t)1 << 31));
    assert_true(r == (int64_t)1 << 62);
    assert_true(graph_ckd_mul(&r, (int64_t)1 << 62, 4));   /* the reshape: 16 when wrapped */
    assert_true(graph_ckd_mul(&r, INT64_MIN, -1));
    int64_t bytes = 0;
    assert_int_equal(graph_size_check(2, (int64_t[]){4, 4}, 4, &bytes), 0);
    assert_int_equal(bytes, 64);
    assert_int_equal(graph_size_check(0, NULL, 8, &bytes), 0);
    assert_int_equal(bytes, 8);
    assert_int_equal(graph_size_check(1, (int64_t[]){GRAPH_MAX_BYTES}, 1, &bytes), 0);
    assert_true(bytes == GRAPH_MAX_BYTES);
    assert_int_equal(graph_size_check(1, (int64_t[]){GRAPH_MAX_BYTES + 1}, 1, NULL), -1);
    assert_int_equal(graph_size_check(1, (int64_t[]){GRAPH_MAX_BYTES}, 2, NULL), -1);
    assert_int_equal(graph_size_check(2, (int64_t[]){(int64_t)1 << 62, 4}, 4, NULL), -1);
    assert_int_equal(graph_size_check(1, (int64_t[]){-1}, 4, NULL), -1);
    /* no elements, but its strides would pass the limit */
    assert_int_equal(graph_size_check(3, (int64_t[]){0, (int64_t)1 << 30, (int64_t)1 << 30}, 1, NULL), -1);
    assert_int_equal(graph_size_check(2, (int64_t[]){0, (int64_t)1 << 40}, 4, &bytes), 0);
    assert_int_equal(bytes, 0);
}

/* Dim arithmetic that overflows gives the sticky overflow marker, never a
 * wrapped size. */
static void test_dims_overflow(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    DimId s0 = t->s[0], s1 = t->s[1];
    const int64_t big = (int64_t)1 << 62;
    uint64_t before = g->overflows;
    DimId ov = graph_dim_mul(g, C(t, big), C(t, 4));
    assert_true(graph_dim_is_overflow(g, ov));
    assert_true(g->overflows > before);
    assert_int_equal(graph_dim_overflow(g), ov);   /* one marker */
    assert_false(graph_dim_is_overflow(g, C(t, big)));
    assert_false(graph_dim_is_overflow(g, s0));
    int64_t c = 0;
    assert_false(graph_dim_const_value(g, ov, &c));
    /* sticky: nothing computed from it is a size again */
    assert_int_equal(graph_dim_add(g, ov, C(t, 16)), ov);
    assert_int_equal(graph_dim_sub(g, ov, ov), ov);
    assert_int_equal(graph_dim_mul(g, ov, C(t, 0)), ov);
    assert_int_equal(graph_dim_div(g, ov, ov), ov);
    assert_int_equal(graph_dim_min(g, C(t, 1), ov), ov);
    assert_int_equal(graph_dim_max(g, s0, ov), ov);
    /* folding and canonical forms */
    assert_int_equal(graph_dim_add(g, C(t, INT64_MAX), C(t, 1)), ov);
    assert_int_equal(graph_dim_sub(g, C(t, INT64_MIN), C(t, 1)), ov);
    assert_int_equal(graph_dim_div(g, C(t, INT64_MIN), C(t, -1)), ov);
    assert_int_equal(graph_dim_div(g, s0, C(t, 0)), ov);
    DimId s0big = graph_dim_mul(g, s0, C(t, big));
    assert_false(graph_dim_is_overflow(g, s0big));
    assert_int_equal(graph_dim_mul(g, s0big, C(t, 4)), ov);       /* coefficient 2^64 */
    DimId s0half = graph_dim_mul(g, s0, C(t, big / 2));
    assert_int_equal(graph_dim_add(g, s0half, s0half), s0big);
    assert_int_equal(graph_dim_add(g, s0big, s0big), ov);          /* coefficient 2^63 */
    assert_int_equal(graph_dim_add(g, graph_dim_add(g, s1, C(t, INT64_MAX)), C(t, 1)), ov);
    assert_int_equal(graph_dim_mul(g, s0big, graph_dim_mul(g, s1, C(t, 4))), ov);
    /* evaluation: -2 for an overflow, even next to an unbound symbol */
    int64_t symval[3] = {big, INT64_MIN, 3}, v = 0;
    assert_int_equal(graph_dim_eval(g, ov, symval, &v), -2);
    assert_int_equal(graph_dim_eval(g, graph_dim_mul(g, s0, C(t, 4)), symval, &v), -2);
    assert_int_equal(graph_dim_eval(g, graph_dim_add(g, s0, s0), symval, &v), -2);
    assert_int_equal(graph_dim_eval(g, graph_dim_mul(g, s0, s0), symval, &v), -2);
    assert_int_equal(graph_dim_eval(g, graph_dim_add(g, graph_dim_mul(g, s0, s0), s1), symval, &v), -2);
    assert_int_equal(graph_dim_eval(g, graph_dim_add(g, s0, s1), symval, &v), -1);
    assert_int_equal(graph_dim_eval(g, graph_dim_add(g, s0, C(t, big - 1)), symval, &v), 0);
    assert_true(v == INT64_MAX);
    assert_int_equal(graph_dim_eval(g, graph_dim_add(g, s0, C(t, big)), symval, &v), -2);
    assert_dim(t, ov, "<overflow>");
    t_free(t);
}

static void test_dims_str(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    DimId s0 = t->s[0], s1 = t->s[1], s2 = t->s[2];
    assert_dim(t, C(t, 4), "4");
    assert_dim(t, C(t, -3), "-3");
    assert_dim(t, s0, "s0");
    assert_dim(t, graph_dim_mul(g, C(t, 2), s0), "s0*2");
    assert_dim(t, graph_dim_div(g, graph_dim_add(g, s0, C(t, 1)), C(t, 2)), "(s0+1)//2");
    assert_dim(t, graph_dim_max(g, s1, s0), "max(s0,s1)");
    assert_dim(t, graph_dim_min(g, C(t, 2), s0), "min(s0,2)");
    assert_dim(t, graph_dim_add(g, s1, s0), "s0+s1");
    assert_dim(t, graph_dim_sub(g, s0, C(t, 1)), "s0-1");
    assert_dim(t, graph_dim_sub(g, C(t, 5), s0), "5-s0");
    assert_dim(t, graph_dim_sub(g, s0, graph_dim_add(g, s1, s2)), "s0-s1-s2");
    assert_dim(t, graph_dim_add(g, s0, graph_dim_mul(g, s1, C(t, 2))), "s0+s1*2");
    assert_dim(t, graph_dim_mul(g, s0, graph_dim_add(g, s1, C(t, 1))), "s0*(s1+1)");
    assert_dim(t, graph_dim_div(g, s0, graph_dim_mul(g, s1, C(t, 2))), "s0//(s1*2)");
    assert_dim(t, graph_dim_mul(g, graph_dim_mul(g, s0, s1), C(t, 2)), "s0*s1*2");
    t_free(t);
}

static void test_dims_uses_sym(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    DimId e = graph_dim_div(g, graph_dim_add(g, t->s[0], t->s[2]), C(t, 3));
    assert_true(graph_dim_uses_sym(g, e, 0));
    assert_false(graph_dim_uses_sym(g, e, 1));
    assert_true(graph_dim_uses_sym(g, e, 2));
    assert_false(graph_dim_uses_sym(g, C(t, 0), 0));
    /* s1-s1 folds away, so it does not depend on s1 */
    assert_false(graph_dim_uses_sym(g, graph_dim_sub(g, t->s[1], t->s[1]), 1));
    t_free(t);
}

/* ---- inputs and weights ---- */

static void test_inputs_weights(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    DimId dims[2] = {t->s[0], C(t, 1000)};
    int64_t example[2] = {4, 1000};
    int32_t x = graph_add_input(g, "kv_cache[0]", DT_F16, FMT_FRACTAL_NZ, 2, dims, example, 1, 7, 9);
    assert_int_equal(x, 0);
    assert_type(t, x, "f16[s0,1000]");
    assert_int_equal(g->inputs.n, 1);
    assert_string_equal(g->inputs.v[0].name, "kv_cache[0]");
    assert_int_equal(g->inputs.v[0].value, x);
    assert_int_equal(g->inputs.v[0].final, -1);
    assert_int_equal(g->inputs.v[0].example[1], 1000);
    assert_int_equal(g->inputs.v[0].is_static, 1);
    assert_int_equal(g->vals.v[x].format, FMT_FRACTAL_NZ);
    assert_int_equal(g->ops.v[g->vals.v[x].op].kind, OP_INPUT);
    assert_int_equal(g->ops.v[g->vals.v[x].op].line, 7);

    int64_t wdims[2] = {4, 8};
    int32_t w = graph_add_weight(g, "blocks.0.ln.weight", DT_F32, 2, wdims, 0);
    assert_type(t, w, "f32[4,8]");
    assert_int_equal(g->weights.n, 1);
    assert_string_equal(g->weights.v[0].name, "blocks.0.ln.weight");
    assert_int_equal(g->weights.v[0].final, -1);
    assert_int_equal(g->ops.v[g->vals.v[w].op].kind, OP_WEIGHT);
    int32_t scalar = graph_add_weight(g, "scale", DT_F32, 0, NULL, 1);
    assert_type(t, scalar, "f32[]");
    assert_int_equal(g->weights.v[1].is_buffer, 1);
    assert_int_equal(graph_add_weight(g, "big", DT_F32, GRAPH_MAX_DIMS + 1, wdims, 0), -1);
    t_free(t);
}

/* ---- broadcasting and dtypes ---- */

static void test_broadcast_const(void **state)
{
    (void)state;
    T *t = t_new();
    int32_t a = tensor(t, DT_F32, "2,3"), b = tensor(t, DT_F32, "3");
    assert_type(t, out(t, op(t, OP_ADD, ARR32(a, b), NONE, 0)), "f32[2,3]");
    int32_t c = tensor(t, DT_F32, "4,1"), d = tensor(t, DT_F32, "1,5");
    assert_type(t, out(t, op(t, OP_MUL, ARR32(c, d), NONE, 0)), "f32[4,5]");
    int32_t e = tensor(t, DT_F32, "4,3");
    size_t nops = t->g.ops.n, nvals = t->g.vals.n;
    assert_int_equal(op(t, OP_ADD, ARR32(a, e), NONE, 0), -1);
    assert_string_equal(t->err, "add: shapes (2, 3) and (4, 3) cannot be broadcast");
    assert_int_equal(t->g.ops.n, nops);
    assert_int_equal(t->g.vals.n, nvals);
    assert_int_equal(t->g.checks.n, 0);
    t_free(t);
}

static void test_broadcast_symbolic(void **state)
{
    (void)state;
    T *t = t_new();
    int32_t a = tensor(t, DT_F16, "s0,8"), b = tensor(t, DT_F16, "s1,8");
    int32_t o = op(t, OP_ADD, ARR32(a, b), NONE, 0);
    assert_type(t, out(t, o), "f16[max(s0,s1),8]");
    assert_int_equal(t->g.checks.n, 1);
    DimCheck *k = &t->g.checks.v[0];
    assert_int_equal(k->kind, DIMCHECK_BCAST);
    assert_int_equal(k->a, t->s[0]);
    assert_int_equal(k->b, t->s[1]);
    assert_int_equal(k->op, o);
    assert_string_equal(k->what, "dim 0 of the operands of add");
    /* a constant other than 1 decides the size */
    int32_t c = tensor(t, DT_F16, "4,1");
    assert_type(t, out(t, op(t, OP_SUB, ARR32(a, c), NONE, 0)), "f16[4,8]");
    assert_int_equal(t->g.checks.n, 2);
    assert_string_equal(t->g.checks.v[1].what, "dim 0 of the operands of sub");
    /* a 1 or the same symbol needs no check */
    int32_t one = tensor(t, DT_F16, "1,1");
    assert_type(t, out(t, op(t, OP_MUL, ARR32(a, one), NONE, 0)), "f16[s0,8]");
    assert_type(t, out(t, op(t, OP_MUL, ARR32(a, a), NONE, 0)), "f16[s0,8]");
    assert_int_equal(t->g.checks.n, 2);
    /* s0+1 and s0 differ, but s0 may be 1 */
    DimId p1 = graph_dim_add(&t->g, t->s[0], C(t, 1)), p2 = graph_dim_add(&t->g, t->s[0], C(t, 2));
    int32_t e = graph_add_input(&t->g, "e", DT_F16, FMT_ND, 1, &p1, NULL, 0, 1, 1);
    int32_t f = tensor(t, DT_F16, "s0");
    assert_type(t, out(t, op(t, OP_ADD, ARR32(e, f), NONE, 0)), "f16[s0+1]");
    assert_int_equal(t->g.checks.n, 3);
    /* s0+1 and s0+2 differ in every gear, and neither can be 1 (s0 >= 1) */
    int32_t h = graph_add_input(&t->g, "h", DT_F16, FMT_ND, 1, &p2, NULL, 0, 1, 1);
    assert_int_equal(op(t, OP_ADD, ARR32(e, h), NONE, 0), -1);
    assert_string_equal(t->err, "add: shapes (s0+1) and (s0+2) cannot be broadcast");
    assert_int_equal(t->g.checks.n, 3);
    t_free(t);
}

/* The dtype of a op b for tensors of dtypes x and y (shape [2]). */
static DType binary_dtype(T *t, OpKind kind, DType x, DType y)
{
    int32_t a = tensor(t, x, "2"), b = tensor(t, y, "2");
    int32_t o = op(t, kind, ARR32(a, b), NONE, 0);
    return o < 0 ? DT_UNKNOWN : t->g.vals.v[out(t, o)].dtype;
}

/* The dtype of tensor op scalar (mode 1; int_scalar: a Python int). */
static DType scalar_dtype(T *t, OpKind kind, DType x, int int_scalar)
{
    int32_t a = tensor(t, x, "2");
    int32_t o = op(t, kind, ARR32(a), ARR64(1, int_scalar), 0);
    return o < 0 ? DT_UNKNOWN : t->g.vals.v[out(t, o)].dtype;
}

static void test_promotion(void **state)
{
    (void)state;
    T *t = t_new();
    assert_int_equal(binary_dtype(t, OP_ADD, DT_F16, DT_BF16), DT_F32);
    assert_int_equal(binary_dtype(t, OP_ADD, DT_F16, DT_F32), DT_F32);
    assert_int_equal(binary_dtype(t, OP_ADD, DT_F16, DT_F16), DT_F16);
    assert_int_equal(binary_dtype(t, OP_MUL, DT_I32, DT_F16), DT_F16);
    assert_int_equal(binary_dtype(t, OP_ADD, DT_I8, DT_I64), DT_I64);
    assert_int_equal(binary_dtype(t, OP_ADD, DT_BOOL, DT_I8), DT_I8);
    assert_int_equal(binary_dtype(t, OP_ADD, DT_BOOL, DT_BOOL), DT_BOOL);
    assert_int_equal(binary_dtype(t, OP_DIV, DT_I32, DT_I32), DT_F32);
    assert_int_equal(binary_dtype(t, OP_DIV, DT_BF16, DT_BF16), DT_BF16);
    assert_int_equal(binary_dtype(t, OP_SUB, DT_BOOL, DT_BOOL), DT_UNKNOWN);
    assert_string_equal(t->err,
                        "sub: dtypes bool and bool: subtraction of two bool tensors is not supported");
    /* Python scalars */
    assert_int_equal(scalar_dtype(t, OP_MUL, DT_F16, 0), DT_F16);
    assert_int_equal(scalar_dtype(t, OP_MUL, DT_I32, 0), DT_F32);
    assert_int_equal(scalar_dtype(t, OP_ADD, DT_I32, 1), DT_I32);
    assert_int_equal(scalar_dtype(t, OP_ADD, DT_BOOL, 1), DT_I64);
    assert_int_equal(scalar_dtype(t, OP_DIV, DT_I64, 1), DT_F32);
    /* a 0-d tensor only promotes to a higher category */
    int32_t big = tensor(t, DT_F16, "4"), zero = tensor(t, DT_F32, ""), ints = tensor(t, DT_I32, "4");
    assert_type(t, out(t, op(t, OP_ADD, ARR32(big, zero), NONE, 0)), "f16[4]");
    assert_type(t, out(t, op(t, OP_ADD, ARR32(zero, ints), NONE, 0)), "f32[4]");
    /* scalar op tensor (mode 2) */
    assert_type(t, out(t, op(t, OP_SUB, ARR32(ints), ARR64(2, 1), 0)), "i32[4]");
    /* unary ops */
    int32_t l = tensor(t, DT_I64, "3"), bl = tensor(t, DT_BOOL, "3");
    assert_type(t, out(t, op(t, OP_EXP, ARR32(l), NONE, 0)), "f32[3]");
    assert_type(t, out(t, op(t, OP_SIGMOID, ARR32(big), NONE, 0)), "f16[4]");
    assert_type(t, out(t, op(t, OP_RELU, ARR32(l), NONE, 0)), "i64[3]");
    assert_type(t, out(t, op(t, OP_ABS, ARR32(l), NONE, 0)), "i64[3]");
    assert_type(t, out(t, op(t, OP_GELU, ARR32(big), ARR64(1), 0)), "f16[4]");
    assert_int_equal(op(t, OP_NEG, ARR32(bl), NONE, 0), -1);
    assert_string_equal(t->err, "neg: dtype bool: negation of a bool tensor is not supported");
    /* the math family: cos and erf promote integers, sign and floor keep
     * them, square(bool) is int64, floor(bool) has no torch kernel */
    assert_type(t, out(t, op(t, OP_COS, ARR32(l), NONE, 0)), "f32[3]");
    assert_type(t, out(t, op(t, OP_ERF, ARR32(big), NONE, 0)), "f16[4]");
    assert_type(t, out(t, op(t, OP_SIGN, ARR32(l), NONE, 0)), "i64[3]");
    assert_type(t, out(t, op(t, OP_SIGN, ARR32(bl), NONE, 0)), "b8[3]");
    assert_type(t, out(t, op(t, OP_FLOOR, ARR32(ints), NONE, 0)), "i32[4]");
    assert_type(t, out(t, op(t, OP_SQUARE, ARR32(bl), NONE, 0)), "i64[3]");
    assert_type(t, out(t, op(t, OP_CLAMP, ARR32(ints), ARR64(1), 0)), "i32[4]");
    assert_type(t, out(t, op(t, OP_CLAMP_MIN, ARR32(ints), ARR64(0), 0)), "f32[4]");
    assert_type(t, out(t, op(t, OP_CLAMP_MAX, ARR32(bl), ARR64(1), 0)), "i64[3]");
    assert_type(t, out(t, op(t, OP_MAXIMUM, ARR32(ints, tensor(t, DT_I64, "1")), NONE, 0)), "i64[4]");
    assert_int_equal(op(t, OP_ROUND, ARR32(bl), NONE, 0), -1);
    assert_string_equal(t->err, "round: dtype bool is not supported (torch has no bool kernel); "
                                "cast with .int() first");
    assert_type(t, out(t, op(t, OP_CAST, ARR32(l), NONE, DT_BF16)), "bf16[3]");
    /* PyTorch computes these in the default float dtype: integer and bool
     * inputs give float32 */
    static const OpKind to_float[] = {OP_SQRT, OP_RSQRT, OP_RECIPROCAL, OP_LOG1P, OP_TANH, OP_LOG};
    for (size_t k = 0; k < sizeof to_float / sizeof *to_float; k++) {
        assert_type(t, out(t, op(t, to_float[k], ARR32(l), NONE, 0)), "f32[3]");
        assert_type(t, out(t, op(t, to_float[k], ARR32(bl), NONE, 0)), "f32[3]");
    }
    assert_type(t, out(t, op(t, OP_DIV, ARR32(bl, l), NONE, 0)), "f32[3]");
    assert_int_equal(op(t, OP_CAST, ARR32(l), NONE, DT_UNKNOWN), -1);
    /* pow: integral exponents keep integers */
    OpDesc d = {0};
    d.kind = OP_POW;
    d.in = (int32_t[]){l};
    d.nin = 1;
    d.sk = -1;
    d.fattr[0] = 2.0;
    assert_type(t, out(t, add(t, &d)), "i64[3]");
    d.fattr[0] = 0.5;
    assert_type(t, out(t, add(t, &d)), "f32[3]");
    d.fattr[0] = -1.0;
    assert_int_equal(add(t, &d), -1);
    assert_string_equal(t->err,
                        "pow: dtype int64: integers to negative integer powers are not allowed");
    t_free(t);
}

/* ---- matrix products ---- */

/* The collectives (ir/ops.def): all_reduce and broadcast keep the shape,
 * all_gather multiplies dim 0 by the group's size, reduce_scatter divides
 * it (a constant multiple of the size only), all_to_all's dim 0 is the
 * rows it receives. */
static void test_collectives(void **state)
{
    (void)state;
    T *t = t_new();
    int32_t x = tensor(t, DT_F32, "4,s0"), b = tensor(t, DT_BF16, "s0,3"), s = tensor(t, DT_F32, "");
    assert_type(t, out(t, op(t, OP_ALL_REDUCE, ARR32(x), ARR64(0, 3, 2), 0)), "f32[4,s0]");
    assert_type(t, out(t, op(t, OP_BROADCAST, ARR32(b), ARR64(1, 3, 2), 0)), "bf16[s0,3]");
    assert_type(t, out(t, op(t, OP_ALL_GATHER, ARR32(x), ARR64(15, 4), 0)), "f32[16,s0]");
    assert_type(t, out(t, op(t, OP_ALL_GATHER, ARR32(b), ARR64(3, 2), 0)), "bf16[s0*2,3]");
    assert_type(t, out(t, op(t, OP_REDUCE_SCATTER, ARR32(x), ARR64(0, 3, 2), 0)), "f32[2,s0]");
    assert_int_equal(op(t, OP_REDUCE_SCATTER, ARR32(x), ARR64(0, 7, 3), 0), -1);
    assert_string_equal(t->err, "reduce_scatter: dim 0 (4) must be a constant multiple of the group's 3 ranks");
    assert_int_equal(op(t, OP_REDUCE_SCATTER, ARR32(b), ARR64(0, 3, 2), 0), -1);
    assert_int_equal(op(t, OP_ALL_GATHER, ARR32(s), ARR64(3, 2), 0), -1);
    assert_string_equal(t->err, "all_gather: a 0-d tensor has no dim 0 to gather or scatter along");
    assert_int_equal(op(t, OP_ALL_REDUCE, ARR32(x), ARR64(0, 3, 0), 0), -1);
    assert_string_equal(t->err, "all_reduce: a group of 0 ranks");
    /* all_to_all: equal blocks keep the shape; split sizes give dim 0 the
     * rows received */
    assert_type(t, out(t, op(t, OP_ALL_TO_ALL, ARR32(x), ARR64(3, 2), 0)), "f32[4,s0]");
    assert_type(t, out(t, op(t, OP_ALL_TO_ALL, ARR32(x), ARR64(3, 2, 1, 3, 2, 5), 0)), "f32[7,s0]");
    assert_int_equal(op(t, OP_ALL_TO_ALL, ARR32(x), ARR64(7, 3), 0), -1);
    assert_string_equal(t->err, "all_to_all: dim 0 (4) is not a multiple of the group's 3 ranks");
    assert_int_equal(op(t, OP_ALL_TO_ALL, ARR32(x), ARR64(3, 2, 1, 2, 2, 2), 0), -1);
    assert_string_equal(t->err, "all_to_all: the input split sizes add up to 3, dim 0 is 4");
    /* split sizes of 8 ranks: 18 attributes, GRAPH_MAX_ATTRS */
    assert_type(t, out(t, op(t, OP_ALL_TO_ALL, ARR32(x), ARR64(255, 8, 1, 0, 0, 1, 0, 1, 0, 1, 2, 2, 2, 2, 0, 0, 0, 1),
                             0)), "f32[9,s0]");
    assert_int_equal(op(t, OP_ALL_TO_ALL, ARR32(b), ARR64(3, 2), 0), -1);
    assert_string_equal(t->err, "all_to_all: a constant dim 0 is split among the ranks, not s0");
    t_free(t);
}

static void test_matmul(void **state)
{
    (void)state;
    T *t = t_new();
    int32_t a23 = tensor(t, DT_F16, "2,3"), b34 = tensor(t, DT_F16, "3,4");
    int32_t b45 = tensor(t, DT_F16, "4,5");
    assert_type(t, out(t, op(t, OP_MM, ARR32(a23, b34), NONE, 0)), "f16[2,4]");
    assert_int_equal(op(t, OP_MM, ARR32(a23, b45), NONE, 0), -1);
    assert_string_equal(t->err, "mm: the inner dims differ: [2, 3] @ [4, 5]");
    assert_int_equal(op(t, OP_MATMUL, ARR32(a23, b45), NONE, 0), -1);
    assert_string_equal(t->err, "matmul: the inner dims differ: [2, 3] @ [4, 5]");
    /* 1-d operands */
    int32_t v3 = tensor(t, DT_F16, "3"), v3b = tensor(t, DT_F16, "3");
    assert_type(t, out(t, op(t, OP_MATMUL, ARR32(v3, v3b), NONE, 0)), "f16[]");
    assert_type(t, out(t, op(t, OP_MATMUL, ARR32(v3, b34), NONE, 0)), "f16[4]");
    assert_type(t, out(t, op(t, OP_MATMUL, ARR32(a23, v3), NONE, 0)), "f16[2]");
    /* batch dims broadcast */
    int32_t a523 = tensor(t, DT_F16, "5,2,3");
    assert_type(t, out(t, op(t, OP_MATMUL, ARR32(a523, b34), NONE, 0)), "f16[5,2,4]");
    int32_t a5123 = tensor(t, DT_F16, "5,1,2,3"), b436 = tensor(t, DT_F16, "4,3,6");
    assert_type(t, out(t, op(t, OP_MATMUL, ARR32(a5123, b436), NONE, 0)), "f16[5,4,2,6]");
    assert_type(t, out(t, op(t, OP_MATMUL, ARR32(v3, b436), NONE, 0)), "f16[4,6]");
    /* dtypes must agree */
    int32_t f34 = tensor(t, DT_F32, "3,4");
    assert_int_equal(op(t, OP_MM, ARR32(a23, f34), NONE, 0), -1);
    assert_string_equal(t->err,
                        "mm: expected both operands to have the same dtype, got float16 and float32");
    int32_t scalar = tensor(t, DT_F16, "");
    assert_int_equal(op(t, OP_MATMUL, ARR32(scalar, v3), NONE, 0), -1);
    assert_int_equal(op(t, OP_MM, ARR32(a523, b34), NONE, 0), -1);
    assert_string_equal(t->err, "mm: expected a 2-d first operand, got 3-d");
    /* bmm */
    int32_t b534 = tensor(t, DT_F16, "5,3,4"), b634 = tensor(t, DT_F16, "6,3,4");
    assert_type(t, out(t, op(t, OP_BMM, ARR32(a523, b534), NONE, 0)), "f16[5,2,4]");
    assert_int_equal(op(t, OP_BMM, ARR32(a523, b634), NONE, 0), -1);
    assert_string_equal(t->err, "bmm: the batch dims differ: [5, 2, 3] @ [6, 3, 4]");
    /* a symbolic inner dim is checked in every gear */
    int32_t xs = tensor(t, DT_F16, "2,s0"), ys = tensor(t, DT_F16, "s1,7");
    int32_t o = op(t, OP_MM, ARR32(xs, ys), NONE, 0);
    assert_type(t, out(t, o), "f16[2,7]");
    assert_int_equal(t->g.checks.n, 1);
    assert_int_equal(t->g.checks.v[0].kind, DIMCHECK_EQ);
    assert_int_equal(t->g.checks.v[0].op, o);
    assert_string_equal(t->g.checks.v[0].what, "the inner dims of mm");
    t_free(t);
}

static void test_addmm_linear(void **state)
{
    (void)state;
    T *t = t_new();
    int32_t bias4 = tensor(t, DT_F32, "4"), a = tensor(t, DT_F32, "2,3"), b = tensor(t, DT_F32, "3,4");
    assert_type(t, out(t, op(t, OP_ADDMM, ARR32(bias4, a, b), NONE, 0)), "f32[2,4]");
    int32_t bias5 = tensor(t, DT_F32, "5");
    assert_int_equal(op(t, OP_ADDMM, ARR32(bias5, a, b), NONE, 0), -1);
    assert_string_equal(t->err, "addmm: the shape (5) cannot be broadcast to (2, 4)");
    /* nn.Linear(16, 32) on [s0, 10, 16] */
    int32_t x = tensor(t, DT_BF16, "s0,10,16"), w = tensor(t, DT_BF16, "32,16");
    int32_t bias = tensor(t, DT_BF16, "32");
    assert_type(t, out(t, op(t, OP_LINEAR, ARR32(x, w, bias), NONE, 0)), "bf16[s0,10,32]");
    assert_type(t, out(t, op(t, OP_LINEAR, ARR32(x, w, -1), NONE, 0)), "bf16[s0,10,32]");
    assert_type(t, out(t, op(t, OP_LINEAR, ARR32(x, w), NONE, 0)), "bf16[s0,10,32]");
    int32_t w2 = tensor(t, DT_BF16, "32,15");
    assert_int_equal(op(t, OP_LINEAR, ARR32(x, w2), NONE, 0), -1);
    assert_string_equal(t->err, "linear: the inner dims differ: [s0, 10, 16] @ [32, 15]");
    /* -1 is only allowed for the bias */
    assert_int_equal(op(t, OP_LINEAR, ARR32(x, -1, bias), NONE, 0), -1);
    assert_string_equal(t->err, "linear: input 1 is not a value");
    t_free(t);
}

/* ---- views ---- */

static void test_reshape(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    int32_t x = tensor(t, DT_F32, "2,6");
    assert_type(t, out(t, op(t, OP_RESHAPE, ARR32(x), ARR64(C(t, 3), C(t, 4)), 0)), "f32[3,4]");
    int32_t o = op(t, OP_RESHAPE, ARR32(x), ARR64(GRAPH_INFER, C(t, 4)), 0);
    assert_type(t, out(t, o), "f32[3,4]");
    assert_int_equal(g->ops.v[o].attr[0], C(t, 3));   /* the -1 replaced */
    assert_int_equal(g->ops.v[o].nattr, 2);
    assert_true(op_info[g->ops.v[o].kind].flags & OPF_ALIAS);
    /* [s0, 8].view(-1, 4) -> [s0*2, 4], provably the same element count */
    int32_t s = tensor(t, DT_F16, "s0,8");
    o = op(t, OP_RESHAPE, ARR32(s), ARR64(GRAPH_INFER, C(t, 4)), 0);
    assert_type(t, out(t, o), "f16[s0*2,4]");
    assert_int_equal(g->ops.v[o].attr[0], graph_dim_mul(g, t->s[0], C(t, 2)));
    int32_t flat = out(t, op(t, OP_RESHAPE, ARR32(s), ARR64(GRAPH_INFER), 0));
    assert_type(t, flat, "f16[s0*8]");
    assert_type(t, out(t, op(t, OP_RESHAPE, ARR32(flat), ARR64(GRAPH_INFER, C(t, 8)), 0)), "f16[s0,8]");
    assert_int_equal(g->checks.n, 0);
    /* [s0, 3].view(-1, 2): only a gear can tell */
    int32_t odd = tensor(t, DT_F16, "s0,3");
    o = op(t, OP_RESHAPE, ARR32(odd), ARR64(GRAPH_INFER, C(t, 2)), 0);
    assert_type(t, out(t, o), "f16[s0*3//2,2]");
    assert_int_equal(g->checks.n, 1);
    assert_int_equal(g->checks.v[0].kind, DIMCHECK_EQ);
    assert_int_equal(g->checks.v[0].a, graph_dim_mul(g, t->s[0], C(t, 3)));
    assert_string_equal(g->checks.v[0].what, "the element count of reshape");
    /* invalid shapes */
    int32_t x34 = tensor(t, DT_F32, "3,4");
    assert_int_equal(op(t, OP_RESHAPE, ARR32(x34), ARR64(C(t, 2), C(t, 5)), 0), -1);
    assert_string_equal(t->err, "reshape: shape [2, 5] is invalid for input of size 12");
    assert_int_equal(op(t, OP_RESHAPE, ARR32(x34), ARR64(GRAPH_INFER, C(t, 5)), 0), -1);
    assert_string_equal(t->err, "reshape: shape [-1, 5] is invalid for input of size 12");
    assert_int_equal(op(t, OP_RESHAPE, ARR32(x34), ARR64(GRAPH_INFER, GRAPH_INFER), 0), -1);
    assert_string_equal(t->err, "reshape: only one dimension can be inferred");
    assert_int_equal(op(t, OP_RESHAPE, ARR32(x34), ARR64(C(t, -2), C(t, -6)), 0), -1);
    assert_string_equal(t->err, "reshape: invalid negative size -2");
    int32_t two = tensor(t, DT_F32, "2");
    int64_t nine[9];
    for (int i = 0; i < 9; i++)
        nine[i] = C(t, i ? 1 : 2);
    assert_int_equal(op(t, OP_RESHAPE, ARR32(two), nine, 9, 0), -1);
    assert_string_equal(t->err, "reshape: the result would have 9 dims (at most 8)");
    assert_int_equal(g->checks.n, 1);
    t_free(t);
}

static void test_permute_formats(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    DimId dims[3] = {C(t, 2), C(t, 3), C(t, 4)};
    int32_t x = graph_add_input(g, "x", DT_F16, FMT_FRACTAL_NZ, 3, dims, NULL, 0, 1, 1);
    int32_t p = out(t, op(t, OP_PERMUTE, ARR32(x), ARR64(2, 0, 1), 0));
    assert_type(t, p, "f16[4,2,3]");
    assert_int_equal(g->vals.v[p].format, FMT_ND);
    assert_int_equal(op(t, OP_PERMUTE, ARR32(x), ARR64(0, 0, 1), 0), -1);
    assert_string_equal(t->err, "permute: the dims are not a permutation of 0..2");
    assert_int_equal(op(t, OP_PERMUTE, ARR32(x), ARR64(1, 0), 0), -1);
    /* aliases keep the layout; computations produce ND; format_cast sets it */
    int32_t c = out(t, op(t, OP_CONTIGUOUS, ARR32(x), NONE, 0));
    assert_int_equal(g->vals.v[c].format, FMT_FRACTAL_NZ);
    int32_t r = out(t, op(t, OP_RESHAPE, ARR32(x), ARR64(C(t, 6), C(t, 4)), 0));
    assert_int_equal(g->vals.v[r].format, FMT_FRACTAL_NZ);
    int32_t e = out(t, op(t, OP_EXP, ARR32(x), NONE, 0));
    assert_int_equal(g->vals.v[e].format, FMT_ND);
    int32_t nz = out(t, op(t, OP_FORMAT_CAST, ARR32(e), ARR64(FMT_FRACTAL_NZ), 0));
    assert_int_equal(g->vals.v[nz].format, FMT_FRACTAL_NZ);
    assert_type(t, nz, "f16[2,3,4]");
    assert_int_equal(op(t, OP_FORMAT_CAST, ARR32(e), ARR64(-3), 0), -1);
    t_free(t);
}

/* The type of x[dim][start:end:step]. */
static void assert_slice(T *t, int32_t x, int64_t dim, int64_t start, int64_t end, int64_t step,
                         const char *want)
{
    assert_type(t, out(t, op(t, OP_SLICE, ARR32(x), ARR64(dim, start, end, step), 0)), want);
}

static void test_slice(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    int32_t x = tensor(t, DT_F32, "4,6");
    assert_slice(t, x, 1, 1, GRAPH_END, 1, "f32[4,5]");        /* x[:, 1:] */
    assert_slice(t, x, 0, -1, GRAPH_END, 1, "f32[1,6]");       /* x[-1:] */
    assert_slice(t, x, 1, 2, 100, 1, "f32[4,4]");              /* x[:, 2:100] */
    assert_slice(t, x, 1, 0, GRAPH_END, 2, "f32[4,3]");        /* x[:, ::2] */
    assert_slice(t, x, 1, 1, GRAPH_END, 4, "f32[4,2]");        /* x[:, 1::4] */
    assert_slice(t, x, 1, 1, GRAPH_END, INT64_MAX, "f32[4,1]");
    assert_slice(t, x, 1, 5, 2, 1, "f32[4,0]");
    assert_slice(t, x, 1, -100, 2, 1, "f32[4,2]");
    assert_slice(t, x, 1, 10, GRAPH_END, 1, "f32[4,0]");
    assert_slice(t, x, 1, 0, -2, 1, "f32[4,4]");
    /* symbolic dims */
    int32_t s = tensor(t, DT_F32, "s0,8");
    assert_slice(t, s, 0, 1, GRAPH_END, 1, "f32[s0-1,8]");
    assert_slice(t, s, 0, -1, GRAPH_END, 1, "f32[1,8]");
    assert_slice(t, s, 0, 0, -1, 1, "f32[s0-1,8]");
    assert_slice(t, s, 0, 0, GRAPH_END, 1, "f32[s0,8]");
    assert_slice(t, s, 0, 0, GRAPH_END, 2, "f32[(s0+1)//2,8]");
    int32_t v = out(t, op(t, OP_SLICE, ARR32(s), ARR64(0, 2, 100, 1), 0));
    int64_t symval[3] = {1, 0, 0}, n = -1;
    DimId d = g->vals.v[v].dims[0];
    assert_int_equal(graph_dim_eval(g, d, symval, &n), 0);
    assert_int_equal(n, 0);
    symval[0] = 5;
    assert_int_equal(graph_dim_eval(g, d, symval, &n), 0);
    assert_int_equal(n, 3);
    symval[0] = 200;
    assert_int_equal(graph_dim_eval(g, d, symval, &n), 0);
    assert_int_equal(n, 98);
    /* errors */
    assert_int_equal(op(t, OP_SLICE, ARR32(x), ARR64(1, 0, 2, 0), 0), -1);
    assert_string_equal(t->err, "slice: slice step must be positive, got 0");
    assert_int_equal(op(t, OP_SLICE, ARR32(x), ARR64(2, 0, 2, 1), 0), -1);
    assert_string_equal(t->err, "slice: dim 2 is out of range for a 2-d tensor");
    assert_int_equal(op(t, OP_SLICE, ARR32(x), ARR64(1, 0), 0), -1);
    assert_string_equal(t->err, "slice: expected 4 attributes, got 2");
    t_free(t);
}

static void test_select(void **state)
{
    (void)state;
    T *t = t_new();
    int32_t x = tensor(t, DT_F32, "4,6");
    assert_type(t, out(t, op(t, OP_SELECT, ARR32(x), ARR64(1, -1), 0)), "f32[4]");
    assert_type(t, out(t, op(t, OP_SELECT, ARR32(x), ARR64(0, 3), 0)), "f32[6]");
    assert_int_equal(op(t, OP_SELECT, ARR32(x), ARR64(1, 6), 0), -1);
    assert_string_equal(t->err, "select: index 6 is out of bounds for dim 1 with size 6");
    assert_int_equal(op(t, OP_SELECT, ARR32(x), ARR64(0, -5), 0), -1);
    int32_t s = tensor(t, DT_F32, "s0,6");
    assert_type(t, out(t, op(t, OP_SELECT, ARR32(s), ARR64(0, -1), 0)), "f32[6]");
    t_free(t);
}

static void test_cat_stack(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    int32_t a = tensor(t, DT_F16, "2,3"), b = tensor(t, DT_F16, "2,5"), c = tensor(t, DT_F32, "2,1");
    assert_type(t, out(t, op(t, OP_CAT, ARR32(a, b, c), ARR64(1), 0)), "f32[2,9]");
    int32_t d = tensor(t, DT_F16, "3,3");
    assert_int_equal(op(t, OP_CAT, ARR32(a, d), ARR64(1), 0), -1);
    assert_string_equal(t->err,
                        "cat: sizes of tensors must match except in dim 1 (got 2 and 3 in dim 0)");
    int32_t e = tensor(t, DT_F16, "2");
    assert_int_equal(op(t, OP_CAT, ARR32(a, e), ARR64(0), 0), -1);
    assert_string_equal(t->err, "cat: tensors must have the same number of dims: got 2 and 1");
    /* symbolic */
    int32_t s = tensor(t, DT_F16, "s0,3"), u = tensor(t, DT_F16, "s1,3");
    assert_type(t, out(t, op(t, OP_CAT, ARR32(s, s), ARR64(0), 0)), "f16[s0*2,3]");
    assert_type(t, out(t, op(t, OP_CAT, ARR32(s, u), ARR64(0), 0)), "f16[s0+s1,3]");
    assert_int_equal(g->checks.n, 0);
    assert_type(t, out(t, op(t, OP_CAT, ARR32(s, u), ARR64(1), 0)), "f16[s0,6]");
    assert_int_equal(g->checks.n, 1);
    assert_string_equal(g->checks.v[0].what, "dim 0 of the inputs of cat");
    /* stack */
    int32_t a2 = tensor(t, DT_F16, "2,3");
    assert_type(t, out(t, op(t, OP_STACK, ARR32(a, a2, a), ARR64(0), 0)), "f16[3,2,3]");
    assert_type(t, out(t, op(t, OP_STACK, ARR32(a, a2), ARR64(2), 0)), "f16[2,3,2]");
    assert_int_equal(op(t, OP_STACK, ARR32(a, b), ARR64(0), 0), -1);
    assert_string_equal(t->err,
                        "stack: expects each tensor to be equal size, but got [2, 3] at entry 0 "
                        "and [2, 5] at entry 1");
    assert_int_equal(op(t, OP_STACK, ARR32(a, a2), ARR64(3), 0), -1);
    assert_int_equal(op(t, OP_CAT, NULL, 0, ARR64(0), 0), -1);
    assert_string_equal(t->err, "cat: expected at least 1 inputs, got 0");
    t_free(t);
}

/* ---- reductions and norms ---- */

static void test_reductions(void **state)
{
    (void)state;
    T *t = t_new();
    int32_t x = tensor(t, DT_F16, "2,3,4");
    assert_type(t, out(t, op(t, OP_SUM, ARR32(x), ARR64(1, 1), 0)), "f16[2,1,4]");
    assert_type(t, out(t, op(t, OP_SUM, ARR32(x), ARR64(0, 1), 0)), "f16[2,4]");
    assert_type(t, out(t, op(t, OP_MEAN, ARR32(x), ARR64(0, 0, 2), 0)), "f16[3]");
    assert_type(t, out(t, op(t, OP_SUM, ARR32(x), ARR64(0), 0)), "f16[]");
    assert_type(t, out(t, op(t, OP_MEAN, ARR32(x), ARR64(1), 0)), "f16[1,1,1]");
    assert_type(t, out(t, op(t, OP_AMAX, ARR32(x), ARR64(0, 2), 0)), "f16[2,3]");
    assert_type(t, out(t, op(t, OP_SUM, ARR32(x), ARR64(0, 2), DT_F32)), "f32[2,3]");
    assert_int_equal(op(t, OP_SUM, ARR32(x), ARR64(0, 1, 1), 0), -1);
    assert_string_equal(t->err, "sum: dim 1 appears multiple times in the list of dims");
    assert_int_equal(op(t, OP_AMAX, ARR32(x), ARR64(0, 3), 0), -1);
    assert_string_equal(t->err, "amax: dim 3 is out of range for a 3-d tensor");
    int32_t i = tensor(t, DT_I32, "5"), b = tensor(t, DT_BOOL, "5");
    assert_type(t, out(t, op(t, OP_SUM, ARR32(i), ARR64(0), 0)), "i64[]");
    assert_type(t, out(t, op(t, OP_SUM, ARR32(b), ARR64(0, 0), 0)), "i64[]");
    assert_type(t, out(t, op(t, OP_AMAX, ARR32(i), ARR64(0), 0)), "i32[]");
    assert_int_equal(op(t, OP_MEAN, ARR32(i), ARR64(0), 0), -1);
    assert_string_equal(t->err, "mean: could not infer the output dtype: the input dtype must be "
                                "floating point, got int32");
    assert_type(t, out(t, op(t, OP_MEAN, ARR32(i), ARR64(0), DT_F32)), "f32[]");
    /* the dtype rule runs once the shape rule has passed: a mean of ints
     * over a dim out of range is the dim's error */
    assert_int_equal(op(t, OP_MEAN, ARR32(i), ARR64(0, 4), 0), -1);
    assert_string_equal(t->err, "mean: dim 4 is out of range for a 1-d tensor");
    int32_t s = tensor(t, DT_F32, "s0,8");
    assert_type(t, out(t, op(t, OP_SUM, ARR32(s), ARR64(1, 1), 0)), "f32[s0,1]");
    t_free(t);
}

static void test_softmax_norms(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    int32_t x = tensor(t, DT_F16, "2,8");
    assert_type(t, out(t, op(t, OP_SOFTMAX, ARR32(x), ARR64(1), DT_F32)), "f32[2,8]");
    assert_type(t, out(t, op(t, OP_LOG_SOFTMAX, ARR32(x), ARR64(0), 0)), "f16[2,8]");
    assert_int_equal(op(t, OP_SOFTMAX, ARR32(x), ARR64(2), 0), -1);
    int32_t ix = tensor(t, DT_I64, "2,8");
    assert_int_equal(op(t, OP_SOFTMAX, ARR32(ix), ARR64(1), 0), -1);
    assert_string_equal(t->err, "softmax: expected a floating point result dtype, got int64");
    /* layer_norm */
    int32_t w = tensor(t, DT_F16, "8"), bias = tensor(t, DT_F16, "8"), w4 = tensor(t, DT_F16, "4");
    assert_type(t, out(t, op(t, OP_LAYER_NORM, ARR32(x, w, bias), ARR64(1), 0)), "f16[2,8]");
    assert_type(t, out(t, op(t, OP_LAYER_NORM, ARR32(x, -1, -1), ARR64(2), 0)), "f16[2,8]");
    assert_int_equal(op(t, OP_LAYER_NORM, ARR32(x, w4, -1), ARR64(1), 0), -1);
    assert_string_equal(t->err,
                        "layer_norm: weight of shape [4] does not match the normalised shape [8]");
    assert_int_equal(op(t, OP_LAYER_NORM, ARR32(x), ARR64(3), 0), -1);
    assert_string_equal(t->err, "layer_norm: cannot normalise 3 trailing dims of a 2-d tensor");
    assert_int_equal(op(t, OP_LAYER_NORM, ARR32(ix), ARR64(1), 0), -1);
    assert_string_equal(t->err, "layer_norm: expected an input of a floating point dtype, got int64");
    /* rms_norm: y and rstd */
    int32_t h = tensor(t, DT_BF16, "s0,4,128"), gamma = tensor(t, DT_BF16, "128");
    int32_t o = op(t, OP_RMS_NORM, ARR32(h, gamma), NONE, 0);
    assert_true(o >= 0);
    assert_int_equal(g->ops.v[o].nout, 2);
    int32_t y = g->ops.v[o].out;
    assert_type(t, y, "bf16[s0,4,128]");
    assert_type(t, y + 1, "f32[s0,4,1]");
    assert_int_equal(g->vals.v[y + 1].op, o);
    assert_int_equal(g->vals.v[y + 1].idx, 1);
    int32_t gamma2 = tensor(t, DT_BF16, "4,128");
    o = op(t, OP_RMS_NORM, ARR32(h, gamma2), NONE, 0);
    assert_type(t, g->ops.v[o].out + 1, "f32[s0,1,1]");
    assert_int_equal(op(t, OP_RMS_NORM, ARR32(h, w), NONE, 0), -1);
    assert_string_equal(t->err,
                        "rms_norm: gamma of shape [8] does not match the normalised shape [128]");
    t_free(t);
}

static void test_embedding(void **state)
{
    (void)state;
    T *t = t_new();
    int64_t wd[2] = {100, 16};
    int32_t w = graph_add_weight(&t->g, "embed.weight", DT_F16, 2, wd, 0);
    int32_t ids = tensor(t, DT_I64, "s0,7");
    assert_type(t, out(t, op(t, OP_EMBEDDING, ARR32(w, ids), NONE, 0)), "f16[s0,7,16]");
    int32_t fids = tensor(t, DT_F32, "3");
    assert_int_equal(op(t, OP_EMBEDDING, ARR32(w, fids), NONE, 0), -1);
    assert_string_equal(t->err, "embedding: expected indices of an integer dtype, got float32");
    t_free(t);
}

/* ---- torch_npu ops ---- */

static void test_quant_ops(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    int32_t x1 = tensor(t, DT_I8, "s0,64"), x2 = tensor(t, DT_I8, "64,128");
    int32_t scale = tensor(t, DT_F32, "128"), offset = tensor(t, DT_F32, "1");
    assert_type(t, out(t, op(t, OP_QUANT_MATMUL, ARR32(x1, x2, scale), NONE, 0)), "i8[s0,128]");
    assert_type(t, out(t, op(t, OP_QUANT_MATMUL, ARR32(x1, x2, scale, offset, -1, -1), NONE, DT_BF16)),
                "bf16[s0,128]");
    int32_t b1 = tensor(t, DT_I8, "2,1,4,64"), b2 = tensor(t, DT_I8, "3,64,8");
    int32_t sc8 = tensor(t, DT_F32, "8");
    assert_type(t, out(t, op(t, OP_QUANT_MATMUL, ARR32(b1, b2, sc8), NONE, DT_F16)), "f16[2,3,4,8]");
    /* int32 x2 packs 8 int4 values in its last dim */
    int32_t p2 = tensor(t, DT_I32, "64,16");
    assert_type(t, out(t, op(t, OP_QUANT_MATMUL, ARR32(x1, p2, scale), NONE, DT_F16)), "f16[s0,128]");
    int32_t fx = tensor(t, DT_F16, "4,64");
    assert_int_equal(op(t, OP_QUANT_MATMUL, ARR32(fx, x2, scale), NONE, 0), -1);
    assert_string_equal(t->err, "quant_matmul: expected int8 operands (or int32 holding int4), "
                                "got dtypes float16 and int8");
    assert_int_equal(op(t, OP_QUANT_MATMUL, ARR32(x1, x2, sc8), NONE, 0), -1);
    assert_string_equal(t->err, "quant_matmul: scale has size 8, expected 1 or 128");
    assert_int_equal(op(t, OP_QUANT_MATMUL, ARR32(x1, x2, -1), NONE, 0), -1);
    /* dequant_swiglu_quant: y int8 [..., h], scale float32 [...] */
    int32_t x = tensor(t, DT_I32, "s0,256");
    int32_t o = op(t, OP_DEQUANT_SWIGLU_QUANT, ARR32(x, -1, -1, -1, -1, -1, -1), ARR64(0, 1), 0);
    assert_true(o >= 0);
    assert_int_equal(g->ops.v[o].nout, 2);
    assert_type(t, g->ops.v[o].out, "i8[s0,128]");
    assert_type(t, g->ops.v[o].out + 1, "f32[s0]");
    int32_t odd = tensor(t, DT_I32, "4,255");
    assert_int_equal(op(t, OP_DEQUANT_SWIGLU_QUANT, ARR32(odd), NONE, 0), -1);
    assert_string_equal(t->err, "dequant_swiglu_quant: dim 1 has odd size 255: it must be even");
    assert_int_equal(op(t, OP_DEQUANT_SWIGLU_QUANT, ARR32(x), ARR64(0, 2), 0), -1);
    /* swiglu */
    int32_t sw = tensor(t, DT_F16, "4,10");
    assert_type(t, out(t, op(t, OP_SWIGLU, ARR32(sw), ARR64(1), 0)), "f16[4,5]");
    assert_type(t, out(t, op(t, OP_SWIGLU, ARR32(sw), ARR64(0), 0)), "f16[2,10]");
    assert_int_equal(op(t, OP_SWIGLU, ARR32(sw), ARR64(2), 0), -1);
    int32_t ss = tensor(t, DT_F16, "2,s1");
    size_t nchecks = g->checks.n;
    assert_type(t, out(t, op(t, OP_SWIGLU, ARR32(ss), ARR64(1), 0)), "f16[2,s1//2]");
    assert_int_equal(g->checks.n, nchecks + 1);
    assert_int_equal(g->checks.v[nchecks].kind, DIMCHECK_EQ);
    assert_string_equal(g->checks.v[nchecks].what, "dim 1 of the input of swiglu is even");
    t_free(t);
}

/* ---- in-place updates, full ---- */

static void test_copy_slice_store(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    DimId dims[3] = {C(t, 2), C(t, 16), C(t, 8)};
    int32_t cache = graph_add_input(g, "cache", DT_F16, FMT_FRACTAL_NZ, 3, dims, NULL, 0, 1, 1);
    int32_t src = tensor(t, DT_F32, "8");
    int32_t c = out(t, op(t, OP_COPY, ARR32(cache, src), NONE, 0));
    assert_type(t, c, "f16[2,16,8]");
    assert_int_equal(g->vals.v[c].format, FMT_FRACTAL_NZ);
    assert_true(op_info[g->ops.v[g->vals.v[c].op].kind].flags & OPF_INPLACE);
    int32_t bad = tensor(t, DT_F16, "3");
    assert_int_equal(op(t, OP_COPY, ARR32(cache, bad), NONE, 0), -1);
    assert_string_equal(t->err, "copy: the shape (3) cannot be broadcast to (2, 16, 8)");
    /* cache[:, 4:8] = new */
    int32_t nw = tensor(t, DT_F16, "2,4,8");
    int32_t s = out(t, op(t, OP_SLICE_STORE, ARR32(cache, nw), ARR64(1, 4, 8, 1), 0));
    assert_type(t, s, "f16[2,16,8]");
    assert_int_equal(g->vals.v[s].format, FMT_FRACTAL_NZ);
    int32_t nw5 = tensor(t, DT_F16, "2,5,8");
    assert_int_equal(op(t, OP_SLICE_STORE, ARR32(cache, nw5), ARR64(1, 4, 8, 1), 0), -1);
    assert_string_equal(t->err, "slice_store: the shape (2, 5, 8) cannot be broadcast to (2, 4, 8)");
    /* a symbolic source is checked against the slice */
    int32_t sym = tensor(t, DT_F16, "2,s0,8");
    assert_true(op(t, OP_SLICE_STORE, ARR32(cache, sym), ARR64(1, 4, 8, 1), 0) >= 0);
    assert_int_equal(g->checks.n, 1);
    assert_int_equal(g->checks.v[0].a, t->s[0]);
    assert_int_equal(g->checks.v[0].b, C(t, 4));
    t_free(t);
}

static void test_full(void **state)
{
    (void)state;
    T *t = t_new();
    assert_type(t, out(t, op(t, OP_FULL, NULL, 0, ARR64(C(t, 2), t->s[0]), 0)), "f32[2,s0]");
    assert_type(t, out(t, op(t, OP_FULL, NULL, 0, ARR64(C(t, 3)), DT_I64)), "i64[3]");
    assert_type(t, out(t, op(t, OP_FULL, NULL, 0, NULL, 0, DT_BF16)), "bf16[]");
    assert_int_equal(op(t, OP_FULL, NULL, 0, ARR64(100000), 0), -1);
    assert_string_equal(t->err, "full: attribute 0 is not a dim");
    t_free(t);
}

/* ---- errors and op fields ---- */

/* graph_add_op, graph_add_input and graph_add_weight keep every value
 * within the size invariant (GRAPH_MAX_BYTES), whatever wraps on the way. */
static void test_size_invariant(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    const int64_t big = (int64_t)1 << 62;
    int32_t x = tensor(t, DT_F32, "4,4");
    size_t nops = g->ops.n, nchecks = g->checks.n;
    /* x.reshape(2**62 + 4, 4): 2**64 + 16 elements would wrap to 16 */
    assert_int_equal(op(t, OP_RESHAPE, ARR32(x), ARR64(C(t, big + 4), C(t, 4)), 0), -1);
    assert_string_equal(t->err, "reshape: the result f32[4611686018427387908, 4] is larger than "
                                "2^48 bytes, the most tngc plans for one tensor");
    /* each dim fits, the element count overflows on the way */
    assert_int_equal(op(t, OP_RESHAPE, ARR32(x), ARR64(C(t, 1 << 30), C(t, (int64_t)1 << 40),
                                                       C(t, (int64_t)1 << 40)), 0), -1);
    assert_int_equal(op(t, OP_RESHAPE, ARR32(x), ARR64(GRAPH_INFER, C(t, big), C(t, 4)), 0), -1);
    assert_int_equal(op(t, OP_FULL, NONE, ARR64(graph_dim_overflow(g)), DT_F32), -1);
    assert_string_equal(t->err, "full: a requested size overflows 64-bit arithmetic");
    assert_int_equal(op(t, OP_FULL, NONE, ARR64(C(t, GRAPH_MAX_BYTES / 4 + 1)), DT_F32), -1);
    assert_int_equal(g->ops.n, nops);
    assert_int_equal(g->checks.n, nchecks);
    assert_true(op(t, OP_FULL, NONE, ARR64(C(t, GRAPH_MAX_BYTES / 4)), DT_F32) >= 0);
    /* 62 doublings by cat: refused once past 2^48 bytes, never negative */
    int32_t y = tensor(t, DT_I8, "2,4");
    int doublings = 0;
    for (; doublings < 62; doublings++) {
        int32_t o = op(t, OP_CAT, ARR32(y, y), ARR64(0), 0);
        if (o < 0)
            break;
        y = out(t, o);
    }
    assert_int_equal(doublings, 45);   /* i8[2^46, 4] is 2^48 bytes */
    assert_string_equal(t->err, "cat: the result i8[140737488355328, 4] is larger than 2^48 bytes, "
                                "the most tngc plans for one tensor");
    /* symbolic dims: refused when even the smallest binding is too big */
    int32_t s = tensor(t, DT_F32, "s0");
    assert_int_equal(op(t, OP_RESHAPE, ARR32(s), ARR64(GRAPH_INFER, C(t, big)), 0), -1);
    assert_true(op(t, OP_FULL, NONE, ARR64(graph_dim_mul(g, t->s[0], C(t, 1 << 20))), DT_F32) >= 0);
    assert_int_equal(op(t, OP_FULL, NONE, ARR64(graph_dim_mul(g, t->s[0], C(t, big))), DT_F32), -1);
    assert_string_equal(t->err, "full: the result f32[s0*4611686018427387904] is larger than 2^48 "
                                "bytes, the most tngc plans for one tensor");
    /* slices with huge bounds and steps stay within the input */
    int32_t v = out(t, op(t, OP_SLICE, ARR32(x), ARR64(0, big, INT64_MAX - 1, 1), 0));
    assert_type(t, v, "f32[0,4]");
    v = out(t, op(t, OP_SLICE, ARR32(x), ARR64(1, INT64_MIN + 1, big, INT64_MAX), 0));
    assert_type(t, v, "f32[4,1]");
    v = out(t, op(t, OP_SLICE, ARR32(s), ARR64(0, -big, INT64_MAX - 1, big), 0));
    int64_t n = 0, symval[3] = {10, 1, 1};
    assert_int_equal(graph_dim_eval(g, g->vals.v[v].dims[0], symval, &n), 0);
    assert_int_equal(n, 1);
    symval[0] = GRAPH_MAX_BYTES;
    assert_int_equal(graph_dim_eval(g, g->vals.v[v].dims[0], symval, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(op(t, OP_SELECT, ARR32(x), ARR64(0, big - 1), 0), -1);
    assert_string_equal(t->err, "select: index 4611686018427387903 is out of bounds for dim 0 with size 4");
    /* inputs and weights */
    DimId huge[2] = {C(t, big + 4), C(t, 4)};
    size_t nvals = g->vals.n;
    assert_int_equal(graph_add_input(g, "h", DT_F32, FMT_ND, 2, huge, NULL, 0, 1, 1), -1);
    assert_int_equal(graph_add_weight(g, "w", DT_F32, 2, (int64_t[]){big + 4, 4}, 0), -1);
    assert_int_equal(graph_add_weight(g, "w", DT_F32, 1, (int64_t[]){-1}, 0), -1);
    assert_int_equal(g->vals.n, nvals);
    assert_true(graph_add_weight(g, "w", DT_F32, 1, (int64_t[]){GRAPH_MAX_BYTES / 4}, 0) >= 0);
    t_free(t);
}

static void test_errors_leave_graph_unchanged(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    int32_t a = tensor(t, DT_F32, "s0,2"), b = tensor(t, DT_F32, "s1,3");
    size_t nops = g->ops.n, nvals = g->vals.n;
    /* dim 0 gets a check before dim 1 fails: the check goes too */
    assert_int_equal(op(t, OP_ADD, ARR32(a, b), NONE, 0), -1);
    assert_string_equal(t->err, "add: shapes (s0, 2) and (s1, 3) cannot be broadcast");
    assert_int_equal(g->checks.n, 0);
    assert_int_equal(op(t, OP_ADD, ARR32(a), NONE, 0), -1);
    assert_string_equal(t->err, "add: expected 2 tensor operand(s), got 1");
    assert_int_equal(op(t, OP_MM, ARR32(a, b, a), NONE, 0), -1);
    assert_string_equal(t->err, "mm: expected 2 inputs, got 3");
    assert_int_equal(op(t, OP_ADD, ARR32(a, 99), NONE, 0), -1);
    assert_string_equal(t->err, "add: input 1 is not a value");
    assert_int_equal(op(t, OP_ADD, ARR32(a, -1), NONE, 0), -1);
    assert_int_equal(op(t, OP_ADD, ARR32(a, b), ARR64(7), 0), -1);
    assert_string_equal(t->err, "add: invalid operand mode 7");
    assert_int_equal(op(t, OP_INPUT, NONE, NONE, 0), -1);
    assert_int_equal(op(t, (OpKind)999, NONE, NONE, 0), -1);
    assert_int_equal(op(t, OP_EXP, ARR32(a), NONE, (DType)99), -1);
    assert_string_equal(t->err, "exp: invalid dtype 99");
    OpDesc d = {0};
    d.kind = OP_EXP;
    d.in = (int32_t[]){a};
    d.nin = 1;
    d.stream = 3;
    assert_int_equal(add(t, &d), -1);
    assert_string_equal(t->err, "exp: invalid stream 3");
    d.stream = 0;
    d.sk = 0;
    assert_int_equal(add(t, &d), -1);
    assert_string_equal(t->err, "exp: invalid super kernel 0");
    /* the message is the last refusal's, and an op added clears it */
    d.sk = -1;
    assert_true(add(t, &d) >= 0);
    assert_int_equal(g->error.len, 0);
    nops = g->ops.n, nvals = g->vals.n;
    d.sk = 0;
    assert_int_equal(add(t, &d), -1);
    assert_string_equal(g->error.s, "exp: invalid super kernel 0");
    assert_int_equal(g->ops.n, nops);
    assert_int_equal(g->vals.n, nvals);
    assert_int_equal(g->checks.n, 0);
    t_free(t);
}

static void test_op_fields(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    int32_t a = tensor(t, DT_F32, "4");
    int s1 = graph_stream(g, "moe", 0, 10, 4);
    int sk = graph_sk(g, "sk1", "stream-fusion=1", 11, 8);
    int32_t in[1] = {a};
    OpDesc d = {0};
    d.kind = OP_ADD;
    d.in = in;
    d.nin = 1;
    d.attr = (int64_t[]){1, 0};
    d.nattr = 2;
    d.fattr[0] = 0.5;
    d.fattr[1] = 2.0;
    d.stream = s1;
    d.sk = sk;
    d.line = 12;
    d.col = 9;
    int32_t o = add(t, &d);
    assert_int_equal(o, (int32_t)g->ops.n - 1);
    in[0] = 77;    /* the op keeps its own copy */
    const Op *p = &g->ops.v[o];
    assert_int_equal(p->kind, OP_ADD);
    assert_int_equal(p->nin, 1);
    assert_int_equal(p->in[0], a);
    assert_int_equal(p->nattr, 2);
    assert_int_equal(p->attr[0], 1);
    assert_true(p->fattr[0] == 0.5 && p->fattr[1] == 2.0);
    assert_int_equal(p->stream, 1);
    assert_int_equal(p->sk, 0);
    assert_int_equal(p->line, 12);
    assert_int_equal(p->col, 9);
    assert_int_equal(p->out, (int32_t)g->vals.n - 1);
    assert_int_equal(p->nout, 1);
    assert_int_equal(p->nctrl, 0);
    assert_int_equal(g->vals.v[p->out].op, o);
    assert_type(t, p->out, "f32[4]");
    t_free(t);
}

static void test_ctrl_streams_sks(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    int32_t x = tensor(t, DT_F32, "4");
    int32_t ops[12];
    for (int i = 0; i < 12; i++)
        ops[i] = op(t, OP_RELU, ARR32(x), NONE, 0);
    int32_t last = ops[11];
    graph_add_ctrl(g, last, ops[0], 0);
    graph_add_ctrl(g, last, ops[0], 0);
    assert_int_equal(g->ops.v[last].nctrl, 1);
    assert_int_equal(g->ops.v[last].ctrl_explicit[0], 0);
    graph_add_ctrl(g, last, ops[0], 1);   /* an explicit wait upgrades it */
    assert_int_equal(g->ops.v[last].nctrl, 1);
    assert_int_equal(g->ops.v[last].ctrl_explicit[0], 1);
    for (int i = 1; i < 11; i++)
        graph_add_ctrl(g, last, ops[i], i == 7);
    assert_int_equal(g->ops.v[last].nctrl, 11);
    for (int i = 0; i < 11; i++)
        assert_int_equal(g->ops.v[last].ctrl[i], ops[i]);
    assert_int_equal(g->ops.v[last].ctrl_explicit[7], 1);
    assert_int_equal(g->ops.v[last].ctrl_explicit[8], 0);
    /* streams in order of first appearance */
    assert_int_equal(graph_stream(g, NULL, 0, 1, 1), 0);
    assert_int_equal(graph_stream(g, "a", 0, 5, 2), 1);
    assert_int_equal(graph_stream(g, "b", 0, 6, 2), 2);
    assert_int_equal(graph_stream(g, "a", 0, 9, 2), 1);
    assert_int_equal(g->streams.n, 3);
    assert_string_equal(g->streams.v[1].tag, "a");
    assert_int_equal(g->streams.v[1].line, 5);
    /* super kernels by name */
    assert_int_equal(graph_sk(g, "sk", "feed-sync-all=1", 3, 4), 0);
    assert_int_equal(graph_sk(g, "other", NULL, 4, 4), 1);
    assert_int_equal(graph_sk(g, "sk", NULL, 8, 4), 0);
    assert_int_equal(g->sks.n, 2);
    assert_string_equal(g->sks.v[0].options, "feed-sync-all=1");
    assert_null(g->sks.v[1].options);
    assert_int_equal(g->sks.v[0].line, 3);
    StrBuf sb = {0};
    graph_val_type_str(g, 12345, &sb);
    assert_string_equal(sb.s, "?");
    sb_free(&sb);
    t_free(t);
}

/* ---- sliding windows: attribute arithmetic, checked ---- */

/* conv, the pools and adaptive pooling refuse attributes whose products
 * and sums (the dilated kernel, the padding, the padded size, the kernel
 * area, an adaptive window's bounds) do not fit int64, and take the
 * largest that do. */
static void test_window_overflow(void **state)
{
    (void)state;
    T *t = t_new();
    const int64_t big = (int64_t)1 << 62;
    int32_t x = tensor(t, DT_F32, "1,1,8,8"), w = tensor(t, DT_F32, "1,1,5,5");
    int32_t xs = tensor(t, DT_F32, "1,1,s0,s1");
    /* dilation (2^62 + 1) * (5 - 1) */
    assert_int_equal(op(t, OP_CONV, ARR32(x, w, -1), ARR64(2, 1, 1, 0, 0, 0, 0, 1, big + 1, 1), 0), -1);
    assert_non_null(strstr(t->err, "dilation 4611686018427387905 * 4 overflows 64-bit integers"));
    /* padding 2^62 + 2^62 */
    assert_int_equal(op(t, OP_CONV, ARR32(x, w, -1), ARR64(2, 1, 1, big, 0, big, 0, 1, 1, 1), 0), -1);
    assert_non_null(strstr(t->err, "the padding 4611686018427387904 + 4611686018427387904 overflows"));
    /* 8 + (2^63 - 2) */
    assert_int_equal(op(t, OP_CONV, ARR32(x, w, -1), ARR64(2, 1, 1, 0, big - 1, 0, big - 1, 1, 1, 1), 0), -1);
    assert_non_null(strstr(t->err, "the padded input size 8 + 9223372036854775806 overflows"));
    /* a negative padding is no smaller padding after */
    assert_int_equal(op(t, OP_CONV, ARR32(x, w, -1), ARR64(2, 1, 1, -2, 0, 4, 0, 1, 1, 1), 0), -1);
    assert_non_null(strstr(t->err, "it must not be negative"));
    /* a stride of 2^62 over a padding of 2^61 fits: 2 x 2 */
    int32_t o = op(t, OP_CONV, ARR32(x, w, -1), ARR64(2, big, big, big / 2, big / 2, big / 2, big / 2, 1, 1, 1), 0);
    assert_type(t, out(t, o), "f32[1,1,2,2]");
    /* pools: 2 * padding past int64; the kernel area */
    assert_int_equal(op(t, OP_MAX_POOL2D, ARR32(x), ARR64(INT64_MAX, 1, 1, 1, big, 0), 0), -1);
    assert_non_null(strstr(t->err, "it must be at most half the kernel size"));
    assert_int_equal(op(t, OP_AVG_POOL2D, ARR32(x), ARR64(big, big, 1, 1, big / 2, big / 2, 1), 0), -1);
    assert_non_null(strstr(t->err, "the kernel area 4611686018427387904 * 4611686018427387904 overflows"));
    o = op(t, OP_AVG_POOL2D, ARR32(x), ARR64((int64_t)1 << 31, (int64_t)1 << 31, 1, 1, (int64_t)1 << 30,
                                            (int64_t)1 << 30, 1), 0);
    assert_type(t, out(t, o), "f32[1,1,9,9]");
    /* adaptive: out * n + out; a symbolic n counts as 2^48 */
    assert_int_equal(op(t, OP_ADAPTIVE_AVG_POOL2D, ARR32(x), ARR64(big, 1), 0), -1);
    assert_non_null(strstr(t->err, "output size 4611686018427387904 * 8 overflows"));
    assert_int_equal(op(t, OP_ADAPTIVE_MAX_POOL2D, ARR32(xs), ARR64(1, (int64_t)1 << 15), 0), -1);
    assert_non_null(strstr(t->err, "output size 32768 * 281474976710656 overflows"));
    o = op(t, OP_ADAPTIVE_MAX_POOL2D, ARR32(xs), ARR64(1, (int64_t)1 << 14), 0);
    assert_type(t, out(t, o), "f32[1,1,1,16384]");
    t_free(t);
}

/* Storage roots of long view chains, tags and ctrl edges in any order:
 * each lookup is O(1) or amortised, and answers as a walk would. */
static void test_roots_and_lookups(void **state)
{
    (void)state;
    T *t = t_new();
    Graph *g = &t->g;
    int32_t x = tensor(t, DT_F32, "4"), v = x;
    for (int i = 0; i < 1000; i++)
        v = out(t, op(t, OP_CONTIGUOUS, ARR32(v), NONE, 0));
    assert_int_equal(graph_storage_root(g, v), x);
    int32_t y = out(t, op(t, OP_RELU, ARR32(v), NONE, 0));
    assert_int_equal(graph_storage_root(g, y), y);
    /* values pushed by hand (as the planner's tests do) are walked */
    Val hand = g->vals.v[v];
    hand.op = (int32_t)g->ops.n - 1;
    VEC_PUSH(g->vals, hand);
    int32_t z = out(t, op(t, OP_CONTIGUOUS, ARR32(y), NONE, 0));
    assert_int_equal(graph_storage_root(g, z), y);
    graph_truncate(g, g->ops.n - 1, g->vals.n - 1);
    assert_int_equal(graph_storage_root(g, y), y);
    /* 300 tags: the map gives each its index, first appearance first */
    char tag[16];
    for (int i = 0; i < 300; i++) {
        snprintf(tag, sizeof tag, "t%d", i);
        assert_int_equal(graph_stream(g, tag, 0, 1, 1), i + 1);
    }
    assert_int_equal(graph_stream(g, "t7", 0, 1, 1), 8);
    /* a table filled by hand is indexed anew */
    VEC_PUSH(g->streams, ((GraphStream){"hand", 0, 2, 2}));
    assert_int_equal(graph_stream(g, "hand", 0, 3, 3), 301);
    assert_int_equal(graph_stream(g, "t299", 0, 3, 3), 300);
    assert_int_equal(g->streams.n, 302);
    /* ctrl edges added out of order are still kept once */
    int32_t ops[6];
    for (int i = 0; i < 6; i++)
        ops[i] = op(t, OP_RELU, ARR32(x), NONE, 0);
    graph_add_ctrl(g, ops[5], ops[3], 0);
    graph_add_ctrl(g, ops[5], ops[1], 0);
    graph_add_ctrl(g, ops[5], ops[3], 1);
    graph_add_ctrl(g, ops[5], ops[4], 0);
    graph_add_ctrl(g, ops[5], ops[1], 0);
    const Op *last = &g->ops.v[ops[5]];
    assert_int_equal(last->nctrl, 3);
    assert_int_equal(last->ctrl[0], ops[3]);
    assert_int_equal(last->ctrl_explicit[0], 1);
    assert_int_equal(last->ctrl[1], ops[1]);
    assert_int_equal(last->ctrl[2], ops[4]);
    t_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_dims_hash_consing),
        cmocka_unit_test(test_dims_folding),
        cmocka_unit_test(test_dims_exact_division),
        cmocka_unit_test(test_dims_eval),
        cmocka_unit_test(test_checked_arith),
        cmocka_unit_test(test_dims_overflow),
        cmocka_unit_test(test_dims_str),
        cmocka_unit_test(test_dims_uses_sym),
        cmocka_unit_test(test_inputs_weights),
        cmocka_unit_test(test_broadcast_const),
        cmocka_unit_test(test_broadcast_symbolic),
        cmocka_unit_test(test_promotion),
        cmocka_unit_test(test_matmul),
        cmocka_unit_test(test_addmm_linear),
        cmocka_unit_test(test_reshape),
        cmocka_unit_test(test_permute_formats),
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_cat_stack),
        cmocka_unit_test(test_reductions),
        cmocka_unit_test(test_softmax_norms),
        cmocka_unit_test(test_embedding),
        cmocka_unit_test(test_quant_ops),
        cmocka_unit_test(test_copy_slice_store),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_size_invariant),
        cmocka_unit_test(test_errors_leave_graph_unchanged),
        cmocka_unit_test(test_op_fields),
        cmocka_unit_test(test_ctrl_streams_sks),
        cmocka_unit_test(test_window_overflow),
        cmocka_unit_test(test_roots_and_lookups),
        cmocka_unit_test(test_collectives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
