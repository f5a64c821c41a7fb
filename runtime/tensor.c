/*
 * tensor.c - dtypes and dense C-order tensors of libtngcrt: sizes, names,
 * allocation with overflow-checked byte counts, and deletion; float32
 * rounded to and widened from the half types (the kernels' conversions,
 * tngrt_impl_base.h).
 */
#include "internal.h"
#include "tngrt_impl_base.h"

#include <stdlib.h>

size_t tngrt_dtype_size(TngrtDType dtype)
{
    switch (dtype) {
    case TNGRT_F32: return 4;
    case TNGRT_F16: return 2;
    case TNGRT_BF16: return 2;
    case TNGRT_I8: return 1;
    case TNGRT_I32: return 4;
    case TNGRT_I64: return 8;
    case TNGRT_BOOL: return 1;
    default: return 0;
    }
}

const char *tngrt_dtype_name(TngrtDType dtype)
{
    switch (dtype) {
    case TNGRT_F32: return "f32";
    case TNGRT_F16: return "f16";
    case TNGRT_BF16: return "bf16";
    case TNGRT_I8: return "i8";
    case TNGRT_I32: return "i32";
    case TNGRT_I64: return "i64";
    case TNGRT_BOOL: return "bool";
    default: return "?";
    }
}

int tngrt_shape_nbytes(TngrtDType dtype, int ndim, const int64_t *shape,
                       size_t *nbytes_out, const char *what, TngrtError *err)
{
    size_t elem = tngrt_dtype_size(dtype);
    uint64_t total;
    if (elem == 0) {
        tngrt__fail(err, NULL, "%s: invalid dtype %d", what, (int)dtype);
        return -1;
    }
    if (ndim < 0 || ndim > TNGRT_MAX_DIMS) {
        tngrt__fail(err, NULL, "%s: %d dimensions (at most %d are supported)",
                     what, ndim, TNGRT_MAX_DIMS);
        return -1;
    }
    total = elem;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            tngrt__fail(err, NULL, "%s: dimension %d is negative (%lld)", what, i,
                         (long long)shape[i]);
            return -1;
        }
        if (shape[i] != 0 && total > (uint64_t)SIZE_MAX / 2 / (uint64_t)shape[i]) {
            tngrt__fail(err, NULL, "%s: the byte size of the shape overflows", what);
            return -1;
        }
        total *= (uint64_t)shape[i];
    }
    /* a 0-size dimension must not hide an overflow in the other ones */
    {
        uint64_t check = elem;
        for (int i = 0; i < ndim; i++) {
            if (shape[i] == 0)
                continue;
            if (check > (uint64_t)SIZE_MAX / 2 / (uint64_t)shape[i]) {
                tngrt__fail(err, NULL, "%s: the byte size of the shape overflows", what);
                return -1;
            }
            check *= (uint64_t)shape[i];
        }
    }
    *nbytes_out = (size_t)total;
    return 0;
}

void tngrt_tensor_set_strides(TngrtTensor *self)
{
    int64_t stride = 1;
    for (int i = self->ndim - 1; i >= 0; i--) {
        self->strides[i] = stride;
        stride *= self->shape[i] > 0 ? self->shape[i] : 1;
    }
}

TngrtTensor *tngrt_tensor_new(TngrtDType dtype, int ndim,
                              const int64_t *shape, TngrtError *err)
{
    size_t nbytes;
    TngrtTensor *self;
    if (tngrt_shape_nbytes(dtype, ndim, shape, &nbytes, "tensor", err) != 0)
        return NULL;
    self = calloc(1, sizeof *self);
    if (!self) {
        tngrt__fail(err, NULL, "tensor: out of memory");
        return NULL;
    }
    self->data = calloc(nbytes ? nbytes : 1, 1);
    if (!self->data) {
        free(self);
        tngrt__fail(err, NULL, "tensor: out of memory allocating %zu bytes", nbytes);
        return NULL;
    }
    self->dtype = dtype;
    self->ndim = ndim;
    for (int i = 0; i < ndim; i++)
        self->shape[i] = shape[i];
    tngrt_tensor_set_strides(self);
    self->nbytes = nbytes;
    self->owns = 1;
    return self;
}

void tngrt_tensor_delete(TngrtTensor *self)
{
    if (!self)
        return;
    if (self->owns)
        free(self->data);
    free(self);
}

int64_t tngrt_tensor_numel(const TngrtTensor *self)
{
    int64_t n = 1;
    for (int i = 0; i < self->ndim; i++)
        n *= self->shape[i];
    return n;
}

void tngrt_half_from_f32(TngrtDType dtype, const float *src, uint16_t *dst, size_t n)
{
    if (dtype == TNGRT_BF16)
        for (size_t i = 0; i < n; i++)
            dst[i] = tngrt_impl__f32_to_bf16(src[i]);
    else if (dtype == TNGRT_F16)
        for (size_t i = 0; i < n; i++)
            dst[i] = tngrt_impl__f32_to_f16(src[i]);
}

void tngrt_half_to_f32(TngrtDType dtype, const uint16_t *src, float *dst, size_t n)
{
    if (dtype == TNGRT_BF16)
        for (size_t i = 0; i < n; i++)
            dst[i] = tngrt_impl__bf16_to_f32(src[i]);
    else if (dtype == TNGRT_F16)
        for (size_t i = 0; i < n; i++)
            dst[i] = tngrt_impl__f16_to_f32(src[i]);
}
