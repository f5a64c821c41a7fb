/*
 * rt_one_weight.h - the fixture test_rt_tied.c and test_rt_unread.c share:
 * a generic bundle with no inputs and one f32[3] weight whose output out0
 * is the weight itself (each file declares t_weights, the weight's name),
 * and a writer of safetensors files of f32[3] tensors. Included once per
 * test program, after cmocka.h and tngrt_bundle.h.
 */
#ifndef TNGC_TESTS_RT_ONE_WEIGHT_H
#define TNGC_TESTS_RT_ONE_WEIGHT_H

static int t_s0(void *arg, TngrtExec *x, int s, TngrtError *err)
{
    (void)arg, (void)x, (void)s, (void)err;
    return 0;
}

static void t_outputs(const TngrtRunCtx *c, TngrtTensor *outs)
{
    memset(&outs[0], 0, sizeof outs[0]);
    outs[0].dtype = TNGRT_F32;
    outs[0].ndim = 1;
    outs[0].shape[0] = 3;
    outs[0].strides[0] = 1;
    outs[0].data = c->w[0];
    outs[0].nbytes = 12;
}

static const TngrtDim t_dims[] = {{-1, 3}};
static const TngrtSigTensor t_outs[] = {{"out0", TNGRT_F32, 1, t_dims, 0}};
static const TngrtStreamFn t_streams[] = {t_s0};
static const TngrtGear t_gears[] = {{NULL, 0, NULL, 0, t_streams, t_outputs}};
static const char *const t_names[] = {"default"};

/* Writes a safetensors file of n f32[3] tensors names[i] = 3 floats from
 * vals + 3 i into a new file from the mkstemp pattern tmpl ("/tmp/x-XXXXXX");
 * returns its path (malloc'd). */
static char *write_st(const char *tmpl, int n, const char *const *names, const float *vals)
{
    char header[512], *path = strdup(tmpl);
    size_t len = 0;
    unsigned char size[8];
    len += (size_t)snprintf(header + len, sizeof header - len, "{");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(header + len, sizeof header - len,
                                "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[%d,%d]}",
                                i ? "," : "", names[i], 12 * i, 12 * (i + 1));
    len += (size_t)snprintf(header + len, sizeof header - len, "}");
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    for (int i = 0; i < 8; i++)
        size[i] = (unsigned char)((uint64_t)len >> (8 * i));
    fwrite(size, 1, 8, f);
    fwrite(header, 1, len, f);
    fwrite(vals, 4, (size_t)n * 3, f);
    fclose(f);
    return path;
}

#endif
