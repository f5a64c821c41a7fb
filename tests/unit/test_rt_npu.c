/*
 * test_rt_npu.c - unit tests of the torch_npu fused-op kernels
 * (tngrt_kernels.h, "kernels: torch_npu fused ops"): add_rms_norm,
 * rotary_mul, dynamic_quant, moe_gating_top_k_softmax, fused_attention,
 * scatter_update and scatter_nd_update,
 * against reference loops written here in double from the formulas of
 * tests/ref/stubs/torch_npu, and their error returns (fused_attention's
 * lengths and block table are data: checked at run time).
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "../../runtime/tngrt_kernels.h"

/* A float32 / int operand over caller storage. */
static TngrtArg t_arg(void *data, TngrtDType dt, int ndim, const int64_t *shape)
{
    TngrtArg a = {data, dt, ndim, shape};
    return a;
}

/* A deterministic value in [-1, 1) for index i and seed s. */
static float t_val(int i, int s)
{
    unsigned u = (unsigned)(i * 2654435761u + (unsigned)s * 40503u);
    return (float)((u >> 8) % 2000) / 1000.0f - 1.0f;
}

static void t_fill(float *x, int n, int s)
{
    for (int i = 0; i < n; i++)
        x[i] = t_val(i, s);
}

/* y, rstd, x = add_rms_norm(x1, x2, gamma) over the last dim (8) of [3, 8]. */
static void test_add_rms_norm(void **state)
{
    (void)state;
    float x1[24], x2[24], g[8], y[24], rstd[3], xo[24];
    int64_t sx[2] = {3, 8}, sg[1] = {8}, sr[2] = {3, 1};
    t_fill(x1, 24, 1);
    t_fill(x2, 24, 2);
    t_fill(g, 8, 3);
    TngrtArg ay = t_arg(y, TNGRT_F32, 2, sx), ar = t_arg(rstd, TNGRT_F32, 2, sr), ao = t_arg(xo, TNGRT_F32, 2, sx);
    TngrtArg a1 = t_arg(x1, TNGRT_F32, 2, sx), a2 = t_arg(x2, TNGRT_F32, 2, sx), ag = t_arg(g, TNGRT_F32, 1, sg);
    tngrt_kernel_add_rms_norm(&ay, &ar, &ao, &a1, &a2, &ag, 1e-5);
    for (int r = 0; r < 3; r++) {
        double ms = 0;
        for (int j = 0; j < 8; j++)
            ms += (double)(x1[r * 8 + j] + x2[r * 8 + j]) * (x1[r * 8 + j] + x2[r * 8 + j]) / 8.0;
        double rs = 1.0 / sqrt(ms + 1e-5);
        assert_true(fabs(rstd[r] - rs) <= 1e-5 * rs);
        for (int j = 0; j < 8; j++) {
            double s = (double)x1[r * 8 + j] + x2[r * 8 + j];
            assert_true(xo[r * 8 + j] == (float)(x1[r * 8 + j] + x2[r * 8 + j]));
            assert_true(fabs(y[r * 8 + j] - s * rs * g[j]) <= 1e-5 * (fabs(s * rs * g[j]) + 1e-3));
        }
    }
}

/* rotary_mul on x [2, 3, 4] with r1, r2 [3, 4] (broadcast over dim 0), in
 * both modes. */
static void test_rotary_mul(void **state)
{
    (void)state;
    float x[24], r1[12], r2[12], out[24];
    int64_t sx[3] = {2, 3, 4}, sr[2] = {3, 4};
    t_fill(x, 24, 4);
    t_fill(r1, 12, 5);
    t_fill(r2, 12, 6);
    TngrtArg ao = t_arg(out, TNGRT_F32, 3, sx), ax = t_arg(x, TNGRT_F32, 3, sx);
    TngrtArg a1 = t_arg(r1, TNGRT_F32, 2, sr), a2 = t_arg(r2, TNGRT_F32, 2, sr);
    for (int mode = 0; mode < 2; mode++) {
        tngrt_kernel_rotary_mul(&ao, &ax, &a1, &a2, mode);
        for (int i = 0; i < 24; i++) {
            int d = i % 4, row = i - d, ri = i % 12;
            double rot = mode == 0 ? (d < 2 ? -x[row + d + 2] : x[row + d - 2])
                                   : (d % 2 == 0 ? -x[i + 1] : x[i - 1]);
            double want = (double)x[i] * r1[ri] + rot * r2[ri];
            assert_true(fabs(out[i] - want) <= 1e-6);
        }
    }
}

