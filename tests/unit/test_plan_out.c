/*
 * test_plan_out.c - unit tests of planner/plan_out.c (text, JSON and DOT
 * forms of a plan) and codegen/manifest.c (the static-kernel op-info tree).
 *
 * The graphs and plans are built by hand (no lowering, no planner passes),
 * so that these tests pin the output formats on their own. Standalone
 * build, once ir/graph.c exists:
 *   cc -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L \
 *      tests/unit/test_plan_out.c planner/plan_out.c codegen/manifest.c \
 *      ir/graph.c support/support.c -lcmocka -lm -o /tmp/t && /tmp/t
 * The manifest tests work in their own directory from mkdtemp() and
 * remove it.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../codegen/codegen.h"

/* ------------------------------------------------------------------------ */
/* building graphs and plans by hand                                         */
/* ------------------------------------------------------------------------ */

static DimId dim_push(Graph *g, DimKind kind, int64_t c)
{
    VEC_PUSH(g->dims, ((DimExpr){kind, c, -1, -1}));
    return (DimId)(g->dims.n - 1);
}

static int32_t *ids(Arena *a, const int32_t *v, size_t n)
{
    int32_t *p = arena_alloc(a, (n ? n : 1) * sizeof *p);
    if (n)
        memcpy(p, v, n * sizeof *p);
    return p;
}

/* An op with one output value of type dt[dims]; returns the value id. */
static int32_t op_push(Graph *g, OpKind kind, const int32_t *in, uint32_t nin, DType dt, int ndim,
                       const DimId *dims, uint32_t line, uint32_t col)
{
    Op op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    op.line = line;
    op.col = col;
    op.in = ids(&g->arena, in, nin);
    op.nin = nin;
    op.out = (int32_t)g->vals.n;
    op.nout = 1;
    op.sk = -1;
    VEC_PUSH(g->ops, op);
    Val v;
    memset(&v, 0, sizeof v);
    v.op = (int32_t)(g->ops.n - 1);
    v.ndim = (uint8_t)ndim;
    v.format = FMT_ND;
    v.dtype = dt;
    memcpy(v.dims, dims, (size_t)ndim * sizeof *dims);
    VEC_PUSH(g->vals, v);
    return op.out;
}

static Op *last_op(Graph *g) { return &g->ops.v[g->ops.n - 1]; }

static void graph_done(Graph *g)
{
    VEC_FREE(g->ops);
    VEC_FREE(g->vals);
    VEC_FREE(g->dims);
    VEC_FREE(g->syms);
    VEC_FREE(g->inputs);
    VEC_FREE(g->weights);
    VEC_FREE(g->outputs);
    VEC_FREE(g->streams);
    VEC_FREE(g->sks);
    VEC_FREE(g->gears);
    VEC_FREE(g->checks);
    arena_free(&g->arena);
}

static void plan_done(Plan *p)
{
    VEC_FREE(p->gears);
    VEC_FREE(p->segs);
    VEC_FREE(p->units);
    VEC_FREE(p->events);
    VEC_FREE(p->streams);
    VEC_FREE(p->mem);
    VEC_FREE(p->rowindep);
    VEC_FREE(p->kernels);
    arena_free(&p->arena);
}

typedef struct Fx {
    Graph g;
    Plan p;
    char dir[256];
} Fx;

/*
 * The graph of
 *   def forward(self, x1, x2):          # x1 f32[s0,2] geared {0: [2, 4]}, x2 f32[1,2] static
 *       h = x1 + x2                      # stream 0
 *       with npu_stream_switch("1", 0), super_kernel("sp1", "stream-fusion=1"):
 *           m = h @ self.w                # stream 1, segment 0
 *           m = m * 0.5                   # (waits explicitly for h)
 *       return m.sum(1).view(-1, 1)      # stream 0
 */
static void build_graph(Graph *g)
{
    memset(g, 0, sizeof *g);
    g->name = "Model.forward";
    g->file = "model.py";
    g->line = 24;
    g->col = 1;
    g->cfg = (EntryConfig){"max-autotune", 1, 1, 0, 0, NULL, 0, GEAR_ZIP, NULL};
    DimId two = dim_push(g, DIM_CONST, 2), s0 = dim_push(g, DIM_SYM, 0), one = dim_push(g, DIM_CONST, 1);
    VEC_PUSH(g->syms, ((Sym){"s0", 0, 0, 2}));
    VEC_PUSH(g->streams, ((GraphStream){NULL, 0, 0, 0}));
    VEC_PUSH(g->streams, ((GraphStream){"1", 0, 26, 10}));
    VEC_PUSH(g->sks, ((GraphSk){"sp1", "stream-fusion=1", 27, 10}));
    static int64_t gear_values[] = {2, 4};
    VEC_PUSH(g->gears, ((GearSpec){0, 0, gear_values, 2, 0, 20, 1}));

    DimId s0x2[] = {s0, two}, x2[] = {one, two}, w[] = {two, two}, s0x1[] = {s0, one};
    int32_t x1v = op_push(g, OP_INPUT, NULL, 0, DT_F32, 2, s0x2, 24, 1);
    VEC_PUSH(g->inputs, ((GraphInput){"x1", x1v, {2, 2}, 0, -1}));
    int32_t x2v = op_push(g, OP_INPUT, NULL, 0, DT_F32, 2, x2, 24, 1);
    VEC_PUSH(g->inputs, ((GraphInput){"x2", x2v, {1, 2}, 1, -1}));
    int32_t wv = op_push(g, OP_WEIGHT, NULL, 0, DT_F32, 2, w, 0, 0);
    VEC_PUSH(g->weights, ((GraphWeight){"blocks.0.w", wv, 0, -1, NULL, NULL, 0}));

    int32_t h = op_push(g, OP_ADD, (int32_t[]){x1v, x2v}, 2, DT_F32, 2, s0x2, 25, 13);
    last_op(g)->nattr = 1;
    last_op(g)->fattr[1] = 1.0;
    int32_t m = op_push(g, OP_MM, (int32_t[]){h, wv}, 2, DT_F32, 2, s0x2, 27, 17);
    last_op(g)->stream = 1;
    last_op(g)->sk = 0;
    int32_t m2 = op_push(g, OP_MUL, (int32_t[]){m}, 1, DT_F32, 2, s0x2, 28, 17);
    Op *mul = last_op(g);
    mul->stream = 1, mul->sk = 0, mul->nattr = 2, mul->attr[0] = 1, mul->fattr[0] = 0.5;
    mul->ctrl = ids(&g->arena, (int32_t[]){3}, 1);
    mul->nctrl = 1;
    mul->ctrl_explicit = arena_alloc(&g->arena, 1);
    mul->ctrl_explicit[0] = 1;
    int32_t sum = op_push(g, OP_SUM, (int32_t[]){m2}, 1, DT_F32, 1, &s0, 30, 9);
    last_op(g)->nattr = 2;
    last_op(g)->attr[1] = 1;
    int32_t view = op_push(g, OP_RESHAPE, (int32_t[]){sum}, 1, DT_F32, 2, s0x1, 30, 22);
    last_op(g)->nattr = 2;
    last_op(g)->attr[0] = s0;
    last_op(g)->attr[1] = one;
    VEC_PUSH(g->outputs, ((GraphOutput){"out0", view}));
}

