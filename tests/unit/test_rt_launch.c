/*
 * test_rt_launch.c - unit tests of the launchers' shared logic in libtngcrt
 * (tngrt_launch.h) with a small descriptor written here as tngc would
 * generate it: the gear chosen from the descriptor (a match, no match
 * with and without --pad, the smallest gear that holds the inputs, sizes
 * that disagree, a symbol that may not be padded, an output dim computed
 * from symbols), the inputs padded and the lines the launchers print, the
 * unused-tensor warning and its --strict refusal, results that would share
 * a file, and the results written (cropped back) and renamed into place,
 * or removed with a created --out-dir after a failure.
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
#include <sys/stat.h>
#include <unistd.h>

#include "../../runtime/tngrt_launch.h"

/* ---- the descriptor: x f32[s0,2] (s0 may be padded), y f32[s1] (may
 * not), an output out0 f32[s0,2] (or, in desc_expr, [?]); gears
 * (s0, s1) = (2, 3), (4, 3), (8, 5). ---- */

static int stream0(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    (void)arg, (void)x, (void)s, (void)err;
    return 0;
}

static void outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    (void)c, (void)outs;
}

static const TngrtDim x_dims[] = {{0, 0}, {-1, 2}};
static const TngrtDim y_dims[] = {{1, 0}};
static const TngrtDim o_dims[] = {{0, 0}, {-1, 2}};
static const TngrtDim e_dims[] = {{-2, 0}};
static const TngrtSigTensor ins[] = {{"x", TNGRT_F32, 2, x_dims, 0},
                                     {"y", TNGRT_F32, 1, y_dims, 0}};
static const TngrtSigTensor outs_sig[] = {{"out0", TNGRT_F32, 2, o_dims, 0}};
static const TngrtSigTensor outs_expr[] = {{"out0", TNGRT_F32, 1, e_dims, 0}};
static const TngrtSym syms[] = {{"s0", 0, 0, 1}, {"s1", 1, 0, 0}};
static const int64_t g0_sym[] = {2, 3}, g1_sym[] = {4, 3}, g2_sym[] = {8, 5};
static const TngrtStreamFn streams[] = {stream0};
static const TngrtGear gears[] = {
    {g0_sym, 0, NULL, 0, streams, outputs},
    {g1_sym, 0, NULL, 0, streams, outputs},
    {g2_sym, 0, NULL, 0, streams, outputs},
};
static const char *const stream_names[] = {"default"};
static const TngrtBundleDesc desc = {
    "m", "M.forward", "m.py", 2, ins, 0, NULL, 1, outs_sig, 2, syms, 3, gears, 1, stream_names,
    0, 0, NULL, 0, NULL, 0, NULL,
};

/* A dense f32 tensor of the given shape holding 0, 1, 2, ... */
static TngrtTensor *iota(int ndim, const int64_t *shape)
{
    TngrtTensor *t = tngrt_tensor_new(TNGRT_F32, ndim, shape, NULL);
    assert_non_null(t);
    for (int64_t i = 0; i < tngrt_tensor_numel(t); i++)
        ((float *)t->data)[i] = (float)i;
    return t;
}

/* Chooses the gear for x [xs,2] and y [ys]; the message in msg. */
static int choose(const TngrtBundleDesc *d, int64_t xs, int64_t ys, int pad, int *padded,
                  int64_t *real, char *msg, size_t len)
{
    int64_t xsh[] = {xs, 2}, ysh[] = {ys};
    TngrtTensor *x = iota(2, xsh), *y = iota(1, ysh);
    TngrtTensor in[2];
    int g;
    in[0] = *x;
    in[1] = *y;
    g = tngrt_launch_choose_gear(d, in, 2, pad, real, padded, msg, len);
    tngrt_tensor_delete(x);
    tngrt_tensor_delete(y);
    return g;
}

