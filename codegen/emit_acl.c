/*
 * emit_acl.c - the ACL target: a plan becomes <name>.h (the CPU target's
 * API, its handle a struct of this target), <name>.c (templates/
 * bundle_acl.c with the generated body) and <name>_launcher.c (templates/
 * launcher_acl.c), host code over AscendCL for an Ascend NPU.
 *
 * The same plan as the CPU target, read through emit.c: the same gears,
 * streams, events, segments and arena offsets. The body holds, per gear:
 *   - gN_launch: every unit of the plan in one issue order (a topological
 *     order of the streams' schedules: an event is recorded before it is
 *     waited for), each op as one aclnn operator on its unit's stream
 *     (TNGC_ACLNN: aclnnXxxGetWorkspaceSize, then aclnnXxx), the plan's
 *     event records and waits (TNGC_RECORD/TNGC_WAIT: aclrtRecordEvent,
 *     aclrtStreamWaitEvent) exactly where the plan puts them, super-kernel
 *     segments between TNGC_SUPER_KERNEL_BEGIN/END with their scope and
 *     options as written, each op's static kernel in
 *     a comment;
 *   - gN_build: the descriptors gN_launch uses, aclTensor (views where the
 *     op reads a slice, a select or a transposed weight), aclScalar,
 *     aclIntArray, aclTensorList, built once per gear over the gear's
 *     device arena (planner offsets) and the weights' device blocks;
 *   - gN_layout (gears with run-time dims: every shape checked, buffers
 *     placed) and gN_outputs, as the CPU target writes them: the device
 *     and the host side of a run place buffers and output views alike;
 * then the stream table (tag, priority), the gear table, and the signature
 * and descriptor (emit.c, shared with the CPU target).
 *
 * Which aclnn operator computes an op is acl_ops.c's table; an op it has
 * no row for is an error at the op's location, naming it. The body opens
 * with the C declarations of the aclnn operators it calls, from the same
 * table: CANN's aclnnop/ headers are C++ and the bundle is C (the
 * template declares aclnn's operand types and their constructors).
 */
#include "emit.h"
#include "acl_ops.h"

#include <math.h>
#include <string.h>

typedef struct Acl {
    StrBuf build;              /* the gear's descriptor statements */
    StrBuf scratch;
    Arena keys;                /* keys of index */
    StrMap index;              /* "t<expr>" -> 1 + descriptor index, per gear */
    int n[5];                  /* tensors, scalars, int arrays, lists; aclnn calls */
    unsigned char *nz;         /* per weight: w0 when it is stored FRACTAL_NZ, else 0 */
    int32_t *order;            /* units in issue order */
    size_t norder;
    VEC(const AclFn *) fns;    /* the aclnn operators called, in first-use order */
    int hccl;                  /* collectives: HCCL calls on the rank's communicator */
    int64_t sbytes;            /* the gear's op scratch so far (bytes, after its arena) */
    int64_t sbase;             /* the current op's scratch: its arena offset */
} Acl;

enum { D_TENSOR, D_SCALAR, D_ARRAY, D_LIST, D_CALLS };
static const char *const desc_slot[] = {"t", "sc", "ia", "tl"};
static const char *const desc_call[] = {"aclCreateTensor", "aclCreateScalar", "aclCreateIntArray",
                                        "aclCreateTensorList"};

/* ---- the issue order ---------------------------------------------------------- */

/* Every unit once, each stream's in its order, a unit only after the
 * records of the events it waits for: one host thread issues them all. */
static void acl__issue_order(Emit *E, Acl *A)
{
    const Plan *p = E->p;
    size_t *pos = xcalloc(p->streams.n + 1, sizeof *pos);
    unsigned char *rec = xcalloc(p->events.n + 1, 1);
    A->order = xmalloc((p->units.n + 1) * sizeof *A->order);
    for (int progress = 1; progress;) {
        progress = 0;
        for (size_t s = 0; s < p->streams.n; s++) {
            const PlanStream *ps = &p->streams.v[s];
            while (pos[s] < ps->nunits) {
                const PlanUnit *u = &p->units.v[ps->units[pos[s]]];
                int ready = 1;
                for (size_t w = 0; w < u->nwait; w++)
                    ready &= rec[u->wait[w]];
                if (!ready)
                    break;
                A->order[A->norder++] = ps->units[pos[s]++];
                for (size_t r = 0; r < u->nrecord; r++)
                    rec[u->record[r]] = 1;
                progress = 1;
            }
        }
    }
    for (size_t s = 0; s < p->streams.n; s++)
        if (pos[s] < p->streams.v[s].nunits) {
            TNGC_BUG("the plan's events deadlock");
        }
    free(pos);
    free(rec);
}

/* ---- the op table ------------------------------------------------------------- */

/* 1 when a gear of the plan has dims known at run time only (its arena
 * is placed at run time: no constant offsets for an op's scratch). */
static int acl__runtime_gear(const Plan *p)
{
    for (size_t gi = 0; gi < p->gears.n; gi++)
        if (p->mem.v[gi].dynamic || emit_runtime_dims(p, (int)gi))
            return 1;
    return 0;
}

/* The row of op, or NULL after an error naming it. */
static const AclOp *acl__row(Emit *E, const Op *op, int report)
{
    const char *why;
    AclVariant v = acl_op_variant(E->g, op, &why);
    const AclOp *row = v == ACL_V_OTHER ? NULL : acl_op_find(op->kind, v);
    if (op->kind == OP_SDPA && v != ACL_V_OTHER) {
        row = acl__runtime_gear(E->p) ? NULL : acl_op_sdpa(E->g, op);
        why = row ? NULL : "scaled_dot_product_attention in a gear with dims known at run time only: its "
                           "scores are scratch at constant offsets after the gear's arena";
    }
    if (!row && report) {
        diag_at_file(E->diags, op->file, op->line, op->col, RULE_TNG203,
                "no aclnn operator for '%s'%s%s%s on the ACL target (the op table is "
                "codegen/acl_ops.c); --target cpu runs it",
                op_info[op->kind].name, why ? " (" : "", why ? why : "", why ? ")" : "");
        E->errors++;
    }
    return row;
}

/* ---- collectives: HCCL ------------------------------------------------------------ */

static void acl__desc(Emit *E, int kind, const char *expr, const char *where);
static const char *acl__render(Emit *E, void (*fn)(Emit *E, const Op *op, int32_t v, int arg), const Op *op,
                               int32_t v, int arg);
static void acl__tensor_expr(Emit *E, const Op *op, int32_t v, int arg);

/* HcclDataType of t, or NULL. */
static const char *acl__hccl_dtype(DType t)
{
    switch (t) {
    case DT_F32: return "HCCL_DATA_TYPE_FP32";
    case DT_F16: return "HCCL_DATA_TYPE_FP16";
    case DT_BF16: return "HCCL_DATA_TYPE_BFP16";
    case DT_I32: return "HCCL_DATA_TYPE_INT32";
    case DT_I64: return "HCCL_DATA_TYPE_INT64";
    default: return NULL;
    }
}

/* HcclReduceOp of torch.distributed.ReduceOp's number (AVG: a sum, then
 * the division acl__hccl_average issues), or NULL. */
static const char *acl__hccl_reduce(int64_t op)
{
    static const char *const name[] = {"HCCL_REDUCE_SUM", "HCCL_REDUCE_SUM", "HCCL_REDUCE_PROD", "HCCL_REDUCE_MIN",
                                       "HCCL_REDUCE_MAX"};
    return op >= 0 && op < 5 ? name[op] : NULL;
}

/* 1 when collective op is an all_reduce or reduce_scatter with ReduceOp.AVG. */
static int acl__hccl_is_average(const Op *op)
{
    return (op->kind == OP_ALL_REDUCE || op->kind == OP_REDUCE_SCATTER) && op->attr[0] == 1;
}

/* The number of bits set in mask (ranks of a group). */
static int64_t acl__hccl_bits(int64_t mask)
{
    int64_t n = 0;
    for (; mask; mask &= mask - 1)
        n++;
    return n;
}

/* The number of ranks in the group of collective op. */
static int64_t acl__hccl_group_size(const Op *op)
{
    return acl__hccl_bits(emit_collective_group(op));
}

/* broadcast's source as a rank of its group's communicator: HCCL numbers a
 * group's ranks 0.. in the order of their world ranks (the place of the
 * source's bit among the mask's). */
static int64_t acl__hccl_root(const Op *op)
{
    return acl__hccl_bits(emit_collective_group(op) & (((int64_t)1 << op->attr[0]) - 1));
}

/* Why ReduceOp.AVG of op's dtype is not computed here, or NULL: the sum is
 * divided by the group size in the tensor's dtype (aclnnDivs), which
 * rounds once as PyTorch's division of the sum does for float32; a float16
 * or bfloat16 sum is rounded to its dtype before the division, the same
 * value as one rounding of the quotient only when the division is exact
 * (a group of 2^k ranks). */
static const char *acl__hccl_average_why(Emit *E, const Op *op)
{
    DType t = E->g->vals.v[op->in[0]].dtype;
    int64_t n = acl__hccl_group_size(op);
    if (!dtype_is_float(t))
        return "ReduceOp.AVG of an integer tensor: the ACL target averages float tensors only";
    if (t != DT_F32 && (n & (n - 1)) != 0)
        return "ReduceOp.AVG of a float16 or bfloat16 tensor over a group whose size is not a power of two: the "
               "sum would be rounded to the dtype before the division";
    return NULL;
}

/* 1 when collective op becomes an HCCL call on the communicator of its
 * group, else 0 after an error at the op naming why not. */
static int acl__hccl_check(Emit *E, const Op *op)
{
    const char *name = op_info[op->kind].name, *why = NULL;
    int ranks = E->opt->dist_size;
    if (ranks < 2)
        why = "the bundle is not one rank of a --world-size build";
    else if (!acl__hccl_dtype(E->g->vals.v[op->in[0]].dtype))
        why = "HCCL moves float32, float16, bfloat16, int32 and int64 here";
    else if ((op->kind == OP_ALL_REDUCE || op->kind == OP_REDUCE_SCATTER) && !acl__hccl_reduce(op->attr[0]))
        why = "a reduce op HCCL does not have";
    else if (acl__hccl_is_average(op))
        why = acl__hccl_average_why(E, op);
    if (!why)
        return 1;
    diag_at_file(E->diags, op->file, op->line, op->col, RULE_TNG203,
                 "no HCCL call for '%s' on the ACL target (%s); --target cpu runs it over MPI", name, why);
    E->errors++;
    return 0;
}

