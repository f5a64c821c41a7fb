/* ONNX Runtime as a benchmark contender: loads libonnxruntime.so.1 with
 * dlopen, runs one .onnx model on .npy inputs through ORT's C API, times
 * OrtApi::Run alone, and writes the outputs as .npy files, with the same
 * command line and "latency: p50 X us" line as a bundle's launcher, so the
 * benchmarks drive both the same way.
 *
 * No ONNX Runtime header ships with the npm package, so the few entries of
 * the OrtApi function table used here are declared below by their index in
 * that table. The table's order is fixed and append-only across releases
 * (ONNX Runtime's public C API, onnxruntime_c_api.h, "struct OrtApi"): the
 * indices were counted from that documentation and are checked at run time
 * only by the results (the benchmarks compare every output with PyTorch's).
 *
 * Session: one intra-op thread, one inter-op thread, sequential execution,
 * graph optimisation level "all" (ORT_ENABLE_ALL).
 *
 * usage: ort_bench --lib LIBONNXRUNTIME --model M.onnx
 *                  [--input NAME=FILE.npy]... --out-dir DIR
 *                  [--warmup N] [--iters N]
 * Every input the session declares needs a --input of that name; outputs
 * are written in the session's order as DIR/out0.npy, out1.npy, ... */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the OrtApi entries used (index in the table, signature) ---- */

typedef struct OrtStatus OrtStatus;

/* Indices in struct OrtApi (0-based). */
enum {
    ORT_GET_ERROR_MESSAGE = 2,
    ORT_CREATE_ENV = 3,
    ORT_CREATE_SESSION = 7,
    ORT_RUN = 9,
    ORT_CREATE_SESSION_OPTIONS = 10,
    ORT_SET_SESSION_EXECUTION_MODE = 13,
    ORT_SET_GRAPH_OPTIMIZATION_LEVEL = 23,
    ORT_SET_INTRA_OP_NUM_THREADS = 24,
    ORT_SET_INTER_OP_NUM_THREADS = 25,
    ORT_SESSION_GET_INPUT_COUNT = 30,
    ORT_SESSION_GET_OUTPUT_COUNT = 31,
    ORT_SESSION_GET_INPUT_NAME = 36,
    ORT_SESSION_GET_OUTPUT_NAME = 37,
    ORT_CREATE_TENSOR_WITH_DATA = 49,
    ORT_GET_TENSOR_MUTABLE_DATA = 51,
    ORT_GET_TENSOR_ELEMENT_TYPE = 60,
    ORT_GET_DIMENSIONS_COUNT = 61,
    ORT_GET_DIMENSIONS = 62,
    ORT_GET_TENSOR_TYPE_AND_SHAPE = 65,
    ORT_CREATE_CPU_MEMORY_INFO = 69,
    ORT_GET_DEFAULT_ALLOCATOR = 78,
    ORT_RELEASE_VALUE = 96,
    ORT_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO = 99
};

/* Enum values of ORT's C API used here. */
enum {
    ORT_LOG_WARNING = 2,
    ORT_ENABLE_ALL = 99,
    ORT_SEQUENTIAL = 0,
    ORT_ARENA_ALLOCATOR = 1,
    ORT_MEM_TYPE_DEFAULT = 0,
    ONNX_FLOAT = 1,
    ONNX_INT32 = 6,
    ONNX_INT64 = 7,
    ONNX_BOOL = 9
};

/* The table: OrtApiBase's GetApi returns a pointer to an array of function
 * pointers; each is called through a cast to its signature. */
typedef void (*ort_fn)(void);
typedef struct {
    const ort_fn *(*get_api)(uint32_t version);
    const char *(*get_version_string)(void);
} ort_api_base;

/* ORT 1.x API versions count from 1; 16 (ORT 1.16) has every entry used
 * here, and newer libraries serve older versions. */
#define ORT_API_VERSION_USED 16u

static const ort_fn *ort_api;

