/*
 * llama_driver.c - llama.cpp's side of bench/llamacpp: loads a GGUF model
 * (bench/llamacpp/gguf.py writes the LLaMA example's weights as one) into
 * the libllama.so that npm's @node-llama-cpp/linux-x64 ships, through its
 * C API (dlopen, no header: the package ships none), prefills the context
 * tokens, then times one decode step at the next position: the same token
 * at the same position over the same cache content each time (the decoded
 * position is removed from the cache before every step). With --prefill
 * it times instead the prefill of all the tokens into an empty cache; with
 * --all-logits as well, the prefill computes the logits of every token (as
 * a model whose forward returns them all does), not only the last one's.
 *
 *   llama_driver --lib DIR --model F.gguf --tokens T.i32 [--kv f16|f32|bf16]
 *                [--threads N] [--warmup W] [--iters I] [--prefill [--all-logits]]
 *                [--logits OUT.f32]
 *
 * T.i32: the context's token ids then the decoded one, int32, native
 * order; the context is len-1 tokens long and the cache is created with
 * exactly len cells (with --prefill: the prompt, len tokens). OUT.f32: the
 * logits of the decode step (with --prefill: of the prompt's last token;
 * with --all-logits: of every token, token by token), float32. Prints "decode: p50 X us" (with --prefill: "prefill N: p50 X
 * us"), the median over the timed calls; every llama_decode is followed by
 * llama_synchronize inside the timed interval.
 *
 * The structures passed by value are those of libllama's release that
 * the package's bins/linux-x64/_nlcBuildMetadata.json names (llama.cpp
 * v0.5.0, built by node-llama-cpp 3.22.1): their sizes and the offsets of
 * the fields set here were read off that library's own
 * llama_context_default_params, llama_model_default_params and
 * llama_batch_get_one, and the driver reads the values back through
 * llama_n_ctx, llama_n_batch, llama_n_ubatch, llama_n_threads and
 * llama_n_threads_batch, and the KV cache's type from the library's log,
 * and stops if one differs.
 *
 *   cc -O2 -std=c11 -o llama_driver bench/llamacpp/llama_driver.c -ldl
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* libllama's llama_model_params: 80 bytes; only its defaults are used. */
typedef struct {
    _Alignas(8) unsigned char bytes[80];
} drv_model_params;

/* libllama's llama_context_params (160 bytes): the fields set here, the
   rest kept as llama_context_default_params returns them. */
typedef struct {
    _Alignas(8) uint32_t n_ctx; /* cells of the KV cache */
    uint32_t n_batch;           /* tokens one llama_decode may take */
    uint32_t n_ubatch;          /* tokens one graph computes */
    unsigned char mid0[16];
    int32_t n_threads;          /* threads of a one-token step */
    int32_t n_threads_batch;    /* threads of a many-token step */
    unsigned char mid1[68];
    int32_t type_k;             /* ggml_type of the K cache: 0 f32, 1 f16, 30 bf16 */
    int32_t type_v;             /* the same for V */
    unsigned char tail[48];
} drv_context_params;

_Static_assert(sizeof(drv_context_params) == 160, "llama_context_params is 160 bytes");
_Static_assert(offsetof(drv_context_params, n_threads) == 0x1c, "n_threads at 0x1c");
_Static_assert(offsetof(drv_context_params, n_threads_batch) == 0x20, "n_threads_batch at 0x20");
_Static_assert(offsetof(drv_context_params, type_k) == 0x68, "type_k at 0x68");

/* libllama's llama_batch: 56 bytes. */
typedef struct {
    int32_t n_tokens;
    int32_t *token;
    float *embd;
    int32_t *pos;
    int32_t *n_seq_id;
    int32_t **seq_id;
    int8_t *logits;
} drv_batch;

_Static_assert(sizeof(drv_batch) == 56, "llama_batch is 56 bytes");

typedef void (*drv_log_fn)(int level, const char *text, void *user);

