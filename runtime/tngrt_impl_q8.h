/*
 * tngrt_impl_q8.h - the inline body of the weight-only int8 product,
 * torch_npu.npu_weight_quant_batchmatmul (tngrt_kernels.h has its
 * contract), as tests/ref/stubs/torch_npu computes it from torch_npu's
 * documentation. Included by tngrt_kernel_impl.h after its own sections;
 * kernels_q8.c instantiates it per instruction set and splits the columns
 * over threads.
 *
 * The weight is read once per block of up to TNGRT_Q8_ROWS rows of x, row
 * by row of the weight (its int8 values widened to float32 as they are
 * read, never stored dequantised): a decode step's GEMV streams it once.
 * Per column block, each group of k (all of k when there is one scale per
 * column) is summed in float32 as acc[c] += x[k] * w[k][c], in k order
 * (eight rows of the weight per pass over the block's sums),
 * with x[k] * w[k][c] exact in float32 (a float16 or bfloat16 value times
 * an int8 has at most 19 significant bits); at the group's end the column
 * gets scale * (acc + offset * sum of the group's x), so that (w + offset)
 * * scale is applied once per column and group, not once per weight. Every
 * step is a float32 operation in a fixed order (the multiply-adds FMAs
 * where the clone has them, which round as the add after the exact product
 * does): every instruction set gives the same bits. A group whose sum of
 * x is not finite (an infinity or NaN in x) takes the definition itself
 * per column (tngrt_impl__q8_direct), as folding the offset would turn
 * +-inf into NaN there.
 *
 * A weight packed at load (tngrt_q8_pack_rows: column panels of
 * TNGRT_Q8_PANEL, each [k][TNGRT_Q8_PANEL] contiguous, the last padded with
 * zeros) is read panel after panel, each once per block of rows and run of
 * k: one sequential stream, where [k, n] strides across k's rows. Its loop
 * makes the same float32 operations on each column in the same order (the
 * sums start at 0 and add x[k] * w[k][c] in k order, the same fold per
 * group), so packed and unpacked give the same bits.
 */
#ifndef TNGRT_IMPL_Q8_H
#define TNGRT_IMPL_Q8_H

/* Rows of x per pass over the weight, and columns per block (the two
 * float32 accumulators of a block: 2 * 4 * 2048 * 4 bytes on the stack). */
#define TNGRT_Q8_ROWS 4
#define TNGRT_Q8_COLS 2048
/* Columns per panel of a packed weight (one cache line of int8), and the
 * values of k whose x a packed block widens to float32 at a time. */
#define TNGRT_Q8_PANEL 64
#define TNGRT_Q8_KC 2048

/* The operands of one product, checked (tngrt_impl__q8_init). */
typedef struct TngrtImplQ8 {
    const uint16_t *x;    /* [m, k], float16 or bfloat16 */
    const int8_t *w;      /* [k, n] */
    const int8_t *wp;     /* w packed in panels (tngrt_q8_pack_rows), or NULL */
    const TngrtArg *scale, *offset, *bias;
    uint16_t *out;        /* [m, n], x's dtype */
    int bf16;             /* x and out are bfloat16 */
    int64_t m, k, n;
    int64_t group;        /* rows of w per group (k: one group) */
    int s_cols, o_cols;   /* scale / offset: one per column (1) or one in all (0) */
} TngrtImplQ8;

/* x[r][kk] as float32. */
TNGRT_KINLINE float tngrt_impl__q8_x(const TngrtImplQ8 *q, int64_t r, int64_t kk)
{
    uint16_t h = q->x[r * q->k + kk];
    return q->bf16 ? tngrt_impl__bf16_to_f32(h) : tngrt_impl__f16_to_f32(h);
}

/* Columns [c0, c0 + nc) of group g of a scale or offset p with one value
 * per column (cols) or one in all, as float32 into d. */
TNGRT_KINLINE void tngrt_impl__q8_param_row(const TngrtImplQ8 *q, const TngrtArg *p, int cols, int64_t g,
                                            int64_t c0, int nc, float *d)
{
    if (!cols) {
        float v = tngrt_impl__ldf(p, 0);
        for (int c = 0; c < nc; c++)
            d[c] = v;
    } else if (tngrt_impl__is_half(p->dtype)) {
        tngrt_impl__widen(d, p, g * q->n + c0, nc);
    } else {
        for (int c = 0; c < nc; c++)
            d[c] = tngrt_impl__ldf(p, g * q->n + c0 + c);
    }
}

