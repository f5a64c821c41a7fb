/*
 * aclsim_npu.c - aclsim's reference loops for torch_npu's fused operators
 * that aclsim_ops.c does not hold: the fused inference attention, MoE
 * gating with groups, the quantised matmul, the weight-only quantised
 * matmul and dequantisation + SwiGLU + quantisation. Each is written from
 * CANN's aclnn API reference (its parameters in the order of
 * tests/acl/cann/include/aclnnop), over the operands' views through
 * aclsim_ops.c's element access (sim_rd, sim_wr), not with libtngcrt's
 * kernels. Arithmetic is in long double or double; a
 * step the operator documents in float32 (the MoE gating's and the SwiGLU
 * quantisation's) is rounded to float where it is taken.
 */
#include "aclsim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef long double R;

#define T(k) (&op->a[k].t)
#define HAS(k) (op->a[k].present)
#define INT(k) (op->a[k].i)
#define DBL(k) (op->a[k].d)

static int npu__fail(char *err, size_t n, const char *what)
{
    snprintf(err, n, "%s", what);
    return -1;
}

/* The element of t at idx (t->nd indices). */
static R npu__get(const SimTensor *t, const int64_t *idx)
{
    return sim_rd(t, idx, t->nd);
}

/* idx of the element at flat position r of t's dims but the last, the
 * last index being c (t->nd indices; a 1-dim t: c alone). */
static void npu__row_idx(const SimTensor *t, int64_t r, int64_t c, int64_t *idx)
{
    for (int d = t->nd - 2; d >= 0; d--) {
        idx[d] = r % t->dims[d];
        r /= t->dims[d];
    }
    if (t->nd > 0)
        idx[t->nd - 1] = c;
}

/* The element at flat position r of t in C order. */
static R npu__flat(const SimTensor *t, int64_t r)
{
    int64_t idx[SIM_MAX_DIMS];
    for (int d = t->nd - 1; d >= 0; d--) {
        idx[d] = r % t->dims[d];
        r /= t->dims[d];
    }
    return npu__get(t, idx);
}

/* Element (g, c) of a per-group table [G, C] (a dim of 1 broadcasts), or
 * element c of a [C] one. */
static R npu__gc(const SimTensor *t, int64_t g, int64_t c)
{
    int64_t idx[2] = {g, c};
    return t->nd >= 2 ? sim_rd(t, idx, 2) : sim_rd(t, &idx[1], 1);
}

/* Whether t, read as a per-column table (npu__gc), has cols columns or 1,
 * and at most groups rows (or 1). */
static int npu__table_fits(const SimTensor *t, int64_t groups, int64_t cols)
{
    int64_t c = t->nd ? t->dims[t->nd - 1] : 1;
    return t->nd <= 2 && (c == cols || c == 1) && (t->nd < 2 || t->dims[0] >= groups || t->dims[0] == 1);
}

static int npu__cols_fit(const SimTensor *t, int64_t cols)
{
    return npu__table_fits(t, 1, cols);
}

/* ---- fused inference attention ---- */

enum { LAYOUT_BSH, LAYOUT_BSND, LAYOUT_BNSD };

/* The index of element (b, head h, row s, d) of an operand in layout ly
 * whose head dim is hd. */
static void npu__attn_idx(int ly, int64_t hd, int64_t b, int64_t h, int64_t s, int64_t d, int64_t *i)
{
    i[0] = b;
    if (ly == LAYOUT_BSH) {
        i[1] = s;
        i[2] = h * hd + d;
    } else if (ly == LAYOUT_BSND) {
        i[1] = s;
        i[2] = h;
        i[3] = d;
    } else {
        i[1] = h;
        i[2] = s;
        i[3] = d;
    }
}

/* Key or value row j of batch b, head h: in the layout, or paged through
 * the block table bt ([B, blocks]; t [blocks, block_size, Nkv * D] or
 * [blocks, Nkv, block_size, D]; row j is row j % block_size of block
 * bt[b, j / block_size]). */
static R npu__kv(const SimTensor *t, const SimTensor *bt, int64_t bsz, int ly, int64_t hd, int64_t b, int64_t h,
                 int64_t j, int64_t d)
{
    int64_t i[4];
    if (bt) {
        int64_t bi[2] = {b, j / bsz}, blk = (int64_t)npu__get(bt, bi), r = j % bsz;
        i[0] = blk;
        if (t->nd == 3) {
            i[1] = r;
            i[2] = h * hd + d;
        } else {
            i[1] = h;
            i[2] = r;
            i[3] = d;
        }
        return npu__get(t, i);
    }
    npu__attn_idx(ly, hd, b, h, j, d, i);
    return npu__get(t, i);
}