/* The number of elements of v. */
static void acl__numel(Emit *E, int32_t v)
{
    const Val *val = &E->g->vals.v[v];
    sb_puts(E->o, "(uint64_t)(1");
    for (int d = 0; d < val->ndim; d++) {
        sb_puts(E->o, " * ");
        emit_dim(E, val->dims[d]);
    }
    sb_putc(E->o, ')');
}

/* all_to_all's HcclAlltoAllV arguments after the send buffer: the host
 * arrays of counts and displacements (elements: rows times the elements
 * of a row), the types and the receive buffer. */
static void acl__hccl_all_to_all(Emit *E, const Op *op)
{
    const Val *x = &E->g->vals.v[op->in[0]];
    const char *dt = acl__hccl_dtype(x->dtype);
    int n = (int)op->attr[1];
    StrBuf row = {0};
    StrBuf *save = E->o;
    E->o = &row;
    sb_puts(E->o, "(uint64_t)(1");
    for (int d = 1; d < x->ndim; d++) {
        sb_puts(E->o, " * ");
        emit_dim(E, x->dims[d]);
    }
    sb_putc(E->o, ')');
    E->o = save;
    int64_t d0 = 0;
    graph_dim_eval(E->g, x->dims[0], E->symval, &d0);
    for (int side = 0; side < 2; side++) {   /* send, then receive */
        for (int disp = 0; disp < 2; disp++) {
            int64_t at = 0;
            sb_puts(E->o, "(const uint64_t[]){");
            for (int j = 0; j < n; j++) {
                int64_t rows = op->nattr > 2 ? op->attr[2 + side * n + j] : d0 / n;
                sb_printf(E->o, "%s%s * %s", j ? ", " : "", EMIT_I64(disp ? at : rows), row.s);
                at += rows;
            }
            sb_puts(E->o, "}, ");
        }
        sb_printf(E->o, "%s, ", dt);
        if (!side) {
            emit_ptr(E, op->out, 1);
            sb_puts(E->o, ", ");
        }
    }
    sb_free(&row);
}

/* The aclnn operator that divides a sum by the group size: the op table's
 * tensor-by-scalar division (aclnnDivs: self, other, out). */
static const AclFn *acl__hccl_divide(void)
{
    const AclOp *row = acl_op_find(OP_DIV, ACL_V_TENSOR_SCALAR);
    if (!row || !row->fn || acl_fn_nparams(row->fn) != 3)
        TNGC_BUG("acl_ops.c: no tensor-by-scalar division of three parameters");
    return row->fn;
}

/* ReduceOp.AVG's second step, on stream s after the HCCL sum: the output
 * divided in place by the group size. */
static void acl__hccl_average(Emit *E, const Op *op, int s, const char *where)
{
    Acl *A = E->target;
    StrBuf n = {0};
    sb_printf(E->o, "        TNGC_ACLNN(%s, %d, %d, %s, ", acl__hccl_divide()->name, s, A->n[D_CALLS]++, where);
    acl__desc(E, D_TENSOR, acl__render(E, acl__tensor_expr, op, op->out, -1), where);
    sb_printf(&n, "tngc__scalar_f(%s.0)", EMIT_I64(acl__hccl_group_size(op)));
    sb_puts(E->o, ", ");
    acl__desc(E, D_SCALAR, n.s, where);
    sb_puts(E->o, ", ");
    acl__desc(E, D_TENSOR, acl__render(E, acl__tensor_expr, op, op->out, -1), where);
    sb_puts(E->o, ");\n");
    sb_free(&n);
}

/* The communicator of op's group as a call of the bundle's dispatcher
 * (emit_dist.c: <name>_hccl_comm(mask)), then the stream argument. */
static void acl__hccl_comm(Emit *E, const Op *op, int s)
{
    sb_printf(E->o, "%s_hccl_comm(%s), self->stream[%d]);\n", E->opt->dist_name, EMIT_I64(emit_collective_group(op)),
              s);
}

/* Collective op on stream s as its HCCL call (TNGC_HCCL), on the
 * communicator of its group (the bundle's dispatcher makes them,
 * emit_dist.c); ReduceOp.AVG a sum, then acl__hccl_average. */
static void acl__hccl(Emit *E, const Op *op, int s, const char *where)
{
    static const char *const fn[] = {[OP_ALL_REDUCE] = "HcclAllReduce", [OP_ALL_GATHER] = "HcclAllGather",
                                     [OP_REDUCE_SCATTER] = "HcclReduceScatter",
                                     [OP_ALL_TO_ALL] = "HcclAlltoAllV"};
    sb_puts(E->o, "    {   /* the gear's device addresses */\n"
                  "        const TngrtRunCtx *c = &G->dev;\n        unsigned char *A = c->arena;\n"
                  "        const int64_t *S = c->sym;\n        (void)c;\n        (void)A;\n        (void)S;\n");
    if (op->kind == OP_BROADCAST) {   /* HcclBroadcast works in place: the output holds x first */
        int eb = dtype_size(E->g->vals.v[op->in[0]].dtype);
        sb_puts(E->o, "        if ((void *)");
        emit_ptr(E, op->in[0], 0);
        sb_puts(E->o, " != (void *)");
        emit_ptr(E, op->out, 1);
        sb_puts(E->o, ")\n            TNGC_CHECK(aclrtMemcpyAsync(");
        emit_ptr(E, op->out, 1);
        sb_puts(E->o, ", ");
        acl__numel(E, op->in[0]);
        sb_printf(E->o, " * %d, ", eb);
        emit_ptr(E, op->in[0], 0);
        sb_puts(E->o, ", ");
        acl__numel(E, op->in[0]);
        sb_printf(E->o, " * %d, ACL_MEMCPY_DEVICE_TO_DEVICE, self->stream[%d]), \"aclrtMemcpyAsync\", %s);\n", eb,
                  s, where);
        sb_printf(E->o, "        TNGC_HCCL(HcclBroadcast, %d, %s, ", s, where);
        emit_ptr(E, op->out, 1);
        sb_puts(E->o, ", ");
        acl__numel(E, op->in[0]);
        sb_printf(E->o, ", %s, (uint32_t)%s, ", acl__hccl_dtype(E->g->vals.v[op->in[0]].dtype),
                  EMIT_I64(acl__hccl_root(op)));
        acl__hccl_comm(E, op, s);
        sb_puts(E->o, "    }\n");
        return;
    }
    sb_printf(E->o, "        TNGC_HCCL(%s, %d, %s, ", fn[op->kind], s, where);
    emit_ptr(E, op->in[0], 0);
    sb_puts(E->o, ", ");
    if (op->kind == OP_ALL_TO_ALL) {
        acl__hccl_all_to_all(E, op);
        acl__hccl_comm(E, op, s);
        sb_puts(E->o, "    }\n");
        return;
    }
    emit_ptr(E, op->out, 1);
    sb_puts(E->o, ", ");
    acl__numel(E, op->kind == OP_REDUCE_SCATTER ? op->out : op->in[0]);
    sb_printf(E->o, ", %s", acl__hccl_dtype(E->g->vals.v[op->in[0]].dtype));
    if (op->kind != OP_ALL_GATHER)
        sb_printf(E->o, ", %s", acl__hccl_reduce(op->attr[0]));
    sb_puts(E->o, ", ");
    acl__hccl_comm(E, op, s);
    if (acl__hccl_is_average(op))
        acl__hccl_average(E, op, s, where);
    sb_puts(E->o, "    }\n");
}

/* fn among the aclnn operators the bundle declares (once each, in first-use order). */
static void acl__add_fn(Acl *A, const AclFn *fn)
{
    for (size_t f = 0; f < A->fns.n; f++)
        if (A->fns.v[f] == fn)
            return;
    VEC_PUSH(A->fns, fn);
}

/* Checks every op once and collects the aclnn operators of the rows used. */
static void acl__rows(Emit *E, Acl *A)
{
    for (size_t i = 0; i < E->g->ops.n; i++) {
        if (!emit_has_kernel(E, (int32_t)i))
            continue;
        if (op_info[E->g->ops.v[i].kind].flags & OPF_COLLECTIVE) {
            int ok = acl__hccl_check(E, &E->g->ops.v[i]);
            A->hccl |= ok;
            if (ok && acl__hccl_is_average(&E->g->ops.v[i]))
                acl__add_fn(A, acl__hccl_divide());
            continue;
        }
        for (const AclOp *row = acl__row(E, &E->g->ops.v[i], 1); row; row = row->then) {
            if (emit_token_count(row->args) != acl_fn_nparams(row->fn))
                TNGC_BUG("acl_ops.c: %s has %d parameters, its row '%s' %d tokens", row->fn->name,
                         acl_fn_nparams(row->fn), row->args, emit_token_count(row->args));
            acl__add_fn(A, row->fn);
        }
    }
}

/* ---- FRACTAL_NZ weights ------------------------------------------------------------ */

/* Whether every use of v (a FRACTAL_NZ cast of a weight) is a matmul's
 * weight operand, where CANN's matmuls take FRACTAL_NZ: mm/bmm/matmul's
 * mat2, addmm's mat2, linear's weight, npu_quant_matmul's x2. */
static int acl__nz_uses_ok(const Graph *g, int32_t v)
{
    for (size_t i = 0; i < g->ops.n; i++) {
        const Op *op = &g->ops.v[i];
        for (uint32_t j = 0; j < op->nin; j++) {
            if (op->in[j] != v)
                continue;
            int weight_operand = ((op->kind == OP_MM || op->kind == OP_BMM || op->kind == OP_MATMUL ||
                                   op->kind == OP_LINEAR || op->kind == OP_QUANT_MATMUL) && j == 1) ||
                                 (op->kind == OP_ADDMM && j == 2);
            if (!weight_operand)
                return 0;
        }
    }
    for (size_t o = 0; o < g->outputs.n; o++)
        if (g->outputs.v[o].value == v)
            return 0;
    return 1;
}

