/* ONNX Runtime as a benchmark contender: loads libonnxruntime.so.1 with
 * dlopen, runs one .onnx model on .npy inputs through ORT's C API, times
 * the run call alone, and writes the outputs as .npy files, with the same
 * command line and "latency: p50 X us" line as a bundle's launcher, so the
 * benchmarks drive both the same way.
 *
 * No ONNX Runtime header ships with the npm package, so the few entries of
 * the OrtApi function table used here are declared below by their index in
 * that table. The table's order is fixed and append-only across releases
 * (ONNX Runtime's public C API, onnxruntime_c_api.h, "struct OrtApi"). The
 * indices are checked at run time where a call can tell: every session
 * configuration entry is read back through GetSessionConfigEntry, the
 * outputs of the timed RunWithBinding calls must equal, bit for bit, those
 * of a first plain Run, and the benchmarks compare every output with
 * PyTorch's.
 *
 * Session: one intra-op thread, one inter-op thread, sequential execution,
 * graph optimisation level "all" (ORT_ENABLE_ALL), memory pattern and CPU
 * arena on (ORT's defaults, set explicitly), intra/inter-op spinning off
 * (moot with one thread: there is no pool). Runs: the inputs wrap the .npy
 * buffers as OrtValues once; the outputs are preallocated and bound once
 * with IO binding, so the timed call (RunWithBinding) allocates no outputs
 * and copies nothing out. bench/README.md says why each option is set.
 *
 * usage: ort_bench --lib LIBONNXRUNTIME --model M.onnx
 *                  [--input NAME=FILE.npy]... --out-dir DIR
 *                  [--warmup N] [--iters N]
 *                  [--config KEY=VALUE]...   another session config entry
 *                  [--no-binding]            time Run allocating its outputs
 *                  [--opt-level N] [--intra-op-threads N]
 *                  [--no-mem-pattern] [--no-arena]
 *                  [--optimized-model OUT.onnx]   ORT's optimised graph
 *                  [--profile PREFIX]        ORT's per-node profile (JSON)
 * The options after --iters are for looking into ORT's time, not for the
 * benchmarks' figures. Every input the session declares needs a --input of
 * that name; outputs are written in the session's order as DIR/out0.npy,
 * out1.npy, ... */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the OrtApi entries used (index in the table, signature) ---- */

typedef struct OrtStatus OrtStatus;

/* Indices in struct OrtApi (0-based), counted from onnxruntime_c_api.h
 * (the copy vendored by github.com/yalue/onnxruntime_go at API version
 * 29; the entries up to 254 are unchanged since ORT 1.14). */
enum {
    ORT_GET_ERROR_MESSAGE = 2,
    ORT_CREATE_ENV = 3,
    ORT_CREATE_SESSION = 7,
    ORT_RUN = 9,
    ORT_CREATE_SESSION_OPTIONS = 10,
    ORT_SET_OPTIMIZED_MODEL_FILE_PATH = 11,
    ORT_SET_SESSION_EXECUTION_MODE = 13,
    ORT_ENABLE_PROFILING = 14,
    ORT_ENABLE_MEM_PATTERN = 16,
    ORT_DISABLE_MEM_PATTERN = 17,
    ORT_ENABLE_CPU_MEM_ARENA = 18,
    ORT_DISABLE_CPU_MEM_ARENA = 19,
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
    ORT_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO = 99,
    ORT_SESSION_END_PROFILING = 110,
    ORT_ADD_SESSION_CONFIG_ENTRY = 130,
    ORT_RUN_WITH_BINDING = 133,
    ORT_CREATE_IO_BINDING = 134,
    ORT_BIND_INPUT = 136,
    ORT_BIND_OUTPUT = 137,
    ORT_GET_SESSION_CONFIG_ENTRY = 238
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
typedef OrtStatus *(*fn_opts_str)(void *, const char *);
typedef OrtStatus *(*fn_opts_void)(void *);
typedef OrtStatus *(*fn_config)(void *, const char *, const char *);
typedef OrtStatus *(*fn_get_config)(const void *, const char *, char *, size_t *);
typedef OrtStatus *(*fn_end_profiling)(void *, void *, char **);
typedef OrtStatus *(*fn_create_binding)(void *, void **);
typedef OrtStatus *(*fn_bind)(void *, const char *, const void *);
typedef OrtStatus *(*fn_run_binding)(void *, const void *, const void *);

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
    fprintf(stderr,
            "usage: ort_bench --lib LIBONNXRUNTIME --model M.onnx "
            "[--input NAME=FILE.npy]... --out-dir DIR [--warmup N] [--iters N]\n"
            "                 [--config KEY=VALUE]... [--no-binding] [--opt-level N]\n"
            "                 [--intra-op-threads N]\n"
            "                 [--no-mem-pattern] [--no-arena] [--optimized-model OUT.onnx]\n"
            "                 [--profile PREFIX]\n");
    exit(2);
}

