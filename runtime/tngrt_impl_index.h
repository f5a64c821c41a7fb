/*
 * tngrt_impl_index.h - the bodies of the indexing and scatter kernels
 * (index_select, gather, advanced indexing, index_put, scatter,
 * scatter_add, index_add, index_copy) as static inline functions,
 * included at the end of tngrt_kernel_impl.h; kernels_index.c instantiates
 * them. Every index is checked against its dim before any element is read
 * or written: an index out of range is TNGRT_ERR_BAD_INPUT with a message
 * naming the op, the index and the dim, never an access out of bounds (and
 * an in-place write leaves its destination untouched when it fails).
 * Values move with the converting row copy of the main header; the
 * accumulating forms compute in float (float dtypes, rounded once per
 * update as PyTorch's CPU does) or int64 (integer dtypes, wrapping).
 */
#ifndef TNGRT_IMPL_INDEX_H
#define TNGRT_IMPL_INDEX_H

/* Element count of shape[from..to). */
TNGRT_KINLINE int64_t tngrt_impl__index_span(const int64_t *shape, int from, int to)
{
    int64_t n = 1;
    for (int d = from; d < to; d++)
        n *= shape[d];
    return n;
}

/* Index value i of ix checked against size n: *v in [0, n); negative values
 * count from the end when wrap. Returns 0, or -1 with the message. */
TNGRT_KINLINE int tngrt_impl__index_at(const TngrtArg *ix, int64_t i, int64_t n, int wrap, int dim,
                                       const char *op, int64_t *v, TngrtError *err)
{
    int64_t x = tngrt_impl__ldi(ix, i);
    *v = wrap && x < 0 ? x + n : x;
    if (*v < 0 || *v >= n)
        return tngrt_impl__bad_input(err, "%s: index %lld is out of bounds for dim %d with size %lld", op,
                                     (long long)x, dim, (long long)n);
    return 0;
}

/* Offset of element `lin` (C order over shape[0..nd)) in an operand with
 * element strides st (0 on broadcast dims). */
TNGRT_KINLINE int64_t tngrt_impl__index_off(int nd, const int64_t *shape, const int64_t *st, int64_t lin)
{
    int64_t off = 0;
    for (int d = nd - 1; d >= 0; d--) {
        if (shape[d] > 0) {
            off += (lin % shape[d]) * st[d];
            lin /= shape[d];
        }
    }
    return off;
}

/* dst[do_] = src[so] converted, or updated: mode 0 store, 1 add alpha * src,
 * 2 multiply (float in float, integers in int64). */
TNGRT_KINLINE void tngrt_impl__index_put1(const TngrtArg *dst, int64_t do_, const TngrtArg *src, int64_t so,
                                          int mode, double alpha)
{
    if (tngrt_impl__is_float(dst->dtype)) {
        float s = tngrt_impl__ldf(src, so);
        if (mode == 1)
            s = tngrt_impl__ldf(dst, do_) + (float)alpha * s;
        else if (mode == 2)
            s = tngrt_impl__ldf(dst, do_) * s;
        tngrt_impl__stf(dst, do_, s);
        return;
    }
    int64_t s = tngrt_impl__ldi(src, so);
    if (mode == 1)
        s = tngrt_impl__wrap((uint64_t)tngrt_impl__ldi(dst, do_) + (uint64_t)tngrt_impl__f2i(alpha) * (uint64_t)s);
    else if (mode == 2)
        s = tngrt_impl__wrap((uint64_t)tngrt_impl__ldi(dst, do_) * (uint64_t)s);
    tngrt_impl__sti(dst, do_, s);
}

TNGRT_KINLINE int tngrt_impl_index_select(const TngrtArg *out, const TngrtArg *x, const TngrtArg *index, int dim,
                                          TngrtError *err)
{
    if (!tngrt_impl__rank_ok(x) || !tngrt_impl__rank_ok(index) || dim < 0 || dim >= x->ndim ||
        out->ndim != x->ndim)
        return tngrt_impl__err(err, "index_select: invalid operands");
    int64_t n = x->shape[dim], m = tngrt_impl__numel(index->ndim, index->shape), v;
    int64_t outer = tngrt_impl__index_span(x->shape, 0, dim);
    int64_t inner = tngrt_impl__index_span(x->shape, dim + 1, x->ndim);
    if (out->shape[dim] != m)
        return tngrt_impl__err(err, "index_select: the output has %lld rows for %lld indices",
                               (long long)out->shape[dim], (long long)m);
    for (int64_t i = 0; i < m; i++)
        if (tngrt_impl__index_at(index, i, n, 0, dim, "index_select", &v, err))
            return -1;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < m; i++)
            tngrt_impl__cvt_row(out, (o * m + i) * inner, 1, x, (o * n + tngrt_impl__ldi(index, i)) * inner, 1,
                                inner);
    return 0;
}