static int32_t *arena_ids(Plan *p, const int32_t *v, size_t n) { return ids(&p->arena, v, n); }

static int64_t *arena_i64(Plan *p, const int64_t *v, size_t n)
{
    int64_t *q = arena_alloc(&p->arena, n * sizeof *q);
    memcpy(q, v, n * sizeof *q);
    return q;
}

static void push_unit(Plan *p, int32_t op, int seg, int stream, const int32_t *wait, size_t nwait,
                      const int32_t *record, size_t nrecord)
{
    VEC_PUSH(p->units, ((PlanUnit){op, seg, stream, arena_ids(p, wait, nwait), nwait,
                                   arena_ids(p, record, nrecord), nrecord}));
}

/* Memory of one gear where s0 = n: 8 bytes per row of a [s0,2] value. */
static void push_memory(Plan *p, int64_t n)
{
    int64_t off[] = {-1, -1, -1, 0, 8 * n, 8 * n, 0, 0};
    int64_t bytes[] = {0, 0, 0, 8 * n, 8 * n, 8 * n, 4 * n, 0};
    int32_t inplace[] = {-1, -1, -1, -1, -1, 4, -1, -1};
    VEC_PUSH(p->mem, ((PlanMemory){0, 16 * n, 28 * n, arena_i64(p, off, 8), arena_i64(p, bytes, 8),
                                   arena_ids(p, inplace, 8)}));
}

static void build_plan(Plan *p, Graph *g)
{
    memset(p, 0, sizeof *p);
    p->g = g;
    p->op_type = codegen_op_type;
    p->dtype_name = codegen_dtype_name;
    VEC_PUSH(p->gears, ((PlanGear){arena_i64(p, (int64_t[]){2}, 1)}));
    VEC_PUSH(p->gears, ((PlanGear){arena_i64(p, (int64_t[]){4}, 1)}));
    VEC_PUSH(p->segs, ((PlanSegment){0, arena_ids(p, (int32_t[]){4, 5}, 2), 2, 1, "end of scope"}));
    push_unit(p, 3, -1, 0, NULL, 0, (int32_t[]){0}, 1);
    push_unit(p, -1, 0, 1, (int32_t[]){0}, 1, (int32_t[]){1}, 1);
    push_unit(p, 6, -1, 0, (int32_t[]){1}, 1, NULL, 0);
    push_unit(p, 7, -1, 0, NULL, 0, NULL, 0);
    VEC_PUSH(p->events, ((PlanEvent){0, 1, 0, 1, 1}));
    VEC_PUSH(p->events, ((PlanEvent){1, 0, 1, 2, 0}));
    VEC_PUSH(p->streams, ((PlanStream){arena_ids(p, (int32_t[]){0, 2, 3}, 3), 3}));
    VEC_PUSH(p->streams, ((PlanStream){arena_ids(p, (int32_t[]){1}, 1), 1}));
    p->unit_of_op = arena_ids(p, (int32_t[]){-1, -1, -1, 0, 1, 1, 2, 3}, 8);
    push_memory(p, 2);
    push_memory(p, 4);
    VEC_PUSH(p->rowindep, ((PlanRowIndep){0, 1, -1, NULL}));
    VEC_PUSH(p->kernels, ((StaticKernel){"Add_float_ND_2_2_0", 3, OP_ADD, 0, 1, 1}));
    VEC_PUSH(p->kernels, ((StaticKernel){"Add_float_ND_4_2_0", 3, OP_ADD, 1, 1, 1}));
    VEC_PUSH(p->kernels, ((StaticKernel){"MatMulV2_float_ND_2_2_0", 4, OP_MM, 0, 1, 1}));
    VEC_PUSH(p->kernels, ((StaticKernel){"Reshape_float_ND_2_1_0", 7, OP_RESHAPE, 0, 2, 0}));
}