/* Multiply-adds as FMAs where the target has them: x * w is exact in
 * float32 (see the top), so an FMA rounds acc + x * w exactly as the add
 * after the multiply does, and the clones with and without FMA agree bit
 * for bit. */
#if defined(__clang__)
#define TNGRT_Q8__CONTRACT _Pragma("clang fp contract(fast)")
#else
#define TNGRT_Q8__CONTRACT
#endif

/* a[c] += x[0] * w[0][c] + ... + x[7] * w[7][c], added left to right (k
 * order), for c < nc; row j of the weight at w0 + j * ld. */
TNGRT_KINLINE void tngrt_impl__q8_axpy8(float *restrict a, const int8_t *restrict w0, int64_t ld,
                                        const float *x, int nc)
{
    TNGRT_Q8__CONTRACT
    const int8_t *restrict w1 = w0 + ld, *restrict w2 = w1 + ld, *restrict w3 = w2 + ld;
    const int8_t *restrict w4 = w3 + ld, *restrict w5 = w4 + ld, *restrict w6 = w5 + ld;
    const int8_t *restrict w7 = w6 + ld;
    float x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], x6 = x[6], x7 = x[7];
    for (int c = 0; c < nc; c++)
        a[c] = a[c] + x0 * (float)w0[c] + x1 * (float)w1[c] + x2 * (float)w2[c] + x3 * (float)w3[c] +
               x4 * (float)w4[c] + x5 * (float)w5[c] + x6 * (float)w6[c] + x7 * (float)w7[c];
}

/* a[c] += x0 * w0[c] for c < nc. */
TNGRT_KINLINE void tngrt_impl__q8_axpy1(float *restrict a, const int8_t *restrict w0, float x0, int nc)
{
    TNGRT_Q8__CONTRACT
    for (int c = 0; c < nc; c++)
        a[c] = a[c] + x0 * (float)w0[c];
}

/* The sums of group [k0, k1) of rows [r0, r0 + nr) over columns [c0, c0 +
 * nc) into acc[r * TNGRT_Q8_COLS + c], and of x into sx[r]; eight rows of
 * the weight per pass over acc, added in k order. */
TNGRT_KINLINE void tngrt_impl__q8_group(const TngrtImplQ8 *q, int64_t r0, int nr, int64_t c0, int nc,
                                        int64_t k0, int64_t k1, float *acc, float *sx)
{
    for (int r = 0; r < nr; r++) {
        float *a = acc + (size_t)r * TNGRT_Q8_COLS, xs[8];
        float s = 0.0f;
        for (int c = 0; c < nc; c++)
            a[c] = 0.0f;
        int64_t kk = k0;
        for (; kk + 8 <= k1; kk += 8) {
            for (int j = 0; j < 8; j++) {
                xs[j] = tngrt_impl__q8_x(q, r0 + r, kk + j);
                s = s + xs[j];
            }
            tngrt_impl__q8_axpy8(a, q->w + kk * q->n + c0, q->n, xs, nc);
        }
        for (; kk < k1; kk++) {
            float x0 = tngrt_impl__q8_x(q, r0 + r, kk);
            s = s + x0;
            tngrt_impl__q8_axpy1(a, q->w + kk * q->n + c0, x0, nc);
        }
        sx[r] = s;
    }
}

/* w[kk][c], from the packing when there is one. */
TNGRT_KINLINE float tngrt_impl__q8_w(const TngrtImplQ8 *q, int64_t kk, int64_t c)
{
    if (!q->wp)
        return (float)q->w[kk * q->n + c];
    return (float)q->wp[(c / TNGRT_Q8_PANEL) * q->k * TNGRT_Q8_PANEL + kk * TNGRT_Q8_PANEL +
                        c % TNGRT_Q8_PANEL];
}

/* Row r's group [k0, k1) over columns [c0, c0 + nc) by the definition,
 * x[k] * ((w[k][c] + offset) * scale) added in k order, into t: the path of
 * a group whose sum of x is not finite (an infinity or NaN in x, or a
 * bfloat16 sum past float32's range). There the folded offset term
 * (offset * sum of x) is not the definition's value: 0 * inf is NaN where
 * a column's dequantised weights give +-inf. */