TNGRT_KINLINE int tngrt_impl_gather(const TngrtArg *out, const TngrtArg *x, const TngrtArg *index, int dim,
                                    TngrtError *err)
{
    int64_t xst[TNGRT_MAX_DIMS];
    if (!tngrt_impl__rank_ok(x) || index->ndim != x->ndim || dim < 0 || dim >= x->ndim)
        return tngrt_impl__err(err, "gather: invalid operands");
    for (int d = 0; d < x->ndim; d++) {
        if (d != dim && index->shape[d] > x->shape[d])
            return tngrt_impl__bad_input(err, "gather: index has size %lld at dim %d, more than the input's %lld",
                                         (long long)index->shape[d], d, (long long)x->shape[d]);
        xst[d] = tngrt_impl__index_span(x->shape, d + 1, x->ndim);
    }
    int64_t total = tngrt_impl__numel(index->ndim, index->shape), v;
    for (int64_t e = 0; e < total; e++)
        if (tngrt_impl__index_at(index, e, x->shape[dim], 0, dim, "gather", &v, err))
            return -1;
    for (int64_t e = 0; e < total; e++) {
        int64_t lin = e, off = 0;
        for (int d = index->ndim - 1; d >= 0; d--) {
            int64_t c = lin % index->shape[d];
            lin /= index->shape[d];
            off += (d == dim ? tngrt_impl__ldi(index, e) : c) * xst[d];
        }
        tngrt_impl__cvt_row(out, e, 1, x, off, 1, 1);
    }
    return 0;
}

/* The broadcast shape of idx[0..nidx) into b (rank *nb) and each index's
 * strides in it; -1 with a message when they do not broadcast. */
TNGRT_KINLINE int tngrt_impl__index_bcast(const TngrtArg *const *idx, int nidx, int64_t *b, int *nb,
                                          int64_t st[][TNGRT_MAX_DIMS], const char *op, TngrtError *err)
{
    *nb = 0;
    for (int j = 0; j < nidx; j++) {
        if (!idx[j] || !tngrt_impl__rank_ok(idx[j]))
            return tngrt_impl__err(err, "%s: invalid index operand", op);
        if (idx[j]->ndim > *nb) {
            int grow = idx[j]->ndim - *nb;
            memmove(b + grow, b, (size_t)*nb * sizeof *b);
            for (int d = 0; d < grow; d++)
                b[d] = 1;
            *nb = idx[j]->ndim;
        }
        for (int d = 0; d < idx[j]->ndim; d++) {
            int64_t s = idx[j]->shape[d], *t = &b[d + *nb - idx[j]->ndim];
            if (s != 1 && *t != 1 && s != *t)
                return tngrt_impl__bad_input(err, "%s: index shapes do not broadcast", op);
            if (s != 1)
                *t = s;
        }
    }
    for (int j = 0; j < nidx; j++)
        tngrt_impl__bstrides(idx[j]->ndim, idx[j]->shape, *nb, st[j]);
    return 0;
}

/* Position p of the broadcast index shape as a flat offset into dims
 * dim..dim+nidx-1 of x (row-major over those dims), checked. */
TNGRT_KINLINE int tngrt_impl__index_pos(const TngrtArg *x, const TngrtArg *const *idx, int nidx, int dim, int nb,
                                        const int64_t *b, int64_t st[][TNGRT_MAX_DIMS], int64_t p,
                                        const char *op, int64_t *lin, TngrtError *err)
{
    *lin = 0;
    for (int j = 0; j < nidx; j++) {
        int64_t v;
        if (tngrt_impl__index_at(idx[j], tngrt_impl__index_off(nb, b, st[j], p), x->shape[dim + j], 1, dim + j,
                                 op, &v, err))
            return -1;
        *lin = *lin * x->shape[dim + j] + v;
    }
    return 0;
}

