/*
 * test_rt_wload.c - unit tests of loading a bundle's weights at scale
 * (BENCHMARKS.md, "Weights at scale"): a weights file is mapped and its aligned tensors read
 * in place, the same bytes given from memory (tngrt_bundle_load_weights_
 * memory) load to the same results, a weight a run updates stays a private
 * copy (the file's or caller's bytes never change), Linear weights are
 * packed from the mapping exactly as tngrt_gemm_pack_weight packs them,
 * truncated or hostile bytes are refused with a message, and a failed load
 * leaves the previous weights in use; where transparent huge pages are
 * on, a file of 2 MiB or more is mapped at a 2 MiB boundary and a private
 * copy of 2 MiB or more is a 2 MiB-aligned block (blocks.c), the same
 * results with TNGRT_HUGEPAGES=0; and the GEMM's streaming loop for a weight past the caches
 * read in place (decode) is exact to float rounding on every ISA path.
 *
 * The model, written here as tngc would generate it: input x f32[16];
 * weights w f32[16], u f32[16] (a buffer the run updates: u += 1 after
 * use), lin f32[64,32] (marked for packing, only its packing is checked);
 * out = x * w + u. The stream function records the weight pointers it
 * saw; it runs on the calling thread's executor, and the run joins it
 * before returning, so the test reads them after the run.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../runtime/internal.h"
#include "../../runtime/tngrt_bundle.h"
#include "../../runtime/tngrt_kernels.h"

#define N 16
#define LN 64
#define LK 32

/* What the last run's stream saw. */
static const void *seen_w, *seen_u;
static const float *seen_pack;

static int m_s0(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    const TngrtRunCtx *c = arg;
    const float *in = c->in[0], *w = c->w[0];
    float *u = c->w[1], *out = (float *)c->arena;
    (void)x, (void)s, (void)err;
    seen_w = c->w[0];
    seen_u = c->w[1];
    seen_pack = c->wpack[2];
    for (int i = 0; i < N; i++) {
        out[i] = in[i] * w[i] + u[i];
        u[i] += 1.0f;
    }
    return 0;
}

static void m_outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    outs[0].data = c->arena;
    outs[0].dtype = TNGRT_F32;
    outs[0].ndim = 1;
    outs[0].shape[0] = N;
    outs[0].strides[0] = 1;
    outs[0].nbytes = N * sizeof(float);
}

static const TngrtDim m_dn[] = {{-1, N}}, m_dl[] = {{-1, LN}, {-1, LK}};
static const TngrtSigTensor m_inputs[] = {{"x", TNGRT_F32, 1, m_dn, 0}};
static const TngrtSigTensor m_weights[] = {
    {"w", TNGRT_F32, 1, m_dn, 0},
    {"u", TNGRT_F32, 1, m_dn, TNGRT_SIG_UPDATED | TNGRT_SIG_BUFFER},
    {"lin", TNGRT_F32, 2, m_dl, TNGRT_SIG_PACK_LINEAR},
};
static const TngrtSigTensor m_outs[] = {{"out0", TNGRT_F32, 1, m_dn, 0}};
static const TngrtStreamFn m_streams[] = {m_s0};
static const TngrtGear m_gears[] = {{NULL, N * sizeof(float), NULL, 0, m_streams, m_outputs}};
static const char *const m_names[] = {"default"};
static const TngrtBundleDesc model = {"m", "M.forward", "m.py", 1, m_inputs, 3, m_weights,
                                      1, m_outs, 0, NULL, 1, m_gears, 1, m_names, 0,
                                      0, NULL, 0, NULL, 0, NULL};

/* A safetensors image of w, u, lin (values from seed), its header padded
 * with blanks so the data starts at a multiple of 64; the image starts at
 * skew bytes past a 64-byte boundary of its block (*block: what free
 * takes). Every tensor's size is a multiple of 64: all aligned when skew
 * is 0. */