/* The session configuration entries set unless --config gives the key
 * another value (see bench/README.md, "ONNX Runtime"): one intra-op
 * thread makes ORT run every node on the caller's thread with no thread
 * pool, so spinning is moot; it is turned off anyway so that a pool, if a
 * future release made one, would not hold the second core. Denormals are
 * left as they are (tngc's bundles do not flush them either). */
static const char *const default_config[][2] = {
    {"session.intra_op.allow_spinning", "0"},
    {"session.inter_op.allow_spinning", "0"},
};

/* Sets key=value on opts and reads it back: the check that the two
 * OrtApi entries are the ones declared (a wrong entry would fail or read
 * back something else). */
static void ort__config(void *opts, const char *key, const char *value)
{
    char got[256];
    size_t n = sizeof got;
    ort__check(ORT_CALL(ORT_ADD_SESSION_CONFIG_ENTRY, fn_config)(opts, key, value),
               "AddSessionConfigEntry");
    ort__check(ORT_CALL(ORT_GET_SESSION_CONFIG_ENTRY, fn_get_config)(opts, key, got, &n),
               "GetSessionConfigEntry");
    if (strcmp(got, value) != 0) {
        fprintf(stderr, "ort_bench: session config %s reads back '%s', not '%s'\n", key, got,
                value);
        exit(1);
    }
    printf("config %s=%s\n", key, value);
}

/* One output of the untimed first run: its type, shape and bytes. */
typedef struct {
    int type;
    size_t ndim;
    int64_t dims[MAX_DIMS];
    void *data;         /* 64-byte aligned, owned */
    size_t bytes;
} out_array;

/* Copies ORT's output value v into o (a fresh buffer of its size). */
static void ort__take(void *v, size_t i, out_array *o)
{
    void *info, *data;
    ort__check(ORT_CALL(ORT_GET_TENSOR_TYPE_AND_SHAPE, fn_type_shape)(v, &info),
               "GetTensorTypeAndShape");
    ort__check(ORT_CALL(ORT_GET_TENSOR_ELEMENT_TYPE, fn_elem_type)(info, &o->type),
               "GetTensorElementType");
    ort__check(ORT_CALL(ORT_GET_DIMENSIONS_COUNT, fn_dims_count)(info, &o->ndim),
               "GetDimensionsCount");
    if (o->ndim > MAX_DIMS) {
        fprintf(stderr, "ort_bench: output %zu has %zu dims\n", i, o->ndim);
        exit(1);
    }
    ort__check(ORT_CALL(ORT_GET_DIMENSIONS, fn_dims)(info, o->dims, o->ndim), "GetDimensions");
    ORT_CALL(ORT_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO, fn_release)(info);
    ort__check(ORT_CALL(ORT_GET_TENSOR_MUTABLE_DATA, fn_data)(v, &data), "GetTensorMutableData");
    size_t elem = o->type == ONNX_FLOAT || o->type == ONNX_INT32 ? 4
                : o->type == ONNX_INT64 ? 8 : o->type == ONNX_BOOL ? 1 : 0;
    if (elem == 0) {
        fprintf(stderr, "ort_bench: output %zu: element type %d not supported\n", i, o->type);
        exit(1);
    }
    size_t n = 1;
    for (size_t d = 0; d < o->ndim; d++)
        n *= (size_t)o->dims[d];
    o->bytes = n * elem;
    o->data = aligned_alloc(64, (o->bytes + 63) / 64 * 64 + 64);
    if (o->data == NULL) {
        fprintf(stderr, "ort_bench: out of memory\n");
        exit(1);
    }
    memcpy(o->data, data, o->bytes);
}