/* dynamic_quant of [3, 5] with a zero row, with and without smooth scales. */
static void test_dynamic_quant(void **state)
{
    (void)state;
    float x[15], sm[5] = {0.5f, 1.0f, 2.0f, 1.5f, 0.25f}, scale[3];
    int8_t y[15];
    int64_t sx[2] = {3, 5}, ss[1] = {5}, sc[1] = {3};
    t_fill(x, 15, 7);
    for (int j = 0; j < 5; j++)
        x[5 + j] = 0.0f;
    TngrtArg ay = t_arg(y, TNGRT_I8, 2, sx), as = t_arg(scale, TNGRT_F32, 1, sc), ax = t_arg(x, TNGRT_F32, 2, sx);
    TngrtArg am = t_arg(sm, TNGRT_F32, 1, ss);
    for (int with = 0; with < 2; with++) {
        tngrt_kernel_dynamic_quant(&ay, &as, &ax, with ? &am : NULL);
        for (int r = 0; r < 3; r++) {
            float m = 0.0f;
            for (int j = 0; j < 5; j++)
                m = fmaxf(m, fabsf(x[r * 5 + j] * (with ? sm[j] : 1.0f)));
            assert_true(scale[r] == m / 127.0f);
            for (int j = 0; j < 5; j++) {
                float v = x[r * 5 + j] * (with ? sm[j] : 1.0f);
                int want = m > 0.0f ? (int)nearbyintf(v / (m / 127.0f)) : 0;
                assert_int_equal(y[r * 5 + j], want);
            }
        }
    }
    assert_int_equal(y[5], 0);
}

/* moe_gating_top_k_softmax: descending order, ties to the lower expert,
 * finished rows get e, row_idx = j * rows + r. */
static void test_moe_gating(void **state)
{
    (void)state;
    float x[8] = {0.1f, 2.0f, 2.0f, -1.0f, 3.0f, 0.0f, 1.0f, 0.5f}, y[4];
    int32_t ei[4], ri[4];
    uint8_t fin[2] = {0, 1};
    int64_t sx[2] = {2, 4}, sy[2] = {2, 2}, sf[1] = {2};
    TngrtArg ax = t_arg(x, TNGRT_F32, 2, sx), ay = t_arg(y, TNGRT_F32, 2, sy);
    TngrtArg ae = t_arg(ei, TNGRT_I32, 2, sy), ar = t_arg(ri, TNGRT_I32, 2, sy), af = t_arg(fin, TNGRT_BOOL, 1, sf);
    tngrt_kernel_moe_gating_top_k_softmax(&ay, &ae, &ar, &ax, &af, 2);
    assert_int_equal(ei[0], 1);
    assert_int_equal(ei[1], 2);
    assert_int_equal(ei[2], 4);   /* finished: num_expert */
    assert_int_equal(ei[3], 4);
    assert_int_equal(ri[0], 0);
    assert_int_equal(ri[1], 2);
    assert_int_equal(ri[2], 1);
    assert_int_equal(ri[3], 3);
    double s0 = exp(0.1) + 2 * exp(2.0) + exp(-1.0);
    assert_true(fabs(y[0] - exp(2.0) / s0) < 1e-6 && y[0] == y[1]);
    double s1 = exp(3.0) + exp(0.0) + exp(1.0) + exp(0.5);
    assert_true(fabs(y[2] - exp(3.0) / s1) < 1e-6 && fabs(y[3] - exp(1.0) / s1) < 1e-6);
}