static int setup(void **state)
{
    Fx *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    build_graph(&fx->g);
    build_plan(&fx->p, &fx->g);
    const char *base = getenv("TMPDIR");
    snprintf(fx->dir, sizeof fx->dir, "%s/plan_out.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(fx->dir))
        return -1;
    *state = fx;
    return 0;
}

static void rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        chmod(path, 0700);
        DIR *d = opendir(path);
        struct dirent *de;
        while (d && (de = readdir(d)) != NULL) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
            rm_rf(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static int teardown(void **state)
{
    Fx *fx = *state;
    rm_rf(fx->dir);
    plan_done(&fx->p);
    graph_done(&fx->g);
    free(fx);
    unsetenv("SOURCE_DATE_EPOCH");
    return 0;
}

/* ------------------------------------------------------------------------ */
/* a JSON syntax checker (RFC 8259 grammar, no semantics)                     */
/* ------------------------------------------------------------------------ */

static const char *json_value(const char *s, int depth);

static const char *json_ws(const char *s)
{
    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
        s++;
    return s;
}

static const char *json_string(const char *s)
{
    if (*s++ != '"')
        return NULL;
    for (; *s != '"'; s++) {
        if ((unsigned char)*s < 0x20)
            return NULL;
        if (*s == '\\') {
            s++;
            if (*s == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
                        return NULL;
                s += 4;
            } else if (!*s || !strchr("\"\\/bfnrt", *s)) {
                return NULL;
            }
        }
    }
    return s + 1;
}

static const char *json_number(const char *s)
{
    const char *start = s;
    s += *s == '-';
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return NULL;
    if (*s == '.') {
        if (!(*++s >= '0' && *s <= '9'))
            return NULL;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        s += *s == '+' || *s == '-';
        if (!(*s >= '0' && *s <= '9'))
            return NULL;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return s > start ? s : NULL;
}

/* An array ('[') or object ('{'): items separated by commas. */
static const char *json_compound(const char *s, int depth)
{
    char close = *s == '[' ? ']' : '}';
    int object = *s == '{';
    s = json_ws(s + 1);
    if (*s == close)
        return s + 1;
    for (;;) {
        if (object) {
            if (!(s = json_string(s)) || *(s = json_ws(s)) != ':')
                return NULL;
            s = json_ws(s + 1);
        }
        if (!(s = json_value(s, depth + 1)))
            return NULL;
        s = json_ws(s);
        if (*s == close)
            return s + 1;
        if (*s != ',')
            return NULL;
        s = json_ws(s + 1);
    }
}

static const char *json_value(const char *s, int depth)
{
    if (depth > 64)
        return NULL;
    if (*s == '{' || *s == '[')
        return json_compound(s, depth);
    if (*s == '"')
        return json_string(s);
    if (!strncmp(s, "true", 4) || !strncmp(s, "null", 4))
        return s + 4;
    if (!strncmp(s, "false", 5))
        return s + 5;
    return json_number(s);
}

static int json_valid(const char *s)
{
    const char *end = json_value(json_ws(s), 0);
    return end && *json_ws(end) == 0;
}

static void assert_contains(const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("missing:\n%s\nin:\n%s", needle, hay);
}

/* ------------------------------------------------------------------------ */
/* text                                                                      */
/* ------------------------------------------------------------------------ */

static const char *WANT_TEXT =
    "entry Model.forward  # model.py:24:1\n"
    "config mode=max-autotune dynamic=true fullgraph=true policy=zip\n"
    "symbols: s0 = x1.shape[0] (example 2)\n"
    "set_dim_gears x1 dim=0 (s0) values=[2,4]  # line 20:1\n"
    "input %0 x1 f32[s0,2] ND\n"
    "input %1 x2 f32[1,2] ND static\n"
    "weight %2 \"blocks.0.w\" f32[2,2]\n"
    "stream 0 default\n"
    "stream 1 tag \"1\" priority 0  # line 26:10\n"
    "super_kernel 0 \"sp1\" options \"stream-fusion=1\"  # line 27:10\n"
    "graph:\n"
    "  %3:f32[s0,2] = add %0, %1  # line 25:13\n"
    "  %4:f32[s0,2] = mm %3, %2  # stream 1; sk 0; line 27:17\n"
    "  %5:f32[s0,2] = mul %4, 0.5  # stream 1; sk 0; after %3 (explicit); line 28:17\n"
    "  %6:f32[s0] = sum %5 dim=[1] keepdim=false  # line 30:9\n"
    "  %7:f32[s0,1] = reshape %6 shape=[s0,1]  # line 30:22\n"
    "outputs: out0 = %7\n"
    "gear 0: s0=2\n"
    "  shapes: x1=[2,2] x2=[1,2]\n"
    "  stream 0:\n"
    "    %3:f32[2,2] = add %0, %1 [arena 0..16)\n"
    "    record e0\n"
    "    wait e1\n"
    "    %6:f32[2] = sum %5 [arena 0..8)\n"
    "    %7:f32[2,1] = reshape %6 [storage of %6 @0]\n"
    "  stream 1:\n"
    "    wait e0\n"
    "    segment 0 \"sp1\" {\n"
    "      %4:f32[2,2] = mm %3, %2 [arena 16..32)\n"
    "      %5:f32[2,2] = mul %4, 0.5 [in-place %4]\n"
    "    }\n"
    "    record e1\n"
    "  memory: arena 32 bytes, naive 56 bytes\n"
    "gear 1: s0=4\n"
    "  shapes: x1=[4,2] x2=[1,2]\n"
    "  stream 0:\n"
    "    %3:f32[4,2] = add %0, %1 [arena 0..32)\n"
    "    record e0\n"
    "    wait e1\n"
    "    %6:f32[4] = sum %5 [arena 0..16)\n"
    "    %7:f32[4,1] = reshape %6 [storage of %6 @0]\n"
    "  stream 1:\n"
    "    wait e0\n"
    "    segment 0 \"sp1\" {\n"
    "      %4:f32[4,2] = mm %3, %2 [arena 32..64)\n"
    "      %5:f32[4,2] = mul %4, 0.5 [in-place %4]\n"
    "    }\n"
    "    record e1\n"
    "  memory: arena 64 bytes, naive 112 bytes\n"
    "events:\n"
    "  e0: stream 0 after %3 -> stream 1 before seg 0 (explicit)\n"
    "  e1: stream 1 after seg 0 -> stream 0 before %6\n"
    "segments:\n"
    "  seg 0 \"sp1\" stream 1: %4 %5 (end of scope)\n"
    "row independence:\n"
    "  s0 independent\n"
    "static kernels:\n"
    "  Add_float_ND_2_2_0: %3 add gear 0 x1 selected\n"
    "  Add_float_ND_4_2_0: %3 add gear 1 x1 selected\n"
    "  MatMulV2_float_ND_2_2_0: %4 mm gear 0 x1 selected\n"
    "  Reshape_float_ND_2_1_0: %7 reshape gear 0 x2 view\n";

static void test_text_full(void **state)
{
    Fx *fx = *state;
    StrBuf out = {0};
    plan_text(&fx->p, &out);
    assert_string_equal(out.s, WANT_TEXT);
    StrBuf again = {0};
    plan_text(&fx->p, &again);
    assert_string_equal(out.s, again.s);
    sb_free(&out);
    sb_free(&again);
}

/* An unbound symbol, dynamic memory, a dependent row and no kernels. */
static void test_text_dynamic(void **state)
{
    Fx *fx = *state;
    fx->p.gears.v[0].symval[0] = INT64_MIN;
    fx->p.gears.n = 1;
    fx->p.mem.v[0].dynamic = 1;
    fx->p.mem.n = 1;
    fx->p.rowindep.v[0] = (PlanRowIndep){0, 0, 6, "sum reduces over it"};
    fx->p.kernels.n = 0;
    fx->p.events.v[0].explicit_wait = 0;
    StrBuf out = {0};
    plan_text(&fx->p, &out);
    assert_contains(out.s, "gear 0: s0 unbound\n"
                           "  shapes: x1=[s0,2] x2=[1,2]\n"
                           "  stream 0:\n"
                           "    %3:f32[s0,2] = add %0, %1\n");
    assert_contains(out.s, "  memory: dynamic\nevents:\n");
    assert_contains(out.s, "  e0: stream 0 after %3 -> stream 1 before seg 0\n");
    assert_contains(out.s, "  s0 not independent: %6 sum at line 30:9: sum reduces over it\n");
    assert_contains(out.s, "static kernels: none\n");
    assert_null(strstr(out.s, "gear 1"));
    sb_free(&out);

    StrBuf js = {0};
    plan_json(&fx->p, &js);
    assert_true(json_valid(js.s));
    assert_contains(js.s, "{\"id\":0,\"symbols\":{\"s0\":null},\"shapes\":{\"x1\":[\"s0\",2],\"x2\":[1,2]}");
    assert_contains(js.s, "{\"gear\":0,\"dynamic\":true,\"arena_bytes\":null,\"naive_bytes\":null,"
                          "\"offsets\":{},\"bytes\":{},\"inplace\":{\"5\":4}}");
    assert_contains(js.s, "{\"symbol\":\"s0\",\"independent\":false,\"op\":6,\"line\":30,\"col\":9,"
                          "\"why\":\"sum reduces over it\"}");
    assert_contains(js.s, "\"static_kernels\":[]}");
    sb_free(&js);
}

/* A graph without symbols, streams or segments, and names that need quotes. */
static void test_text_static_quoted(void **state)
{
    (void)state;
    Graph g;
    memset(&g, 0, sizeof g);
    g.name = "Model.forward";
    g.file = "dir/m y.py";
    g.cfg = (EntryConfig){"reduce-overhead", -1, 0, 1, 1, "out/kernels", 0, GEAR_PRODUCT, NULL};
    VEC_PUSH(g.streams, ((GraphStream){NULL, 0, 0, 0}));
    DimId four = dim_push(&g, DIM_CONST, 4);
    int32_t kv = op_push(&g, OP_INPUT, NULL, 0, DT_F16, 1, &four, 1, 1);
    VEC_PUSH(g.inputs, ((GraphInput){"kv['k']", kv, {4}, 0, 2}));
    int32_t buf = op_push(&g, OP_WEIGHT, NULL, 0, DT_F16, 1, &four, 0, 0);
    VEC_PUSH(g.weights, ((GraphWeight){"cache", buf, 1, -1, NULL, NULL, 0}));
    int32_t c = op_push(&g, OP_COPY, (int32_t[]){kv, buf}, 2, DT_F16, 1, &four, 3, 5);
    VEC_PUSH(g.outputs, ((GraphOutput){"out0", c}));
    Plan p;
    memset(&p, 0, sizeof p);
    p.g = &g;
    p.op_type = codegen_op_type;
    p.dtype_name = codegen_dtype_name;
    VEC_PUSH(p.gears, ((PlanGear){NULL}));
    StrBuf out = {0};
    plan_text(&p, &out);
    assert_string_equal(out.s,
                        "entry Model.forward  # dir/m y.py:0:0\n"
                        "config mode=reduce-overhead dynamic=unset fullgraph=false policy=product "
                        "cache_compile=true static_kernel=true build_dir=\"out/kernels\"\n"
                        "symbols: none\n"
                        "input %0 \"kv['k']\" f16[4] ND -> %2\n"
                        "weight %1 cache f16[4] buffer\n"
                        "stream 0 default\n"
                        "graph:\n"
                        "  %2:f16[4] = copy %0, %1  # line 3:5\n"
                        "outputs: out0 = %2\n"
                        "gear 0: all static\n"
                        "  shapes: \"kv['k']\"=[4]\n"
                        "  writes: 1 in place, 8 bytes\n"
                        "events: none\n"
                        "segments: none\n"
                        "row independence: none\n"
                        "static kernels: none\n");
    sb_free(&out);
    StrBuf js = {0};
    plan_json(&p, &js);
    assert_true(json_valid(js.s));
    assert_contains(js.s, "{\"name\":\"kv['k']\",\"value\":0,\"dtype\":\"float16\",\"format\":\"ND\",\"shape\":[4],"
                          "\"example\":[4],\"static\":false,\"mutated\":true,\"final\":2}");
    assert_contains(js.s, "\"streams\":[\n  {\"id\":0,\"tag\":null,\"priority\":0,\"line\":null,\"col\":null,"
                          "\"schedule\":[]}]");
    sb_free(&js);
    VEC_FREE(p.gears);
    graph_done(&g);
}

/* ------------------------------------------------------------------------ */
/* attributes                                                                */
/* ------------------------------------------------------------------------ */

typedef struct AttrCase {
    OpKind kind;
    int64_t attr[4];
    uint32_t nattr;
    double fattr[2];
    DType dtype;
    const char *text;  /* the op's line in the graph section, after "= " */
    const char *json;
} AttrCase;

static const AttrCase ATTR_CASES[] = {
    {OP_SUB, {2, 1}, 2, {1, 1}, DT_UNKNOWN, "sub 1, %0", "{\"scalar\":1,\"scalar_side\":\"left\",\"alpha\":1.0}"},
    {OP_ADD, {0}, 1, {0, 2}, DT_UNKNOWN, "add %0, %0 alpha=2.0", "{\"alpha\":2.0}"},
    {OP_DIV, {1, 0}, 2, {3.0, 0}, DT_UNKNOWN, "div %0, 3.0", "{\"scalar\":3.0,\"scalar_side\":\"right\"}"},
    {OP_POW, {0}, 0, {0.1, 0}, DT_UNKNOWN, "pow %0 exponent=0.1", "{\"exponent\":0.1}"},
    {OP_GELU, {1}, 1, {0, 0}, DT_UNKNOWN, "gelu %0 approximate=tanh", "{\"approximate\":\"tanh\"}"},
    {OP_CAST, {0}, 0, {0, 0}, DT_BF16, "cast %0", "{\"dtype\":\"bfloat16\"}"},
    {OP_PERMUTE, {1, 0}, 2, {0, 0}, DT_UNKNOWN, "permute %0 perm=[1,0]", "{\"perm\":[1,0]}"},
    {OP_SLICE, {1, -3, GRAPH_END, 2}, 4, {0, 0}, DT_UNKNOWN, "slice %0 dim=1 start=-3 end=None step=2",
     "{\"dim\":1,\"start\":-3,\"end\":null,\"step\":2}"},
    {OP_SELECT, {0, -1}, 2, {0, 0}, DT_UNKNOWN, "select %0 dim=0 index=-1", "{\"dim\":0,\"index\":-1}"},
    {OP_SOFTMAX, {1}, 1, {0, 0}, DT_F32, "softmax %0 dim=1", "{\"dim\":1,\"dtype\":\"float32\"}"},
    {OP_MEAN, {1}, 1, {0, 0}, DT_UNKNOWN, "mean %0 dim=[] keepdim=true", "{\"dim\":[],\"keepdim\":true}"},
    {OP_LAYER_NORM, {1}, 1, {1e-05, 0}, DT_UNKNOWN, "layer_norm %0 normalized_ndim=1 eps=1e-05",
     "{\"normalized_ndim\":1,\"eps\":1e-05}"},
    {OP_FORMAT_CAST, {29}, 1, {0, 0}, DT_UNKNOWN, "format_cast %0 format=FRACTAL_NZ", "{\"format\":\"FRACTAL_NZ\"}"},
    {OP_FULL, {0, 0}, 2, {-0.0, 0}, DT_F32, "full shape=[4,4] value=-0.0", "{\"shape\":[4,4],\"value\":-0.0,\"dtype\":\"float32\"}"},
    {OP_ADDMM, {0}, 0, {1, 0.5}, DT_UNKNOWN, "addmm %0 beta=1.0 alpha=0.5", "{\"beta\":1.0,\"alpha\":0.5}"},
    {OP_DEQUANT_SWIGLU_QUANT, {1, 1}, 2, {0, 0}, DT_UNKNOWN, "dequant_swiglu_quant %0 activate_left=true quant_mode=dynamic",
     "{\"activate_left\":true,\"quant_mode\":\"dynamic\"}"},
    {OP_RMS_NORM, {0}, 0, {1.0 / 0.0, 0}, DT_UNKNOWN, "rms_norm %0 eps=inf", "{\"eps\":null}"},
    {OP_MM, {0}, 0, {0, 0}, DT_UNKNOWN, "mm %0", "{}"},
};

static void test_attrs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ATTR_CASES / sizeof *ATTR_CASES; i++) {
        const AttrCase *c = &ATTR_CASES[i];
        Graph g;
        memset(&g, 0, sizeof g);
        DimId four = dim_push(&g, DIM_CONST, 4);
        int32_t x = op_push(&g, OP_INPUT, NULL, 0, DT_F32, 1, &four, 1, 1);
        int nin = c->kind == OP_FULL ? 0 : c->kind == OP_ADD ? 2 : 1;
        op_push(&g, c->kind, (int32_t[]){x, x}, (uint32_t)nin, DT_F32, 1, &four, 2, 1);
        Op *op = last_op(&g);
        memcpy(op->attr, c->attr, sizeof c->attr);
        op->nattr = c->nattr;
        op->fattr[0] = c->fattr[0];
        op->fattr[1] = c->fattr[1];
        op->dtype = c->dtype;
        Plan p;
        memset(&p, 0, sizeof p);
        p.g = &g;
        StrBuf text = {0}, js = {0};
        plan_text(&p, &text);
        char want[256];
        snprintf(want, sizeof want, "  %%1:f32[4] = %s  # line 2:1\n", c->text);
        assert_contains(text.s, want);
        plan_op_attrs_json(&g, 1, &js);
        assert_string_equal(js.s, c->json);
        assert_true(json_valid(js.s));
        sb_free(&text);
        sb_free(&js);
        graph_done(&g);
    }
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                      */
/* ------------------------------------------------------------------------ */

static void test_json(void **state)
{
    Fx *fx = *state;
    StrBuf js = {0};
    plan_json(&fx->p, &js);
    assert_true(json_valid(js.s));
    const char *head = "{\"name\":\"Model.forward\",\"file\":\"model.py\",\"line\":24,\"col\":1,\n ";
    assert_true(!strncmp(js.s, head, strlen(head)));
    assert_contains(js.s, "\"config\":{\"mode\":\"max-autotune\",\"dynamic\":true,\"fullgraph\":true,"
                          "\"policy\":\"zip\",\"cache_compile\":false,\"cache_dir\":null,\"static_kernel\":false,"
                          "\"build_dir\":null,\"single_stream\":false}");
    assert_contains(js.s, "\"symbols\":[\n  {\"name\":\"s0\",\"input\":\"x1\",\"dim\":0,\"example\":2}]");
    assert_contains(js.s, "\"set_dim_gears\":[\n  {\"input\":\"x1\",\"dim\":0,\"symbol\":\"s0\",\"values\":[2,4],"
                          "\"line\":20,\"col\":1}]");
    assert_contains(js.s, "{\"name\":\"x1\",\"value\":0,\"dtype\":\"float32\",\"format\":\"ND\",\"shape\":[\"s0\",2],"
                          "\"example\":[2,2],\"static\":false,\"mutated\":false,\"final\":null}");
    assert_contains(js.s, "{\"name\":\"blocks.0.w\",\"value\":2,\"dtype\":\"float32\",\"format\":\"ND\","
                          "\"shape\":[2,2],\"buffer\":false,\"mutated\":false,\"final\":null}");
    assert_contains(js.s, "\"outputs\":[\n  {\"name\":\"out0\",\"value\":7,\"dtype\":\"float32\",\"format\":\"ND\","
                          "\"shape\":[\"s0\",1]}]");
    assert_contains(js.s, "{\"id\":1,\"symbols\":{\"s0\":4},\"shapes\":{\"x1\":[4,2],\"x2\":[1,2]},"
                          "\"output_shapes\":{\"out0\":[4,1]}}");
    assert_contains(js.s, "{\"id\":5,\"kind\":\"mul\",\"acl\":\"Mul\",\"inputs\":[4],\"outputs\":[{\"value\":5,"
                          "\"name\":null,\"dtype\":\"float32\",\"format\":\"ND\",\"shape\":[\"s0\",2]}],"
                          "\"ctrl\":[{\"op\":3,\"explicit\":true}],\"stream\":1,\"sk\":0,\"line\":28,\"col\":17,"
                          "\"attrs\":{\"scalar\":0.5,\"scalar_side\":\"right\"}}");
    assert_contains(js.s, "{\"id\":1,\"tag\":\"1\",\"priority\":0,\"line\":26,\"col\":10,\"schedule\":"
                          "[{\"unit\":1,\"segment\":0,\"wait\":[0],\"record\":[1]}]}");
    assert_contains(js.s, "\"schedule\":[{\"unit\":0,\"op\":3,\"wait\":[],\"record\":[0]},"
                          "{\"unit\":2,\"op\":6,\"wait\":[1],\"record\":[]},{\"unit\":3,\"op\":7,\"wait\":[],\"record\":[]}]");
    assert_contains(js.s, "\"events\":[\n  {\"id\":0,\"from\":0,\"to\":1,\"after_unit\":0,\"before_unit\":1,"
                          "\"after_op\":3,\"before_op\":4,\"explicit\":true},\n"
                          "  {\"id\":1,\"from\":1,\"to\":0,\"after_unit\":1,\"before_unit\":2,\"after_op\":5,"
                          "\"before_op\":6,\"explicit\":false}]");
    assert_contains(js.s, "\"super_kernels\":[\n  {\"id\":0,\"scope\":\"sp1\",\"options\":\"stream-fusion=1\","
                          "\"line\":27,\"col\":10,\"segments\":[{\"id\":0,\"ops\":[4,5],\"stream\":1,"
                          "\"split\":\"end of scope\"}]}]");
    assert_contains(js.s, "{\"gear\":0,\"dynamic\":false,\"arena_bytes\":32,\"naive_bytes\":56,"
                          "\"offsets\":{\"3\":0,\"4\":16,\"5\":16,\"6\":0,\"7\":0},"
                          "\"bytes\":{\"3\":16,\"4\":16,\"5\":16,\"6\":8},\"inplace\":{\"5\":4}}");
    assert_contains(js.s, "\"row_independence\":[\n  {\"symbol\":\"s0\",\"independent\":true,\"op\":null,"
                          "\"line\":null,\"col\":null,\"why\":null}]");
    assert_contains(js.s, "{\"key\":\"Reshape_float_ND_2_1_0\",\"op\":7,\"kind\":\"reshape\",\"acl\":\"Reshape\","
                          "\"gear\":0,\"count\":2,\"selected\":false}]}\n");
    sb_free(&js);
}

/* Hostile strings stay valid JSON (and the text dump quotes them). */
static void test_json_escapes(void **state)
{
    Fx *fx = *state;
    fx->g.name = "M.\"f\"\\\n\x01\xff";
    fx->g.inputs.v[0].name = "x\t1";
    fx->g.sks.v[0].options = "a=\"b\"";
    fx->p.segs.v[0].split = "why\n";
    fx->p.gears.v[1].symval[0] = INT64_MIN;
    StrBuf js = {0};
    plan_json(&fx->p, &js);
    assert_true(json_valid(js.s));
    assert_contains(js.s, "{\"name\":\"M.\\\"f\\\"\\\\\\n\\u0001\\ufffd\",");
    assert_contains(js.s, "\"shapes\":{\"x\\t1\":[\"s0\",2]");
    sb_free(&js);
    StrBuf text = {0};
    plan_text(&fx->p, &text);
    assert_contains(text.s, "input %0 \"x\\t1\" f32[s0,2] ND\n");
    assert_contains(text.s, "options \"a=\\\"b\\\"\"");
    sb_free(&text);
    StrBuf dot = {0};
    plan_dot(&fx->p, &dot);
    assert_contains(dot.s, "digraph \"M.\\\"f\\\"\\\\\\n\xff\" {\n");
    sb_free(&dot);
}

/* ------------------------------------------------------------------------ */
/* DOT                                                                       */
/* ------------------------------------------------------------------------ */

static const char *WANT_DOT =
    "digraph \"Model.forward\" {\n"
    "  node [shape=ellipse, style=filled, fontname=\"monospace\"];\n"
    "  n0 [label=\"%0 x1\\nf32[s0,2]\", shape=box, fillcolor=\"#ffffff\"];\n"
    "  n1 [label=\"%1 x2\\nf32[1,2]\", shape=box, fillcolor=\"#ffffff\"];\n"
    "  n2 [label=\"%2 blocks.0.w\\nf32[2,2]\", shape=box, fillcolor=\"#ffffff\"];\n"
    "  subgraph cluster_seg0 {\n"
    "    label=\"sp1\";\n"
    "    style=dashed;\n"
    "    n4 [label=\"%4 mm\\nf32[s0,2]\", fillcolor=\"#b2df8a\"];\n"
    "    n5 [label=\"%5 mul\\nf32[s0,2]\", fillcolor=\"#b2df8a\"];\n"
    "  }\n"
    "  n3 [label=\"%3 add\\nf32[s0,2]\", fillcolor=\"#a6cee3\"];\n"
    "  n6 [label=\"%6 sum\\nf32[s0]\", fillcolor=\"#a6cee3\"];\n"
    "  n7 [label=\"%7 reshape\\nf32[s0,1]\", fillcolor=\"#a6cee3\"];\n"
    "  out0 [label=\"out0\", shape=box, style=rounded];\n"
    "  n0 -> n3;\n"
    "  n1 -> n3;\n"
    "  n3 -> n4 [label=\"e0\"];\n"
    "  n2 -> n4;\n"
    "  n4 -> n5;\n"
    "  n3 -> n5 [style=dashed, label=\"e0\"];\n"
    "  n5 -> n6 [label=\"e1\"];\n"
    "  n6 -> n7;\n"
    "  n7 -> out0;\n"
    "}\n";

static void test_dot(void **state)
{
    Fx *fx = *state;
    StrBuf dot = {0};
    plan_dot(&fx->p, &dot);
    assert_string_equal(dot.s, WANT_DOT);
    sb_free(&dot);
}

/* ------------------------------------------------------------------------ */
/* manifest                                                                  */
/* ------------------------------------------------------------------------ */

/* Appends every path under dir (relative, sorted, directories with '/'). */
static void list_tree(const char *dir, const char *rel, StrBuf *out)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort);
    assert_true(n >= 0);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (strcmp(name, ".") && strcmp(name, "..")) {
            char sub[1024], full[2048];
            snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", name);
            snprintf(full, sizeof full, "%s/%s", dir, sub);
            struct stat st;
            assert_int_equal(lstat(full, &st), 0);
            sb_printf(out, "%s%s\n", sub, S_ISDIR(st.st_mode) ? "/" : "");
            if (S_ISDIR(st.st_mode))
                list_tree(dir, sub, out);
        }
        free(names[i]);
    }
    free(names);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    StrBuf b = {0};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_putn(&b, buf, n);
    fclose(f);
    sb_putn(&b, "", 0);
    return b.s;
}