static void test_choose_gear(void **state)
{
    char msg[TNGRT_LAUNCH_MSG];
    int64_t real[2] = {0, 0};
    int padded = -1;
    (void)state;
    assert_int_equal(choose(&desc, 4, 3, 0, &padded, real, msg, sizeof msg), 1);
    assert_int_equal(padded, 0);
    assert_int_equal(choose(&desc, 4, 3, 1, &padded, real, msg, sizeof msg), 1);
    assert_int_equal(padded, 0);
    /* no match: the message lists the gears and suggests --pad */
    assert_int_equal(choose(&desc, 3, 3, 0, &padded, real, msg, sizeof msg), TNGRT_BAD_INPUT);
    assert_string_equal(msg, "input shapes x=[3,2], y=[3] match no gear; gears: s0=2 s1=3, "
                             "s0=4 s1=3, s0=8 s1=5 (--pad pads up to a larger gear)");
    /* --pad: the smallest gear that holds them */
    assert_int_equal(choose(&desc, 3, 3, 1, &padded, real, msg, sizeof msg), 1);
    assert_int_equal(padded, 1);
    assert_int_equal(real[0], 3);
    assert_int_equal(real[1], 3);
    assert_int_equal(choose(&desc, 1, 5, 1, &padded, real, msg, sizeof msg), 2);
    assert_int_equal(padded, 1);
    /* none large enough */
    assert_int_equal(choose(&desc, 9, 3, 1, &padded, real, msg, sizeof msg), TNGRT_BAD_INPUT);
    assert_non_null(strstr(msg, "match no gear; gears: s0=2 s1=3, s0=4 s1=3, s0=8 s1=5 "
                                "(--pad: no gear is large enough)"));
    /* s1 would be padded from 4 to 5: not row-independent */
    assert_int_equal(choose(&desc, 3, 4, 1, &padded, real, msg, sizeof msg), TNGRT_BAD_INPUT);
    assert_string_equal(msg, "dim s1 (input 'y' dim 0) cannot be padded: the planner did not "
                             "prove it row-independent");
    /* a wrong rank: the input at fault */
    {
        int64_t xsh[] = {6}, ysh[] = {3};
        TngrtTensor *x = iota(1, xsh), *y = iota(1, ysh), in[2];
        in[0] = *x;
        in[1] = *y;
        assert_int_equal(tngrt_launch_choose_gear(&desc, in, 2, 1, real, &padded, msg, sizeof msg),
                         TNGRT_BAD_INPUT);
        assert_string_equal(msg, "input 'x': 1 dims [6], expected 2 [s0,2]");
        assert_int_equal(tngrt_launch_choose_gear(&desc, in, 1, 1, real, &padded, msg, sizeof msg),
                         TNGRT_FAILED);
        tngrt_tensor_delete(x);
        tngrt_tensor_delete(y);
    }
}

static void test_pad_output_expr(void **state)
{
    TngrtBundleDesc d = desc;
    char msg[TNGRT_LAUNCH_MSG];
    int64_t real[2];
    int padded;
    (void)state;
    d.outputs = outs_expr;
    assert_int_equal(choose(&d, 2, 3, 1, &padded, real, msg, sizeof msg), 0);
    assert_int_equal(choose(&d, 3, 3, 1, &padded, real, msg, sizeof msg), TNGRT_BAD_INPUT);
    assert_string_equal(msg, "--pad: output 'out0' dim 0 is computed from symbols, so its padded "
                             "rows cannot be cropped");
}

/* A fresh directory under /tmp. */
static void temp_dir(char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/test_rt_launch.XXXXXX");
    assert_non_null(mkdtemp(dir));
}

/* Writes t to dir/name; returns the path in path. */
static void write_npy(const char *dir, const char *name, const TngrtTensor *t, char *path,
                      size_t len)
{
    TngrtError err;
    snprintf(path, len, "%s/%s", dir, name);
    assert_int_equal(tngrt_npy_write(path, t, &err), 0);
}