/* Attention attrs: BSND, 2 heads, 1 kv head, the given sparse mode, no
 * band, lse on, no blocks, no listed lengths. */
static void t_attrs(int64_t *a, int mode)
{
    int64_t v[12] = {1, 2, 1, mode, INT64_MAX / 2, INT64_MAX / 2, 1, 0, -1, 0, -1, 0};
    memcpy(a, v, sizeof v);
}

/* fused_attention with lengths as int64 tensors, GQA, BSND [2, 3, 2, 4]
 * against [2, 5, 1, 4], sparse mode 3; rows beyond the query length are
 * zeros with lse +inf. */
static void test_attention_lengths(void **state)
{
    (void)state;
    float q[48], k[40], v[40], out[48], lse[12];
    int64_t lq[2] = {3, 1}, lkv[2] = {5, 2}, attr[12];
    int64_t sq[4] = {2, 3, 2, 4}, skv[4] = {2, 5, 1, 4}, sl[4] = {2, 2, 3, 1}, sn[1] = {2};
    t_fill(q, 48, 8);
    t_fill(k, 40, 9);
    t_fill(v, 40, 10);
    t_attrs(attr, 3);
    TngrtArg ao = t_arg(out, TNGRT_F32, 4, sq), al = t_arg(lse, TNGRT_F32, 4, sl);
    TngrtArg aq = t_arg(q, TNGRT_F32, 4, sq), ak = t_arg(k, TNGRT_F32, 4, skv), av = t_arg(v, TNGRT_F32, 4, skv);
    TngrtArg alq = t_arg(lq, TNGRT_I64, 1, sn), alk = t_arg(lkv, TNGRT_I64, 1, sn);
    TngrtError err;
    memset(&err, 0, sizeof err);
    assert_int_equal(tngrt_kernel_fused_attention(&ao, &al, &aq, &ak, &av, NULL, NULL, &alq, &alk, attr, 0.5, &err), 0);
    for (int b = 0; b < 2; b++)
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < 3; i++) {
                const float *qi = q + ((b * 3 + i) * 2 + h) * 4;
                float *oi = out + ((b * 3 + i) * 2 + h) * 4;
                double s[5], mx = -INFINITY, sum = 0, o[4] = {0, 0, 0, 0};
                int n = 0;
                if (i >= lq[b]) {
                    for (int d = 0; d < 4; d++)
                        assert_true(oi[d] == 0.0f);
                    assert_true(isinf(lse[(b * 2 + h) * 3 + i]));
                    continue;
                }
                for (int j = 0; j < lkv[b] && j <= i + lkv[b] - lq[b]; j++, n++) {
                    s[j] = 0;
                    for (int d = 0; d < 4; d++)
                        s[j] += (double)qi[d] * k[(b * 5 + j) * 4 + d];
                    s[j] *= 0.5;
                    mx = fmax(mx, s[j]);
                }
                for (int j = 0; j < n; j++)
                    sum += exp(s[j] - mx);
                for (int j = 0; j < n; j++)
                    for (int d = 0; d < 4; d++)
                        o[d] += exp(s[j] - mx) / sum * v[(b * 5 + j) * 4 + d];
                for (int d = 0; d < 4; d++)
                    assert_true(fabs(oi[d] - o[d]) < 1e-5);
                assert_true(fabs(lse[(b * 2 + h) * 3 + i] - (mx + log(sum))) < 1e-5);
            }
    /* a length beyond the sequence, and a count other than the batch */
    lkv[1] = 6;
    assert_int_equal(tngrt_kernel_fused_attention(&ao, &al, &aq, &ak, &av, NULL, NULL, &alq, &alk, attr, 0.5, &err), -1);
    assert_int_equal(err.kind, TNGRT_ERR_BAD_INPUT);
    assert_non_null(strstr(err.msg, "actual_seq_lengths_kv[1] = 6"));
    lkv[1] = 2;
    attr[9] = 3, attr[8] = 2;
    assert_int_equal(tngrt_kernel_fused_attention(&ao, &al, &aq, &ak, &av, NULL, NULL, NULL, &alk, attr, 0.5, &err), -1);
    assert_non_null(strstr(err.msg, "one value per batch"));
}