#define RUN "aclnn_static_shape_kernel_outputs/19700101000000_0_outputs/"

static const char *WANT_TREE =
    "aclnn_static_shape_kernel_outputs/\n"
    RUN "\n"
    RUN "0/\n"
    RUN "0/Add_float_ND_2_2_0.json\n"
    RUN "0/Add_float_ND_4_2_0.json\n"
    RUN "0/MatMulV2_float_ND_2_2_0.json\n"
    RUN "0_debug/\n"
    RUN "0_debug/Add_float_ND_2_2_0.json\n"
    RUN "0_debug/Add_float_ND_4_2_0.json\n"
    RUN "0_debug/MatMulV2_float_ND_2_2_0.json\n"
    RUN "0_debug/Reshape_float_ND_2_1_0.json\n";

static const char *WANT_ADD_GEAR1 =
    "{\n"
    "  \"op_type\":\"Add\",\n"
    "  \"op_name\":\"add_3\",\n"
    "  \"inputs\":[\n"
    "    {\"dtype\":\"float\",\"format\":\"ND\",\"shape\":[4,2]},\n"
    "    {\"dtype\":\"float\",\"format\":\"ND\",\"shape\":[1,2]}],\n"
    "  \"outputs\":[\n"
    "    {\"dtype\":\"float\",\"format\":\"ND\",\"shape\":[4,2]}],\n"
    "  \"attrs\":{\"alpha\":1.0},\n"
    "  \"source\":{\"line\":25,\"col\":13}\n"
    "}\n";