/* A listed length of batch b (the last listed for those past it); full
 * when none were listed. */
static int64_t npu__len(const SimVal *v, int64_t b, int64_t full)
{
    if (!v->present || v->n < 1)
        return full;
    return v->ia[b < v->n ? b : v->n - 1];
}

/* Whether score (i, j) of batch b, head h is masked out: sparseMode 2
 * causal from the top left (j > i), 3 from the bottom right (j > i + nk -
 * nq), 4 the band from the bottom right (preTokens, nextTokens); 0 the
 * mask (nonzero: masked; [Sq, Skv], [B or 1, Sq, Skv] or [B or 1, N or 1,
 * Sq, Skv]) and the band j - i > nextTokens or i - j > preTokens; 1 the
 * mask alone. Modes 2 to 4 do not read the mask. */
static int npu__masked(const SimOp *op, int64_t b, int64_t h, int64_t i, int64_t j, int64_t nq, int64_t nk)
{
    int64_t mode = INT(23), pre = INT(19), nxt = INT(20), sh = nk - nq;
    if (mode == 2)
        return j > i;
    if (mode == 3)
        return j > i + sh;
    if (mode == 4)
        return j - i - sh > nxt || i + sh - j > pre;
    if (HAS(4)) {
        int64_t mi[4] = {b, h, i, j}, m3[3] = {b, i, j};   /* a 3-dim mask: [B or 1, Sq, Skv] */
        if (T(4)->nd == 3 ? sim_rd(T(4), m3, 3) != 0 : sim_rd(T(4), mi, 4) != 0)
            return 1;
        return mode == 0 && (j - i > nxt || i - j > pre);
    }
    return 0;
}

/* Whether dims[0..nd) of t are want[0..nd). */
static int npu__dims_are(const SimTensor *t, int nd, const int64_t *want)
{
    if (t->nd != nd)
        return 0;
    for (int d = 0; d < nd; d++)
        if (t->dims[d] != want[d])
            return 0;
    return 1;
}

/* Whether the attention's operands have the shapes its indexing reads and
 * writes: key/value in the layout (or paged, every block the lengths
 * reach inside the cache), the mask's last two dims covering Sq x Skv (or
 * 1), the outputs' shapes. */
static int npu__attn_shapes(const SimOp *op, int ly, int64_t B, int64_t N, int64_t Nkv, int64_t Sq, int64_t Skv,
                            int64_t D, int64_t Dv)
{
    const SimTensor *q = T(0), *k = &op->a[1].list[0], *v = &op->a[2].list[0], *o = T(28), *m = T(4);
    int64_t qw[4] = {B, Sq, N * D}, kw[4] = {B, Skv, Nkv * D}, vw[4] = {B, Skv, Nkv * Dv}, ow[4] = {B, Sq, N * Dv};
    int64_t lw[4] = {B, N, Sq, 1};
    if (ly != LAYOUT_BSH) {
        int64_t s1 = ly == LAYOUT_BSND ? 1 : 2, h1 = 3 - s1;
        qw[s1] = Sq, qw[h1] = N, qw[3] = D;
        kw[s1] = Skv, kw[h1] = Nkv, kw[3] = D;
        vw[s1] = Skv, vw[h1] = Nkv, vw[3] = Dv;
        ow[s1] = Sq, ow[h1] = N, ow[3] = Dv;
    }
    if (!npu__dims_are(q, q->nd, qw) || !npu__dims_are(o, q->nd, ow))
        return 0;
    if (HAS(14)) {
        const SimTensor *bt = T(14);
        int64_t bsz = INT(25);
        if (bt->nd != 2 || bt->dims[0] != B || (k->nd != 3 && k->nd != 4) || k->nd != v->nd)
            return 0;
        if (k->nd == 3 ? k->dims[1] != bsz || v->dims[1] != bsz || k->dims[2] != Nkv * D || v->dims[2] != Nkv * Dv
                       : k->dims[1] != Nkv || k->dims[2] != bsz || v->dims[2] != bsz || k->dims[3] != D)
            return 0;
        for (int64_t b = 0; b < B; b++)
            for (int64_t j = 0; j < npu__len(&op->a[6], b, Skv); j += bsz) {
                int64_t bi[2] = {b, j / bsz}, blk = (int64_t)npu__get(bt, bi);
                if (blk < 0 || blk >= k->dims[0] || blk >= v->dims[0])
                    return 0;
            }
    } else if (!npu__dims_are(k, q->nd, kw) || !npu__dims_are(v, q->nd, vw)) {
        return 0;
    }
    if (HAS(4) && (m->nd < 2 || m->nd > 4 || (m->dims[m->nd - 2] < Sq && m->dims[m->nd - 2] != 1) ||
                   (m->dims[m->nd - 1] < Skv && m->dims[m->nd - 1] != 1) ||
                   (m->nd >= 3 && m->dims[m->nd - 3] != 1 && m->dims[m->nd - 3] < (m->nd == 4 ? N : B)) ||
                   (m->nd == 4 && m->dims[0] != 1 && m->dims[0] < B)))
        return 0;
    return !HAS(29) || !INT(27) || npu__dims_are(T(29), 4, lw);
}

