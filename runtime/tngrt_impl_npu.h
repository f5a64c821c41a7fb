/*
 * tngrt_impl_npu.h - the inline bodies of the torch_npu fused-op kernels
 * (tngrt_kernels.h, "kernels: torch_npu fused ops", has
 * their contracts): swiglu, quant_matmul, dequant_swiglu_quant,
 * add_rms_norm, rotary_mul, dynamic_quant, moe_gating_top_k(_softmax),
 * fused attention and the scatter updates, each as
 * tests/ref/stubs/torch_npu computes it from torch_npu's documentation.
 * Included by tngrt_kernel_impl.h after its own sections, whose helpers
 * (tngrt_impl__*, the matmul plan of quant_matmul's int8 product) these
 * use.
 */
#ifndef TNGRT_IMPL_NPU_H
#define TNGRT_IMPL_NPU_H

/* torch.round on double: round half to even (NaN and inf kept). */
TNGRT_KINLINE double tngrt_impl__rne(double v)
{
    double r = floor(v), d = v - r;
    if (d > 0.5 || (d == 0.5 && fmod(r, 2.0) != 0.0))
        r += 1.0;
    return r;
}

/* torch.round on float32. */
TNGRT_KINLINE float tngrt_impl__rnef(float v)
{
    float r = floorf(v), d = v - r;
    if (d > 0.5f || (d == 0.5f && fmodf(r, 2.0f) != 0.0f))
        r += 1.0f;
    return r;
}

/* .clamp(-128, 127).to(int8) of a rounded value; NaN gives 0. */
TNGRT_KINLINE int8_t tngrt_impl__sat8(double v)
{
    if (v != v)
        return 0;
    return (int8_t)(v < -128.0 ? -128 : v > 127.0 ? 127 : (int)v);
}

TNGRT_KINLINE void tngrt_impl_swiglu(const TngrtArg *out, const TngrtArg *x, int dim)
{
    int64_t outer, len, inner, h;
    if (!tngrt_impl__rank_ok(x) || (dim = tngrt_impl__dim(dim, x->ndim)) < 0)
        return;
    outer = tngrt_impl__numel(dim, x->shape);
    len = x->shape[dim];
    inner = tngrt_impl__numel(x->ndim - dim - 1, x->shape + dim + 1);
    h = len / 2;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t c = 0; c < h * inner; c++) { /* (column, inner) pairs */
            int64_t ai = o * len * inner + c;
            float a = tngrt_impl__ldf(x, ai), b = tngrt_impl__ldf(x, ai + h * inner);
            tngrt_impl__stf(out, o * h * inner + c, tngrt_impl__silu(a) * b);
        }
    }
}

/* Whether v (right-aligned) broadcasts to the nd extents shape. */
static inline int tngrt_impl__bcast_ok(const TngrtArg *v, int nd, const int64_t *shape)
{
    if (!tngrt_impl__rank_ok(v) || v->ndim > nd)
        return 0;
    for (int d = 0; d < v->ndim; d++) {
        int64_t e = v->shape[d], o = shape[nd - v->ndim + d];
        if (e != 1 && e != o)
            return 0;
    }
    return 1;
}

/* The operands of a quantised matmul's epilogue, with their strides over
 * out's dims: scale, offset, bias, pertoken_scale. */
typedef struct TngrtImplQmm {
    const TngrtArg *v[4];
    int64_t st[4][TNGRT_MAX_DIMS];
} TngrtImplQmm;

#define TNGRT_IMPL__Q_SCALE 0
#define TNGRT_IMPL__Q_OFFSET 1
#define TNGRT_IMPL__Q_BIAS 2
#define TNGRT_IMPL__Q_PERTOKEN 3

static inline const char *tngrt_impl__qmm_name(int i)
{
    switch (i) {
    case TNGRT_IMPL__Q_SCALE: return "scale";
    case TNGRT_IMPL__Q_OFFSET: return "offset";
    case TNGRT_IMPL__Q_BIAS: return "bias";
    default: return "pertoken_scale";
    }
}

/* Checks the epilogue operands against out and fills their strides. */
static inline int tngrt_impl__qmm_setup(TngrtImplQmm *q, const TngrtArg *out, TngrtError *err)
{
    for (int i = 0; i < 4; i++) {
        int nd = i == TNGRT_IMPL__Q_PERTOKEN ? out->ndim - 1 : out->ndim;
        if (!q->v[i])
            continue;
        if (!tngrt_impl__bcast_ok(q->v[i], nd, out->shape))
            return tngrt_impl__err(err, "quant_matmul: %s of %d dims does not broadcast to the "
                                        "output", tngrt_impl__qmm_name(i), q->v[i]->ndim);
        tngrt_impl__bstrides(q->v[i]->ndim, q->v[i]->shape, nd, q->st[i]);
        if (i == TNGRT_IMPL__Q_PERTOKEN)
            q->st[i][nd] = 0; /* unsqueeze(-1) */
    }
    return 0;
}

/* _unpack_scale: an int64 scale holds float32 bits in its low 32 bits. */
TNGRT_KINLINE double tngrt_impl__qscale(const TngrtArg *s, int64_t i)
{
    if (s->dtype == TNGRT_I64) {
        uint64_t u = (uint64_t)((const int64_t *)s->data)[i];
        return (double)tngrt_impl__bits_f32((uint32_t)(u & 0xffffffffu));
    }
    return (double)tngrt_impl__ldf(s, i);
}

/* The epilogue of npu_quant_matmul for one element: acc (exact, as double)
 * and the element offsets off[] of the four operands. */