static unsigned char *image(float seed, size_t skew, size_t *len, void **block)
{
    char header[512];
    size_t nw = N * 4, nl = (size_t)LN * LK * 4, data, hlen;
    unsigned char *p;
    float v;
    int n = snprintf(header, sizeof header,
                     "{\"w\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[0,%zu]},"
                     "\"u\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[%zu,%zu]},"
                     "\"lin\":{\"dtype\":\"F32\",\"shape\":[%d,%d],\"data_offsets\":[%zu,%zu]}}",
                     N, nw, N, nw, 2 * nw, LN, LK, 2 * nw, 2 * nw + nl);
    hlen = ((size_t)n + 8 + 63) / 64 * 64 - 8;
    data = 8 + hlen;
    *len = data + 2 * nw + nl;
    assert_int_equal(posix_memalign(block, 64, *len + 64), 0);
    p = (unsigned char *)*block + skew;
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)((uint64_t)hlen >> (8 * i));
    memset(p + 8, ' ', hlen);
    memcpy(p + 8, header, (size_t)n);
    for (size_t i = 0; i < 2 * N + (size_t)LN * LK; i++) {
        v = seed + (float)(i % 97) * 0.25f;
        memcpy(p + data + 4 * i, &v, 4);
    }
    return p;
}

/* Writes len bytes at p to a fresh temporary file; returns its path. */
static char *to_file(const unsigned char *p, size_t len)
{
    char *path = strdup("/tmp/tngrt-wload-XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, len, f), len);
    fclose(f);
    return path;
}

/* One run on x = 1, 2, ...; out[0..N) into res. */
static void run(TngrtBundle *b, float *res)
{
    float xs[N];
    TngrtTensor x = {0}, out;
    for (int i = 0; i < N; i++)
        xs[i] = (float)(i + 1);
    x.data = xs;
    x.dtype = TNGRT_F32;
    x.ndim = 1;
    x.shape[0] = N;
    x.strides[0] = 1;
    x.nbytes = sizeof xs;
    if (tngrt_bundle_run(b, &x, 1, &out, 1) != 0)
        fail_msg("run: %s", tngrt_bundle_last_error(b));
    memcpy(res, out.data, sizeof xs);
}

/* The out = x * w + u of the image made from seed (first run: u as loaded). */
static void expect(float seed, float *res)
{
    for (int i = 0; i < N; i++) {
        float w = seed + (float)(i % 97) * 0.25f, u = seed + (float)((N + i) % 97) * 0.25f;
        res[i] = (float)(i + 1) * w + u;
    }
}

static TngrtBundle *fresh(void)
{
    TngrtBundle *b;
    TngrtError err;
    if (tngrt_bundle_new(&b, &model, &err) != 0)
        fail_msg("new: %s", err.msg);
    return b;
}

/* Whether p lies in [base, base + len). */
static int inside(const void *p, const unsigned char *base, size_t len)
{
    return (const unsigned char *)p >= base && (const unsigned char *)p < base + len;
}

static void test_file_and_memory_same(void **state)
{
    size_t len;
    void *block;
    unsigned char *img = image(0.5f, 0, &len, &block);
    char *path = to_file(img, len);
    TngrtBundle *a = fresh(), *b = fresh();
    float ra[N], rb[N], want[N];
    (void)state;
    assert_int_equal(tngrt_bundle_load_weights(a, path), 0);
    unlink(path);   /* the mapping keeps the file's bytes */
    assert_int_equal(tngrt_bundle_load_weights_memory(b, img, len, "weights in memory"), 0);
    run(a, ra);
    run(b, rb);
    expect(0.5f, want);
    assert_memory_equal(ra, want, sizeof want);
    assert_memory_equal(rb, want, sizeof want);
    /* the second run sees u + 1 in both: the update is the bundle's own */
    run(a, ra);
    run(b, rb);
    assert_memory_equal(ra, rb, sizeof ra);
    for (int i = 0; i < N; i++)
        assert_true(ra[i] == want[i] + 1.0f);
    tngrt_bundle_delete(a);
    tngrt_bundle_delete(b);
    free(block);
    free(path);
}

static void test_in_place_when_aligned(void **state)
{
    size_t len, data;
    void *block;
    unsigned char *img = image(1.0f, 0, &len, &block), *copy = malloc(len);
    TngrtBundle *b = fresh();
    float res[N];
    (void)state;
    memcpy(copy, img, len);
    data = len - (2 * N + (size_t)LN * LK) * 4;
    assert_int_equal(tngrt_bundle_load_weights_memory(b, img, len, NULL), 0);
    run(b, res);
    assert_ptr_equal(seen_w, img + data);             /* read in place */
    assert_false(inside(seen_u, img, len));           /* updated: a private copy */
    assert_memory_equal(img, copy, len);              /* the caller's bytes unchanged */
    tngrt_bundle_delete(b);
    free(block);

    /* the same image 1 byte past a boundary (floats misaligned): copied,
     * into a 64-byte aligned block, same results */
    img = image(1.0f, 1, &len, &block);
    b = fresh();
    assert_int_equal(tngrt_bundle_load_weights_memory(b, img, len, NULL), 0);
    {
        float again[N];
        run(b, again);
        assert_memory_equal(again, res, sizeof res);
    }
    assert_false(inside(seen_w, img, len));
    assert_int_equal((uintptr_t)seen_w % 64, 0);
    tngrt_bundle_delete(b);
    free(block);
    free(copy);
}

static void test_packed_from_mapping(void **state)
{
    size_t len, data;
    void *block;
    unsigned char *img = image(2.0f, 0, &len, &block);
    char *path = to_file(img, len);
    float *want = NULL, res[N];
    int64_t size = tngrt_gemm_pack_weight(&want, img + len - (size_t)LN * LK * 4, TNGRT_F32,
                                          LN, LK);
    TngrtBundle *b = fresh();
    (void)state;
    data = len - (2 * N + (size_t)LN * LK) * 4;
    (void)data;
    assert_true(size > 0);
    assert_int_equal(tngrt_bundle_load_weights(b, path), 0);
    run(b, res);
    assert_non_null(seen_pack);
    assert_memory_equal(seen_pack, want, (size_t)size * sizeof(float));
    /* reloading from memory replaces the packing */
    assert_int_equal(tngrt_bundle_load_weights_memory(b, img, len, NULL), 0);
    run(b, res);
    assert_non_null(seen_pack);
    assert_memory_equal(seen_pack, want, (size_t)size * sizeof(float));
    tngrt_bundle_delete(b);
    unlink(path);
    free(path);
    free(want);
    free(block);
}

/* Asserts the bundle's message contains part. */
static void error_has(const TngrtBundle *b, const char *part)
{
    const char *msg = tngrt_bundle_last_error(b);
    if (!strstr(msg, part))
        fail_msg("message '%s' lacks '%s'", msg, part);
}

static void test_hostile_refused_old_kept(void **state)
{
    size_t len, len2;
    void *block, *block2;
    unsigned char *img = image(3.0f, 0, &len, &block), *bad = image(9.0f, 0, &len2, &block2);
    char *path;
    TngrtBundle *b = fresh();
    float res[N], want[N];
    (void)state;
    assert_int_equal(tngrt_bundle_load_weights_memory(b, img, len, "good"), 0);
    /* truncated by one byte, cut inside the header, too short, NULL */
    assert_int_equal(tngrt_bundle_load_weights_memory(b, bad, len2 - 1, "cut"), -1);
    error_has(b, "cut");
    assert_int_equal(tngrt_bundle_load_weights_memory(b, bad, 40, "cut2"), -1);
    error_has(b, "past the end");
    assert_int_equal(tngrt_bundle_load_weights_memory(b, bad, 5, "tiny"), -1);
    error_has(b, "too short");
    assert_int_equal(tngrt_bundle_load_weights_memory(b, NULL, 100, NULL), -1);
    error_has(b, "<memory>");
    /* a header length past any file, then the same as a truncated file */
    bad[7] = 0x7f;
    assert_int_equal(tngrt_bundle_load_weights_memory(b, bad, len2, "huge"), -1);
    error_has(b, "exceeds the limit");
    bad[7] = 0;
    path = to_file(bad, len2 - 3);
    assert_int_equal(tngrt_bundle_load_weights(b, path), -1);
    error_has(b, path);
    unlink(path);
    free(path);
    /* a header whose offsets overlap: refused */
    {
        char *at = strstr((char *)bad + 8, "[64,128]");
        assert_non_null(at);
        memcpy(at, "[ 0,128]", 8);
    }
    assert_int_equal(tngrt_bundle_load_weights_memory(b, bad, len2, "odd"), -1);
    free(block2);   /* the bundle keeps no pointer into refused bytes */
    run(b, res);
    expect(3.0f, want);
    assert_memory_equal(res, want, sizeof want);
    tngrt_bundle_delete(b);
    free(block);
}

/* ---- a model with one large weight: big f32[BIGN] (2 MiB + 64 bytes);
 * out = x * big[0..N) + big[BIGN - N..BIGN) ---- */
#define BIGN ((int64_t)(((size_t)2 << 20) + 64) / 4)

static const void *seen_big;

static int big_s0(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    const TngrtRunCtx *c = arg;
    const float *in = c->in[0], *w = c->w[0];
    float *out = (float *)c->arena;
    (void)x, (void)s, (void)err;
    seen_big = c->w[0];
    for (int i = 0; i < N; i++)
        out[i] = in[i] * w[i] + w[BIGN - N + i];
    return 0;
}

static const TngrtDim big_dn[] = {{-1, BIGN}};
static const TngrtSigTensor big_weights[] = {{"big", TNGRT_F32, 1, big_dn, 0}};
static const TngrtSigTensor big_upd_weights[] = {
    {"big", TNGRT_F32, 1, big_dn, TNGRT_SIG_UPDATED | TNGRT_SIG_BUFFER}};
static const TngrtStreamFn big_streams[] = {big_s0};
static const TngrtGear big_gears[] = {{NULL, N * sizeof(float), NULL, 0, big_streams, m_outputs}};
static const TngrtBundleDesc big_model = {"big", "Big.forward", "big.py", 1, m_inputs, 1,
                                          big_weights, 1, m_outs, 0, NULL, 1, big_gears, 1,
                                          m_names, 0, 0, NULL, 0, NULL, 0, NULL};
/* the same with big a buffer the model updates: a private copy */
static const TngrtBundleDesc big_upd_model = {"big", "Big.forward", "big.py", 1, m_inputs, 1,
                                              big_upd_weights, 1, m_outs, 0, NULL, 1, big_gears,
                                              1, m_names, 0, 0, NULL, 0, NULL, 0, NULL};

/* A safetensors image of big (element i = i % 1000 - 500), its data at
 * *data bytes of a 64-byte-aligned block (*block: what free takes). */
static unsigned char *big_image(size_t *len, size_t *data, void **block)
{
    char header[128];
    size_t nb = (size_t)BIGN * 4, hlen;
    unsigned char *p;
    int n = snprintf(header, sizeof header,
                     "{\"big\":{\"dtype\":\"F32\",\"shape\":[%lld],\"data_offsets\":[0,%zu]}}",
                     (long long)BIGN, nb);
    hlen = ((size_t)n + 8 + 63) / 64 * 64 - 8;
    *data = 8 + hlen;
    *len = *data + nb;
    assert_int_equal(posix_memalign(block, 64, *len), 0);
    p = *block;
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)((uint64_t)hlen >> (8 * i));
    memset(p + 8, ' ', hlen);
    memcpy(p + 8, header, (size_t)n);
    for (int64_t i = 0; i < BIGN; i++) {
        float v = (float)(i % 1000 - 500);
        memcpy(p + *data + 4 * i, &v, 4);
    }
    return p;
}