static void test_select_pad_and_write(void **state)
{
    char dir[64], out[128], px[128], py[128], line[256], file[256];
    int64_t xsh[] = {3, 2}, ysh[] = {3};
    TngrtTensor *x = iota(2, xsh), *y = iota(1, ysh), *back;
    TngrtLaunch *L;
    TngrtError err;
    const TngrtTensor *run;
    TngrtTensor *o;
    (void)state;
    temp_dir(dir, sizeof dir);
    write_npy(dir, "x.npy", x, px, sizeof px);
    write_npy(dir, "y.npy", y, py, sizeof py);
    assert_int_equal(tngrt_launch_new(&L, &desc, &err), 0);
    assert_null(tngrt_launch_input(L, 0));
    assert_int_equal(tngrt_launch_input_index(&desc, "y=y.npy", 1), 1);
    assert_int_equal(tngrt_launch_input_index(&desc, "z", 1), -1);
    assert_int_equal(tngrt_launch_read_input(L, 0, px), 0);
    assert_int_equal(tngrt_launch_read_input(L, 1, py), 0);
    assert_non_null(tngrt_launch_input(L, 1));
    assert_int_equal(tngrt_launch_select(L, 0), TNGRT_BAD_INPUT);
    assert_non_null(strstr(tngrt_launch_last_error(L), "match no gear"));
    assert_int_equal(tngrt_launch_select(L, 1), 1);
    tngrt_launch_gear_line(L, line, sizeof line);
    assert_string_equal(line, "gear 1: s0=4 s1=3");
    assert_int_equal(tngrt_launch_padded_line(L, 0, line, sizeof line), 1);
    assert_string_equal(line, "padded: x [3,2] -> [4,2]");
    assert_int_equal(tngrt_launch_padded_line(L, 1, line, sizeof line), 0);
    run = tngrt_launch_run_inputs(L);
    assert_int_equal(run[0].shape[0], 4);
    assert_true(((const float *)run[0].data)[5] == 5.0f && ((const float *)run[0].data)[6] == 0.0f);

    /* the run's output: x padded, as a view; written cropped back to 3 rows */
    o = tngrt_launch_outputs(L);
    o[0] = run[0];
    snprintf(out, sizeof out, "%s/res", dir);
    assert_int_equal(tngrt_launch_check_trace(L, NULL), 0);
    assert_int_equal(tngrt_launch_make_out_dir(L, out), 0);
    assert_int_equal(tngrt_launch_check_result_paths(L), 0);
    assert_int_equal(tngrt_launch_write_results(L, NULL, NULL), 0);
    assert_int_equal(tngrt_launch_file_count(L), 1);
    snprintf(file, sizeof file, "%s/out0.npy", out);
    assert_string_equal(tngrt_launch_file(L, 0), file);
    assert_int_equal(access(file, F_OK), -1);   /* not before the install */
    assert_int_equal(tngrt_launch_install(L), 0);
    assert_int_equal(tngrt_npy_read(file, &back, &err), 0);
    assert_int_equal(back->shape[0], 3);
    assert_memory_equal(back->data, x->data, 6 * sizeof(float));
    tngrt_tensor_delete(back);
    tngrt_launch_delete(L);
    unlink(file);
    rmdir(out);
    unlink(px);
    unlink(py);
    rmdir(dir);
    tngrt_tensor_delete(x);
    tngrt_tensor_delete(y);
}

