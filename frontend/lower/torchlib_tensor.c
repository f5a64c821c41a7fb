/*
 * torchlib_tensor.c - the torch library (torchlib.c), casts, identities, queries, copy_ and creation: to, type_as, size/dim/numel, copy_, zeros/ones/full/empty and their _like and new_ forms, tensor, arange, finfo/iinfo.
 * Each lowering (lo_*) is under the Python signature it lowers; its lib[]
 * row is in torchlib.c; helpers shared across the library are declared
 * in torchlib_core.h and torchlib_int.h.
 */
#include "torchlib.h"
#include "torchlib_int.h"
#include "numpylib.h"

/* ---- lowerings: casts, identities, queries, in-place copy ---- */

/* x.to(dtype) | x.to(device) | x.to(device, dtype) | x.to(other) |
 * x.to(dtype=..., device=..., non_blocking=...): a CAST only when the dtype
 * changes. Devices (strings, torch.device, unknown values) are ignored. */
Obj *lo_to(Interp *I, Call *c)
{
    Obj *self = P0(c);
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    DType dt = DT_UNKNOWN;
    Obj *args = P(c, "args");   /* the positional arguments after self */
    Obj *const *items = is_seq(args) ? args->items : &args;
    size_t n = is_seq(args) ? args->n : args != NULL;
    for (size_t i = 0; i < n; i++) {
        Obj *o = items[i];
        if (tl_dtype_of_obj(o) != DT_UNKNOWN) {
            dt = tl_dtype_of_obj(o);
        } else if (is_tensor(o)) {
            int32_t v = tl_tv(I, o, c->node);
            if (v < 0)
                return unk(I);
            rowsel_unread(I, v);   /* its dtype only */
            dt = val_at(I, v)->dtype;
        } else if (o->kind == O_BUILTIN && o->s && strncmp(o->s, "torch.", 6) == 0 &&
                   (strstr(o->s, "float64") || strstr(o->s, "double") || strstr(o->s, "int16") ||
                    strstr(o->s, "uint8") || strstr(o->s, "complex"))) {
            return interp_break(I, c->node, RULE_TNG203, "dtype %s is not supported", o->s);
        }
    }
    Obj *kd = P(c, "dtype");
    if (kd && !is_none(kd) && !tl_dtype_arg(I, kd, c->node, &dt))
        return unk(I);
    if (dt == DT_UNKNOWN)
        return self;
    return tl_cast_to(I, self, dt, c->node);
}

/* x.float() | x.half() | x.bfloat16() | x.int() | x.long() | x.bool() | x.char() */
Obj *lo_cast(Interp *I, Call *c)
{
    if (tl_x0(I, c) < 0)
        return unk(I);
    return tl_cast_to(I, P0(c), (DType)c->arg, c->node);
}

/* x.type_as(other) | x.type(dtype) */
Obj *lo_type_as(Interp *I, Call *c)
{
    Obj *o = P_at(c, 1);   /* type: dtype; type_as: other */
    if (tl_x0(I, c) < 0)
        return unk(I);
    DType dt = DT_UNKNOWN;
    if (c->arg) {
        if (!o)
            return interp_break(I, c->node, RULE_TNG203, "x.type() without a dtype (it returns a string)");
        if (!tl_dtype_arg(I, o, c->node, &dt) || dt == DT_UNKNOWN)
            return unk(I);
    } else {
        int32_t v = tl_tv(I, o, c->node);
        if (v < 0) {
            if (!is_unknown(o))
                interp_break(I, c->node, RULE_TNG203, "type_as expects a tensor");
            return unk(I);
        }
        rowsel_unread(I, v);   /* its dtype only */
        dt = val_at(I, v)->dtype;
    }
    return tl_cast_to(I, P0(c), dt, c->node);
}

/* x.npu() | x.cuda() | x.cpu() | x.detach() | x.clone() | x.requires_grad_() |
 * torch.clone(x) | torch.detach(x): the tensor itself */
Obj *lo_same(Interp *I, Call *c)
{
    Obj *x = P0(c);
    if (tl_x0(I, c) < 0)
        return unk(I);
    if (streq(c->name, "requires_grad_") && x->t)
        x->t->requires_grad = obj_flag(P(c, "requires_grad"), 1);
    return x;
}

