/*
 * kernels_index.c - the indexing and scatter kernels of libtngcrt
 * (tngrt_kernels.h, "kernels: indexing and scatter"): each instantiates its
 * inline body of tngrt_impl_index.h with shapes read at run time.
 */
#include "tngrt_kernel_impl.h"

int tngrt_kernel_index_select(const TngrtArg *out, const TngrtArg *x, const TngrtArg *index, int dim,
                              TngrtError *err)
{
    return tngrt_impl_index_select(out, x, index, dim, err);
}

int tngrt_kernel_gather(const TngrtArg *out, const TngrtArg *x, const TngrtArg *index, int dim,
                        TngrtError *err)
{
    return tngrt_impl_gather(out, x, index, dim, err);
}

int tngrt_kernel_index(const TngrtArg *out, const TngrtArg *x, const TngrtArg *const *idx, int nidx, int dim,
                       TngrtError *err)
{
    return tngrt_impl_index(out, x, idx, nidx, dim, err);
}

int tngrt_kernel_index_check(const TngrtArg *idx, int64_t n, int dim, TngrtError *err)
{
    int64_t v;
    if (tngrt_impl__numel(idx->ndim, idx->shape) != 1)
        return tngrt_impl__err(err, "index: invalid operands");
    return tngrt_impl__index_at(idx, 0, n, 1, dim, "index", &v, err);
}

int64_t tngrt_kernel_index_row(const TngrtArg *idx, int64_t n)
{
    int64_t x = tngrt_impl__ldi(idx, 0);
    x = x < 0 ? x + n : x;
    return x < 0 ? 0 : x >= n ? (n > 0 ? n - 1 : 0) : x;
}

int tngrt_kernel_index_put(const TngrtArg *dst, const TngrtArg *values, const TngrtArg *const *idx, int nidx,
                           int dim, int accumulate, TngrtError *err)
{
    return tngrt_impl_index_put(dst, values, idx, nidx, dim, accumulate, err);
}

int tngrt_kernel_scatter(const TngrtArg *out, const TngrtArg *self, const TngrtArg *index, const TngrtArg *src,
                         double value, int dim, int reduce, TngrtError *err)
{
    return tngrt_impl_scatter(out, self, index, src, value, dim, reduce, err);
}

int tngrt_kernel_index_update(const TngrtArg *out, const TngrtArg *self, const TngrtArg *index,
                              const TngrtArg *src, int dim, int add, double alpha, TngrtError *err)
{
    return tngrt_impl_index_update(out, self, index, src, dim, add, alpha, err);
}