/* Paged key/value: a block index outside the cache is an error; a mask
 * that masks a whole row gives zeros and lse +inf. */
static void test_attention_paged_and_mask(void **state)
{
    (void)state;
    float q[16], kc[48], vc[48], out[16], lse[4];
    int32_t bt[4] = {2, 0, 1, 5};
    uint8_t mask[4] = {1, 1, 0, 1};  /* [Sq = 1, Skv = 4]: only key 2 */
    int64_t attr[12];
    int64_t sq[3] = {2, 1, 8}, sc[3] = {3, 2, 8}, sb[2] = {2, 2}, sl[4] = {2, 2, 1, 1}, sm[2] = {1, 4};
    t_fill(q, 16, 11);
    t_fill(kc, 48, 12);
    t_fill(vc, 48, 13);
    t_attrs(attr, 0);
    attr[0] = 0, attr[2] = 2, attr[7] = 2;   /* BSH, 2 kv heads, block size 2 */
    TngrtArg ao = t_arg(out, TNGRT_F32, 3, sq), al = t_arg(lse, TNGRT_F32, 4, sl);
    TngrtArg aq = t_arg(q, TNGRT_F32, 3, sq), ak = t_arg(kc, TNGRT_F32, 3, sc), av = t_arg(vc, TNGRT_F32, 3, sc);
    TngrtArg abt = t_arg(bt, TNGRT_I32, 2, sb), am = t_arg(mask, TNGRT_BOOL, 2, sm);
    TngrtError err;
    memset(&err, 0, sizeof err);
    assert_int_equal(tngrt_kernel_fused_attention(&ao, &al, &aq, &ak, &av, &am, &abt, NULL, NULL, attr, 1.0, &err), -1);
    assert_int_equal(err.kind, TNGRT_ERR_BAD_INPUT);
    assert_non_null(strstr(err.msg, "block 5, outside [0, 3)"));
    bt[3] = 1;
    assert_int_equal(tngrt_kernel_fused_attention(&ao, &al, &aq, &ak, &av, &am, &abt, NULL, NULL, attr, 1.0, &err), 0);
    /* batch 0: key 2 is row 0 of block 0; one key: out = v of it */
    for (int h = 0; h < 2; h++)
        for (int d = 0; d < 4; d++)
            assert_true(fabsf(out[h * 4 + d] - vc[(0 * 2 + 0) * 8 + h * 4 + d]) < 1e-6f);
    /* batch 1: key 2 is row 0 of block 1 */
    for (int h = 0; h < 2; h++)
        for (int d = 0; d < 4; d++)
            assert_true(fabsf(out[8 + h * 4 + d] - vc[(1 * 2 + 0) * 8 + h * 4 + d]) < 1e-6f);
    mask[2] = 1;   /* every key masked */
    assert_int_equal(tngrt_kernel_fused_attention(&ao, &al, &aq, &ak, &av, &am, &abt, NULL, NULL, attr, 1.0, &err), 0);
    for (int i = 0; i < 16; i++)
        assert_true(out[i] == 0.0f);
    for (int i = 0; i < 4; i++)
        assert_true(isinf(lse[i]) && lse[i] > 0);
}

/* scatter_update along axis 1 of [2, 4, 3] with 2-row updates, and a
 * position that does not fit (nothing written); scatter_nd_update of rows
 * and a bad index. */