/* x.size() | x.size(dim) | x.dim() | x.ndimension() | x.numel() |
 * x.nelement() | x.is_contiguous() | x.element_size() | x.is_floating_point() */
Obj *lo_query(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    DimId d[GRAPH_MAX_DIMS];
    int n = tl_dims_of(I, x, d);
    const char *m = c->name;
    if (streq(m, "size") || streq(m, "shape")) {
        Obj *dim = P(c, "dim");
        if (!dim) {
            Obj *items[GRAPH_MAX_DIMS];
            for (int i = 0; i < n; i++)
                items[i] = obj_dim(I, d[i]);
            return obj_tuple(I, items, (size_t)n);
        }
        int64_t k;
        if (!tl_dim_arg(I, dim, n, c->node, "the size dim", &k))
            return unk(I);
        if (n == 0)
            return interp_break(I, c->node, RULE_TNG206, "size(dim) of a 0-d tensor");
        return obj_dim(I, d[k]);
    }
    if (streq(m, "dim") || streq(m, "ndimension"))
        return obj_int(I, n);
    if (streq(m, "numel") || streq(m, "nelement")) {
        DimId p = graph_dim_const(G(I), 1);
        for (int i = 0; i < n; i++)
            p = graph_dim_mul(G(I), p, d[i]);
        return obj_dim(I, p);
    }
    if (streq(m, "element_size"))
        return obj_int(I, dtype_size(val_at(I, x)->dtype));
    if (streq(m, "is_floating_point"))
        return obj_bool(I, dtype_is_float(val_at(I, x)->dtype));
    /* is_contiguous: PyTorch's answer from the strides tngc follows */
    Obj *mf = P(c, "memory_format");
    if (!is_none(mf) && !(mf->kind == O_BUILTIN && mf->s && streq(mf->s, "torch.contiguous_format")))
        return interp_break(I, c->node, RULE_TNG203, "is_contiguous(memory_format=...) is not supported: tngc "
                            "follows PyTorch's contiguous layout only");
    int k = views_is_contiguous(I, P0(c));
    if (k < 0)
        return interp_break(I, c->node, RULE_TNG203, "tngc cannot tell whether PyTorch's tensor is contiguous "
                            "here (its strides follow from a memory format, an op or a view tngc does not "
                            "model): the branch on is_contiguous() cannot be compiled");
    return obj_bool(I, k);
}

/* dst.copy_(src, non_blocking=False): COPY; dst's object now holds the new
 * version, and dst is returned. */
Obj *lo_copy(Interp *I, Call *c)
{
    Obj *dst = P0(c), *src = P(c, "src");
    int32_t in[2] = {tl_x0(I, c), -1};
    if (in[0] < 0)
        return unk(I);
    if (!is_tensor(src)) {
        if (!is_unknown(src))
            interp_break(I, c->node, RULE_TNG211, "copy_ from something that is not a tensor");
        return unk(I);
    }
    if (!views_operand_ok(I, dst, src, c->node, "copy_"))
        return obj_unknown_reported(I);
    if ((in[1] = tl_tv(I, src, c->node)) < 0 || (in[0] = views_write_begin(I, dst, c->node, "copy_")) < 0)
        return unk(I);
    int32_t op = tl_emit(I, OP_COPY, in, 2, NULL, 0, 0, 0, DT_UNKNOWN, c->node);
    if (op < 0 || views_write_end(I, dst, G(I)->ops.v[op].out, c->node) < 0)
        return obj_unknown_reported(I);   /* interp_op reported */
    return dst;
}

/* ---- lowerings: tensor creation ---- */

/* The dtype torch.full gives fill when no dtype= is given. */
static DType fill_dtype(Interp *I, const Obj *fill)
{
    if (fill && fill->kind == O_BOOL)
        return DT_BOOL;
    if (fill && (fill->kind == O_INT || fill->kind == O_DIM))
        return DT_I64;
    return graph_float(G(I));
}

/* torch.ones(*size, dtype=None) | torch.zeros | torch.empty | torch.randn |
 * torch.rand | torch.full(size, fill_value, dtype=None) |
 * torch.randint(low=0, high, size, dtype=torch.int64) */