static struct {
    void (*load_all_from_path)(const char *dir);
    void (*backend_init)(void);
    void (*log_set)(drv_log_fn fn, void *user);
    const char *(*system_info)(void);
    drv_model_params (*model_default_params)(void);
    void *(*model_load_from_file)(const char *path, drv_model_params params);
    void (*model_free)(void *model);
    const void *(*model_get_vocab)(const void *model);
    int32_t (*vocab_n_tokens)(const void *vocab);
    drv_context_params (*context_default_params)(void);
    void *(*init_from_model)(void *model, drv_context_params params);
    void (*free_ctx)(void *ctx);
    uint32_t (*n_ctx)(const void *ctx);
    uint32_t (*n_batch)(const void *ctx);
    uint32_t (*n_ubatch)(const void *ctx);
    int32_t (*n_threads)(void *ctx);
    int32_t (*n_threads_batch)(void *ctx);
    void *(*get_memory)(const void *ctx);
    bool (*memory_seq_rm)(void *mem, int32_t seq, int32_t p0, int32_t p1);
    void (*memory_clear)(void *mem, bool data);
    drv_batch (*batch_init)(int32_t n_tokens, int32_t embd, int32_t n_seq_max);
    void (*batch_free)(drv_batch batch);
    int32_t (*decode)(void *ctx, drv_batch batch);
    void (*synchronize)(void *ctx);
    float *(*get_logits_ith)(void *ctx, int32_t i);
} drv;

/* The library's log: warnings and errors pass to stderr, and the KV cache
   line (its element types) is kept for the check. */
static char drv_kv_line[512];
static int drv_verbose;

static void drv_log(int level, const char *text, void *user)
{
    (void)user;
    if (strstr(text, "K (") != NULL && strstr(text, "V (") != NULL && drv_kv_line[0] == '\0')
        snprintf(drv_kv_line, sizeof drv_kv_line, "%s", text);
    if (drv_verbose || level == 3 || level == 4)
        fputs(text, stderr);
}

