/*
 * kernels_attn.c - scaled dot product attention (tngrt_kernel_sdpa) over
 * tiles: for each (batch, head) and each block of TNGRT_ATTN_BQ queries,
 * the keys and values are read TNGRT_ATTN_BK at a time (widened to float32
 * once per tile, keys transposed so that a score row is one vector loop
 * over the tile's keys), and every query row keeps a running maximum, a
 * running sum of exponentials and float32 accumulators of the values,
 * rescaled when the maximum grows (the online softmax): no [L, S] block
 * of scores is materialised, whatever S is. Under is_causal the key tiles
 * wholly past a block's last query are not read. Every score, exponential
 * and sum is float32 and the output is rounded once to out's dtype.
 *
 * The (batch, head) matrices are split over the run's threads
 * (runtime/par.c) in contiguous runs, each with its own scratch; a matrix
 * is computed by the same code whichever thread runs it, so the bits do
 * not depend on the threads. The tile body is cloned per instruction set
 * (kernels_isa.h). Operands of another dtype (double, integers), or
 * scratch that cannot be had: the direct loops of tngrt_impl_sdpa.
 */
#include "tngrt_kernel_impl.h"

#include "internal.h"
#include "kernels_isa.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Queries per block and keys per tile. */
#define TNGRT_ATTN_BQ 16
#define TNGRT_ATTN_BK 64

typedef struct TngrtAttnJob {
    const TngrtArg *out, *q, *k, *v, *mask;
    int causal;
    float scale;
    int64_t L, S, E, Ev, batch, per_task;
    int64_t kst[TNGRT_MAX_DIMS], vst[TNGRT_MAX_DIMS], mst[TNGRT_MAX_DIMS];
    int nd;
    float *scratch;   /* per task: tngrt_attn__scratch_floats */
    int64_t scratch_floats;
} TngrtAttnJob;

/* Floats of one task's scratch: the query block, the transposed key tile,
 * the value tile, one score row, the accumulators, the maxima and sums,
 * and a row of a key or of the output. */
static int64_t tngrt_attn__scratch_floats(int64_t E, int64_t Ev)
{
    return TNGRT_ATTN_BQ * E + E * TNGRT_ATTN_BK + TNGRT_ATTN_BK * Ev + TNGRT_ATTN_BK +
           TNGRT_ATTN_BQ * Ev + 2 * TNGRT_ATTN_BQ + (E > Ev ? E : Ev);
}

/* n elements of float a from element off widened into t. */
TNGRT_KINLINE void tngrt_attn__load(float *t, const TngrtArg *a, int64_t off, int64_t n)
{
    if (a->dtype == TNGRT_F32)
        memcpy(t, (const float *)a->data + off, (size_t)n * sizeof(float));
    else
        tngrt_impl__widen(t, a, off, n);
}

/* The scores of query row qr (E floats) against the key tile kt (E rows
 * of TNGRT_ATTN_BK, keys k0.. of which nk are real) into s, scaled and
 * masked (-inf: masked); returns their maximum (NaN if any is NaN). */
TNGRT_KINLINE float tngrt_attn__scores(const TngrtAttnJob *j, const float *qr, const float *kt,
                                       int64_t nk, int64_t l, int64_t k0, int64_t mrow, float *s)
{
    float mx = -INFINITY, t[TNGRT_ATTN_BK];   /* t: the sums, in registers */
    for (int64_t c = 0; c < TNGRT_ATTN_BK; c++)
        t[c] = 0.0f;
    for (int64_t e = 0; e < j->E; e++) {
        const float x = qr[e], *kr = kt + e * TNGRT_ATTN_BK;
        for (int64_t c = 0; c < TNGRT_ATTN_BK; c++)
            t[c] += x * kr[c];
    }
    memcpy(s, t, sizeof t);
    for (int64_t c = 0; c < nk; c++) {
        int64_t key = k0 + c, mi = mrow + key * (j->mask ? j->mst[j->nd - 1] : 0);
        float y = s[c] * j->scale;
        if ((j->causal && key > l) ||
            (j->mask && j->mask->dtype == TNGRT_BOOL && !((const uint8_t *)j->mask->data)[mi]))
            y = -INFINITY;
        else if (j->mask && j->mask->dtype != TNGRT_BOOL)
            y += tngrt_impl__ldf(j->mask, mi);
        s[c] = y;
        if (y > mx || y != y)
            mx = y;
    }
    return mx;
}

/* Query block [q0, q0 + nq) of matrix b (key, value and mask offsets ko,
 * vo, mo) through every key tile it sees, written to out. */