Obj *lo_create(Interp *I, Call *c)
{
    int64_t d[GRAPH_MAX_DIMS];
    int n;
    double fill = c->arg == FILL_ONE ? 1 : 0;
    DType dt;
    if (!tl_dtype_arg(I, P(c, "dtype"), c->node, &dt) || (n = tl_sizes_arg(I, P(c, "size"), c->node, 0, d)) < 0)
        return unk(I);
    if (c->arg == FILL_FULL) {
        Obj *fo = P(c, "fill_value");
        if (!tl_fill_value(I, fo, c->node, &fill))
            return unk(I);
        if (dt == DT_UNKNOWN)
            dt = fill_dtype(I, fo);
    } else if (c->arg == FILL_RANDINT) {
        Obj *low = P_if(c, "low");   /* the overload (low, high, size) */
        if (low && !tl_fill_value(I, low, c->node, &fill))
            return unk(I);
        if (dt == DT_UNKNOWN)
            dt = DT_I64;
    }
    Obj *r = tl_full_of(I, d, n, fill, dt, c->node);
    if (streq(c->name, "empty"))
        interp_host_unspecified(I, r);   /* contents unspecified: the FULL's zeros are one choice */
    else if (c->arg == FILL_RANDINT || streq(c->name, "randn") || streq(c->name, "rand"))
        interp_host_inexact(I, r);   /* a spec only: its data is not the FULL's */
    return r;
}

/* torch.ones_like(input, dtype=None) | zeros_like | empty_like | randn_like |
 * rand_like | full_like(input, fill_value) | x.new_zeros(size) | x.new_ones |
 * x.new_empty | x.new_full(size, fill_value): the dtype of input by default */
Obj *lo_create_like(Interp *I, Call *c)
{
    int32_t x = tl_x0(I, c);
    if (x < 0)
        return unk(I);
    int is_new = strncmp(c->name, "new_", 4) == 0;
    DType dt;
    if (!tl_dtype_arg(I, P(c, "dtype"), c->node, &dt))
        return unk(I);
    if (dt == DT_UNKNOWN)
        dt = val_at(I, x)->dtype;
    double fill = c->arg == FILL_ONE ? 1 : 0;
    if (c->arg == FILL_FULL && !tl_fill_value(I, P(c, "fill_value"), c->node, &fill))
        return unk(I);
    int64_t d[GRAPH_MAX_DIMS];
    int n;
    if (is_new) {
        if ((n = tl_sizes_arg(I, P(c, "size"), c->node, 0, d)) < 0)
            return unk(I);
    } else {
        DimId dd[GRAPH_MAX_DIMS];
        n = tl_dims_of(I, x, dd);
        for (int i = 0; i < n; i++)
            d[i] = dd[i];
    }
    Obj *r = tl_full_of(I, d, n, fill, dt, c->node);
    if (streq(c->name, "empty_like") || streq(c->name, "new_empty"))
        interp_host_unspecified(I, r);   /* contents unspecified: the FULL's zeros are one choice */
    else if (streq(c->name, "randn_like") || streq(c->name, "rand_like"))
        interp_host_inexact(I, r);   /* a spec only: its data is not the FULL's */
    return r;
}

/* Shape and element statistics of nested lists for torch.tensor(data).
 * [[0] * 100000] * 100000 is 10^10 elements in a few objects: the count is
 * bounded so that reading it stays fast. */
#define TENSOR_DATA_MAX (1L << 24)
/* Data of distinct values up to this many elements is built from one FULL
 * per element, stacked (tensor_literal); beyond it a host tensor's values
 * are not known to tngc. */
#define TENSOR_LITERAL_MAX 1024
typedef struct TensorData {
    int64_t dims[GRAPH_MAX_DIMS];
    int ndim;
    int any_float, all_bool;
    int64_t count;         /* elements visited (a shared inner list counts each time) */
    double first;
    int all_same;
    int inexact;           /* an int whose magnitude passes 2^53 (a double does not hold it) */
    double vals[TENSOR_LITERAL_MAX];   /* the first elements, in order */
} TensorData;