static void test_scatter(void **state)
{
    (void)state;
    float data[24], up[12], keep[24];
    int64_t pos[2] = {2, 0}, sd[3] = {2, 4, 3}, su[3] = {2, 2, 3}, sp[1] = {2};
    TngrtError err;
    memset(&err, 0, sizeof err);
    t_fill(data, 24, 14);
    t_fill(up, 12, 15);
    memcpy(keep, data, sizeof data);
    TngrtArg ad = t_arg(data, TNGRT_F32, 3, sd), au = t_arg(up, TNGRT_F32, 3, su), ap = t_arg(pos, TNGRT_I64, 1, sp);
    assert_int_equal(tngrt_kernel_scatter_update(&ad, &ap, &au, 1, &err), 0);
    for (int b = 0; b < 2; b++)
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 3; c++) {
                int t = r - (int)pos[b];
                float want = t >= 0 && t < 2 ? up[(b * 2 + t) * 3 + c] : keep[(b * 4 + r) * 3 + c];
                assert_true(data[(b * 4 + r) * 3 + c] == want);
            }
    memcpy(keep, data, sizeof data);
    pos[1] = 3;
    assert_int_equal(tngrt_kernel_scatter_update(&ad, &ap, &au, 1, &err), -1);
    assert_int_equal(err.kind, TNGRT_ERR_BAD_INPUT);
    assert_memory_equal(data, keep, sizeof data);
    /* nd: var [4, 3], indices [[2], [0], [2]] (the last write wins) */
    float var[12], rows[9];
    int32_t idx[3] = {2, 0, 2};
    int64_t sv[2] = {4, 3}, si[2] = {3, 1}, sr[2] = {3, 3};
    t_fill(var, 12, 16);
    t_fill(rows, 9, 17);
    memcpy(keep, var, sizeof var);
    TngrtArg av = t_arg(var, TNGRT_F32, 2, sv), ai = t_arg(idx, TNGRT_I32, 2, si), ar = t_arg(rows, TNGRT_F32, 2, sr);
    assert_int_equal(tngrt_kernel_scatter_nd_update(&av, &ai, &ar, &err), 0);
    for (int c = 0; c < 3; c++) {
        assert_true(var[0 * 3 + c] == rows[1 * 3 + c]);
        assert_true(var[1 * 3 + c] == keep[1 * 3 + c]);
        assert_true(var[2 * 3 + c] == rows[2 * 3 + c]);
        assert_true(var[3 * 3 + c] == keep[3 * 3 + c]);
    }
    idx[1] = 4;
    assert_int_equal(tngrt_kernel_scatter_nd_update(&av, &ai, &ar, &err), -1);
    assert_non_null(strstr(err.msg, "index 4 of dim 0"));
}

/* rotary_mul's interleave-half mode (npu_interleave_rope) on [2, 4]. */
static void test_interleave_rope(void **state)
{
    (void)state;
    float x[8], c[4], s[4], out[8];
    int64_t sx[2] = {2, 4}, sc[1] = {4};
    t_fill(x, 8, 18);
    t_fill(c, 4, 19);
    t_fill(s, 4, 20);
    TngrtArg ao = t_arg(out, TNGRT_F32, 2, sx), ax = t_arg(x, TNGRT_F32, 2, sx);
    TngrtArg ac = t_arg(c, TNGRT_F32, 1, sc), as = t_arg(s, TNGRT_F32, 1, sc);
    tngrt_kernel_rotary_mul(&ao, &ax, &ac, &as, 3);
    for (int r = 0; r < 2; r++) {
        const float *xr = x + r * 4;
        double q[4] = {xr[0], xr[2], xr[1], xr[3]}, rot[4] = {-q[2], -q[3], q[0], q[1]};
        for (int d = 0; d < 4; d++)
            assert_true(fabs(out[r * 4 + d] - (q[d] * c[d] + rot[d] * s[d])) < 1e-6);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_rms_norm),
        cmocka_unit_test(test_rotary_mul),
        cmocka_unit_test(test_dynamic_quant),
        cmocka_unit_test(test_moe_gating),
        cmocka_unit_test(test_attention_lengths),
        cmocka_unit_test(test_attention_paged_and_mask),
        cmocka_unit_test(test_scatter),
        cmocka_unit_test(test_interleave_rope),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