/* aclnnFusedInferAttentionScore(query, key, value, pseShift, attenMask,
 * actualSeqLengths, actualSeqLengthsKv, deqScale1, quantScale1, deqScale2,
 * quantScale2, quantOffset2, antiquantScale, antiquantOffset, blockTable,
 * queryPaddingSize, kvPaddingSize, numHeads, scaleValue, preTokens,
 * nextTokens, inputLayout, numKeyValueHeads, sparseMode, innerPrecise,
 * blockSize, antiquantMode, softmaxLseFlag, attentionOut, softmaxLse): per
 * batch b and query head h (key/value head h / (numHeads /
 * numKeyValueHeads)), over the first actualSeqLengths[b] query rows and
 * actualSeqLengthsKv[b] key rows, scores = q k^T * scaleValue with the
 * masked ones -inf, out = softmax(scores) v and softmaxLse = log of the
 * sum of exp(scores) (float32 [B, N, Sq, 1]); a row with nothing to attend
 * gives 0 and +inf. Without softmaxLseFlag softmaxLse is zero. The
 * quantisation, padding and pseShift inputs are not implemented here. */
static int k_fused_attention(const SimOp *op, char *err, size_t n)
{
    const SimTensor *q = T(0), *o = T(28), *lse = HAS(29) ? T(29) : NULL, *bt = HAS(14) ? T(14) : NULL, *k, *v;
    const char *lys = op->a[21].str;
    int ly = !strcmp(lys, "BSH") ? LAYOUT_BSH : !strcmp(lys, "BSND") ? LAYOUT_BSND : !strcmp(lys, "BNSD") ? LAYOUT_BNSD : -1;
    int64_t N = INT(17), Nkv = INT(22) > 0 ? INT(22) : INT(17), bsz = INT(25), B, Sq, Skv, D, Dk, Dv;
    double scale = DBL(18);
    R *s;
    if (ly < 0)
        return npu__fail(err, n, "an input layout other than BSH, BSND and BNSD is not implemented in aclsim");
    if (!op->a[1].present || !op->a[2].present || op->a[1].n != 1 || op->a[2].n != 1)
        return npu__fail(err, n, "key and value lists of other than one tensor are not implemented in aclsim");
    for (int a = 3; a <= 16; a++)
        if (a != 4 && a != 5 && a != 6 && a != 14 && HAS(a))
            return npu__fail(err, n, "pseShift, quantisation and padding inputs are not implemented in aclsim");
    k = &op->a[1].list[0];
    v = &op->a[2].list[0];
    if (N < 1 || N % Nkv || q->nd != (ly == LAYOUT_BSH ? 3 : 4) || o->nd != q->nd || (bt && bsz < 1))
        return npu__fail(err, n, "heads, ranks or block size out of range");
    B = q->dims[0];
    Sq = q->dims[ly == LAYOUT_BNSD ? 2 : 1];
    D = ly == LAYOUT_BSH ? q->dims[2] / N : q->dims[3];
    if (bt) {
        Dk = k->nd == 3 ? k->dims[2] / Nkv : k->dims[3];
        Dv = v->nd == 3 ? v->dims[2] / Nkv : v->dims[3];
        Skv = bt->dims[1] * bsz;
    } else {
        Dk = ly == LAYOUT_BSH ? k->dims[2] / Nkv : k->dims[3];
        Dv = ly == LAYOUT_BSH ? v->dims[2] / Nkv : v->dims[3];
        Skv = k->dims[ly == LAYOUT_BNSD ? 2 : 1];
    }
    if (Dk != D || !npu__attn_shapes(op, ly, B, N, Nkv, Sq, Skv, D, Dv))
        return npu__fail(err, n, "query, key, value, mask, block table or outputs of unexpected shapes");
    if (lse && !INT(27)) {   /* no flag: softmaxLse is zero */
        int64_t i[SIM_MAX_DIMS] = {0};
        if (sim_numel(lse) > 0)
            do
                sim_wr(lse, i, 0);
            while (sim_next(i, lse->dims, lse->nd));
        lse = NULL;
    }
    if (!(s = malloc((size_t)(Skv ? Skv : 1) * sizeof *s)))
        return npu__fail(err, n, "out of memory");
    for (int64_t b = 0; b < B; b++) {
        int64_t nq = npu__len(&op->a[5], b, Sq), nk = npu__len(&op->a[6], b, Skv);
        if (nq < 0 || nq > Sq || nk < 0 || nk > Skv) {
            free(s);
            return npu__fail(err, n, "an actual sequence length out of range");
        }
        for (int64_t h = 0; h < N; h++) {
            int64_t kh = h / (N / Nkv);
            for (int64_t i = 0; i < Sq; i++) {
                R mx = -INFINITY, sum = 0;
                int64_t oi[4];
                for (int64_t j = 0; i < nq && j < nk; j++) {
                    R acc = 0;
                    if (npu__masked(op, b, h, i, j, nq, nk)) {
                        s[j] = -INFINITY;
                        continue;
                    }
                    for (int64_t d = 0; d < D; d++) {
                        int64_t qi[4];
                        npu__attn_idx(ly, D, b, h, i, d, qi);
                        acc += npu__get(q, qi) * npu__kv(k, bt, bsz, ly, Dk, b, kh, j, d);
                    }
                    s[j] = acc * scale;
                    mx = s[j] > mx ? s[j] : mx;
                }
                if (mx != -INFINITY)
                    for (int64_t j = 0; j < nk; j++)
                        sum += s[j] == -INFINITY ? 0 : expl(s[j] - mx);
                for (int64_t d = 0; d < Dv; d++) {
                    R acc = 0;
                    for (int64_t j = 0; mx != -INFINITY && j < nk; j++)
                        if (s[j] != -INFINITY)
                            acc += expl(s[j] - mx) / sum * npu__kv(v, bt, bsz, ly, Dv, b, kh, j, d);
                    npu__attn_idx(ly, Dv, b, h, i, d, oi);
                    sim_wr(o, oi, acc);
                }
                if (lse) {
                    int64_t li[4] = {b, h, i, 0};
                    sim_wr(lse, li, mx == -INFINITY ? (R)INFINITY : mx + logl(sum));
                }
            }
        }
    }
    free(s);
    return 0;
}