/* Loads the big image's file into a fresh bundle of desc with
 * TNGRT_HUGEPAGES set to env (NULL: unset), runs it once into res, checks
 * the weight's bytes; returns where the run saw the weight minus the
 * tensor's offset in the file (the mapping's start when read in place). */
static uintptr_t big_load_run(const TngrtBundleDesc *desc, const char *env, float *res)
{
    size_t len, data;
    void *block;
    unsigned char *img = big_image(&len, &data, &block);
    char *path = to_file(img, len);
    TngrtBundle *b;
    TngrtError err;
    uintptr_t base;
    if (env)
        setenv("TNGRT_HUGEPAGES", env, 1);
    else
        unsetenv("TNGRT_HUGEPAGES");
    if (tngrt_bundle_new(&b, desc, &err) != 0)
        fail_msg("new: %s", err.msg);
    assert_int_equal(tngrt_bundle_load_weights(b, path), 0);
    run(b, res);
    assert_memory_equal(seen_big, img + data, (size_t)BIGN * 4);
    base = (uintptr_t)seen_big - data;
    tngrt_bundle_delete(b);
    unlink(path);
    free(path);
    free(block);
    unsetenv("TNGRT_HUGEPAGES");
    return base;
}

/* Where transparent huge pages are on, a weights file of 2 MiB or more is
 * mapped at a 2 MiB boundary (its page cache's 2 MiB folios can be mapped
 * whole), and a private copy of 2 MiB or more is a 2 MiB-aligned block;
 * the same results with TNGRT_HUGEPAGES=0. */