/* The weights stored FRACTAL_NZ on the device: those whose every use is
 * npu_format_cast(w, 29) into a matmul's weight operand (so no ND reader
 * of the same bytes remains) and that no output returns. load_weights
 * lays them out as torch_npu's format cast would (templates/bundle_acl.c,
 * tngc__nd_to_nz); their descriptors say ACL_FORMAT_FRACTAL_NZ with the
 * NZ storage dims. A cast of an input or of an activation stays ND: its
 * bytes arrive ND, and the cast launches nothing (the aliasing plan has
 * no buffer for a second layout). */
static void acl__nz_weights(Emit *E, Acl *A)
{
    const Graph *g = E->g;
    A->nz = xcalloc(g->weights.n + 1, 1);
    for (size_t w = 0; w < g->weights.n; w++) {
        int32_t root = g->weights.v[w].value;
        const Val *val = &g->vals.v[root];
        int64_t c;
        int ok = val->ndim >= 1 && dtype_size(val->dtype) > 0, uses = 0;
        for (int d = 0; ok && d < val->ndim; d++)
            ok = graph_dim_eval(g, val->dims[d], NULL, &c) == 0;
        for (size_t i = 0; ok && i < g->ops.n; i++) {
            const Op *op = &g->ops.v[i];
            for (uint32_t j = 0; ok && j < op->nin; j++)
                if (op->in[j] == root) {
                    ok = op->kind == OP_FORMAT_CAST && op->attr[0] == FMT_FRACTAL_NZ && acl__nz_uses_ok(g, op->out);
                    uses++;
                }
        }
        for (size_t o = 0; ok && o < g->outputs.n; o++)
            ok = graph_storage_root(g, g->outputs.v[o].value) != root;
        A->nz[w] = (unsigned char)(ok && uses ? (dtype_size(val->dtype) == 1 ? 32 : 16) : 0);
    }
}

/* w0 when value v is read FRACTAL_NZ (a cast of an NZ-stored weight), else 0. */
static int acl__nz(Emit *E, int32_t v)
{
    const Graph *g = E->g;
    Acl *A = E->target;
    if (g->vals.v[v].format != FMT_FRACTAL_NZ)
        return 0;
    int32_t root = graph_storage_root(g, v);
    for (size_t w = 0; w < g->weights.n; w++)
        if (g->weights.v[w].value == root)
            return A->nz[w];
    return 0;
}

/* ", <n>, (const int64_t[]){...}" the FRACTAL_NZ storage dims of value v
 * (its logical [..., h, w] -> [..., ceil(w/w0), ceil(h/16), 16, w0]). */
static void acl__nz_storage(Emit *E, int32_t v, int w0)
{
    const Val *val = &E->g->vals.v[v];
    int64_t h = 1, w = 1, c;
    sb_printf(E->o, "%d, (const int64_t[]){", (val->ndim > 2 ? val->ndim - 2 : 0) + 4);
    for (int d = 0; d < val->ndim; d++) {
        if (graph_dim_eval(E->g, val->dims[d], NULL, &c) != 0)
            TNGC_BUG("an NZ weight with a dim not constant");
        if (d + 2 < val->ndim)
            sb_printf(E->o, "%s, ", EMIT_I64(c));
        else if (d + 2 == val->ndim)
            h = c;
        else
            w = c;
    }
    sb_printf(E->o, "%s, %s, 16, %d}", EMIT_I64((w + w0 - 1) / w0), EMIT_I64((h + 15) / 16), w0);
}

/* ---- descriptors ---------------------------------------------------------------- */

/* The descriptor of kind created by expr (deduplicated within the gear):
 * its statement goes to the build function, "G->t[k]" to E->o. */
static void acl__desc(Emit *E, int kind, const char *expr, const char *where)
{
    Acl *A = E->target;
    StrBuf key = {0};
    sb_printf(&key, "%d%s", kind, expr);
    intptr_t k = (intptr_t)strmap_get(&A->index, key.s) - 1;
    if (k < 0) {
        k = A->n[kind]++;
        strmap_put(&A->index, arena_strndup(&A->keys, key.s, key.len), (void *)(k + 1));
        sb_printf(&A->build, "    TNGC_NEW(G->%s[%d], %s, \"%s\", %s);\n", desc_slot[kind], (int)k, expr,
                  desc_call[kind], where);
    }
    sb_printf(E->o, "G->%s[%d]", desc_slot[kind], (int)k);
    sb_free(&key);
}

/* Runs fn with E->o pointed at a fresh scratch buffer; returns its text
 * (valid until the next call). */
static const char *acl__render(Emit *E, void (*fn)(Emit *E, const Op *op, int32_t v, int arg), const Op *op,
                               int32_t v, int arg)
{
    Acl *A = E->target;
    StrBuf *save = E->o;
    A->scratch.len = 0;
    E->o = &A->scratch;
    fn(E, op, v, arg);
    sb_putc(E->o, '\0');
    A->scratch.len--;
    E->o = save;
    return A->scratch.s;
}

/* d as an int when it is a constant in the gear. */
static int acl__const(Emit *E, DimId d, int64_t *c)
{
    return graph_dim_eval(E->g, d, E->symval, c) == 0;
}

/* The product of val's dims [from, to) but skip, times `times`: folded
 * when constant (the planner bounds val's size, and times is an index or
 * step within the dim, so it cannot overflow), else tngc__mul calls. */
static void acl__prod(Emit *E, const Val *val, int from, int to, int skip, int64_t times)
{
    int64_t c = times, x;
    int all = 1, nf = times != 1, n = 0;
    for (int d = from; d < to; d++)
        if (d != skip) {
            all &= acl__const(E, val->dims[d], &x);
            if (all && graph_ckd_mul(&c, c, x))
                TNGC_BUG("gear %d: a stride the planner accepted overflows", E->gear);
            nf++;
        }
    if (all) {
        sb_puts(E->o, EMIT_I64(c));
        return;
    }
    for (int k = 1; k < nf; k++)
        sb_puts(E->o, "tngc__mul(");
    for (int d = from; d < to; d++)
        if (d != skip) {
            emit_dim(E, val->dims[d]);
            sb_puts(E->o, n++ ? ")" : "");
            sb_puts(E->o, n < nf ? ", " : "");
        }
    if (times != 1)
        sb_printf(E->o, "%s)", EMIT_I64(times));
}

/* "(const int64_t[]){...}" of val's dims with dim `at` replaced by the text
 * repl (NULL: dropped; at -1: none). */
static void acl__dims(Emit *E, const Val *val, int at, const char *repl)
{
    sb_puts(E->o, "(const int64_t[]){");
    for (int d = 0, n = 0; d < val->ndim; d++) {
        if (d == at && !repl)
            continue;
        sb_puts(E->o, n++ ? ", " : "");
        if (d == at)
            sb_puts(E->o, repl);
        else
            emit_dim(E, val->dims[d]);
    }
    sb_puts(E->o, val->ndim - (at >= 0 && !repl) > 0 ? "}" : "0}");
}

/* C-order strides of val, dim `at` times mul (mul 0: dim dropped; mul is
 * a slice step). A step past the dim's size leaves at most one element, so
 * any stride does: it is capped at the size, and the stride stays within
 * the tensor. */
static void acl__strides(Emit *E, const Val *val, int at, int64_t mul)
{
    int64_t n;
    sb_puts(E->o, "(const int64_t[]){");
    for (int d = 0, k = 0; d < val->ndim; d++) {
        if (d == at && mul == 0)
            continue;
        sb_puts(E->o, k++ ? ", " : "");
        if (d != at || mul == 1) {
            acl__prod(E, val, d + 1, val->ndim, -1, 1);
        } else if (acl__const(E, val->dims[d], &n)) {
            acl__prod(E, val, d + 1, val->ndim, -1, mul < n ? mul : 1);
        } else {
            sb_puts(E->o, "tngc__mul(");
            acl__prod(E, val, d + 1, val->ndim, -1, 1);
            sb_printf(E->o, ", tngc__min(%s, ", EMIT_I64(mul));
            emit_dim(E, val->dims[d]);
            sb_puts(E->o, "))");
        }
    }
    sb_puts(E->o, val->ndim - (at >= 0 && mul == 0) > 0 ? "}" : "0}");
}

/* Python's normalised slice start of attr[1] on a dim of size n. */
static int64_t acl__slice_start(int64_t n, int64_t start)
{
    if (start < 0)
        start += n;
    return start < 0 ? 0 : start > n ? n : start;
}

/* The plain tensor of value v (arg >= 0: with a 1 inserted at dim arg). */
static void acl__tensor_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    (void)op;
    const Val *val = &E->g->vals.v[v];
    int w0 = arg < 0 ? acl__nz(E, v) : 0;
    sb_printf(E->o, "tngc__tensor%s(%d, ", w0 ? "_nz" : "", val->ndim + (arg >= 0));
    emit_shape(E, v, arg);
    sb_printf(E->o, ", NULL, 0, %s, ", acl_dtype(val->dtype));
    if (w0)
        acl__nz_storage(E, v, w0);
    else
        sb_puts(E->o, "0, NULL");
    sb_puts(E->o, ", ");
    emit_ptr(E, v, 0);
    sb_putc(E->o, ')');
}

/* Value v (an operand of op) viewed as a matrix: [rows, last dim]. */
static void acl__matrix_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    (void)op;
    (void)arg;
    const Val *val = &E->g->vals.v[v];
    sb_puts(E->o, "tngc__tensor(2, (const int64_t[]){");
    acl__prod(E, val, 0, val->ndim - 1, -1, 1);
    sb_puts(E->o, ", ");
    if (val->ndim)
        emit_dim(E, val->dims[val->ndim - 1]);
    else
        sb_puts(E->o, "1");
    sb_printf(E->o, "}, NULL, 0, %s, 0, NULL, ", acl_dtype(val->dtype));
    emit_ptr(E, v, 0);
    sb_putc(E->o, ')');
}