TNGRT_KINLINE void tngrt_impl__q8_direct(const TngrtImplQ8 *q, int64_t r, int64_t c0, int nc, int64_t k0,
                                         int64_t k1, const float *sc, const float *oc, float *t)
{
    for (int c = 0; c < nc; c++) {
        float s = 0.0f;
        for (int64_t kk = k0; kk < k1; kk++)
            s = s + tngrt_impl__q8_x(q, r, kk) * ((tngrt_impl__q8_w(q, kk, c0 + c) + oc[c]) * sc[c]);
        t[c] = t[c] + s;
    }
}

/* Folds group g ([k0, k1)) of rows [r0, r0 + nr), columns [c0, c0 + nc)
 * into tot: tot[c] += scale * (acc[c] + offset * sx[r]) for row r (its
 * acc and tot TNGRT_Q8_COLS apart), or the definition's sum
 * (tngrt_impl__q8_direct) where sx[r] is not finite. */
TNGRT_KINLINE void tngrt_impl__q8_fold(const TngrtImplQ8 *q, int64_t r0, int nr, int64_t c0, int nc,
                                       int64_t g, int64_t k0, int64_t k1, const float *acc,
                                       const float *sx, float *tot)
{
    float sc[TNGRT_Q8_COLS], oc[TNGRT_Q8_COLS];
    tngrt_impl__q8_param_row(q, q->scale, q->s_cols, g, c0, nc, sc);
    if (q->offset)
        tngrt_impl__q8_param_row(q, q->offset, q->o_cols, g, c0, nc, oc);
    else
        for (int c = 0; c < nc; c++)
            oc[c] = 0.0f;
    for (int r = 0; r < nr; r++) {
        float *t = tot + (size_t)r * TNGRT_Q8_COLS, x = sx[r];
        const float *a = acc + (size_t)r * TNGRT_Q8_COLS;
        if (!(x - x == 0.0f)) {   /* not finite */
            tngrt_impl__q8_direct(q, r0 + r, c0, nc, k0, k1, sc, oc, t);
            continue;
        }
        for (int c = 0; c < nc; c++)
            t[c] = t[c] + sc[c] * (a[c] + oc[c] * x);
    }
}

/* out[r0 + r][c0 + c] = tot[r * TNGRT_Q8_COLS + c] (+ bias), rounded to
 * out's dtype: the bias read once per block, each row's sums then
 * rounded by a loop of one dtype (which vectorises: the conversions have
 * no branch). */
TNGRT_KINLINE void tngrt_impl__q8_store(const TngrtImplQ8 *q, int64_t r0, int nr, int64_t c0, int nc,
                                        const float *tot)
{
    float bc[TNGRT_Q8_COLS], v[TNGRT_Q8_COLS];
    if (q->bias)
        for (int c = 0; c < nc; c++)
            bc[c] = tngrt_impl__ldf(q->bias, c0 + c);
    for (int r = 0; r < nr; r++) {
        const float *t = tot + (size_t)r * TNGRT_Q8_COLS;
        uint16_t *o = q->out + (r0 + r) * q->n + c0;
        if (q->bias) {
            for (int c = 0; c < nc; c++)
                v[c] = t[c] + bc[c];
            t = v;
        }
        if (q->bf16)
            for (int c = 0; c < nc; c++)
                o[c] = tngrt_impl__f32_to_bf16(t[c]);
        else
            for (int c = 0; c < nc; c++)
                o[c] = tngrt_impl__f32_to_f16(t[c]);
    }
}
/* Rows [r0, r0 + nr), columns [c0, c0 + nc) of the product, the weight
 * [k, n] read in place. */
TNGRT_KINLINE void tngrt_impl__q8_block(const TngrtImplQ8 *q, int64_t r0, int nr, int64_t c0, int nc)
{
    float acc[TNGRT_Q8_ROWS * TNGRT_Q8_COLS], tot[TNGRT_Q8_ROWS * TNGRT_Q8_COLS], sx[TNGRT_Q8_ROWS];
    for (int i = 0; i < nr * TNGRT_Q8_COLS; i++)
        tot[i] = 0.0f;
    for (int64_t k0 = 0, g = 0; k0 < q->k; k0 += q->group, g++) {
        int64_t k1 = q->k - k0 < q->group ? q->k : k0 + q->group;
        tngrt_impl__q8_group(q, r0, nr, c0, nc, k0, k1, acc, sx);
        tngrt_impl__q8_fold(q, r0, nr, c0, nc, g, k0, k1, acc, sx, tot);
    }
    tngrt_impl__q8_store(q, r0, nr, c0, nc, tot);
}

/* ---- the packed weight ---- */

