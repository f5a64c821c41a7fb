/*
 * tngrt_impl_nn.h - the neural net family's kernel bodies:
 * scaled dot product attention, convolution (1-d and 2-d, groups,
 * dilation, asymmetric padding), inference batch norm, group norm, 2-d
 * max/avg pooling (floor mode), adaptive 2-d pooling and 2-d
 * interpolation (nearest, bilinear). Included at the end of
 * tngrt_kernel_impl.h, whose helpers (element access, tngrt_impl__exp,
 * tngrt_impl__sum_row) these use; contracts in tngrt_kernels.h under
 * "kernels: neural net".
 *
 * Every kernel computes in float and rounds once to out's dtype, as
 * PyTorch's CPU does for half types. Only the float32 forms allocate:
 * convolution its unrolled input columns, attention a [L, S] block of
 * scores, both for CBLAS; a failed malloc falls back to the direct loops
 * (attention's keeps a fixed stack block of accumulators: value columns in
 * chunks of TNGRT_IMPL__SDPA_CHUNK, the scores recomputed per chunk).
 */
#ifndef TNGRT_IMPL_NN_H
#define TNGRT_IMPL_NN_H

#define TNGRT_IMPL__SDPA_CHUNK 256

/* ---- attention ---- */

/* Element strides of operand a (right-aligned with a target of rank nd)
 * for each target dim: 0 where a has no such dim or a size-1 dim. */
TNGRT_KINLINE void tngrt_impl__bcast_strides(const TngrtArg *a, int nd, int64_t *st)
{
    int64_t s = 1;
    for (int t = nd - 1; t >= 0; t--) {
        int j = t - (nd - a->ndim);
        if (j < 0) {
            st[t] = 0;
            continue;
        }
        st[t] = a->shape[j] == 1 ? 0 : s;
        s *= a->shape[j];
    }
}

/* One attention score: dot(q row, k row) * scale, with the mask. Returns
 * 0 when the key is masked out (bool mask False, or past the diagonal). */
TNGRT_KINLINE int tngrt_impl__sdpa_score(const TngrtArg *q, int64_t qo, const TngrtArg *k, int64_t ko,
                                         int64_t e, float scale, const TngrtArg *mask, int64_t mo,
                                         float *score)
{
    float acc = 0.0f;
    if (mask && mask->dtype == TNGRT_BOOL && !((const uint8_t *)mask->data)[mo])
        return 0;
    if (q->dtype == TNGRT_F32 && k->dtype == TNGRT_F32) {
        const float *qp = (const float *)q->data + qo, *kp = (const float *)k->data + ko;
        for (int64_t i = 0; i < e; i++)
            acc += qp[i] * kp[i];
    } else {
        for (int64_t i = 0; i < e; i++)
            acc += tngrt_impl__ldf(q, qo + i) * tngrt_impl__ldf(k, ko + i);
    }
    acc *= scale;
    if (mask && mask->dtype != TNGRT_BOOL)
        acc += tngrt_impl__ldf(mask, mo);
    *score = acc;
    return 1;
}

/* float32 attention of one (batch, head): scores = q k^T * scale through
 * CBLAS into sc [L, S], masked, softmax by row, then out = p v (CBLAS). */
static inline void tngrt_impl__sdpa_gemm(float *o, const float *q, const float *k, const float *v,
                                         const TngrtArg *mask, int64_t mo, int64_t msl, int64_t mss,
                                         int is_causal, float scale, int64_t L, int64_t S, int64_t E,
                                         int64_t Ev, float *sc)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)L, (int)S, (int)E, scale, q, (int)E, k,
                (int)E, 0.0f, sc, (int)S);
    for (int64_t l = 0; l < L; l++) {
        float *r = sc + l * S, mx = -INFINITY, sum = 0.0f;
        for (int64_t j = 0; j < S; j++) {
            int64_t mi = mo + l * msl + j * mss;
            if ((is_causal && j > l) ||
                (mask && mask->dtype == TNGRT_BOOL && !((const uint8_t *)mask->data)[mi]))
                r[j] = -INFINITY;
            else if (mask && mask->dtype != TNGRT_BOOL)
                r[j] += tngrt_impl__ldf(mask, mi);
            if (r[j] > mx || r[j] != r[j])
                mx = r[j];
        }
        for (int64_t j = 0; j < S; j++) {
            r[j] = r[j] == -INFINITY ? 0.0f : tngrt_impl__exp(r[j] - mx);
            sum += r[j];
        }
        /* no key left: NaN, as PyTorch's softmax of all -inf gives */
        float inv = sum > 0.0f ? 1.0f / sum : NAN;
        for (int64_t j = 0; j < S; j++)
            r[j] *= inv;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)L, (int)Ev, (int)S, 1.0f, sc, (int)S, v,
                (int)Ev, 0.0f, o, (int)Ev);
}

