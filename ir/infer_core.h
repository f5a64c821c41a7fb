/*
 * infer_core.h - what the shape rules of ir/ share: the state of one
 * graph_add_op call (Infer), shapes under construction, the helpers that
 * check operands, broadcast and add outputs (infer_core.c, each documented
 * there), the promotion helpers (infer_dtype.c), every kind's shape rule
 * infer_<rule> (ops.def's shape rule column; infer.c and
 * infer_families.c define them) and dtype rule dtype_<rule> (ops.def's
 * dtype rule column; infer_dtype.c), with the helpers of graph.c they
 * use. Private to ir/.
 */
#ifndef TNGC_INFER_CORE_H
#define TNGC_INFER_CORE_H

#include "graph.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* graph.c's helpers that the rules and graph_add_op use (documented
 * there). */
int dtype__is_int(DType t);
int dim__is(const Graph *g, DimId d, int64_t v);
int dim__same(const Graph *g, DimId a, DimId b);
int dim__may_be_one(const Graph *g, DimId d);
const char *graph__size_problem(const Graph *g, int ndim, const DimId *dims, int esize);
int32_t graph__push_op(Graph *g, Op *op, Val *vals, uint32_t nout);

/* A shape under construction (room for intermediate ranks past the limit). */
typedef struct Shape {
    int n;
    DimId d[2 * GRAPH_MAX_DIMS];
} Shape;

/* The state of one graph_add_op call. */
typedef struct Infer {
    Graph *g;
    const OpDesc *d;
    const char *op;                  /* the op's name: first word of messages */
    int64_t attr[GRAPH_MAX_ATTRS];   /* d->attr (RESHAPE replaces its -1) */
    Val out[3];
    uint32_t nout;
    StrBuf text[3];                  /* shape texts for messages */
} Infer;

int infer__fail(Infer *I, const char *fmt, ...);
const Val *infer__in(const Infer *I, uint32_t i);
Shape infer__shape_of(const Val *v);
const char *infer__shape_text(Infer *I, int slot, const Shape *s, int paren);
const char *infer__dim_text(Infer *I, int slot, DimId d);
void infer__check(Infer *I, DimCheckKind k, DimId a, DimId b, const char *what);
int infer__equal(Infer *I, DimId a, DimId b, const char *what);
int infer__out(Infer *I, const Shape *s);
int infer__dim(Infer *I, int64_t dim, int ndim);
int infer__dim_attr(Infer *I, uint32_t i);
DimId infer__numel(Infer *I, const Shape *s);
int infer__half(Infer *I, DimId d, int dim, DimId *half);
int infer__broadcast(Infer *I, const Shape *a, const Shape *b, Shape *out);
int infer__expand(Infer *I, const Shape *src, const Shape *dst);
/* infer_dtype.c's promotion helpers */
DType dtype__promote(DType a, DType b);
DType dtype__result(const Val *a, const Val *b);
DType dtype__with_scalar(const Graph *g, DType t, int int_scalar);
int infer__same_dtype(Infer *I, const Val *a, const Val *b);
int infer__float_input(Infer *I, const Val *x);
int infer__rank(Infer *I, const Val *v, int lo, int hi, const char *what);
int infer__norm_param(Infer *I, const Val *param, const Shape *sx, int k, const char *name);

/* The shape rules and the dtype rules (`none`: kinds graph_add_op does not
 * add; never defined). A shape rule checks the operands and adds the
 * outputs' shapes (infer__out); the dtype rule then sets the dtype of each
 * output. */
#define OP(e, name, flags, in_min, in_max, in_opt, attr_min, attr_max, rule, dtype_rule, rowrule, printer, fusion, op_type, view, layout, swap, acl_form, cpu, cpu_scalar, acl, acl_ts, acl_st, attrs) \
    int infer_##rule(Infer *I); \
    int dtype_##dtype_rule(Infer *I);
#include "ops.def"
#undef OP

#endif