/* A weight [n, k] viewed transposed: [k, n], strides {1, k}. */
static void acl__transposed_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    (void)op;
    (void)arg;
    const Val *val = &E->g->vals.v[v];
    int w0 = acl__nz(E, v);
    sb_printf(E->o, "tngc__tensor%s(2, (const int64_t[]){", w0 ? "_nz" : "");
    emit_dim(E, val->dims[1]);
    sb_puts(E->o, ", ");
    emit_dim(E, val->dims[0]);
    sb_puts(E->o, "}, (const int64_t[]){1, ");
    emit_dim(E, val->dims[1]);
    sb_printf(E->o, "}, 0, %s, ", acl_dtype(val->dtype));
    if (w0) {
        acl__nz_storage(E, v, w0);
    } else {
        sb_puts(E->o, "2, ");
        emit_shape(E, v, -1);
    }
    sb_puts(E->o, ", ");
    emit_ptr(E, v, 0);
    sb_putc(E->o, ')');
}

/* The offset (elements) of index `first` of dim `dim` of val: constant, or
 * helper(size, first) * stride. */
static void acl__offset(Emit *E, const Val *val, int dim, int64_t first, const char *helper)
{
    int64_t n;
    if (acl__const(E, val->dims[dim], &n)) {
        int64_t i = !strcmp(helper, "tngc__index") ? (first < 0 ? first + n : first) : acl__slice_start(n, first);
        if (i == 0) {
            sb_puts(E->o, "0");
            return;
        }
        acl__prod(E, val, dim + 1, val->ndim, -1, i);
        return;
    }
    sb_printf(E->o, "tngc__mul(%s(", helper);
    emit_dim(E, val->dims[dim]);
    sb_printf(E->o, ", %s), ", EMIT_I64(first));
    acl__prod(E, val, dim + 1, val->ndim, -1, 1);
    sb_putc(E->o, ')');
}

/* The slice attr[0..3] of op's input 0: viewed with the output's dims
 * (arg 0, SLICE) or with the slice length in place (arg 1, SLICE_STORE). */
static void acl__slice_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    const Val *src = &E->g->vals.v[v];
    int dim = (int)op->attr[0];
    int64_t start = op->attr[1], end = op->attr[2], step = op->attr[3], n;
    StrBuf len = {0};
    sb_printf(E->o, "tngc__tensor(%d, ", src->ndim);
    if (arg == 0) {
        emit_shape(E, op->out, -1);
    } else {
        StrBuf *save = E->o;
        E->o = &len;
        if (acl__const(E, src->dims[dim], &n)) {
            int64_t s = acl__slice_start(n, start), e = end == GRAPH_END ? n : acl__slice_start(n, end);
            sb_puts(&len, EMIT_I64(e > s ? (e - s - 1) / step + 1 : 0));
        } else {
            sb_puts(&len, "tngc__slice_len(");
            emit_dim(E, src->dims[dim]);
            if (end == GRAPH_END)
                sb_printf(&len, ", %s, INT64_MAX, %s)", EMIT_I64(start), EMIT_I64(step));
            else
                sb_printf(&len, ", %s, %s, %s)", EMIT_I64(start), EMIT_I64(end), EMIT_I64(step));
        }
        E->o = save;
        acl__dims(E, src, dim, len.s);
    }
    sb_puts(E->o, ", ");
    acl__strides(E, src, dim, step);
    sb_puts(E->o, ", ");
    acl__offset(E, src, dim, start, "tngc__slice_start");
    sb_printf(E->o, ", %s, %d, ", acl_dtype(src->dtype), src->ndim);
    emit_shape(E, v, -1);
    sb_puts(E->o, ", ");
    emit_ptr(E, v, 0);
    sb_putc(E->o, ')');
    sb_free(&len);
}

/* Index attr[1] of dim attr[0] of op's input 0 (the dim dropped). */
static void acl__select_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    (void)arg;
    const Val *src = &E->g->vals.v[v];
    int dim = (int)op->attr[0];
    sb_printf(E->o, "tngc__tensor(%d, ", src->ndim - 1);
    acl__dims(E, src, dim, NULL);
    sb_puts(E->o, ", ");
    acl__strides(E, src, dim, 0);
    sb_puts(E->o, ", ");
    acl__offset(E, src, dim, op->attr[1], "tngc__index");
    sb_printf(E->o, ", %s, %d, ", acl_dtype(src->dtype), src->ndim);
    emit_shape(E, v, -1);
    sb_puts(E->o, ", ");
    emit_ptr(E, v, 0);
    sb_putc(E->o, ')');
}

/* Value v (an operand of an index / index_put at dim d = attr[0]) viewed
 * with its dims d..d+arg-1 moved first, the others after them in order:
 * strides of v's own C-order layout, so aclnnIndex / aclnnIndexPutImpl,
 * which index leading dims, see the indexed dims first (indexing and
 * scatter). */
static void acl__moved_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    const Val *val = &E->g->vals.v[v];
    int n = val->ndim, d = (int)op->attr[0], order[GRAPH_MAX_DIMS], m = 0;
    for (int j = d; j < d + arg && j < n; j++)
        order[m++] = j;
    for (int j = 0; j < n; j++)
        if (j < d || j >= d + arg)
            order[m++] = j;
    sb_printf(E->o, "tngc__tensor(%d, (const int64_t[]){", n);
    for (int j = 0; j < n; j++) {
        sb_puts(E->o, j ? ", " : "");
        emit_dim(E, val->dims[order[j]]);
    }
    sb_puts(E->o, n ? "}, (const int64_t[]){" : "0}, (const int64_t[]){");
    for (int j = 0; j < n; j++) {
        sb_puts(E->o, j ? ", " : "");
        acl__prod(E, val, order[j] + 1, n, -1, 1);
    }
    sb_printf(E->o, "%s}, 0, %s, %d, ", n ? "" : "0", acl_dtype(val->dtype), n);
    emit_shape(E, v, -1);
    sb_puts(E->o, ", ");
    emit_ptr(E, v, 0);
    sb_putc(E->o, ')');
}

/* How many dims an index (out) or index_put (values) moves first: the
 * indices' broadcast rank; 0 for values that only cover the dims after the
 * indexed ones (acl_op_variant refuses the other values). */
static int acl__index_bn(const Graph *g, const Op *op, int values)
{
    int k = op->kind == OP_INDEX ? (int)op->nin - 1 : (int)op->nin - 2, bn = 0;
    for (uint32_t j = op->nin - (uint32_t)k; j < op->nin; j++)
        bn = g->vals.v[op->in[j]].ndim > bn ? g->vals.v[op->in[j]].ndim : bn;
    if (values && g->vals.v[op->in[1]].ndim != g->vals.v[op->in[0]].ndim - k + bn)
        return 0;
    return bn;
}

/* The neural net family's aclIntArrays, from attr[] (arg picks which): conv
 * 'S' stride, 'P' padding, 'D' dilation (the spatial slots in use), 'O'
 * output padding (zeros); pool 'k' attr[0..1] (kernel, adaptive output
 * size), 's' attr[2..3], 'p' attr[4..5], '4' attr[4..5] twice (begins, then
 * ends), '1' {1, 1}; 'u' attr[2..3] (upsample output size). */
static void acl__nn_array_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    (void)v;
    int64_t a[4];
    int n = 2, ns = (int)op->attr[0] == 1 ? 1 : 2;
    switch (arg) {
    case 'S': case 'P': case 'D':
        n = ns;
        for (int i = 0; i < ns; i++)
            a[i] = op->attr[(arg == 'S' ? 1 : arg == 'P' ? 3 : 7) + 2 - ns + i];
        break;
    case 'O': n = ns, a[0] = a[1] = 0; break;
    case 'k': a[0] = op->attr[0], a[1] = op->attr[1]; break;
    case 's': case 'u': a[0] = op->attr[2], a[1] = op->attr[3]; break;
    case 'p': a[0] = op->attr[4], a[1] = op->attr[5]; break;
    case '4': n = 4, a[0] = a[2] = op->attr[4], a[1] = a[3] = op->attr[5]; break;
    default: a[0] = a[1] = 1; break;
    }
    sb_puts(E->o, "aclCreateIntArray((const int64_t[]){");
    for (int i = 0; i < n; i++)
        sb_printf(E->o, "%s%s", i ? ", " : "", EMIT_I64(a[i]));
    sb_printf(E->o, "}, %d)", n);
}

/* The neural net family's "n:" tokens (acl_ops.c documents them); 0 when
 * t is not one. */
static int acl__nn_token(Emit *E, const Op *op, const EmitToken *t, const char *where)
{
    static const struct { const char *name; int arg; } arrays[] = {
        {"n:cs", 'S'}, {"n:cp", 'P'}, {"n:cd", 'D'}, {"n:co", 'O'}, {"n:k", 'k'}, {"n:s", 's'},
        {"n:p", 'p'}, {"n:p4", '4'}, {"n:1", '1'}, {"n:u", 'u'}};
    const Val *x = &E->g->vals.v[op->in[0]];
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        if (emit_token_is(t, arrays[i].name)) {
            acl__desc(E, D_ARRAY, acl__render(E, acl__nn_array_expr, op, op->in[0], arrays[i].arg), where);
            return 1;
        }
    if (emit_token_is(t, "n:N") || emit_token_is(t, "n:C")) {
        emit_dim(E, x->dims[t->s[2] == 'N' ? 0 : 1]);
    } else if (emit_token_is(t, "n:HW")) {
        sb_puts(E->o, "(int64_t)1");
        for (int d = 2; d < x->ndim; d++) {
            sb_puts(E->o, " * ");
            emit_dim(E, x->dims[d]);
        }
    } else {
        return 0;
    }
    return 1;
}

/* An aclScalar of x: int64 for an integral value on an integer result. */
static void acl__scalar_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    (void)v;
    double x = arg < 0 ? 1.0 : op->fattr[arg];
    DType t = E->g->vals.v[op->out].dtype;
    if (arg >= 0 && !dtype_is_float(t) && x >= -9223372036854775808.0 && x < 9223372036854775808.0 &&
        x == (double)(int64_t)x) {
        sb_printf(E->o, "tngc__scalar_i(%s)", EMIT_I64((int64_t)x));
        return;
    }
    sb_puts(E->o, "tngc__scalar_f(");
    if (x != x)   /* the bundle has no <math.h>: no NAN / INFINITY there */
        sb_puts(E->o, "__builtin_nan(\"\")");
    else if (x - x != 0)
        sb_puts(E->o, x < 0 ? "-__builtin_inf()" : "__builtin_inf()");
    else
        emit_double(E, x);
    sb_putc(E->o, ')');
}