static inline void tngrt_impl__qmm_store(const TngrtArg *out, int64_t oi, double acc,
                                         const TngrtImplQmm *q, const int64_t *off)
{
    const TngrtArg *bias = q->v[TNGRT_IMPL__Q_BIAS];
    int int_bias = bias && bias->dtype == TNGRT_I32;
    double y;
    if (int_bias)
        acc += tngrt_impl__ldd(bias, off[TNGRT_IMPL__Q_BIAS]);
    if (out->dtype == TNGRT_I32) {
        tngrt_impl__sti(out, oi, tngrt_impl__f2i(acc));
        return;
    }
    y = acc * tngrt_impl__qscale(q->v[TNGRT_IMPL__Q_SCALE], off[TNGRT_IMPL__Q_SCALE]);
    if (out->dtype == TNGRT_I8) {
        if (q->v[TNGRT_IMPL__Q_OFFSET])
            y += tngrt_impl__ldd(q->v[TNGRT_IMPL__Q_OFFSET], off[TNGRT_IMPL__Q_OFFSET]);
        ((int8_t *)out->data)[oi] = tngrt_impl__sat8(tngrt_impl__rne(y));
        return;
    }
    if (q->v[TNGRT_IMPL__Q_PERTOKEN])
        y *= tngrt_impl__ldd(q->v[TNGRT_IMPL__Q_PERTOKEN], off[TNGRT_IMPL__Q_PERTOKEN]);
    if (bias && !int_bias)
        y += tngrt_impl__ldd(bias, off[TNGRT_IMPL__Q_BIAS]);
    tngrt_impl__stf(out, oi, (float)y); /* double -> float -> out, as torch */
}

/* The exact int8 accumulators into a malloc'd double [batch, m, n] buffer
 * through dgemm (exact while k * 128 * 128 < 2^53); NULL when out of
 * memory. */
static inline double *tngrt_impl__qmm_acc(const TngrtArg *x1, const TngrtArg *x2,
                                          const TngrtImplMM *p, int64_t nout)
{
    int64_t n1 = tngrt_impl__numel(x1->ndim, x1->shape);
    int64_t n2 = tngrt_impl__numel(x2->ndim, x2->shape);
    double *a, *b, *c;
    if (p->k <= 0 || p->k > INT_MAX || p->m > INT_MAX || p->n > INT_MAX)
        return NULL;
    a = (double *)tngrt_impl__alloc(n1, sizeof(double));
    b = (double *)tngrt_impl__alloc(n2, sizeof(double));
    c = (double *)tngrt_impl__alloc(nout, sizeof(double));
    if (a && b && c) {
        for (int64_t i = 0; i < n1; i++)
            a[i] = ((const int8_t *)x1->data)[i];
        for (int64_t i = 0; i < n2; i++)
            b[i] = ((const int8_t *)x2->data)[i];
        tngrt_impl__gemm_batched(p, 1, a, b, c);
    } else {
        free(c);
        c = NULL;
    }
    free(a);
    free(b);
    return c;
}

/* The direct int accumulator of element (i, j) of batch (ao, bo). */
static inline double tngrt_impl__qmm_dot(const TngrtArg *x1, const TngrtArg *x2,
                                         const TngrtImplMM *p, int64_t ao, int64_t bo, int64_t i,
                                         int64_t j)
{
    const int8_t *a = (const int8_t *)x1->data + (ao * p->m + i) * p->k;
    const int8_t *b = (const int8_t *)x2->data + bo * p->k * p->n + j;
    int64_t acc = 0;
    for (int64_t kk = 0; kk < p->k; kk++)
        acc += (int64_t)a[kk] * b[kk * p->n];
    return (double)acc;
}

/* Runs the epilogue over every output element of plan p. */
static inline void tngrt_impl__qmm_epilogue(const TngrtArg *out, const TngrtArg *x1,
                                            const TngrtArg *x2, const TngrtImplMM *p,
                                            const TngrtImplQmm *q, const double *acc)
{
    int64_t idx[TNGRT_MAX_DIMS] = {0}, ao = 0, bo = 0, oi = 0, off[4];
    int64_t nbatch = tngrt_impl__numel(p->nb, p->bshape);
    int nd = out->ndim;
    for (int64_t t = 0; t < nbatch; t++) {
        int64_t boff[4] = {0, 0, 0, 0};
        for (int v = 0; v < 4; v++)
            for (int d = 0; q->v[v] && d < p->nb; d++)
                boff[v] += idx[d] * q->st[v][d];
        for (int64_t i = 0; i < p->m; i++) {
            for (int64_t j = 0; j < p->n; j++, oi++) {
                double a = acc ? acc[oi] : tngrt_impl__qmm_dot(x1, x2, p, ao, bo, i, j);
                for (int v = 0; v < 4; v++)
                    off[v] = q->v[v] ? boff[v] + i * q->st[v][nd - 2] + j * q->st[v][nd - 1] : 0;
                tngrt_impl__qmm_store(out, oi, a, q, off);
            }
        }
        tngrt_impl__mm_next(p, idx, &ao, &bo);
    }
}

TNGRT_KINLINE int tngrt_impl_quant_matmul(const TngrtArg *out, const TngrtArg *x1,
                                          const TngrtArg *x2, const TngrtArg *scale,
                                          const TngrtArg *offset, const TngrtArg *bias,
                                          const TngrtArg *pertoken_scale, TngrtError *err)
{
    TngrtImplMM p;
    TngrtImplQmm q = {{scale, offset, bias, pertoken_scale}, {{0}}};
    double *acc;
    if (x1->dtype != TNGRT_I8 || x2->dtype != TNGRT_I8)
        return tngrt_impl__err(err, "quant_matmul: x1 and x2 must be int8, got %s and %s",
                               tngrt_impl__dtype_name(x1->dtype),
                               tngrt_impl__dtype_name(x2->dtype));
    if (out->dtype == TNGRT_I64 || out->dtype == TNGRT_BOOL)
        return tngrt_impl__err(err, "quant_matmul: output dtype must be int8, int32, float16, "
                                    "bfloat16 or float32, got %s",
                               tngrt_impl__dtype_name(out->dtype));
    if (!scale && out->dtype != TNGRT_I32)
        return tngrt_impl__err(err, "quant_matmul: scale is required");
    if (x1->ndim < 2 || x2->ndim < 2 || tngrt_impl__mm_plan(&p, out, x1, x2) != 0 ||
        out->ndim != p.nb + 2)
        return tngrt_impl__err(err, "quant_matmul: x1 [..., m, k] and x2 [..., k, n] must have "
                                    "at least 2 dims and match the output's rank");
    if (tngrt_impl__qmm_setup(&q, out, err) != 0)
        return -1;
    acc = tngrt_impl__qmm_acc(x1, x2, &p, tngrt_impl__numel(out->ndim, out->shape));
    tngrt_impl__qmm_epilogue(out, x1, x2, &p, &q, acc);
    free(acc);
    return 0;
}