static void drv_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("llama_driver: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void *drv_sym(void *so, const char *name)
{
    void *p = dlsym(so, name);
    if (p == NULL)
        drv_die("the library has no %s", name);
    return p;
}

static void drv_load(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/libggml.v0.5.0.so", dir);
    void *ggml = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (ggml == NULL)
        drv_die("%s", dlerror());
    snprintf(path, sizeof path, "%s/libllama.v0.5.0.so", dir);
    void *so = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (so == NULL)
        drv_die("%s", dlerror());
    *(void **)&drv.load_all_from_path = drv_sym(ggml, "ggml_backend_load_all_from_path");
    *(void **)&drv.backend_init = drv_sym(so, "llama_backend_init");
    *(void **)&drv.log_set = drv_sym(so, "llama_log_set");
    *(void **)&drv.system_info = drv_sym(so, "llama_print_system_info");
    *(void **)&drv.model_default_params = drv_sym(so, "llama_model_default_params");
    *(void **)&drv.model_load_from_file = drv_sym(so, "llama_model_load_from_file");
    *(void **)&drv.model_free = drv_sym(so, "llama_model_free");
    *(void **)&drv.model_get_vocab = drv_sym(so, "llama_model_get_vocab");
    *(void **)&drv.vocab_n_tokens = drv_sym(so, "llama_vocab_n_tokens");
    *(void **)&drv.context_default_params = drv_sym(so, "llama_context_default_params");
    *(void **)&drv.init_from_model = drv_sym(so, "llama_init_from_model");
    *(void **)&drv.free_ctx = drv_sym(so, "llama_free");
    *(void **)&drv.n_ctx = drv_sym(so, "llama_n_ctx");
    *(void **)&drv.n_batch = drv_sym(so, "llama_n_batch");
    *(void **)&drv.n_ubatch = drv_sym(so, "llama_n_ubatch");
    *(void **)&drv.n_threads = drv_sym(so, "llama_n_threads");
    *(void **)&drv.n_threads_batch = drv_sym(so, "llama_n_threads_batch");
    *(void **)&drv.get_memory = drv_sym(so, "llama_get_memory");
    *(void **)&drv.memory_seq_rm = drv_sym(so, "llama_memory_seq_rm");
    *(void **)&drv.memory_clear = drv_sym(so, "llama_memory_clear");
    *(void **)&drv.batch_init = drv_sym(so, "llama_batch_init");
    *(void **)&drv.batch_free = drv_sym(so, "llama_batch_free");
    *(void **)&drv.decode = drv_sym(so, "llama_decode");
    *(void **)&drv.synchronize = drv_sym(so, "llama_synchronize");
    *(void **)&drv.get_logits_ith = drv_sym(so, "llama_get_logits_ith");
    drv.log_set(drv_log, NULL);
    drv.load_all_from_path(dir);
    drv.backend_init();
}

static double drv_now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int drv_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double drv_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, drv_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Fills batch with tokens[0..n) at positions p0.., sequence 0, logits of
   every token (all) or of the last one only. */
static void drv_fill(drv_batch *b, const int32_t *tokens, int32_t n, int32_t p0, int all)
{
    b->n_tokens = n;
    for (int32_t i = 0; i < n; i++) {
        b->token[i] = tokens[i];
        b->pos[i] = p0 + i;
        b->n_seq_id[i] = 1;
        b->seq_id[i][0] = 0;
        b->logits[i] = all || i == n - 1;
    }
}

static void drv_decode(void *ctx, drv_batch b, const char *what)
{
    int32_t rc = drv.decode(ctx, b);
    if (rc != 0)
        drv_die("llama_decode (%s) returned %d", what, (int)rc);
    drv.synchronize(ctx);
}

/* Writes the logits of tokens i0 .. i0 + n (i0 -1: the last one) to path,
 * vocab floats each. */
static void drv_write_logits(void *ctx, const char *path, int32_t i0, int32_t n, int32_t vocab)
{
    FILE *f = fopen(path, "wb");
    int ok = f != NULL;
    for (int32_t i = 0; ok && i < n; i++) {
        const float *lg = drv.get_logits_ith(ctx, i0 < 0 ? -1 : i0 + i);
        ok = lg != NULL && fwrite(lg, sizeof(float), (size_t)vocab, f) == (size_t)vocab;
    }
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    if (!ok)
        drv_die("cannot write the logits to %s", path);
}

static int32_t *drv_tokens(const char *path, int32_t *n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        drv_die("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size < 8 || size % 4 != 0 || size / 4 > 1 << 20)
        drv_die("%s: expected 2 or more int32 token ids", path);
    int32_t *t = malloc((size_t)size);
    if (t == NULL || fread(t, 1, (size_t)size, f) != (size_t)size)
        drv_die("cannot read %s", path);
    fclose(f);
    *n = (int32_t)(size / 4);
    return t;
}

static void drv_usage(void)
{
    fputs("usage: llama_driver --lib DIR --model F.gguf --tokens T.i32 [--kv f16|f32|bf16] "
          "[--threads N] [--warmup W] [--iters I] [--prefill [--all-logits]] "
          "[--logits OUT.f32]\n", stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *lib = NULL, *model_path = NULL, *tokens_path = NULL, *logits_path = NULL;
    const char *kv = "f16";
    int threads = 1, warmup = 3, iters = 20, prefill = 0, all = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--prefill") == 0 || strcmp(argv[i], "--all-logits") == 0) {
            *(argv[i][2] == 'p' ? &prefill : &all) = 1;
            continue;
        }
        if (i + 1 >= argc)
            drv_usage();
        if (strcmp(argv[i], "--lib") == 0)
            lib = argv[++i];
        else if (strcmp(argv[i], "--model") == 0)
            model_path = argv[++i];
        else if (strcmp(argv[i], "--tokens") == 0)
            tokens_path = argv[++i];
        else if (strcmp(argv[i], "--logits") == 0)
            logits_path = argv[++i];
        else if (strcmp(argv[i], "--kv") == 0)
            kv = argv[++i];
        else if (strcmp(argv[i], "--threads") == 0)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--warmup") == 0)
            warmup = atoi(argv[++i]);
        else if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[++i]);
        else
            drv_usage();
    }
    if (lib == NULL || model_path == NULL || tokens_path == NULL || threads < 1 || threads > 256 ||
        warmup < 0 || iters < 1 || iters > 100000 || (all && !prefill) ||
        (strcmp(kv, "f16") != 0 && strcmp(kv, "f32") != 0 && strcmp(kv, "bf16") != 0))
        drv_usage();
    drv_verbose = getenv("LLAMA_DRIVER_VERBOSE") != NULL;
    int32_t ntok;
    int32_t *tokens = drv_tokens(tokens_path, &ntok);
    int32_t nctx = ntok - 1;

    drv_load(lib);
    void *model = drv.model_load_from_file(model_path, drv.model_default_params());
    if (model == NULL)
        drv_die("cannot load %s", model_path);
    int32_t vocab = drv.vocab_n_tokens(drv.model_get_vocab(model));

    drv_context_params cp = drv.context_default_params();
    if (cp.n_ctx != 512 || cp.n_batch != 2048 || cp.n_ubatch != 512 || cp.type_k != 1 ||
        cp.type_v != 1)
        drv_die("llama_context_default_params returned unexpected defaults: "
                "not the layout of libllama v0.5.0");
    uint32_t width = (uint32_t)ntok;
    cp.n_ctx = width;
    cp.n_batch = width;
    cp.n_ubatch = width;
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    cp.type_k = cp.type_v = strcmp(kv, "f32") == 0 ? 0 : strcmp(kv, "f16") == 0 ? 1 : 30;
    void *ctx = drv.init_from_model(model, cp);
    if (ctx == NULL)
        drv_die("llama_init_from_model failed");
    if (drv.n_ctx(ctx) < width || drv.n_batch(ctx) != width || drv.n_ubatch(ctx) != width ||
        drv.n_threads(ctx) != threads || drv.n_threads_batch(ctx) != threads)
        drv_die("the context reads back n_ctx %u, n_batch %u, n_ubatch %u, threads %d/%d: "
                "not what was set", drv.n_ctx(ctx), drv.n_batch(ctx), drv.n_ubatch(ctx),
                (int)drv.n_threads(ctx), (int)drv.n_threads_batch(ctx));
    char want[16];
    snprintf(want, sizeof want, "K (%s)", kv);
    if (strstr(drv_kv_line, want) == NULL)
        drv_die("the KV cache is not %s: the library logged \"%s\"", kv, drv_kv_line);
    printf("llama.cpp system info: %s\n", drv.system_info());
    printf("context: %u cells, KV cache %s, %d threads\n", drv.n_ctx(ctx), kv, threads);

    void *mem = drv.get_memory(ctx);
    drv_batch b = drv.batch_init((int32_t)width, 0, 1);
    double *t = malloc(sizeof(double) * (size_t)iters);
    if (t == NULL)
        drv_die("out of memory");
    if (prefill) {
        for (int i = 0; i < warmup + iters; i++) {
            drv.memory_clear(mem, true);
            drv_fill(&b, tokens, ntok, 0, all);
            double t0 = drv_now_us();
            drv_decode(ctx, b, "prefill");
            double t1 = drv_now_us();
            if (i >= warmup)
                t[i - warmup] = t1 - t0;
        }
    } else {
        drv_fill(&b, tokens, nctx, 0, 0);
        drv_decode(ctx, b, "context");
        for (int i = 0; i < warmup + iters; i++) {
            if (!drv.memory_seq_rm(mem, 0, nctx, -1))
                drv_die("llama_memory_seq_rm failed");
            drv_fill(&b, tokens + nctx, 1, nctx, 0);
            double t0 = drv_now_us();
            drv_decode(ctx, b, "step");
            double t1 = drv_now_us();
            if (i >= warmup)
                t[i - warmup] = t1 - t0;
        }
    }
    if (logits_path != NULL)
        drv_write_logits(ctx, logits_path, all ? 0 : -1, all ? ntok : 1, vocab);
    if (prefill)
        printf("prefill %d: p50 %.1f us\n", (int)ntok, drv_median(t, iters));
    else
        printf("decode: p50 %.1f us\n", drv_median(t, iters));
    drv.batch_free(b);
    drv.free_ctx(ctx);
    drv.model_free(model);
    free(t);
    free(tokens);
    return 0;
}