/* arange's start (arg 0: fattr[0] + attr[1]) or end (arg 1: start +
 * attr[0] * step) as an aclScalar (int64 on an integer result, else
 * double); attr[0] and attr[1] may be expressions of symbols. */
static void acl__arange_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    (void)v;
    int is_int = !dtype_is_float(E->g->vals.v[op->out].dtype);
    if (is_int)
        sb_printf(E->o, "tngc__scalar_i(%s + (int64_t)(", EMIT_I64((int64_t)op->fattr[0]));
    else {
        sb_puts(E->o, "tngc__scalar_f(");
        emit_double(E, op->fattr[0]);
        sb_puts(E->o, " + (double)(");
    }
    emit_dim(E, (DimId)op->attr[1]);
    sb_putc(E->o, ')');
    if (arg) {
        sb_puts(E->o, is_int ? " + (int64_t)(" : " + (double)(");
        emit_dim(E, (DimId)op->attr[0]);
        if (is_int) {
            sb_printf(E->o, ") * %s", EMIT_I64((int64_t)op->fattr[1]));
        } else {
            sb_puts(E->o, ") * ");
            emit_double(E, op->fattr[1]);
        }
    }
    sb_putc(E->o, ')');
}

/* roll's shifts (arg 's') or dims (arg 'd'): every other attribute. */
static void acl__pairs_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    (void)v;
    int n = 0;
    sb_puts(E->o, "aclCreateIntArray((const int64_t[]){");
    for (uint32_t k = arg == 's' ? 0 : 1; k < op->nattr; k += 2)
        sb_printf(E->o, "%s%s", n++ ? ", " : "", EMIT_I64(op->attr[k]));
    sb_printf(E->o, "%s}, %d)", n ? "" : "0", n);
}

/* An aclIntArray: arg 'r' reduced dims, 'p' permutation, 'n' normalized shape. */
static void acl__array_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    const Val *in = &E->g->vals.v[v];
    int n = 0;
    sb_puts(E->o, "aclCreateIntArray((const int64_t[]){");
    if (arg == 'r' && op->nattr <= 1) {
        for (int d = 0; d < in->ndim; d++)
            sb_printf(E->o, "%s%d", n++ ? ", " : "", d);
    } else if (arg == 'r' || arg == 'p') {
        for (uint32_t k = arg == 'r' ? 1 : 0; k < op->nattr; k++)
            sb_printf(E->o, "%s%s", n++ ? ", " : "", EMIT_I64(op->attr[k]));
    } else {
        for (int d = in->ndim - (int)op->attr[0]; d < in->ndim; d++) {
            sb_puts(E->o, n++ ? ", " : "");
            emit_dim(E, in->dims[d]);
        }
    }
    sb_printf(E->o, "%s}, %d)", n ? "" : "0", n);
}

/* ---- attention: scratch ------------------------------------------------------------ */

/* An attention op's scratch tensors, in the order they lie in its scratch:
 * the scores twice, the bias twice, then the float32 copies of q, k, v and
 * the output (float16 and bfloat16 operands). */
static const char acl__sdpa_parts[] = "ssbbqkvo";

/* 1 when attention op has scratch tensor `which` (acl__sdpa_parts). */
static int acl__sdpa_has(const Graph *g, const Op *op, int which)
{
    int32_t mask = op->nin > 3 ? op->in[3] : -1;
    if (which == 'b')
        return op->attr[0] || (mask >= 0 && g->vals.v[mask].dtype == DT_BOOL);
    return which == 's' || g->vals.v[op->in[0]].dtype != DT_F32;
}

/* The dims of an attention op's scratch tensor (gear constants): the
 * scores 's' (q's leading dims, L, S), the bias 'b' ([L, S] for is_causal,
 * else the mask's dims), the copies 'q', 'k', 'v', 'o'; returns their count. */
static int acl__sdpa_dims(Emit *E, const Op *op, int which, int64_t *dims)
{
    const Graph *g = E->g;
    const Val *q = &g->vals.v[op->in[0]], *k = &g->vals.v[op->in[1]];
    int32_t mask = op->nin > 3 ? op->in[3] : -1, v = -1;
    switch (which) {
    case 'b': v = mask; break;
    case 'q': v = op->in[0]; break;
    case 'k': v = op->in[1]; break;
    case 'v': v = op->in[2]; break;
    case 'o': v = op->out; break;
    default: break;
    }
    const Val *m = v >= 0 ? &g->vals.v[v] : NULL;
    int n = m ? m->ndim : which == 'b' ? 2 : q->ndim;
    for (int d = 0; d < n; d++) {
        DimId id = m ? m->dims[d] : d == n - 1 ? k->dims[k->ndim - 2] : q->dims[q->ndim - n + d];
        if (!acl__const(E, id, &dims[d]))
            TNGC_BUG("gear %d: an attention dim not constant", E->gear);
    }
    return n;
}

/* Bytes of an attention op's scratch tensor `which` (float32, 64-byte
 * aligned). */
static int64_t acl__sdpa_bytes(Emit *E, const Op *op, int which)
{
    int64_t dims[GRAPH_MAX_DIMS], n = 4;
    int nd = acl__sdpa_dims(E, op, which, dims);
    for (int d = 0; d < nd; d++)
        if (graph_ckd_mul(&n, n, dims[d]))
            TNGC_BUG("gear %d: attention scratch that the planner accepted overflows", E->gear);
    return (n + 63) & ~(int64_t)63;
}

/* The offset in attention op's scratch of its part `at` (acl__sdpa_parts),
 * or with at = 8 the bytes of the whole scratch. */
static int64_t acl__sdpa_offset(Emit *E, const Op *op, int at)
{
    int64_t off = 0;
    for (int i = 0; i < at; i++)
        if (acl__sdpa_has(E->g, op, acl__sdpa_parts[i]))
            off += acl__sdpa_bytes(E, op, acl__sdpa_parts[i]);
    return off;
}

/* Scratch tensor `arg` (an index of acl__sdpa_parts) of attention op,
 * after the gear's arena at the op's offset (A->sbase). */
static void acl__sdpa_scratch_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    (void)v;
    Acl *A = E->target;
    int64_t dims[GRAPH_MAX_DIMS];
    int nd = acl__sdpa_dims(E, op, acl__sdpa_parts[arg], dims);
    sb_printf(E->o, "tngc__tensor(%d, (const int64_t[]){", nd);
    for (int d = 0; d < nd; d++)
        sb_printf(E->o, "%s%s", d ? ", " : "", EMIT_I64(dims[d]));
    sb_printf(E->o, "%s}, NULL, 0, ACL_FLOAT, 0, NULL, (A + %s))", nd ? "" : "0",
              EMIT_I64(A->sbase + acl__sdpa_offset(E, op, arg)));
}

/* The key of an attention op with its last two dims swapped: a view of
 * its C-order storage, the op's own (v, arg < 0) or its float32 copy at
 * scratch offset arg. */
static void acl__key_t_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    const Val *val = &E->g->vals.v[v];
    int n = val->ndim;
    sb_printf(E->o, "tngc__tensor(%d, (const int64_t[]){", n);
    for (int d = 0; d < n; d++) {
        sb_puts(E->o, d ? ", " : "");
        emit_dim(E, val->dims[d < n - 2 ? d : 2 * n - 3 - d]);
    }
    sb_puts(E->o, "}, (const int64_t[]){");
    for (int d = 0; d < n; d++) {
        int src = d < n - 2 ? d : 2 * n - 3 - d;
        sb_puts(E->o, d ? ", " : "");
        acl__prod(E, val, src + 1, n, -1, 1);
    }
    sb_printf(E->o, "}, 0, %s, %d, ", arg < 0 ? acl_dtype(val->dtype) : "ACL_FLOAT", n);
    emit_shape(E, v, -1);
    sb_puts(E->o, ", ");
    if (arg < 0)
        emit_ptr(E, v, 0);
    else
        sb_printf(E->o, "(A + %s)", EMIT_I64(((Acl *)E->target)->sbase + acl__sdpa_offset(E, op, arg)));
    sb_putc(E->o, ')');
}

/* The attention's scale: fattr[0] when given (attr[1]), else 1/sqrt(E),
 * E the query's last dim. */
static void acl__sdpa_scale_expr(Emit *E, const Op *op, int32_t v, int arg)
{
    (void)v;
    (void)arg;
    const Val *q = &E->g->vals.v[op->in[0]];
    int64_t e = 0;
    if (!op->attr[1] && !acl__const(E, q->dims[q->ndim - 1], &e))
        TNGC_BUG("gear %d: an attention's feature dim not constant", E->gear);
    sb_puts(E->o, "tngc__scalar_f(");
    emit_double(E, op->attr[1] ? op->fattr[0] : 1.0 / sqrt((double)e));
    sb_putc(E->o, ')');
}

/* The attention's "a:" tokens (acl_ops.c documents them); 0 when t is not one. */
static int acl__sdpa_token(Emit *E, const Op *op, const EmitToken *t, const char *where)
{
    static const char *const scratch[] = {"a:s1", "a:s2", "a:b0", "a:b1", "a:q", "a:k", "a:v", "a:o"};
    int cast = acl__sdpa_has(E->g, op, 'q');
    for (int i = 0; i < 8; i++)
        if (emit_token_is(t, scratch[i])) {
            if (i >= 4 && !cast)   /* float32: the op's own operand */
                acl__desc(E, D_TENSOR, acl__render(E, acl__tensor_expr, op, i == 7 ? op->out : op->in[i - 4], -1),
                          where);
            else
                acl__desc(E, D_TENSOR, acl__render(E, acl__sdpa_scratch_expr, op, -1, i), where);
            return 1;
        }
    if (emit_token_is(t, "a:kt"))
        acl__desc(E, D_TENSOR, acl__render(E, acl__key_t_expr, op, op->in[1], cast ? 5 : -1), where);
    else if (emit_token_is(t, "a:scale"))
        acl__desc(E, D_SCALAR, acl__render(E, acl__sdpa_scale_expr, op, -1, 0), where);
    else if (emit_token_is(t, "a:ninf"))
        acl__desc(E, D_SCALAR, "tngc__scalar_f(-__builtin_inf())", where);
    else if (emit_token_is(t, "a:zero"))
        acl__desc(E, D_SCALAR, "tngc__scalar_f(0.0)", where);
    else
        return 0;
    return 1;
}