/* npu_dequant_swiglu_quant's operands viewed as rows [T, 2H]. */
typedef struct TngrtImplDsq {
    const TngrtArg *x, *ws, *act, *bias, *qs, *qo;
    int64_t rows, h;
    int64_t ws_len, qs_len, qo_len; /* per-group vector lengths (1 or full) */
    int left, mode;
} TngrtImplDsq;

/* Element c of row g of a per-group vector (length len: 1 broadcasts). */
TNGRT_KINLINE float tngrt_impl__dsq_vec(const TngrtArg *v, int64_t len, int64_t g, int64_t c)
{
    return tngrt_impl__ldf(v, g * len + (len == 1 ? 0 : c));
}

/* Column c of row r (group g) dequantised to float: the input of swiglu. */
static inline float tngrt_impl__dsq_in(const TngrtImplDsq *d, int64_t r, int64_t g, int64_t c)
{
    int64_t i = r * 2 * d->h + c;
    int64_t bi = d->bias && tngrt_impl__numel(d->bias->ndim, d->bias->shape) != 1 ? c : 0;
    double acc;
    if (d->x->dtype != TNGRT_I32) { /* float input: nothing to dequantise */
        float v = tngrt_impl__ldf(d->x, i);
        return d->bias ? v + tngrt_impl__ldf(d->bias, bi) : v;
    }
    acc = (double)tngrt_impl__ldi(d->x, i);
    if (d->bias && d->bias->dtype == TNGRT_I32)
        acc += tngrt_impl__ldd(d->bias, bi);
    if (d->ws)
        acc *= (double)tngrt_impl__dsq_vec(d->ws, d->ws_len, g, c);
    if (d->act)
        acc *= tngrt_impl__ldd(d->act, tngrt_impl__numel(d->act->ndim, d->act->shape) == 1 ? 0 : r);
    if (d->bias && d->bias->dtype != TNGRT_I32)
        acc += tngrt_impl__ldd(d->bias, bi);
    return (float)acc;
}

/* The swiglu value of column j (< H) of row r, times the smooth scale. */
static inline float tngrt_impl__dsq_y(const TngrtImplDsq *d, int64_t r, int64_t g, int64_t j)
{
    float a = tngrt_impl__dsq_in(d, r, g, j), b = tngrt_impl__dsq_in(d, r, g, j + d->h);
    float y = d->left ? tngrt_impl__silu(a) * b : a * tngrt_impl__silu(b);
    if (d->qs)
        y *= tngrt_impl__dsq_vec(d->qs, d->qs_len, g, j);
    return y;
}

/* Quantises row r (group g) into y; returns its dequantisation scale. */
static inline float tngrt_impl__dsq_row(const TngrtImplDsq *d, const TngrtArg *y, int64_t r,
                                        int64_t g)
{
    int8_t *o = (int8_t *)y->data + r * d->h;
    float rm = -INFINITY, mult;
    if (d->mode == 0) {
        for (int64_t j = 0; j < d->h; j++) {
            float v = tngrt_impl__dsq_y(d, r, g, j);
            if (d->qo)
                v += tngrt_impl__dsq_vec(d->qo, d->qo_len, g, j);
            o[j] = tngrt_impl__sat8(tngrt_impl__rnef(v));
        }
        return 1.0f;
    }
    for (int64_t j = 0; j < d->h; j++) {
        float v = fabsf(tngrt_impl__dsq_y(d, r, g, j));
        if (v > rm || v != v)
            rm = v;
    }
    if (rm < 1e-12f) /* clamp_min(1e-12); NaN stays */
        rm = 1e-12f;
    mult = (1.0f / rm) * 127.0f; /* 127.0 / t is t.reciprocal() * 127 in torch */
    for (int64_t j = 0; j < d->h; j++)
        o[j] = tngrt_impl__sat8(tngrt_impl__rnef(tngrt_impl__dsq_y(d, r, g, j) * mult));
    return rm / 127.0f;
}

/* Sets *len to the per-group length of v (flat when not grouped) and checks
 * it is 1 or full; 0 or -1. */
static inline int tngrt_impl__dsq_len(const TngrtArg *v, const char *name, int grouped,
                                      int64_t full, int64_t *len, TngrtError *err)
{
    if (!v)
        return 0;
    if (!tngrt_impl__rank_ok(v))
        return tngrt_impl__err(err, "dequant_swiglu_quant: %s has %d dims", name, v->ndim);
    *len = grouped && v->ndim > 0 ? v->shape[v->ndim - 1] : tngrt_impl__numel(v->ndim, v->shape);
    if (*len != 1 && *len != full)
        return tngrt_impl__err(err, "dequant_swiglu_quant: %s has %lld elements per row, "
                                    "expected 1 or %lld", name, (long long)*len, (long long)full);
    return 0;
}

