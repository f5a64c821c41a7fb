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
    unsigned char user[OP__count];
    void *target;              /* the emitter's own state */
} Emit;

/* "TNGRT_F32", ... for dtype t. */
const char *emit_dtype_enum(DType t);

void emit_init(Emit *E, const Plan *p, const GenOptions *opt, DiagList *diags);
void emit_fini(Emit *E);

/* opt with its bundle name made a C identifier by cesc_ident (its text in
 * *name, the caller's to free): what an emitter works with, whoever called
 * it. The name tngc.c derives is one already, so nothing changes for it. */
GenOptions emit_options(const GenOptions *opt, StrBuf *name);

/* An error diagnostic (rule TNG203) at op's location (the entry's when
 * op is NULL); fmt takes one string. */
void emit_error(Emit *E, const Op *op, const char *fmt, const char *arg);

/* "/" "* generated from SCRIPT by tngc VERSION, do not edit *" "/" (the
 * script path through cesc_comment). */
void emit_banner(const GenOptions *opt, StrBuf *o);

/* #line LINE "script" (nothing with --no-line or line 0). */
void emit_line_script(Emit *E, uint32_t line);
/* #line back to the generated file's own next line. */
void emit_line_back(Emit *E);

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
void emit_gear_tables(Emit *E, const char *stream_fn);

/* The signature tables and the descriptor tngc_template__desc. */
void emit_desc(Emit *E);

/* Refuses inputs and buffers reassigned rather than updated in place
 * (what the target cannot write back); returns -1 with diagnostics. */
int emit_check_writeback(Emit *E, const char *target);

/* A new generated file name + suffix in out. */
GenFile *emit_file(GenFiles *out, const char *name, const char *suffix, int is_tu);

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

#endif