/* Lanes of the packed loop's vectors: GNU vector types of TNGRT_Q8_VL
 * float32 and int8, which every clone lowers to its own registers (16
 * lanes: one zmm, two ymm or four xmm), TNGRT_Q8_PANEL / TNGRT_Q8_VL of
 * them per panel row. */
#ifndef TNGRT_Q8_VL
#define TNGRT_Q8_VL 16
#endif
#define TNGRT_Q8__NV (TNGRT_Q8_PANEL / TNGRT_Q8_VL)
typedef float tngrt_q8__fv __attribute__((vector_size(TNGRT_Q8_VL * 4)));
typedef int8_t tngrt_q8__bv __attribute__((vector_size(TNGRT_Q8_VL)));

/* acc[r * TNGRT_Q8_COLS + c] = a + x_r[0] * w[0][c] + ... + x_r[len-1] *
 * w[len-1][c], added left to right, with a = 0, or with cont acc's value
 * (a group's sums going on), for the NP * TNGRT_Q8_PANEL columns c of NP
 * panels (rows of TNGRT_Q8_PANEL bytes from w, the next panel ld bytes
 * on) and NR rows x_r at x + r * TNGRT_Q8_KC: the sums kept in registers,
 * each panel row widened once for the NR rows. */
TNGRT_KINLINE void tngrt_impl__q8_panel_nr(float *acc, const int8_t *w, int64_t ld, const float *x,
                                           int64_t len, int cont, const int NR, const int NP)
{
    TNGRT_Q8__CONTRACT
    tngrt_q8__fv a[TNGRT_Q8_ROWS][2 * TNGRT_Q8__NV], wv[2 * TNGRT_Q8__NV];
    for (int r = 0; r < NR; r++)
        for (int j = 0; j < NP * TNGRT_Q8__NV; j++)
            a[r][j] = (tngrt_q8__fv){0};
    for (int r = 0; cont && r < NR; r++)
        __builtin_memcpy(a[r], acc + (size_t)r * TNGRT_Q8_COLS, NP * TNGRT_Q8_PANEL * sizeof(float));
    for (int64_t kk = 0; kk < len; kk++) {
        for (int j = 0; j < NP * TNGRT_Q8__NV; j++) {
            tngrt_q8__bv b;
            __builtin_memcpy(&b, w + j / TNGRT_Q8__NV * ld + kk * TNGRT_Q8_PANEL + j % TNGRT_Q8__NV * TNGRT_Q8_VL,
                             sizeof b);
            wv[j] = __builtin_convertvector(b, tngrt_q8__fv);
        }
        for (int r = 0; r < NR; r++) {
            float xv = x[r * TNGRT_Q8_KC + kk];
            for (int j = 0; j < NP * TNGRT_Q8__NV; j++)
                a[r][j] = a[r][j] + xv * wv[j];
        }
    }
    for (int r = 0; r < NR; r++)
        __builtin_memcpy(acc + (size_t)r * TNGRT_Q8_COLS, a[r], NP * TNGRT_Q8_PANEL * sizeof(float));
}

/* tngrt_impl__q8_panel_nr for nr (1 to TNGRT_Q8_ROWS) rows: one row reads
 * two panels side by side (twice the independent sums of one panel, whose
 * four are as many as the FMA's latency covers), more rows one panel. */
TNGRT_KINLINE void tngrt_impl__q8_panel(float *acc, const int8_t *w, int64_t ld, const float *x, int64_t len,
                                        int cont, int nr, int np)
{
    switch (nr) {
    case 1:
        if (np == 2)
            tngrt_impl__q8_panel_nr(acc, w, ld, x, len, cont, 1, 2);
        else
            tngrt_impl__q8_panel_nr(acc, w, ld, x, len, cont, 1, 1);
        break;
    case 2: tngrt_impl__q8_panel_nr(acc, w, ld, x, len, cont, 2, 1); break;
    case 3: tngrt_impl__q8_panel_nr(acc, w, ld, x, len, cont, 3, 1); break;
    default: tngrt_impl__q8_panel_nr(acc, w, ld, x, len, cont, 4, 1); break;
    }
}

/* The end of the run of k that starts at k0 (a group's first row, or
 * where the last run stopped inside a group longer than TNGRT_Q8_KC):
 * whole groups up to TNGRT_Q8_KC rows, or TNGRT_Q8_KC rows of one group. */