/* Checks the operands of dequant_swiglu_quant and fills d; 0 or -1. */
static inline int tngrt_impl__dsq_setup(TngrtImplDsq *d, const TngrtArg *y, const TngrtArg *x,
                                        int grouped, TngrtError *err)
{
    int64_t blen = 0, alen = 0;
    if (!tngrt_impl__rank_ok(x) || x->ndim < 2 || x->shape[x->ndim - 1] % 2)
        return tngrt_impl__err(err, "dequant_swiglu_quant: x must be [T, 2H] (even last dim), "
                                    "got %d dims", x->ndim);
    if (d->mode != 0 && d->mode != 1)
        return tngrt_impl__err(err, "dequant_swiglu_quant: quant_mode must be 0 or 1, got %d",
                               d->mode);
    if (y->dtype != TNGRT_I8)
        return tngrt_impl__err(err, "dequant_swiglu_quant: y must be int8");
    d->h = x->shape[x->ndim - 1] / 2;
    d->rows = tngrt_impl__numel(x->ndim - 1, x->shape);
    if (tngrt_impl__dsq_len(d->ws, "weight_scale", grouped, 2 * d->h, &d->ws_len, err) ||
        tngrt_impl__dsq_len(d->qs, "quant_scale", grouped, d->h, &d->qs_len, err) ||
        tngrt_impl__dsq_len(d->qo, "quant_offset", grouped, d->h, &d->qo_len, err) ||
        tngrt_impl__dsq_len(d->bias, "bias", 0, 2 * d->h, &blen, err))
        return -1;
    if (d->act && ((alen = tngrt_impl__numel(d->act->ndim, d->act->shape)) != 1 && alen != d->rows))
        return tngrt_impl__err(err, "dequant_swiglu_quant: activation_scale has %lld elements, "
                                    "expected 1 or %lld", (long long)alen, (long long)d->rows);
    return 0;
}

/* Whether row g exists in every per-group operand of d; 0 or -1. */
static inline int tngrt_impl__dsq_group_ok(const TngrtImplDsq *d, int64_t g, TngrtError *err)
{
    const TngrtArg *v[3] = {d->ws, d->qs, d->qo};
    int64_t len[3] = {d->ws_len, d->qs_len, d->qo_len};
    for (int i = 0; i < 3; i++)
        if (v[i] && len[i] > 0 && g >= tngrt_impl__numel(v[i]->ndim, v[i]->shape) / len[i])
            return tngrt_impl__bad_input(err, "dequant_swiglu_quant: group %lld has no row "
                                              "in a per-group scale", (long long)g);
    return 0;
}

/* Checks group_index: non-negative counts adding up to the rows. */
static inline int tngrt_impl__dsq_groups_ok(const TngrtImplDsq *d, const TngrtArg *gi,
                                            TngrtError *err)
{
    int64_t ng = tngrt_impl__numel(gi->ndim, gi->shape), total = 0;
    for (int64_t g = 0; g < ng; g++) {
        int64_t c = tngrt_impl__ldi(gi, g);
        if (c < 0 || c > d->rows - total)
            return tngrt_impl__bad_input(err, "dequant_swiglu_quant: group_index count %lld "
                                              "of group %lld is negative or exceeds the %lld "
                                              "rows", (long long)c, (long long)g,
                                         (long long)d->rows);
        total += c;
        if (c > 0 && tngrt_impl__dsq_group_ok(d, g, err) != 0)
            return -1;
    }
    if (total != d->rows)
        return tngrt_impl__bad_input(err, "dequant_swiglu_quant: group_index counts add up "
                                          "to %lld, x has %lld rows", (long long)total,
                                     (long long)d->rows);
    return 0;
}

TNGRT_KINLINE int tngrt_impl_dequant_swiglu_quant(
    const TngrtArg *y, const TngrtArg *scale_out, const TngrtArg *x, const TngrtArg *weight_scale,
    const TngrtArg *activation_scale, const TngrtArg *bias, const TngrtArg *quant_scale,
    const TngrtArg *quant_offset, const TngrtArg *group_index, int activate_left, int quant_mode,
    TngrtError *err)
{
    TngrtImplDsq d = {x, weight_scale, activation_scale, bias, quant_scale, quant_offset,
                      0, 0, 1, 1, 1, activate_left != 0, quant_mode};
    int64_t g = 0, left_in_group = 0;
    if (x->dtype != TNGRT_I32) { /* float input: the dequantisation scales are not used */
        d.ws = NULL;
        d.act = NULL;
    }
    if (tngrt_impl__dsq_setup(&d, y, x, group_index != NULL, err) != 0)
        return -1;
    if (group_index && tngrt_impl__dsq_groups_ok(&d, group_index, err) != 0)
        return -1;
    for (int64_t r = 0; r < d.rows; r++) {
        float s;
        if (group_index) { /* the group of row r: skip exhausted groups */
            while (left_in_group == 0)
                left_in_group = tngrt_impl__ldi(group_index, g++);
            left_in_group--;
        }
        s = tngrt_impl__dsq_row(&d, y, r, group_index ? g - 1 : 0);
        if (scale_out)
            tngrt_impl__stf(scale_out, r, s);
    }
    return 0;
}

TNGRT_KINLINE void tngrt_impl_add_rms_norm(const TngrtArg *y, const TngrtArg *rstd,
                                           const TngrtArg *x_out, const TngrtArg *x1,
                                           const TngrtArg *x2, const TngrtArg *gamma, double eps)
{
    int64_t n, rows;
    if (!tngrt_impl__rank_ok(x1) || gamma->ndim < 0 || gamma->ndim > x1->ndim)
        return;
    n = tngrt_impl__numel(gamma->ndim, x1->shape + x1->ndim - gamma->ndim);
    rows = tngrt_impl__numel(x1->ndim - gamma->ndim, x1->shape);
    for (int64_t r = 0; r < rows; r++) {
        int64_t base = r * n;
        double sq = 0.0;
        /* x = float(x1) + float(x2), rounded once to x_out; the norm uses
         * the float sum; mean(x^2) accumulated in double, then in float */
        for (int64_t j = 0; j < n; j++) {
            float v = tngrt_impl__ldf(x1, base + j) + tngrt_impl__ldf(x2, base + j);
            float v2 = v * v;
            sq += (double)v2;
            if (x_out)
                tngrt_impl__stf(x_out, base + j, v);
        }
        float rs = 1.0f / sqrtf((float)sq / (float)n + (float)eps);
        if (rstd)
            tngrt_impl__stf(rstd, r, rs);
        for (int64_t j = 0; j < n; j++) {
            float v = tngrt_impl__ldf(x1, base + j) + tngrt_impl__ldf(x2, base + j);
            tngrt_impl__stf(y, base + j, v * rs * tngrt_impl__ldf(gamma, j));
        }
    }
}