/* ---- MoE gating ---- */

/* The position of the largest of v[0..n) not yet taken (ties: the lower
 * position), marked taken; -1 if none is left. */
static int64_t npu__take_max(const double *v, char *taken, int64_t n)
{
    int64_t best = -1;
    for (int64_t i = 0; i < n; i++)
        if (!taken[i] && (best < 0 || v[i] > v[best]))
            best = i;
    if (best >= 0)
        taken[best] = 1;
    return best;
}

/* aclnnMoeGatingTopK(x, biasOptional, k, kGroup, groupCount,
 * groupSelectMode, renorm, normType, outFlag, routedScalingFactor, eps,
 * yOut, expertIdxOut, outOut): per row of x [tokens, experts], in float32,
 * norm = softmax(x) (normType 0) or sigmoid(x) (1); sel = norm + bias;
 * with groupCount > 1 the experts split into equal groups scored by their
 * maximum (groupSelectMode 0) or the sum of their two largest sel values
 * (1), and the experts outside the kGroup best groups (ties: the lower
 * group) are not selected; expertIdx = the k largest sel, descending
 * (ties: the lower expert); y = norm at expertIdx, divided by (its sum +
 * eps) with sigmoid, times routedScalingFactor; outOut = norm. renorm 0
 * only. */
static int k_moe_gating_topk(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *y = T(11), *ei = T(12);
    int64_t K = INT(2), kg = INT(3), G = INT(4), mode = INT(5), E = x->nd == 2 ? x->dims[1] : 0, gs;
    double *norm, *sel, *score;
    char *taken, *gtaken;
    if (x->nd != 2 || INT(6) != 0 || (INT(7) != 0 && INT(7) != 1) || (mode != 0 && mode != 1))
        return npu__fail(err, n, "x not 2-D, renorm, normType or groupSelectMode out of range");
    if (G < 1 || E % G || kg < 1 || kg > G || K < 1 || K > E / G * kg)
        return npu__fail(err, n, "k, kGroup or groupCount out of range");
    {
        int64_t yw[2] = {x->dims[0], K}, ow[2] = {x->dims[0], E};
        if (!npu__dims_are(y, 2, yw) || !npu__dims_are(ei, 2, yw) || (HAS(1) && !npu__cols_fit(T(1), E)) ||
            (HAS(13) && !npu__dims_are(T(13), 2, ow)))
            return npu__fail(err, n, "bias, y, expertIdx or out of unexpected shapes");
    }
    gs = E / G;
    norm = malloc((size_t)E * sizeof *norm);
    sel = malloc((size_t)E * sizeof *sel);
    score = malloc((size_t)G * sizeof *score);
    taken = malloc((size_t)E);
    gtaken = malloc((size_t)G);
    if (!norm || !sel || !score || !taken || !gtaken) {
        free(norm), free(sel), free(score), free(taken), free(gtaken);
        return npu__fail(err, n, "out of memory");
    }
    for (int64_t t = 0; t < x->dims[0]; t++) {
        float mx = -INFINITY, sum = 0, ysum = 0;
        int64_t idx[2] = {t, 0};
        for (idx[1] = 0; idx[1] < E; idx[1]++) {
            float v = (float)npu__get(x, idx);
            mx = v > mx ? v : mx;
        }
        for (idx[1] = 0; idx[1] < E; idx[1]++) {
            float v = (float)npu__get(x, idx);
            norm[idx[1]] = INT(7) ? 1.0f / (1.0f + expf(-v)) : expf(v - mx);
            sum += (float)norm[idx[1]];
        }
        for (int64_t e = 0; e < E; e++) {
            if (!INT(7))
                norm[e] = (float)norm[e] / sum;
            sel[e] = (float)(norm[e] + (HAS(1) ? (float)npu__gc(T(1), 0, e) : 0.0f));
            taken[e] = 0;
        }
        if (G > 1) {
            for (int64_t g = 0; g < G; g++) {
                double a = -INFINITY, b2 = -INFINITY;
                for (int64_t e = g * gs; e < (g + 1) * gs; e++) {
                    if (sel[e] > a) {
                        b2 = a;
                        a = sel[e];
                    } else if (sel[e] > b2) {
                        b2 = sel[e];
                    }
                }
                score[g] = mode == 0 ? a : (float)(a + (gs > 1 ? b2 : 0));
                gtaken[g] = 0;
            }
            for (int64_t c = 0; c < kg; c++)
                npu__take_max(score, gtaken, G);
            for (int64_t e = 0; e < E; e++)
                taken[e] = !gtaken[e / gs];   /* outside the chosen groups */
        }
        for (int64_t c = 0; c < K; c++) {
            int64_t e = npu__take_max(sel, taken, E), yi[2] = {t, c};
            sim_wr(ei, yi, (R)e);
            ysum += (float)norm[e];
        }
        for (int64_t c = 0; c < K; c++) {
            int64_t yi[2] = {t, c}, e = (int64_t)npu__get(ei, yi);
            float w = (float)norm[e];
            if (INT(7))
                w = w / (float)(ysum + DBL(10));
            sim_wr(y, yi, (float)(w * DBL(9)));
        }
        for (idx[1] = 0; HAS(13) && idx[1] < E; idx[1]++)
            sim_wr(T(13), idx, norm[idx[1]]);
    }
    free(norm), free(sel), free(score), free(taken), free(gtaken);
    return 0;
}