#define ORT_CALL(idx, type) ((type)ort_api[idx])

typedef OrtStatus *(*fn_create_env)(int, const char *, void **);
typedef OrtStatus *(*fn_create_opts)(void **);
typedef OrtStatus *(*fn_opts_int)(void *, int);
typedef OrtStatus *(*fn_create_session)(const void *, const char *, const void *, void **);
typedef OrtStatus *(*fn_count)(const void *, size_t *);
typedef OrtStatus *(*fn_name)(const void *, size_t, void *, char **);
typedef OrtStatus *(*fn_cpu_info)(int, int, void **);
typedef OrtStatus *(*fn_allocator)(void **);
typedef OrtStatus *(*fn_tensor)(const void *, void *, size_t, const int64_t *, size_t, int,
                                void **);
typedef OrtStatus *(*fn_run)(void *, const void *, const char *const *, const void *const *,
                             size_t, const char *const *, size_t, void **);
typedef OrtStatus *(*fn_data)(void *, void **);
typedef OrtStatus *(*fn_type_shape)(const void *, void **);
typedef OrtStatus *(*fn_elem_type)(const void *, int *);
typedef OrtStatus *(*fn_dims_count)(const void *, size_t *);
typedef OrtStatus *(*fn_dims)(const void *, int64_t *, size_t);
typedef const char *(*fn_message)(const OrtStatus *);
typedef void (*fn_release)(void *);

/* Exits with ORT's message when a call failed (the status is not freed:
 * the process ends). */
static void ort__check(OrtStatus *st, const char *what)
{
    if (st == NULL)
        return;
    fprintf(stderr, "ort_bench: %s: %s\n", what,
            ORT_CALL(ORT_GET_ERROR_MESSAGE, fn_message)(st));
    exit(1);
}

/* ---- .npy files ---- */

#define MAX_DIMS 8
#define MAX_IO 64

typedef struct {
    char name[256];
    int type;               /* ONNX element type */
    size_t elem;            /* bytes per element */
    size_t ndim;
    int64_t dims[MAX_DIMS];
    void *data;
    size_t bytes;
} npy_array;

/* Reads a little-endian C-order .npy of float32, int32, int64 or bool. */
static void npy_read(const char *path, npy_array *a)
{
    FILE *f = fopen(path, "rb");
    unsigned char pre[10];
    if (f == NULL || fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        fprintf(stderr, "ort_bench: %s: not a .npy file\n", path);
        exit(1);
    }
    size_t hlen;
    if (pre[6] == 1) {
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    } else {
        unsigned char more[2];
        if (fread(more, 1, 2, f) != 2)
            hlen = 0;
        else
            hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)more[0] << 16 |
                   (size_t)more[1] << 24;
    }
    if (hlen == 0 || hlen > 65536) {
        fprintf(stderr, "ort_bench: %s: bad .npy header\n", path);
        exit(1);
    }
    char *h = calloc(1, hlen + 1);
    if (h == NULL || fread(h, 1, hlen, f) != hlen) {
        fprintf(stderr, "ort_bench: %s: short .npy header\n", path);
        exit(1);
    }
    if (strstr(h, "'fortran_order': True") != NULL) {
        fprintf(stderr, "ort_bench: %s: Fortran order is not supported\n", path);
        exit(1);
    }
    if (strstr(h, "'<f4'") != NULL) {
        a->type = ONNX_FLOAT;
        a->elem = 4;
    } else if (strstr(h, "'<i8'") != NULL) {
        a->type = ONNX_INT64;
        a->elem = 8;
    } else if (strstr(h, "'<i4'") != NULL) {
        a->type = ONNX_INT32;
        a->elem = 4;
    } else if (strstr(h, "'|b1'") != NULL) {
        a->type = ONNX_BOOL;
        a->elem = 1;
    } else {
        fprintf(stderr, "ort_bench: %s: dtype not supported (%s)\n", path, h);
        exit(1);
    }
    const char *s = strstr(h, "'shape': (");
    if (s == NULL) {
        fprintf(stderr, "ort_bench: %s: no shape in the header\n", path);
        exit(1);
    }
    s += strlen("'shape': (");
    a->ndim = 0;
    size_t n = 1;
    while (*s != ')' && *s != '\0') {
        char *end;
        long long d = strtoll(s, &end, 10);
        if (end == s)
            break;
        if (a->ndim == MAX_DIMS || d < 0) {
            fprintf(stderr, "ort_bench: %s: shape not supported\n", path);
            exit(1);
        }
        a->dims[a->ndim++] = d;
        n *= (size_t)d;
        s = end;
        while (*s == ',' || *s == ' ')
            s++;
    }
    free(h);
    a->bytes = n * a->elem;
    a->data = malloc(a->bytes ? a->bytes : 1);
    if (a->data == NULL || fread(a->data, 1, a->bytes, f) != a->bytes) {
        fprintf(stderr, "ort_bench: %s: short data\n", path);
        exit(1);
    }
    fclose(f);
}