/* The element offset of the first element of row `row` of an operand with
 * broadcast strides st (right-aligned with out's nd dims of extents
 * shape), rows being out's elements with the last dim dropped. */
static inline int64_t tngrt_impl__npu_row_off(int nd, const int64_t *shape, const int64_t *st,
                                              int64_t row)
{
    int64_t off = 0;
    for (int d = nd - 2; d >= 0; d--) {
        off += (row % shape[d]) * st[d];
        row /= shape[d];
    }
    return off;
}

TNGRT_KINLINE void tngrt_impl_rotary_mul(const TngrtArg *out, const TngrtArg *x, const TngrtArg *r1,
                                         const TngrtArg *r2, int mode)
{
    int64_t s1[TNGRT_MAX_DIMS], s2[TNGRT_MAX_DIMS], len, h, rows;
    int nd = x->ndim;
    if (!tngrt_impl__rank_ok(x) || nd < 1 || !tngrt_impl__rank_ok(r1) || !tngrt_impl__rank_ok(r2) ||
        r1->ndim > nd || r2->ndim > nd)
        return;
    tngrt_impl__bstrides(r1->ndim, r1->shape, nd, s1);
    tngrt_impl__bstrides(r2->ndim, r2->shape, nd, s2);
    len = x->shape[nd - 1];
    h = len / 2;
    rows = len ? tngrt_impl__numel(nd, x->shape) / len : 0;
    for (int64_t r = 0; r < rows; r++) {
        int64_t base = r * len;
        int64_t o1 = tngrt_impl__npu_row_off(nd, x->shape, s1, r);
        int64_t o2 = tngrt_impl__npu_row_off(nd, x->shape, s2, r);
        for (int64_t d = 0; d < len; d++) {
            float rot;
            if (mode == 0) /* rotate_half: (-x[h:], x[:h]) */
                rot = d < h ? -tngrt_impl__ldf(x, base + d + h) : tngrt_impl__ldf(x, base + d - h);
            else if (mode == 1) /* interleave: pairs (x0, x1) -> (-x1, x0) */
                rot = d % 2 == 0 ? -tngrt_impl__ldf(x, base + d + 1) : tngrt_impl__ldf(x, base + d - 1);
            else           /* interleave-half: q = (x[0::2], x[1::2]), rotate_half(q) */
                rot = d < h ? -tngrt_impl__ldf(x, base + 2 * d + 1) : tngrt_impl__ldf(x, base + 2 * (d - h));
            float xv = mode == 3 ? tngrt_impl__ldf(x, base + (d < h ? 2 * d : 2 * (d - h) + 1))
                                 : tngrt_impl__ldf(x, base + d);
            float a = xv * tngrt_impl__ldf(r1, o1 + d * s1[nd - 1]);
            float b = rot * tngrt_impl__ldf(r2, o2 + d * s2[nd - 1]);
            tngrt_impl__stf(out, base + d, a + b);
        }
    }
}

TNGRT_KINLINE void tngrt_impl_dynamic_quant(const TngrtArg *y, const TngrtArg *scale,
                                            const TngrtArg *x, const TngrtArg *smooth)
{
    int64_t len, rows;
    if (!tngrt_impl__rank_ok(x) || x->ndim < 1)
        return;
    len = x->shape[x->ndim - 1];
    rows = len ? tngrt_impl__numel(x->ndim, x->shape) / len : 0;
    for (int64_t r = 0; r < rows; r++) {
        int64_t base = r * len;
        float m = 0.0f;
        for (int64_t j = 0; j < len; j++) {
            float v = tngrt_impl__ldf(x, base + j);
            if (smooth)
                v = v * tngrt_impl__ldf(smooth, j);
            float a = fabsf(v);
            m = (a > m || a != a) ? a : m;
        }
        float s = m / 127.0f;
        if (scale)
            tngrt_impl__stf(scale, r, s);
        for (int64_t j = 0; j < len; j++) {
            float v = tngrt_impl__ldf(x, base + j);
            if (smooth)
                v = v * tngrt_impl__ldf(smooth, j);
            float q = s > 0.0f ? tngrt_impl__rnef(v / s) : 0.0f;
            ((int8_t *)y->data)[base + j] = tngrt_impl__sat8((double)q);
        }
    }
}

/* softmax probability j of a row: exp(x_j - mx) * rcp, in float. */
TNGRT_KINLINE float tngrt_impl__npu_prob(const TngrtArg *x, int64_t base, int64_t j, float mx, float rcp)
{
    return tngrt_impl__exp(tngrt_impl__ldf(x, base + j) - mx) * rcp;
}

TNGRT_KINLINE void tngrt_impl_moe_gating_top_k_softmax(const TngrtArg *y, const TngrtArg *expert_idx,
                                                       const TngrtArg *row_idx, const TngrtArg *x,
                                                       const TngrtArg *finished, int k)
{
    int64_t e, rows;
    if (!tngrt_impl__rank_ok(x) || x->ndim < 1 || k < 1)
        return;
    e = x->shape[x->ndim - 1];
    rows = e ? tngrt_impl__numel(x->ndim, x->shape) / e : 0;
    for (int64_t r = 0; r < rows; r++) {
        int64_t base = r * e;
        float mx = -INFINITY, sum = 0.0f, rcp, prev = INFINITY;
        int64_t prev_j = -1;
        int done = finished && tngrt_impl__ldi(finished, r) != 0;
        for (int64_t j = 0; j < e; j++) {
            float v = tngrt_impl__ldf(x, base + j);
            mx = (v > mx || v != v) ? v : mx;
        }
        for (int64_t j = 0; j < e; j++)
            sum += tngrt_impl__exp(tngrt_impl__ldf(x, base + j) - mx);
        rcp = 1.0f / sum;
        /* pass t picks the largest probability ranked after the previous
         * pick (ties: the lower expert first), as a stable descending sort */
        for (int t = 0; t < k; t++) {
            int64_t best = -1;
            float bv = 0.0f;
            for (int64_t j = 0; j < e; j++) {
                float p = tngrt_impl__npu_prob(x, base, j, mx, rcp);
                int after = prev_j < 0 || p < prev || (p == prev && j > prev_j);
                if (after && (best < 0 || p > bv))
                    best = j, bv = p;
            }
            if (best < 0) /* fewer experts than k, or NaNs: the rest stay 0 */
                best = 0, bv = 0.0f;
            prev = bv;
            prev_j = best;
            tngrt_impl__stf(y, r * k + t, bv);
            tngrt_impl__sti(expert_idx, r * k + t, done ? e : best);
            tngrt_impl__sti(row_idx, r * k + t, (int64_t)t * rows + r);
        }
    }
}