static void test_big_weight_huge_pages(void **state)
{
    const uintptr_t two_mib = (uintptr_t)2 << 20;
    float a[N], off[N], copy[N], want[N];
    size_t data, len;
    void *block;
    int huge;
    (void)state;
    free(big_image(&len, &data, &block));
    unsetenv("TNGRT_HUGEPAGES");
    huge = tngrt__huge_pages();
    if (huge)
        assert_int_equal(big_load_run(&big_model, NULL, a) % two_mib, 0);
    else
        (void)big_load_run(&big_model, NULL, a);
    (void)big_load_run(&big_model, "0", off);
    if (huge)   /* the copy's block: 2 MiB-aligned (the tensor starts it) */
        assert_int_equal((big_load_run(&big_upd_model, NULL, copy) + data) % two_mib, 0);
    else
        (void)big_load_run(&big_upd_model, NULL, copy);
    for (int i = 0; i < N; i++)
        want[i] = (float)(i + 1) * (float)(i % 1000 - 500) +
                  (float)((BIGN - N + i) % 1000 - 500);
    assert_memory_equal(a, want, sizeof want);
    assert_memory_equal(off, want, sizeof want);
    assert_memory_equal(copy, want, sizeof want);
}

/* tngrt__block_alloc: small blocks aligned to TNGRT_BLOCK_ALIGN (zeroed
 * when asked), large ones with huge set 2 MiB-aligned mappings, zero,
 * writable to their last byte; a size past TNGRT_BLOCK_MAX refused. */
