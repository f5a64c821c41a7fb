/*
 * tngrt_impl_reduce.h - the bodies of the reductions, sorting and
 * contractions family's kernels: topk/sort/argsort, max/min
 * along a dim with their indices (and argmax/argmin), cumsum. Included by
 * tngrt_kernel_impl.h after its own sections, whose helpers
 * (tngrt_impl__ldf, ...) these use; the contracts are in tngrt_kernels.h.
 *
 * One order for every sort-like kernel: NaN ranks above every number (as
 * PyTorch's CPU kernels rank it), NaNs equal among themselves, and equal
 * values by index, so "largest first" and "smallest first" are both total
 * orders and no kernel needs scratch memory: topk keeps its candidates in a
 * heap inside the indices output itself.
 */
#ifndef TNGRT_IMPL_REDUCE_H
#define TNGRT_IMPL_REDUCE_H

/* Compares elements a and b of x: -1, 0 or 1, NaN above every number. */
TNGRT_KINLINE int tngrt_impl__rank_cmp(const TngrtArg *x, int64_t a, int64_t b)
{
    if (tngrt_impl__is_float(x->dtype)) {
        float va = tngrt_impl__ldf(x, a), vb = tngrt_impl__ldf(x, b);
        int na = va != va, nb = vb != vb;
        if (na || nb)
            return na - nb;
        return (va > vb) - (va < vb);
    }
    int64_t ia = tngrt_impl__ldi(x, a), ib = tngrt_impl__ldi(x, b);
    return (ia > ib) - (ia < ib);
}

/* 1 when element i of x is a NaN. */
TNGRT_KINLINE int tngrt_impl__is_nan(const TngrtArg *x, int64_t i)
{
    float v = tngrt_impl__is_float(x->dtype) ? tngrt_impl__ldf(x, i) : 0.0f;
    return v != v;
}

/* The line of a sort-like kernel: element j of the line is x[base + j * st]. */
typedef struct TngrtImplLine {
    const TngrtArg *x;
    int64_t base, st;
    int largest;
} TngrtImplLine;

/* 1 when line position a comes before position b in the line's order. */
TNGRT_KINLINE int tngrt_impl__ranks_before(const TngrtImplLine *l, int64_t a, int64_t b)
{
    int c = tngrt_impl__rank_cmp(l->x, l->base + a * l->st, l->base + b * l->st);
    if (c == 0)
        return a < b;
    return l->largest ? c > 0 : c < 0;
}

/* Sifts heap slot p (of n, slots h[i * hs]) down: a heap with the position
 * that comes LAST in the order at its root. */
TNGRT_KINLINE void tngrt_impl__heap_down(const TngrtImplLine *l, int64_t *h, int64_t hs, int64_t p,
                                         int64_t n)
{
    for (;;) {
        int64_t c = 2 * p + 1, worst = p;
        if (c < n && tngrt_impl__ranks_before(l, h[worst * hs], h[c * hs]))
            worst = c;
        if (c + 1 < n && tngrt_impl__ranks_before(l, h[worst * hs], h[(c + 1) * hs]))
            worst = c + 1;
        if (worst == p)
            return;
        int64_t t = h[p * hs];
        h[p * hs] = h[worst * hs];
        h[worst * hs] = t;
        p = worst;
    }
}

/* The first k positions of a line of len elements, in order, into
 * h[0], h[hs], ... h[(k - 1) * hs] (k <= len). */
TNGRT_KINLINE void tngrt_impl__topk_line(const TngrtImplLine *l, int64_t len, int64_t *h, int64_t hs,
                                         int64_t k)
{
    if (k <= 0)
        return;
    for (int64_t j = 0; j < k; j++)
        h[j * hs] = j;
    for (int64_t p = k / 2; p-- > 0;)
        tngrt_impl__heap_down(l, h, hs, p, k);
    for (int64_t j = k; j < len; j++) {
        if (tngrt_impl__ranks_before(l, j, h[0])) {
            h[0] = j;
            tngrt_impl__heap_down(l, h, hs, 0, k);
        }
    }
    for (int64_t n = k - 1; n > 0; n--) { /* heap sort: the last in order goes to the end */
        int64_t t = h[0];
        h[0] = h[n * hs];
        h[n * hs] = t;
        tngrt_impl__heap_down(l, h, hs, 0, n);
    }
}