TNGRT_KINLINE void tngrt_impl_sdpa(const TngrtArg *out, const TngrtArg *q, const TngrtArg *k,
                                   const TngrtArg *v, const TngrtArg *mask, int is_causal,
                                   int has_scale, double scale)
{
    int64_t kst[TNGRT_MAX_DIMS], vst[TNGRT_MAX_DIMS], mst[TNGRT_MAX_DIMS];
    float acc[TNGRT_IMPL__SDPA_CHUNK];
    if (!tngrt_impl__rank_ok(q) || q->ndim < 2 || k->ndim < 2 || v->ndim < 2 || k->ndim > q->ndim ||
        v->ndim > q->ndim || (mask && !tngrt_impl__rank_ok(mask)))
        return;
    int nd = q->ndim, nb = nd - 2;
    int64_t L = q->shape[nd - 2], E = q->shape[nd - 1];
    int64_t S = k->shape[k->ndim - 2], Ev = v->shape[v->ndim - 1];
    int64_t batch = tngrt_impl__numel(nb, q->shape);
    float sc = has_scale ? (float)scale : (float)(1.0 / sqrt((double)E));
    tngrt_impl__bcast_strides(k, nd, kst);
    tngrt_impl__bcast_strides(v, nd, vst);
    if (mask)
        tngrt_impl__bcast_strides(mask, nd, mst);
    /* the key and value strides above count [S, E] rows as their last two
     * dims; the leading-dim strides are what the batch walk uses. float32
     * (sizes within CBLAS's int): matrix products with a [L, S] scratch */
    float *scr = NULL;
    if (q->dtype == TNGRT_F32 && k->dtype == TNGRT_F32 && v->dtype == TNGRT_F32 && out->dtype == TNGRT_F32 &&
        L > 0 && S > 0 && E > 0 && Ev > 0 && L <= INT_MAX && S <= INT_MAX && E <= INT_MAX && Ev <= INT_MAX &&
        (uint64_t)L * (uint64_t)S <= ((uint64_t)1 << 36))
        scr = (float *)malloc((size_t)(L * S) * sizeof(float));
    for (int64_t b = 0; scr && b < batch; b++) {
        int64_t rem = b, ko = 0, vo = 0, mo = 0;
        for (int i = nb - 1; i >= 0; i--) {
            int64_t ii = rem % q->shape[i];
            rem /= q->shape[i];
            ko += ii * kst[i];
            vo += ii * vst[i];
            if (mask)
                mo += ii * mst[i];
        }
        tngrt_impl__sdpa_gemm((float *)out->data + b * L * Ev, (const float *)q->data + b * L * E,
                              (const float *)k->data + ko, (const float *)v->data + vo, mask, mo,
                              mask ? mst[nd - 2] : 0, mask ? mst[nd - 1] : 0, is_causal, sc, L, S, E, Ev,
                              scr);
    }
    if (scr) {
        free(scr);
        return;
    }
    for (int64_t b = 0; b < batch; b++) {
        int64_t rem = b, ko = 0, vo = 0, mo = 0;
        for (int i = nb - 1; i >= 0; i--) {
            int64_t ii = rem % q->shape[i];
            rem /= q->shape[i];
            ko += ii * kst[i];
            vo += ii * vst[i];
            if (mask)
                mo += ii * mst[i];
        }
        for (int64_t l = 0; l < L; l++) {
            int64_t qo = (b * L + l) * E, oo = (b * L + l) * Ev;
            int64_t mrow = mask ? mo + l * mst[nd - 2] : 0, jend = S;
            float mx = -INFINITY, s;
            if (is_causal)
                jend = l + 1 < S ? l + 1 : S;
            for (int64_t j = 0; j < jend; j++)
                if (tngrt_impl__sdpa_score(q, qo, k, ko + j * E, E, sc, mask,
                                           mask ? mrow + j * mst[nd - 1] : 0, &s) &&
                    (s > mx || s != s))
                    mx = s;
            for (int64_t c0 = 0; c0 < Ev; c0 += TNGRT_IMPL__SDPA_CHUNK) {
                int64_t cn = Ev - c0 < TNGRT_IMPL__SDPA_CHUNK ? Ev - c0 : TNGRT_IMPL__SDPA_CHUNK;
                float sum = 0.0f;
                for (int64_t c = 0; c < cn; c++)
                    acc[c] = 0.0f;
                for (int64_t j = 0; j < jend; j++) {
                    if (!tngrt_impl__sdpa_score(q, qo, k, ko + j * E, E, sc, mask,
                                                mask ? mrow + j * mst[nd - 1] : 0, &s))
                        continue;
                    float p = tngrt_impl__exp(s - mx);
                    int64_t vr = vo + j * Ev + c0;
                    sum += p;
                    if (v->dtype == TNGRT_F32) {
                        const float *vp = (const float *)v->data + vr;
                        for (int64_t c = 0; c < cn; c++)
                            acc[c] += p * vp[c];
                    } else {
                        for (int64_t c = 0; c < cn; c++)
                            acc[c] += p * tngrt_impl__ldf(v, vr + c);
                    }
                }
                /* no key left (all masked): 0 / 0, NaN as PyTorch's softmax gives */
                float r = 1.0f / sum;
                for (int64_t c = 0; c < cn; c++)
                    tngrt_impl__stf(out, oo + c0 + c, sum > 0.0f ? acc[c] * r : NAN);
            }
        }
    }
}

