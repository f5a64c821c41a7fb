/*
 * emit.h - what the emitters share (emit.c): the emitter state, operand
 * pointers and shapes as C expressions, #line directives, the per-gear
 * layout and outputs functions, the signature tables and the descriptor,
 * the template splices, and the writing of <name>.c with its body in place.
 *
 * Private to codegen/: emit_cpu.c and emit_acl.c are siblings built on it,
 * so that both targets read the same plan the same way (a dim, an arena
 * offset, an output view, a signature table is printed by one function).
 */
#ifndef TNGC_EMIT_H
#define TNGC_EMIT_H

#include "codegen.h"
#include "cesc.h"

typedef struct Emit {
    const Plan *p;
    const Graph *g;
    const GenOptions *opt;
    DiagList *diags;
    int errors;
    StrBuf *o;                 /* the file being written */
    const char *cfile;         /* its name, for #line */
    size_t nl_pos, nl;         /* newlines counted in o up to nl_pos */
    int gear;
    const int64_t *symval;
    int dyn;                   /* the gear places buffers at run time */
    int rtdims;                /* the gear has dims known at run time only */
    int32_t *slot;             /* dynamic gears: per value, its index in off[], or -1 */
    int nslot;
    int32_t *input_of;         /* per value: graph input index, or -1 */
    int32_t *weight_of;        /* per value: weight index, or -1 */
    int kptr;                  /* static-kernel mode: operand k is p[k] */
    uint32_t line;             /* the script line of the op being emitted (0: none) */
    const char *line_file;     /* its file when not the script (a module it imports), else NULL */
    unsigned char user[OP__count];
    void *target;              /* the emitter's own state */
    void *fuse;                /* pointwise fusion's state (fuse.c; CPU target), or NULL */
    const char *gpre;          /* split bundles (CPU, several gears): "<name>__", the prefix of the
                                * symbols other files of the bundle define (gear tables, layout and
                                * outputs functions, static kernels, the constant block), which are
                                * then not static; NULL: one file, every symbol static, unprefixed */
} Emit;

/* "TNGRT_F32", ... for dtype t. */
const char *emit_dtype_enum(DType t);

void emit_init(Emit *E, const Plan *p, const GenOptions *opt, DiagList *diags);
void emit_fini(Emit *E);

/* opt with its bundle name made a C identifier by cesc_ident (its text in
 * *name, the caller's to free): what an emitter works with, whoever called
 * it. The name tngc.c derives is one already, so nothing changes for it. */
GenOptions emit_options(const GenOptions *opt, StrBuf *name);

/* "/" "* generated from SCRIPT by tngc VERSION, do not edit *" "/" (the
 * script path through cesc_comment). */
void emit_banner(const GenOptions *opt, StrBuf *o);

/* #line LINE "script" (nothing with --no-line or line 0). */
void emit_line_script(Emit *E, uint32_t line);
/* The same for op's line, in the file it is in (a module the script imports). */
void emit_line_op(Emit *E, const Op *op);
/* #line back to the generated file's own next line. */
void emit_line_back(Emit *E);
/* The statement after a fallible call's "if (...)" (CPU target): "return
 * -1;" inside a static kernel, else the failure's return at E->line
 * (E->line_file's, or the script's). */
void emit_fail_return(Emit *E);

/* Dim d as a C expression: a constant in the gear, or of S[k]. */
void emit_dim(Emit *E, DimId d);
/* "(const int64_t[]){d0, d1}" or "NULL" for a 0-d value; insert_at >= 0
 * inserts a 1 there. */
void emit_shape(Emit *E, int32_t v, int insert_at);
/* The pointer to value v's data: c->in[i], c->w[k], (A + off) or
 * (A + c->off[slot]); p[pos] in static-kernel mode. */
void emit_ptr(Emit *E, int32_t v, int pos);
/* x as a C double literal (NAN and INFINITY from <math.h>). */
void emit_double(Emit *E, double x);
/* x as a C constant expression of its value, written into buf
 * (EMIT_I64_LEN bytes) and returned: its decimal digits, which need no
 * suffix (a decimal constant has the first of int, long and long long
 * that holds it), but for INT64_MIN "(-9223372036854775807LL - 1)":
 * -9223372036854775808 would negate 9223372036854775808, which no signed
 * type holds. EMIT_I64(x) gives it a buffer of its own, alive until the
 * end of the enclosing block. Every int64 the emitters print into
 * generated C is printed by it. */
#define EMIT_I64_LEN 32
const char *emit_i64(char *buf, int64_t x);
#define EMIT_I64(x) emit_i64((char[EMIT_I64_LEN]){0}, (x))

