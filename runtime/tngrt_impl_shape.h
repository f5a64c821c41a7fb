/*
 * tngrt_impl_shape.h - the kernel bodies of the "creation and constants"
 * and "shape" families: arange, triu/tril, flip, roll. Included
 * by tngrt_kernel_impl.h after its own sections, whose helpers
 * (tngrt_impl__*) these use; instantiated by kernels_shape.c.
 *
 * Data movers here copy elements as bytes: their output has the input's
 * dtype (the shape rules of ir/graph.c say so), so every dtype moves
 * exactly, NaN payloads and negative zeros included.
 */
#ifndef TNGRT_IMPL_SHAPE_H
#define TNGRT_IMPL_SHAPE_H

/* out[i] = start + start_dim + i * step: in double for floating dtypes
 * (rounded once to out's dtype), in int64 with start and step truncated
 * toward zero for integer ones (as torch.arange with an integer dtype). */
TNGRT_KINLINE void tngrt_impl_arange(const TngrtArg *out, double start, int64_t start_dim, double step)
{
    int64_t n;
    if (!tngrt_impl__rank_ok(out) || (n = tngrt_impl__numel(out->ndim, out->shape)) <= 0)
        return;
    if (tngrt_impl__is_float(out->dtype)) {
        for (int64_t i = 0; i < n; i++)
            tngrt_impl__stf(out, i, (float)(start + (double)start_dim + (double)i * step));
        return;
    }
    uint64_t s = (uint64_t)tngrt_impl__f2i(start) + (uint64_t)start_dim, d = (uint64_t)tngrt_impl__f2i(step);
    for (int64_t i = 0; i < n; i++)   /* unsigned: wraps, never undefined */
        tngrt_impl__sti(out, i, tngrt_impl__wrap(s + (uint64_t)i * d));
}

/* out = x with the elements outside the band of the last two dims zeroed:
 * triu (lower 0) keeps col - row >= diagonal, tril (lower 1) keeps
 * col - row <= diagonal. */
TNGRT_KINLINE void tngrt_impl_tri(const TngrtArg *out, const TngrtArg *x, int64_t diagonal, int lower)
{
    if (!tngrt_impl__rank_ok(x) || x->ndim < 2 || out->ndim != x->ndim)
        return;
    int64_t rows = x->shape[x->ndim - 2], cols = x->shape[x->ndim - 1];
    int64_t n = tngrt_impl__numel(x->ndim, x->shape);
    size_t es = tngrt_impl__esize(x->dtype);
    if (n <= 0)
        return;
    int64_t mats = n / (rows * cols);
    unsigned char *o = (unsigned char *)out->data;
    const unsigned char *s = (const unsigned char *)x->data;
    for (int64_t m = 0; m < mats; m++)
        for (int64_t r = 0; r < rows; r++) {
            int64_t base = (m * rows + r) * cols, lo, hi;   /* zero [lo, hi) */
            /* the band edge r + diagonal, clamped to [-1, cols + 1]: no overflow */
            int64_t edge = diagonal < -cols - 1 - r ? -1 : diagonal > cols + 1 ? cols + 1 + r : r + diagonal;
            if (lower) {
                lo = edge + 1 < 0 ? 0 : edge + 1 > cols ? cols : edge + 1;
                hi = cols;
            } else {
                lo = 0;
                hi = edge < 0 ? 0 : edge > cols ? cols : edge;
            }
            memmove(o + (size_t)base * es, s + (size_t)base * es, (size_t)cols * es);
            if (hi > lo)
                memset(o + (size_t)(base + lo) * es, 0, (size_t)(hi - lo) * es);
        }
}

/* out = x with each dim d read from index (i - shift[d]) mod size (roll)
 * and, where flip[d], from size - 1 - i first (flip); shift[d] is in
 * [0, size). Row by row: the last dim's row is one or two copies. */
static inline void tngrt_impl__remap(const TngrtArg *out, const TngrtArg *x, const int64_t *shift,
                                     const uint8_t *flip)
{
    int nd = x->ndim;
    int64_t n = tngrt_impl__numel(nd, x->shape), st[TNGRT_MAX_DIMS];
    size_t es = tngrt_impl__esize(x->dtype);
    unsigned char *o = (unsigned char *)out->data;
    const unsigned char *s = (const unsigned char *)x->data;
    if (n <= 0)
        return;
    if (nd == 0) {
        memcpy(o, s, es);
        return;
    }
    tngrt_impl__bstrides(nd, x->shape, nd, st);
    int64_t inner = x->shape[nd - 1], rows = n / inner, sh = shift[nd - 1];
    for (int64_t r = 0; r < rows; r++) {
        int64_t rem = r, src = 0;
        for (int d = nd - 2; d >= 0; d--) {
            int64_t len = x->shape[d], i = rem % len;
            rem /= len;
            i = flip[d] ? len - 1 - i : i;
            i = i - shift[d] < 0 ? i - shift[d] + len : i - shift[d];
            src += i * st[d];
        }
        unsigned char *dst = o + (size_t)(r * inner) * es;
        const unsigned char *row = s + (size_t)src * es;
        if (flip[nd - 1]) {   /* element k of the reversed row, then rolled */
            for (int64_t k = 0; k < inner; k++) {
                int64_t j = k - sh < 0 ? k - sh + inner : k - sh;
                memcpy(dst + (size_t)k * es, row + (size_t)(inner - 1 - j) * es, es);
            }
            continue;
        }
        memcpy(dst + (size_t)sh * es, row, (size_t)(inner - sh) * es);
        memcpy(dst, row + (size_t)(inner - sh) * es, (size_t)sh * es);
    }
}

/* out = x.flip(dims[0..n)). */
TNGRT_KINLINE void tngrt_impl_flip(const TngrtArg *out, const TngrtArg *x, const int64_t *dims, int n)
{
    int64_t shift[TNGRT_MAX_DIMS] = {0};
    uint8_t flip[TNGRT_MAX_DIMS] = {0};
    if (!tngrt_impl__rank_ok(x) || out->ndim != x->ndim)
        return;
    for (int k = 0; k < n; k++) {
        int d = tngrt_impl__dim((int)dims[k], x->ndim);
        if (d < 0)
            return;
        flip[d] = 1;
    }
    tngrt_impl__remap(out, x, shift, flip);
}

/* out = x.roll(shifts, dims) from the (shift, dim) pairs in pairs[0..n):
 * shifts of any size (negative, past the dim's size) wrap; shifts of a
 * repeated dim add up. */
TNGRT_KINLINE void tngrt_impl_roll(const TngrtArg *out, const TngrtArg *x, const int64_t *pairs, int n)
{
    int64_t shift[TNGRT_MAX_DIMS] = {0};
    uint8_t flip[TNGRT_MAX_DIMS] = {0};
    if (!tngrt_impl__rank_ok(x) || out->ndim != x->ndim)
        return;
    for (int k = 0; k + 1 < n; k += 2) {
        int d = tngrt_impl__dim((int)pairs[k + 1], x->ndim);
        if (d < 0)
            return;
        int64_t len = x->shape[d];
        if (len > 0)
            shift[d] = (shift[d] + (pairs[k] % len + len) % len) % len;
    }
    tngrt_impl__remap(out, x, shift, flip);
}

#endif
