/*
 * kernels_q8.c - the weight-only int8 product (npu_weight_quant_batchmatmul)
 * of tngrt_impl_q8.h, instantiated per instruction set (kernels_isa.h: the
 * widening of int8 to float32 and the column loops vectorise 16 or 8 wide),
 * its columns split over the current pool's threads when the weight is
 * large enough to pay for the hand-off (TNGRT_GEMM_PAR_GEMV_BYTES, the
 * half GEMV's threshold: the same weight in int8 is half the bytes, so the
 * split starts at twice as many weights). Each thread computes whole
 * columns with the same operations in the same order: the split does not
 * change a bit.
 */
#include "tngrt_kernel_impl.h"

#include "internal.h"
#include "kernels_isa.h"

TNGRT_ISA_KERNEL(void, tngrt_q8__cols, (const TngrtImplQ8 *q, int64_t c0, int64_t c1),
                 tngrt_impl__q8_cols(q, c0, c1);)

/* One task's columns: a multiple of 64 (whole cache lines of a weight row). */
typedef struct TngrtQ8Job {
    const TngrtImplQ8 *q;
    int64_t cols;
    int ntasks;
} TngrtQ8Job;

static void tngrt_q8__task(void *ctx, int t)
{
    const TngrtQ8Job *j = ctx;
    int64_t c0 = (int64_t)t * j->cols, c1 = t == j->ntasks - 1 ? j->q->n : c0 + j->cols;
    tngrt_q8__cols(j->q, c0, c1);
}

int tngrt_kernel_weight_quant_matmul(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                                     const TngrtArg *scale, const TngrtArg *offset,
                                     const TngrtArg *bias, int64_t group, TngrtError *err)
{
    TngrtImplQ8 q;
    if (tngrt_impl__q8_init(&q, out, x, w, scale, offset, bias, group, err) < 0)
        return -1;
    TngrtPar *p = tngrt__par_current();
    int64_t th = tngrt__par_threads(p), lines = q.n / 64;
    if (th < 2 || lines < 2 || (double)q.n * (double)q.k < TNGRT_GEMM_PAR_GEMV_BYTES) {
        tngrt_q8__cols(&q, 0, q.n);
        return 0;
    }
    int64_t ntasks = lines < th * TNGRT_GEMM_PAR_GEMV_TASKS ? lines : th * TNGRT_GEMM_PAR_GEMV_TASKS;
    TngrtQ8Job j = {&q, (lines + ntasks - 1) / ntasks * 64, 0};
    j.ntasks = (int)((q.n + j.cols - 1) / j.cols);
    tngrt__par_for(p, j.ntasks, tngrt_q8__task, &j);
    return 0;
}