/* ---- quantised matmul ---- */

/* A quantisation scale as a float: an int64 one holds the float32's bits
 * in its low 32 (npu_trans_quant_param's packing). */
static double npu__scale(const SimTensor *t, int64_t c)
{
    R v = npu__gc(t, 0, c);
    if (t->dt == ACL_INT64) {
        uint32_t u = (uint32_t)((uint64_t)(int64_t)v & 0xffffffffu);
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    return (double)v;
}

/* round half to even, saturated to int8 */
static double npu__int8(double v)
{
    v = nearbyint(v);
    return v < -128 ? -128 : v > 127 ? 127 : v;
}

/* Whether t broadcasts to out's dims but its last two (right-aligned,
 * each dim equal or 1; t's last two dims are the caller's). */
static int npu__batch_fits(const SimTensor *t, const SimTensor *out)
{
    if (t->nd > out->nd)
        return 0;
    for (int d = 0; d < t->nd - 2; d++) {
        int64_t od = out->dims[d + out->nd - t->nd];
        if (t->dims[d] != od && t->dims[d] != 1)
            return 0;
    }
    return 1;
}

/* Rows [rows][K] of one batch (its index in oi[0..nd-2)) of an int8
 * operand packed as int16: element (r, kk) is t's (r, kk), or (kk, r)
 * when swap. */
static void npu__pack(const SimTensor *t, const int64_t *oi, int nd, int swap, int64_t rows, int64_t K, int16_t *p)
{
    int64_t i[SIM_MAX_DIMS];
    memcpy(i, oi, sizeof i);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t kk = 0; kk < K; kk++) {
            i[nd - 2] = swap ? kk : r;
            i[nd - 1] = swap ? r : kk;
            p[r * K + kk] = (int16_t)sim_rd(t, i, nd);
        }
}