/* ---- convolution ---- */

/* float32 convolution as one matrix product per sample and group: the
 * input windows unrolled into columns [Cg KH KW, OH OW] (zeros where the
 * padding is), times the group's weights [O/groups, Cg KH KW] through
 * libtngcrt's GEMM. Where B is packed (tngrt_gemm_small_pays says no: 8
 * output channels or more), the windows are unrolled straight into the
 * packed panels (column p of row r at (p / NR) NR K + r NR + p % NR), so
 * there is no column copy to pack; else tngrt_gemm_f32_dense reads the
 * columns in place. 0 when the scratch cannot be allocated (the caller
 * loops). The spatial sizes are the 2-d ones (1-d: H = KH = OH = 1). */
static inline int tngrt_impl__conv_gemm(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                                        const TngrtArg *bias, int64_t H, int64_t KH, int64_t OH,
                                        int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                                        int64_t dw, int64_t groups)
{
    enum { NR = TNGRT_GEMM_NR };
    int64_t N = x->shape[0], C = x->shape[1], O = w->shape[0], Cg = w->shape[1];
    int64_t W = x->shape[x->ndim - 1], KW = w->shape[w->ndim - 1], OW = out->shape[out->ndim - 1];
    int64_t Og = O / groups, K = Cg * KH * KW, P = OH * OW, cap;
    const float *xf = (const float *)x->data, *wf = (const float *)w->data;
    float *of = (float *)out->data, *col;
    int packed;
    if (K <= 0 || P <= 0 || Og <= 0 || K > INT_MAX || P > INT_MAX || Og > INT_MAX ||
        (uint64_t)K * (uint64_t)(P + NR) > ((uint64_t)1 << 40) / sizeof(float))
        return 0;
    packed = !tngrt_gemm_small_pays(Og, P, K);
    cap = packed ? tngrt_gemm_packed_size(P, K) : K * P;
    col = (float *)malloc((size_t)cap * sizeof(float));
    if (!col)
        return 0;
    if (packed && P % NR)   /* the last panel's columns past P: zero, never written */
        for (int64_t r = 0; r < K; r++)
            memset(col + (P / NR) * NR * K + r * NR + P % NR, 0,
                   (size_t)(NR - P % NR) * sizeof(float));
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < groups; g++) {
            for (int64_t c = 0; c < Cg; c++)
                for (int64_t kh = 0; kh < KH; kh++)
                    for (int64_t kw = 0; kw < KW; kw++) {
                        int64_t row = (c * KH + kh) * KW + kw;
                        const float *xp = xf + (n * C + g * Cg + c) * H * W;
                        for (int64_t oh = 0; oh < OH; oh++) {
                            int64_t ih = oh * sh - ph + kh * dh;
                            for (int64_t ow = 0; ow < OW; ow++) {
                                int64_t iw = ow * sw - pw + kw * dw, p = oh * OW + ow;
                                float v = ih >= 0 && ih < H && iw >= 0 && iw < W ? xp[ih * W + iw] : 0.0f;
                                if (packed)
                                    col[(p / NR) * NR * K + row * NR + p % NR] = v;
                                else
                                    col[row * P + p] = v;
                            }
                        }
                    }
            float *o = of + (n * O + g * Og) * P;
            if (packed)
                tngrt_gemm_f32(Og, P, K, wf + g * Og * K, K, 1, col, o, P, NULL);
            else   /* few output channels: the unpacked kernel, no packing */
                (void)tngrt_gemm_f32_dense(Og, P, K, wf + g * Og * K, K, col, P, o, P);
            if (bias)
                for (int64_t oc = 0; oc < Og; oc++) {
                    float b0 = ((const float *)bias->data)[g * Og + oc];
                    for (int64_t p = 0; p < P; p++)
                        o[oc * P + p] += b0;
                }
        }
    free(col);
    return 1;
}