TNGRT_KINLINE void tngrt_attn__block(const TngrtAttnJob *j, int64_t b, int64_t q0, int64_t nq,
                                     int64_t ko, int64_t vo, int64_t mo, float *scr)
{
    const int64_t E = j->E, Ev = j->Ev;
    float *qt = scr, *kt = qt + TNGRT_ATTN_BQ * E, *vt = kt + E * TNGRT_ATTN_BK;
    float *s = vt + TNGRT_ATTN_BK * Ev, *acc = s + TNGRT_ATTN_BK, *mx = acc + TNGRT_ATTN_BQ * Ev;
    float *sum = mx + TNGRT_ATTN_BQ, *row = sum + TNGRT_ATTN_BQ;
    int64_t kend = j->causal ? (q0 + nq < j->S ? q0 + nq : j->S) : j->S;
    tngrt_attn__load(qt, j->q, (b * j->L + q0) * E, nq * E);
    for (int64_t i = 0; i < nq; i++) {
        mx[i] = -INFINITY;
        sum[i] = 0.0f;
    }
    memset(acc, 0, (size_t)(nq * Ev) * sizeof(float));
    for (int64_t k0 = 0; k0 < kend; k0 += TNGRT_ATTN_BK) {
        int64_t nk = kend - k0 < TNGRT_ATTN_BK ? kend - k0 : TNGRT_ATTN_BK;
        memset(kt, 0, (size_t)(E * TNGRT_ATTN_BK) * sizeof(float));
        for (int64_t c = 0; c < nk; c++) {   /* key c of the tile: column c of kt */
            tngrt_attn__load(row, j->k, ko + (k0 + c) * E, E);
            for (int64_t e = 0; e < E; e++)
                kt[e * TNGRT_ATTN_BK + c] = row[e];
        }
        tngrt_attn__load(vt, j->v, vo + k0 * Ev, nk * Ev);
        for (int64_t i = 0; i < nq; i++) {
            int64_t l = q0 + i, mrow = j->mask ? mo + l * j->mst[j->nd - 2] : 0;
            float tm = tngrt_attn__scores(j, qt + i * E, kt, nk, l, k0, mrow, s), nm, f, t = 0.0f;
            float *ar = acc + i * Ev;
            if (tm == -INFINITY)   /* every key of the tile masked: nothing to add */
                continue;
            nm = tm != tm || mx[i] != mx[i] ? NAN : tm > mx[i] ? tm : mx[i];
            f = mx[i] == -INFINITY ? 0.0f : tngrt_impl__exp(mx[i] - nm);
            for (int64_t c = 0; c < nk; c++) {
                s[c] = s[c] == -INFINITY ? 0.0f : tngrt_impl__exp(s[c] - nm);
                t += s[c];
            }
            sum[i] = sum[i] * f + t;
            for (int64_t c = 0; c < Ev; c++)
                ar[c] *= f;
            for (int64_t c = 0; c < nk; c++) {
                const float p = s[c], *vr = vt + c * Ev;
                for (int64_t d = 0; d < Ev; d++)
                    ar[d] += p * vr[d];
            }
            mx[i] = nm;
        }
    }
    for (int64_t i = 0; i < nq; i++) {   /* no key left: 0 / 0, NaN as PyTorch's softmax gives */
        float r = 1.0f / sum[i], *ar = acc + i * Ev;
        int64_t oo = (b * j->L + q0 + i) * Ev;
        for (int64_t c = 0; c < Ev; c++)
            row[c] = sum[i] > 0.0f ? ar[c] * r : NAN;
        if (j->out->dtype == TNGRT_F32)
            memcpy((float *)j->out->data + oo, row, (size_t)Ev * sizeof(float));
        else
            tngrt_impl__narrow(j->out, oo, row, Ev);
    }
}

/* Matrix b of the job: every query block. */
TNGRT_ISA_KERNEL(void, tngrt_attn__matrix, (const TngrtAttnJob *j, int64_t b, float *scr),
    int64_t rem = b, ko = 0, vo = 0, mo = 0;
    for (int i = j->nd - 3; i >= 0; i--) {
        int64_t ii = rem % j->q->shape[i];
        rem /= j->q->shape[i];
        ko += ii * j->kst[i];
        vo += ii * j->vst[i];
        mo += j->mask ? ii * j->mst[i] : 0;
    }
    for (int64_t q0 = 0; q0 < j->L; q0 += TNGRT_ATTN_BQ)
        tngrt_attn__block(j, b, q0, j->L - q0 < TNGRT_ATTN_BQ ? j->L - q0 : TNGRT_ATTN_BQ, ko, vo,
                          mo, scr);)