static const char *WANT_RESHAPE =
    "{\n"
    "  \"op_type\":\"Reshape\",\n"
    "  \"op_name\":\"reshape_7\",\n"
    "  \"inputs\":[\n"
    "    {\"dtype\":\"float\",\"format\":\"ND\",\"shape\":[2]}],\n"
    "  \"outputs\":[\n"
    "    {\"dtype\":\"float\",\"format\":\"ND\",\"shape\":[2,1]}],\n"
    "  \"attrs\":{\"shape\":[\"s0\",1]},\n"
    "  \"source\":{\"line\":30,\"col\":22}\n"
    "}\n";

static void assert_file(const char *dir, const char *rel, const char *want)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    char *got = slurp(path);
    assert_non_null(got);
    assert_string_equal(got, want);
    assert_true(json_valid(got));
    free(got);
}

/* manifest_write with a sink of its own: 0, or -1 with the message of the
 * one error it reported (about the entry) in err. */
static int write_manifest(const Plan *p, const char *dir, char *err, size_t n)
{
    Sink sink;
    sink_init(&sink, NULL);
    int rc = manifest_write(p, dir, &sink);
    assert_int_equal(sink.msgs.n, rc != 0);
    assert_int_equal(sink.errors, rc != 0);
    if (rc != 0) {
        assert_string_equal(sink.msgs.v[0].file, p->g->name);
        snprintf(err, n, "%s", sink.msgs.v[0].msg);
    }
    sink_free(&sink);
    return rc;
}