/*
 * Argument tokens: the rows of both targets' op tables (emit_cpu.c's
 * cpu_ops, acl_ops.c's acl_ops) spell the arguments of an op's call as
 * space-separated tokens, read by emit_args. Tokens that mean the same on
 * both targets are read here:
 *   =text  the text itself (a literal: =NULL, =false, =TNGRT_UN_NEG, =0.0)
 *   aK     attr[K] as an int64 literal
 *   FK     fattr[K] as a double literal
 * and the target reads the rest (iK, oK, list, rd, gelu, ...: each table's
 * file documents its own).
 */
typedef struct EmitToken {
    const char *s;             /* the token's text (not NUL-terminated) */
    size_t n;                  /* its length */
    int k;                     /* its digit K (the second char), or -1 */
} EmitToken;
/* Writes one target token of op; returns 0 when t is not one of its tokens. */
typedef int (*EmitTokenFn)(Emit *E, const Op *op, const EmitToken *t, void *ctx);
/* Reads the next token of *at into t and moves *at past it; 0 at the end. */
int emit_token_next(const char **at, EmitToken *t);
/* 1 when t is the token name. */
int emit_token_is(const EmitToken *t, const char *name);
/* The number of tokens in spec. */
int emit_token_count(const char *spec);
/* Writes op's arguments from spec, ", " between them (and before the first
 * when lead): the shared tokens itself, the others through target(ctx); an
 * unknown token is a bug of the table. */
void emit_args(Emit *E, const Op *op, const char *spec, int lead, EmitTokenFn target, void *ctx);

/* 1 when emit_cpu.c's table has kind's row (a kernel call, or NONE for a
 * source or view); tests/unit/test_ops.c checks every kind. */
int emit_cpu_has_row(OpKind kind);
/* The argument tokens of kind's kernel call (its CPU column; "-" for no
 * call, NULL for no row): tests/unit/test_fuse.c checks the fusion column
 * against them. */
const char *emit_cpu_args(OpKind kind);

/* ---- pointwise fusion, CPU target (fuse.c; its state fuse_base.c) ---- */
/* Sets up fusion (E->fuse holds its state, every value's readers counted;
 * nothing with opt->no_fuse). */
void fuse_init(Emit *E);
void fuse_fini(Emit *E);
/* The fused groups of a sequence (a stream's units, a segment's ops) in
 * E's gear: a group's members need not be adjacent; its loop runs where
 * its last op (the sink) was, the other members' places run nothing. */
typedef struct FuseSeq {
    int32_t *at;           /* per position: -1 as before, -2 a member computed later,
                            * else the offset in grp[] of the group whose sink is here */
    int32_t *grp;          /* per group: its op count, then its op ids */
    size_t ngrp, cap, ngroups;
} FuseSeq;
/* ops[k]: position k's op, or -1 (a segment: no group crosses it);
 * stop[k]: no group goes past position k (it records events). */
void fuse_seq(const Emit *E, const int32_t *ops, const uint8_t *stop, size_t n, FuseSeq *q);
void fuse_seq_units(const Emit *E, int s, FuseSeq *q);
void fuse_seq_segment(const Emit *E, int seg, FuseSeq *q);
void fuse_seq_free(FuseSeq *q);
/* 1 when some gear has a group (sets E's gear). */
int fuse_any(Emit *E);
/* The group's loop nest, as a block indented by in. */
void fuse_emit(Emit *E, const int32_t *ops, size_t n, const char *in);
/* The group's kind: "epilogue" (a matmul and its epilogue, fuse_gemm.c),
 * "pointwise", "rmsnorm", "layernorm", "softmax" or "row" (another row
 * group). */
const char *fuse_kind(const Emit *E, const int32_t *ops, size_t n);
/* fuse_base.c's, for fuse.c and fuse_gemm.c: value v's dims in E's gear
 * (its rank, or -1 when a dim is not a constant); the product of nd dims;
 * the arena byte range [*lo, *hi) of v's storage (1; 0 outside the arena;
 * -1 unknown). */
int fuse_dims(const Emit *E, int32_t v, int64_t *dims);
int64_t fuse_numel(const int64_t *dims, int nd);
int fuse_range(const Emit *E, int32_t v, int64_t *lo, int64_t *hi);
/* The readers of value v (ops' inputs and graph outputs), counted once
 * per plan in fuse_init. */