/* The sizes and attributes of one fused attention call. */
typedef struct TngrtImplAttn {
    int64_t layout, n, nkv, mode, pre, next, bsz;
    int64_t b, sq, d, skv, group, nblk, maxblk;
    const TngrtArg *k, *bt;
} TngrtImplAttn;

/* The element offset of (batch b, kv head kh, position j) of key/value
 * (d = 0), through the block table when there is one. */
TNGRT_KINLINE int64_t tngrt_impl__attn_kv(const TngrtImplAttn *A, int64_t b, int64_t kh, int64_t j)
{
    if (A->bt) {
        int64_t blk = tngrt_impl__ldi(A->bt, b * A->maxblk + j / A->bsz), off = j % A->bsz;
        if (A->k->ndim == 3)
            return ((blk * A->bsz + off) * A->nkv + kh) * A->d;
        return ((blk * A->nkv + kh) * A->bsz + off) * A->d;
    }
    if (A->layout == 2)
        return ((b * A->nkv + kh) * A->skv + j) * A->d;
    return ((b * A->skv + j) * A->nkv + kh) * A->d;
}

/* A per-batch length: the tensor's value, else the listed one (attr value
 * >= 0), else full. -1 after a message when out of [0, full]. */
static inline int64_t tngrt_impl__attn_len(const TngrtArg *t, int64_t listed, int64_t b, int64_t full,
                                           const char *name, TngrtError *err)
{
    int64_t v = t ? tngrt_impl__ldi(t, b) : listed >= 0 ? listed : full;
    if (v < 0 || v > full) {
        tngrt_impl__bad_input(err, "fused_attention: %s[%lld] = %lld is outside [0, %lld]", name,
                              (long long)b, (long long)v, (long long)full);
        return -1;
    }
    return v;
}

/* Checks the shapes, the length counts and the block table. */
static inline int tngrt_impl__attn_setup(TngrtImplAttn *A, const TngrtArg *q, const TngrtArg *k,
                                         const TngrtArg *bt, const TngrtArg *act_q,
                                         const TngrtArg *act_kv, const int64_t *attr, TngrtError *err)
{
    A->layout = attr[0], A->n = attr[1], A->nkv = attr[2], A->mode = attr[3];
    A->pre = attr[4], A->next = attr[5], A->bsz = attr[7];
    A->k = k, A->bt = bt;
    if (A->layout < 0 || A->layout > 2 || A->n < 1 || A->nkv < 1 || A->n % A->nkv ||
        q->ndim != (A->layout == 0 ? 3 : 4) || k->ndim < 3 || k->ndim > 4 || (bt && (bt->ndim != 2 || A->bsz < 1)))
        return tngrt_impl__err(err, "fused_attention: inconsistent operands");
    A->group = A->n / A->nkv;
    A->b = q->shape[0];
    A->sq = q->shape[A->layout == 2 ? 2 : 1];
    A->d = A->layout == 0 ? q->shape[2] / A->n : q->shape[3];
    if (bt) {
        A->maxblk = bt->shape[1];
        A->skv = A->maxblk * A->bsz;
        A->nblk = k->shape[0];
    } else {
        A->skv = k->shape[A->layout == 2 ? 2 : 1];
    }
    if ((act_q ? tngrt_impl__numel(act_q->ndim, act_q->shape) : attr[9] ? attr[9] : A->b) != A->b ||
        (act_kv ? tngrt_impl__numel(act_kv->ndim, act_kv->shape) : attr[11] ? attr[11] : A->b) != A->b)
        return tngrt_impl__bad_input(err, "fused_attention: the actual sequence lengths must have one "
                                     "value per batch (%lld)", (long long)A->b);
    if (bt)
        for (int64_t i = 0; i < A->b * A->maxblk; i++) {
            int64_t blk = tngrt_impl__ldi(bt, i);
            if (blk < 0 || blk >= A->nblk)
                return tngrt_impl__bad_input(err, "fused_attention: block_table holds block %lld, "
                                             "outside [0, %lld)", (long long)blk, (long long)A->nblk);
        }
    return 0;
}

/* 1 when query position i may not attend key position j of (b, h). */
TNGRT_KINLINE int tngrt_impl__attn_masked(const TngrtImplAttn *A, const TngrtArg *mask, int64_t b, int64_t h,
                                          int64_t i, int64_t j, int64_t lq, int64_t lkv)
{
    if (A->mode == 2) /* leftUpCausal */
        return j > i;
    if (A->mode == 3) /* rightDownCausal */
        return j > i + (lkv - lq);
    if (A->mode == 4) /* band: pre_tokens / next_tokens from the bottom-right corner */
        return j - i - (lkv - lq) > A->next || i + (lkv - lq) - j > A->pre;
    if (!mask)
        return 0;
    if (A->mode == 0 && (j - i > A->next || i - j > A->pre))
        return 1;
    int r = mask->ndim;
    const int64_t *ms = mask->shape;
    int64_t plane = ms[r - 2] * ms[r - 1], off = i * ms[r - 1] + j;
    if (r >= 3 && ms[0] != 1)
        off += b * (r == 4 ? ms[1] : 1) * plane;
    if (r == 4 && ms[1] != 1)
        off += h * plane;
    return tngrt_impl__ldi(mask, off) != 0;
}