TNGRT_KINLINE int64_t tngrt_impl__q8_run_end(const TngrtImplQ8 *q, int64_t k0)
{
    int64_t g = q->group, end;
    if (g <= TNGRT_Q8_KC)
        end = k0 + TNGRT_Q8_KC / g * g;
    else
        end = k0 + TNGRT_Q8_KC < (k0 / g + 1) * g ? k0 + TNGRT_Q8_KC : (k0 / g + 1) * g;
    return end < q->k ? end : q->k;
}

/* Rows [r0, r0 + nr), columns [c0, c0 + nc) of the product from the
 * packing (c0 a multiple of TNGRT_Q8_PANEL). Per run of k (whole groups,
 * or a piece of one): x widened into xf, each group's (or piece's) sum
 * of x into sxg (continuing the previous piece's), then panel after
 * panel, group after group, the column sums and, at a group's end, the
 * fold (one row of x: two panels at a time). Each column sees the
 * operations of tngrt_impl__q8_block in the same order. */
TNGRT_KINLINE void tngrt_impl__q8_block_packed(const TngrtImplQ8 *q, int64_t r0, int nr, int64_t c0,
                                               int nc)
{
    float acc[TNGRT_Q8_ROWS * TNGRT_Q8_COLS], tot[TNGRT_Q8_ROWS * TNGRT_Q8_COLS];
    float xf[TNGRT_Q8_ROWS * TNGRT_Q8_KC], sxg[TNGRT_Q8_ROWS * TNGRT_Q8_KC], sx[TNGRT_Q8_ROWS] = {0};
    const int8_t *wp = q->wp + c0 / TNGRT_Q8_PANEL * q->k * TNGRT_Q8_PANEL;
    int64_t G = q->group;
    for (int i = 0; i < nr * TNGRT_Q8_COLS; i++)
        tot[i] = 0.0f;
    for (int64_t k0 = 0, k1; k0 < q->k; k0 = k1) {
        k1 = tngrt_impl__q8_run_end(q, k0);
        for (int r = 0; r < nr; r++) {
            float s = k0 % G ? sx[r] : 0.0f;
            tngrt_impl__widen_strided(xf + r * TNGRT_Q8_KC, q->x + (r0 + r) * q->k + k0, 1, k1 - k0, !q->bf16);
            for (int64_t kk = k0; kk < k1; kk++) {
                float v = xf[r * TNGRT_Q8_KC + (kk - k0)];
                s = s + v;
                if ((kk + 1) % G == 0 || kk + 1 == k1)
                    sxg[r * TNGRT_Q8_KC + (kk - k0)] = s, s = 0.0f;
            }
            sx[r] = sxg[r * TNGRT_Q8_KC + (k1 - 1 - k0)];
        }
        for (int p = 0, np; p * TNGRT_Q8_PANEL < nc; p += np) {
            np = nr == 1 && (p + 1) * TNGRT_Q8_PANEL < nc ? 2 : 1;
            int pw = nc - p * TNGRT_Q8_PANEL < np * TNGRT_Q8_PANEL ? nc - p * TNGRT_Q8_PANEL
                                                                   : np * TNGRT_Q8_PANEL;
            float *a = acc + p * TNGRT_Q8_PANEL, *t = tot + p * TNGRT_Q8_PANEL;
            const int8_t *panel = wp + (int64_t)p * q->k * TNGRT_Q8_PANEL;
            for (int64_t s = k0, e; s < k1; s = e) {
                int64_t g = s / G, gend = (g + 1) * G < q->k ? (g + 1) * G : q->k;
                e = gend < k1 ? gend : k1;
                float sxr[TNGRT_Q8_ROWS];
                /* a group's later piece (s inside it): its sums go on from acc */
                tngrt_impl__q8_panel(a, panel + s * TNGRT_Q8_PANEL, q->k * TNGRT_Q8_PANEL, xf + (s - k0), e - s,
                                     s % G != 0, nr, np);
                if (e < gend)
                    continue;
                for (int r = 0; r < nr; r++)
                    sxr[r] = sxg[r * TNGRT_Q8_KC + (e - 1 - k0)];
                tngrt_impl__q8_fold(q, r0, nr, c0 + p * TNGRT_Q8_PANEL, pw, g, g * G, gend, a, sxr, t);
            }
        }
    }
    tngrt_impl__q8_store(q, r0, nr, c0, nc, tot);
}

/* Columns [c0, c1) of every row of the product (c0 a multiple of
 * TNGRT_Q8_PANEL where the weight is packed). */