uint32_t fuse_uses(const Emit *E, int32_t v);
/* "fused mul %3 + silu %4 (line 9)": a group's trace name. */
void fuse_name(const Emit *E, const int32_t *ops, size_t n, StrBuf *o);
/* A step of fused code, from op's fusion column (fuse_base.c): in a fused
 * loop (gemm 0) or a GEMM epilogue (gemm 1, the rows of W = GEMM only).
 * fuse_unop: its libtngcrt unary op ("TNGRT_UN_X"), or NULL when op is
 * no unary step there; fuse_binop: its binary op ("TNGRT_BIN_X", in an
 * epilogue the step kind "TNGRT_EPI_X"), or NULL when op is no binary step
 * there (add and sub only with alpha 1); fuse_scalar: 1 when binary op
 * has a scalar operand (fattr[0], on the left when attr[0] is 2).
 * fuse_step writes the step (one of the two not NULL): in a loop the
 * float expression of its value from its operands' expressions x and y
 * (y NULL for a unary op and the scalar form); in an epilogue the first
 * four fields of its TngrtGemmEpi step (kind, unary op, its two float
 * parameters or the scalar), the caller writing the rest. */
const char *fuse_unop(const Op *op, int gemm);
const char *fuse_binop(const Op *op, int gemm);
int fuse_scalar(const Op *op);
void fuse_step(Emit *E, const Op *op, int gemm, const char *x, const char *y);
/* "&(TngrtArg){ptr, dtype, nd, shape}" of value v with shape_of's shape
 * (the epilogue calls' operands). */
void fuse_arg(Emit *E, int32_t v, int32_t shape_of);
/* A group's opening line (a brace and a comment: what, then the group's
 * fuse_name), indented by in, and its sink's #line. */
void fuse_open(Emit *E, const int32_t *ops, size_t n, const char *in, const char *what);
/* "(float)X": x as a float literal of fused code. */
void fuse_float_lit(Emit *E, double x);
/* -- matmul epilogues (fuse_gemm.c; hooked into fuse_seq and
 * fuse_emit) -- */
/* A Linear or matmul at position i of a sequence and the epilogue ops
 * (for a matmul, a permute written through strides) after it: fills
 * cand[] and pos[] (ops and positions) and returns their count, or 0. */
size_t fuse_gemm_group(const Emit *E, const int32_t *ops, const uint8_t *stop, size_t n, size_t i,
                       const int32_t *at, int32_t *cand, int32_t *pos);
/* 1 when group ops[0..n) is fuse_gemm_group's; its call, indented by in. */
int fuse_gemm_is(const Emit *E, const int32_t *ops, size_t n);
void fuse_gemm_emit(Emit *E, const int32_t *ops, size_t n, const char *in);

/* -- convolution epilogues (fuse_conv.c; hooked into fuse_seq and
 * fuse_emit) -- */
/* A float32 convolution at position i and the batch norm, residual add
 * and relu after it: fills cand[] and pos[] and returns their count, or 0. */
size_t fuse_conv_group(const Emit *E, const int32_t *ops, const uint8_t *stop, size_t n, size_t i,
                       const int32_t *at, int32_t *cand, int32_t *pos);
/* 1 when group ops[0..n) is fuse_conv_group's; its call, indented by in. */
int fuse_conv_is(const Emit *E, const int32_t *ops, size_t n);
void fuse_conv_emit(Emit *E, const int32_t *ops, size_t n, const char *in);

/* ---- views read in place, CPU target (emit_cpu_views.c) ---- */
/* Sets up the CPU emitter's state (E->target): the permutes and expands
 * with no copy of their own (planner/strided.h); _fini frees it. */
void emit_cpu_views_init(Emit *E);
void emit_cpu_views_fini(Emit *E);
/* For emit_cpu.c and fuse_gemm.c: whether matmul op_id reads its operands
 * through strides; operand v of such a matmul as "arg, strides" and its
 * output as an arg over ptr_of's storage (with the repeated dim split:
 * emit_cpu_mm_split returns that dim, -1 for none, and *rep); whether
 * op_id's copy is elided; whether op_id is an index op read in place
 * whose statement is emit_cpu_index_check (its index checked). */
int emit_cpu_mm_strided(const Emit *E, int32_t op_id);
void emit_cpu_mm_operand(Emit *E, int32_t op_id, int32_t v);
void emit_cpu_mm_out(Emit *E, int32_t op_id, int32_t ptr_of);
int emit_cpu_mm_split(const Emit *E, int32_t op_id, int64_t *rep);
int emit_cpu_elided(const Emit *E, int32_t op_id);
int emit_cpu_index_checked(const Emit *E, int32_t op_id);
void emit_cpu_index_check(Emit *E, int32_t op_id);


/* 1 when op runs code (sources and views do not). */
int emit_has_kernel(const Emit *E, int32_t op_id);
/* The static kernel op uses in E->gear (reduce-overhead with
 * _aclnn_static_shape_kernel, a selected signature), or -1. */