static int tensor_data(const Obj *o, int depth, TensorData *td)
{
    double v;
    int is_int;
    if (is_seq(o)) {
        if (depth >= GRAPH_MAX_DIMS)
            return 0;
        if (td->count == 0 && depth == td->ndim)
            td->dims[td->ndim++] = (int64_t)o->n;
        else if (depth >= td->ndim || td->dims[depth] != (int64_t)o->n)
            return 0;
        for (size_t i = 0; i < o->n; i++)
            if (!tensor_data(o->items[i], depth + 1, td))
                return 0;
        return 1;
    }
    if (!tl_py_number(o, &v, &is_int) || depth != td->ndim || td->count >= TENSOR_DATA_MAX)
        return 0;
    td->any_float |= !is_int;
    td->all_bool &= o->kind == O_BOOL;
    td->inexact |= is_int && fabs(v) > 9007199254740992.0;
    if (td->count < TENSOR_LITERAL_MAX)
        td->vals[td->count] = v;
    if (td->count++ == 0)
        td->first = v;
    else
        td->all_same &= v == td->first;
    return 1;
}

/* Data of distinct values td (td->count <= TENSOR_LITERAL_MAX) as dtype dt:
 * one 0-d FULL per element, each rounded from its Python value as a FULL of
 * that value is, stacked and shaped. Exact, so a constant tngc can replay
 * (a non-persistent buffer, a module-level tensor) or trace. */
static Obj *tensor_literal(Interp *I, const TensorData *td, DType dt, int32_t node)
{
    int32_t *in = interp_alloc(I, (size_t)td->count * sizeof *in);
    for (int64_t i = 0; i < td->count; i++)
        if ((in[i] = tl_tv(I, tl_full_of(I, NULL, 0, td->vals[i], dt, node), node)) < 0)
            return unk(I);
    int64_t dim0 = 0;
    Obj *flat = tl_emit1(I, OP_STACK, in, (uint32_t)td->count, &dim0, 1, 0, 0, DT_UNKNOWN, node);
    int32_t fv = tl_tv(I, flat, node);
    if (fv < 0 || td->ndim == 1)
        return flat;
    DimId d[GRAPH_MAX_DIMS];
    for (int i = 0; i < td->ndim; i++)
        d[i] = graph_dim_const(G(I), td->dims[i]);
    return tl_reshape_to(I, fv, d, td->ndim, node);
}

/* torch.tensor(data, dtype=None): a FULL of data's shape when every element
 * is the same; data of distinct values up to TENSOR_LITERAL_MAX elements
 * element by element (tensor_literal); larger data only in host mode,
 * where its values are not known (an example input's shape) */
Obj *lo_tensor(Interp *I, Call *c)
{
    Obj *data = P(c, "data");
    TensorData *td = interp_alloc(I, sizeof *td);
    memset(td, 0, sizeof *td);
    td->all_bool = td->all_same = 1;
    if (!tl_known(I, data, c->node, "the data of torch.tensor"))
        return unk(I);
    if (!data || !tensor_data(data, 0, td))
        return interp_break(I, c->node, RULE_TNG203, "torch.tensor of data tngc cannot read");
    int literal = !td->all_same && td->count <= TENSOR_LITERAL_MAX && !td->inexact;
    if (td->inexact && interp_tracing(I))
        return interp_break(I, c->node, RULE_TNG203, "torch.tensor of an int past 2^53 inside a compiled method");
    if (!td->all_same && !literal && interp_tracing(I))
        return interp_break(I, c->node, RULE_TNG203, "torch.tensor of more than %d distinct values inside a "
                            "compiled method", TENSOR_LITERAL_MAX);
    DType dt;
    if (!tl_dtype_arg(I, P(c, "dtype"), c->node, &dt))
        return unk(I);
    if (dt == DT_UNKNOWN && numpy_holds_f64(data))
        return interp_break(I, c->node, RULE_TNG203, "torch.tensor of a numpy.float64 without dtype= (PyTorch "
                            "makes a float64 tensor, which tngc does not compile)");
    if (dt == DT_UNKNOWN)
        dt = td->any_float ? graph_float(G(I)) : td->all_bool && td->count ? DT_BOOL : DT_I64;
    if (literal)
        return tensor_literal(I, td, dt, c->node);
    int64_t d[GRAPH_MAX_DIMS];
    for (int i = 0; i < td->ndim; i++)
        d[i] = graph_dim_const(G(I), td->dims[i]);
    Obj *r = tl_full_of(I, d, td->ndim, td->count ? td->first : 0, dt, c->node);
    if (!td->all_same || td->inexact)
        interp_host_inexact(I, r);   /* host mode: the shape only */
    return r;
}