static void test_abandon(void **state)
{
    char dir[64], out[128], trace[160];
    TngrtLaunch *L;
    TngrtError err;
    TngrtTensor *o;
    int64_t sh[] = {2, 2};
    TngrtTensor *t = iota(2, sh);
    (void)state;
    temp_dir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/res", dir);
    snprintf(trace, sizeof trace, "%s/none/t.json", dir);
    assert_int_equal(tngrt_launch_new(&L, &desc, &err), 0);
    assert_int_equal(tngrt_launch_check_trace(L, trace), TNGRT_BAD_INPUT);
    assert_non_null(strstr(tngrt_launch_last_error(L), "': no such directory"));
    assert_int_equal(tngrt_launch_check_trace(L, dir), TNGRT_BAD_INPUT);
    assert_non_null(strstr(tngrt_launch_last_error(L), "' is a directory"));
    assert_int_equal(tngrt_launch_make_out_dir(L, out), 0);
    o = tngrt_launch_outputs(L);
    o[0] = *t;
    assert_int_equal(tngrt_launch_write_results(L, NULL, NULL), 0);
    tngrt_launch_abandon(L);   /* the temporary file and the created directory go */
    tngrt_launch_delete(L);
    assert_int_equal(access(out, F_OK), -1);
    /* a malformed output: a runtime failure */
    assert_int_equal(tngrt_launch_new(&L, &desc, &err), 0);
    assert_int_equal(tngrt_launch_make_out_dir(L, dir), 0);
    o = tngrt_launch_outputs(L);
    o[0] = *t;
    o[0].ndim = -1;
    assert_int_equal(tngrt_launch_write_results(L, NULL, NULL), TNGRT_FAILED);
    assert_string_equal(tngrt_launch_last_error(L),
                        "output 'out0': the bundle returned a malformed tensor");
    tngrt_launch_abandon(L);   /* --out-dir existed: kept */
    tngrt_launch_delete(L);
    assert_int_equal(rmdir(dir), 0);
    tngrt_tensor_delete(t);
}

static void test_unused(void **state)
{
    const char *names[] = {"a", "b", "c"};
    TngrtLaunch *L;
    TngrtError err;
    (void)state;
    assert_int_equal(tngrt_launch_new(&L, &desc, &err), 0);
    assert_int_equal(tngrt_launch_unused(L, "w.st", 0, names, 1), 0);
    assert_int_equal(tngrt_launch_unused(L, "w.st", 1, names, 0), 1);
    assert_string_equal(tngrt_launch_last_error(L),
                        "w.st: 1 tensor the model does not use, ignored: 'a'");
    assert_int_equal(tngrt_launch_unused(L, "w.st", 5, names, 0), 1);
    assert_string_equal(tngrt_launch_last_error(L), "w.st: 5 tensors the model does not use, "
                                                    "ignored: 'a', 'b', 'c' and 2 more");
    assert_int_equal(tngrt_launch_unused(L, "w.st", 2, names, 1), TNGRT_BAD_INPUT);
    assert_string_equal(tngrt_launch_last_error(L),
                        "w.st: 2 tensors the model does not use (--strict): 'a', 'b'");
    tngrt_launch_delete(L);
}

static void test_result_clash(void **state)
{
    static const TngrtSigTensor in2[] = {{"k[0]", TNGRT_F32, 2, x_dims, TNGRT_SIG_UPDATED},
                                         {"y", TNGRT_F32, 1, y_dims, 0}};
    static const TngrtSigTensor out2[] = {{"k_0_", TNGRT_F32, 2, o_dims, 0}};
    static const TngrtSigTensor out3[] = {{"y", TNGRT_F32, 2, o_dims, 0}};
    TngrtBundleDesc d = desc;
    char file[64];
    int a = -1, b = -1;
    (void)state;
    assert_int_equal(tngrt_launch_result_clash(&desc, &a, &b, file, sizeof file), 0);
    d.inputs = in2;
    assert_int_equal(tngrt_launch_result_clash(&d, &a, &b, file, sizeof file), 0);
    d.outputs = out2;
    assert_int_equal(tngrt_launch_result_clash(&d, &a, &b, file, sizeof file), 1);
    assert_int_equal(a, 1);   /* input 'k[0]' ... */
    assert_int_equal(b, 0);   /* ... and output 'k_0_' */
    assert_string_equal(file, "k_0_.npy");
    assert_string_equal(tngrt_launch_result_name(&d, a), "k[0]");
    /* an input not updated in place is no result */
    d.outputs = out3;
    assert_null(tngrt_launch_result_name(&d, 2));
    assert_int_equal(tngrt_launch_result_clash(&d, &a, &b, NULL, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choose_gear),
        cmocka_unit_test(test_pad_output_expr),
        cmocka_unit_test(test_select_pad_and_write),
        cmocka_unit_test(test_abandon),
        cmocka_unit_test(test_unused),
        cmocka_unit_test(test_result_clash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