/* ---- launch ----------------------------------------------------------------------- */

/* "model.py:24:22: add %4" as a C string. */
static void acl__where(Emit *E, const Op *op, StrBuf *w)
{
    StrBuf t = {0};
    sb_printf(&t, "%s:%u:%u: %s %%%d", op->file ? op->file : E->opt->script, op->line, op->col,
              op_info[op->kind].name, op->out);
    cesc_string(w, t.s);
    sb_free(&t);
}

/* "list": the inputs as an aclTensorList built once per gear, each as it
 * is (aclnnStack inserts the new dim itself: CANN's aclnnStack reference,
 * "tensors of shape (A, B, C), N of them, axis 0: out (N, A, B, C)");
 * "lK": the inputs from K on (indices). */
static void acl__list(Emit *E, const Op *op, uint32_t from, const char *where)
{
    Acl *A = E->target;
    int k = A->n[D_LIST]++;
    sb_printf(&A->build, "    if (tngc__list(self, &G->tl[%d], %u, (const aclTensor *[]){", k, op->nin - from);
    for (uint32_t j = from; j < op->nin; j++)
        sb_printf(&A->build, "%s\n        %s", j > from ? "," : "",
                  acl__render(E, acl__tensor_expr, op, op->in[j], -1));
    sb_printf(&A->build, "}, %s))\n        return -1;\n", where);
    sb_printf(E->o, "G->tl[%d]", k);
}

/* "kl", "vl": input k alone as an aclTensorList (the attentions' key and
 * value lists). */
static void acl__list1(Emit *E, const Op *op, uint32_t k, const char *where)
{
    Acl *A = E->target;
    int n = A->n[D_LIST]++;
    sb_printf(&A->build, "    if (tngc__list(self, &G->tl[%d], 1, (const aclTensor *[]){\n        %s}, %s))\n"
              "        return -1;\n", n, acl__render(E, acl__tensor_expr, op, op->in[k], -1), where);
    sb_printf(E->o, "G->tl[%d]", n);
}

/* "aq", "ak": an attention's listed lengths (attr[a] repeated attr[a + 1]
 * times) as an aclIntArray, or NULL when none were listed. */
static void acl__lengths(Emit *E, const Op *op, int a, const char *where)
{
    StrBuf x = {0};
    int64_t n = op->attr[a + 1];
    if (n <= 0) {
        sb_puts(E->o, "NULL");
        return;
    }
    sb_puts(&x, "aclCreateIntArray((const int64_t[]){");
    for (int64_t i = 0; i < n; i++)
        sb_printf(&x, "%s%s", i ? ", " : "", EMIT_I64(op->attr[a]));
    sb_printf(&x, "}, %s)", EMIT_I64(n));
    acl__desc(E, D_ARRAY, x.s, where);
    sb_free(&x);
}

/* The ACL target's argument tokens (acl_ops.c documents them); where is
 * the op's location as a C string. */
static int acl__token(Emit *E, const Op *op, const EmitToken *t, void *where)
{
    int k = t->k;
    if (t->s[0] == 'i' && k >= 0 && t->n == 2) {
        if ((uint32_t)k >= op->nin || op->in[k] < 0)
            sb_puts(E->o, "NULL");
        else
            acl__desc(E, D_TENSOR, acl__render(E, acl__tensor_expr, op, op->in[k], -1), where);
    } else if (t->s[0] == 'o' && k >= 0 && t->n == 2) {
        acl__desc(E, D_TENSOR, acl__render(E, acl__tensor_expr, op, op->out + k, -1), where);
    } else if (t->s[0] == 'f' && k >= 0 && t->n == 2) {
        acl__desc(E, D_SCALAR, acl__render(E, acl__scalar_expr, op, -1, k), where);
    } else if (emit_token_is(t, "one")) {
        acl__desc(E, D_SCALAR, acl__render(E, acl__scalar_expr, op, -1, -1), where);
    } else if (t->s[0] == 'b' && k >= 0 && t->n == 2) {
        sb_puts(E->o, op->attr[k] ? "true" : "false");
    } else if (emit_token_is(t, "gelu")) {
        sb_puts(E->o, op->nattr > 0 && op->attr[0] == 1 ? "1" : "0");
    } else if (emit_token_is(t, "dt")) {
        sb_puts(E->o, acl_dtype(E->g->vals.v[op->out].dtype));
    } else if (emit_token_is(t, "rd") || emit_token_is(t, "pd") || emit_token_is(t, "ns")) {
        acl__desc(E, D_ARRAY, acl__render(E, acl__array_expr, op, op->in[0], t->s[0]), where);
    } else if (emit_token_is(t, "x2") || emit_token_is(t, "y2")) {
        acl__desc(E, D_TENSOR, acl__render(E, acl__matrix_expr, op, t->s[0] == 'x' ? op->in[0] : op->out, 0), where);
    } else if (emit_token_is(t, "wt")) {
        acl__desc(E, D_TENSOR, acl__render(E, acl__transposed_expr, op, op->in[1], 0), where);
    } else if (emit_token_is(t, "sv") || emit_token_is(t, "dv")) {
        acl__desc(E, D_TENSOR, acl__render(E, acl__slice_expr, op, op->in[0], t->s[0] == 'd'), where);
    } else if (emit_token_is(t, "xv")) {
        acl__desc(E, D_TENSOR, acl__render(E, acl__select_expr, op, op->in[0], 0), where);
    } else if (emit_token_is(t, "xm") || emit_token_is(t, "dm")) {   /* indexing and scatter */
        int k = op->kind == OP_INDEX ? (int)op->nin - 1 : (int)op->nin - 2;
        int32_t v = t->s[0] == 'x' ? op->in[0] : op->out;
        acl__desc(E, D_TENSOR, acl__render(E, acl__moved_expr, op, v, k), where);
    } else if (emit_token_is(t, "ym") || emit_token_is(t, "vm")) {
        int32_t v = t->s[0] == 'y' ? op->out : op->in[1];
        acl__desc(E, D_TENSOR, acl__render(E, acl__moved_expr, op, v, acl__index_bn(E->g, op, t->s[0] == 'v')),
                  where);
    } else if (emit_token_is(t, "qm")) {
        sb_puts(E->o, op->attr[1] == 1 ? "\"dynamic\"" : "\"static\"");
    } else if (emit_token_is(t, "list")) {
        acl__list(E, op, 0, where);
    } else if (emit_token_is(t, "astart") || emit_token_is(t, "aend")) {
        acl__desc(E, D_SCALAR, acl__render(E, acl__arange_expr, op, -1, t->s[1] == 'e'), where);
    } else if (emit_token_is(t, "shifts") || emit_token_is(t, "sdims")) {
        acl__desc(E, D_ARRAY, acl__render(E, acl__pairs_expr, op, -1, emit_token_is(t, "shifts") ? 's' : 'd'), where);
    } else if (t->s[0] == 'l' && k >= 0 && t->n == 2) {
        acl__list(E, op, (uint32_t)k, where);
    } else if (t->n > 2 && t->s[0] == 'n' && t->s[1] == ':') {
        return acl__nn_token(E, op, t, where);
    } else if (t->n > 2 && t->s[0] == 'a' && t->s[1] == ':') {
        return acl__sdpa_token(E, op, t, where);
    } else if (emit_token_is(t, "kl") || emit_token_is(t, "vl")) {
        acl__list1(E, op, t->s[0] == 'k' ? 1 : 2, where);
    } else if (emit_token_is(t, "ly")) {
        sb_puts(E->o, op->attr[0] == 2 ? "\"BNSD\"" : op->attr[0] == 1 ? "\"BSND\"" : "\"BSH\"");
    } else if (emit_token_is(t, "aq") || emit_token_is(t, "ak")) {
        acl__lengths(E, op, t->s[1] == 'q' ? 8 : 10, where);
    } else {
        return 0;
    }
    return 1;
}

/* The aclnn call of op on stream s. */
static void acl__op(Emit *E, int32_t op_id, int s)
{
    const Op *op = &E->g->ops.v[op_id];
    const AclOp *row = op_info[op->kind].flags & OPF_COLLECTIVE ? NULL : acl__row(E, op, 0);
    StrBuf where = {0};
    acl__where(E, op, &where);
    sb_printf(E->o, "    /* stream %d: ", s);
    graph_val_type_str(E->g, op->out, E->o);
    sb_printf(E->o, " %%%d = %s", op->out, op_info[op->kind].name);
    int k = emit_static_kernel(E, op_id);
    if (k >= 0) {
        sb_puts(E->o, "; static kernel ");
        cesc_comment(E->o, E->p->kernels.v[k].key);
    }
    sb_puts(E->o, " */\n");
    if (op_info[op->kind].flags & OPF_COLLECTIVE) {
        emit_line_op(E, op);
        acl__hccl(E, op, s, where.s);
        emit_line_back(E);
        sb_free(&where);
        return;
    }
    if (!row) {   /* reported by acl__rows: no code */
        sb_free(&where);
        return;
    }
    emit_line_op(E, op);
    Acl *A = E->target;
    if (op->kind == OP_SDPA) {   /* its scratch: after the gear's arena and the scratch before */
        A->sbase = ((E->p->mem.v[E->gear].arena_bytes + 63) & ~(int64_t)63) + A->sbytes;
        A->sbytes += acl__sdpa_offset(E, op, 8);
    }
    for (; row; row = row->then) {   /* a row's next call follows it */
        sb_printf(E->o, "    TNGC_ACLNN(%s, %d, %d, %s", row->fn->name, s, A->n[D_CALLS]++, where.s);
        emit_args(E, op, row->args, 1, acl__token, where.s);
        sb_puts(E->o, ");\n");
    }
    emit_line_back(E);
    sb_free(&where);
}

/* Where a unit's events are: its op's location, or its segment's first op's. */
static void acl__unit_where(Emit *E, const PlanUnit *u, StrBuf *w)
{
    int32_t op = u->seg >= 0 ? E->p->segs.v[u->seg].ops[0] : u->op;
    acl__where(E, &E->g->ops.v[op], w);
}