TNGRT_KINLINE int tngrt_impl_index(const TngrtArg *out, const TngrtArg *x, const TngrtArg *const *idx, int nidx,
                                   int dim, TngrtError *err)
{
    int64_t b[TNGRT_MAX_DIMS], st[TNGRT_MAX_DIMS][TNGRT_MAX_DIMS], lin;
    int nb;
    if (!tngrt_impl__rank_ok(x) || nidx < 1 || nidx > TNGRT_MAX_DIMS || dim < 0 || dim + nidx > x->ndim)
        return tngrt_impl__err(err, "index: invalid operands");
    if (tngrt_impl__index_bcast(idx, nidx, b, &nb, st, "index", err))
        return -1;
    int64_t outer = tngrt_impl__index_span(x->shape, 0, dim);
    int64_t k = tngrt_impl__index_span(x->shape, dim, dim + nidx);
    int64_t inner = tngrt_impl__index_span(x->shape, dim + nidx, x->ndim);
    int64_t bn = tngrt_impl__numel(nb, b);
    for (int64_t p = 0; p < bn; p++) {
        if (tngrt_impl__index_pos(x, idx, nidx, dim, nb, b, st, p, "index", &lin, err))
            return -1;
        for (int64_t o = 0; o < outer; o++)
            tngrt_impl__cvt_row(out, (o * bn + p) * inner, 1, x, (o * k + lin) * inner, 1, inner);
    }
    return 0;
}

TNGRT_KINLINE int tngrt_impl_index_put(const TngrtArg *dst, const TngrtArg *values, const TngrtArg *const *idx,
                                       int nidx, int dim, int accumulate, TngrtError *err)
{
    int64_t b[TNGRT_MAX_DIMS], st[TNGRT_MAX_DIMS][TNGRT_MAX_DIMS], lin;
    int64_t shape[TNGRT_MAX_DIMS], vst[TNGRT_MAX_DIMS];
    int nb;
    if (!tngrt_impl__rank_ok(dst) || !tngrt_impl__rank_ok(values) || nidx < 1 || nidx > TNGRT_MAX_DIMS ||
        dim < 0 || dim + nidx > dst->ndim)
        return tngrt_impl__err(err, "index_put: invalid operands");
    if (tngrt_impl__index_bcast(idx, nidx, b, &nb, st, "index_put", err))
        return -1;
    /* the indexed shape dst[:dim] + b + dst[dim+nidx:], values broadcast to it */
    int ns = 0;
    for (int d = 0; d < dim; d++)
        shape[ns++] = dst->shape[d];
    for (int d = 0; d < nb && ns < TNGRT_MAX_DIMS; d++)
        shape[ns++] = b[d];
    for (int d = dim + nidx; d < dst->ndim && ns < TNGRT_MAX_DIMS; d++)
        shape[ns++] = dst->shape[d];
    if (dim + nb + dst->ndim - dim - nidx > TNGRT_MAX_DIMS || values->ndim > ns)
        return tngrt_impl__err(err, "index_put: the values do not fit the indexed shape");
    for (int d = 0; d < values->ndim; d++) {
        int64_t s = values->shape[d], t = shape[d + ns - values->ndim];
        if (s != 1 && s != t)
            return tngrt_impl__bad_input(err, "index_put: values of size %lld at dim %d do not broadcast to %lld",
                                         (long long)s, d, (long long)t);
    }
    tngrt_impl__bstrides(values->ndim, values->shape, ns, vst);
    int64_t outer = tngrt_impl__index_span(dst->shape, 0, dim);
    int64_t k = tngrt_impl__index_span(dst->shape, dim, dim + nidx);
    int64_t inner = tngrt_impl__index_span(dst->shape, dim + nidx, dst->ndim);
    int64_t bn = tngrt_impl__numel(nb, b);
    for (int64_t p = 0; p < bn; p++)   /* every index checked before any write */
        if (tngrt_impl__index_pos(dst, idx, nidx, dim, nb, b, st, p, "index_put", &lin, err))
            return -1;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t p = 0; p < bn; p++) {
            tngrt_impl__index_pos(dst, idx, nidx, dim, nb, b, st, p, "index_put", &lin, err);
            int64_t base = (o * bn + p) * inner, dbase = (o * k + lin) * inner;
            for (int64_t i = 0; i < inner; i++)
                tngrt_impl__index_put1(dst, dbase + i, values, tngrt_impl__index_off(ns, shape, vst, base + i),
                                       accumulate ? 1 : 0, 1.0);
        }
    return 0;
}