static int32_t npu__dot(const int16_t *a, const int16_t *b, int64_t K)
{
    int32_t s = 0;
    for (int64_t i = 0; i < K; i++)
        s += (int32_t)a[i] * b[i];
    return s;
}

/* One quantised matmul result: acc (the int32 accumulation) at index oi
 * of the output, column c, dequantised or requantised. */
static void npu__quant_out(const SimOp *op, const int64_t *oi, int64_t c, int64_t acc)
{
    const SimTensor *o = T(8), *bias = HAS(5) ? T(5) : NULL;
    int nd = o->nd;
    double y;
    if (bias && bias->dt == ACL_INT32)
        acc += (int64_t)sim_rd(bias, oi, nd);
    if (o->dt == ACL_INT32) {
        sim_wr(o, oi, (R)acc);
        return;
    }
    y = (double)acc * npu__scale(T(2), c);
    if (o->dt == ACL_INT8) {
        if (HAS(3))
            y += (double)npu__gc(T(3), 0, c);
        sim_wr(o, oi, npu__int8(y));
        return;
    }
    if (HAS(4))
        y *= (double)sim_rd(T(4), oi, nd - 1);   /* pertokenScale: x1's dims but the last */
    if (bias && bias->dt != ACL_INT32)
        y += (double)sim_rd(bias, oi, nd);
    sim_wr(o, oi, y);
}

/* aclnnQuantMatmulV4(x1, x2, scale, offset, pertokenScaleOptional, bias,
 * transposeX1, transposeX2, out): int8 x1 [.., m, k] @ x2 [.., k, n]
 * (batch dims broadcast; transposed: [.., k, m], [.., n, k]) accumulated
 * in int32; an int32 bias ([n], or batched: [.., 1, n]) is added to the
 * accumulator; out int8:
 * round(acc * scale[n] + offset[n]) saturated; int32: the accumulator;
 * float16/bfloat16: acc * scale[n] (* pertokenScale[m]) (+ a float bias). */
static int k_quant_matmul(const SimOp *op, char *err, size_t n)
{
    const SimTensor *a = T(0), *b = T(1), *o = T(8);
    int nd = o->nd, ta = INT(6) != 0, tb = INT(7) != 0;
    int64_t K, M, N, oi[SIM_MAX_DIMS] = {0};
    int16_t *pa, *pb;
    if (nd < 2 || a->nd < 2 || b->nd < 2)
        return npu__fail(err, n, "operands of fewer than 2 dims");
    K = a->dims[a->nd - (ta ? 2 : 1)];
    M = o->dims[nd - 2];
    N = o->dims[nd - 1];
    if (b->dims[b->nd - (tb ? 1 : 2)] != K)
        return npu__fail(err, n, "x1's and x2's k differ");
    if (a->dims[a->nd - (ta ? 1 : 2)] != M || b->dims[b->nd - (tb ? 2 : 1)] != N || !npu__batch_fits(a, o) ||
        !npu__batch_fits(b, o) || (HAS(5) && !npu__batch_fits(T(5), o)) || (HAS(4) && sim_numel(T(4)) < M) ||
        !npu__cols_fit(T(2), N) || (HAS(3) && !npu__cols_fit(T(3), N)))
        return npu__fail(err, n, "x1, x2, scales, bias or out of unexpected shapes");
    if (sim_numel(o) == 0)
        return 0;
    pa = malloc((size_t)(M * K ? M * K : 1) * sizeof *pa);
    pb = malloc((size_t)(N * K ? N * K : 1) * sizeof *pb);
    if (!pa || !pb) {
        free(pa), free(pb);
        return npu__fail(err, n, "out of memory");
    }
    do {   /* each batch: x2 packed as [n][k]; 32 rows of x1 a pass over it */
        npu__pack(a, oi, nd, ta, M, K, pa);
        npu__pack(b, oi, nd, !tb, N, K, pb);
        for (int64_t m0 = 0; m0 < M; m0 += 32)
            for (int64_t c = 0; c < N; c++)
                for (int64_t m = m0; m < M && m < m0 + 32; m++) {
                    oi[nd - 2] = m;
                    oi[nd - 1] = c;
                    npu__quant_out(op, oi, c, npu__dot(pa + m * K, pb + c * K, K));
                }
        oi[nd - 2] = oi[nd - 1] = 0;
    } while (nd > 2 && sim_next(oi, o->dims, nd - 2));
    free(pa), free(pb);
    return 0;
}

