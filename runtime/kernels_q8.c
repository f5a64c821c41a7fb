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
 *
 * A weight packed at load (tngrt_q8_pack_new, tngrt_q8_pack_rows: the
 * bundle packs a TNGRT_SIG_PACK_Q8 weight) is read through
 * tngrt_kernel_weight_quant_matmul_packed with the same bits.
 */
#include "tngrt_kernel_impl.h"

#include "internal.h"
#include "kernels_isa.h"

TNGRT_ISA_KERNEL(void, tngrt_q8__cols, (const TngrtImplQ8 *q, int64_t c0, int64_t c1),
                 tngrt_impl__q8_cols(q, c0, c1);)

/* The clone tngrt_q8__cols__at runs: -1 the one the CPU's ifunc picks; 0
 * baseline x86-64, 1 AVX2, 2 AVX-512 where the CPU has them
 * (libtngcrt-internal: tests/unit/test_rt_q8.c compares their bits). */
int tngrt__q8_isa = -1;

static void tngrt_q8__cols_at(const TngrtImplQ8 *q, int64_t c0, int64_t c1)
{
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__)) && !defined(TNGRT_NO_ISA)
    if (tngrt__q8_isa == 0 || (tngrt__q8_isa == 1 && !__builtin_cpu_supports("avx2"))) {
        tngrt_q8__cols__base(q, c0, c1);
        return;
    }
    if (tngrt__q8_isa == 1 || (tngrt__q8_isa == 2 && !__builtin_cpu_supports("avx512f"))) {
        tngrt_q8__cols__avx2(q, c0, c1);
        return;
    }
#endif
    tngrt_q8__cols(q, c0, c1);
}

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
    tngrt_q8__cols_at(j->q, c0, c1);
}

/* q's product on the current pool's threads, by columns. */
static void tngrt_q8__run(const TngrtImplQ8 *q)
{
    TngrtPar *p = tngrt__par_current();
    int64_t th = tngrt__par_threads(p), lines = q->n / 64;
    if (th < 2 || lines < 2 || (double)q->n * (double)q->k < TNGRT_GEMM_PAR_GEMV_BYTES) {
        tngrt_q8__cols_at(q, 0, q->n);
        return;
    }
    int64_t ntasks = lines < th * TNGRT_GEMM_PAR_GEMV_TASKS ? lines : th * TNGRT_GEMM_PAR_GEMV_TASKS;
    TngrtQ8Job j = {q, (lines + ntasks - 1) / ntasks * 64, 0};
    j.ntasks = (int)((q->n + j.cols - 1) / j.cols);
    tngrt__par_for(p, j.ntasks, tngrt_q8__task, &j);
}

int tngrt_kernel_weight_quant_matmul(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                                     const TngrtArg *scale, const TngrtArg *offset,
                                     const TngrtArg *bias, int64_t group, TngrtError *err)
{
    return tngrt_kernel_weight_quant_matmul_packed(out, x, w, scale, offset, bias, group, NULL, err);
}

int tngrt_kernel_weight_quant_matmul_packed(const TngrtArg *out, const TngrtArg *x, const TngrtArg *w,
                                            const TngrtArg *scale, const TngrtArg *offset,
                                            const TngrtArg *bias, int64_t group, const void *wp,
                                            TngrtError *err)
{
    TngrtImplQ8 q;
    if (tngrt_impl__q8_init(&q, out, x, w, scale, offset, bias, group, err) < 0)
        return -1;
    q.wp = wp;
    tngrt_q8__run(&q);
    return 0;
}

int64_t tngrt_q8_packed_size(int64_t k, int64_t n)
{
    if (k < 0 || n < 0 || n > INT64_MAX - TNGRT_Q8_PANEL)
        return -1;
    int64_t cols = (n + TNGRT_Q8_PANEL - 1) / TNGRT_Q8_PANEL * TNGRT_Q8_PANEL;
    return cols > 0 && k > INT64_MAX / cols ? -1 : cols * k;
}

/* A packing's block outside a bundle (a bundle allocates its own among
 * its huge-page-backed blocks): 64-byte aligned (panel rows are whole
 * cache lines), released with free(). */
int8_t *tngrt_q8_pack_new(int64_t k, int64_t n)
{
    int64_t size = tngrt_q8_packed_size(k, n);
    if (size <= 0 || (uint64_t)size > SIZE_MAX - 64)
        return NULL;
    return aligned_alloc(64, ((size_t)size + 63) / 64 * 64);
}

/* Panel after panel, each panel's rows written in order; the block of
 * rows read across (the bundle's few MiB) stays in cache meanwhile. */
void tngrt_q8_pack_rows(int8_t *dst, const int8_t *w, int64_t k, int64_t n, int64_t r0, int64_t rows)
{
    for (int64_t c = 0; c < n; c += TNGRT_Q8_PANEL) {
        int64_t len = n - c < TNGRT_Q8_PANEL ? n - c : TNGRT_Q8_PANEL;
        int8_t *d = dst + c / TNGRT_Q8_PANEL * k * TNGRT_Q8_PANEL + r0 * TNGRT_Q8_PANEL;
        const int8_t *s = w + r0 * n + c;
        for (int64_t kk = 0; kk < rows; kk++, d += TNGRT_Q8_PANEL, s += n) {
            if (len == TNGRT_Q8_PANEL) {
                memcpy(d, s, TNGRT_Q8_PANEL);
                continue;
            }
            memcpy(d, s, (size_t)len);
            memset(d + len, 0, (size_t)(TNGRT_Q8_PANEL - len));
        }
    }
}