TNGRT_KINLINE int tngrt_impl_fused_attention(const TngrtArg *out, const TngrtArg *lse, const TngrtArg *q,
                                             const TngrtArg *k, const TngrtArg *v, const TngrtArg *mask,
                                             const TngrtArg *block_table, const TngrtArg *act_q,
                                             const TngrtArg *act_kv, const int64_t *attr, double scale,
                                             TngrtError *err)
{
    TngrtImplAttn A;
    float *s, *acc;
    if (tngrt_impl__attn_setup(&A, q, k, block_table, act_q, act_kv, attr, err) < 0)
        return -1;
    if (lse && !attr[6])
        tngrt_impl__stf(lse, 0, 0.0f);
    if (!(s = tngrt_impl__alloc(A.skv + A.d + 1, sizeof *s)))
        return tngrt_impl__err(err, "fused_attention: out of memory for %lld scores", (long long)A.skv);
    acc = s + A.skv;
    for (int64_t b = 0; b < A.b; b++) {
        int64_t lq = tngrt_impl__attn_len(act_q, attr[8], b, A.sq, "actual_seq_lengths", err);
        int64_t lkv = tngrt_impl__attn_len(act_kv, attr[10], b, A.skv, "actual_seq_lengths_kv", err);
        if (lq < 0 || lkv < 0) {
            free(s);
            return -1;
        }
        for (int64_t h = 0; h < A.n; h++) {
            int64_t kh = h / A.group;
            for (int64_t i = 0; i < A.sq; i++) {
                int64_t qo = A.layout == 2 ? ((b * A.n + h) * A.sq + i) * A.d : ((b * A.sq + i) * A.n + h) * A.d;
                float mx = -INFINITY, sum = 0.0f, r;
                for (int64_t j = 0; j < lkv && i < lq; j++) {
                    float dot = 0.0f;
                    int64_t ko;
                    if (tngrt_impl__attn_masked(&A, mask, b, h, i, j, lq, lkv)) {
                        s[j] = -INFINITY;
                        continue;
                    }
                    ko = tngrt_impl__attn_kv(&A, b, kh, j);
                    for (int64_t d = 0; d < A.d; d++)
                        dot += tngrt_impl__ldf(q, qo + d) * tngrt_impl__ldf(k, ko + d);
                    s[j] = dot * (float)scale;
                    mx = s[j] > mx ? s[j] : mx;
                }
                for (int64_t d = 0; d < A.d; d++)
                    acc[d] = 0.0f;
                if (i >= lq || mx == -INFINITY) { /* nothing to attend: zeros, lse +inf */
                    for (int64_t d = 0; d < A.d; d++)
                        tngrt_impl__stf(out, qo + d, 0.0f);
                    if (lse && attr[6])
                        tngrt_impl__stf(lse, (b * A.n + h) * A.sq + i, INFINITY);
                    continue;
                }
                for (int64_t j = 0; j < lkv; j++)
                    if (s[j] != -INFINITY)
                        sum += s[j] = tngrt_impl__exp(s[j] - mx);
                    else
                        s[j] = 0.0f;
                r = 1.0f / sum;
                for (int64_t j = 0; j < lkv; j++) {
                    float p = s[j] * r;
                    int64_t vo;
                    if (p == 0.0f)
                        continue;
                    vo = tngrt_impl__attn_kv(&A, b, kh, j);
                    for (int64_t d = 0; d < A.d; d++)
                        acc[d] += p * tngrt_impl__ldf(v, vo + d);
                }
                for (int64_t d = 0; d < A.d; d++)
                    tngrt_impl__stf(out, qo + d, acc[d]);
                if (lse && attr[6])
                    tngrt_impl__stf(lse, (b * A.n + h) * A.sq + i, mx + logf(sum));
            }
        }
    }
    free(s);
    return 0;
}

TNGRT_KINLINE int tngrt_impl_scatter_update(const TngrtArg *data, const TngrtArg *indices,
                                            const TngrtArg *updates, int axis, TngrtError *err)
{
    int64_t rows, outer, inner, len, span;
    if (!tngrt_impl__rank_ok(data) || data->ndim < 2 || axis < 1 || axis >= data->ndim ||
        updates->ndim != data->ndim)
        return tngrt_impl__err(err, "scatter_update: bad axis %d for a %d-d data", axis, data->ndim);
    rows = data->shape[0];
    outer = tngrt_impl__numel(axis - 1, data->shape + 1);
    inner = tngrt_impl__numel(data->ndim - axis - 1, data->shape + axis + 1);
    span = data->shape[axis];
    len = updates->shape[axis];
    for (int64_t b = 0; b < rows; b++) {
        int64_t p = tngrt_impl__ldi(indices, b);
        if (p < 0 || len > span || p > span - len)
            return tngrt_impl__bad_input(err, "scatter_update: indices[%lld] = %lld: %lld rows from there "
                                         "do not fit in %lld", (long long)b, (long long)p, (long long)len,
                                         (long long)span);
    }
    for (int64_t b = 0; b < rows; b++) {
        int64_t p = tngrt_impl__ldi(indices, b);
        for (int64_t o = 0; o < outer; o++)
            tngrt_impl__cvt_row(data, ((b * outer + o) * span + p) * inner, 1, updates,
                                (b * outer + o) * len * inner, 1, len * inner);
    }
    return 0;
}