TNGRT_KINLINE int tngrt_impl_scatter(const TngrtArg *out, const TngrtArg *self, const TngrtArg *index,
                                     const TngrtArg *src, double value, int dim, int reduce, TngrtError *err)
{
    int64_t sst[TNGRT_MAX_DIMS], ost[TNGRT_MAX_DIMS];
    unsigned char vb[8] = {0};
    TngrtArg va = {vb, out->dtype, 0, NULL};
    const char *op = "scatter";
    if (!tngrt_impl__rank_ok(self) || index->ndim != self->ndim || out->ndim != self->ndim || dim < 0 ||
        dim >= self->ndim || (src && src->ndim != self->ndim))
        return tngrt_impl__err(err, "%s: invalid operands", op);
    for (int d = 0; d < self->ndim; d++) {
        if (d != dim && index->shape[d] > self->shape[d])
            return tngrt_impl__bad_input(err, "%s: index has size %lld at dim %d, more than the input's %lld", op,
                                         (long long)index->shape[d], d, (long long)self->shape[d]);
        if (src && index->shape[d] > src->shape[d])
            return tngrt_impl__bad_input(err, "%s: index has size %lld at dim %d, more than src's %lld", op,
                                         (long long)index->shape[d], d, (long long)src->shape[d]);
    }
    int64_t total = tngrt_impl__numel(index->ndim, index->shape), v;
    for (int64_t e = 0; e < total; e++)
        if (tngrt_impl__index_at(index, e, self->shape[dim], 0, dim, op, &v, err))
            return -1;
    if (out->data != self->data)
        tngrt_impl_copy(out, self);
    if (!src) {   /* the scalar in out's dtype first, as PyTorch converts it */
        if (tngrt_impl__is_float(out->dtype))
            tngrt_impl__stf(&va, 0, (float)value);
        else
            tngrt_impl__sti(&va, 0, tngrt_impl__f2i(value));
    }
    for (int d = self->ndim - 1; d >= 0; d--) {
        ost[d] = tngrt_impl__index_span(self->shape, d + 1, self->ndim);
        sst[d] = src ? tngrt_impl__index_span(src->shape, d + 1, src->ndim) : 0;
    }
    for (int64_t e = 0; e < total; e++) {
        int64_t lin = e, oo = 0, so = 0;
        for (int d = index->ndim - 1; d >= 0; d--) {
            int64_t c = lin % index->shape[d];
            lin /= index->shape[d];
            oo += (d == dim ? tngrt_impl__ldi(index, e) : c) * ost[d];
            so += c * sst[d];
        }
        tngrt_impl__index_put1(out, oo, src ? src : &va, src ? so : 0, reduce, 1.0);
    }
    return 0;
}

TNGRT_KINLINE int tngrt_impl_index_update(const TngrtArg *out, const TngrtArg *self, const TngrtArg *index,
                                          const TngrtArg *src, int dim, int add, double alpha, TngrtError *err)
{
    const char *op = add ? "index_add" : "index_copy";
    if (!tngrt_impl__rank_ok(self) || src->ndim != self->ndim || out->ndim != self->ndim || dim < 0 ||
        dim >= self->ndim || !tngrt_impl__rank_ok(index))
        return tngrt_impl__err(err, "%s: invalid operands", op);
    int64_t n = self->shape[dim], m = tngrt_impl__numel(index->ndim, index->shape), v;
    if (src->shape[dim] != m)
        return tngrt_impl__bad_input(err, "%s: source has %lld rows at dim %d for %lld indices", op,
                                     (long long)src->shape[dim], dim, (long long)m);
    for (int64_t i = 0; i < m; i++)
        if (tngrt_impl__index_at(index, i, n, 0, dim, op, &v, err))
            return -1;
    int64_t outer = tngrt_impl__index_span(self->shape, 0, dim);
    int64_t inner = tngrt_impl__index_span(self->shape, dim + 1, self->ndim);
    if (out->data != self->data)
        tngrt_impl_copy(out, self);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < m; i++) {
            int64_t d0 = (o * n + tngrt_impl__ldi(index, i)) * inner, s0 = (o * m + i) * inner;
            if (!add) {
                tngrt_impl__cvt_row(out, d0, 1, src, s0, 1, inner);
                continue;
            }
            for (int64_t j = 0; j < inner; j++)
                tngrt_impl__index_put1(out, d0 + j, src, s0 + j, 1, alpha);
        }
    return 0;
}


#endif