/* outer, len, inner of x around dim (a 0-d x: one line of one element);
 * 0 when dim is invalid. */
TNGRT_KINLINE int tngrt_impl__around(const TngrtArg *x, int dim, int64_t *outer, int64_t *len,
                                     int64_t *inner)
{
    *outer = *len = *inner = 1;
    if (!tngrt_impl__rank_ok(x))
        return 0;
    if (x->ndim == 0)
        return dim == 0 || dim == -1;
    if ((dim = tngrt_impl__dim(dim, x->ndim)) < 0)
        return 0;
    *outer = tngrt_impl__numel(dim, x->shape);
    *len = x->shape[dim];
    *inner = tngrt_impl__numel(x->ndim - dim - 1, x->shape + dim + 1);
    return 1;
}

/* Element i of x copied to element o of out (the same dtype: exact). */
TNGRT_KINLINE void tngrt_impl__copy_elem(const TngrtArg *out, int64_t o, const TngrtArg *x, int64_t i)
{
    if (tngrt_impl__is_float(out->dtype))
        tngrt_impl__stf(out, o, tngrt_impl__ldf(x, i));
    else
        tngrt_impl__sti(out, o, tngrt_impl__ldi(x, i));
}

TNGRT_KINLINE void tngrt_impl_topk(const TngrtArg *values, const TngrtArg *indices, const TngrtArg *x,
                                   int dim, int largest)
{
    int64_t outer, len, inner, k = 1;
    if (!tngrt_impl__around(x, dim, &outer, &len, &inner) || indices->dtype != TNGRT_I64 ||
        indices->ndim != x->ndim)
        return;
    if (x->ndim > 0)
        k = indices->shape[tngrt_impl__dim(dim, x->ndim)];
    if (k > len)
        return;
    int64_t *ix = (int64_t *)indices->data;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            TngrtImplLine l = {x, o * len * inner + i, inner, largest};
            int64_t ob = o * k * inner + i;
            tngrt_impl__topk_line(&l, len, ix + ob, inner, k);
            for (int64_t j = 0; values && j < k; j++)
                tngrt_impl__copy_elem(values, ob + j * inner, x, l.base + ix[ob + j * inner] * inner);
        }
}

TNGRT_KINLINE void tngrt_impl_arg_reduce(const TngrtArg *values, const TngrtArg *indices,
                                         const TngrtArg *x, int dim, int is_min)
{
    int64_t outer, len, inner;
    if (!tngrt_impl__around(x, dim, &outer, &len, &inner))
        return;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t base = o * len * inner + i, best = 0;
            for (int64_t j = 1; j < len; j++) {
                /* a later position wins only when it ranks strictly first
                 * (ties keep the first); NaN ranks first for min too, and
                 * once the best is a NaN nothing beats it */
                int c = tngrt_impl__rank_cmp(x, base + j * inner, base + best * inner);
                int nan = tngrt_impl__is_nan(x, base + j * inner) || tngrt_impl__is_nan(x, base + best * inner);
                if (c != 0 && (is_min ? (c < 0) != nan : c > 0))
                    best = j;
            }
            tngrt_impl__sti(indices, o * inner + i, best);
            if (values && len > 0)
                tngrt_impl__copy_elem(values, o * inner + i, x, base + best * inner);
        }
}

TNGRT_KINLINE void tngrt_impl_cumsum(const TngrtArg *out, const TngrtArg *x, int dim)
{
    int64_t outer, len, inner;
    if (!tngrt_impl__around(x, dim, &outer, &len, &inner))
        return;
    int fl = tngrt_impl__is_float(out->dtype);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t base = o * len * inner + i;
            float acc = 0.0f;
            uint64_t iacc = 0;
            for (int64_t j = 0; j < len; j++) {
                int64_t at = base + j * inner;
                if (fl) {
                    acc += tngrt_impl__ldf(x, at);
                    tngrt_impl__stf(out, at, acc);
                } else {
                    iacc += (uint64_t)tngrt_impl__ldi(x, at);
                    tngrt_impl__sti(out, at, tngrt_impl__wrap(iacc));
                }
            }
        }
}

#endif