TNGRT_KINLINE int tngrt_impl_scatter_nd_update(const TngrtArg *var, const TngrtArg *indices,
                                               const TngrtArg *updates, TngrtError *err)
{
    int64_t k, n, slice;
    if (!tngrt_impl__rank_ok(var) || !tngrt_impl__rank_ok(indices) || indices->ndim < 1 ||
        (k = indices->shape[indices->ndim - 1]) < 1 || k > var->ndim)
        return tngrt_impl__err(err, "scatter_nd_update: indices do not index var");
    n = k ? tngrt_impl__numel(indices->ndim, indices->shape) / k : 0;
    slice = tngrt_impl__numel(var->ndim - (int)k, var->shape + k);
    for (int64_t i = 0; i < n * k; i++) {
        int64_t v = tngrt_impl__ldi(indices, i), e = var->shape[i % k];
        if (v < 0 || v >= e)
            return tngrt_impl__bad_input(err, "scatter_nd_update: index %lld of dim %lld is outside [0, %lld)",
                                         (long long)v, (long long)(i % k), (long long)e);
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t off = 0;
        for (int64_t j = 0; j < k; j++)
            off = off * var->shape[j] + tngrt_impl__ldi(indices, i * k + j);
        tngrt_impl__cvt_row(var, off * slice, 1, updates, i * slice, 1, slice);
    }
    return 0;
}

/* Most groups npu_moe_gating_top_k takes (graph.c checks it). */
#define TNGRT_MOE_MAX_GROUPS 1024

/* The selection value of expert j of a row of moe_gating_top_k: the
 * normalised value (out, at base + j) plus bias[j]. */
TNGRT_KINLINE float tngrt_impl__moe_sel(const TngrtArg *out, const TngrtArg *bias, int64_t base, int64_t j)
{
    float v = tngrt_impl__ldf(out, base + j);
    return bias ? v + tngrt_impl__ldf(bias, j) : v;
}

/* The score of group g (experts g * gs .. + gs) of a row: the maximum sel
 * (mode 0) or the sum of the two largest (mode 1; the one value of a group
 * of one). */
TNGRT_KINLINE float tngrt_impl__moe_group_score(const TngrtArg *out, const TngrtArg *bias, int64_t base,
                                                int64_t g, int64_t gs, int mode)
{
    float a = -INFINITY, b = -INFINITY;
    int na = 0, nb = 0;
    for (int64_t j = g * gs; j < (g + 1) * gs; j++) {
        float v = tngrt_impl__moe_sel(out, bias, base, j);
        if (!na || v > a) {
            if (na)
                b = a, nb = 1;
            a = v, na = 1;
        } else if (!nb || v > b) {
            b = v, nb = 1;
        }
    }
    return mode == 0 || gs < 2 ? a : a + b;
}

TNGRT_KINLINE void tngrt_impl_moe_gating_top_k(const TngrtArg *y, const TngrtArg *expert_idx,
                                               const TngrtArg *out, const TngrtArg *x, const TngrtArg *bias,
                                               int k, int k_group, int group_count, int group_select_mode,
                                               int norm_type, double scale, double eps)
{
    unsigned char keep[TNGRT_MOE_MAX_GROUPS];
    int64_t e, rows, gs;
    if (!tngrt_impl__rank_ok(x) || x->ndim != 2 || k < 1 || group_count < 1 ||
        group_count > TNGRT_MOE_MAX_GROUPS)
        return;
    rows = x->shape[0];
    e = x->shape[1];
    gs = e / group_count;
    for (int64_t r = 0; r < rows; r++) {
        int64_t base = r * e, prev_j = -1;
        float prev = INFINITY, sum = 0.0f;
        if (norm_type == 0) {
            float mx = -INFINITY, tot = 0.0f, rcp;
            for (int64_t j = 0; j < e; j++) {
                float v = tngrt_impl__ldf(x, base + j);
                mx = (v > mx || v != v) ? v : mx;
            }
            for (int64_t j = 0; j < e; j++)
                tot += tngrt_impl__exp(tngrt_impl__ldf(x, base + j) - mx);
            rcp = 1.0f / tot;
            for (int64_t j = 0; j < e; j++)
                tngrt_impl__stf(out, base + j, tngrt_impl__npu_prob(x, base, j, mx, rcp));
        } else {
            for (int64_t j = 0; j < e; j++)
                tngrt_impl__stf(out, base + j, tngrt_impl__sigmoid(tngrt_impl__ldf(x, base + j)));
        }
        /* group g is kept when fewer than k_group groups rank before it */
        for (int64_t g = 0; g < group_count; g++) {
            float sg = group_count > 1 ? tngrt_impl__moe_group_score(out, bias, base, g, gs, group_select_mode) : 0;
            int64_t before = 0;
            for (int64_t h = 0; group_count > 1 && h < group_count; h++) {
                float sh = h == g ? sg : tngrt_impl__moe_group_score(out, bias, base, h, gs, group_select_mode);
                before += sh > sg || (sh == sg && h < g);
            }
            keep[g] = before < k_group;
        }
        /* pass t picks the largest sel ranked after the previous pick
         * (ties: the lower expert first), as a stable descending sort */
        for (int t = 0; t < k; t++) {
            int64_t best = -1;
            float bv = 0.0f;
            for (int64_t j = 0; j < e; j++) {
                float p = keep[gs ? j / gs : 0] ? tngrt_impl__moe_sel(out, bias, base, j) : -INFINITY;
                int after = prev_j < 0 || p < prev || (p == prev && j > prev_j);
                if (after && (best < 0 || p > bv))
                    best = j, bv = p;
            }
            if (best < 0) /* NaNs: the rest are expert 0 */
                best = 0, bv = 0.0f;
            prev = bv;
            prev_j = best;
            tngrt_impl__sti(expert_idx, r * k + t, best);
            sum += tngrt_impl__ldf(out, base + best);
        }
        float den = sum + (float)eps;
        for (int t = 0; t < k; t++) {
            float v = tngrt_impl__ldf(out, base + tngrt_impl__ldi(expert_idx, r * k + t));
            if (norm_type == 1)
                v = v / den;
            tngrt_impl__stf(y, r * k + t, v * (float)scale);
        }
    }
}

#endif