static void acl__unit(Emit *E, int32_t ui)
{
    const Plan *p = E->p;
    const PlanUnit *u = &p->units.v[ui];
    StrBuf where = {0};
    acl__unit_where(E, u, &where);
    for (size_t w = 0; w < u->nwait; w++) {
        const PlanEvent *ev = &p->events.v[u->wait[w]];
        sb_printf(E->o, "    TNGC_WAIT(%d, %d, %s);   /* e%d: stream %d waits for stream %d%s */\n", u->wait[w],
                  u->stream, where.s, u->wait[w], ev->to, ev->from, ev->explicit_wait ? " (npu_wait_tensor)" : "");
    }
    if (u->seg >= 0) {
        const PlanSegment *sg = &p->segs.v[u->seg];
        const GraphSk *sk = &E->g->sks.v[sg->sk];
        sb_puts(E->o, "    TNGC_SUPER_KERNEL_BEGIN(");
        cesc_string(E->o, sk->name);
        sb_puts(E->o, ", ");
        cesc_string(E->o, sk->options ? sk->options : "");
        sb_printf(E->o, ", %d);   /* %zu ops; ended by: ", u->seg, sg->nops);
        cesc_comment(E->o, sg->split);
        sb_puts(E->o, " */\n");
        for (size_t i = 0; i < sg->nops; i++)
            if (emit_has_kernel(E, sg->ops[i]))
                acl__op(E, sg->ops[i], u->stream);
        sb_puts(E->o, "    TNGC_SUPER_KERNEL_END(");
        cesc_string(E->o, sk->name);
        sb_printf(E->o, ", %d);\n", u->seg);
    } else if (emit_has_kernel(E, u->op)) {
        acl__op(E, u->op, u->stream);
    }
    for (size_t r = 0; r < u->nrecord; r++) {
        const PlanEvent *ev = &p->events.v[u->record[r]];
        sb_printf(E->o, "    TNGC_RECORD(%d, %d, %s);   /* e%d: stream %d -> stream %d */\n", u->record[r],
                  u->stream, where.s, u->record[r], ev->from, ev->to);
    }
    sb_free(&where);
}

/* ---- per gear ----------------------------------------------------------------------- */

/* Statements per descriptor-building function (g<gear>_build_<n>), as
 * ACL_UNITS_PER_FN for the launch: 0.5 to 1.5 KB of code each at -O1. */
#define ACL_STMTS_PER_FN 128

/* The opening of a descriptor-building function, named name. */
static void acl__build_open(Emit *E, const char *name)
{
    sb_printf(E->o, "static int %s(%s_t *self, TngcAclGear *G)\n{\n"
                    "    const TngrtRunCtx *c = &G->dev;\n    unsigned char *A = c->arena;\n"
                    "    const int64_t *S = c->sym;\n    (void)self;\n    (void)A;\n    (void)S;\n", name,
              E->opt->name);
}

/* Whether the line at l starts a statement of A->build (indented four
 * spaces; its continuation lines are deeper). */
static int acl__stmt_starts(const char *l)
{
    return !strncmp(l, "    ", 4) && l[4] != ' ';
}

/* The body of g<gi>_<what> when it is in npieces pieces: each called in
 * order, the first failure returned. */
static void acl__call_pieces(Emit *E, int gi, const char *what, size_t npieces)
{
    for (size_t f = 0; f < npieces; f++)
        sb_printf(E->o, "    if (g%d_%s_%zu(self, G) != 0)\n        return -1;\n", gi, what, f);
}

/* The line after the one at l (end after the last). */
static const char *acl__next_line(const char *l, const char *end)
{
    const char *nl = memchr(l, '\n', (size_t)(end - l));
    return nl ? nl + 1 : end;
}

/* g<gi>_build: the descriptors of g<gi>_launch (A->build: statements
 * that each start with a line indented four spaces, their continuation
 * lines deeper), in one function or, past ACL_STMTS_PER_FN, in pieces it
 * calls. */
static void acl__build(Emit *E, Acl *A, int gi)
{
    const char *s = A->build.s ? A->build.s : "", *end = s + A->build.len;
    size_t nstmt = 0, npieces = 0;
    char name[64];
    for (const char *l = s; l < end; l = acl__next_line(l, end))
        nstmt += acl__stmt_starts(l);
    if (nstmt > ACL_STMTS_PER_FN) {
        const char *l = s;
        for (size_t f = 0; l < end; f++, npieces++) {
            size_t n = 0;
            snprintf(name, sizeof name, "g%d_build_%zu", gi, f);
            sb_printf(E->o, "\n/* Descriptors %zu on of g%d_launch. */\n", f * ACL_STMTS_PER_FN, gi);
            acl__build_open(E, name);
            const char *l0 = l;
            for (; l < end; l = acl__next_line(l, end)) {
                if (acl__stmt_starts(l) && n++ == ACL_STMTS_PER_FN)
                    break;
            }
            sb_putn(E->o, l0, (size_t)(l - l0));
            sb_puts(E->o, "    return 0;\n}\n");
        }
    }
    snprintf(name, sizeof name, "g%d_build", gi);
    sb_printf(E->o, "\n/* The descriptors of g%d_launch, over the gear's device addresses. */\n", gi);
    acl__build_open(E, name);
    if (npieces)
        acl__call_pieces(E, gi, "build", npieces);
    else
        sb_putn(E->o, s, A->build.len);
    sb_puts(E->o, "    return 0;\n}\n");
}

/* Units per launch function: a gear of more is issued by pieces of this
 * many, g<gear>_launch_<n>, called in order by g<gear>_launch. Measured
 * with gcc 12 -O1 on a gear of 640 calls in one function: 19 s; the
 * optimiser's time grows faster than a function's length. */
#define ACL_UNITS_PER_FN 64

/* g<gi>_launch: the gear's units in issue order, in one function or, past
 * ACL_UNITS_PER_FN, in pieces it calls. */
static void acl__launch(Emit *E, Acl *A, int gi)
{
    size_t npieces = A->norder > ACL_UNITS_PER_FN ? (A->norder + ACL_UNITS_PER_FN - 1) / ACL_UNITS_PER_FN : 0;
    for (size_t f = 0; f < npieces; f++) {
        size_t i1 = (f + 1) * ACL_UNITS_PER_FN < A->norder ? (f + 1) * ACL_UNITS_PER_FN : A->norder;
        sb_printf(E->o, "\n/* Units %zu to %zu of g%d_launch. */\n"
                        "static int g%d_launch_%zu(%s_t *self, TngcAclGear *G)\n{\n    (void)self;\n    (void)G;\n",
                  f * ACL_UNITS_PER_FN, i1 - 1, gi, gi, f, E->opt->name);
        for (size_t i = f * ACL_UNITS_PER_FN; i < i1; i++)
            acl__unit(E, A->order[i]);
        sb_puts(E->o, "    return 0;\n}\n");
    }
    sb_printf(E->o, "\n/* The gear's units in issue order, each on its stream. */\n"
                    "static int g%d_launch(%s_t *self, TngcAclGear *G)\n{\n"
                    "    (void)self;\n    (void)G;\n", gi, E->opt->name);
    if (npieces)
        acl__call_pieces(E, gi, "launch", npieces);
    else
        for (size_t i = 0; i < A->norder; i++)
            acl__unit(E, A->order[i]);
    sb_puts(E->o, "    return 0;\n}\n");
}

static void acl__gear(Emit *E, Acl *A, int gi)
{
    emit_gear_begin(E, gi);
    A->build.len = 0;
    strmap_free(&A->index);
    arena_free(&A->keys);
    memset(A->n, 0, sizeof A->n);
    A->sbytes = 0;
    sb_printf(E->o, "\n/* ==== gear %d ==== */\n", gi);
    if (E->dyn || E->rtdims)
        emit_layout(E);
    acl__launch(E, A, gi);
    acl__build(E, A, gi);
    emit_outputs(E);
    emit_gear_tables(E, "tngc__on_device");
}

/* The tables after the gears: streams, gears (counts: descriptors and
 * calls; scratch: the ops' scratch bytes after the arena), returned
 * weights. */
static void acl__tables(Emit *E, const int (*counts)[5], const int64_t *scratch)
{
    const Plan *p = E->p;
    const Graph *g = E->g;
    int capture = g->cfg.mode && !strcmp(g->cfg.mode, "reduce-overhead");
    sb_puts(E->o, "\n/* ==== streams: one aclrtStream each, with its priority ==== */\n"
                  "static const TngcAclStream tngc__streams[] = {\n");
    for (size_t s = 0; s < g->streams.n; s++) {
        int64_t pr = g->streams.v[s].priority;
        sb_puts(E->o, "    {");
        cesc_string(E->o, g->streams.v[s].tag ? g->streams.v[s].tag : "default");
        sb_printf(E->o, ", %s},\n", EMIT_I64(pr < 0 ? 0 : pr > 7 ? 7 : pr));
    }
    sb_puts(E->o, "};\n\n/* ==== gears: descriptors, capture (reduce-overhead), code ==== */\n"
                  "static const TngcAclGearCode tngc__gears[] = {\n");
    for (size_t gi = 0; gi < p->gears.n; gi++) {
        int fixed = !emit_runtime_dims(p, (int)gi);
        sb_printf(E->o, "    {%d, %d, %d, %d, %d, %d, %d, %s, g%zu_build, g%zu_launch},\n", counts[gi][0],
                  counts[gi][1], counts[gi][2], counts[gi][3], capture && fixed, counts[gi][4], !capture && fixed,
                  EMIT_I64(scratch[gi]), gi, gi);
    }
    sb_puts(E->o, "};\n\n/* weights an output returns: a host copy is kept */\n"
                  "static const signed char tngc__weight_returned[] = {");
    for (size_t w = 0; w < g->weights.n; w++) {
        int ret = 0;
        for (size_t o = 0; o < g->outputs.n; o++)
            ret |= graph_storage_root(g, g->outputs.v[o].value) == g->weights.v[w].value;
        sb_printf(E->o, "%d, ", ret);
    }
    sb_puts(E->o, "0};\n\n/* weights stored FRACTAL_NZ: the width of their blocks (0: ND) */\n"
                  "static const unsigned char tngc__weight_nz[] = {");
    for (size_t w = 0; w < g->weights.n; w++)
        sb_printf(E->o, "%d, ", ((Acl *)E->target)->nz[w]);
    sb_puts(E->o, "0};\n");
}