TNGRT_KINLINE void tngrt_impl_conv(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                                   const TngrtArg *bias, int ns, int64_t sh, int64_t sw,
                                   int64_t ph, int64_t pw, int64_t ph1, int64_t pw1, int64_t dh,
                                   int64_t dw, int64_t groups)
{
    (void)ph1, (void)pw1;   /* the output's size already accounts for them */
    if (ns < 1 || ns > 2 || x->ndim != ns + 2 || w->ndim != ns + 2 || out->ndim != ns + 2 || groups < 1)
        return;
    int64_t N = x->shape[0], C = x->shape[1], O = w->shape[0], Cg = w->shape[1];
    int64_t H = ns == 2 ? x->shape[2] : 1, W = x->shape[ns + 1];
    int64_t KH = ns == 2 ? w->shape[2] : 1, KW = w->shape[ns + 1];
    int64_t OH = ns == 2 ? out->shape[2] : 1, OW = out->shape[ns + 1];
    int64_t Og = O / groups;
    if (ns == 1)
        sh = 1, ph = 0, dh = 1;
    int fast = x->dtype == TNGRT_F32 && w->dtype == TNGRT_F32;
    if (fast && out->dtype == TNGRT_F32 && (!bias || bias->dtype == TNGRT_F32) &&
        tngrt_impl__conv_gemm(out, x, w, bias, H, KH, OH, sh, sw, ph, pw, dh, dw, groups))
        return;
    for (int64_t n = 0; n < N; n++)
        for (int64_t o = 0; o < O; o++) {
            int64_t g = o / Og;
            float b0 = bias ? tngrt_impl__ldf(bias, o) : 0.0f;
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    float acc = 0.0f;
                    for (int64_t c = 0; c < Cg; c++) {
                        int64_t xc = (n * C + g * Cg + c) * H, wc = (o * Cg + c) * KH;
                        for (int64_t kh = 0; kh < KH; kh++) {
                            int64_t ih = oh * sh - ph + kh * dh;
                            if (ih < 0 || ih >= H)
                                continue;
                            int64_t xr = (xc + ih) * W, wr = (wc + kh) * KW;
                            for (int64_t kw = 0; kw < KW; kw++) {
                                int64_t iw = ow * sw - pw + kw * dw;
                                if (iw < 0 || iw >= W)
                                    continue;
                                if (fast)
                                    acc += ((const float *)x->data)[xr + iw] *
                                           ((const float *)w->data)[wr + kw];
                                else
                                    acc += tngrt_impl__ldf(x, xr + iw) * tngrt_impl__ldf(w, wr + kw);
                            }
                        }
                    }
                    tngrt_impl__stf(out, ((n * O + o) * OH + oh) * OW + ow, acc + b0);
                }
        }
}

/* ---- normalisation ---- */

TNGRT_KINLINE void tngrt_impl_batch_norm(const TngrtArg *out, const TngrtArg *x, const TngrtArg *mean,
                                         const TngrtArg *var, const TngrtArg *w, const TngrtArg *b,
                                         double eps)
{
    if (!tngrt_impl__rank_ok(x) || x->ndim < 2)
        return;
    int64_t N = x->shape[0], C = x->shape[1], inner = tngrt_impl__numel(x->ndim - 2, x->shape + 2);
    for (int64_t c = 0; c < C; c++) {
        float a = 1.0f / sqrtf(tngrt_impl__ldf(var, c) + (float)eps);
        if (w)
            a *= tngrt_impl__ldf(w, c);
        float sh = (b ? tngrt_impl__ldf(b, c) : 0.0f) - tngrt_impl__ldf(mean, c) * a;
        for (int64_t n = 0; n < N; n++) {
            int64_t base = (n * C + c) * inner;
            for (int64_t i = 0; i < inner; i++)
                tngrt_impl__stf(out, base + i, tngrt_impl__ldf(x, base + i) * a + sh);
        }
    }
}

