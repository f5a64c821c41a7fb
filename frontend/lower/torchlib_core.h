/*
 * torchlib_core.h - the core of the torch library (torchlib_core.c): the
 * lowering call (Call), small inline helpers, and the helpers every
 * lowering uses (each documented where it is defined). It names no
 * lowering. Private to the files of the torch library.
 */
#ifndef TNGC_LOWER_TORCHLIB_CORE_H
#define TNGC_LOWER_TORCHLIB_CORE_H

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj.h"
#include "sig.h"

#define M_PI_VALUE 3.14159265358979323846
#define NELEM(a) (sizeof(a) / sizeof *(a))

/* A lowering call: its arguments bound to the parameters of its lib[]
 * row's signature (sig.h), a method's self as parameter 0. */
typedef struct Call {
    const char *name;      /* the name as written after the namespace: "add" */
    const char *full;      /* for messages: "torch.add", "Tensor.add" */
    CallArgs *a;           /* the arguments as written, pos[0] the self of a method */
    int32_t node;
    int method;            /* called as a tensor method */
    int arg;               /* table argument (OpKind, flags) */
    Interp *I;             /* the run (P makes the defaults in it) */
    const Sig *sig;        /* the overload the arguments bound to */
    int ov;                /* its index among the row's overloads */
    Obj *p[SIG_MAXP];      /* the argument of each parameter, NULL where none was given */
} Call;

/* The overloads of one table row's signature (lib[], nn_modules[]). */
typedef struct SigRow {
    Sig s[SIG_MAXOV];
    int n;
} SigRow;

static inline Graph *G(Interp *I) { return interp_graph(I); }

/* ceil(a / b) for a >= 0, b > 0, without the overflow of (a + b - 1) / b. */
static inline int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/* The Val of value id v in the current graph. */
static inline const Val *val_at(Interp *I, int32_t v) { return &G(I)->vals.v[v]; }

/* The rank of value v. */
static inline int rank_of(Interp *I, int32_t v) { return val_at(I, v)->ndim; }

/* Parameter 0 (the tensor operand of a method and of most functions), as
 * given. */
static inline Obj *P0(const Call *c) { return c->p[0]; }

/*
 * The library's dispatcher (torchlib.c's torchlib_call, torchlib_subscript,
 * torchlib_binop, torchlib_unop), for the lowerings that lower an op by
 * lowering other library calls (complex tensors as real pairs, slice
 * stores with a geared bound): torchlib.c installs it (tl_lib_install)
 * at each of its entry points, before any lowering runs, so that the
 * family files call the core and never torchlib.c (a hook, not a call
 * between files: scripts/call_graph.sh).
 */
typedef struct TlLib {
    Obj *(*call)(Interp *I, const char *name, Obj *self_obj, CallArgs *a);
    Obj *(*subscript)(Interp *I, Obj *t, Obj *index, int32_t node);
    Obj *(*binop)(Interp *I, const char *op, Obj *l, Obj *r, int32_t node);
    Obj *(*unop)(Interp *I, const char *op, Obj *o, int32_t node);
} TlLib;
extern TlLib tl_lib;

/* torchlib_core.c */
int tl_sig_row_parse(const char *name, const char *text, SigRow *row, SigParam *pool, size_t cap, size_t *used,
                     StrBuf *why);
Obj *tl_bind(Interp *I, const SigRow *row, const CallArgs *a, const char *full, Call *c);
Obj *P(const Call *c, const char *name);
Obj *PA(const Call *c, const char *name);
Obj *P_if(const Call *c, const char *name);
Obj *P_at(const Call *c, int i);
int32_t tl_tv(Interp *I, Obj *o, int32_t node);
int32_t tl_emit(Interp *I, OpKind kind, const int32_t *in, uint32_t nin, const int64_t *attr,
                uint32_t nattr, double f0, double f1, DType dt, int32_t node);