/* ---- lowerings: creation and constants ---- */

/* One bound of torch.arange: 1 with *v (and *is_int) for a number known
 * now, 2 with *d for a symbolic int (a dim of a geared input), 0 after a
 * diagnostic naming `what`. */
static int arange_bound(Interp *I, const Obj *o, int32_t node, const char *what, double *v, int *is_int,
                        DimId *d)
{
    int64_t c;
    if (!tl_known(I, o, node, what))
        return 0;
    if (o->kind == O_DIM && !graph_dim_const_value(G(I), o->dim, &c)) {
        *d = o->dim;
        *is_int = 1;
        return 2;
    }
    if (o->kind == O_DIM) {
        *v = (double)c;
        *is_int = 1;
        return 1;
    }
    if (tl_py_number(o, v, is_int))
        return 1;
    interp_break(I, node, RULE_TNG203, "torch.arange: %s must be a number", what);
    return 0;
}

/* torch.arange(end) | torch.arange(start, end, step=1, dtype=None,
 * device=...): int64 when start, end and step are ints, else float32 (or
 * dtype). start and end may be symbolic ints (seq_len = x.shape[1]:
 * arange(seq_len), arange(past, past + seq_len)): the length is then a dim
 * expression, and the step an int known now. */
Obj *lo_arange(Interp *I, Call *c)
{
    /* the overloads (end) and (start, end, step=1) */
    Obj *so = P_if(c, "start"), *eo = P(c, "end"), *po = P_if(c, "step");
    double sv = 0, ev = 0, pv = 1;
    int si = 1, ei = 1, pi = 1, sk = 1, ek, pk = 1;
    DimId sd = -1, ed = -1, pd = -1;
    if ((so && !is_none(so) && !(sk = arange_bound(I, so, c->node, "start", &sv, &si, &sd))) ||
        !(ek = arange_bound(I, eo, c->node, "end", &ev, &ei, &ed)) ||
        (po && !is_none(po) && !(pk = arange_bound(I, po, c->node, "step", &pv, &pi, &pd))))
        return unk(I);
    DType dt;
    if (!tl_dtype_arg(I, P(c, "dtype"), c->node, &dt))
        return unk(I);
    int all_int = si && ei && pi;
    if (dt == DT_UNKNOWN)
        dt = all_int ? DT_I64 : graph_float(G(I));
    if (dt == DT_BOOL)
        return interp_break(I, c->node, RULE_TNG203, "torch.arange: dtype torch.bool is not supported by torch");
    Graph *g = G(I);
    int64_t len;
    if (pk == 2)
        return interp_break(I, c->node, RULE_TNG203, "torch.arange: a step that depends on a dynamic dim");
    if (pv == 0 || pv != pv)
        return interp_break(I, c->node, RULE_TNG206, "torch.arange: step must be nonzero");
    if (sv - sv != 0 || ev - ev != 0 || pv - pv != 0)
        return interp_break(I, c->node, RULE_TNG206, "torch.arange: start, end and step must be finite");
    if (ek == 2 || sk == 2) {   /* a symbolic bound: ints, the constant ones >= 0 */
        if (!all_int)
            return interp_break(I, c->node, RULE_TNG203, "torch.arange: a float bound or step with a bound that "
                                "depends on a dynamic dim");
        if ((sk == 1 && (sv < 0 || sv > 4e18)) || (ek == 1 && (ev < 0 || ev > 4e18)) || fabs(pv) > 4e18)
            return interp_break(I, c->node, RULE_TNG203, "torch.arange: a negative bound with a bound that "
                                "depends on a dynamic dim");
        int64_t st = (int64_t)pv, mag = st > 0 ? st : -st;
        DimId s0 = sk == 2 ? sd : graph_dim_const(g, (int64_t)sv), e0 = ek == 2 ? ed : graph_dim_const(g, (int64_t)ev);
        DimId span = st > 0 ? graph_dim_sub(g, e0, s0) : graph_dim_sub(g, s0, e0);
        span = graph_dim_max(g, span, graph_dim_const(g, 0));
        if (mag != 1)
            span = graph_dim_div(g, graph_dim_add(g, span, graph_dim_const(g, mag - 1)), graph_dim_const(g, mag));
        int64_t attr[2] = {span, sk == 2 ? sd : graph_dim_const(g, 0)};
        return tl_emit1(I, OP_ARANGE, NULL, 0, attr, 2, sk == 2 ? 0 : sv, (double)st, dt, c->node);
    }
    if (all_int && fabs(sv) < 4e18 && fabs(ev) < 4e18 && fabs(pv) < 4e18) {
        int64_t s0 = (int64_t)sv, e0 = (int64_t)ev, st = (int64_t)pv;
        int64_t span = st > 0 ? e0 - s0 : s0 - e0, mag = st > 0 ? st : -st;
        len = span <= 0 ? 0 : ceil_div(span, mag);
    } else {
        double n = ceil((ev - sv) / pv);
        if (!(n < 4e18))
            return interp_break(I, c->node, RULE_TNG206, "torch.arange: too many elements");
        len = n > 0 ? (int64_t)n : 0;
    }
    int64_t attr[2] = {graph_dim_const(g, len), graph_dim_const(g, 0)};
    return tl_emit1(I, OP_ARANGE, NULL, 0, attr, 2, sv, pv, dt, c->node);
}