TNGRT_KINLINE void tngrt_impl_group_norm(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                                         const TngrtArg *b, int64_t groups, double eps)
{
    if (!tngrt_impl__rank_ok(x) || x->ndim < 2 || groups < 1)
        return;
    int64_t N = x->shape[0], C = x->shape[1], inner = tngrt_impl__numel(x->ndim - 2, x->shape + 2);
    int64_t Cg = C / groups, len = Cg * inner;
    if (len <= 0)
        return;
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < groups; g++) {
            int64_t base = (n * C + g * Cg) * inner;
            float mean = tngrt_impl__sum_row(x, base, 1, len, 0, 0.0f) / (float)len;
            float var = tngrt_impl__sum_row(x, base, 1, len, 2, mean) / (float)len;
            float rstd = 1.0f / sqrtf(var + (float)eps);
            for (int64_t c = 0; c < Cg; c++) {
                int64_t ch = g * Cg + c, cb = base + c * inner;
                float a = rstd * (w ? tngrt_impl__ldf(w, ch) : 1.0f);
                float sh = (b ? tngrt_impl__ldf(b, ch) : 0.0f) - mean * a;
                for (int64_t i = 0; i < inner; i++)
                    tngrt_impl__stf(out, cb + i, tngrt_impl__ldf(x, cb + i) * a + sh);
            }
        }
}

/* ---- pooling ---- */

/* o[i] = r[i * sw] where that is larger or NaN, for i < n. */
TNGRT_KINLINE void tngrt_impl__max_row_f32(float *restrict o, const float *restrict r, int64_t n,
                                         int64_t sw)
{
    for (int64_t i = 0; i < n; i++) {
        float v = r[i * sw];
        o[i] = v > o[i] || v != v ? v : o[i];
    }
}

#if defined(__clang__)
typedef float tngrt_impl__v16f __attribute__((vector_size(64)));
typedef float tngrt_impl__v8f __attribute__((vector_size(32)));
typedef int32_t tngrt_impl__v8i __attribute__((vector_size(32)));

/* *acc where v's lane is not larger and not NaN, else v's (the general
 * loop's rule), lane by lane. */
TNGRT_KINLINE void tngrt_impl__max_sel8(tngrt_impl__v8f *acc, const tngrt_impl__v8f *v)
{
    tngrt_impl__v8i take = (*v > *acc) | (*v != *v), a, b;
    memcpy(&a, acc, sizeof a);
    memcpy(&b, v, sizeof b);
    a = (a & ~take) | (b & take);
    memcpy(acc, &a, sizeof a);
}

/* Outputs [0, n - n % 8) of one row of a 2 x 2 stride-2 max pool: r0 and r1
 * the window's two input rows; the window's elements in the general
 * loop's order. Returns how many it wrote. */
TNGRT_KINLINE int64_t tngrt_impl__max_row2x2(float *o, const float *r0, const float *r1, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        tngrt_impl__v16f a, b;
        memcpy(&a, r0 + 2 * i, sizeof a);
        memcpy(&b, r1 + 2 * i, sizeof b);
        tngrt_impl__v8f acc = (tngrt_impl__v8f){0} - INFINITY, w[4] = {
            __builtin_shufflevector(a, a, 0, 2, 4, 6, 8, 10, 12, 14),
            __builtin_shufflevector(a, a, 1, 3, 5, 7, 9, 11, 13, 15),
            __builtin_shufflevector(b, b, 0, 2, 4, 6, 8, 10, 12, 14),
            __builtin_shufflevector(b, b, 1, 3, 5, 7, 9, 11, 13, 15)};
        for (int k = 0; k < 4; k++)
            tngrt_impl__max_sel8(&acc, &w[k]);
        memcpy(o + i, &acc, sizeof acc);
    }
    return i;
}
#endif

/* Float32 max pooling without padding, a row of outputs at a time: each
 * window element in the order the general loop takes them (rows, then
 * columns), kept where it is larger or NaN, so that the result is that
 * loop's (NaN wins; of equal values the first); the loop over a row's
 * outputs vectorises. 0 when it does not apply. */