/* Writes a .npy (version 1.0) of the given ONNX element type and shape. */
static void npy_write(const char *path, int type, const int64_t *dims, size_t ndim,
                      const void *data, size_t bytes)
{
    const char *descr = type == ONNX_FLOAT ? "<f4" : type == ONNX_INT64 ? "<i8"
                      : type == ONNX_INT32 ? "<i4" : "|b1";
    char shape[256] = "";
    size_t at = 0;
    for (size_t i = 0; i < ndim && at < sizeof shape - 32; i++)
        at += (size_t)snprintf(shape + at, sizeof shape - at, "%lld,%s", (long long)dims[i],
                               i + 1 < ndim ? " " : "");
    if (ndim > 1)       /* "(2, 3)": no trailing comma; "(4,)" keeps it */
        shape[at - 1] = '\0';
    char h[512];
    int len = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                       descr, shape);
    size_t total = 10 + (size_t)len + 1;
    size_t pad = (64 - total % 64) % 64;
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        fprintf(stderr, "ort_bench: cannot write %s\n", path);
        exit(1);
    }
    size_t hlen = (size_t)len + pad + 1;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                             (unsigned char)(hlen & 0xff), (unsigned char)(hlen >> 8)};
    fwrite(pre, 1, 10, f);
    fwrite(h, 1, (size_t)len, f);
    for (size_t i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);
    if (fwrite(data, 1, bytes, f) != bytes) {
        fprintf(stderr, "ort_bench: short write to %s\n", path);
        exit(1);
    }
    fclose(f);
}