/* The attributes of torch.finfo / torch.iinfo (an instance holding Python
 * floats and ints, read at lowering time). */
static Obj *info_obj(Interp *I, const char *cls, DType dt)
{
    Obj *o = obj_new(I, O_INST);
    o->s = cls;
    obj_setattr(I, o, "dtype", tl_obj_dtype(I, dt));
    obj_setattr(I, o, "bits", obj_int(I, dtype_size(dt) * 8));
    return o;
}

/* torch.finfo(dtype=torch.float32): .min .max .eps .tiny .smallest_normal
 * .resolution .bits | torch.iinfo(dtype): .min .max .bits */
Obj *lo_finfo(Interp *I, Call *c)
{
    Obj *d = P(c, "type");
    DType dt = graph_float(G(I));
    if (d && !is_none(d)) {
        if (!tl_known(I, d, c->node, "the dtype"))
            return unk(I);
        if (is_tensor(d)) {   /* torch.finfo(x) is an error in torch; x.dtype is meant */
            return interp_break(I, c->node, RULE_TNG203, "%s expects a dtype (x.dtype), not a tensor", c->full);
        }
        dt = tl_dtype_of_obj(d);
    } else if (c->arg) {
        return interp_break(I, c->node, RULE_TNG203, "torch.iinfo without a dtype");
    }
    static const struct { DType dt; double eps, max, tiny, res; } fl[] = {
        {DT_F32, 1.1920928955078125e-07, 3.4028234663852886e+38, 1.1754943508222875e-38, 1e-06},
        {DT_F16, 0.0009765625, 65504.0, 6.103515625e-05, 0.001},
        {DT_BF16, 0.0078125, 3.3895313892515355e+38, 1.1754943508222875e-38, 0.01},
    };
    if (!c->arg) {
        for (size_t i = 0; i < NELEM(fl); i++)
            if (fl[i].dt == dt) {
                Obj *o = info_obj(I, "torch.finfo", dt);
                obj_setattr(I, o, "eps", obj_float(I, fl[i].eps));
                obj_setattr(I, o, "max", obj_float(I, fl[i].max));
                obj_setattr(I, o, "min", obj_float(I, -fl[i].max));
                obj_setattr(I, o, "tiny", obj_float(I, fl[i].tiny));
                obj_setattr(I, o, "smallest_normal", obj_float(I, fl[i].tiny));
                obj_setattr(I, o, "resolution", obj_float(I, fl[i].res));
                return o;
            }
        return interp_break(I, c->node, RULE_TNG203, "torch.finfo of a dtype tngc knows no float type for (float32, "
                            "float16 and bfloat16 are)");
    }
    if (dt != DT_I8 && dt != DT_I32 && dt != DT_I64)
        return interp_break(I, c->node, RULE_TNG203, "torch.iinfo of a dtype tngc knows no integer type for (int8, "
                            "int32 and int64 are)");
    int bits = dtype_size(dt) * 8;
    int64_t mx = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
    Obj *o = info_obj(I, "torch.iinfo", dt);
    obj_setattr(I, o, "max", obj_int(I, mx));
    obj_setattr(I, o, "min", obj_int(I, -mx - 1));
    return o;
}