int main(int argc, char **argv)
{
    const char *lib = NULL, *model = NULL, *outdir = NULL, *optimized = NULL, *profile = NULL;
    long warmup = 10, iters = 100, level = ORT_ENABLE_ALL, threads = 1;
    int binding = 1, mem_pattern = 1, arena = 1;
    static npy_array files[MAX_IO];
    size_t nfiles = 0, nconfig = 0;
    const char *config[MAX_IO][2];
    static char config_buf[MAX_IO][512];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-binding") == 0) {
            binding = 0;
            continue;
        } else if (strcmp(argv[i], "--no-mem-pattern") == 0) {
            mem_pattern = 0;
            continue;
        } else if (strcmp(argv[i], "--no-arena") == 0) {
            arena = 0;
            continue;
        }
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
        } else if (strcmp(argv[i], "--intra-op-threads") == 0) {
            threads = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--opt-level") == 0) {
            level = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--optimized-model") == 0) {
            optimized = argv[++i];
        } else if (strcmp(argv[i], "--profile") == 0) {
            profile = argv[++i];
        } else if (strcmp(argv[i], "--config") == 0) {
            const char *arg = argv[++i], *eq = strchr(arg, '=');
            if (eq == NULL || nconfig == MAX_IO || strlen(arg) >= sizeof config_buf[0])
                usage();
            strcpy(config_buf[nconfig], arg);
            config_buf[nconfig][eq - arg] = '\0';
            config[nconfig][0] = config_buf[nconfig];
            config[nconfig][1] = config_buf[nconfig] + (eq - arg) + 1;
            nconfig++;
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
    ort__check(ORT_CALL(ORT_SET_INTRA_OP_NUM_THREADS, fn_opts_int)(opts, (int)threads),
               "SetIntraOpNumThreads");
    ort__check(ORT_CALL(ORT_SET_INTER_OP_NUM_THREADS, fn_opts_int)(opts, 1), "SetInterOpNumThreads");
    ort__check(ORT_CALL(ORT_SET_SESSION_EXECUTION_MODE, fn_opts_int)(opts, ORT_SEQUENTIAL),
               "SetSessionExecutionMode");
    ort__check(ORT_CALL(ORT_SET_GRAPH_OPTIMIZATION_LEVEL, fn_opts_int)(opts, (int)level),
               "SetSessionGraphOptimizationLevel");
    ort__check(ORT_CALL(mem_pattern ? ORT_ENABLE_MEM_PATTERN : ORT_DISABLE_MEM_PATTERN,
                        fn_opts_void)(opts), "EnableMemPattern");
    ort__check(ORT_CALL(arena ? ORT_ENABLE_CPU_MEM_ARENA : ORT_DISABLE_CPU_MEM_ARENA,
                        fn_opts_void)(opts), "EnableCpuMemArena");
    for (size_t d = 0; d < sizeof default_config / sizeof default_config[0]; d++) {
        size_t k = 0;
        while (k < nconfig && strcmp(config[k][0], default_config[d][0]) != 0)
            k++;
        if (k == nconfig)
            ort__config(opts, default_config[d][0], default_config[d][1]);
    }
    for (size_t k = 0; k < nconfig; k++)
        ort__config(opts, config[k][0], config[k][1]);
    if (optimized)
        ort__check(ORT_CALL(ORT_SET_OPTIMIZED_MODEL_FILE_PATH, fn_opts_str)(opts, optimized),
                   "SetOptimizedModelFilePath");
    if (profile)
        ort__check(ORT_CALL(ORT_ENABLE_PROFILING, fn_opts_str)(opts, profile), "EnableProfiling");
    ort__check(ORT_CALL(ORT_CREATE_SESSION, fn_create_session)(env, model, opts, &session),
               "CreateSession");
    ort__check(ORT_CALL(ORT_CREATE_CPU_MEMORY_INFO, fn_cpu_info)(ORT_ARENA_ALLOCATOR,
                                                                 ORT_MEM_TYPE_DEFAULT, &meminfo),
               "CreateCpuMemoryInfo");
    ort__check(ORT_CALL(ORT_GET_DEFAULT_ALLOCATOR, fn_allocator)(&alloc),
               "GetAllocatorWithDefaultOptions");

    /* The session's inputs, each matched to a --input of its name and
     * wrapped (not copied) as an OrtValue once. */
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

    /* One untimed Run that allocates its outputs: their types and shapes,
     * and the values the timed runs must reproduce. */
    static out_array first[MAX_IO], bound[MAX_IO];
    for (size_t i = 0; i < nout; i++)
        out_vals[i] = NULL;
    ort__check(ORT_CALL(ORT_RUN, fn_run)(session, NULL, in_names, (const void *const *)in_vals,
                                         nin, out_names, nout, out_vals),
               "Run");
    for (size_t i = 0; i < nout; i++) {
        ort__take(out_vals[i], i, &first[i]);
        ORT_CALL(ORT_RELEASE_VALUE, fn_release)(out_vals[i]);
    }

    /* With IO binding (the default), the inputs and preallocated output
     * buffers are bound once, so a run allocates nothing for its outputs
     * and copies nothing out: the way a program that runs one model
     * repeatedly calls ORT. The timed span is RunWithBinding (or, with
     * --no-binding, Run allocating its outputs) alone. */
    void *io = NULL;
    if (binding) {
        ort__check(ORT_CALL(ORT_CREATE_IO_BINDING, fn_create_binding)(session, &io),
                   "CreateIoBinding");
        for (size_t i = 0; i < nin; i++)
            ort__check(ORT_CALL(ORT_BIND_INPUT, fn_bind)(io, in_names[i], in_vals[i]),
                       "BindInput");
        for (size_t i = 0; i < nout; i++) {
            bound[i] = first[i];
            bound[i].data = aligned_alloc(64, (first[i].bytes + 63) / 64 * 64 + 64);
            if (bound[i].data == NULL)
                return 1;
            memset(bound[i].data, 0xff, first[i].bytes);   /* NaN: a run must write it */
            ort__check(ORT_CALL(ORT_CREATE_TENSOR_WITH_DATA, fn_tensor)(
                           meminfo, bound[i].data, bound[i].bytes, bound[i].dims,
                           bound[i].ndim, bound[i].type, &out_vals[i]),
                       "CreateTensorWithDataAsOrtValue");
            ort__check(ORT_CALL(ORT_BIND_OUTPUT, fn_bind)(io, out_names[i], out_vals[i]),
                       "BindOutput");
        }
    }
    double *ts = malloc(sizeof *ts * (size_t)iters);
    if (ts == NULL)
        return 1;
    for (long it = 0; it < warmup + iters; it++) {
        double t0, t1;
        if (binding) {
            t0 = now_us();
            ort__check(ORT_CALL(ORT_RUN_WITH_BINDING, fn_run_binding)(session, NULL, io),
                       "RunWithBinding");
            t1 = now_us();
        } else {
            for (size_t i = 0; i < nout; i++)
                out_vals[i] = NULL;
            t0 = now_us();
            ort__check(ORT_CALL(ORT_RUN, fn_run)(session, NULL, in_names,
                                                 (const void *const *)in_vals, nin, out_names,
                                                 nout, out_vals),
                       "Run");
            t1 = now_us();
            for (size_t i = 0; i < nout; i++)
                ORT_CALL(ORT_RELEASE_VALUE, fn_release)(out_vals[i]);
        }
        if (it >= warmup)
            ts[it - warmup] = t1 - t0;
    }
    qsort(ts, (size_t)iters, sizeof *ts, cmp_double);

    /* The bound buffers must hold what the first Run returned (one thread:
     * the same kernels give the same bits), which also checks the binding
     * entries of the table. */
    if (binding)
        for (size_t i = 0; i < nout; i++)
            if (memcmp(bound[i].data, first[i].data, first[i].bytes) != 0) {
                fprintf(stderr, "ort_bench: output %zu of RunWithBinding differs from Run's\n",
                        i);
                return 1;
            }
    if (profile) {
        char *file;
        ort__check(ORT_CALL(ORT_SESSION_END_PROFILING, fn_end_profiling)(session, alloc, &file),
                   "SessionEndProfiling");
        printf("profile %s\n", file);
    }

    /* The outputs, as DIR/outK.npy. */
    for (size_t i = 0; i < nout; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/out%zu.npy", outdir, i);
        npy_write(path, first[i].type, first[i].dims, first[i].ndim,
                  binding ? bound[i].data : first[i].data, first[i].bytes);
    }
    printf("latency: p50 %.3f us p90 %.3f us min %.3f us (%ld runs, %s)\n", ts[iters / 2],
           ts[(size_t)iters * 9 / 10], ts[0], iters, binding ? "RunWithBinding" : "Run");
    free(ts);
    /* The session, env, binding and values live until exit (their Release
     * entries would be more of the table for nothing). */
    return 0;
}