TNGRT_KINLINE int tngrt_impl__max_pool_f32(const TngrtArg *out, const TngrtArg *x, int64_t kh,
                                           int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                                           int64_t pw)
{
    int nd = x->ndim;
    if (x->dtype != TNGRT_F32 || out->dtype != TNGRT_F32 || ph != 0 || pw != 0 || kh < 1 ||
        kw < 1 || sh < 1 || sw < 1)
        return 0;
    int64_t planes = tngrt_impl__numel(nd - 2, x->shape), H = x->shape[nd - 2], W = x->shape[nd - 1];
    int64_t OH = out->shape[nd - 2], OW = out->shape[nd - 1];
    if ((OH - 1) * sh + kh > H || (OW - 1) * sw + kw > W)
        return 0;
    const float *xf = (const float *)x->data;
    float *of = (float *)out->data;
    for (int64_t p = 0; p < planes; p++)
        for (int64_t oh = 0; oh < OH; oh++) {
            float *o = of + (p * OH + oh) * OW;
            int64_t done = 0;
#if defined(__clang__)
            if (kh == 2 && kw == 2 && sh == 2 && sw == 2) {
                const float *r0 = xf + (p * H + 2 * oh) * W;
                done = tngrt_impl__max_row2x2(o, r0, r0 + W, OW);
            }
#endif
            /* outputs [done, OW): the window's elements in order */
            for (int64_t ow = done; ow < OW; ow++)
                o[ow] = -INFINITY;
            for (int64_t i = 0; i < kh && done < OW; i++)
                for (int64_t j = 0; j < kw; j++) {
                    const float *r = xf + (p * H + oh * sh + i) * W + j + done * sw;
                    if (sw == 2)   /* a constant stride: the loads vectorise */
                        tngrt_impl__max_row_f32(o + done, r, OW - done, 2);
                    else
                        tngrt_impl__max_row_f32(o + done, r, OW - done, sw);
                }
        }
    return 1;
}

TNGRT_KINLINE void tngrt_impl_pool2d(const TngrtArg *out, const TngrtArg *x, int is_max, int64_t kh,
                                     int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                                     int count_include_pad)
{
    if (!tngrt_impl__rank_ok(x) || x->ndim < 3 || out->ndim != x->ndim)
        return;
    if (is_max && tngrt_impl__max_pool_f32(out, x, kh, kw, sh, sw, ph, pw))
        return;
    int nd = x->ndim;
    int64_t planes = tngrt_impl__numel(nd - 2, x->shape), H = x->shape[nd - 2], W = x->shape[nd - 1];
    int64_t OH = out->shape[nd - 2], OW = out->shape[nd - 1];
    for (int64_t p = 0; p < planes; p++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t h0 = oh * sh - ph, w0 = ow * sw - pw;
                int64_t h1 = h0 + kh < H + ph ? h0 + kh : H + ph, w1 = w0 + kw < W + pw ? w0 + kw : W + pw;
                int64_t area = (h1 - h0) * (w1 - w0);
                h0 = h0 < 0 ? 0 : h0, w0 = w0 < 0 ? 0 : w0;
                h1 = h1 > H ? H : h1, w1 = w1 > W ? W : w1;
                float acc = is_max ? -INFINITY : 0.0f;
                for (int64_t i = h0; i < h1; i++)
                    for (int64_t j = w0; j < w1; j++) {
                        float v = tngrt_impl__ldf(x, (p * H + i) * W + j);
                        if (!is_max)
                            acc += v;
                        else if (v > acc || v != v)
                            acc = v;
                        if (acc != acc && is_max)
                            i = h1, j = w1;   /* NaN wins: stop */
                    }
                if (!is_max) {
                    int64_t cnt = count_include_pad ? area : (h1 - h0) * (w1 - w0);
                    acc = cnt > 0 ? acc / (float)cnt : 0.0f;
                }
                tngrt_impl__stf(out, (p * OH + oh) * OW + ow, acc);
            }
}