int emit_static_kernel(const Emit *E, int32_t op_id);

/* 1 when gear gi of p leaves a symbol unbound: its dims are computed at
 * run time from the input shapes, and it needs gN_layout. */
int emit_runtime_dims(const Plan *p, int gi);
/* Sets E->gear, E->symval, E->dyn and E->rtdims for gear gi. */
void emit_gear_begin(Emit *E, int gi);
/* Gears with run-time dims (E->rtdims; every dynamic gear has them):
 * gN_layout, run before the gear's kernels, which checks every shape
 * known at run time only against TNGRT_MAX_BYTES and, in dynamic gears,
 * places every buffer. */
void emit_layout(Emit *E);
/* gN_outputs: the output views of a run. */
void emit_outputs(Emit *E);
/* gN_streams (the stream functions, "gN_sK", or stream_fn for every
 * stream when not NULL) and gN_symval. */
/* Whether stream s (> 0) has no unit: its entry in a gear's table is NULL,
 * so the executor gives its thread no hand-off, and it gets no function. */
int emit_stream_idle(const Plan *p, size_t s);
void emit_gear_tables(Emit *E, const char *stream_fn);

/* The signature tables and the descriptor tngc_template__desc. */
void emit_desc(Emit *E);

/* Refuses inputs and buffers reassigned rather than updated in place
 * (what the target cannot write back); returns -1 with diagnostics. */
int emit_check_writeback(Emit *E, const char *target);

/* A new generated file name + suffix in out. */
GenFile *emit_file(GenFiles *out, const char *name, const char *suffix, int is_tu);

/* Symbols one file of a split bundle defines and another uses (E->gpre):
 * "static " or "" (the definition's linkage), and the name of gear gi's
 * `what` ("layout", "outputs", "streams", "symval") as "gN_what" or
 * "<name>__gN_what". */
const char *emit_linkage(const Emit *E);
void emit_gear_sym(Emit *E, StrBuf *o, int gi, const char *what);

/* The splices every template shares: banner, io, prologue ("body" is
 * EMIT_BODY_MARK, a placeholder that emit_bundle_c replaces: its control
 * bytes cannot come out of cesc_*, so no script text can pose as it). */
#define EMIT_BODY_MARK "\001tngc:body\001"
const char *emit_splice(void *ctx, const char *key);
typedef struct EmitSplice {
    Emit *E;
    StrBuf text;
} EmitSplice;

/* <name>.c from template tpl (its markers expanded by splice, an
 * emit_splice or one that falls back to it) with body(E) written in place
 * of its body marker, so #line directives know their final line numbers. */
void emit_bundle_c(Emit *E, const char *tpl, const char *(*splice)(void *ctx, const char *key),
                   void (*body)(Emit *E, StrBuf *o), GenFiles *out);

/* What fused code computes of an op kind: ops.def's fusion column. */
typedef enum FuseHow {
    FUSE_HOW_NO,            /* never fused */
    FUSE_HOW_UNARY,         /* a libtngcrt unary op */
    FUSE_HOW_BINARY,        /* a libtngcrt binary op */
    FUSE_HOW_BINARY_ALPHA,  /* the same where alpha (fattr[1]) is 1 */
    FUSE_HOW_POW            /* pow by a scalar exponent */
} FuseHow;

/* What a fused unary step reads of its op besides the operand: the two
 * float parameters of tngrt_impl__unf (0 where not named), or the
 * attribute that picks the op (the fusion column's FUSE_UNARY_ARGS;
 * FUSE_UNARY: none). */
typedef enum FuseArgs {
    FUSE_ARGS_NONE,     /* no parameter */
    FUSE_ARGS_F0,       /* fattr[0] */
    FUSE_ARGS_F0_F1,    /* fattr[0], fattr[1] */
    FUSE_ARGS_APPROX    /* attr[0] = 1 (approximate="tanh") computes TNGRT_UN_X_TANH */
} FuseArgs;

typedef struct FuseRow {
    FuseHow how;
    const char *op;     /* "TNGRT_UN_X" / "TNGRT_BIN_X"; NULL for NO and POW */
    const char *epi;    /* GEMM epilogues take it too: "TNGRT_UN_X" / "TNGRT_EPI_X"; else NULL */
    FuseArgs args;      /* a unary op's parameters (NONE for the other kinds) */
    const char *tanh;   /* FUSE_ARGS_APPROX: "TNGRT_UN_X_TANH"; else NULL */
    int scalar;         /* the kind has a form with a scalar operand (attr[0] != 0) */
} FuseRow;

/* The fusion row of kind (< OP__count). */
const FuseRow *emit_fuse_row(OpKind kind);

#endif