/* ---- dequantisation, SwiGLU, quantisation ---- */

/* aclnnDequantSwigluQuant(x, weightScaleOptional, activationScaleOptional,
 * biasOptional, quantScaleOptional, quantOffsetOptional,
 * groupIndexOptional, activateLeft, quantModeOptional, yOut, scaleOut):
 * per row of x [.., 2H]: int32 x dequantised (an int32 bias added first,
 * then times weightScale per column and activationScale per row, then a
 * float bias added), float x plus its bias; in float32 the halves A | B
 * give A * silu(B) (silu(A) * B with activateLeft), times quantScale per
 * column; "static": plus quantOffset, rounded and saturated to int8, scale
 * 1; "dynamic": scale = max|y| / 127 per row, y / scale rounded.
 * groupIndex (counts) gives row r the group g whose row of weightScale,
 * quantScale and quantOffset it uses. */
static int k_dequant_swiglu_quant(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *y = T(9), *sc = T(10), *bias = HAS(3) ? T(3) : NULL;
    int64_t C = x->nd ? x->dims[x->nd - 1] : 0, H = C / 2, rows = C ? sim_numel(x) / C : 0, g = 0, end;
    int dyn = !strcmp(op->a[8].str, "dynamic"), isint = x->dt == ACL_INT32;
    float *v;
    if (x->nd < 1 || C % 2)
        return npu__fail(err, n, "x's last dim is not even");
    {
        int64_t G = HAS(6) ? sim_numel(T(6)) : 1;
        if (G < 1 || y->nd != x->nd || (y->nd && y->dims[y->nd - 1] != H) || sim_numel(y) != rows * H ||
            sim_numel(sc) != rows || (HAS(1) && !npu__table_fits(T(1), G, C)) ||
            (HAS(2) && sim_numel(T(2)) < rows) || (bias && !npu__cols_fit(bias, C)) ||
            (HAS(4) && !npu__table_fits(T(4), G, H)) || (HAS(5) && !npu__table_fits(T(5), G, H)))
            return npu__fail(err, n, "x, its scales, bias, y or scale of unexpected shapes");
    }
    if (!(v = malloc((size_t)(C ? C : 1) * sizeof *v)))
        return npu__fail(err, n, "out of memory");
    end = HAS(6) ? (int64_t)npu__flat(T(6), 0) : rows;
    for (int64_t r = 0; r < rows; r++) {
        int64_t idx[SIM_MAX_DIMS];
        float mx = 0, scale = 1;
        while (HAS(6) && r >= end && g + 1 < sim_numel(T(6)))
            end += (int64_t)npu__flat(T(6), ++g);
        for (int64_t c = 0; c < C; c++) {
            double a;
            npu__row_idx(x, r, c, idx);
            a = (double)npu__get(x, idx);
            if (isint) {
                if (bias && bias->dt == ACL_INT32)
                    a += (double)npu__gc(bias, 0, c);
                if (HAS(1))
                    a *= (double)npu__gc(T(1), g, c);
                if (HAS(2))
                    a *= (double)npu__flat(T(2), r);
                if (bias && bias->dt != ACL_INT32)
                    a += (double)npu__gc(bias, 0, c);
                v[c] = (float)a;
            } else {
                v[c] = (float)a + (bias ? (float)npu__gc(bias, 0, c) : 0.0f);
            }
        }
        for (int64_t j = 0; j < H; j++) {
            float l = v[j], rt = v[H + j], w;
            w = op->a[7].i ? l / (1.0f + expf(-l)) * rt : l * (rt / (1.0f + expf(-rt)));
            if (HAS(4))
                w *= (float)npu__gc(T(4), g, j);
            if (!dyn && HAS(5))
                w += (float)npu__gc(T(5), g, j);
            v[j] = w;
            mx = fabsf(w) > mx ? fabsf(w) : mx;
        }
        if (dyn) {
            mx = mx > 1e-12f ? mx : 1e-12f;
            scale = mx / 127.0f;
        }
        for (int64_t j = 0; j < H; j++) {
            npu__row_idx(y, r, j, idx);
            sim_wr(y, idx, npu__int8(dyn ? (double)(v[j] * (127.0f / mx)) : (double)v[j]));
        }
        {
            int64_t si[SIM_MAX_DIMS], rr = r;   /* scaleOut: x's dims but the last */
            for (int d = sc->nd - 1; d >= 0; d--) {
                si[d] = rr % sc->dims[d];
                rr /= sc->dims[d];
            }
            sim_wr(sc, si, scale);
        }
    }
    free(v);
    return 0;
}