/* Task t: matrices [t * per_task, ..) with scratch t. */
static void tngrt_attn__task(void *ctx, int t)
{
    const TngrtAttnJob *j = ctx;
    int64_t b0 = (int64_t)t * j->per_task;
    int64_t b1 = b0 + j->per_task < j->batch ? b0 + j->per_task : j->batch;
    for (int64_t b = b0; b < b1; b++)
        tngrt_attn__matrix(j, b, j->scratch + (int64_t)t * j->scratch_floats);
}

/* Whether the tiled kernel takes these operands. */
static int tngrt_attn__takes(const TngrtArg *out, const TngrtArg *q, const TngrtArg *k,
                             const TngrtArg *v, const TngrtArg *mask)
{
    return tngrt_impl__rank_ok(q) && q->ndim >= 2 && k->ndim >= 2 && v->ndim >= 2 &&
           k->ndim <= q->ndim && v->ndim <= q->ndim && (!mask || tngrt_impl__rank_ok(mask)) &&
           tngrt_impl__is_float(out->dtype) && tngrt_impl__is_float(q->dtype) &&
           tngrt_impl__is_float(k->dtype) && tngrt_impl__is_float(v->dtype) &&
           (!mask || mask->dtype == TNGRT_BOOL || tngrt_impl__is_float(mask->dtype));
}

/* The tiled attention; -1 (nothing written) where it does not apply. */
static int tngrt_attn__run(const TngrtArg *out, const TngrtArg *q, const TngrtArg *k,
                           const TngrtArg *v, const TngrtArg *mask, int is_causal, int has_scale,
                           double scale)
{
    TngrtAttnJob j;
    TngrtPar *p = tngrt__par_current();
    int64_t th = tngrt__par_threads(p), ntasks;
    if (!tngrt_attn__takes(out, q, k, v, mask))
        return -1;
    memset(&j, 0, sizeof j);
    j.out = out, j.q = q, j.k = k, j.v = v, j.mask = mask, j.causal = is_causal;
    j.nd = q->ndim;
    j.L = q->shape[j.nd - 2], j.E = q->shape[j.nd - 1];
    j.S = k->shape[k->ndim - 2], j.Ev = v->shape[v->ndim - 1];
    j.batch = tngrt_impl__numel(j.nd - 2, q->shape);
    j.scale = has_scale ? (float)scale : (float)(1.0 / sqrt((double)j.E));
    if (j.L <= 0 || j.S <= 0 || j.E <= 0 || j.Ev <= 0 || j.batch <= 0 || j.E > (1 << 20) ||
        j.Ev > (1 << 20))
        return -1;
    tngrt_impl__bcast_strides(k, j.nd, j.kst);
    tngrt_impl__bcast_strides(v, j.nd, j.vst);
    if (mask)
        tngrt_impl__bcast_strides(mask, j.nd, j.mst);
    ntasks = th > 1 && 2.0 * (double)j.batch * (double)j.L * (double)j.S * (double)(j.E + j.Ev) >=
                           TNGRT_GEMM_PAR_FLOP
                 ? (j.batch < th ? j.batch : th)
                 : 1;
    j.per_task = (j.batch + ntasks - 1) / ntasks;
    ntasks = (j.batch + j.per_task - 1) / j.per_task;
    j.scratch_floats = tngrt_attn__scratch_floats(j.E, j.Ev);
    if (!(j.scratch = (float *)tngrt_impl__alloc(ntasks * j.scratch_floats, sizeof(float))))
        return -1;
    tngrt__par_for(p, (int)ntasks, tngrt_attn__task, &j);   /* one task: on the caller */
    free(j.scratch);
    return 0;
}

/* kernels_nn.c: tngrt_impl_sdpa's direct loops, one clone per instruction
 * set. */
void tngrt__sdpa_direct(const TngrtArg *out, const TngrtArg *q, const TngrtArg *k,
                        const TngrtArg *v, const TngrtArg *mask, int is_causal, int has_scale,
                        double scale);

void tngrt_kernel_sdpa(const TngrtArg *out, const TngrtArg *q, const TngrtArg *k,
                       const TngrtArg *v, const TngrtArg *mask, int is_causal, int has_scale,
                       double scale)
{
    if (tngrt_attn__run(out, q, k, v, mask, is_causal, has_scale, scale) != 0)
        tngrt__sdpa_direct(out, q, k, v, mask, is_causal, has_scale, scale);
}
