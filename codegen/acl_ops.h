/*
 * acl_ops.h - the ACL target's table from ops to aclnn operators
 * (acl_ops.c), read by emit_acl.c, and the op types of its manifests.
 */
#ifndef TNGC_ACL_OPS_H
#define TNGC_ACL_OPS_H

#include "../ir/graph.h"

/* Which form of an op kind a row maps (binary ops with a scalar operand,
 * linear with or without a bias, ...). */
typedef enum AclVariant {
    ACL_V_PLAIN,        /* the op as it is; tensor op tensor */
    ACL_V_TENSOR_SCALAR,/* tensor op scalar; linear with a bias */
    ACL_V_SCALAR_TENSOR,/* scalar op tensor */
    ACL_V_OTHER,        /* a form no aclnn operator computes (never in the table) */
} AclVariant;

/* One aclnn operator: its two functions, declared by the bundle itself
 * exactly as CANN 8.1.RC1's aclnnop/ header declares them (those headers
 * are C++; docs/bundles.md, "Declarations"):
 *   aclnnStatus <name>GetWorkspaceSize(<params>, uint64_t *workspaceSize,
 *                                      aclOpExecutor **executor);
 *   aclnnStatus <name>(void *workspace, uint64_t workspaceSize,
 *                      aclOpExecutor *executor, [const] aclrtStream stream); */
typedef struct AclFn {
    const char *name;      /* "aclnnAdd" */
    const char *header;    /* "aclnnop/aclnn_add.h": where CANN declares it */
    const char *params;    /* the GetWorkspaceSize parameters before workspaceSize, CANN's types and order */
    int const_stream;      /* CANN declares the launch's stream `const aclrtStream` */
} AclFn;

/* One row: op kind and variant -> the aclnn operator that computes it and
 * its arguments before (workspaceSize, executor), as a spec of
 * space-separated tokens (acl_ops.c documents them), one per parameter of
 * fn->params. */
typedef struct AclOp {
    OpKind kind;
    AclVariant variant;
    const AclFn *fn;       /* NULL in the ACL_NONE row of a source or view */
    const char *args;      /* "i0 i1 f1 o0" */
    const struct AclOp *then;   /* a second call after fn (NULL: none), its
                                 * tokens read the same op */
} AclOp;

/* The args of a kind's explicit "no aclnn call" row (sources and views). */
#define ACL_NONE "-"

/* The variant of op that the table is looked up with; *why names a form
 * that has no row ("a scalar divided by a tensor"), or is NULL. */
AclVariant acl_op_variant(const Graph *g, const Op *op, const char **why);

/* The row of (kind, variant), or NULL: the op has no aclnn mapping. */
const AclOp *acl_op_find(OpKind kind, AclVariant variant);

/* The chain of calls of scaled_dot_product_attention op (its form: no
 * mask, a float mask, a bool mask, is_causal); its "a:" tokens name the
 * op's scratch tensors (emit_acl.c). */
const AclOp *acl_op_sdpa(const Graph *g, const Op *op);

/* 1 when kind has its plain row in the table, or the explicit ACL_NONE
 * (tests/unit/test_ops.c checks every kind). */
int acl_op_has_row(OpKind kind);

/* The op type of kind in the static-kernel manifests ("MatMulV2"), or NULL when
 * the table has none (a bug: test_ops.c checks every kind). */
const char *acl_op_type_of_kind(OpKind kind);

/* The number of parameters in fn->params (each row's args has one token per
 * parameter). */
int acl_fn_nparams(const AclFn *fn);

/* The aclDataType enumerator of t: "ACL_FLOAT16", ... */
const char *acl_dtype(DType t);

#endif
