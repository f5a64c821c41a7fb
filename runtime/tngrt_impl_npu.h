/*
 * tngrt_impl_npu.h - the inline bodies of the torch_npu fused-op kernels
 * added for issue 16 (tngrt_kernels.h, "kernels: torch_npu fused ops", has
 * their contracts): add_rms_norm, rotary_mul, dynamic_quant and
 * moe_gating_top_k_softmax, each as tests/ref/stubs/torch_npu computes it
 * from torch_npu's documentation. Included by tngrt_kernel_impl.h after its
 * own sections, whose helpers (tngrt_impl__*) these use.
 */
#ifndef TNGRT_IMPL_NPU_H
#define TNGRT_IMPL_NPU_H

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
            else           /* interleave: pairs (x0, x1) -> (-x1, x0) */
                rot = d % 2 == 0 ? -tngrt_impl__ldf(x, base + d + 1) : tngrt_impl__ldf(x, base + d - 1);
            float a = tngrt_impl__ldf(x, base + d) * tngrt_impl__ldf(r1, o1 + d * s1[nd - 1]);
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

#endif
