/*
 * test_rt_io.c - unit tests of libtngcrt's file IO: .npy round trips,
 * numpy-made headers, safetensors files, and hostile files of both formats.
 * Every failure case checks the return code and that the message names
 * the file.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../runtime/internal.h"

/* Writes bytes to a fresh temporary file; returns its path (malloc'd). */
static char *write_temp(const void *bytes, size_t len)
{
    char *path = strdup("/tmp/tngrt-unit-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, bytes, len), (ssize_t)len);
    close(fd);
    return path;
}

/* Builds a v1.0 .npy image: magic, header dict padded as numpy pads it, data. */
static size_t npy_image(unsigned char *out, const char *dict, const void *data,
                        size_t nbytes)
{
    size_t n = strlen(dict), total = (10 + n + 1 + 63) / 64 * 64;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (unsigned char)((total - 10) & 0xff);
    out[9] = (unsigned char)((total - 10) >> 8);
    memcpy(out + 10, dict, n);
    memset(out + 10 + n, ' ', total - 11 - n);
    out[total - 1] = '\n';
    if (nbytes)
        memcpy(out + total, data, nbytes);
    return total + nbytes;
}

/* Asserts that reading the bytes as .npy fails, naming the file. */
static void npy_rejects(const void *bytes, size_t len, const char *needle)
{
    char *path = write_temp(bytes, len);
    TngrtTensor *t = (TngrtTensor *)1;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    assert_int_equal(tngrt_npy_read(path, &t, &err), -1);
    assert_null(t);
    assert_true(err.msg[0] != '\0');
    assert_non_null(strstr(err.msg, path));
    if (needle && !strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
    unlink(path);
    free(path);
}

static void test_dtype_and_tensor(void **state)
{
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    int64_t shape[2] = {2, 3}, bad[1] = {-1}, huge[2] = {INT64_MAX / 2, 4};
    TngrtTensor *t;
    (void)state;
    assert_int_equal(tngrt_dtype_size(TNGRT_I64), 8);
    assert_string_equal(tngrt_dtype_name(TNGRT_BF16), "bf16");
    t = tngrt_tensor_new(TNGRT_F32, 2, shape, &err);
    assert_non_null(t);
    assert_int_equal(t->nbytes, 24);
    assert_int_equal(t->strides[0], 3);
    assert_int_equal(t->strides[1], 1);
    assert_int_equal(tngrt_tensor_numel(t), 6);
    tngrt_tensor_delete(t);
    assert_null(tngrt_tensor_new(TNGRT_F32, 1, bad, &err));
    assert_true(err.msg[0] != '\0');
    assert_null(tngrt_tensor_new(TNGRT_F32, 2, huge, &err));
    assert_null(tngrt_tensor_new(TNGRT_F32, 9, shape, &err));
    t = tngrt_tensor_new(TNGRT_I8, 0, NULL, &err);
    assert_non_null(t);
    assert_int_equal(tngrt_tensor_numel(t), 1);
    tngrt_tensor_delete(t);
}

/* Writes a tensor of dtype and shape with patterned bytes, reads it back. */
static void round_trip(TngrtDType dtype, int ndim, const int64_t *shape)
{
    char path[64];
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    TngrtTensor *t = tngrt_tensor_new(dtype, ndim, shape, &err), *back = NULL;
    assert_non_null(t);
    for (size_t i = 0; i < t->nbytes; i++)
        ((unsigned char *)t->data)[i] = dtype == TNGRT_BOOL ? (unsigned char)(i & 1)
                                                             : (unsigned char)(i * 7 + 1);
    snprintf(path, sizeof path, "/tmp/tngrt-rt-%ld.npy", (long)getpid());
    assert_int_equal(tngrt_npy_write(path, t, &err), 0);
    if (tngrt_npy_read(path, &back, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(back->dtype, dtype);
    assert_int_equal(back->ndim, ndim);
    for (int i = 0; i < ndim; i++)
        assert_int_equal(back->shape[i], shape[i]);
    assert_int_equal(back->nbytes, t->nbytes);
    assert_memory_equal(back->data, t->data, t->nbytes ? t->nbytes : 1);
    /* the header is a multiple of 64 bytes ending in '\n' */
    {
        FILE *f = fopen(path, "rb");
        unsigned char pre[10];
        assert_int_equal(fread(pre, 1, 10, f), 10);
        assert_int_equal((10 + pre[8] + pre[9] * 256) % 64, 0);
        fclose(f);
    }
    unlink(path);
    tngrt_tensor_delete(t);
    tngrt_tensor_delete(back);
}

static void test_npy_round_trips(void **state)
{
    static const TngrtDType dtypes[] = {TNGRT_F32, TNGRT_F16, TNGRT_I8, TNGRT_I32,
                                        TNGRT_I64, TNGRT_BOOL};
    int64_t s23[2] = {2, 3}, s5[1] = {5}, s0[3] = {4, 0, 2}, s8[8] = {1, 2, 1, 2, 1, 2, 1, 2};
    (void)state;
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
        round_trip(dtypes[i], 2, s23);
        round_trip(dtypes[i], 1, s5);
        round_trip(dtypes[i], 0, NULL);
        round_trip(dtypes[i], 3, s0);
        round_trip(dtypes[i], 8, s8);
    }
}

/* bf16 is written as uint16 bit patterns ('<u2'), which tngrt_npy_read
 * refuses and tngrt_npy_read_bf16 reads back bit for bit; the latter
 * refuses every other dtype. */
static void test_npy_bf16_bits(void **state)
{
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    int64_t s[1] = {2};
    TngrtTensor *t = tngrt_tensor_new(TNGRT_BF16, 1, s, &err), *back = NULL;
    (void)state;
    ((uint16_t *)t->data)[0] = 0x3f80;  /* 1.0 */
    ((uint16_t *)t->data)[1] = 0xc000;  /* -2.0 */
    char path[] = "/tmp/tngrt-bf16-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(tngrt_npy_write(path, t, &err), 0);
    unsigned char *buf = NULL;
    size_t len = 0;
    assert_int_equal(tngrt__read_file(path, &buf, &len, &err), 0);
    assert_true(len == 132);
    char head[129];
    memcpy(head, buf, 128);
    head[128] = 0;
    assert_non_null(strstr(head + 10, "'descr': '<u2'"));
    assert_int_equal(buf[128] | buf[129] << 8, 0x3f80);
    assert_int_equal(buf[130] | buf[131] << 8, 0xc000);
    assert_int_equal(tngrt_npy_read(path, &back, &err), -1);
    assert_non_null(strstr(err.msg, "'<u2'"));
    assert_int_equal(tngrt_npy_read_bf16(path, &back, &err), 0);
    assert_int_equal(back->dtype, TNGRT_BF16);
    assert_int_equal(back->ndim, 1);
    assert_int_equal(back->shape[0], 2);
    assert_memory_equal(back->data, t->data, 4);
    tngrt_tensor_delete(back);
    back = NULL;
    /* a float32 .npy is no bf16 input */
    TngrtTensor *f = tngrt_tensor_new(TNGRT_F32, 1, s, &err);
    assert_non_null(f);
    memset(f->data, 0, f->nbytes);
    assert_int_equal(tngrt_npy_write(path, f, &err), 0);
    assert_int_equal(tngrt_npy_read_bf16(path, &back, &err), -1);
    assert_non_null(strstr(err.msg, "dtype '<f4': a bf16 tensor is read from a '<u2' .npy"));
    assert_null(back);
    free(buf);
    unlink(path);
    tngrt_tensor_delete(f);
    tngrt_tensor_delete(t);
}

/* float32 rounded to bfloat16 and float16 as torch 1.13's
 * .to(torch.bfloat16) / .to(torch.float16) round it (the expected bits are
 * torch's), widened back exactly; NaN stays a quiet NaN of its sign. */
static void test_half_from_f32(void **state)
{
    static const struct { uint32_t f; uint16_t bf16, f16; } cases[] = {
        {0x3F808000u, 0x3F80, 0x3C04},  /* bf16 tie, rounds down to even */
        {0x3F818000u, 0x3F82, 0x3C0C},  /* bf16 tie, rounds up to even */
        {0x3F808001u, 0x3F81, 0x3C04},  /* just past a tie */
        {0x3F807FFFu, 0x3F80, 0x3C04},  /* just short of one */
        {0x00000001u, 0x0000, 0x0000},  /* the least float32 subnormal */
        {0x00008000u, 0x0000, 0x0000},  /* a bf16 subnormal tie, to even (0) */
        {0x00018000u, 0x0002, 0x0000},  /* a bf16 subnormal tie, to even (2) */
        {0x007FFFFFu, 0x0080, 0x0000},  /* the largest subnormal rounds to a normal */
        {0x80000001u, 0x8000, 0x8000},  /* -0 kept */
        {0x7F7F7FFFu, 0x7F7F, 0x7C00},  /* bf16's largest; f16 overflows */
        {0x7F7F8000u, 0x7F80, 0x7C00},  /* a tie past bf16's largest: inf */
        {0x7F7FFFFFu, 0x7F80, 0x7C00},  /* FLT_MAX: inf */
        {0xFF7F8000u, 0xFF80, 0xFC00},  /* -inf */
        {0x477FE000u, 0x4780, 0x7BFF},  /* 65504, f16's largest */
        {0x477FEFFFu, 0x4780, 0x7BFF},  /* just short of 65520 */
        {0x477FF000u, 0x4780, 0x7C00},  /* 65520: f16 inf */
        {0x33800000u, 0x3380, 0x0001},  /* 2^-24, f16's least subnormal */
        {0x33000000u, 0x3300, 0x0000},  /* 2^-25: an f16 tie, to 0 */
        {0x33400000u, 0x3340, 0x0001},  /* 1.5 * 2^-25 */
        {0x33C00000u, 0x33C0, 0x0002},  /* 3 * 2^-25: an f16 tie, to even */
        {0x387FFFFFu, 0x3880, 0x0400},  /* just short of f16's least normal */
        {0x3F801000u, 0x3F80, 0x3C00},  /* 1 + 2^-11: an f16 tie, down */
        {0x3F803000u, 0x3F80, 0x3C02},  /* 1 + 3 * 2^-11: an f16 tie, up */
        {0x80000000u, 0x8000, 0x8000},  /* -0 */
        {0x7F800000u, 0x7F80, 0x7C00},  /* inf */
        {0xFF800000u, 0xFF80, 0xFC00},  /* -inf */
    };
    static const uint32_t nans[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu};
    enum { N = sizeof cases / sizeof cases[0] };
    float src[N], wide[N];
    uint16_t b[N], h[N];
    (void)state;
    for (size_t i = 0; i < N; i++)
        memcpy(&src[i], &cases[i].f, sizeof src[i]);
    tngrt_half_from_f32(TNGRT_BF16, src, b, N);
    tngrt_half_from_f32(TNGRT_F16, src, h, N);
    for (size_t i = 0; i < N; i++) {
        if (b[i] != cases[i].bf16)
            fail_msg("0x%08x -> bf16 0x%04x, torch 0x%04x", (unsigned)cases[i].f, b[i],
                     cases[i].bf16);
        if (h[i] != cases[i].f16)
            fail_msg("0x%08x -> f16 0x%04x, torch 0x%04x", (unsigned)cases[i].f, h[i],
                     cases[i].f16);
    }
    /* widened exactly: bf16 is float32's top half */
    tngrt_half_to_f32(TNGRT_BF16, b, wide, N);
    for (size_t i = 0; i < N; i++) {
        uint32_t u;
        memcpy(&u, &wide[i], sizeof u);
        assert_int_equal(u, (uint32_t)b[i] << 16);
    }
    /* f16 widened and rounded again gives the same bits */
    tngrt_half_to_f32(TNGRT_F16, h, wide, N);
    tngrt_half_from_f32(TNGRT_F16, wide, b, N);
    assert_memory_equal(b, h, sizeof h);
    assert_true(wide[13] == 65504.0f && wide[16] == 0x1p-24f);
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        float f, w;
        uint16_t bb, hh;
        memcpy(&f, &nans[i], sizeof f);
        tngrt_half_from_f32(TNGRT_BF16, &f, &bb, 1);
        tngrt_half_from_f32(TNGRT_F16, &f, &hh, 1);
        assert_true((bb & 0x7f80) == 0x7f80 && (bb & 0x40) && (bb >> 15) == nans[i] >> 31);
        assert_true((hh & 0x7c00) == 0x7c00 && (hh & 0x200) && (hh >> 15) == nans[i] >> 31);
        tngrt_half_to_f32(TNGRT_BF16, &bb, &w, 1);
        assert_true(w != w);
        tngrt_half_to_f32(TNGRT_F16, &hh, &w, 1);
        assert_true(w != w);
    }
}

/* tngrt_npy_read_as: a bf16 tensor from '<f4' (rounded) or '<u2' (bits),
 * an f16 one from '<f4' (rounded) or '<f2'; any other dtype refused naming
 * the file and the two accepted; other dtypes read as tngrt_npy_read. */
static void test_npy_read_as(void **state)
{
    static const float vals[3] = {1.00390625f, -65520.0f, 0x1p-25f};
    static const uint16_t bits_b[3] = {0x3f80, 0xc780, 0x3300}, bits_h[3] = {0x3c04, 0xfc00, 0};
    static const int32_t ints[3] = {1, 2, 3};
    unsigned char img[256];
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    TngrtTensor *t = NULL;
    char *f4, *u2, *f2, *i4;
    size_t len;
    (void)state;
    len = npy_image(img, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", vals,
                    sizeof vals);
    f4 = write_temp(img, len);
    len = npy_image(img, "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }", bits_b,
                    sizeof bits_b);
    u2 = write_temp(img, len);
    len = npy_image(img, "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", bits_h,
                    sizeof bits_h);
    f2 = write_temp(img, len);
    len = npy_image(img, "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", ints,
                    sizeof ints);
    i4 = write_temp(img, len);

    assert_int_equal(tngrt_npy_read_as(f4, TNGRT_BF16, &t, &err), 0);
    assert_int_equal(t->dtype, TNGRT_BF16);
    assert_int_equal(t->ndim, 1);
    assert_int_equal(t->shape[0], 3);
    assert_int_equal(t->nbytes, 6);
    assert_memory_equal(t->data, bits_b, sizeof bits_b);
    tngrt_tensor_delete(t);
    assert_int_equal(tngrt_npy_read_as(u2, TNGRT_BF16, &t, &err), 0);
    assert_int_equal(t->dtype, TNGRT_BF16);
    assert_memory_equal(t->data, bits_b, sizeof bits_b);
    tngrt_tensor_delete(t);
    assert_int_equal(tngrt_npy_read_as(f4, TNGRT_F16, &t, &err), 0);
    assert_int_equal(t->dtype, TNGRT_F16);
    assert_memory_equal(t->data, bits_h, sizeof bits_h);
    tngrt_tensor_delete(t);
    assert_int_equal(tngrt_npy_read_as(f2, TNGRT_F16, &t, &err), 0);
    assert_int_equal(t->dtype, TNGRT_F16);
    assert_memory_equal(t->data, bits_h, sizeof bits_h);
    tngrt_tensor_delete(t);
    /* float32 and int32 tensors read as they are */
    assert_int_equal(tngrt_npy_read_as(f4, TNGRT_F32, &t, &err), 0);
    assert_int_equal(t->dtype, TNGRT_F32);
    assert_memory_equal(t->data, vals, sizeof vals);
    tngrt_tensor_delete(t);
    assert_int_equal(tngrt_npy_read_as(i4, TNGRT_F32, &t, &err), 0);
    assert_int_equal(t->dtype, TNGRT_I32);
    tngrt_tensor_delete(t);

    t = (TngrtTensor *)1;
    assert_int_equal(tngrt_npy_read_as(i4, TNGRT_BF16, &t, &err), -1);
    assert_null(t);
    assert_non_null(strstr(err.msg, i4));
    assert_non_null(strstr(err.msg, "dtype '<i4': a bf16 tensor is read from a '<f4' .npy "
                                    "(rounded to bfloat16) or a '<u2' .npy"));
    assert_int_equal(tngrt_npy_read_as(f2, TNGRT_BF16, &t, &err), -1);
    assert_non_null(strstr(err.msg, "dtype '<f2': a bf16 tensor"));
    assert_int_equal(tngrt_npy_read_as(u2, TNGRT_F16, &t, &err), -1);
    assert_non_null(strstr(err.msg, u2));
    assert_non_null(strstr(err.msg, "dtype '<u2': an f16 tensor is read from a '<f2' .npy "
                                    "or a '<f4' .npy (rounded to float16)"));
    assert_int_equal(tngrt_npy_read_as(i4, TNGRT_F16, &t, &err), -1);
    assert_null(t);
    unlink(f4);
    unlink(u2);
    unlink(f2);
    unlink(i4);
    free(f4);
    free(u2);
    free(f2);
    free(i4);
}

static void test_npy_numpy_made(void **state)
{
    unsigned char img[512];
    float data[6] = {1, 2, 3, 4, 5, 6};
    size_t len = npy_image(img, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                           data, sizeof data);
    char *path;
    TngrtTensor *t = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    (void)state;
    /* numpy's exact v1.0 preamble for this dict: header length 118 ('v') */
    assert_memory_equal(img, "\x93NUMPY\x01\x00v\x00{'descr'", 17);
    path = write_temp(img, len);
    assert_int_equal(tngrt_npy_read(path, &t, &err), 0);
    assert_int_equal(t->dtype, TNGRT_F32);
    assert_int_equal(t->ndim, 2);
    assert_memory_equal(t->data, data, sizeof data);
    tngrt_tensor_delete(t);
    unlink(path);
    free(path);

    /* v2.0: a u32 header length */
    {
        const char *dict = "{'descr': '|b1', 'fortran_order': False, 'shape': (5,), }";
        size_t n = strlen(dict), total = (12 + n + 1 + 63) / 64 * 64;
        unsigned char b[5] = {1, 0, 1, 1, 0};
        memcpy(img, "\x93NUMPY\x02\x00", 8);
        img[8] = (unsigned char)(total - 12);
        img[9] = img[10] = img[11] = 0;
        memcpy(img + 12, dict, n);
        memset(img + 12 + n, ' ', total - 13 - n);
        img[total - 1] = '\n';
        memcpy(img + total, b, 5);
        path = write_temp(img, total + 5);
        assert_int_equal(tngrt_npy_read(path, &t, &err), 0);
        assert_int_equal(t->dtype, TNGRT_BOOL);
        assert_int_equal(t->shape[0], 5);
        assert_memory_equal(t->data, b, 5);
        tngrt_tensor_delete(t);
        unlink(path);
        free(path);
        /* 3.0 with the same header */
        img[6] = 3;
        path = write_temp(img, total + 5);
        assert_int_equal(tngrt_npy_read(path, &t, &err), 0);
        tngrt_tensor_delete(t);
        unlink(path);
        free(path);
    }
    /* 0-d scalar, numpy's "()" */
    {
        int64_t v = 42;
        len = npy_image(img, "{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
                        &v, 8);
        path = write_temp(img, len);
        assert_int_equal(tngrt_npy_read(path, &t, &err), 0);
        assert_int_equal(t->ndim, 0);
        assert_int_equal(*(int64_t *)t->data, 42);
        tngrt_tensor_delete(t);
        unlink(path);
        free(path);
    }
}

static void test_npy_hostile(void **state)
{
    unsigned char img[512];
    float data[6] = {0};
    size_t len;
    (void)state;
#define LIT(s) s, sizeof s - 1
    npy_rejects(LIT("\x93NUMPX\x01\x00\x00\x00"), "magic");
    npy_rejects(LIT("\x93NUMPY\x01"), "truncated header");
    npy_rejects(LIT("\x93NUMPY\x02\x00\x01"), "truncated header");
    npy_rejects(LIT("\x93NUMPY\x01\x00\xff\x00{"), "past the end");
    npy_rejects(LIT("\x93NUMPY\x02\x00\x00\x00\x10\x00{"), "limit");
    npy_rejects(LIT("\x93NUMPY\x09\x00\x00\x00"), "version");
    len = npy_image(img, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                    data, sizeof data);
    npy_rejects(img, len, "Fortran order is not supported");
    len = npy_image(img, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }",
                    data, sizeof data);
    npy_rejects(img, len, "big-endian");
    len = npy_image(img, "{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }",
                    data, 24);
    npy_rejects(img, len, "<c8");
    len = npy_image(img, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }",
                    data, sizeof data);
    npy_rejects(img, len, "shape");
    len = npy_image(img, "{'descr': '<f4', 'fortran_order': False, "
                    "'shape': (99999999999999999999,), }", data, sizeof data);
    npy_rejects(img, len, "too large");
    len = npy_image(img, "{'descr': '<i8', 'fortran_order': False, "
                    "'shape': (4294967296, 4294967296, 16), }", data, sizeof data);
    npy_rejects(img, len, "overflow");
    len = npy_image(img, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                    data, sizeof data);
    npy_rejects(img, len - 1, "truncated");
    img[len] = 0;
    npy_rejects(img, len + 1, "trailing");
    len = npy_image(img, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), \xc3\xa9}",
                    data, sizeof data);
    npy_rejects(img, len, "header");
    len = npy_image(img, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}",
                    data, sizeof data);
    npy_rejects(img, len, "key");
    len = npy_image(img, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
                    "'shape': (2, 3), }", data, sizeof data);
    npy_rejects(img, len, "repeated");
    len = npy_image(img, "{'fortran_order': False, 'shape': (2, 3), }", data, sizeof data);
    npy_rejects(img, len, "missing");
    {
        TngrtTensor *t = (TngrtTensor *)1;
        TngrtError err = {{0}, TNGRT_ERR_FAILURE};
        assert_int_equal(tngrt_npy_read("/nonexistent/x.npy", &t, &err), -1);
        assert_non_null(strstr(err.msg, "/nonexistent/x.npy"));
    }
}

