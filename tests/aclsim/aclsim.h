/*
 * aclsim.h - what the parts of the executing AscendCL stand-in share:
 * operand snapshots (the descriptors an operator's first phase was given,
 * copied into its executor), element access in every dtype and format the
 * op table uses, and the operators' reference loops (aclsim_ops.c) that
 * the stream threads of aclsim.c run.
 */
#ifndef TNGC_ACLSIM_H
#define TNGC_ACLSIM_H

#include "aclnn/acl_meta.h"

#include <stddef.h>
#include <stdint.h>

enum { SIM_MAX_DIMS = 8, SIM_MAX_ARGS = 32 };

/* aclnn/acl_meta.h is the aclnn part of templates/bundle_acl.c (C, as
 * tests/aclsim/build.sh writes it), which includes acl/acl.h. */

/* An aclTensor: its view over device memory (offset and strides in
 * elements) and its storage (FRACTAL_NZ: the NZ dims). */
typedef struct SimTensor {
    int nd, snd;
    int64_t dims[SIM_MAX_DIMS], strides[SIM_MAX_DIMS], sdims[SIM_MAX_DIMS];
    int64_t offset;
    aclDataType dt;
    aclFormat fmt;
    char *data;
} SimTensor;

/* What a first-phase parameter is (the generated wrappers say). */
typedef enum { SA_T, SA_TL, SA_S, SA_IA, SA_I, SA_D, SA_B, SA_STR, SA_BA } SimArgKind;

/* A first-phase argument as the generated wrapper passes it. */
typedef struct SimArg {
    SimArgKind kind;
    int writes;         /* a tensor parameter CANN names as an output */
    const void *p;
    int64_t i;
    double d;
} SimArg;

/* The same argument copied into the executor: a tensor (absent: t.data
 * NULL and present 0), a tensor list, a scalar, an int array, a number. */
typedef struct SimVal {
    SimArgKind kind;
    int present;
    SimTensor t;
    SimTensor *list;
    int64_t *ia;
    int n;
    double d;           /* a scalar's value, a double or a bool argument */
    int64_t i;          /* an integer argument, an integer scalar's value */
    int is_int;         /* a scalar made from an integer dtype */
    int writes;         /* a tensor the operator writes (an output, a selfRef) */
    char str[32];
} SimVal;

/* One recorded operator: its name, its arguments and the workspace it asks. */
typedef struct SimOp {
    const char *name;
    int n;
    SimVal a[SIM_MAX_ARGS];
    uint64_t ws;
} SimOp;

/* ---- element access (aclsim_ops.c) ---- */

size_t sim_dtype_bytes(aclDataType t);
int sim_dtype_is_float(aclDataType t);
int64_t sim_numel(const SimTensor *t);
/* The byte span [*lo, *hi) of device memory the tensor's elements lie in. */
void sim_span(const SimTensor *t, char **lo, char **hi);

/* ---- the operators (aclsim_ops.c) ---- */

/* The reference loop of op name, or NULL when aclsim has none. */
typedef int (*SimKernel)(const SimOp *op, char *err, size_t errlen);
SimKernel sim_kernel(const char *name);
/* The element of t that index idx of an nd-dim result broadcasts from,
 * and the element at idx written (rounded to t's dtype); the next index of
 * dims[0..nd) in C order (0 after the last). */
long double sim_rd(const SimTensor *t, const int64_t *idx, int nd);
void sim_wr(const SimTensor *t, const int64_t *idx, long double v);
int sim_next(int64_t *idx, const int64_t *dims, int nd);

/* ---- torch_npu's fused operators (aclsim_npu.c) ---- */

/* The reference loop of a fused operator, NULL if it has none. */
SimKernel sim_npu_kernel(const char *name);
/* The workspace bytes an operator asks for in its first phase. */
uint64_t sim_workspace_bytes(const SimOp *op);

/* ---- HCCL (hccl.c) ---- */

/* The loop of an HCCL collective issued by sim_issue, NULL if name is none. */
SimKernel sim_hccl_kernel(const char *name);
/* Issues operator name with arguments a[0..n) on stream, without a
 * workspace (its first phase and its launch in one): a task of the stream
 * that the checker sees as an aclnn operator. 0, or an error (sim_fail). */
int sim_issue(const char *name, int n, const SimArg *a, aclrtStream stream);
/* One line "aclsim: ..." on stderr and aclGetRecentErrMsg's; the process
 * exits 70 at its end. Returns aclsim's error code. */
int sim_fail(const char *fmt, ...);

#endif