static void test_blocks(void **state)
{
    TngrtBlock b;
    unsigned char *p;
    (void)state;
    p = tngrt__block_alloc(&b, 100, 1, 1);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % TNGRT_BLOCK_ALIGN, 0);
    assert_int_equal(b.maplen, 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(p[i], 0);
    tngrt__block_free(&b);
    assert_null(b.raw);
    p = tngrt__block_alloc(&b, TNGRT_BLOCK_HUGE + 1, 0, 1);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % ((uintptr_t)2 << 20), 0);
    assert_int_equal(b.maplen, (size_t)4 << 20);
    assert_int_equal(p[0], 0);
    assert_int_equal(p[TNGRT_BLOCK_HUGE], 0);
    p[TNGRT_BLOCK_HUGE] = 7;
    tngrt__block_free(&b);
    p = tngrt__block_alloc(&b, TNGRT_BLOCK_HUGE + 1, 1, 0);   /* huge not asked: malloc'd */
    assert_non_null(p);
    assert_int_equal(b.maplen, 0);
    assert_int_equal(p[TNGRT_BLOCK_HUGE], 0);
    tngrt__block_free(&b);
    assert_null(tngrt__block_alloc(&b, TNGRT_BLOCK_MAX + 1, 0, 1));
    assert_null(b.raw);
}

/* A Linear's weight too large for the caches, read in place at a few
 * rows (decode: the GEMM's streaming loop): every element within float
 * rounding of a double-precision dot product, on every ISA path. */
static void test_gemv_stream_matches(void **state)
{
    const int64_t m = 5, n = 1027, k = 4101;   /* n * k > 2^22 */
    float *a = malloc((size_t)(m * k) * sizeof(float)), *w = malloc((size_t)(n * k) * sizeof(float));
    float *c = malloc((size_t)(m * n) * sizeof(float));
    uint32_t r = 12345;
    (void)state;
    assert_true(a && w && c);
    for (int64_t i = 0; i < m * k; i++, r = r * 1103515245u + 12345u)
        a[i] = (float)(r >> 9) / 8388608.0f - 1.0f;
    for (int64_t i = 0; i < n * k; i++, r = r * 1103515245u + 12345u)
        w[i] = (float)(r >> 9) / 8388608.0f - 1.0f;
    for (int isa = TNGRT_GEMM_PORTABLE; isa <= TNGRT_GEMM_AVX512; isa++) {
        if (!tngrt_gemm_isa_available((TngrtGemmIsa)isa))
            continue;
        memset(c, 0, (size_t)(m * n) * sizeof(float));
        tngrt_gemm_small_f32_isa((TngrtGemmIsa)isa, m, n, k, a, k, 1, w, 1, k, c, n);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double want = 0, mag = 0;
                for (int64_t kk = 0; kk < k; kk++) {
                    want += (double)a[i * k + kk] * w[j * k + kk];
                    mag += fabs((double)a[i * k + kk] * w[j * k + kk]);
                }
                if (fabs(c[i * n + j] - want) > 1e-6 * mag + 1e-6)
                    fail_msg("isa %d: c[%lld][%lld] = %.9g, want %.9g", isa, (long long)i,
                             (long long)j, (double)c[i * n + j], want);
            }
    }
    free(a);
    free(w);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_and_memory_same),
        cmocka_unit_test(test_in_place_when_aligned),
        cmocka_unit_test(test_packed_from_mapping),
        cmocka_unit_test(test_hostile_refused_old_kept),
        cmocka_unit_test(test_gemv_stream_matches),
        cmocka_unit_test(test_big_weight_huge_pages),
        cmocka_unit_test(test_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