/* aclnnWeightQuantBatchMatmulV2(x, weight, antiquantScale,
 * antiquantOffsetOptional, quantScaleOptional, quantOffsetOptional,
 * biasOptional, antiquantGroupSize, y), without output quantisation:
 * y [m, n] = x [m, k] @ ((weight [k, n] + antiquantOffset) *
 * antiquantScale) + bias, in x's dtype. The scale and offset hold one
 * value ([1]), one per column ([n], [1, n]), or with a group size g > 0
 * one per column and group of g rows of the weight ([ceil(k / g), n]). */
static int k_weight_quant_matmul(const SimOp *op, char *err, size_t n)
{
    const SimTensor *x = T(0), *w = T(1), *sc = T(2), *o = T(8);
    const SimTensor *off = HAS(3) ? T(3) : NULL, *bias = HAS(6) ? T(6) : NULL;
    int64_t g = INT(7), K, M, N, groups;
    if (HAS(4) || HAS(5))
        return npu__fail(err, n, "quantScaleOptional or quantOffsetOptional given: output quantisation is "
                                 "not modelled");
    if (x->nd != 2 || w->nd != 2 || o->nd != 2 || w->dt != ACL_INT8 || o->dt != x->dt)
        return npu__fail(err, n, "x [m, k], an int8 weight [k, n] and y [m, n] of x's dtype expected");
    M = x->dims[0], K = x->dims[1], N = w->dims[1];
    groups = g > 0 ? (K + g - 1) / g : 1;
    if (g < 0 || w->dims[0] != K || o->dims[0] != M || o->dims[1] != N || !npu__table_fits(sc, groups, N) ||
        (off && !npu__table_fits(off, groups, N)) || (bias && sim_numel(bias) != N))
        return npu__fail(err, n, "x, weight, antiquant scale or offset, bias or y of unexpected shapes");
    for (int64_t r = 0; r < M; r++)
        for (int64_t c = 0; c < N; c++) {
            R acc = 0;
            for (int64_t kk = 0; kk < K; kk++) {
                int64_t xi[2] = {r, kk}, wi[2] = {kk, c}, gi = g > 0 ? kk / g : 0;
                R wv = sim_rd(w, wi, 2);
                if (off)
                    wv += npu__gc(off, gi, c);
                acc += sim_rd(x, xi, 2) * wv * npu__gc(sc, gi, c);
            }
            if (bias)
                acc += npu__flat(bias, c);
            int64_t oi[2] = {r, c};
            sim_wr(o, oi, acc);
        }
    return 0;
}

/* ---- the table ---- */

static const struct { const char *name; SimKernel k; } npu_kernels[] = {
    {"aclnnFusedInferAttentionScore", k_fused_attention}, {"aclnnMoeGatingTopK", k_moe_gating_topk},
    {"aclnnQuantMatmulV4", k_quant_matmul}, {"aclnnDequantSwigluQuant", k_dequant_swiglu_quant},
    {"aclnnWeightQuantBatchMatmulV2", k_weight_quant_matmul},
};

SimKernel sim_npu_kernel(const char *name)
{
    for (size_t i = 0; i < sizeof npu_kernels / sizeof *npu_kernels; i++)
        if (!strcmp(npu_kernels[i].name, name))
            return npu_kernels[i].k;
    return NULL;
}