/* ---- timing ---- */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(void)
{
    fprintf(stderr, "usage: ort_bench --lib LIBONNXRUNTIME --model M.onnx "
                    "[--input NAME=FILE.npy]... --out-dir DIR [--warmup N] [--iters N]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *lib = NULL, *model = NULL, *outdir = NULL;
    long warmup = 10, iters = 100;
    static npy_array files[MAX_IO];
    size_t nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            usage();
        if (strcmp(argv[i], "--lib") == 0) {
            lib = argv[++i];
        } else if (strcmp(argv[i], "--model") == 0) {
            model = argv[++i];
        } else if (strcmp(argv[i], "--out-dir") == 0) {
            outdir = argv[++i];
        } else if (strcmp(argv[i], "--warmup") == 0) {
            warmup = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--iters") == 0) {
            iters = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--input") == 0) {
            const char *arg = argv[++i], *eq = strchr(arg, '=');
            if (eq == NULL || nfiles == MAX_IO || (size_t)(eq - arg) >= sizeof files[0].name)
                usage();
            memcpy(files[nfiles].name, arg, (size_t)(eq - arg));
            npy_read(eq + 1, &files[nfiles]);
            nfiles++;
        } else {
            usage();
        }
    }
    if (lib == NULL || model == NULL || outdir == NULL || warmup < 0 || iters < 1 ||
        iters > 10000000)
        usage();

    void *so = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (so == NULL) {
        fprintf(stderr, "ort_bench: %s\n", dlerror());
        return 1;
    }
    const ort_api_base *(*get_base)(void);
    *(void **)&get_base = dlsym(so, "OrtGetApiBase");
    if (get_base == NULL) {
        fprintf(stderr, "ort_bench: %s has no OrtGetApiBase\n", lib);
        return 1;
    }
    const ort_api_base *base = get_base();
    ort_api = base->get_api(ORT_API_VERSION_USED);
    if (ort_api == NULL) {
        fprintf(stderr, "ort_bench: ONNX Runtime %s does not serve API version %u\n",
                base->get_version_string(), ORT_API_VERSION_USED);
        return 1;
    }
    printf("onnxruntime %s\n", base->get_version_string());

    void *env, *opts, *session, *meminfo, *alloc;
    ort__check(ORT_CALL(ORT_CREATE_ENV, fn_create_env)(ORT_LOG_WARNING, "tngc-bench", &env),
               "CreateEnv");
    ort__check(ORT_CALL(ORT_CREATE_SESSION_OPTIONS, fn_create_opts)(&opts), "CreateSessionOptions");
    ort__check(ORT_CALL(ORT_SET_INTRA_OP_NUM_THREADS, fn_opts_int)(opts, 1), "SetIntraOpNumThreads");
    ort__check(ORT_CALL(ORT_SET_INTER_OP_NUM_THREADS, fn_opts_int)(opts, 1), "SetInterOpNumThreads");
    ort__check(ORT_CALL(ORT_SET_SESSION_EXECUTION_MODE, fn_opts_int)(opts, ORT_SEQUENTIAL),
               "SetSessionExecutionMode");
    ort__check(ORT_CALL(ORT_SET_GRAPH_OPTIMIZATION_LEVEL, fn_opts_int)(opts, ORT_ENABLE_ALL),
               "SetSessionGraphOptimizationLevel");
    ort__check(ORT_CALL(ORT_CREATE_SESSION, fn_create_session)(env, model, opts, &session),
               "CreateSession");
    ort__check(ORT_CALL(ORT_CREATE_CPU_MEMORY_INFO, fn_cpu_info)(ORT_ARENA_ALLOCATOR,
                                                                 ORT_MEM_TYPE_DEFAULT, &meminfo),
               "CreateCpuMemoryInfo");
    ort__check(ORT_CALL(ORT_GET_DEFAULT_ALLOCATOR, fn_allocator)(&alloc),
               "GetAllocatorWithDefaultOptions");

    /* The session's inputs, each matched to a --input of its name. */
    size_t nin, nout;
    ort__check(ORT_CALL(ORT_SESSION_GET_INPUT_COUNT, fn_count)(session, &nin), "SessionGetInputCount");
    ort__check(ORT_CALL(ORT_SESSION_GET_OUTPUT_COUNT, fn_count)(session, &nout),
               "SessionGetOutputCount");
    if (nin > MAX_IO || nout > MAX_IO) {
        fprintf(stderr, "ort_bench: more than %d inputs or outputs\n", MAX_IO);
        return 1;
    }
    const char *in_names[MAX_IO], *out_names[MAX_IO];
    void *in_vals[MAX_IO], *out_vals[MAX_IO];
    for (size_t i = 0; i < nin; i++) {
        char *name;
        ort__check(ORT_CALL(ORT_SESSION_GET_INPUT_NAME, fn_name)(session, i, alloc, &name),
                   "SessionGetInputName");
        size_t k = 0;
        while (k < nfiles && strcmp(files[k].name, name) != 0)
            k++;
        if (k == nfiles) {
            fprintf(stderr, "ort_bench: the model's input '%s' has no --input\n", name);
            return 1;
        }
        in_names[i] = name;     /* kept for the process's life */
        ort__check(ORT_CALL(ORT_CREATE_TENSOR_WITH_DATA, fn_tensor)(
                       meminfo, files[k].data, files[k].bytes, files[k].dims, files[k].ndim,
                       files[k].type, &in_vals[i]),
                   "CreateTensorWithDataAsOrtValue");
    }
    for (size_t i = 0; i < nout; i++) {
        char *name;
        ort__check(ORT_CALL(ORT_SESSION_GET_OUTPUT_NAME, fn_name)(session, i, alloc, &name),
                   "SessionGetOutputName");
        out_names[i] = name;
    }

    /* Runs: each allocates its outputs (as a caller that keeps the results
     * does); the timed span is OrtApi::Run alone. */
    double *ts = malloc(sizeof *ts * (size_t)iters);
    if (ts == NULL)
        return 1;
    for (long it = 0; it < warmup + iters; it++) {
        for (size_t i = 0; i < nout; i++)
            out_vals[i] = NULL;
        double t0 = now_us();
        ort__check(ORT_CALL(ORT_RUN, fn_run)(session, NULL, in_names, (const void *const *)in_vals,
                                             nin, out_names, nout, out_vals),
                   "Run");
        double t1 = now_us();
        if (it >= warmup)
            ts[it - warmup] = t1 - t0;
        if (it + 1 < warmup + iters)
            for (size_t i = 0; i < nout; i++)
                ORT_CALL(ORT_RELEASE_VALUE, fn_release)(out_vals[i]);
    }
    qsort(ts, (size_t)iters, sizeof *ts, cmp_double);

    /* The last run's outputs, as DIR/outK.npy. */
    for (size_t i = 0; i < nout; i++) {
        void *info, *data;
        int type;
        size_t ndim;
        int64_t dims[MAX_DIMS];
        ort__check(ORT_CALL(ORT_GET_TENSOR_TYPE_AND_SHAPE, fn_type_shape)(out_vals[i], &info),
                   "GetTensorTypeAndShape");
        ort__check(ORT_CALL(ORT_GET_TENSOR_ELEMENT_TYPE, fn_elem_type)(info, &type),
                   "GetTensorElementType");
        ort__check(ORT_CALL(ORT_GET_DIMENSIONS_COUNT, fn_dims_count)(info, &ndim),
                   "GetDimensionsCount");
        if (ndim > MAX_DIMS) {
            fprintf(stderr, "ort_bench: output %zu has %zu dims\n", i, ndim);
            return 1;
        }
        ort__check(ORT_CALL(ORT_GET_DIMENSIONS, fn_dims)(info, dims, ndim), "GetDimensions");
        ORT_CALL(ORT_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO, fn_release)(info);
        ort__check(ORT_CALL(ORT_GET_TENSOR_MUTABLE_DATA, fn_data)(out_vals[i], &data),
                   "GetTensorMutableData");
        size_t elem = type == ONNX_FLOAT || type == ONNX_INT32 ? 4 : type == ONNX_INT64 ? 8
                    : type == ONNX_BOOL ? 1 : 0;
        if (elem == 0) {
            fprintf(stderr, "ort_bench: output %zu: element type %d not supported\n", i, type);
            return 1;
        }
        size_t n = 1;
        for (size_t d = 0; d < ndim; d++)
            n *= (size_t)dims[d];
        char path[4096];
        snprintf(path, sizeof path, "%s/out%zu.npy", outdir, i);
        npy_write(path, type, dims, ndim, data, n * elem);
        ORT_CALL(ORT_RELEASE_VALUE, fn_release)(out_vals[i]);
    }
    printf("latency: p50 %.3f us p90 %.3f us min %.3f us (%ld runs)\n", ts[iters / 2],
           ts[(size_t)iters * 9 / 10], ts[0], iters);
    free(ts);
    /* The session, env and inputs live until exit (ReleaseSession & co.
     * would need more table entries for nothing). */
    return 0;
}
