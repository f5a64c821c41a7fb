/*
 * kernels_linear.c - the Linear kernels over libtngcrt's own GEMM
 * (kernels_gemm.c): tngrt_kernel_linear_packed instantiates
 * tngrt_impl_linear_packed of tngrt_kernel_impl.h (a weight packed at
 * load, or NULL), one clone per instruction set as kernels_isa.h does, and
 * tngrt_kernel_linear_epi runs a Linear with the pointwise ops after it
 * (codegen/fuse_gemm.c) applied to each output tile by the GEMM's store,
 * or, where the GEMM cannot take the operands, by the separate kernels'
 * expressions over the finished product. Above both the kernel bodies and
 * the GEMM, which call nothing here.
 */
#include "tngrt_kernel_impl.h"

#include "internal.h"
#include "kernels_isa.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

TNGRT_ISA_KERNEL(void, tngrt_kernel_linear_packed,
                 (const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                 const TngrtArg *bias, const float *wp),
                 tngrt_impl_linear_packed(out, x, w, bias, wp);)

/* tngrt_kernel_linear_epi's body: one clone per instruction set (the
 * widening of a half x and the rounding of a half out vectorise with it). */
TNGRT_KINLINE void tngrt_impl__linear_epi(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                                          const TngrtArg *bias, const float *wp,
                                          const TngrtGemmEpi *epi)
{
    int64_t n, m, k, nout;
    float *sc = NULL, *xa = NULL, *ba = NULL, *lin, *dst;
    TngrtArg so;
    int half = out->dtype == TNGRT_F16 || out->dtype == TNGRT_BF16;
    if (!tngrt_impl__rank_ok(out) || out->ndim < 1 || w->ndim != 2 || !epi || epi->n < 0 ||
        epi->n > TNGRT_GEMM_EPI_MAX || (out->dtype != TNGRT_F32 && !half) || epi->rdt != out->dtype)
        return;
    n = out->shape[out->ndim - 1];
    m = tngrt_impl__numel(out->ndim - 1, out->shape);
    k = w->shape[1];
    nout = m * n;
    if (nout <= 0 || (half && !(sc = (float *)tngrt_impl__alloc(nout, sizeof(float)))))
        return;
    dst = half ? sc : (float *)out->data;   /* a half out: narrowed once at the end */
    if ((wp || tngrt_impl__packs_per_call(m, n, k, w->dtype)) && tngrt_impl__is_float(x->dtype) &&
        k > 0 && w->shape[0] == n &&
        (!bias || (tngrt_impl__is_float(bias->dtype) && n > 1 &&
                   tngrt_impl__numel(bias->ndim, bias->shape) == n))) {
        const float *fb = !bias ? NULL
                          : bias->dtype == TNGRT_F32 ? (const float *)bias->data
                                                     : (ba = tngrt_impl__to_f32(bias, n));
        const float *fa = NULL;
        /* bfloat16 x and w: vdpbf16ps's product, x read in place */
        if ((!bias || fb) && !wp && x->dtype == TNGRT_BF16 && w->dtype == TNGRT_BF16 &&
            tngrt_gemm_bf16_packing(m, n, k, (const uint16_t *)x->data, k, w, 0, 1, k, dst, n, fb,
                                    epi) == 0)
            goto done;
        fa = x->dtype == TNGRT_F32 ? (const float *)x->data
                                   : (xa = tngrt_impl__to_f32(x, tngrt_impl__numel(x->ndim, x->shape)));
        if (fa && (!bias || fb) && wp) {
            tngrt_gemm_f32_epi(m, n, k, fa, k, 1, wp, dst, n, fb, epi);
            goto done;
        }
        if (fa && (!bias || fb) &&
            tngrt_gemm_f32_packing(m, n, k, fa, k, 1, w, 0, 1, k, dst, n, fb, epi) == 0)
            goto done;
    }
    /* the separate kernels: the Linear into float32 scratch, then the
     * steps (a step may read out itself), row by row through the GEMM's
     * tile helper */
    if (!(lin = (float *)tngrt_impl__alloc(nout, sizeof(float))))
        goto done;
    so = *out;
    so.data = lin;
    so.dtype = TNGRT_F32;
    tngrt_impl_linear_packed(&so, x, w, bias, wp);
    tngrt__gemm_epi_apply(epi, m, n, lin, dst);
    free(lin);
done:
    if (half)
        tngrt_impl__narrow(out, 0, sc, nout);
    free(sc);
    free(xa);
    free(ba);
}

TNGRT_ISA_KERNEL(void, tngrt_kernel_linear_epi,
                 (const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                 const TngrtArg *bias, const float *wp, const TngrtGemmEpi *epi),
                 tngrt_impl__linear_epi(out, x, w, bias, wp, epi);)