static void test_manifest_tree(void **state)
{
    Fx *fx = *state;
    char err[256] = "";
    setenv("SOURCE_DATE_EPOCH", "0", 1);
    assert_int_equal(write_manifest(&fx->p, fx->dir, err, sizeof err), 0);
    assert_string_equal(err, "");
    StrBuf tree = {0};
    list_tree(fx->dir, "", &tree);
    assert_string_equal(tree.s, WANT_TREE);
    assert_file(fx->dir, RUN "0/Add_float_ND_4_2_0.json", WANT_ADD_GEAR1);
    assert_file(fx->dir, RUN "0_debug/Add_float_ND_4_2_0.json", WANT_ADD_GEAR1);
    assert_file(fx->dir, RUN "0_debug/Reshape_float_ND_2_1_0.json", WANT_RESHAPE);
    /* Again into the same tree (a trailing slash on build_dir): same files. */
    char slash[300];
    snprintf(slash, sizeof slash, "%s/", fx->dir);
    assert_int_equal(write_manifest(&fx->p, slash, err, sizeof err), 0);
    StrBuf again = {0};
    list_tree(fx->dir, "", &again);
    assert_string_equal(again.s, WANT_TREE);
    sb_free(&tree);
    sb_free(&again);
}

/* Without SOURCE_DATE_EPOCH: <14 digits>_<pid>_outputs/<pid>/. */
static void test_manifest_now(void **state)
{
    Fx *fx = *state;
    char err[256] = "";
    unsetenv("SOURCE_DATE_EPOCH");
    assert_int_equal(write_manifest(&fx->p, fx->dir, err, sizeof err), 0);
    char root[300];
    snprintf(root, sizeof root, "%s/aclnn_static_shape_kernel_outputs", fx->dir);
    struct dirent **names;
    int n = scandir(root, &names, NULL, alphasort);
    assert_int_equal(n, 3);
    const char *run = names[2]->d_name;
    char want_tail[64];
    snprintf(want_tail, sizeof want_tail, "_%ld_outputs", (long)getpid());
    assert_int_equal(strlen(run), 14 + strlen(want_tail));
    assert_string_equal(run + 14, want_tail);
    for (int i = 0; i < 14; i++)
        assert_true(run[i] >= '0' && run[i] <= '9');
    char sel[700];
    snprintf(sel, sizeof sel, "%s/%s/%ld/MatMulV2_float_ND_2_2_0.json", root, run, (long)getpid());
    char *got = slurp(sel);
    assert_non_null(got);
    assert_true(json_valid(got));
    free(got);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void assert_refused(Fx *fx, const char *dir, const char *want_err)
{
    char err[512] = "";
    assert_int_equal(write_manifest(&fx->p, dir, err, sizeof err), -1);
    assert_string_equal(err, want_err);
    StrBuf tree = {0};
    list_tree(fx->dir, "", &tree);
    assert_string_equal(tree.s ? tree.s : "", "");
    sb_free(&tree);
}

static void test_manifest_errors(void **state)
{
    Fx *fx = *state;
    char path[400], want[600];
    setenv("SOURCE_DATE_EPOCH", "0", 1);
    assert_refused(fx, "", "static kernel build dir is empty");
    assert_refused(fx, NULL, "static kernel build dir is empty");
    snprintf(path, sizeof path, "%s/missing", fx->dir);
    snprintf(want, sizeof want, "static kernel build dir '%s' does not exist", path);
    assert_refused(fx, path, want);
    snprintf(path, sizeof path, "%s/../%s", fx->dir, strrchr(fx->dir, '/') + 1);
    snprintf(want, sizeof want, "static kernel build dir '%s' contains '..'", path);
    assert_refused(fx, path, want);
    snprintf(path, sizeof path, "%s/..", fx->dir);
    snprintf(want, sizeof want, "static kernel build dir '%s' contains '..'", path);
    assert_refused(fx, path, want);
    setenv("SOURCE_DATE_EPOCH", "12x", 1);
    assert_refused(fx, fx->dir, "SOURCE_DATE_EPOCH '12x' is not a non-negative integer");
    setenv("SOURCE_DATE_EPOCH", "-1", 1);
    assert_refused(fx, fx->dir, "SOURCE_DATE_EPOCH '-1' is not a non-negative integer");
    setenv("SOURCE_DATE_EPOCH", "0", 1);
    fx->p.kernels.v[1].key = "a/b";
    assert_refused(fx, fx->dir, "static kernel a/b has no usable file name");
}

/* A file as build_dir, and a file where the tree's root folder goes. */
static void test_manifest_not_dir(void **state)
{
    Fx *fx = *state;
    char path[400], want[600], err[600] = "";
    setenv("SOURCE_DATE_EPOCH", "0", 1);
    snprintf(path, sizeof path, "%s/aclnn_static_shape_kernel_outputs", fx->dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(want, sizeof want, "static kernel build dir '%s' is not a directory", path);
    assert_int_equal(write_manifest(&fx->p, path, err, sizeof err), -1);
    assert_string_equal(err, want);
    snprintf(want, sizeof want, "'%s' exists and is not a directory", path);
    assert_int_equal(write_manifest(&fx->p, fx->dir, err, sizeof err), -1);
    assert_string_equal(err, want);
    StrBuf tree = {0};
    list_tree(fx->dir, "", &tree);
    assert_string_equal(tree.s, "aclnn_static_shape_kernel_outputs\n");
    sb_free(&tree);
}

/* A read-only build dir (root ignores modes: then a read-only mount, or skip). */
static void test_manifest_unwritable(void **state)
{
    Fx *fx = *state;
    char path[400], want[600];
    setenv("SOURCE_DATE_EPOCH", "0", 1);
    snprintf(path, sizeof path, "%s/ro", fx->dir);
    assert_int_equal(mkdir(path, 0555), 0);
    if (access(path, W_OK) == 0) {
        snprintf(path, sizeof path, "/proc/sys");
        if (access(path, F_OK) != 0 || access(path, W_OK) == 0)
            skip();
    }
    snprintf(want, sizeof want, "static kernel build dir '%s' is not writable", path);
    char err[600] = "";
    assert_int_equal(write_manifest(&fx->p, path, err, sizeof err), -1);
    assert_string_equal(err, want);
    StrBuf tree = {0};
    list_tree(fx->dir, "", &tree);
    assert_string_equal(tree.s, "ro/\n");
    sb_free(&tree);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_text_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_dynamic, setup, teardown),
        cmocka_unit_test(test_text_static_quoted),
        cmocka_unit_test(test_attrs),
        cmocka_unit_test_setup_teardown(test_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_escapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifest_tree, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifest_now, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifest_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifest_not_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifest_unwritable, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