Obj *tl_op_out(Interp *I, int32_t op, int k);
Obj *tl_emit1(Interp *I, OpKind kind, const int32_t *in, uint32_t nin, const int64_t *attr,
              uint32_t nattr, double f0, double f1, DType dt, int32_t node);
Obj *tl_emit_x(Interp *I, OpKind kind, int32_t x, const int64_t *attr, uint32_t nattr,
               double f0, DType dt, int32_t node);
int tl_norm_dim(Interp *I, int64_t d, int n, int32_t node, int64_t *out);
int tl_const_int(Interp *I, const Obj *o, int32_t node, const char *what, int64_t *v);
int tl_known(Interp *I, const Obj *o, int32_t node, const char *what);
int tl_dim_arg(Interp *I, const Obj *o, int n, int32_t node, const char *what, int64_t *out);
int tl_py_number(const Obj *o, double *v, int *is_int);
double tl_float_arg(const Obj *o, double def);
DType tl_dtype_of_obj(const Obj *o);
Obj *tl_obj_dtype(Interp *I, DType dt);
int tl_dtype_arg(Interp *I, const Obj *o, int32_t node, DType *dt);
Obj *tl_cast_to(Interp *I, Obj *x, DType dt, int32_t node);
/* 1 when every symbol dim d uses has gears; tl_dim_check adds a == b to
 * the checks the planner evaluates in every gear (TNG209 at op where one
 * fails). */
int tl_dim_geared(Interp *I, DimId d);
void tl_dim_check(Interp *I, DimId a, DimId b, int32_t op, const char *what);
int32_t tl_x0(Interp *I, const Call *c);
int tl_dims_of(Interp *I, int32_t v, DimId *d);
int tl_tensor_list(Interp *I, Obj *seq, int32_t node, const char *what, int32_t *vals, int max);
int tl_size_item(Interp *I, const Obj *o, int32_t node, int allow_infer, int64_t *d);
int tl_sizes_arg(Interp *I, Obj *sizes, int32_t node, int allow_infer, int64_t *out);
Obj *tl_reshape_to(Interp *I, int32_t x, const DimId *d, int n, int32_t node);
Obj *tl_permute_of(Interp *I, Obj *self, int32_t x, const int64_t *perm, int n, int32_t node);
Obj *tl_slice_of(Interp *I, int32_t x, int64_t dim, int64_t start, int64_t end, int64_t step, int32_t node);
Obj *tl_unsqueeze_at(Interp *I, int32_t x, int64_t dim, int32_t node);
Obj *tl_transpose_last2(Interp *I, Obj *self, int32_t x, int32_t node);
int tl_scalar_operand(Interp *I, const Obj *o, int32_t node, double *v, int *is_int);
Obj *tl_arith(Interp *I, OpKind kind, Obj *l, Obj *r, double alpha, int32_t node, const char *what);
Obj *tl_inplace_result(Interp *I, Obj *x, Obj *r, const Obj *inplace, int32_t node);
Obj *tl_augassign(Interp *I, Obj *x, Obj *res, int32_t node);
Obj *tl_inplace_fit(Interp *I, Obj *x, Obj *r, int32_t node, const char *what);
int tl_num_arg(Interp *I, const Obj *o, double def, int32_t node, const char *what, double *v);
Obj *tl_softplus_of(Interp *I, int32_t x, const Obj *beta, const Obj *threshold, int32_t node);
Obj *tl_two_tensors(Interp *I, Call *c);
int32_t tl_opt_tensor(Interp *I, Obj *o, int32_t node, const char *what);
Obj *tl_layer_norm(Interp *I, int32_t x, int64_t k, int32_t w, int32_t b, double eps, int32_t node);
Obj *tl_full_of(Interp *I, const int64_t *d, int n, double fill, DType dt, int32_t node);
int tl_fill_value(Interp *I, const Obj *o, int32_t node, double *v);

#endif