TNGRT_KINLINE void tngrt_impl__q8_cols(const TngrtImplQ8 *q, int64_t c0, int64_t c1)
{
    for (int64_t r0 = 0; r0 < q->m; r0 += TNGRT_Q8_ROWS)
        for (int64_t c = c0; c < c1; c += TNGRT_Q8_COLS) {
            int nr = (int)(q->m - r0 < TNGRT_Q8_ROWS ? q->m - r0 : TNGRT_Q8_ROWS);
            int nc = (int)(c1 - c < TNGRT_Q8_COLS ? c1 - c : TNGRT_Q8_COLS);
            if (q->wp)
                tngrt_impl__q8_block_packed(q, r0, nr, c, nc);
            else
                tngrt_impl__q8_block(q, r0, nr, c, nc);
        }
}

/* 1 when scale or offset p (name) has one value (sets *cols 0), one per
 * column (n) or one per column and group (ng * n; *cols 1); else 0 after
 * an error. */
static inline int tngrt_impl__q8_param_ok(const TngrtArg *p, const char *name, int64_t n, int64_t ng,
                                          int grouped, int *cols, TngrtError *err)
{
    int64_t len = tngrt_impl__rank_ok(p) ? tngrt_impl__numel(p->ndim, p->shape) : -1;
    *cols = len != 1;
    if (!tngrt_impl__rank_ok(p) || !tngrt_impl__is_float(p->dtype) ||
        (grouped ? len != ng * n : (len != 1 && len != n))) {
        tngrt_impl__err(err, "weight_quant_matmul: %s must be float with %s%lld values", name,
                        grouped ? "" : "1 or ", (long long)(grouped ? ng * n : n));
        return 0;
    }
    return 1;
}

/* Checks the operands of npu_weight_quant_batchmatmul and fills q; 0 or -1. */
static inline int tngrt_impl__q8_init(TngrtImplQ8 *q, const TngrtArg *out, const TngrtArg *x,
                                      const TngrtArg *w, const TngrtArg *scale, const TngrtArg *offset,
                                      const TngrtArg *bias, int64_t group, TngrtError *err)
{
    if (!out || !x || !w || !scale || x->ndim != 2 || w->ndim != 2 || out->ndim != 2 ||
        (x->dtype != TNGRT_F16 && x->dtype != TNGRT_BF16) || w->dtype != TNGRT_I8 || out->dtype != x->dtype)
        return tngrt_impl__err(err, "weight_quant_matmul: expected x [m, k] float16 or bfloat16, weight "
                               "int8 [k, n], scale, and out [m, n] of x's dtype");
    int64_t m = x->shape[0], k = x->shape[1], n = w->shape[1];
    if (w->shape[0] != k || out->shape[0] != m || out->shape[1] != n || group < 0)
        return tngrt_impl__err(err, "weight_quant_matmul: x [%lld, %lld], weight [%lld, %lld] and out "
                               "[%lld, %lld] do not match (group size %lld)", (long long)m, (long long)k,
                               (long long)w->shape[0], (long long)n, (long long)out->shape[0],
                               (long long)out->shape[1], (long long)group);
    int grouped = group > 0 && group < k;
    int64_t ng = grouped ? (k + group - 1) / group : 1;
    *q = (TngrtImplQ8){x->data, w->data, NULL, scale, offset, bias, out->data, x->dtype == TNGRT_BF16,
                       m, k, n, grouped ? group : (k > 0 ? k : 1), 0, 0};
    if (!tngrt_impl__q8_param_ok(scale, "antiquant_scale", n, ng, grouped, &q->s_cols, err) ||
        (offset && !tngrt_impl__q8_param_ok(offset, "antiquant_offset", n, ng, grouped, &q->o_cols, err)))
        return -1;
    if (bias && (!tngrt_impl__rank_ok(bias) || !tngrt_impl__is_float(bias->dtype) ||
                 tngrt_impl__numel(bias->ndim, bias->shape) != n))
        return tngrt_impl__err(err, "weight_quant_matmul: bias must be float with %lld values",
                               (long long)n);
    return 0;
}

TNGRT_KINLINE int tngrt_impl_weight_quant_matmul(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                                                 const TngrtArg *scale, const TngrtArg *offset,
                                                 const TngrtArg *bias, int64_t group, TngrtError *err)
{
    TngrtImplQ8 q;
    if (tngrt_impl__q8_init(&q, out, x, w, scale, offset, bias, group, err) < 0)
        return -1;
    tngrt_impl__q8_cols(&q, 0, q.n);
    return 0;
}

#endif