/* Builds a safetensors image from JSON and a data buffer. */
static size_t st_image(unsigned char *out, const char *json, const void *data, size_t n)
{
    uint64_t len = strlen(json);
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)(len >> (8 * i));
    memcpy(out + 8, json, len);
    if (n)
        memcpy(out + 8 + len, data, n);
    return 8 + len + n;
}

/* Asserts that opening the bytes as safetensors fails, naming the file. */
static void st_rejects(const void *bytes, size_t len, const char *needle)
{
    char *path = write_temp(bytes, len);
    TngrtSafetensors *st = (TngrtSafetensors *)1;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    assert_int_equal(tngrt_safetensors_open(path, &st, &err), -1);
    assert_null(st);
    assert_true(err.msg[0] != '\0');
    assert_non_null(strstr(err.msg, path));
    if (needle && !strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
    unlink(path);
    free(path);
}

static void test_safetensors_valid(void **state)
{
    unsigned char img[1024], data[32];
    float w[4] = {1.5f, -2, 3, 4};
    int64_t b[2] = {7, -9};
    const char *json = "{\"__metadata__\": {\"format\": \"pt\", \"k\\u00e9\": \"v\"}, "
                       "\"w\\/eight\": {\"dtype\": \"F32\", \"shape\": [2, 2], "
                       "\"data_offsets\": [0, 16]}, "
                       "\"bias\": {\"shape\": [2], \"dtype\": \"I64\", "
                       "\"data_offsets\": [16, 32]}}";
    size_t len;
    char *path;
    TngrtSafetensors *st = NULL;
    TngrtTensor v;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    (void)state;
    memcpy(data, w, 16);
    memcpy(data + 16, b, 16);
    len = st_image(img, json, data, 32);
    path = write_temp(img, len);
    if (tngrt_safetensors_open(path, &st, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(tngrt_safetensors_count(st), 2);
    assert_string_equal(tngrt_safetensors_name(st, 0), "w/eight");
    assert_string_equal(tngrt_safetensors_name(st, 1), "bias");
    assert_null(tngrt_safetensors_name(st, 2));
    assert_int_equal(tngrt_safetensors_find(st, "w/eight", &v, &err), 0);
    assert_int_equal(v.dtype, TNGRT_F32);
    assert_int_equal(v.ndim, 2);
    assert_int_equal(v.strides[0], 2);
    assert_int_equal(v.owns, 0);
    assert_memory_equal(v.data, w, 16);
    assert_int_equal(tngrt_safetensors_find(st, "bias", &v, &err), 0);
    {   /* views may be unaligned (the data buffer starts at 8 + N) */
        int64_t got[2];
        memcpy(got, v.data, sizeof got);
        assert_int_equal(got[1], -9);
    }
    assert_int_equal(tngrt_safetensors_find(st, "nope", &v, &err), -1);
    assert_non_null(strstr(err.msg, path));
    tngrt_safetensors_close(st);
    unlink(path);
    free(path);
}

static void test_safetensors_hostile(void **state)
{
    unsigned char img[1024], data[64] = {0};
    size_t len;
    (void)state;
    /* N beyond the file, N huge, file too short */
    len = st_image(img, "{}", NULL, 0);
    img[0] = 200;
    st_rejects(img, len, "past the end");
    img[0] = 0; img[7] = 0x10;
    st_rejects(img, len, "limit");
    st_rejects(LIT("\x02\x00"), "too short");
    /* bad JSON */
    len = st_image(img, "{\"a\": {\"dtype\": \"F32\",}", NULL, 0);
    st_rejects(img, len, "JSON");
    len = st_image(img, "{\"a\" {}}", NULL, 0);
    st_rejects(img, len, "JSON");
    len = st_image(img, "{\"a\\q\": {}}", NULL, 0);
    st_rejects(img, len, "string");
    len = st_image(img, "{} x", NULL, 0);
    st_rejects(img, len, "junk");
    len = st_image(img, "{\"a\": {\"dtype\": \"F32\", \"shape\": [1.5], "
                   "\"data_offsets\": [0, 4]}}", data, 4);
    st_rejects(img, len, "float");
    len = st_image(img, "{\"a\": {\"dtype\": \"F32\", \"shape\": [-1], "
                   "\"data_offsets\": [0, 4]}}", data, 4);
    st_rejects(img, len, "integer");
    /* offsets out of range, begin > end, size mismatch */
    len = st_image(img, "{\"a\": {\"dtype\": \"F32\", \"shape\": [2], "
                   "\"data_offsets\": [0, 8]}}", data, 4);
    st_rejects(img, len, "outside");
    len = st_image(img, "{\"a\": {\"dtype\": \"F32\", \"shape\": [0], "
                   "\"data_offsets\": [4, 0]}}", data, 4);
    st_rejects(img, len, "outside");
    len = st_image(img, "{\"a\": {\"dtype\": \"F32\", \"shape\": [2], "
                   "\"data_offsets\": [0, 4]}}", data, 8);
    st_rejects(img, len, "need");
    len = st_image(img, "{\"a\": {\"dtype\": \"I64\", \"shape\": [4294967296, 4294967296, 16], "
                   "\"data_offsets\": [0, 4]}}", data, 8);
    st_rejects(img, len, "overflow");
    /* unknown dtype, duplicates, overlap, missing key */
    len = st_image(img, "{\"a\": {\"dtype\": \"F8_E4M3\", \"shape\": [4], "
                   "\"data_offsets\": [0, 4]}}", data, 4);
    st_rejects(img, len, "F8_E4M3");
    len = st_image(img, "{\"a\": {\"dtype\": \"I8\", \"shape\": [4], \"data_offsets\": [0, 4]}, "
                   "\"a\": {\"dtype\": \"I8\", \"shape\": [4], \"data_offsets\": [4, 8]}}",
                   data, 8);
    st_rejects(img, len, "duplicate");
    len = st_image(img, "{\"a\": {\"dtype\": \"I8\", \"dtype\": \"I8\", \"shape\": [4], "
                   "\"data_offsets\": [0, 4]}}", data, 4);
    st_rejects(img, len, "duplicate");
    len = st_image(img, "{\"__metadata__\": {\"x\": \"1\", \"x\": \"2\"}}", NULL, 0);
    st_rejects(img, len, "duplicate");
    len = st_image(img, "{\"a\": {\"dtype\": \"I8\", \"shape\": [4], \"data_offsets\": [0, 4]}, "
                   "\"b\": {\"dtype\": \"I8\", \"shape\": [4], \"data_offsets\": [2, 6]}}",
                   data, 8);
    st_rejects(img, len, "overlap");
    len = st_image(img, "{\"a\": {\"dtype\": \"I8\", \"shape\": [4]}}", data, 4);
    st_rejects(img, len, "missing");
    len = st_image(img, "{\"__metadata__\": {\"x\": 1}}", NULL, 0);
    st_rejects(img, len, "string");
    {
        TngrtSafetensors *st = (TngrtSafetensors *)1;
        TngrtError err = {{0}, TNGRT_ERR_FAILURE};
        assert_int_equal(tngrt_safetensors_open("/nonexistent/m.safetensors", &st, &err), -1);
        assert_non_null(strstr(err.msg, "/nonexistent/m.safetensors"));
    }
}

/* The tensors must cover the data buffer exactly, as the format
 * requires: no trailing bytes, no holes. */
static void test_safetensors_exact_cover(void **state)
{
    unsigned char img[1024], data[64] = {0};
    const char *two = "{\"a\": {\"dtype\": \"I8\", \"shape\": [4], \"data_offsets\": [0, 4]}, "
                      "\"b\": {\"dtype\": \"I8\", \"shape\": [0], \"data_offsets\": [4, 4]}}";
    size_t len;
    char *path;
    TngrtSafetensors *st = NULL;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    (void)state;
    len = st_image(img, two, data, 4);   /* exact, with an empty tensor: accepted */
    path = write_temp(img, len);
    if (tngrt_safetensors_open(path, &st, &err) != 0)
        fail_msg("%s", err.msg);
    tngrt_safetensors_close(st);
    unlink(path);
    free(path);
    len = st_image(img, two, data, 5);
    st_rejects(img, len, "1 trailing bytes after the last tensor's data (the data buffer has 5 "
               "bytes, the tensors end at 4)");
    len = st_image(img, "{}", data, 8);
    st_rejects(img, len, "8 trailing bytes");
    len = st_image(img, "{\"a\": {\"dtype\": \"I8\", \"shape\": [2], \"data_offsets\": [0, 2]}, "
                   "\"b\": {\"dtype\": \"I8\", \"shape\": [2], \"data_offsets\": [6, 8]}}",
                   data, 8);
    st_rejects(img, len, "4 bytes of the data buffer belong to no tensor");
}

/* Writes text to dir/name. */
static void put_file(const char *dir, const char *name, const void *bytes, size_t len)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Opens dir/index.json holding text with tngrt_weights_open: 0, or -1
 * with the message holding needle. */
static int index_open(const char *dir, const char *text, const char *needle,
                      TngrtSafetensors **st)
{
    char path[512];
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    int rc;
    put_file(dir, "index.json", text, strlen(text));
    snprintf(path, sizeof path, "%s/index.json", dir);
    rc = tngrt_weights_open(path, st, &err);
    if (needle && (rc == 0 || !strstr(err.msg, needle)))
        fail_msg("index '%s': rc %d, message '%s' lacks '%s'", text, rc, err.msg, needle);
    return rc;
}

static void test_safetensors_index(void **state)
{
    char dir[] = "/tmp/tngrt-unit-index-XXXXXX", path[512];
    unsigned char img[512];
    float a[2] = {1, 2}, b[3] = {3, 4, 5};
    size_t len;
    TngrtSafetensors *st = NULL;
    TngrtTensor v;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    (void)state;
    assert_non_null(mkdtemp(dir));
    len = st_image(img, "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", a, 8);
    put_file(dir, "s1.safetensors", img, len);
    len = st_image(img, "{\"b\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]}}", b, 12);
    put_file(dir, "s2.safetensors", img, len);
    assert_int_equal(index_open(dir, " {\"metadata\": {\"total_size\": 20, \"x\": [1, -2.5e3, null]},"
                                " \"weight_map\": {\"b\": \"s2.safetensors\", \"a\": \"s1.safetensors\"}}",
                                NULL, &st), 0);
    assert_int_equal(tngrt_safetensors_count(st), 2);
    assert_string_equal(tngrt_safetensors_name(st, 0), "b");
    assert_int_equal(tngrt_safetensors_find(st, "a", &v, &err), 0);
    assert_memory_equal(v.data, a, 8);
    assert_int_equal(tngrt_safetensors_find(st, "b", &v, &err), 0);
    assert_int_equal(v.shape[0], 3);
    assert_memory_equal(v.data, b, 12);
    assert_true(tngrt_safetensors_mapped(st));
    tngrt_safetensors_close(st);
    index_open(dir, "{\"weight_map\": {\"a\": \"../s1.safetensors\"}}", "not a plain file name", &st);
    index_open(dir, "{\"weight_map\": {\"a\": \".s1.safetensors\"}}", "not a plain file name", &st);
    index_open(dir, "{\"weight_map\": {\"a\": \"/tmp/s1.safetensors\"}}", "not a plain file name", &st);
    index_open(dir, "{\"weight_map\": {\"a\": \"s2.safetensors\", \"b\": \"s2.safetensors\"}}",
               "its shard", &st);
    len = st_image(img, "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                        "\"c\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", b, 12);
    put_file(dir, "s3.safetensors", img, len);
    index_open(dir, "{\"weight_map\": {\"a\": \"s3.safetensors\"}}",
               "holds tensor 'c', which the index does not map to it", &st);
    index_open(dir, "{\"weight_map\": {\"a\": \"s1.safetensors\", \"c\": \"s3.safetensors\"}}",
               "holds tensor 'a', which the index does not map to it", &st);
    index_open(dir, "{\"weight_map\": {\"a\": \"s1.safetensors\"}, \"weight_map\": {}}",
               "duplicate key", &st);
    index_open(dir, "{\"metadata\": {}}", "no \"weight_map\"", &st);
    index_open(dir, "{\"weight_map\": {\"a\": \"missing.safetensors\"}}", "missing.safetensors", &st);
    index_open(dir, "{\"m\": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]], \"weight_map\": {}}",
               "nested deeper", &st);
    snprintf(path, sizeof path, "%s/index.json", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/s1.safetensors", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/s2.safetensors", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/s3.safetensors", dir);
    unlink(path);
    rmdir(dir);
}

static void test_weights_formats_told(void **state)
{
    static const unsigned char legacy[] = "\x80\x02\x8a\x0a" "lm\xfc\x9c" "F\xf9 j\xa8" "P\x19.";
    static const unsigned char notzip[] = "PK\x03\x04 a zip archive cut short, no end";
    char *path;
    TngrtSafetensors *st = (TngrtSafetensors *)1;
    TngrtError err = {{0}, TNGRT_ERR_FAILURE};
    (void)state;
    path = write_temp(legacy, sizeof legacy - 1);
    assert_int_equal(tngrt_weights_open(path, &st, &err), -1);
    assert_null(st);
    assert_non_null(strstr(err.msg, "before PyTorch 1.6"));
    assert_non_null(strstr(err.msg, path));
    unlink(path);
    free(path);
    path = write_temp(notzip, sizeof notzip - 1);
    assert_int_equal(tngrt_weights_open(path, &st, &err), -1);
    assert_non_null(strstr(err.msg, "end of central directory"));
    unlink(path);
    free(path);
    assert_int_equal(tngrt_weights_open_memory(notzip, sizeof notzip - 1, "m.pt", &st, &err), -1);
    assert_non_null(strstr(err.msg, "m.pt: "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtype_and_tensor),
        cmocka_unit_test(test_npy_round_trips),
        cmocka_unit_test(test_npy_bf16_bits),
        cmocka_unit_test(test_half_from_f32),
        cmocka_unit_test(test_npy_read_as),
        cmocka_unit_test(test_npy_numpy_made),
        cmocka_unit_test(test_npy_hostile),
        cmocka_unit_test(test_safetensors_valid),
        cmocka_unit_test(test_safetensors_hostile),
        cmocka_unit_test(test_safetensors_exact_cover),
        cmocka_unit_test(test_safetensors_index),
        cmocka_unit_test(test_weights_formats_told),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