TNGRT_KINLINE void tngrt_impl_adaptive_pool2d(const TngrtArg *out, const TngrtArg *x, int is_max)
{
    if (!tngrt_impl__rank_ok(x) || x->ndim < 3 || out->ndim != x->ndim)
        return;
    int nd = x->ndim;
    int64_t planes = tngrt_impl__numel(nd - 2, x->shape), H = x->shape[nd - 2], W = x->shape[nd - 1];
    int64_t OH = out->shape[nd - 2], OW = out->shape[nd - 1];
    if (OH <= 0 || OW <= 0)
        return;
    for (int64_t p = 0; p < planes; p++)
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t h0 = oh * H / OH, h1 = ((oh + 1) * H + OH - 1) / OH;
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t w0 = ow * W / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
                float acc = is_max ? -INFINITY : 0.0f;
                for (int64_t i = h0; i < h1; i++)
                    for (int64_t j = w0; j < w1; j++) {
                        float v = tngrt_impl__ldf(x, (p * H + i) * W + j);
                        if (!is_max)
                            acc += v;
                        else if (v > acc || v != v || acc != acc)
                            acc = acc != acc ? acc : v;
                    }
                if (!is_max) {
                    int64_t cnt = (h1 - h0) * (w1 - w0);
                    acc = cnt > 0 ? acc / (float)cnt : 0.0f;
                }
                tngrt_impl__stf(out, (p * OH + oh) * OW + ow, acc);
            }
        }
}

/* ---- interpolation ---- */

/* The source-per-destination scale of one dim: from the given scale
 * factor (1 / factor) when there is one, else in / out. */
TNGRT_KINLINE float tngrt_impl__interp_scale(int64_t in, int64_t out, double factor)
{
    return factor > 0 ? (float)(1.0 / factor) : (float)in / (float)out;
}

/* Nearest: floor(dst * scale), at most in - 1. */
TNGRT_KINLINE int64_t tngrt_impl__nearest(int64_t dst, int64_t in, int64_t out, double factor)
{
    if (out == in)
        return dst;
    if (out == 2 * in)
        return dst >> 1;
    int64_t s = (int64_t)floorf((float)dst * tngrt_impl__interp_scale(in, out, factor));
    return s < in - 1 ? s : in - 1;
}

/* Bilinear: the source coordinate of dst as a lower index and a weight. */
TNGRT_KINLINE void tngrt_impl__linear_src(int64_t dst, int64_t in, int64_t out, int align_corners,
                                          double factor, int64_t *i0, int64_t *i1, float *l1)
{
    float src;
    if (align_corners) {
        float sc = out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f;
        src = sc * (float)dst;
    } else {
        src = tngrt_impl__interp_scale(in, out, factor) * ((float)dst + 0.5f) - 0.5f;
        src = src < 0.0f ? 0.0f : src;
    }
    *i0 = (int64_t)src;
    if (*i0 > in - 1)
        *i0 = in - 1;
    *i1 = *i0 + (*i0 < in - 1);
    *l1 = src - (float)*i0;
}

TNGRT_KINLINE void tngrt_impl_interpolate(const TngrtArg *out, const TngrtArg *x, int bilinear,
                                          int align_corners, double scale_h, double scale_w)
{
    if (x->ndim != 4 || out->ndim != 4)
        return;
    int64_t planes = x->shape[0] * x->shape[1], H = x->shape[2], W = x->shape[3];
    int64_t OH = out->shape[2], OW = out->shape[3];
    for (int64_t p = 0; p < planes; p++)
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t h0, h1;
            float lh;
            if (bilinear)
                tngrt_impl__linear_src(oh, H, OH, align_corners, scale_h, &h0, &h1, &lh);
            else
                h0 = h1 = tngrt_impl__nearest(oh, H, OH, scale_h), lh = 0.0f;
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t o = (p * OH + oh) * OW + ow, base = p * H * W;
                if (!bilinear) {
                    int64_t iw = tngrt_impl__nearest(ow, W, OW, scale_w);
                    tngrt_impl__stf(out, o, tngrt_impl__ldf(x, base + h0 * W + iw));
                    continue;
                }
                int64_t w0, w1;
                float lw;
                tngrt_impl__linear_src(ow, W, OW, align_corners, scale_w, &w0, &w1, &lw);
                float v00 = tngrt_impl__ldf(x, base + h0 * W + w0), v01 = tngrt_impl__ldf(x, base + h0 * W + w1);
                float v10 = tngrt_impl__ldf(x, base + h1 * W + w0), v11 = tngrt_impl__ldf(x, base + h1 * W + w1);
                float r = (1.0f - lh) * ((1.0f - lw) * v00 + lw * v01) + lh * ((1.0f - lw) * v10 + lw * v11);
                tngrt_impl__stf(out, o, r);
            }
        }
}

#endif