/* "aclnnStatus <name>(<params>);", wrapped at a parameter before 100
 * columns. */
static void acl__prototype(StrBuf *o, const char *name, const char *params)
{
    size_t start = o->len;
    sb_printf(o, "aclnnStatus %s(", name);
    for (const char *p = params; *p;) {
        size_t n = strcspn(p, ",");
        if (o->len - start + n + 2 > 100 && p != params) {
            sb_puts(o, "\n   ");
            start = o->len - 3;
        }
        sb_printf(o, "%s%.*s%s", p == params ? "" : " ", (int)n, p, p[n] ? "," : ");\n");
        p += n;
        p += *p == ',';
        p += *p == ' ';
    }
}

/* The declarations of the aclnn operators the bundle calls, CANN's own
 * (acl_ops.c): CANN's aclnnop/ headers are C++, the bundle is C. */
static void acl__declarations(Emit *E, Acl *A)
{
    sb_puts(E->o, "\n/* ---- aclnn operators: CANN 8.1.RC1's declarations (its aclnnop/ headers are C++) ---- */\n");
    for (size_t f = 0; f < A->fns.n; f++) {
        const AclFn *fn = A->fns.v[f];
        sb_printf(E->o, "/* %s */\n", fn->header);
        StrBuf name = {0}, params = {0};
        sb_printf(&name, "%sGetWorkspaceSize", fn->name);
        sb_printf(&params, "%s, uint64_t *workspaceSize, aclOpExecutor **executor", fn->params);
        acl__prototype(E->o, name.s, params.s);
        params.len = 0;
        sb_printf(&params, "void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, %saclrtStream stream",
                  fn->const_stream ? "const " : "");
        acl__prototype(E->o, fn->name, params.s);
        sb_free(&name);
        sb_free(&params);
    }
    sb_puts(E->o, "/* ---- end of aclnn operators ---- */\n");
}

/* What the body's opening comment says about static kernels and segments. */
static void acl__preamble(Emit *E, Acl *A)
{
    const Plan *p = E->p;
    const EntryConfig *c = &E->g->cfg;
    sb_puts(E->o, "#define TNGC_GENERATED 1\n");
    acl__declarations(E, A);
    if (A->hccl) {
        sb_puts(E->o, "\n");
        emit_hccl_declarations(E->o);
        sb_printf(E->o, "\n/* The communicator of a group of ranks, by its mask (bit r: world rank r;\n"
                        " * %s.c). */\nHcclComm %s_hccl_comm(int64_t group);\n\n"
                        "/* One HCCL collective on stream s, in its order: a trace slice named by its\n"
                        " * place in the script; a failure names the call and the op. */\n"
                        "#define TNGC_HCCL(fn, s, where, ...)                            \\\n"
                        "    do {                                                        \\\n"
                        "        uint64_t tngc__t0 = tngc__now(self);                    \\\n"
                        "        int tngc__rc = (int)fn(__VA_ARGS__);                    \\\n"
                        "        if (tngc__rc != 0)                                      \\\n"
                        "            return tngc__acl_fail(self, tngc__rc, #fn, (where)); \\\n"
                        "        tngc__slice(self, (s), (where), tngc__t0);              \\\n"
                        "    } while (0)\n",
                  E->opt->dist_name, E->opt->dist_name);
    }
    if (c->static_kernel && c->mode && !strcmp(c->mode, "reduce-overhead")) {
        int n = 0;
        for (size_t k = 0; k < p->kernels.n; k++)
            n += p->kernels.v[k].selected;
        sb_printf(E->o, "\n/* Static kernels: %d operator shapes, listed in the op-info manifest tree\n"
                        " * that tngc writes under ", n);
        cesc_comment(E->o, c->build_dir ? c->build_dir : "the script's folder");
        sb_puts(E->o, "/aclnn_static_shape_kernel_outputs/; once the\n"
                      " * static kernel package compiled from it is installed, the aclnn operators below\n"
                      " * run those kernels for these shapes. Each op names its kernel. */\n");
    }
    if (p->segs.n)
        sb_printf(E->o, "\n/* Super kernels: %zu segment(s), each between TNGC_SUPER_KERNEL_BEGIN\n"
                        " * (scope, options as written) and TNGC_SUPER_KERNEL_END. */\n",
                  p->segs.n);
}

static void acl__body(Emit *E, StrBuf *body)
{
    Acl *A = E->target;
    E->o = body;
    acl__preamble(E, A);
    int(*counts)[5] = xcalloc(E->p->gears.n + 1, sizeof *counts);
    int64_t *scratch = xcalloc(E->p->gears.n + 1, sizeof *scratch);
    for (size_t gi = 0; gi < E->p->gears.n; gi++) {
        acl__gear(E, A, (int)gi);
        memcpy(counts[gi], A->n, sizeof A->n);
        scratch[gi] = A->sbytes;
    }
    acl__tables(E, (const int(*)[5])counts, scratch);
    emit_desc(E);
    free(counts);
    free(scratch);
}

/* The dim helpers of templates/bundle.c, for the "helpers" splice. */
static void acl__helpers(StrBuf *out)
{
    const char *t = template_text("bundle.c");
    const char *a = t ? strstr(t, "/* Dims computed at run time") : NULL;
    const char *b = a ? strstr(a, "/* A unit's trace slice") : NULL;
    if (!b) {
        TNGC_BUG("templates/bundle.c has no dim helpers");
    }
    sb_puts(out, "/* The dim helpers of templates/bundle.c. */\n");
    sb_putn(out, a, (size_t)(b - a));
    while (out->len && out->s[out->len - 1] == '\n')
        out->len--;
    out->s[out->len] = 0;
}

static const char *acl__splice(void *ctx, const char *key)
{
    EmitSplice *sc = ctx;
    if (strcmp(key, "helpers") != 0)
        return emit_splice(ctx, key);
    sc->text.len = 0;
    acl__helpers(&sc->text);
    return sc->text.s;
}

/* The launcher's splices: emit_splice's, but with --world-size N > 1 the
 * prologue reads the rank from $RANK_ID (tngrt_rank.h), not from MPI. */
static const char *acl__launcher_splice(void *ctx, const char *key)
{
    EmitSplice *sc = ctx;
    Emit *E = sc->E;
    int ws = E->opt->world_size;
    if (ws < 2 || strcmp(key, "prologue") != 0)
        return emit_splice(ctx, key);
    GenOptions one = *E->opt;
    const GenOptions *saved = E->opt;
    one.world_size = 0;
    E->opt = &one;
    emit_splice(ctx, key);
    E->opt = saved;
    sb_printf(&sc->text, "\n#include \"tngrt_rank.h\"\n"
                         "#define TNGC_DIST_BEGIN(argc, argv, prog) tngrt_rank_begin((argc), (argv), %d, (prog))",
              ws);
    return sc->text.s;
}

/* <name>.h: the CPU target's header with this target's handle. */
static void acl__header(Emit *E, EmitSplice *sc, GenFiles *out)
{
    const char *name = E->opt->name;
    GenFile *h = emit_file(out, name, ".h", 0);
    StrBuf old = {0}, new = {0};
    template_expand(template_text("tngc_template.h"), name, emit_splice, sc, &h->text);
    sb_printf(&old, "typedef struct TngrtBundle %s_t;", name);
    sb_printf(&new, "typedef struct %s_acl %s_t;   /* the Ascend NPU bundle */\n\n"
                    "/* State shared between the ACL bundles of two compiled entries (as\n"
                    " * tngrt_bundle_share_state binds CPU bundles): the weights of self that the\n"
                    " * plan marks state shared with owner's entry are bound to owner's device\n"
                    " * blocks (owner: that entry's handle, <entry>_t *, on the same device), so\n"
                    " * that each bundle's runs see the other's writes; loading weights into\n"
                    " * either afterwards sets the shared values. Owner must outlive self's runs.\n"
                    " * Returns the number of weights bound, or -1 (nothing bound; _last_error\n"
                    " * says why): owner is self, shares nothing with self, or holds such a\n"
                    " * weight with another dtype or size, or not as state. */\n"
                    "int %s_share_state(%s_t *self, const void *owner);\n\n"
                    "/* Every shared weight of self on its own device block (a launcher running\n"
                    " * one bundle does this). Until one of the two calls, _run refuses a bundle\n"
                    " * with shared state. Returns 0, or -1. */\n"
                    "int %s_own_state(%s_t *self);",
              name, name, name, name, name, name);
    char *at = strstr(h->text.s, old.s);
    if (!at) {
        TNGC_BUG("tngc_template.h has no handle typedef");
    }
    StrBuf t = {0};
    sb_putn(&t, h->text.s, (size_t)(at - h->text.s));
    sb_puts(&t, new.s);
    sb_puts(&t, at + old.len);
    sb_free(&h->text);
    h->text = t;
    sb_free(&old);
    sb_free(&new);
}

int emit_acl(const Plan *p, const GenOptions *given, GenFiles *out, DiagList *diags)
{
    Emit E;
    Acl A = {0};
    StrBuf ident = {0};
    GenOptions o = emit_options(given, &ident);
    const GenOptions *opt = &o;
    emit_init(&E, p, opt, diags);
    E.target = &A;
    if (emit_check_writeback(&E, "ACL") == 0 && !E.errors)
        acl__rows(&E, &A);
    if (E.errors) {
        emit_fini(&E);
        VEC_FREE(A.fns);
        sb_free(&ident);
        return -1;
    }
    acl__issue_order(&E, &A);
    acl__nz_weights(&E, &A);
    EmitSplice sc = {&E, {0}};
    const char *name = opt->name;
    acl__header(&E, &sc, out);
    emit_bundle_c(&E, "bundle_acl.c", acl__splice, acl__body, out);
    GenFile *l = emit_file(out, name, "_launcher.c", 0);
    template_expand(template_text("launcher_acl.c"), name, acl__launcher_splice, &sc, &l->text);
    sb_free(&sc.text);
    sb_free(&A.build);
    sb_free(&A.scratch);
    strmap_free(&A.index);
    arena_free(&A.keys);
    free(A.order);
    free(A.nz);
    VEC_FREE(A.fns);
    sb_free(&ident);
    emit_fini(&E);
    return E.errors ? -1 : 0;
}
